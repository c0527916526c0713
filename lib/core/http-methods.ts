/**
 * HTTP method names in instructions and by-path converters, checked against `http.METHODS` when written (at ready,
 * lib/routes/usage-checks.ts checks the application's); both throw {@link LintingError}.
 * @module
 */
import { METHODS } from 'node:http'
import { LintingError } from './errors'

/** Every HTTP method a Fastify application can route (Node's `http.METHODS`, as of Node 20). */
const HTTP_METHODS = ['ACL', 'BIND', 'CHECKOUT', 'CONNECT', 'COPY', 'DELETE', 'GET', 'HEAD', 'LINK', 'LOCK', 'M-SEARCH',
  'MERGE', 'MKACTIVITY', 'MKCALENDAR', 'MKCOL', 'MOVE', 'NOTIFY', 'OPTIONS', 'PATCH', 'POST', 'PROPFIND', 'PROPPATCH', 'PURGE',
  'PUT', 'QUERY', 'REBIND', 'REPORT', 'SEARCH', 'SOURCE', 'SUBSCRIBE', 'TRACE', 'UNBIND', 'UNLINK', 'UNLOCK', 'UNSUBSCRIBE'] as const

/**
 * One HTTP method, in upper case (lower case is accepted where methods are given).
 * @example
 * ```ts
 * const methods: HttpMethod[] = ['GET', 'POST']
 * const instruction = endpoint('/users', methods).didntExist
 * ```
 */
export type HttpMethod = typeof HTTP_METHODS[number]

// The running Node's own list decides (a newer Node may know more methods than the list above).
const known = new Set<string>([...HTTP_METHODS, ...METHODS])

/**
 * True for a method name Node's HTTP parser knows, in any case (`'search'`, `'QUERY'`).
 * @example
 * isHttpMethod('search') // true
 * isHttpMethod('parameters') // false
 */
export function isHttpMethod (name: string): boolean {
  return known.has(name.toUpperCase())
}

/**
 * Normalises `methods` (one method or a list, any case) to a sorted, de-duplicated upper-case list.
 * Throws {@link LintingError} naming every invalid method.
 */
export function normaliseMethods (methods: unknown): HttpMethod[] {
  const list = Array.isArray(methods) ? methods : methods === undefined ? [] : [methods]
  if (list.length === 0) throw new LintingError('(none given)')
  const invalid = list.filter((method) => typeof method !== 'string' || !known.has(method.toUpperCase()))
  if (invalid.length > 0) {
    throw new LintingError(invalid.map((method) => typeof method === 'string' ? method : String(method)).sort().join(', '))
  }
  return [...new Set(list.map((method) => (method as string).toUpperCase() as HttpMethod))].sort()
}
