/**
 * A version's schedule in its document: `info['x-released-at']` (its `releasedAt`) and `info['x-brownouts']` (its
 * brownout windows), as ISO instants, with a sentence for readers in `info.description`. The document says the same
 * whatever the time: only whether it is served depends on the clock.
 * @module
 */
import type { Version } from '../describe/versions'

/**
 * Writes a version's `releasedAt` and brownouts into its document's `info` (nothing when it has neither).
 * @example
 * ```ts
 * documentSchedule(document, versions.get('2000-01-01')) // info['x-brownouts']: [{ start: '2026-11-02T14:00:00.000Z', end: … }]
 * ```
 */
export function documentSchedule (document: Record<string, unknown>, version: Version): void {
  if (version.releasedAt === undefined && version.brownouts.length === 0) return
  const info = (document.info ?? {}) as Record<string, unknown>
  const notes: string[] = []
  if (version.releasedAt !== undefined) {
    info['x-released-at'] = version.releasedAt.toISOString()
    notes.push(`This version is served from ${version.releasedAt.toISOString()}.`)
  }
  if (version.brownouts.length > 0) {
    const windows = version.brownouts.map(({ start, end }) => ({ start: start.toISOString(), end: end.toISOString() }))
    info['x-brownouts'] = windows
    notes.push(`Scheduled brownouts, during which its requests are answered 410 Gone as after its sunset: ${windows.map(({ start, end }) => `${start} to ${end}`).join(', ')}.`)
  }
  info.description = [info.description, notes.join(' ')].filter((text) => typeof text === 'string' && text !== '').join('\n\n')
  document.info = info
}
