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
 * const app = Fastify()
 * await app.register(fastifyVersioner, { versions })
 * await app.register(versioned(async (api) => {
 *   api.post('/users', { schema: { body: UserCreateRequest, response: { 200: UserResource } } }, createUser)
 * }))
 * ```
 */
export const fastifyVersioner = fp(plugin, { name: 'fastify-versioner', fastify: '5.x' })
export default fastifyVersioner

export { versioned, type VersionedScope } from './lib/versioned'
export type { FastifyVersionerOptions } from './lib/options'
export type { DocsOptions, OpenApiBase } from './lib/docs-options'
export { Webhooks, type WebhookDefinition, type DeclaredWebhook } from './lib/webhooks'
export type { Changelog, ChangelogEntryData } from './lib/changelog'
export { VersionPicker, type VersionPickerOptions, type ApiVersionLocation, type ApiVersionFormat, type ApiVersionDefaultValue } from './lib/version-picking'
export { currentDependencySolver, type DependencySolver } from './lib/dependency-solver'
export { migrateResponseBody, type MigrateResponseBodyOptions } from './lib/migrate-response-body'
export type { VersionerDecoration } from './lib/versioner'
export type { VersionedRouteInfo } from './lib/route-table'
export type { RouteAttributes } from './lib/route-timeline'
export { Version, HeadVersion, VersionBundle, type VersionBundleOptions, type VersionLifecycle } from './lib/versions'
export { VersionChange, VersionChangeWithSideEffects } from './lib/version-change'
export type { VersionChangeClass } from './lib/version-change-reader'
export {
  schema, enumeration, type SchemaInstructionBuilder, type FieldInstructionBuilder, type ValidatorInstructionBuilder,
  type EnumInstructionBuilder, type FieldName
} from './lib/schema-instructions'
export { endpoint, type EndpointInstructionBuilder } from './lib/endpoint-instructions'
export type {
  Instruction, SchemaInstruction, EnumInstruction, EndpointInstruction, FieldKeywords, FieldKeywordName, FieldHadAttributes,
  FieldExistedAsAttributes, EndpointHadAttributes, EnumValue
} from './lib/instructions'
export type { HttpMethod } from './lib/http-methods'
export {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, type ConverterDecorator, type RequestConverterOptions,
  type ResponseConverterOptions, type ResponsePathConverterOptions
} from './lib/converters'
export type { RequestInfo, ResponseInfo, UntypedBody, FormFields, FormFile, FormValue, CookieOptions } from './lib/converter-info'
export { extendSchema, type ExtendedProperties } from './lib/extend-schema'
export { defineValidator, withValidators, type NamedValidator } from './lib/named-validators'
export { generateVersionedSchemas, VersionedSchemas, type SchemaLookup, type GenerateVersionedSchemasOptions } from './lib/schema-generation'
export * from './lib/errors'
