/**
 * The instruction types: the plain frozen data `schema(...)`, `enumeration(...)` and `endpoint(...)` produce.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { HttpMethod } from '../core/http-methods'
import type { SchemaLike } from '../core/json-schema'
import type { NamedValidator } from './named-validators'
import type { FieldDeprecationOptions } from './field-deprecation'
import { kInstruction } from '../core/symbols'
import { VersionerStructureError } from '../core/errors'
import { isSchemaObject } from '../core/json-schema'

/**
 * JSON Schema keywords a field can have, change or lack in an older version. Any other keyword is allowed
 * too (it is written into the field's schema as given).
 */
export interface FieldKeywords {
  default?: unknown
  minLength?: number
  maxLength?: number
  minimum?: number
  exclusiveMinimum?: number
  maximum?: number
  exclusiveMaximum?: number
  multipleOf?: number
  pattern?: string
  format?: string
  minItems?: number
  maxItems?: number
  uniqueItems?: boolean
  minProperties?: number
  maxProperties?: number
  title?: string
  description?: string
  examples?: unknown[]
  /** A request that sends the field gets `Deprecation` and `Link` response headers (docs/field-deprecations.md). */
  deprecated?: boolean | FieldDeprecationOptions
  readOnly?: boolean
  writeOnly?: boolean
  nullable?: boolean
  [keyword: string]: unknown
}

/** Names of {@link FieldKeywords}, for `didntHave(...)`; any other keyword name is accepted as well. */
export type FieldKeywordName = Exclude<keyof FieldKeywords, number> | (string & {})

/** What `schema(S).field(f).had({...})` accepts. */
export interface FieldHadAttributes extends FieldKeywords {
  /** The field's name in the previous version. */
  name?: string
  /** The field's type (schema) in the previous version. */
  type?: SchemaLike
  /** Whether the field was optional (`true`) or required (`false`) in the previous version. */
  optional?: boolean
}

/** What `schema(S).field(f).existedAs({...})` accepts. */
export interface FieldExistedAsAttributes extends FieldKeywords {
  /** The field's type (schema) in the previous version. */
  type: SchemaLike
  /** Whether the field was optional; by default it was required, unless a `default` is given. */
  optional?: boolean
}

/** Route attributes an endpoint had in the previous version (`endpoint(path, methods).had({...})`). */
export interface EndpointHadAttributes {
  /** The path in the previous version; its path parameters must be the same as the route's. */
  path?: string
  /** The methods in the previous version. */
  methods?: HttpMethod | Lowercase<HttpMethod> | ReadonlyArray<HttpMethod | Lowercase<HttpMethod>>
  /** The status code of a successful response in the previous version (replaces the handler's 2xx status). */
  statusCode?: number
  summary?: string
  description?: string
  tags?: string[]
  /** Whether the operation was deprecated. */
  deprecated?: boolean
  operationId?: string
  /** Whether the route was hidden from the OpenAPI document. */
  hide?: boolean
  /** Response schemas by status code in the previous version (HEAD schemas, versioned like any other). */
  response?: Record<string | number, SchemaLike>
}

/** Names accepted by {@link EndpointHadAttributes}. */
export const ENDPOINT_ATTRIBUTES = ['path', 'methods', 'statusCode', 'summary', 'description', 'tags', 'deprecated',
  'operationId', 'hide', 'response'] as const

interface InstructionBase {
  readonly [kInstruction]: true
  /** How the instruction was written, for messages: `schema(User).field('name').didntExist`. */
  readonly display: string
}

/** What every schema and enum instruction has: the HEAD schema it is about. */
interface SchemaInstructionBase extends InstructionBase {
  readonly schema: TSchema
}

/** What every endpoint instruction has: the HEAD path and methods of the route(s) it is about. */
interface EndpointInstructionBase extends InstructionBase {
  readonly path: string
  readonly methods: readonly HttpMethod[]
  /** Only the HEAD route with this `operationId` (to tell apart routes sharing a path and methods). */
  readonly operationId: string | undefined
}

/**
 * Object-level annotations a schema can have had in the previous version (`schema(S).had({...})`).
 * @example
 * ```ts
 * const annotations: SchemaAnnotations = { examples: [{ name: 'Ada' }], description: 'A user.', title: 'User' }
 * ```
 */
export interface SchemaAnnotations {
  /** Example values of the whole schema, as that version's clients saw them. */
  examples?: unknown[]
  description?: string
  title?: string
}

/**
 * The attributes of `schema(S).had({...})`, each optional.
 * @example
 * ```ts
 * const values: SchemaHadAttributeValues = { name: 'Person', description: 'A person.' }
 * ```
 */
export interface SchemaHadAttributeValues extends SchemaAnnotations {
  /** The schema's name (its `$id`, the OpenAPI component name) in the previous version. */
  name?: string
}

/**
 * What `schema(S).had({...})` accepts: the schema's name and/or its object-level annotations in the previous
 * version, at least one of them.
 * @example
 * ```ts
 * const User = Type.Object({ name: Type.String() }, { $id: 'User' })
 * const attributes: SchemaHadAttributes = { name: 'Person', examples: [{ name: 'Ada' }] }
 * schema(User).had(attributes)
 * ```
 */
export type SchemaHadAttributes = SchemaHadAttributeValues &
  ({ name: string } | { examples: unknown[] } | { description: string } | { title: string })

/**
 * Names of {@link SchemaHadAttributes}.
 * @example
 * ```ts
 * SCHEMA_ATTRIBUTES.includes('examples') // true
 * ```
 */
export const SCHEMA_ATTRIBUTES = ['name', 'examples', 'description', 'title'] as const

/** `schema(S).had({ name?, examples?, description?, title? })`: the schema had another name or other annotations. */
export interface SchemaHadInstruction extends SchemaInstructionBase {
  readonly kind: 'schema.had'
  /** The previous name, or `undefined` when only annotations changed. */
  readonly name: string | undefined
  /** The annotations the schema had (only those the instruction gives). */
  readonly annotations: Readonly<SchemaAnnotations>
}

/** `schema(S).field(f).had({...})`. */
export interface FieldHadInstruction extends SchemaInstructionBase {
  readonly kind: 'field.had'
  readonly field: string
  readonly name: string | undefined
  readonly type: TSchema | undefined
  readonly optional: boolean | undefined
  readonly keywords: Readonly<Record<string, unknown>>
}

/** `schema(S).field(f).didntHave(...keywords)`. */
export interface FieldDidntHaveInstruction extends SchemaInstructionBase {
  readonly kind: 'field.didntHave'
  readonly field: string
  readonly keywords: readonly string[]
}

/** `schema(S).field(f).existedAs({ type, ... })`. */
export interface FieldExistedAsInstruction extends SchemaInstructionBase {
  readonly kind: 'field.existedAs'
  readonly field: string
  readonly type: TSchema
  readonly optional: boolean | undefined
  readonly keywords: Readonly<Record<string, unknown>>
}

/**
 * A field of another schema that holds the one a `derivedFrom` field is in (at any depth), in the previous version: a
 * field moved into a nested object (`{ schema: Customer, field: 'city' }` for `Address.city`). `through` names the
 * field of `schema` leading to the derived one, when `schema` holds it in more than one place (decision 0263).
 * @example
 * ```ts
 * const Address = Type.Object({ city: Type.String() }, { $id: 'Address' })
 * const Customer = Type.Object({ city: Type.String(), address: Address }, { $id: 'Customer' })
 * const Order = Type.Object({ billingCity: Type.String(), billing: Address, shipping: Address }, { $id: 'Order' })
 * schema(Address).field('city').derivedFrom({ schema: Customer, field: 'city' })
 * schema(Address).field('city').derivedFrom({ schema: Order, field: 'billingCity', through: 'billing' })
 * ```
 */
export interface DerivationSource {
  readonly schema: SchemaLike
  readonly field: string
  readonly through?: string
}

/** `schema(S).field(f).didntExist`, or `.derivedFrom(...fields)`: then `derivedFrom` names the previous version's fields it is set from. */
export interface FieldDidntExistInstruction extends SchemaInstructionBase {
  readonly kind: 'field.didntExist'
  readonly field: string
  readonly derivedFrom?: ReadonlyArray<string | DerivationSource>
}

/** `schema(S).validator(v).existed`. */
export interface ValidatorExistedInstruction extends SchemaInstructionBase {
  readonly kind: 'validator.existed'
  readonly validator: NamedValidator
}

/** `schema(S).validator(name).didntExist`. */
export interface ValidatorDidntExistInstruction extends SchemaInstructionBase {
  readonly kind: 'validator.didntExist'
  readonly validatorName: string
}

/** `enumeration(E).had({ member: value })`. */
export interface EnumHadInstruction extends SchemaInstructionBase {
  readonly kind: 'enum.had'
  readonly members: Readonly<Record<string, EnumValue>>
}

/** `enumeration(E).didntHave(...members)`. */
export interface EnumDidntHaveInstruction extends SchemaInstructionBase {
  readonly kind: 'enum.didntHave'
  readonly members: readonly string[]
}

/** `endpoint(path, methods).existed` / `.didntExist`. */
export interface EndpointExistenceInstruction extends EndpointInstructionBase {
  readonly kind: 'endpoint.existed' | 'endpoint.didntExist'
}

/** `endpoint(path, methods).had({...})`. */
export interface EndpointHadInstruction extends EndpointInstructionBase {
  readonly kind: 'endpoint.had'
  readonly attributes: Readonly<Omit<EndpointHadAttributes, 'methods' | 'response'> & {
    methods?: readonly HttpMethod[], response?: Record<string | number, TSchema>
  }>
}

/** A value an enum member can have. */
export type EnumValue = string | number | boolean | null

/** Instructions about schemas and their fields. */
export type SchemaInstruction = SchemaHadInstruction | FieldHadInstruction | FieldDidntHaveInstruction |
  FieldExistedAsInstruction | FieldDidntExistInstruction | ValidatorExistedInstruction | ValidatorDidntExistInstruction

/** Instructions about enum members. */
export type EnumInstruction = EnumHadInstruction | EnumDidntHaveInstruction

/** Instructions about routes. */
export type EndpointInstruction = EndpointExistenceInstruction | EndpointHadInstruction

/**
 * One migration instruction: how a schema, an enum or an endpoint looked in the previous version.
 * Made by {@link schema}, {@link enumeration} and {@link endpoint}.
 * @example
 * ```ts
 * const User = Type.Object({ addresses: Type.Array(Type.String()) }, { $id: 'User' })
 * const instructions: Instruction[] = [schema(User).field('addresses').had({ name: 'address', type: Type.String() })]
 * ```
 */
export type Instruction = SchemaInstruction | EnumInstruction | EndpointInstruction

/** True for an object made by one of the instruction builders. */
export function isInstruction (value: unknown): value is Instruction {
  return typeof value === 'object' && value !== null && (value as Partial<InstructionBase>)[kInstruction] === true
}

/** Brands and freezes an instruction. */
export function makeInstruction<T extends Instruction> (fields: Omit<T, typeof kInstruction>): T {
  return Object.freeze({ ...fields, [kInstruction]: true, toString: () => fields.display }) as unknown as T
}

/** Throws `message` unless a builder's argument is an object with at least one key (`had({})` says nothing). */
export function checkNotEmpty (attributes: unknown, message: string): void {
  if (!isSchemaObject(attributes) || Object.keys(attributes).length === 0) throw new VersionerStructureError(message)
}

/** True for endpoint instructions (those route generation applies); every other one is applied by schema generation. */
export function isEndpointInstruction (instruction: Instruction): instruction is EndpointInstruction {
  return instruction.kind.startsWith('endpoint.')
}
