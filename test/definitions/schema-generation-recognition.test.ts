import { test } from 'tap'
import { Type, TypeGuard, type TObject, type TSchema } from '@sinclair/typebox'
import { TypeSystemPolicy } from '@sinclair/typebox/system'
import { Value } from '@sinclair/typebox/value'
import { ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, type RequestInfo, type ResponseInfo, defineValidator, enumeration, extendSchema, generateVersionedSchemas, HeadVersion, schema, UnknownVersionError, Version, VersionBundle, VersionChange, withValidators, fastifyVersioner, versioned } from '../../plugin'
import {
  bodyApp, deepFreeze, generateWith, keysOf, LATEST, OLD, oldSchemas, plain, post, prop, requiredOf, statuses, typebox1
} from '../helpers/schema-generation'
import Fastify from 'fastify'
import { changeClass } from '../helpers/version-changes'
import { documentOf, type OpenApiDocument } from '../helpers/openapi-documents'
import { recordWarnings, settle } from '../helpers/changelog-lifecycle'
import { anotherCopy } from '../helpers/another-copy'

/** A fresh address schema, and the instruction that calls its `street` `line1` in 2000-01-01. */
function addressSchemas () {
  const Address = Type.Object({ street: Type.String(), city: Type.String() }, { $id: 'Address' })
  return { Address, instruction: schema(Address).field('street').had({ name: 'line1' }) }
}
const OLD_ADDRESS = {
  $id: 'Address__2000-01-01',
  type: 'object',
  properties: { line1: { type: 'string' }, city: { type: 'string' } },
  required: ['line1', 'city']
}

test('a schema is recognised by identity wherever it is nested', async (t) => {
  const { Address, instruction } = addressSchemas()
  const AsProperty = Type.Object({ home: Address })
  const AsItems = Type.Array(Address)
  const AsUnionMember = Type.Union([Address, Type.Null()])
  const AsAllOfMember = Type.Intersect([Address, Type.Object({ zip: Type.String() })])
  const AsRecordValue = Type.Record(Type.String(), Address)
  const AsTupleItem = Type.Tuple([Type.String(), Address])
  const Deep = Type.Object({ book: Type.Array(Type.Object({ entries: Type.Array(Address) })) })
  const schemas = generateWith([instruction])
  const latest = schemas.get(LATEST)
  const old = schemas.get(OLD)
  const oldAddress = old.get(Address)
  t.strictSame(plain(oldAddress), OLD_ADDRESS)

  for (const container of [AsProperty, AsItems, AsUnionMember, AsAllOfMember, AsRecordValue, AsTupleItem, Deep]) {
    t.equal(latest.get(container), container, 'the latest version is HEAD itself')
  }
  t.equal(prop(old.get(AsProperty), 'home'), oldAddress, 'property')
  t.ok(TypeGuard.IsObject(old.get(AsProperty)))
  t.equal((old.get(AsItems) as unknown as { items: TSchema }).items, oldAddress, 'array items')
  t.ok(TypeGuard.IsArray(old.get(AsItems)))
  const union = old.get(AsUnionMember) as unknown as { anyOf: TSchema[] }
  t.equal(union.anyOf[0], oldAddress, 'union member')
  t.equal(union.anyOf[1], AsUnionMember.anyOf[1], 'the other member is shared')
  t.ok(TypeGuard.IsUnion(union))
  const intersect = old.get(AsAllOfMember) as unknown as { allOf: TSchema[] }
  t.equal(intersect.allOf[0], oldAddress, 'allOf member')
  t.equal(intersect.allOf[1], AsAllOfMember.allOf[1])
  t.ok(TypeGuard.IsIntersect(intersect))
  const record = old.get(AsRecordValue) as unknown as { patternProperties: Record<string, TSchema> }
  t.strictSame(Object.values(record.patternProperties), [oldAddress], 'record value')
  t.ok(TypeGuard.IsRecord(record))
  const tuple = old.get(AsTupleItem) as unknown as { items: TSchema[] }
  t.equal(tuple.items[1], oldAddress, 'tuple item')
  t.equal(tuple.items[0], AsTupleItem.items![0])
  t.ok(TypeGuard.IsTuple(tuple))
  const deep = old.get(Deep) as unknown as { properties: { book: { items: { properties: { entries: { items: TSchema } } } } } }
  t.equal(deep.properties.book.items.properties.entries.items, oldAddress, 'several levels down')

  t.strictSame(await statuses(t, old.get(AsItems), [[{ line1: 'a', city: 'b' }], [{ street: 'a', city: 'b' }]]), [200, 400])
  t.strictSame(await statuses(t, old.get(AsRecordValue), [{ x: { line1: 'a', city: 'b' } }, { x: { street: 'a', city: 'b' } }]), [200, 400])
})

test('Type.Optional and Type.Readonly wrappers are seen through, and their modifiers kept', async (t) => {
  const { Address, instruction } = addressSchemas()
  const Status = Type.Union([Type.Literal('on'), Type.Literal('off')])
  const Holder = Type.Object({
    id: Type.String(),
    optional: Type.Optional(Address),
    readonly: Type.Readonly(Address),
    both: Type.ReadonlyOptional(Address),
    status: Type.Optional(Status)
  })
  const old = oldSchemas([instruction, enumeration(Status).didntHave('off')])
  const oldHolder = old.get(Holder)
  t.strictSame(requiredOf(oldHolder), ['id', 'readonly'], 'required is still right')
  t.ok(TypeGuard.IsOptional(prop(oldHolder, 'optional')))
  t.notOk(TypeGuard.IsReadonly(prop(oldHolder, 'optional')))
  t.ok(TypeGuard.IsReadonly(prop(oldHolder, 'readonly')))
  t.notOk(TypeGuard.IsOptional(prop(oldHolder, 'readonly')))
  t.ok(TypeGuard.IsOptional(prop(oldHolder, 'both')) && TypeGuard.IsReadonly(prop(oldHolder, 'both')))
  for (const key of ['optional', 'readonly', 'both']) t.strictSame(plain(prop(oldHolder, key)), OLD_ADDRESS, key)
  t.ok(TypeGuard.IsOptional(prop(oldHolder, 'status')))
  t.strictSame(plain(prop(oldHolder, 'status')), { anyOf: [{ const: 'on', type: 'string' }] })
  t.notOk(TypeGuard.IsOptional(old.get(Address)), 'the unwrapped schema has no modifier')
  const direct = old.get(Type.Optional(Address))
  t.ok(TypeGuard.IsOptional(direct), 'a wrapper looked up directly keeps its modifier')
  t.strictSame(plain(direct), OLD_ADDRESS)

  // Ajv refuses one body schema embedding several copies of an $id, so Fastify gets a holder with one wrapper.
  const Small = Type.Object({ id: Type.String(), address: Type.Optional(Address), status: Type.Optional(Status) })
  const payloads = [
    { id: '1' },
    { id: '1', address: { line1: 'a', city: 'b' }, status: 'on' },
    { id: '1', address: { street: 'a', city: 'b' } },
    { id: '1', status: 'off' }
  ]
  t.strictSame(await statuses(t, old.get(Small), payloads), [200, 200, 400, 400])
  t.strictSame(await statuses(t, Small, payloads), [200, 400, 200, 200])
})

test('a schema is recognised by $id: another object with the same $id, and $refs to it', async (t) => {
  const { Address, instruction } = addressSchemas()
  const SameId = Type.Object({ street: Type.String(), city: Type.String() }, { $id: 'Address' })
  const Order = Type.Object({ billing: SameId, shipping: Type.Ref('Address'), pickup: Type.Ref(Address) })
  const Unrelated = Type.Object({ x: Type.String() }, { $id: 'Unrelated' })
  const WithUnrelatedRef = Type.Object({ u: Type.Ref('Unrelated') })
  const old = oldSchemas([instruction])
  t.not(SameId, Address)
  t.strictSame(plain(old.get(SameId)), OLD_ADDRESS, 'the copy is versioned like the original')
  const oldOrder = old.get(Order)
  t.strictSame(plain(prop(oldOrder, 'billing')), OLD_ADDRESS)
  t.strictSame(plain(prop(oldOrder, 'shipping')), { $ref: 'Address__2000-01-01' }, 'Type.Ref(name) points to the versioned $id')
  t.strictSame(plain(prop(oldOrder, 'pickup')), { $ref: 'Address__2000-01-01' }, 'Type.Ref(schema) points to the versioned $id')
  t.ok(TypeGuard.IsRef(prop(oldOrder, 'shipping')), 'the reference keeps its Kind')
  t.equal(old.get(WithUnrelatedRef), WithUnrelatedRef, 'a $ref to an unchanged schema changes nothing')
  t.equal(old.get(Unrelated), Unrelated)

  const OnlyRefs = Type.Object({ shipping: Type.Ref('Address') })
  const app = bodyApp(t, old.get(OnlyRefs), [old.get(Address)])
  t.equal((await post(app, { shipping: { line1: 'a', city: 'b' } })).status, 200)
  t.equal((await post(app, { shipping: { street: 'a', city: 'b' } })).status, 400)
})

test('regression: two different schemas with one $id are FST_VERSIONER_STRUCTURE at ready, naming the $id and both, not treated as one', async (t) => {
  const { Address, instruction } = addressSchemas()
  const Other = Type.Object({ line: Type.String(), zip: Type.Integer() }, { $id: 'Address' })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', changeClass('LineWasStreet', [instruction])), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/a', { schema: { body: Address } }, async () => ({}))
    api.post('/b', { schema: { body: Other } }, async () => ({}))
  }))
  await t.rejects(async () => { await app.ready() }, {
    code: 'FST_VERSIONER_STRUCTURE',
    message: /Two different schemas have \$id 'Address': \{ street, city \} and \{ line, zip \}\..*give each schema its own \$id/
  })
  const copy = oldSchemas([instruction]).get(Type.Optional(Type.Object({ street: Type.String(), city: Type.String() }, { $id: 'Address' })))
  t.strictSame(plain(copy), OLD_ADDRESS, 'an equal copy (Type.Optional aside) is still recognised by its $id')
})

test("regression: a schema given to app.addSchema holding a named changed schema: Fastify's copy (without TypeBox's Kind) is not another schema with its $id", async (t) => {
  const { Address } = addressSchemas()
  const Customer = Type.Object({ home: Address }, { $id: 'Customer' })
  const app = Fastify()
  t.teardown(() => app.close())
  const cityIsNew = changeClass('CityIsNew', [schema(Address).field('city').didntExist])
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', cityIsNew), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    // Fastify stores a copy of what addSchema is given, without the symbols TypeBox writes (Kind).
    api.addSchema(Customer)
    api.get('/customer', { schema: { response: { 200: Type.Ref('Customer') } } }, async () => ({ home: { street: 'a', city: 'b' } }))
  }))
  await app.ready()
  const customer = async (version: string) => (await app.inject({ url: '/customer', headers: { 'x-api-version': version } })).json()
  t.strictSame(await customer('2000-01-01'), { home: { street: 'a' } }, 'the old version has no city')
  t.strictSame(await customer('2001-01-01'), { home: { street: 'a', city: 'b' } })
})

test("regression: a changed schema without $id nested in a schema given to app.addSchema is versioned (Fastify keeps a plain JSON copy): old clients got HEAD's fields", async (t) => {
  const Address = Type.Object({ street: Type.String(), city: Type.String() })
  class LineWasStreet extends VersionChange {
    description = 'street was line1.'
    instructionsToMigrateToPreviousVersion = [schema(Address).field('street').had({ name: 'line1' }), schema(Address).field('city').didntExist]
    @ConvertRequestToNextVersionFor(Address)
    up (request: RequestInfo) {
      request.body.street = request.body.line1
      request.body.city = 'unknown'
      delete request.body.line1
    }

    @ConvertResponseToPreviousVersionFor(Address)
    down (response: ResponseInfo) {
      response.body.line1 = response.body.street
      delete response.body.street
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', LineWasStreet), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    await api.register(async (customers) => {
      customers.addSchema(Type.Object({ home: Address }, { $id: 'Customer' }))
      customers.put('/customer', { schema: { body: Type.Ref('Customer'), response: { 200: Type.Ref('Customer') } } }, async (request) => request.body)
    })
  }))
  await app.ready()
  const put = async (version: string, home: object) => await app.inject({ method: 'PUT', url: '/customer', headers: { 'x-api-version': version }, payload: { home } })
  const old = await put('2000-01-01', { line1: 'a' })
  t.equal(old.statusCode, 200)
  t.strictSame(old.json(), { home: { line1: 'a' } }, 'converted both ways, without the city the version lacks')
  t.equal((await put('2000-01-01', { street: 'a', city: 'b' })).statusCode, 400, 'the old version refuses HEAD\'s fields')
  t.strictSame((await put('2001-01-01', { street: 'a', city: 'b' })).json(), { home: { street: 'a', city: 'b' } })
  const homeOf = (document: OpenApiDocument): { properties: object } => {
    const body = document.paths['/customer'].put.requestBody.content['application/json'].schema
    return (typeof body.$ref === 'string' ? document.components.schemas[body.$ref.split('/').pop()] : body).properties.home
  }
  t.same(Object.keys(homeOf(documentOf(app, '2000-01-01')).properties), ['line1'], 'documented in the version\'s shape')
  t.same(Object.keys(homeOf(documentOf(app, '2001-01-01')).properties), ['street', 'city'])
})

test('regression: two scopes giving addSchema different schemas with one $id are FST_VERSIONER_STRUCTURE at ready: one was used for both routes in old versions and documents', async (t) => {
  const Address = Type.Object({ street: Type.String() })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', changeClass('LineWasStreet', [schema(Address).field('street').had({ name: 'line1' })])), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    // Fastify keeps each scope's schemas apart: both are accepted, and each route validates with its own in HEAD.
    await api.register(async (homes) => {
      homes.addSchema(Type.Object({ home: Address }, { $id: 'Item' }))
      homes.post('/homes', { schema: { body: Type.Ref('Item') } }, async () => ({}))
    })
    await api.register(async (offices) => {
      offices.addSchema(Type.Object({ office: Address, floor: Type.Integer() }, { $id: 'Item' }))
      offices.post('/offices', { schema: { body: Type.Ref('Item') } }, async () => ({}))
    })
  }))
  await t.rejects(async () => { await app.ready() }, { code: 'FST_VERSIONER_STRUCTURE', message: /Two different schemas have \$id 'Item': \{ home \} and \{ office, floor \}.*its own \$id/ })
})

test('a plain JSON copy equal to two schemas without $id that instructions name is FST_VERSIONER_STRUCTURE at ready', async (t) => {
  const Home = Type.Object({ street: Type.String() })
  const Work = Type.Object({ street: Type.String() })
  const app = Fastify()
  t.teardown(() => app.close())
  const change = changeClass('TwoLookAlikes', [schema(Home).field('street').had({ name: 'line1' }), schema(Work).field('street').had({ name: 'line' })])
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', change), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.addSchema(Type.Object({ home: Home }, { $id: 'Customer' }))
    api.post('/customers', { schema: { body: Type.Ref('Customer') } }, async () => ({}))
    api.post('/offices', { schema: { body: Work } }, async () => ({}))
  }))
  await t.rejects(async () => { await app.ready() }, { code: 'FST_VERSIONER_STRUCTURE', message: /\{ street \}.*addSchema.*equal to 2 schemas.*its own \$id/ })
})

test("regression: a $ref relative to its schema's URL $id ('address.json' in https://example.com/schemas/user.json) is FST_VERSIONER_STRUCTURE at ready: old versions missed or could not resolve its schema", async (t) => {
  const base = 'https://example.com/schemas/'
  /** An app whose User (changed or not) holds an Address (changed or not) through `ref`, each registered with addSchema under `ids`. */
  const app = async (ids: { user: string, address: string }, ref: string, changed: 'address' | 'user') => {
    const Address = Type.Object({ city: Type.String() }, { $id: ids.address })
    const User = Type.Object({ name: Type.String(), address: Type.Unsafe<{ city: string }>({ $ref: ref }) }, { $id: ids.user })
    class Renamed extends VersionChange {
      description = 'The address had a town; the user a fullName.'
      instructionsToMigrateToPreviousVersion = [changed === 'address' ? schema(Address).field('city').had({ name: 'town' }) : schema(User).field('name').had({ name: 'fullName' })]
      @ConvertRequestToNextVersionFor(User)
      up (request: RequestInfo) {
        if (changed === 'address') request.body.address = { city: request.body.address.town }
        else request.body = { name: request.body.fullName, address: request.body.address }
      }
    }
    const application = Fastify()
    t.teardown(() => application.close())
    application.addSchema(Address)
    await application.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', Renamed), new Version('2000-01-01')) })
    await application.register(versioned(async (api) => {
      api.post('/users', { schema: { body: User } }, async (request) => request.body)
    }))
    return application
  }
  const urls = { user: `${base}user.json`, address: `${base}address.json` }
  for (const [ids, changed, full] of [[urls, 'address', `${base}address.json`], [urls, 'user', `${base}address.json`]] as const) {
    await t.rejects(async () => { await (await app(ids, 'address.json', changed)).ready() }, {
      code: 'FST_VERSIONER_STRUCTURE',
      message: `POST /users: the $ref 'address.json' is relative to the $id '${ids.user}' of the schema holding it. fastify-versioner finds the schema ` +
        `a $ref names by its exact $id, and gives a schema an older version changes another $id, so that version would miss the schema or not resolve it: write the $ref in full, '${full}'.`
    }, `${changed} changed, ids ${ids.user}`)
    // Written in full, the old version has its own address (a town) and user (a fullName).
    const fixed = await app(ids, full, changed)
    const payload = changed === 'address' ? { name: 'Ann', address: { town: 'Oslo' } } : { fullName: 'Ann', address: { city: 'Oslo' } }
    const answer = await fixed.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': '2000-01-01' }, payload })
    t.strictSame([answer.statusCode, answer.json()], [200, { name: 'Ann', address: { city: 'Oslo' } }])
  }
})

test("regression: a $ref written the Fastify way ('Address#') is rewritten", async (t) => {
  const { instruction } = addressSchemas()
  const Order = Type.Object({ shipping: Type.Unsafe({ $ref: 'Address#' }), billing: Type.Ref('Address') })
  const oldOrder = oldSchemas([instruction]).get(Order)
  t.equal((prop(oldOrder, 'billing') as { $ref?: string }).$ref, 'Address__2000-01-01')
  t.match((prop(oldOrder, 'shipping') as { $ref?: string }).$ref, /^Address__2000-01-01#?$/)
})

test('$refs follow a schema rename, and sharedSchemas lets $refs reach schemas that contain changed ones', async (t) => {
  const { Address, instruction } = addressSchemas()
  const Wrapper = Type.Object({ address: Address }, { $id: 'Wrapper' })
  const ByRef = Type.Object({ address: Type.Ref('Address'), wrapper: Type.Ref('Wrapper') })
  const renamed = generateVersionedSchemas(bundleOf(instruction, schema(Address).had({ name: 'Location' })), { sharedSchemas: [Wrapper] })
  const old = renamed.get(OLD)
  t.equal((old.get(Address) as { $id?: string }).$id, 'Location__2000-01-01')
  t.strictSame(plain(old.get(ByRef)), {
    type: 'object',
    required: ['address', 'wrapper'],
    properties: { address: { $ref: 'Location__2000-01-01' }, wrapper: { $ref: 'Wrapper__2000-01-01' } }
  })
  t.strictSame(plain(old.get(Wrapper)), {
    $id: 'Wrapper__2000-01-01',
    type: 'object',
    required: ['address'],
    properties: { address: { ...OLD_ADDRESS, $id: 'Location__2000-01-01' } }
  }, 'a schema with $id that contains a changed one gets a versioned $id too')

  const { Address: Address2, instruction: instruction2 } = addressSchemas()
  const Wrapper2 = Type.Object({ address: Address2 }, { $id: 'Wrapper' })
  const ByRef2 = Type.Object({ wrapper: Type.Ref('Wrapper') })
  const withoutShared = generateVersionedSchemas(bundleOf(instruction2)).get(OLD)
  t.equal(withoutShared.get(ByRef2), ByRef2, 'without sharedSchemas a $ref to an unknown $id is left alone')
  t.equal((withoutShared.get(Wrapper2) as { $id?: string }).$id, 'Wrapper__2000-01-01')
})

test('Type.Recursive: self-references point to the versioned $id', async (t) => {
  const Category = Type.Recursive((This) => Type.Object({ name: Type.String(), children: Type.Array(This) }), { $id: 'Category' })
  const old = oldSchemas([schema(Category).field('name').had({ name: 'label' })]).get(Category)
  t.strictSame(plain(old), {
    $id: 'Category__2000-01-01',
    type: 'object',
    properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: 'Category__2000-01-01' } } },
    required: ['label', 'children']
  })
  t.ok(TypeGuard.IsObject(old))
  t.ok(Value.Check(old, { label: 'a', children: [{ label: 'b', children: [] }] }), 'TypeBox validates the versioned recursive schema')
  t.notOk(Value.Check(old, { label: 'a', children: [{ name: 'b', children: [] }] }))
  // Fastify's Ajv resolves a recursive schema's self-reference once the schema is added as a shared schema.
  t.strictSame(await statuses(t, Type.Unsafe({ $ref: 'Category__2000-01-01#' }), [
    { label: 'a', children: [{ label: 'b', children: [] }] },
    { label: 'a', children: [{ name: 'b', children: [] }] },
    { name: 'a', children: [] }
  ], [old]), [200, 400, 400])

  const Renamed = Type.Recursive((This) => Type.Object({ name: Type.String(), parent: Type.Optional(This) }), { $id: 'Node' })
  const oldRenamed = oldSchemas([schema(Renamed).had({ name: 'TreeNode' })]).get(Renamed)
  t.equal((oldRenamed as { $id?: string }).$id, 'TreeNode__2000-01-01')
  t.equal((prop(oldRenamed, 'parent') as { $ref?: string }).$ref, 'TreeNode__2000-01-01')
})

test('regression: TypeBox copies a Type.Recursive\'s body: an enum and an object instructions name inside it kept HEAD\'s form in every version', async (t) => {
  const Kind = Type.Union([Type.Literal('a'), Type.Literal('b'), Type.Literal('c')])
  const Address = Type.Object({ street: Type.String(), code: Type.Optional(Type.String()) })
  const Tree = Type.Recursive((This) => Type.Object({ kind: Kind, home: Address, children: Type.Optional(Type.Array(This)) }), { $id: 'Tree' })
  t.not(prop(Tree, 'kind'), Kind, 'the body is a copy')
  const old = oldSchemas([enumeration(Kind).didntHave('c'), schema(Address).field('code').didntExist]).get(Tree)
  t.strictSame(plain(old), {
    $id: 'Tree__2000-01-01',
    type: 'object',
    properties: {
      kind: { anyOf: [{ const: 'a', type: 'string' }, { const: 'b', type: 'string' }] },
      home: { type: 'object', properties: { street: { type: 'string' } }, required: ['street'] },
      children: { type: 'array', items: { $ref: 'Tree__2000-01-01' } }
    },
    required: ['kind', 'home']
  })
  t.ok(Value.Check(old, { kind: 'a', home: { street: 's' }, children: [{ kind: 'b', home: { street: 't' } }] }))
  t.notOk(Value.Check(old, { kind: 'a', home: { street: 's' }, children: [{ kind: 'c', home: { street: 't' } }] }), 'the old form lacks the member at every depth')
  // Two schemas that instructions name and the copy equals: which one it copies cannot be told.
  const Other = Type.Union([Type.Literal('a'), Type.Literal('b'), Type.Literal('c')])
  t.throws(() => oldSchemas([enumeration(Kind).didntHave('c'), enumeration(Other).didntHave('b')]).get(Tree), { code: 'FST_VERSIONER_STRUCTURE', message: /Type\.Recursive/ })
})

test('instructions on a parent reach the schemas made from it with extendSchema', async (t) => {
  const Base = Type.Object({ id: Type.String(), name: Type.String(), age: Type.Integer() }, { $id: 'Base' })
  const Child = extendSchema(Base, { email: Type.String() }, { $id: 'Child' })
  t.strictSame(keysOf(Child), ['id', 'name', 'age', 'email'])
  const old = oldSchemas([
    schema(Base).field('name').had({ name: 'fullName' }),
    schema(Base).field('age').had({ type: Type.String() }),
    schema(Base).formerField('legacy').existedAs({ type: Type.Boolean(), optional: true })
  ])
  const oldChild = old.get(Child)
  t.strictSame(plain(oldChild), {
    $id: 'Child__2000-01-01',
    type: 'object',
    properties: {
      id: { type: 'string' },
      fullName: { type: 'string' },
      age: { type: 'string' },
      legacy: { type: 'boolean' },
      email: { type: 'string' }
    },
    required: ['id', 'fullName', 'age', 'email']
  })
  t.equal((old.get(Base) as { $id?: string }).$id, 'Base__2000-01-01')
  t.equal(prop(oldChild, 'email'), Child.properties.email, "the child's own field is shared")
  t.strictSame(await statuses(t, oldChild, [
    { id: '1', fullName: 'n', age: 'ten', email: 'e' },
    { id: '1', name: 'n', age: 'ten', email: 'e' }
  ]), [200, 400])
})

test("regression: a schema TypeBox builds from a changed schema's fields (Type.Partial, Pick, Omit, Required, Composite) kept HEAD's fields in old versions without a word: FSTVRS003 names it", async (t) => {
  const warnings = recordWarnings(t)
  const Role = Type.Union([Type.Literal('admin'), Type.Literal('guest')], { $id: 'Role' })
  const User = Type.Object({ id: Type.String(), name: Type.String(), role: Role, email: Type.String() }, { $id: 'User' })
  const Patch = Type.Partial(User)
  const derived = {
    partial: Patch,
    pick: Type.Pick(User, ['name', 'role']),
    omit: Type.Omit(User, ['id']),
    required: Type.Required(Type.Partial(User)),
    composite: Type.Composite([User, Type.Object({ note: Type.String() })]),
    items: Type.Array(Type.Partial(User)),
    partialOfStrings: Type.Partial(Type.Omit(User, ['role']))
  }
  const Owned = Type.Partial(User)
  const Base = Type.Object({ code: Type.String(), title: Type.String() })
  const Kid = extendSchema(Base, { note: Type.String() })
  const untouched = {
    parentOfAChildWithItsOwnInstructions: Base,
    unchangedFields: Type.Pick(User, ['id', 'role']),
    intersect: Type.Intersect([User, Type.Object({ note: Type.String() })]),
    child: extendSchema(User, { note: Type.String() }),
    ownInstructions: Owned,
    other: Type.Object({ name: Type.String() }),
    onePickedByValue: Type.Object({ name: Type.String(), note: Type.String() }),
    sameFieldsWritten: Type.Object({ id: Type.String(), name: Type.String(), note: Type.String() })
  }
  const old = oldSchemas([
    schema(User).field('name').had({ name: 'fullName' }),
    schema(User).field('email').didntExist,
    schema(Owned).field('name').had({ name: 'fullName' }),
    schema(Kid).field('title').had({ name: 'heading' })
  ])
  for (const schema of Object.values(untouched)) old.get(schema)
  await settle()
  t.strictSame(warnings.filter((warning) => warning.code === 'FSTVRS003'), [], 'none for a schema that holds the changed schema, or its unchanged fields only')
  for (const [helper, schema] of Object.entries(derived)) {
    old.get(schema)
    await settle()
    const messages = warnings.filter((warning) => warning.code === 'FSTVRS003').splice(0).map((warning) => warning.message)
    warnings.length = 0
    t.equal(messages.length, 1, helper)
    t.match(messages[0], /holds fields of 'User' .* change in version '2000-01-01' \((name, email|name)\), but they do not reach a copy: it keeps HEAD's fields in every version\. Give it instructions of its own/, helper)
  }
  t.strictSame(keysOf(old.get(Patch)), ['id', 'name', 'role', 'email'], "the copy keeps HEAD's fields (documented: what the warning is about)")
  t.strictSame(keysOf(old.get(Owned)), ['id', 'fullName', 'role', 'email'], 'with instructions of its own, it follows them')
})

test('regression: FSTVRS003 warned of a hand-written schema sharing a named ($id) schema with one whose instructions rename it', async (t) => {
  const warnings = recordWarnings(t)
  const Address = Type.Object({ street: Type.String(), city: Type.String() }, { $id: 'Address' })
  const User = Type.Object({ name: Type.String(), address: Address, past: Type.Array(Address), billing: Type.Optional(Address) }, { $id: 'User' })
  const old = oldSchemas([
    schema(User).field('address').had({ name: 'home' }),
    schema(User).field('past').had({ name: 'former' }),
    schema(User).field('billing').had({ name: 'invoiceTo' })
  ])
  // Each holds Address (itself, in a list, optional) beside a field of its own: sharing a named schema is how it is reused.
  old.get(Type.Object({ title: Type.String(), address: Address }, { $id: 'Company' }))
  old.get(Type.Object({ label: Type.String(), past: Type.Array(Address) }))
  old.get(Type.Object({ code: Type.String(), billing: Type.Optional(Address) }))
  await settle()
  t.strictSame(warnings.splice(0).filter((warning) => warning.code === 'FSTVRS003'), [], 'no warning for a schema with fields of its own')
  // Copies, all of whose fields are the changed schema's: still warned about (a hand-written { address } cannot be told from them).
  for (const copy of [Type.Pick(User, ['address']), Type.Partial(Type.Pick(User, ['past', 'billing'])), Type.Omit(User, ['name'])]) {
    old.get(copy)
    await settle()
    t.equal(warnings.splice(0).filter((warning) => warning.code === 'FSTVRS003').length, 1, Object.keys(copy.properties).join(', '))
  }
})

test("regression: a child built by extendSchema of another copy of the package kept HEAD's fields in old versions, and FSTVRS003 said to build it with extendSchema: it is a start-up error saying so", async (t) => {
  // A shared schemas package with its own copy of fastify-versioner builds the child; the service's copy changes the parent.
  const other = anotherCopy()
  const UserBase = Type.Object({ name: Type.String() })
  const UserResource = other.extendSchema(UserBase, { id: Type.String() }, { $id: 'UserResource' })
  const instructions = [schema(UserBase).field('name').had({ name: 'fullName' })]
  t.throws(() => oldSchemas(instructions).get(UserResource), {
    code: 'FST_VERSIONER_STRUCTURE',
    message: /^Schema 'UserResource' \{ name, id \} holds fields of 'schema' that its instructions change in version '2000-01-01' \(name\), but they cannot reach it: it was built by extendSchema of another copy of fastify-versioner: .*npm ls fastify-versioner.*peerDependencies/
  })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version(LATEST, changeClass('RenameName', instructions)), new Version(OLD)) })
  await app.register(versioned(async (api) => { api.get('/users/1', { schema: { response: { 200: UserResource } } }, async () => ({ id: 'u1', name: 'Ann' })) }))
  await t.rejects(async () => { await app.ready() }, { code: 'FST_VERSIONER_STRUCTURE', message: /^Schema 'UserResource' \{ name, id \} holds fields .* built by extendSchema of another copy/ })
  // Wrapped in Type.Optional (a copy sharing the child's properties), as a field of a body.
  t.throws(() => oldSchemas(instructions).get(Type.Object({ user: Type.Optional(other.extendSchema(UserBase, { id: Type.String() })) })), {
    code: 'FST_VERSIONER_STRUCTURE', message: /^Schema \{ name, id \} holds fields .* built by extendSchema of another copy/
  })
  // A child of another copy whose parent no instruction changes is served as any object schema.
  t.equal(oldSchemas(instructions).get(other.extendSchema(Type.Object({ code: Type.String() }), { id: Type.String() })).type, 'object')
})

test("regression: an instruction on a schema given to Type.Module did not reach the module's import, without a word: FSTVRS003 names it", async (t) => {
  const warnings = recordWarnings(t)
  const Person = Type.Object({ id: Type.String(), name: Type.String() })
  const Module = Type.Module({ Person, People: Type.Array(Type.Ref('Person')) })
  // Typed as any schema: the compiler finds a TImport too deep to check against TSchema.
  const imported = (Module.Import.bind(Module) as unknown as (key: string) => TSchema)('People')
  const old = oldSchemas([schema(Person).field('name').had({ name: 'fullName' })])
  t.equal(old.get(imported), imported, "the import keeps HEAD's fields (documented: what the warning is about)")
  old.get(imported)
  await settle()
  const messages = warnings.filter((warning) => warning.code === 'FSTVRS003').map((warning) => warning.message)
  t.equal(messages.length, 1, 'once')
  t.match(messages[0], /An object schema 'Person' \{ id, name \} holds fields of 'schema' .* change in version '2000-01-01' \(name\).* declare a schema of a Type.Module outside the module/)
})

test('regression: a Type.Record keyed by an enum kept HEAD\'s keys in every version without a word: FSTVRS004 names it', async (t) => {
  const warnings = recordWarnings(t)
  const Role = Type.Union([Type.Literal('admin'), Type.Literal('guest'), Type.Literal('owner')], { $id: 'Role' })
  const Limits = Type.Record(Role, Type.Integer())
  const Unchanged = Type.Union([Type.Literal('a'), Type.Literal('b')])
  const old = oldSchemas([enumeration(Role).didntHave('owner'), schema(Type.Object({ c: Unchanged })).field('c').had({ description: 'c' })])
  old.get(Type.Record(Unchanged, Type.Integer()))
  old.get(Type.Object({ admin: Type.Integer(), guest: Type.Integer() }))
  t.strictSame(keysOf(old.get(Limits)), ['admin', 'guest', 'owner'], "the record keeps HEAD's keys (documented: what the warning is about)")
  await settle()
  const messages = warnings.filter((warning) => warning.code === 'FSTVRS004').map((warning) => warning.message)
  t.equal(messages.length, 1, 'once, for the record keyed by the changed enum only')
  t.match(messages[0], /An object schema \{ admin, guest, owner \} has the members of the enum 'Role' as its fields .* \(its members in version '2000-01-01' \(admin, guest\)\): it keeps HEAD's keys in every version\. Key it by Type\.String\(\)/)
})

test('regression: a child of extendSchema wrapped in Type.Optional or Type.Readonly kept the fields its parent lacks in older versions', async (t) => {
  const Base = Type.Object({ id: Type.String(), added: Type.Optional(Type.String()) }, { $id: 'Base' })
  const Named = extendSchema(Base, { email: Type.String() }, { $id: 'Named' })
  const Anonymous = extendSchema(Base, { phone: Type.String() })
  // The wrapped copies come first, so each is the first of its schema the generation meets.
  const Body = Type.Object({ named: Type.Optional(Named), anonymous: Type.Readonly(Anonymous), plain: Named })
  const old = oldSchemas([schema(Base).field('added').didntExist])
  const properties = (old.get(Body) as unknown as { properties: Record<string, TSchema> }).properties
  t.strictSame(keysOf(properties.named), ['id', 'email'], 'Type.Optional(child): the parent\'s added field is gone')
  t.strictSame(keysOf(properties.anonymous), ['id', 'phone'], 'Type.Readonly(child without $id): likewise')
  t.strictSame(keysOf(properties.plain), ['id', 'email'])
  t.ok(TypeGuard.IsOptional(properties.named), 'the modifier is kept')
})

test("an instruction on a child's inherited field overrides it in the child only", async (t) => {
  const Base = Type.Object({ id: Type.String(), name: Type.String() })
  const Child = extendSchema(Base, { email: Type.String() })
  const Sibling = extendSchema(Base, { phone: Type.String() })
  const old = oldSchemas([
    schema(Child).field('name').had({ maxLength: 3, description: 'short' }),
    schema(Child).field('id').had({ type: Type.Integer() })
  ])
  t.equal(old.get(Base), Base, 'the parent is untouched')
  t.equal(old.get(Sibling), Sibling, 'another child of the same parent is untouched')
  const oldChild = old.get(Child)
  t.strictSame(plain(oldChild), {
    type: 'object',
    properties: { id: { type: 'integer' }, name: { type: 'string', maxLength: 3, description: 'short' }, email: { type: 'string' } },
    required: ['id', 'name', 'email']
  })
  t.strictSame(await statuses(t, oldChild, [{ id: 1, name: 'abc', email: 'e' }, { id: 1, name: 'abcd', email: 'e' }]), [200, 400])
})

test("regression: renaming a child's inherited field keeps its position", async (t) => {
  const Base = Type.Object({ id: Type.String(), name: Type.String() })
  const Child = extendSchema(Base, { email: Type.String() })
  const oldChild = oldSchemas([schema(Child).field('name').had({ name: 'fullName' })]).get(Child)
  t.strictSame([...keysOf(oldChild)].sort(), ['email', 'fullName', 'id'], 'the field is renamed')
  t.strictSame(requiredOf(oldChild).sort(), ['email', 'fullName', 'id'])
  t.strictSame(keysOf(oldChild), ['id', 'fullName', 'email'])
})

test("regression: a child's own field overriding an inherited one stayed under HEAD's name beside the parent's renamed field, and outlived the parent's removed one", async (t) => {
  const Base = Type.Object({ id: Type.String(), name: Type.String(), nickname: Type.String(), age: Type.Integer() })
  // A PATCH body built from Base: every field optional, in place of Type.Partial(Base).
  const Patch = extendSchema(Base, { name: Type.Optional(Type.String()), nickname: Type.Optional(Type.String()), age: Type.Optional(Type.Integer()) })
  const old = oldSchemas([schema(Base).field('name').had({ name: 'fullName' }), schema(Base).field('nickname').didntExist])
  t.strictSame(keysOf(old.get(Patch)), ['id', 'fullName', 'age'], 'the override follows the rename, and goes with the field')
  t.strictSame(requiredOf(old.get(Patch)), ['id'], 'the overrides stay optional')
  const renamed = oldSchemas([schema(Patch).field('name').had({ name: 'label' }), schema(Base).field('name').had({ name: 'fullName' })])
  t.strictSame(keysOf(renamed.get(Patch)), ['id', 'label', 'nickname', 'age'], "the child's own rename of its override wins")
  // The child's instruction on its override, under the name the parent gave it, reaches it; older renames still follow.
  const schemas = generateVersionedSchemas(new VersionBundle(
    new Version('2002-01-01', changeClass('BaseFullName', [schema(Base).field('name').had({ name: 'fullName' })])),
    new Version('2001-01-01', changeClass('PatchDescribed', [schema(Patch as TObject).field('fullName').had({ description: 'the full name' })])),
    new Version('2000-01-01', changeClass('BaseLabel', [schema(Base as TObject).field('fullName').had({ name: 'label' })])),
    new Version('1999-01-01')
  ))
  t.strictSame(plain(prop(schemas.get('2000-01-01').get(Patch), 'fullName')), { type: 'string', description: 'the full name' })
  t.strictSame(keysOf(schemas.get('1999-01-01').get(Patch)), ['id', 'label', 'nickname', 'age'])
  t.strictSame(plain(prop(schemas.get('1999-01-01').get(Patch), 'label')), { type: 'string', description: 'the full name' })
})

test("regression: a field retyped and renamed by one had() lost its HEAD name, so a child's override of it no longer met it", async (t) => {
  const Base = Type.Object({ id: Type.String(), name: Type.String() })
  const Patch = extendSchema(Base, { name: Type.Optional(Type.String()) })
  const parent = oldSchemas([schema(Base).field('name').had({ name: 'fullName', type: Type.Integer() })]).get(Patch)
  t.strictSame(plain(parent), { type: 'object', properties: { id: { type: 'string' }, fullName: { type: 'integer' } }, required: ['id'] },
    "the parent's retype and rename reach the override, which stays optional")
  const Child = extendSchema(Base, { name: Type.Number() })
  const child = oldSchemas([schema(Child).field('name').had({ name: 'label', type: Type.Boolean() })]).get(Child)
  t.strictSame(plain(child), { type: 'object', properties: { id: { type: 'string' }, label: { type: 'boolean' } }, required: ['id', 'label'] },
    "the child's retyped and renamed override stands in place of the parent's field, not beside it")
})

test("regression: a child's own field making an inherited one optional kept HEAD's type and keywords where the parent's instructions changed them", async (t) => {
  const Base = Type.Object({ amount: Type.Integer(), name: Type.String({ maxLength: 10 }), note: Type.String() })
  const Patch = extendSchema(Base, { amount: Type.Optional(Type.Integer()), name: Type.Optional(Type.String({ maxLength: 10 })), note: Type.Optional(Type.String({ minLength: 1 })) })
  const old = oldSchemas([schema(Base).field('amount').had({ type: Type.String() }), schema(Base).field('name').had({ maxLength: 3 }), schema(Base).field('note').had({ maxLength: 5 })])
  t.strictSame(plain(old.get(Patch)), {
    type: 'object',
    properties: { amount: { type: 'string' }, name: { type: 'string', maxLength: 3 }, note: { type: 'string', minLength: 1 } }
  }, "the parent's retype and keyword reach an override that only makes the field optional; an override of another type is the child's own")
})

test("regression: after a child's instruction on an inherited field, older parent instructions on it still reach the child", async (t) => {
  const Base = Type.Object({ id: Type.String(), name: Type.String(), age: Type.String() })
  const Child = extendSchema(Base, { email: Type.String() })
  class ChildDescribesName extends VersionChange {
    description = 'Child.name and Child.age got descriptions.'
    instructionsToMigrateToPreviousVersion = [
      schema(Child).field('name').had({ description: 'child name' }),
      schema(Child).field('age').had({ description: 'child age' })
    ]
  }
  class BaseRenamedName extends VersionChange {
    description = 'Base.name was fullName, Base.age was an integer.'
    instructionsToMigrateToPreviousVersion = [
      schema(Base).field('name').had({ name: 'fullName' }),
      schema(Base).field('age').had({ type: Type.Integer() })
    ]
  }
  const schemas = generateVersionedSchemas(new VersionBundle(
    new Version('2002-01-01', ChildDescribesName),
    new Version('2001-01-01', BaseRenamedName),
    new Version('2000-01-01')
  ))
  t.strictSame(plain(prop(schemas.get('2001-01-01').get(Child), 'name')), { type: 'string', description: 'child name' })
  t.strictSame(keysOf(schemas.get('2000-01-01').get(Base)), ['id', 'fullName', 'age'])
  const oldChild = schemas.get('2000-01-01').get(Child)
  t.ok(keysOf(oldChild).includes('fullName'), 'the parent rename adds fullName to the child')
  t.notOk(keysOf(oldChild).includes('name'))
  t.equal(prop(oldChild, 'age').type, 'integer')
})

test('extendSchema over several levels', async (t) => {
  const Entity = Type.Object({ id: Type.String(), createdAt: Type.String() })
  const Person = extendSchema(Entity, { name: Type.String() })
  const Employee = extendSchema(Person, { badge: Type.Integer() }, { $id: 'Employee' })
  class PersonNameWasFull extends VersionChange {
    description = 'Person.name was fullName.'
    instructionsToMigrateToPreviousVersion = [schema(Person).field('name').had({ name: 'fullName' })]
  }
  class EntityHadNoCreatedAt extends VersionChange {
    description = 'Entity.createdAt was added.'
    instructionsToMigrateToPreviousVersion = [schema(Entity).field('createdAt').didntExist, schema(Entity).field('id').had({ type: Type.Integer() })]
  }
  const schemas = generateVersionedSchemas(new VersionBundle(
    new Version('2002-01-01', PersonNameWasFull),
    new Version('2001-01-01', EntityHadNoCreatedAt),
    new Version('2000-01-01')
  ))
  const v2001 = schemas.get('2001-01-01')
  t.equal(v2001.get(Entity), Entity, 'an instruction on a middle schema does not reach its parent')
  t.strictSame(keysOf(v2001.get(Person)), ['id', 'createdAt', 'fullName'])
  t.strictSame(plain(v2001.get(Employee)), {
    $id: 'Employee__2001-01-01',
    type: 'object',
    properties: { id: { type: 'string' }, createdAt: { type: 'string' }, fullName: { type: 'string' }, badge: { type: 'integer' } },
    required: ['id', 'createdAt', 'fullName', 'badge']
  }, 'an instruction on the middle schema reaches the grandchild')
  t.strictSame(plain(schemas.get('2000-01-01').get(Employee)), {
    $id: 'Employee__2000-01-01',
    type: 'object',
    properties: { id: { type: 'integer' }, fullName: { type: 'string' }, badge: { type: 'integer' } },
    required: ['id', 'fullName', 'badge']
  }, 'an instruction on the grandparent reaches the grandchild')
  t.strictSame(keysOf(schemas.get('2000-01-01').get(Entity)), ['id'])
  t.equal(schemas.get('2002-01-01').get(Employee), Employee)
  t.strictSame(await statuses(t, schemas.get('2000-01-01').get(Employee), [
    { id: 1, fullName: 'n', badge: 2 },
    { id: 1, name: 'n', badge: 2 },
    { id: 'x', fullName: 'n', badge: 2 }
  ]), [200, 400, 400])
})

test('an untouched schema is the same object in every version; a changed form is shared while nothing it uses changes', async (t) => {
  const Address = Type.Object({ street: Type.String() })
  const Tag = Type.Object({ label: Type.String() })
  const User = Type.Object({ id: Type.String(), address: Address, tags: Type.Array(Tag) })
  const Untouched = Type.Object({ plain: Type.String(), list: Type.Array(Type.Integer()) }, { $id: 'Untouched' })
  class StreetWasRoad extends VersionChange {
    description = 'Address.street was road.'
    instructionsToMigrateToPreviousVersion = [schema(Address).field('street').had({ name: 'road' })]
  }
  class TagsHadNoLabel extends VersionChange {
    description = 'Tag.label was added.'
    instructionsToMigrateToPreviousVersion = [schema(Tag).field('label').didntExist]
  }
  class RoadHadMaxLength extends VersionChange {
    description = 'Address.road lost its maxLength.'
    instructionsToMigrateToPreviousVersion = [schema(Address).formerField('road').had({ maxLength: 30 })]
  }
  const schemas = generateVersionedSchemas(new VersionBundle(
    new Version('2003-01-01', StreetWasRoad),
    new Version('2002-01-01', TagsHadNoLabel),
    new Version('2001-01-01', RoadHadMaxLength),
    new Version('2000-01-01')
  ))
  const at = (version: string, s: TSchema): TSchema => schemas.get(version).get(s)
  t.equal(schemas.versions.length, 4, 'the four versions to check')
  for (const version of schemas.versions) {
    t.equal(at(version, Untouched), Untouched, `untouched in ${version}`)
    t.equal(at(version, User.properties.id), User.properties.id)
  }
  t.equal(at('2003-01-01', User), User)
  t.equal(at('2003-01-01', Address), Address)
  t.not(at('2002-01-01', Address), Address)
  t.equal(at('2001-01-01', Address), at('2002-01-01', Address), 'Address is shared between 2002 and 2001 (only Tag changed)')
  t.not(at('2000-01-01', Address), at('2001-01-01', Address))
  t.equal(at('2002-01-01', Tag), Tag, 'Tag changes only before 2002')
  t.equal(at('2000-01-01', Tag), at('2001-01-01', Tag), 'Tag is shared between 2001 and 2000')
  t.not(at('2001-01-01', User), at('2002-01-01', User), 'User changes when one of its parts does')
  t.equal(prop(at('2000-01-01', User), 'address'), at('2000-01-01', Address), 'the nested form is the looked-up form')
  t.equal(prop(at('2000-01-01', User), 'id'), User.properties.id, 'untouched fields are shared')
  t.equal(at('2000-01-01', User), at('2000-01-01', User), 'lookups are memoised')
  const fresh = Type.String()
  t.equal(at('2000-01-01', fresh), fresh, 'a schema seen for the first time is returned as is')
  t.strictSame(plain(at('2000-01-01', User)), {
    type: 'object',
    required: ['id', 'address', 'tags'],
    properties: {
      id: { type: 'string' },
      address: { type: 'object', properties: { road: { type: 'string', maxLength: 30 } }, required: ['road'] },
      tags: { type: 'array', items: { type: 'object', properties: {} } }
    }
  })
})

test('versioned schemas are valid TypeBox, and unknown versions are refused', async (t) => {
  const Address = Type.Object({ street: Type.String() }, { $id: 'Address' })
  const User = Type.Object({ id: Type.String(), tags: Type.Array(Type.String()), address: Type.Optional(Address) }, { $id: 'User' })
  const schemas = generateWith([
    schema(User).field('tags').had({ type: Type.String() }),
    schema(Address).field('street').had({ minLength: 2 })
  ])
  const old = schemas.get(OLD).get(User)
  t.equal((old as { $id?: string }).$id, 'User__2000-01-01')
  t.ok(TypeGuard.IsObject(old))
  t.ok(TypeGuard.IsString(prop(old, 'tags')))
  t.ok(TypeGuard.IsObject(prop(old, 'address')))
  t.ok(TypeGuard.IsOptional(prop(old, 'address')))
  t.ok(TypeGuard.IsSchema(old))
  t.ok(Value.Check(old, { id: '1', tags: 'a,b', address: { street: 'ab' } }))
  t.notOk(Value.Check(old, { id: '1', tags: ['a'] }))
  t.notOk(Value.Check(old, { id: '1', tags: 'a', address: { street: 'a' } }))

  t.strictSame(schemas.versions, [LATEST, OLD])
  t.equal(schemas.has(OLD), true)
  t.equal(schemas.has('1999-01-01'), false)
  t.strictSame([...schemas].map((lookup) => lookup.version), [LATEST, OLD])
  t.throws(() => schemas.get('1999-01-01'), { code: 'FST_VERSIONER_UNKNOWN_VERSION', message: /'1999-01-01'.*2001-01-01, 2000-01-01/ })
  t.throws(() => schemas.get('head'), UnknownVersionError)
})

test('HEAD schemas are never mutated, even deeply frozen', async (t) => {
  const validator = defineValidator('endAfterStart', { required: ['end'] }, { fields: ['end'] })
  const Status = deepFreeze(Type.Union([Type.Literal('draft'), Type.Literal('live')], { $id: 'Status' }))
  const Address = deepFreeze(Type.Object({ street: Type.String({ minLength: 1 }), zip: Type.Optional(Type.String()) }, { $id: 'Address' }))
  const Base = deepFreeze(Type.Object({ id: Type.String(), name: Type.String({ default: 'x' }) }))
  const Booking = deepFreeze(withValidators(extendSchema(Base, {
    start: Type.String(),
    end: Type.String(),
    status: Status,
    address: Type.Optional(Address),
    refs: Type.Array(Type.Ref('Address')),
    stops: Type.Union([Address, Type.Null()])
  }, { $id: 'Booking' }), validator))
  const Tree = deepFreeze(Type.Recursive((This) => Type.Object({ value: Type.Integer(), next: Type.Optional(This) }), { $id: 'Tree' }))
  const heads = [Status, Address, Base, Booking, Tree]
  const before = heads.map((head) => JSON.stringify(head))
  const schemas = generateWith([
    schema(Address).field('street').had({ name: 'line1', maxLength: 10 }),
    schema(Address).field('zip').had({ optional: false, type: Type.Integer() }),
    schema(Address).had({ name: 'Location' }),
    schema(Base).field('name').didntHave('default'),
    schema(Base).formerField('legacy').existedAs({ type: Type.Boolean() }),
    schema(Booking).field('end').had({ description: 'end' }),
    schema(Booking).field('start').didntExist,
    schema(Booking).validator('endAfterStart').didntExist,
    enumeration(Status).had({ archived: 'archived' }),
    enumeration(Status).didntHave('draft'),
    schema(Tree).field('value').had({ name: 'v' })
  ])
  const old = schemas.get(OLD)
  const oldBooking = old.get(Booking)
  t.strictSame(plain(oldBooking), {
    $id: 'Booking__2000-01-01',
    type: 'object',
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      legacy: { type: 'boolean' },
      end: { type: 'string', description: 'end' },
      status: { $id: 'Status__2000-01-01', anyOf: [{ const: 'live', type: 'string' }, { const: 'archived', type: 'string' }] },
      address: {
        $id: 'Location__2000-01-01',
        type: 'object',
        properties: { line1: { type: 'string', minLength: 1, maxLength: 10 }, zip: { type: 'integer' } },
        required: ['line1', 'zip']
      },
      refs: { type: 'array', items: { $ref: 'Location__2000-01-01' } },
      stops: {
        anyOf: [{
          $id: 'Location__2000-01-01',
          type: 'object',
          properties: { line1: { type: 'string', minLength: 1, maxLength: 10 }, zip: { type: 'integer' } },
          required: ['line1', 'zip']
        }, { type: 'null' }]
      }
    },
    required: ['id', 'name', 'legacy', 'end', 'status', 'refs', 'stops']
  })
  t.strictSame(plain(old.get(Tree)), {
    $id: 'Tree__2000-01-01',
    type: 'object',
    properties: { v: { type: 'integer' }, next: { $ref: 'Tree__2000-01-01' } },
    required: ['v']
  })
  t.strictSame(heads.map((head) => JSON.stringify(head)), before, 'HEAD serialises exactly as before')
  t.ok(heads.every((head) => Object.isFrozen(head)))
  t.equal(schemas.get(LATEST).get(Booking), Booking)
})

test("TypeSystemPolicy.InstanceMode = 'freeze': frozen HEAD schemas are versioned, not mutated", async (t) => {
  const previous = TypeSystemPolicy.InstanceMode
  TypeSystemPolicy.InstanceMode = 'freeze'
  t.teardown(() => { TypeSystemPolicy.InstanceMode = previous })
  const Address = Type.Object({ street: Type.String() }, { $id: 'Address' })
  const Status = Type.Union([Type.Literal('a'), Type.Literal('b')], { $id: 'Status' })
  const User = Type.Object({ name: Type.String(), home: Type.Optional(Address), list: Type.Array(Address), status: Status }, { $id: 'User' })
  t.ok(Object.isFrozen(User) && Object.isFrozen(User.properties) && Object.isFrozen(User.properties.list), 'TypeBox froze the schemas')
  const before = JSON.stringify(User)
  const schemas = generateWith([
    schema(User).field('name').had({ name: 'fullName', minLength: 1 }),
    schema(Address).field('street').had({ type: Type.Integer() }),
    enumeration(Status).didntHave('b')
  ])
  const old = schemas.get(OLD).get(User)
  t.strictSame(plain(old), {
    $id: 'User__2000-01-01',
    type: 'object',
    properties: {
      fullName: { type: 'string', minLength: 1 },
      home: { $id: 'Address__2000-01-01', type: 'object', properties: { street: { type: 'integer' } }, required: ['street'] },
      list: { type: 'array', items: { $id: 'Address__2000-01-01', type: 'object', properties: { street: { type: 'integer' } }, required: ['street'] } },
      status: { $id: 'Status__2000-01-01', anyOf: [{ const: 'a', type: 'string' }] }
    },
    required: ['fullName', 'list', 'status']
  })
  t.ok(TypeGuard.IsOptional(prop(old, 'home')))
  t.equal(JSON.stringify(User), before)
  t.equal(schemas.get(LATEST).get(User), User)
})

test("InstanceMode 'freeze' copies nested schemas, so nested schemas are recognised by $id there (documented limitation)", async (t) => {
  const previous = TypeSystemPolicy.InstanceMode
  TypeSystemPolicy.InstanceMode = 'freeze'
  t.teardown(() => { TypeSystemPolicy.InstanceMode = previous })
  const Anonymous = Type.Object({ street: Type.String() })
  const Named = Type.Object({ street: Type.String() }, { $id: 'FrozenAddress' })
  const User = Type.Object({ anonymous: Anonymous, named: Named })
  t.not(User.properties.anonymous, Anonymous, 'TypeBox copied the nested schema: there is no identity to recognise')
  const old = oldSchemas([
    schema(Anonymous).field('street').had({ name: 'line1' }),
    schema(Named).field('street').had({ name: 'line1' })
  ])
  t.strictSame(keysOf(old.get(Anonymous)), ['line1'], 'the schema itself is versioned')
  t.strictSame(keysOf(prop(old.get(User), 'named')), ['line1'], 'a nested copy with an $id is recognised')
  t.strictSame(keysOf(prop(old.get(User), 'anonymous')), ['street'], 'a nested copy without $id cannot be told from any other schema')
})

function bundleOf (...instructions: Parameters<typeof generateWith>[0]): VersionBundle {
  class Change extends VersionChange {
    description = 'Test change.'
    instructionsToMigrateToPreviousVersion = instructions
  }
  return new VersionBundle(new HeadVersion(), new Version(LATEST, Change), new Version(OLD))
}

test('regression: a field edited over a named schema is not a second schema under that $id', async (t) => {
  const Address = Type.Object({ street: Type.String() }, { $id: 'Address' })
  const User = Type.Object({ address: Address }, { $id: 'User' })
  const Both = Type.Object({ user: User, home: Address })
  const bundle = new VersionBundle(
    new HeadVersion(),
    new Version('2001-01-01', changeClass('DescribeAddress', [schema(User).field('address').had({ description: 'where mail goes', minProperties: 1 })])),
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

test('a TypeBox 1.x object equal to a changed one is another schema (only a plain JSON copy stands for the one it equals): it was renamed too', (t) => {
  const object = (): TSchema => typebox1({
    type: 'object',
    properties: { amount: typebox1({ type: 'number' }, { '~kind': 'Number' }), unit: typebox1({ type: 'string' }, { '~kind': 'String' }) },
    required: ['amount', 'unit']
  }, { '~kind': 'Object' })
  const Money = object()
  const Weight = object()
  const old = oldSchemas([schema(Money).field('amount').had({ name: 'cents' })])
  t.strictSame(keysOf(old.get(Money)), ['cents', 'unit'])
  t.strictSame(keysOf(old.get(Weight)), ['amount', 'unit'], 'the look-alike keeps its fields')
  t.end()
})

test("a schema TypeBox 1.x builds from a changed schema's fields (its Type.Partial) is warned about: FSTVRS003", async (t) => {
  const warnings = recordWarnings(t)
  const id = typebox1({ type: 'string' }, { '~kind': 'String' })
  const tags = typebox1({ type: 'array', items: { type: 'string' } }, { '~kind': 'Array' })
  const User = typebox1({ $id: 'User', type: 'object', properties: { id, tags }, required: ['id', 'tags'] }, { '~kind': 'Object' })
  const optional = (field: TSchema): TSchema => typebox1({ ...field }, { '~kind': (field as unknown as Record<string, string>)['~kind'], '~optional': true })
  const Patch = typebox1({ type: 'object', properties: { id: optional(id), tags: optional(tags) } }, { '~kind': 'Object' })
  oldSchemas([schema(User).field('tags').had({ name: 'labels' })]).get(Patch)
  await settle()
  t.match(warnings.filter((warning) => warning.code === 'FSTVRS003').map((warning) => warning.message), [/\{ id, tags \} holds fields of 'User'.*\(tags\)/])
})
