/**
 * Deterministic example numbers of number and integer schemas (./examples.ts): the lowest allowed (or its `variant`th
 * step up), or one that shows what a converter does to it (the upgrade guide, decision 0336).
 * @module
 */

/** A JSON Schema node (loosely typed: documents are plain JSON). */
type JsonSchema = Record<string, unknown>

/** The lowest and highest values a number schema allows (exclusive bounds moved in by a step), and its step. */
function numberRange (schema: JsonSchema, integer: boolean): { low: number, high: number, step: number, multiple?: number } {
  const multiple = typeof schema.multipleOf === 'number' ? schema.multipleOf : undefined
  const step = multiple ?? (integer ? 1 : 0.5)
  let low = -Infinity
  if (typeof schema.minimum === 'number') low = schema.minimum
  if (typeof schema.exclusiveMinimum === 'number') low = Math.max(low, schema.exclusiveMinimum + (integer ? 1 : step))
  let high = Infinity
  if (typeof schema.maximum === 'number') high = schema.maximum
  if (typeof schema.exclusiveMaximum === 'number') high = Math.min(high, schema.exclusiveMaximum - (integer ? 1 : step))
  return { low, high, step, multiple }
}

/** Numbers that show what a converter does to them (not 0, not round), the likeliest first. */
const SHOWING_INTEGERS = [1234, 123, 12, 3, 1]
const SHOWING_DECIMALS = [12.34, 1.23, 0.12]

/**
 * A number of `schema` that shows a conversion: the first of the showing numbers (or one of them past a bound, or
 * its negative) that the schema allows, `multipleOf` included; `undefined` when none does.
 * @example
 * ```ts
 * showingNumber({ type: 'integer', minimum: 0 }, true) // 1234
 * showingNumber({ type: 'number', minimum: 0, maximum: 1 }, false) // 0.12
 * ```
 */
export function showingNumber (schema: JsonSchema, integer: boolean): number | undefined {
  const { low, high, multiple } = numberRange(schema, integer)
  const candidates = integer || multiple !== undefined ? SHOWING_INTEGERS : [...SHOWING_DECIMALS, ...SHOWING_INTEGERS]
  for (const candidate of candidates) {
    // With `multipleOf`, that many multiples of it (the division exact, as a validator checks it).
    const size = multiple === undefined ? candidate : candidate * multiple
    for (const value of [size, low + size, high - size, -size]) {
      const fits = Number.isFinite(value) && value !== 0 && value >= low && value <= high && (!integer || Number.isInteger(value)) && (multiple === undefined || Number.isInteger(value / multiple))
      if (fits) return value
    }
  }
  return undefined
}

/**
 * The plain example of a number schema: its lowest allowed value (1 when unbounded), or the `variant`th step up from it.
 * @example
 * ```ts
 * numberExample({ type: 'integer', minimum: 0 }, true) // 0
 * numberExample({ type: 'integer', minimum: 0 }, true, 2) // 2
 * ```
 */
export function numberExample (schema: JsonSchema, integer: boolean, variant = 0): number {
  const { low, high, step, multiple } = numberRange(schema, integer)
  // Unbounded below: 1, or the first multiple, at most the highest value allowed (a multiple of it).
  let value = Number.isFinite(low) ? Math.ceil(low / step) * step : Math.min(multiple ?? 1, multiple === undefined ? high : Math.floor(high / step) * step)
  if (value > high) value = Math.floor(high / step) * step
  // The `variant`th value from there: upward while allowed, else downward.
  if (variant > 0) value = value + variant * step <= high ? value + variant * step : value - variant * step >= low ? value - variant * step : value
  return integer ? Math.round(value) : value
}
