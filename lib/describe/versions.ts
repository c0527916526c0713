/**
 * Stage `lib/describe/`: what users write (versions, version changes, instructions, converters, `versioned(...)`).
 *
 * `Version`, `HeadVersion` and `VersionBundle`: the list of versions of an API, newest first, each with the
 * version changes that made it. The bundle checks the whole structure when it is built.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { VersionerStructureError } from '../core/errors'
import { toIsoDate, versionDate } from '../core/iso-date'
import { describeValue, idSafe } from '../core/json-schema'
import { kBundleInternals } from '../core/symbols'
import { bindVersionChange, type VersionChangeBinding } from './version-change'
import { readVersionChange, type VersionChangeClass, type VersionChangeDescriptor } from './version-change-reader'

/** Lifecycle dates of a version, sent as `Deprecation` / `Sunset` / `Link` headers and shown in its document. */
export interface VersionLifecycle {
  /** When the version was (or will be) deprecated. */
  deprecatedAt?: Date | string
  /** When the version stops (or stopped) being served; not before `deprecatedAt`. */
  sunsetAt?: Date | string
  /** A page about the deprecation (a migration guide), sent as `Link: <…>; rel="deprecation"`. */
  link?: string
  /**
   * What happens after `sunsetAt`: `'serve'` (default) keeps serving the version; `'gone'` answers its requests
   * with 410 and an RFC 9457 `application/problem+json` body. `'gone'` needs `sunsetAt`.
   */
  afterSunset?: 'serve' | 'gone'
}

/** True for a URL that can stand inside `<…>` in a `Link` header. */
function isHeaderSafeUrl (value: unknown): value is string {
  // Printable ASCII only (so no spaces), and none of the characters a URL must escape.
  if (typeof value !== 'string' || value === '' || /[^\x21-\x7e]|["<>\\^`{|}]/.test(value)) return false
  return value.startsWith('/') || URL.canParse(value)
}

function readDate (value: unknown, what: string, version: string): Date | undefined {
  if (value === undefined) return undefined
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : undefined
  if (date === undefined || Number.isNaN(date.getTime())) {
    throw new VersionerStructureError(`Version('${version}'): ${what} must be a Date or a date string; got ${describeValue(value)}.`)
  }
  return new Date(date.getTime())
}

/**
 * One API version: its value (an ISO date such as `'2001-01-01'`, or any string with
 * `apiVersionFormat: 'string'`) and the version changes that made it differ from the version before it.
 * A `Date` is accepted and stored as its ISO date (UTC). An optional last argument gives lifecycle dates.
 * @example
 * ```ts
 * new Version('2001-01-01', ReplaceUserAddressWithListOfAddresses)
 * new Version('2000-01-01', { deprecatedAt: '2025-01-01', sunsetAt: '2026-01-01', link: 'https://example.com/upgrade' })
 * new Version('1999-01-01', { sunsetAt: '2025-06-30', afterSunset: 'gone' }) // 410 Gone after that date
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

  constructor (value: string | Date, ...changes: Array<VersionChangeClass | VersionLifecycle>) {
    if (value instanceof Date) {
      if (Number.isNaN(value.getTime())) throw new VersionerStructureError('Version(value): the Date given is invalid.')
      this.value = toIsoDate(value)
    } else if (typeof value === 'string' && value.trim() !== '' && value.trim() === value) {
      this.value = value
    } else {
      throw new VersionerStructureError(`Version(value): the value must be a non-empty string without surrounding spaces, or a Date; got ${describeValue(value)}.`)
    }
    const last = changes[changes.length - 1]
    const lifecycle = typeof last === 'object' && last !== null ? changes.pop() as VersionLifecycle : {}
    for (const [index, change] of changes.entries()) {
      if (typeof change !== 'function') {
        throw new VersionerStructureError(`Version('${this.value}'): argument ${index + 2} (${describeValue(change)}) is not a version change class; ` +
          'only the last argument may be an object of lifecycle dates.')
      }
    }
    this.changes = Object.freeze([...changes] as VersionChangeClass[])
    const unknown = Object.keys(lifecycle).filter((key) => !['deprecatedAt', 'sunsetAt', 'link', 'afterSunset'].includes(key))
    if (unknown.length > 0) {
      throw new VersionerStructureError(`Version('${this.value}'): unknown lifecycle option(s) ${unknown.join(', ')}; use deprecatedAt, sunsetAt, link, afterSunset.`)
    }
    this.deprecatedAt = readDate(lifecycle.deprecatedAt, 'deprecatedAt', this.value)
    this.sunsetAt = readDate(lifecycle.sunsetAt, 'sunsetAt', this.value)
    if (this.deprecatedAt !== undefined && this.sunsetAt !== undefined && this.sunsetAt < this.deprecatedAt) {
      throw new VersionerStructureError(`Version('${this.value}'): sunsetAt must not be earlier than deprecatedAt (RFC 9745).`)
    }
    if (lifecycle.link !== undefined && !isHeaderSafeUrl(lifecycle.link)) {
      throw new VersionerStructureError(`Version('${this.value}'): link must be an absolute URL or a path starting with '/', without ` +
        `spaces, quotes, '<' or '>' (it goes into a Link header); got ${describeValue(lifecycle.link)}.`)
    }
    this.link = lifecycle.link
    const afterSunset = lifecycle.afterSunset ?? 'serve'
    if (afterSunset !== 'serve' && afterSunset !== 'gone') {
      throw new VersionerStructureError(`Version('${this.value}'): afterSunset must be 'serve' or 'gone'; got ${describeValue(afterSunset)}.`)
    }
    if (afterSunset === 'gone' && this.sunsetAt === undefined) {
      throw new VersionerStructureError(`Version('${this.value}'): afterSunset 'gone' needs a sunsetAt date (when the version stops being served).`)
    }
    this.afterSunset = afterSunset
    Object.freeze(this)
  }
}

/**
 * The HEAD pseudo-version, passed first to a `VersionBundle`. Its changes turn HEAD (the schemas the
 * handlers are written against) into the latest public version; they hold instructions only, no converters.
 * @example
 * ```ts
 * new HeadVersion(RemoveInternalFieldsFromLatest)
 * ```
 */
export class HeadVersion {
  /** The version change classes between HEAD and the latest version. */
  readonly changes: readonly VersionChangeClass[]

  constructor (...changes: VersionChangeClass[]) {
    for (const [index, change] of changes.entries()) {
      if (typeof change !== 'function') {
        throw new VersionerStructureError(`HeadVersion: argument ${index + 1} (${describeValue(change)}) is not a version change class.`)
      }
    }
    this.changes = Object.freeze([...changes])
    Object.freeze(this)
  }
}

/** Options of a `VersionBundle`, given as its last argument. */
export interface VersionBundleOptions {
  /** Holds the version being served in the current async context (a new one by default). */
  apiVersionStorage?: AsyncLocalStorage<string | undefined>
}

/** What the rest of the library reads from a bundle. */
export interface BundleInternals {
  /** Version changes of `HeadVersion`, read. */
  readonly headChanges: readonly VersionChangeDescriptor[]
  /** Version changes of each version, read, by version value. */
  readonly changesByVersion: ReadonlyMap<string, readonly VersionChangeDescriptor[]>
  /** True when the application passed its own `apiVersionStorage` (so it reads it). */
  readonly customStorage: boolean
}

const RESERVED_VALUES = new Set(['unversioned', 'head'])

/**
 * The single source of truth for the versions of an API: an optional `HeadVersion`, then every `Version`
 * from newest to oldest, then optionally `{ apiVersionStorage }`. The structure is checked here: at least
 * one dated version, no duplicate values, ISO date versions sorted newest first, no changes on the oldest
 * version, no change in two versions of the bundle, no converters on HEAD changes. A change class may belong to
 * several bundles (a bundle built by a factory, several APIs).
 * @example
 * ```ts
 * const versions = new VersionBundle(
 *   new HeadVersion(),
 *   new Version('2001-01-01', ReplaceUserAddressWithListOfAddresses),
 *   new Version('2000-01-01')
 * )
 * ```
 */
export class VersionBundle implements Iterable<Version> {
  /** The HEAD pseudo-version. */
  readonly headVersion: HeadVersion
  /** The versions, newest first. */
  readonly versions: readonly Version[]
  /** The version values, newest first. */
  readonly versionValues: readonly string[]
  /** Holds the version being served in the current async context. */
  readonly apiVersionStorage: AsyncLocalStorage<string | undefined>
  /** True when every version value is an ISO date (`YYYY-MM-DD`), possibly named (`2024-09-30.acacia`). */
  readonly valuesAreDates: boolean
  /** @internal */
  readonly [kBundleInternals]: BundleInternals

  constructor (...items: Array<HeadVersion | Version | VersionBundleOptions>) {
    const args = [...items]
    const last = args[args.length - 1]
    const options: VersionBundleOptions = last !== undefined && !(last instanceof Version) && !(last instanceof HeadVersion)
      ? args.pop() as VersionBundleOptions
      : {}
    if (typeof options !== 'object' || options === null) {
      throw new VersionerStructureError(`VersionBundle: the last argument must be a Version or an options object; got ${describeValue(options)}.`)
    }
    const unknownOptions = Object.keys(options).filter((key) => key !== 'apiVersionStorage')
    if (unknownOptions.length > 0) {
      throw new VersionerStructureError(`VersionBundle: unknown option(s) ${unknownOptions.join(', ')}; the options object takes apiVersionStorage.`)
    }
    const hasHead = args[0] instanceof HeadVersion
    const head = hasHead ? args.shift() as HeadVersion : new HeadVersion()
    args.forEach((item, index) => {
      const position = index + (hasHead ? 2 : 1)
      if (item instanceof HeadVersion) throw new VersionerStructureError(`VersionBundle: HeadVersion must be the first argument, not argument ${position}.`)
      if (!(item instanceof Version)) {
        throw new VersionerStructureError(`VersionBundle: argument ${position} (${describeValue(item)}) is not a Version.`)
      }
    })
    const versions = args as Version[]
    if (versions.length === 0) throw new VersionerStructureError('You must define at least one non-head version in a VersionBundle.')
    const seen = new Set<string>()
    // Generated schemas are named `Name__<value>` with the value made $id-safe: two values must stay apart there.
    const idForms = new Map<string, string>()
    for (const version of versions) {
      if (seen.has(version.value)) {
        throw new VersionerStructureError(`You tried to define two versions with the same value in the same VersionBundle: '${version.value}'.`)
      }
      if (RESERVED_VALUES.has(version.value)) {
        throw new VersionerStructureError(`Version value '${version.value}' is reserved (it names ${version.value === 'head' ? 'HEAD' : 'the unversioned routes'}).`)
      }
      const idForm = idSafe(version.value)
      const other = idForms.get(idForm)
      if (other !== undefined) {
        throw new VersionerStructureError(`Version values '${other}' and '${version.value}' both become '${idForm}' in the $id of generated ` +
          'schemas (characters other than letters, digits, _, . and - become _): give them values that differ in those characters.')
      }
      idForms.set(idForm, version.value)
      seen.add(version.value)
    }
    const values = versions.map((version) => version.value)
    const dates = values.map(versionDate)
    const valuesAreDates = dates.every((date) => date !== undefined)
    if (valuesAreDates) {
      const byDate = new Map<string, string>()
      values.forEach((value, index) => {
        const date = dates[index] as string
        const other = byDate.get(date)
        if (other !== undefined) {
          throw new VersionerStructureError(`Versions '${other}' and '${value}' have the same date ${date}: date versions are ordered and ` +
            'waterfalled by their date, so each date may name one version only.')
        }
        byDate.set(date, value)
      })
      const sorted = values.map((value, index) => [dates[index] as string, value] as const).sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0)).map(([, value]) => value)
      if (sorted.some((value, index) => value !== values[index])) {
        throw new VersionerStructureError(`Versions are not sorted correctly: got ${values.join(', ')}. Sort them newest first: ${sorted.join(', ')}.`)
      }
    }
    const oldest = versions[versions.length - 1]
    if (oldest.changes.length > 0) {
      throw new VersionerStructureError(`The oldest version '${oldest.value}' cannot have any version changes. Version changes describe how ` +
        'to migrate to and from the version before them, and there is no version before the oldest one.' +
        (versions.length > 1 && versions[0].changes.length === 0
          ? ` Versions are listed newest first: if ${versions.map((version) => version.value).join(', ')} is oldest first, reverse it.`
          : ''))
    }
    const storage = options.apiVersionStorage ?? new AsyncLocalStorage<string | undefined>()
    if (!(storage instanceof AsyncLocalStorage)) {
      throw new VersionerStructureError('VersionBundle: apiVersionStorage must be an AsyncLocalStorage.')
    }

    const owners = new Map<VersionChangeClass, string>()
    const claim = (cls: VersionChangeClass, owner: string): void => {
      const previous = owners.get(cls)
      if (previous !== undefined) {
        throw new VersionerStructureError(`You tried to bind version change '${cls.name}' to two different versions ` +
          `(${previous} and ${owner}). It is prohibited: each version change belongs to exactly one version of a bundle.`)
      }
      owners.set(cls, owner)
    }
    const headChanges = head.changes.map((cls) => {
      if (typeof cls === 'function') claim(cls, 'HeadVersion')
      const descriptor = readVersionChange(cls, 'head')
      if (descriptor.converters.length > 0) {
        throw new VersionerStructureError(`HeadVersion does not support request or response converters, but '${descriptor.name}' declares ` +
          `${descriptor.converters.map((converter) => converter.display).join(', ')}. HEAD changes only describe schemas and endpoints.`)
      }
      return descriptor
    })
    const changesByVersion = new Map<string, readonly VersionChangeDescriptor[]>()
    for (const version of versions) {
      changesByVersion.set(version.value, Object.freeze(version.changes.map((cls) => {
        if (typeof cls === 'function') claim(cls, `Version('${version.value}')`)
        return readVersionChange(cls, version.value)
      })))
    }

    // Bind only once the whole structure is known to be valid.
    for (const cls of head.changes) bindVersionChange(cls, 'head')
    for (const version of versions) {
      const binding: VersionChangeBinding = { version: version.value, storage, order: values, dates: valuesAreDates }
      for (const cls of version.changes) bindVersionChange(cls, binding)
    }

    this.headVersion = head
    this.versions = Object.freeze(versions)
    this.versionValues = Object.freeze(values)
    this.apiVersionStorage = storage
    this.valuesAreDates = valuesAreDates
    this[kBundleInternals] = Object.freeze({ headChanges: Object.freeze(headChanges), changesByVersion, customStorage: options.apiVersionStorage !== undefined })
    Object.freeze(this)
  }

  /** The versions, newest first. */
  [Symbol.iterator] (): Iterator<Version> {
    return this.versions[Symbol.iterator]()
  }

  /** The `Version` with this value, if the bundle holds it. */
  get (value: string): Version | undefined {
    return this.versions.find((version) => version.value === value)
  }
}

/** One step of the walk from HEAD to the oldest version: the changes that give the next level. */
export interface GenerationStep {
  /** `'HeadVersion'` or the version holding the changes. */
  readonly origin: string
  readonly changes: readonly VersionChangeDescriptor[]
}

/**
 * The walk of schema and route generation: HEAD changes (giving the latest version), then each version's
 * changes, newest first (each giving the version before it). Step `k` gives level `k + 1`; level 0 is HEAD.
 */
export function generationSteps (bundle: VersionBundle): GenerationStep[] {
  const internals = bundle[kBundleInternals]
  return [
    { origin: 'HeadVersion', changes: internals.headChanges },
    ...bundle.versionValues.map((value) => ({ origin: value, changes: internals.changesByVersion.get(value) ?? [] }))
  ]
}
