/**
 * The headers of a request that carries deprecated fields (decision 0061): `Deprecation` (RFC 9745), `Sunset`
 * (RFC 8594) and `Link: <…>; rel="deprecation"`, combined with the version's own when it is deprecated too. Only
 * the request hook of a version whose requests can hold deprecated parts (../routes/field-deprecations.ts) calls it.
 * @module
 */
import type { FastifyReply } from 'fastify'
import { kFieldDeprecations } from '../core/symbols'
import type { FieldDeprecations } from '../routes/field-deprecations'
import type { FieldDeprecation } from '../describe/field-deprecation'
import { appendLink } from './lifecycle'
import type { VersionedRequest } from './request-state'
import type { ServeOptions } from './serve-options'

/** The earliest of two times in milliseconds, either missing. */
function earliest (a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b)
}

/**
 * Finds the deprecated fields `request` carries in `version` and, when there are some, sets the headers and keeps
 * the fields (JSON pointers: `/body/address`, `/query/size`, array items as `*`) and the `Link` on the request, for
 * the served event and the send hook. `Deprecation` is the earliest date of the fields and of the version; `Sunset`
 * the earliest sunset; each field's link (or the version's document) is added to `Link`.
 */
export function sendFieldDeprecations (
  request: VersionedRequest, reply: FastifyReply, deprecations: FieldDeprecations, version: string, options: ServeOptions
): void {
  const fields: string[] = []
  const links: string[] = []
  const described = options.versions.get(version)
  let deprecatedAt = described?.deprecatedAt?.getTime()
  let sunsetAt = described?.sunsetAt?.getTime()
  for (const { property, prefix, find } of deprecations.parts) {
    const data: unknown = request[property]
    if (data === undefined || data === null) continue
    for (const [place, node] of find(data)) {
      fields.push(`${prefix}${place}`)
      // Every node the finder reports was recorded when it was compiled.
      const detail = deprecations.details.get(node) as FieldDeprecation
      deprecatedAt = earliest(deprecatedAt, detail.deprecatedAt * 1000)
      sunsetAt = earliest(sunsetAt, detail.sunsetAt?.getTime())
      const link = detail.link ?? (options.documentUrl === null ? undefined : `${options.documentUrl}?version=${encodeURIComponent(version)}`)
      if (link !== undefined && !links.includes(link)) links.push(link)
    }
  }
  if (fields.length === 0) return
  reply.header('deprecation', `@${Math.floor((deprecatedAt ?? 0) / 1000)}`)
  if (sunsetAt !== undefined) reply.header('sunset', new Date(sunsetAt).toUTCString())
  const link = links.length === 0 ? undefined : links.map((target) => `<${target}>; rel="deprecation"`).join(', ')
  if (link !== undefined) reply.header('link', appendLink(reply.getHeader('link'), link))
  request[kFieldDeprecations] = { fields, link }
}
