/**
 * The response headers of a request served in a version: the version served (the header named by
 * `apiVersionParameterName`), `Vary` on that header when the version comes from a header (and on the upgrade
 * preview's header when that option is on), and the headers of every answer of the version (`Deprecation`, `Sunset`,
 * `Link`; `Cache-Control: private` for a preview version).
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { appendLink } from './lifecycle'
import type { ServeOptions } from './serve-options'

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
    const headers = lifecycle.size > 0 ? lifecycle.get(version) : undefined
    if (headers === undefined) return
    for (const [name, value] of headers.headers) reply.header(name, value)
    if (headers.link !== undefined) reply.header('link', appendLink(reply.getHeader('link'), headers.link))
  }
}

/**
 * Adds `names` (lower case, comma-separated) to a reply's `Vary`, keeping what is there: a name already listed (in
 * any case) is not listed again, and `*` (varies on everything) stays alone.
 * @example
 * ```ts
 * addVary(reply, 'x-api-version') // Vary: origin, x-api-version
 * ```
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
 * Adds to `Vary`, on every answer of a versioned route whatever its method, the headers that change it: the version
 * header when the version comes from a header, and the upgrade preview's header when that option is on
 * ([decision 0066](../../docs/decisions/0066-preview-answers-stay-private.md)).
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
 * The `Cache-Control` of an answer whose content depended on an `access` function (a preview version's, the upgrade
 * preview's): `private`, so that no shared cache stores it. A value that already keeps shared caches out (`private`,
 * `no-store`) stays; otherwise `private` is added and what would let a shared cache store it (`public`, `s-maxage`)
 * is dropped: `public, max-age=60` becomes `private, max-age=60`.
 * @example
 * ```ts
 * reply.header('cache-control', privateCacheControl(reply.getHeader('cache-control')))
 * ```
 */
export function privateCacheControl (current: unknown): string {
  if (current === undefined || current === null || current === '') return 'private'
  const directives = (Array.isArray(current) ? current.join(',') : String(current)).split(',').map((directive) => directive.trim()).filter((directive) => directive !== '')
  const names = directives.map((directive) => directive.split('=')[0].trim().toLowerCase())
  if (names.includes('private') || names.includes('no-store')) return directives.join(', ')
  return ['private', ...directives.filter((_, index) => names[index] !== 'public' && names[index] !== 's-maxage')].join(', ')
}

/** Sets the version headers on a reply an error handler answers (see {@link createErrorVersionHeaders}). */
type ErrorVersionHeaders = (request: FastifyRequest, reply: FastifyReply) => void

/**
 * Builds the function error handlers call to set the version headers, unless the reply has them already (its
 * version echo header is set: the request hook or the handler set them, and `Vary` must not list the version
 * header twice). `servedVersion` gives the version answering the request, synchronously (`undefined` when it
 * is not known without waiting, or the route does not serve it, or the version is bad or missing: then only
 * `Vary` is set); it is called only when the headers are missing, and an error it throws is ignored: the error
 * being handled is the one to report.
 */
export function createErrorVersionHeaders (
  options: ServeOptions, servedVersion: (request: FastifyRequest) => string | undefined
): ErrorVersionHeaders {
  const setVersionHeaders = createVersionHeaders(options)
  const vary = createVary(options)
  const echo = options.headerName
  return function setErrorVersionHeaders (request, reply) {
    if (reply.hasHeader(echo)) return
    let version: string | undefined
    try {
      version = servedVersion(request)
    } catch {
      return
    }
    if (version !== undefined) setVersionHeaders(reply, version)
    // A 400 for a bad or missing version depends on the header too.
    else vary(reply)
  }
}
