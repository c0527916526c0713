/**
 * Removing, from a request of an older version, the fields its schema does not have. JSON Schema objects
 * accept extra properties by default, so a client could otherwise send a field of HEAD (an internal one, or
 * one added since its version) and have it reach the handler. Only object schemas that a version rebuilt
 * (whose own fields differ from HEAD's) are cleaned; unchanged schemas behave as in plain Fastify.
 *
 * The fields of one object can be declared by several schemas at once: an object schema and its `allOf`
 * members (an intersection, validators), or the union members the data may belong to. Fields are removed
 * where all of them are known, never by one member alone.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { compileMatcher, type Matcher } from './occurrences'
import { isSchemaObject, type SchemaObject } from '../core/json-schema'
import { kGenerated } from '../core/symbols'

/** Removes undeclared fields from request data, in place. */
export type Cleaner = (data: unknown) => void

/** The fields an object schema declares at one level of the data (with its `allOf` and union members). */
interface Shape {
  readonly keys: Set<string>
  readonly patterns: RegExp[]
  /** Some part accepts any other field (`additionalProperties`, or a `$ref` not followed). */
  open: boolean
  /** Some part was rebuilt by a version. */
  generated: boolean
  /** Some part declares `properties`. */
  declares: boolean
}

const shapeCache = new WeakMap<TSchema, Shape>()

/** The shape of `schema` at its level: its own fields and those of its `allOf`, `anyOf` and `oneOf` members. */
function shapeOf (schema: TSchema): Shape {
  let shape = shapeCache.get(schema)
  if (shape === undefined) {
    shape = { keys: new Set(), patterns: [], open: false, generated: false, declares: false }
    addToShape(schema as SchemaObject, shape)
    shapeCache.set(schema, shape)
  }
  return shape
}

function addToShape (source: SchemaObject, shape: Shape): void {
  if (source[kGenerated] === true) shape.generated = true
  if (isSchemaObject(source.properties)) {
    shape.declares = true
    for (const key of Object.keys(source.properties)) shape.keys.add(key)
  }
  if (isSchemaObject(source.patternProperties)) {
    for (const pattern of Object.keys(source.patternProperties)) shape.patterns.push(new RegExp(pattern, 'u'))
  }
  if (source.additionalProperties === true || isSchemaObject(source.additionalProperties) || typeof source.$ref === 'string') shape.open = true
  for (const member of sameLevelMembers(source)) addToShape(member, shape)
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

/** True when fields outside `shape` can be removed: it was rebuilt, declares fields and accepts no others. */
function removable (shape: Shape): boolean {
  return shape.generated && shape.declares && !shape.open
}

function declaredBy (shape: Shape, key: string): boolean {
  return shape.keys.has(key) || shape.patterns.some((pattern) => pattern.test(key))
}

/** Removes the fields of `data` that `shape` does not declare. */
function removeUndeclared (data: unknown, shape: Shape): void {
  if (!isSchemaObject(data)) return
  for (const key of Object.keys(data)) if (!declaredBy(shape, key)) delete data[key]
}

/** Removes the fields of `data` that none of `shapes` declares. */
function removeUndeclaredByAll (data: unknown, shapes: readonly Shape[]): void {
  if (!isSchemaObject(data)) return
  for (const key of Object.keys(data)) if (!shapes.some((shape) => declaredBy(shape, key))) delete data[key]
}

function isPureUnion (source: SchemaObject): boolean {
  return (Array.isArray(source.anyOf) || Array.isArray(source.oneOf)) && !Array.isArray(source.allOf) && !isSchemaObject(source.properties)
}

const fullCache = new WeakMap<TSchema, Cleaner | null>()
const nestedCache = new WeakMap<TSchema, Cleaner | null>()

/** A cleaner for data of `schema`, or `null` when no rebuilt object schema is reachable in it. */
export function compileCleaner (schema: TSchema): Cleaner | null {
  return compile(schema, true)
}

/**
 * `full`: the cleaner of data `schema` describes alone. Otherwise (an `allOf` member, or the union member of
 * an object that declares fields of its own) only the cleaners of its properties and items: which fields the
 * object may have is decided where all the schemas describing it are known.
 */
function compile (schema: TSchema, full: boolean): Cleaner | null {
  const cache = full ? fullCache : nestedCache
  if (cache.has(schema)) return cache.get(schema) ?? null
  cache.set(schema, null)
  const source = schema as SchemaObject
  const parts: Cleaner[] = []
  const shape = full && !isPureUnion(source) ? shapeOf(schema) : undefined
  if (shape !== undefined && removable(shape)) parts.push((data) => { removeUndeclared(data, shape) })
  parts.push(...propertyCleaners(source))
  if (Array.isArray(source.allOf)) {
    for (const member of source.allOf) {
      const inner = isSchemaObject(member) ? compile(member as TSchema, false) : null
      if (inner !== null) parts.push(inner)
    }
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = source[keyword]
    const inner = Array.isArray(members) ? unionCleaner(members, full && isPureUnion(source)) : null
    if (inner !== null) parts.push(inner)
  }
  const cleaner: Cleaner | null = parts.length === 0 ? null : (data) => { for (const part of parts) part(data) }
  cache.set(schema, cleaner)
  return cleaner
}

/** The cleaners of the values of an object's properties and of an array's items. */
function propertyCleaners (source: SchemaObject): Cleaner[] {
  const parts: Cleaner[] = []
  if (isSchemaObject(source.properties)) {
    for (const [key, property] of Object.entries(source.properties)) {
      const inner = isSchemaObject(property) ? compileCleaner(property as TSchema) : null
      if (inner !== null) parts.push((data) => { if (isSchemaObject(data) && data[key] !== undefined) inner(data[key]) })
    }
  }
  if (isSchemaObject(source.items)) {
    const inner = compileCleaner(source.items as TSchema)
    if (inner !== null) parts.push((data) => { if (Array.isArray(data)) data.forEach(inner) })
  }
  return parts
}

interface Candidate {
  readonly matches: Matcher
  readonly clean: Cleaner | null
  readonly shape: Shape
}

/**
 * Cleans data with the union member it belongs to, when exactly one plausibly matches. When several do, and
 * the union alone describes the data (`full`), only the fields none of them declares are removed.
 */
function unionCleaner (members: unknown[], full: boolean): Cleaner | null {
  const candidates: Candidate[] = members.filter(isSchemaObject).map((member) => ({
    matches: compileMatcher(member as TSchema),
    clean: compile(member as TSchema, full),
    shape: shapeOf(member as TSchema)
  }))
  const filters = full && candidates.some((candidate) => removable(candidate.shape))
  if (!filters && candidates.every((candidate) => candidate.clean === null)) return null
  return (data) => {
    let chosen: Candidate | undefined
    let several: Candidate[] | undefined
    for (const candidate of candidates) {
      if (!candidate.matches(data)) continue
      if (chosen === undefined) chosen = candidate
      else (several ??= [chosen]).push(candidate)
    }
    if (several === undefined) {
      chosen?.clean?.(data)
      return
    }
    const declared = several.map((candidate) => candidate.shape)
    if (filters && declared.some((shape) => shape.generated) && declared.every((shape) => shape.declares && !shape.open)) {
      removeUndeclaredByAll(data, declared)
    }
  }
}
