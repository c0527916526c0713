/**
 * Warning `FSTVRS006`: a success sent with a status (or media type) the route declares no response schema for, to a
 * version whose declared successes are converted or serialized otherwise than HEAD's (decision 0252).
 * @module
 */
import type { FastifyReply } from 'fastify'
import type { VersionBehaviour } from '../routes/version-plan'
import { responseSlot } from '../routes/schema-forms'
import { processWarning } from '../core/warnings'

/**
 * Warns once per route, version and status when the reply's success status has no response schema on the route while
 * the version's declared successes have converters or another schema than HEAD's: Fastify writes such a body as plain
 * JSON, HEAD's body with the fields a `HeadVersion` hides, and no converter of the version ran on it. With `lookup`,
 * the slot is looked up here, unless the success hook converts the body (which calls again, without, having found none).
 * @example
 * ```ts
 * warnUndeclaredStatus(behaviour, reply, 'POST /users', true) // FSTVRS006 for a 201 on a route declaring only 200
 * ```
 */
export function warnUndeclaredStatus (behaviour: VersionBehaviour, reply: FastifyReply, route: string, lookup: boolean): void {
  const status = reply.statusCode
  // A success the success hook converts is looked at there: its slot known, no lookup here.
  if (!behaviour.declaredSuccessWork || status >= 300 || (lookup && behaviour.successWork) || behaviour.undeclaredStatuses.has(status)) return
  if (lookup && responseSlot(behaviour.responses, status, reply) !== undefined) return
  behaviour.undeclaredStatuses.add(status)
  processWarning.FSTVRS006(String(status), route, behaviour.version)
}
