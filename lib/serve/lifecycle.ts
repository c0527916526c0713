/**
 * Version lifecycle: the `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and `Link` headers of responses served
 * as a deprecated or sunset version.
 * @module
 */
import type { Version, VersionBundle } from '../describe/versions'

/** A response header: name and value. */
export type Header = readonly [name: string, value: string]

/** The `Deprecation` and `Sunset` headers of a version (empty when it has no lifecycle dates). */
export function lifecycleHeaders (version: Version): Header[] {
  const headers: Header[] = []
  if (version.deprecatedAt !== undefined) headers.push(['deprecation', `@${Math.floor(version.deprecatedAt.getTime() / 1000)}`])
  if (version.sunsetAt !== undefined) headers.push(['sunset', version.sunsetAt.toUTCString()])
  return headers
}

/** The `Link` a version's responses carry (its deprecation or sunset policy page), if it has one. */
export function lifecycleLink (version: Version): string | undefined {
  if (version.link === undefined || (version.deprecatedAt === undefined && version.sunsetAt === undefined)) return undefined
  return `<${version.link}>; rel="${version.deprecatedAt !== undefined ? 'deprecation' : 'sunset'}"`
}

/** Adds a link to a reply's `Link` header, keeping the links already there (RFC 8288 allows several). */
export function appendLink (current: unknown, link: string): string {
  const existing = Array.isArray(current) ? current.join(', ') : current === undefined || current === null ? '' : String(current)
  return existing === '' ? link : existing.includes(link) ? existing : `${existing}, ${link}`
}

const cache = new WeakMap<VersionBundle, ReadonlyMap<string, Header[]>>()

/** The lifecycle headers of every version of a bundle that has some, by version value. */
export function lifecycleHeadersByVersion (bundle: VersionBundle): ReadonlyMap<string, Header[]> {
  let byVersion = cache.get(bundle)
  if (byVersion === undefined) {
    byVersion = new Map(bundle.versions.map((version) => [version.value, lifecycleHeaders(version)] as const).filter(([, headers]) => headers.length > 0))
    cache.set(bundle, byVersion)
  }
  return byVersion
}

/**
 * `Link: <document>; rel="successor-version"` (RFC 5829) of each deprecated version: the OpenAPI document of
 * the next newer version, at `documentUrl?version=NEXT`. None when documents are off (`documentUrl` null).
 */
export function successorLinks (bundle: VersionBundle, documentUrl: string | null): ReadonlyMap<string, string> {
  const links = new Map<string, string>()
  if (documentUrl === null) return links
  bundle.versions.forEach((version, index) => {
    if (index === 0 || version.deprecatedAt === undefined) return
    links.set(version.value, `<${documentUrl}?version=${encodeURIComponent(bundle.versionValues[index - 1])}>; rel="successor-version"`)
  })
  return links
}
