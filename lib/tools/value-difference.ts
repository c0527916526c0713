/**
 * Where two JSON values differ (`replay`: what was recorded, what the converters give now; `replaceEveryVersion`:
 * a resource before and after a replace), as JSON pointers.
 * A place where either side holds a redacted value (../values/redaction.ts) cannot be compared: it is passed over,
 * and counted.
 * @module
 */
import { pointerSegment } from '../core/json-schema'
import { REDACTED } from '../values/redaction'

/**
 * True for a value redaction replaced, or a string holding one (what replay cannot compare).
 * @example `isRedacted('[redacted]') // true`
 */
export function isRedacted (value: unknown): boolean {
  return typeof value === 'string' && value.includes(REDACTED)
}

/** The first place two values differ, and what each holds there (`undefined`: nothing). */
export interface Difference {
  readonly pointer: string
  readonly recorded: unknown
  readonly replayed: unknown
}

/** What a comparison found: the first difference, if any, and how many places held a redacted value (on either side). */
export interface Comparison {
  readonly difference: Difference | undefined
  readonly redacted: number
}

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The keys of two objects: the recorded one's in its order, then the replayed one's others. */
function keysOf (recorded: Record<string, unknown>, replayed: Record<string, unknown>): string[] {
  const keys = Object.keys(recorded)
  for (const key of Object.keys(replayed)) if (!Object.hasOwn(recorded, key)) keys.push(key)
  return keys
}

/** The differences found so far, how many to find, and how many redacted places were passed over. */
interface Found { readonly found: Difference[], readonly limit: number, skipped: number }

/** The places under `pointer` where two values differ, into `found` until it holds `limit`, counting in `skipped` the redacted places passed over. */
function differencesAt (recorded: unknown, replayed: unknown, pointer: string, into: Found): void {
  if (into.found.length >= into.limit) return
  if (isRedacted(recorded) || isRedacted(replayed)) {
    into.skipped++
    return
  }
  if (recorded === replayed) return
  if (Array.isArray(recorded) && Array.isArray(replayed)) {
    for (let index = 0; index < Math.max(recorded.length, replayed.length); index++) differencesAt(recorded[index], replayed[index], `${pointer}/${index}`, into)
    return
  }
  if (isRecord(recorded) && isRecord(replayed)) {
    for (const key of keysOf(recorded, replayed)) {
      const left = Object.hasOwn(recorded, key) ? recorded[key] : undefined
      const right = Object.hasOwn(replayed, key) ? replayed[key] : undefined
      differencesAt(left, right, `${pointer}/${pointerSegment(key)}`, into)
    }
    return
  }
  into.found.push({ pointer, recorded, replayed })
}

/**
 * Compares a recorded value with a replayed one: the first place they differ (objects by key, arrays by index),
 * places holding a redacted value passed over.
 * @example
 * ```ts
 * compareRecorded({ card: '[redacted]', name: 'Ada' }, { card: '[redacted]', name: 'ADA' }) // { difference: { pointer: '/name', recorded: 'Ada', replayed: 'ADA' }, redacted: 1 }
 * ```
 */
export function compareRecorded (recorded: unknown, replayed: unknown): Comparison {
  const into: Found = { found: [], limit: 1, skipped: 0 }
  differencesAt(recorded, replayed, '', into)
  return { difference: into.found[0], redacted: into.skipped }
}

/**
 * Every place two JSON values differ (objects by key, arrays by index), up to `limit` of them; places holding a
 * redacted value are passed over.
 * @example
 * ```ts
 * differencesOf({ name: 'Ada', phone: '555' }, { name: 'Ada' }) // [{ pointer: '/phone', recorded: '555', replayed: undefined }]
 * ```
 */
export function differencesOf (recorded: unknown, replayed: unknown, limit = 100): Difference[] {
  const into: Found = { found: [], limit, skipped: 0 }
  differencesAt(recorded, replayed, '', into)
  return into.found
}

/**
 * `replayed` with each place where `again` (the same replay, from data whose redacted values stood for something
 * else) holds another value made redacted: a value a converter made from a redacted one (a card's last 4 digits)
 * tells nothing of what the converter gave the real value, so it is not compared.
 * @example
 * ```ts
 * madeFromRedacted({ last4: 'ted]', name: 'Ada' }, { last4: 'ed]~', name: 'Ada' }) // { last4: '[redacted]', name: 'Ada' }
 * ```
 */
export function madeFromRedacted (replayed: unknown, again: unknown): unknown {
  if (replayed === again) return replayed
  if (Array.isArray(replayed) && Array.isArray(again) && replayed.length === again.length) return replayed.map((item, index) => madeFromRedacted(item, again[index]))
  if (isRecord(replayed) && isRecord(again)) {
    return Object.fromEntries(Object.entries(replayed).map(([key, value]) => [key, Object.hasOwn(again, key) ? madeFromRedacted(value, again[key]) : REDACTED]))
  }
  return REDACTED
}
