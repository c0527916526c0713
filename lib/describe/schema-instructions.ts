/**
 * The builder `schema(S)`: how a schema, its fields and validators looked before (`enumeration(E)` is in enum-instructions.ts).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { VersionerStructureError } from '../core/errors'
import {
  checkNotEmpty, makeInstruction, type FieldDidntExistInstruction, type FieldDidntHaveInstruction, type FieldExistedAsInstruction,
  type FieldHadInstruction, type SchemaHadInstruction, type ValidatorDidntExistInstruction, type ValidatorExistedInstruction
} from './instructions'
import {
  SCHEMA_ATTRIBUTES, type DerivationSource, type FieldExistedAsAttributes, type FieldHadAttributes, type FieldKeywordName,
  type SchemaAnnotations, type SchemaHadAttributes
} from './instruction-attributes'
import type { NamedValidator } from './named-validators'
import { describeSchema, describeValue, isSchemaObject, type SchemaLike } from '../core/json-schema'
import { readFieldDeprecation } from './field-deprecation'

/**
 * The field names `schema(S).field(name)` accepts: the fields of the HEAD schema `S` (a typo fails to compile), read
 * from its `properties` alike for TypeBox 0.34 and TypeBox 1.x. A schema whose fields TypeScript cannot see (a plain JSON
 * Schema object cast to `TSchema`, `Type.Unsafe`, a union) accepts any string.
 * A field HEAD does not have is named with `formerField`.
 * @example
 * ```ts
 * const User = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) }, { $id: 'User' })
 * type UserField = FieldName<typeof User> // 'id' | 'addresses'
 * ```
 */
export type FieldName<S extends SchemaLike> = S extends { properties: infer P }
  ? string extends keyof P ? string : Extract<keyof P, string>
  : string

/**
 * Instructions about one field of an object schema.
 * @example
 * ```ts
 * const User = Type.Object({ name: Type.String(), status: Type.Union([Type.Literal('active'), Type.Literal('closed')]) }, { $id: 'User' })
 * const name: FieldInstructionBuilder = schema(User).field('name')
 * const instructions = [name.had({ name: 'fullName' }), name.didntHave('maxLength')]
 * ```
 */
export interface FieldInstructionBuilder {
  /**
   * The field had another name, type, optionality or keywords in the previous version.
   * `had({ default })` also makes a required field optional (a client could omit it).
   */
  had: (attributes: FieldHadAttributes) => FieldHadInstruction
  /** The field lacked these keywords. Removing `default` also makes an optional field required. */
  didntHave: (...keywords: FieldKeywordName[]) => FieldDidntHaveInstruction
  /** The field existed (it was removed since), with this type and these keywords. */
  existedAs: (attributes: FieldExistedAsAttributes) => FieldExistedAsInstruction
  /** The field did not exist (it was added since). */
  readonly didntExist: FieldDidntExistInstruction
  /**
   * The field did not exist (it was added since), and the previous version's request converters set it from these
   * fields of that version (a name split in two): its clients still set it, so `fieldsTheVersionLacks` leaves it out. A
   * field of a schema holding this one is named with its schema (moved into a nested object: `{ schema: C, field: 'city' }`).
   */
  derivedFrom: (...fields: Array<string | DerivationSource>) => FieldDidntExistInstruction
}

/**
 * Instructions about one named validator of an object schema.
 * @example
 * ```ts
 * const endNeedsStart = defineValidator('endNeedsStart', { dependentRequired: { end: ['start'] } })
 * const Booking = withValidators(Type.Object({ start: Type.Optional(Type.String()), end: Type.Optional(Type.String()) }), endNeedsStart)
 * const validator: ValidatorInstructionBuilder = schema(Booking).validator('endNeedsStart')
 * const instructions = [validator.didntExist] // the rule was added since
 * ```
 */
export interface ValidatorInstructionBuilder {
  /** The validator existed (it was removed since). Needs the validator made by `defineValidator`. */
  readonly existed: ValidatorExistedInstruction
  /** The validator did not exist (it was added since). */
  readonly didntExist: ValidatorDidntExistInstruction
}

/**
 * Instructions about a schema.
 * @example
 * ```ts
 * const User = Type.Object({ name: Type.String(), status: Type.Union([Type.Literal('active'), Type.Literal('closed')]) }, { $id: 'User' })
 * const user: SchemaInstructionBuilder<typeof User> = schema(User)
 * const instructions = [user.had({ name: 'Person' }), user.field('status').had({ name: 'state' })]
 * ```
 */
export interface SchemaInstructionBuilder<S extends SchemaLike> {
  /**
   * The schema had another name (its `$id`, the OpenAPI component name) and/or other object-level annotations
   * (`examples`, `description`, `title`) in the previous version; older versions keep them until changed again.
   */
  had: (attributes: SchemaHadAttributes) => SchemaHadInstruction
  /** Instructions about one field (property) of this HEAD object schema: `name` is one of its fields. */
  field: (name: FieldName<S>) => FieldInstructionBuilder
  /**
   * Instructions about a field HEAD does not have: one that existed only in older versions (`existedAs`), or the
   * name a field had before a newer version change renamed it. The same instructions as `field`; only the
   * compiler's check of the name differs.
   */
  formerField: (name: string) => FieldInstructionBuilder
  /** Instructions about one named validator of this object schema (by name, or the validator itself). */
  validator: (validator: string | NamedValidator) => ValidatorInstructionBuilder
}

export function checkSchemaArgument (target: unknown, builder: string): asserts target is TSchema {
  if (!isSchemaObject(target)) throw new VersionerStructureError(`${builder}(...) takes a TypeBox schema (or a JSON Schema object); got ${describeValue(target)}.`)
}

export function checkName (value: unknown, what: string): asserts value is string {
  if (typeof value !== 'string' || value.trim() === '') throw new VersionerStructureError(`${what} must be a non-empty string; got ${describeValue(value)}.`)
}

const FIELD_ATTRIBUTES_NOT_KEYWORDS = new Set(['name', 'type', 'optional'])

/** The keywords of `had({...})` or `existedAs({...})`, checked (and its `optional`). */
function splitKeywords (attributes: Record<string, unknown>, display: string): Record<string, unknown> {
  if (attributes.optional !== undefined && typeof attributes.optional !== 'boolean') {
    throw new VersionerStructureError(`${display}: { optional } takes true or false; got ${describeValue(attributes.optional)}.`)
  }
  const keywords: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(attributes)) {
    if (FIELD_ATTRIBUTES_NOT_KEYWORDS.has(key)) continue
    if (key === 'required') {
      throw new VersionerStructureError(`${display}: 'required' is not a field keyword; use { optional: true } or { optional: false }.`)
    }
    if (value === undefined) {
      throw new VersionerStructureError(`${display}: keyword '${key}' is undefined; to say the field lacked it, use .didntHave('${key}').`)
    }
    keywords[key] = value
  }
  readFieldDeprecation(keywords, display)
  return keywords
}

/** The annotations of `schema(S).had({...})`, checked (the name is checked by the caller). */
function schemaAnnotations (attributes: SchemaHadAttributes, schemaDisplay: string, display: string): Readonly<SchemaAnnotations> {
  const allowed = `{ ${SCHEMA_ATTRIBUTES.join(', ')} }`
  checkNotEmpty(attributes, `${display}: schema(...).had() needs at least one of ${allowed}.`)
  const extra = Object.keys(attributes).filter((key) => !(SCHEMA_ATTRIBUTES as readonly string[]).includes(key))
  if (extra.length > 0) {
    throw new VersionerStructureError(`${display}: schema(...).had() takes only ${allowed}; ` +
      `to change a field use ${schemaDisplay}.field(name).had(...) (got ${extra.join(', ')}).`)
  }
  const annotations: SchemaAnnotations = {}
  for (const key of SCHEMA_ATTRIBUTES) {
    if (!Object.hasOwn(attributes, key)) continue
    const value: unknown = attributes[key]
    const argument = `${schemaDisplay}.had({ ${key} })`
    if (value === undefined) throw new VersionerStructureError(`${argument}: '${key}' is undefined; leave it out, or give its previous value.`)
    if (key === 'examples') {
      if (!Array.isArray(value)) throw new VersionerStructureError(`${argument} takes an array of example values; got ${describeValue(value)}.`)
      annotations.examples = Object.freeze([...value as unknown[]]) as unknown[]
    } else if (key !== 'name') {
      if (typeof value !== 'string') throw new VersionerStructureError(`${argument} takes a string; got ${describeValue(value)}.`)
      annotations[key] = value
    }
  }
  return Object.freeze(annotations)
}

function fieldBuilder (target: TSchema, schemaDisplay: string, field: string, method = 'field'): FieldInstructionBuilder {
  const base = `${schemaDisplay}.${method}('${field}')`
  return {
    had (attributes: FieldHadAttributes): FieldHadInstruction {
      const display = `${base}.had(${describeValue(attributes)})`
      checkNotEmpty(attributes, `${display}: had() needs at least one attribute (name, type, optional, or a keyword).`)
      if (attributes.name !== undefined) checkName(attributes.name, `${base}.had({ name })`)
      if (attributes.type !== undefined && !isSchemaObject(attributes.type)) {
        throw new VersionerStructureError(`${base}.had({ type }) takes a TypeBox schema; got ${describeValue(attributes.type)}.`)
      }
      return makeInstruction<FieldHadInstruction>({
        kind: 'field.had',
        display,
        schema: target,
        field,
        name: attributes.name,
        type: attributes.type,
        optional: attributes.optional,
        keywords: Object.freeze(splitKeywords(attributes, display))
      })
    },
    didntHave (...keywords: FieldKeywordName[]): FieldDidntHaveInstruction {
      const display = `${base}.didntHave(${keywords.map(describeValue).join(', ')})`
      if (keywords.length === 0) throw new VersionerStructureError(`${display}: didntHave() needs at least one keyword name.`)
      for (const keyword of keywords) {
        checkName(keyword, `${display}: a keyword name`)
        if (FIELD_ATTRIBUTES_NOT_KEYWORDS.has(keyword) || keyword === 'required') {
          throw new VersionerStructureError(`${display}: '${keyword}' is not a keyword a field can lack. ` +
            'To remove the field use .didntExist; to change its name or type use .had({ name }) or .had({ type }); ' +
            'to make it required or optional use .had({ optional }).')
        }
      }
      return makeInstruction<FieldDidntHaveInstruction>({ kind: 'field.didntHave', display, schema: target, field, keywords: Object.freeze([...keywords]) })
    },
    existedAs (attributes: FieldExistedAsAttributes): FieldExistedAsInstruction {
      const display = `${base}.existedAs(${describeValue(attributes)})`
      if (!isSchemaObject(attributes) || !isSchemaObject(attributes.type)) {
        throw new VersionerStructureError(`${display}: existedAs() needs { type }, a TypeBox schema.`)
      }
      if ('name' in attributes) throw new VersionerStructureError(`${display}: existedAs() takes no name; the field is '${field}'.`)
      return makeInstruction<FieldExistedAsInstruction>({
        kind: 'field.existedAs',
        display,
        schema: target,
        field,
        type: attributes.type,
        optional: attributes.optional,
        keywords: Object.freeze(splitKeywords(attributes, display))
      })
    },
    get didntExist (): FieldDidntExistInstruction {
      return makeInstruction<FieldDidntExistInstruction>({ kind: 'field.didntExist', display: `${base}.didntExist`, schema: target, field })
    },
    derivedFrom (...fields: Array<string | DerivationSource>): FieldDidntExistInstruction {
      const held = (source: string | DerivationSource): source is DerivationSource => typeof source === 'object' && source !== null
      const through = (source: DerivationSource): string => source.through === undefined ? '' : `, through: ${describeValue(source.through)}`
      const display = `${base}.derivedFrom(${fields.map((source) => held(source) && isSchemaObject(source.schema) ? `{ schema: ${describeSchema(source.schema)}, field: ${describeValue(source.field)}${through(source)} }` : describeValue(source)).join(', ')})`
      if (fields.length === 0) throw new VersionerStructureError(`${display}: derivedFrom() needs the previous version's fields the field is set from.`)
      for (const source of fields) {
        if (held(source) && !isSchemaObject(source.schema)) throw new VersionerStructureError(`${display}: a source is a field name, or { schema, field } for a field of a schema holding this one.`)
        checkName(held(source) ? source.field : source, `${display}: a field name`)
        if (held(source) && source.through !== undefined) checkName(source.through, `${display}: through`)
      }
      return makeInstruction<FieldDidntExistInstruction>({ kind: 'field.didntExist', display, schema: target, field, derivedFrom: Object.freeze([...fields]) })
    }
  }
}

/**
 * Starts an instruction about a schema, written against the latest schemas.
 * @example
 * ```ts
 * const UserResource = Type.Object({
 *   id: Type.String(), addresses: Type.Array(Type.String()), nickname: Type.String(), familyName: Type.String(), name: Type.String()
 * }, { $id: 'UserResource' })
 * const Address = Type.Object({ line1: Type.String(), city: Type.String() }, { $id: 'Address' })
 * const Customer = Type.Object({ name: Type.String(), address: Address }, { $id: 'Customer' })
 * const endNeedsStart = defineValidator('endNeedsStart', { dependentRequired: { end: ['start'] } })
 * const Booking = withValidators(Type.Object({ start: Type.Optional(Type.String()), end: Type.Optional(Type.String()) }), endNeedsStart)
 * schema(UserResource).had({ name: 'User' })
 * schema(UserResource).had({ examples: [{ id: '3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f', address: '1 Main St' }] })
 * schema(UserResource).field('addresses').had({ name: 'address', type: Type.String() })
 * schema(UserResource).field('nickname').didntExist
 * schema(UserResource).field('familyName').derivedFrom('name') // set by a request converter from the old 'name'
 * schema(Address).field('city').derivedFrom({ schema: Customer, field: 'city' }) // moved into the address
 * schema(UserResource).formerField('legacyId').existedAs({ type: Type.Integer() })
 * schema(UserResource).field('name').didntHave('maxLength')
 * schema(Booking).validator('endNeedsStart').didntExist
 * ```
 */
export function schema<S extends SchemaLike> (target: S): SchemaInstructionBuilder<S> {
  checkSchemaArgument(target, 'schema')
  const schemaDisplay = `schema(${describeSchema(target)})`
  return {
    had (attributes: SchemaHadAttributes): SchemaHadInstruction {
      const display = `${schemaDisplay}.had(${describeValue(attributes)})`
      const annotations = schemaAnnotations(attributes, schemaDisplay, display)
      if (attributes.name !== undefined) checkName(attributes.name, `${schemaDisplay}.had({ name })`)
      return makeInstruction<SchemaHadInstruction>({ kind: 'schema.had', display, schema: target, name: attributes.name, annotations })
    },
    field (name: FieldName<S>): FieldInstructionBuilder {
      checkName(name, `${schemaDisplay}.field(name)`)
      return fieldBuilder(target, schemaDisplay, name)
    },
    formerField (name: string): FieldInstructionBuilder {
      checkName(name, `${schemaDisplay}.formerField(name)`)
      return fieldBuilder(target, schemaDisplay, name, 'formerField')
    },
    validator (validator: string | NamedValidator): ValidatorInstructionBuilder {
      const validatorName = typeof validator === 'string' ? validator : isSchemaObject(validator) ? validator.name : undefined
      checkName(validatorName, `${schemaDisplay}.validator(...)`)
      const base = `${schemaDisplay}.validator('${validatorName}')`
      return {
        get existed (): ValidatorExistedInstruction {
          if (typeof validator === 'string' || !isSchemaObject(validator.fragment)) {
            throw new VersionerStructureError(`${base}.existed needs the validator itself (made by defineValidator), ` +
              'not only its name, because the previous version has to know its rule.')
          }
          return makeInstruction<ValidatorExistedInstruction>({ kind: 'validator.existed', display: `${base}.existed`, schema: target, validator })
        },
        get didntExist (): ValidatorDidntExistInstruction {
          return makeInstruction<ValidatorDidntExistInstruction>({
            kind: 'validator.didntExist', display: `${base}.didntExist`, schema: target, validatorName
          })
        }
      }
    }
  }
}
