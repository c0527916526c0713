/**
 * fastify-versioner: Stripe-style API versioning for Fastify 5. Handlers are written once, against HEAD;
 * every older version is rebuilt from version changes.
 * @module
 */
export { Version, HeadVersion, VersionBundle, type VersionBundleOptions, type VersionLifecycle } from './lib/versions'
export { VersionChange, VersionChangeWithSideEffects } from './lib/version-change'
export type { VersionChangeClass } from './lib/version-change-reader'
export { schema, enumeration, type SchemaInstructionBuilder, type FieldInstructionBuilder, type ValidatorInstructionBuilder, type EnumInstructionBuilder, type FieldName } from './lib/schema-instructions'
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
