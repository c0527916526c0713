/**
 * `fieldsTheVersionLacks(request)`: the HEAD body fields a request's version cannot express, so that a full replace
 * keeps their stored values ([decision 0073](../../docs/decisions/0073-replace-keeps-what-old-clients-cannot-see.md)).
 * @module
 */
import type { FastifyRequest } from 'fastify'
import { NO_FIELDS } from '../routes/full-replace'
import { requestPlanOf, type VersionBehaviour } from '../routes/version-plan'
import { registeredRouteOf, requestState } from './request-state'

/** The behaviour serving a request: the request hook's, or, before it ran, the one of the version known already. */
function behaviourOf (request: FastifyRequest): VersionBehaviour | undefined {
  const known = requestState(request)?.behaviour
  if (known !== null && known !== undefined) return known
  const registered = registeredRouteOf(request)
  const version = registered === undefined ? undefined : request.apiVersion
  return version === undefined ? undefined : registered?.behaviours.get(version)
}

/**
 * The HEAD request body fields the request's version cannot express, as JSON pointers into the body the handler
 * reads (`/address/line2`; `*` stands for every item of a list and every value of a map): fields added since that
 * version, and HEAD's internal fields a `HeadVersion` change hides. A client of that version cannot send them, so a
 * handler that replaces a stored resource with the body keeps their stored values. A renamed or retyped field is not
 * listed: its converter carries the value. The answer is a frozen array computed once per route and version (the same
 * object for every request; nothing is computed on requests that do not call it): `[]` for versions that express
 * every HEAD field and for unversioned routes (and before the version is known: call it from `preHandler` hooks or
 * the handler). `verify` reports every full-replace route (`PUT`, or the route option `fullReplace`) whose versions
 * lack fields its `fullReplace: { keeps }` does not list.
 * @example
 * ```ts
 * api.put('/users/:id', { schema: { body: User }, fullReplace: { keeps: ['/nickname'] } }, async (request) => {
 *   const stored = users.get(request.params.id) ?? {}
 *   const user = { ...request.body }
 *   for (const pointer of fieldsTheVersionLacks(request)) {
 *     const key = pointer.slice(1) // top-level fields only here; docs/serving.md keeps nested ones
 *     if (key in stored) user[key] = stored[key]
 *   }
 *   users.set(request.params.id, user)
 *   return user
 * })
 * ```
 */
export function fieldsTheVersionLacks (request: FastifyRequest): readonly string[] {
  const behaviour = behaviourOf(request)
  return behaviour === undefined ? NO_FIELDS : requestPlanOf(behaviour, request.headers['content-type']).lackedFields
}
