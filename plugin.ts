/**
 * fastify-versioner: Stripe-style API versioning for Fastify 5. Handlers are written once, against HEAD;
 * every older version is rebuilt from version changes, with its own schemas, routes and documents.
 * @module
 */
import fp from 'fastify-plugin'
import type { FastifyPluginAsync } from 'fastify'
import type { FastifyVersionerOptions } from './lib/options'
import { setupVersioner } from './lib/versioner'
import './lib/type-augmentation'

const plugin: FastifyPluginAsync<FastifyVersionerOptions> = async function fastifyVersioner (fastify, options) {
  await setupVersioner(fastify, options)
}

/**
 * The Fastify plugin. Register it before `versioned(...)` routes; every route registered inside
 * `versioned(...)` is then served in every version of `versions`.
 * @example
 * ```ts
 * declare const versions: VersionBundle // new VersionBundle(new HeadVersion(), new Version('2001-01-01', …), …)
 * const UserCreateRequest = Type.Object({ addresses: Type.Array(Type.String()) }, { $id: 'UserCreateRequest' })
 * const UserResource = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) }, { $id: 'UserResource' })
 * const app = Fastify()
 * await app.register(fastifyVersioner, { versions })
 * await app.register(versioned(async (api) => {
 *   api.post('/users', { schema: { body: UserCreateRequest, response: { 200: UserResource } } },
 *     async (request) => ({ id: 'u1', addresses: request.body.addresses }))
 * }))
 * ```
 */
export const fastifyVersioner = fp(plugin, { name: 'fastify-versioner', fastify: '5.x' })
export default fastifyVersioner

export { versioned, type VersionedScope } from './lib/describe/versioned-scope'
export type { FastifyVersionerOptions } from './lib/options'
export type { DocsOptions, DocsHooks, OpenApiBase } from './lib/docs/options'
export { Webhooks, type WebhookDefinition, type DeclaredWebhook } from './lib/routes/webhooks'
export type { WebhookSubscriber, RenderWebhookOptions, WebhookDelivery, SkippedSubscriber, FailedSubscriber, RenderedWebhook } from './lib/routes/webhook-deliveries'
export { renderWebhook } from './lib/serve/webhook-render'
export { signWebhook, type WebhookSignatureHeaders } from './lib/core/webhook-signatures'
export type { WebhookRenderedEvent, RenderedSubscriber } from './lib/serve/usage-events'
export type { Changelog, ChangelogEntryData } from './lib/docs/changelog'
export type { UpgradeGuide, UpgradeChange, UpgradeOperation } from './lib/docs/upgrade-guide'
export type { UpgradeExample } from './lib/docs/upgrade-examples'
export { VersionPicker, type VersionPickerOptions, type ApiVersionLocation, type ApiVersionFormat, type ApiVersionDefaultValue } from './lib/serve/version-picking'
export { currentDependencySolver, fieldsTheVersionLacks, type DependencySolver } from './lib/serve/request-state'
export { migrateResponseBody, type MigrateResponseBodyOptions } from './lib/serve/migrate-response-body'
export type { ServedEvent, ServedRoute } from './lib/serve/usage-events'
export type { UpgradePreviewOptions, UpgradePreviewEvent, JsonPatchOperation } from './lib/serve/upgrade-preview'
export type { PreviewRequestError } from './lib/serve/preview-render'
export type { CaptureExchangesOptions } from './lib/serve/exchange-capture'
export type { CapturedExchange, RecordedRequest, RecordedResponse, RefusedExchange, Refusal } from './lib/serve/exchange-records'
export type { CapturedBody, CapturedWebhook, RenderCount } from './lib/serve/webhook-capture'
export type { VersionerDecoration } from './lib/versioner'
export type { VersionedRouteInfo } from './lib/routes/route-table'
export type { RouteSchema } from './lib/routes/version-plan'
export type { RouteAttributes } from './lib/routes/timeline'
export { Version, HeadVersion, VersionBundle, type VersionBundleOptions, type VersionLifecycle } from './lib/describe/versions'
export { VersionChange, VersionChangeWithSideEffects } from './lib/describe/version-change'
export type { VersionChangeClass } from './lib/describe/version-change-reader'
export {
  schema, type SchemaInstructionBuilder, type FieldInstructionBuilder, type ValidatorInstructionBuilder, type FieldName
} from './lib/describe/schema-instructions'
export { enumeration, type EnumInstructionBuilder } from './lib/describe/enum-instructions'
export { endpoint, type EndpointInstructionBuilder } from './lib/describe/endpoint-instructions'
export type {
  Instruction, SchemaInstruction, EnumInstruction, EndpointInstruction, EnumValue, SchemaHadInstruction, FieldHadInstruction,
  FieldDidntHaveInstruction, FieldExistedAsInstruction, FieldDidntExistInstruction, ValidatorExistedInstruction,
  ValidatorDidntExistInstruction, EnumHadInstruction, EnumDidntHaveInstruction, EndpointExistenceInstruction, EndpointHadInstruction
} from './lib/describe/instructions'
export type {
  FieldKeywords, FieldKeywordName, FieldHadAttributes, FieldExistedAsAttributes, EndpointHadAttributes, SchemaHadAttributes,
  SchemaHadAttributeValues, SchemaAnnotations, DerivationSource
} from './lib/describe/instruction-attributes'
export type { FieldDeprecationOptions } from './lib/describe/field-deprecation'
export type { Brownout, BrownoutWindow } from './lib/describe/release-dates'
export type { HttpMethod } from './lib/core/http-methods'
export { ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, type ConverterDecorator } from './lib/describe/converter-decorators'
export type { RequestConverterOptions, ResponseConverterOptions, ResponsePathConverterOptions } from './lib/describe/converter-arguments'
export { isFormFile, type RequestInfo, type ResponseInfo, type UntypedBody, type FormFields, type FormFile, type FormValue, type FormParsedValue, type CookieOptions } from './lib/describe/converter-info'
export { extendSchema, type ExtendedProperties, type ExtendedObjectSchema } from './lib/describe/extend-schema'
export type { SchemaLike, ObjectSchemaLike, TypeBox1Schema, StaticOf } from './lib/core/json-schema'
export { defineValidator, withValidators, type NamedValidator } from './lib/describe/named-validators'
export { generateVersionedSchemas, VersionedSchemas, type SchemaLookup, type GenerateVersionedSchemasOptions } from './lib/schemas/versioned-schemas'
export * from './lib/core/errors'
export * from './lib/core/request-errors'
