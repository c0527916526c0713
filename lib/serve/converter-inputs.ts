/**
 * The `RequestInfo` and `ResponseInfo` handed to converters over a Fastify request and reply, writing back what
 * converters changed, cookies included.
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { CookieOptions, FormFields, RequestInfo, ResponseInfo, UntypedBody } from '../describe/converter-info'
import { setOwn } from '../core/own-properties'
import { formKind } from '../routes/schema-forms'
import { readForm, writeForm } from './form-fields'
import { dropUndefined } from './step-runner'

/** A `RequestInfo` over a Fastify request. */
export class VersionedRequestInfo implements RequestInfo {
  body: UntypedBody
  queryParams: Record<string, unknown>
  private headerCopy: Record<string, string | string[] | undefined> | undefined
  private cookieJar: Record<string, string> | undefined
  /** The cookies as the request had them, when the jar was read (to tell whether converters changed it). */
  private cookieOriginal: Readonly<Record<string, string>> | undefined
  private cookiesAssigned = false
  /** The kind of the request's form body, if it has one. */
  private readonly formKind: 'urlencoded' | 'multipart' | undefined
  private readonly request: FastifyRequest

  /** A form body is read into its fields; the body is then the same fields (one object, two names). */
  constructor (request: FastifyRequest) {
    this.request = request
    const kind = formKind(request.headers['content-type'])
    const fields = readForm(kind, request.body)
    this.formKind = fields === undefined ? undefined : kind
    this.body = (fields ?? request.body) as UntypedBody
    this.queryParams = request.query as Record<string, unknown>
  }

  /** A copy of the request headers (made on first use); changes reach the request. */
  get headers (): Record<string, string | string[] | undefined> {
    this.headerCopy ??= { ...this.request.headers }
    return this.headerCopy
  }

  set headers (value: Record<string, string | string[] | undefined>) {
    this.headerCopy = value
  }

  /** The fields of a form body (the body itself, for form requests), or `undefined`. */
  get form (): FormFields | undefined {
    return this.formKind === undefined ? undefined : this.body as FormFields
  }

  set form (fields: FormFields | undefined) {
    if (this.formKind !== undefined && fields !== undefined) this.body = fields as UntypedBody
  }

  /** Fastify's `request.signal`, made (by Fastify) on first read only; `undefined` on a Fastify without it. */
  get signal (): AbortSignal | undefined {
    return (this.request as { signal?: AbortSignal }).signal
  }

  get cookies (): Record<string, string> {
    if (this.cookieJar === undefined) {
      const parsed = (this.request as FastifyRequest & { cookies?: Record<string, string> }).cookies
      this.cookieOriginal = parsed === undefined ? parseCookieHeader(originalCookies(this.request)) : copyJar(parsed)
      this.cookieJar = copyJar(this.cookieOriginal)
    }
    return this.cookieJar
  }

  set cookies (value: Record<string, string>) {
    this.cookieJar = value
    this.cookiesAssigned = true
  }

  /** True when converters assigned the cookie jar, or changed its entries (reading it changes nothing). */
  private cookiesChanged (): boolean {
    if (this.cookieJar === undefined) return false
    if (this.cookiesAssigned || this.cookieOriginal === undefined) return true
    return !sameEntries(this.cookieJar, this.cookieOriginal)
  }

  /** Writes the converted `body` (a form as its plugin holds it) back into the request, and headers, query and cookies when converters used them. */
  writeBack (body: unknown): void {
    const request = this.request
    request.body = this.formKind !== undefined && typeof body === 'object' && body !== null
      ? writeForm(this.formKind, body as FormFields, request.body)
      : body
    if (request.query !== this.queryParams) request.query = this.queryParams
    // A parameter a converter left `undefined` was not sent, as an optional body field.
    dropUndefined(this.queryParams, undefined)
    const cookiesChanged = this.cookiesChanged()
    if (this.headerCopy === undefined && !cookiesChanged) return
    const raw = request.raw.headers as Record<string, string | string[] | undefined>
    const headers = this.headers
    if (cookiesChanged && this.cookieJar !== undefined) {
      const serialised = Object.entries(this.cookieJar).map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; ')
      if (serialised === '') delete headers.cookie
      else if (serialised !== originalCookies(request)) headers.cookie = serialised
      const withCookies = request as FastifyRequest & { cookies?: Record<string, string> }
      if (withCookies.cookies !== undefined) withCookies.cookies = this.cookieJar
    }
    for (const name of Object.keys(raw)) {
      if (!Object.hasOwn(headers, name) || headers[name] === undefined) delete raw[name]
    }
    for (const [name, value] of Object.entries(headers)) {
      const key = name.toLowerCase()
      if (value !== undefined && raw[key] !== value) setOwn(raw, key, value)
    }
  }
}

/** A `ResponseInfo` over a Fastify reply. */
export class VersionedResponseInfo implements ResponseInfo {
  body: UntypedBody
  readonly raw: unknown
  private headerCopy: Record<string, string | string[] | number | undefined> | undefined

  constructor (private readonly reply: FastifyReply, body: unknown, raw: unknown) {
    this.body = body as UntypedBody
    this.raw = raw
  }

  get statusCode (): number {
    return this.reply.statusCode
  }

  set statusCode (value: number) {
    this.reply.code(value)
  }

  /** The request's `signal` (see `VersionedRequestInfo.signal`). */
  get signal (): AbortSignal | undefined {
    return (this.reply.request as { signal?: AbortSignal }).signal
  }

  get headers (): Record<string, string | string[] | number | undefined> {
    this.headerCopy ??= { ...(this.reply.getHeaders() as Record<string, string | string[] | number | undefined>) }
    return this.headerCopy
  }

  set headers (value: Record<string, string | string[] | number | undefined>) {
    this.headerCopy = value
  }

  /**
   * Sets a cookie with `@fastify/cookie` when it is registered, else writes `Set-Cookie` itself; what reaches the reply
   * is added to the converter's copy of the headers too, so that writing them back keeps it.
   */
  setCookie (name: string, value: string, options: CookieOptions = {}): void {
    const reply = this.reply as FastifyReply & { setCookie?: (name: string, value: string, options: CookieOptions) => unknown }
    const before = cookieList(this.reply.getHeader('set-cookie'))
    // Fastify appends to set-cookie rather than replacing it.
    if (typeof reply.setCookie === 'function') reply.setCookie(name, value, options)
    else this.reply.header('set-cookie', serialiseCookie(name, value, options))
    if (this.headerCopy === undefined) return
    const added = cookieList(this.reply.getHeader('set-cookie')).slice(before.length)
    if (added.length > 0) this.headerCopy['set-cookie'] = [...cookieList(this.headerCopy['set-cookie']), ...added]
  }

  deleteCookie (name: string, options: Pick<CookieOptions, 'path' | 'domain' | 'secure' | 'httpOnly' | 'sameSite'> = {}): void {
    this.setCookie(name, '', { ...options, maxAge: 0, expires: new Date(0) })
  }

  /** True when converters used the headers: writing them back may have changed any of them. */
  get wroteHeaders (): boolean {
    return this.headerCopy !== undefined
  }

  /** Writes changed headers back into the reply. */
  writeBack (): void {
    if (this.headerCopy === undefined) return
    const current = this.reply.getHeaders() as Record<string, unknown>
    for (const name of Object.keys(current)) {
      if (!Object.hasOwn(this.headerCopy, name) || this.headerCopy[name] === undefined) this.reply.removeHeader(name)
    }
    for (const [name, value] of Object.entries(this.headerCopy)) {
      const key = name.toLowerCase()
      if (value === undefined || current[key] === value) continue
      if (key === 'set-cookie') {
        // Fastify appends set-cookie values: replace the list as a whole.
        if (JSON.stringify(current[key]) === JSON.stringify(value)) continue
        this.reply.removeHeader(key)
      }
      this.reply.header(name, Array.isArray(value) ? [...value] : value)
    }
  }
}

/** The values of a `Set-Cookie` header as a list. */
function cookieList (header: unknown): string[] {
  return header === undefined ? [] : Array.isArray(header) ? header.map(String) : [String(header)]
}

function parseCookieHeader (header: string | undefined): Record<string, string> {
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
function copyJar (jar: Readonly<Record<string, string>>): Record<string, string> {
  return Object.assign(Object.create(null) as Record<string, string>, jar)
}

/** True when two cookie jars hold the same names and values. */
function sameEntries (jar: Record<string, string>, original: Readonly<Record<string, string>>): boolean {
  const names = Object.keys(jar)
  if (names.length !== Object.keys(original).length) return false
  return names.every((name) => Object.hasOwn(original, name) && original[name] === jar[name])
}

function originalCookies (request: FastifyRequest): string {
  const header = request.headers.cookie
  return Array.isArray(header) ? header.join('; ') : header ?? ''
}

function serialiseCookie (name: string, value: string, options: CookieOptions): string {
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
