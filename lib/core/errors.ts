/**
 * Stage `lib/core/`: shared helpers that know nothing of versions (errors, warnings, symbols, JSON Schema, dates, methods).
 *
 * Every error fastify-versioner throws or answers with, built with `@fastify/error` and collected in {@link errorCodes}
 * (docs/errors.md): start-up errors name what is at fault; request errors (./request-errors.ts) the bad value and what
 * is accepted.
 * @module
 */
import createError, { type FastifyErrorConstructor } from '@fastify/error'
import {
  ConverterFailedError, InvalidApiVersionError, InvalidUpgradeRangeError, MissingApiVersionError, OpenApiVersionNotFoundError,
  UnconvertibleResponseError, VersionerLatestRequestValidationError, VersionPickerError
} from './request-errors'

/** `@fastify/error` types its `Base` parameter as a plain `ErrorConstructor`; our own classes are valid bases. */
function asBase (constructor: FastifyErrorConstructor<{ code: string }, [string]>): ErrorConstructor {
  return constructor as unknown as ErrorConstructor
}

/**
 * The version description is malformed (bundle, version, version change, converter, instruction arguments), when built.
 * @example
 * ```ts
 * new VersionBundle(new HeadVersion()) // throws: a bundle needs at least one dated version
 * ```
 */
export const VersionerStructureError = createError<'FST_VERSIONER_STRUCTURE', 500, [message: string]>('FST_VERSIONER_STRUCTURE', '%s', 500)

/**
 * A schema or enum instruction cannot apply to the schema as it stands in that version, or gives a keyword or attribute
 * the application's Ajv does not know (a misspelling such as `optinal`: decision 0161).
 * @example
 * ```ts
 * const User = Type.Object({ name: Type.String() }, { $id: 'User' })
 * schema(User).field('name').had({ name: 'name' }) // in a version change: at ready(), it changes nothing
 * ```
 */
export const InvalidGenerationInstructionError = createError<'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION', 500, [message: string]>(
  'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION', '%s', 500)

/**
 * An endpoint instruction or a converter cannot apply to the application's routes, at `ready()`.
 * @example
 * ```ts
 * endpoint('/missing', ['GET']).didntExist // in a version change: at ready(), no route answers GET /missing
 * ```
 */
export const RouterGenerationError = createError<'FST_VERSIONER_ROUTER_GENERATION', 500, [message: string]>('FST_VERSIONER_ROUTER_GENERATION', '%s', 500)

/**
 * `endpoint(...).had({ path })` changes a route's path parameters.
 * @example
 * ```ts
 * endpoint('/users/:id', ['GET']).had({ path: '/users/:userId' }) // in a version change: at ready(), :id became :userId
 * ```
 */
export const RouterPathParamsModifiedError = createError<'FST_VERSIONER_ROUTER_PATH_PARAMS_MODIFIED', 500, [message: string]>('FST_VERSIONER_ROUTER_PATH_PARAMS_MODIFIED', '%s', 500, asBase(RouterGenerationError))

/**
 * A request converter names a schema no route's request uses (`checkUsage: false` allows it).
 * @example
 * ```ts
 * const Unused = Type.Object({ note: Type.String() }, { $id: 'Unused' }) // no route's request body holds it
 * class NoteWasRemark extends VersionChange {
 *   description = 'remark became note.'
 *   instructionsToMigrateToPreviousVersion = []
 *
 *   @ ConvertRequestToNextVersionFor(Unused) // at ready(): this error
 *   remarkToNote (request: RequestInfo) { request.body.note = request.body.remark }
 * }
 * ```
 */
export const RouteRequestBySchemaConverterDoesNotApplyToAnythingError =
  createError<'FST_VERSIONER_REQUEST_CONVERTER_UNUSED', 500, [message: string]>('FST_VERSIONER_REQUEST_CONVERTER_UNUSED', '%s', 500, asBase(RouterGenerationError))

/**
 * A response converter names a schema no route's response uses (`checkUsage: false` allows it).
 * @example
 * ```ts
 * const Unused = Type.Object({ note: Type.String() }, { $id: 'Unused' }) // no route's response holds it
 * class NoteWasRemark extends VersionChange {
 *   description = 'remark became note.'
 *   instructionsToMigrateToPreviousVersion = []
 *
 *   @ ConvertResponseToPreviousVersionFor(Unused) // at ready(): this error; a webhook's or job's: { checkUsage: false }
 *   noteToRemark (response: ResponseInfo) { response.body.remark = response.body.note }
 * }
 * ```
 */
export const RouteResponseBySchemaConverterDoesNotApplyToAnythingError =
  createError<'FST_VERSIONER_RESPONSE_CONVERTER_UNUSED', 500, [message: string]>('FST_VERSIONER_RESPONSE_CONVERTER_UNUSED', '%s', 500, asBase(RouterGenerationError))

/**
 * A by-path converter matches no route in its version.
 * @example
 * ```ts
 * class NotifyWasSendEmail extends VersionChange {
 *   description = 'sendEmail became notify.'
 *   instructionsToMigrateToPreviousVersion = []
 *
 *   @ ConvertRequestToNextVersionFor('/users/:id', ['PUT']) // at ready(), with no PUT /users/:id in this version: this error
 *   notify (request: RequestInfo) { request.queryParams.notify = request.queryParams.sendEmail }
 * }
 * ```
 */
export const RouteByPathConverterDoesNotApplyToAnythingError =
  createError<'FST_VERSIONER_PATH_CONVERTER_UNUSED', 500, [message: string]>('FST_VERSIONER_PATH_CONVERTER_UNUSED', '%s', 500, asBase(RouterGenerationError))

/**
 * A schema or enum instruction names a schema no versioned route, webhook or shared schema uses in any version.
 * @example
 * ```ts
 * schema(Type.Object({ name: Type.String() })).field('name').had({ name: 'fullName' }) // in a change: at ready(), no route uses it
 * ```
 */
export const InstructionDoesNotApplyToAnythingError = createError<'FST_VERSIONER_INSTRUCTION_UNUSED', 500, [message: string]>(
  'FST_VERSIONER_INSTRUCTION_UNUSED', '%s', 500, asBase(InvalidGenerationInstructionError))

/**
 * An HTTP method name in `endpoint(...)` or a by-path converter is not one Fastify can route.
 * @example
 * ```ts
 * endpoint('/users', ['PROPFIND']).didntExist // in a version change: at ready(), unless app.addHttpMethod('PROPFIND')
 * ```
 */
export const LintingError = createError<'FST_VERSIONER_LINTING', 500, [methods: string]>('FST_VERSIONER_LINTING',
  'The following HTTP methods are not valid: %s. Use HTTP methods such as GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD.', 500)

/**
 * A programmatic API got a version the bundle does not hold.
 * @example
 * ```ts
 * generateVersionedSchemas(new VersionBundle(new Version('2000-01-01'))).get('1999-01-01') // throws: not in the bundle
 * ```
 */
export const UnknownVersionError = createError<'FST_VERSIONER_UNKNOWN_VERSION', 500, [message: string]>('FST_VERSIONER_UNKNOWN_VERSION', '%s', 500)

/**
 * `isApplied` was read on a `VersionChangeWithSideEffects` no `Version` holds.
 * @example
 * ```ts
 * class Orphan extends VersionChangeWithSideEffects { description = 'In no version.'; instructionsToMigrateToPreviousVersion = [] }
 * if (Orphan.isApplied) console.log('never reached: reading isApplied throws')
 * ```
 */
export const VersionChangeNotBoundError = createError<'FST_VERSIONER_VERSION_CHANGE_NOT_BOUND', 500, [versionChange: string]>(
  'FST_VERSIONER_VERSION_CHANGE_NOT_BOUND',
  "You tried to check whether '%s' is applied, but it was never bound to any version. Put it in a Version of a VersionBundle.",
  500
)

/**
 * The plugin (or a function) was given an option it cannot use.
 * @example
 * ```ts
 * await Fastify().register(versioned(async () => {})) // rejects: versioned(...) before fastifyVersioner
 * ```
 */
export const InvalidOptionError = createError<'FST_VERSIONER_INVALID_OPTION', 500, [message: string]>('FST_VERSIONER_INVALID_OPTION', '%s', 500, TypeError)

/**
 * Something that needs the finished route table was used before `app.ready()`.
 * @example
 * ```ts
 * const app = Fastify()
 * await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2000-01-01')) })
 * console.log(app.versioner.routes) // throws: await app.ready() first
 * ```
 */
export const NotReadyError = createError<'FST_VERSIONER_NOT_READY', 500, [what: string]>('FST_VERSIONER_NOT_READY', '%s is only available after app.ready().', 500)

/**
 * The tools could not use an application: it cannot be loaded, exports no app with the plugin, or a saved folder cannot
 * be read.
 * @example
 * ```ts
 * await servedDocuments(Fastify()) // rejects: the application does not register fastify-versioner
 * ```
 */
export const VersionerToolError = createError<'FST_VERSIONER_TOOL', 500, [message: string]>('FST_VERSIONER_TOOL', '%s', 500)

/**
 * `webhooks.render()` named no webhook declared with `webhooks.add()`.
 * @example
 * ```ts
 * declare const app: FastifyInstance // ready, with invoice.paid declared
 * await app.versioner.webhooks.render('invoice.payed', {}, { subscribers: [] }) // rejects, listing the declared ones
 * ```
 */
export const UnknownWebhookError = createError<'FST_VERSIONER_UNKNOWN_WEBHOOK', 500, [message: string]>('FST_VERSIONER_UNKNOWN_WEBHOOK', '%s', 500)

/**
 * A body `webhooks.render()` got is not one the webhook's HEAD schema accepts.
 * @example
 * ```ts
 * declare const app: FastifyInstance // ready, with invoice.paid's body { id: string }
 * await app.versioner.webhooks.render('invoice.paid', { id: 42 }, { subscribers: [] }) // rejects, naming /id
 * ```
 */
export const InvalidWebhookBodyError = createError<'FST_VERSIONER_INVALID_WEBHOOK_BODY', 500, [message: string]>('FST_VERSIONER_INVALID_WEBHOOK_BODY', '%s', 500)

/**
 * A subscriber's secret is not `whsec_` and the base64 of 24 to 64 bytes (Standard Webhooks).
 * @example
 * ```ts
 * signWebhook('hunter2', { id: 'msg_1', body: '{}' }) // throws: a secret is 'whsec_' and base64
 * ```
 */
export const InvalidWebhookSecretError = createError<'FST_VERSIONER_INVALID_WEBHOOK_SECRET', 500, [message: string]>('FST_VERSIONER_INVALID_WEBHOOK_SECRET', '%s', 500)

/**
 * `fastifyVersioner` was registered twice in one context (or a context and its child): give each API its own context.
 * @example
 * ```ts
 * const versions = new VersionBundle(new Version('2000-01-01'))
 * const app = Fastify()
 * await app.register(fastifyVersioner, { versions })
 * await app.register(fastifyVersioner, { versions }) // rejects: one registration per context
 * ```
 */
export const VersionerAlreadyRegisteredError = createError<'FST_VERSIONER_ALREADY_REGISTERED', 500, [message: string]>(
  'FST_VERSIONER_ALREADY_REGISTERED', '%s', 500)

/**
 * Every error class of fastify-versioner, keyed by its code.
 * @example
 * ```ts
 * import { errorCodes } from 'fastify-versioner'
 * declare const err: unknown // what app.ready() rejected with
 * if (err instanceof errorCodes.FST_VERSIONER_STRUCTURE) console.error('the version bundle is malformed:', err.message)
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
  FST_VERSIONER_INSTRUCTION_UNUSED: InstructionDoesNotApplyToAnythingError,
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
