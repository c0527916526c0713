/**
 * The rules a schema holds beside its own keywords (decision 0196): a named validator's fragment in an object's `allOf`
 * (`withValidators`), any `allOf` member asserting without a `type` or `$ref` of its own, and an `anyOf` / `oneOf` of
 * such members beside a `type` or `properties` ("name a customer or statuses"). A body's stay in its schema; a
 * querystring's, headers' or params' object is written by `@fastify/swagger` as one parameter per field, which drops
 * them, so a version's document carries them in its operation's `x-parameter-rules`, by where the parameters are
 * (`{ "query": [rule, …] }`), for `check` to compare (decision 0198). An operation without such a rule has none.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { isSchemaObject } from '../core/json-schema'
import { setOwn } from '../core/own-properties'
import type { RouteSchema } from '../routes/version-plan'

type Json = Record<string, unknown>

/** The extension of an operation holding its parameter objects' rules. */
export const PARAMETER_RULES = 'x-parameter-rules'

/** Keywords that only describe (a change to them is text): never a rule, never compared as one. */
export const TEXT_KEYS = new Set(['description', 'summary', 'title', 'examples', 'example', 'externalDocs', 'tags', 'deprecated', 'operationId', '$comment'])

/** A member asserting something of the value it meets, with no `type` or `$ref` of its own (text and `x-` aside). */
function isRuleMember (member: unknown): boolean {
  if (!isSchemaObject(member) || Object.hasOwn(member, 'type') || Object.hasOwn(member, '$ref')) return false
  return Object.keys(member).some((key) => !TEXT_KEYS.has(key) && !key.startsWith('x-'))
}

/** The union keyword of a node that is a rule beside its `type` or `properties`, if any. */
function ruleUnion (node: Json): 'anyOf' | 'oneOf' | undefined {
  if (!Object.hasOwn(node, 'type') && !Object.hasOwn(node, 'properties')) return undefined
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members = Object.hasOwn(node, key) ? node[key] : undefined
    if (Array.isArray(members) && members.length > 0 && members.every(isRuleMember)) return key
  }
  return undefined
}

/**
 * A schema node split into its rules and the rest (a copy), `undefined` where it holds no rule.
 * @example
 * ```ts
 * splitRules({ type: 'object', allOf: [{ anyOf: [{ required: ['a'] }, { required: ['b'] }] }] })
 * // { rules: [{ anyOf: […] }], rest: { type: 'object' } }
 * ```
 */
export function splitRules (node: Json): { rules: unknown[], rest: Json } | undefined {
  const union = ruleUnion(node)
  const allOf = Object.hasOwn(node, 'allOf') ? node.allOf : undefined
  const members = Array.isArray(allOf) ? allOf.filter(isRuleMember) : []
  if (union === undefined && members.length === 0) return undefined
  const rest: Json = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === union) continue
    if (key === 'allOf' && Array.isArray(value)) {
      const kept = value.filter((member) => !isRuleMember(member))
      if (kept.length > 0) setOwn(rest, key, kept)
    } else setOwn(rest, key, value)
  }
  return { rules: [...members, ...(union === undefined ? [] : [{ [union]: node[union] }])], rest }
}

/** What an object schema may assert of itself as a whole besides its fields (`required` is written per parameter). */
const OBJECT_ASSERTIONS = new Set(['if', 'then', 'else', 'not', 'dependencies', 'dependentRequired', 'dependentSchemas', 'minProperties', 'maxProperties', 'propertyNames'])

/** Where `@fastify/swagger` writes each part's fields as parameters (OpenAPI's `in`). */
const PARAMETER_PARTS = [['querystring', 'query'], ['query', 'query'], ['headers', 'header'], ['params', 'path']] as const

/**
 * A querystring, headers or params schema that is a `$ref` with keywords of its own (`Type.Ref(Search, { required:
 * ['q'], minProperties: 1 })`, written `{ required, minProperties, allOf: [<Search>] }` in documents, decision 0294)
 * as one object, which `@fastify/swagger` writes as parameters: it reads an object's `properties` and `required` only,
 * and dropped the keywords (or, beside the version parameter's `properties`, every parameter of the schema named). The
 * `required` beside it joins the object's; any other assertion beside it becomes an `allOf` member, a rule
 * ({@link parameterRules}); text has no place on a parameter list. Any other schema is returned as it is.
 * @example
 * ```ts
 * parameterObject({ required: ['q'], allOf: [{ $ref: 'Search' }] }, resolve) // { type: 'object', properties: { q }, required: ['q'] }
 * ```
 */
function parameterObject (given: unknown, resolve: (ref: string) => TSchema | undefined): unknown {
  if (!isSchemaObject(given)) return given
  const { $ref, allOf, ...beside } = given
  const member = Array.isArray(allOf) && allOf.length === 1 && $ref === undefined ? allOf[0] as unknown : undefined
  if (!isSchemaObject(member) && (typeof $ref !== 'string' || allOf !== undefined)) return given
  if (Object.keys(beside).length === 0 || Object.hasOwn(beside, 'properties') || Object.hasOwn(beside, 'type')) return given
  const named = isSchemaObject(member) ? member : { $ref }
  const target = parameterObject(typeof named.$ref === 'string' ? resolve(named.$ref) : named, resolve)
  if (!isSchemaObject(target) || !isSchemaObject(target.properties)) return given
  const { $id: _id, ...object } = target
  const { required, ...others } = beside
  const rule = Object.fromEntries(Object.entries(others).filter(([key]) => !TEXT_KEYS.has(key) && !key.startsWith('x-')))
  const names = [...(Array.isArray(object.required) ? object.required : []), ...(Array.isArray(required) ? required : [])] as unknown[]
  const members = [...(Array.isArray(object.allOf) ? object.allOf : []), ...(Object.keys(rule).length > 0 ? [rule] : [])] as unknown[]
  return { ...object, ...(names.length > 0 ? { required: [...new Set(names)] } : {}), ...(members.length > 0 ? { allOf: members } : {}) }
}

/**
 * A route's schema in a version with its querystring, headers and params each written as one object
 * ({@link parameterObject}), in place: the schema is the document's own copy.
 * @example
 * ```ts
 * const schema = parameterObjects(routeSchemaIn(route, behaviour, generation, prepare), (ref) => generation.resolveAnyId(ref))
 * ```
 */
export function parameterObjects (schema: RouteSchema, resolve: (ref: string) => TSchema | undefined): RouteSchema {
  for (const [part] of PARAMETER_PARTS) if (Object.hasOwn(schema, part)) schema[part] = parameterObject(schema[part], resolve) as TSchema
  return schema
}

/**
 * The rules of a route's querystring, headers and params objects in a version (its schema as documents show it,
 * `resolve` reading a shared schema a part names by `$ref`), as JSON by where the parameters are; `undefined` when
 * none holds one, so that the operation's document is as without them.
 * @example
 * ```ts
 * const rules = parameterRules(schema, (ref) => generation.resolveAnyId(ref))
 * if (rules !== undefined) schema[PARAMETER_RULES] = rules
 * ```
 */
export function parameterRules (schema: RouteSchema, resolve: (ref: string) => TSchema | undefined): Record<string, unknown[]> | undefined {
  let found: Record<string, unknown[]> | undefined
  for (const [part, location] of PARAMETER_PARTS) {
    const given = Object.hasOwn(schema, part) ? schema[part] : undefined
    const object = isSchemaObject(given) && typeof given.$ref === 'string' ? resolve(given.$ref) : given
    if (!isSchemaObject(object)) continue
    // Keywords on the object itself asserting of it as a whole are dropped with it too: one rule, as they stand.
    const whole = Object.fromEntries(Object.entries(object).filter(([key]) => OBJECT_ASSERTIONS.has(key)))
    const rules = [...splitRules(object)?.rules ?? [], ...(Object.keys(whole).length > 0 ? [whole] : [])]
    // JSON, as the document is served: a validator's fragment may carry keys of its own that are no part of the rule.
    if (rules.length > 0) (found ??= {})[location] = [...(found?.[location] ?? []), ...JSON.parse(JSON.stringify(rules)) as unknown[]]
  }
  return found
}
