/**
 * A version's lifecycle (channel, deprecation, sunset, release, brownouts) as its OpenAPI document's `info` states it.
 * @module
 */
import { toIsoDate } from '../core/iso-date'
import type { Version } from '../describe/versions'

type Json = Record<string, unknown>

/**
 * Writes a version's lifecycle into its document's `info` (`x-channel` of a preview, `x-deprecated-at`, `x-sunset-at`,
 * `x-after-sunset`, `x-released-at`, `x-brownouts`, and a paragraph each), the same whatever the time.
 * @example
 * ```ts
 * describeLifecycle(document.info, version) // info['x-deprecated-at'] = '2026-01-01', info.description: 'This version is deprecated…'
 * ```
 */
export function describeLifecycle (info: Json, version: Version): void {
  // So that `check` knows a saved preview document once the preview is promoted or withdrawn (decision 0275).
  if (version.channel === 'preview') info['x-channel'] = 'preview'
  const paragraph = (notes: readonly string[]): void => {
    if (notes.length > 0) info.description = [info.description, notes.join(' ')].filter((text) => typeof text === 'string' && text !== '').join('\n\n')
  }
  const lifecycle: string[] = []
  if (version.deprecatedAt !== undefined) {
    info['x-deprecated-at'] = toIsoDate(version.deprecatedAt)
    lifecycle.push(`This version is deprecated (since ${toIsoDate(version.deprecatedAt)}).`)
  }
  if (version.sunsetAt !== undefined) {
    info['x-sunset-at'] = toIsoDate(version.sunsetAt)
    info['x-after-sunset'] = version.afterSunset
    lifecycle.push(version.afterSunset === 'gone'
      ? `It stops being served on ${toIsoDate(version.sunsetAt)}: from then on, its requests are answered 410 Gone.`
      : `It stops being served on ${toIsoDate(version.sunsetAt)}.`)
  }
  if (version.link !== undefined && lifecycle.length > 0) lifecycle.push(`See ${version.link}.`)
  paragraph(lifecycle)
  const schedule: string[] = []
  if (version.releasedAt !== undefined) {
    info['x-released-at'] = version.releasedAt.toISOString()
    schedule.push(`This version is served from ${version.releasedAt.toISOString()}.`)
  }
  if (version.brownouts.length > 0) {
    const windows = version.brownouts.map(({ start, end }) => ({ start: start.toISOString(), end: end.toISOString() }))
    info['x-brownouts'] = windows
    schedule.push(`Scheduled brownouts, during which its requests are answered 410 Gone as after its sunset: ${windows.map(({ start, end }) => `${start} to ${end}`).join(', ')}.`)
  }
  paragraph(schedule)
}
