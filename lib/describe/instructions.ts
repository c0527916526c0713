/**
 * The instruction types: the plain frozen data `schema(...)`, `enumeration(...)` and `endpoint(...)` produce.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { HttpMethod } from '../core/http-methods'
import type { NamedValidator } from './named-validators'
import type { DerivationSource, EndpointHadAttributes, SchemaAnnotations } from './instruction-attributes'
import { kInstruction } from '../core/symbols'
import { VersionerStructureError } from '../core/errors'
import { isSchemaObject } from '../core/json-schema'

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
 * `schema(S).had({ name?, examples?, description?, title? })`: the schema had another name or other annotations.
 * @example
 * ```ts
 * const User = Type.Object({ name: Type.String(), nickname: Type.String() }, { $id: 'User' })
 * const renamed: SchemaHadInstruction = schema(User).had({ name: 'Person' })
 * ```
 */
export interface SchemaHadInstruction extends SchemaInstructionBase {
  readonly kind: 'schema.had'
  /** The previous name, or `undefined` when only annotations changed. */
  readonly name: string | undefined
  /** The annotations the schema had (only those the instruction gives). */
  readonly annotations: Readonly<SchemaAnnotations>
}

/**
 * `schema(S).field(f).had({...})`.
 * @example
 * ```ts
 * const User = Type.Object({ name: Type.String(), nickname: Type.String() }, { $id: 'User' })
 * const renamed: FieldHadInstruction = schema(User).field('name').had({ name: 'fullName' })
 * ```
 */
export interface FieldHadInstruction extends SchemaInstructionBase {
  readonly kind: 'field.had'
  readonly field: string
  readonly name: string | undefined
  readonly type: TSchema | undefined
  readonly optional: boolean | undefined
  readonly keywords: Readonly<Record<string, unknown>>
}

/**
 * `schema(S).field(f).didntHave(...keywords)`.
 * @example
 * ```ts
 * const User = Type.Object({ name: Type.String(), nickname: Type.String() }, { $id: 'User' })
 * const unbounded: FieldDidntHaveInstruction = schema(User).field('name').didntHave('maxLength')
 * ```
 */
export interface FieldDidntHaveInstruction extends SchemaInstructionBase {
  readonly kind: 'field.didntHave'
  readonly field: string
  readonly keywords: readonly string[]
}

/**
 * `schema(S).field(f).existedAs({ type, ... })`.
 * @example
 * ```ts
 * const User = Type.Object({ name: Type.String(), nickname: Type.String() }, { $id: 'User' })
 * const removed: FieldExistedAsInstruction = schema(User).formerField('legacyId').existedAs({ type: Type.Integer() })
 * ```
 */
export interface FieldExistedAsInstruction extends SchemaInstructionBase {
  readonly kind: 'field.existedAs'
  readonly field: string
  readonly type: TSchema
  readonly optional: boolean | undefined
  readonly keywords: Readonly<Record<string, unknown>>
}

/**
 * `schema(S).field(f).didntExist`, or `.derivedFrom(...fields)`: then `derivedFrom` names the previous version's fields it is set from.
 * @example
 * ```ts
 * const User = Type.Object({ name: Type.String(), nickname: Type.String() }, { $id: 'User' })
 * const added: FieldDidntExistInstruction = schema(User).field('nickname').didntExist
 * ```
 */
export interface FieldDidntExistInstruction extends SchemaInstructionBase {
  readonly kind: 'field.didntExist'
  readonly field: string
  readonly derivedFrom?: ReadonlyArray<string | DerivationSource>
}

/**
 * `schema(S).validator(v).existed`.
 * @example
 * ```ts
 * const endNeedsStart = defineValidator('endNeedsStart', { dependentRequired: { end: ['start'] } })
 * const Booking = Type.Object({ start: Type.Optional(Type.String()), end: Type.Optional(Type.String()) }) // HEAD dropped the rule
 * const removedRule: ValidatorExistedInstruction = schema(Booking).validator(endNeedsStart).existed
 * ```
 */
export interface ValidatorExistedInstruction extends SchemaInstructionBase {
  readonly kind: 'validator.existed'
  readonly validator: NamedValidator
}

/**
 * `schema(S).validator(name).didntExist`.
 * @example
 * ```ts
 * const endNeedsStart = defineValidator('endNeedsStart', { dependentRequired: { end: ['start'] } })
 * const Booking = withValidators(Type.Object({ start: Type.Optional(Type.String()), end: Type.Optional(Type.String()) }), endNeedsStart)
 * const addedRule: ValidatorDidntExistInstruction = schema(Booking).validator('endNeedsStart').didntExist
 * ```
 */
export interface ValidatorDidntExistInstruction extends SchemaInstructionBase {
  readonly kind: 'validator.didntExist'
  readonly validatorName: string
}

/**
 * `enumeration(E).had({ member: value })`.
 * @example
 * ```ts
 * const Status = Type.Union([Type.Literal('active'), Type.Literal('closed')], { $id: 'Status' })
 * const removedMember: EnumHadInstruction = enumeration(Status).had({ pending: 'pending' })
 * ```
 */
export interface EnumHadInstruction extends SchemaInstructionBase {
  readonly kind: 'enum.had'
  readonly members: Readonly<Record<string, EnumValue>>
}

/**
 * `enumeration(E).didntHave(...members)`.
 * @example
 * ```ts
 * const Status = Type.Union([Type.Literal('active'), Type.Literal('closed')], { $id: 'Status' })
 * const addedMember: EnumDidntHaveInstruction = enumeration(Status).didntHave('closed')
 * ```
 */
export interface EnumDidntHaveInstruction extends SchemaInstructionBase {
  readonly kind: 'enum.didntHave'
  readonly members: readonly string[]
}

/**
 * `endpoint(path, methods).existed` / `.didntExist`.
 * @example
 * ```ts
 * const added: EndpointExistenceInstruction = endpoint('/users/:id/addresses', ['GET']).didntExist
 * ```
 */
export interface EndpointExistenceInstruction extends EndpointInstructionBase {
  readonly kind: 'endpoint.existed' | 'endpoint.didntExist'
}

/**
 * `endpoint(path, methods).had({...})`.
 * @example
 * ```ts
 * const moved: EndpointHadInstruction = endpoint('/users/:id', ['GET']).had({ path: '/accounts/:id', tags: ['accounts'] })
 * ```
 */
export interface EndpointHadInstruction extends EndpointInstructionBase {
  readonly kind: 'endpoint.had'
  readonly attributes: Readonly<Omit<EndpointHadAttributes, 'methods' | 'response'> & {
    methods?: readonly HttpMethod[], response?: Record<string | number, TSchema>
  }>
}

/**
 * A value an enum member can have.
 * @example
 * ```ts
 * const members: Record<string, EnumValue> = { pending: 'pending', legacy: 0, none: null }
 * ```
 */
export type EnumValue = string | number | boolean | null

/**
 * Instructions about schemas and their fields.
 * @example
 * ```ts
 * const User = Type.Object({ name: Type.String(), nickname: Type.String() }, { $id: 'User' })
 * const instructions: SchemaInstruction[] = [schema(User).had({ name: 'Person' }), schema(User).field('nickname').didntExist]
 * ```
 */
export type SchemaInstruction = SchemaHadInstruction | FieldHadInstruction | FieldDidntHaveInstruction |
  FieldExistedAsInstruction | FieldDidntExistInstruction | ValidatorExistedInstruction | ValidatorDidntExistInstruction

/**
 * Instructions about enum members.
 * @example
 * ```ts
 * const Status = Type.Union([Type.Literal('active'), Type.Literal('closed')], { $id: 'Status' })
 * const instructions: EnumInstruction[] = [enumeration(Status).didntHave('closed')]
 * ```
 */
export type EnumInstruction = EnumHadInstruction | EnumDidntHaveInstruction

/**
 * Instructions about routes.
 * @example
 * ```ts
 * const instructions: EndpointInstruction[] = [endpoint('/users/:id/addresses', ['GET']).didntExist]
 * ```
 */
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
