/**
 * One replay of `verify`: a generated example taken through the converters of one route (or webhook) and version,
 * step by step, the way requests go up and responses down when served. After each version change the data must
 * match the schema of the version it has reached (validated strictly: no type coercion, so a retyped field must be
 * converted, not coerced, but for the text Fastify coerces in a query string's or headers' scalars; a HEAD enum
 * member the version lacks is named as serving names it), and at the end every sentinel that must arrive
 * (./data-flow.ts) must be delivered, and no value followed there may be dropped (./value-comparison.ts). The first
 * version change after which either fails is the one at fault. The type of what `verify` finds is ./verify-finding.ts's.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { GenerationStep } from '../describe/versions'
import type { ConverterStep } from '../routes/converter-steps'
import type { RequestPart } from '../routes/version-plan'
import { copyJson, runStepsToBody } from '../serve/step-runner'
import { convertersByChange, type ConverterRun } from './converter-tracking'
import { watchedSteps } from './converted-twice'
import type { HandedOut } from './shared-objects'
import { withNameReads, type NameReads } from './stale-names'
import { plainCopy } from './plain-copy'
import { pointerOfPath, valueAt, type RefResolver } from './data-flow'
import { artefactBeside, arrives, deliveredStrings, madeUpArtefacts, notArriving, spoiltStrings } from './sentinel-arrival'
import type { Check } from '../core/strict-validator'
import { invalidData } from './invalid-data'
import { atHead } from './validation-strips'
import { changedRenamed, droppedValues, shown } from './value-comparison'
import { unequalItems, type Expected } from './list-items'
import { replayInfos } from './replay-infos'
import { converterFailed, refusalOf, type Refusal } from './verify-coverage'
import type { Unexpressed } from './unexpressed-values'
import type { Answered } from './answered-statuses'
import type { AnsweredHeaders, HeadersAt } from './answered-headers'

export type { ReplayIssue, Report, Target, VerifyFinding } from './verify-finding'
import type { ReplayIssue } from './verify-finding'

/** What replays need: strict validators, the application's `$ref`s, the generation steps, and how converters run. */
export interface ReplayContext {
  readonly compile: (schema: TSchema) => Check
  /** For the query string and headers, text Fastify coerces (`'5'` for an integer) where the app's Ajv coerces types. */
  readonly compileText?: (schema: TSchema) => Check
  readonly resolveRef: RefResolver
  readonly steps: readonly GenerationStep[]
  readonly runConverter?: ConverterRun
  /** The objects converters made in this `verify` run, to find one handed to two bodies (./shared-objects.ts); none: not looked for. */
  readonly handedOut?: HandedOut
  /** Runs `work` in the version at `level` as serving does (a `VersionChangeWithSideEffects` reads it); absent when no change does. */
  readonly inVersion?: (level: number, work: () => Promise<unknown>) => Promise<unknown>
}

/** Where a replay is when it checks data: the generation step just run, the level reached, the converters that ran. */
type Where = Omit<ReplayIssue, 'kind' | 'pointer' | 'message'>

/**
 * The data of one part at a level a replay reached, for the loss checks: a plain copy (shared by the levels after it
 * where no converter ran), or, for data no copy tells exactly, what it loses there (checked as it was reached).
 */
interface Reached {
  readonly schema: TSchema
  readonly data: unknown
  readonly expected: Expected
  readonly where: Where
  /** The strings the data delivers, read once for the levels sharing its copy and schema. */
  readonly strings: { delivered?: string[] }
  readonly lost?: Lost[]
}

/** A value a level's data loses: its key, its issue there, and whether the data still holds it out of sight (under a field the level does not declare). */
type Lost = [string, ReplayIssue, boolean]

/** Every place of any data, declared or not: what a converter of the next version change still reads. */
const ANY_PLACE: Record<string, unknown> = {}
ANY_PLACE.items = ANY_PLACE
ANY_PLACE.additionalProperties = ANY_PLACE

/**
 * The checks of the data a replay reaches at each level: valid for the level's schema, and where each value that
 * must arrive went missing first. A value may be out of sight at a level between (a field HEAD has and the latest
 * version hides) and still arrive: only values missing at the end are reported, at the step after which they
 * were first missing. Data is validated (its strings read) again only after a converter ran (nothing else changes it) or at another schema.
 * The loss checks run at the end, at the last level first: nothing missing there, the levels between can give no
 * finding and are not checked (a replay costs a walk of its data per level where a converter ran, not per level).
 */
class LevelChecks {
  private readonly passed = new Map<string, TSchema>()
  private readonly reached: Reached[] = []
  private readonly latest = new Map<string, Reached>()

  /** `validated`: the data is a request's, which Fastify validates (a response's is only serialized). */
  constructor (private readonly context: ReplayContext, private readonly validated: boolean) {}

  /** The issue when `data` fails `schema`; otherwise `data` is kept for the loss checks. */
  check (schema: TSchema, sent: unknown, expected: Expected | undefined, at: Where): ReplayIssue | undefined {
    // A request reaching HEAD is read as HEAD's validation leaves it: strings it rewrites (`transform`) rewritten (decision 0317).
    let [data, where, converted, head] = [sent, at, at.converters.length > 0, this.validated && at.reached === 0]
    if (converted || head || this.passed.get(where.part) !== schema) {
      const check = (where.part === 'querystring' || where.part === 'headers' ? this.context.compileText ?? this.context.compile : this.context.compile)(schema)
      // A response converter's BigInt (an id past 2^53) is checked as the number the serializer writes; requests refuse one.
      const checked = copyJson(data, this.validated ? {} : { bigIntsRead: true })
      if (!check(checked)) return { kind: 'invalid', ...invalidData(check.errors ?? [], data, this.validated), ...where }
      this.passed.set(where.part, schema)
      if (head) [data, where] = atHead(data, checked, where)
    }
    if (expected === undefined) return undefined
    const before = this.latest.get(where.part)
    const kept = before !== undefined && before.lost === undefined && !converted && data === sent ? before : undefined
    const copied = kept === undefined ? plainCopy(data) : { copy: kept.data }
    const level: Reached = { schema, data: copied?.copy ?? data, expected, where, strings: kept?.schema === schema ? kept.strings : {} }
    const reached = copied === undefined ? { ...level, lost: this.lost(level) } : level
    this.reached.push(reached)
    this.latest.set(where.part, reached)
    return undefined
  }

  /**
   * The issue of the first value missing at the last level, at the step after which it was first missing: first gone
   * from the data, where a level between holds it out of sight (an internal field one converter writes for the next),
   * else first out of sight.
   */
  lostIssue (): ReplayIssue | undefined {
    const last = this.reached.at(-1)?.where.reached
    const missing = this.reached.filter((level) => level.where.reached === last).flatMap((level) => this.lostAt(level).map(([key]) => key))
    if (missing.length === 0) return undefined
    const [firstGone, firstMissing] = [new Map<string, ReplayIssue>(), new Map<string, ReplayIssue>()]
    for (const level of this.reached) {
      for (const [key, issue, held] of this.lostAt(level)) {
        if (!firstMissing.has(key)) firstMissing.set(key, issue)
        if (!held && !firstGone.has(key)) firstGone.set(key, issue)
      }
    }
    return firstGone.get(missing[0]) ?? firstMissing.get(missing[0])
  }

  /** Follows no value further: a converter answered another status, whose body is another schema's. */
  forget (): void { this.reached.length = 0 }

  private lostAt (level: Reached): Lost[] { return level.lost ?? this.lost(level) }

  /** The values a level's data loses, each with its key, its issue there, and whether the data holds it out of sight. */
  private lost (level: Reached): Lost[] {
    const missing = this.missing(level)
    if (missing.length === 0) return []
    const everywhere = deliveredStrings(ANY_PLACE, level.data, this.context.resolveRef)
    return missing.map(([key, issue]) => [key, issue, typeof issue.value === 'string' && arrives(issue.value, everywhere, level.expected.byWords)])
  }

  private missing (level: Reached): Array<[string, ReplayIssue]> {
    const { schema, data, expected, where } = level
    const missing: Array<[string, ReplayIssue]> = []
    const note = (place: string, issue: Pick<ReplayIssue, 'pointer' | 'message' | 'value' | 'fix'>): void => {
      missing.push([`${where.part}\n${place}`, { kind: 'lost', ...issue, ...where }])
    }
    const followed = expected.followedTo(where.reached)
    const values = (found: ReturnType<typeof droppedValues>): void => found.forEach(({ at, value, became, fix }) =>
      note(`${at.from.join('/')}\n${became}`, { pointer: pointerOfPath(at.from), message: `${shown(value)} ${became}`, value, ...(fix === undefined ? {} : { fix }) }))
    values(droppedValues(followed, expected.example, data))
    for (const { path, text } of madeUpArtefacts(schema, data, expected.example, this.context.resolveRef)) {
      note(`artefact\n${pointerOfPath(path)}`, { pointer: pointerOfPath(path), message: `${shown(text)} is what JavaScript writes for a value that is none (String(null), \`\${undefined}\`)`, value: text, fix: `Make ${where.converters.length === 0 ? 'the converters' : where.converters.join(', ')} leave the field out, or give null where the schema takes it, for a value that is null or absent.` })
    }
    const alike = expected.alike?.strings ?? []
    const unfollowed = expected.unfollowed ?? []
    // A renamed value that arrives changed comes last: a value lost or a string cut says more.
    const renamed = (): Array<[string, ReplayIssue]> => { values(changedRenamed(followed, expected.example, data, expected.joinedTo?.(where.reached))); return missing }
    if (expected.sentinels.length === 0 && alike.length === 0 && unfollowed.length === 0) return renamed()
    const delivered = level.strings.delivered ??= deliveredStrings(schema, data, this.context.resolveRef)
    if (alike.length > 0) {
      // Between the levels, where one item arrives and another not; at the end, only where the other side could hold them all.
      const taken = where.reached === expected.alike?.to ? new Map(followed.map((value) => [pointerOfPath(value.from), pointerOfPath(value.to)])) : undefined
      const fix = `Make ${where.converters.length === 0 ? `the converters of ${this.context.steps[where.step].changes.map((change) => change.name).join(', ')}` : where.converters.join(', ')} ` +
        'carry every item of the list, not only the one that arrives: the items of a list are alike.'
      for (const item of unequalItems(alike, { schema, data, delivered, byWords: expected.byWords, taken, resolveRef: this.context.resolveRef })) {
        note(`items\n${item.pointer}`, { ...item, fix })
      }
    }
    const spoilt = spoiltStrings(delivered)
    for (const { sentinel, pointer } of spoilt.length === 0 ? [] : unfollowed) {
      const artefact = artefactBeside(sentinel, spoilt)
      const fix = `Make ${where.converters.length === 0 ? 'the converters' : where.converters.join(', ')} join only the fields the body holds (Object.hasOwn(request.body, field)): ` +
        'a body may leave optional fields out (a PATCH sends only what changes).'
      if (artefact !== undefined) note(sentinel, { pointer, message: `${shown(sentinel)} arrives with ${artefact} beside it`, value: sentinel, fix })
    }
    for (const { sentinel, pointer } of expected.sentinels) {
      if (arrives(sentinel, delivered, expected.byWords)) {
        const artefact = spoilt.length === 0 ? undefined : artefactBeside(sentinel, spoilt)
        if (artefact !== undefined) note(sentinel, { pointer, message: `${shown(sentinel)} arrives with ${artefact} beside it`, value: sentinel })
        continue
      }
      const place = followed.find((value) => valueAt(expected.example, value.from) === sentinel)
      const arrived = place === undefined ? undefined : valueAt(data, place.to)
      note(sentinel, { pointer, message: `${shown(sentinel)} ${notArriving(sentinel, delivered, arrived)}`, value: sentinel })
    }
    return renamed()
  }
}

/** The body at each level a replay reached, with the converters that ran to reach it (for a round trip's comparisons), and a request's query string and headers. */
export type Trail = Map<number, { readonly body: unknown, readonly converters: readonly string[], readonly text?: { readonly querystring: unknown, readonly headers: unknown }, readonly answered?: Omit<HeadersAt, 'converters'> }>

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
  /** The body's media type: a request's `content` entry (a form's body is also converters' `form`), a response's. */
  readonly mediaType?: string
  /** Told of a request converter refusing the example with a client error (the replay then answers `undefined`). */
  readonly refused?: (refusal: Refusal) => void
  /** For a response: what a level documents for the status the converters left (`undefined`: `formAt` applies; ./answered-statuses.ts). */
  readonly answered?: (status: number, level: number) => Answered | undefined
  /** For a response: the headers HEAD sends with it (./answered-headers.ts); the trail keeps what each level answers. */
  readonly headers?: AnsweredHeaders
}

/** The issue of data that fails a level's schema: for a response holding a HEAD enum member the level lacks, in the words serving uses. */
function invalidIssue (replay: Replay, issue: ReplayIssue, body: unknown): ReplayIssue {
  const found = replay.status === undefined ? undefined : replay.unexpressed?.(body, issue.reached)
  return found === undefined ? issue : { ...issue, value: found.value, message: found.message, fix: found.fix, changes: found.changes, converters: [] }
}

/** What a replay arrives with: the body, and for a response whose converters answered another status, that status. */
export interface Replayed { readonly body: unknown, readonly status?: number }

/**
 * Replays an example: a request up to HEAD, a response down to the version. Returns the first issue (the example
 * is then done), or the body it arrives with; `undefined` when a request converter refused the example with a
 * client error (4xx): nothing to report.
 */
export async function replayExample (context: ReplayContext, replay: Replay): Promise<ReplayIssue | Replayed | undefined> {
  return await withNameReads(replay.status === undefined, async (reads) =>
    await (context.inVersion?.(replay.level, async () => await replayAt(context, replay, reads)) ?? replayAt(context, replay, reads)) as ReplayIssue | Replayed | undefined)
}

/** The replay; a request's converters run on a request noting the names they read (`reads`: innermost, the watches around them see the request's own). */
async function replayAt (context: ReplayContext, replay: Replay, reads?: NameReads): Promise<ReplayIssue | Replayed | undefined> {
  const { data, level, status } = replay
  const parts = Object.keys(data) as RequestPart[]
  const { request, info } = replayInfos(data, status, replay.mediaType, replay.headers?.sent)
  const current = (part: RequestPart): unknown => part === 'body' ? info.body : part === 'querystring' ? request.queryParams : part === 'headers' ? request.headers : data[part]
  const checks = new LevelChecks(context, replay.status === undefined)
  // A response's converters run by the status the ones before left, as serving's run by the reply's.
  const reply = status === undefined ? undefined : info as { body: unknown, statusCode: number, headers: Record<string, unknown> }
  const byChange = convertersByChange(replay.steps)
  // A request goes up from the version: after the converters of step `index`, it is at level `index` (0 is HEAD). A response
  // goes down: at level 1 (the latest version) it is HEAD data under the HEAD changes' instructions; each step takes it one level down.
  for (let count = 0; count < level; count++) {
    const index = status === undefined ? level - 1 - count : count
    const where = { step: index, reached: status === undefined ? index : index + 1 }
    const inner = reads?.watching(context.runConverter, info.body) ?? context.runConverter
    const run = context.handedOut?.watching(inner, info.body) ?? inner
    const { steps, watch, ran } = watchedSteps(index >= 1 ? byChange(context.steps[index]) : [], context.steps[index], { run, body: info.body })
    try {
      if (steps.length > 0) info.body = await runStepsToBody(steps, info, info.body, { method: replay.method, reply })
    } catch (error) {
      const refusal = status === undefined ? refusalOf(error) : undefined
      if (refusal !== undefined) replay.refused?.(refusal)
      return refusal === undefined ? converterFailed(error, { ...where, converters: [...new Set(ran)] }) : undefined
    }
    // Before the data is judged: a later converter changing the shared object may have made it invalid.
    const shared = context.handedOut?.take()
    if (shared !== undefined) return { ...shared, part: 'body', ...where, converters: [...new Set(ran)] }
    const stale = reads?.staleIssue(index, replay, context)
    if (stale !== undefined) return { ...stale, ...where }
    // No converter ran: the body is the one the level before had (the trail's readers only read it).
    const before = ran.length === 0 && count > 0 ? replay.trail?.get(status === undefined ? where.reached + 1 : where.reached - 1) : undefined
    replay.trail?.set(where.reached, {
      body: before === undefined ? copyJson(info.body) : before.body,
      converters: [...new Set(ran)],
      text: status === undefined ? { querystring: copyJson(request.queryParams), headers: copyJson(request.headers) } : undefined,
      answered: reply === undefined || replay.headers === undefined ? undefined : { status: reply.statusCode, headers: { ...reply.headers } }
    })
    // A response is serialized by the version's slot of the status its converters left (decision 0286).
    const answered = reply === undefined ? undefined : replay.answered?.(reply.statusCode, where.reached)
    if (answered !== undefined && !('form' in answered)) {
      const changes = context.steps[index].changes.map((change) => change.name)
      return { kind: 'invalid', part: 'body', pointer: '', message: answered.message, fix: answered.fix([...new Set(ran)], changes), changes, ...where, converters: [...new Set(ran)] }
    }
    if (reply?.statusCode !== status) checks.forget()
    // A status documented without a schema (a description only) has no body to judge.
    for (const part of answered !== undefined && answered.form === undefined ? [] : parts) {
      const invalid = checks.check(answered?.form ?? replay.formAt(part, where.reached), current(part), reply?.statusCode === status ? replay.required.get(part) : undefined, { part, ...where, converters: [...new Set(ran)] })
      if (invalid !== undefined) return invalidIssue(replay, invalid, info.body)
    }
    const twice = watch?.convertedTwice()
    if (twice !== undefined) return { ...twice, part: 'body', ...where }
  }
  return checks.lostIssue() ?? (reply === undefined || reply.statusCode === status ? { body: info.body } : { body: info.body, status: reply.statusCode })
}
