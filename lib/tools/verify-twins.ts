/**
 * `verify`'s twins: a boundary example holding numbers is replayed a second time with each of them moved to a
 * neighbour (19.98 for 19.99, 100 for 101, 1 for 0) and each flag flipped. A number followed to the other side whose
 * two values arrive as one was lost, whatever the conversion (a converter flooring cents, rounding to whole units,
 * `qty || 1`): two amounts a client told apart are one for the other side; so was a renamed field's flag (one
 * written as a constant), an inverted one being no finding (./renamed-values.ts). A response may lose what its version's field cannot hold (a decimal for an
 * integer field: rounding is how it is shown), so a response's number is checked only where the field can hold
 * the difference. Numbers converted between units stay apart, and are no finding.
 * @module
 */
import { copyJson } from '../serve/step-runner'
import { pointerOfPath, schemaAt, valueAt, type FollowedValue, type RefResolver } from './data-flow'
import { shown } from './value-comparison'
import type { Expected } from './list-items'
import { replayExample, type Replay, type ReplayContext, type ReplayIssue, type Trail } from './verify-replay'

/** A boundary example whose replay reached its end: the replay of its twin, and of the example what was expected of its body and the body at each level. */
interface ReplayedBoundary {
  /** The example's replay, with the twin's data. */
  readonly twin: Replay
  /** The places of the numbers the twin moved. */
  readonly numbers: ReadonlySet<string>
  readonly expected: Expected
  readonly trail: Trail
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

/**
 * Replays the twin of a boundary example whose replay reached its end, and returns the issues of the numbers whose
 * two values arrive as one, at the first level where any does (none when none does).
 * @example
 * ```ts
 * const issues = await twinIssues(env, { twin: { ...replay, data: { body: example.twin.value } }, numbers: example.twin.numbers, expected, trail })
 * ```
 */
export async function twinIssues (context: ReplayContext & { replayed: number }, boundary: ReplayedBoundary): Promise<ReplayIssue[]> {
  const { twin: replay, numbers, expected, trail } = boundary
  const sent = copyJson(replay.data.body)
  const twinTrail: Trail = new Map()
  context.replayed++
  const result = await replayExample(context, { ...replay, required: new Map(), trail: twinTrail })
  if (result === undefined || !('body' in result)) return []
  for (const level of levelsOf(replay)) {
    const body = trail.get(level)?.body
    const issues: ReplayIssue[] = []
    for (const place of expected.followedTo(level)) {
      if (!place.sameType || !numbers.has(JSON.stringify(place.from))) continue
      const arrived = valueAt(body, place.to)
      const other = valueAt(twinTrail.get(level)?.body, place.to)
      // A flag's, only at a renamed field: a flag a field keeps may be written as the version shows it (a business rule).
      if ((typeof arrived !== 'number' && (typeof arrived !== 'boolean' || place.kept !== 'twin')) || arrived !== other) continue
      if (holdsIntegers(replay, context.resolveRef, { level, body, place })) continue
      const value = valueAt(expected.example, place.from)
      const ran = [...trail.get(level)?.converters ?? []]
      const step = replay.status === undefined ? level : level - 1
      const fix = `${ran.length === 0 ? 'The converters of that version change make' : `${ran.join(', ')} make${ran.length === 1 ? 's' : ''}`} two values one: ` +
        (typeof arrived === 'boolean' ? 'carry the flag as it was set (or inverted), not a constant.' : 'convert them so that what a client tells apart stays apart (round, rather than floor or cut; keep a 0 a 0, rather than || a default).')
      issues.push({ kind: 'lost', part: 'body', pointer: pointerOfPath(place.from), message: `${shown(value)} and ${shown(valueAt(sent, place.from))} both arrive as ${shown(arrived)}`, value, fix, converters: ran, step, reached: level })
    }
    if (issues.length > 0) return issues
  }
  return []
}
