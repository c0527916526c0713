/**
 * Generated schemas made ready for Fastify and the documents: `$ref`s inlined, headers lower-cased.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { SchemaGeneration } from '../schemas/generation'
import { isSchemaObject, refId, type SchemaObject } from '../core/json-schema'
import { everySubschema, mapSchemaDeep, mapSubschemas, refersTo } from '../core/subschemas'
import { documentedDeprecation } from '../describe/field-deprecation'

/**
 * A generated schema with its `$ref`s to generated schemas inlined (a reference to itself, or to an `$id` it holds,
 * stays). `'docs'` keeps inlined `$id`s (they become components); `'fastify'` keeps one only when it refers to
 * itself, since an `$id` declared twice in one route schema is an error. Cached per generation, schema and mode.
 */
export function prepareSchema (schema: TSchema, generation: SchemaGeneration, mode: 'docs' | 'fastify'): TSchema {
  const keepIds = mode === 'docs'
  const cache = keepIds ? generation.prepared.keepIds : generation.prepared.dropIds
  const known = cache.get(schema)
  if (known !== undefined) return known
  const generated = generation.generatedSchemas()
  // The schemas inlined with their `$id` (they refer to themselves): declared once ({@link declaredOnce}).
  const declared = new Set<string>()
  const inline = (node: TSchema, within: ReadonlySet<string>): TSchema => mapSchemaDeep(node, (sub) => {
    const ref = (sub as SchemaObject).$ref
    if (typeof ref !== 'string') return sub
    const id = refId(ref)
    const target = generated.get(id)
    if (target === undefined || within.has(id)) return sub
    const body = inline(target, new Set([...within, id]))
    // The keywords beside the `$ref` (`Type.Ref(Name, { maxLength: 20 })`) hold beside the schema it names (not
    // TypeBox's symbols: the wrapper is no `Ref`).
    const beside = Object.fromEntries(Object.entries(sub).filter(([key]) => key !== '$ref'))
    const besideIt = (inlined: TSchema): TSchema => Object.keys(beside).length === 0 ? inlined : { ...beside, allOf: [inlined] } as unknown as TSchema
    if (keepIds) return besideIt(body)
    const text = JSON.stringify(body)
    if (text.includes(`"$ref":"${id}"`) || text.includes(`"$ref":"${id}#"`)) {
      declared.add(id)
      return besideIt(body)
    }
    const { $id: _id, ...rest } = body as SchemaObject
    return besideIt(rest as TSchema)
  })
  // A `$ref` to a schema the root already holds resolves there: inlining a second copy would declare its `$id` twice.
  const ownId = (schema as SchemaObject).$id
  const held = keepIds
    ? (typeof ownId === 'string' ? [ownId] : [])
    : [...everySubschema([schema])].map((node) => (node as SchemaObject).$id).filter((id): id is string => typeof id === 'string')
  const inlined = declaredOnce(inline(schema, new Set(held)), declared)
  // Documents take `deprecated` as a boolean: a field deprecation's dates and page become extensions there.
  const result = keepIds ? mapSchemaDeep(inlined, (node) => documentedRef(documentedDeprecation(node))) : inlined
  cache.set(schema, result)
  return result
}

/**
 * `schema` with each schema of an `$id` in `ids` declared at its first place only, a `$ref` to it at the others: two
 * `$ref`s to one recursive schema a version changed, each inlined, declared its `$id` twice, which Ajv refuses.
 * @example declaredOnce({ anyOf: [NodeIn2000, NodeIn2000] }, new Set(['Node__2000-01-01'])) // { anyOf: [NodeIn2000, { $ref: 'Node__2000-01-01' }] }
 */
function declaredOnce (schema: TSchema, ids: ReadonlySet<string>): TSchema {
  if (ids.size === 0) return schema
  const seen = new Set<string>()
  const visit = (node: TSchema): TSchema => {
    const id = (node as SchemaObject).$id
    if (typeof id === 'string' && ids.has(id)) {
      if (seen.has(id)) return { $ref: id } as unknown as TSchema
      seen.add(id)
    }
    return mapSubschemas(node, visit)
  }
  return visit(schema)
}

/**
 * A `$ref` with keywords beside it as documents write it: the keywords beside an `allOf` of the `$ref`, as a deprecated
 * one is. `@fastify/swagger` drops every keyword beside a `$ref` (OpenAPI 3.0 ignores them), and readers of documents
 * that follow 3.0 there still do; an `allOf` member holds in both.
 * @example
 * documentedRef({ $ref: 'Name', maxLength: 20 }) // { maxLength: 20, allOf: [{ $ref: 'Name' }] }
 */
export function documentedRef (node: TSchema): TSchema {
  const { $ref, ...beside } = node as SchemaObject
  return typeof $ref === 'string' && Object.keys(beside).length > 0 ? { ...beside, allOf: [{ $ref }] } as unknown as TSchema : node
}

/** True when a schema holds a `$ref` with keywords beside it: `@fastify/swagger` drops them (see {@link documentedRef}). */
export function holdsRefBeside (schema: TSchema): boolean {
  return [...everySubschema([schema])].some((node) => typeof (node as SchemaObject).$ref === 'string' && Object.keys(node).length > 1)
}

/**
 * A request schema as Fastify's Ajv takes it: a root that refers to its own `$id` (a recursive shared schema a version
 * rebuilt, `Node__2000-01-01`) is wrapped, so that its references resolve inside the schema; Ajv resolves a root's
 * references to itself only for schemas it was given (the application's shared schemas).
 * @example
 * selfContained(NodeIn2000) // { allOf: [NodeIn2000] }
 */
export function selfContained (schema: TSchema): TSchema {
  const id = (schema as SchemaObject).$id
  return typeof id === 'string' && refersTo(schema, id) ? { allOf: [schema] } as unknown as TSchema : schema
}

/** A headers schema with lower-case property names at any depth (`allOf` members too), as Fastify compiles it. */
export function lowerCaseHeaders (schema: TSchema): TSchema {
  return mapSchemaDeep(schema, (node) => {
    const source = node as SchemaObject
    if (!isSchemaObject(source.properties) && !Array.isArray(source.required)) return node
    const properties: Record<string, unknown> | undefined = isSchemaObject(source.properties) ? {} : undefined
    if (properties !== undefined) for (const [name, property] of Object.entries(source.properties as object)) properties[name.toLowerCase()] = property
    const required = Array.isArray(source.required) ? source.required.map((name) => String(name).toLowerCase()) : undefined
    return { ...source, ...(properties === undefined ? {} : { properties }), ...(required === undefined ? {} : { required }) } as unknown as TSchema
  })
}
