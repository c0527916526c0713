/**
 * The response headers of a request served in a version: the version served (the header named by
 * `apiVersionParameterName`), `Vary` on that header for cacheable responses (GET, HEAD) when the version comes
 * from a header (and on the upgrade preview's header when that option is on), and the version's lifecycle headers (`Deprecation`, `Sunset`, `Link`).
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { appendLink } from './lifecycle'
import type { ServeOptions } from './serve-options'

/** Sets the version headers of a reply (`method` is the request's). */
export type VersionHeaders = (method: string, reply: FastifyReply, version: string) => void

/** Builds the function that sets the version headers for the application's options. */
export function createVersionHeaders (options: ServeOptions): VersionHeaders {
  const echo = options.headerName
  const vary = createVary(options)
  const lifecycle = options.lifecycleHeaders
  return function setVersionHeaders (method, reply, version) {
    reply.header(echo, version)
    vary(method, reply)
    const headers = lifecycle.size > 0 ? lifecycle.get(version) : undefined
    if (headers === undefined) return
    for (const [name, value] of headers.headers) reply.header(name, value)
    if (headers.link !== undefined) reply.header('link', appendLink(reply.getHeader('link'), headers.link))
  }
}

/**
 * Adds to `Vary` on cacheable responses (GET, HEAD) the headers that change them: the version header when the
 * version comes from a header, and the upgrade preview's header when that option is on.
 */
function createVary (options: ServeOptions): (method: string, reply: FastifyReply) => void {
  const names = [options.location === 'header' ? options.parameterName : undefined, options.upgradePreview?.headerName]
    .filter((name) => name !== undefined)
  const vary = names.length === 0 ? undefined : names.join(', ')
  return function addVary (method, reply) {
    // Caches key cacheable responses (GET, HEAD) on the headers listed in Vary.
    if (vary === undefined || (method !== 'GET' && method !== 'HEAD')) return
    const current = reply.getHeader('vary')
    reply.header('vary', current === undefined || current === '' ? vary : `${String(current)}, ${vary}`)
  }
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
    if (version !== undefined) setVersionHeaders(request.method, reply, version)
    // A 400 for a bad or missing version depends on the header too.
    else vary(request.method, reply)
  }
}
