/**
 * The shape of one level of data: which fields the schemas describing it declare. The fields of one object
 * can be declared by several schemas at once: an object schema and its `allOf` members (an intersection,
 * validators), or the union members the data may belong to. Fields are removed where all of them are known,
 * never by one member alone. Used by the shape walk ({@link ./shape-walk}).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { isSchemaObject, type SchemaObject } from '../core/json-schema'
import { kGenerated } from '../core/symbols'

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
}

/** The schemas that describe the same data as `source`: its `allOf`, `anyOf` and `oneOf` members. */
function sameLevelMembers (source: SchemaObject): SchemaObject[] {
  const members: SchemaObject[] = []
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = source[keyword]
    if (Array.isArray(list)) for (const member of list) if (isSchemaObject(member)) members.push(member)
  }
  return members
}

/** An empty shape, to which {@link addToShape} adds schemas. */
export function emptyShape (): Shape {
  return { keys: new Set(), patterns: [], open: false, generated: false, declares: false }
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
  if (isSchemaObject(source.properties)) for (const key of Object.keys(source.properties)) shape.keys.add(key)
  for (const [regex] of patternsOf(source)) shape.patterns.push(regex)
  const extra = source.additionalProperties
  if (isSchemaObject(source.properties) || isSchemaObject(source.patternProperties) || extra !== undefined) shape.declares = true
  if (extra === true || isSchemaObject(extra)) shape.open = true
  for (const member of sameLevelMembers(source)) addToShape(member, shape, resolveRef, depth + 1)
}

/** True when `shape` (or, for `key`, one of its patterns) declares the field `key`. */
function declaredBy (shape: Shape, key: string): boolean {
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

/** The `patternProperties` of a schema with their schemas (compiled when a walk is). */
export function patternsOf (source: SchemaObject): ReadonlyArray<readonly [RegExp, TSchema]> {
  if (!isSchemaObject(source.patternProperties)) return []
  return Object.entries(source.patternProperties as Record<string, TSchema>).map(([pattern, sub]) => [new RegExp(pattern, 'u'), sub] as const)
}

/** True for a schema that is only a union (`anyOf`/`oneOf`, no `allOf` and no fields of its own). */
export function isPureUnion (source: SchemaObject): boolean {
  return (Array.isArray(source.anyOf) || Array.isArray(source.oneOf)) && !Array.isArray(source.allOf) && !isSchemaObject(source.properties)
}
