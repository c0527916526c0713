/**
 * Where subschemas live inside a JSON Schema, and how to rebuild a schema with some of them replaced
 * without touching the original: the one traversal that schema generation, route generation and document
 * generation share.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { isSchemaObject, refId, withRefId, type SchemaObject } from './json-schema'

/** Keywords whose value is one subschema. */
const SINGLE = ['additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames',
  'unevaluatedProperties', 'unevaluatedItems', 'additionalItems'] as const
/** Keywords whose value maps names to subschemas. */
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const
/** Keywords whose value is a list of subschemas. */
const LIST = ['anyOf', 'allOf', 'oneOf', 'prefixItems'] as const

/**
 * Calls `visit` on every direct subschema of `schema`, in a fixed order (the same order
 * {@link replaceSubschemas} expects its replacements in).
 */
export function forEachSubschema (schema: TSchema, visit: (subschema: TSchema) => void): void {
  const source = schema as SchemaObject
  const items = source.items
  if (Array.isArray(items)) {
    for (const item of items) if (isSchemaObject(item)) visit(item)
  } else if (isSchemaObject(items)) {
    visit(items)
  }
  for (const keyword of SINGLE) {
    const value = source[keyword]
    if (isSchemaObject(value)) visit(value)
  }
  for (const keyword of MAP) {
    const value = source[keyword]
    if (!isSchemaObject(value)) continue
    for (const key of Object.keys(value)) {
      const sub = (value as Record<string, unknown>)[key]
      if (isSchemaObject(sub)) visit(sub)
    }
  }
  for (const keyword of LIST) {
    const value = source[keyword]
    if (!Array.isArray(value)) continue
    for (const sub of value) if (isSchemaObject(sub)) visit(sub)
  }
}

/** The direct subschemas of `schema`, in the order of {@link forEachSubschema}. */
export function subschemasOf (schema: TSchema): TSchema[] {
  const found: TSchema[] = []
  forEachSubschema(schema, (sub) => { found.push(sub) })
  return found
}

/**
 * `schema` with its direct subschemas replaced, in the order of {@link forEachSubschema}, by `replacements`.
 * Returns `schema` itself when every replacement is the subschema it replaces; otherwise a copy that keeps
 * every other keyword and symbol (TypeBox's `Kind` and modifiers) and shares every unchanged subschema.
 */
export function replaceSubschemas (schema: TSchema, replacements: readonly TSchema[]): TSchema {
  const source = schema as SchemaObject
  let index = 0
  let changed = false
  const next = (original: TSchema): TSchema => {
    const replacement = replacements[index++]
    if (replacement !== original) changed = true
    return replacement
  }
  const copy: SchemaObject = { ...source }
  const items = source.items
  if (Array.isArray(items)) {
    copy.items = items.map((item) => isSchemaObject(item) ? next(item) : item)
  } else if (isSchemaObject(items)) {
    copy.items = next(items)
  }
  for (const keyword of SINGLE) {
    const value = source[keyword]
    if (isSchemaObject(value)) copy[keyword] = next(value)
  }
  for (const keyword of MAP) {
    const value = source[keyword]
    if (!isSchemaObject(value)) continue
    const map: Record<string, unknown> = {}
    for (const key of Object.keys(value)) {
      const sub = (value as Record<string, unknown>)[key]
      map[key] = isSchemaObject(sub) ? next(sub) : sub
    }
    copy[keyword] = map
  }
  for (const keyword of LIST) {
    const value = source[keyword]
    if (Array.isArray(value)) copy[keyword] = value.map((sub) => isSchemaObject(sub) ? next(sub) : sub)
  }
  return changed ? copy : schema
}

/**
 * Rebuilds `schema` bottom-up: `transform` receives each subschema (after its own subschemas were
 * rebuilt) and returns its replacement. Unchanged branches keep their identity.
 */
export function mapSchemaDeep (schema: TSchema, transform: (subschema: TSchema) => TSchema): TSchema {
  const seen = new Map<TSchema, TSchema>()
  const visit = (node: TSchema): TSchema => {
    const known = seen.get(node)
    if (known !== undefined) return known
    seen.set(node, node)
    const rebuilt = replaceSubschemas(node, subschemasOf(node).map(visit))
    const result = transform(rebuilt)
    seen.set(node, result)
    return result
  }
  return visit(schema)
}

/** True when `schema` holds a `$ref` to `id` (not counting nested schemas with their own `$id`). */
export function refersTo (schema: TSchema, id: string): boolean {
  let found = false
  const visit = (node: TSchema): void => {
    const source = node as SchemaObject
    if (found || typeof source.$id === 'string') return
    if (typeof source.$ref === 'string' && refId(source.$ref) === id) found = true
    else forEachSubschema(node, visit)
  }
  forEachSubschema(schema, visit)
  return found
}

/** Points `$ref`s to `fromId` inside `schema` (not inside nested schemas with their own `$id`) at `toId`. */
export function rewriteSelfReferences (schema: TSchema, fromId: string, toId: string): TSchema {
  const visit = (node: TSchema, root: boolean): TSchema => {
    const source = node as SchemaObject
    if (!root && typeof source.$id === 'string') return node
    if (typeof source.$ref === 'string' && refId(source.$ref) === fromId) {
      return { ...source, $ref: withRefId(source.$ref, toId) } as TSchema
    }
    return replaceSubschemas(node, subschemasOf(node).map((sub) => visit(sub, false)))
  }
  return visit(schema, true)
}
