/**
 * Stage `lib/describe/`: what users write. `VersionBundle`: an API's versions, newest first, checked together.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { VersionerStructureError } from '../core/errors'
import { versionDate } from '../core/iso-date'
import { describeValue, idSafe } from '../core/json-schema'
import { kBundleInternals } from '../core/symbols'
import { ANOTHER_COPY, ofAnotherCopy } from '../core/other-copies'
import { bindVersionChange, changeBindings } from './version-change'
import { readVersionChange, type VersionChangeClass, type VersionChangeDescriptor } from './version-change-reader'
import { HeadVersion, Version, type VersionLifecycle } from './version'
import { checkReleaseOrder } from './release-dates'

export { HeadVersion, Version, type VersionLifecycle }

/**
 * Options of a `VersionBundle`, given as its last argument.
 * @example
 * ```ts
 * import { AsyncLocalStorage } from 'node:async_hooks'
 * const options: VersionBundleOptions = { apiVersionStorage: new AsyncLocalStorage<string | undefined>() } // shared with your code
 * const versions = new VersionBundle(new Version('2000-01-01'), options)
 * ```
 */
export interface VersionBundleOptions {
  /** Holds the version being served in the current async context (a new one by default). */
  apiVersionStorage?: AsyncLocalStorage<string | undefined>
}

/** What the rest of the library reads from a bundle. */
interface BundleInternals {
  /** The version changes, read, as the steps of the walk from HEAD ({@link generationSteps}). */
  readonly steps: readonly GenerationStep[]
  /** True when the application passed its own `apiVersionStorage` (so it reads it). */
  readonly customStorage: boolean
  /** Every released version (those with a future `releasedAt` included) and what each value names exactly. */
  readonly released: ReleasedVersions
  /** What each preview version value names (only its whole value): served only when its `access` allows. */
  readonly previewPicks: ReadonlyMap<string, ExactPick>
  /** What `migrateResponseBody(bundle, …)` and `renderWebhook(bundle, …)` keep for the bundle (the migration engine, webhooks), made on first use. */
  readonly standalone: { engine?: object, engines?: object, webhooks?: object }
  /**
   * How many applications serve the bundle and run its storage, and how many requests run inside it and are not
   * answered yet: the storage is disabled when both are none, after the last app closed.
   */
  readonly serving: { apps: number, inFlight: number }
}

/**
 * Released versions as picking reads them: values newest first, and what each value names exactly (a named date
 * version's plain date too), frozen; ../serve/release-clock.ts gives those released at an instant.
 */
export interface ReleasedVersions {
  readonly values: readonly string[]
  /** The date each value names (`versionDate`; the value itself for one naming none), in the order of `values`: read once, not per request. */
  readonly dates: readonly string[]
  readonly picks: ReadonlyMap<string, ExactPick>
}

/** A version value picked exactly: the version it names, and the value sent. */
interface ExactPick {
  readonly ok: true
  readonly version: string
  readonly requested: string
}

function exactPicksOf (values: readonly string[], valuesAreDates: boolean): ReadonlyMap<string, ExactPick> {
  const picks = new Map<string, ExactPick>()
  for (const value of values) {
    picks.set(value, Object.freeze({ ok: true as const, version: value, requested: value }))
    const date = valuesAreDates ? versionDate(value) : undefined
    if (date !== undefined && date !== value) picks.set(date, Object.freeze({ ok: true as const, version: value, requested: date }))
  }
  return picks
}

const RESERVED_VALUES = new Set(['unversioned', 'head'])

/** The arguments of `new VersionBundle(...)`: the HEAD version, the versions, and the options object. */
function bundleArguments (items: Array<HeadVersion | Version | VersionBundleOptions>): { head: HeadVersion, versions: Version[], options: VersionBundleOptions } {
  const args = [...items]
  const foreign = args.find((item) => ofAnotherCopy(item, Version) || ofAnotherCopy(item, HeadVersion))
  if (foreign !== undefined) throw new VersionerStructureError(`VersionBundle: argument ${args.indexOf(foreign) + 1} is a ${foreign.constructor.name} ${ANOTHER_COPY}.`)
  const last = args[args.length - 1]
  if (Array.isArray(last)) {
    throw new VersionerStructureError('VersionBundle was given an array; give the versions as arguments, newest first, not in a list: new VersionBundle(...versions).')
  }
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
  return { head, versions, options }
}

/** Checks the channels: previews first, a preview's date after the newest release's, and at least one release. */
function checkChannels (versions: readonly Version[]): Version[] {
  const firstRelease = versions.findIndex((version) => version.channel === 'release')
  if (firstRelease === -1) {
    throw new VersionerStructureError('A VersionBundle needs at least one released version (channel \'release\'): preview versions are served only to ' +
      'requests that name them, never by default.')
  }
  const misplaced = versions.slice(firstRelease).find((version) => version.channel === 'preview')
  if (misplaced !== undefined) {
    throw new VersionerStructureError(`Preview version '${misplaced.value}' is listed after released version '${versions[firstRelease].value}': ` +
      'list preview versions first (they are newer than every release, and their changes say how the newest release differs from them).')
  }
  const newest = versionDate(versions[firstRelease].value)
  for (const preview of versions.slice(0, firstRelease)) {
    const date = versionDate(preview.value)
    if (newest !== undefined && date !== undefined && date <= newest) {
      throw new VersionerStructureError(`Preview version '${preview.value}' is dated ${date}, not after the newest release '${versions[firstRelease].value}': ` +
        'date a preview after every release (the date it may be released on), so that promoting it keeps the order.')
    }
  }
  return versions.slice(firstRelease)
}

/** Checks the version values (unique, not reserved, distinct in `$id`s, none on the oldest, dates sorted); gives them and the released ones. */
function checkValues (versions: readonly Version[]): { values: string[], released: string[], valuesAreDates: boolean } {
  // Generated schemas are named `Name__<value>` with the value made $id-safe: two values must stay apart there.
  const idForms = new Map<string, string>()
  for (const version of versions) {
    const idForm = idSafe(version.value)
    const other = idForms.get(idForm)
    if (other === version.value) {
      throw new VersionerStructureError(`You tried to define two versions with the same value in the same VersionBundle: '${version.value}'.`)
    }
    if (RESERVED_VALUES.has(version.value)) {
      throw new VersionerStructureError(`Version value '${version.value}' is reserved (it names ${version.value === 'head' ? 'HEAD' : 'the unversioned routes'}).`)
    }
    if (other !== undefined) {
      throw new VersionerStructureError(`Version values '${other}' and '${version.value}' both become '${idForm}' in the $id of generated ` +
        'schemas (characters other than letters, digits, _, . and - become _): give them values that differ in those characters.')
    }
    idForms.set(idForm, version.value)
  }
  const releases = checkChannels(versions)
  checkReleaseOrder(releases)
  const values = releases.map((version) => version.value)
  const dates = values.map(versionDate)
  const valuesAreDates = dates.every((date) => date !== undefined)
  if (valuesAreDates) {
    const twice = dates.findIndex((date, index) => dates.indexOf(date) !== index)
    if (twice !== -1) {
      throw new VersionerStructureError(`Versions '${values[dates.indexOf(dates[twice])]}' and '${values[twice]}' have the same date ${dates[twice]}: ` +
        'date versions are ordered and waterfalled by their date, so each date may name one version only.')
    }
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
        ? ` Versions are listed newest first: if ${values.join(', ')} is oldest first, reverse it.`
        : ''))
  }
  return { values: versions.map((version) => version.value), released: values, valuesAreDates }
}

/** Reads every change class once (each bound to one version only; no converters on HEAD changes): the steps from HEAD. */
function readChanges (head: HeadVersion, versions: readonly Version[]): readonly GenerationStep[] {
  const owners = new Map<VersionChangeClass, string>()
  const step = (version: string, classes: readonly VersionChangeClass[]): GenerationStep => {
    const owner = version === 'head' ? 'HeadVersion' : `Version('${version}')`
    const changes = classes.map((cls) => {
      const previous = owners.get(cls)
      if (previous !== undefined) {
        throw new VersionerStructureError(previous === owner
          ? `Version change '${cls.name}' is listed twice in ${owner}: list each version change once (its converters would run twice).`
          : `You tried to bind version change '${cls.name}' to two different versions (${previous} and ${owner}). It is prohibited: ` +
            'each version change belongs to exactly one version of a bundle.')
      }
      owners.set(cls, owner)
      const descriptor = readVersionChange(cls, version)
      if (version === 'head' && descriptor.converters.length > 0) {
        throw new VersionerStructureError(`HeadVersion does not support request or response converters, but '${descriptor.name}' declares ` +
          `${descriptor.converters.map((converter) => converter.display).join(', ')}. HEAD changes only describe schemas and endpoints.`)
      }
      return descriptor
    })
    return Object.freeze({ origin: version === 'head' ? owner : version, changes: Object.freeze(changes) })
  }
  return Object.freeze([step('head', head.changes), ...versions.map((version) => step(version.value, version.changes))])
}

/**
 * The single source of truth for the versions of an API: an optional `HeadVersion`, then every `Version`
 * from newest to oldest (preview versions first), then optionally `{ apiVersionStorage }`. The structure is checked here: at least
 * one dated version, no duplicate values, ISO date versions sorted newest first, no changes on the oldest
 * version, no change in two versions of the bundle, no converters on HEAD changes. A change class may belong to
 * several bundles (a bundle built by a factory, several APIs).
 * @example
 * ```ts
 * declare const ReplaceUserAddressWithListOfAddresses: VersionChangeClass // your change of 2001-01-01
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
  /** The versions by value, for {@link get}. */
  readonly #byValue: ReadonlyMap<string, Version>
  /** Every version value (previews first), newest first: the order of the walk from HEAD. */
  readonly versionValues: readonly string[]
  /** The released version values, newest first: the versions every client may use (without previews). */
  readonly releasedValues: readonly string[]
  /** Holds the version being served in the current async context. */
  readonly apiVersionStorage: AsyncLocalStorage<string | undefined>
  /** True when every released version value is an ISO date (`YYYY-MM-DD`), possibly named (`2024-09-30.acacia`). */
  readonly valuesAreDates: boolean
  /** @internal */
  readonly [kBundleInternals]: BundleInternals

  constructor (...items: Array<HeadVersion | Version | VersionBundleOptions>) {
    const { head, versions, options } = bundleArguments(items)
    const { values, released, valuesAreDates } = checkValues(versions)
    const storage = options.apiVersionStorage ?? new AsyncLocalStorage<string | undefined>()
    if (!(storage instanceof AsyncLocalStorage)) {
      throw new VersionerStructureError('VersionBundle: apiVersionStorage must be an AsyncLocalStorage.')
    }

    const steps = readChanges(head, versions)

    // Bind only once the whole structure is known to be valid.
    for (const cls of head.changes) bindVersionChange(cls, 'head')
    for (const [cls, binding] of changeBindings(versions, storage, values, valuesAreDates)) bindVersionChange(cls, binding)

    this.headVersion = head
    this.versions = Object.freeze(versions)
    this.#byValue = new Map(versions.map((version) => [version.value, version]))
    this.versionValues = Object.freeze(values)
    const previews = values.filter((value) => !released.includes(value))
    this.releasedValues = Object.freeze(released)
    this.apiVersionStorage = storage
    this.valuesAreDates = valuesAreDates
    this[kBundleInternals] = Object.freeze({
      steps,
      customStorage: options.apiVersionStorage !== undefined,
      released: Object.freeze({ values: this.releasedValues, dates: Object.freeze(released.map((value) => versionDate(value) ?? value)), picks: exactPicksOf(released, valuesAreDates) }),
      previewPicks: exactPicksOf(previews, false),
      standalone: {},
      serving: { apps: 0, inFlight: 0 }
    })
    Object.freeze(this)
  }

  /** The versions, newest first. */
  [Symbol.iterator] (): Iterator<Version> {
    return this.versions[Symbol.iterator]()
  }

  /** The `Version` with this value, if the bundle holds it. */
  get (value: string): Version | undefined {
    return this.#byValue.get(value)
  }
}

/** One step of the walk from HEAD to the oldest version: the changes that give the next level. */
export interface GenerationStep {
  /** `'HeadVersion'` or the version holding the changes. */
  readonly origin: string
  readonly changes: readonly VersionChangeDescriptor[]
}

/** The walk of generation: HEAD changes, then each version's, newest first; step `k` gives level `k + 1` (0 is HEAD). */
export function generationSteps (bundle: VersionBundle): readonly GenerationStep[] {
  return bundle[kBundleInternals].steps
}
