/**
 * The items of a list are alike, for `verify`, and so are a record's entries (a map): where a converter carries one
 * item's value to the other side of a migration, it must carry every item's. This finds a converter that keeps the
 * first item of a list and drops the rest where no field-by-field counterpart says where the items go (the list becomes an internal HEAD field, or a list
 * shaped differently: ./data-flow.ts follows only what has a counterpart). Items are alike when they hold the same
 * kinds of values (the same fields, enum members, flags, signs of numbers: a converter may leave out the items its
 * version cannot show). A version may show one item only: where the value arrived in a single field and the other
 * side has no list of such values to hold the rest, nothing is expected of the others.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { asNode, declaredChildren, followedValues, jsonTypeOf, pointerOfPath, readingNode, schemaAt, valueAt, type FollowedValue, type PathKey, type RefResolver } from './data-flow'
import { arrives } from './sentinel-arrival'
import type { JoinedValue } from './moved-values'
import { pointerSegment } from '../core/json-schema'
import { shown } from './value-comparison'
import { RECORD_KEYS } from './boundary-values'
import type { JsonSchema } from '../values/examples'

/** The free strings of alike items of one list at one place inside an item: each item's sentinel there. */
interface AlikeStrings {
  /** The list's place in the example. */
  readonly list: readonly PathKey[]
  /** The place inside an item. */
  readonly inside: readonly PathKey[]
  /** What an item is (`string`, `object`…), for the lists of the other side that could hold it. */
  readonly itemType: string
  /** Each item's sentinel there (two or more), by the item's index (a record entry's key). */
  readonly items: ReadonlyArray<{ readonly index: PathKey, readonly sentinel: string }>
}

/** The kinds of values an item holds: its fields, enum members and other fixed strings, flags, `null`, signs of numbers. */
function likeness (value: unknown, sentinels: ReadonlyMap<string, string>): string {
  if (typeof value === 'string') return sentinels.has(value) ? 's' : JSON.stringify(value)
  if (typeof value === 'number') return value < 0 ? '-' : value === 0 ? '0' : '+'
  if (Array.isArray(value)) return `[${[...new Set(value.map((item) => likeness(item, sentinels)))].sort().join(',')}]`
  if (typeof value !== 'object' || value === null) return String(value)
  return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${likeness((value as Record<string, unknown>)[key], sentinels)}`).join(',')}}`
}

/** The sentinels an item holds, by their place inside it. */
function stringsOf (item: unknown, sentinels: ReadonlyMap<string, string>): Array<[PathKey[], string]> {
  const found: Array<[PathKey[], string]> = []
  const stack: Array<[unknown, PathKey[]]> = [[item, []]]
  while (stack.length > 0) {
    const [value, path] = stack.pop() as [unknown, PathKey[]]
    if (typeof value === 'string' && sentinels.has(value)) found.push([path, value])
    if (typeof value !== 'object' || value === null) continue
    const keys: PathKey[] = Array.isArray(value) ? value.map((_, index) => index) : Object.keys(value)
    for (const key of keys) stack.push([(value as Record<PathKey, unknown>)[key], [...path, key]])
  }
  return found
}

/**
 * The free strings of the alike items of every list of an example holding two or more of them, but those
 * `followed` (they have a counterpart of their own, and must arrive there).
 * @example
 * ```ts
 * alikeStrings({ to: ['zq01@example.com', 'zq02@example.com'] }, sentinels, new Set())
 * // [{ list: ['to'], inside: [], itemType: 'string', items: [{ index: 0, sentinel: 'zq01@example.com' }, { index: 1, sentinel: 'zq02@example.com' }] }]
 * ```
 */
function alikeStrings (example: unknown, sentinels: ReadonlyMap<string, string>, followed: ReadonlySet<string>): AlikeStrings[] {
  const found: AlikeStrings[] = []
  const stack: Array<[unknown, PathKey[]]> = [[example, []]]
  while (stack.length > 0) {
    const [value, path] = stack.pop() as [unknown, PathKey[]]
    if (typeof value !== 'object' || value === null) continue
    const keys: PathKey[] = Array.isArray(value) ? value.map((_, index) => index) : Object.keys(value)
    for (const key of keys) stack.push([(value as Record<PathKey, unknown>)[key], [...path, key]])
    // A list's items, or a record's entries (a map: generated under RECORD_KEYS), are alike.
    const entries: PathKey[] = Array.isArray(value) ? keys : keys.filter((key) => RECORD_KEYS.includes(key as string))
    if (entries.length < 2) continue
    const groups = new Map<string, PathKey[]>()
    for (const index of entries) {
      const like = likeness((value as Record<PathKey, unknown>)[index], sentinels)
      groups.set(like, [...groups.get(like) ?? [], index])
    }
    for (const indices of groups.values()) {
      const byPlace = new Map<string, { inside: PathKey[], items: Array<{ index: PathKey, sentinel: string }> }>()
      for (const index of indices) {
        for (const [inside, sentinel] of stringsOf((value as Record<PathKey, unknown>)[index], sentinels)) {
          if (followed.has(sentinel)) continue
          const place = JSON.stringify(inside)
          if (!byPlace.has(place)) byPlace.set(place, { inside, items: [] })
          byPlace.get(place)?.items.push({ index, sentinel })
        }
      }
      const first = (value as Record<PathKey, unknown>)[indices[0]]
      const itemType = Array.isArray(first) ? 'array' : first === null ? 'null' : typeof first
      for (const { inside, items } of byPlace.values()) if (items.length >= 2) found.push({ list: path, inside, itemType, items })
    }
  }
  return found
}

/** What the data of one level is: its schema, the data, the strings it delivers, the places of the values followed there. */
interface ItemsAtLevel {
  readonly schema: TSchema
  readonly data: unknown
  readonly delivered: readonly string[]
  readonly byWords: boolean
  /**
   * The places (JSON pointers, items as `*`) the values followed to this level have there (other values' lists), by
   * their places in the example, to ask whether the level could hold every item; `undefined` not to ask (a level between).
   */
  readonly taken: ReadonlyMap<string, string> | undefined
  readonly resolveRef: RefResolver
}

/** The places of the strings of `data` (under the fields `schema` declares) holding `sentinel`, or one of its words. */
function placesOf (at: ItemsAtLevel, sentinel: string): PathKey[][] {
  const wanted = sentinel.toLowerCase()
  const words = wanted.split(' ')
  const whole: PathKey[][] = []
  const partly: PathKey[][] = []
  const stack: Array<[unknown, unknown, PathKey[]]> = [[at.schema, at.data, []]]
  while (stack.length > 0) {
    const [schema, value, path] = stack.pop() as [unknown, unknown, PathKey[]]
    if (typeof value === 'string') {
      const text = value.toLowerCase()
      if (text.includes(wanted)) whole.push(path)
      else if (words.some((word) => text.split(' ').includes(word))) partly.push(path)
    }
    const node = asNode(schema, at.resolveRef)
    if (node === undefined || typeof value !== 'object' || value === null) continue
    for (const [key, sub] of declaredChildren(readingNode(node, value, at.resolveRef), value)) stack.push([sub, (value as Record<PathKey, unknown>)[key], [...path, key]])
  }
  return whole.length > 0 ? whole : partly
}

/** True when `node` holds other keys than it declares in a schema of their own (a record, a map). */
function isRecord (node: JsonSchema | undefined): boolean {
  return typeof node?.additionalProperties === 'object' || (typeof node?.patternProperties === 'object' && node.patternProperties !== null)
}

/** True when a value arrived at `place` inside a list (or a record's entry) of the other side that is no other value's and has room for more. */
function inOpenList (at: ItemsAtLevel, taken: ReadonlySet<string>, place: readonly PathKey[]): boolean {
  return place.some((key, index) => {
    const list = place.slice(0, index)
    if (taken.has(pointerOfPath(list))) return false
    const node = schemaAt(at.schema, at.data, list, at.resolveRef)
    const items = valueAt(at.data, list)
    if (typeof key !== 'number') {
      const declared = typeof node?.properties === 'object' && node.properties !== null && Object.hasOwn(node.properties, key)
      return !declared && isRecord(node) && (typeof node?.maxProperties !== 'number' || Object.keys(items as object).length < node.maxProperties)
    }
    return typeof node?.maxItems !== 'number' || (Array.isArray(items) && items.length < node.maxItems)
  })
}

/** True when the schema declares a list of `itemType` values that is no other value's and may hold `count` of them. */
function declaresListFor (at: ItemsAtLevel, taken: ReadonlySet<string>, itemType: string, count: number): boolean {
  const seen = new Set<unknown>()
  const stack: Array<[unknown, string]> = [[at.schema, '']]
  while (stack.length > 0) {
    const [schema, pointer] = stack.pop() as [unknown, string]
    const node = asNode(schema, at.resolveRef)
    if (node === undefined || seen.has(node) || seen.size > 1000) continue
    seen.add(node)
    for (const member of [...(node.anyOf ?? []) as unknown[], ...(node.oneOf ?? []) as unknown[], ...(node.allOf ?? []) as unknown[]]) stack.push([member, pointer])
    const properties = (typeof node.properties === 'object' && node.properties !== null ? node.properties : {}) as Record<string, unknown>
    for (const [key, sub] of Object.entries(properties)) stack.push([sub, `${pointer}/${pointerSegment(key)}`])
    if (node.items === undefined || Array.isArray(node.items)) continue
    stack.push([node.items, `${pointer}/*`])
    const room = typeof node.maxItems !== 'number' || node.maxItems >= count
    if (room && !taken.has(pointer) && jsonTypeOf(node.items, at.resolveRef).split('|').includes(itemType)) return true
  }
  return false
}

/** How a message names a list's item, or a record's entry. */
function itemName (index: PathKey): string {
  return typeof index === 'number' ? `item ${index}` : `entry ${index}`
}

/** An item whose value does not arrive where another item's does. */
interface UnequalItem {
  /** Where, items as `*` (the same mistake shows at one place, whatever the example). */
  readonly pointer: string
  readonly message: string
  readonly value: string
}

/**
 * The alike strings of which some arrive at a level and others not; with `taken`, only where the level could hold
 * them all: in the list the first one arrived in, or in a list of its own with room.
 * @example
 * ```ts
 * unequalItems(alikeStrings(example, sentinels, followed), { schema, data, delivered, byWords: true, taken, resolveRef })
 * // [{ pointer: '/to/*', message: "'zq02@example.com' (item 1) is found nowhere, where 'zq01@example.com' (item 0) arrives", value: 'zq02@example.com' }]
 * ```
 */
export function unequalItems (groups: readonly AlikeStrings[], at: ItemsAtLevel): UnequalItem[] {
  const found: UnequalItem[] = []
  for (const group of groups) {
    const arrived = group.items.filter((item) => arrives(item.sentinel, at.delivered, at.byWords))
    const lost = group.items.find((item) => !arrived.includes(item))
    if (arrived.length === 0 || lost === undefined) continue
    const kept = arrived[0]
    // The list's own counterpart (a map that was a list: a field retyped) is no other value's.
    const own = at.taken?.get(pointerOfPath(group.list))
    const taken = at.taken === undefined ? undefined : new Set([...at.taken.values()].filter((place) => place !== own))
    if (taken !== undefined && !placesOf(at, kept.sentinel).some((place) => inOpenList(at, taken, place)) &&
      !declaresListFor(at, taken, group.itemType, group.items.length)) continue
    found.push({
      // A record's entries at `*` too, as a list's items (their keys are generated).
      pointer: pointerOfPath([...group.list, typeof lost.index === 'number' ? lost.index : 0, ...group.inside]),
      message: `${shown(lost.sentinel)} (${itemName(lost.index)}) is found nowhere, where ${shown(kept.sentinel)} (${itemName(kept.index)}) arrives`,
      value: lost.sentinel
    })
  }
  return found
}

/** A sentinel that must arrive, and where it was in the example. */
interface RequiredValue {
  readonly sentinel: string
  readonly pointer: string
}

/**
 * The sentinels of an example (at level `from`, of the HEAD schema `headSchema`) that must reach level `to`: those of
 * the values followed there (./data-flow.ts), which leaves out a list item the other level cannot express.
 * @example
 * ```ts
 * requiredValues({ generation, resolveRef, from: 0, to: 1 }, Invoice, { memo: 'zq000001' }, sentinels) // [{ sentinel: 'zq000001', pointer: '/memo' }]
 * ```
 */
export function requiredValues (lineage: Parameters<typeof followedValues>[0], headSchema: unknown, example: unknown, sentinels: ReadonlyMap<string, string>): RequiredValue[] {
  if (sentinels.size === 0) return []
  const required: RequiredValue[] = []
  for (const { from, sameType } of followedValues(lineage, headSchema, example)) {
    const value = sameType ? valueAt(example, from) : undefined
    const pointer = typeof value === 'string' ? sentinels.get(value) : undefined
    if (pointer !== undefined) required.push({ sentinel: value as string, pointer })
  }
  return required
}

/** What must arrive of one part of an example: the example, the sentinels it holds, its values followed to a level. */
export interface Expected {
  readonly example: unknown
  readonly sentinels: readonly RequiredValue[]
  /** The example's other sentinels (of fields added or removed): they need not arrive, but not joined with `undefined` either. */
  readonly unfollowed?: readonly RequiredValue[]
  /** True when a sentinel may arrive word by word, in several strings (one way: a name split into two fields). */
  readonly byWords: boolean
  /** The values of the example followed to `level` (their places there), retyped fields included (as a whole). */
  readonly followedTo: (level: number) => readonly FollowedValue[]
  /** The strings of the example joined from several fields at `level`, or split into several there (./joined-parts.ts). */
  readonly joinedTo?: (level: number) => readonly JoinedValue[]
  /**
   * The free strings of alike list items that have no counterpart of their own (each item's must arrive where
   * another's does), and the level they must reach (where the other side's room for them is known).
   */
  readonly alike?: { readonly strings: readonly AlikeStrings[], readonly to: number }
}

/**
 * Of an example's sentinels, those besides the `required` ones: the ones that need not arrive (of fields added or
 * removed), and the strings of alike list items (which must reach level `to`).
 * @example
 * ```ts
 * const { unfollowed, alike } = otherSentinels(example, requiredValues(lineage, headSchema, example.value, example.sentinels), 0)
 * ```
 */
export function otherSentinels (example: { readonly value: unknown, readonly sentinels: ReadonlyMap<string, string> }, required: readonly RequiredValue[], to: number): Pick<Expected, 'unfollowed' | 'alike'> {
  const followed = new Set(required.map((value) => value.sentinel))
  return {
    unfollowed: [...example.sentinels].filter(([sentinel]) => !followed.has(sentinel)).map(([sentinel, pointer]) => ({ sentinel, pointer })),
    alike: { strings: alikeStrings(example.value, example.sentinels, followed), to }
  }
}
