/**
 * `currentDependencySolver(request)`: tells hooks in which phase of versioned request handling they run.
 * @module
 */
import type { FastifyRequest } from 'fastify'
import { versionedRequest } from './request-state'
import { kMigrated } from './symbols'

/** The phase of a request: `'fastify'` before migration (versioned data), `'versioner'` after it (HEAD data). */
export type DependencySolver = 'fastify' | 'versioner'

/**
 * `'fastify'` while a versioned request still holds the data of its version (in `onRequest`, `preParsing`
 * and `preValidation` hooks), `'versioner'` once it holds HEAD data (after the versioner's migration: in
 * `preHandler` hooks and the handler). Unversioned requests are always `'fastify'`. Use it to run a side
 * effect in only one phase.
 * @example
 * ```ts
 * app.addHook('preValidation', async (request) => {
 *   if (currentDependencySolver(request) === 'fastify') request.log.info({ raw: request.body }, 'as sent by the client')
 * })
 * ```
 */
export function currentDependencySolver (request: FastifyRequest): DependencySolver {
  return versionedRequest(request)[kMigrated] ? 'versioner' : 'fastify'
}
