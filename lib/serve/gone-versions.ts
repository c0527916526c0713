/**
 * The 410 of a version gone: after its sunset with `afterSunset: 'gone'`, or inside a scheduled brownout, a request is
 * answered with an RFC 9457 problem naming the version and the oldest one served. Versions without the policy cost nothing.
 * @module
 */
import type { FastifyReply } from 'fastify'
import type { Brownout } from '../describe/release-dates'
import type { Version } from '../describe/versions'
import { toIsoDate } from '../core/iso-date'
import type { ReleaseSource } from './release-clock'
import type { ServeOptions } from './serve-options'

/** Where a brownout's problem keeps its window (not a member of the body: symbols are not serialized). */
const kBrownout = Symbol('fastify-versioner.brownout')

/**
 * The problem details of a 410 answering a request for `version`, saying `detail`.
 * @example
 * ```ts
 * goneProblem(versions.get('2000-01-01'), 'API version 2000-01-01 was sunset on …') // { type: 'about:blank', title: 'API version gone', status: 410, … }
 * ```
 */
function goneProblem (version: Version, detail: string): Record<string, unknown> {
  return { type: 'about:blank', title: 'API version gone', status: 410, detail, version: version.value, sunsetAt: (version.sunsetAt as Date).toISOString() }
}

/**
 * The problem details of a request for `version` at `time` (milliseconds) when it is in a brownout then.
 * @example
 * ```ts
 * brownoutProblemAt(options, versions.get('2000-01-01'), Date.now()) // { status: 410, brownout: { start, end }, … } inside a window
 * ```
 */
function brownoutProblemAt (options: ReleaseSource, version: Version, time: number): Record<string, unknown> | undefined {
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
 * @example `brownoutOf(problem)?.end // when the version is served again`
 */
export function brownoutOf (problem: Record<string | symbol, unknown>): Brownout | undefined {
  return problem[kBrownout] as Brownout | undefined
}

/** Answers 410 when `version` is gone; returns the problem it answered (the request hook then stops). */
type GoneCheck = (reply: FastifyReply, version: string) => Record<string, unknown> | undefined

/** The problem details of a request for a version gone since its sunset. */
function sunsetProblem (version: Version, oldestServed: string | undefined): Record<string, unknown> {
  const detail = `API version ${version.value} was sunset on ${toIsoDate(version.sunsetAt as Date)} and is no longer served. ` +
    (oldestServed === undefined ? 'No version of this API is served any longer.' : `The oldest version still served is ${oldestServed}.`)
  return { ...goneProblem(version, detail), ...(oldestServed === undefined ? {} : { oldestVersion: oldestServed }) }
}

/** The problem details of a version gone now (by the `now` clock), or `undefined` when it is served. */
export type GoneTest = (version: string) => Record<string, unknown> | undefined

/**
 * Tells whether a version is gone (sunset passed with `afterSunset: 'gone'`, or in a brownout); `undefined` when no
 * version has that policy.
 * @example
 * ```ts
 * const problem = createGoneTest(options)?.('2000-01-01') // { title: 'API version gone', status: 410, … } once its sunset passed
 * ```
 */
export function createGoneTest (options: Pick<ServeOptions, 'versions' | 'now'>): GoneTest | undefined {
  const gone = new Set(options.versions.versions.filter((version) => version.afterSunset === 'gone').map((version) => version.value))
  if (gone.size === 0) return undefined
  const now = options.now
  // The oldest version still served, named to any client: never a preview (decision 0059).
  const versions = options.versions.versions.filter((version) => version.channel !== 'preview')
  return function goneProblemOf (value) {
    if (!gone.has(value)) return undefined
    const version = options.versions.get(value) as Version
    const time = now()
    if ((version.sunsetAt as Date).getTime() > time) return brownoutProblemAt(options, version, time)
    const isGone = (candidate: Version): boolean => candidate.afterSunset === 'gone' && (candidate.sunsetAt as Date).getTime() <= time
    const oldest = [...versions].reverse().find((candidate) => !isGone(candidate))
    return sunsetProblem(version, oldest?.value)
  }
}

/** The check of the request hook, or `undefined` when no version has `afterSunset: 'gone'`; `setHeaders` on the 410. */
export function createGoneCheck (options: ServeOptions, setHeaders: (reply: FastifyReply, version: string) => void): GoneCheck | undefined {
  const goneProblemOf = createGoneTest(options)
  if (goneProblemOf === undefined) return undefined
  return function answerIfGone (reply, value) {
    const problem = goneProblemOf(value)
    if (problem === undefined) return undefined
    setHeaders(reply, value)
    // A 410 is cacheable by default (RFC 9110 §15.1); a brownout's ends with its window: revalidated on each use, also
    // when a pin made it `private` (./migrate-request.ts).
    const cacheControl = reply.getHeader('cache-control')
    if (brownoutOf(problem) !== undefined && (cacheControl === undefined || cacheControl === 'private')) {
      reply.header('cache-control', cacheControl === undefined ? 'no-cache' : 'private, no-cache')
    }
    reply.code(410).type('application/problem+json; charset=utf-8').send(JSON.stringify(problem))
    return problem
  }
}
