import { test } from 'tap'
import { Type, TypeGuard, type TSchema } from '@sinclair/typebox'
import { generateVersionedSchemas, HeadVersion, schema, Version, VersionBundle, VersionChange, extendSchema, type Instruction } from '../../plugin'
import { bodyApp, generateWith, keysOf, LATEST, OLD, oldSchemas, plain, post, prop, requiredOf, statuses, typebox1 } from '../helpers/schema-generation'
import { changeClass } from '../helpers/version-changes'

test('had({ name }) renames a field in place, keeping its schema and whether it is required', async (t) => {
  const User = Type.Object({
    id: Type.String(),
    name: Type.String({ minLength: 2 }),
    nickname: Type.Optional(Type.String()),
    email: Type.String()
  }, { $id: 'User' })
  const schemas = generateWith([
    schema(User).field('name').had({ name: 'fullName' }),
    schema(User).field('nickname').had({ name: 'alias' })
  ])
  t.equal(schemas.get(LATEST).get(User), User, 'the latest version is HEAD itself')
  const old = schemas.get(OLD).get(User)
  t.strictSame(keysOf(old), ['id', 'fullName', 'alias', 'email'], 'renamed fields keep their position')
  t.strictSame(requiredOf(old), ['id', 'fullName', 'email'])
  t.equal(prop(old, 'fullName'), User.properties.name, 'the renamed field keeps its very schema')
  t.ok(TypeGuard.IsOptional(prop(old, 'alias')), 'a renamed optional field stays optional')
  t.equal(prop(old, 'id'), User.properties.id, 'untouched fields are shared')
  t.equal((old as { $id?: string }).$id, 'User__2000-01-01')
  t.ok(TypeGuard.IsObject(old))

  const app = bodyApp(t, old)
  t.equal((await post(app, { id: '1', fullName: 'Ann', email: 'a@b.c' })).status, 200)
  t.equal((await post(app, { id: '1', name: 'Ann', email: 'a@b.c' })).status, 400, 'the HEAD name is not the old name')
  t.equal((await post(app, { id: '1', fullName: 'A', email: 'a@b.c' })).status, 400, 'the renamed field keeps minLength')
  t.strictSame(await statuses(t, User, [{ id: '1', name: 'Ann', email: 'a@b.c' }, { id: '1', fullName: 'Ann', email: 'a@b.c' }]), [200, 400])
})

test('had({ type }) replaces the type, keeps annotations and drops the old constraints', async (t) => {
  const Item = Type.Object({
    code: Type.String({
      minLength: 3,
      title: 'Code',
      description: 'the item code',
      examples: ['abc'],
      deprecated: true,
      readOnly: true,
      writeOnly: true
    }),
    label: Type.String({ description: 'old label', title: 'Label' }),
    count: Type.Optional(Type.String()),
    note: Type.String({ description: 'a note' })
  })
  const old = oldSchemas([
    schema(Item).field('code').had({ type: Type.Integer({ minimum: 1 }) }),
    schema(Item).field('label').had({ type: Type.Number({ description: 'new label' }) }),
    schema(Item).field('count').had({ type: Type.Integer() }),
    schema(Item).field('note').had({ type: Type.Boolean(), description: 'from the instruction' })
  ]).get(Item)
  t.strictSame(plain(prop(old, 'code')), {
    type: 'integer',
    minimum: 1,
    title: 'Code',
    description: 'the item code',
    examples: ['abc'],
    deprecated: true,
    readOnly: true,
    writeOnly: true
  }, 'annotations are kept, minLength is gone')
  t.ok(TypeGuard.IsInteger(prop(old, 'code')), 'the new type keeps its Kind')
  t.strictSame(plain(prop(old, 'label')), { type: 'number', description: 'new label', title: 'Label' }, "the new type's own annotation wins")
  t.strictSame(plain(prop(old, 'note')), { type: 'boolean', description: 'from the instruction' }, "the instruction's keyword wins")
  t.ok(TypeGuard.IsOptional(prop(old, 'count')), 'an optional field stays optional')
  t.strictSame(requiredOf(old), ['code', 'label', 'note'])
  t.strictSame(keysOf(old), ['code', 'label', 'count', 'note'])

  const app = bodyApp(t, old)
  t.equal((await post(app, { code: 5, label: 1.5, note: true })).status, 200)
  t.equal((await post(app, { code: 'abc', label: 1.5, note: true })).status, 400, 'a string is not an integer')
  t.equal((await post(app, { code: 0, label: 1.5, note: true })).status, 400, 'the new minimum applies')
  t.equal((await post(app, { code: 5, label: 1.5, note: true, count: 'many' })).status, 400, 'the optional field has the new type')
  t.strictSame(await statuses(t, Item, [{ code: 'abc', label: 'l', note: 'n' }, { code: 'ab', label: 'l', note: 'n' }]), [200, 400],
    'HEAD keeps its own type and minLength')
})

test('had({ optional }) makes a field optional or required', async (t) => {
  const Profile = Type.Object({ id: Type.String(), bio: Type.String(), avatar: Type.Optional(Type.String()) })
  const old = oldSchemas([
    schema(Profile).field('bio').had({ optional: true }),
    schema(Profile).field('avatar').had({ optional: false })
  ]).get(Profile)
  t.strictSame(requiredOf(old), ['id', 'avatar'])
  t.ok(TypeGuard.IsOptional(prop(old, 'bio')))
  t.notOk(TypeGuard.IsOptional(prop(old, 'avatar')))
  t.strictSame(plain(prop(old, 'bio')), { type: 'string' })
  t.strictSame(await statuses(t, old, [{ id: '1', avatar: 'a.png' }, { id: '1', bio: 'hi' }]), [200, 400])
  t.strictSame(await statuses(t, Profile, [{ id: '1', avatar: 'a.png' }, { id: '1', bio: 'hi' }]), [400, 200])
})

test('had({ type }) with a type marked Type.Optional says the field was optional, as existedAs reads it', async (t) => {
  const Order = Type.Object({ id: Type.String(), coupon: Type.String(), note: Type.String(), memo: Type.String(), tag: Type.String() }, { $id: 'Order' })
  const old = oldSchemas([
    schema(Order).field('coupon').had({ type: Type.Optional(Type.Integer()) }),
    schema(Order).field('tag').had({ type: Type.Optional(Type.String()) }),
    schema(Order).field('note').had({ type: typebox1({ type: 'integer' }, { '~kind': 'Integer', '~optional': true }) }),
    schema(Order).field('memo').had({ type: Type.Optional(Type.Integer()), optional: false })
  ]).get(Order)
  t.strictSame(requiredOf(old), ['id', 'memo'], 'optional: false given beside it wins')
  t.ok(TypeGuard.IsOptional(prop(old, 'coupon')))
  t.strictSame(plain(prop(old, 'tag')), { type: 'string' }, 'the same type marked optional is a change: the field was optional')
  t.strictSame(await statuses(t, old, [{ id: '1', memo: 1 }, { id: '1', coupon: 5, note: 2, memo: 1 }, { id: '1', coupon: 'a', memo: 1 }]), [200, 200, 400],
    'an old client may leave out the fields that were optional')
})

test('had({ keyword }) sets keywords, changed or new, standard or not', async (t) => {
  const Account = Type.Object({
    handle: Type.String({ minLength: 2 }),
    age: Type.Integer(),
    code: Type.String()
  })
  const old = oldSchemas([
    schema(Account).field('handle').had({ minLength: 5, maxLength: 8 }),
    schema(Account).field('age').had({ maximum: 120, description: 'years' }),
    schema(Account).field('code').had({ pattern: '^[A-Z]+$', $comment: 'upper case only' })
  ]).get(Account)
  t.strictSame(plain(prop(old, 'handle')), { type: 'string', minLength: 5, maxLength: 8 })
  t.strictSame(plain(prop(old, 'age')), { type: 'integer', maximum: 120, description: 'years' })
  t.strictSame(plain(prop(old, 'code')), { type: 'string', pattern: '^[A-Z]+$', $comment: 'upper case only' })
  t.ok(TypeGuard.IsString(prop(old, 'handle')), 'the field keeps its Kind')
  t.strictSame(requiredOf(old), ['handle', 'age', 'code'], 'keywords other than default leave required alone')
  const payloads = [
    { handle: 'abcde', age: 30, code: 'AB' },
    { handle: 'abcd', age: 30, code: 'AB' },
    { handle: 'abcdefghi', age: 30, code: 'AB' },
    { handle: 'abcde', age: 121, code: 'AB' },
    { handle: 'abcde', age: 30, code: 'ab' }
  ]
  t.strictSame(await statuses(t, old, payloads), [200, 400, 400, 400, 400])
  t.strictSame(await statuses(t, Account, payloads), [200, 200, 200, 200, 200])

  const Tagged = Type.Object({ tag: Type.String() })
  const oldTagged = oldSchemas([schema(Tagged).field('tag').had({ 'x-internal': true, nullable: true })]).get(Tagged)
  t.strictSame(plain(prop(oldTagged, 'tag')), { type: 'string', 'x-internal': true, nullable: true }, 'any keyword is written as given')
})

test('had({ default }) makes a required field optional, unless optional: false says otherwise', async (t) => {
  const Order = Type.Object({
    currency: Type.String(),
    quantity: Type.Integer(),
    note: Type.Optional(Type.String())
  })
  const old = oldSchemas([
    schema(Order).field('currency').had({ default: 'EUR' }),
    schema(Order).field('quantity').had({ default: 1, optional: false }),
    schema(Order).field('note').had({ default: '' })
  ]).get(Order)
  t.strictSame(requiredOf(old), ['quantity'])
  t.ok(TypeGuard.IsOptional(prop(old, 'currency')))
  t.notOk(TypeGuard.IsOptional(prop(old, 'quantity')))
  t.ok(TypeGuard.IsOptional(prop(old, 'note')), 'an optional field stays optional')
  t.strictSame(plain(prop(old, 'currency')), { type: 'string', default: 'EUR' })
  t.strictSame(plain(prop(old, 'quantity')), { type: 'integer', default: 1 })
  const app = bodyApp(t, old)
  t.strictSame(await post(app, { quantity: 2 }), { status: 200, body: { quantity: 2, currency: 'EUR', note: '' } },
    'Fastify fills in the defaults of the old version')
  t.strictSame(await statuses(t, Order, [{ quantity: 2 }]), [400], 'HEAD requires the currency')
})

test('didntHave() removes keywords; didntHave(default) makes an optional field required', async (t) => {
  const Post = Type.Object({
    title: Type.String({ minLength: 3, maxLength: 10, description: 'the title' }),
    lang: Type.Optional(Type.String({ default: 'en' })),
    visibility: Type.String({ default: 'public' })
  })
  const old = oldSchemas([
    schema(Post).field('title').didntHave('minLength', 'description'),
    schema(Post).field('lang').didntHave('default'),
    schema(Post).field('visibility').didntHave('default')
  ]).get(Post)
  t.strictSame(plain(prop(old, 'title')), { type: 'string', maxLength: 10 })
  t.strictSame(plain(prop(old, 'lang')), { type: 'string' })
  t.notOk(TypeGuard.IsOptional(prop(old, 'lang')), 'without its default the field was required')
  t.strictSame(requiredOf(old), ['title', 'lang', 'visibility'], 'a required field stays required')
  t.strictSame(keysOf(old), ['title', 'lang', 'visibility'])
  const payloads = [
    { title: 'ab', lang: 'fr', visibility: 'private' },
    { title: 'abcdefghijk', lang: 'fr', visibility: 'private' },
    { title: 'abc', visibility: 'private' },
    { title: 'abc', lang: 'fr' }
  ]
  t.strictSame(await statuses(t, old, payloads), [200, 400, 400, 400])
  t.strictSame(await statuses(t, Post, payloads), [400, 400, 200, 200], 'HEAD fills defaults in')
})

test('existedAs() adds a field at the end: required, optional, or optional through a default', async (t) => {
  const Address = Type.Object({ street: Type.String() }, { $id: 'Address' })
  const Customer = Type.Object({ id: Type.String() })
  const old = oldSchemas([
    schema(Address).field('street').had({ name: 'line1' }),
    schema(Customer).formerField('legacyId').existedAs({ type: Type.Integer(), minimum: 1 }),
    schema(Customer).formerField('phone').existedAs({ type: Type.String(), optional: true }),
    schema(Customer).formerField('tier').existedAs({ type: Type.String(), default: 'basic' }),
    schema(Customer).formerField('country').existedAs({ type: Type.String(), default: 'FR', optional: false }),
    schema(Customer).formerField('address').existedAs({ type: Address, description: 'where' })
  ])
  const oldCustomer = old.get(Customer)
  t.strictSame(keysOf(oldCustomer), ['id', 'legacyId', 'phone', 'tier', 'country', 'address'])
  t.strictSame(requiredOf(oldCustomer), ['id', 'legacyId', 'country', 'address'])
  t.strictSame(plain(prop(oldCustomer, 'legacyId')), { type: 'integer', minimum: 1 })
  t.ok(TypeGuard.IsInteger(prop(oldCustomer, 'legacyId')))
  t.ok(TypeGuard.IsOptional(prop(oldCustomer, 'phone')))
  t.ok(TypeGuard.IsOptional(prop(oldCustomer, 'tier')))
  t.strictSame(plain(prop(oldCustomer, 'tier')), { type: 'string', default: 'basic' })
  t.strictSame(plain(prop(oldCustomer, 'address')), {
    type: 'object',
    properties: { line1: { type: 'string' } },
    required: ['line1'],
    description: 'where'
  }, 'a field that existed with a versioned schema gets that version of it (edited, without its $id: see core-fixes.test.ts)')
  t.equal((old.get(Address) as { $id?: string }).$id, 'Address__2000-01-01', 'the versioned schema itself keeps its $id')
  const app = bodyApp(t, oldCustomer)
  const full = { id: 'c', legacyId: 3, country: 'DE', address: { line1: 'x' } }
  t.strictSame(await post(app, full), { status: 200, body: { ...full, tier: 'basic' } })
  t.equal((await post(app, { ...full, legacyId: 0 })).status, 400, 'the keyword of existedAs applies')
  t.equal((await post(app, { id: 'c', country: 'DE', address: { line1: 'x' } })).status, 400, 'legacyId was required')
  t.equal((await post(app, { ...full, address: { street: 'x' } })).status, 400, 'the nested schema is the old one')
  t.equal(old.get(Customer) === Customer, false)
  t.strictSame(keysOf(Customer), ['id'], 'HEAD is untouched')
})

test('didntExist removes a field, required or optional', async (t) => {
  const Card = Type.Object({
    id: Type.String(),
    holder: Type.String(),
    nickname: Type.Optional(Type.String())
  }, { additionalProperties: false })
  const old = oldSchemas([
    schema(Card).field('holder').didntExist,
    schema(Card).field('nickname').didntExist
  ]).get(Card)
  t.strictSame(plain(old), { type: 'object', additionalProperties: false, properties: { id: { type: 'string' } }, required: ['id'] })
  t.ok(TypeGuard.IsObject(old))
  const app = bodyApp(t, old)
  t.strictSame(await post(app, { id: '1' }), { status: 200, body: { id: '1' } })
  t.strictSame(await post(app, { id: '1', holder: 'Ann' }), { status: 200, body: { id: '1' } },
    'Fastify strips the field the old version did not have')
  t.strictSame(await statuses(t, Card, [{ id: '1' }]), [400], 'HEAD requires the holder')
})

test('one had() can change name, type, optionality and keywords together', async (t) => {
  const Event = Type.Object({ startsAt: Type.String({ format: 'date-time', description: 'start' }), id: Type.String() })
  const old = oldSchemas([
    schema(Event).field('startsAt').had({ name: 'start', type: Type.Integer(), optional: true, minimum: 0, deprecated: true })
  ]).get(Event)
  t.strictSame(keysOf(old), ['start', 'id'])
  t.strictSame(requiredOf(old), ['id'])
  t.strictSame(plain(prop(old, 'start')), { type: 'integer', description: 'start', minimum: 0, deprecated: true })
  t.ok(TypeGuard.IsOptional(prop(old, 'start')))
  t.strictSame(await statuses(t, old, [{ id: 'e' }, { id: 'e', start: 10 }, { id: 'e', start: -1 }, { id: 'e', start: 'now' }]),
    [200, 200, 400, 400])
})

test('instructions apply in order, within a change and from one version to the one before it', async (t) => {
  const Person = Type.Object({ name: Type.String(), age: Type.Integer() }, { $id: 'Person' })
  class HeadRename extends VersionChange {
    description = 'HEAD calls it name; the public API still calls it displayName.'
    instructionsToMigrateToPreviousVersion = [schema(Person).field('name').had({ name: 'displayName' })]
  }
  class AgeWasText extends VersionChange {
    description = 'age became an integer, displayName was fullName.'
    instructionsToMigrateToPreviousVersion = [
      schema(Person).field('age').had({ type: Type.String() }),
      schema(Person).formerField('displayName').had({ name: 'fullName' }),
      schema(Person).formerField('fullName').had({ maxLength: 20 })
    ]
  }
  class NoAgeYet extends VersionChange {
    description = 'age was added.'
    instructionsToMigrateToPreviousVersion = [schema(Person).field('age').didntExist]
  }
  const schemas = generateVersionedSchemas(new VersionBundle(
    new HeadVersion(HeadRename),
    new Version('2002-01-01', AgeWasText),
    new Version('2001-01-01', NoAgeYet),
    new Version('2000-01-01')
  ))
  t.strictSame(schemas.versions, ['2002-01-01', '2001-01-01', '2000-01-01'])
  const latest = schemas.get('2002-01-01').get(Person)
  t.strictSame(plain(latest), {
    $id: 'Person__2002-01-01',
    type: 'object',
    properties: { displayName: { type: 'string' }, age: { type: 'integer' } },
    required: ['displayName', 'age']
  }, 'HEAD changes give the latest version')
  t.strictSame(plain(schemas.get('2001-01-01').get(Person)), {
    $id: 'Person__2001-01-01',
    type: 'object',
    properties: { fullName: { type: 'string', maxLength: 20 }, age: { type: 'string' } },
    required: ['fullName', 'age']
  })
  t.strictSame(plain(schemas.get('2000-01-01').get(Person)), {
    $id: 'Person__2000-01-01',
    type: 'object',
    properties: { fullName: { type: 'string', maxLength: 20 } },
    required: ['fullName']
  })
  t.strictSame(keysOf(Person), ['name', 'age'], 'HEAD is untouched')
})

/** A bundle 2002-01-01 → 2001-01-01 → 2000-01-01 whose two newer versions hold one change each. */
function threeVersions (name: string, newest: Instruction[], middle: Instruction[]): VersionBundle {
  return new VersionBundle(
    new HeadVersion(),
    new Version('2002-01-01', changeClass(`${name}Newest`, newest)),
    new Version('2001-01-01', changeClass(`${name}Middle`, middle)),
    new Version('2000-01-01')
  )
}

test('regression: an inherited field renamed by a child keeps its name when the child later gains a field with its HEAD name', async (t) => {
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

test('schema(S).had({ examples, description, title }) sets object-level annotations in that version and older ones, until changed again', async (t) => {
  const User = Type.Object({ fullName: Type.String() }, { $id: 'User', description: 'A user.', examples: [{ fullName: 'Ada' }] })
  const Tag = Type.String({ $id: 'Tag' })
  const Color = Type.Union([Type.Literal('red'), Type.Literal('blue')])
  const Newest = changeClass('NewestChange', [
    schema(User).field('fullName').had({ name: 'name' }),
    schema(User).had({ examples: [{ name: 'Ada' }], description: 'A person.' }),
    schema(Tag).had({ title: 'Label', examples: ['x'] }),
    schema(Color).had({ examples: ['red'] })
  ])
  const Middle = changeClass('MiddleChange', [schema(User).had({ name: 'Person', title: 'Person' })])
  const Oldest = changeClass('OldestChange', [schema(User).had({ examples: [] })])
  const bundle = new VersionBundle(new HeadVersion(), new Version('2003-01-01', Newest), new Version('2002-01-01', Middle),
    new Version('2001-01-01', Oldest), new Version('2000-01-01'))
  const schemas = generateVersionedSchemas(bundle)
  t.equal(schemas.get('2003-01-01').get(User), User, 'the newest version is HEAD itself')
  const at = (version: string): Record<string, unknown> => plain(schemas.get(version).get(User)) as Record<string, unknown>
  t.match(at('2002-01-01'), { $id: 'User__2002-01-01', description: 'A person.', examples: [{ name: 'Ada' }], properties: { name: {} } })
  t.notOk('title' in at('2002-01-01'))
  t.match(at('2001-01-01'), { $id: 'Person__2001-01-01', description: 'A person.', title: 'Person', examples: [{ name: 'Ada' }] },
    'carried down to older versions with the next change')
  t.match(at('2000-01-01'), { $id: 'Person__2000-01-01', description: 'A person.', title: 'Person', examples: [] }, 'until changed again')
  t.strictSame(plain(schemas.get('2002-01-01').get(Tag)), { $id: 'Tag__2002-01-01', type: 'string', title: 'Label', examples: ['x'] }, 'any schema, named')
  t.match(plain(schemas.get('2000-01-01').get(Color)), { examples: ['red'], anyOf: [{ const: 'red' }, { const: 'blue' }] }, 'or not')
  t.strictSame(plain(User), { $id: 'User', description: 'A user.', examples: [{ fullName: 'Ada' }], type: 'object', properties: { fullName: { type: 'string' } }, required: ['fullName'] },
    'HEAD is not touched')
})

test('a plain JSON Schema object, or TypeBox 1.x\'s, keeps the fields its required list leaves out optional in a rebuilt version', async (t) => {
  const User = {
    $id: 'User',
    type: 'object',
    properties: { id: { type: 'string' }, name: { type: 'string' }, nickname: { type: 'string' }, email: { type: 'string' } },
    required: ['id', 'name', 'email']
  } as unknown as TSchema
  const Account = typebox1({
    type: 'object',
    properties: { id: typebox1({ type: 'string' }, { '~kind': 'String' }), note: typebox1({ type: 'string' }, { '~kind': 'String', '~optional': true }) },
    required: ['id']
  }, { '~kind': 'Object' })
  const schemas = oldSchemas([
    schema(User).field('name').had({ name: 'fullName' }),
    schema(User).field('email').had({ optional: true }),
    schema(Account).formerField('code').existedAs({ type: Type.String() })
  ])
  const old = schemas.get(User)
  t.strictSame(requiredOf(old), ['id', 'fullName'], 'nickname stays optional; email was optional')
  t.strictSame(await statuses(t, old, [{ id: '1', fullName: 'Ann' }, { id: '1', fullName: 'Ann', nickname: 'A', email: 'a@b.c' }, { id: '1' }]), [200, 200, 400])
  t.strictSame(requiredOf(schemas.get(Account)), ['id', 'code'], 'a field TypeBox 1.x marks optional stays optional')
})

test('extendSchema reads the parent\'s optional fields from its required list, and TypeBox 1.x\'s Optional marks', (t) => {
  const Parent = { type: 'object', properties: { id: { type: 'string' }, note: { type: 'string' } }, required: ['id'] } as unknown as TSchema
  const child = extendSchema(Parent as never, { name: typebox1({ type: 'string' }, { '~kind': 'String', '~optional': true }), age: Type.Integer() })
  t.strictSame(requiredOf(child), ['id', 'age'])
  t.end()
})

test('a field TypeBox 1.x marks optional stays optional where its form is rebuilt (a $ref to a schema that changed)', (t) => {
  const Address = { $id: 'Address', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } }, required: ['street', 'city'] } as unknown as TSchema
  const Patch = typebox1({
    type: 'object',
    properties: { name: typebox1({ type: 'string' }, { '~kind': 'String', '~optional': true }), home: typebox1({ $ref: 'Address' }, { '~kind': 'Ref', '~optional': true }) }
  }, { '~kind': 'Object' })
  const old = oldSchemas([schema(Address).field('city').had({ optional: true }), schema(Patch).field('name').had({ name: 'title' })]).get(Patch)
  t.strictSame(keysOf(old), ['title', 'home'])
  t.strictSame(requiredOf(old), [], 'both fields stay optional')
  t.end()
})
