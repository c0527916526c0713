/**
 * The version in request logs: every log line of a versioned request, Fastify's own "incoming request" and
 * "request completed" included, carries `apiVersion` (the version served). Where the version is known when Fastify
 * creates the request's child logger (header or path versions, a string default, a custom picker run before
 * routing), it is one more binding of that child, made by a `childLoggerFactory`; otherwise (a custom picker or a
 * function default, run in the request hook) the hook replaces the request's logger by a child of it. With the
 * application's logger off, nothing is installed and nothing runs.
 * @module
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { versionedScopeOf } from '../describe/versioned-scope'

/** True when the application logs (Fastify's logger is off when its children are the logger itself). */
export function loggerEnabled (fastify: FastifyInstance): boolean {
  return fastify.log.child({}) !== fastify.log
}

type ChildLoggerFactory = FastifyInstance['childLoggerFactory']

/**
 * Installs, in `fastify`'s context (and so in the `versioned(...)` contexts registered after it), a child logger
 * factory that binds `apiVersion` for requests to versioned routes whose version `versionOf` knows before the
 * request hook. The factory in place before (the application's own, or Fastify's) makes the child.
 */
export function bindVersionInChildLoggers (fastify: FastifyInstance, versionOf: (raw: IncomingMessage) => string | undefined): void {
  const previous: ChildLoggerFactory = fastify.childLoggerFactory
  fastify.setChildLoggerFactory(function versionerChildLogger (this: FastifyInstance, logger, bindings, options, raw) {
    // `this` is the context the route was declared in: versioned routes are declared inside versioned(...).
    if (versionedScopeOf(this) !== undefined) {
      const version = versionOf(raw as IncomingMessage)
      if (version !== undefined) bindings.apiVersion = version
    }
    return previous.call(this, logger, bindings, options, raw)
  } as ChildLoggerFactory)
}

/** Binds `apiVersion` into the logger of a request (and its reply) whose version was picked in the request hook. */
export function bindVersionInRequestLog (request: FastifyRequest, reply: FastifyReply, version: string): void {
  const log: FastifyBaseLogger = request.log.child({ apiVersion: version })
  request.log = log
  reply.log = log
}
