/**
 * What a request's query string and headers can carry, for `verify`'s examples of them. Their values are text:
 * Fastify's query string parser gives a repeated parameter as a list and a lone one as a string (which validation
 * with `coerceTypes: 'array'` makes a one-item list), a parser such as `qs` gives nested objects and lists the same
 * way, and a header is one string. None gives an empty list: `?tags=` is `['']`, no `tags` is none; and HTTP strips
 * the spaces at the ends of a header's value (`' memo '` arrives `'memo'`) and refuses a line break in it. An example
 * holding such a list, or a header such a string, is a request no client can send.
 * @module
 */
import type { RequestPart } from '../routes/version-plan'
import type { GeneratedExample } from './example-generation'

/** True when `value` holds an empty list, at any depth. */
function holdsEmptyList (value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0 || value.some(holdsEmptyList)
  return typeof value === 'object' && value !== null && Object.values(value).some(holdsEmptyList)
}

/** True when `value` holds a string with a space (or other whitespace) at either end, or a line break, at any depth. */
function holdsPaddedString (value: unknown): boolean {
  if (typeof value === 'string') return value !== value.trim() || /[\r\n]/.test(value)
  return typeof value === 'object' && value !== null && Object.values(value).some(holdsPaddedString)
}

/**
 * The examples of a request part that a client can send: for the query string and headers, those holding no empty
 * list, and for headers no string with spaces at its ends or a line break (all of them where every one does: a schema
 * that only takes an empty list); for another part, all of them.
 * @example
 * ```ts
 * const examples = sendable('querystring', generateExamples(form, env)) // no `{ tags: [] }`
 * ```
 */
export function sendable (part: RequestPart, examples: GeneratedExample[]): GeneratedExample[] {
  if (part !== 'querystring' && part !== 'headers') return examples
  const kept = examples.filter((example) => !holdsEmptyList(example.value) && (part !== 'headers' || !holdsPaddedString(example.value)))
  return kept.length === 0 ? examples : kept
}
