/**
 * Cookies for converters: the request's `Cookie` header read into a jar and compared, and `Set-Cookie` values
 * written when @fastify/cookie is not registered.
 * @module
 */
import type { FastifyRequest } from 'fastify'
import type { CookieOptions } from '../describe/converter-info'

/** The cookies of a `Cookie` header (the first of a repeated name wins; values percent-decoded when they can be). */
export function parseCookieHeader (header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {}
  if (header === undefined) return cookies
  for (const pair of header.split(';')) {
    const index = pair.indexOf('=')
    if (index === -1) continue
    const name = pair.slice(0, index).trim()
    const value = pair.slice(index + 1).trim()
    if (name === '' || name in cookies) continue
    try {
      cookies[name] = decodeURIComponent(value)
    } catch {
      cookies[name] = value
    }
  }
  return cookies
}

/** True when two cookie jars hold the same names and values. */
export function sameEntries (jar: Record<string, string>, original: Readonly<Record<string, string>>): boolean {
  const names = Object.keys(jar)
  if (names.length !== Object.keys(original).length) return false
  return names.every((name) => Object.hasOwn(original, name) && original[name] === jar[name])
}

/** The request's `Cookie` header as one string. */
export function originalCookies (request: FastifyRequest): string {
  const header = request.headers.cookie
  return Array.isArray(header) ? header.join('; ') : header ?? ''
}

/** A `Set-Cookie` value. */
export function serialiseCookie (name: string, value: string, options: CookieOptions): string {
  let cookie = `${name}=${encodeURIComponent(value)}`
  if (options.maxAge !== undefined) cookie += `; Max-Age=${Math.floor(options.maxAge)}`
  if (options.domain !== undefined) cookie += `; Domain=${options.domain}`
  cookie += `; Path=${options.path ?? '/'}`
  if (options.expires !== undefined) cookie += `; Expires=${options.expires.toUTCString()}`
  if (options.httpOnly === true) cookie += '; HttpOnly'
  if (options.secure === true) cookie += '; Secure'
  if (options.sameSite !== undefined) cookie += `; SameSite=${options.sameSite[0].toUpperCase()}${options.sameSite.slice(1)}`
  return cookie
}
