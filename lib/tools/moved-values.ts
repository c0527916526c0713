/**
 * The values a version change moves between two objects, for `verify` (docs/decisions/0277-verify-follows-a-moved-value.md):
 * a field one level has in an object (a customer's `city`, brought back by `formerField(...).existedAs`) and the other
 * level has in an object that one holds (`address.city`, declared `derivedFrom({ schema, field })`: decisions 0259,
 * 0263) is the same value, moved, where the derived field is set from that one field alone and it sets no other. Its
 * value is followed to the other place, as a renamed field's is (./data-flow.ts): one way it must arrive (an old
 * client's `''` too), on a round trip come back equal. Deeper (docs/decisions/0171-verify-follows-a-move-deeper.md): into
 * the one object of the example down the way `through` whose schema has the derived field (`address.location.city`),
 * and out of an object a field derived from it holds on both sides (`zip` from `billing`: the one field, not an object
 * or list, the objects down `billing` have on the source's side only). Into a list's items (`phones` from `phone`) and
 * as a whole into a union member of its schema (`paymentMethod` from `card`: docs/decisions/0173-verify-follows-a-move-
 * into-a-list-or-union.md). A move through a list, where the way down holds the object in more than one field, or from
 * several fields, is not followed, nor a field derived from an object it replaces or holding one (an address flattened
 * into its city: another value).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { SchemaGeneration } from '../schemas/generation'
import { asNode, fieldsAt, followedValues, jsonTypeOf, readingNode, schemaAt, valueAt, type FollowedValue, type PathKey, type RefResolver } from './data-flow'
import { formatsOf, typesBesideNull } from './places-there'

/**
 * A moved value followed: `holder`, the length of the path (at the other level) of the object holding both places;
 * `items`, where one place holds a list and the other does not, which of them is the list: `'into'` the other place's
 * (an old `phone` into HEAD's `phones`: it must arrive, `''` too), `'out of'` the example's (its items may have no place
 * there: nothing must arrive one way).
 */
export type MovedValue = FollowedValue & { readonly holder: number, readonly items?: 'into' | 'out of' }

/** A move: the derived field, the field it is set from, the field of the source's schema holding the derived one's (`undefined`: the same schema). */
interface Move { readonly derived: number, readonly source: number, readonly through: number | undefined }

/** The moves of a generation, by the identity of the field moved (few: one per `derivedFrom` declared). */
function movesIn (generation: SchemaGeneration): ReadonlyMap<number, Move> {
  const bySource = new Map<number, Move[]>()
  for (const [derived, sources] of generation.derivations) {
    if (sources.size !== 1) continue
    const [[source, through]] = sources
    bySource.set(source, [...bySource.get(source) ?? [], { derived, source, through }])
  }
  return new Map([...bySource].filter(([, moves]) => moves.length === 1).map(([source, [move]]) => [source, move]))
}

/** What a walk between two levels needs: the generation, `$ref`s, the example's level and the other. */
interface Levels { readonly generation: SchemaGeneration, readonly resolveRef: RefResolver, readonly from: number, readonly to: number }

/** The levels, and the pairings a whole run shares (see {@link followedValues}). */
type Lineage = Parameters<typeof followedValues>[0]

/** An object of the example with a seed: its place in the example and at the other level, and its seed's HEAD schema. */
interface Held { readonly from: readonly PathKey[], readonly to: readonly PathKey[], readonly head: TSchema }

/** A side of the example's walk: its own places (`from`, at level `from`) or the other level's (`to`). */
type Side = 'from' | 'to'

/**
 * The values of an example (at level `lineage.from`, of the HEAD schema `headSchema`) followed to level `lineage.to`
 * ({@link followedValues}, retyped fields as a whole), with the values moved between two objects there.
 * @example
 * ```ts
 * followedWithMoves({ generation, resolveRef, from: 1, to: 0 }, Customer, { name: 'Ada', city: '', address: { line1: 'x' } })
 * // [..., { from: ['city'], to: ['address', 'city'], sameType: true, holder: 0 }]
 * ```
 */
export function followedWithMoves (lineage: Lineage, headSchema: unknown, example: unknown): FollowedValue[] {
  const followed = followedValues(lineage, headSchema, example, true)
  const moves = movesIn(lineage.generation)
  if (moves.size === 0 || lineage.from === lineage.to) return followed
  const held = heldObjects(lineage, headSchema, example, followed)
  const moved = held.flatMap((holder) => movedFrom(lineage, moves, held, example, holder))
  return moved.length === 0 ? followed : [...followed, ...moved]
}

/** The objects of an example that have a seed (the example itself included), followed to the other level. */
function heldObjects (lineage: Lineage, headSchema: unknown, example: unknown, followed: readonly FollowedValue[]): Held[] {
  const held: Held[] = []
  for (const at of [{ from: [], to: [], sameType: true }, ...followed]) {
    const value = valueAt(example, at.from)
    if (!at.sameType || typeof value !== 'object' || value === null || Array.isArray(value)) continue
    const node = schemaAt(headSchema, example, at.from, lineage.resolveRef, { generation: lineage.generation, level: lineage.from })
    const seed = node === undefined ? undefined : lineage.generation.seedOf(node as TSchema)
    if (seed !== undefined) held.push({ from: at.from, to: at.to, head: seed.head })
  }
  return held
}

/**
 * A string joined from several of one object (`name` from `firstName` and `lastName`, declared `derivedFrom('firstName',
 * 'lastName')`; or `name` that HEAD's `firstName` and `lastName` are each derived from alone): `whole`, its place on its
 * side, `parts`, theirs on the other (in the order declared, `ordered`, for one field derived from several); `split`
 * where the example holds the whole (a split follows), else a join follows.
 */
export interface JoinedValue { readonly whole: readonly PathKey[], readonly parts: ReadonlyArray<readonly PathKey[]>, readonly split: boolean, readonly ordered: boolean }

/**
 * The strings of an example (at level `lineage.from`) joined from several fields of one object, or split into them, at
 * level `lineage.to` ({@link JoinedValue}): the whole a string, its parts strings or numbers (`${street} ${number}`),
 * in one object (no `through`).
 * @example
 * ```ts
 * joinedValues({ generation, resolveRef, from: 1, to: 0 }, Person, { firstName: 'Ada', lastName: 'Lovelace' })
 * // [{ whole: ['name'], parts: [['firstName'], ['lastName']], split: false, ordered: true }]
 * ```
 */
export function joinedValues (lineage: Lineage, headSchema: unknown, example: unknown): JoinedValue[] {
  const joins = joinsIn(lineage.generation)
  if (joins.length === 0 || lineage.from === lineage.to) return []
  const found: JoinedValue[] = []
  for (const holder of heldObjects(lineage, headSchema, example, followedValues(lineage, headSchema, example, true))) {
    const on = (level: number): ReadonlyMap<number, { key: string, type: unknown }> => new Map(fieldsAt(lineage.generation, holder.head, level).map(({ key, field }) => [field.id, { key, type: field.type }]))
    const [here, there] = [on(lineage.from), on(lineage.to)]
    const text = (field: { type: unknown } | undefined, numbers = false): boolean => field !== undefined &&
      jsonTypeOf(field.type, lineage.resolveRef).split('|').every((type) => type === 'string' || type === 'null' || (numbers && (type === 'integer' || type === 'number')))
    for (const { whole, parts, ordered } of joins) {
      const split = here.has(whole) && !there.has(whole)
      const [wholeSide, partSide] = split ? [here, there] : [there, here]
      if (!text(wholeSide.get(whole)) || partSide.has(whole) || !parts.every((part) => text(partSide.get(part), true) && !wholeSide.has(part))) continue
      const [wholeAt, partsAt] = split ? [holder.from, holder.to] : [holder.to, holder.from]
      found.push({ whole: [...wholeAt, (wholeSide.get(whole) as { key: string }).key], parts: parts.map((part) => [...partsAt, (partSide.get(part) as { key: string }).key]), split, ordered })
    }
  }
  return found
}

/**
 * The joins of a generation, by identity: a field derived from several fields of its own schema (their order declared),
 * and a field several fields are each derived from alone (in the order the instructions declare them).
 */
function joinsIn (generation: SchemaGeneration): Array<{ whole: number, parts: readonly number[], ordered: boolean }> {
  const joins: Array<{ whole: number, parts: readonly number[], ordered: boolean }> = []
  const bySource = new Map<number, number[]>()
  for (const [derived, sources] of generation.derivations) {
    if ([...sources.values()].some((through) => through !== undefined)) continue
    if (sources.size > 1) joins.push({ whole: derived, parts: [...sources.keys()], ordered: true })
    else for (const source of sources.keys()) bySource.set(source, [...bySource.get(source) ?? [], derived])
  }
  for (const [source, derived] of bySource) if (derived.length > 1) joins.push({ whole: source, parts: derived, ordered: false })
  return joins
}

/** True when `path` is `prefix` or an object's field below it (no list item on the way). */
function below (path: readonly PathKey[], prefix: readonly PathKey[]): boolean {
  return path.length >= prefix.length && prefix.every((key, index) => path[index] === key) && path.slice(prefix.length).every((key) => typeof key === 'string')
}

/** A place of a move, relative to the object holding both: the keys there, and the schema of the field. */
interface Place { readonly keys: readonly PathKey[], readonly type: unknown }

/**
 * The values moved out of or into an object (`holder`) at these two levels, from its fields or those of an object it
 * holds: a field set from one field (the source), in the holder or reached through the field `through` (directly, or
 * in the one object of the example down that way whose schema has it); or, from a field holding an object on both
 * sides (`billing`), the one field of the derived field's type that an object down that way has on the other side
 * only (`billing.address.zip` moved out into `zip`).
 */
function movedFrom (lineage: Lineage, moves: ReadonlyMap<number, Move>, held: readonly Held[], example: unknown, holder: Held): FollowedValue[] {
  const { generation, resolveRef } = lineage
  const levels: Record<Side, number> = { from: lineage.from, to: lineage.to }
  const fields: Record<Side, ReturnType<typeof fieldsAt>> = { from: fieldsAt(generation, holder.head, lineage.from), to: fieldsAt(generation, holder.head, lineage.to) }
  const found: FollowedValue[] = []
  for (const move of moves.values()) {
    const derivedOn = (side: Side): Place | undefined => derivedPlace(lineage, { move, held, holder, side, fields: fields[side] })
    const [derivedHere, derivedThere] = [derivedOn('from'), derivedOn('to')]
    if ((derivedHere === undefined) === (derivedThere === undefined)) continue
    // The derived field is on one side: the source's value on the other, in the holder, or moved out of an object it holds.
    const [derivedSide, sourceSide]: [Side, Side] = derivedHere !== undefined ? ['from', 'to'] : ['to', 'from']
    const source = fields[sourceSide].find(({ field }) => field.id === move.source)
    const kept = source !== undefined && fields[derivedSide].some(({ field }) => field.id === move.source)
    const value: Place | undefined = source === undefined ? undefined : !kept ? { keys: [source.key], type: source.field.type } : lostUnder(lineage, held, holder, { side: sourceSide, key: source.key, levels })
    const derived = derivedHere ?? derivedThere as Place
    if (value === undefined) continue
    const [from, to] = sourceSide === 'from'
      ? [[...holder.from, ...value.keys], [...holder.to, ...derived.keys]]
      : [[...holder.from, ...derived.keys], [...holder.to, ...value.keys]]
    if (valueAt(example, from) === undefined) continue
    const nodeOf = (schema: unknown): ReturnType<typeof asNode> => asNode(schema, resolveRef)
    const types = [value.type, derived.type].map((type) => jsonTypeOf(type, resolveRef))
    // A field derived from an object (an address flattened), or an object derived from a field, holds another value;
    // but an object moved whole into a field of its schema, or of a union of it, is that object.
    if (types.some((type) => /\b(?:object|any)\b/.test(type))) {
      const whole = { from, to, holder: holder.to.length, types: [value.type, derived.type] as const, derivedHere: derivedSide === 'from' }
      found.push(...movedWhole(lineage, example, whole))
      continue
    }
    const { alike, nullOnly } = typesBesideNull(types[0], types[1])
    const sameType = alike && formatsOf(value.type, nodeOf) === formatsOf(derived.type, nodeOf)
    // A value moved into a list's items (or out of them): the example's side, or the other, holds the list.
    const [listHere, listThere] = (sourceSide === 'from' ? types : [...types].reverse()).map((type) => type.split('|').includes('array'))
    const items = listHere === listThere ? {} : { items: listThere ? 'into' as const : 'out of' as const }
    const moved: MovedValue = { from, to, sameType, ...(sameType && nullOnly ? { nullOnly } : {}), holder: holder.to.length, ...items }
    found.push(moved)
  }
  return found
}

/**
 * Where the derived field of `move` is on one side (`fields`: the holder's there), relative to the holder: in the
 * holder itself (a source of its own schema), in the object its field `through` holds, or deeper down that way in the
 * one object of the example whose schema has it there (`address.location.city`).
 */
function derivedPlace (lineage: Levels, { move, held, holder, side, fields }: { move: Move, held: readonly Held[], holder: Held, side: Side, fields: ReturnType<typeof fieldsAt> }): Place | undefined {
  const { generation, resolveRef } = lineage
  const level = side === 'from' ? lineage.from : lineage.to
  const own = (head: TSchema): { key: string, field: { type: unknown } } | undefined => fieldsAt(generation, head, level).find(({ field }) => field.id === move.derived)
  const via = move.through === undefined ? undefined : fields.find(({ field }) => field.id === move.through)
  if (via === undefined) {
    const derived = move.through === undefined ? own(holder.head) : undefined
    return derived === undefined ? undefined : { keys: [derived.key], type: derived.field.type }
  }
  const inner = generation.seedOf(asNode(via.field.type, resolveRef) as TSchema)?.head
  const direct = inner === undefined ? undefined : own(inner)
  if (direct !== undefined) return { keys: [via.key, direct.key], type: direct.field.type }
  const way = [...holder[side], via.key]
  const deeper = held.filter((object) => object[side].length > way.length && below(object[side], way) && own(object.head) !== undefined)
  const derived = deeper.length === 1 ? own(deeper[0].head) : undefined
  return derived === undefined ? undefined : { keys: [...deeper[0][side].slice(holder[side].length), derived.key], type: derived.field.type }
}

/**
 * The one field, of a type other than an object, that an object held under the holder's field `key` (on `side`, that
 * object included) has at that side's level and not at the other's: a value moved out of it, into a field derived from
 * `key`. None, or several, is no move followed.
 */
function lostUnder (lineage: Levels, held: readonly Held[], holder: Held, { side, key, levels }: { side: Side, key: string, levels: Record<Side, number> }): Place | undefined {
  const other: Side = side === 'from' ? 'to' : 'from'
  const lost: Place[] = []
  for (const object of held.filter((each) => each[side].length > holder[side].length && below(each[side], [...holder[side], key]))) {
    const there = new Set(fieldsAt(lineage.generation, object.head, levels[other]).map(({ field }) => field.id))
    for (const { key: name, field } of fieldsAt(lineage.generation, object.head, levels[side])) {
      if (!there.has(field.id) && !/\b(?:object|array|any)\b/.test(jsonTypeOf(field.type, lineage.resolveRef))) lost.push({ keys: [...object[side].slice(holder[side].length), name], type: field.type })
    }
  }
  return lost.length === 1 ? lost[0] : undefined
}

/**
 * An object moved whole (`types`: the source's schema, and the derived field's: that schema or a union with it as a
 * member; an old `card`, now HEAD's `paymentMethod` when it is a card), with the values it holds, followed from the
 * example's place to the other as any object's ({@link followedValues}). Where the example holds the derived field,
 * only a value of that member is the object moved (a bank account has no old place).
 */
function movedWhole (lineage: Lineage, example: unknown, { from, to, holder, types, derivedHere }: { from: PathKey[], to: PathKey[], holder: number, types: readonly [unknown, unknown], derivedHere: boolean }): FollowedValue[] {
  const { generation, resolveRef } = lineage
  // A schema by its seed (the same schema at every level), else by itself (one no instruction changes).
  const headOf = (schema: unknown): TSchema | undefined => {
    const node = asNode(schema, resolveRef) as TSchema | undefined
    return node === undefined ? undefined : generation.seedOf(node)?.head ?? node
  }
  const head = headOf(types[0])
  const derived = asNode(types[1], resolveRef)
  const members = (derived?.anyOf ?? derived?.oneOf ?? [derived]) as unknown[]
  if (head === undefined || !members.some((member) => headOf(member) === head)) return []
  const value = valueAt(example, from)
  if (derivedHere && headOf(readingNode(derived as NonNullable<typeof derived>, value, resolveRef, { generation, level: lineage.from })) !== head) return []
  const held = followedValues(lineage, head, value, true).map((at) => ({ ...at, from: [...from, ...at.from], to: [...to, ...at.to] }))
  const moved: MovedValue = { from, to, sameType: true, holder }
  return [moved, ...held]
}
