/**
 * The lists of `verify`'s round trips (./verify-trips.ts): a list a client sent must come back with as many items,
 * and every plain item (a string, number, flag or `null`) among them, in any order (a version may list in another
 * order: docs/decisions/0072-verify-compares-every-value.md). The values inside the items are compared by place
 * (./value-comparison.ts), once each item returned is put where the item sent holding its values was
 * ({@link inSentOrder}: docs/decisions/0262-round-trip-items-in-any-order.md); what that cannot see is an item that never reached HEAD (`filter(Boolean)` dropping `0`,
 * `''`, `false`, `null`): HEAD's echo holds no place for it. Items that need not come back are not counted: one
 * holding an enum member HEAD lacks (a converter maps it or leaves it out), or one HEAD holds with a member the
 * version lacks. Where HEAD's list takes no duplicates (`uniqueItems`), equal items may come back as one: the schema
 * says that a converter merges them (docs/decisions/0253-verify-round-trips-count-list-items.md).
 * @module
 */
import { valueAt, type FollowedValue, type PathKey } from './data-flow'
import { changedValue, sameValue, shown } from './value-comparison'

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

/**
 * The indices of the items each list holds that `followed` follows (by their `from`), by the list's path (as JSON):
 * built once per round trip, as a body of thousands of values holds hundreds of lists.
 */
function followedItems (followed: readonly FollowedValue[]): (list: readonly PathKey[]) => ReadonlySet<number> {
  const byList = new Map<string, Set<number>>()
  for (const { from } of followed) {
    const index = from[from.length - 1]
    if (typeof index !== 'number') continue
    const list = JSON.stringify(from.slice(0, -1))
    let indices = byList.get(list)
    if (indices === undefined) byList.set(list, indices = new Set())
    indices.add(index)
  }
  const none: ReadonlySet<number> = new Set()
  return (list) => byList.get(JSON.stringify(list)) ?? none
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
  const [upItems, downItems] = [followedItems(trip.up), followedItems(trip.down)]
  for (const at of trip.up) {
    const list = valueAt(trip.sent, at.from)
    const there = trip.echoed.has(JSON.stringify(at.to)) ? downOf.get(JSON.stringify(at.to)) : undefined
    const back = there === undefined ? undefined : valueAt(trip.returned, there.to)
    const head = valueAt(trip.head, at.to)
    if (!at.sameType || there?.sameType !== true || !Array.isArray(list) || !Array.isArray(back) || !Array.isArray(head)) continue
    const unique = trip.unique(at.to)
    const items = [...upItems(at.from)].map((index) => list[index])
    // Items HEAD holds that the version cannot show (an enum member it lacks) need not come back.
    const hidden = head.length - downItems(at.to).size
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

/** True when `path` starts with `prefix`. */
function startsWith (path: readonly PathKey[], prefix: readonly PathKey[]): boolean {
  return path.length > prefix.length && prefix.every((key, at) => path[at] === key)
}

/**
 * `returned` (a copy) with the items of every list of `compared` (the values followed from `sent`) put in the order
 * they were sent: each item sent, those holding the most values first, takes the first item returned whose followed
 * values are all equal to its own, the others keep their order. A version may list in another order (a converter sorting on purpose); the values of
 * each item are then compared by place (./value-comparison.ts), and an item sent that none matches still differs.
 * @example
 * ```ts
 * inSentOrder(compared, { amounts: [3, 1] }, { amounts: [1, 3] }) // { amounts: [3, 1] }
 * ```
 */
export function inSentOrder (compared: readonly FollowedValue[], sent: unknown, returned: unknown): unknown {
  const holder = { value: structuredClone(returned) }
  const lists = compared.filter((at) => at.sameType && Array.isArray(valueAt(sent, at.from))).sort((a, b) => a.from.length - b.from.length)
  for (const list of lists) {
    const [items, back] = [valueAt(sent, list.from), valueAt(holder.value, list.to)]
    if (!Array.isArray(items) || !Array.isArray(back)) continue
    const inside = compared.filter((at) => startsWith(at.from, list.from) && startsWith(at.to, list.to) && at.from[list.from.length] === at.to[list.to.length])
    const byItem = new Map<PathKey, FollowedValue[]>()
    for (const at of inside) {
      const item = at.from[list.from.length]
      const values = byItem.get(item)
      if (values === undefined) byItem.set(item, [at])
      else values.push(at)
    }
    const free = back.map((_, index) => index)
    const matched = new Array<number | undefined>(items.length)
    // The items holding the most values first: one holding fewer (a line without its optional note) would take an
    // item holding those and more, leaving that one's sent item none (a reversed list reported as losing values).
    const valuesOf = (index: number): FollowedValue[] => byItem.get(index) ?? []
    const held = items.map((_, index) => valuesOf(index).filter((at) => valueAt(sent, at.from) !== undefined).length)
    for (const index of items.map((_, at) => at).sort((one, other) => held[other] - held[one] || one - other)) {
      const found = free.find((other) => changedValue(valuesOf(index).map((at) => ({ ...at, from: at.from.slice(list.from.length), to: [other, ...at.to.slice(list.to.length + 1)] })), items, back) === undefined)
      if (found !== undefined) free.splice(free.indexOf(found), 1)
      matched[index] = found
    }
    const ordered = matched.map((index) => index ?? free.shift()).filter((index) => index !== undefined).concat(free).map((index) => back[index])
    const parent = valueAt(holder.value, list.to.slice(0, -1))
    if (list.to.length === 0) holder.value = ordered
    else if (typeof parent === 'object' && parent !== null) Object.defineProperty(parent, list.to[list.to.length - 1], { value: ordered, enumerable: true, writable: true, configurable: true })
  }
  return holder.value
}
