/**
 * Running converters: the `RequestInfo` and `ResponseInfo` objects handed to them, and the loop that runs
 * planned steps over every occurrence of their schema. Steps run synchronously; a converter returning a
 * promise makes the rest of the run asynchronous.
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { CookieOptions, FormFields, RequestInfo, ResponseInfo, UntypedBody } from '../describe/converter-info'
import type { ConverterStep } from '../routes/converter-steps'
import type { Holder, Occurrence } from '../values/occurrences'
import { ConverterFailedError } from '../core/errors'
import { setOwn } from '../core/own-properties'

/** The value boxed under `body`, so that converters can replace it. */
export interface BodyBox {
  body: unknown
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

/** A `RequestInfo` over a Fastify request. */
export class VersionedRequestInfo implements RequestInfo {
  body: UntypedBody
  queryParams: Record<string, unknown>
  private headerCopy: Record<string, string | string[] | undefined> | undefined
  private cookieJar: Record<string, string> | undefined
  /** The cookies as the request had them, when the jar was read (to tell whether converters changed it). */
  private cookieOriginal: Readonly<Record<string, string>> | undefined
  private cookiesAssigned = false
  private readonly isForm: boolean
  private readonly request: FastifyRequest

  /** `form` holds the fields of a form body; the body is then the same fields (one object, two names). */
  constructor (request: FastifyRequest, form: FormFields | undefined) {
    this.request = request
    this.isForm = form !== undefined
    this.body = (form ?? request.body) as UntypedBody
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
    return this.isForm ? this.body as FormFields : undefined
  }

  set form (fields: FormFields | undefined) {
    if (this.isForm && fields !== undefined) this.body = fields as UntypedBody
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

  /** Writes headers, query and cookies back into the request, when converters used them (the body is written by the caller). */
  writeBack (request: FastifyRequest): void {
    if (request.query !== this.queryParams) request.query = this.queryParams
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
      if (!(name in headers) || headers[name] === undefined) delete raw[name]
    }
    for (const [name, value] of Object.entries(headers)) {
      const key = name.toLowerCase()
      if (value !== undefined && raw[key] !== value) setOwn(raw, key, value)
    }
  }
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

  get headers (): Record<string, string | string[] | number | undefined> {
    this.headerCopy ??= { ...(this.reply.getHeaders() as Record<string, string | string[] | number | undefined>) }
    return this.headerCopy
  }

  set headers (value: Record<string, string | string[] | number | undefined>) {
    this.headerCopy = value
  }

  setCookie (name: string, value: string, options: CookieOptions = {}): void {
    const reply = this.reply as FastifyReply & { setCookie?: (name: string, value: string, options: CookieOptions) => unknown }
    if (typeof reply.setCookie === 'function') {
      reply.setCookie(name, value, options)
      return
    }
    const cookie = serialiseCookie(name, value, options)
    // Fastify appends to set-cookie rather than replacing it.
    this.reply.header('set-cookie', cookie)
    if (this.headerCopy !== undefined) {
      const copied = this.headerCopy['set-cookie']
      const list = copied === undefined ? [] : Array.isArray(copied) ? copied.map(String) : [String(copied)]
      this.headerCopy['set-cookie'] = [...list, cookie]
    }
  }

  deleteCookie (name: string, options: Pick<CookieOptions, 'path' | 'domain' | 'secure' | 'httpOnly' | 'sameSite'> = {}): void {
    this.setCookie(name, '', { ...options, maxAge: 0, expires: new Date(0) })
  }

  /** Writes changed headers back into the reply. */
  writeBack (): void {
    if (this.headerCopy === undefined) return
    const current = this.reply.getHeaders() as Record<string, unknown>
    for (const name of Object.keys(current)) {
      if (!(name in this.headerCopy) || this.headerCopy[name] === undefined) this.reply.removeHeader(name)
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

/**
 * The data a converter sees: what `JSON.stringify` would send (`toJSON` applied, so a `Date` is its ISO
 * string; class instances are their own enumerable fields), as a fresh copy, so that a handler's returned
 * object (a cached or stored one) is never changed. `JSON.parse` defines keys as own properties: a
 * `__proto__` key stays data and never becomes a prototype, and it walks deep data without recursion in
 * JavaScript. A value `JSON.stringify` cannot write (a `BigInt`, a cycle) is kept as it is, for the
 * serializer to decide.
 */
export function copyJson (value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch {
    return value
  }
  return text === undefined ? undefined : JSON.parse(text)
}

const ROOT_KEY = 'body'

/** True for a promise, or anything with a `then` method. */
export function isThenable (value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function'
}

/** What a converter threw or rejected with, and which converter: the failure of one step. */
export class ConverterFailure {
  constructor (readonly step: ConverterStep, readonly thrown: unknown) {}
}

/**
 * Runs steps with `run`, then `complete` (at once, or when the promise `run` returned resolves). Anything
 * thrown by either, or a rejection, whatever its value (`null`, `undefined`, a string, a {@link ConverterFailure}),
 * goes to `fail` as something that is not nullish: nothing is left as an unhandled rejection, and no failure
 * can pass for success.
 */
export function settle (run: () => void | PromiseLike<void>, complete: () => void, fail: (failure: unknown) => void): void {
  let result: void | PromiseLike<void>
  try {
    result = run()
  } catch (error) {
    failWith(fail, error)
    return
  }
  if (isThenable(result)) {
    result.then(() => { completeOrFail(complete, fail) }, (error: unknown) => { failWith(fail, error) })
    return
  }
  completeOrFail(complete, fail)
}

function failWith (fail: (failure: unknown) => void, error: unknown): void {
  fail(error ?? new Error(`A converter run failed with ${String(error)}.`))
}

function completeOrFail (complete: () => void, fail: (failure: unknown) => void): void {
  try {
    complete()
  } catch (error) {
    failWith(fail, error)
  }
}

/** Where a run of converters happened, for the log entry of a failure. */
export interface FailureContext {
  readonly request: FastifyRequest
  readonly version: string
  /** `METHOD url` of the HEAD route. */
  readonly route: string
}

/**
 * The error a request is answered with when its converters failed: a converter's failure is logged (version,
 * route, version change class, converter method, what it threw) and becomes {@link ConverterFailedError}, a 500
 * for this request alone. Other failures (an Error thrown while writing data back) are passed on as they are.
 */
export function failureError (failure: unknown, context: FailureContext): Error {
  if (!(failure instanceof ConverterFailure)) {
    return failure instanceof Error ? failure : new Error(`Converting a request of API version ${context.version} failed with ${String(failure)}.`)
  }
  const converter = failure.step.converter
  const error = new ConverterFailedError(context.version)
  const thrown = failure.thrown
  context.request.log.error({
    err: thrown instanceof Error ? thrown : undefined,
    thrown: thrown instanceof Error ? undefined : describeThrown(thrown),
    apiVersion: context.version,
    route: context.route,
    versionChange: converter.change.name,
    converter: converter.display
  }, `Converter ${converter.display} (version change ${converter.change.name}) failed on ${context.route} for API version ` +
    `${context.version}; the request was answered 500.`)
  return error
}

function describeThrown (value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (value === undefined) return 'undefined'
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}

/**
 * Runs one converter: what it throws, or rejects with, becomes a {@link ConverterFailure} naming it. Returns a
 * promise only if the converter did.
 */
function runConverter (step: ConverterStep, info: { body: unknown }): unknown {
  let result: unknown
  try {
    result = step.converter.run(info)
  } catch (error) {
    throw new ConverterFailure(step, error)
  }
  if (!isThenable(result)) return result
  return Promise.resolve(result).then(undefined, (error: unknown) => { throw new ConverterFailure(step, error) })
}

/** Who a run of steps is for: the request method (by-path converters of multi-method routes), and for responses the reply. */
export interface StepFilter {
  readonly method: string | undefined
  /** For responses: steps not declared with `migrateHttpErrors` skip statuses ≥ 300 (read before each step). */
  readonly reply: { readonly statusCode: number } | undefined
}

function shouldRun (step: ConverterStep, filter: StepFilter): boolean {
  if (step.methods !== undefined && filter.method !== undefined && !step.methods.has(filter.method)) return false
  if (filter.reply === undefined) return true
  return filter.reply.statusCode < 300 ? step.errorsOnly !== true : step.converter.migrateHttpErrors
}

/**
 * Runs `steps` on `box.body`: each step on every occurrence of its schema (or on the whole body), with
 * `info.body` set to that occurrence and written back afterwards. Returns a promise only if a converter did.
 */
export function runSteps (steps: readonly ConverterStep[], info: { body: unknown }, box: BodyBox, filter: StepFilter): void | Promise<void> {
  return runFrom(steps, info, box, filter, 0, undefined, 0)
}

function runFrom (
  steps: readonly ConverterStep[], info: { body: unknown }, box: BodyBox, filter: StepFilter,
  stepIndex: number, occurrences: readonly Occurrence[] | undefined, occurrenceIndex: number
): void | Promise<void> {
  for (let index = stepIndex; index < steps.length; index++) {
    const step = steps[index]
    if (occurrences === undefined && !shouldRun(step, filter)) continue
    if (step.collect === undefined) {
      // The whole body: no occurrence list to build.
      info.body = box.body
      const result = runConverter(step, info)
      if (isThenable(result)) {
        return Promise.resolve(result).then(() => {
          box.body = info.body
          return runFrom(steps, info, box, filter, index + 1, undefined, 0)
        })
      }
      box.body = info.body
      continue
    }
    let list = occurrences
    let start = occurrenceIndex
    if (list === undefined) {
      const found: Occurrence[] = []
      step.collect(box as unknown as Holder, ROOT_KEY, found)
      list = found
      start = 0
    }
    for (let position = start; position < list.length; position++) {
      const [container, key] = list[position]
      info.body = container[key]
      const result = runConverter(step, info)
      if (isThenable(result)) {
        const current = list
        return Promise.resolve(result).then(() => {
          setOwn(container, key, info.body)
          return runFrom(steps, info, box, filter, index, current, position + 1)
        })
      }
      setOwn(container, key, info.body)
    }
    occurrences = undefined
  }
}
