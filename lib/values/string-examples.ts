/**
 * Deterministic example strings of string schemas (./examples.ts): by format, length and `pattern`.
 * @module
 */
import type * as FastCheck from 'fast-check'
import { installCommand, optionalLibrary } from '../core/optional-libraries'

/** A JSON Schema node (loosely typed: documents are plain JSON). */
type JsonSchema = Record<string, unknown>

/**
 * fast-check's 30 strings matching `source`, none longer than `max`; a case-insensitive expression is read
 * case-sensitively (what matches it matches the other).
 */
function sampled (fc: typeof FastCheck, source: RegExp, max: number | undefined): readonly string[] {
  try {
    const cased = source.flags.includes('i') ? new RegExp(source.source, source.flags.replace('i', '')) : source
    return fc.sample(fc.stringMatching(cased, max === undefined ? {} : { maxLength: max }), { seed: 1, numRuns: 30 })
  } catch {
    return []
  }
}

/** A fixed, valid (version 4) UUID (the string example of `format: 'uuid'`). */
export const EXAMPLE_UUID = '3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f'

/** The string `schema` takes without a pattern: for the formats uuid, date, date-time, time, email, uri, hostname and ipv4, else `example` fitted to `minLength` / `maxLength`. */
function plainString (schema: JsonSchema): string {
  switch (schema.format) {
    case 'uuid': return EXAMPLE_UUID
    case 'date': return '2000-01-01'
    case 'date-time': return '2000-01-01T00:00:00.000Z'
    case 'time': return '12:00:00Z'
    case 'email': return 'someone@example.com'
    case 'uri':
    case 'url': return 'https://example.com/'
    case 'hostname': return 'example.com'
    case 'ipv4': return '192.0.2.1'
  }
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity
  let value = 'example'
  while (value.length < min) value += 'x'
  return value.slice(0, Math.max(min, Math.min(max, value.length)))
}

/**
 * The regular expression of a `pattern`, as Ajv reads it (Unicode); `undefined` without a valid one.
 * @example `patternOf({ type: 'string', pattern: '^C[0-9]{3}$' })?.test('C001') // true`
 */
export function patternOf (schema: JsonSchema): RegExp | undefined {
  if (typeof schema.pattern !== 'string') return undefined
  try {
    return new RegExp(schema.pattern, 'u')
  } catch {
    // Ajv refuses such a schema: there is nothing to match.
    return undefined
  }
}

/** How an application's Ajv checks a string format: its regular expression or function; `undefined` if it ignores it. */
export type FormatPatterns = (format: string) => RegExp | ((value: string) => boolean) | undefined

/**
 * A valid string of `schema`: {@link plainString}, or when that does not fit its `pattern` or format, the shortest
 * fitting string fast-check makes (seeded) from them; `undefined` when none fits or fast-check is missing
 * ({@link noStringReason} says what to do). `kept` holds fast-check's strings between calls.
 * @example
 * ```ts
 * stringExample({ type: 'string', format: 'date' }) // '2000-01-01'
 * stringExample({ type: 'string', pattern: '^C[0-9]{3}$' }) // a string such as 'C461'
 * stringExample({ type: 'string', format: 'sku' }, () => /^[A-Z]{3}-\d+$/) // a string such as 'ABC-1'
 * ```
 */
export function stringExample (schema: JsonSchema, formats?: FormatPatterns, kept = new Map<string, readonly string[]>()): string | undefined {
  const plain = plainString(schema)
  const format = typeof schema.format === 'string' ? formats?.(schema.format) : undefined
  const sources = [patternOf(schema), format instanceof RegExp ? format : undefined].filter((source) => source !== undefined)
  const fits = (value: string): boolean => sources.every((source) => source.test(value)) && (typeof format !== 'function' || format(value))
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : undefined
  // Lengths count code points, as JSON Schema does. A format's plain string longer than `maxLength` (an e-mail of 16
  // characters at most) is the last resort: a string made from the format's regular expression may fit.
  const fitsLength = (value: string): boolean => [...value].length >= min && [...value].length <= (max ?? Infinity)
  if (fits(plain) && fitsLength(plain)) return plain
  const fallback = fits(plain) ? plain : undefined
  // fast-check, an optional dependency: without it, no string (noStringReason says to install it).
  const fc = sources.length === 0 ? undefined : optionalLibrary<typeof FastCheck>('fast-check')
  if (fc === undefined) return fallback
  let found: string | undefined
  for (const source of sources) {
    try {
      const key = `${String(source)}\n${max ?? ''}`
      const samples = kept.get(key) ?? kept.set(key, sampled(fc, source, max)).get(key) as readonly string[]
      for (const sample of samples) {
        if (fitsLength(sample) && fits(sample) && (found === undefined || sample.length < found.length)) found = sample
      }
    } catch {
      // A format function that throws: no string from it.
    }
  }
  return found ?? fallback
}

/**
 * Why {@link stringExample} made no string of `schema`, and what to do (give it an example, or install fast-check).
 * @example
 * ```ts
 * noStringReason({ type: 'string', pattern: '^(?!0)[0-9]+$' }) // 'no string could be made to match the pattern …: give the schema an example …'
 * ```
 */
export function noStringReason (schema: JsonSchema, formats?: FormatPatterns): string {
  const format = typeof schema.format === 'string' ? formats?.(schema.format) : undefined
  const byFunction = typeof format === 'function' && typeof schema.pattern !== 'string'
  const what = typeof schema.pattern === 'string'
    ? `the pattern ${JSON.stringify(schema.pattern)}`
    : `the format ${JSON.stringify(schema.format)}${byFunction ? ', which the application\'s Ajv checks with a function (no string can be made from one)' : ''}`
  const missing = !byFunction && optionalLibrary('fast-check') === undefined
    ? `fast-check, which makes such strings, is not installed (an optional dependency of fastify-versioner: ${installCommand('fast-check')}); or `
    : ''
  return `no string could be made to match ${what}: ${missing}give the schema an example ` +
    '(its `examples`, or `had({ examples })` in a version change)'
}
