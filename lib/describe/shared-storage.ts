/**
 * Two APIs of one application whose bundles share an `apiVersionStorage`: the storage holds only a version value, so
 * `isApplied` answers from the bundle that bound a change last, whichever API serves the request.
 * @module
 */
import { VersionerStructureError } from '../core/errors'
import { appliedIn, changeBindings, type VersionChangeBinding } from './version-change'
import type { VersionBundle } from './versions'

/** A bundle served by an API of the application, and the API's name (its `apiName`). */
export interface ServedBundle {
  readonly bundle: VersionBundle
  readonly api: string
}

/** Where each version change class of a bundle stands (HEAD's are bound to no version: `isApplied` never reads them). */
function placesOf (bundle: VersionBundle): Map<object, VersionChangeBinding> {
  return changeBindings(bundle.versions, bundle.apiVersionStorage, bundle.versionValues, bundle.valuesAreDates)
}

/** The first change `holder` holds that answers a version of `served` otherwise than `served` does, as a message. */
function firstMisanswer (holder: ServedBundle, served: ServedBundle): string | undefined {
  const own = placesOf(served.bundle)
  for (const [cls, binding] of placesOf(holder.bundle)) {
    const expected = own.get(cls)
    for (const value of served.bundle.versionValues) {
      // A change a bundle does not hold is applied in each of its versions, as outside versioned requests.
      const wanted = expected === undefined || appliedIn(expected, value)
      if (appliedIn(binding, value) === wanted) continue
      const name = (cls as { name: string }).name
      return `Version change '${name}' is held by API '${holder.api}' in Version('${binding.version}') and ` +
        `${expected === undefined ? 'not' : `in Version('${expected.version}')`} by API '${served.api}', and both bundles share one apiVersionStorage: ` +
        `a storage holds only a version value, so ${name}.isApplied cannot tell the APIs apart, and in version '${value}' of API '${served.api}' ` +
        `it may be ${String(!wanted)} instead of ${String(wanted)}. Give each VersionBundle its own apiVersionStorage (leave the option out), ` +
        'or hold the change in the same version of both.'
    }
  }
  return undefined
}

/**
 * Throws `VersionerStructureError` when `added` shares its storage with the bundle of another API of the application
 * and a version change of either would answer `isApplied` wrongly for one of them.
 * @example
 * ```ts
 * checkSharedStorage({ bundle, api: 'partner' }, [{ bundle: publicBundle, api: 'root' }])
 * ```
 */
export function checkSharedStorage (added: ServedBundle, others: readonly ServedBundle[]): void {
  for (const other of others) {
    if (other.bundle === added.bundle || other.bundle.apiVersionStorage !== added.bundle.apiVersionStorage) continue
    const message = firstMisanswer(other, added) ?? firstMisanswer(added, other)
    if (message !== undefined) throw new VersionerStructureError(message)
  }
}
