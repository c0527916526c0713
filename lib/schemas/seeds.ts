/**
 * Seeds: the HEAD schemas instructions name, how they are recognised, and their immutable state in each version.
 * @module
 */
import { Hint, OptionalKind, ReadonlyKind, type TSchema } from '@sinclair/typebox'
import { childSchemaInfo } from '../describe/extend-schema'
import type { EnumValue, FieldDidntHaveInstruction, FieldHadInstruction } from '../describe/instructions'
import type { SchemaAnnotations } from '../describe/instruction-attributes'
import { validatorOfFragment, validatorsOf, type NamedValidator } from '../describe/named-validators'
import { VersionerStructureError } from '../core/errors'
import { kExtendedSchema } from '../core/symbols'
import { everySubschema } from '../core/subschemas'
import { deepEqual, isSchemaObject, kindOf, nameOf, propertiesOf, setModifiers, withoutAnnotations, type SchemaObject } from '../core/json-schema'

/** A HEAD schema named by at least one instruction. */
export interface Seed {
  /** The canonical HEAD object (without modifiers). */
  readonly head: TSchema
  /** A readable name for messages. */
  readonly display: string
}

/** One field of an object schema in a version: its HEAD-level type plus the edits instructions made. */
export interface FieldState {
  /** The field's identity, kept through renames (so that a child's overrides follow it). */
  readonly id: number
  readonly key: string
  /** The field's name in HEAD (none for a field `existedAs` adds): a child's own field overriding the parent's has the parent field's. */
  readonly headKey?: string
  /** The field's type as written in HEAD or in an instruction (versioned when the schema is built). */
  readonly type: TSchema
  /** Optionality set by an instruction; `undefined` keeps the type's own `Optional` modifier. */
  readonly optional: boolean | undefined
  /** Keywords set by instructions. */
  readonly set: Readonly<Record<string, unknown>>
  /** Keywords removed by instructions. */
  readonly unset: readonly string[]
}

/** What every seed state has: its name, and the object-level annotations `schema(S).had({...})` gave it. */
interface StateBase {
  readonly name: string | undefined
  /** Annotations set by `schema(S).had({ examples, description, title })`, written over the schema's own. */
  readonly annotations: Readonly<SchemaAnnotations>
}

/** An object schema in a version. */
export interface ObjectState extends StateBase {
  readonly kind: 'object'
  /** Own fields (for a schema made by `extendSchema`: those it declares itself). */
  readonly fields: readonly FieldState[]
  /** Instructions on inherited fields, by the parent field's id, replayed over the parent's field in each version. */
  readonly overrides: ReadonlyMap<number, ReadonlyArray<FieldEdit>>
  /** Every other keyword, with `allOf` holding only what is not a named validator. */
  readonly options: SchemaObject
  /** Own named validators. */
  readonly validators: readonly NamedValidator[]
  /** The parent of a schema made by `extendSchema`. */
  readonly parent: TSchema | undefined
}

/** One member of an enum in a version. */
interface EnumMember {
  readonly value: EnumValue
  /** The member's schema (kept from HEAD where it exists, so unchanged members stay the same object). */
  readonly schema: TSchema | undefined
  /** The HEAD member's value this member is (renamed since, or not): absent for a member HEAD lacks. */
  readonly head?: EnumValue
}

/** An enum schema (a union of `const` members, or an `enum` keyword) in a version. */
export interface EnumState extends StateBase {
  readonly kind: 'enum'
  readonly form: 'union' | 'keyword'
  readonly members: readonly EnumMember[]
  /** Every keyword but the members. */
  readonly template: SchemaObject
}

/** Any other schema in a version: only its name can change. */
interface PlainState extends StateBase {
  readonly kind: 'plain'
  readonly body: TSchema
}

/** A field instruction replayed over an inherited field. */
export type FieldEdit = FieldHadInstruction | FieldDidntHaveInstruction

/** The state of a seed in a version. */
export type SeedState = ObjectState | EnumState | PlainState

/** True for an object schema instructions can edit the fields of. */
function isObjectSchema (schema: TSchema): boolean {
  const source = schema as SchemaObject
  return source.type === 'object' && isSchemaObject(source.properties) && (kindOf(source) === undefined || kindOf(source) === 'Object')
}

function enumShape (schema: TSchema): Pick<EnumState, 'form' | 'members' | 'template'> | undefined {
  const { anyOf, enum: values, ...template } = schema as SchemaObject
  if (Array.isArray(anyOf) && anyOf.length > 0 && anyOf.every((member) => isSchemaObject(member) && 'const' in member)) {
    return {
      form: 'union',
      members: anyOf.map((member) => ({ value: (member as SchemaObject).const as EnumValue, schema: member as TSchema, head: (member as SchemaObject).const as EnumValue })),
      template
    }
  }
  if (Array.isArray(values) && anyOf === undefined) {
    return { form: 'keyword', members: values.map((value) => ({ value: value as EnumValue, schema: undefined, head: value as EnumValue })), template }
  }
  return undefined
}

let fieldIds = 0

/** A new field identity. */
export function newFieldId (): number {
  return ++fieldIds
}

const NO_ANNOTATIONS: Readonly<SchemaAnnotations> = Object.freeze({})

/**
 * The value of an object-level annotation in a state: set by `schema(S).had({...})`, else the schema's own.
 * @example
 * ```ts
 * annotationOf(initialState(Type.Object({}, { description: 'A user.' })), 'description') // 'A user.'
 * ```
 */
export function annotationOf (state: SeedState, key: keyof SchemaAnnotations): unknown {
  if (Object.hasOwn(state.annotations, key)) return state.annotations[key]
  const own = state.kind === 'object' ? state.options : state.kind === 'enum' ? state.template : state.body as SchemaObject
  return own[key]
}

/** The state a HEAD schema starts from. */
export function initialState (head: TSchema): SeedState {
  const name = nameOf(head)
  if (isObjectSchema(head)) {
    const { type: _type, properties: _properties, required: _required, allOf, ...rest } = setModifiers(head, false, false) as SchemaObject
    // Each field's type says whether it is optional (its `Optional` modifier), as the object's `required` list does.
    const properties = propertiesOf(head)
    const info = childSchemaInfo(head)
    const keys = Object.keys(properties)
    const ownKeys = info === undefined ? keys : keys.filter((key) => info.ownKeys.has(key))
    const inherited = info === undefined ? [] : validatorsOf(info.parent)
    const allOfList = Array.isArray(allOf) ? allOf : []
    const others = allOfList.filter((fragment) => validatorOfFragment(fragment) === undefined)
    const options: SchemaObject = rest
    if (others.length > 0) options.allOf = others
    return {
      kind: 'object',
      name,
      annotations: NO_ANNOTATIONS,
      fields: ownKeys.map((key) => ({ id: newFieldId(), key, headKey: key, type: properties[key], optional: undefined, set: {}, unset: [] })),
      overrides: new Map(),
      options,
      validators: validatorsOf(head).filter((validator) => !inherited.includes(validator)),
      parent: info?.parent
    }
  }
  const shape = enumShape(head)
  if (shape !== undefined) return { kind: 'enum', name, annotations: NO_ANNOTATIONS, ...shape }
  return { kind: 'plain', name, annotations: NO_ANNOTATIONS, body: head }
}

/** Keys a copy may lack or add: TypeBox's modifiers, and the mark `extendSchema` leaves on the child it returns. */
const MODIFIERS: ReadonlySet<symbol> = new Set([OptionalKind, ReadonlyKind, kExtendedSchema])

function ownKeys (value: object): Array<string | symbol> {
  return [...Object.keys(value), ...Object.getOwnPropertySymbols(value).filter((key) => !MODIFIERS.has(key))]
}

/** True when `a` and `b` hold the very same values under every key but TypeBox's modifiers. */
export function sameButModifiers (a: TSchema, b: TSchema): boolean {
  const left = a as SchemaObject
  const right = b as SchemaObject
  const keys = ownKeys(left)
  return keys.length === ownKeys(right).length && keys.every((key) => Object.prototype.hasOwnProperty.call(right, key) && left[key] === right[key])
}

/**
 * The first object-valued keyword of a schema: what identifies a shallow copy of it.
 * @example
 * ```ts
 * anchorOf(Type.Array(Item)) // Item
 * ```
 */
export function anchorOf (schema: TSchema): object | undefined {
  for (const key of Object.keys(schema)) {
    const value = (schema as SchemaObject)[key]
    if (typeof value === 'object' && value !== null) return value
  }
  return undefined
}

/** Fields of an object schema, for messages: `{ a, b }`. */
function fieldsOf (schema: TSchema): string {
  const { properties } = schema as SchemaObject
  return isSchemaObject(properties) ? `{ ${Object.keys(properties).join(', ')} }` : JSON.stringify(schema).slice(0, 80)
}

/**
 * Checks that `first` and `second`, both of `$id` `id`, validate alike (annotations and TypeBox's symbols aside); two
 * different schemas throw `FST_VERSIONER_STRUCTURE`, since which one is meant could not be told.
 * @example
 * ```ts
 * checkOneSchemaPerId('Item', first, second) // throws: Two different schemas have $id 'Item': { home } and { office }. …
 * ```
 */
export function checkOneSchemaPerId (id: string, first: TSchema, second: TSchema): void {
  if (deepEqual(withoutAnnotations(first), withoutAnnotations(second), false)) return
  throw new VersionerStructureError(`Two different schemas have $id '${id}': ${fieldsOf(first)} and ${fieldsOf(second)}. ` +
    `fastify-versioner recognises a schema by its $id (a copy of it, Type.Ref('${id}')), so it cannot tell which one an ` +
    'instruction, a converter or a $ref means: give each schema its own $id, or use one schema object in both places.')
}

/** The seeds of one generation run, recognised by identity, through `Optional` / `Readonly` copies, or by `$id`. */
export class SeedIndex {
  readonly seeds: Seed[] = []
  private readonly byObject = new Map<object, Seed>()
  private readonly byId = new Map<string, Seed>()
  private readonly byAnchor = new Map<object, Seed[]>()
  private readonly anchorless: Seed[] = []
  private cache = new WeakMap<object, Seed | null>()
  /** The schemas inside the `Type.Recursive`s met: copies TypeBox made. */
  private readonly recursiveCopies = new WeakSet<object>()

  /** The seed for `schema`, added if it is not known yet. */
  add (schema: TSchema): Seed {
    const known = this.find(schema)
    if (known !== undefined) return known
    const head = setModifiers(schema, false, false)
    const seed: Seed = { head, display: nameOf(head) ?? (head as SchemaObject).title as string | undefined ?? 'schema' }
    this.cache = new WeakMap()
    this.seeds.push(seed)
    this.byObject.set(head, seed)
    this.byObject.set(schema, seed)
    const id = nameOf(head)
    if (id !== undefined) this.byId.set(id, seed)
    const anchor = anchorOf(head)
    if (anchor === undefined) this.anchorless.push(seed)
    else this.byAnchor.set(anchor, [...(this.byAnchor.get(anchor) ?? []), seed])
    return seed
  }

  /** The seed `schema` stands for, if any. */
  find (schema: TSchema): Seed | undefined {
    const cached = this.cache.get(schema)
    if (cached !== undefined) return cached ?? undefined
    const found = this.lookup(schema)
    this.cache.set(schema, found ?? null)
    return found
  }

  /** The seed whose `$id` is `id`, if any. */
  findById (id: string): Seed | undefined {
    return this.byId.get(id)
  }

  private lookup (schema: TSchema): Seed | undefined {
    // TypeBox's Type.Recursive holds a copy (CloneType) of what its callback returned: the schemas inside are copies too.
    if ((schema as SchemaObject)[Hint] === 'Recursive') for (const node of everySubschema([schema])) if (node !== schema) this.recursiveCopies.add(node)
    const direct = this.byObject.get(schema)
    if (direct !== undefined) return direct
    const id = nameOf(schema)
    const named = id === undefined ? undefined : this.byId.get(id)
    if (named !== undefined) {
      checkOneSchemaPerId(named.display, named.head, schema)
      return named
    }
    const anchor = anchorOf(schema)
    const candidates = anchor === undefined ? this.anchorless : this.byAnchor.get(anchor) ?? []
    const found = candidates.find((seed) => sameButModifiers(seed.head, schema))
    if (found !== undefined) return found
    return this.recursiveCopies.has(schema) ? this.recursiveCopy(schema) : kindOf(schema) !== undefined ? undefined : this.copied(schema)
  }

  /** The seed a schema inside a `Type.Recursive` is a copy of: the one it equals, TypeBox's marks included (decision 0265). */
  private recursiveCopy (schema: TSchema): Seed | undefined {
    const bare = setModifiers(schema, false, false)
    const equal = this.seeds.filter((seed) => deepEqual(seed.head, bare))
    if (equal.length > 1) {
      throw new VersionerStructureError(`A Type.Recursive holds a copy of a schema (${fieldsOf(schema)}), as TypeBox copies its body, equal to ` +
        `${equal.length} schemas that instructions or converters name (${equal.map((seed) => seed.display).join(', ')}), which it cannot be told from: give each of them its own $id.`)
    }
    return equal[0]
  }

  /** The seed without `$id` a plain JSON copy stands for, as Fastify's copies of `addSchema` schemas (decision 0123). */
  private copied (schema: TSchema): Seed | undefined {
    const equal = this.seeds.filter((seed) => nameOf(seed.head) === undefined && deepEqual(seed.head, schema, false))
    if (equal.length > 1) {
      throw new VersionerStructureError(`A copy of a schema (${fieldsOf(schema)}), as Fastify keeps a schema given to addSchema, is equal to ` +
        `${equal.length} schemas that instructions or converters name, which it cannot be told from: give each of them its own $id.`)
    }
    return equal[0]
  }
}
