/**
 * A `$ref`'s own keywords for `verify`'s reading of a schema: Fastify's Ajv applies the keywords beside a `$ref`
 * (`Type.Ref(Name, { maxLength: 20 })`) with the schema it names (decision 0305), so the examples generated for such a
 * field follow both. Text beside it changes nothing.
 * @module
 */
import { TEXT_KEYS } from '../docs/parameter-rules'
import { setOwn } from '../core/own-properties'
import type { JsonSchema } from '../values/examples'

/** Keywords making a schema a choice or a composition: a node read by its identity (enum members sampled, unions). */
const COMPOSING = ['enum', 'const', 'anyOf', 'oneOf', 'allOf', '$ref', 'not']

/** A scalar schema with no members: a copy of it is read as it is (its node is no union, list or object anyone tracks). */
function isPlainScalar (schema: JsonSchema): boolean {
  const types = Array.isArray(schema.type) ? schema.type as unknown[] : [schema.type]
  return types.every((type) => type === 'string' || type === 'number' || type === 'integer' || type === 'null') && COMPOSING.every((key) => !Object.hasOwn(schema, key))
}

/**
 * The schema `reference` (a `$ref` node) names, `target`, with the keywords beside the `$ref` that assert something
 * (one `target` holds as well gives way to the `$ref`'s, usually the tighter), where `target` is a plain string or
 * number schema and they add no choice (an `enum`); `target` itself otherwise (a list, an object or a union is followed
 * as the schema it names).
 * @example
 * ```ts
 * withOwnKeywords({ $ref: 'Name', maxLength: 20 }, { type: 'string', minLength: 1 }) // { type: 'string', minLength: 1, maxLength: 20 }
 * ```
 */
export function withOwnKeywords (reference: JsonSchema, target: JsonSchema): JsonSchema {
  const own = Object.entries(reference).filter(([key]) => key !== '$ref' && !TEXT_KEYS.has(key) && !key.startsWith('x-'))
  if (own.length === 0 || !isPlainScalar(target) || own.some(([key]) => COMPOSING.includes(key))) return target
  const node: JsonSchema = { ...target }
  for (const [key, value] of own) setOwn(node, key, value)
  return node
}
