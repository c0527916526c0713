// TypeBox 1.x (`typebox`, the peer of @fastify/type-provider-typebox 6) schemas in every public function that takes a
// schema, as a user of the built package sees them: accepted, with the checks 0.34 schemas get (decision 0201).
import Fastify, { type FastifyPluginAsync, type FastifyPluginCallback, type FastifyTypeProvider, type RawServerDefault } from 'fastify'
import { expectAssignable, expectError, expectNotAssignable, expectType } from 'tsd'
// typebox 1.x is ESM only: this CommonJS test file takes its types (tsd only type-checks, nothing runs).
import type * as TypeBox1 from 'typebox' with { 'resolution-mode': 'import' }
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, enumeration, extendSchema, fastifyVersioner,
  generateVersionedSchemas, migrateResponseBody, renderWebhook, schema, versioned, Version, VersionBundle, VersionChange,
  withValidators, defineValidator, type FieldInstructionBuilder, type FieldName, type RequestInfo, type ResponseInfo,
  type SchemaInstruction, type SchemaLike, type WebhookDefinition, type EnumInstruction
} from '../..'
import { isAny } from './helpers'

declare const Type: typeof TypeBox1.Type
type Static<T extends TypeBox1.TSchema> = TypeBox1.Static<T>
type TSchema = TypeBox1.TSchema

const User = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) }, { $id: 'User' })
const Status = Type.Union([Type.Literal('active'), Type.Literal('archived')])
const Level = Type.Enum(['low', 'high'])

// A 1.x schema is a schema; a string or an options object is not.
expectAssignable<SchemaLike>(User)
expectAssignable<SchemaLike>(Type.Unsafe<string>({ type: 'string' }))
expectAssignable<SchemaLike>(Type.Any())
expectNotAssignable<SchemaLike>('User')
expectNotAssignable<SchemaLike>({ checkUsage: false })
// A plain JSON Schema object is read at run time but typed by neither line: it takes a cast.
expectNotAssignable<SchemaLike>({ type: 'object', properties: {} })

// schema(S).field(f): f is checked against S's fields, as with 0.34.
expectType<'id' | 'addresses'>({} as FieldName<typeof User>)
expectType<FieldInstructionBuilder>(schema(User).field('addresses'))
expectError(schema(User).field('adresses'))
expectType<FieldInstructionBuilder>(schema(User).formerField('address'))
expectAssignable<SchemaInstruction>(schema(User).field('addresses').had({ name: 'address', type: Type.String() }))
expectAssignable<SchemaInstruction>(schema(User).formerField('legacyId').existedAs({ type: Type.Integer() }))
expectError(schema(User).formerField('legacyId').existedAs({ type: 'integer' }))
expectAssignable<SchemaInstruction>(schema(User).had({ name: 'UserV1' }))

// enumeration(E): a 1.x union of literals or Type.Enum.
expectAssignable<EnumInstruction>(enumeration(Status).didntHave('archived'))
expectAssignable<EnumInstruction>(enumeration(Level).had({ medium: 'medium' }))
expectError(enumeration(Status).didntHave(1))

// endpoint(...).had({ response }) takes 1.x schemas.
expectAssignable<object>(endpoint('/users', ['GET']).had({ response: { 200: User } }))
expectError(endpoint('/users', ['GET']).had({ response: { 200: 'User' } }))

// extendSchema: a 1.x parent and 1.x properties; the child's fields are checked too.
const UserBase = Type.Object({ name: Type.String() })
const UserResource = extendSchema(UserBase, { id: Type.String() })
expectType<'name' | 'id'>({} as FieldName<typeof UserResource>)
expectError(schema(UserResource).field('nmae'))
expectError(extendSchema(Status, { id: Type.String() }))
// 1.x's Static (and so its type provider) types the child: its fields required unless marked Type.Optional.
expectType<{ name: string, id: string }>({} as Static<typeof UserResource>)
const WithOptional = extendSchema(UserBase, { nickname: Type.Optional(Type.String()) })
expectType<{ name: string, nickname?: string }>({} as Static<typeof WithOptional>)
// withValidators keeps the 1.x schema's type.
expectType<typeof UserBase>(withValidators(UserBase, defineValidator('named', Type.Object({ required: ['name'] }))))

// The converter decorators take 1.x schemas; the body is typed by the converter's parameter, as with 0.34.
class AddressesToAddress extends VersionChange {
  description = 'Users can now store several addresses.'
  instructionsToMigrateToPreviousVersion = [schema(User).field('addresses').had({ name: 'address', type: Type.String() })]

  @ConvertRequestToNextVersionFor(User)
  up (request: RequestInfo<{ readonly id: string, readonly address: string }, Static<typeof User>>): void {
    request.body = { id: request.body.id, addresses: [request.body.address] }
  }

  @ConvertResponseToPreviousVersionFor(User, UserBase, { migrateHttpErrors: true })
  down (response: ResponseInfo<Static<typeof User>, { id: string, address: string }>): void {
    response.body = { id: response.body.id, address: response.body.addresses[0] }
  }
}
expectError(ConvertRequestToNextVersionFor(User, { migrateHttpErrors: true }))
expectError(ConvertResponseToPreviousVersionFor(User, 'extra'))

const versions = new VersionBundle(new Version('2001-01-01', AddressesToAddress), new Version('2000-01-01'))
expectType<SchemaLike>(generateVersionedSchemas(versions).get('2000-01-01').get(User))

// migrateResponseBody and renderWebhook take a 1.x schema; only 0.34's static type is known to the package, so the
// body of a 1.x schema is not checked (`unknown`, never `any`): the result is typed by the version's type given.
expectType<unknown>(migrateResponseBody(versions, User, { latestBody: { id: 'u1', addresses: [] }, version: '2000-01-01' }))
expectType<false>(isAny(migrateResponseBody(versions, User, { latestBody: {}, version: '2000-01-01' })))
const userCreated: WebhookDefinition<typeof User> = { name: 'user.created', body: User }
void renderWebhook(versions, userCreated, { id: 'u1', addresses: [] }, { subscribers: [] })

// Handlers: a 1.x line's type provider, as @fastify/type-provider-typebox 6 declares it, types them inside versioned().
interface TypeBox1Provider extends FastifyTypeProvider {
  validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown
  serializer: this['schema'] extends TSchema ? Static<this['schema']> : unknown
}
const app = Fastify()
app.register(fastifyVersioner, { versions })
app.versioner.webhooks.add({ name: 'user.created', body: User })
const routes: FastifyPluginAsync<Record<never, never>, RawServerDefault, TypeBox1Provider> = async (api) => {
  api.post('/users', { schema: { body: User } }, async (request) => {
    expectType<string[]>(request.body.addresses)
    expectError(request.body.address)
    return request.body
  })
}
app.register(versioned(routes), { prefix: '/api' })
app.register(versioned<Record<never, never>, TypeBox1Provider>(async (api) => {
  api.post('/users', { schema: { body: User } }, async (request) => {
    expectType<string>(request.body.id)
    expectError(request.body.address)
    return request.body
  })
}))
// The reply is checked against the 1.x response schema too, and a callback plugin keeps its provider.
app.register(versioned<Record<never, never>, TypeBox1Provider>(async (api) => {
  expectError(api.get('/users/:id', { schema: { response: { 200: User } } }, async () => ({ id: 1, addresses: [] })))
}))
const callbackRoutes: FastifyPluginCallback<{ tag: string }, RawServerDefault, TypeBox1Provider> = (api, options, done) => {
  api.post('/users', { schema: { body: User } }, async (request) => {
    expectType<string>(request.body.id)
    expectError(request.body.address)
    return options.tag
  })
  done()
}
app.register(versioned(callbackRoutes), { tag: 'v' })
// Without the 1.x provider, a 1.x schema types nothing: the body is unknown (never any), the reply unchecked.
app.register(versioned(async (api) => {
  api.post('/users', { schema: { body: User, response: { 200: User } } }, async (request) => {
    expectType<unknown>(request.body)
    return { id: 1 }
  })
}))
