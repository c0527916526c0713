/**
 * The sunset policy `afterSunset: 'gone'`: once a version's `sunsetAt` has passed (by the plugin's `now`
 * clock), its requests are answered 410 with an RFC 9457 `application/problem+json` body naming the version,
 * its sunset date and the oldest version still served. Versions without the policy cost nothing.
 * @module
 */
import type { FastifyReply } from 'fastify'
import { toIsoDate } from '../core/iso-date'
import type { ServeOptions } from './serve-options'
import type { Version } from '../describe/versions'

/** Answers 410 when `version` is gone; returns true when it did (the request hook then stops). */
type GoneCheck = (method: string, reply: FastifyReply, version: string) => boolean

/** The versions with `afterSunset: 'gone'`. */
function goneVersions (options: ServeOptions): ReadonlySet<string> {
  return new Set(options.versions.versions.filter((version) => version.afterSunset === 'gone').map((version) => version.value))
}

/** The problem details of a request for a version gone since its sunset. */
function goneProblem (version: Version, oldestServed: string | undefined): Record<string, unknown> {
  const sunsetAt = version.sunsetAt as Date
  const date = toIsoDate(sunsetAt)
  return {
    type: 'about:blank',
    title: 'API version gone',
    status: 410,
    detail: `API version ${version.value} was sunset on ${date} and is no longer served. ` +
      (oldestServed === undefined ? 'No version of this API is served any longer.' : `The oldest version still served is ${oldestServed}.`),
    version: version.value,
    sunsetAt: sunsetAt.toISOString(),
    ...(oldestServed === undefined ? {} : { oldestVersion: oldestServed })
  }
}

/**
 * The check of the request hook, or `undefined` when no version has `afterSunset: 'gone'`. `setHeaders` sets
 * the version headers (echo, `Vary`, `Sunset`) on the 410.
 */
export function createGoneCheck (
  options: ServeOptions, setHeaders: (method: string, reply: FastifyReply, version: string) => void
): GoneCheck | undefined {
  const gone = goneVersions(options)
  if (gone.size === 0) return undefined
  const now = options.now
  const versions = options.versions.versions
  return function answerIfGone (method, reply, value) {
    if (!gone.has(value)) return false
    const version = options.versions.get(value) as Version
    const time = now()
    if ((version.sunsetAt as Date).getTime() > time) return false
    const isGone = (candidate: Version): boolean => candidate.afterSunset === 'gone' && (candidate.sunsetAt as Date).getTime() <= time
    const oldest = [...versions].reverse().find((candidate) => !isGone(candidate))
    setHeaders(method, reply, value)
    reply.code(410).type('application/problem+json; charset=utf-8').send(JSON.stringify(goneProblem(version, oldest?.value)))
    return true
  }
}
