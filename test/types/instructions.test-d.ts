// The instruction builders schema(...), enumeration(...) and endpoint(...), as a user of the built package sees them.
import { expectAssignable, expectError, expectNotAssignable, expectType } from 'tsd'
import { Type } from '@sinclair/typebox'
import {
  defineValidator, endpoint, enumeration, extendSchema, schema, withValidators, type EndpointInstruction, type EnumInstruction,
  type FieldInstructionBuilder, type FieldName, type HttpMethod, type Instruction, type SchemaInstruction
} from '../..'
import { isAny } from './helpers'

const User = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) })
const Status = Type.Union([Type.Literal('active'), Type.Literal('archived')])

// Field names: field() takes the HEAD schema's own fields (a typo fails to compile); formerField() names a field
// HEAD does not have (one of older versions), any string. A schema whose fields TypeScript cannot see takes any name.
expectType<'id' | 'addresses'>({} as FieldName<typeof User>)
expectAssignable<FieldName<typeof User>>('addresses')
expectNotAssignable<FieldName<typeof User>>('address')
expectType<string>({} as FieldName<typeof Status>)
expectType<string>({} as FieldName<ReturnType<typeof Type.Unsafe>>)
expectType<FieldInstructionBuilder>(schema(User).field('addresses'))
expectError(schema(User).field('adresses'))
expectError(schema(User).field('legacyId').existedAs({ type: Type.Integer() }))
expectType<FieldInstructionBuilder>(schema(User).formerField('legacyId'))
expectError(schema(User).formerField(42))
expectError(schema(User).field(42))
expectError(schema(User).field())
expectError(schema('User'))

// field(...).had: `type` must be a schema; name a string; optional a boolean; keywords typed where known.
expectAssignable<SchemaInstruction>(schema(User).field('addresses').had({ name: 'address', type: Type.String() }))
expectAssignable<SchemaInstruction>(schema(User).field('id').had({ minLength: 3, description: 'old id', optional: true }))
expectAssignable<SchemaInstruction>(schema(User).field('id').had({ 'x-custom-keyword': 'extra keywords are allowed' }))
expectError(schema(User).field('addresses').had({ type: 'string' }))
expectError(schema(User).field('addresses').had({ type: { type: 'string' } }))
expectError(schema(User).field('addresses').had({ name: 42 }))
expectError(schema(User).field('addresses').had({ optional: 'yes' }))
expectError(schema(User).field('id').had({ minLength: '3' }))
expectError(schema(User).field('id').had())
// deprecated: true, or the dates and page of a field deprecation (docs/field-deprecations.md).
expectAssignable<SchemaInstruction>(schema(User).field('id').had({ deprecated: true }))
expectAssignable<SchemaInstruction>(schema(User).field('id').had({ deprecated: { deprecatedAt: '2026-01-01', sunsetAt: new Date(), link: '/guide' } }))
expectError(schema(User).field('id').had({ deprecated: 'yes' }))
expectError(schema(User).field('id').had({ deprecated: { sunsetAt: 2027 } }))

// existedAs needs a type; didntHave takes keyword names; didntExist is a property, not a call.
expectAssignable<SchemaInstruction>(schema(User).formerField('legacyId').existedAs({ type: Type.Integer(), default: 0 }))
expectError(schema(User).formerField('legacyId').existedAs({ default: 0 }))
expectError(schema(User).formerField('legacyId').existedAs({ type: 'integer' }))
expectAssignable<SchemaInstruction>(schema(User).field('id').didntHave('minLength', 'x-custom'))
expectError(schema(User).field('id').didntHave(1))
expectAssignable<SchemaInstruction>(schema(User).field('addresses').didntExist)
expectError(schema(User).field('addresses').didntExist())
// derivedFrom names the previous version's fields (any name: they are not HEAD's).
expectAssignable<SchemaInstruction>(schema(User).field('addresses').derivedFrom('address'))
expectError(schema(User).field('addresses').derivedFrom(1))
// or a field of a schema holding it, with that schema (a field moved into a nested object).
expectAssignable<SchemaInstruction>(schema(User).field('addresses').derivedFrom({ schema: User, field: 'address' }))
expectError(schema(User).field('addresses').derivedFrom({ field: 'address' }))
// through names the field of that schema leading to the derived one.
expectAssignable<SchemaInstruction>(schema(User).field('addresses').derivedFrom({ schema: User, field: 'address', through: 'home' }))
expectError(schema(User).field('addresses').derivedFrom({ schema: User, field: 'address', through: 1 }))

// Schema names and named validators.
expectAssignable<SchemaInstruction>(schema(User).had({ name: 'UserV1' }))
expectAssignable<SchemaInstruction>(schema(User).had({ examples: [{ id: 'u1', address: '1 Main St' }], description: 'A user.', title: 'User' }))
expectAssignable<SchemaInstruction>(schema(User).had({ name: 'UserV1', description: 'A user.' }))
expectError(schema(User).had({ name: 'UserV1', minLength: 1 }))
expectError(schema(User).had({ examples: { id: 'u1' } }))
expectError(schema(User).had({ description: 1 }))
expectError(schema(User).had({}))
const endAfterStart = defineValidator('endAfterStart', Type.Object({ end: Type.String() }))
const Booking = withValidators(Type.Object({ start: Type.String(), end: Type.String() }), endAfterStart)
expectType<typeof Booking>(Booking)
expectAssignable<SchemaInstruction>(schema(Booking).validator(endAfterStart).existed)
expectAssignable<SchemaInstruction>(schema(Booking).validator('endAfterStart').didntExist)

// Enumerations: members by name, values of JSON types.
expectAssignable<EnumInstruction>(enumeration(Status).had({ pending: 'pending', legacy: 2, off: false, none: null }))
expectAssignable<EnumInstruction>(enumeration(Status).didntHave('archived'))
expectError(enumeration(Status).had({ pending: { value: 'pending' } }))
expectError(enumeration(Status).didntHave(1))

// endpoint: methods in upper or lower case, one or a list; anything else is rejected.
expectAssignable<EndpointInstruction>(endpoint('/x', ['GET']).existed)
expectAssignable<EndpointInstruction>(endpoint('/x', ['get', 'POST']).didntExist)
expectAssignable<EndpointInstruction>(endpoint('/x', 'delete').existed)
expectAssignable<EndpointInstruction>(endpoint('/x', ['PUT'] as const).had({ path: '/y', statusCode: 201, methods: ['patch'], tags: ['users'] }))
expectError(endpoint('/x', ['FETCH']))
expectError(endpoint('/x', 'fetch'))
expectError(endpoint('/x', ['Get']))
expectError(endpoint('/x'))
expectError(endpoint('/x', ['GET']).had({ statusCode: '201' }))
expectError(endpoint('/x', ['GET']).had({ methods: ['FETCH'] }))
expectError(endpoint('/x', ['GET']).had({ response: { 200: 'User' } }))
expectError(endpoint('/x', ['GET']).had({ handler: () => {} }))
expectAssignable<HttpMethod>('SEARCH')
expectNotAssignable<HttpMethod>('get')

// Every builder result is an Instruction, which is what a version change lists.
const instructions: Instruction[] = [
  schema(User).field('addresses').had({ name: 'address', type: Type.String() }),
  enumeration(Status).didntHave('archived'),
  endpoint('/users', ['POST']).existed
]
expectType<Instruction[]>(instructions)

// extendSchema keeps the parent's and its own properties typed.
const UserResource = extendSchema(User, { email: Type.String() })
expectType<'id' | 'addresses' | 'email'>({} as FieldName<typeof UserResource>)
expectType<false>(isAny(UserResource.properties.email))
