/**
 * A request field HEAD gives a `default` that an older version never had, for `verify` (decision 0340): where the
 * application's validation fills defaults (Ajv's `useDefaults`, Fastify's default), a request of the older version
 * migrated up without the field is given HEAD's default, so its clients are served as if they had chosen a value
 * they cannot send. Each example reaching HEAD without it is a finding, unless a request converter writes the field.
 * A partial update's body is ./verify-updates.ts's: there a converter writing the field would overwrite what is stored.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { GenerationStep } from '../describe/versions'
import type { Check } from '../core/strict-validator'
import type { HeadRoute } from '../routes/versioner-state'
import type { RequestPart } from '../routes/version-plan'
import type { SchemaGeneration } from '../schemas/generation'
import type { JsonSchema } from '../values/examples'
import { asNode, declaredChildren, fieldsAt, pointerOfPath, readingNode, type PathKey, type RefResolver } from './data-flow'
import { servedRequest } from './validation-in-force'
import { isPartialUpdate } from './verify-updates'
import { shown } from './value-comparison'
import type { ReplayIssue, Report, Target, Trail } from './verify-replay'

/** What the watch needs of a run: the generation and its steps, the application's `$ref`s, its validators. */
interface DefaultsEnvironment {
  readonly generation: SchemaGeneration
  readonly steps: readonly GenerationStep[]
  readonly resolveRef: RefResolver
  readonly compile: (schema: TSchema) => Check
  readonly compileText?: (schema: TSchema) => Check
}

/** The route version watched: where its findings go, its level, HEAD's schema of each part, the form of a part at a level, its HEAD route. */
interface WatchedRoute {
  readonly target: Omit<Target, 'example'>
  readonly level: number
  readonly heads: (part: RequestPart) => TSchema | undefined
  readonly formAt: (part: RequestPart, level: number) => TSchema
  readonly head: HeadRoute
}

/** A field HEAD's validation filled in some example: the issue, and the first example (the part as its client sent it). */
interface Filled {
  readonly issue: ReplayIssue
  readonly example: unknown
  readonly ran: Set<string>
}

/** The parts a default is looked for in (a path parameter is always sent). A partial update's body is ./verify-updates.ts's (decision 0295). */
const WATCHED = ['body', 'querystring', 'headers'] as const
type Watched = typeof WATCHED[number]

/**
 * The fields HEAD's validation fills with their `default` in one route version's requests migrated up, where the
 * version lacks the field: fed each example that reached HEAD (`sent`), then reported (`done`), one finding per place.
 * @example
 * ```ts
 * const defaults = new NewFieldDefaults(env, { target, level: 2, heads, formAt, head }, report)
 * defaults.sent(sentParts, trail) // for each example that reached HEAD
 * defaults.done() // POST /invoices/search (2000-01-01): request body/order: … HEAD's default 'desc' …
 * ```
 */
export class NewFieldDefaults {
  private readonly found = new Map<string, Filled>()
  /** HEAD's validation of each part, as served (the route's own validator compiler, or the application's Ajv). */
  private readonly validate: ReadonlyMap<Watched, (data: Partial<Record<RequestPart, unknown>>) => void>

  constructor (private readonly env: DefaultsEnvironment, private readonly route: WatchedRoute, private readonly report: Report) {
    const partial = isPartialUpdate(route.head)
    this.validate = new Map(WATCHED.filter((part) => route.heads(part) !== undefined && !(partial && part === 'body')).map((part) => {
      const compile = part === 'body' ? env.compile : env.compileText ?? env.compile
      return [part, servedRequest(route.head.validation, compile, { validate: [[part, route.formAt(part, 0)]], cleaners: [] })]
    }))
  }

  /** Notes the fields HEAD's validation fills in a request that reached HEAD (`trail`), as its client sent it (`sent`). */
  sent (sent: Partial<Record<RequestPart, unknown>>, trail: Trail): void {
    const reached = trail.get(0)
    if (reached === undefined) return
    for (const [part, validate] of this.validate) {
      const before = part === 'body' ? reached.body : reached.text?.[part]
      if (!isRecord(before)) continue
      const data: Partial<Record<RequestPart, unknown>> = { [part]: before }
      validate(data)
      this.walk(part, before, data[part], (issue) => {
        const key = `${part}\n${issue.pointer}`
        const known = this.found.get(key)
        const filled = known ?? { issue, example: sent[part], ran: new Set<string>() }
        if (known === undefined) this.found.set(key, filled)
        for (const converter of trail.get(issue.step)?.converters ?? []) {
          if (issue.changes?.some((change) => converter.startsWith(`${change}.`)) === true) filled.ran.add(converter)
        }
      })
    }
  }

  /** Reports each field filled, at the version change that added it. */
  done (): void {
    for (const { issue, example, ran } of this.found.values()) this.report({ ...this.route.target, example }, { ...issue, converters: [...ran] })
  }

  /** Each field `after` (a part as HEAD's validation leaves it) holds that `before` (as it reached HEAD) lacks and the version never had. */
  private walk (part: RequestPart, before: unknown, after: unknown, found: (issue: ReplayIssue) => void): void {
    const { generation, resolveRef } = this.env
    const stack: Array<[unknown, unknown, unknown, PathKey[]]> = [[this.route.heads(part), before, after, []]]
    while (stack.length > 0) {
      const [schema, was, is, path] = stack.pop() as [unknown, unknown, unknown, PathKey[]]
      const bare = asNode(schema, resolveRef)
      if (bare === undefined || typeof was !== 'object' || was === null || typeof is !== 'object' || is === null) continue
      const node = readingNode(bare, was, resolveRef, { generation, level: 0 })
      for (const [key, sub] of declaredChildren(node, was)) {
        // A header is one level deep: its value is text.
        if (part !== 'headers' && Object.hasOwn(is, key)) stack.push([sub, (was as Record<PathKey, unknown>)[key], (is as Record<PathKey, unknown>)[key], [...path, key]])
      }
      if (Array.isArray(was) || Array.isArray(is)) continue
      for (const key of Object.keys(is)) {
        if (Object.hasOwn(was, key)) continue
        const issue = this.filledIssue(part, node, key, { path: [...path, key], value: (is as Record<string, unknown>)[key] })
        if (issue !== undefined) found(issue)
      }
    }
  }

  /** The issue of field `key` of `node` (a HEAD schema) filled with `value`, where the watched version lacks the field; none where it has it. */
  private filledIssue (part: RequestPart, node: JsonSchema, key: string, at: { path: PathKey[], value: unknown }): ReplayIssue | undefined {
    const { generation, steps } = this.env
    const seed = generation.seedOf(node as TSchema)
    if (seed === undefined) return undefined
    const same = (name: string): boolean => part === 'headers' ? name.toLowerCase() === key : name === key
    const id = fieldsAt(generation, seed.head, 0).find(({ key: name }) => same(name))?.field.id
    if (id === undefined) return undefined
    const has = (level: number): boolean => fieldsAt(generation, seed.head, level).some(({ field }) => field.id === id)
    // The step that added the field: the one after the newest level lacking it (none lacks it: the version has it).
    let lacks = 1
    while (lacks <= this.route.level && has(lacks)) lacks++
    if (lacks > this.route.level) return undefined
    const step = steps[lacks - 1]
    const name = fieldsAt(generation, seed.head, lacks - 1).find(({ field }) => field.id === id)?.key ?? key
    const naming = step.changes.filter((change) => change.instructions.some((instruction) => instruction.kind === 'field.didntExist' &&
      instruction.field === name && generation.seedOf(instruction.schema as TSchema)?.head === seed.head))
    const changes = (naming.length === 0 ? step.changes : naming).map((change) => change.name)
    const pointer = pointerOfPath(at.path)
    const where = part === 'querystring' ? 'query string' : part
    return {
      kind: 'default filled',
      part,
      pointer,
      value: at.value,
      message: `this version has no ${name}, and HEAD's validation fills in its default where a request leaves it out: ` +
        `older versions' clients are served HEAD's default ${shown(at.value)} for ${name}, which they cannot send`,
      fix: `Add a request converter to ${changes.join(', ')} that writes ${pointer} into the ${where} for older versions: the value ` +
        `their clients were served with, even where it equals HEAD's default ${shown(at.value)}.`,
      converters: [],
      changes,
      step: lacks - 1,
      reached: 0
    }
  }
}

/** True when `value` is an object, not a list. */
function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
