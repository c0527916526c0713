/**
 * Symbol keys for the state fastify-versioner keeps on objects it owns or annotates; symbol-keyed properties never
 * reach validators, serializers or documents.
 * @module
 */

/** Converter declarations on a version change class (reflect-metadata key, and TC39 `context.metadata` key). */
export const kConverters = Symbol('fastify-versioner.converters')

/** Brands an object made by the instruction builders `schema`, `enumeration` and `endpoint`. */
export const kInstruction = Symbol('fastify-versioner.instruction')

/** Marks a JSON Schema fragment in `allOf` as a named validator; the value is the validator definition. */
export const kNamedValidator = Symbol('fastify-versioner.namedValidator')

/** On an object schema `extendSchema` built and its `properties` (not enumerable): so that another copy of the package tells it is one. */
export const kExtendedSchema = Symbol('fastify-versioner.extendedSchema')

/** On a generated schema: its name in that version (the OpenAPI component name), without version suffix. */
export const kSchemaName = Symbol('fastify-versioner.schemaName')

/** On a generated schema (named or not, rebuilt from a seed's state or around changed subschemas): the HEAD schema it is the versioned form of. */
export const kHeadSchema = Symbol('fastify-versioner.headSchema')

/**
 * On a generated schema whose `examples` were set by `schema(S).had({ examples })`: documents show them as written.
 * @example `const given = (form as Record<symbol, unknown>)[kGivenExamples] === true`
 */
export const kGivenExamples = Symbol('fastify-versioner.givenExamples')

/** Internal view of a `VersionBundle` (its read version change descriptors). */
export const kBundleInternals = Symbol('fastify-versioner.bundleInternals')

/** Decoration of the Fastify contexts created by `versioned(...)`: their versioned scope. */
export const kVersionedScope = Symbol('fastify-versioner.versionedScope')

/** On a route's `config`: the versioned route (its per-version behaviour, the URL it is registered at). */
export const kVersionedRoute = Symbol('fastify-versioner.versionedRoute')

/** On the options of a route the versioner registers for a group: the hooks it gave them (../serve/route-registration.ts). */
export const kGivenHooks = Symbol('fastify-versioner.givenHooks')

/** On a request: the versioner's state of it (../serve/request-state.ts), or null before its version is picked. */
export const kRequestState = Symbol('fastify-versioner.requestState')

/** On an object schema built by schema generation for a version (its own fields differ from HEAD's). */
export const kGenerated = Symbol('fastify-versioner.generated')

/** On `app.versioner`: what the tools need of the options; `Symbol.for`, so that another copy's tools find it. */
export const kToolFacts = Symbol.for('fastify-versioner.toolFacts')

/** The plugin's per-application state, on `app.versioner`, for the tools of the same copy of the package (`retire`). */
export const kVersionerState = Symbol('fastify-versioner.state')

/** What the tools read of an application's options, under {@link kToolFacts}. */
export interface ToolFacts {
  /** The URL the documents are served at (`null` when turned off). */
  readonly openapiUrl: string | null
  readonly location: 'header' | 'path'
  readonly parameterName: string
  /** The header answers and webhook deliveries name their version in. */
  readonly headerName: string
  /** How version values are compared (`'date'` and `'month'`: waterfalling; plain dates of named versions). */
  readonly format: 'date' | 'month' | 'string'
  /** The `apiName` option: the API's name in the tools (else its prefix names it). */
  readonly apiName: string | undefined
  /** A string `apiVersionDefaultValue` (a function's is not known to the tools). */
  readonly defaultValue: string | undefined
  /** The changelog endpoint's path in the unversioned document (prefix included), `null` when the document lacks it. */
  readonly changelogPath: string | null
}

/** On an application's root: each registration's context (one per API), for the tools; `Symbol.for`, as {@link kToolFacts}. */
export const kVersionedApis = Symbol.for('fastify-versioner.apis')
