/**
 * Stage `lib/tools/`: what of a HEAD response a version's schema cannot express (a HEAD enum member it lacks), named as
 * serving names it, for `verify`'s findings on responses (./verify-replay.ts).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { VersionerState } from '../routes/versioner-state'
import { unexpressibleReason, unexpressibleValue, valueGuardsOf } from '../routes/value-guards'

/** A HEAD enum member a version lacks, found in a response of it: how serving would name it, and what to add. */
export interface Unexpressed {
  readonly value: unknown
  readonly message: string
  readonly fix: string
  readonly changes: readonly string[]
}

/**
 * The HEAD enum member a version lacks in a response body of `headSchema` at a level, named as serving names it.
 * @example
 * const unexpressed = unexpressedIn(state, Order)(body, 2) // { value: 'refunded', message, fix, changes: ['AddRefunds'] }
 */
export function unexpressedIn (state: VersionerState, headSchema: TSchema): (body: unknown, level: number) => Unexpressed | undefined {
  return (body, level) => {
    const found = unexpressibleValue(valueGuardsOf(state.planner, headSchema, level), body)
    if (found === undefined) return undefined
    const version = state.versionAt(level)
    const changes = found.guard.removedBy.get(found.value) ?? []
    const to = changes.length > 0 ? changes.join(', ') : `the version change of ${version}`
    return {
      value: found.value,
      message: unexpressibleReason(found, version),
      fix: `Add a response converter to ${to} that maps ${JSON.stringify(found.value)} of ${found.guard.schema} to a value ${version} has.`,
      changes
    }
  }
}
