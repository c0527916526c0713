import { test } from 'tap'
import { Type, TypeGuard, type TSchema } from '@sinclair/typebox'
import { defineValidator, enumeration, extendSchema, generateVersionedSchemas, schema, Version, VersionBundle, VersionChange, withValidators, HeadVersion, type Instruction } from '../../plugin'
import { bundleWith, generateWith, keysOf, LATEST, OLD, oldSchemas, plain, prop, statuses, bodyApp, post } from '../helpers/schema-generation'
import { changeClass } from '../helpers/version-changes'
import { versionedApp } from '../helpers/apps'
import { assertDocumentsValid } from '../helpers/openapi-documents'
import { typesModule } from '../../tools'

function anyOf (enumSchema: TSchema): Array<TSchema & { const?: unknown }> {
  return (enumSchema as unknown as { anyOf: Array<TSchema & { const?: unknown }> }).anyOf
}

test('enumeration(union of literals).didntHave() removes members; unchanged members are shared', async (t) => {
  const Status = Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('archived')], { $id: 'Status' })
  const Account = Type.Object({ status: Status })
  const schemas = generateWith([enumeration(Status).didntHave('archived', 'paused')])
  t.equal(schemas.get(LATEST).get(Status), Status)
  const old = schemas.get(OLD).get(Status)
  t.strictSame(plain(old), { $id: 'Status__2000-01-01', anyOf: [{ const: 'active', type: 'string' }] })
  t.equal(anyOf(old)[0], Status.anyOf[0], 'the remaining member is the HEAD object')
  t.ok(TypeGuard.IsUnion(old))
  t.equal(prop(schemas.get(OLD).get(Account), 'status'), old)
  const payloads = [{ status: 'active' }, { status: 'paused' }, { status: 'archived' }]
  t.strictSame(await statuses(t, schemas.get(OLD).get(Account), payloads), [200, 400, 400])
  t.strictSame(await statuses(t, Account, payloads), [200, 200, 200])
})

test('enumeration().had() adds a member, or changes the value of a member in place', async (t) => {
  const Status = Type.Union([Type.Literal('active'), Type.Literal('archived')])
  const Ticket = Type.Object({ status: Status })
  const old = oldSchemas([enumeration(Status).had({ pending: 'pending', active: 'enabled' })])
  const oldStatus = old.get(Status)
  t.strictSame(plain(oldStatus), {
    anyOf: [{ const: 'enabled', type: 'string' }, { const: 'archived', type: 'string' }, { const: 'pending', type: 'string' }]
  }, "'active' is now 'enabled' at the same place; 'pending' comes last")
  t.ok(TypeGuard.IsLiteral(anyOf(oldStatus)[0]), 'a changed member is a TypeBox literal')
  t.ok(TypeGuard.IsLiteral(anyOf(oldStatus)[2]), 'an added member is a TypeBox literal')
  t.equal(anyOf(oldStatus)[1], Status.anyOf[1])
  const payloads = [{ status: 'enabled' }, { status: 'pending' }, { status: 'archived' }, { status: 'active' }]
  t.strictSame(await statuses(t, old.get(Ticket), payloads), [200, 200, 200, 400])
  t.strictSame(await statuses(t, Ticket, payloads), [400, 400, 200, 200])
})

test('Type.Enum and enum-keyword schemas are enums too', async (t) => {
  enum Color { Red = 'red', Green = 'green', Blue = 'blue' }
  const ColorSchema = Type.Enum(Color)
  const Size = Type.String({ enum: ['s', 'm', 'l'], description: 'size' })
  const Shirt = Type.Object({ color: ColorSchema, size: Size })
  const old = oldSchemas([
    enumeration(ColorSchema).didntHave('blue'),
    enumeration(Size).didntHave('l'),
    enumeration(Size).had({ xl: 'xl', m: 'medium' })
  ])
  t.strictSame(plain(old.get(ColorSchema)), { anyOf: [{ const: 'red', type: 'string' }, { const: 'green', type: 'string' }] })
  t.strictSame(plain(old.get(Size)), { type: 'string', enum: ['s', 'medium', 'xl'], description: 'size' })
  t.ok(TypeGuard.IsString(old.get(Size)), 'the keyword form keeps its Kind')
  const payloads = [{ color: 'red', size: 'medium' }, { color: 'blue', size: 's' }, { color: 'red', size: 'l' }, { color: 'red', size: 'm' }]
  t.strictSame(await statuses(t, old.get(Shirt), payloads), [200, 400, 400, 400])
  t.strictSame(await statuses(t, Shirt, payloads), [400, 200, 200, 200])
})

test('numbers, booleans and null are members named by their string form', async (t) => {
  const Level = Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)])
  const Flag = Type.Union([Type.Literal(true), Type.Literal('auto')])
  const old = oldSchemas([
    enumeration(Level).didntHave('3'),
    enumeration(Level).had({ 0: 0 }),
    enumeration(Flag).had({ false: false, null: null }),
    enumeration(Flag).didntHave('true')
  ])
  t.strictSame(plain(old.get(Level)), { anyOf: [{ const: 1, type: 'number' }, { const: 2, type: 'number' }, { const: 0, type: 'number' }] })
  t.strictSame(plain(old.get(Flag)), {
    anyOf: [{ const: 'auto', type: 'string' }, { const: false, type: 'boolean' }, { const: null, type: 'null' }]
  })
  const Settings = Type.Object({ level: Level, flag: Flag })
  const payloads = [{ level: 0, flag: null }, { level: 3, flag: 'auto' }, { level: 1, flag: true }, { level: 2, flag: false }]
  t.strictSame(await statuses(t, old.get(Settings), payloads), [200, 400, 400, 200])
})

test('enum changes chain across versions', async (t) => {
  const Plan = Type.Union([Type.Literal('free'), Type.Literal('pro'), Type.Literal('team')], { $id: 'Plan' })
  class TeamPlanAdded extends VersionChange {
    description = "Plan 'team' was added."
    instructionsToMigrateToPreviousVersion = [enumeration(Plan).didntHave('team')]
  }
  class ProWasPremium extends VersionChange {
    description = "Plan 'pro' was called 'premium'."
    instructionsToMigrateToPreviousVersion = [enumeration(Plan).had({ pro: 'premium' })]
  }
  const schemas = generateVersionedSchemas(new VersionBundle(
    new Version('2002-01-01', TeamPlanAdded),
    new Version('2001-01-01', ProWasPremium),
    new Version('2000-01-01')
  ))
  t.equal(schemas.get('2002-01-01').get(Plan), Plan)
  t.strictSame(anyOf(schemas.get('2001-01-01').get(Plan)).map((member) => member.const), ['free', 'pro'])
  t.strictSame(anyOf(schemas.get('2000-01-01').get(Plan)).map((member) => member.const), ['free', 'premium'])
  t.equal((schemas.get('2000-01-01').get(Plan) as { $id?: string }).$id, 'Plan__2000-01-01')
})

test('regression: an enum emptied by didntHave is a schema no value matches (a 400 for every value, not a 500), documented and typed', async (t) => {
  // Before: `anyOf: []` or `enum: []`, invalid JSON Schema: every request of the version was a 500.
  const Kind = Type.Union([Type.Literal('a'), Type.Literal('b')], { description: 'the kind' })
  const Size = Type.String({ enum: ['s', 'm'] })
  const Item = Type.Object({ kind: Kind, size: Type.Optional(Size) }, { $id: 'Item' })
  const instructions = [enumeration(Kind).didntHave('a', 'b'), enumeration(Size).didntHave('s'), enumeration(Size).didntHave('m')]
  const old = oldSchemas(instructions, 'KindsAndSizesAreNew')
  t.strictSame(plain(old.get(Kind)), { description: 'the kind', not: {} }, 'the enum\'s other keywords are kept')
  t.strictSame(plain(old.get(Size)), { type: 'string', not: {} })
  t.ok(TypeGuard.IsNever(old.get(Kind)), 'a TypeBox Never')
  t.throws(() => oldSchemas([enumeration(Kind).didntHave('a', 'b'), enumeration(Kind).didntHave('a')]), /has no member 'a' \(it has none left\)/)

  const app = await versionedApp(t, bundleWith(instructions, 'KindsAndSizesAreNew'), async (api) => {
    api.post('/items', { schema: { body: Item, response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async () => ({ ok: true }))
  })
  await app.ready()
  for (const payload of [{ kind: 'a' }, { kind: 'b' }, { kind: 'z' }, { kind: 'a', size: 's' }]) {
    const response = await app.inject({ method: 'POST', url: '/items', payload, headers: { 'x-api-version': OLD } })
    t.equal(response.statusCode, 400, `${JSON.stringify(payload)} in ${OLD}: a 400`)
    t.match(response.json(), { code: 'FST_ERR_VALIDATION', message: /^body\/kind must NOT be valid/ }, 'naming the field no value fits')
  }
  t.equal((await app.inject({ method: 'POST', url: '/items', payload: { kind: 'a', size: 's' }, headers: { 'x-api-version': LATEST } })).statusCode, 200)
  await assertDocumentsValid(t, app)
  const document = app.versioner.openapi(OLD) as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } }
  t.strictSame(document.components.schemas.Item.properties.kind, { description: 'the kind', not: {} })
  t.match(await typesModule(app), /kind: never\n\s+size\?: never/, 'the types printer: never')
  const guide = await app.inject(`/docs/upgrade?from=${OLD}&to=${LATEST}&format=json`)
  t.equal(guide.statusCode, 200, 'the upgrade guide answers')
  t.strictSame(guide.json().changes[0].notes, ["POST /items request body: no example (no value is valid at '/kind' in version 2000-01-01)"],
    'the guide says why it has no request of the older version')
})

test('regression: an enum whose default is a member a version lacks: the default follows a rename, or is left out', async (t) => {
  // Before: the version kept HEAD's default, a value its enum refuses: every old request leaving the field out was a
  // 400 (`body/status must be equal to constant`), and the version's document gave a default outside the enum.
  const Status = Type.Union([Type.Literal('pending'), Type.Literal('paid'), Type.Literal('refunded')], { default: 'refunded' })
  const Size = Type.String({ enum: ['s', 'm', 'xl'], default: 'xl' })
  const Order = Type.Object({ status: Type.Optional(Status) })
  const instructions = [enumeration(Status).didntHave('refunded'), enumeration(Size).had({ xl: 'large' })]
  const old = oldSchemas(instructions)
  t.strictSame(plain(old.get(Status)), { anyOf: [{ const: 'pending', type: 'string' }, { const: 'paid', type: 'string' }] }, 'a removed default is left out')
  t.strictSame(plain(old.get(Size)), { type: 'string', enum: ['s', 'm', 'large'], default: 'large' }, 'a renamed default follows the rename')
  t.equal(Status.default, 'refunded', 'HEAD is untouched')

  // The app's routes hold Status only (an instruction on Size would change nothing it serves: FST_VERSIONER_INSTRUCTION_UNUSED).
  const app = await versionedApp(t, bundleWith(instructions.slice(0, 1)), async (api) => {
    api.post('/orders', { schema: { body: Order, response: { 200: Type.Object({ status: Type.String() }) } } }, async (request) => ({ status: String(request.body.status) }))
    api.get('/orders', { schema: { querystring: Type.Object({ status: Type.Optional(Status) }), response: { 200: Type.Object({ status: Type.String() }) } } }, async (request) => ({ status: String(request.query.status) }))
  })
  await app.ready()
  const body = await app.inject({ method: 'POST', url: '/orders', payload: {}, headers: { 'x-api-version': OLD } })
  t.equal(body.statusCode, 200, `a body leaving the field out in ${OLD}: ${body.body}`)
  t.strictSame(body.json(), { status: 'refunded' }, "HEAD's validation gives the handler HEAD's default")
  const query = await app.inject({ method: 'GET', url: '/orders', headers: { 'x-api-version': OLD } })
  t.equal(query.statusCode, 200, `a query string leaving the field out in ${OLD}: ${query.body}`)
  await assertDocumentsValid(t, app)
  const document = app.versioner.openapi(OLD) as { paths: Record<string, Record<string, { parameters: Array<{ name: string, schema: unknown }> }>> }
  t.notOk('default' in (document.paths['/orders'].get.parameters.find((parameter) => parameter.name === 'status')?.schema as object), 'the document gives no default outside the enum')
})

test('validator(name).didntExist removes a named validator; validator(v).existed adds one', async (t) => {
  const endAfterStart = defineValidator('endAfterStart', {
    if: { required: ['start', 'end'] },
    then: { properties: { end: { minLength: 10 } } }
  })
  const needsEnd = defineValidator('needsEnd', { required: ['end'] }, { fields: ['end'] })
  t.strictSame([...endAfterStart.fields], ['start', 'end'], 'the fields are read from the rule')
  t.strictSame([...needsEnd.fields], ['end'])
  const Booking = withValidators(Type.Object({ start: Type.Optional(Type.String()), end: Type.Optional(Type.String()) }, { $id: 'Booking' }), endAfterStart)
  t.equal((Booking as unknown as { allOf: TSchema[] }).allOf[0], endAfterStart.fragment)

  const schemas = generateWith([schema(Booking).validator('endAfterStart').didntExist, schema(Booking).validator(needsEnd).existed])
  t.equal(schemas.get(LATEST).get(Booking), Booking)
  const old = schemas.get(OLD).get(Booking)
  t.strictSame(plain(old), {
    $id: 'Booking__2000-01-01',
    type: 'object',
    properties: { start: { type: 'string' }, end: { type: 'string' } },
    allOf: [{ required: ['end'] }]
  })
  t.equal((old as unknown as { allOf: TSchema[] }).allOf[0], needsEnd.fragment, 'the fragment is the validator\'s own object')
  const payloads = [{ start: 'a', end: 'short' }, { start: 'a' }, { start: 'a', end: '2000-01-01T10' }]
  t.strictSame(await statuses(t, old, payloads), [200, 400, 200])
  t.strictSame(await statuses(t, Booking, payloads), [400, 200, 200])

  const byObject = oldSchemas([schema(Booking).validator(endAfterStart).didntExist]).get(Booking)
  t.strictSame(plain(byObject), { $id: 'Booking__2000-01-01', type: 'object', properties: { start: { type: 'string' }, end: { type: 'string' } } },
    'the validator can be named by the object too')
})

test('didntExist on a field removes the validators that mention it, and only those', async (t) => {
  const cardNeedsNumber = defineValidator('cardNeedsNumber', {
    if: { properties: { method: { const: 'card' } }, required: ['method'] },
    then: { required: ['cardNumber'] }
  })
  const amountPositive = defineValidator('amountPositive', { properties: { amount: { exclusiveMinimum: 0 } } })
  const Payment = withValidators(Type.Object({
    method: Type.String(),
    amount: Type.Number(),
    cardNumber: Type.Optional(Type.String())
  }, { allOf: [{ required: ['method'] }] }), cardNeedsNumber, amountPositive)
  const old = oldSchemas([schema(Payment).field('cardNumber').didntExist]).get(Payment)
  t.strictSame(keysOf(old), ['method', 'amount'])
  t.strictSame(plain((old as unknown as { allOf: TSchema[] }).allOf), [{ required: ['method'] }, { properties: { amount: { exclusiveMinimum: 0 } } }],
    'other allOf members and the unrelated validator stay')
  t.equal((old as unknown as { allOf: TSchema[] }).allOf[1], amountPositive.fragment)
  t.strictSame(await statuses(t, old, [{ method: 'card', amount: 5 }, { method: 'card', amount: 0 }]), [200, 400])
  t.strictSame(await statuses(t, Payment, [{ method: 'card', amount: 5 }]), [400], 'HEAD still wants a card number')
})

test('named validators are inherited through extendSchema, and removed there with the parent', async (t) => {
  const hasContact = defineValidator('hasContact', { anyOf: [{ required: ['email'] }, { required: ['phone'] }] }, { fields: [] })
  const Contact = withValidators(Type.Object({ email: Type.Optional(Type.String()), phone: Type.Optional(Type.String()) }), hasContact)
  const Customer = extendSchema(Contact, { id: Type.String() })
  t.strictSame(plain((Customer as unknown as { allOf: TSchema[] }).allOf), [{ anyOf: [{ required: ['email'] }, { required: ['phone'] }] }])
  t.strictSame(await statuses(t, Customer, [{ id: '1' }, { id: '1', phone: '0' }]), [400, 200])
  const old = oldSchemas([schema(Contact).validator('hasContact').didntExist])
  t.equal((old.get(Contact) as { allOf?: unknown }).allOf, undefined)
  t.equal((old.get(Customer) as { allOf?: unknown }).allOf, undefined, 'the child lost it with the parent')
  t.strictSame(await statuses(t, old.get(Customer), [{ id: '1' }, { id: '1', phone: '0' }]), [200, 200])

  const ownRule = defineValidator('idIsShort', { properties: { id: { maxLength: 3 } } })
  const added = oldSchemas([schema(Customer).validator(ownRule).existed])
  t.equal(added.get(Contact), Contact, 'a validator added to the child leaves the parent alone')
  t.strictSame(await statuses(t, added.get(Customer), [{ id: '123', email: 'e' }, { id: '1234', email: 'e' }, { id: '1' }]), [200, 400, 400],
    'the child has the inherited and its own validator')
})

test("regression: a child's validator about a parent field goes with the parent's didntExist", async (t) => {
  const needsNickname = defineValidator('needsNickname', { required: ['nickname'] })
  const Person = Type.Object({ name: Type.String(), nickname: Type.Optional(Type.String()) })
  const Member = withValidators(extendSchema(Person, { id: Type.String() }), needsNickname)
  const oldMember = oldSchemas([schema(Person).field('nickname').didntExist]).get(Member)
  t.strictSame(keysOf(oldMember), ['name', 'id'], 'the field is gone from the child')
  t.equal((oldMember as { allOf?: unknown }).allOf, undefined)
  t.strictSame(await statuses(t, oldMember, [{ name: 'n', id: '1' }]), [200])
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

function allOfOf (schema: TSchema): unknown[] | undefined {
  return (schema as { allOf?: unknown[] }).allOf
}

test('regression: a validator about a removed field comes back with the field when an older version restores it', async (t) => {
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

test("regression: a validator about a field named like an Object.prototype member leaves with the field ('constructor')", async (t) => {
  const needsConstructor = defineValidator('needsConstructor', { required: ['constructor'] })
  const Machine = withValidators(Type.Object({ constructor: Type.Optional(Type.String()), id: Type.String() }), needsConstructor)
  // A rename now carries the validator over (the test below): removing the field is what leaves it out.
  const schemas = generateVersionedSchemas(threeVersions('RemoveConstructor', [schema(Machine).field('constructor').didntExist], []))
  const old = schemas.get('2001-01-01').get(Machine)
  t.strictSame(keysOf(old), ['id'])
  t.equal(allOfOf(old), undefined, 'no validator about a field the version lacks')
  t.equal((await post(bodyApp(t, old), { id: '1' })).status, 200)
})

test('regression: a named validator follows a rename of a field it names, rather than leaving the version', async (t) => {
  // Before: left out of the version, so an old client's body breaking the rule passed its version's validation and
  // failed HEAD's after conversion (a 500, FST_VERSIONER_LATEST_REQUEST_VALIDATION), and the old document lacked it.
  const cardNeedsNumber = defineValidator('cardNeedsNumber', { if: { properties: { method: { const: 'card' } }, required: ['method'] }, then: { required: ['cardNumber'] } })
  const byHand = defineValidator('byHand', { required: ['cardNumber'], xRule: 'cardNumber' }, { fields: ['cardNumber', 'method'] })
  const Payment = withValidators(Type.Object({ method: Type.String(), cardNumber: Type.Optional(Type.String()) }), cardNeedsNumber, byHand)
  const old = oldSchemas([schema(Payment).field('cardNumber').had({ name: 'number' })]).get(Payment)
  t.strictSame(plain(allOfOf(old)), [{ if: { properties: { method: { const: 'card' } }, required: ['method'] }, then: { required: ['number'] } }],
    'renamed; one whose fields are given by hand (not all read from it) cannot be renamed surely and leaves, as before')
  t.strictSame(await statuses(t, old, [{ method: 'card' }, { method: 'card', number: '4242' }, { method: 'sepa' }]), [400, 200, 200])
})
