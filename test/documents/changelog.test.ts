import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import fastifySwagger from '@fastify/swagger'
import {
  fastifyVersioner, versioned, defineValidator, endpoint, enumeration, extendSchema, HeadVersion, schema, Version, VersionBundle, withValidators,
  type Changelog, type ChangelogEntryData
} from '../../plugin'
import { buildApp } from '../../examples/users/app'
import { versionedApp } from '../helpers/apps'
import { entriesOf, fetchChangelog, recordWarnings, settle } from '../helpers/changelog-lifecycle'
import { documentOf, operationsOf, validationError } from '../helpers/openapi-documents'
import { changeClass } from '../helpers/version-changes'
import { rejection } from '../helpers/errors'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

interface Asserts {
  equal: (found: unknown, wanted: unknown, message: string) => unknown
  strictSame: (found: unknown, wanted: unknown, message: string) => unknown
}

/** The changelog over HTTP, checked to be a 200 JSON answer equal to `app.versioner.changelog()`. */
async function changelogOf (t: Asserts, app: FastifyInstance): Promise<Changelog> {
  const { statusCode, body, contentType } = await fetchChangelog(app)
  t.equal(statusCode, 200, 'GET /changelog answers 200')
  t.equal(contentType, 'application/json; charset=utf-8', 'as JSON')
  t.strictSame(body, JSON.parse(JSON.stringify(app.versioner.changelog())), 'the HTTP body is app.versioner.changelog() as JSON')
  return body
}

/** The single change of `value` in `changelog` (its entries). */
function onlyChange (changelog: Changelog, value: string): ChangelogEntryData[] {
  const changes = entriesOf(changelog, value) ?? []
  return changes.length === 1 ? changes[0] : []
}

// First in the file: process-warning emits a deprecation once per process.
test('GET /changelog emits the deprecation warning FSTVRSDEP002 and still answers; app.versioner.changelog() only after ready', async (t) => {
  const warnings = recordWarnings(t)
  const Item = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'Item' })
  const versions = new VersionBundle(
    new Version('2001-01-01', changeClass('AddItemName', [schema(Item).field('name').didntExist])),
    new Version('2000-01-01')
  )
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/items', { schema: { response: { 200: Item } } }, async () => ({ id: 'i', name: 'n' }))
  })
  const early = await rejection(() => app.versioner.changelog())
  t.equal(early?.code, 'FST_VERSIONER_NOT_READY', 'changelog() before ready is FST_VERSIONER_NOT_READY')
  await app.ready()
  await settle()
  t.notOk(warnings.some((warning) => warning.code === 'FSTVRSDEP002'), 'no warning before the endpoint is used')

  const changelog = await changelogOf(t, app)
  await settle()
  const warning = warnings.find((item) => item.code === 'FSTVRSDEP002')
  t.ok(warning, 'FSTVRSDEP002 is emitted')
  t.equal(warning?.name, 'DeprecationWarning')
  t.match(warning?.message, /changelog/i)
  t.strictSame(changelog, {
    versions: [{
      value: '2001-01-01',
      changes: [{
        description: 'Test change AddItemName.',
        sideEffects: false,
        instructions: [{ type: 'schema.field.added', models: ['Item'], field: 'name', schema: { type: 'string' } }]
      }]
    }]
  })
  t.same(app.versioner.changelog(), app.versioner.changelog(), 'built once: the same changelog every time (a copy: a caller\'s changes are not served)')
  const again = await fetchChangelog(app)
  t.equal(again.statusCode, 200, 'it keeps working')
})

test('versions newest first without the oldest; changes and entries in declaration order; descriptions; sideEffects; HEAD changes left out', async (t) => {
  const Item = Type.Object({ id: Type.String(), name: Type.String(), size: Type.Integer(), secret: Type.String() }, { $id: 'Item' })
  const Hidden = changeClass('HideSecret', [schema(Item).field('secret').didntExist], { description: 'HEAD-only: secret is internal.' })
  const First = changeClass('AddSize', [schema(Item).field('size').didntExist, endpoint('/items/:id', ['DELETE']).didntExist],
    { description: 'Items have a size; items can be deleted.', sideEffects: true })
  const Second = changeClass('RenameItem', [schema(Item).had({ name: 'Thing' })], { description: 'Thing is now called Item.' })
  const Oldest = changeClass('AddName', [schema(Item).field('name').didntExist], { description: 'Items have a name.' })
  const versions = new VersionBundle(
    new HeadVersion(Hidden),
    new Version('2003-01-01', First, Second),
    new Version('2002-01-01'),
    new Version('2001-01-01', Oldest),
    new Version('2000-01-01')
  )
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/items/:id', { schema: { response: { 200: Item } } }, async () => ({ id: 'i', name: 'n', size: 1, secret: 's' }))
    api.delete('/items/:id', async () => ({ deleted: true }))
  })
  await app.ready()
  const changelog = await changelogOf(t, app)
  t.strictSame(changelog.versions.map((version) => version.value), ['2003-01-01', '2002-01-01', '2001-01-01'],
    'newest first, every version but the oldest')
  t.strictSame(changelog.versions.map((version) => version.changes.map((change) => [change.description, change.sideEffects])), [
    [['Items have a size; items can be deleted.', true], ['Thing is now called Item.', false]],
    [],
    [['Items have a name.', false]]
  ], 'descriptions in declaration order; sideEffects true for VersionChangeWithSideEffects only; a version without changes lists none')
  t.strictSame(entriesOf(changelog, '2003-01-01')?.map((entries) => entries.map((entry) => entry.type)), [
    ['schema.field.added', 'endpoint.added'], ['schema.renamed']
  ], 'entries in instruction order')
  t.notOk(JSON.stringify(changelog).includes('HEAD-only') || JSON.stringify(changelog).includes('secret'), 'HeadVersion changes are not in the changelog')
})

test('endpoint entries: didntExist is endpoint.added, existed is endpoint.removed, had is endpoint.changed with previous and new values', async (t) => {
  const Change = changeClass('ReshapeEndpoints', [
    endpoint('/reports', ['GET', 'POST']).didntExist,
    endpoint('/legacy/export', ['GET']).existed,
    endpoint('/users/:id', ['GET']).had({ path: '/people/:id', summary: 'Get a person', description: 'Old description', tags: ['people'], deprecated: true })
  ])
  const versions = new VersionBundle(new Version('2001-01-01', Change), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.route({ method: ['GET', 'POST'], url: '/reports', handler: async () => ({ ok: true }) })
    api.get('/legacy/export', { onlyExistsInOlderVersions: true }, async () => ({ ok: true }))
    api.get('/users/:id', { schema: { summary: 'Get a user', description: 'A user by id.', tags: ['users'] } }, async () => ({ ok: true }))
  })
  await app.ready()
  const entries = onlyChange(await changelogOf(t, app), '2001-01-01')
  t.strictSame(entries[0], { type: 'endpoint.added', path: '/reports', methods: ['GET', 'POST'] })
  t.strictSame(entries[1], { type: 'endpoint.removed', path: '/legacy/export', methods: ['GET'] })
  t.strictSame(entries[2], {
    type: 'endpoint.changed',
    path: '/users/:id',
    methods: ['GET'],
    changes: [
      { name: 'path', status: 'changed', previousValue: '/people/:id', newValue: '/users/:id' },
      { name: 'summary', status: 'changed', previousValue: 'Get a person', newValue: 'Get a user' },
      { name: 'description', status: 'changed', previousValue: 'Old description', newValue: 'A user by id.' },
      { name: 'tags', status: 'changed', previousValue: ['people'], newValue: ['users'] },
      { name: 'deprecated', status: 'removed', previousValue: true }
    ]
  }, 'each attribute with its value in the older and in this version')
  t.equal(entries.length, 3)
  // The entries describe what the documents show.
  t.ok(documentOf(app, '2000-01-01').paths['/people/{id}']?.get, '2000-01-01 documents the old path')
  t.notOk(documentOf(app, '2001-01-01').paths['/legacy/export'], '2001-01-01 does not have the removed endpoint')
  t.ok(documentOf(app, '2000-01-01').paths['/legacy/export']?.get, '2000-01-01 has it')
})

test('regression: under a prefix, a moved path\'s previousValue is the full path, as its newValue is', async (t) => {
  // It was the path as `had({ path })` gave it (`/accounts/:id`) beside a full newValue (`/api/users/:id`): the URL
  // the older version's clients call is `/api/accounts/:id`.
  const versions = new VersionBundle(new Version('2001-01-01', changeClass('AccountsAreUsers', [endpoint('/users/:id', ['GET']).had({ path: '/accounts/:id' })])), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => { api.get('/users/:id', async () => ({ ok: true })) }, { prefix: '/api' })
  await app.ready()
  const [entry] = onlyChange(await changelogOf(t, app), '2001-01-01')
  t.same(entry, { type: 'endpoint.changed', path: '/users/:id', methods: ['GET'], changes: [{ name: 'path', status: 'changed', previousValue: '/api/accounts/:id', newValue: '/api/users/:id' }] })
})
test('schema.field.added writes the named schemas in the added field as references to their components', async (t) => {
  const Address = Type.Object({ city: Type.String() }, { $id: 'Address' })
  const Tag = Type.Object({ label: Type.String() }, { $id: 'Tag' })
  const User = Type.Object({ id: Type.String(), address: Address, tags: Type.Array(Tag, { maxItems: 3 }) }, { $id: 'User' })
  const AddFields = changeClass('AddAddressAndTags', [schema(User).field('address').didntExist, schema(User).field('tags').didntExist])
  const versions = new VersionBundle(new Version('2001-01-01', AddFields), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User } } }, async () => ({ id: 'u', address: { city: 'c' }, tags: [] }))
  })
  await app.ready()
  const [address, tags] = onlyChange(await changelogOf(t, app), '2001-01-01')
  t.strictSame(address, { type: 'schema.field.added', models: ['User'], field: 'address', schema: { $ref: '#/components/schemas/Address' } },
    'a named field is its component')
  t.strictSame(tags, { type: 'schema.field.added', models: ['User'], field: 'tags', schema: { type: 'array', items: { $ref: '#/components/schemas/Tag' }, maxItems: 3 } },
    'a named schema inside the field is its component')
})

test('schema entries: schema.renamed, schema.field.added (with the field as that version has it), schema.field.removed, schema.field.attributes.changed', async (t) => {
  const User = Type.Object({
    id: Type.String(),
    name: Type.String({ maxLength: 20 }),
    nickname: Type.String({ maxLength: 10 }),
    tags: Type.Array(Type.String(), { maxItems: 5 }),
    age: Type.Integer()
  }, { $id: 'User' })
  const Newest = changeClass('ShorterNicknames', [
    schema(User).field('nickname').had({ maxLength: 5 }),
    schema(User).had({ name: 'Person' })
  ])
  const Middle = changeClass('AddNickname', [
    schema(User).field('nickname').didntExist,
    schema(User).formerField('email').existedAs({ type: Type.String({ format: 'email' }) }),
    schema(User).field('name').had({ name: 'fullName', maxLength: 10, minLength: 2 }),
    schema(User).field('tags').didntHave('maxItems'),
    schema(User).field('id').had({ type: Type.Integer() }),
    schema(User).field('age').had({ optional: true })
  ])
  const versions = new VersionBundle(new Version('2002-01-01', Newest), new Version('2001-01-01', Middle), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User } } }, async () => ({ id: 'u', name: 'n', nickname: 'k', tags: [], age: 1 }))
  })
  await app.ready()
  const changelog = await changelogOf(t, app)
  const newest = onlyChange(changelog, '2002-01-01')
  t.strictSame(newest[1], { type: 'schema.renamed', models: ['User'], previousName: 'Person' },
    'schema.renamed names the schema as this version has it, with its previous name')
  const middle = onlyChange(changelog, '2001-01-01')
  t.strictSame(middle[0], { type: 'schema.field.added', models: ['Person'], field: 'nickname', schema: { type: 'string', maxLength: 5 } },
    'the added field as 2001-01-01 has it (maxLength 5, not HEAD\'s 10), in the schema as 2001-01-01 names it')
  t.strictSame(middle[1], { type: 'schema.field.removed', models: ['Person'], field: 'email' })
  t.strictSame(middle[2], {
    type: 'schema.field.attributes.changed',
    models: ['Person'],
    field: 'name',
    changes: [
      { name: 'name', status: 'changed', previousValue: 'fullName', newValue: 'name' },
      { name: 'maxLength', status: 'changed', previousValue: 10, newValue: 20 },
      { name: 'minLength', status: 'removed', previousValue: 2 }
    ]
  }, 'had: a renamed field, a changed keyword, a keyword this version no longer has')
  t.strictSame(middle[3], {
    type: 'schema.field.attributes.changed', models: ['Person'], field: 'tags', changes: [{ name: 'maxItems', status: 'added', newValue: 5 }]
  }, 'didntHave: a keyword added in this version, with its value')
  t.strictSame(middle[4], {
    type: 'schema.field.attributes.changed',
    models: ['Person'],
    field: 'id',
    changes: [{ name: 'type', status: 'changed', previousValue: { type: 'integer' }, newValue: { type: 'string' } }]
  }, 'a changed type, as JSON Schema')
  t.strictSame(middle[5], {
    type: 'schema.field.attributes.changed', models: ['Person'], field: 'age', changes: [{ name: 'optional', status: 'changed', previousValue: true, newValue: false }]
  }, 'a field that became required')
  // The names are the document's component names.
  t.ok(documentOf(app, '2002-01-01').components.schemas.User, '2002-01-01 calls it User')
  t.ok(documentOf(app, '2001-01-01').components.schemas.Person, '2001-01-01 calls it Person')
  t.strictSame(documentOf(app, '2001-01-01').components.schemas.Person.properties.nickname, { type: 'string', maxLength: 5 },
    'the field entry matches the document of its version')
})

test('schema.attributes.changed: schema(S).had() with annotations (and a name) lists each attribute; examples by their previous value', async (t) => {
  const User = Type.Object({ id: Type.String() }, { $id: 'User', description: 'A user.', examples: [{ id: 'u1' }] })
  const Newest = changeClass('DescribeUsers', [schema(User).had({ description: 'A person.', title: 'Person', examples: [{ id: 'p1' }] })])
  const Middle = changeClass('RenameAndExplain', [schema(User).had({ name: 'Person', description: 'Someone.' })])
  const versions = new VersionBundle(new Version('2002-01-01', Newest), new Version('2001-01-01', Middle), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User } } }, async () => ({ id: 'u1' }))
  })
  await app.ready()
  const changelog = await changelogOf(t, app)
  t.strictSame(onlyChange(changelog, '2002-01-01'), [{
    type: 'schema.attributes.changed',
    models: ['User'],
    changes: [
      { name: 'examples', status: 'changed', previousValue: [{ id: 'p1' }] },
      { name: 'description', status: 'changed', previousValue: 'A person.', newValue: 'A user.' },
      { name: 'title', status: 'removed', previousValue: 'Person' }
    ]
  }], 'the examples of this version are its document\'s (migrated from HEAD): only the previous ones are listed')
  t.strictSame(onlyChange(changelog, '2001-01-01'), [{
    type: 'schema.attributes.changed',
    models: ['User'],
    previousName: 'Person',
    changes: [
      { name: 'name', status: 'changed', previousValue: 'Person', newValue: 'User' },
      { name: 'description', status: 'changed', previousValue: 'Someone.', newValue: 'A person.' }
    ]
  }], 'with a name: previousName too, and the name among the changes')
  t.equal(documentOf(app, '2001-01-01').components.schemas.User.description, 'A person.', 'the entries match the documents')
  t.equal(documentOf(app, '2000-01-01').components.schemas.Person.description, 'Someone.')
})

test('schema.validator.added and schema.validator.removed', async (t) => {
  const endAfterStart = defineValidator('endAfterStart', { if: { required: ['start', 'end'] }, then: { properties: { end: { type: 'string', minLength: 3 } } } })
  const needsEnd = defineValidator('needsEnd', { required: ['end'] }, { fields: ['end'] })
  const Booking = withValidators(Type.Object({ start: Type.Optional(Type.String()), end: Type.Optional(Type.String()) }, { $id: 'Booking' }), endAfterStart)
  const Change = changeClass('SwapValidators', [
    schema(Booking).validator('endAfterStart').didntExist,
    schema(Booking).validator(needsEnd).existed
  ])
  const versions = new VersionBundle(new Version('2001-01-01', Change), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.post('/bookings', { schema: { body: Booking } }, async () => ({ ok: true }))
  })
  await app.ready()
  t.strictSame(onlyChange(await changelogOf(t, app), '2001-01-01'), [
    { type: 'schema.validator.added', models: ['Booking'], validator: 'endAfterStart' },
    { type: 'schema.validator.removed', models: ['Booking'], validator: 'needsEnd' }
  ])
})

test('enum entries: didntHave is enum.members.added; had is enum.members.removed with status removed or changed', async (t) => {
  const Role = Type.Union([Type.Literal('admin'), Type.Literal('member'), Type.Literal('guest')], { $id: 'Role' })
  const Level = Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)])
  const Account = Type.Object({ role: Role, level: Level }, { $id: 'Account' })
  const Change = changeClass('ReworkRoles', [
    enumeration(Role).didntHave('guest'),
    enumeration(Role).had({ member: 'user', superuser: 'superuser' }),
    enumeration(Level).had({ 3: 30 })
  ])
  const versions = new VersionBundle(new Version('2001-01-01', Change), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/account', { schema: { response: { 200: Account } } }, async () => ({ role: 'admin' as const, level: 1 as const }))
  })
  await app.ready()
  const entries = onlyChange(await changelogOf(t, app), '2001-01-01')
  t.strictSame(entries[0], { type: 'enum.members.added', models: ['Role', 'Account'], members: ['guest'] })
  t.strictSame(entries[1], {
    type: 'enum.members.removed',
    models: ['Role', 'Account'],
    members: [
      { name: 'member', status: 'changed', previousValue: 'user', newValue: 'member' },
      { name: 'superuser', status: 'removed', previousValue: 'superuser' }
    ]
  }, 'a member whose value changed, and a member this version no longer has')
  t.strictSame(entries[2], {
    type: 'enum.members.removed',
    models: ['Account'],
    members: [{ name: '3', status: 'changed', previousValue: 30, newValue: 3 }]
  }, 'an unnamed enum: only the named schema containing it; numbers keep their type')
})

test('models: the target, named schemas containing it (nested, in arrays, in webhook bodies) and extendSchema children, named as in that version', async (t) => {
  const Address = Type.Object({ street: Type.String(), zip: Type.String() }, { $id: 'Address' })
  const User = Type.Object({ id: Type.String(), home: Address, name: Type.String() }, { $id: 'User' })
  const Admin = extendSchema(User, { level: Type.Integer() }, { $id: 'Admin' })
  const UserPage = Type.Object({ items: Type.Array(User) }, { $id: 'UserPage' })
  const Unrelated = Type.Object({ ok: Type.Boolean() }, { $id: 'Unrelated' })
  const UserEvent = Type.Object({ type: Type.String(), user: User }, { $id: 'UserEvent' })
  const Newest = changeClass('AddZip', [schema(Address).field('zip').didntExist])
  const Middle = changeClass('RenameUser', [schema(User).had({ name: 'Person' })])
  const Oldest = changeClass('RenameStreet', [schema(Address).field('street').had({ name: 'line1' }), schema(User).field('name').didntExist])
  const versions = new VersionBundle(new Version('2003-01-01', Newest), new Version('2002-01-01', Middle), new Version('2001-01-01', Oldest), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User } } }, async () => ({ id: 'u', home: { street: 's', zip: 'z' }, name: 'n' }))
    api.get('/users', { schema: { response: { 200: UserPage } } }, async () => ({ items: [] }))
    api.get('/admins/:id', { schema: { response: { 200: Admin } } }, async () => ({ id: 'a', home: { street: 's', zip: 'z' }, name: 'n', level: 1 }))
    api.get('/ok', { schema: { response: { 200: Unrelated } } }, async () => ({ ok: true }))
  }, { beforeRoutes: (instance) => { instance.versioner.webhooks.add({ name: 'user.updated', body: UserEvent }) } })
  await app.ready()
  const changelog = await changelogOf(t, app)
  const sorted = (entry: ChangelogEntryData | undefined): string[] => [...(entry?.models ?? [])].sort()
  t.strictSame(sorted(onlyChange(changelog, '2003-01-01')[0]), ['Address', 'Admin', 'User', 'UserEvent', 'UserPage'],
    'a nested schema: its containers (directly, through an array, in a webhook body) and the child of a container')
  t.strictSame(sorted(onlyChange(changelog, '2002-01-01')[0]), ['User', 'UserEvent', 'UserPage'],
    'the renamed schema as 2002-01-01 names it and its containers (an extendSchema child keeps its own name)')
  const oldest = onlyChange(changelog, '2001-01-01')
  t.strictSame(sorted(oldest[0]), ['Address', 'Admin', 'Person', 'UserEvent', 'UserPage'], 'in 2001-01-01, User is called Person')
  t.strictSame(sorted(oldest[1]), ['Admin', 'Person', 'UserEvent', 'UserPage'], 'a field of the parent reaches the child')
  t.notOk(JSON.stringify(changelog).includes('Unrelated'), 'a schema the change does not reach is not named')
  for (const version of changelog.versions) {
    const components = Object.keys(documentOf(app, version.value).components?.schemas ?? {})
    for (const entry of version.changes.flatMap((change) => change.instructions)) {
      for (const model of entry.models ?? []) t.ok(components.includes(model), `${version.value}: ${model} is a component of the document`)
    }
  }
})

test('models name only schemas the change reaches in that version', async (t) => {
  // Admin overrides `name`: the parent's `name` instruction does not reach it (its `name` stays an integer).
  const User = Type.Object({ id: Type.String(), name: Type.String({ maxLength: 20 }) }, { $id: 'User' })
  const Admin = extendSchema(User, { name: Type.Integer() }, { $id: 'Admin' })
  // Customer.home is newer than the change to Address: in 2001-01-01 a Customer has no Address.
  const Address = Type.Object({ street: Type.String() }, { $id: 'Address' })
  const Customer = Type.Object({ id: Type.String(), home: Address }, { $id: 'Customer' })
  const Shop = Type.Object({ address: Address }, { $id: 'Shop' })
  const Newest = changeClass('AddHome', [schema(Customer).field('home').didntExist])
  const Oldest = changeClass('Shorter', [schema(User).field('name').had({ maxLength: 10 }), schema(Address).field('street').had({ name: 'line1' })])
  const versions = new VersionBundle(new Version('2002-01-01', Newest), new Version('2001-01-01', Oldest), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/users', { schema: { response: { 200: User } } }, async () => ({ id: 'u', name: 'n' }))
    api.get('/admins', { schema: { response: { 200: Admin } } }, async () => ({ id: 'a', name: 1 }))
    api.get('/customers', { schema: { response: { 200: Customer } } }, async () => ({ id: 'c', home: { street: 's' } }))
    api.get('/shop', { schema: { response: { 200: Shop } } }, async () => ({ address: { street: 's' } }))
  })
  await app.ready()
  t.strictSame(documentOf(app, '2000-01-01').components.schemas.Admin.properties.name, { type: 'integer' }, 'the child keeps its own name field')
  t.notOk(documentOf(app, '2001-01-01').components.schemas.Customer.properties.home, 'a Customer of 2001-01-01 has no home')
  const [name, street] = onlyChange(await changelogOf(t, app), '2001-01-01')
  t.ok(name?.models?.includes('User'))
  t.notOk(name?.models?.includes('Admin'), 'the child that overrides the field is not affected')
  t.strictSame([...(street?.models ?? [])].sort(), ['Address', 'Shop'], 'only the containers that contain Address in 2001-01-01')
})

test("the example app's changelog", async (t) => {
  const app = await buildApp()
  t.teardown(() => app.close())
  await app.ready()
  t.strictSame(await changelogOf(t, app), {
    versions: [
      {
        value: '2002-01-01',
        changes: [{
          description: 'User addresses moved to their own endpoint, GET /users/:userId/addresses; a new user is created with ' +
            'its default address only (defaultAddress instead of addresses).',
          sideEffects: false,
          instructions: [
            { type: 'endpoint.added', path: '/users/:userId/addresses', methods: ['GET'] },
            {
              type: 'schema.field.added',
              models: ['UserCreateRequest'],
              field: 'defaultAddress',
              schema: { minLength: 1, description: 'The address deliveries go to by default.', type: 'string' }
            },
            { type: 'schema.field.removed', models: ['UserCreateRequest'], field: 'addresses' },
            { type: 'schema.field.removed', models: ['UserResource'], field: 'addresses' }
          ]
        }]
      },
      {
        value: '2001-01-01',
        changes: [{
          description: 'Users can now store several addresses (addresses instead of address), so they can choose among delivery locations.',
          sideEffects: false,
          instructions: [
            {
              type: 'schema.field.attributes.changed',
              models: ['UserCreateRequest'],
              field: 'addresses',
              changes: [
                { name: 'name', status: 'changed', previousValue: 'address', newValue: 'addresses' },
                { name: 'type', status: 'changed', previousValue: { minLength: 1, type: 'string' }, newValue: { minItems: 1, type: 'array', items: { minLength: 1, type: 'string' } } }
              ]
            },
            {
              type: 'schema.field.attributes.changed',
              models: ['UserResource'],
              field: 'addresses',
              changes: [
                { name: 'name', status: 'changed', previousValue: 'address', newValue: 'addresses' },
                { name: 'type', status: 'changed', previousValue: { type: 'string' }, newValue: { type: 'array', items: { type: 'string' } } }
              ]
            }
          ]
        }]
      }
    ]
  }, 'generated from examples/users/versions.ts; the HeadVersion change (internal fields) is not in it')
})

test('options: changelogUrl moves or turns off the endpoint; includeChangelogUrlInSchema puts it, deprecated, in the unversioned document', async (t) => {
  const build = async (options: Record<string, unknown>): Promise<FastifyInstance> => {
    const Item = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'Item' })
    const versions = new VersionBundle(new Version('2001-01-01', changeClass('AddName', [schema(Item).field('name').didntExist])), new Version('2000-01-01'))
    const app = await versionedApp(t, versions, async (api) => {
      api.get('/items', { schema: { response: { 200: Item } } }, async () => ({ id: 'i', name: 'n' }))
    }, { versioner: options })
    await app.ready()
    return app
  }

  const defaults = await build({})
  t.equal((await fetchChangelog(defaults)).statusCode, 200)
  const unversioned = documentOf(defaults, 'unversioned')
  const operation = unversioned.paths['/changelog']?.get
  t.ok(operation, 'by default the unversioned document lists GET /changelog')
  t.equal(operation?.deprecated, true, 'marked deprecated')
  t.match(operation?.description, /deprecated/i, 'its description says so')
  t.ok(operation?.responses?.['200'], 'with its response')
  t.equal(await validationError(unversioned), undefined, 'the unversioned document is valid')
  for (const version of ['2001-01-01', '2000-01-01']) {
    t.notOk(documentOf(defaults, version).paths?.['/changelog'], `${version}'s document does not list it`)
  }
  const listed = await defaults.inject('/docs')
  t.match(listed.body, '/docs?version=unversioned', 'the docs page links the unversioned document')

  const hidden = await build({ includeChangelogUrlInSchema: false })
  t.equal((await fetchChangelog(hidden)).statusCode, 200, 'includeChangelogUrlInSchema: false still serves it')
  t.equal(hidden.versioner.openapi('unversioned'), undefined, 'but no document lists it (no other unversioned route: no unversioned document)')

  const moved = await build({ changelogUrl: '/api-changes' })
  const atNewUrl = await fetchChangelog(moved, '/api-changes')
  t.equal(atNewUrl.statusCode, 200, 'changelogUrl moves it')
  t.strictSame(atNewUrl.body, JSON.parse(JSON.stringify(moved.versioner.changelog())))
  t.equal((await fetchChangelog(moved, '/changelog')).statusCode, 404, 'the default URL is free')
  t.ok(documentOf(moved, 'unversioned').paths['/api-changes']?.get?.deprecated, 'the document lists the new URL')

  const off = await build({ changelogUrl: null })
  t.equal((await fetchChangelog(off)).statusCode, 404, 'changelogUrl: null turns it off')
  t.notOk(off.hasRoute({ method: 'GET', url: '/changelog' }))
  t.equal(off.versioner.changelog().versions.length, 1, 'app.versioner.changelog() still works')

  const noDocs = await build({ openapiUrl: null })
  t.equal((await fetchChangelog(noDocs)).statusCode, 200, 'openapiUrl: null leaves the changelog on')
})

test('string versions: the changelog follows the bundle order', async (t) => {
  const Item = Type.Object({ id: Type.String(), a: Type.String(), b: Type.String() })
  const versions = new VersionBundle(
    new Version('beta', changeClass('AddB', [schema(Item).field('b').didntExist])),
    new Version('alpha', changeClass('AddA', [schema(Item).field('a').didntExist])),
    new Version('zero')
  )
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/items', { schema: { response: { 200: Item } } }, async () => ({ id: 'i', a: 'a', b: 'b' }))
  }, { versioner: { apiVersionFormat: 'string' } })
  await app.ready()
  const changelog = await changelogOf(t, app)
  t.strictSame(changelog.versions.map((version) => [version.value, version.changes[0]?.instructions[0]?.field]), [['beta', 'b'], ['alpha', 'a']])
  t.strictSame(changelog.versions[0].changes[0].instructions[0].models, [], 'an unnamed schema that nothing named contains: no models')
  t.equal(operationsOf(documentOf(app, 'beta')).length, 1)
})

const Ok = Type.Object({ ok: Type.Boolean() })

test('regression: the changelog shows the route an endpoint instruction names by operationId, among routes sharing its path and methods', async (t) => {
  const versions = new VersionBundle(
    new HeadVersion(),
    new Version('2001-01-01', changeClass('OldSlashSummary', [
      endpoint('/items', ['GET'], { operationId: 'listItemsSlash' }).had({ summary: 'Old slash' })
    ])),
    new Version('2000-01-01')
  )
  // '/items' and '/items/' are two routes for Fastify, one path for endpoint instructions.
  const routes: FastifyPluginAsyncTypebox = async (api) => {
    api.get('/items', { schema: { operationId: 'listItems', summary: 'Items', response: { 200: Ok } } }, async () => ({ ok: true }))
    api.get('/items/', { schema: { operationId: 'listItemsSlash', summary: 'Items (slash)', response: { 200: Ok } } }, async () => ({ ok: true }))
  }
  const app = await versionedApp(t, versions, routes)
  await app.ready()
  const old = documentOf(app, '2000-01-01')
  t.equal(old.paths['/items/'].get.summary, 'Old slash', 'the instruction changed the route it names')
  t.equal(old.paths['/items'].get.summary, 'Items', 'and not the other one')
  const { body } = await fetchChangelog(app)
  const [entry] = body.versions[0].changes[0].instructions
  t.same(entry, {
    type: 'endpoint.changed',
    path: '/items',
    methods: ['GET'],
    changes: [{ name: 'summary', status: 'changed', previousValue: 'Old slash', newValue: 'Items (slash)' }]
  }, "the new value is the named route's summary")
})

test('regression: an application hook changing the changelog\'s payload in place (a translation), or a caller what changelog() returns, changes only that answer', async (t) => {
  const Item = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'Item' })
  const versions = new VersionBundle(
    new Version('2001-01-01', changeClass('AddItemName', [schema(Item).field('name').didntExist])),
    new Version('2000-01-01')
  )
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/items', { schema: { response: { 200: Item } } }, async () => ({ id: 'i', name: 'n' }))
  }, {
    beforeVersioner: (instance) => {
      instance.addHook('preSerialization', async (request, _reply, payload) => {
        if (request.headers['accept-language'] !== 'fr') return payload
        for (const version of (payload as Changelog).versions) for (const change of version.changes) change.description = `[fr] ${change.description}`
        return payload
      })
    }
  })
  await app.ready()
  const descriptions = async (language: string): Promise<string[]> => {
    const response = await app.inject({ url: '/changelog', headers: { 'accept-language': language } })
    return (response.json() as Changelog).versions.flatMap((version) => version.changes.map((change) => change.description))
  }
  t.same(await descriptions('fr'), ['[fr] Test change AddItemName.'])
  t.same(await descriptions('fr'), ['[fr] Test change AddItemName.'], 'not translated twice')
  t.same(await descriptions('en'), ['Test change AddItemName.'], 'another client\'s answer is untouched')
  for (const version of app.versioner.changelog().versions) version.changes.splice(0)
  t.same(await descriptions('en'), ['Test change AddItemName.'], 'a caller changing what app.versioner.changelog() returns changes nothing served')
})

test('regression: a success status changed twice is "changed" to the status HEAD answers in the newest change, not "removed"', async (t) => {
  const Order = Type.Object({ id: Type.String() }, { $id: 'Order' })
  const Accepted = changeClass('CreateAnswersAccepted', [endpoint('/orders', ['POST']).had({ statusCode: 201 })])
  const Created = changeClass('CreateAnswersCreated', [endpoint('/orders', ['POST']).had({ statusCode: 200 })])
  const versions = new VersionBundle(new Version('2002-01-01', Accepted), new Version('2001-01-01', Created), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.post('/orders', { schema: { response: { 202: Order, 404: Order } } }, async (_request, reply) => await reply.code(202).send({ id: 'o' }))
  })
  await app.ready()
  const changelog = await changelogOf(t, app)
  const change = (value: string): unknown => (onlyChange(changelog, value)[0] as { changes?: unknown }).changes
  t.strictSame(change('2002-01-01'), [{ name: 'statusCode', status: 'changed', previousValue: 201, newValue: 202 }], 'HEAD answers 202')
  t.strictSame(change('2001-01-01'), [{ name: 'statusCode', status: 'changed', previousValue: 200, newValue: 201 }])
  const created = await app.inject({ method: 'POST', url: '/orders', headers: { 'x-api-version': '2001-01-01' } })
  t.equal(created.statusCode, 201, 'as served')
})

test("regression: the changelog route stays out of the application's own @fastify/swagger document (adopting the plugin added a deprecated GET /changelog to it)", async (t) => {
  for (const prefix of ['', '/api']) {
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(fastifySwagger, { openapi: { info: { title: 'Shop', version: '1.0.0' } } })
    app.get('/health', async () => ({ ok: true }))
    await app.register(async (api) => {
      await api.register(fastifyVersioner, { versions: new VersionBundle(new Version('2000-01-01')) })
      await api.register(versioned(async (routes) => { routes.get('/orders', async () => []) }))
    }, { prefix })
    await app.ready()
    t.same(Object.keys(app.swagger().paths ?? {}), ['/health', `${prefix}/orders`], `${prefix || 'no prefix'}: the application's document lists its own routes only`)
    const unversioned = (await app.inject(`${prefix}/openapi.json?version=unversioned`)).json()
    t.ok(unversioned.paths[`${prefix}/changelog`]?.get?.deprecated, 'the unversioned document still lists it')
  }
})
