/**
 * The base classes of version changes, and the binding between a version change class and the version of
 * the bundle that holds it (which `isApplied` reads).
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
 * class ReplaceUserAddressWithListOfAddresses extends VersionChange {
 *   description = 'Users can now store several addresses, so they can choose among delivery locations.'
 *   instructionsToMigrateToPreviousVersion = [
 *     schema(UserResource).field('addresses').had({ name: 'address', type: Type.String() })
 *   ]
 *
 *   @ConvertResponseToPreviousVersionFor(UserResource)
 *   addressesToSingleItem (response: ResponseInfo) {
 *     response.body.address = response.body.addresses[0]
 *     delete response.body.addresses
 *   }
 * }
 * ```
 */
export abstract class VersionChange {
  /** What changed and why, for API clients (names the schema and fields; not the version). Required. */
  abstract readonly description: string
  /** How schemas, enums and endpoints looked in the previous version. Required; may be empty. */
  abstract readonly instructionsToMigrateToPreviousVersion: readonly Instruction[]
}

/** Where a version change class sits: its bundle's storage, its version, and the bundle's version order. */
export interface VersionChangeBinding {
  readonly version: string
  readonly storage: AsyncLocalStorage<string | undefined>
  /** Version values, newest first (without HEAD). */
  readonly order: readonly string[]
  /** Whether version values are ISO dates (so unknown values can be compared as dates). */
  readonly dates: boolean
}

// A fact about each class (which version holds it), keyed weakly by the class.
const bindings = new WeakMap<object, VersionChangeBinding | 'head'>()

/** The binding of a version change class, if a bundle holds it. */
export function versionChangeBinding (cls: object): VersionChangeBinding | 'head' | undefined {
  return bindings.get(cls)
}

/** Binds a version change class to a version of a bundle (done once, by `VersionBundle`). */
export function bindVersionChange (cls: object, binding: VersionChangeBinding | 'head'): void {
  bindings.set(cls, binding)
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
 * // in a handler:
 * if (UsersGetWelcomeEmail.isApplied) await sendWelcomeEmail(user)
 * ```
 */
export abstract class VersionChangeWithSideEffects extends VersionChange {
  /** True when the version being served includes this change (and outside versioned requests). */
  static get isApplied (): boolean {
    const binding = bindings.get(this)
    if (binding === undefined || binding === 'head') throw new VersionChangeNotBoundError(this.name)
    const current = binding.storage.getStore()
    if (current === undefined) return true
    const currentIndex = binding.order.indexOf(current)
    if (currentIndex !== -1) return currentIndex <= binding.order.indexOf(binding.version)
    if (!binding.dates) return false
    const date = versionDate(current)
    return date !== undefined && (versionDate(binding.version) ?? binding.version) <= date
  }
}
