/**
 * Where subschemas live inside a JSON Schema, and rebuilding a schema with some replaced without touching the
 * original: the one traversal of every stage.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { isSchemaObject, refId, withRefId, type SchemaObject } from './json-schema'
import { setOwn } from './own-properties'

/** Keywords whose value is one subschema (`items` also takes a list). */
const SINGLE = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames',
  'unevaluatedProperties', 'unevaluatedItems', 'additionalItems'])
/** Keywords whose value maps names to subschemas. */
const MAP = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])
/** Keywords whose value is a list of subschemas. */
const LIST = new Set(['items', 'anyOf', 'allOf', 'oneOf', 'prefixItems'])
/** Every keyword holding subschemas, in the order of the walk. */
const KEYWORDS = [...new Set([...SINGLE, ...MAP, ...LIST])]

/** A list or map of subschemas with each one mapped: itself when nothing changed, else a copy. */
function mapEach<T extends object> (container: T, map: (subschema: TSchema) => TSchema): T {
  let copy: Record<string, unknown> | undefined
  for (const key of Object.keys(container)) {
    const value = (container as Record<string, unknown>)[key]
    const next = isSchemaObject(value) ? map(value) : value
    if (next !== value) setOwn(copy ??= (Array.isArray(container) ? [...container] : { ...container }) as Record<string, unknown>, key, next)
  }
  return (copy ?? container) as T
}

/**
 * The one walk of the direct subschemas of `schema`: puts what `map` returns for each in its place; `schema` itself
 * when nothing changed, else a copy keeping every other keyword and symbol and sharing unchanged subschemas.
 */
export function mapSubschemas (schema: TSchema, map: (subschema: TSchema) => TSchema): TSchema {
  const source = schema as SchemaObject
  let copy: SchemaObject | undefined
  for (const keyword of KEYWORDS) {
    const value = source[keyword]
    const next = Array.isArray(value)
      ? LIST.has(keyword) ? mapEach(value, map) : value
      : !isSchemaObject(value) ? value : MAP.has(keyword) ? mapEach(value, map) : SINGLE.has(keyword) ? map(value) : value
    if (next !== value) (copy ??= { ...source })[keyword] = next
  }
  return copy ?? schema
}

/** The direct subschemas of `schema`, in the order of {@link mapSubschemas}. */
export function subschemasOf (schema: TSchema): TSchema[] {
  const found: TSchema[] = []
  mapSubschemas(schema, (sub) => {
    found.push(sub)
    return sub
  })
  return found
}

/**
 * Every schema reachable from `roots` through subschemas, each once, depth first (a schema before its subschemas);
 * with `resolveRef`, also through `$ref`s (a node, the schema its `$ref` names, then its subschemas).
 * @example `const reachable = everySubschema([body], (ref) => generation.resolveAnyId(ref))`
 */
export function everySubschema (roots: Iterable<TSchema>, resolveRef?: (ref: string) => TSchema | undefined): Set<TSchema> {
  const seen = new Set<TSchema>()
  const visit = (schema: TSchema): void => {
    if (seen.has(schema)) return
    seen.add(schema)
    const ref = (schema as SchemaObject).$ref
    const target = resolveRef !== undefined && typeof ref === 'string' ? resolveRef(ref) : undefined
    if (target !== undefined) visit(target)
    for (const sub of subschemasOf(schema)) visit(sub)
  }
  for (const root of roots) visit(root)
  return seen
}

/** `schema` with its direct subschemas replaced, in the order of {@link mapSubschemas}, by `replacements`. */
export function replaceSubschemas (schema: TSchema, replacements: readonly TSchema[]): TSchema {
  let index = 0
  return mapSubschemas(schema, () => replacements[index++])
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
    const rebuilt = mapSubschemas(node, visit)
    const result = transform(rebuilt)
    seen.set(node, result)
    return result
  }
  return visit(schema)
}

/** True when `schema` holds a `$ref` to `id` (not counting nested schemas with their own `$id`). */
export function refersTo (schema: TSchema, id: string): boolean {
  const visit = (node: TSchema): boolean => {
    const source = node as SchemaObject
    if (typeof source.$id === 'string') return false
    return (typeof source.$ref === 'string' && refId(source.$ref) === id) || subschemasOf(node).some(visit)
  }
  return subschemasOf(schema).some(visit)
}

/** Points `$ref`s to `fromId` inside `schema` (not inside nested schemas with their own `$id`) at `toId`. */
export function rewriteSelfReferences (schema: TSchema, fromId: string, toId: string): TSchema {
  const visit = (node: TSchema, root: boolean): TSchema => {
    const source = node as SchemaObject
    if (!root && typeof source.$id === 'string') return node
    if (typeof source.$ref === 'string' && refId(source.$ref) === fromId) {
      return { ...source, $ref: withRefId(source.$ref, toId) } as TSchema
    }
    return mapSubschemas(node, (sub) => visit(sub, false))
  }
  return visit(schema, true)
}

/**
 * A `$ref` resolver for data shaped by `roots`: a schema with that `$id` inside them (a `Type.Recursive`), else what
 * `resolve` finds.
 * @example
 * ```ts
 * const Tree = Type.Recursive((This) => Type.Object({ children: Type.Array(This) }), { $id: 'Tree' })
 * resolverWithin([Type.Object({ tree: Tree })], () => undefined)('Tree') // Tree
 * ```
 */
export function resolverWithin<T> (roots: readonly TSchema[], resolve: (ref: string) => T | undefined): (ref: string) => TSchema | T | undefined {
  let embedded: Map<string, TSchema> | undefined
  return (ref) => {
    if (embedded === undefined) {
      embedded = new Map()
      for (const node of everySubschema(roots)) {
        const id = (node as SchemaObject).$id
        if (typeof id === 'string' && !embedded.has(id)) embedded.set(id, node)
      }
    }
    return embedded.get(refId(ref)) ?? resolve(ref)
  }
}
