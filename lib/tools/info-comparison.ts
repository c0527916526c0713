/**
 * What `check` compares of a version's document `info`: what clients act on there. The version a request naming none
 * is served as (`x-api-version-default`), and the version's lifecycle as the plugin writes it (`x-deprecated-at`,
 * `x-sunset-at`, `x-after-sunset`, `x-released-at`, `x-brownouts`): the `Deprecation` and `Sunset` headers its clients
 * read and plan by. A sunset moved earlier than the saved document announced breaks that plan, and so does a first
 * sunset already past when `check` runs (no plan was possible); every other lifecycle change is a note.
 * @module
 */
import { isDeepStrictEqual } from 'node:util'
import { toIsoDate } from '../core/iso-date'
import { report, type Comparison } from './document-places'

type Info = Record<string, unknown>

/** A document's `info`, or an empty one. */
function infoOf (document: unknown): Info {
  const info = typeof document === 'object' && document !== null ? (document as { info?: unknown }).info : undefined
  return typeof info === 'object' && info !== null ? info as Info : {}
}

/**
 * A request naming no version was served as this version and no longer is (refused, or served as another): a break
 * for the clients that never send one. That another version becomes the default is a note.
 */
function compareDefaultVersion (comparison: Comparison, saved: unknown, current: unknown): void {
  const { version } = comparison
  if (saved === current) return
  const now = current === undefined ? 'are refused (400) or served as a custom default decides' : `are served as ${String(current)}`
  if (saved === version) report(comparison, '', 'requests naming no version', `${now}; they were served as ${version}`, true)
  else if (current === version) report(comparison, '', 'requests naming no version', `are served as ${version}`, false)
}

/** The lifecycle keys of `info`, with the words a change of each is reported in. */
const LIFECYCLE: ReadonlyArray<readonly [string, string]> = [
  ['x-deprecated-at', 'deprecated since'],
  ['x-sunset-at', 'sunset'],
  ['x-after-sunset', 'after its sunset'],
  ['x-released-at', 'released at'],
  ['x-brownouts', 'brownouts']
]

/** A lifecycle value as a report shows it. */
function shown (value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map((window: { start?: unknown, end?: unknown }) => `${String(window.start)} to ${String(window.end)}`).join(', ')
  return value === undefined ? 'none' : String(value)
}

/**
 * Compares the two documents' `info`: the default version, then each lifecycle value that changed, as a note, but a
 * sunset moved earlier (ISO dates compare as strings), which is a break: clients were told the saved one; and a first
 * sunset on or before today (the clock read now), a break too: its clients are told nothing before it.
 * @example
 * ```ts
 * compareInfo(comparison, { info: { 'x-sunset-at': '2027-03-01' } }, { info: { 'x-sunset-at': '2026-12-01' } })
 * // 2000-01-01 lifecycle: sunset 2027-03-01 → 2026-12-01, earlier than announced (breaking)
 * ```
 */
export function compareInfo (comparison: Comparison, saved: unknown, current: unknown): void {
  const [before, after] = [infoOf(saved), infoOf(current)]
  compareDefaultVersion(comparison, before['x-api-version-default'], after['x-api-version-default'])
  for (const [key, words] of LIFECYCLE) {
    const [was, now] = [before[key], after[key]]
    if (isDeepStrictEqual(was, now)) continue
    const earlier = key === 'x-sunset-at' && typeof was === 'string' && typeof now === 'string' && now < was
    // A first sunset already past: its clients are answered as after it from this release on, with no notice given.
    const past = key === 'x-sunset-at' && was === undefined && typeof now === 'string' && now <= toIsoDate(new Date(Date.now()))
    const said = earlier ? ', earlier than announced' : past ? ', already past: announced by none, its clients get no notice' : ''
    report(comparison, '', 'lifecycle', `${words} ${shown(was)} → ${shown(now)}${said}`, earlier || past)
  }
}
