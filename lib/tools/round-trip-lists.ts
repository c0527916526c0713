/**
 * The lists of `verify`'s round trips (./verify-trips.ts): a list a client sent must come back with as many items,
 * and every plain item (a string, number, flag or `null`) among them, in any order (a version may list in another
 * order: docs/decisions/0072-verify-compares-every-value.md). The values inside the items are compared by place
 * (./value-comparison.ts); what that cannot see is an item that never reached HEAD (`filter(Boolean)` dropping `0`,
 * `''`, `false`, `null`): HEAD's echo holds no place for it. Items that need not come back are not counted: one
 * holding an enum member HEAD lacks (a converter maps it or leaves it out), or one HEAD holds with a member the
 * version lacks. Where HEAD's list takes no duplicates (`uniqueItems`), equal items may come back as one: the schema
 * says that a converter merges them (docs/decisions/0253-verify-round-trips-count-list-items.md).
 * @module
 */
import { valueAt, type FollowedValue, type PathKey } from './data-flow'
import { sameValue, shown } from './value-comparison'

/** The values of one round trip, at one level, that the lists are counted from. */
interface TripLists {
  /** The request's values followed up to HEAD (`from`: its places; `to`: HEAD's), items included. */
  readonly up: readonly FollowedValue[]
  /** HEAD's echoed response's values followed down (`from`: HEAD's places; `to`: the version's), items included. */
  readonly down: readonly FollowedValue[]
  /** The places of HEAD's response (JSON of their paths) that echo the request. */
  readonly echoed: ReadonlySet<string>
  /** The request as sent, HEAD's echoed response, the response as it came back. */
  readonly sent: unknown
  readonly head: unknown
  readonly returned: unknown
  /** True when HEAD's list at this place takes no duplicates. */
  readonly unique: (path: readonly PathKey[]) => boolean
}

/** A list that came back with items lost, as ./value-comparison.ts reports a difference. */
export interface LostItems {
  readonly at: FollowedValue
  /** The list sent, and the value lost: the first plain item missing, else the list. */
  readonly list: unknown
  readonly value: unknown
  readonly became: string
  readonly fix: string
}

/** The indices of the items of the list at `list` that `followed` follows (by their `from`). */
function followedItems (followed: readonly FollowedValue[], list: readonly PathKey[]): Set<number> {
  const indices = new Set<number>()
  for (const { from } of followed) {
    const index = from[list.length]
    if (from.length === list.length + 1 && typeof index === 'number' && list.every((key, at) => from[at] === key)) indices.add(index)
  }
  return indices
}

/** True for a value that is no object nor list. */
function plain (value: unknown): boolean {
  return typeof value !== 'object' || value === null
}

/** The items of `items` that `back` does not hold as many times (once, with `unique`), each one matched once. */
function missing (items: readonly unknown[], back: readonly unknown[], unique: boolean): unknown[] {
  const left = [...back]
  const lost: unknown[] = []
  const seen: unknown[] = []
  for (const item of items) {
    if (unique && seen.some((other) => sameValue(other, item))) continue
    seen.push(item)
    const at = left.findIndex((other) => sameValue(other, item))
    if (at === -1) lost.push(item)
    else left.splice(at, 1)
  }
  return lost
}

/**
 * The first list of the request that comes back in the response with fewer items than it sent (those that must come
 * back), or without one of its plain items.
 * @example
 * ```ts
 * lostItems({ up, down, echoed, sent: { tags: ['', 'a'] }, head, returned: { tags: ['a'] }, unique: () => false })
 * // { at: …, list: ['', 'a'], value: '', became: "comes back as ['a'], without '' (1 item of 2)", fix: … }
 * ```
 */
export function lostItems (trip: TripLists): LostItems | undefined {
  const downOf = new Map(trip.down.map((value) => [JSON.stringify(value.from), value]))
  for (const at of trip.up) {
    const list = valueAt(trip.sent, at.from)
    const there = trip.echoed.has(JSON.stringify(at.to)) ? downOf.get(JSON.stringify(at.to)) : undefined
    const back = there === undefined ? undefined : valueAt(trip.returned, there.to)
    const head = valueAt(trip.head, at.to)
    if (!at.sameType || there?.sameType !== true || !Array.isArray(list) || !Array.isArray(back) || !Array.isArray(head)) continue
    const unique = trip.unique(at.to)
    const items = [...followedItems(trip.up, at.from)].map((index) => list[index])
    // Items HEAD holds that the version cannot show (an enum member it lacks) need not come back.
    const hidden = head.length - followedItems(trip.down, at.to).size
    const expected = (unique ? missing(items, [], true).length : items.length) - hidden
    const lost = missing(items.filter(plain), back.filter(plain), unique)
    if (lost.length === 0 && back.length >= expected) continue
    const more = lost.length > 3 ? ` and ${lost.length - 3} more` : ''
    const without = lost.length === 0 ? '' : `, without ${lost.slice(0, 3).map((item) => shown(item)).join(', ')}${more}`
    return {
      at: { ...at, to: there.to },
      list,
      value: lost.length === 0 ? list : lost[0],
      became: `comes back as ${shown(back)}${without} (${back.length} of its ${list.length} items)`,
      fix: 'Make the converters keep every item of the list (filter(Boolean) drops 0, \'\', false and null; a check for an empty object drops {}), ' +
        'so that a client\'s list comes back whole; where HEAD\'s list holds no duplicates and a converter merges them on purpose, declare it uniqueItems: true.'
    }
  }
  return undefined
}
