/**
 * The base classes of version changes, and each class's binding to its version in each bundle (for `isApplied`).
 * @module
 */
import type { AsyncLocalStorage } from 'node:async_hooks'
import { VersionChangeNotBoundError } from '../core/errors'
import { versionDate } from '../core/iso-date'
import type { Instruction } from './instructions'

/**
 * One atomic group of breaking changes: what changed and why (`description`), how schemas and endpoints
 * looked before it (`instructionsToMigrateToPreviousVersion`), and decorated converter methods that move
 * requests forward and responses back. Put the class in the `Version` that introduced the change.
 * @example
 * ```ts
 * const UserResource = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) }, { $id: 'UserResource' })
 * class ReplaceUserAddressWithListOfAddresses extends VersionChange {
 *   description = 'Users can now store several addresses, so they can choose among delivery locations.'
 *   instructionsToMigrateToPreviousVersion = [
 *     schema(UserResource).field('addresses').had({ name: 'address', type: Type.String() })
 *   ]
 *
 *   @ ConvertResponseToPreviousVersionFor(UserResource)
 *   addressesToSingleItem (response: ResponseInfo) {
 *     response.body.address = response.body.addresses[0]
 *     delete response.body.addresses
 *   }
 * }
 * ```
 */
export abstract class VersionChange {
  /**
   * `false`, so that `@fastify/autoload` skips a module whose export is a version change class (a folder of them
   * under `plugins/` or `routes/`) instead of calling the class as a Fastify plugin ([decision 0210](../../docs/decisions/0210-version-change-classes-are-not-autoloaded.md)).
   * @example
   * ```ts
   * RenameName.autoload // false: inherited, nothing to declare
   * ```
   */
  static readonly autoload = false
  /** What changed and why, for API clients (names the schema and fields; not the version). Required. */
  abstract readonly description: string
  /** How schemas, enums and endpoints looked in the previous version. Required; may be empty. */
  abstract readonly instructionsToMigrateToPreviousVersion: readonly Instruction[]
}

/** Where a version change class sits: its bundle's storage, its version, and the bundle's version order. */
export interface VersionChangeBinding {
  readonly version: string
  /** Held weakly: a class outlives the bundles built with it (one per test, by a factory). */
  readonly storage: WeakRef<AsyncLocalStorage<string | undefined>>
  /** Version values, newest first (without HEAD). */
  readonly order: readonly string[]
  /** Whether version values are ISO dates (so unknown values can be compared as dates). */
  readonly dates: boolean
}

// Which version of which bundle holds each class, keyed weakly: one binding per bundle storage (a class may be in
// several bundles), the latest replacing an earlier one, those of collected bundles dropped.
const bindings = new WeakMap<object, Array<VersionChangeBinding | 'head'>>()

/** Binds a version change class to a version of a bundle (done by each `VersionBundle` holding it). */
export function bindVersionChange (cls: object, binding: VersionChangeBinding | 'head'): void {
  const storage = binding === 'head' ? undefined : binding.storage.deref()
  const others = (bindings.get(cls) ?? []).filter((other) => other === 'head'
    ? binding !== 'head'
    : other.storage.deref() !== undefined && other.storage.deref() !== storage)
  bindings.set(cls, [binding, ...others])
}

/**
 * The binding of each change class of a bundle's versions (`order`, their values newest first): a preview's change is
 * applied in the preview only, never in a date between versions.
 */
export function changeBindings (
  versions: ReadonlyArray<{ readonly value: string, readonly channel: string, readonly changes: readonly object[] }>,
  storage: AsyncLocalStorage<string | undefined>, order: readonly string[], dates: boolean
): Map<object, VersionChangeBinding> {
  const places = new Map<object, VersionChangeBinding>()
  for (const version of versions) {
    const binding = { version: version.value, storage: new WeakRef(storage), order, dates: dates && version.channel === 'release' }
    for (const cls of version.changes) places.set(cls, binding)
  }
  return places
}

/** Whether the version `current` (of the binding's bundle) includes the change. */
export function appliedIn (binding: VersionChangeBinding, current: string): boolean {
  const currentIndex = binding.order.indexOf(current)
  if (currentIndex !== -1) return currentIndex <= binding.order.indexOf(binding.version)
  if (!binding.dates) return false
  const date = versionDate(current)
  return date !== undefined && (versionDate(binding.version) ?? binding.version) <= date
}

/**
 * A version change that changes business logic rather than (only) schemas. Business logic asks
 * `MyChange.isApplied` instead of comparing versions: it is true when the version being served includes
 * the change, and for work done outside any versioned request. Use sparingly: every side effect leaks
 * versioning into business logic.
 * @example
 * ```ts
 * class UsersGetWelcomeEmail extends VersionChangeWithSideEffects {
 *   description = 'Creating a user now sends a welcome email.'
 *   instructionsToMigrateToPreviousVersion = []
 * }
 * declare const user: { email: string }
 * declare function sendWelcomeEmail (user: { email: string }): Promise<void>
 * // in a handler:
 * if (UsersGetWelcomeEmail.isApplied) await sendWelcomeEmail(user)
 * ```
 */
export abstract class VersionChangeWithSideEffects extends VersionChange {
  /**
   * True when the version being served or rendered includes this change, and outside versioned requests; of several
   * bundles holding the class, the one serving the request answers.
   */
  static get isApplied (): boolean {
    const list = bindings.get(this)
    let bound = false
    if (list !== undefined) {
      for (const binding of list) {
        if (binding === 'head') continue
        bound = true
        const current = binding.storage.deref()?.getStore()
        if (current !== undefined) return appliedIn(binding, current)
      }
    }
    if (!bound) throw new VersionChangeNotBoundError(this.name)
    return true
  }
}
