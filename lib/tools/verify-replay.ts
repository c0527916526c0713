/**
 * One replay of `verify`: a generated example taken through the converters of one route (or webhook) and version,
 * step by step, the way requests go up and responses down when served. After each version change the data must
 * match the schema of the version it has reached (validated strictly: no type coercion, so a retyped field must
 * be converted, not coerced; a HEAD enum member the version lacks is named as serving names it), and at the end
 * every sentinel that must arrive (./data-flow.ts) must be delivered, and no value followed there may be dropped
 * (./value-comparison.ts). The first version change after which either fails is the one at fault. Also the type
 * of what `verify` finds.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { GenerationStep } from '../describe/versions'
import type { ConverterStep } from '../routes/converter-steps'
import type { ConverterDescriptor } from '../describe/version-change-reader'
import type { RequestPart } from '../routes/version-plan'
import { clientErrorOf, ConverterFailure, copyJson, runStepsToBody } from '../serve/step-runner'
import { pointerOfPath, valueAt, type FollowedValue, type RefResolver, type RequiredValue } from './data-flow'
import { artefactBeside, arrives, deliveredStrings, spoiltStrings } from './sentinel-arrival'
import type { Check, ValidationIssue } from '../core/strict-validator'
import { pointerKey, pointerSegment } from '../core/json-schema'
import { droppedValues, shown } from './value-comparison'
import { unequalItems, type AlikeStrings } from './list-items'

/** One problem `verify` found: where, in which version and direction, and which version change is at fault. */
export interface VerifyFinding {
  /** The route as the version serves it (`POST /users`), or `webhook <name>`. */
  readonly route: string
  /** The newest version where the problem shows. */
  readonly version: string
  /** Every version where it shows (newest first). */
  readonly versions: readonly string[]
  /** `'request'`: a request of `version` migrated up to HEAD; `'response'`: a HEAD response (or webhook payload) migrated down to it. */
  readonly direction: 'request' | 'response'
  /**
   * `'invalid'`: the migrated data fails the schema of the version it reached; `'lost'`: a value that should arrive
   * (a renamed field's, a list's items) does not; `'round trip'`: a value sent up does not come back in the response;
   * `'converter failed'`: a converter threw; `'invalid example'`: an example of the version's OpenAPI document fails
   * its own schema (`route` is then `document`, `pointer` the example's place in the document); `'uncompilable'`: the
   * part's schema in that version does not compile with the application's Ajv (an instruction gave it a keyword, format
   * or `$ref` Ajv refuses), so every request of the version would answer 500; the version is not replayed.
   */
  readonly kind: 'invalid' | 'lost' | 'round trip' | 'converter failed' | 'invalid example' | 'uncompilable'
  /** The request part (`body`, `querystring`, `params`, `headers`), `response <status>`, or `converter`. */
  readonly part: string
  /** A JSON pointer into that part (`*` for array items): where the data stopped matching, or where the lost value was. */
  readonly pointer: string
  /** What went wrong. */
  readonly message: string
  /** The value that was lost, changed or refused (the generated one); absent when no one value is at fault. */
  readonly value?: unknown
  /** What to add or fix, in one sentence (every finding of a replay has one). */
  readonly fix?: string
  /** The version holding the change at fault (`'HeadVersion'` for HEAD changes). */
  readonly changeVersion: string
  /** The version change classes of that version. */
  readonly versionChanges: readonly string[]
  /** The converters of that version that ran on the example (`Class.method`); empty when none did. */
  readonly converters: readonly string[]
  /** The generated example that showed it (the request part, or the HEAD body). */
  readonly example: unknown
  /** The whole finding on one line. */
  readonly text: string
}

/** Where a finding was made. */
export type Target = Pick<VerifyFinding, 'route' | 'version' | 'direction' | 'example'>

/** Where findings go: the target, and the issue a replay found there. */
export type Report = (target: Target, issue: ReplayIssue) => void

/** What a replay reports: the kind of problem, where, the converters of the step at fault that ran, and that step. */
export type ReplayIssue = Pick<VerifyFinding, 'kind' | 'part' | 'pointer' | 'message' | 'converters'> & Partial<Pick<VerifyFinding, 'value' | 'fix'>> & {
  /** Index of the generation step at fault (`steps[index]`). */
  readonly step: number
  /** The level whose schema the data reached when it went wrong (0 is HEAD). */
  readonly reached: number
  /** The version changes at fault, when not every change of the step is (the one that removed an enum member). */
  readonly changes?: readonly string[]
}

/** A HEAD enum member a version lacks, found in a response of it: how serving would name it, and what to add. */
export interface Unexpressed {
  readonly value: unknown
  readonly message: string
  readonly fix: string
  readonly changes: readonly string[]
}

/** What must arrive of one part of an example: the example, the sentinels it holds, its values followed to a level. */
export interface Expected {
  readonly example: unknown
  readonly sentinels: readonly RequiredValue[]
  /** True when a sentinel may arrive word by word, in several strings (one way: a name split into two fields). */
  readonly byWords: boolean
  /** The values of the example followed to `level` (their places there), retyped fields included (as a whole). */
  readonly followedTo: (level: number) => readonly FollowedValue[]
  /**
   * The free strings of alike list items that have no counterpart of their own (each item's must arrive where
   * another's does), and the level they must reach (where the other side's room for them is known).
   */
  readonly alike?: { readonly strings: readonly AlikeStrings[], readonly to: number }
}

/** What replays need: strict validators, the application's `$ref`s, the generation steps, and how converters run. */
export interface ReplayContext {
  readonly compile: (schema: TSchema) => Check
  readonly resolveRef: RefResolver
  readonly steps: readonly GenerationStep[]
  readonly runConverter?: ConverterRun
}

/** The value at a JSON pointer of `data`. */
function valueAtPointer (data: unknown, pointer: string): unknown {
  return valueAt(data, pointer === '' ? [] : pointer.slice(1).split('/').map(pointerKey))
}

/** A JSON pointer with array indices as `*` (the same mistake shows at one place, whatever the example). */
function pointerOf (issue: ValidationIssue | undefined): string {
  if (issue === undefined) return ''
  const base = (issue.instancePath ?? '').replace(/\/\d+(?=\/|$)/g, '/*')
  const extra = issue.params?.missingProperty ?? issue.params?.additionalProperty
  return typeof extra === 'string' ? `${base}/${pointerSegment(extra)}` : base
}

/**
 * The fix of a `multipleOf` refusal of a value that is a multiple, but not in floating point (8.77 of 0.01): Ajv,
 * Fastify's too, refuses it whatever the converter, unless the application sets `multipleOfPrecision`.
 */
function floatingMultipleFix (issue: ValidationIssue | undefined, value: unknown): string | undefined {
  const step = issue?.keyword === 'multipleOf' ? issue.params?.multipleOf : undefined
  if (typeof step !== 'number' || typeof value !== 'number' || Math.abs(Math.round(value / step) - value / step) > 1e-9) return undefined
  return `${value} is a multiple of ${step}, but not in floating point, where Ajv checks it: Fastify refuses it too. ` +
    'Set Fastify({ ajv: { customOptions: { multipleOfPrecision: 9 } } }), or drop multipleOf from the schema.'
}

/** How a replay runs one converter on its argument: the converter itself, unless a tool wraps it (`mutate`'s mutants). */
export type ConverterRun = (converter: ConverterDescriptor, info: unknown) => unknown

/**
 * The steps of `steps` that belong to one generation step's version changes, tracking which ran, each run with `run`
 * when given.
 */
export function tracked (steps: readonly ConverterStep[], step: GenerationStep, ran: string[], run?: ConverterRun): ConverterStep[] {
  return steps.filter((candidate) => step.changes.includes(candidate.converter.change)).map((planned) => ({
    ...planned,
    converter: {
      ...planned.converter,
      run: (arg: unknown) => { ran.push(planned.converter.display); return run === undefined ? planned.converter.run(arg) : run(planned.converter, arg) }
    }
  }))
}

/** Where a replay is when it checks data: the generation step just run, the level reached, the converters that ran. */
type Where = Omit<ReplayIssue, 'kind' | 'pointer' | 'message'>

/** The issue of a converter that failed (a {@link ConverterFailure}, or what a run threw). */
function converterFailed (failure: unknown, where: Omit<Where, 'part'>): ReplayIssue {
  const error = failure instanceof ConverterFailure ? failure.thrown : failure
  const message = error instanceof Error ? `${error.name}: ${error.message}` : `threw ${String(error)}`
  return { kind: 'converter failed', part: 'converter', pointer: '', message, ...where }
}

/**
 * The checks of the data a replay reaches at each level: valid for the level's schema, and where each value that
 * must arrive went missing first. A value may be out of sight at a level between (a field HEAD has and the latest
 * version hides) and still arrive: only values missing at the end are reported, at the step after which they
 * were first missing. Data is validated (its strings read) again only after a converter ran (nothing else changes it) or at another schema.
 */
class LevelChecks {
  private readonly firstMissing = new Map<string, ReplayIssue>()
  private readonly passed = new Map<string, { schema: TSchema, delivered?: string[] }>()

  constructor (private readonly context: ReplayContext) {}

  /** The issue when `data` fails `schema`; otherwise the keys of the values it loses (each noted where first lost). */
  check (schema: TSchema, data: unknown, expected: Expected | undefined, where: Where): ReplayIssue | string[] {
    if (where.converters.length > 0 || this.passed.get(where.part)?.schema !== schema) {
      const check = this.context.compile(schema)
      if (!check(copyJson(data))) {
        const issue = check.errors?.[0]
        const value = valueAtPointer(data, issue?.instancePath ?? '')
        const fix = floatingMultipleFix(issue, value)
        return { kind: 'invalid', pointer: pointerOf(issue), message: issue?.message ?? 'does not match', value, ...(fix === undefined ? {} : { fix }), ...where }
      }
      this.passed.set(where.part, { schema })
    }
    if (expected === undefined) return []
    const missing: string[] = []
    const note = (place: string, issue: Pick<ReplayIssue, 'pointer' | 'message' | 'value' | 'fix'>): void => {
      const key = `${where.part}\n${place}`
      missing.push(key)
      if (!this.firstMissing.has(key)) this.firstMissing.set(key, { kind: 'lost', ...issue, ...where })
    }
    const followed = expected.followedTo(where.reached)
    for (const { at, value, became } of droppedValues(followed, expected.example, data)) {
      note(`${at.from.join('/')}\n${became}`, { pointer: pointerOfPath(at.from), message: `${shown(value)} ${became}`, value })
    }
    const alike = expected.alike?.strings ?? []
    if (expected.sentinels.length === 0 && alike.length === 0) return missing
    const delivered = (this.passed.get(where.part) as { delivered?: string[] }).delivered ??= deliveredStrings(schema, data, this.context.resolveRef)
    if (alike.length > 0) {
      // Between the levels, where one item arrives and another not; at the end, only where the other side could hold them all.
      const taken = where.reached === expected.alike?.to ? new Set(followed.map((value) => pointerOfPath(value.to))) : undefined
      const fix = `Make ${where.converters.length === 0 ? `the converters of ${this.context.steps[where.step].changes.map((change) => change.name).join(', ')}` : where.converters.join(', ')} ` +
        'carry every item of the list, not only the one that arrives: the items of a list are alike.'
      for (const item of unequalItems(alike, { schema, data, delivered, byWords: expected.byWords, taken, resolveRef: this.context.resolveRef })) {
        note(`items\n${item.pointer}`, { ...item, fix })
      }
    }
    const spoilt = spoiltStrings(delivered)
    for (const { sentinel, pointer } of expected.sentinels) {
      if (arrives(sentinel, delivered, expected.byWords)) {
        const artefact = spoilt.length === 0 ? undefined : artefactBeside(sentinel, spoilt)
        if (artefact !== undefined) note(sentinel, { pointer, message: `${shown(sentinel)} arrives with ${artefact} beside it`, value: sentinel })
        continue
      }
      const place = followed.find((value) => valueAt(expected.example, value.from) === sentinel)
      const arrived = place === undefined ? undefined : valueAt(data, place.to)
      note(sentinel, { pointer, message: `${shown(sentinel)} ${arrived === undefined ? 'is found nowhere' : `arrives as ${shown(arrived)}`}`, value: sentinel })
    }
    return missing
  }

  /** The issue of the first value in `missing` (values missing at the end). */
  issueOf (missing: readonly string[]): ReplayIssue | undefined {
    return missing.length === 0 ? undefined : this.firstMissing.get(missing[0])
  }
}

/** The body at each level a replay reached, with the converters that ran to reach it (for a round trip's comparisons). */
export type Trail = Map<number, { readonly body: unknown, readonly converters: readonly string[] }>

/**
 * One example to replay: a request of a version up to HEAD (by part), or a HEAD response (`body`) of status `status`
 * down to a version; what must arrive, by part; the converter steps of the route or webhook.
 */
export interface Replay {
  readonly data: Partial<Record<RequestPart, unknown>>
  readonly required: ReadonlyMap<RequestPart, Expected>
  readonly steps: readonly ConverterStep[]
  readonly method: string | undefined
  /** The version's level, and the form of a part at any level (0 is HEAD). */
  readonly level: number
  readonly formAt: (part: RequestPart, level: number) => TSchema
  /** The status of a response; `undefined` for a request. */
  readonly status: number | undefined
  /** For a response: the HEAD enum member a version lacks in its body at a level, if any. */
  readonly unexpressed?: (body: unknown, level: number) => Unexpressed | undefined
  /** Filled with the body at each level reached, when given. */
  readonly trail?: Trail
}

/** The issue of data that fails a level's schema: for a response holding a HEAD enum member the level lacks, in the words serving uses. */
function invalidIssue (replay: Replay, issue: ReplayIssue, body: unknown): ReplayIssue {
  const found = replay.status === undefined ? undefined : replay.unexpressed?.(body, issue.reached)
  return found === undefined ? issue : { ...issue, value: found.value, message: found.message, fix: found.fix, changes: found.changes, converters: [] }
}

/**
 * Replays an example: a request up to HEAD, a response down to the version. Returns the first issue (the example
 * is then done), or the body it arrives with; `undefined` when a request converter refused the example with a
 * client error (4xx): nothing to report.
 */
export async function replayExample (context: ReplayContext, replay: Replay): Promise<ReplayIssue | { body: unknown } | undefined> {
  const { data, level, status } = replay
  const parts = Object.keys(data) as RequestPart[]
  const request = {
    body: data.body,
    queryParams: (data.querystring ?? {}) as Record<string, unknown>,
    headers: { ...(data.headers as Record<string, unknown> | undefined) },
    cookies: {},
    form: undefined
  }
  const info = status === undefined ? request : { body: copyJson(data.body), statusCode: status, headers: {}, raw: data.body, setCookie () {}, deleteCookie () {} }
  const current = (part: RequestPart): unknown => part === 'body' ? info.body : part === 'querystring' ? request.queryParams : part === 'headers' ? request.headers : data[part]
  const checks = new LevelChecks(context)
  let missing: string[] = []
  // A request goes up from the version: after the converters of step `index`, it is at level `index` (0 is HEAD). A
  // response goes down: at level 1 (the latest version) it is HEAD data under the HEAD changes' instructions, and
  // each step takes it one level down.
  for (let count = 0; count < level; count++) {
    const index = status === undefined ? level - 1 - count : count
    const where = { step: index, reached: status === undefined ? index : index + 1 }
    const ran: string[] = []
    try {
      if (index >= 1) info.body = await runStepsToBody(tracked(replay.steps, context.steps[index], ran, context.runConverter), info, info.body, { method: replay.method, reply: status === undefined ? undefined : { statusCode: status } })
    } catch (error) {
      if (status === undefined && clientErrorOf(error instanceof ConverterFailure ? error.thrown : error) !== undefined) return undefined
      return converterFailed(error, { ...where, converters: [...new Set(ran)] })
    }
    missing = []
    replay.trail?.set(where.reached, { body: copyJson(info.body), converters: [...new Set(ran)] })
    for (const part of parts) {
      const checked = checks.check(replay.formAt(part, where.reached), current(part), replay.required.get(part), { part, ...where, converters: [...new Set(ran)] })
      if (!Array.isArray(checked)) return checked.kind === 'invalid' ? invalidIssue(replay, checked, info.body) : checked
      missing.push(...checked)
    }
  }
  return checks.issueOf(missing) ?? { body: info.body }
}
