/**
 * The errors a request is answered with, built with `@fastify/error` and collected in `errorCodes` (./errors.ts): a
 * 4xx names the bad value and what is accepted; a 500 is a server bug (a converter's, an instruction's, a version
 * picker's), logged, its message saying so.
 * @module
 */
import createError from '@fastify/error'

/**
 * 500: a migrated request fails the HEAD schemas (a converter's or an instruction's bug), logged.
 * @example
 * ```ts
 * const app = Fastify()
 * app.setErrorHandler(async (error, request, reply) => {
 *   // Through the route's error handler: a request converter or instruction of the request's version has a bug
 *   if (error instanceof VersionerLatestRequestValidationError) request.log.fatal({ err: error }, 'page the API team')
 *   return await reply.send(error)
 * })
 * ```
 */
export const VersionerLatestRequestValidationError = createError<'FST_VERSIONER_LATEST_REQUEST_VALIDATION', 500, [version: string]>('FST_VERSIONER_LATEST_REQUEST_VALIDATION',
  'The request could not be migrated from API version %s to the latest version. This is a server error; it has been logged.', 500)

/**
 * 500: a converter threw or rejected (an `Error` with a 4xx `statusCode` is a refusal, answered as it is), logged.
 * @example
 * ```ts
 * const app = Fastify()
 * app.setErrorHandler(async (error, request, reply) => {
 *   // Through the route's error handler, which may answer in the API's own error shape
 *   if (error instanceof ConverterFailedError) return await reply.code(500).send({ error: { type: 'api_error', retryable: false } })
 *   return await reply.send(error)
 * })
 * ```
 */
export const ConverterFailedError = createError<'FST_VERSIONER_CONVERTER_FAILED', 500, [version: string]>('FST_VERSIONER_CONVERTER_FAILED',
  'A converter failed while migrating this request or response of API version %s. This is a server error; it has been logged.', 500)

/**
 * 500: a response holds a value its version cannot express once converted (an unmapped HEAD enum member).
 * @example
 * ```ts
 * declare const versions: VersionBundle, subscriber: { url: string, apiVersion: string }
 * const OrderResource = Type.Object({ id: Type.String(), status: Type.String() }, { $id: 'OrderResource' })
 * try {
 *   await migrateResponseBody(versions, OrderResource, { latestBody: { id: 'o1', status: 'refunded' }, version: subscriber.apiVersion })
 * } catch (error) {
 *   if (!(error instanceof UnconvertibleResponseError)) throw error
 *   console.error(`not sent to ${subscriber.url}: ${error.message}`) // names the converter to add
 * }
 * ```
 */
export const UnconvertibleResponseError = createError<'FST_VERSIONER_UNCONVERTIBLE_RESPONSE', 500, [message: string]>(
  'FST_VERSIONER_UNCONVERTIBLE_RESPONSE', '%s', 500)

/**
 * 400: the request names a malformed version, or one this API does not serve.
 * @example
 * ```ts
 * declare const app: FastifyInstance // serving 2001-01-01 and 2000-01-01 in the x-api-version header
 * await app.inject({ method: 'POST', url: '/users', payload: {}, headers: { 'x-api-version': '1999-01-01' } }) // 400: too old
 * ```
 */
export const InvalidApiVersionError = createError<'FST_VERSIONER_INVALID_API_VERSION', 400, [message: string]>('FST_VERSIONER_INVALID_API_VERSION', '%s', 400)

/**
 * 400: a versioned route was requested without a version, and no default is configured.
 * @example
 * ```ts
 * declare const app: FastifyInstance // serving 2001-01-01 and 2000-01-01 in the x-api-version header
 * await app.inject({ method: 'POST', url: '/users', payload: {} }) // 400 without apiVersionDefaultValue
 * ```
 */
export const MissingApiVersionError = createError<'FST_VERSIONER_MISSING_API_VERSION', 400, [message: string]>('FST_VERSIONER_MISSING_API_VERSION', '%s', 400)

/**
 * 404: `GET /openapi.json` was asked for a version that has no document.
 * @example
 * ```ts
 * declare const app: FastifyInstance // serving 2001-01-01 and 2000-01-01 in the x-api-version header
 * await app.inject({ url: '/openapi.json?version=1999-01-01' }) // 404, listing the versions
 * ```
 */
export const OpenApiVersionNotFoundError = createError<'FST_VERSIONER_OPENAPI_NOT_FOUND', 404, [message: string]>('FST_VERSIONER_OPENAPI_NOT_FOUND', '%s', 404)

/**
 * 500: a version picker threw something not an `Error`, or read before routing what only exists after it.
 * @example
 * ```ts
 * await Fastify().register(fastifyVersioner, {
 *   versions: new VersionBundle(new Version('2000-01-01')),
 *   apiVersionDefaultValue: async () => { throw 'no account' } // each request a 500: throw an Error (with a 4xx statusCode)
 * })
 * ```
 */
export const VersionPickerError = createError<'FST_VERSIONER_VERSION_PICKER', 500, [message: string, options?: { cause: unknown }]>('FST_VERSIONER_VERSION_PICKER', '%s', 500)

/**
 * 400: the upgrade guide needs `from` and `to`, two versions, `from` older.
 * @example
 * ```ts
 * declare const app: FastifyInstance // serving 2001-01-01 and 2000-01-01 in the x-api-version header
 * await app.inject({ url: '/docs/upgrade?from=2001-01-01&to=2000-01-01' }) // 400: from must be the older
 * ```
 */
export const InvalidUpgradeRangeError = createError<'FST_VERSIONER_INVALID_UPGRADE_RANGE', 400, [message: string]>('FST_VERSIONER_INVALID_UPGRADE_RANGE', '%s', 400)
