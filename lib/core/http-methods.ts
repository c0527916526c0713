/**
 * HTTP method names accepted by endpoint instructions and by-path converters, checked the moment they are
 * written so that a misspelling fails where it is made.
 * @module
 */
import { LintingError } from './errors'

/** The HTTP methods a route instruction or converter can name. */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'SEARCH', 'PROPFIND',
  'PROPPATCH', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK', 'TRACE', 'REPORT', 'MKCALENDAR'] as const

/** One HTTP method, in upper case (lower case is accepted where methods are given). */
export type HttpMethod = typeof HTTP_METHODS[number]

const known = new Set<string>(HTTP_METHODS)

/**
 * Normalises `methods` (one method or a list, any case) to a sorted, de-duplicated upper-case list.
 * Throws {@link LintingError} naming every invalid method.
 */
export function normaliseMethods (methods: unknown): HttpMethod[] {
  const list = Array.isArray(methods) ? methods : [methods]
  if (list.length === 0) throw new LintingError('(none given)')
  const invalid = list.filter((method) => typeof method !== 'string' || !known.has(method.toUpperCase()))
  if (invalid.length > 0) {
    throw new LintingError(invalid.map((method) => typeof method === 'string' ? method : String(method)).sort().join(', '))
  }
  return [...new Set(list.map((method) => (method as string).toUpperCase() as HttpMethod))].sort()
}
