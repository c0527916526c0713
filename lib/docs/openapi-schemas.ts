/**
 * Named schemas as components of each version's document, the document finished after `@fastify/swagger` (webhooks,
 * tags, unused components), and the plugin's own 400 and 404 answers on each versioned operation.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { SchemaGeneration } from '../schemas/generation'
import { isSchemaObject } from '../core/json-schema'
import { isHttpMethod } from '../core/http-methods'
import { componentName } from '../schemas/component-names'
import { mapSchemaDeep } from '../core/subschemas'

/** Marks a wrapper `{ allOf: [root] }` that only exists to make a root schema a component. */
const UNWRAP = 'x-fastify-versioner-root'

const COMPONENTS = '#/components/schemas/'

/** A body or response schema for `@fastify/swagger`: a named root is wrapped so that it becomes a component too. */
export function rootForDocs (schema: TSchema): TSchema {
  if (!isSchemaObject(schema) || typeof schema.$id !== 'string') return schema
  // The description beside the wrapper: @fastify/swagger describes a response by it, and would otherwise read the
  // schema its $id names in the application's store (HEAD's).
  return (typeof schema.description === 'string' ? { allOf: [schema], description: schema.description, [UNWRAP]: true } : { allOf: [schema], [UNWRAP]: true }) as unknown as TSchema
}

type Json = unknown
type JsonObject = Record<string, unknown>

/** A copy of a JSON value, top-down: `replace` gives an object's replacement, or `undefined` to map into it. */
function mapJson (value: Json, replace: (node: JsonObject) => Json): Json {
  if (Array.isArray(value)) return value.map((item) => mapJson(item, replace))
  if (typeof value !== 'object' || value === null) return value
  return replace(value as JsonObject) ?? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapJson(item, replace)]))
}

/** Replaces the root wrappers made by {@link rootForDocs} by the reference they hold. */
export function unwrapRoots (document: JsonObject): JsonObject {
  const unwrap = (node: JsonObject): Json =>
    node[UNWRAP] === true && Array.isArray(node.allOf) && node.allOf.length === 1 ? mapJson(node.allOf[0], unwrap) : undefined
  return mapJson(document, unwrap) as JsonObject
}

/** A schema node with OpenAPI 3.0's `nullable` beside a `type` made 3.1's `null` type, as `@fastify/swagger` does. */
function nullableAsType (node: JsonObject): JsonObject {
  const { nullable, ...rest } = node
  if (typeof nullable !== 'boolean' || !(typeof rest.type === 'string' || Array.isArray(rest.type))) return node
  const types = Array.isArray(rest.type) ? rest.type : [rest.type]
  return nullable && !types.includes('null') ? { ...rest, type: [...types, 'null'] } : rest
}

/**
 * A schema node as `@fastify/swagger` writes a route's (its conversion is not exported): `nullable` as a type, `const`
 * as a one-member `enum`, `contentEncoding` as a `format` (`byte`, `binary`), `patternProperties` as
 * `additionalProperties` (the first pattern's schema). A schema a webhook and a route share is then one component,
 * whichever wrote it last: a webhook added to a schema changed nothing of the route's (`check` had reported a break).
 */
function swaggerForm (node: JsonObject): JsonObject {
  const { const: constant, contentEncoding, patternProperties, ...rest } = nullableAsType(node)
  if (constant === undefined && contentEncoding === undefined && patternProperties === undefined) return nullableAsType(node)
  const form: JsonObject = { ...rest }
  if (constant !== undefined) form.enum = [constant]
  if (contentEncoding === 'base64' || contentEncoding === 'binary') form.format = contentEncoding === 'base64' ? 'byte' : 'binary'
  if (isSchemaObject(patternProperties)) form.additionalProperties = Object.values(patternProperties)[0] as Json
  return form
}

/**
 * A schema `@fastify/swagger` did not see (a webhook payload) in document form: named subschemas become component
 * references, after `prepare` (`VersionExamples.at`).
 */
export function componentize (schema: TSchema, components: JsonObject, generation: SchemaGeneration, prepare: (schema: TSchema) => TSchema): Json {
  // Components (re)defined by this call: a shared schema may already be there in its HEAD form.
  const defined = new Set<string>()
  const define = (name: string, source: (() => JsonObject) | undefined): Json => {
    if (source !== undefined && !defined.has(name)) {
      defined.add(name)
      components[name] = {}
      const { $id: _id, ...fields } = swaggerForm(source())
      components[name] = Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, mapJson(value, replace)]))
    }
    return { $ref: `${COMPONENTS}${name}` }
  }
  const replace = (node: JsonObject): Json => {
    if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) {
      const target = generation.resolveAnyId(node.$ref)
      return define(componentName(node.$ref, generation), target === undefined ? undefined : () => prepare(target) as unknown as JsonObject)
    }
    if (typeof node.$id === 'string') return define(componentName(node.$id, generation), () => node)
    const converted = swaggerForm(node)
    return converted === node ? undefined : mapJson(converted, replace)
  }
  return mapJson(prepare(schema), replace)
}

/** Keys of an OpenAPI object holding data, not schemas (extensions too: `x-…`). */
const DATA_KEYS = new Set(['example', 'examples'])

/**
 * A copy of a document with each of its schemas (`components.schemas`, and every `schema` of a parameter, header or
 * media type) rebuilt by `transform` (each subschema, bottom-up); examples and extensions as they are.
 */
function mapDocumentSchemas (document: JsonObject, transform: (schema: TSchema) => TSchema): JsonObject {
  const deep = (value: Json): Json => isSchemaObject(value) ? mapSchemaDeep(value, transform) : value
  const visit = (value: Json, parent?: string): Json => {
    if (Array.isArray(value)) return value.map((item) => visit(item))
    if (!isSchemaObject(value)) return value
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, key.startsWith('x-') || DATA_KEYS.has(key)
      ? item
      : key === 'schema'
        ? deep(item)
        : key === 'schemas' && parent === 'components' && isSchemaObject(item)
          ? Object.fromEntries(Object.entries(item).map(([name, schema]) => [name, deep(schema)]))
          : visit(item, key)]))
  }
  return visit(document) as JsonObject
}

/**
 * A document with its tuples as OpenAPI 3.1's JSON Schema 2020-12 writes them: TypeBox's (draft-07's) `items` list
 * as `prefixItems`, and its `additionalItems` as `items` (`false`: nothing after them).
 * @example
 * ```ts
 * tuplesAsPrefixItems({ components: { schemas: { At: { items: [{ type: 'number' }], additionalItems: false } } } })
 * // { components: { schemas: { At: { prefixItems: [{ type: 'number' }], items: false } } } }
 * ```
 */
export function tuplesAsPrefixItems (document: JsonObject): JsonObject {
  return mapDocumentSchemas(document, (schema) => {
    const { items, additionalItems, ...rest } = schema as JsonObject
    if (!Array.isArray(items) || 'prefixItems' in rest) return schema
    return { ...rest, prefixItems: items, ...(additionalItems === undefined ? {} : { items: additionalItems }) } as unknown as TSchema
  })
}

/**
 * A document with its `prefixItems` tuples in draft-07's form (an `items` list, then `additionalItems`), the one
 * Fastify's Ajv (draft-07) reads, and documents saved before tuples were written as `prefixItems`.
 * @example
 * ```ts
 * tuplesAsItemLists({ components: { schemas: { At: { prefixItems: [{ type: 'number' }], items: false } } } })
 * // { components: { schemas: { At: { items: [{ type: 'number' }], additionalItems: false } } } }
 * ```
 */
export function tuplesAsItemLists (document: JsonObject): JsonObject {
  return mapDocumentSchemas(document, (schema) => {
    const { prefixItems, items, ...rest } = schema as JsonObject
    if (!Array.isArray(prefixItems) || Array.isArray(items) || 'additionalItems' in rest) return schema
    return { ...rest, items: prefixItems, ...(items === undefined ? {} : { additionalItems: items }) } as unknown as TSchema
  })
}

/** The keys of an OpenAPI 3.1 path item that hold an operation: its methods. */
const OPENAPI_METHODS: readonly string[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/**
 * The HTTP method (upper case) of a path item's key holding an operation: OpenAPI 3.1's (`get`), another (`query`), or
 * its extension in a finished document (`x-query`, decision 0052); `undefined` for any other key.
 * @example
 * operationMethod('x-search') // 'SEARCH'
 * operationMethod('parameters') // undefined
 */
export function operationMethod (key: string): string | undefined {
  const name = key.startsWith('x-') ? key.slice(2) : key
  if (name !== name.toLowerCase() || !isHttpMethod(name) || (name !== key && OPENAPI_METHODS.includes(name))) return undefined
  return name.toUpperCase()
}

/**
 * The keys of a path item holding an operation ({@link operationMethod}): OpenAPI 3.1's methods in their order, then
 * the others in the item's.
 * @example
 * operationKeysOf({ 'x-query': {}, post: {}, parameters: [] }) // ['post', 'x-query']
 */
export function operationKeysOf (item: Record<string, unknown>): string[] {
  const others = Object.keys(item).filter((key) => !OPENAPI_METHODS.includes(key) && operationMethod(key) !== undefined)
  return [...OPENAPI_METHODS.filter((key) => Object.hasOwn(item, key)), ...others]
}

/** Every path item of a document (paths and webhooks). */
function pathItemsOf (document: JsonObject): JsonObject[] {
  return ['paths', 'webhooks'].flatMap((section) => isSchemaObject(document[section]) ? Object.values(document[section]) as JsonObject[] : [])
}

/** Moves each operation of a method OpenAPI 3.1 lacks (`query`, `search`) to an `x-` extension, keeping the document valid. */
export function moveOtherMethodOperations (document: JsonObject): void {
  for (const item of pathItemsOf(document)) {
    for (const key of operationKeysOf(item)) {
      if (OPENAPI_METHODS.includes(key) || key.startsWith('x-')) continue
      item[`x-${key}`] = item[key]
      delete item[key]
    }
  }
}

/** Every operation object of a document (paths and webhooks). */
export function operationsOf (document: JsonObject): JsonObject[] {
  return pathItemsOf(document).flatMap((item) => operationKeysOf(item).map((key) => item[key]).filter(isSchemaObject) as JsonObject[])
}

/**
 * Removes the schema components nothing references (directly or through other components): the document's operations,
 * nor the `openapi` option's other components (a shared response naming a schema).
 */
export function pruneComponents (document: Record<string, Json>): void {
  const { schemas: components, ...sections } = (document.components ?? {}) as Record<string, Record<string, Json> | undefined>
  if (components === undefined) return
  const { components: _components, ...rest } = document
  const used = new Set<string>()
  const queue: Json[] = [rest, sections]
  const markReferencedComponents = (value: Json): void => {
    if (Array.isArray(value)) { value.forEach(markReferencedComponents); return }
    if (typeof value !== 'object' || value === null) return
    const ref = (value as Record<string, Json>).$ref
    if (typeof ref === 'string' && ref.startsWith(COMPONENTS)) {
      // A reference may point inside a component (`#/components/schemas/Address/properties/street`).
      const name = decodeURIComponent(ref.slice(COMPONENTS.length).split('/')[0])
      if (!used.has(name)) {
        used.add(name)
        queue.push(components[name])
      }
    }
    for (const item of Object.values(value)) markReferencedComponents(item)
  }
  while (queue.length > 0) markReferencedComponents(queue.shift())
  for (const name of Object.keys(components)) if (!used.has(name)) delete components[name]
}

/**
 * Marks `deprecated: true` on each parameter whose schema is deprecated (`@fastify/swagger` leaves it in the schema),
 * and `required: false` on each with a `default` when `defaultsFilled` (Ajv's `useDefaults`).
 */
export function markDeprecatedParameters (document: Record<string, Json>, defaultsFilled: boolean): void {
  for (const operation of operationsOf(document)) {
    if (!Array.isArray(operation.parameters)) continue
    for (const parameter of operation.parameters as Array<Record<string, Json>>) {
      const schema = parameter.schema as Record<string, Json> | undefined
      if (schema?.deprecated === true) parameter.deprecated = true
      // A query, header or cookie parameter with a default may be left out (the validator fills it in): `required: true`
      // beside it made clients' types demand it.
      if (defaultsFilled && parameter.in !== 'path' && schema !== undefined && 'default' in schema) parameter.required = false
    }
  }
}

/** The component names, chosen not to clash with an application's own. */
const ERROR_SCHEMA = 'FastifyVersionerError'
const BAD_REQUEST_RESPONSE = 'FastifyVersionerBadRequest'
const NOT_FOUND_RESPONSE = 'FastifyVersionerNotFound'
/**
 * The responses the plugin adds to every operation that lacks its own (`check` tells them from an application's own).
 * @example
 * ```ts
 * PLUGIN_ERROR_RESPONSES.includes('FastifyVersionerNotFound') // true
 * ```
 */
export const PLUGIN_ERROR_RESPONSES: readonly string[] = [BAD_REQUEST_RESPONSE, NOT_FOUND_RESPONSE]

/** Fastify's error body (its default error handler and not-found handler). */
const errorSchema = {
  type: 'object',
  description: "Fastify's error body.",
  required: ['statusCode', 'error', 'message'],
  properties: {
    statusCode: { type: 'integer' },
    code: { type: 'string', description: 'FST_VERSIONER_INVALID_API_VERSION, FST_VERSIONER_MISSING_API_VERSION, FST_ERR_VALIDATION… (absent on a 404).' },
    error: { type: 'string' },
    message: { type: 'string', description: 'What was wrong; for the API version, what is accepted. A validation failure is worded by the schemaErrorFormatter.' }
  }
}

function response (description: string): JsonObject {
  return { description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_SCHEMA}` } } } }
}

/** Adds the plugin's 400 and 404, with their components, to every operation under `paths`. */
export function addErrorResponses (document: JsonObject, headerName: string | undefined): void {
  const operations = operationsOf({ paths: document.paths })
  if (operations.length === 0) return
  const where = headerName === undefined ? 'path segment' : `'${headerName}' header`
  const components = (document.components ??= {}) as JsonObject
  const schemas = (components.schemas ??= {}) as JsonObject
  const responses = (components.responses ??= {}) as JsonObject
  schemas[ERROR_SCHEMA] = errorSchema
  responses[BAD_REQUEST_RESPONSE] = response(`Bad request: the API version in the ${where} is malformed, not served or missing ` +
    '(FST_VERSIONER_INVALID_API_VERSION, FST_VERSIONER_MISSING_API_VERSION), or the request is invalid for this version (FST_ERR_VALIDATION).')
  responses[NOT_FOUND_RESPONSE] = response('Not found: the route does not exist in the API version the request named (Fastify\'s not-found answer).')
  for (const operation of operations) {
    const own = (operation.responses ?? {}) as JsonObject
    const documented = (status: string): boolean => status in own || '4XX' in own || '4xx' in own
    operation.responses = {
      ...own,
      ...(documented('400') ? {} : { 400: { $ref: `#/components/responses/${BAD_REQUEST_RESPONSE}` } }),
      ...(documented('404') ? {} : { 404: { $ref: `#/components/responses/${NOT_FOUND_RESPONSE}` } })
    }
  }
}
