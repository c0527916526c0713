/**
 * The units a schema states in words, for `verify` (./verify-units.ts): a small vocabulary read from a number's or
 * string's `description` (and its `format`), and how a value in one unit reads in another (decision
 * [0339](../../docs/decisions/0339-verify-checks-a-numbers-unit.md)). Words it does not know, or that name two units, state none.
 * @module
 */
import type { JsonSchema } from '../values/examples'

/**
 * A unit a schema states: a time (Unix time or a duration in `seconds` or `milliseconds`, an ISO 8601 `date-time` or
 * `date`) or an amount of money (`minor` units, cents; `major`, currency units). `unix` is true for a point in time
 * counted from the Unix epoch (only such a number converts to and from an ISO time).
 */
export type Unit =
  | { readonly kind: 'time', readonly name: 'seconds' | 'milliseconds', readonly unix: boolean }
  | { readonly kind: 'time', readonly name: 'date-time' | 'date', readonly unix: true }
  | { readonly kind: 'money', readonly name: 'minor' | 'major' }

/** Words of milliseconds, and of seconds (plural: `per second`, `the second line` are no unit). */
const [MS_WORD, S_WORD] = [/\b(milliseconds?|millis|ms)\b/, /\bseconds\b/]
/** A number stated in seconds or milliseconds: `in seconds`, `milliseconds since the epoch`, `epoch ms`. */
const [MS_PHRASE, S_PHRASE] = [/\b(in|as) (unix )?(milliseconds|ms)\b|\b(milliseconds|ms) (since|from|after)\b|\bepoch (milliseconds|ms)\b/, /\b(in|as) (unix )?seconds\b|\bseconds (since|from|after)\b|\bepoch seconds\b/]
/** A point in time counted from the Unix epoch. */
const UNIX = /\bunix\b|\bepoch\b/
/** Amounts in the smallest currency unit; matched first and taken out of the text before {@link MAJOR} is read. */
const MINOR = /\b(in|as) (integer )?cents\b|\b(in )?(the )?(smallest|minor) (currency )?units?\b|\bhundredths of (a|the) currency unit\b/g
/** Amounts in currency units: `in currency units`, `in major units`, `decimal`. */
const MAJOR = /\bin (the )?(currency|major) units?\b|\bdecimal\b/

/** The JSON types a node takes besides `null` (`integer` kept apart from `number`). */
function typesOf (node: JsonSchema): string[] {
  const type = node.type
  return (Array.isArray(type) ? type : typeof type === 'string' ? [type] : []).filter((name): name is string => typeof name === 'string' && name !== 'null')
}

/** The time a number states in its words: seconds or milliseconds, Unix time or not; `undefined` where none, or both. */
function timeOf (text: string): Unit | undefined {
  const [ms, s, unix] = [MS_WORD.test(text), S_WORD.test(text), UNIX.test(text)]
  if (ms && s) return undefined
  if (MS_PHRASE.test(text) || (unix && ms)) return { kind: 'time', name: 'milliseconds', unix }
  // Unix time is counted in seconds where no word says otherwise.
  if (S_PHRASE.test(text) || (unix && !ms && /\bunix (time|timestamp)\b|\bepoch\b/.test(text))) return { kind: 'time', name: 'seconds', unix }
  return undefined
}

/** The money unit the words state: `minor` (cents), `major` (currency units); `undefined` where none, or both. */
function moneyOf (text: string): Unit | undefined {
  const rest = text.replace(MINOR, ' ')
  const [minor, major] = [rest !== text, MAJOR.test(rest)]
  return minor === major ? undefined : { kind: 'money', name: minor ? 'minor' : 'major' }
}

/**
 * The unit a schema node (its `$ref`s resolved, a nullable union's member chosen) states: a string of `format`
 * `date-time` or `date` is a time; a number's (or a string's) `description`, lower-cased, may state a time or an
 * amount. `undefined` where the words state no unit, both a time and an amount, or two of one.
 * @example
 * ```ts
 * unitOf({ type: 'integer', description: 'Unix time, in seconds.' }) // { kind: 'time', name: 'seconds', unix: true }
 * unitOf({ type: 'number', description: 'In currency units.' })     // { kind: 'money', name: 'major' }
 * unitOf({ type: 'integer', description: 'The second attempt.' })   // undefined
 * ```
 */
export function unitOf (node: JsonSchema): Unit | undefined {
  const types = typesOf(node)
  const text = typeof node.description === 'string' ? node.description.toLowerCase() : ''
  if (types.length !== 1) return undefined
  if (types[0] === 'string' && (node.format === 'date-time' || node.format === 'date')) return { kind: 'time', name: node.format, unix: true }
  const [time, money] = [types[0] === 'string' ? undefined : timeOf(text), moneyOf(text)]
  return time !== undefined && money !== undefined ? undefined : time ?? money
}

/** Whether a value in `from` can be told in `to`: two units of one kind, a number of seconds and an ISO time only for Unix time. */
export function convertible (from: Unit, to: Unit): boolean {
  if (from.kind !== to.kind || from.name === to.name) return false
  if (from.kind === 'money') return true
  const iso = (unit: Unit): boolean => unit.name === 'date-time' || unit.name === 'date'
  return iso(from) === iso(to) || ('unix' in from && 'unix' in to && from.unix && to.unix)
}

/** Milliseconds (times) or cents (money) in one of a unit, and the width of what a converter may round away: one of the unit (a UTC day either way for a date). */
const SCALE: Readonly<Record<Unit['name'], { readonly one: number, readonly slack: number }>> = {
  seconds: { one: 1000, slack: 1000 },
  milliseconds: { one: 1, slack: 1 },
  'date-time': { one: 1, slack: 1000 },
  date: { one: 1, slack: 2 * 86_400_000 },
  minor: { one: 1, slack: 1 },
  major: { one: 100, slack: 100 }
}

/** A value as a count of milliseconds or cents: a number, a number written as decimal text, a time as ISO text; `undefined` where it is none. */
function amountOf (unit: Unit, value: unknown): number | undefined {
  if (unit.name === 'date-time' || unit.name === 'date') {
    const time = typeof value === 'string' ? Date.parse(value) : NaN
    return Number.isFinite(time) ? time : undefined
  }
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^-?[0-9]+([.][0-9]+)?$/.test(value.trim()) ? Number(value) : NaN
  return Number.isFinite(number) ? number * SCALE[unit.name].one : undefined
}

/** What the value `value` in `from` reads as in `to`, as `node` (of `to`) writes it: a whole number where it is an integer, text where a string. */
function dueIn (to: Unit, node: JsonSchema, amount: number): unknown {
  if (to.name === 'date-time' || to.name === 'date') {
    if (Math.abs(amount) > 8.64e15) return undefined
    const text = new Date(amount).toISOString()
    return to.name === 'date' ? text.slice(0, 10) : text
  }
  // Rounded to nine places: 1999 cents are 19.99, not 19.990000000000002.
  const exact = Math.round(amount / SCALE[to.name].one * 1e9) / 1e9
  const whole = typesOf(node)[0] === 'integer' ? Math.floor(exact) : exact
  return typesOf(node)[0] === 'string' ? String(whole) : whole
}

/**
 * A value converted between two units, judged: `undefined` where either value is no amount of its unit (`null`, a
 * value of another type) or the converted one tells the same amount (within one of `to`'s unit: a converter may
 * floor, round or truncate to it); otherwise what it should have been, as `toNode` writes it.
 * @example
 * ```ts
 * const [ms, s] = [unitOf({ type: 'integer', description: 'Unix time, in milliseconds.' }), unitOf({ type: 'integer', description: 'Unix time, in seconds.' })]
 * misconverted({ from: ms, to: s, toNode: { type: 'integer' } }, 978307267123, 978307267)      // undefined
 * misconverted({ from: ms, to: s, toNode: { type: 'integer' } }, 978307267123, 978307267123)   // { due: 978307267 }
 * ```
 */
export function misconverted (units: { from: Unit, to: Unit, toNode: JsonSchema }, value: unknown, converted: unknown): { due: unknown } | undefined {
  const [sent, arrived] = [amountOf(units.from, value), amountOf(units.to, converted)]
  if (sent === undefined || arrived === undefined) return undefined
  const tolerance = SCALE[units.to.name].slack + Math.abs(sent) * 1e-9
  return Math.abs(arrived - sent) < tolerance ? undefined : { due: dueIn(units.to, units.toNode, sent) }
}

/**
 * A unit in words, for findings: `Unix time in seconds`, `milliseconds`, `an ISO 8601 time`, `cents`, `currency units`.
 * @example
 * ```ts
 * unitWords({ kind: 'money', name: 'minor' }) // 'cents (the smallest currency unit)'
 * ```
 */
export function unitWords (unit: Unit): string {
  switch (unit.name) {
    case 'date-time': return 'an ISO 8601 time'
    case 'date': return 'an ISO 8601 date'
    case 'minor': return 'cents (the smallest currency unit)'
    case 'major': return 'currency units'
    default: return unit.unix ? `Unix time in ${unit.name}` : unit.name
  }
}
