/**
 * Where data must arrive, for `verify`. A generated example carries a unique sentinel in every free string; this
 * module follows the values of an example to the other side of a migration: those under a field of the example's
 * version that has a counterpart, kept through renames, with the same JSON type on the other side (a renamed
 * field's value must reach its HEAD field, a HEAD field's value the old field), with where each is on both sides,
 * and which sentinels must arrive (./sentinel-arrival.ts tells whether they do). Fields an instruction declares
 * added or removed (`didntExist`, `existedAs`) have no counterpart to reach; retyped ones (but made nullable or no
 * longer) as a whole only, and a list item holding a value the other side cannot express (an enum member it lacks, a number out of
 * its range) not at all.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { SchemaGeneration } from '../schemas/generation'
import { visibleFields } from '../schemas/object-fields'
import type { FieldState, SeedState } from '../schemas/seeds'
import { pointerSegment } from '../core/json-schema'
import type { JsonSchema } from '../values/examples'
import { compileMembers, type Matcher } from '../values/union-matchers'
import type { ResolveRef } from '../values/shapes'
import { lowerCaseHeaders } from '../routes/prepared-schemas'
import { fieldsThereOnly, formatsOf, outOfRange, placeThere, propertySchema, typesBesideNull } from './places-there'
import { keptField, type Kept } from './renamed-values'
import { withOwnKeywords } from './ref-keywords'

/**
 * Resolves a `$ref` of a schema (the application's `$id`s). A run's resolver (verify's) also holds the union matchers
 * {@link readingNode} compiled in the run, by member list: they live as long as the run.
 */
export type RefResolver = ((ref: string) => unknown) & { readonly unionMatchers?: WeakMap<readonly unknown[], Matcher[]> }

/** The schema node `schema` is, following `$ref`s (with their own keywords); `undefined` when it names nothing. */
export function asNode (schema: unknown, resolveRef: RefResolver): JsonSchema | undefined {
  let node = schema
  for (let hops = 0; hops < 8 && typeof node === 'object' && node !== null && typeof (node as JsonSchema).$ref === 'string'; hops++) {
    const target = resolveRef((node as JsonSchema).$ref as string)
    node = typeof target === 'object' && target !== null ? withOwnKeywords(node as JsonSchema, target as JsonSchema) : target
  }
  return typeof node === 'object' && node !== null ? node as JsonSchema : undefined
}

/**
 * A coarse JSON type of a schema: what a value of it is (`string`, `null|string` for a nullable one, `number|string`
 * for a union; integers are numbers).
 * @example
 * ```ts
 * jsonTypeOf(Type.Union([Type.Integer(), Type.Null()]), resolveRef) // 'null|number'
 * ```
 */
export function jsonTypeOf (schema: unknown, resolveRef: RefResolver): string {
  const node = asNode(schema, resolveRef)
  if (node === undefined) return 'any'
  if (typeof node.type === 'string' || Array.isArray(node.type)) {
    // `null` counts (a list of types, `nullable`): a field made nullable, or no longer, is retyped.
    const types = (Array.isArray(node.type) ? node.type as string[] : [node.type]).map((type) => type === 'integer' ? 'number' : type)
    return [...new Set(node.nullable === true ? [...types, 'null'] : types)].sort().join('|')
  }
  if ('const' in node) return typeof node.const
  if (Array.isArray(node.enum)) return [...new Set(node.enum.map((value) => typeof value))].join('|')
  const union = (node.anyOf ?? node.oneOf) as unknown[] | undefined
  if (Array.isArray(union)) return [...new Set(union.map((member) => jsonTypeOf(member, resolveRef)))].sort().join('|')
  if (typeof node.properties === 'object') return 'object'
  if (node.items !== undefined) return 'array'
  return 'any'
}

/** The level a value is of, where a HEAD schema reads it (a union's members are told apart as that level has them). */
interface ValueLevel {
  readonly generation: SchemaGeneration
  readonly level: number
}

/**
 * The node a value is read by: for a union without properties of its own, the member the value belongs to, the one
 * whose converters serving runs (../values/union-matchers.ts), told apart by the union's form at the value's level
 * `at` (the node's own members where none is given); else, or where no member takes the value, the node itself.
 */
export function readingNode (node: JsonSchema, value: unknown, resolveRef: RefResolver, at?: ValueLevel): JsonSchema {
  const members = (node.anyOf ?? node.oneOf) as unknown[] | undefined
  if (!Array.isArray(members) || members.length === 0 || 'properties' in node) return node
  const form = at === undefined || at.level === 0 ? undefined : asNode(at.generation.formAt(node as TSchema, at.level), resolveRef)
  const theirs = (form?.anyOf ?? form?.oneOf) as unknown[] | undefined
  const read = Array.isArray(theirs) && theirs.length === members.length ? theirs : members
  let matchers = resolveRef.unionMatchers?.get(read)
  if (matchers === undefined) {
    matchers = compileMembers(read.map((member) => (typeof member === 'object' && member !== null ? member : {}) as TSchema), resolveRef as ResolveRef)
    resolveRef.unionMatchers?.set(read, matchers)
  }
  const index = matchers.findIndex((matches) => matches(value))
  return index === -1 ? node : asNode(members[index], resolveRef) ?? node
}

/** The items of an array, or the declared fields of an object, with their subschemas: `[key, subschema]`. */
export function declaredChildren (node: JsonSchema, value: object): Array<[PathKey, unknown]> {
  if (Array.isArray(value)) {
    const tuple = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : undefined
    return value.map((_, index) => [index, tuple !== undefined ? (tuple as unknown[])[index] : node.items])
  }
  return Object.keys(value).map((key): [PathKey, unknown] => [key, propertySchema(node, key)]).filter(([, sub]) => sub !== undefined)
}

/** Lineage of fields between two levels of the same HEAD schema. */
interface Lineage {
  readonly generation: SchemaGeneration
  readonly resolveRef: RefResolver
  /** The level the example is at, and the level its values must reach. */
  readonly from: number
  readonly to: number
  /** The pairings computed so far (one map for a whole run: they never change); for headers, `lowerCase`: the example's fields are named in lower case, whatever case the schema declares them in. */
  readonly pairings?: Pairings
  readonly lowerCase?: boolean
}

/** A field of a seed at one level paired with its counterpart at another: its key, its schema, the counterpart's key and schema, and its `pattern` where an instruction makes it another (`''` for none). */
interface Pairing {
  readonly key: string
  readonly type: unknown
  readonly there: string
  readonly thereType: unknown
  readonly therePattern: string | undefined
  /** False when the counterpart's JSON type (but `null`) or string format differs (the field was retyped). */
  readonly sameType: boolean
  /** True when the JSON types differ by `null` alone (see typesBesideNull). */
  readonly nullOnly: boolean
  readonly id: number
}

/** Pairings by HEAD seed schema and levels (`from>to`). */
export type Pairings = Map<TSchema, Map<string, readonly Pairing[]>>

/** The fields of the seed of `head` at `level`, inherited ones included, each with its key there. */
export function fieldsAt (generation: SchemaGeneration, head: TSchema, level: number): Array<{ key: string, field: FieldState }> {
  const state = generation.stateAt(head, level)
  return state.kind === 'object' ? visibleFields(state, (parent): SeedState => generation.stateAt(parent, level)) : []
}

/** The fields of the seed of `head` at level `from` that have a counterpart (the same field, kept through renames) at level `to`. */
function pairingsOf (lineage: Lineage, head: TSchema): readonly Pairing[] {
  const levels = `${lineage.from}>${lineage.to}`
  const known = lineage.pairings?.get(head)?.get(levels)
  if (known !== undefined) return known
  const there = new Map(fieldsAt(lineage.generation, head, lineage.to).map((entry) => [entry.field.id, entry]))
  const nodeOf = (schema: unknown): JsonSchema | undefined => asNode(schema, lineage.resolveRef)
  const pairings: Pairing[] = []
  for (const { key, field } of fieldsAt(lineage.generation, head, lineage.from)) {
    const counterpart = there.get(field.id)
    if (counterpart === undefined) continue
    const { alike, nullOnly } = typesBesideNull(jsonTypeOf(field.type, lineage.resolveRef), jsonTypeOf(counterpart.field.type, lineage.resolveRef))
    const sameType = alike && formatsOf(counterpart.field.type, nodeOf) === formatsOf(field.type, nodeOf)
    const [mine, theirs] = [field, counterpart.field].map(({ type, set, unset }) => unset.includes('pattern') ? '' : String(set.pattern ?? nodeOf(type)?.pattern ?? ''))
    pairings.push({ key, type: field.type, there: counterpart.key, thereType: counterpart.field.type, therePattern: mine === theirs ? undefined : theirs, sameType, nullOnly: sameType && nullOnly, id: field.id })
  }
  if (lineage.pairings !== undefined) lineage.pairings.set(head, (lineage.pairings.get(head) ?? new Map<string, readonly Pairing[]>()).set(levels, pairings))
  return pairings
}

/** True when `value` is a member of the enum `schema` (a seed an instruction narrows) that level `to` lacks: that member (by its HEAD member), not one renamed to its value. */
function lacksMember (lineage: Lineage, schema: unknown, value: unknown): boolean {
  const node = asNode(schema, lineage.resolveRef)
  const seed = node === undefined ? undefined : lineage.generation.seedOf(node as TSchema)
  const [there, here] = seed === undefined ? [] : [lineage.to, lineage.from].map((level) => lineage.generation.stateAt(seed.head, level))
  const member = here?.kind === 'enum' ? here.members.find((each) => each.value === value) : undefined
  return there?.kind === 'enum' && !there.members.some((each) => member?.head !== undefined ? each.head === member.head : each.value === value && (member === undefined || each.head === undefined))
}

/**
 * True when a list item (an object) holds, in a field of its own, a value level `to` cannot express: a member of an
 * enum it lacks, or a number out of the range the field has there (a discount line's negative amount, where lines had
 * a minimum of 0). A converter may leave such an item out.
 */
function holdsUnexpressible (lineage: Lineage, schema: unknown, item: unknown): boolean {
  const node = asNode(schema, lineage.resolveRef)
  if (node === undefined || typeof item !== 'object' || item === null || Array.isArray(item)) return false
  const reading = readingNode(node, item, lineage.resolveRef, { generation: lineage.generation, level: lineage.from })
  const seed = lineage.generation.seedOf(reading as TSchema)
  const form = seed === undefined ? undefined : asNode(lineage.generation.formAt(seed.head, lineage.to), lineage.resolveRef)
  const there = new Map(form === undefined || seed === undefined ? [] : pairingsOf(lineage, seed.head).map((pairing) => [pairing.key, asNode(propertySchema(form, pairing.there), lineage.resolveRef)]))
  return declaredChildren(reading, item).some(([key, sub]) => {
    const held = (item as Record<PathKey, unknown>)[key]
    return held !== null && typeof held !== 'object' && (lacksMember(lineage, sub, held) || outOfRange(there.get(key as string), held))
  })
}

/** A key of a JSON value: an object's key, or an array's index. */
export type PathKey = string | number

/** A value of an example followed to another level: where it is in the example, where its counterpart is there. */
export interface FollowedValue {
  /** Its place in the example. */
  readonly from: readonly PathKey[]
  /** The place of its counterpart at the other level (renamed fields renamed). */
  readonly to: readonly PathKey[]
  /** False for a field retyped between the levels (its counterpart of another JSON type): followed as a whole only. */
  readonly sameType: boolean
  /** True where the JSON types differ by `null` alone: `null` may stand for a value, or be left out. */
  readonly nullOnly?: boolean
  /** The fields the other level declares there, where the value (an object) holds none of them: it must be reshaped. */
  readonly fieldsThere?: readonly string[]
  /** For a field renamed between the levels (its key there another), of a type no instruction changes: how its value must arrive (./renamed-values.ts); and `therePattern`, the other level's `pattern` where an instruction makes it another. */
  readonly kept?: Kept
  readonly therePattern?: string
  /** For a field of a seed: the seed's HEAD schema and the field's identity (kept through renames). */
  readonly field?: { readonly head: TSchema, readonly id: number }
}

/**
 * The JSON pointer of a path, array items as `*` (the same mistake shows at one place, whatever the example).
 * @example
 * ```ts
 * pointerOfPath(['lines', 2]) // '/lines/*'
 * ```
 */
export function pointerOfPath (path: readonly PathKey[]): string {
  return path.map((key) => `/${typeof key === 'number' ? '*' : pointerSegment(key)}`).join('')
}

/**
 * The value at `path` of `data` (own properties only); `undefined` when there is none.
 * @example
 * ```ts
 * valueAt({ tags: ['a', 'b'] }, ['tags', 1]) // 'b'
 * ```
 */
export function valueAt (data: unknown, path: readonly PathKey[]): unknown {
  let value = data
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined
    value = (value as Record<PathKey, unknown>)[key]
  }
  return value
}

/**
 * The schema node of the value at `path` of `data` (data of `schema`, or of its form at level `at`: an object's fields
 * by their names there, as {@link followedValues} reads them), read as the other walks read it (a union by the member
 * the data belongs to); `undefined` where the path leaves what the schema declares.
 * @example
 * ```ts
 * schemaAt(Payment, { amountCents: 1999 }, ['amountCents'], resolveRef) // { type: 'integer' }
 * ```
 */
export function schemaAt (schema: unknown, data: unknown, path: readonly PathKey[], resolveRef: RefResolver, at?: ValueLevel): JsonSchema | undefined {
  let node = asNode(schema, resolveRef)
  let value = data
  for (const key of path) {
    if (node === undefined || typeof value !== 'object' || value === null) return undefined
    const reading = readingNode(node, value, resolveRef, at)
    const seed = at === undefined || at.level === 0 || Array.isArray(value) ? undefined : at.generation.seedOf(reading as TSchema)
    const child = at === undefined || seed === undefined
      ? declaredChildren(reading, value).find(([name]) => name === key)?.[1]
      : fieldsAt(at.generation, seed.head, at.level).find((entry) => entry.key === key)?.field.type
    node = asNode(child, resolveRef)
    value = (value as Record<PathKey, unknown>)[key]
  }
  return node === undefined ? undefined : readingNode(node, value, resolveRef, at)
}

/**
 * The values of an example (at level `from`, of the HEAD schema `headSchema`) with a counterpart at level `to`,
 * parents first: the fields that exist there (the same field, kept through renames) of the same JSON type, all the
 * way down, and the items of their lists; with `retyped`, also the fields retyped between the levels (not what they
 * hold). Fields added or removed by an instruction, and those of a union member the other level lacks, have none.
 * @example
 * ```ts
 * followedValues({ generation, resolveRef, from: 2, to: 0 }, UserCreate, { name: 'Ada' }) // [{ from: ['name'], to: ['fullName'], sameType: true }]
 * ```
 */
export function followedValues (lineage: Lineage, headSchema: unknown, example: unknown, retyped = false): FollowedValue[] {
  const found: FollowedValue[] = []
  const { generation, resolveRef } = lineage
  // `there`: the schema of the value's place at level `to`, where a retyped field's is known (see placeThere).
  const stack: Array<{ schema: unknown, value: unknown, at: FollowedValue, there?: unknown }> = [{ schema: headSchema, value: example, at: { from: [], to: [], sameType: true } }]
  while (stack.length > 0) {
    const { schema, value, at, there: thereSchema } = stack.pop() as typeof stack[number]
    const bare = asNode(schema, resolveRef)
    if (bare === undefined || schema === true || typeof value !== 'object' || value === null) continue
    const node = readingNode(bare, value, resolveRef, { generation, level: lineage.from })
    const follow = (sub: unknown, key: PathKey, there: PathKey, sameType: boolean, { field, place, nullOnly, therePattern }: { field?: FollowedValue['field'], place?: unknown, nullOnly?: boolean, therePattern?: string } = {}): void => {
      const held = (value as Record<PathKey, unknown>)[key]
      if (place === null || placeThere(thereSchema, there, (schema) => asNode(schema, resolveRef)) === null) return
      // A member of an enum the other level lacks has nowhere to go as it is (a converter maps it, or leaves it out), nor an item past its maxItems.
      if (held !== null && typeof held !== 'object' && lacksMember(lineage, sub, held)) return
      if (typeof key === 'number' && (holdsUnexpressible(lineage, sub, held) || key >= Number(asNode(thereSchema, resolveRef)?.maxItems ?? Infinity))) return
      const child = { from: [...at.from, key], to: [...at.to, there], sameType, field, ...(nullOnly === true ? { nullOnly } : {}), ...(key !== there && place === undefined ? { ...keptField(sub, (schema) => asNode(schema, resolveRef)), ...(therePattern === undefined ? {} : { therePattern }) } : {}), ...fieldsThereOnly(place, held, (schema) => asNode(schema, resolveRef)) }
      found.push(child)
      if (sameType) stack.push({ schema: sub, value: (value as Record<PathKey, unknown>)[key], at: child, there: place })
    }
    const seed = Array.isArray(value) ? undefined : generation.seedOf(node as TSchema)
    const lower = lineage.lowerCase === true && at.from.length === 0
    if (seed === undefined || lineage.from === lineage.to) {
      for (const [key, sub] of declaredChildren(lower ? lowerCaseHeaders(node as TSchema) as JsonSchema : node, value)) follow(sub, key, key, true, { place: thereSchema === undefined || lineage.from === lineage.to ? undefined : placeThere(thereSchema, key, (schema) => asNode(schema, resolveRef)) })
      continue
    }
    for (const { key, type, there, thereType, therePattern, sameType, nullOnly, id } of pairingsOf(lineage, seed.head)) {
      const [here, to] = lower ? [key.toLowerCase(), there.toLowerCase()] : [key, there]
      // Retyped: nothing of it has to arrive as it is (added or removed by an instruction: it has no pairing).
      if (Object.hasOwn(value, here) && (sameType || retyped)) follow(type, here, to, sameType, { field: { head: seed.head, id }, place: type === thereType ? undefined : thereType, nullOnly, therePattern })
    }
  }
  return found
}
