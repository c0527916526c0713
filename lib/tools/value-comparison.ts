/**
 * How `verify` compares a value with what arrives of it (docs/decisions/0072-verify-compares-every-value.md). One
 * way (a request up to HEAD, a response down to a version) a value may be converted (units, representations), so
 * only what is lost for certain is reported: a value followed to its counterpart (./data-flow.ts) that arrives
 * absent, or `null` where it was not (a retyped field's: absent, where it held something; an integer past 2^53 written
 * as text, arriving as another number). A round trip comes back to the version it left, so every value followed
 * there must come back equal (numbers to a relative 1e-9: a unit converted and back may differ in its last bits).
 * @module
 */
import { pointerOfPath, valueAt, type FollowedValue, type PathKey } from './data-flow'
import type { MovedValue } from './moved-values'
import { shownValue } from './document-places'
import { keptChange, normalizationChanged, type Kept } from './renamed-values'
import { emptyPartJoined, joinedChanges, JOIN_FIX } from './joined-parts'
import type { JoinedValue } from './moved-values'
import { patternOf } from '../values/string-examples'

/**
 * A value as a finding shows it: as `check` shows values (a string quoted, long values cut at 60 characters, made
 * printable), with the length of a long string (a string cut shows as cut).
 * @example
 * ```ts
 * shown('zq000001 Łódź')   // "'zq000001 Łódź'"
 * shown('q'.repeat(1000)) // "'qqqq… (1000 characters)"
 * ```
 */
export function shown (value: unknown): string {
  const text = shownValue(value)
  return typeof value === 'string' && text.endsWith('…') && !value.endsWith('…') ? `${text} (${[...value].length} characters)` : text
}

/** A difference found: the followed value, and what became of it (`is dropped`, `arrives as null`, `comes back as 12`). */
interface Difference {
  readonly at: FollowedValue
  readonly value: unknown
  readonly became: string
  /** What to do, where the converter's usual fix would not say it. */
  readonly fix?: string
}

/** An integer as a `BigInt` (a number's exact value), or `undefined` for anything else. */
function exactInteger (value: unknown): bigint | undefined {
  return typeof value === 'bigint' ? value : typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : undefined
}

/** True for an integer written as text that a number cannot hold exactly (past 2^53: an id sent as a string). */
function unsafeIntegerText (value: unknown): value is string {
  return typeof value === 'string' && /^-?[0-9]{16,}$/.test(value) && !Number.isSafeInteger(Number(value))
}

/**
 * True when the parent of `at` is an object or array in `data` (else its own difference was found first, or it was
 * retyped); for a value moved into an object (./moved-values.ts), the object holding both places: the converter moving
 * it makes the one it goes into.
 */
function parentThere (data: unknown, at: FollowedValue): boolean {
  const parent = valueAt(data, at.to.slice(0, 'holder' in at ? (at as MovedValue).holder : -1))
  return typeof parent === 'object' && parent !== null
}

/** What to do about a moved value lost: move every value, both ways. */
function movedFix (at: FollowedValue): { fix?: string } {
  return 'holder' in at
    ? { fix: `Make the converters move the value from ${pointerOfPath(at.from)} to ${pointerOfPath(at.to)} whatever it is ('', 0, false and null too: test that the field is there, not that it is truthy): derivedFrom(...) declares it moved, up in requests and back down in responses.` }
    : {}
}

/**
 * True when each list on the way to the value has as many items on both sides: where a converter filtered one (a
 * union member the version lacks left out), the item at an index is another item, and its values are not compared
 * by place (the strings of the item are still followed wherever they arrive).
 */
function listsAlike (example: unknown, data: unknown, at: FollowedValue): boolean {
  const indices = (path: readonly PathKey[]): number[] => path.flatMap((key, place) => typeof key === 'number' ? [place] : [])
  const [from, to] = [indices(at.from), indices(at.to)]
  return from.length === to.length && from.every((place, index) => {
    const [sent, arrived] = [valueAt(example, at.from.slice(0, place)), valueAt(data, at.to.slice(0, to[index]))]
    return !Array.isArray(sent) || !Array.isArray(arrived) || sent.length === arrived.length
  })
}

/**
 * How many of the items of the lists on the way hold something at `path` (`null` counted only with `nulls`): where a
 * converter reordered a list (a page shown oldest first), a value missing at one index arrived at another, and as many
 * items hold it on both sides.
 */
function itemsHolding (data: unknown, path: readonly PathKey[], nulls: boolean): number {
  const place = path.findIndex((key) => typeof key === 'number')
  if (place === -1) {
    const value = valueAt(data, path)
    return value === undefined || (value === null && !nulls) ? 0 : 1
  }
  const list = valueAt(data, path.slice(0, place))
  return Array.isArray(list) ? list.reduce((count: number, item) => count + itemsHolding(item, path.slice(place + 1), nulls), 0) : 0
}

/** True when `arrived` keeps some of the keys of `value` (an object) and none of the fields the other side declares there. */
function inItsOwnShape (value: unknown, arrived: unknown, fieldsThere: readonly string[]): boolean {
  if (typeof value !== 'object' || value === null || typeof arrived !== 'object' || arrived === null) return false
  return Object.keys(value).some((key) => Object.hasOwn(arrived, key)) && !fieldsThere.some((key) => Object.hasOwn(arrived, key))
}

/** True for a value a retyped field may leave out on the other side: `null`, or an empty string, list or object. */
function nothingToShow (value: unknown): boolean {
  return value === null || value === '' || (typeof value === 'object' && Object.keys(value).length === 0)
}

/** What to do about a renamed field's value that arrives changed. */
const RENAMED_FIX = 'Make the converters carry the whole value to its new name: a rename may convert it (another unit), ' +
  'not lose part of it (a list\'s items, its case, its digits).'

/**
 * The values of `example` (followed to `data`, the other side of a migration) that are lost for certain: their
 * counterpart absent, or `null` where they were not (not their children). List items are not checked by place
 * (lists may legitimately be filtered or reordered); what they hold is. A retyped field's value is converted, so
 * only its absence counts, and only where it held something (one label becomes a list of labels; an empty list
 * may become no label).
 * @example
 * ```ts
 * droppedValues(followed, { memo: '' }, {}) // [{ at: { from: ['memo'], … }, value: '', became: 'is dropped' }]
 * ```
 */
export function droppedValues (followed: readonly FollowedValue[], example: unknown, data: unknown): Difference[] {
  const dropped: Difference[] = []
  for (const at of followed) {
    // A value moved out of a list's items (./moved-values.ts): an item may have no place there.
    const items = (at as MovedValue).items
    if (typeof at.from[at.from.length - 1] === 'number' || items === 'out of' || !parentThere(data, at) || !listsAlike(example, data, at)) continue
    const value = valueAt(example, at.from)
    if (value === undefined || (!at.sameType && (items === undefined ? nothingToShow(value) : value === null)) || (value === null && at.nullOnly === true)) continue
    const arrived = valueAt(data, at.to)
    if ((arrived === undefined || arrived === null) && at.to.some((key) => typeof key === 'number') &&
      itemsHolding(data, at.to, arrived === undefined) >= itemsHolding(example, at.from, arrived === undefined)) continue
    if (arrived === undefined) dropped.push({ at, value, became: 'is dropped', ...movedFix(at) })
    else if (at.fieldsThere !== undefined && inItsOwnShape(value, arrived, at.fieldsThere)) {
      dropped.push({ at, value, became: `arrives in its own shape, holding none of the fields the schema there declares (${at.fieldsThere.join(', ')})`, fix: 'Reshape it in a converter (a wrapper added or removed, fields nested or flattened): as it is, its values are not where the version reads them.' })
    } else if (unsafeIntegerText(value) && typeof arrived === 'number' && exactInteger(arrived) !== BigInt(value)) {
      dropped.push({ at, value, became: `arrives as ${arrived}, rounded`, fix: 'Give the number as a BigInt (BigInt(value)), whose digits Fastify\'s serializer writes: a number past 2^53 (Number.MAX_SAFE_INTEGER) loses them.' })
    } else if (!at.sameType) continue
    else if (arrived === null && value !== null && at.nullOnly !== true) dropped.push({ at, value, became: 'arrives as null' })
  }
  return dropped
}

/**
 * The values of `example` at fields renamed between its level and `data`'s (followed to `data`) that arrive there
 * with part of them lost: a list short of items, a string in another case or with other digits (./renamed-values.ts), a
 * part absent joined to it as `''`; and the strings `joins` joins from several fields or splits, joined or split wrong
 * (./joined-parts.ts).
 * @example
 * ```ts
 * changedRenamed([{ from: ['labels'], to: ['tags'], sameType: true, kept: 'items' }], { labels: [0, 2] }, { tags: [2] }) // [{ …, became: 'arrives as [2], without 0 (1 of its 2 items)' }]
 * ```
 */
export function changedRenamed (followed: readonly FollowedValue[], example: unknown, data: unknown, joins: readonly JoinedValue[] = []): Difference[] {
  const changed: Difference[] = []
  for (const at of followed) {
    const value = at.kept === undefined || typeof at.from[at.from.length - 1] === 'number' ? undefined : valueAt(example, at.from)
    // A text the other level's pattern refuses must be rewritten (HEAD's codes in lower case only): it is not compared.
    if (at.therePattern !== undefined && typeof value === 'string' && patternOf({ pattern: at.therePattern })?.test(value) === false) continue
    const arrived = value === undefined ? undefined : valueAt(data, at.to)
    const became = value === undefined ? undefined : keptChange(at.kept as Kept, value, arrived, shown)
    if (became !== undefined) changed.push({ at, value, became, fix: RENAMED_FIX })
    // A part absent joined to it as '' ([line1, line2].join('\n')): its separator is left (./joined-parts.ts).
    const joined = became !== undefined || at.kept !== 'case' || typeof value !== 'string'
      ? undefined
      : emptyPartJoined(value, arrived, { holder: valueAt(example, at.from.slice(0, -1)), key: at.from[at.from.length - 1] }, shown)
    if (joined !== undefined) changed.push({ at, value, became: joined, fix: JOIN_FIX })
  }
  return [...changed, ...joinedChanges(joins, example, data, shown)]
}

/**
 * True when two JSON values are equal, numbers to a relative 1e-9 (a `BigInt` exactly, to an integer).
 * @example
 * ```ts
 * sameValue({ weight: 12.5 }, { weight: 12.5 * 0.45359237 / 0.45359237 }) // true
 * ```
 */
export function sameValue (left: unknown, right: unknown): boolean {
  if (typeof left === 'bigint' || typeof right === 'bigint') return exactInteger(left) !== undefined && exactInteger(left) === exactInteger(right)
  if (typeof left === 'number' && typeof right === 'number') return Math.abs(left - right) <= 1e-9 * Math.max(Math.abs(left), Math.abs(right))
  if (typeof left !== 'object' || left === null || typeof right !== 'object' || right === null) return left === right
  if (Array.isArray(left) !== Array.isArray(right)) return false
  const keys = Object.keys(left)
  return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) &&
    sameValue((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]))
}

/**
 * The first value of `sent` (followed values: their `from` places) that does not come back equal at its place in
 * `returned` (their `to` places, in the same version): absent, or another value. Objects and lists are compared
 * through what they hold (a list coming back shorter loses its last items); a retyped field as a whole.
 * @example
 * ```ts
 * changedValue([{ from: ['amount'], to: ['amount'], sameType: true }], { amount: 12.37 }, { amount: 12 }) // { at: …, value: 12.37, became: 'comes back as 12' }
 * ```
 */
export function changedValue (followed: readonly FollowedValue[], sent: unknown, returned: unknown): Difference | undefined {
  for (const at of followed) {
    if (!parentThere(returned, at)) continue
    const value = valueAt(sent, at.from)
    if (value === undefined) continue
    const back = valueAt(returned, at.to)
    if (back === undefined) return { at, value, became: 'is dropped', ...movedFix(at) }
    const container = typeof value === 'object' && value !== null && typeof back === 'object' && back !== null && Array.isArray(value) === Array.isArray(back)
    if (container && at.sameType) continue
    if (!sameValue(value, back)) return { at, value, became: `comes back as ${shown(back)}${normalizationChanged(value, back)}` }
  }
  return undefined
}
