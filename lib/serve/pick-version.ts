/**
 * Stage 1 of a request, picking its version once, before routing where two HEAD routes share a path; a preview whose
 * `access` refuses the request is answered as if it did not exist (decision 0059).
 * @module
 */
import FindMyWay, { type HTTPMethod } from 'find-my-way'
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { VersionPickerError } from '../core/request-errors'
import { describeValue } from '../core/json-schema'
import { kBundleInternals } from '../core/symbols'
import { isError, isThenable } from './step-runner'
import { LENIENT_ROUTER, resolveVersion, routerOptionsOf, type PickedVersion, type Resolving } from './version-picking'
import type { ServeOptions } from './serve-options'
import { requestState, startRequestState, type RequestState } from './request-state'

/** Picks and checks the version of a request, once: the request's state holds it. */
export function pickVersion (request: FastifyRequest, options: ServeOptions): RequestState | Promise<RequestState> {
  const known = stillPicked(request, options)
  if (known !== null) {
    known.early = false
    return known
  }
  const early = options.asyncPicking ? routingPickOf(request, options) : undefined
  if (early !== undefined) return startRequestState(request, early)
  const picked = pickForRequest(request, options)
  if (!isThenable(picked)) return startRequestState(request, picked)
  return Promise.resolve(picked).then((resolved) => startRequestState(request, resolved))
}

/**
 * The version of a request when it is known without waiting: picked already, or picked synchronously from a released
 * version (a preview is left to the request hook, which asks its `access` after the application's hooks).
 */
export function pickedWithoutWaiting (request: FastifyRequest, options: ServeOptions): PickedVersion | undefined {
  const known = stillPicked(request, options)
  if (known !== null) return known.picked
  if (options.asyncPicking) return undefined
  const value = options.picker.pick(request) as string | undefined
  const picked = resolveVersion(value, options)
  if (!picked.ok && value !== undefined && options.versions[kBundleInternals].previewPicks.has(value)) return undefined
  return startRequestState(request, picked, true).picked
}

/**
 * The request's state, unless it was picked early (`request.apiVersion` read in an `onRequest` hook) and a hook has
 * changed what the request names since (a version header set from an alias): the version is the one the request names
 * after the application's hooks, where the request hook picks it (decision 0331).
 */
function stillPicked (request: FastifyRequest, options: ServeOptions): RequestState | null {
  const known = requestState(request)
  if (known === null || !known.early || known.behaviour !== null) return known
  // Early states are picked synchronously, by the plugin's own picker: reading it again is reading the request.
  return options.picker.pick(request) === known.picked.requested ? known : null
}

/**
 * The version a request is served for the value it names: a released version, or a preview version named exactly
 * whose `access` answers `true` (anything else denies).
 * @example `const picked = await resolveForRequest(request, '2027-01-01.preview', { versions, format: 'date' })`
 */
export function resolveForRequest (
  request: FastifyRequest, value: string | undefined, options: Resolving
): PickedVersion | Promise<PickedVersion> {
  const picked = resolveVersion(value, options)
  if (picked.ok || typeof value !== 'string') return picked
  const preview = options.versions[kBundleInternals].previewPicks.get(value)
  if (preview === undefined) return picked
  const access = options.versions.get(preview.version)?.access
  if (access === undefined) return preview
  let failed = false
  const version = preview.version
  const allowed = askAccess(access, request, (error) => {
    failed = true
    request.log.error({ err: error, previewVersion: version }, `fastify-versioner: the access function of preview version '${version}' failed; ` +
      'the request is answered as one naming an unknown version.')
  })
  const outcome = (yes: boolean): PickedVersion => {
    if (yes) return preview
    if (!failed) {
      request.log.debug({ previewVersion: version }, `fastify-versioner: preview version '${version}' exists, but its access refused this request; ` +
        'it is answered as one naming an unknown version.')
    }
    return picked
  }
  return isThenable(allowed) ? allowed.then(outcome) : outcome(allowed)
}

/**
 * Runs the picker on `request` and resolves the value it gives; throws or rejects as the picker does, or with
 * {@link VersionPickerError} when it gives something other than a string or `undefined`.
 */
function pickForRequest (request: FastifyRequest, options: Pick<ServeOptions, 'picker' | 'versions' | 'format'>): PickedVersion | Promise<PickedVersion> {
  const value = options.picker.pick(request)
  return isThenable(value)
    ? Promise.resolve(value).then((resolved) => resolveForRequest(request, pickedValue(resolved), options))
    : resolveForRequest(request, pickedValue(value), options)
}

/** What a picker returned or threw, for the 500's message: an object by its kind alone (an account record holds secrets). */
function describePicked (value: unknown): string {
  return value !== null && (typeof value === 'object' || typeof value === 'function') ? `an ${typeof value}` : describeValue(value)
}

/** What a picker gave, when it is a version value or `undefined`; anything else throws {@link VersionPickerError}. */
function pickedValue (value: unknown): string | undefined {
  if (value === undefined || typeof value === 'string') return value
  throw new VersionPickerError(`The API version picker (versionPicker or apiVersionDefaultValue) returned ${describePicked(value)}, which is not ` +
    'a version string or undefined. Return the version as a string, or undefined when the request has none (a 400 asking for one).')
}

/**
 * Whether `access` allows `request`: only `true` is a yes; a throw or a rejection is a no, reported to `failed`.
 * Synchronous when `access` is; the promise never rejects.
 */
export function askAccess (
  access: (request: FastifyRequest) => boolean | Promise<boolean>, request: FastifyRequest, failed: (error: unknown) => void
): boolean | Promise<boolean> {
  let allowed: boolean | Promise<boolean>
  try {
    allowed = access(request)
  } catch (error) {
    failed(error)
    return false
  }
  if (!isThenable(allowed)) return allowed === true
  return Promise.resolve(allowed).then((answer) => answer === true, (error: unknown) => {
    failed(error)
    return false
  })
}

/** The preview versions whose `access` allows a request (the docs pages and documents' `?channel=preview`), newest first. */
export async function allowedPreviews (request: FastifyRequest, options: Resolving): Promise<string[]> {
  const allowed: string[] = []
  for (const value of options.versions[kBundleInternals].previewPicks.keys()) {
    const picked = await resolveForRequest(request, value, options)
    if (picked.ok) allowed.push(value)
  }
  return allowed
}

/**
 * On a raw request: the outcomes of picking before routing, by the registration that picked. The router is shared,
 * so an API's picker may run on another API's request: only the API that picked reads its outcome.
 */
const kRoutingPick = Symbol('fastify-versioner.routingPick')

/** What picking before routing left on a raw request: the version picked, or what the picker threw. */
type RoutingPick = { readonly picked: PickedVersion } | { readonly failure: unknown }

type RawRequest = IncomingMessage & { [kRoutingPick]?: Map<ServeOptions, RoutingPick> }

/** The error a request answers when its picker threw or rejected with `failure` (an Error as it is). */
export function pickerFailure (failure: unknown): Error {
  if (isError(failure)) return failure
  return new VersionPickerError(`The API version picker (versionPicker or apiVersionDefaultValue) failed with ${describePicked(failure)}, ` +
    'which is not an Error. Throw an Error (with a statusCode to answer something else than 500).', { cause: failure })
}

/** The version `options`' registration picked before routing for a raw request, when it was picked then and can be served. */
export function versionPickedBeforeRouting (raw: IncomingMessage, options: ServeOptions): string | undefined {
  const pick = (raw as RawRequest)[kRoutingPick]?.get(options)
  return pick !== undefined && 'picked' in pick && pick.picked.ok ? pick.picked.version : undefined
}

/** The outcome of picking before routing by `options`' registration, if it ran for this request; throws the picker's failure. */
function routingPickOf (request: FastifyRequest, options: ServeOptions): PickedVersion | undefined {
  const pick = (request.raw as RawRequest)[kRoutingPick]?.get(options)
  if (pick === undefined) return undefined
  if ('failure' in pick) throw pickerFailure(pick.failure)
  return pick.picked
}

/** What a request has before routing. */
interface RoutingView {
  readonly raw: IncomingMessage
  readonly method: string | undefined
  readonly url: string | undefined
  readonly headers: IncomingMessage['headers']
  readonly params: Record<string, string | undefined>
  readonly query: Record<string, unknown>
  readonly log: FastifyBaseLogger
  readonly server: FastifyInstance
}

/**
 * The error of a picker that read, before routing, what a request only has later (a decoration, the body): it would
 * silently pick another version at these paths than elsewhere, so the request is answered a logged 500.
 */
function readTooEarly (property: string, path: string): Error {
  return new VersionPickerError(`The API version picker (versionPicker or apiVersionDefaultValue) read request.${property} at ${path}, ` +
    'where two HEAD routes share the path and method: there the version must be known to choose the route, so the picker runs before ' +
    'routing, before your onRequest hooks and body parsing. Before routing a request has only raw, method, url, headers, params, query, ' +
    'log and server. Read what the picker needs from those (an API key from request.headers.authorization, a cookie from ' +
    'request.headers.cookie), or give the replaced routes distinct paths or methods.')
}

/**
 * What a picker sees before routing: the raw request's method, URL, headers and query, the shared route's path
 * parameters, the logger and server; reading anything else throws {@link readTooEarly}, never a silent `undefined`.
 */
function routingView (view: RoutingView, path: string): FastifyRequest {
  const guard = (target: RoutingView, property: string | symbol): void => {
    if (typeof property === 'string' && !(property in target)) throw readTooEarly(property, path)
  }
  return new Proxy(view, {
    get (target, property, receiver) {
      guard(target, property)
      return Reflect.get(target, property, receiver) as unknown
    },
    has (target, property) {
      guard(target, property)
      return Reflect.has(target, property)
    }
  }) as unknown as FastifyRequest
}

/** The paths two HEAD routes share, and the asynchronous derivation of the version there. */
export class RoutingPicks {
  private readonly shared

  constructor (private readonly options: ServeOptions, private readonly server: FastifyInstance) {
    // As lenient as Fastify's router can be (a path matched here needlessly only costs a pick); its query and `;` as Fastify's.
    const { querystringParser, useSemicolonDelimiter } = routerOptionsOf(server)
    this.shared = FindMyWay({ ...LENIENT_ROUTER, querystringParser, useSemicolonDelimiter: useSemicolonDelimiter === true } as typeof LENIENT_ROUTER)
  }

  /** Notes a method and URL that two HEAD routes share (their requests are picked before routing). */
  add (method: string, url: string): void {
    for (const each of method === 'GET' ? ['GET', 'HEAD'] : [method]) {
      if (!this.shared.hasRoute(each as HTTPMethod, url)) this.shared.on(each as HTTPMethod, url, () => {}, url)
    }
  }

  /** The constraint's `deriveConstraint(req, ctx, done)`: the version served, or `undefined` (Fastify then picks the route without). */
  derive (raw: RawRequest, done: (error: Error | null, value?: string) => void): void {
    const match = this.shared.find(raw.method as HTTPMethod, raw.url ?? '/')
    if (match === null) {
      done(null, undefined)
      return
    }
    const settled = (pick: RoutingPick): void => {
      ;(raw[kRoutingPick] ??= new Map()).set(this.options, pick)
      // A failure or a version that cannot be served reaches the route without a value; its request hook answers it.
      done(null, 'picked' in pick && pick.picked.ok ? pick.picked.version : undefined)
    }
    let picked: PickedVersion | Promise<PickedVersion>
    try {
      const seen = { raw, method: raw.method, url: raw.url, headers: raw.headers, params: { ...match.params }, query: { ...match.searchParams }, log: this.server.log, server: this.server }
      // A preview's access runs here too, on what the request has before routing (a failing access is a denial).
      picked = pickForRequest(routingView(seen, `${raw.method ?? ''} ${match.store as string}`), this.options)
    } catch (failure) {
      settled({ failure })
      return
    }
    if (!isThenable(picked)) {
      settled({ picked })
      return
    }
    // Fastify's handlerTimeout starts after routing: until then the application's limit bounds the pick (a 503 then).
    const limit = (this.server.initialConfig as { readonly handlerTimeout?: number }).handlerTimeout ?? 0
    let timer: ReturnType<typeof setTimeout> | undefined
    let over = false
    // A client gone (its own or `app.close()` closing its connection) needs no 503: as Fastify's own limit, the timer
    // is let go, rather than holding the request and the process till it fires.
    const stop = (): void => { clearTimeout(timer) }
    const once = (pick: RoutingPick): void => {
      if (over) return
      over = true
      stop()
      raw.off('close', stop)
      settled(pick)
    }
    // Fastify's own 503, loaded only when a pick runs out of time: the plugin's entry does not load Fastify itself.
    const timeOut = (): void => {
      import('fastify').then(({ errorCodes }) => { once({ failure: new errorCodes.FST_ERR_HANDLER_TIMEOUT(limit, match.store as string) }) }, (failure: unknown) => { once({ failure }) })
    }
    if (limit > 0) {
      timer = setTimeout(timeOut, limit)
      raw.once('close', stop)
    }
    picked.then((outcome) => { once({ picked: outcome }) }, (failure: unknown) => { once({ failure }) })
  }
}
