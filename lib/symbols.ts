/**
 * Symbol keys for the state fastify-versioner keeps on objects it owns or annotates: decorator metadata on
 * version change classes, brands on instructions and named validators, and names on generated schemas.
 * Symbol-keyed properties never reach JSON Schema validators, serializers or OpenAPI documents.
 * @module
 */

/** Converter declarations on a version change class (reflect-metadata key, and TC39 `context.metadata` key). */
export const kConverters = Symbol('fastify-versioner.converters')

/** Brands an object made by the instruction builders `schema`, `enumeration` and `endpoint`. */
export const kInstruction = Symbol('fastify-versioner.instruction')

/** Marks a JSON Schema fragment in `allOf` as a named validator; the value is the validator definition. */
export const kNamedValidator = Symbol('fastify-versioner.namedValidator')

/** On a generated schema: its name in that version (the OpenAPI component name), without version suffix. */
export const kSchemaName = Symbol('fastify-versioner.schemaName')

/** On a generated schema: the HEAD schema it is the versioned form of. */
export const kHeadSchema = Symbol('fastify-versioner.headSchema')

/** Internal view of a `VersionBundle` (its read version change descriptors). */
export const kBundleInternals = Symbol('fastify-versioner.bundleInternals')
