/**
 * The shape of one level of data (the fields its schemas declare, removed only where all are known), and
 * {@link childrenOf}, the one reading of the keywords describing the values inside data.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { isSchemaObject, type SchemaObject } from '../core/json-schema'
import { kGenerated, kHeadSchema } from '../core/symbols'

/** Finds the schema a `$ref` names; `undefined` when it is unknown. */
export type ResolveRef = (ref: string) => TSchema | undefined

/** How deep schemas (through `$ref`s) and data are followed; deeper data is left as it is. */
export const MAX_WALK_DEPTH = 64

/** The fields an object schema declares at one level of the data (with its `allOf` and union members). */
export interface Shape {
  readonly keys: Set<string>
  readonly patterns: RegExp[]
  /** Some part accepts any other field (`additionalProperties`, or a `$ref` that is not followed). */
  open: boolean
  /** Some part was rebuilt by a version. */
  generated: boolean
  /** Some part says which fields there are (`properties`, `patternProperties` or `additionalProperties`). */
  declares: boolean
  /** Fields of HEAD that a part a version rebuilt does not declare, though it accepts other fields. */
  readonly lacks: Set<string>
}

/** An empty shape, to which {@link addToShape} adds schemas. */
export function emptyShape (): Shape {
  return { keys: new Set(), patterns: [], open: false, generated: false, declares: false, lacks: new Set() }
}

/** Adds the fields `source` declares at its level (its own and its members') to `shape`. */
export function addToShape (source: SchemaObject, shape: Shape, resolveRef: ResolveRef | undefined, depth = 0): void {
  if (depth > MAX_WALK_DEPTH) {
    shape.open = true
    return
  }
  if (typeof source.$ref === 'string') {
    const target = resolveRef?.(source.$ref)
    if (target === undefined) shape.open = true
    else addToShape(target as SchemaObject, shape, resolveRef, depth + 1)
    return
  }
  if (source[kGenerated] === true) shape.generated = true
  const children = childrenOf(source)
  for (const key of children.named) shape.keys.add(key)
  for (const [regex] of children.patterns) shape.patterns.push(regex)
  const extra = source.additionalProperties
  if (isSchemaObject(source.properties) || isSchemaObject(source.patternProperties) || extra !== undefined) shape.declares = true
  if (extra === true || isSchemaObject(extra)) shape.open = true
  // Open, a rebuilt object would take a field of HEAD it lacks as any other field (an internal one, one added since).
  const head = source[kGenerated] === true && shape.open ? source[kHeadSchema] as SchemaObject | undefined : undefined
  if (isSchemaObject(head?.properties)) for (const key of Object.keys(head.properties)) if (!children.named.has(key)) shape.lacks.add(key)
  for (const member of [...children.allOf, ...children.unions.flat()]) addToShape(member as SchemaObject, shape, resolveRef, depth + 1)
}

/** True when `shape` (or, for `key`, one of its patterns) declares the field `key`. */
export function declaredBy (shape: Shape, key: string): boolean {
  if (shape.keys.has(key)) return true
  for (const pattern of shape.patterns) if (pattern.test(key)) return true
  return false
}

/** Removes the fields of `data` that none of `shapes` declares (plain loops: this runs on every request it cleans). */
export function removeUndeclared (data: unknown, shapes: readonly Shape[]): void {
  if (!isSchemaObject(data)) return
  for (const key of Object.keys(data)) {
    let declared = false
    for (let index = 0; index < shapes.length && !declared; index++) declared = declaredBy(shapes[index], key)
    if (!declared) delete data[key]
  }
}

/** Removes the fields of `data` that `shape` lacks (a field of HEAD, where other fields are accepted) and does not declare. */
export function removeLacked (data: unknown, shape: Shape): void {
  if (!isSchemaObject(data)) return
  for (const key of shape.lacks) if (Object.hasOwn(data, key) && !declaredBy(shape, key)) delete data[key]
}

/**
 * The walk of a version's headers removing those HEAD's headers schema declares and the version's lacks (names
 * compared as Fastify compares them, lower-case), or `null` when it lacks none. Only those go: a headers object holds
 * every header a client sent, most of them declared by no schema (decision 0241).
 * @example `lackedHeadersWalk(headSchema, versionForm, resolveRef)?.(request.headers)`
 */
export function lackedHeadersWalk (head: TSchema, form: TSchema, resolveRef: ResolveRef | undefined): ((data: unknown) => void) | null {
  const shapeOf = (schema: TSchema): Shape => {
    const shape = emptyShape()
    addToShape(schema as SchemaObject, shape, resolveRef)
    return shape
  }
  const version = shapeOf(form)
  const names = new Set([...version.keys].map((key) => key.toLowerCase()))
  const lacked = [...shapeOf(head).keys].map((key) => key.toLowerCase())
    .filter((key) => !names.has(key) && !version.patterns.some((pattern) => pattern.test(key)))
  if (lacked.length === 0) return null
  return (data) => {
    if (isSchemaObject(data)) for (const key of lacked) delete data[key]
  }
}

/** The subschemas of a schema node that describe its data or the values inside it, by keyword (read when a walk is compiled). */
export interface Children {
  /** `properties` whose value is a schema, by name; `named` has every name `properties` declares. */
  readonly properties: ReadonlyArray<readonly [string, TSchema]>
  readonly named: ReadonlySet<string>
  /** `patternProperties`, compiled (every entry, in order, whether or not its value is a schema). */
  readonly patterns: ReadonlyArray<readonly [RegExp, unknown]>
  /** `additionalProperties` when it is a schema. */
  readonly additional?: TSchema
  /** Tuple positions that are schemas (`prefixItems`, or `items` as a list), by index. */
  readonly tuple: ReadonlyArray<readonly [number, TSchema]>
  /** `items` when it is a schema, and the first index it describes in a tuple (after `prefixItems`). */
  readonly items?: TSchema
  readonly itemsFrom: number
  /** The members of `anyOf` and of `oneOf` that are schemas: one list for each of the two present. */
  readonly unions: ReadonlyArray<readonly TSchema[]>
  /** The members of `allOf` that are schemas. */
  readonly allOf: readonly TSchema[]
}

/** The {@link Children} of `source`. */
export function childrenOf (source: SchemaObject): Children {
  const schemas = (list: unknown): TSchema[] => Array.isArray(list) ? list.filter(isSchemaObject) : []
  const properties = isSchemaObject(source.properties) ? Object.entries(source.properties) : []
  const patterns = isSchemaObject(source.patternProperties) ? Object.entries(source.patternProperties) : []
  const tuple: unknown[] = Array.isArray(source.prefixItems) ? source.prefixItems : Array.isArray(source.items) ? source.items : []
  return {
    properties: properties.filter((entry): entry is [string, TSchema] => isSchemaObject(entry[1])),
    named: new Set(properties.map(([name]) => name)),
    patterns: patterns.map(([pattern, sub]) => [new RegExp(pattern, 'u'), sub] as const),
    additional: isSchemaObject(source.additionalProperties) ? source.additionalProperties : undefined,
    tuple: tuple.flatMap((schema, index) => isSchemaObject(schema) ? [[index, schema] as const] : []),
    items: isSchemaObject(source.items) ? source.items : undefined,
    itemsFrom: Array.isArray(source.prefixItems) ? source.prefixItems.length : 0,
    unions: (['anyOf', 'oneOf'] as const).filter((keyword) => Array.isArray(source[keyword])).map((keyword) => schemas(source[keyword])),
    allOf: schemas(source.allOf)
  }
}

/** True for a schema that is only a union (`anyOf`/`oneOf`, no `allOf` and no fields of its own). */
export function isPureUnion (source: SchemaObject): boolean {
  return (Array.isArray(source.anyOf) || Array.isArray(source.oneOf)) && !Array.isArray(source.allOf) && !isSchemaObject(source.properties)
}
