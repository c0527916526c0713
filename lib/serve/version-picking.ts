/**
 * Version picking: which version a request names and which version serves it (the same, or for dates the closest
 * older one); `VersionPicker` can be subclassed (a version pinned per account).
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http'
import FindMyWay, { type HTTPMethod } from 'find-my-way'
import { kBundleInternals } from '../core/symbols'
import { InvalidOptionError } from '../core/errors'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { isIsoDate, isMonth, monthOf } from '../core/iso-date'
import type { VersionBundle } from '../describe/versions'
import { releasedNow, type ReleaseSource } from './release-clock'

/**
 * Where the version travels in a request.
 * @example
 * ```ts
 * declare const versions: VersionBundle
 * const apiVersionLocation: ApiVersionLocation = 'path' // GET /2000-01-01/users/1 rather than an x-api-version header
 * await Fastify().register(fastifyVersioner, { versions, apiVersionLocation })
 * ```
 */
export type ApiVersionLocation = 'header' | 'path'

/**
 * How version values are written and compared: ISO dates, months (`YYYY-MM`), or any string (no waterfalling).
 * @example
 * ```ts
 * declare const versions: VersionBundle
 * const apiVersionFormat: ApiVersionFormat = 'month' // versions written 2024-06, 2024-09…
 * await Fastify().register(fastifyVersioner, { versions, apiVersionFormat })
 * ```
 */
export type ApiVersionFormat = 'date' | 'month' | 'string'

/**
 * The default version of requests that name none: a version, or a function of the request.
 * @example
 * ```ts
 * declare const versions: VersionBundle
 * declare function pinnedVersionOf (apiKey: string | undefined): Promise<string>
 * const apiVersionDefaultValue: ApiVersionDefaultValue = (request) => pinnedVersionOf(request.headers['x-api-key'] as string | undefined)
 * await Fastify().register(fastifyVersioner, { versions, apiVersionDefaultValue })
 * ```
 */
export type ApiVersionDefaultValue = string | ((request: FastifyRequest) => string | Promise<string>)

/**
 * What a `VersionPicker` is built with (the plugin passes its options).
 * @example
 * ```ts
 * declare const versions: VersionBundle
 * const options: VersionPickerOptions = { versions, location: 'header', format: 'date', parameterName: 'x-api-version', defaultValue: '2001-01-01' }
 * const picker = new VersionPicker(options)
 * ```
 */
export interface VersionPickerOptions {
  readonly versions: VersionBundle
  readonly location: ApiVersionLocation
  readonly format: ApiVersionFormat
  /** The header name (lower case) or path parameter name. */
  readonly parameterName: string
  readonly defaultValue: ApiVersionDefaultValue | undefined
}

/** Where a request names its version: what {@link readRequestedVersion} needs. */
type VersionSource = Pick<VersionPickerOptions, 'location' | 'parameterName'>

/** A request as the version reader sees it: Fastify's (after routing, with params) or Node's (before routing). */
interface VersionCarrier {
  readonly headers: IncomingHttpHeaders
  readonly params?: unknown
  readonly url?: string | undefined
  readonly method?: string | undefined
}

/**
 * find-my-way's options for the routers that find versioned routes before Fastify routes a request: as lenient as
 * Fastify's router can be (`useSemicolonDelimiter` is missing from its types).
 * @example `const router = FindMyWay(LENIENT_ROUTER)`
 */
export const LENIENT_ROUTER: Parameters<typeof FindMyWay>[0] & { readonly useSemicolonDelimiter: boolean } = {
  ignoreTrailingSlash: true,
  ignoreDuplicateSlashes: true,
  caseSensitive: false,
  useSemicolonDelimiter: true,
  allowUnsafeRegex: true,
  maxParamLength: Number.MAX_SAFE_INTEGER
}

/** find-my-way's options. */
export type RouterOptions = NonNullable<Parameters<typeof FindMyWay>[0]>

/**
 * Fastify's router options of `app`, as its router takes them: `routerOptions`, or the same at the top level.
 * @example `const router = FindMyWay(routerOptionsOf(app))`
 */
export function routerOptionsOf (app: FastifyInstance): RouterOptions & { readonly useSemicolonDelimiter?: boolean } {
  const config = app.initialConfig as RouterOptions & { routerOptions?: RouterOptions }
  return { ...config, ...config.routerOptions }
}

/**
 * Refuses path versions longer than Fastify's `maxParamLength`: the version segment is a path parameter, so Fastify
 * would answer every request naming such a version 414. Dates (which the date and month formats accept) are 10
 * characters; named and string versions as long as they are written.
 * @example `checkVersionSegmentLength(app, { location: 'path', format: 'date', versions })`
 */
export function checkVersionSegmentLength (app: FastifyInstance, options: { location: string, format: ApiVersionFormat, versions: VersionBundle }): void {
  const limit = routerOptionsOf(app).maxParamLength
  if (options.location !== 'path' || typeof limit !== 'number') return
  const dates = options.format === 'string' ? [] : ['YYYY-MM-DD']
  const longest = [...dates, ...options.versions.versionValues].reduce((a, b) => b.length > a.length ? b : a)
  if (longest.length <= limit) return
  throw new InvalidOptionError(`Fastify's maxParamLength is ${limit}, shorter than the version segment of apiVersionLocation 'path' ` +
    `(${longest.length} characters: '${longest}'), a path parameter too: Fastify would answer every request naming it 414; ` +
    `raise routerOptions.maxParamLength to at least ${longest.length}.`)
}

/**
 * Where path versions sit in URLs before routing: the `:version` parameter of the versioned route a URL matches,
 * never another segment that looks like a version (decision 0105).
 */
export class VersionSegments {
  // As lenient as Fastify's router: a URL Fastify routed to a versioned route matches its route here too.
  private readonly routes = FindMyWay(LENIENT_ROUTER)

  /** Records a versioned route's URL (`/api/:x_api_version/users/:id`) and methods. */
  add (methods: readonly string[], url: string): void {
    for (const method of methods.includes('GET') ? [...methods, 'HEAD'] : methods) {
      if (this.routes.hasRoute(method as HTTPMethod, url)) continue
      try {
        this.routes.on(method as HTTPMethod, url, () => {})
      } catch {
        // A URL Fastify itself refuses: its registration fails with Fastify's own error.
      }
    }
  }

  /** The path parameters (decoded as Fastify decodes them) of the versioned route a request's method and URL match. */
  paramsOf (method: string | undefined, url: string): Record<string, string | undefined> | undefined {
    return this.routes.find(method as HTTPMethod, url)?.params
  }
}

/**
 * The one version reader: the version a request names (header value or path segment), or `undefined`. A header sent
 * twice arrives joined (`'2001-01-01, 2002-01-01'`): refused saying so. Path versions come from the route's parameter,
 * else (before routing) from the URL segment after a versioned prefix.
 */
export function readRequestedVersion (request: VersionCarrier, source: VersionSource, segments?: VersionSegments): string | undefined {
  let value: string | string[] | undefined
  if (source.location === 'header') {
    value = request.headers[source.parameterName]
  } else {
    const routed = request.params as Record<string, string | undefined> | null | undefined
    const params = routed != null && typeof routed === 'object' ? routed : segments?.paramsOf(request.method, request.url ?? '/')
    value = params?.[source.parameterName]
  }
  const text = Array.isArray(value) ? value[0] : value
  return text === undefined || text === '' ? undefined : text
}

/** The outcome of picking: the version served, or why none can be. */
export type PickedVersion =
  | { readonly ok: true, readonly version: string, readonly requested: string }
  | { readonly ok: false, readonly reason: 'missing' | 'malformed' | 'too-old' | 'unknown', readonly requested: string | undefined }

/**
 * Finds the version a request asks for; subclass it and pass it as `versionPicker` (what it picks is then checked and
 * waterfalled like a header value).
 * @example
 * ```ts
 * declare const app: FastifyInstance, versions: VersionBundle
 * declare const accounts: { pinnedVersion: (apiKey: string | undefined) => Promise<string | undefined> } // your account store
 * class AccountPinnedVersionPicker extends VersionPicker {
 *   override async pick (request: FastifyRequest) {
 *     return this.requested(request) ?? await accounts.pinnedVersion(request.headers.authorization)
 *   }
 * }
 * app.register(fastifyVersioner, { versions, versionPicker: AccountPinnedVersionPicker })
 * ```
 */
export class VersionPicker {
  protected readonly options: VersionPickerOptions

  constructor (options: VersionPickerOptions) {
    this.options = options
  }

  /** The version the request names (header value or path segment), or `undefined` when it names none. */
  requested (request: FastifyRequest): string | undefined {
    return readRequestedVersion(request, this.options)
  }

  /** The version to serve the request as, before it is checked: the one it names, else the default. */
  pick (request: FastifyRequest): string | undefined | Promise<string | undefined> {
    const requested = this.requested(request)
    if (requested !== undefined) return requested
    const fallback = this.options.defaultValue
    return typeof fallback === 'function' ? fallback(request) : fallback
  }
}

/** What resolving a value reads: the bundle, its format, and the release clock when something is scheduled (./release-clock.ts). */
export interface Resolving extends ReleaseSource {
  readonly format: ApiVersionFormat
}

const MISSING: PickedVersion = Object.freeze({ ok: false, reason: 'missing', requested: undefined })
/**
 * Checks a picked value against the versions released now: an exact version, for dates (and months) the closest
 * older one, else the reason it cannot be served. Previews are named only through ./pick-version.ts.
 */
export function resolveVersion (value: string | undefined, options: Resolving): PickedVersion {
  if (value === undefined || value === '') return MISSING
  if (typeof value !== 'string') return { ok: false, reason: 'malformed', requested: String(value) }
  const released = releasedNow(options)
  const exact = released.picks.get(value)
  if (exact !== undefined) return exact
  const { format } = options
  const values = released.values
  if (format === 'string') return { ok: false, reason: 'unknown', requested: value }
  // Newest first: the first version not after the requested date (or month) is the closest older one.
  let served: string | undefined
  if (format === 'month') {
    const month = monthOf(value)
    if (month === undefined) return { ok: false, reason: 'malformed', requested: value }
    served = values.find((candidate) => isMonth(candidate) && candidate <= month)
  } else {
    if (!isIsoDate(value)) return { ok: false, reason: 'malformed', requested: value }
    // The versions' dates, read once: a header holding a version a thousand times is checked part by part (../serve/error-handling.ts).
    const index = released.dates.findIndex((date) => date <= value)
    served = index === -1 ? undefined : values[index]
  }
  return served === undefined
    ? { ok: false, reason: 'too-old', requested: value }
    : { ok: true, version: served, requested: value }
}

/** The version a value names for the application itself: a released version, else a preview named exactly. */
export function namedVersion (value: string | undefined, options: Resolving): PickedVersion {
  const picked = resolveVersion(value, options)
  return picked.ok || value === undefined ? picked : options.versions[kBundleInternals].previewPicks.get(value) ?? picked
}
