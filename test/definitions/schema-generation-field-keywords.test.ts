import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import Ajv from 'ajv'
import Ajv2019 from 'ajv/dist/2019'
import ajvErrors from 'ajv-errors'
import { ConvertRequestToNextVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange, type RequestInfo } from '../../plugin'
import { bodyApp, LATEST, OLD, oldSchemas, plain, post, statuses } from '../helpers/schema-generation'
import { versionedApp } from '../helpers/apps'
import { changeClass } from '../helpers/version-changes'
import { assertDocumentsValid } from '../helpers/openapi-documents'

const Card = Type.String()

/** The keywords of a generated schema, as JSON. */
function json (body: unknown): Record<string, unknown> {
  return plain(body) as Record<string, unknown>
}

function validity (ajv: Ajv, body: TSchema, payloads: unknown[]): boolean[] {
  const validate = ajv.compile(plain(body) as object)
  return payloads.map((payload) => validate(payload))
}

test("regression: a renamed field's 'dependencies' entry follows the rename (list and schema forms)", async (t) => {
  const Payment = Type.Object({ card: Type.Optional(Card), cvc: Type.Optional(Type.String()), zip: Type.Optional(Type.String()) }, {
    dependencies: { card: ['cvc'], zip: { required: ['cvc'], properties: { cvc: { minLength: 3 } } } }
  })
  const old = oldSchemas([schema(Payment).field('cvc').had({ name: 'code' })]).get(Payment)
  t.strictSame(json(old).dependencies, { card: ['code'], zip: { required: ['code'], properties: { code: { minLength: 3 } } } })
  t.strictSame(await statuses(t, old, [{ card: '4242', code: '123' }, { card: '4242' }, { zip: '1', code: '12' }, { zip: '1', code: '123' }]), [200, 400, 400, 200])
  t.strictSame(Payment.dependencies, { card: ['cvc'], zip: { required: ['cvc'], properties: { cvc: { minLength: 3 } } } }, "the user's schema is not changed")
})

test("regression: a removed field's 'dependencies' entries leave the version, others stay", async (t) => {
  const Payment = Type.Object({ card: Type.Optional(Card), cvc: Type.Optional(Type.String()), name: Type.Optional(Type.String()) }, {
    dependencies: { card: ['cvc'], name: ['card'] }
  })
  const old = oldSchemas([schema(Payment).field('cvc').didntExist]).get(Payment)
  t.strictSame(json(old).dependencies, { name: ['card'] })
  t.strictSame(await statuses(t, old, [{ card: '4242' }, { name: 'A' }]), [200, 400])
})

test("regression: 'dependentRequired' and 'dependentSchemas' follow renames and removals (2019-09)", async (t) => {
  const Payment = Type.Object({ card: Type.Optional(Card), cvc: Type.Optional(Type.String()), zip: Type.Optional(Type.String()) }, {
    dependentRequired: { card: ['cvc'], cvc: ['card'] }, dependentSchemas: { zip: { required: ['card'] }, cvc: { required: ['zip'] } }
  })
  const renamed = oldSchemas([schema(Payment).field('cvc').had({ name: 'code' })]).get(Payment)
  t.strictSame(json(renamed).dependentRequired, { card: ['code'], code: ['card'] })
  t.strictSame(json(renamed).dependentSchemas, { zip: { required: ['card'] }, code: { required: ['zip'] } })
  const ajv = new Ajv2019()
  t.strictSame(validity(ajv, renamed, [{ card: '1', code: '2', zip: '3' }, { card: '1' }]), [true, false])
  const removed = oldSchemas([schema(Payment).field('cvc').didntExist]).get(Payment)
  t.strictSame(json(removed).dependentRequired, undefined)
  t.strictSame(json(removed).dependentSchemas, { zip: { required: ['card'] } })
  t.strictSame(validity(ajv, removed, [{ card: '1' }, { zip: '1' }]), [true, false])
})

test("regression: 'if'/'then'/'else', 'not' and 'anyOf' on the object follow a rename, and leave with a removed field", async (t) => {
  const Payment = Type.Object({ method: Type.String(), cvc: Type.Optional(Type.String()), iban: Type.Optional(Type.String()) }, {
    if: { properties: { method: { const: 'card' } } },
    then: { required: ['cvc'] },
    else: { required: ['iban'] },
    not: { required: ['cvc', 'iban'] },
    anyOf: [{ required: ['method'] }, { required: ['iban'] }]
  })
  const renamed = json(oldSchemas([schema(Payment).field('method').had({ name: 'kind' })]).get(Payment))
  t.strictSame(renamed.if, { properties: { kind: { const: 'card' } } })
  t.strictSame(renamed.anyOf, [{ required: ['kind'] }, { required: ['iban'] }])
  t.strictSame(renamed.not, { required: ['cvc', 'iban'] })
  const old = oldSchemas([schema(Payment).field('cvc').didntExist]).get(Payment)
  t.strictSame([json(old).if, json(old).not], [undefined, undefined], 'the if/then/else rule and not leave together')
  t.strictSame(json(old).anyOf, [{ required: ['method'] }, { required: ['iban'] }])
  t.strictSame(await statuses(t, old, [{ method: 'card' }, { method: 'sepa', iban: 'x' }]), [200, 200])
})

test("regression: 'propertyNames' enum and ajv-errors' 'errorMessage' follow renames and removals", async (t) => {
  const Payment = Type.Object({ card: Type.Optional(Card), cvc: Type.Optional(Type.String()), zip: Type.Optional(Type.String()) }, {
    propertyNames: { enum: ['card', 'cvc', 'zip'] },
    errorMessage: { required: { card: 'card please' }, properties: { cvc: 'cvc is 3 digits', zip: 'zip is text' }, dependencies: { zip: 'zip needs more' } }
  })
  const renamed = json(oldSchemas([schema(Payment).field('cvc').had({ name: 'code' })]).get(Payment))
  t.strictSame(renamed.propertyNames, { enum: ['card', 'code', 'zip'] })
  t.strictSame(renamed.errorMessage, { required: { card: 'card please' }, properties: { code: 'cvc is 3 digits', zip: 'zip is text' }, dependencies: { zip: 'zip needs more' } })
  const removed = oldSchemas([schema(Payment).field('zip').didntExist]).get(Payment)
  t.strictSame(json(removed).propertyNames, { enum: ['card', 'cvc'] })
  t.strictSame(json(removed).errorMessage, { required: { card: 'card please' }, properties: { cvc: 'cvc is 3 digits' }, dependencies: {} })
  const ajv = new Ajv({ allErrors: true })
  ajvErrors(ajv)
  t.strictSame(validity(ajv, oldSchemas([schema(Payment).field('cvc').had({ name: 'code' })]).get(Payment), [{ card: '1', code: '2' }, { card: '1', cvc: '2' }]), [true, false])
})

test("regression: an old client's valid body under a renamed field's 'dependencies' is accepted, and its document shows the old name", async (t) => {
  // Before: `400 body must have property cvc when property card is present` for `{ card, code }` in 2000-01-01, whose
  // document showed HEAD's `dependencies: { card: ['cvc'] }`.
  const Payment = Type.Object({ card: Type.Optional(Card), cvc: Type.Optional(Type.String()) }, { $id: 'Payment', dependencies: { card: ['cvc'] } })
  class CvcWasCode extends VersionChange {
    description = 'cvc was code.'
    instructionsToMigrateToPreviousVersion = [schema(Payment).field('cvc').had({ name: 'code' })]

    @ConvertRequestToNextVersionFor(Payment)
    codeUp (request: RequestInfo) {
      if ('code' in request.body) request.body.cvc = request.body.code
      delete request.body.code
    }
  }
  const bundle = new VersionBundle(new HeadVersion(), new Version(LATEST, CvcWasCode), new Version(OLD))
  const app = await versionedApp(t, bundle, async (api) => {
    api.post('/payments', { schema: { body: Payment, response: { 200: Type.Object({ cvc: Type.String() }) } } }, async (request) => ({ cvc: String(request.body.cvc) }))
  })
  await app.ready()
  const pay = async (version: string, payload: object): Promise<number> =>
    (await app.inject({ method: 'POST', url: '/payments', payload, headers: { 'x-api-version': version } })).statusCode
  t.strictSame([await pay(OLD, { card: '4242', code: '123' }), await pay(OLD, { card: '4242' }), await pay(OLD, { card: '4242', cvc: '123' })], [200, 400, 400])
  t.strictSame([await pay(LATEST, { card: '4242', cvc: '123' }), await pay(LATEST, { card: '4242' })], [200, 400])
  await assertDocumentsValid(t, app)
  const document = app.versioner.openapi(OLD) as { components: { schemas: Record<string, Record<string, unknown>> } }
  t.strictSame(document.components.schemas.Payment.dependencies, { card: ['code'] })
})

test("regression: a union's OpenAPI 'discriminator' follows its members' renamed tag field; members that disagree are a start-up error", async (t) => {
  const CardPay = Type.Object({ kind: Type.Literal('card'), number: Type.String() }, { $id: 'CardPay' })
  const BankPay = Type.Object({ kind: Type.Literal('bank'), iban: Type.String() }, { $id: 'BankPay' })
  const Pay = Type.Union([CardPay, BankPay], { discriminator: { propertyName: 'kind', mapping: { card: '#/components/schemas/CardPay' } } })
  const Body = Type.Object({ pay: Pay })
  const both = oldSchemas([schema(CardPay).field('kind').had({ name: 'type' }), schema(BankPay).field('kind').had({ name: 'type' })])
  t.strictSame(json(json(both.get(Body)).properties).pay, {
    discriminator: { propertyName: 'type', mapping: { card: '#/components/schemas/CardPay' } },
    anyOf: [json(both.get(CardPay)), json(both.get(BankPay))]
  })
  t.strictSame(Pay.discriminator, { propertyName: 'kind', mapping: { card: '#/components/schemas/CardPay' } }, "the user's schema is not changed")
  const ByRef = Type.Object({ pay: Type.Union([Type.Ref('CardPay'), Type.Ref('BankPay')], { discriminator: { propertyName: 'kind' } }) })
  const byRef = oldSchemas([schema(CardPay).field('kind').had({ name: 'type' }), schema(BankPay).field('kind').had({ name: 'type' })])
  t.strictSame(json(json(byRef.get(ByRef)).properties).pay, {
    discriminator: { propertyName: 'type' }, anyOf: [{ $ref: 'CardPay__2000-01-01' }, { $ref: 'BankPay__2000-01-01' }]
  }, 'members given as $ref too')
  t.throws(() => oldSchemas([schema(CardPay).field('kind').had({ name: 'type' })]).get(Body), {
    code: 'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION',
    message: /discriminator of the union CardPay \| BankPay names the field 'kind', which its members call 'type', 'kind' in version '2000-01-01'.*defineValidator/s
  })
})

test("regression: 'minProperties' or 'maxProperties' no body of a version can meet is a start-up error naming the schema and the fields", async (t) => {
  const Patch = Type.Object({ name: Type.Optional(Type.String()), note: Type.Optional(Type.String()) }, { $id: 'Patch', minProperties: 2, additionalProperties: false })
  t.throws(() => oldSchemas([schema(Patch).field('note').didntExist]).get(Patch), {
    code: 'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION',
    message: /Patch has minProperties: 2, and only the fields 'name' and no other in version '2000-01-01'.*defineValidator/s
  })
  const Pair = Type.Object({ name: Type.String() }, { $id: 'Pair', maxProperties: 1 })
  t.throws(() => oldSchemas([schema(Pair).formerField('note').existedAs({ type: Type.String() })]).get(Pair), {
    message: /Pair has maxProperties: 1, and the required fields 'name', 'note' in version '2000-01-01'.*defineValidator/s
  }, 'nor a maxProperties below the fields a version requires')
  t.equal(json(oldSchemas([schema(Pair).formerField('note').existedAs({ type: Type.String(), optional: true })]).get(Pair)).maxProperties, 1)
  const Open = Type.Object({ name: Type.Optional(Type.String()), note: Type.Optional(Type.String()) }, { minProperties: 2 })
  t.equal(json(oldSchemas([schema(Open).field('note').didntExist]).get(Open)).minProperties, 2, 'other properties may still make it up')
})

test("regression: a field a version has and HEAD lacks joins a 'propertyNames' enum listing the fields", async (t) => {
  const Patch = Type.Object({ name: Type.Optional(Type.String()), cvc: Type.Optional(Type.String()) }, { propertyNames: { enum: ['name', 'cvc', 'extra'] } })
  const old = oldSchemas([schema(Patch).formerField('nickname').existedAs({ type: Type.String(), optional: true }), schema(Patch).field('cvc').had({ name: 'code' })]).get(Patch)
  t.strictSame(json(old).propertyNames, { enum: ['name', 'code', 'extra', 'nickname'] })
  t.strictSame(await statuses(t, old, [{ nickname: 'n' }, { code: '1' }, { cvc: '1' }, { other: 1 }]), [200, 200, 400, 400])
})

test("regression: a field named '__proto__' stays a field of the rebuilt object, and its 'dependencies' entry follows a rename", async (t) => {
  // Before: the rebuilt `properties` got the field as its prototype, and Fastify refused the schema at start-up.
  const Odd = Type.Object({ ['__proto__']: Type.Optional(Type.String()), b: Type.Optional(Type.String()) }, { dependencies: JSON.parse('{"__proto__":["b"]}') })
  const old = json(oldSchemas([schema(Odd).field('b').had({ name: 'c' })]).get(Odd))
  t.strictSame(Object.keys(old.properties as object), ['__proto__', 'c'])
  t.strictSame(JSON.stringify(old.dependencies), '{"__proto__":["c"]}')
})

test("regression: an object's own OpenAPI 'discriminator' (over its 'oneOf') names its renamed tag field", async (t) => {
  const Pet = Type.Object({ kind: Type.String(), name: Type.String() }, {
    discriminator: { propertyName: 'kind' },
    oneOf: [{ properties: { kind: { const: 'cat' } } }, { properties: { kind: { const: 'dog' } } }]
  })
  const old = json(oldSchemas([schema(Pet).field('kind').had({ name: 'type' })]).get(Pet))
  t.strictSame([old.discriminator, old.oneOf], [{ propertyName: 'type' }, [{ properties: { type: { const: 'cat' } } }, { properties: { type: { const: 'dog' } } }]])
  t.strictSame(json(oldSchemas([schema(Pet).field('kind').didntExist]).get(Pet)).discriminator, undefined, 'left out with the field')
})

test("an unmeetable 'minProperties' in a version fails the app's start-up", async (t) => {
  const Patch = Type.Object({ name: Type.Optional(Type.String()), note: Type.Optional(Type.String()) }, { $id: 'Patch', minProperties: 2, additionalProperties: false })
  const bundle = new VersionBundle(new HeadVersion(), new Version(LATEST, changeClass('NoteIsNew', [schema(Patch).field('note').didntExist])), new Version(OLD))
  await t.rejects(versionedApp(t, bundle, async (api) => {
    api.patch('/notes', { schema: { body: Patch } }, async () => ({}))
  }).then(async (app) => await app.ready()), { code: 'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION' })
})

test("regression: an object's 'default' names its fields as the version does", async (t) => {
  // Before: the old version kept HEAD's default `{ card, cvc }`: a body leaving `payment` out got it filled in and
  // then refused (`must have required property 'code'`), and the document showed HEAD's names.
  const Payment = Type.Object({ card: Type.String(), cvc: Type.String(), zip: Type.Optional(Type.String()) }, { default: { card: '4242', cvc: '123', zip: '1' } })
  const Order = Type.Object({ payment: Type.Optional(Payment) })
  const old = oldSchemas([schema(Payment).field('cvc').had({ name: 'code' }), schema(Payment).field('zip').didntExist])
  t.strictSame(json(old.get(Payment)).default, { card: '4242', code: '123' })
  const app = bodyApp(t, old.get(Order))
  t.strictSame(await post(app, {}), { status: 200, body: { payment: { card: '4242', code: '123' } } })
})
