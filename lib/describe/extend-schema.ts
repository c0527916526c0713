/**
 * `extendSchema`: a child object schema whose link to its parent lets the parent's instructions reach it.
 * @module
 */
import { Kind, type Evaluate, type ObjectOptions, type TObject, type TProperties, type TSchema } from '@sinclair/typebox'
import { VersionerStructureError } from '../core/errors'
import { kExtendedSchema } from '../core/symbols'
import { describeSchema, isOptional, isSchemaObject, propertiesOf, type ObjectSchemaLike, type SchemaLike, type SchemaObject } from '../core/json-schema'

/** How a schema made by {@link extendSchema} relates to its parent. */
interface ChildSchemaInfo {
  /** The parent object schema. */
  readonly parent: TObject
  /** The properties the child declares itself (new ones and overrides of the parent's). */
  readonly ownKeys: ReadonlySet<string>
  /** The child as `extendSchema` made it (a `Type.Optional` copy's canonical schema). */
  readonly child: TSchema
}

// Facts about schema objects themselves (keyed weakly by the child's `properties` object, which its copies share), not
// a registry of applications.
const children = new WeakMap<object, ChildSchemaInfo>()

/** Keywords of a parent that describe the parent itself rather than its shape, so a child does not inherit them. */
const NOT_INHERITED = new Set(['$id', '$schema', '$comment', 'title', 'description', 'examples', 'default', 'type', 'properties', 'required'])

/**
 * The properties of `Parent` overridden or extended by `Own`.
 * @example
 * ```ts
 * const Base = Type.Object({ name: Type.String(), nickname: Type.String() })
 * const Own = { id: Type.String(), nickname: Type.Optional(Type.String()) }
 * type Properties = ExtendedProperties<typeof Base.properties, typeof Own> // name, and Own's id and nickname
 * ```
 */
export type ExtendedProperties<P extends TProperties, O extends TProperties> = Evaluate<Omit<P, keyof O> & O>

/**
 * What `extendSchema` makes of a TypeBox 1.x parent: the parent's kind and structural keywords, with the parent's
 * properties overridden or extended by `O` (so `schema(child).field(f)` checks `f`), and the fields not marked
 * `Type.Optional` required (so 1.x's `Static`, and its type provider, type the child's values).
 * @example
 * ```ts
 * import Type1 from 'typebox' // TypeBox 1.x
 * const UserBase = Type1.Object({ name: Type1.String() })
 * const UserResource = extendSchema(UserBase, { id: Type1.String() })
 * schema(UserResource).field('id') // checked against { name, id }
 * ```
 */
export type ExtendedObjectSchema<P extends ObjectSchemaLike, O extends Record<string, SchemaLike>> =
  Omit<P, 'properties' | 'required' | '$id' | 'title' | 'description' | 'examples' | 'default'> & {
    readonly properties: Evaluate<Omit<P['properties'], keyof O> & O>
    // A non-empty tuple type (of the required names' union), as 1.x's `Static` reads a `required` list.
    readonly required: [RequiredKeys<Omit<P['properties'], keyof O> & O>, ...Array<RequiredKeys<Omit<P['properties'], keyof O> & O>>]
  }

/** The keys of properties a TypeBox 1.x `Type.Optional` does not mark (`~optional`): the fields an object requires. */
type RequiredKeys<P> = Extract<{ [K in keyof P]-?: P[K] extends { readonly '~optional': true } ? never : K }[keyof P], string>

/**
 * Builds an object schema from a parent object schema plus its own properties (which may override the
 * parent's). Instructions on the parent reach the child; instructions on the child leave the parent alone.
 * The child inherits the parent's structural options (such as `additionalProperties`) and named
 * validators, not its `$id`, `title`, `description`, `examples` or `default`.
 * @example
 * ```ts
 * const UserBase = Type.Object({ name: Type.String() })
 * const UserResource = extendSchema(UserBase, { id: Type.String() }, { $id: 'UserResource' })
 * // schema(UserBase).field('name').had({ name: 'fullName' }) renames `name` in UserResource too
 * ```
 */
export function extendSchema<P extends TObject, O extends TProperties> (
  parent: P, ownProperties: O, options?: ObjectOptions
): TObject<ExtendedProperties<P['properties'], O>>
export function extendSchema<P extends ObjectSchemaLike, O extends Record<string, SchemaLike>> (
  parent: P, ownProperties: O, options?: Record<string, unknown>
): ExtendedObjectSchema<P, O>
export function extendSchema (parent: SchemaLike, ownProperties: object, options: object = {}): object {
  if (!isSchemaObject(parent) || parent.type !== 'object' || !isSchemaObject(parent.properties)) {
    throw new VersionerStructureError(`extendSchema(parent, ...) needs an object schema as parent; got ${describeSchema(parent)}.`)
  }
  if (!isSchemaObject(ownProperties)) {
    throw new VersionerStructureError(`extendSchema(${describeSchema(parent)}, properties) needs an object of property schemas.`)
  }
  const inherited: Record<string, unknown> = {}
  for (const key of Object.keys(parent)) {
    if (!NOT_INHERITED.has(key)) inherited[key] = (parent as SchemaObject)[key]
  }
  // The parent's fields as its `required` list says; own ones as their `Type.Optional` marks say (no list holds them).
  const properties: Record<string, TSchema> = { ...propertiesOf(parent), ...ownProperties }
  const child = objectSchema(properties, { ...inherited, ...options })
  // Copies of the child (`Type.Optional(child)`, `withValidators(child, …)`) share its `properties` object.
  children.set(properties, { parent: parent as unknown as TObject, ownKeys: new Set(Object.keys(ownProperties)), child })
  // Another copy of the package cannot read this module's links: the mark lets it say why (derived-schemas.ts).
  Object.defineProperty(child, kExtendedSchema, { value: true })
  Object.defineProperty(properties, kExtendedSchema, { value: true })
  return child
}

/** The parent link of a schema made by {@link extendSchema}, or of a copy sharing its `properties`, if any. */
export function childSchemaInfo (schema: TSchema): ChildSchemaInfo | undefined {
  const properties = (schema as SchemaObject).properties
  return isSchemaObject(properties) ? children.get(properties) : undefined
}

/** An object schema with `required` from the properties' `Optional` modifiers, whatever TypeBox's instance mode. */
export function objectSchema (properties: Record<string, TSchema>, options: Record<string | symbol, unknown> = {}): TSchema {
  const { type: _type, properties: _properties, required: _required, ...rest } = options
  const required = Object.keys(properties).filter((key) => !isOptional(properties[key]))
  const result = { ...rest, [Kind]: 'Object', type: 'object', properties } as unknown as SchemaObject
  if (required.length > 0) result.required = required
  return result
}
