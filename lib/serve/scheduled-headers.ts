/**
 * The lifecycle headers of each version by the release clock: a deprecated version's `rel="successor-version"` link
 * names the next newer version served at the time, never a release still to come (whose existence no answer tells
 * before its `releasedAt`). Without a clock, or when the headers are the same whatever the time, one map for all.
 * @module
 */
import type { VersionBundle } from '../describe/versions'
import { lifecycleHeadersOf } from './version-headers'
import type { ReleaseClock } from './release-clock'
import type { LifecycleHeadersOf, VersionLifecycleHeaders } from './serve-options'

type HeadersMap = ReadonlyMap<string, VersionLifecycleHeaders>

/** Two maps of headers that send the same headers. */
function sameHeaders (a: HeadersMap, b: HeadersMap): boolean {
  return a.size === b.size && [...a].every(([version, headers]) => JSON.stringify(headers) === JSON.stringify(b.get(version)))
}

/**
 * The lifecycle headers of a version ({@link lifecycleHeadersOf}) as they are now by `clock`; `undefined` when no
 * version has any at any time.
 * @example
 * ```ts
 * const headersOf = scheduledLifecycleHeaders(versions, '/openapi.json', startReleaseClock(versions, Date.now))
 * headersOf?.('2000-01-01')?.link // its successor: the next newer version served now
 * ```
 */
export function scheduledLifecycleHeaders (bundle: VersionBundle, documentUrl: string | null, clock: ReleaseClock | undefined): LifecycleHeadersOf | undefined {
  const maps = clock === undefined
    ? [lifecycleHeadersOf(bundle, documentUrl)]
    : clock.eachStretch((stretch) => lifecycleHeadersOf(bundle, documentUrl, stretch.values))
  if (clock !== undefined && !maps.every((map) => sameHeaders(map, maps[0]))) return (version) => clock.currentOf(maps).get(version)
  const headers = maps[0]
  return headers.size === 0 ? undefined : (version) => headers.get(version)
}
