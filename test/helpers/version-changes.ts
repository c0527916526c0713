/**
 * The one way the tests make a version change class (not a test file). Every call makes a new class, named
 * `name` (error messages and the changelog name it), so that no two tests share one.
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import {
  ConvertResponseToPreviousVersionFor, schema, Version, VersionBundle, VersionChange, VersionChangeWithSideEffects, type Instruction, type ResponseInfo,
  type VersionChangeClass
} from '../../plugin'
import { generationSteps } from '../../lib/describe/versions'
import type { VersionChangeDescriptor } from '../../lib/describe/version-change-reader'

/** Options of {@link changeClass}. */
export interface ChangeOptions {
  /** The change's description (default `Test change <name>.`). */
  description?: string
  /** Extend `VersionChangeWithSideEffects` instead of `VersionChange`. */
  sideEffects?: boolean
}

/** A side-effect version change class (with `isApplied`). */
export type SideEffectChangeClass = VersionChangeClass & { readonly isApplied: boolean, readonly name: string }

/** A fresh version change class named `name` holding `instructions` (none by default). */
export function changeClass (name: string, instructions?: Instruction[], options?: ChangeOptions & { sideEffects?: false }): VersionChangeClass
/** A fresh `VersionChangeWithSideEffects` class named `name` holding `instructions`. */
export function changeClass (name: string, instructions: Instruction[], options: ChangeOptions & { sideEffects: true }): SideEffectChangeClass
export function changeClass (name: string, instructions: Instruction[] = [], options: ChangeOptions = {}): VersionChangeClass | SideEffectChangeClass {
  const description = options.description ?? `Test change ${name}.`
  const holder = options.sideEffects === true
    ? {
        [name]: class extends VersionChangeWithSideEffects {
          description = description
          instructionsToMigrateToPreviousVersion = instructions
        }
      }
    : {
        [name]: class extends VersionChange {
          description = description
          instructionsToMigrateToPreviousVersion = instructions
        }
      }
  return holder[name]
}

/** The version changes `bundle` read for `version` (`'HeadVersion'` for its HEAD changes): that version's step from HEAD. */
export function changesOf (bundle: VersionBundle, version: string): readonly VersionChangeDescriptor[] | undefined {
  return generationSteps(bundle).find((step) => step.origin === version)?.changes
}

/**
 * A fresh version change in which `target`'s `fullName` was `name`, with the response converter that renames it back
 * (the change most response tests need).
 */
export function fullNameWasNameInResponses (target: TSchema): VersionChangeClass {
  class FullNameWasName extends VersionChange {
    description = 'fullName was name.'
    instructionsToMigrateToPreviousVersion = [schema(target).field('fullName').had({ name: 'name' })]

    @ConvertResponseToPreviousVersionFor(target)
    nameDown (response: ResponseInfo) {
      response.body.name = response.body.fullName
      delete response.body.fullName
    }
  }
  return FullNameWasName
}

/**
 * A fresh version change in which `target`'s `name` was `title`, with the response converter that renames it back;
 * `seen` is given the body each time the converter runs, before it renames.
 */
export function nameWasTitleInResponses (target: TSchema, seen?: (body: Record<string, unknown>) => void): VersionChangeClass {
  class NameWasTitle extends VersionChange {
    description = 'name was title.'
    instructionsToMigrateToPreviousVersion = [schema(target).field('name').had({ name: 'title' })]

    @ConvertResponseToPreviousVersionFor(target)
    nameDown (response: ResponseInfo) {
      seen?.(response.body)
      response.body.title = response.body.name
      delete response.body.name
    }
  }
  return NameWasTitle
}

/**
 * Prices whose amount includes tax from 2001-01-01 on (`PricesIncludeTax`, a side-effect change) and carry a display
 * text from 2002-01-01 on, whose response converter takes the tax off for the versions before 2001-01-01 by reading
 * `PricesIncludeTax.isApplied` (after `wait`, when given: an async converter). A fresh bundle and classes each call.
 */
export function taxedPrices (wait?: () => Promise<unknown>): { Price: TObject, versions: VersionBundle, PricesIncludeTax: SideEffectChangeClass } {
  const Price = Type.Object({ amount: Type.Number(), display: Type.Optional(Type.String()) })
  const PricesIncludeTax = changeClass('PricesIncludeTax', [], { sideEffects: true, description: 'Prices include tax.' })
  class DisplayAdded extends VersionChange {
    description = 'Prices carry their display text.'
    instructionsToMigrateToPreviousVersion = [schema(Price).field('display').didntExist]

    @ConvertResponseToPreviousVersionFor(Price)
    taxFor (response: ResponseInfo): void | Promise<void> {
      const takeTaxOff = (): void => { response.body.amount = PricesIncludeTax.isApplied ? response.body.amount : response.body.amount - 2 }
      if (wait === undefined) takeTaxOff()
      else return wait().then(takeTaxOff)
    }
  }
  return { Price, versions: new VersionBundle(new Version('2002-01-01', DisplayAdded), new Version('2001-01-01', PricesIncludeTax), new Version('2000-01-01')), PricesIncludeTax }
}
