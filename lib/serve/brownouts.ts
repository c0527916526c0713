/**
 * Brownouts: inside a scheduled window of a deprecated version (`brownouts: [{ start, end }]`), by the plugin's `now`
 * clock, its requests are answered as after its sunset: the 410 `application/problem+json` of the sunset policy,
 * saying that this is a scheduled brownout and when it ends. The release clock (./release-clock.ts) knows the windows.
 * @module
 */
import type { Brownout } from '../describe/release-dates'
import type { Version } from '../describe/versions'
import { toIsoDate } from '../core/iso-date'
import type { ReleaseSource } from './release-clock'

/** Where a brownout's problem keeps its window (not a member of the body: symbols are not serialized). */
const kBrownout = Symbol('fastify-versioner.brownout')

/**
 * The problem details of a 410 answering a request for `version` (gone after its sunset, or in a brownout), saying
 * `detail`.
 * @example
 * ```ts
 * goneProblem(versions.get('2000-01-01'), 'API version 2000-01-01 was sunset on …') // { type: 'about:blank', title: 'API version gone', status: 410, … }
 * ```
 */
export function goneProblem (version: Version, detail: string): Record<string, unknown> {
  return { type: 'about:blank', title: 'API version gone', status: 410, detail, version: version.value, sunsetAt: (version.sunsetAt as Date).toISOString() }
}

/**
 * The problem details of a request for `version` at `time` (milliseconds), when the version is in a brownout then;
 * `undefined` otherwise.
 * @example
 * ```ts
 * brownoutProblemAt(options, versions.get('2000-01-01'), Date.now()) // { status: 410, brownout: { start, end }, … } inside a window
 * ```
 */
export function brownoutProblemAt (options: ReleaseSource, version: Version, time: number): Record<string, unknown> | undefined {
  // None without a clock: nothing is scheduled.
  const window = options.releases?.at(time).brownouts.get(version.value)
  if (window === undefined) return undefined
  return {
    ...goneProblem(version, `API version ${version.value} is in a scheduled brownout until ${window.end.toISOString()}: its requests are ` +
      `answered as they will be after its sunset on ${toIsoDate(version.sunsetAt as Date)}. Upgrade to a newer version.`),
    brownout: { start: window.start.toISOString(), end: window.end.toISOString() },
    [kBrownout]: window
  }
}

/**
 * The brownout a 410 problem answered, if it was one (for the served event and the answer's `Cache-Control`).
 * @example
 * ```ts
 * brownoutOf(problem)?.end // when the version is served again
 * ```
 */
export function brownoutOf (problem: Record<string | symbol, unknown>): Brownout | undefined {
  return problem[kBrownout] as Brownout | undefined
}
