import { test } from 'tap'
import Fastify, { type LightMyRequestResponse } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  defineValidator, endpoint, extendSchema, fastifyVersioner, generateVersionedSchemas, HeadVersion, schema, Version, VersionBundle,
  versioned, withValidators, type Instruction
} from '../plugin'
import { changeWith } from './helpers/http-apps'
import { bodyApp, keysOf, plain, post, prop } from './helpers/schema-generation'
import { caught, throwsStructure } from './helpers/structure'

/** A bundle 2002-01-01 → 2001-01-01 → 2000-01-01 whose two newer versions hold one change each. */
function threeVersions (name: string, newest: Instruction[], middle: Instruction[]): VersionBundle {
  return new VersionBundle(
    new HeadVersion(),
    new Version('2002-01-01', changeWith(`${name}Newest`, newest)),
    new Version('2001-01-01', changeWith(`${name}Middle`, middle)),
    new Version('2000-01-01')
  )
}

function allOfOf (schema: TSchema): unknown[] | undefined {
  return (schema as { allOf?: unknown[] }).allOf
}

test('an inherited field renamed by a child keeps its name when the child later gains a field with its HEAD name', async (t) => {
  const Parent = Type.Object({ name: Type.String() })
  const Child = extendSchema(Parent, { id: Type.String() })
  const schemas = generateVersionedSchemas(threeVersions('RenameThenAdd',
    [schema(Child).field('name').had({ name: 'fullName' })],
    [schema(Child).field('name').existedAs({ type: Type.Integer() })]))
  t.strictSame(keysOf(schemas.get('2001-01-01').get(Child)), ['fullName', 'id'])
  const oldest = schemas.get('2000-01-01').get(Child)
  t.strictSame(keysOf(oldest), ['fullName', 'id', 'name'], 'the renamed parent field is still there, next to the new own field')
  t.equal(prop(oldest, 'fullName'), Parent.properties.name, 'the renamed field keeps its schema')
  t.equal(prop(oldest, 'name').type, 'integer', 'the own field is the one the instruction added')
  t.equal(schemas.get('2000-01-01').get(Parent), Parent, 'the parent is untouched')
})

test('endpoint(route path).had({ path }) needs a path starting with /; webhook names keep theirs', async (t) => {
  throwsStructure(t, () => endpoint('/users', 'GET').had({ path: 'accounts' }),
    "endpoint('/users', [GET]).had({ path: 'accounts' }): path must start with '/' like the route path '/users' it replaces; got 'accounts'.")
  t.equal(endpoint('/users', 'GET').had({ path: '/accounts' }).attributes.path, '/accounts')
  t.equal(endpoint('userCreated', 'POST').had({ path: 'accountCreated' }).attributes.path, 'accountCreated', 'a webhook is renamed to a name')
})

test('a validator about a removed field comes back with the field when an older version restores it', async (t) => {
  const cardNeedsNumber = defineValidator('cardNeedsNumber', {
    if: { properties: { method: { const: 'card' } }, required: ['method'] },
    then: { required: ['cardNumber'] }
  })
  const Payment = withValidators(Type.Object({ method: Type.String(), cardNumber: Type.Optional(Type.String()) }), cardNeedsNumber)
  const schemas = generateVersionedSchemas(threeVersions('RemoveThenRestore',
    [schema(Payment).field('cardNumber').didntExist],
    [schema(Payment).field('cardNumber').existedAs({ type: Type.String(), optional: true })]))
  const middle = schemas.get('2001-01-01').get(Payment)
  t.strictSame(keysOf(middle), ['method'])
  t.equal(allOfOf(middle), undefined, 'without the field, the validator is not part of the version')
  const oldest = schemas.get('2000-01-01').get(Payment)
  t.strictSame(keysOf(oldest), ['method', 'cardNumber'])
  t.strictSame(allOfOf(oldest), [cardNeedsNumber.fragment], 'the restored field brings its validator back')
  const app = bodyApp(t, oldest)
  t.equal((await post(app, { method: 'card' })).status, 400, 'the oldest version enforces it')
  t.equal((await post(app, { method: 'card', cardNumber: '4242' })).status, 200)
})

test("a validator about a field named like an Object.prototype member leaves with the field ('constructor')", async (t) => {
  const needsConstructor = defineValidator('needsConstructor', { required: ['constructor'] })
  const Machine = withValidators(Type.Object({ constructor: Type.Optional(Type.String()), id: Type.String() }), needsConstructor)
  const schemas = generateVersionedSchemas(threeVersions('RenameConstructor', [schema(Machine).field('constructor').had({ name: 'maker' })], []))
  const old = schemas.get('2001-01-01').get(Machine)
  t.strictSame(keysOf(old), ['maker', 'id'])
  t.equal(allOfOf(old), undefined, 'no validator about a field the version lacks')
  t.equal((await post(bodyApp(t, old), { id: '1' })).status, 200)
})

test('version values that become the same $id part are rejected, naming both', async (t) => {
  throwsStructure(t, () => new VersionBundle(new Version('a/b'), new Version('a_b')),
    "Version values 'a/b' and 'a_b' both become 'a_b' in the $id of generated schemas")
  t.ok(new VersionBundle(new Version('a/b'), new Version('a.b')), 'values that stay apart are fine')
})

test('a field edited over a named schema is not a second schema under that $id', async (t) => {
  const Address = Type.Object({ street: Type.String() }, { $id: 'Address' })
  const User = Type.Object({ address: Address }, { $id: 'User' })
  const Both = Type.Object({ user: User, home: Address })
  const bundle = new VersionBundle(
    new HeadVersion(),
    new Version('2001-01-01', changeWith('DescribeAddress', [schema(User).field('address').had({ description: 'where mail goes', minProperties: 1 })])),
    new Version('2000-01-01')
  )
  const schemas = generateVersionedSchemas(bundle).get('2000-01-01')
  const oldUser = schemas.get(User)
  t.strictSame(plain(prop(oldUser, 'address')), {
    type: 'object', properties: { street: { type: 'string' } }, required: ['street'], description: 'where mail goes', minProperties: 1
  }, 'the edited copy has no $id')
  t.equal(schemas.get(Address), Address, 'Address itself is unchanged')
  t.equal(prop(schemas.get(Both), 'home'), Address, 'a schema holding both has one schema named Address')

  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: bundle })
  await app.register(versioned(async (api) => {
    api.post('/users', { schema: { body: User, response: { 200: Address } } }, async (request) => request.body.address)
  }))
  const response = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': '2000-01-01' }, payload: { address: { street: 's' } } })
  t.equal(response.statusCode, 200, response.body)
  t.strictSame(response.json(), { street: 's' })
  const document = app.versioner.openapi('2000-01-01') as { components: { schemas: Record<string, unknown> } }
  t.strictSame(document.components.schemas.Address, { type: 'object', properties: { street: { type: 'string' } }, required: ['street'] },
    'the Address component is Address itself')
  t.match(document.components.schemas.User, { properties: { address: { description: 'where mail goes', minProperties: 1 } } },
    'the edited field is inline in User')
})

test('didntExist on a field inherited from a grandparent names the schema that declares it', async (t) => {
  const Base = Type.Object({ id: Type.String() }, { $id: 'Base' })
  const Middle = extendSchema(Base, { name: Type.String() }, { $id: 'Middle' })
  const Leaf = extendSchema(Middle, { email: Type.String() }, { $id: 'Leaf' })
  const error = caught(() => generateVersionedSchemas(threeVersions('RemoveGrandparentField', [schema(Leaf).field('id').didntExist], [])))
  t.equal(error?.code, 'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION')
  t.match(error?.message, "the field 'id' is inherited from 'Base', an ancestor of the parent schema 'Middle' (extendSchema); apply the instruction to 'Base'.")
  const direct = caught(() => generateVersionedSchemas(threeVersions('RemoveParentField', [schema(Leaf).field('name').didntExist], [])))
  t.match(direct?.message, "the field 'name' is inherited from the parent schema 'Middle' (extendSchema); apply the instruction to the parent.")
})

test('an explicit HEAD route after a GET without its HEAD twin keeps its own schema', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/x', { exposeHeadRoute: false }, async () => ({ from: 'get' }))
    api.head('/x', { schema: { querystring: Type.Object({ q: Type.String() }) } }, async (_request, reply) => {
      reply.header('x-from', 'head')
      return ''
    })
  }))
  const head = async (url: string): Promise<LightMyRequestResponse> => await app.inject({ method: 'HEAD', url, headers: { 'x-api-version': '2000-01-01' } })
  t.equal((await head('/x')).statusCode, 400, 'the HEAD route validates its own querystring')
  const ok = await head('/x?q=1')
  t.equal(ok.statusCode, 200)
  t.equal(ok.headers['x-from'], 'head')
  const get = await app.inject({ method: 'GET', url: '/x', headers: { 'x-api-version': '2000-01-01' } })
  t.strictSame(get.json(), { from: 'get' })
  t.ok(app.versioner.routes.get('2000-01-01')?.some((route) => route.methods.includes('HEAD')), 'the HEAD route is a versioned route')
})
