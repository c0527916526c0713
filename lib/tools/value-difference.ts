/**
 * Where two JSON values first differ (`replay`: what was recorded, what the converters give now), as a JSON pointer.
 * A place where either side holds a redacted value (../values/redaction.ts) cannot be compared: it is passed over,
 * and counted.
 * @module
 */
import { pointerSegment } from '../core/json-schema'
import { isRedacted } from '../values/redaction'

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

/** The first difference under `pointer`, counting in `skipped` the redacted places passed over. */
function differenceAt (recorded: unknown, replayed: unknown, pointer: string, skipped: { count: number }): Difference | undefined {
  if (isRedacted(recorded) || isRedacted(replayed)) {
    skipped.count++
    return undefined
  }
  if (recorded === replayed) return undefined
  if (Array.isArray(recorded) && Array.isArray(replayed)) {
    for (let index = 0; index < Math.max(recorded.length, replayed.length); index++) {
      const found = differenceAt(recorded[index], replayed[index], `${pointer}/${index}`, skipped)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (isRecord(recorded) && isRecord(replayed)) {
    for (const key of keysOf(recorded, replayed)) {
      const left = Object.hasOwn(recorded, key) ? recorded[key] : undefined
      const right = Object.hasOwn(replayed, key) ? replayed[key] : undefined
      const found = differenceAt(left, right, `${pointer}/${pointerSegment(key)}`, skipped)
      if (found !== undefined) return found
    }
    return undefined
  }
  return { pointer, recorded, replayed }
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
  const skipped = { count: 0 }
  const difference = differenceAt(recorded, replayed, '', skipped)
  return { difference, redacted: skipped.count }
}
