/**
 * The headers of a versioned answer: the version served, `Vary`, and the lifecycle headers of its version now or of
 * the deprecated fields it carries (decision 0061).
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { TSchema } from '@sinclair/typebox'
import { setOwn } from '../core/own-properties'
import type { FieldDeprecation } from '../describe/field-deprecation'
import type { Version, VersionBundle } from '../describe/versions'
import type { FieldDeprecations } from '../routes/field-deprecations'
import type { VersionBehaviour } from '../routes/version-plan'
import { requestState, type RequestState } from './request-state'
import { pickedWithoutWaiting } from './pick-version'
import type { RegisteredRoute } from '../routes/versioner-state'
import type { Header, LifecycleHeadersOf, ServeOptions, VersionLifecycleHeaders } from './serve-options'
import type { ReleaseClock } from './release-clock'
import { isThenable } from './step-runner'

/** Sets the version headers of a reply. */
export type VersionHeaders = (reply: FastifyReply, version: string) => void

/** Builds the function that sets the version headers for the application's options. */
export function createVersionHeaders (options: ServeOptions): VersionHeaders {
  const echo = options.headerName
  const vary = createVary(options)
  const lifecycle = options.lifecycleHeaders
  return function setVersionHeaders (reply, version) {
    reply.header(echo, version)
    vary(reply)
    const headers = lifecycle?.(version)
    if (headers === undefined) return
    for (const [name, value] of headers.headers) reply.header(name, value)
    if (headers.link !== undefined) reply.header('link', appendLink(reply.getHeader('link'), headers.link))
  }
}

/**
 * Adds `names` (lower case, comma-separated) to a reply's `Vary`, unless listed already (in any case) or `*`.
 * @example `addVary(reply, 'x-api-version') // Vary: origin, x-api-version`
 */
export function addVary (reply: FastifyReply, names: string): void {
  const current = reply.getHeader('vary')
  if (current === undefined || current === '') {
    reply.header('vary', names)
    return
  }
  const text = Array.isArray(current) ? current.join(', ') : String(current)
  const listed = text.toLowerCase().split(',').map((name) => name.trim())
  if (listed.includes('*')) return
  const missing = names.split(', ').filter((name) => !listed.includes(name))
  if (missing.length > 0) reply.header('vary', `${text}, ${missing.join(', ')}`)
}

/**
 * Adds to `Vary` the headers that change every answer of a versioned route: the version header, when the version comes
 * from one, and the upgrade preview's header (decision 0066).
 * @example `createVary(options)(reply) // Vary: x-api-version`
 */
function createVary (options: ServeOptions): (reply: FastifyReply) => void {
  const names = [options.location === 'header' ? options.parameterName : undefined, options.upgradePreview?.headerName]
    .filter((name) => name !== undefined)
  if (names.length === 0) return () => {}
  const vary = names.join(', ')
  return function varyOnVersion (reply) {
    addVary(reply, vary)
  }
}

/**
 * The `Cache-Control` of an answer that depended on an `access` function: `private` added unless `private` or
 * `no-store` is there, `public` and `s-maxage` dropped (`public, max-age=60` becomes `private, max-age=60`).
 * @example `reply.header('cache-control', privateCacheControl(reply.getHeader('cache-control')))`
 */
export function privateCacheControl (current: unknown): string {
  if (current === undefined || current === null || current === '') return 'private'
  const directives = (Array.isArray(current) ? current.join(',') : String(current)).split(',').map((directive) => directive.trim()).filter((directive) => directive !== '')
  const names = directives.map((directive) => directive.split('=')[0].trim().toLowerCase())
  // `public` and `s-maxage` go even beside `private` (appended after it, as `@fastify/sensible`'s `cacheControl` does).
  const kept = directives.filter((_, index) => names[index] !== 'public' && names[index] !== 's-maxage')
  return (names.includes('private') || names.includes('no-store') ? kept : ['private', ...kept]).join(', ')
}

/** The `Deprecation` and `Sunset` headers of these times in milliseconds (a version's, or a request's deprecated fields'). */
function lifecycleHeaders (deprecatedAt: number | undefined, sunsetAt: number | undefined): Header[] {
  const headers: Header[] = []
  if (deprecatedAt !== undefined) headers.push(['deprecation', `@${Math.floor(deprecatedAt / 1000)}`])
  if (sunsetAt !== undefined) headers.push(['sunset', new Date(sunsetAt).toUTCString()])
  return headers
}

/** The `Link` to a version's deprecation or sunset policy page, if it has one. */
function lifecycleLink (version: Version): string | undefined {
  if (version.link === undefined || (version.deprecatedAt === undefined && version.sunsetAt === undefined)) return undefined
  return `<${version.link}>; rel="${version.deprecatedAt !== undefined ? 'deprecation' : 'sunset'}"`
}

/**
 * A path as a `Link` header's target, a URI reference (RFC 8288 §3): what a URI cannot hold (spaces, `<`, `>`, `"`,
 * the text of a path such as `/文档/openapi.json`, which `setHeader` refuses) percent-encoded as UTF-8; `%` kept.
 * @example `linkTarget('/文档/openapi.json') // '/%E6%96%87%E6%A1%A3/openapi.json'`
 */
export function linkTarget (path: string): string {
  return path.replace(/[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+/g, (text) => [...Buffer.from(text)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''))
}

/** Adds the plugin's links (`<…>; rel="…"` joined by `, `) to a reply's `Link` header, each one it does not hold yet. */
export function appendLink (current: unknown, link: string): string {
  const existing = Array.isArray(current) ? current.join(', ') : current === undefined || current === null ? '' : String(current)
  // The plugin's URLs hold no '<' (../describe/field-deprecation.ts): each of its links starts at a '<'.
  const missing = link.split(/, (?=<)/).filter((one) => !existing.includes(one))
  return [...(existing === '' ? [] : [existing]), ...missing].join(', ')
}

/**
 * The lifecycle headers of every version of a bundle that has some, by version value; a deprecated release's successor
 * link is the next newer release's document (none when documents are off).
 */
function lifecycleHeadersOf (
  bundle: VersionBundle, documentUrl: string | null, { values, from }: { values: readonly string[], from: number } = { values: bundle.releasedValues, from: Infinity }
): ReadonlyMap<string, VersionLifecycleHeaders> {
  const byVersion = new Map<string, VersionLifecycleHeaders>()
  // Never a version gone after its sunset, nor a preview (whose existence a released version's answers do not tell).
  const served = values.filter((value) => {
    const version = bundle.get(value) as Version
    return version.afterSunset !== 'gone' || (version.sunsetAt as Date).getTime() > from
  })
  bundle.versions.forEach((version) => {
    // The next newer release served.
    const newer = served.filter((value) => values.indexOf(value) < values.indexOf(version.value))
    const successor = documentUrl !== null && newer.length > 0 && values.includes(version.value) && version.deprecatedAt !== undefined
      ? `<${documentUrl}?version=${encodeURIComponent(newer[newer.length - 1])}>; rel="successor-version"`
      : undefined
    const links = [lifecycleLink(version), successor].filter((link) => link !== undefined)
    const headers = lifecycleHeaders(version.deprecatedAt?.getTime(), version.sunsetAt?.getTime())
    // A preview's answers depend on its access, which no `Vary` can name: no shared cache may store them (decision 0066).
    if (version.channel === 'preview') headers.push(['cache-control', 'private'])
    if (headers.length === 0 && links.length === 0) return
    byVersion.set(version.value, { headers, link: links.length === 0 ? undefined : links.join(', ') })
  })
  return byVersion
}

type HeadersMap = ReadonlyMap<string, VersionLifecycleHeaders>

/** Two maps of headers that send the same headers. */
function sameHeaders (a: HeadersMap, b: HeadersMap): boolean {
  return a.size === b.size && [...a].every(([version, headers]) => JSON.stringify(headers) === JSON.stringify(b.get(version)))
}

/**
 * The lifecycle headers of a version ({@link lifecycleHeadersOf}) as they are now by `clock`; `undefined` when no
 * version has any at any time. Without a clock, or when the headers are the same whatever the time, one map for all.
 * @example `scheduledLifecycleHeaders(versions, '/openapi.json', clock)?.('2000-01-01')?.link // its successor now`
 */
export function scheduledLifecycleHeaders (bundle: VersionBundle, documentUrl: string | null, clock: ReleaseClock | undefined): LifecycleHeadersOf | undefined {
  const maps = clock === undefined
    ? [lifecycleHeadersOf(bundle, documentUrl)]
    : clock.eachStretch((stretch) => lifecycleHeadersOf(bundle, documentUrl, stretch))
  if (clock !== undefined && !maps.every((map) => sameHeaders(map, maps[0]))) return (version) => clock.currentOf(maps).get(version)
  const headers = maps[0]
  return headers.size === 0 ? undefined : (version) => headers.get(version)
}

/** The earliest of two times in milliseconds, either missing. */
function earliest (a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b)
}

/**
 * Finds the deprecated fields `request` carries in its version and, when there are some, sets their lifecycle
 * headers (the earliest dates, each field's link) and keeps the fields and `Link` in the request's state.
 */
export function sendFieldDeprecations (
  request: FastifyRequest, reply: FastifyReply, deprecations: FieldDeprecations, state: RequestState, options: ServeOptions
): void {
  const fields: string[] = []
  const links: string[] = []
  const version = (state.behaviour as VersionBehaviour).version
  const described = options.versions.get(version)
  let deprecatedAt = described?.deprecatedAt?.getTime()
  let sunsetAt = described?.sunsetAt?.getTime()
  for (const { part, property, prefix, find, form } of deprecations.parts) {
    const raw: unknown = request[property]
    if (raw === undefined || raw === null) continue
    const data = part === 'body' ? raw : asFastifyReads(request, part, form, raw as Record<string, unknown>)
    for (const [place, nodes] of find(data)) {
      fields.push(`${prefix}${place}`)
      // Every node the finder reports was recorded when it was compiled: a field, and the union member its value is.
      for (const node of nodes) {
        const detail = deprecations.details.get(node) as FieldDeprecation
        deprecatedAt = earliest(deprecatedAt, detail.deprecatedAt * 1000)
        sunsetAt = earliest(sunsetAt, detail.sunsetAt?.getTime())
        // A preview's document is served only with `?channel=preview`.
        const link = detail.link ?? (options.documentUrl === null
          ? undefined
          : `${options.documentUrl}?version=${encodeURIComponent(version)}${described?.channel === 'preview' ? '&channel=preview' : ''}`)
        if (link !== undefined && !links.includes(link)) links.push(link)
      }
    }
  }
  if (fields.length === 0) return
  // RFC 9745 §4: no Sunset before the Deprecation (a field deprecated after the version's own sunset).
  for (const [name, value] of lifecycleHeaders(earliest(deprecatedAt ?? 0, sunsetAt), sunsetAt)) reply.header(name, value)
  const link = links.length === 0 ? undefined : links.map((target) => `<${target}>; rel="deprecation"`).join(', ')
  if (link !== undefined) reply.header('link', appendLink(reply.getHeader('link'), link))
  state.fieldDeprecations = { fields, link }
}

/**
 * A query string or headers as Fastify's validation will read them (coerced by the part's own validator), without the
 * defaults it fills: a copy, the request's data unchanged.
 */
function asFastifyReads (request: FastifyRequest, part: 'querystring' | 'headers', form: TSchema, raw: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(raw)) setOwn(copy, key, Array.isArray(raw[key]) ? [...raw[key]] : raw[key])
  const outcome: unknown = request.compileValidationSchema(form, part)(copy)
  // An async validator's refusal is the request's 400, answered by its validation: unhandled here, it would crash.
  if (isThenable(outcome)) outcome.then(undefined, () => {})
  for (const key of Object.keys(copy)) if (!Object.hasOwn(raw, key)) delete copy[key]
  return copy
}

/** The version answering a request when it is known without waiting and the route serves it (never throws). */
function servedVersion (request: FastifyRequest, options: ServeOptions, behaviours: RegisteredRoute['behaviours']): string | undefined {
  try {
    const picked = pickedWithoutWaiting(request, options)
    return picked?.ok === true && behaviours.has(picked.version) ? picked.version : undefined
  } catch {
    return undefined
  }
}

/**
 * Sets the version headers of an error answered before the route's request hook ran, when the version is known
 * without waiting, and gives the request that version's behaviour, so that its body is converted; else `Vary` alone.
 * @example `if (state?.behaviour == null) createEarlyVersion(registered.behaviours, options)(request, reply)`
 */
export function createEarlyVersion (behaviours: RegisteredRoute['behaviours'], options: ServeOptions): (request: FastifyRequest, reply: FastifyReply) => void {
  const setVersionHeaders = createVersionHeaders(options)
  const vary = createVary(options)
  return function earlyVersion (request, reply) {
    if (reply.hasHeader(options.headerName)) return
    const version = servedVersion(request, options, behaviours)
    if (version === undefined) {
      vary(reply)
      return
    }
    setVersionHeaders(reply, version)
    const early = requestState(request)
    if (early !== null && early.behaviour === null) early.behaviour = behaviours.get(version) ?? null
  }
}
