/**
 * `verify`'s twins: a boundary example holding numbers is replayed a second time with each of them moved to a
 * neighbour (19.98 for 19.99, 100 for 101, 1 for 0) and each flag flipped. A number followed to the other side whose
 * two values arrive as one was lost, whatever the conversion (a converter flooring cents, rounding to whole units,
 * `qty || 1`): two amounts a client told apart are one for the other side; so was a renamed field's flag (one
 * written as a constant), an inverted one being no finding (./renamed-values.ts). A response may lose what its version's field cannot hold (a decimal for an
 * integer field: rounding is how it is shown), so a response's number is checked only where the field can hold
 * the difference. Numbers converted between units stay apart, and are no finding.
 *
 * A request's query string and headers have twins too (decision 0154), their values compared as the text Fastify
 * coerces (`'20'` is `20`, `'true'` is `true`), where the level's schema takes the value sent there (a minimum of 1
 * there, a `0` must become something else). There a `0` arriving as another number `n` is replayed once more with `n`
 * sent: arriving as `n` again, the `0` was replaced by a default (`query.limit || 20`). So is a `0` of a request's
 * body, and of a response's body arriving at the version as another number, there compared as it is, an integer
 * field's included (`body.quantity || 10`, a response's `quantity || 1`: decision 0157), but where a coarser scale of
 * whole numbers explains it (a page from an offset: decision 0169).
 * @module
 */
import { copyJson } from '../serve/step-runner'
import { setOwn } from '../core/own-properties'
import type { RequestPart } from '../routes/version-plan'
import { pointerOfPath, schemaAt, valueAt, type FollowedValue, type PathKey, type RefResolver } from './data-flow'
import type { JsonSchema } from '../values/examples'
import { shown } from './value-comparison'
import type { Expected } from './list-items'
import { replayExample, type Replay, type ReplayContext, type ReplayIssue, type Trail } from './verify-replay'

/** A part of a boundary example holding numbers: the places of the numbers its twin moved, and what was expected of it. */
export interface TwinPart {
  readonly part: 'body' | 'querystring' | 'headers'
  readonly numbers: ReadonlySet<string>
  readonly expected: Expected
}

/** A boundary example whose replay reached its end: the replay of its twin, its parts holding numbers, the data of each level. */
interface ReplayedBoundary {
  /** The example's replay, with the twin's data. */
  readonly twin: Replay
  readonly parts: readonly TwinPart[]
  readonly trail: Trail
  /** The example's parts as sent (a request's as served to its converters, a response's HEAD body), a fresh copy on each call. */
  readonly sent?: () => Partial<Record<RequestPart, unknown>>
}

/** The levels a replay reaches, in order: a request from the level below the version's up to HEAD, a response down from the latest version. */
function levelsOf (replay: Replay): number[] {
  const levels = Array.from({ length: replay.level }, (_, index) => index)
  return replay.status === undefined ? levels.reverse() : levels.map((level) => level + 1)
}

/** True when a response's field at `at` holds whole numbers only (it cannot tell two decimals apart). */
function holdsIntegers (replay: Replay, resolveRef: RefResolver, at: { level: number, body: unknown, place: FollowedValue }): boolean {
  return replay.status !== undefined && schemaAt(replay.formAt('body', at.level), at.body, at.place.to, resolveRef)?.type === 'integer'
}

/** The data of part `part` at a level of a trail (a request's query string and headers as converters left them). */
const partAt = (trail: Trail, level: number, part: TwinPart['part']): unknown => part === 'body' ? trail.get(level)?.body : trail.get(level)?.text?.[part]

/** A copy of `data` with `value` at `path` (own properties set); `data` itself when the path leads nowhere. */
function withValue (data: unknown, path: readonly PathKey[], value: unknown): unknown {
  const copy = copyJson(data)
  const holder = valueAt(copy, path.slice(0, -1))
  if (typeof holder !== 'object' || holder === null || path.length === 0) return data
  setOwn(holder as Record<PathKey, unknown>, path[path.length - 1], value)
  return copy
}

/** True when part `part`'s schema at `level` takes `data` (a query string's or headers' as Fastify takes text, coerced), checked on a copy. */
function takes (context: ReplayContext, replay: Replay, at: { part: RequestPart, level: number }, data: unknown): boolean {
  return ((at.part === 'body' ? undefined : context.compileText) ?? context.compile)(replay.formAt(at.part, at.level))(copyJson(data))
}

/**
 * The values at `path` of every item of the list its one index names, in sorted order (a converter may reorder the
 * list); the value at `path` alone where it names no item, or items of lists within lists.
 */
function column (data: unknown, path: readonly PathKey[]): unknown[] {
  const indexes = path.flatMap((key, at) => typeof key === 'number' ? [at] : [])
  const list = indexes.length === 1 ? valueAt(data, path.slice(0, indexes[0])) : undefined
  if (!Array.isArray(list)) return [valueAt(data, path)]
  return list.map((item) => JSON.stringify(valueAt(item, path.slice(indexes[0] + 1))) ?? '').sort()
}

/** A query string's or header's scalar as text: `20` and `'20'` are one value (Fastify coerces the text). */
const asText = (value: unknown): string => typeof value === 'string' ? value : JSON.stringify(value) ?? ''

/**
 * The issues of the numbers (and renamed flags) of `parts` whose value and the value of `other`'s replay (whose
 * data at each level `otherTrail` holds) arrive as one, at the first level where any does. `places` picks the places
 * compared (by default the twin's numbers).
 */
function oneIssues (context: ReplayContext, boundary: ReplayedBoundary, other: { trail: Trail, sent: Partial<Record<RequestPart, unknown>>, places?: (part: TwinPart) => ReadonlySet<string> }): ReplayIssue[] {
  const { twin: replay, parts, trail } = boundary
  for (const level of levelsOf(replay)) {
    const issues: ReplayIssue[] = []
    for (const { part, numbers, expected } of parts) {
      const body = partAt(trail, level, part)
      const places = other.places?.({ part, numbers, expected }) ?? numbers
      for (const place of expected.followedTo(level)) {
        if (!place.sameType || !places.has(JSON.stringify(place.from))) continue
        const value = valueAt(expected.example, place.from)
        const [arrived, twin] = [valueAt(body, place.to), valueAt(partAt(other.trail, level, part), place.to)]
        if (part === 'body' && other.places === undefined) {
          // A flag's, only at a renamed field: a flag a field keeps may be written as the version shows it (a business rule).
          if ((typeof arrived !== 'number' && (typeof arrived !== 'boolean' || place.kept !== 'twin')) || arrived !== twin) continue
          if (holdsIntegers(replay, context.resolveRef, { level, body, place })) continue
        } else {
          // A body's `0` replayed as the number it arrived as is compared as it is, with no rounding to excuse it; in a
          // list's item, by the values of every item (a list sorted or filtered moves them: decision 0157).
          const listed = place.from.some((key) => typeof key === 'number')
          const one = listed ? JSON.stringify(column(body, place.to)) === JSON.stringify(column(partAt(other.trail, level, part), place.to)) : part === 'body' ? arrived === twin : asText(arrived) === asText(twin)
          if ((typeof value !== 'number' && (typeof value !== 'boolean' || place.kept !== 'twin')) || arrived === undefined || !one) continue
          // A value the level cannot hold must become another: two may then become one.
          if (!takes(context, replay, { part, level }, withValue(body, place.to, value))) continue
        }
        const ran = [...trail.get(level)?.converters ?? []]
        const step = replay.status === undefined ? level : level - 1
        const fix = `${ran.length === 0 ? 'The converters of that version change make' : `${ran.join(', ')} make${ran.length === 1 ? 's' : ''}`} two values one: ` +
          (typeof value === 'boolean' ? 'carry the flag as it was set (or inverted), not a constant.' : 'convert them so that what a client tells apart stays apart (round, rather than floor or cut; keep a 0 a 0, rather than || a default).')
        issues.push({ kind: 'lost', part, pointer: pointerOfPath(place.from), message: `${shown(value)} and ${shown(valueAt(other.sent[part], place.from))} both arrive as ${shown(arrived)}`, value, fix, converters: ran, step, reached: level })
      }
    }
    if (issues.length > 0) return issues
  }
  return []
}

/**
 * Replays the twin of a boundary example whose replay reached its end, and returns the issues of the numbers whose
 * two values arrive as one, at the first level where any does (none when none does). With `sent`, a `0` arriving as
 * another number is then replayed with that number sent.
 * @example
 * ```ts
 * const issues = await twinIssues(env, { twin: { ...replay, data: { body: example.twin.value } }, parts: [{ part: 'body', numbers: example.twin.numbers, expected }], trail })
 * ```
 */
export async function twinIssues (context: ReplayContext & { replayed: number }, boundary: ReplayedBoundary): Promise<ReplayIssue[]> {
  const sent = copyJson(boundary.twin.data) as Partial<Record<RequestPart, unknown>>
  const twinTrail: Trail = new Map()
  context.replayed++
  const result = await replayExample(context, { ...boundary.twin, required: new Map(), trail: twinTrail })
  if (result === undefined || !('body' in result)) return []
  const issues = oneIssues(context, boundary, { trail: twinTrail, sent })
  if (boundary.sent === undefined) return issues
  const found = new Set(issues.map((issue) => `${issue.part}${issue.pointer}`))
  return [...issues, ...await defaultIssues(context, { ...boundary, sent: boundary.sent }, found)]
}

/**
 * The issues of the `0`s of an example (a request's body, query string and headers, or a response's body), but in a
 * list's items, that arrive as another number `n` (at HEAD, or at the response's version), where the example
 * replayed with `n` sent (one replay for all of them, where the side sending it takes it) gives `n` again; but those
 * of places `found` (by part and pointer), whose twins arrived as one.
 */
async function defaultIssues (context: ReplayContext & { replayed: number }, boundary: ReplayedBoundary & { sent: () => Partial<Record<RequestPart, unknown>> }, found: ReadonlySet<string>): Promise<ReplayIssue[]> {
  const data = boundary.sent()
  const places = new Map<TwinPart['part'], Set<string>>()
  const defaults = new Map<string, { place: FollowedValue, arrived: number }>()
  const [from, to] = boundary.twin.status === undefined ? [boundary.twin.level, 0] : [0, boundary.twin.level]
  for (const { part, numbers, expected } of boundary.parts) {
    for (const place of expected.followedTo(to)) {
      const arrived = Number(valueAt(partAt(boundary.trail, to, part), place.to))
      // In a list's items (of one list), where no item's arrives as 0: a converter may reorder or filter them (an
      // item's place then holds another's value), so what arrives is compared over all items (oneIssues).
      const indexes = place.from.filter((key) => typeof key === 'number').length
      if (!place.sameType || indexes > 1 || !numbers.has(JSON.stringify(place.from))) continue
      if (indexes === 1 && column(partAt(boundary.trail, to, part), place.to).includes('0')) continue
      if (valueAt(expected.example, place.from) !== 0 || arrived === 0 || !Number.isFinite(arrived)) continue
      if (found.has(`${part}${pointerOfPath(place.from)}`)) continue
      const changed = withValue(data[part], place.from, arrived)
      if (changed === data[part] || !takes(context, boundary.twin, { part, level: from }, changed)) continue
      data[part] = changed
      places.set(part, (places.get(part) ?? new Set()).add(JSON.stringify(place.from)))
      defaults.set(`${part}${pointerOfPath(place.from)}`, { place, arrived })
    }
  }
  if (places.size === 0) return []
  const trail: Trail = new Map()
  context.replayed++
  const result = await replayExample(context, { ...boundary.twin, data: copyJson(data) as Partial<Record<RequestPart, unknown>>, required: new Map(), trail })
  if (result === undefined || !('body' in result)) return []
  const issues = oneIssues(context, boundary, { trail, sent: data, places: ({ part }) => places.get(part) ?? new Set() })
  return await withoutScales(context, { twin: boundary.twin, trail: boundary.trail, sent: data, defaults }, issues)
}

/** The integer bounds a schema sets on a number (`minimum`, `maximum`, exclusive ones included): the widest where it sets none. */
function bounds (schema: JsonSchema | undefined): [number, number] {
  const keyword = (name: string): number | undefined => typeof schema?.[name] === 'number' ? schema[name] as number : undefined
  const low = Math.max(Math.ceil(keyword('minimum') ?? -Infinity), Math.floor(keyword('exclusiveMinimum') ?? -Infinity) + 1)
  const high = Math.min(Math.floor(keyword('maximum') ?? Infinity), Math.ceil(keyword('exclusiveMaximum') ?? Infinity) - 1)
  return [low, high]
}

/**
 * A third value to send where a `0` and `n` arrive as `n`: far from `n` on the side away from `0` (a million times
 * `n` further, within the sending side's bounds), else one nearer `0` than `n`; `undefined` when there is none.
 */
function thirdValue (schema: JsonSchema | undefined, n: number): number | undefined {
  const [low, high] = bounds(schema)
  const far = Math.min(Math.max(n + 1e6 * n, low), high)
  if (far !== n && Math.sign(far - n) === Math.sign(n)) return far
  const near = n - Math.sign(n)
  return near !== 0 && Number.isInteger(n) ? near : undefined
}

/**
 * The issues of `0`s replaced by a default (`issues`), but those at a response field holding whole numbers that a
 * coarser scale explains (decision 0169): a page from an offset, stars from a score, `Math.round(0.4 * x + 1)`. There
 * `0` and `n` arrive as one by rounding, as a twin may; a default is told from a scale by a third value `m` sent in
 * their place (one replay for all of them): a scale's slope, under `1 / n` where `0` and `n` round alike, moves `m`
 * less than `|m - n| / |n|` from `n`, and `|| n` moves it by `|m - n|`.
 */
async function withoutScales (context: ReplayContext & { replayed: number }, boundary: Pick<ReplayedBoundary, 'twin' | 'trail'> & { sent: Partial<Record<RequestPart, unknown>>, defaults: ReadonlyMap<string, { place: FollowedValue, arrived: number }> }, issues: ReplayIssue[]): Promise<ReplayIssue[]> {
  const { twin: replay, trail: sentTrail } = boundary
  const data = copyJson(boundary.sent) as Partial<Record<RequestPart, unknown>>
  const probes: Array<{ issue: ReplayIssue, place: FollowedValue, arrived: number, third: number }> = []
  for (const issue of replay.status === undefined ? [] : issues) {
    const found = boundary.defaults.get(`${issue.part}${issue.pointer}`)
    const body = partAt(sentTrail, replay.level, 'body')
    if (found === undefined || issue.part !== 'body' || !holdsIntegers(replay, context.resolveRef, { level: replay.level, body, place: found.place })) continue
    const third = thirdValue(schemaAt(replay.formAt('body', 0), data.body, found.place.from, context.resolveRef), found.arrived)
    const changed = third === undefined ? data.body : withValue(data.body, found.place.from, third)
    if (third === undefined || changed === data.body || !takes(context, replay, { part: 'body', level: 0 }, changed)) continue
    data.body = changed
    probes.push({ issue, ...found, third })
  }
  if (probes.length === 0) return issues
  const trail: Trail = new Map()
  context.replayed++
  const result = await replayExample(context, { ...replay, data, required: new Map(), trail })
  if (result === undefined || !('body' in result)) return issues
  const scaled = probes.flatMap((probe) => {
    const got = valueAt(trail.get(replay.level)?.body, probe.place.to)
    return typeof got === 'number' && Math.abs(got - probe.arrived) * Math.abs(probe.arrived) < Math.abs(probe.third - probe.arrived) ? [{ ...probe, got }] : []
  })
  const merged = await widerFirstSteps(context, { replay, sent: data }, scaled)
  return issues.filter((issue) => merged.has(issue) || !scaled.some((probe) => probe.issue === issue))
}

/**
 * The issues of `scaled` (a `0` and `n` arriving as `n`, a third value `m` moved as a scale moves it) whose first step
 * is wider than a scale's: a default on top of it (`Math.round(score / 20) || 1` shows the scores 0 to 29 as 1, where
 * the scale's other steps are 20 wide). A scale of whole numbers rounded (floored, ceiled) keeps `0` with numbers
 * under one step `w` only, `w` at most `|m| / (k - 1)` where `m` arrived `k` steps from `0`'s; a number `p` at that
 * bound, arriving as `0` did, was merged with it (`n` past it says so without a replay). Judged where `k` is 4 or
 * more: a scale's steps measured over fewer (a range of 0 to 10) are too uneven to tell.
 */
async function widerFirstSteps (context: ReplayContext & { replayed: number }, at: { replay: Replay, sent: Partial<Record<RequestPart, unknown>> }, scaled: ReadonlyArray<{ issue: ReplayIssue, place: FollowedValue, arrived: number, third: number, got: number }>): Promise<Set<ReplayIssue>> {
  const merged = new Set<ReplayIssue>()
  const data = copyJson(at.sent) as Partial<Record<RequestPart, unknown>>
  const probes: Array<{ issue: ReplayIssue, place: FollowedValue, arrived: number }> = []
  for (const { issue, place, arrived, third, got } of scaled) {
    const steps = Math.abs(got - arrived)
    if (steps < 4) continue
    const p = Math.sign(third) * Math.ceil(Math.abs(third) / (steps - 1))
    if (Math.sign(arrived) === Math.sign(p) && Math.abs(arrived) >= Math.abs(p)) merged.add(issue)
    const changed = withValue(data.body, place.from, p)
    if (merged.has(issue) || changed === data.body || !takes(context, at.replay, { part: 'body', level: 0 }, changed)) continue
    data.body = changed
    probes.push({ issue, place, arrived })
  }
  if (probes.length === 0) return merged
  const trail: Trail = new Map()
  context.replayed++
  const result = await replayExample(context, { ...at.replay, data, required: new Map(), trail })
  if (result === undefined || !('body' in result)) return merged
  for (const { issue, place, arrived } of probes) if (valueAt(trail.get(at.replay.level)?.body, place.to) === arrived) merged.add(issue)
  return merged
}
