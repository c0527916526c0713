/**
 * A version's `releasedAt` and `brownouts`, read and checked ([decision 0082](../../docs/decisions/0082-releases-at-an-instant.md)).
 * @module
 */
import { VersionerStructureError } from '../core/errors'
import { describeValue, isSchemaObject } from '../core/json-schema'
import { isIsoDate, isLocalMidnight } from '../core/iso-date'
import { processWarning } from '../core/warnings'

/**
 * A scheduled brownout of a deprecated version, as written in its lifecycle: from `start` (included) to `end`
 * (excluded), each a `Date` or an ISO 8601 string with its offset (`'2026-11-02T14:00:00Z'`) or a date (midnight UTC).
 * @example
 * ```ts
 * new Version('2000-01-01', {
 *   deprecatedAt: '2026-01-01', sunsetAt: '2027-01-01', afterSunset: 'gone',
 *   brownouts: [{ start: '2026-11-02T14:00:00Z', end: '2026-11-02T15:00:00Z' }]
 * })
 * ```
 */
export interface BrownoutWindow {
  start: Date | string
  end: Date | string
}

/**
 * A brownout as a `Version` holds it: two instants, `start` included and `end` excluded.
 * @example
 * ```ts
 * declare const version: Version
 * const { start, end } = version.brownouts[0] // Date objects
 * ```
 */
export interface Brownout {
  readonly start: Date
  readonly end: Date
}

/** What the lifecycle checks read of the rest of a version's lifecycle. */
interface LifecycleFacts {
  readonly channel: 'release' | 'preview'
  readonly deprecatedAt: Date | undefined
  readonly sunsetAt: Date | undefined
  readonly afterSunset: 'serve' | 'gone'
  /** Read by the brownouts' check (a version's `releasedAt` is read first). */
  readonly releasedAt?: Date | undefined
}

/** An ISO 8601 date (midnight UTC) or date-time with its zone: without one, it would be each machine's local time. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/

/**
 * The instant `given` names: a `Date` (copied), or an ISO 8601 date or date-time with its time zone; `undefined` for
 * anything else. A `Date` at local midnight outside UTC (`new Date(2027, 0, 1)`), another instant in each time zone,
 * is warned of (`FSTVRS005`, naming `where`).
 * @example
 * ```ts
 * instantOf('2027-01-01T09:00:00Z', 'sunsetAt') // 2027-01-01T09:00:00.000Z; '2027-01-01T09:00:00' (local time) gives undefined
 * ```
 */
export function instantOf (given: unknown, where: string): Date | undefined {
  const iso = typeof given === 'string' && ISO_INSTANT.test(given) && isIsoDate(given.slice(0, 10))
  const date = given instanceof Date ? new Date(given.getTime()) : iso ? new Date(given as string) : undefined
  if (date === undefined || Number.isNaN(date.getTime())) return undefined
  if (given instanceof Date && date.getTimezoneOffset() !== 0 && isLocalMidnight(date)) {
    const local = `${String(date.getFullYear()).padStart(4, '0')}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`
    processWarning.FSTVRS005(where, date.toISOString(), local)
  }
  return date
}

/** An instant given as a `Date` or an ISO 8601 string ({@link instantOf}); `where` names it in the error. */
function readInstant (given: unknown, where: string): Date {
  const date = instantOf(given, where)
  if (date === undefined) {
    throw new VersionerStructureError(`${where} must be a Date or an ISO 8601 string with a time zone ('2027-01-01T09:00:00Z', ` +
      `or a date '2027-01-01' for midnight UTC), the same instant on every instance; got ${describeValue(given)}.`)
  }
  return date
}

/**
 * The `releasedAt` of a version (`display`: `Version('…')`): a release's instant, not before which it is served; a
 * sunset after it.
 */
export function readReleasedAt (given: unknown, display: string, facts: LifecycleFacts): Date | undefined {
  if (given === undefined) return undefined
  const releasedAt = readInstant(given, `${display}: releasedAt`)
  if (facts.channel !== 'release') {
    throw new VersionerStructureError(`${display}: releasedAt applies to released versions (channel 'release'); a preview is served to the ` +
      'requests its access allows, and is released by making it a release.')
  }
  if (facts.sunsetAt !== undefined && facts.sunsetAt <= releasedAt) {
    throw new VersionerStructureError(`${display}: sunsetAt (${facts.sunsetAt.toISOString()}) must be after releasedAt (${releasedAt.toISOString()}).`)
  }
  return releasedAt
}

/**
 * The `brownouts` of a version, sorted by start: each within its deprecation, after its `releasedAt`, none overlapping;
 * a version with brownouts has `afterSunset: 'gone'`.
 */
export function readBrownouts (given: unknown, display: string, facts: LifecycleFacts): readonly Brownout[] {
  if (given === undefined) return Object.freeze([])
  if (!Array.isArray(given)) throw new VersionerStructureError(`${display}: brownouts must be an array of { start, end }; got ${describeValue(given)}.`)
  if (given.length > 0 && (facts.afterSunset !== 'gone' || facts.deprecatedAt === undefined)) {
    throw new VersionerStructureError(`${display}: brownouts need deprecatedAt and afterSunset: 'gone' (with sunsetAt): a brownout answers ` +
      'requests of a deprecated version as they will be answered after its sunset, 410 Gone.')
  }
  const windows = given.map((window: unknown, index): Brownout => {
    const where = `${display}: brownouts[${index}]`
    const extra = isSchemaObject(window) ? Object.keys(window).filter((key) => key !== 'start' && key !== 'end') : []
    if (!isSchemaObject(window) || extra.length > 0) throw new VersionerStructureError(`${where} must be { start, end }; got ${describeValue(window)}.`)
    const start = readInstant(window.start, `${where}.start`)
    const end = readInstant(window.end, `${where}.end`)
    if (end <= start) throw new VersionerStructureError(`${where}: end (${end.toISOString()}) must be after start (${start.toISOString()}).`)
    const { deprecatedAt, sunsetAt } = facts as { deprecatedAt: Date, sunsetAt: Date }
    if (start < deprecatedAt || end > sunsetAt) {
      throw new VersionerStructureError(`${where} (${start.toISOString()} to ${end.toISOString()}) must lie between deprecatedAt ` +
        `(${deprecatedAt.toISOString()}) and sunsetAt (${sunsetAt.toISOString()}): brownouts announce a sunset to the clients of a deprecated version.`)
    }
    if (facts.releasedAt !== undefined && start < facts.releasedAt) {
      throw new VersionerStructureError(`${where} (${start.toISOString()} to ${end.toISOString()}) starts before releasedAt ` +
        `(${facts.releasedAt.toISOString()}): the version is not served then, so no client would see it.`)
    }
    return Object.freeze({ start, end })
  }).sort((a, b) => a.start.getTime() - b.start.getTime())
  windows.forEach((window, index) => {
    const next = windows[index + 1]
    if (next !== undefined && next.start < window.end) {
      throw new VersionerStructureError(`${display}: brownouts overlap (${window.start.toISOString()} to ${window.end.toISOString()} and ` +
        `${next.start.toISOString()} to ${next.end.toISOString()}): make them one window.`)
    }
  })
  return Object.freeze(windows)
}

/** A release and its instants, as the bundle's order check reads them. */
interface ReleaseInstant {
  readonly value: string
  readonly releasedAt: Date | undefined
  readonly sunsetAt: Date | undefined
  readonly afterSunset: 'serve' | 'gone'
}

/**
 * Checks that no release (newest first) is served before an older one, so the unreleased are always the newest, and
 * that none comes after every older one is gone.
 */
export function checkReleaseOrder (releases: readonly ReleaseInstant[]): void {
  checkServedBetween(releases)
  for (let index = 1; index < releases.length; index++) {
    const newer = releases[index - 1]
    const older = releases[index]
    if (older.releasedAt === undefined) continue
    if (newer.releasedAt === undefined || newer.releasedAt < older.releasedAt) {
      throw new VersionerStructureError(`Version '${newer.value}' would be served before the older '${older.value}' (releasedAt ` +
        `${older.releasedAt.toISOString()}): give '${newer.value}' a releasedAt at or after that instant.`)
    }
  }
}

/** Throws when a release comes after every older one is gone: until then no version would be served. */
function checkServedBetween (releases: readonly ReleaseInstant[]): void {
  let servedUntil = -Infinity
  let lastGone: ReleaseInstant | undefined
  for (let index = releases.length - 1; index >= 0; index--) {
    const release = releases[index]
    const from = release.releasedAt?.getTime() ?? -Infinity
    if (index < releases.length - 1 && from > servedUntil && lastGone !== undefined) {
      throw new VersionerStructureError(`Version '${release.value}' is released at ${(release.releasedAt as Date).toISOString()}, after every older ` +
        `version is gone ('${lastGone.value}' at its sunset, ${(lastGone.sunsetAt as Date).toISOString()}): in between no version would be ` +
        `served and every request would answer 410. Release '${release.value}' at or before that sunset, or move the sunset.`)
    }
    const until = release.afterSunset === 'gone' && release.sunsetAt !== undefined ? release.sunsetAt.getTime() : Infinity
    if (until >= servedUntil) {
      servedUntil = until
      lastGone = until === Infinity ? undefined : release
    }
  }
}
