/**
 * The public view of generated schemas: `app.versioner.schemas`, and `generateVersionedSchemas` without an app.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { SchemaLike } from '../core/json-schema'
import { VersionBundle } from '../describe/versions'
import { checkInstanceOf } from '../core/other-copies'
import { SchemaGeneration } from './generation'

/**
 * Options of {@link generateVersionedSchemas}.
 * @example
 * ```ts
 * declare const versions: VersionBundle // 2001-01-01 added Address's country
 * const Address = Type.Object({ street: Type.String(), country: Type.String() }, { $id: 'Address' }) // given to app.addSchema
 * const options: GenerateVersionedSchemasOptions = { sharedSchemas: [Address] } // so that a { $ref: 'Address' } follows its versions
 * const OldAddress = generateVersionedSchemas(versions, options).get('2000-01-01').get(Address) // without country
 * ```
 */
export interface GenerateVersionedSchemasOptions {
  /**
   * Shared schemas (with `$id`) that `$ref`s may point to, such as those given to `app.addSchema`: a `$ref`
   * to one that a version changes points to its versioned `$id` in that version.
   */
  sharedSchemas?: Iterable<SchemaLike>
}

/**
 * The schemas of one version: `get(HeadSchema)` gives that version's form of a HEAD schema (the HEAD
 * object itself when the version does not change it).
 * @example
 * ```ts
 * declare const versions: VersionBundle
 * const UserResource = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) })
 * const oldest: SchemaLookup = generateVersionedSchemas(versions).get('2000-01-01')
 * const OldUser = oldest.get(UserResource) // the user as 2000-01-01 sees it
 * ```
 */
export interface SchemaLookup {
  /** The version value. */
  readonly version: string
  /** This version's form of a HEAD schema (of TypeBox 0.34, TypeBox 1.x or plain JSON Schema). */
  get: { (schema: TSchema): TSchema, (schema: SchemaLike): SchemaLike }
}

/**
 * The schemas of every version of a bundle. `get(version)` gives a version's {@link SchemaLookup}.
 * @example
 * ```ts
 * declare const versions: VersionBundle
 * const UserResource = Type.Object({ id: Type.String() })
 * const schemas: VersionedSchemas = generateVersionedSchemas(versions)
 * for (const lookup of schemas) console.log(lookup.version, lookup.get(UserResource) === UserResource ? 'as HEAD' : 'changed')
 * ```
 */
export class VersionedSchemas implements Iterable<SchemaLookup> {
  /** @internal */
  readonly generation: SchemaGeneration
  private readonly lookups = new Map<string, SchemaLookup>()

  constructor (generation: SchemaGeneration) {
    this.generation = generation
    generation.levels.forEach((version, level) => {
      if (level > 0) this.lookups.set(version, Object.freeze({ version, get: (schema: SchemaLike) => generation.formAt(schema as TSchema, level) }))
    })
  }

  /** The version values, newest first. */
  get versions (): string[] {
    return [...this.lookups.keys()]
  }

  /** The schemas of `version`; throws `UnknownVersionError` for a version the bundle does not hold. */
  get (version: string): SchemaLookup {
    const lookup = this.lookups.get(version)
    if (lookup === undefined) this.generation.levelOf(version)
    return lookup as SchemaLookup
  }

  /** True when the bundle holds `version`. */
  has (version: string): boolean {
    return this.lookups.has(version)
  }

  /** The lookups, newest version first. */
  [Symbol.iterator] (): Iterator<SchemaLookup> {
    return this.lookups.values()
  }
}

/**
 * Generates the schemas of every version of `bundle` from its version changes, without an application.
 * Every schema or enum instruction that cannot apply throws `InvalidGenerationInstructionError` here.
 * @example
 * ```ts
 * declare const versions: VersionBundle // 2001-01-01 made addresses of address
 * const UserResource = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) }, { $id: 'UserResource' })
 * const schemas = generateVersionedSchemas(versions)
 * const OldUser = schemas.get('2000-01-01').get(UserResource)   // has `address`, not `addresses`
 * schemas.get('2001-01-01').get(UserResource) === UserResource    // unchanged in 2001-01-01
 * ```
 */
export function generateVersionedSchemas (bundle: VersionBundle, options: GenerateVersionedSchemasOptions = {}): VersionedSchemas {
  checkInstanceOf(bundle, VersionBundle, 'generateVersionedSchemas(bundle, …) needs')
  return new VersionedSchemas(new SchemaGeneration(bundle, options.sharedSchemas))
}
