/**
 * The values a version change moves between two objects, for `verify` (docs/decisions/0277-verify-follows-a-moved-value.md):
 * a field one level has in an object (a customer's `city`, brought back by `formerField(...).existedAs`) and the other
 * level has in an object that one holds (`address.city`, declared `derivedFrom({ schema, field })`: decisions 0259,
 * 0263) is the same value, moved, where the derived field is set from that one field alone and it sets no other. Its
 * value is followed to the other place, as a renamed field's is (./data-flow.ts): one way it must arrive (an old
 * client's `''` too), on a round trip come back equal. A move into an object held deeper, through a list or a union, or
 * where the holder holds the object in more than one field and `through` names none, is not followed, nor a field
 * derived from an object or holding one (an address flattened into its city: another value).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { SchemaGeneration } from '../schemas/generation'
import { asNode, fieldsAt, followedValues, jsonTypeOf, schemaAt, valueAt, type FollowedValue, type PathKey, type RefResolver } from './data-flow'
import { formatsOf, typesBesideNull } from './places-there'

/** A moved value followed: `holder`, the length of the path (at the other level) of the object holding both places. */
export type MovedValue = FollowedValue & { readonly holder: number }

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

/**
 * The values of an example (at level `lineage.from`, of the HEAD schema `headSchema`) followed to level `lineage.to`
 * ({@link followedValues}, retyped fields as a whole), with the values moved between two objects there.
 * @example
 * ```ts
 * followedWithMoves({ generation, resolveRef, from: 1, to: 0 }, Customer, { name: 'Ada', city: '', address: { line1: 'x' } })
 * // [..., { from: ['city'], to: ['address', 'city'], sameType: true, holder: 0 }]
 * ```
 */
export function followedWithMoves (lineage: Parameters<typeof followedValues>[0], headSchema: unknown, example: unknown): FollowedValue[] {
  const followed = followedValues(lineage, headSchema, example, true)
  const moves = movesIn(lineage.generation)
  if (moves.size === 0 || lineage.from === lineage.to) return followed
  const holders: Array<{ from: readonly PathKey[], to: readonly PathKey[] }> = [{ from: [], to: [] }, ...followed.filter(({ from, sameType }) => {
    const value = valueAt(example, from)
    return sameType && typeof value === 'object' && value !== null && !Array.isArray(value)
  })]
  const moved: FollowedValue[] = []
  for (const holder of holders) {
    const node = schemaAt(headSchema, example, holder.from, lineage.resolveRef)
    const seed = node === undefined ? undefined : lineage.generation.seedOf(node as TSchema)
    if (seed !== undefined) moved.push(...movedFrom(lineage, moves, seed.head, example, holder))
  }
  return moved.length === 0 ? followed : [...followed, ...moved]
}

/** The values moved out of or into an object (`holder`, of seed `head`), from its fields or those of an object it holds. */
function movedFrom (lineage: Levels, moves: ReadonlyMap<number, Move>, head: TSchema, example: unknown,
  holder: { from: readonly PathKey[], to: readonly PathKey[] }): MovedValue[] {
  const { generation, resolveRef } = lineage
  const [here, there] = [lineage.from, lineage.to].map((level) => fieldsAt(generation, head, level))
  const found: MovedValue[] = []
  for (const move of moves.values()) {
    // The source is in the holder on the side the derived field is not; either side may be the example's.
    const [sourceHere, sourceThere] = [here, there].map((fields) => fields.find(({ field }) => field.id === move.source))
    if ((sourceHere === undefined) === (sourceThere === undefined)) continue
    const nested = (fields: typeof here, level: number): { keys: PathKey[], type: unknown } | undefined => {
      const via = move.through === undefined ? undefined : fields.find(({ field }) => field.id === move.through)
      const inner = via === undefined ? head : generation.seedOf(asNode(via.field.type, resolveRef) as TSchema)?.head
      const derived = inner === undefined || (move.through !== undefined && via === undefined) ? undefined : fieldsAt(generation, inner, level).find(({ field }) => field.id === move.derived)
      return derived === undefined ? undefined : { keys: [...via === undefined ? [] : [via.key], derived.key], type: derived.field.type }
    }
    const source = sourceHere ?? sourceThere
    const derived = sourceHere !== undefined ? nested(there, lineage.to) : nested(here, lineage.from)
    if (source === undefined || derived === undefined || (sourceHere !== undefined ? nested(here, lineage.from) : nested(there, lineage.to)) !== undefined) continue
    const [from, to] = sourceHere !== undefined
      ? [[...holder.from, sourceHere.key], [...holder.to, ...derived.keys]]
      : [[...holder.from, ...derived.keys], [...holder.to, source.key]]
    if (valueAt(example, from) === undefined) continue
    const nodeOf = (schema: unknown): ReturnType<typeof asNode> => asNode(schema, resolveRef)
    const types = [source.field.type, derived.type].map((type) => jsonTypeOf(type, resolveRef))
    // A field derived from an object (an address flattened), or an object derived from a field, holds another value.
    if (types.some((type) => /\b(?:object|any)\b/.test(type))) continue
    const { alike, nullOnly } = typesBesideNull(types[0], types[1])
    const sameType = alike && formatsOf(source.field.type, nodeOf) === formatsOf(derived.type, nodeOf)
    found.push({ from, to, sameType, ...(sameType && nullOnly ? { nullOnly } : {}), holder: holder.to.length })
  }
  return found
}
