/**
 * `currentDependencySolver(request)`: tells hooks in which phase of versioned request handling they run.
 * @module
 */
import type { FastifyRequest } from 'fastify'
import { registeredRouteOf, requestState } from './request-state'

/** The phase of a request: `'fastify'` before migration (versioned data), `'versioner'` after it (HEAD data). */
export type DependencySolver = 'fastify' | 'versioner'

/**
 * `'fastify'` while a versioned request still holds the data of its version (in `onRequest`, `preParsing`
 * and `preValidation` hooks), `'versioner'` once it holds HEAD data (after the versioner's migration: in
 * `preHandler` hooks and the handler). A header version the route serves exactly as HEAD (same schemas, no
 * converter: usually the newest) has no migration: its requests hold HEAD data from the start, and are
 * `'versioner'` in every hook (when the version is known before the request hook: not with a custom picker or a
 * function default).
 * Unversioned requests are always `'fastify'`. Use it to run a side effect on only one shape of the data.
 * @example
 * ```ts
 * app.addHook('preHandler', async (request) => {
 *   if (currentDependencySolver(request) === 'versioner') request.log.info({ body: request.body }, 'as the handler reads it')
 * })
 * ```
 */
export function currentDependencySolver (request: FastifyRequest): DependencySolver {
  if (requestState(request)?.migrated === true) return 'versioner'
  const registered = registeredRouteOf(request)
  if (registered === undefined || registered.headData.size === 0) return 'fastify'
  const version = request.apiVersion
  return version !== undefined && registered.headData.has(version) ? 'versioner' : 'fastify'
}
