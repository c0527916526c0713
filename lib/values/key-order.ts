/**
 * Data with its objects' keys in the order a schema's serializer writes them (Fastify's, fast-json-stringify): the
 * declared properties in the schema's order, then the others as they came (decision 0325).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { SchemaObject } from '../core/json-schema'
import { setOwn } from '../core/own-properties'
import { childrenOf, MAX_WALK_DEPTH, type ResolveRef } from './shapes'
import { compileMembers } from './union-matchers'

/** The properties an object schema declares, in order: its own, then those of its `allOf` parts (which the serializer merges). */
function declaredProperties (source: SchemaObject, resolveRef: ResolveRef | undefined, depth: number): Array<readonly [string, TSchema]> {
  const { properties, allOf } = childrenOf(source)
  const found: Array<readonly [string, TSchema]> = [...properties]
  for (const part of allOf) {
    for (const entry of declaredProperties(resolved(part, resolveRef, depth), resolveRef, depth + 1)) {
      if (!found.some(([name]) => name === entry[0])) found.push(entry)
    }
  }
  return found
}

/** The schema a `$ref` names (itself when it names none, or past the walk's depth). */
function resolved (schema: TSchema, resolveRef: ResolveRef | undefined, depth: number): SchemaObject {
  let source = schema as SchemaObject
  for (let hops = depth; typeof source.$ref === 'string' && hops < MAX_WALK_DEPTH; hops++) {
    const target = resolveRef?.(source.$ref)
    if (target === undefined) break
    source = target as SchemaObject
  }
  return source
}

/**
 * `value` as a copy whose objects list their keys in the order `schema`'s serializer writes them: a union's member
 * chosen as the shape walk chooses it, `$ref`s followed with `resolveRef`, list items by `items` and `prefixItems`.
 * `value` is not changed; what the schema does not describe keeps its order.
 * @example
 * ```ts
 * const Person = Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() })
 * inSchemaOrder(Person, { id: 'p-1', email: 'ada@example.com', name: 'Ada' }) // { id: 'p-1', name: 'Ada', email: 'ada@example.com' }
 * ```
 */
export function inSchemaOrder (schema: TSchema, value: unknown, resolveRef?: ResolveRef, depth = 0): unknown {
  if (typeof value !== 'object' || value === null || depth > MAX_WALK_DEPTH) return value
  const source = resolved(schema, resolveRef, depth)
  const { unions, tuple, items, itemsFrom } = childrenOf(source)
  // A union (and each `allOf` part's) orders as its member the value belongs to.
  for (const members of unions) {
    const chosen = compileMembers(members, resolveRef).findIndex((matches) => matches(value))
    if (chosen !== -1) value = inSchemaOrder(members[chosen], value, resolveRef, depth + 1)
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => {
      const at = index < itemsFrom || items === undefined ? tuple.find(([position]) => position === index)?.[1] : items
      return at === undefined ? item : inSchemaOrder(at, item, resolveRef, depth + 1)
    })
  }
  const object = value as Record<string, unknown>
  const declared = declaredProperties(source, resolveRef, depth)
  if (declared.length === 0) return value
  const ordered: Record<string, unknown> = {}
  for (const [name, property] of declared) {
    if (Object.hasOwn(object, name)) setOwn(ordered, name, inSchemaOrder(property, object[name], resolveRef, depth + 1))
  }
  for (const [name, item] of Object.entries(object)) {
    if (!Object.hasOwn(ordered, name)) setOwn(ordered, name, item)
  }
  return ordered
}
