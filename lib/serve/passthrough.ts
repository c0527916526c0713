/**
 * Versions served without hooks. Fastify's route hooks cost about a microsecond each per request, more than
 * the versioner's own work, so a version with nothing to do on a route (its schemas are the route's own, no
 * converter applies: usually the newest versions) is served by a second Fastify route at the same path, with
 * no versioner hooks, chosen by a route constraint on the version (derived from the version header, or the
 * string default). Its handler sets the version headers and calls the application's handler; its error handler
 * sets them on errors (a validation failure, an error thrown by a hook). Everything else about the route (the
 * application's own hooks, schema, config, error handler) is the HEAD route's.
 * @module
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { InvalidApiVersionError } from '../core/errors'
import type { ServeOptions } from './serve-options'
import { pickVersion } from './request-hook'
import { handOnError } from './route-error-handler'
import { versionedRequest } from './request-state'
import { kMigrated } from '../core/symbols'
import { createErrorVersionHeaders, createVersionHeaders } from './version-headers'
import { pickingErrorMessage, type PickedVersion } from './version-picking'
import { publishServed, servedChannel, type HeadRouteOf } from './usage-events'

/**
 * Whether versions can be served without hooks: the version must be known before Fastify picks the route
 * (from the header, or a string default) and no one reads the version from `apiVersionStorage` (which needs
 * the request hook to enter it).
 */
export function passthroughPossible (options: ServeOptions, storesVersion: boolean): boolean {
  return options.location === 'header' && !options.asyncPicking && !storesVersion
}

/** What Fastify passes a route's serializer compiler. */
interface SerializerRouteSchema {
  readonly schema: unknown
  readonly method: string
  readonly url: string
  readonly httpStatus: string
  readonly contentType?: string
}
type SerializerCompiler = (routeSchema: SerializerRouteSchema) => (data: unknown) => string

/**
 * The serializer compiler of a route that has a hook-less twin: the twin compiles the route's own response
 * schemas when the application becomes ready, so this route compiles them on its first response of each status
 * (its versions are the older ones) instead of a second time at start-up. It compiles with the route's own
 * compiler if it has one, else with the application's (set up by then: the twin's schemas needed it).
 */
export function lazySerializerCompiler (instance: FastifyInstance, routeCompiler: SerializerCompiler | undefined): SerializerCompiler {
  return (routeSchema) => {
    let serialize: ((data: unknown) => string) | undefined
    return (data) => {
      serialize ??= (routeCompiler ?? instance.serializerCompiler as unknown as SerializerCompiler)(routeSchema)
      return serialize(data)
    }
  }
}

type Handler = (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) => unknown
type ErrorHandler = (this: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply) => unknown

/** The version a request on the passthrough route is served in (the route constraint already picked it). */
function passthroughVersion (fastifyRequest: FastifyRequest, options: ServeOptions): PickedVersion {
  // Synchronous: passthrough routes exist only when picking is (see passthroughPossible).
  return pickVersion(fastifyRequest, options) as PickedVersion
}

/** The handler of a passthrough route: sets the version headers, then runs the application's handler. */
export function createPassthroughHandler (handler: Handler, options: ServeOptions, prefix: string, head: HeadRouteOf): Handler {
  const setVersionHeaders = createVersionHeaders(options)
  return function versionerPassthroughHandler (fastifyRequest, reply) {
    const request = versionedRequest(fastifyRequest)
    const picked = passthroughVersion(request, options)
    // The route constraint matched a version this route serves; anything else would be a bug, answered as the hook would.
    if (!picked.ok) throw new InvalidApiVersionError(pickingErrorMessage(picked, options, prefix))
    request[kMigrated] = true
    setVersionHeaders(request.method, reply, picked.version)
    if (servedChannel.hasSubscribers) publishServed(request, options.picker.requested(request), picked.version, head, options)
    return handler.call(this, request, reply)
  }
}

/** The error handler of a passthrough route: sets the version headers (unless the handler did), then hands the error on. */
export function createPassthroughErrorHandler (routeHandler: ErrorHandler | undefined, options: ServeOptions, head: HeadRouteOf): ErrorHandler {
  const setVersionHeaders = createErrorVersionHeaders(options, (request) => {
    const picked = passthroughVersion(request, options)
    return picked.ok ? picked.version : undefined
  })
  return function versionerPassthroughErrorHandler (error, fastifyRequest, reply) {
    const request = versionedRequest(fastifyRequest)
    setVersionHeaders(request, reply)
    // A request that failed before the handler (validation, a hook) was served in its version too: one event.
    if (servedChannel.hasSubscribers && !request[kMigrated]) {
      const picked = passthroughVersion(request, options)
      request[kMigrated] = true
      if (picked.ok) publishServed(request, options.picker.requested(request), picked.version, head, options)
    }
    return handOnError(this, routeHandler, error, request, reply)
  }
}
