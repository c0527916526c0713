/**
 * The response headers of a request served in a version: the version served (the header named by
 * `apiVersionParameterName`), `Vary` on that header for cacheable responses (GET, HEAD) when the version comes
 * from a header, and the version's lifecycle headers (`Deprecation`, `Sunset`).
 * @module
 */
import type { FastifyReply } from 'fastify'
import { lifecycleHeadersByVersion } from './lifecycle'
import type { ResolvedOptions } from './options'

/** Sets the version headers of a reply (`method` is the request's). */
export type VersionHeaders = (method: string, reply: FastifyReply, version: string) => void

/** Builds the function that sets the version headers for the application's options. */
export function createVersionHeaders (options: ResolvedOptions): VersionHeaders {
  const echo = options.headerName
  const vary = options.location === 'header' ? options.parameterName : undefined
  const lifecycle = lifecycleHeadersByVersion(options.versions)
  return function setVersionHeaders (method, reply, version) {
    reply.header(echo, version)
    // Caches key cacheable responses (GET, HEAD) on the headers listed in Vary.
    if (vary !== undefined && (method === 'GET' || method === 'HEAD')) {
      const current = reply.getHeader('vary')
      reply.header('vary', current === undefined || current === '' ? vary : `${String(current)}, ${vary}`)
    }
    if (lifecycle.size > 0) for (const [name, value] of lifecycle.get(version) ?? []) reply.header(name, value)
  }
}
