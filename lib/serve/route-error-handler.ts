/**
 * The route error handlers of versioned routes: they set the version headers on every error (also one thrown
 * before the version was picked, by an `onRequest` hook), turn a migrated request's failure of HEAD validation
 * into the logged 500 `FST_VERSIONER_LATEST_REQUEST_VALIDATION`, and hand every error on exactly as Fastify would
 * have without them.
 * @module
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { VersionerLatestRequestValidationError } from '../core/errors'
import type { ServeOptions } from './serve-options'
import { versionedRequest, type VersionedReply } from './request-state'
import { createErrorVersionHeaders } from './version-headers'
import { kBehaviour, kConverted, kMigrated } from '../core/symbols'
import { pickedWithoutWaiting, type RequestHookRoute } from './request-hook'

type ErrorHandler = (this: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply) => unknown

/**
 * Hands an error on from a route error handler of the versioner's: to the route's own error handler if it has one
 * (called in its place, so that what it returns or throws is Fastify's to handle), else to the context's, as a
 * rejected promise. Fastify sends whatever a handler throws to the next error handler only when it is an `Error`;
 * anything else (`'boom'`, `null`, `{ statusCode: 418 }`) would be sent as a success payload. A rejection is an
 * error whatever its value, so every thrown value gets exactly the answer plain Fastify gives it.
 */
function handOnError (
  instance: FastifyInstance, routeHandler: ErrorHandler | undefined, error: unknown, request: FastifyRequest, reply: FastifyReply
): unknown {
  if (routeHandler !== undefined) return routeHandler.call(instance, error as FastifyError, request, reply)
  return Promise.reject(error)
}

/**
 * The route's error handler: a failure of Fastify's (HEAD) validation on a part the versioner already
 * validated against the version's schema is a migration bug, logged with the version, route and errors, and
 * answered as a 500 whose body carries no schema detail. Everything else goes on to the route's own error
 * handler, if any, then to the context's.
 */
export function createMigrationErrorHandler (route: Omit<RequestHookRoute, 'changes'>, routeHandler: ErrorHandler | undefined, options: ServeOptions): ErrorHandler {
  // An error before the request hook (thrown by an onRequest hook, say) still says which version answers.
  const setVersionHeaders = createErrorVersionHeaders(options, (request) => {
    const picked = pickedWithoutWaiting(request, options)
    return picked !== undefined && picked.ok && route.behaviours.has(picked.version) ? picked.version : undefined
  })
  return function versionerErrorHandler (this: FastifyInstance, error, fastifyRequest, reply) {
    const request = versionedRequest(fastifyRequest)
    setVersionHeaders(request, reply)
    // The error replaces any payload the preSerialization hook converted: the onSend hook converts the error's.
    const versionedReply = reply as VersionedReply
    versionedReply[kConverted] = false
    const behaviour = request[kBehaviour]
    let result: unknown = error
    // Anything may have been thrown (`null`, a string): only an Error is read.
    const part = error instanceof Error ? (error as FastifyError & { validationContext?: string }).validationContext : undefined
    if (request[kMigrated] && behaviour !== null && part !== undefined && error.code === 'FST_ERR_VALIDATION' && behaviour.validatedParts.has(part)) {
      result = new VersionerLatestRequestValidationError(behaviour.version)
      request.log.error({
        err: result, apiVersion: behaviour.version, route: route.display, part, validation: (error as FastifyError & { validation?: unknown }).validation
      }, `A request of API version ${behaviour.version} to ${route.display} failed HEAD validation after its migration: ` +
        'a request converter or an instruction produces data the HEAD schema rejects.')
    }
    return handOnError(this, routeHandler, result, fastifyRequest, reply)
  }
}
