/**
 * The lifecycle headers of each version by the release clock: a deprecated version's `rel="successor-version"` link
 * names the next newer version served at the time, never a release still to come (whose existence no answer tells
 * before its `releasedAt`). Without a clock, or when the headers are the same whatever the time, one map for all.
 * @module
 */
import type { VersionBundle } from '../describe/versions'
import { lifecycleHeadersOf } from './version-headers'
import type { ReleaseClock } from './release-clock'
import type { VersionLifecycleHeaders } from './serve-options'

type HeadersMap = ReadonlyMap<string, VersionLifecycleHeaders>

/** Two maps of headers that send the same headers. */
function sameHeaders (a: HeadersMap, b: HeadersMap): boolean {
  return a.size === b.size && [...a].every(([version, headers]) => JSON.stringify(headers) === JSON.stringify(b.get(version)))
}

/** A map that reads, on each use, the map of the current stretch of the clock. */
class HeadersNow implements HeadersMap {
  constructor (private readonly clock: ReleaseClock, private readonly maps: readonly HeadersMap[]) {}

  private get current (): HeadersMap {
    return this.clock.currentOf(this.maps)
  }

  get size (): number {
    return this.current.size
  }

  get (version: string): VersionLifecycleHeaders | undefined {
    return this.current.get(version)
  }

  has (version: string): boolean {
    return this.current.has(version)
  }

  forEach (each: (value: VersionLifecycleHeaders, key: string, map: HeadersMap) => void): void {
    this.current.forEach((value, key) => { each(value, key, this) })
  }

  entries (): MapIterator<[string, VersionLifecycleHeaders]> {
    return this.current.entries()
  }

  keys (): MapIterator<string> {
    return this.current.keys()
  }

  values (): MapIterator<VersionLifecycleHeaders> {
    return this.current.values()
  }

  [Symbol.iterator] (): MapIterator<[string, VersionLifecycleHeaders]> {
    return this.current.entries()
  }
}

/**
 * The lifecycle headers of every version ({@link lifecycleHeadersOf}) as they are now by `clock`.
 * @example
 * ```ts
 * const headers = scheduledLifecycleHeaders(versions, '/openapi.json', createReleaseClock(versions, Date.now))
 * headers.get('2000-01-01')?.link // its successor: the next newer version served now
 * ```
 */
export function scheduledLifecycleHeaders (bundle: VersionBundle, documentUrl: string | null, clock: ReleaseClock | undefined): HeadersMap {
  if (clock === undefined) return lifecycleHeadersOf(bundle, documentUrl)
  const maps = clock.eachStretch((stretch) => lifecycleHeadersOf(bundle, documentUrl, stretch.values))
  return maps.every((map) => sameHeaders(map, maps[0])) ? maps[0] : new HeadersNow(clock, maps)
}
