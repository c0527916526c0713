/**
 * Stage `lib/core/`: shared helpers that know nothing of versions (errors, warnings, symbols, JSON Schema, dates, methods).
 *
 * Every error fastify-versioner throws or answers with, built with `@fastify/error` and collected in {@link errorCodes}
 * (docs/errors.md): start-up errors name what is at fault, request errors the bad value and what is accepted.
 * @module
 */
import createError, { type FastifyErrorConstructor } from '@fastify/error'

/** `@fastify/error` types its `Base` parameter as a plain `ErrorConstructor`; our own classes are valid bases. */
function asBase (constructor: FastifyErrorConstructor<{ code: string }, [string]>): ErrorConstructor {
  return constructor as unknown as ErrorConstructor
}

/**
 * The structure of the version description is wrong: the bundle, a version, a version change class, a
 * converter declaration or an instruction's arguments. Thrown when the offending object is built.
 * @example
 * ```ts
 * new VersionBundle(new HeadVersion()) // throws FST_VERSIONER_STRUCTURE: at least one dated version
 * ```
 */
export const VersionerStructureError = createError<'FST_VERSIONER_STRUCTURE', 500, [message: string]>('FST_VERSIONER_STRUCTURE', '%s', 500)

/**
 * A schema or enum instruction cannot apply to the schema as it stands in that version (field missing,
 * same name, same type, same value, member absent, keyword not present…). Thrown by schema generation.
 * @example
 * ```ts
 * schema(User).field('nickname').didntExist // throws at generation when User has no `nickname`
 * ```
 */
export const InvalidGenerationInstructionError = createError<'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION', 500, [message: string]>(
  'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION', '%s', 500)

/**
 * An endpoint instruction or a converter cannot be applied to the application's routes. Thrown when the
 * application becomes ready. The more specific router errors below extend it.
 * @example
 * ```ts
 * endpoint('/missing', ['GET']).didntExist // throws FST_VERSIONER_ROUTER_GENERATION at app.ready()
 * ```
 */
export const RouterGenerationError = createError<'FST_VERSIONER_ROUTER_GENERATION', 500, [message: string]>('FST_VERSIONER_ROUTER_GENERATION', '%s', 500)

/**
 * `endpoint(...).had({ path })` changes the path parameters of a route, which the handler cannot serve.
 * @example
 * ```ts
 * endpoint('/users/:id', ['GET']).had({ path: '/users/:userId' }) // throws at app.ready()
 * ```
 */
export const RouterPathParamsModifiedError = createError<'FST_VERSIONER_ROUTER_PATH_PARAMS_MODIFIED', 500, [message: string]>('FST_VERSIONER_ROUTER_PATH_PARAMS_MODIFIED', '%s', 500, asBase(RouterGenerationError))

/**
 * A `@ConvertRequestToNextVersionFor(Schema)` converter names a schema no route's request uses.
 * @example
 * ```ts
 * // pass { checkUsage: false } when the schema is only used outside routes
 * @ConvertRequestToNextVersionFor(Unused) up (request: RequestInfo) {}
 * ```
 */
export const RouteRequestBySchemaConverterDoesNotApplyToAnythingError =
  createError<'FST_VERSIONER_REQUEST_CONVERTER_UNUSED', 500, [message: string]>('FST_VERSIONER_REQUEST_CONVERTER_UNUSED', '%s', 500, asBase(RouterGenerationError))

/**
 * A `@ConvertResponseToPreviousVersionFor(Schema)` converter names a schema no route's response uses.
 * @example
 * ```ts
 * // pass { checkUsage: false } for schemas used only in webhooks or jobs (migrateResponseBody)
 * @ConvertResponseToPreviousVersionFor(WebhookPayload, { checkUsage: false }) down (response: ResponseInfo) {}
 * ```
 */
export const RouteResponseBySchemaConverterDoesNotApplyToAnythingError =
  createError<'FST_VERSIONER_RESPONSE_CONVERTER_UNUSED', 500, [message: string]>('FST_VERSIONER_RESPONSE_CONVERTER_UNUSED', '%s', 500, asBase(RouterGenerationError))

/**
 * A converter declared by path and methods matches no route in the version it belongs to.
 * @example
 * ```ts
 * @ConvertRequestToNextVersionFor('/users/:id', ['PUT']) up (request: RequestInfo) {} // no PUT /users/:id
 * ```
 */
export const RouteByPathConverterDoesNotApplyToAnythingError =
  createError<'FST_VERSIONER_PATH_CONVERTER_UNUSED', 500, [message: string]>('FST_VERSIONER_PATH_CONVERTER_UNUSED', '%s', 500, asBase(RouterGenerationError))

/**
 * A migrated request fails validation against the HEAD schemas: a converter's or an instruction's bug, answered 500.
 * @example
 * ```ts
 * // response body: { statusCode: 500, code: 'FST_VERSIONER_LATEST_REQUEST_VALIDATION', message: '…' }
 * ```
 */
export const VersionerLatestRequestValidationError = createError<'FST_VERSIONER_LATEST_REQUEST_VALIDATION', 500, [version: string]>('FST_VERSIONER_LATEST_REQUEST_VALIDATION',
  'The request could not be migrated from API version %s to the latest version. This is a server error; it has been logged.', 500)

/**
 * 500: a converter threw or rejected while migrating one request or response (an `Error` with a 4xx `statusCode` is
 * the converter's refusal, answered as it is); the log entry names the converter.
 * @example
 * ```ts
 * // response body: { statusCode: 500, code: 'FST_VERSIONER_CONVERTER_FAILED', message: '…' }
 * ```
 */
export const ConverterFailedError = createError<'FST_VERSIONER_CONVERTER_FAILED', 500, [version: string]>('FST_VERSIONER_CONVERTER_FAILED',
  'A converter failed while migrating this request or response of API version %s. This is a server error; it has been logged.', 500)

/**
 * 500: a response (or `migrateResponseBody`'s result) holds a value its version cannot express once its converters
 * ran: a HEAD enum member no converter mapped, or a body that does not match the version's schema.
 * @example
 * ```ts
 * // enumeration(OrderStatus).didntHave('refunded') and no converter: GET /orders in 2000-01-01 answers
 * // { statusCode: 500, code: 'FST_VERSIONER_UNCONVERTIBLE_RESPONSE', message: '…' }
 * ```
 */
export const UnconvertibleResponseError = createError<'FST_VERSIONER_UNCONVERTIBLE_RESPONSE', 500, [message: string]>(
  'FST_VERSIONER_UNCONVERTIBLE_RESPONSE', '%s', 500)

/**
 * An HTTP method name in `endpoint(...)` or in a by-path converter is not a method Fastify can route.
 * @example
 * ```ts
 * endpoint('/users', ['GETT']) // throws FST_VERSIONER_LINTING
 * ```
 */
export const LintingError = createError<'FST_VERSIONER_LINTING', 500, [methods: string]>('FST_VERSIONER_LINTING',
  'The following HTTP methods are not valid: %s. Use HTTP methods such as GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD.', 500)

/**
 * 400: the request names an API version that is malformed or that this API does not serve.
 * @example
 * ```ts
 * // x-api-version: 1999-01-01 → 400 "Unsupported API version '1999-01-01' …"
 * ```
 */
export const InvalidApiVersionError = createError<'FST_VERSIONER_INVALID_API_VERSION', 400, [message: string]>('FST_VERSIONER_INVALID_API_VERSION', '%s', 400)

/**
 * 400: a versioned route was requested without a version, and no default version is configured.
 * @example
 * ```ts
 * // POST /users with no x-api-version header → 400 "Send the API version in the 'x-api-version' header…"
 * ```
 */
export const MissingApiVersionError = createError<'FST_VERSIONER_MISSING_API_VERSION', 400, [message: string]>('FST_VERSIONER_MISSING_API_VERSION', '%s', 400)

/**
 * A version value that the bundle does not hold was passed to a programmatic API
 * (`migrateResponseBody`, `generateVersionedSchemas(...).get`).
 * @example
 * ```ts
 * migrateResponseBody(bundle, User, { latestBody, version: '1900-01-01' }) // throws FST_VERSIONER_UNKNOWN_VERSION
 * ```
 */
export const UnknownVersionError = createError<'FST_VERSIONER_UNKNOWN_VERSION', 500, [message: string]>('FST_VERSIONER_UNKNOWN_VERSION', '%s', 500)

/**
 * `isApplied` was read on a `VersionChangeWithSideEffects` that no `Version` of a bundle holds.
 * @example
 * ```ts
 * class Orphan extends VersionChangeWithSideEffects { … }
 * Orphan.isApplied // throws FST_VERSIONER_VERSION_CHANGE_NOT_BOUND
 * ```
 */
export const VersionChangeNotBoundError = createError<'FST_VERSIONER_VERSION_CHANGE_NOT_BOUND', 500, [versionChange: string]>(
  'FST_VERSIONER_VERSION_CHANGE_NOT_BOUND',
  "You tried to check whether '%s' is applied, but it was never bound to any version. Put it in a Version of a VersionBundle.",
  500
)

/**
 * The plugin was registered with options it cannot use.
 * @example
 * ```ts
 * app.register(fastifyVersioner, { versions: bundle, apiVersionLocation: 'query' }) // FST_VERSIONER_INVALID_OPTION
 * ```
 */
export const InvalidOptionError = createError<'FST_VERSIONER_INVALID_OPTION', 500, [message: string]>('FST_VERSIONER_INVALID_OPTION', '%s', 500, TypeError)

/**
 * Something that needs the finished route table was used before `app.ready()`.
 * @example
 * ```ts
 * app.versioner.routes // before ready: throws FST_VERSIONER_NOT_READY
 * ```
 */
export const NotReadyError = createError<'FST_VERSIONER_NOT_READY', 500, [what: string]>('FST_VERSIONER_NOT_READY', '%s is only available after app.ready().', 500)

/**
 * 404: `GET /openapi.json` was asked for a version that has no document.
 * @example
 * ```ts
 * // GET /openapi.json?version=1999-01-01 → 404 "No OpenAPI document for version '1999-01-01'. Ask for one of: …"
 * ```
 */
export const OpenApiVersionNotFoundError = createError<'FST_VERSIONER_OPENAPI_NOT_FOUND', 404, [message: string]>('FST_VERSIONER_OPENAPI_NOT_FOUND', '%s', 404)

/**
 * The command-line tools (or their API) could not use an application: its module cannot be loaded, exports no app
 * with the plugin, or a saved documents folder cannot be read.
 * @example
 * ```ts
 * await loadApp('./app.ts') // without tsx: throws FST_VERSIONER_TOOL "… install tsx: npm install --save-dev tsx"
 * ```
 */
export const VersionerToolError = createError<'FST_VERSIONER_TOOL', 500, [message: string]>('FST_VERSIONER_TOOL', '%s', 500)

/** `webhooks.render()` named no webhook declared with `webhooks.add()`. @example `render('invoice.payed', …)` rejects, listing the declared ones. */
export const UnknownWebhookError = createError<'FST_VERSIONER_UNKNOWN_WEBHOOK', 500, [message: string]>('FST_VERSIONER_UNKNOWN_WEBHOOK', '%s', 500)

/** A body `webhooks.render()` got is not one the webhook's HEAD schema accepts. @example `render('invoice.paid', { id: 42 }, …)` rejects naming `/id`. */
export const InvalidWebhookBodyError = createError<'FST_VERSIONER_INVALID_WEBHOOK_BODY', 500, [message: string]>('FST_VERSIONER_INVALID_WEBHOOK_BODY', '%s', 500)

/** A subscriber's secret is not `whsec_` and the base64 of 24 to 64 bytes (Standard Webhooks). @example `{ id: 'ep_1', version, secret: 'hunter2' }` */
export const InvalidWebhookSecretError = createError<'FST_VERSIONER_INVALID_WEBHOOK_SECRET', 500, [message: string]>('FST_VERSIONER_INVALID_WEBHOOK_SECRET', '%s', 500)

/**
 * `fastifyVersioner` was registered twice in one Fastify context (or in a context and one of its children).
 * Several versioned APIs in one application each get their own encapsulated context.
 * @example
 * ```ts
 * app.register(async (api) => {
 *   await api.register(fastifyVersioner, { versions: versionsOfA })
 *   await api.register(versioned(routesOfA))
 * }, { prefix: '/a' })
 * ```
 */
export const VersionerAlreadyRegisteredError = createError<'FST_VERSIONER_ALREADY_REGISTERED', 500, [message: string]>(
  'FST_VERSIONER_ALREADY_REGISTERED', '%s', 500)

/**
 * 500: a `VersionPicker`'s `pick` (or a function default) threw something that is not an `Error`, or read, before
 * routing, a request property that only exists after routing.
 * @example
 * ```ts
 * class Picker extends VersionPicker { override pick () { throw 'no account' } } // the request answers 500
 * ```
 */
export const VersionPickerError = createError<'FST_VERSIONER_VERSION_PICKER', 500, [message: string, options?: { cause: unknown }]>('FST_VERSIONER_VERSION_PICKER', '%s', 500)

/** 400: the upgrade guide needs `from` and `to`, two versions, `from` older. @example `GET /docs/upgrade?from=2002-01-01&to=2000-01-01` */
export const InvalidUpgradeRangeError = createError<'FST_VERSIONER_INVALID_UPGRADE_RANGE', 400, [message: string]>('FST_VERSIONER_INVALID_UPGRADE_RANGE', '%s', 400)

/**
 * Every error class of fastify-versioner, keyed by its code.
 * @example
 * ```ts
 * import { errorCodes } from 'fastify-versioner'
 * err instanceof errorCodes.FST_VERSIONER_STRUCTURE
 * ```
 */
export const errorCodes = {
  FST_VERSIONER_STRUCTURE: VersionerStructureError,
  FST_VERSIONER_INVALID_GENERATION_INSTRUCTION: InvalidGenerationInstructionError,
  FST_VERSIONER_ROUTER_GENERATION: RouterGenerationError,
  FST_VERSIONER_ROUTER_PATH_PARAMS_MODIFIED: RouterPathParamsModifiedError,
  FST_VERSIONER_REQUEST_CONVERTER_UNUSED: RouteRequestBySchemaConverterDoesNotApplyToAnythingError,
  FST_VERSIONER_RESPONSE_CONVERTER_UNUSED: RouteResponseBySchemaConverterDoesNotApplyToAnythingError,
  FST_VERSIONER_PATH_CONVERTER_UNUSED: RouteByPathConverterDoesNotApplyToAnythingError,
  FST_VERSIONER_LATEST_REQUEST_VALIDATION: VersionerLatestRequestValidationError,
  FST_VERSIONER_CONVERTER_FAILED: ConverterFailedError,
  FST_VERSIONER_UNCONVERTIBLE_RESPONSE: UnconvertibleResponseError,
  FST_VERSIONER_LINTING: LintingError,
  FST_VERSIONER_INVALID_API_VERSION: InvalidApiVersionError,
  FST_VERSIONER_MISSING_API_VERSION: MissingApiVersionError,
  FST_VERSIONER_UNKNOWN_VERSION: UnknownVersionError,
  FST_VERSIONER_VERSION_CHANGE_NOT_BOUND: VersionChangeNotBoundError,
  FST_VERSIONER_INVALID_OPTION: InvalidOptionError,
  FST_VERSIONER_NOT_READY: NotReadyError,
  FST_VERSIONER_OPENAPI_NOT_FOUND: OpenApiVersionNotFoundError,
  FST_VERSIONER_TOOL: VersionerToolError,
  FST_VERSIONER_ALREADY_REGISTERED: VersionerAlreadyRegisteredError,
  FST_VERSIONER_VERSION_PICKER: VersionPickerError,
  FST_VERSIONER_INVALID_UPGRADE_RANGE: InvalidUpgradeRangeError,
  FST_VERSIONER_UNKNOWN_WEBHOOK: UnknownWebhookError,
  FST_VERSIONER_INVALID_WEBHOOK_BODY: InvalidWebhookBodyError,
  FST_VERSIONER_INVALID_WEBHOOK_SECRET: InvalidWebhookSecretError
} as const
