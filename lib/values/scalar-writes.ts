/**
 * What Fastify's serializer (fast-json-stringify) writes for a value at a string, number, integer, boolean or `null`
 * place, read back as JSON: a `Date` under a number as its milliseconds, an object by its `toString`, 1.5 under an
 * integer as 1, `null` under a string as `""` (decision 0321). Its own rules, so that a value a converter moves keeps
 * what HEAD writes for it.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'

/** The serializer refuses the value at that place: HEAD answers its own 500. */
export const REFUSED = Symbol('refused')

/**
 * The JSON value the serializer writes for `value` at the scalar place `node` (its `type` one or more of `string`,
 * `number`, `integer`, `boolean`, `null`), or {@link REFUSED}. An integer is truncated, Fastify's default `rounding`.
 * @example `scalarWritten({ type: 'integer' }, 1.5) // 1`
 */
export function scalarWritten (node: TSchema, value: unknown): unknown {
  try {
    return written(node, value)
  } catch {
    return REFUSED
  }
}

/** {@link scalarWritten}, throwing where the serializer throws. */
function written (node: TSchema, value: unknown): unknown {
  const types: unknown = node.type
  if (node.nullable === true && value === null) return null
  if (node.const !== undefined) return value === null && Array.isArray(types) && types.includes('null') ? null : node.const
  if (!Array.isArray(types)) return writtenAs(types, node.format, value)
  // The serializer's own order: `null` first, then the first type whose test the value passes.
  const sorted = [...types as unknown[]].sort((type) => type === 'null' ? -1 : 1)
  for (const type of sorted) {
    if (passes(type, value)) return writtenAs(type, node.format, value)
  }
  throw new TypeError('no type of the place takes the value')
}

/** The test by which the serializer picks a type of several for `value`. */
function passes (type: unknown, value: unknown): boolean {
  switch (type) {
    case 'null':
      return value === null
    case 'string':
      return typeof value === 'string' || value === null || value instanceof Date || value instanceof RegExp ||
        (typeof value === 'object' && typeof (value as { toString?: unknown }).toString === 'function' && (value as { toString?: unknown }).toString !== Object.prototype.toString)
    case 'integer':
      return Number.isInteger(value) || value === null
    case 'object':
      return (typeof value === 'object' && !Array.isArray(value)) || value === null
    default:
      // `number`, `boolean` (and any other: `typeof` names it).
      return (type === 'number' ? typeof value === 'number' : type === 'boolean' ? typeof value === 'boolean' : false) || value === null
  }
}

/** What the serializer writes for `value` under one `type` (and `format`). */
function writtenAs (type: unknown, format: unknown, value: unknown): unknown {
  switch (type) {
    case 'string':
      return stringWritten(format, value)
    case 'integer': {
      if (Number.isInteger(value) || typeof value === 'bigint') return value
      const integer = Math.trunc(value as number)
      if (!Number.isFinite(integer)) throw new TypeError('not an integer')
      return integer === 0 ? 0 : integer
    }
    case 'number': {
      const number = Number(value)
      if (Number.isNaN(number)) throw new TypeError('not a number')
      return Number.isFinite(number) ? (number === 0 ? 0 : number) : null
    }
    case 'boolean':
      return Boolean(value)
    default:
      // `null` (any value is written `null`) or a type the serializer writes otherwise: as it is.
      return type === 'null' ? null : value
  }
}

/** What the serializer writes for `value` under a string of `format` (`date` and `time` Dates: ./written-values.ts). */
function stringWritten (format: unknown, value: unknown): unknown {
  if (typeof value === 'string') return value
  if (value === null) return ''
  if (format === 'date-time' || format === 'date' || format === 'time') {
    if (value instanceof Date) return format === 'date-time' ? value.toISOString() : value
    throw new TypeError('not a date')
  }
  if (value instanceof Date) return value.toISOString()
  if (value instanceof RegExp) return value.source
  return String((value as { toString: () => unknown }).toString())
}
