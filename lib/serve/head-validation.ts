/**
 * Fastify's HEAD validation of a migrated request: a refusal there is a converter's or an instruction's bug, answered
 * with a logged 500; an error in that shape HEAD's validator did not raise stays the client's.
 * @module
 */
import type { FastifyError, FastifyRequest, FastifySchemaValidationError, preHandlerHookHandler } from 'fastify'
import { mediaTypeOf } from '../routes/schema-forms'
import { requestPlanOf, type RequestPart } from '../routes/version-plan'
import { requestState } from './request-state'
import { isThenable } from './step-runner'

/** The request property holding each part Fastify validates. */
export const PART_PROPERTY = { body: 'body', querystring: 'query', params: 'params', headers: 'headers' } as const

/**
 * What a request part's validator answered, read as Fastify reads it: `false` (its `errors`), a custom compiler's
 * `{ error }`, or `undefined` when valid (an `$async` promise is each caller's to wait for).
 * @example
 * const failure = validationFailure(check, check(request.body)) // undefined, or what validationError formats
 */
export function validationFailure (check: { errors?: FastifySchemaValidationError[] | null }, outcome: unknown): FastifySchemaValidationError[] | Error | undefined {
  const failure = outcome === false ? check.errors ?? [] : (outcome as { error?: unknown } | null | undefined)?.error
  return failure === undefined || failure === null || failure === false ? undefined : failure as FastifySchemaValidationError[] | Error
}

/**
 * True unless HEAD's validator of `part` accepts the request's data now (then a handler or hook raised the error). The
 * media type is read from Content-Type, as Fastify 5.0 to 5.8 did; an async validator's answer is taken for a refusal.
 */
function headRefuses (request: FastifyRequest, part: RequestPart): boolean {
  const validators = request.getValidationFunction(part) as unknown
  const check = typeof validators === 'function' ? validators : (validators as Record<string, unknown> | undefined)?.[String(mediaTypeOf(request.headers['content-type']))]
  if (typeof check !== 'function') return true
  const data: unknown = request[PART_PROPERTY[part]]
  // Validated as Fastify validates it: a missing part as null.
  const outcome: unknown = check(data === undefined ? null : data)
  return isThenable(outcome) || validationFailure(check as { errors?: [] }, outcome) !== undefined
}

/**
 * True when `error` is Fastify's HEAD validation failing on a part the versioner validated against the request's
 * version: a converter's or an instruction's bug (only an Error is read).
 * @example
 * ```ts
 * if (failsHeadAfterMigration(error, request)) reply.code(500) // and log it: the converters broke the request
 * ```
 */
export function failsHeadAfterMigration (error: unknown, request: FastifyRequest): boolean {
  const state = requestState(request)
  const part = error instanceof Error ? (error as FastifyError & { validationContext?: string }).validationContext : undefined
  if (state?.migrated !== true || state.behaviour === null || part === undefined || (error as FastifyError).code !== 'FST_ERR_VALIDATION') return false
  const fails = requestPlanOf(state.behaviour, request.headers['content-type']).validate.some(([validated]) => validated === part) &&
    headRefuses(request, part as RequestPart)
  // Such a request is answered the logged 500: a failed conversion, as a converter's (its answer passes no converter, nor is it captured).
  if (fails) state.converterFailed = true
  return fails
}

/**
 * The first `preHandler` hook of an `attachValidation` route: a HEAD validation error attached to a migrated request
 * goes to the route's error handler; any other attached error stays the handler's.
 * @example `route.preHandler = [attachedMigrationFailure, ...userPreHandlers]`
 */
export const attachedMigrationFailure: preHandlerHookHandler = function versionerAttachedValidation (request, _reply, done) {
  const error = request.validationError
  if (error !== undefined && failsHeadAfterMigration(error, request)) done(error)
  else done()
}
