/**
 * Telling which union member data plausibly belongs to before it is valid for any (a converter's change or a HEAD
 * field may make it fail every member): for the occurrence collectors and the shape walk.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { isSchemaObject, type SchemaObject } from '../core/json-schema'
import { addToShape, childrenOf, declaredBy, emptyShape, MAX_WALK_DEPTH, type ResolveRef } from './shapes'

/** Tells whether a value plausibly belongs to one union member (compiled once per member schema). */
export type Matcher = (value: unknown) => boolean

/**
 * True when Fastify's serializer, reading `value[name]` for a declared property, finds it through the prototype of
 * a class instance (a getter), where JSON and the copies converters get have no such field.
 * @example `readsInherited(new (class { get fullName () { return 'Ada' } })(), 'fullName') // true`
 */
export function readsInherited (value: object, name: string): boolean {
  if (!(name in value) || name in Object.prototype) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype !== Object.prototype && prototype !== null
}

/**
 * The matcher of the union member `schema`: true when a value's type, `const`, `enum`, required properties and `const`
 * discriminators agree, and those of every `allOf` part and of the schema a `$ref` names (with `resolveRef`; an unknown
 * one matches any value); extra properties are allowed (HEAD data carries fields older versions lack).
 * @example `const member = members.find((schema) => compileMatcher(schema, resolveRef)(body))`
 */
function compileMatcher (schema: TSchema, resolveRef?: ResolveRef, within: readonly TSchema[] = []): Matcher {
  const source = schema as SchemaObject
  if (typeof source.$ref === 'string') {
    // A schema met again inside itself (`A = anyOf [$ref A, …]`) matches any value there.
    const target = within.length < MAX_WALK_DEPTH ? resolveRef?.(source.$ref) : undefined
    return target === undefined || within.includes(target) ? () => true : compileMatcher(target, resolveRef, [...within, target])
  }
  if ('const' in source) {
    const expected = source.const
    return (value) => value === expected
  }
  if (Array.isArray(source.enum)) {
    const allowed: unknown[] = source.enum
    return (value) => allowed.includes(value)
  }
  const { unions, properties, allOf } = childrenOf(source)
  if (unions.length > 0) {
    // The members of `anyOf`, or else of `oneOf`.
    const members = unions[0].map((member) => compileMatcher(member, resolveRef, within))
    return (value) => members.some((member) => member(value))
  }
  const parts = allOf.map((part) => compileMatcher(part, resolveRef, within))
  const types = Array.isArray(source.type) ? source.type as string[] : typeof source.type === 'string' ? [source.type] : undefined
  // A `required` that is not a list of strings matches no object (as before compilation); a class's getter field counts.
  const required = Array.isArray(source.required) ? source.required as unknown[] : []
  const discriminators = discriminatorsOf(properties)
  return (value) => {
    for (const part of parts) if (!part(value)) return false
    if (types !== undefined && !types.some((type) => typeMatches(type, value))) return false
    if (!isSchemaObject(value)) return true
    for (const key of required) if (typeof key !== 'string' || !(Object.hasOwn(value, key) || readsInherited(value, key))) return false
    for (const [key, expected] of discriminators) if (Object.hasOwn(value, key) && value[key] !== expected) return false
    return true
  }
}

/** How far a value is from what one union member allows (0: it allows the value), by one of the things telling members apart. */
type Misfit = (value: unknown) => number

/**
 * The matchers of a union's members ({@link compileMatcher}), telling them apart also by the union's discriminator: a
 * property every object member allows a few values of (`const`, `enum`, a union of `const`s), such as `kind:
 * Type.Union([Type.Literal('person'), Type.Literal('trader')])` beside `kind: Type.Literal('company')`; then by the
 * fields of members closed by `additionalProperties: false` ({@link compileClosed}). Each keeps, of the members still
 * chosen, those nearest to allowing the value: a tag or field no member allows (one a later version added) decides
 * nothing, and the first member chosen wins.
 * @example `const chosen = compileMembers([Person, Company], resolveRef).findIndex((matches) => matches(body))`
 */
export function compileMembers (members: readonly TSchema[], resolveRef?: ResolveRef): Matcher[] {
  const plain = members.map((member) => compileMatcher(member, resolveRef))
  const tags = compileTags(members, resolveRef)?.map((allows): Misfit => (value) => allows(value) ? 0 : 1)
  const levels = [tags, compileClosed(members, resolveRef)].filter((level) => level !== undefined)
  if (levels.length === 0) return plain
  /** The members chosen for `value`: the plausible ones, narrowed by each level to those of least misfit. */
  const chosen = (value: unknown): boolean[] => {
    let kept = plain.map((matches) => matches(value))
    for (const misfits of levels) {
      const scores = kept.map((keeps, index) => keeps ? misfits[index](value) : Infinity)
      const least = Math.min(...scores)
      kept = scores.map((score) => score === least && score !== Infinity)
    }
    return kept
  }
  // A plausible member every level allows is chosen without looking at the others (the common case).
  return plain.map((matches, index) => (value) => matches(value) && (levels.every((misfits) => misfits[index](value) === 0) || chosen(value)[index]))
}

/**
 * How many of a value's fields each member closed by `additionalProperties: false` (or `unevaluatedProperties: false`,
 * through its `$ref` and with its `allOf` parts') does not declare (0 for any value of another member); undefined for a
 * union with no closed member. The fields are read once, here.
 * @example `compileClosed([Person, Business], resolveRef)?.[0]({ name: 'Acme', vatId: 'GB1' }) // 1`
 */
function compileClosed (members: readonly TSchema[], resolveRef: ResolveRef | undefined): Misfit[] | undefined {
  const shapes = members.map((member) => {
    const node = targetOf(member, resolveRef)
    if (node?.additionalProperties !== false && node?.unevaluatedProperties !== false) return undefined
    const shape = emptyShape()
    addToShape(node, shape, resolveRef)
    return shape.open ? undefined : shape
  })
  if (shapes.every((shape) => shape === undefined)) return undefined
  return shapes.map((shape): Misfit => shape === undefined
    ? () => 0
    : (value) => {
        if (!isSchemaObject(value)) return 0
        let undeclared = 0
        for (const key of Object.keys(value)) if (!declaredBy(shape, key)) undeclared++
        return undeclared
      })
}

/**
 * Whether each member's tag allows a value's, by the union's discriminator ({@link compileMembers}; true for a value
 * without the tag, or not an object); undefined for a union without one.
 * @example `compileTags([Person, Company], resolveRef)?.[1]({ kind: 'charity' }) // true`
 */
function compileTags (members: readonly TSchema[], resolveRef?: ResolveRef): Matcher[] | undefined {
  const valuesOf = members.map((member) => fewValuedProperties(member, resolveRef))
  const objects = valuesOf.filter((values) => values !== undefined)
  const keys = objects.length < 2 ? [] : [...objects[0].keys()].filter((key) => objects.every((values) => values.has(key)))
  if (keys.length === 0) return undefined
  return valuesOf.map((values) => (value: unknown): boolean => values === undefined || !isSchemaObject(value) ||
    keys.every((key) => !Object.hasOwn(value, key) || (values.get(key) as unknown[]).includes(value[key])))
}

/** The properties of an object member (after its `$ref`s, with its `allOf` parts') allowing a few values, with those values; undefined for a member declaring no properties. */
function fewValuedProperties (member: TSchema, resolveRef: ResolveRef | undefined): Map<string, unknown[]> | undefined {
  const node = targetOf(member, resolveRef)
  if (node === undefined) return undefined
  const { properties, allOf } = childrenOf(node)
  const all = [...properties, ...allOf.flatMap((part) => childrenOf(part as SchemaObject).properties)]
  if (all.length === 0) return undefined
  const found = new Map<string, unknown[]>()
  for (const [key, property] of all) {
    const values = fewValuesOf(property as SchemaObject)
    if (values !== undefined) found.set(key, values)
  }
  return found
}

/** The schema `member` names through its `$ref`s (itself without one); undefined when one is unknown. */
function targetOf (member: TSchema, resolveRef: ResolveRef | undefined): SchemaObject | undefined {
  let node = member as SchemaObject
  for (let depth = 0; typeof node.$ref === 'string' && depth < MAX_WALK_DEPTH; depth++) {
    const target = resolveRef?.(node.$ref)
    if (target === undefined) return undefined
    node = target as SchemaObject
  }
  return node
}

/** The values a schema allows when they are a few listed ones: its `const`, its `enum`, or those of a union of them. */
function fewValuesOf (schema: SchemaObject): unknown[] | undefined {
  if ('const' in schema) return [schema.const]
  if (Array.isArray(schema.enum)) return schema.enum
  const members: unknown = schema.anyOf ?? schema.oneOf
  if (!Array.isArray(members) || members.length === 0) return undefined
  const each = members.map((member) => isSchemaObject(member) ? fewValuesOf(member) : undefined)
  return each.every((values) => values !== undefined) ? each.flat() : undefined
}

/** The `const` fields (discriminators) among an object's properties, with their values. */
function discriminatorsOf (properties: ReadonlyArray<readonly [string, TSchema]>): Array<readonly [string, unknown]> {
  return properties.filter(([, property]) => 'const' in property).map(([key, property]) => [key, (property as SchemaObject).const] as const)
}

/**
 * True when `value` is of the JSON Schema `type` (any value for a type it does not know); a `Date` a handler returns is
 * a string, as JSON and Fastify's serializer write it.
 * @example `typeMatches('integer', 1.5) // false`
 */
export function typeMatches (type: string, value: unknown): boolean {
  switch (type) {
    case 'object': return isSchemaObject(value)
    case 'array': return Array.isArray(value)
    case 'null': return value === null
    case 'integer': return Number.isInteger(value)
    case 'number': return typeof value === 'number'
    case 'string': return typeof value === 'string' || value instanceof Date
    case 'boolean': return typeof value === 'boolean'
    default: return true
  }
}
