/**
 * The upgrade guide's data: every version change between two versions, oldest first, with what it affects.
 * @module
 */
import { formatParamUrl } from '@fastify/swagger'
import type { TSchema } from '@sinclair/typebox'
import type { MigrationEngine } from '../serve/migrate-response-body'
import { applies, type RouteState } from '../routes/timeline'
import { isSuccessKey, routeSchemas, type BehaviourRoute } from '../routes/version-plan'
import { answersSuccess, slotParts } from '../routes/schema-forms'
import type { VersionerState } from '../routes/versioner-state'
import type { ConverterStep } from '../routes/converter-steps'
import type { DeclaredWebhook } from '../routes/webhooks'
import { isEndpointInstruction } from '../describe/instructions'
import type { VersionChangeDescriptor } from '../describe/version-change-reader'
import { ChangeExamples, type UpgradeExample } from './upgrade-examples'
import { inNameOrder } from './document-order'

/**
 * An operation a change affects: as the version after the change has it (or the one before, for a removed one).
 * @example
 * ```ts
 * declare const guide: UpgradeGuide // GET /docs/upgrade?from=2000-01-01&to=2002-01-01&format=json
 * const affected: UpgradeOperation[] = guide.changes.flatMap((change) => change.operations)
 * for (const { method, path } of affected) console.log(method, path) // POST /users
 * ```
 */
export interface UpgradeOperation {
  readonly method: string
  /** The path as the documents write it (`/users/{userId}`). */
  readonly path: string
  readonly operationId?: string
  /** The path in the version before the change, when the change moved it (`had({ path })`): the one its clients call. */
  readonly previousPath?: string
  /** The methods (`PUT`, or `PUT,POST`) the version before the change had instead, when the change moved this one (`had({ methods })`). */
  readonly previousMethod?: string
  /** `'added'` or `'removed'` by the change, else `'changed'`. */
  readonly status: 'added' | 'removed' | 'changed'
}

/**
 * One version change of the guide.
 * @example
 * ```ts
 * declare const guide: UpgradeGuide // GET /docs/upgrade?from=2000-01-01&to=2002-01-01&format=json
 * for (const change of guide.changes as UpgradeChange[]) console.log(`${change.version}: ${change.name} — ${change.description}`)
 * ```
 */
export interface UpgradeChange {
  /** The version that introduced the change. */
  readonly version: string
  /** The version before it. */
  readonly previousVersion: string
  /** The version change class's name. */
  readonly name: string
  readonly description: string
  readonly sideEffects: boolean
  readonly operations: UpgradeOperation[]
  /** The webhooks it affects, each `'added'` or `'removed'` by the change (`didntExist`, `onlyExistsInOlderVersions`), else `'changed'`. */
  readonly webhooks: Array<{ readonly name: string, readonly method: string, readonly status: UpgradeOperation['status'] }>
  readonly examples: UpgradeExample[]
  /** Examples left out, and why (a converter threw, a result did not validate, the pair was the same). */
  readonly notes: string[]
}

/**
 * The upgrade guide from one version to a newer one: what `GET <docs>/upgrade?from=A&to=B&format=json` answers.
 * @example
 * ```ts
 * const base = 'https://api.example.com' // where the docs are served
 * const guide = await (await fetch(`${base}/docs/upgrade?from=2000-01-01&to=2002-01-01&format=json`)).json() as UpgradeGuide
 * for (const change of guide.changes) console.log(change.version, change.name, change.operations.length)
 * ```
 */
export interface UpgradeGuide {
  readonly from: string
  readonly to: string
  /** Every change between them, oldest first (newest last). */
  readonly changes: UpgradeChange[]
}

/** A HEAD route or a webhook, as the guide looks at it. */
interface Subject {
  readonly timeline: readonly RouteState[]
  readonly operationId: string | undefined
  /** The schemas of the subject at a level (HEAD schemas): request parts, responses or payload. */
  readonly schemas: (level: number) => TSchema[]
  readonly route?: BehaviourRoute
}

/** The guides of one application (the guide route keeps each it builds). */
export class UpgradeGuides {
  /** Each version's changes, the same in every range holding it: built once (a range's page is not kept for long). */
  private readonly levels = new Map<number, Promise<UpgradeChange[]>>()
  /** Examples of payloads no converter of their change runs on (see `levelAt`). */
  private readonly borrowed = new WeakSet<UpgradeExample>()

  constructor (private readonly state: VersionerState, private readonly webhooks: () => readonly DeclaredWebhook[], private readonly engine: MigrationEngine) {}

  /** The guide from `from` to `to` (both versions of the bundle, `from` older). */
  async guide (from: string, to: string): Promise<UpgradeGuide> {
    const { generation } = this.state
    const changes: UpgradeChange[] = []
    // Step L's changes turn level L (the version holding them) into level L + 1 (the version before it).
    for (let level = generation.levelOf(from) - 1; level >= generation.levelOf(to); level--) {
      let part = this.levels.get(level)
      if (part === undefined) this.levels.set(level, part = this.levelAt(level))
      changes.push(...await part)
    }
    return { from, to, changes }
  }

  /**
   * The changes of step `level`. A pair is the payload in the two versions, whichever of the version's changes made
   * the difference: one a change shows though no converter of it runs on the payload, the same as one shown under a
   * change whose converters do, is shown there only, and a note says so (decision 0333).
   */
  private async levelAt (level: number): Promise<UpgradeChange[]> {
    const built: UpgradeChange[] = []
    for (const change of this.state.steps[level].changes) built.push(await this.changeAt(change, level))
    const same = (left: UpgradeExample, right: UpgradeExample): boolean => JSON.stringify(left) === JSON.stringify(right)
    for (const entry of built) {
      const kept = entry.examples.filter((example) => {
        const owner = this.borrowed.has(example)
          ? built.find((other) => other !== entry && other.examples.some((candidate) => !this.borrowed.has(candidate) && same(candidate, example)))
          : undefined
        if (owner === undefined) return true
        entry.notes.push(`${example.operation} ${example.part}${example.status === undefined ? '' : ` (${example.status})`}: shown under ${owner.name}, ` +
          `whose converters make the difference (the example is the same: ${entry.version} holds both changes)`)
        return false
      })
      entry.examples.splice(0, entry.examples.length, ...kept)
    }
    return built
  }

  private async changeAt (change: VersionChangeDescriptor, level: number): Promise<UpgradeChange> {
    const version = this.state.versionAt(level)
    const previousVersion = this.state.versionAt(level + 1)
    const entry: UpgradeChange = {
      version,
      previousVersion,
      name: change.name,
      description: change.description,
      sideEffects: change.hasSideEffects,
      operations: [],
      webhooks: [],
      examples: [],
      notes: []
    }
    const sink = { version, previousVersion, examples: entry.examples, notes: entry.notes, borrowed: this.borrowed }
    const examples = new ChangeExamples(this.state, this.engine, sink, change, level)
    // In the order of paths and names, whatever order the routes registered and the webhooks were declared in.
    for (const head of inNameOrder(this.state.headRoutes, (route) => `${route.path} ${route.methods.join(',')}`)) {
      const subject: Subject = {
        timeline: head.timeline,
        operationId: typeof head.schema.operationId === 'string' ? head.schema.operationId : undefined,
        schemas: (at) => routeSchemas(head, at),
        route: head
      }
      const status = this.affects(subject, examples, level)
      if (status === undefined) continue
      const state = head.timeline[status === 'removed' ? level + 1 : level]
      const previous = head.timeline[level + 1]
      const moved = status === 'changed' && previous.path !== state.path ? { previousPath: formatParamUrl(previous.path) } : {}
      // Named as the version's document names it (`had({ operationId })` in a newer change renames it there).
      const operationId = state.attributes.operationId ?? subject.operationId
      const named = operationId === undefined ? {} : { operationId }
      // A method the change moved names the one the older version had; one only added, or only taken away, is so listed.
      const gone = status === 'changed' ? previous.methods.filter((method) => !state.methods.includes(method)) : []
      const added = status === 'changed' ? state.methods.filter((method) => !previous.methods.includes(method)) : []
      for (const method of state.methods) {
        const was = !added.includes(method) || gone.length === 0 ? moved : { ...moved, previousMethod: gone.join(',') }
        const own = added.includes(method) && gone.length === 0 ? 'added' : status
        entry.operations.push({ method, path: formatParamUrl(state.path), ...named, ...was, status: own })
        if (own === 'changed') await this.routeExamples(examples, { head, method, level, notes: entry.notes })
        if (own === 'added') await this.addedExamples(examples, head, method, level)
      }
      for (const method of added.length === 0 ? gone : []) entry.operations.push({ method, path: formatParamUrl(previous.path), ...named, status: 'removed' })
    }
    for (const webhook of inNameOrder(this.webhooks(), (webhook) => `${webhook.name} ${webhook.method}`)) {
      const subject: Subject = { timeline: webhook.timeline, operationId: webhook.attributes.operationId, schemas: () => [webhook.body] }
      const status = this.affects(subject, examples, level)
      if (status === undefined) continue
      entry.webhooks.push({ name: webhook.name, method: webhook.method, status })
      const at = { operation: `webhook ${webhook.name}`, part: 'webhook payload' } as const
      if (status === 'changed') await examples.response(at, webhook.body)
      if (status === 'added') await examples.added(at, { schema: webhook.body })
    }
    return entry
  }

  /** Whether the change of `examples` (of step `level`) affects a route or webhook, and how; `undefined` when it does not. */
  private affects (subject: Subject, examples: ChangeExamples, level: number): UpgradeOperation['status'] | undefined {
    const { change } = examples
    const after = subject.timeline[level]
    const before = subject.timeline[level + 1]
    const endpointChanged = (state: RouteState): boolean => state.exists &&
      change.instructions.some((instruction) => isEndpointInstruction(instruction) && applies(state, instruction, subject.operationId))
    if (!before.exists || !after.exists) return endpointChanged(after) ? 'added' : endpointChanged(before) ? 'removed' : undefined
    if (endpointChanged(after) || [level, level + 1].some((at) => subject.schemas(at).some((root) => examples.edits(root, at)))) return 'changed'
    return this.convertedBy(subject, change, level) ? 'changed' : undefined
  }

  /** True when a converter of `change` runs on a request or response of the route in the version before it. */
  private convertedBy (subject: Subject, change: VersionChangeDescriptor, level: number): boolean {
    const route = subject.route
    if (route === undefined) return false
    const { planner } = this.state
    const ours = (steps: ReadonlyArray<{ readonly converter: { readonly change: VersionChangeDescriptor } }>): boolean =>
      steps.some((step) => step.converter.change === change)
    if ([undefined, ...Object.values(route.forms.body.schemas)].some((body) => ours(planner.requestSteps(route, body, level + 1)))) return true
    const responses = route.forms.responses[level + 1].schemas
    return ours(planner.responseSteps(route, undefined, level + 1, responses)) ||
      Object.entries(responses).some(([key, schema]) => ours(planner.responseSteps(route, schema, level + 1, isSuccessKey(key) ? undefined : responses, key)))
  }

  /** The request body and response examples (successes, and errors the change reshapes) of one operation of a route, before and after step `level`. */
  private async routeExamples (examples: ChangeExamples, at: { head: NonNullable<Subject['route']>, method: string, level: number, notes: string[] }): Promise<void> {
    const { head, method, level } = at
    const operation = `${method} ${formatParamUrl(head.timeline[level].path)}`
    // A body declared by media type: each of its schemas once.
    const bodies = new Set(Object.values(head.forms.body.schemas))
    for (const body of bodies) await examples.request(head, { operation, part: 'request body', method }, body)
    // Headers and the query string a change renames or retypes: a client sends them too.
    for (const [part, label] of [['headers', 'request headers'], ['querystring', 'query string']] as const) {
      const schema = head.forms.parts[part]
      if (schema !== undefined) await examples.request(head, { operation, part: label, method }, schema, { part, body: [...bodies][0] })
    }
    const before = head.forms.responses[level + 1].schemas
    // What HEAD's handler answers: a newer change may have given both versions another response (`had({ response })`).
    const answered = head.forms.responses[0].schemas
    const slots = head.forms.responses[level].schemas
    for (const [slot, schema] of Object.entries(slots)) {
      if (before[slot] !== schema || answered[slot] === undefined) continue
      // An error slot's body as the version's error converters give it.
      const status = errorStatusOf(slot, Object.keys(slots))
      await examples.response({ operation, part: 'response body', status: statusKeyOf(slot), on: { route: head, method, slot, ...(status === undefined ? {} : { status }) } },
        schema, head, answered[slot])
    }
    // Errors the change's error converters run on, of no schema the route declares: there is nothing to make their example of.
    const ours = (step: ConverterStep): boolean => step.converter.change === examples.change && step.converter.migrateHttpErrors
    if (!Object.keys(before).some((slot) => !isSuccessKey(slot)) && this.state.planner.responseSteps(head, undefined, level + 1, before).some(ours)) {
      at.notes.push(`${operation} error responses: this change's converters declared with migrateHttpErrors run on them, but the route declares ` +
        'no error response to make an example of: declare its schema (response: { 404: … }) to show the bodies')
    }
  }

  /** The examples of an operation the change added, as the version after it has them: its request body and success responses (decision 0333). */
  private async addedExamples (examples: ChangeExamples, head: BehaviourRoute, method: string, level: number): Promise<void> {
    const operation = `${method} ${formatParamUrl(head.timeline[level].path)}`
    for (const body of new Set(Object.values(head.forms.body.schemas))) await examples.added({ operation, part: 'request body' }, { request: body })
    const slots = head.forms.responses[level].schemas
    const answered = head.forms.responses[0].schemas
    for (const [slot, schema] of Object.entries(slots)) {
      if (answered[slot] === undefined || errorStatusOf(slot, Object.keys(slots)) !== undefined) continue
      await examples.added({ operation, part: 'response body', status: statusKeyOf(slot), on: { route: head, method, slot } }, { schema, answered: answered[slot] })
    }
  }
}

/** A response slot's status as the documents key it (`404`, `4XX`, `default`), with its media type in a `content` map. */
function statusKeyOf (slot: string): string {
  const [status, media] = slotParts(slot)
  return `${status.replace(/^(\d)xx$/, '$1XX')}${media === undefined ? '' : ` ${media}`}`
}

/**
 * The status an error slot's example is sent with: its own, a range's first (`4xx`: 400), or, for `default` beside a
 * success slot of the route's (`slots`), the first error status no other slot takes (decision 0333); `undefined` for a
 * success slot, and for a `default` that is the route's only success (made as a 200).
 */
function errorStatusOf (slot: string, slots: readonly string[]): number | undefined {
  const [status] = slotParts(slot)
  const keys = slots.map((other) => slotParts(other)[0])
  if (status === 'default') {
    if (!keys.some(isSuccessKey)) return undefined
    const taken = (code: number): boolean => keys.includes(String(code)) || keys.includes(`${String(code)[0]}xx`)
    for (let code = 400; code < 600; code++) if (!taken(code)) return code
    return undefined
  }
  if (answersSuccess(slot)) return undefined
  return /^\dxx$/.test(status) ? Number(status[0]) * 100 : Number(status)
}
