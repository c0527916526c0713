/**
 * Version lifecycle: the `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and `Link` headers of responses served
 * as a deprecated or sunset version, and the `rel="successor-version"` link (RFC 5829) of deprecated versions.
 * @module
 */
import type { Version, VersionBundle } from '../describe/versions'

/** A response header: name and value. */
export type Header = readonly [name: string, value: string]

/** The `Deprecation` and `Sunset` headers of a version (empty when it has no lifecycle dates). */
function lifecycleHeaders (version: Version): Header[] {
  const headers: Header[] = []
  if (version.deprecatedAt !== undefined) headers.push(['deprecation', `@${Math.floor(version.deprecatedAt.getTime() / 1000)}`])
  if (version.sunsetAt !== undefined) headers.push(['sunset', version.sunsetAt.toUTCString()])
  return headers
}

/** The `Link` to a version's deprecation or sunset policy page, if it has one. */
function lifecycleLink (version: Version): string | undefined {
  if (version.link === undefined || (version.deprecatedAt === undefined && version.sunsetAt === undefined)) return undefined
  return `<${version.link}>; rel="${version.deprecatedAt !== undefined ? 'deprecation' : 'sunset'}"`
}

/** Adds a link to a reply's `Link` header, keeping the links already there (RFC 8288 allows several). */
export function appendLink (current: unknown, link: string): string {
  const existing = Array.isArray(current) ? current.join(', ') : current === undefined || current === null ? '' : String(current)
  return existing === '' ? link : existing.includes(link) ? existing : `${existing}, ${link}`
}

/** The lifecycle headers of one version's answers: `Deprecation`, `Sunset`, and the `Link` they carry (appended to any other). */
export interface VersionLifecycleHeaders {
  readonly headers: readonly Header[]
  /** Its lifecycle page (`rel="deprecation"` or `"sunset"`) and, when deprecated, its successor's document (`rel="successor-version"`). */
  readonly link: string | undefined
}

/**
 * The lifecycle headers of every version of a bundle that has some, by version value: the same on every answer
 * of the version (successes, errors, its 404s and 410s). The successor link (RFC 5829) of a deprecated release is
 * the OpenAPI document of the next newer release, at `documentUrl?version=NEXT`; none when documents are off
 * (`documentUrl` null).
 */
export function lifecycleHeadersOf (bundle: VersionBundle, documentUrl: string | null): ReadonlyMap<string, VersionLifecycleHeaders> {
  const byVersion = new Map<string, VersionLifecycleHeaders>()
  const released = bundle.releasedValues
  bundle.versions.forEach((version) => {
    // The next newer release: never a preview version (whose existence a released version's answers do not tell).
    const index = released.indexOf(version.value)
    const successor = documentUrl !== null && index > 0 && version.deprecatedAt !== undefined
      ? `<${documentUrl}?version=${encodeURIComponent(released[index - 1])}>; rel="successor-version"`
      : undefined
    const links = [lifecycleLink(version), successor].filter((link) => link !== undefined)
    const headers = lifecycleHeaders(version)
    if (headers.length === 0 && links.length === 0) return
    byVersion.set(version.value, { headers, link: links.length === 0 ? undefined : links.join(', ') })
  })
  return byVersion
}
