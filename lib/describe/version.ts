/**
 * `Version` and `HeadVersion`: one version of an API, and the HEAD pseudo-version.
 * @module
 */
import type { FastifyRequest } from 'fastify'
import { VersionerStructureError } from '../core/errors'
import { versionDateOf } from '../core/iso-date'
import { describeValue } from '../core/json-schema'
import { readDeprecationDates } from './field-deprecation'
import { readBrownouts, readReleasedAt, type Brownout, type BrownoutWindow } from './release-dates'
import type { VersionChangeClass } from './version-change-reader'

/**
 * Lifecycle dates of a version, sent as `Deprecation` / `Sunset` / `Link` headers and shown in its document: `Date`s or
 * ISO 8601 strings, a date (`'2027-01-01'`, midnight UTC) or a date-time with its time zone.
 * @example
 * ```ts
 * const lifecycle: VersionLifecycle = { deprecatedAt: '2026-01-01', sunsetAt: '2026-07-01', link: 'https://example.com/upgrade' }
 * new Version('2000-01-01', lifecycle)
 * ```
 */
export interface VersionLifecycle {
  /** When the version was (or will be) deprecated. */
  deprecatedAt?: Date | string
  /** When the version stops (or stopped) being served; not before `deprecatedAt`. */
  sunsetAt?: Date | string
  /** A page about the deprecation (a migration guide), sent as `Link: <…>; rel="deprecation"` (`rel="sunset"` with only a `sunsetAt`); needs one of the dates. */
  link?: string
  /**
   * What happens after `sunsetAt`: `'serve'` (default) keeps serving the version; `'gone'` answers its requests
   * with 410 and an RFC 9457 `application/problem+json` body. `'gone'` needs `sunsetAt`.
   */
  afterSunset?: 'serve' | 'gone'
  /**
   * `'release'` (default) or `'preview'`: a preview version is served only to requests that name it exactly (and that
   * `access` allows), is never reached by waterfalling nor a default, and is left out of the docs, the documents and the
   * tools unless they ask for previews (docs/release-channels.md). Preview versions come first in a bundle.
   */
  channel?: 'release' | 'preview'
  /**
   * For a preview version: who may use it. A request it does not allow (false, or a throw) is answered exactly as a
   * request naming an unknown version. Runs for every request naming the preview, and for docs asking for previews.
   */
  access?: (request: FastifyRequest) => boolean | Promise<boolean>
  /**
   * For a release: the instant it starts being served, by the plugin's `now` clock, on every instance whatever its
   * deploy time. Before it, naming the version answers as an unknown version does, dates never waterfall to it, and
   * its documents and pages are absent. A `Date`, or an ISO 8601 string with a time zone (a date alone is midnight UTC).
   */
  releasedAt?: Date | string
  /**
   * Scheduled windows of a deprecated version with `afterSunset: 'gone'`, between `deprecatedAt` and `sunsetAt`: from
   * each `start` (included) to its `end` (excluded), by the `now` clock, its requests are answered as after its sunset.
   */
  brownouts?: readonly BrownoutWindow[]
}

const LIFECYCLE_KEYS = ['deprecatedAt', 'sunsetAt', 'link', 'afterSunset', 'channel', 'access', 'releasedAt', 'brownouts']

/** The `channel` option, checked (with `access`, which only a preview takes). */
function readChannel (lifecycle: VersionLifecycle, version: string): 'release' | 'preview' {
  const channel = lifecycle.channel ?? 'release'
  if (channel !== 'release' && channel !== 'preview') {
    throw new VersionerStructureError(`Version('${version}'): channel must be 'release' or 'preview'; got ${describeValue(channel)}.`)
  }
  if (lifecycle.access !== undefined && typeof lifecycle.access !== 'function') {
    throw new VersionerStructureError(`Version('${version}'): access must be a function of the request returning true or false; got ${describeValue(lifecycle.access)}.`)
  }
  if (lifecycle.access !== undefined && channel !== 'preview') {
    throw new VersionerStructureError(`Version('${version}'): access applies to preview versions only (channel: 'preview'); a release is served to every client.`)
  }
  return channel
}

/** The change arguments of a version, checked to be classes; `first` is the position of the first one, for messages. */
function changeClasses (changes: readonly unknown[], where: string, first: number, hint: string): readonly VersionChangeClass[] {
  changes.forEach((change, index) => {
    if (typeof change !== 'function') {
      throw new VersionerStructureError(`${where}: argument ${index + first} (${describeValue(change)}) is not a version change class${hint}.`)
    }
  })
  return Object.freeze([...changes] as VersionChangeClass[])
}

/** Throws when the last argument, read as the lifecycle object, is an array of changes or a change's instance or look-alike. */
function checkNotChanges (last: unknown, where: string): void {
  if (typeof last !== 'object' || last === null) return
  if (Array.isArray(last)) {
    throw new VersionerStructureError(`${where} was given an array; give the version change classes as arguments, not in a list: new Version('2001-01-01', ChangeA, ChangeB).`)
  }
  const prototype: unknown = Object.getPrototypeOf(last)
  const instance = prototype !== Object.prototype && prototype !== null
  if (!instance && !('instructionsToMigrateToPreviousVersion' in last) && !('description' in last)) return
  const name = instance ? (last as { constructor: { name: string } }).constructor.name : 'an object'
  throw new VersionerStructureError(`${where} was given ${instance ? `an instance of ${name} (new ${name}())` : 'an object with a description or instructions'}, ` +
    `not a version change class: pass the class itself, new Version('2001-01-01', ${instance ? name : 'MyChange'}), a class extending VersionChange.`)
}

/**
 * One API version: its value (an ISO date such as `'2001-01-01'`, or any string with
 * `apiVersionFormat: 'string'`) and the version changes that made it differ from the version before it.
 * A `Date` is accepted and stored as its ISO date (UTC). An optional last argument gives lifecycle dates.
 * @example
 * ```ts
 * declare const ReplaceUserAddressWithListOfAddresses: VersionChangeClass, AddInvoices: VersionChangeClass // your changes
 * new Version('2001-01-01', ReplaceUserAddressWithListOfAddresses)
 * new Version('2000-01-01', { deprecatedAt: '2025-01-01', sunsetAt: '2026-01-01', link: 'https://example.com/upgrade' })
 * new Version('1999-01-01', { sunsetAt: '2025-06-30', afterSunset: 'gone' }) // 410 Gone after that date
 * new Version('2027-01-01.preview', { channel: 'preview', access: (request) => request.headers['x-beta'] === 'yes' })
 * new Version('2027-01-01', AddInvoices, { releasedAt: '2027-01-01T09:00:00Z' }) // served from that instant on
 * ```
 */
export class Version {
  /** The version value. */
  readonly value: string
  /** The version change classes that made this version. */
  readonly changes: readonly VersionChangeClass[]
  /** When the version was (or will be) deprecated. */
  readonly deprecatedAt: Date | undefined
  /** When the version stops (or stopped) being served. */
  readonly sunsetAt: Date | undefined
  /** A page about the deprecation. */
  readonly link: string | undefined
  /** What happens after `sunsetAt`: served as before (`'serve'`), or answered 410 (`'gone'`). */
  readonly afterSunset: 'serve' | 'gone'
  /** `'release'`, or `'preview'` for a version served only to requests that name it (and `access` allows). */
  readonly channel: 'release' | 'preview'
  /** Who may use a preview version (`undefined`: whoever names it). */
  readonly access: ((request: FastifyRequest) => boolean | Promise<boolean>) | undefined
  /** When a release starts being served (`undefined`: from start-up). */
  readonly releasedAt: Date | undefined
  /** Scheduled brownouts before the sunset, sorted by start. */
  readonly brownouts: readonly Brownout[]

  constructor (value: string | Date, ...changes: Array<VersionChangeClass | VersionLifecycle>) {
    if (value instanceof Date) {
      if (Number.isNaN(value.getTime())) throw new VersionerStructureError('Version(value): the Date given is invalid.')
      this.value = versionDateOf(value)
    } else if (typeof value === 'string' && value.trim() !== '' && value.trim() === value) {
      this.value = value
    } else {
      throw new VersionerStructureError(`Version(value): the value must be a non-empty string without surrounding spaces, or a Date; got ${describeValue(value)}.`)
    }
    // Every answer names its version in a header: a character Node refuses there would make each one a 500.
    if (/[^\t\x20-\x7e\x80-\xff]/.test(this.value)) {
      throw new VersionerStructureError(`Version(value): ${JSON.stringify(this.value)} cannot be sent in an HTTP header (every answer names its version in one); ` +
        'use printable ASCII (or Latin-1) characters, no control characters.')
    }
    const last = changes[changes.length - 1]
    checkNotChanges(last, `Version('${this.value}')`)
    const lifecycle = typeof last === 'object' && last !== null ? changes.pop() as VersionLifecycle : {}
    this.changes = changeClasses(changes, `Version('${this.value}')`, 2, '; only the last argument may be an object of lifecycle dates')
    const unknown = Object.keys(lifecycle).filter((key) => !LIFECYCLE_KEYS.includes(key))
    if (unknown.length > 0) {
      throw new VersionerStructureError(`Version('${this.value}'): unknown lifecycle option(s) ${unknown.join(', ')}; use ${LIFECYCLE_KEYS.join(', ')}.`)
    }
    this.channel = readChannel(lifecycle, this.value)
    this.access = lifecycle.access
    const { deprecatedAt, sunsetAt, link } = readDeprecationDates(lifecycle, `Version('${this.value}')`, '')
    this.deprecatedAt = deprecatedAt
    this.sunsetAt = sunsetAt
    // A Link header is sent with the Deprecation or Sunset it is about; a link alone would never reach a client.
    if (link !== undefined && deprecatedAt === undefined && sunsetAt === undefined) {
      throw new VersionerStructureError(`Version('${this.value}'): link is sent only with a deprecatedAt or a sunsetAt (Link: <…>; rel="deprecation" ` +
        'or rel="sunset", beside the Deprecation or Sunset header); add the date the page is about, or leave link out.')
    }
    this.link = link
    const afterSunset = lifecycle.afterSunset ?? 'serve'
    if (afterSunset !== 'serve' && afterSunset !== 'gone') {
      throw new VersionerStructureError(`Version('${this.value}'): afterSunset must be 'serve' or 'gone'; got ${describeValue(afterSunset)}.`)
    }
    if (afterSunset === 'gone' && this.sunsetAt === undefined) {
      throw new VersionerStructureError(`Version('${this.value}'): afterSunset 'gone' needs a sunsetAt date (when the version stops being served).`)
    }
    this.afterSunset = afterSunset
    this.releasedAt = readReleasedAt(lifecycle.releasedAt, `Version('${this.value}')`, this)
    this.brownouts = readBrownouts(lifecycle.brownouts, `Version('${this.value}')`, this)
    Object.freeze(this)
  }
}

/**
 * The HEAD pseudo-version, passed first to a `VersionBundle`. Its changes turn HEAD (the schemas the
 * handlers are written against) into the latest public version; they hold instructions only, no converters.
 * @example
 * ```ts
 * declare const RemoveInternalFieldsFromLatest: VersionChangeClass // a change hiding HEAD's internal fields
 * new HeadVersion(RemoveInternalFieldsFromLatest)
 * ```
 */
export class HeadVersion {
  /** The version change classes between HEAD and the latest version. */
  readonly changes: readonly VersionChangeClass[]

  constructor (...changes: VersionChangeClass[]) {
    this.changes = changeClasses(changes, 'HeadVersion', 1, '')
    Object.freeze(this)
  }
}
