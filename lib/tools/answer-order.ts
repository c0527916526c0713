/**
 * The order of the lists `replay --handlers` compares (./handler-answers.ts): items matched by what they are, not by
 * where they are. An item is known by the recorded ids it holds (an application's own turned back into the recorded
 * ones) when every item of the list holds others; otherwise by its whole value, its strings turned back. Two fresh
 * applications answering a list's items in two orders tell that the handlers do not decide its order (a hash, a random
 * id): it is left out on the route and its items compared one by one. Both in one order and the record in another,
 * the order changed, unless only items alike at the field both orders are sorted by moved
 * (docs/decisions/0308-replay-judges-a-lists-order.md).
 * @module
 */
import { pointerSegment } from '../core/json-schema'
import type { IdsInStrings } from './ids-in-strings'

/** What an application's replay learned of ids so far: recorded → its own, its own → recorded, and inside strings. */
interface Known {
  readonly ids: ReadonlyMap<string, string>
  readonly back: ReadonlyMap<string, string>
  readonly outside: Pick<IdsInStrings, 'replace'>
}

/**
 * How one side's strings read as recorded: the recorded id one stands for, and its text with its ids turned back;
 * `made`, the strings of its answer made anew that no id learned yet turns back (./handler-replay.ts learning ids).
 */
interface Side {
  readonly id: (text: string) => string | undefined
  readonly text: (text: string) => string
  readonly made?: ReadonlySet<string>
}

/** The record's side: its ids are those an application learned. */
export function recordedSide (played: Known, made?: ReadonlySet<string>): Side {
  return { id: (text) => played.ids.has(text) ? text : undefined, text: (text) => text, made }
}

/** An application's side: its ids turned back into the recorded ones. */
export function playedSide (played: Known, made?: ReadonlySet<string>): Side {
  return { id: (text) => played.back.get(text), text: (text) => played.back.get(text) ?? played.outside.replace(text).text, made }
}

/**
 * The strings an answer's bodies make anew: those the record holds and neither application's answer does, and those
 * each application's holds and the other's does not (the ids a list shows first, each application's own).
 * @example
 * ```ts
 * madeAnew({ id: 'a1', text: 'milk' }, [{ id: 'b1', text: 'milk' }, { id: 'c1', text: 'milk' }])
 * // [Set {'a1'}, [Set {'b1'}, Set {'c1'}]]
 * ```
 */
export function madeAnew (recorded: unknown, answered: readonly [unknown, unknown]): [ReadonlySet<string>, [ReadonlySet<string>, ReadonlySet<string>]] {
  const [left, right, record] = [answered[0], answered[1], recorded].map((body) => { const found = new Set<string>(); eachString(body, (text) => found.add(text)); return found })
  const only = (held: ReadonlySet<string>, ...others: Array<ReadonlySet<string>>): Set<string> => new Set([...held].filter((text) => others.every((other) => !other.has(text))))
  return [only(record, left, right), [only(left, right), only(right, left)]]
}

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Every string of a value, in order. */
function eachString (value: unknown, found: (text: string) => void): void {
  if (typeof value === 'string') found(value)
  else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) eachString(item, found)
}

/** A value with its strings read as recorded (`masked`: those its side made anew as one placeholder). */
function asRecorded (value: unknown, side: Side, masked = false): unknown {
  if (typeof value === 'string') return masked && side.made?.has(value) === true ? '\u0000made' : side.text(value)
  if (Array.isArray(value)) return value.map((item) => asRecorded(item, side, masked))
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, asRecorded(item, side, masked)]))
  return value
}

/** Each item's recorded ids, when every item holds some and no two the same; otherwise `undefined`. */
function byIds (items: readonly unknown[], side: Side): string[] | undefined {
  const keys = items.map((item) => {
    const held = new Set<string>()
    eachString(item, (text) => { const id = side.id(text); if (id !== undefined) held.add(id) })
    return JSON.stringify([...held].sort())
  })
  return keys.includes('[]') || new Set(keys).size < keys.length ? undefined : keys
}

/**
 * For each item of `target`, the index of the item of `items` that is the same one; `undefined` when they are not the
 * same items. Items holding no id known yet are known by their whole value; failing that, where the sides tell what
 * they made anew, by what they hold beside it (a list showing its items' ids first: a user's addresses).
 */
function matching (target: readonly unknown[], items: readonly unknown[], sides: readonly [Side, Side]): number[] | undefined {
  const ids = [byIds(target, sides[0]), byIds(items, sides[1])]
  if (ids[0] !== undefined && ids[1] !== undefined) return matchingKeys(ids[0], ids[1])
  const keys = (masked: boolean): [string[], string[]] => [target.map((item) => JSON.stringify(asRecorded(item, sides[0], masked))), items.map((item) => JSON.stringify(asRecorded(item, sides[1], masked)))]
  return matchingKeys(...keys(false)) ?? (sides[0].made === undefined || sides[1].made === undefined ? undefined : matchingKeys(...keys(true)))
}

/** For each key of `wanted`, the index of the same key in `held` (each taken once, in turn); `undefined` when one is missing. */
function matchingKeys (wanted: readonly string[], held: readonly string[]): number[] | undefined {
  // Each key's places in `held`, taken in turn: one pass over each list.
  const places = new Map<string, { at: number[], next: number }>()
  held.forEach((key, at) => {
    const found = places.get(key)
    if (found === undefined) places.set(key, { at: [at], next: 0 })
    else found.at.push(at)
  })
  const order: number[] = []
  for (const key of wanted) {
    const found = places.get(key)
    if (found === undefined || found.next === found.at.length) return undefined
    order.push(found.at[found.next++])
  }
  return order
}

/**
 * `value` (an application's answer) with each list holding `target`'s items in another order put in `target`'s order,
 * where `moved` (told the list's pointer, for each of `target`'s items the index it has in `value`, and `value`'s
 * list) says so.
 * @example
 * ```ts
 * inOrderOf(['a', 'b'], ['b', 'a'], [side, side], () => true) // ['a', 'b']
 * ```
 */
export function inOrderOf (
  target: unknown, value: unknown, sides: readonly [Side, Side], moved: (pointer: string, order: readonly number[], answered: readonly unknown[]) => boolean, pointer = ''
): unknown {
  if (Array.isArray(target) && Array.isArray(value)) {
    const order = target.length === value.length && target.length > 1 ? matching(target, value, sides) : undefined
    const reordered = order !== undefined && order.some((index, at) => index !== at) && moved(pointer, order, value) ? order.map((index) => value[index] as unknown) : value
    return reordered.map((item, index) => inOrderOf(target[index], item, sides, moved, `${pointer}/${index}`))
  }
  if (isRecord(target) && isRecord(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, Object.hasOwn(target, key) ? inOrderOf(target[key], item, sides, moved, `${pointer}/${pointerSegment(key)}`) : item]))
  }
  return value
}

/** True when `values` never go down (`1`) or never go up (`-1`). */
function sorted (values: ReadonlyArray<string | number>, direction: 1 | -1): boolean {
  return values.every((value, index) => index === 0 || (value === values[index - 1] || (value > values[index - 1]) === (direction === 1)))
}

/**
 * True when the recorded items (`items`) and the same items in the `order` an application answers them (for each
 * recorded item, its index in the answer) are both sorted the same way by a field that tells some of them apart: only
 * items alike there moved, a tie the handlers' sort leaves to the store.
 * @example
 * ```ts
 * onlyTies([{ day: 2, n: 'a' }, { day: 1, n: 'b' }, { day: 1, n: 'c' }], [0, 2, 1]) // true: b and c share a day
 * ```
 */
export function onlyTies (items: readonly unknown[], order: readonly number[]): boolean {
  if (!items.every(isRecord)) return false
  const answered = order.map((at, index) => [at, index] as const).sort((one, other) => one[0] - other[0]).map(([, index]) => items[index] as Record<string, unknown>)
  return Object.keys(items[0] as Record<string, unknown>).some((key) => {
    const [before, now] = [fieldValues(items as ReadonlyArray<Record<string, unknown>>, key), fieldValues(answered, key)]
    if (before === undefined || now === undefined || new Set(before).size < 2) return false
    return ([1, -1] as const).some((direction) => sorted(before, direction) && sorted(now, direction))
  })
}

/** The values of items' field `key`, when all are strings or all numbers. */
function fieldValues (items: ReadonlyArray<Record<string, unknown>>, key: string): Array<string | number> | undefined {
  const found = items.map((item) => item[key])
  return found.every((held) => typeof held === 'string') || found.every((held) => typeof held === 'number') ? found as Array<string | number> : undefined
}

/**
 * A field that sorts the recorded items (`items`) and, the same way, an application's list as it answered them
 * (`answered`, by its own values), where it gave two items one value (made within one tick of its clock): if the
 * handlers sort by it, the order of items alike there is the store's, not the handlers'.
 * @example
 * ```ts
 * tiedIn([{ created: 2 }, { created: 1 }], [{ created: 9 }, { created: 9 }]) // 'created'
 * ```
 */
export function tiedIn (items: readonly unknown[], answered: readonly unknown[]): string | undefined {
  if (!items.every(isRecord) || answered.length !== items.length || !answered.every(isRecord)) return undefined
  return Object.keys(items[0] as Record<string, unknown>).find((key) => {
    const [before, now] = [fieldValues(items as ReadonlyArray<Record<string, unknown>>, key), fieldValues(answered as ReadonlyArray<Record<string, unknown>>, key)]
    if (before === undefined || now === undefined || new Set(before).size < 2 || new Set(now).size === now.length) return false
    return ([1, -1] as const).some((direction) => sorted(before, direction) && sorted(now, direction))
  })
}

/**
 * Short names of a list's items in the recorded order and in the `order` answered: the values of the first field whose
 * recorded values tell every item apart (ids last), else their places (`#1`).
 * @example
 * ```ts
 * orderNames([{ name: 'Pen' }, { name: 'Ink' }], [1, 0], new Set()) // [['Pen', 'Ink'], ['Ink', 'Pen']]
 * ```
 */
export function orderNames (items: readonly unknown[], order: readonly number[], ids: ReadonlySet<string>): [readonly unknown[], unknown[]] {
  const distinct = (names: readonly unknown[]): boolean => names.every((name) => typeof name === 'string' || typeof name === 'number') && new Set(names).size === names.length
  const fields = isRecord(items[0]) ? Object.keys(items[0]) : []
  const candidates = [items, ...fields.map((key) => items.map((item) => isRecord(item) ? item[key] : undefined))].filter(distinct)
  const names = candidates.find((list) => !list.some((name) => typeof name === 'string' && ids.has(name))) ?? candidates[0] ?? items.map((_, index) => `#${index + 1}`)
  const answered = new Array<unknown>(items.length)
  order.forEach((at, index) => { answered[at] = names[index] })
  return [names, answered]
}
