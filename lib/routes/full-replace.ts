/**
 * What a full replace from an old version clears, and the route option `fullReplace` ([decision 0073](../../docs/decisions/0073-replace-keeps-what-old-clients-cannot-see.md)).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { RouterGenerationError } from '../core/errors'
import { childSchemaInfo } from '../describe/extend-schema'
import { describeValue, isSchemaObject, pointerSegment, type SchemaObject } from '../core/json-schema'
import type { HttpMethod } from '../core/http-methods'
import { visibleFields } from '../schemas/object-fields'
import type { SchemaGeneration } from '../schemas/generation'
import type { ObjectState } from '../schemas/seeds'
import { childrenOf, MAX_WALK_DEPTH } from '../values/shapes'
import { compileMembers, type Matcher } from '../values/union-matchers'

/** No field: the answer of every version that expresses every HEAD body field, and of unversioned routes. */
export const NO_FIELDS: readonly string[] = Object.freeze([])

/** A route's `fullReplace` option, read: whether its body replaces what it stores, and the fields its handler keeps. */
export interface FullReplace {
  /** True when a request of some method of the route replaces (those of {@link FullReplace.methods}). */
  readonly replaces: boolean
  /** The methods whose requests replace: a `PATCH` of a route with other methods too is a partial update (decision 0182). */
  readonly methods: ReadonlySet<string>
  /** The HEAD body fields (JSON pointers) whose stored values the handler keeps when an old version lacks them. */
  readonly keeps: ReadonlySet<string>
}

/** True for a JSON pointer (RFC 6901): empty, or segments each after a `/`, `~` only escaping (`~0`, `~1`). */
function isPointer (value: unknown): value is string {
  return typeof value === 'string' && /^(?:\/(?:[^~/]|~[01])*)*$/.test(value)
}

/**
 * Reads the route option `fullReplace`: a `PUT` replaces unless `false`; `true` or `{ keeps: [...] }` makes every
 * method replace but the `PATCH` of a route with other methods. Anything else is a `RouterGenerationError`.
 * @example
 * readFullReplace(undefined, ['PUT', 'PATCH'], 'PATCH,PUT /users/:id') // { replaces: true, methods: Set { 'PUT' }, keeps: Set {} }
 * readFullReplace({ keeps: ['/nickname'] }, ['POST'], 'POST /users') // { replaces: true, methods: Set { 'POST' }, keeps: Set { '/nickname' } }
 */
export function readFullReplace (value: unknown, methods: readonly HttpMethod[], display: string): FullReplace {
  const keeps = value === undefined || typeof value === 'boolean' ? [] : isSchemaObject(value) && Object.keys(value).length === 1 ? value.keeps : undefined
  if (!Array.isArray(keeps) || !keeps.every(isPointer)) {
    throw new RouterGenerationError(`${display}: the route option fullReplace is ${describeValue(value)}; it takes true, false, or ` +
      "{ keeps: [...] } listing the HEAD body fields the handler keeps as JSON pointers ('/nickname', '/address/line2', '/items/*/note').")
  }
  const replacing = value === false ? [] : value === undefined ? methods.filter((method) => method === 'PUT') : methods.length > 1 ? methods.filter((method) => method !== 'PATCH') : methods
  return Object.freeze({ replaces: replacing.length > 0, methods: new Set(replacing), keeps: new Set(keeps) })
}

/** No value at a place (the body holds none there): every union member is walked, and `*` stands for items and map values. */
const ABSENT: unique symbol = Symbol('absent')

/** Union members' matchers, compiled once per union (its `anyOf` or `oneOf` list) for a route's version, as converters pick the member of a value (../values/occurrences.ts). */
type Matchers = Map<unknown, Matcher[]>

/** The first member of the union `list` that `value` plausibly belongs to. */
function memberOf (matchers: Matchers, list: unknown, members: readonly TSchema[], value: unknown, generation: SchemaGeneration): TSchema | undefined {
  let compiled = matchers.get(list)
  if (compiled === undefined) matchers.set(list, compiled = compileMembers(members, (ref) => generation.resolveRef(ref)))
  const index = compiled.findIndex((matches) => matches(value))
  return index < 0 ? undefined : members[index]
}

/** The value at `key` of `value`, or {@link ABSENT}. */
function valueAt (value: unknown, key: string | number): unknown {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : ABSENT
}

/** The schema a `$ref` names, or `node` itself. */
function resolved (node: TSchema, generation: SchemaGeneration): TSchema {
  const ref = (node as SchemaObject).$ref
  return (typeof ref === 'string' ? generation.resolveRef(ref) : undefined) ?? node
}

/** Each key of a map the body holds that `fits`, as a pointer segment, with its value; else `*`. */
function entries (value: unknown, fits: (key: string) => boolean): Array<readonly [string, unknown]> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [['*', ABSENT]]
  return Object.keys(value).filter(fits).map((key) => [pointerSegment(key), valueAt(value, key)])
}

/** The places a walk found, and whether two object members of a union lack different ones (then the body tells which). */
interface Lacked { readonly places: readonly string[], readonly byMember: boolean }

/**
 * The HEAD body fields the version at `level` cannot express, as JSON pointers (`*` for items and map values): added
 * since or hidden, at any depth, in any union member; a renamed, retyped or `derivedFrom` field is expressed
 * (decision 0073). For a request's body: where two object members of a union lack different fields, the body's value
 * there is walked as the member converters take it for (its first plausible one), with its indexes and keys in place
 * of `*` (decision 0274); elsewhere one frozen answer, found on the first call (fields left out as derived are then
 * added to `derived` when given, for `verify`).
 * @example
 * const lacked = lackedFieldsIn(PartyUpdate, generation.levelOf('2000-01-01'), generation)
 * lacked() // ['/party/address/city']
 * lacked({ value: { party: { kind: 'company', name: 'ACME' } } }) // [] where only a person's address lacks its city
 */
export function lackedFieldsIn (head: TSchema | undefined, level: number, generation: SchemaGeneration, derived?: Set<string>): (body?: { readonly value: unknown }) => readonly string[] {
  if (head === undefined || generation.formAt(head, level) === head) return () => NO_FIELDS
  let found: Lacked | undefined
  const matchers: Matchers = new Map()
  return (body) => {
    found ??= walkLacked(head, { level, generation, derived }, ABSENT)
    return body === undefined || !found.byMember ? found.places : walkLacked(head, { level, generation, matchers }, body.value).places
  }
}

function walkLacked (head: TSchema, { level, generation, derived, matchers = new Map() }: { level: number, generation: SchemaGeneration, derived?: Set<string>, matchers?: Matchers }, body: unknown): Lacked {
  let found = new Set<string>()
  let byMember = false
  const onPath = new Set<TSchema>()
  const walk = (node: TSchema, pointer: string, value: unknown): void => {
    // Nothing in a schema whose form is HEAD's own changed; a schema met inside itself was walked already.
    if (!isSchemaObject(node) || onPath.has(node) || onPath.size > MAX_WALK_DEPTH || generation.formAt(node, level) === node) return
    onPath.add(node)
    const source = node as SchemaObject
    const target = typeof source.$ref === 'string' ? generation.resolveRef(source.$ref) : undefined
    if (target !== undefined) walk(target, pointer, value)
    else walkChildren(node, pointer, value)
    onPath.delete(node)
  }
  const walkChildren = (node: TSchema, pointer: string, value: unknown): void => {
    const children = childrenOf(node as SchemaObject)
    // A seed, or a schema made by `extendSchema`, is built from its fields' states (../schemas/form-builder.ts).
    const state = generation.seedOf(node) === undefined && childSchemaInfo(node) === undefined ? undefined : generation.stateAt(node, level)
    if (state?.kind === 'object') walkFields(node, state, pointer, value)
    else for (const [key, child] of children.properties) walk(child, `${pointer}/${pointerSegment(key)}`, valueAt(value, key))
    const patterned = (key: string): boolean => !children.named.has(key) && children.patterns.some(([regex]) => regex.test(key))
    for (const [regex, child] of children.patterns) {
      for (const [key, inner] of entries(value, (key) => !children.named.has(key) && regex.test(key))) walk(child as TSchema, `${pointer}/${key}`, inner)
    }
    if (children.additional !== undefined) {
      for (const [key, inner] of entries(value, (key) => !children.named.has(key) && !patterned(key))) walk(children.additional, `${pointer}/${key}`, inner)
    }
    const items: Array<readonly [TSchema, number | undefined]> = [...children.tuple.map(([index, schema]) => [schema, index] as const)]
    if (children.items !== undefined) {
      const length = Array.isArray(value) ? value.length : children.itemsFrom + 1
      for (let index = children.itemsFrom; index < length; index++) items.push([children.items, Array.isArray(value) ? index : undefined])
    }
    for (const [child, index] of items) {
      if (!Array.isArray(value)) walk(child, `${pointer}/*`, ABSENT)
      else if (index !== undefined && index < value.length) walk(child, `${pointer}/${index}`, value[index])
    }
    // The lists `children.unions` holds the schemas of, in its order (`anyOf`, then `oneOf`).
    const lists = [(node as SchemaObject).anyOf, (node as SchemaObject).oneOf].filter(Array.isArray)
    children.unions.forEach((members, index) => { walkUnion(lists[index], members, pointer, value) })
    for (const member of children.allOf) walk(member, pointer, value)
  }
  // A value is walked as its first plausible member; without one every member is, and two object members lacking
  // different fields make the answer the body's.
  const walkUnion = (list: unknown, members: readonly TSchema[], pointer: string, value: unknown): void => {
    const chosen = value === ABSENT ? undefined : memberOf(matchers, list, members, value, generation)
    if (chosen !== undefined) return walk(chosen, pointer, value)
    const outer = found
    const each = members.map((member) => {
      found = new Set()
      walk(member, pointer, value)
      return { object: isObjectSchema(resolved(member, generation)), places: found }
    })
    found = outer
    for (const { places } of each) for (const place of places) found.add(place)
    const objects = each.filter(({ object }) => object).map(({ places }) => [...places].sort().join('\n'))
    if (new Set(objects).size > 1) byMember = true
  }
  // The fields of the seeds holding the one walked (its own last), each with the field it is walked through, for
  // `derivedFrom` sources of a holder (decisions 0259, 0263).
  const holders: Array<{ fields: ReadonlyMap<number, unknown>, through?: number }> = []
  // The fields of a seed by identity (kept through renames): HEAD's that the version has none of are lacked.
  const walkFields = (node: TSchema, state: ObjectState, pointer: string, value: unknown): void => {
    const there = new Map(visibleFields(state, (schema) => generation.stateAt(schema, level)).map(({ field }) => [field.id, field]))
    const holder: { fields: ReadonlyMap<number, unknown>, through?: number } = { fields: there }
    holders.push(holder)
    for (const { key, field } of visibleFields(generation.stateAt(node, 0) as ObjectState, (schema) => generation.stateAt(schema, 0))) {
      const place = `${pointer}/${pointerSegment(key)}`
      const at = there.get(field.id)
      if (at === undefined) {
        // A field declared `derivedFrom` is set by the converters while the version holds one of its sources.
        const sources = generation.derivations.get(field.id)
        const set = sources !== undefined && [...sources].some(([source, through]) =>
          holders.some(({ fields, through: walked }) => fields.has(source) && (through === undefined || through === walked)))
        if (set) derived?.add(place)
        else found.add(place)
      } else if (at.type === field.type) {
        holder.through = field.id
        walk(field.type, place, valueAt(value, key))
        holder.through = undefined
      }
    }
    holders.pop()
  }
  walk(head, '', body)
  return { places: found.size === 0 ? NO_FIELDS : Object.freeze([...found]), byMember }
}

/** True for a schema of objects: one with fields, or of type `object`. */
function isObjectSchema (schema: TSchema): boolean {
  const source = schema as SchemaObject
  return source.type === 'object' || isSchemaObject(source.properties)
}
