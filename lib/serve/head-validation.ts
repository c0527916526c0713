/**
 * Fastify's own validation of a migrated request against the HEAD schemas: a request its version's schemas accepted
 * (./migrate-request.ts) that HEAD's then refuse was broken by a converter or an instruction, never by the client. The
 * route's error handler answers it with the logged 500 `FST_VERSIONER_LATEST_REQUEST_VALIDATION`
 * (./error-handling.ts). On an `attachValidation` route Fastify hands the error to the handler instead, which would
 * answer the client as if it had sent invalid data: the route's first `preHandler` hook passes it on as an error.
 * An error in the same shape that HEAD's validator did not raise (a business rule a handler or hook reports as
 * Fastify reports validation) stays the client's: HEAD's validator is asked again, on the error path only. What a
 * validator answered is read here for every validation of the versioner's (versions', HEAD's, the upgrade preview's).
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
 * `{ error }` (`TypeBoxValidatorCompiler`'s), or `undefined` when the part is valid. (A promise, an `$async`
 * schema's, is each caller's to wait for or not.)
 * @example
 * const failure = validationFailure(check, check(request.body)) // undefined, or what validationError formats
 */
export function validationFailure (check: { errors?: FastifySchemaValidationError[] | null }, outcome: unknown): FastifySchemaValidationError[] | Error | undefined {
  const failure = outcome === false ? check.errors ?? [] : (outcome as { error?: unknown } | null | undefined)?.error
  return failure === undefined || failure === null || failure === false ? undefined : failure as FastifySchemaValidationError[] | Error
}

/**
 * True unless HEAD's validator of `part` (the route's, Fastify's own; by media type for a `content` body) accepts
 * the request's data now: then the error was raised after Fastify's validation passed, by a handler or a hook. The
 * media type is read from the Content-Type header, as Fastify 5.0 to 5.8 read it (request.mediaType is 5.9's).
 * An async validator's answer cannot be waited for here: the error is taken for HEAD's.
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
 * True when `error` is Fastify's (HEAD) validation failing on a part the versioner validated against the request's
 * version before migrating it: a converter's or an instruction's bug, never the client's (the request is then marked as
 * a failed conversion). Anything may have been
 * thrown (`null`, a string): only an Error is read.
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
 * The first `preHandler` hook of an `attachValidation` route: a HEAD validation error Fastify attached to a migrated
 * request goes to the route's error handler (the logged 500) instead of the handler; any other attached error (the
 * version's, or the newest version's own) stays the handler's to answer.
 * @example
 * ```ts
 * route.preHandler = [attachedMigrationFailure, ...userPreHandlers]
 * ```
 */
export const attachedMigrationFailure: preHandlerHookHandler = function versionerAttachedValidation (request, _reply, done) {
  const error = request.validationError
  if (error !== undefined && failsHeadAfterMigration(error, request)) done(error)
  else done()
}
