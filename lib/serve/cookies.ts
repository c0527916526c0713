/**
 * Cookies for converters: the request's `Cookie` header read into a jar and compared, and `Set-Cookie` values
 * written when @fastify/cookie is not registered.
 * @module
 */
import type { FastifyRequest } from 'fastify'
import type { CookieOptions } from '../describe/converter-info'

export function parseCookieHeader (header: string | undefined): Record<string, string> {
  // Null prototype: cookies named like Object members (constructor, toString, __proto__) are ordinary names.
  const cookies: Record<string, string> = Object.create(null) as Record<string, string>
  if (header === undefined) return cookies
  for (const pair of header.split(';')) {
    const index = pair.indexOf('=')
    if (index === -1) continue
    const name = pair.slice(0, index).trim()
    const value = pair.slice(index + 1).trim()
    if (name === '' || Object.hasOwn(cookies, name)) continue
    try {
      cookies[name] = decodeURIComponent(value)
    } catch {
      cookies[name] = value
    }
  }
  return cookies
}

/** A copy of a cookie jar, with a null prototype (see {@link parseCookieHeader}). */
export function copyJar (jar: Readonly<Record<string, string>>): Record<string, string> {
  return Object.assign(Object.create(null) as Record<string, string>, jar)
}

/** True when two cookie jars hold the same names and values. */
export function sameEntries (jar: Record<string, string>, original: Readonly<Record<string, string>>): boolean {
  const names = Object.keys(jar)
  if (names.length !== Object.keys(original).length) return false
  return names.every((name) => Object.hasOwn(original, name) && original[name] === jar[name])
}

export function originalCookies (request: FastifyRequest): string {
  const header = request.headers.cookie
  return Array.isArray(header) ? header.join('; ') : header ?? ''
}

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
