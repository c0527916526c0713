/**
 * A `$ref`'s own keywords for `verify`'s reading of a schema: Fastify's Ajv applies the keywords beside a `$ref`
 * (`Type.Ref(Name, { maxLength: 20 })`) with the schema it names (decision 0294), so the examples generated for such a
 * field, and what is read of it, follow both. Text beside it changes nothing.
 * @module
 */
import { TEXT_KEYS } from '../docs/parameter-rules'
import { setOwn } from '../core/own-properties'
import type { JsonSchema } from '../values/examples'

/** The schema a `$ref` names with the `$ref`'s own keywords, by `$ref` node and target: one node for each, so that identity holds. */
const withKeywords = new WeakMap<object, WeakMap<object, JsonSchema>>()

/**
 * The schema `reference` (a `$ref` node) names, `target`, with the keywords beside the `$ref` that assert something
 * (one `target` holds as well gives way to the `$ref`'s, usually the tighter); `target` itself when there are none.
 * @example
 * ```ts
 * withOwnKeywords({ $ref: 'Name', maxLength: 20 }, { type: 'string', minLength: 1 }) // { type: 'string', minLength: 1, maxLength: 20 }
 * ```
 */
export function withOwnKeywords (reference: JsonSchema, target: JsonSchema): JsonSchema {
  const own = Object.entries(reference).filter(([key]) => key !== '$ref' && !TEXT_KEYS.has(key) && !key.startsWith('x-'))
  if (own.length === 0) return target
  const byTarget = withKeywords.get(reference) ?? new WeakMap<object, JsonSchema>()
  withKeywords.set(reference, byTarget)
  const known = byTarget.get(target)
  if (known !== undefined) return known
  const node: JsonSchema = { ...target }
  for (const [key, value] of own) setOwn(node, key, value)
  byTarget.set(target, node)
  return node
}
