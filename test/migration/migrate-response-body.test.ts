import { test } from 'tap'
import { randomBytes } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import Fastify from 'fastify'
import {
  ConvertResponseToPreviousVersionFor, fastifyVersioner, HeadVersion, migrateResponseBody, schema, Version, VersionBundle, VersionChange,
  renderWebhook, versioned, type ResponseInfo
} from '../../plugin'
import { caught } from '../helpers/errors'
import { strictValidator } from '../../lib/core/strict-validator'
import { nameWasTitleInResponses, taxedPrices } from '../helpers/version-changes'
import { buildSeededApp, Order } from '../fixtures/seeded-app'

test('the reference example: converters of the schema, then the version\'s schema with defaults; unknown fields removed', async (t) => {
  const EmptySchema = Type.Object({})

  class AddNameAndAmount extends VersionChange {
    description = 'name and amount were removed from EmptySchema.'
    instructionsToMigrateToPreviousVersion = [
      schema(EmptySchema).formerField('name').existedAs({ type: Type.String(), default: 'Apples' }),
      schema(EmptySchema).formerField('amount').existedAs({ type: Type.Integer() })
    ]

    @ConvertResponseToPreviousVersionFor(EmptySchema, { checkUsage: false })
    setAmount (response: ResponseInfo) {
      response.body.amount = 83
    }
  }

  const versions = new VersionBundle(new Version('2001-01-01', AddNameAndAmount), new Version('2000-01-01'))
  const latestBody = { id: 'hewwo' }
  t.same(migrateResponseBody(versions, EmptySchema, { latestBody, version: '2000-01-01' }), { name: 'Apples', amount: 83 })
  t.same(migrateResponseBody(versions, EmptySchema, { latestBody, version: '2001-01-01' }), {}, 'latest: the unknown id is removed')
  t.same(latestBody, { id: 'hewwo' }, 'the input is not mutated')
  // A worker's JavaScript forgetting the options was a TypeError (reading 'ajv').
  t.throws(() => migrateResponseBody(versions, EmptySchema, undefined as never),
    { code: 'FST_VERSIONER_INVALID_OPTION', message: /needs options \{ latestBody, version \}/ }, 'no options: the coded error')

  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions })
  await app.register(versioned(async (api) => {
    api.get('/ping', async () => ({ ok: true }))
  }))
  await app.ready()
  t.same(app.versioner.migrateResponseBody(EmptySchema, { latestBody, version: '2000-01-01' }), { name: 'Apples', amount: 83 },
    'app.versioner.migrateResponseBody gives the same')
  t.same(app.versioner.migrateResponseBody(EmptySchema, { latestBody: { id: 'x', amount: 1 }, version: '2000-06-30' }),
    { name: 'Apples', amount: 83 }, 'a date between versions waterfalls')
})

test('nested occurrences, three versions in order, dates and Date objects, by-path converters ignored', async (t) => {
  const Item = Type.Object({ sku: Type.String(), price: Type.Integer() })
  const Webhook = Type.Object({
    event: Type.String(),
    item: Item,
    related: Type.Array(Item),
    byId: Type.Record(Type.String(), Item)
  })
  const calls: string[] = []

  class PriceInCents extends VersionChange {
    description = 'Item.price is in cents; it was priceEuros.'
    instructionsToMigrateToPreviousVersion = [schema(Item).field('price').had({ name: 'priceEuros', type: Type.Number() })]

    @ConvertResponseToPreviousVersionFor(Item, { checkUsage: false })
    toEuros (response: ResponseInfo) {
      calls.push(`2002:${String(response.body.sku)}`)
      response.body.priceEuros = Number(response.body.price) / 100
      delete response.body.price
    }

    @ConvertResponseToPreviousVersionFor('/webhooks', ['POST'])
    byPath (response: ResponseInfo) {
      calls.push('byPath')
      response.body.event = 'by-path'
    }
  }

  class EventWasType extends VersionChange {
    description = 'Webhook.event was type, and items had a currency.'
    instructionsToMigrateToPreviousVersion = [
      schema(Webhook).field('event').had({ name: 'type' }),
      schema(Item).formerField('currency').existedAs({ type: Type.String(), default: 'EUR' })
    ]

    @ConvertResponseToPreviousVersionFor(Webhook, { checkUsage: false })
    eventToType (response: ResponseInfo) {
      calls.push('2001:webhook')
      response.body.type = response.body.event
      delete response.body.event
    }

    @ConvertResponseToPreviousVersionFor(Item, { checkUsage: false })
    itemSeenIn2001 (response: ResponseInfo) {
      calls.push(`2001:${String(response.body.sku)}:${String(response.body.priceEuros)}`)
    }
  }

  const versions = new VersionBundle(
    new Version('2002-01-01', PriceInCents),
    new Version('2001-01-01', EventWasType),
    new Version('2000-01-01')
  )
  const latestBody = Object.freeze({
    event: 'order.paid',
    item: Object.freeze({ sku: 'a', price: 250 }),
    related: Object.freeze([Object.freeze({ sku: 'b', price: 100 })]),
    byId: Object.freeze({ c: Object.freeze({ sku: 'c', price: 5 }) }),
    internal: 'dropped'
  })
  const snapshot = JSON.stringify(latestBody)

  calls.length = 0
  t.same(migrateResponseBody(versions, Webhook, { latestBody, version: '2002-01-01' }), {
    event: 'order.paid', item: { sku: 'a', price: 250 }, related: [{ sku: 'b', price: 100 }], byId: { c: { sku: 'c', price: 5 } }
  }, 'latest: no converter, unknown fields removed')
  t.same(calls, [])

  calls.length = 0
  t.same(migrateResponseBody(versions, Webhook, { latestBody, version: '2001-01-01' }), {
    event: 'order.paid',
    item: { sku: 'a', priceEuros: 2.5 },
    related: [{ sku: 'b', priceEuros: 1 }],
    byId: { c: { sku: 'c', priceEuros: 0.05 } }
  }, '2001-01-01: every nested Item converted')
  t.equal(calls.length, 3, 'one call per Item occurrence; the by-path converter does not run')
  t.same(new Set(calls), new Set(['2002:a', '2002:b', '2002:c']))

  calls.length = 0
  const oldest = await migrateResponseBody<typeof Webhook, Record<string, unknown>>(versions, Webhook, { latestBody, version: '2000-01-01' })
  const { byId, ...rest } = oldest
  t.same(rest, {
    type: 'order.paid',
    item: { sku: 'a', priceEuros: 2.5, currency: 'EUR' },
    related: [{ sku: 'b', priceEuros: 1, currency: 'EUR' }]
  }, '2000-01-01: both versions\' converters, nested defaults applied')
  t.match(byId, { c: { sku: 'c', priceEuros: 0.05 } }, 'record values converted')
  t.same(byId, { c: { sku: 'c', priceEuros: 0.05, currency: 'EUR' } }, 'defaults applied inside record values too')
  t.equal(calls.length, 7)
  t.same(calls.slice(0, 3).sort(), ['2002:a', '2002:b', '2002:c'], 'the newer version\'s converters first')
  t.ok(calls.indexOf('2001:webhook') > 2)
  t.same(calls.filter((call) => call.startsWith('2001:') && call !== '2001:webhook').sort(), ['2001:a:2.5', '2001:b:1', '2001:c:0.05'],
    'the older version\'s Item converter sees the newer one\'s result')

  t.same(migrateResponseBody(versions, Webhook, { latestBody, version: '2001-07-04' }),
    migrateResponseBody(versions, Webhook, { latestBody, version: '2001-01-01' }), 'a date between versions waterfalls')
  t.same(migrateResponseBody(versions, Webhook, { latestBody, version: new Date('2000-12-31T12:00:00Z') }), oldest, 'a Date waterfalls')
  t.same(migrateResponseBody(versions, Webhook, { latestBody, version: '2030-01-01' }),
    migrateResponseBody(versions, Webhook, { latestBody, version: '2002-01-01' }), 'a date after the newest: the newest')
  t.equal(JSON.stringify(latestBody), snapshot, 'the input was never mutated')
})

test('unknown or too old versions: FST_VERSIONER_UNKNOWN_VERSION', async (t) => {
  const Thing = Type.Object({ id: Type.String() })
  class Nothing extends VersionChange {
    description = 'Nothing changed.'
    instructionsToMigrateToPreviousVersion = []
  }
  const versions = new VersionBundle(new Version('2001-01-01', Nothing), new Version('2000-01-01'))

  for (const version of ['1999-01-01', 'banana', '2000-13-45', '']) {
    const error = caught(() => migrateResponseBody(versions, Thing, { latestBody: { id: '1' }, version }))
    t.equal(error?.code, 'FST_VERSIONER_UNKNOWN_VERSION', `${JSON.stringify(version)} is rejected`)
  }
  const tooOld = caught(() => migrateResponseBody(versions, Thing, { latestBody: { id: '1' }, version: new Date('1999-12-31T00:00:00Z') }))
  t.equal(tooOld?.code, 'FST_VERSIONER_UNKNOWN_VERSION')
  t.match(tooOld?.message, /1999-12-31/, 'the message names the version')
  t.match(tooOld?.message, /2000-01-01/, 'and the oldest version')
  const unknown = caught(() => migrateResponseBody(versions, Thing, { latestBody: { id: '1' }, version: 'banana' }))
  t.match(unknown?.message, /banana/)
  t.match(unknown?.message, /2001-01-01, 2000-01-01/, 'the message lists the versions')

  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions })
  await app.ready()
  const viaApp = caught(() => app.versioner.migrateResponseBody(Thing, { latestBody: { id: '1' }, version: '1990-01-01' }))
  t.equal(viaApp?.code, 'FST_VERSIONER_UNKNOWN_VERSION')
})

test('regression: migrateResponseBody: intersections keep every member\'s fields; Object.prototype names are not fields', async (t) => {
  const Person = Type.Object({ name: Type.String(), nickname: Type.String() })
  const Contact = Type.Object({ email: Type.String(), phone: Type.String({ default: 'none' }) })
  const Card = Type.Intersect([Person, Contact])
  const Plain = Type.Object({ id: Type.String() })
  class NoNickname extends VersionChange {
    description = 'People had no nickname.'
    instructionsToMigrateToPreviousVersion = [schema(Person).field('nickname').didntExist]
  }
  const versions = new VersionBundle(new Version('2001-01-01', NoNickname), new Version('2000-01-01'))
  // Not quite HEAD's type (phone, which has a default, is missing; secret is unknown): the run time accepts it.
  const latestBody = { name: 'Ada', nickname: 'A', email: 'ada@example.com', secret: 's' } as unknown as Static<typeof Card>
  t.same(migrateResponseBody(versions, Card, { latestBody, version: '2000-01-01' }), { name: 'Ada', email: 'ada@example.com', phone: 'none' },
    'fields of both members kept, defaults filled, the removed field and unknown fields dropped')
  t.same(migrateResponseBody(versions, Card, { latestBody, version: '2001-01-01' }), { name: 'Ada', nickname: 'A', email: 'ada@example.com', phone: 'none' })

  const withPrototypeNames = JSON.parse('{"id":"1","constructor":"c","toString":"t","hasOwnProperty":"h"}') as Static<typeof Plain>
  t.same(migrateResponseBody(versions, Plain, { latestBody: withPrototypeNames, version: '2000-01-01' }), { id: '1' },
    'constructor, toString and hasOwnProperty are undeclared fields')
})

test('async converters: migrateResponseBody returns a promise of the migrated body; synchronous paths still return the body', async (t) => {
  const Payment = Type.Object({ id: Type.String(), amountCents: Type.Integer() })
  const rates = async (): Promise<number> => await new Promise((resolve) => setImmediate(() => resolve(100)))
  const order: string[] = []

  class AmountInEuros extends VersionChange {
    description = 'amountCents was amount (in euros).'
    instructionsToMigrateToPreviousVersion = [
      schema(Payment).field('amountCents').didntExist,
      schema(Payment).formerField('amount').existedAs({ type: Type.Number() })
    ]

    @ConvertResponseToPreviousVersionFor(Payment, { checkUsage: false })
    async toEuros (response: ResponseInfo) {
      response.body.amount = response.body.amountCents / await rates()
      delete response.body.amountCents
      order.push('2001')
    }
  }
  class AmountAsText extends VersionChange {
    description = 'amount was a string.'
    instructionsToMigrateToPreviousVersion = [schema(Payment).formerField('amount').had({ type: Type.String() })]

    @ConvertResponseToPreviousVersionFor(Payment, { checkUsage: false })
    asText (response: ResponseInfo) {
      order.push('2000')
      response.body.amount = String(response.body.amount)
    }
  }
  const versions = new VersionBundle(new Version('2002-01-01', AmountInEuros), new Version('2001-01-01', AmountAsText), new Version('2000-01-01'))
  const latestBody = { id: 'p1', amountCents: 250, internal: true }

  const pending = migrateResponseBody(versions, Payment, { latestBody, version: '2000-01-01' })
  t.ok(pending instanceof Promise, 'an async converter on the path: a promise')
  t.same(await pending, { id: 'p1', amount: '2.5' }, 'both converters, the synchronous one after the async one settled; unknown fields removed')
  t.strictSame(order, ['2001', '2000'], 'converters in order, newest first')

  const latest = migrateResponseBody(versions, Payment, { latestBody, version: '2002-01-01' })
  t.notOk(latest instanceof Promise, 'no converter on the path: the body itself')
  t.same(latest, { id: 'p1', amountCents: 250 })

  class Failing extends VersionChange {
    description = 'fails.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor(Payment, { checkUsage: false })
    async fail (response: ResponseInfo) {
      response.body.failed = await Promise.reject(new Error('rates unavailable'))
    }
  }
  const failing = new VersionBundle(new Version('2001-01-01', Failing), new Version('2000-01-01'))
  await t.rejects(async () => await migrateResponseBody(failing, Payment, { latestBody, version: '2000-01-01' }), { message: 'rates unavailable' },
    'a rejected converter rejects the promise')

  const app = Fastify()
  t.teardown(() => app.close())
  class SlowRates extends VersionChange {
    description = 'amountCents came from the rates service.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor(Payment, { checkUsage: false })
    async slow (response: ResponseInfo) {
      response.body.amountCents = await rates()
    }
  }
  const appVersions = new VersionBundle(new Version('2001-01-01', SlowRates), new Version('2000-01-01'))
  await app.register(fastifyVersioner, { versions: appVersions })
  await app.register(versioned(async (api) => { api.get('/ping', async () => ({ ok: true })) }))
  await app.ready()
  const bound = app.versioner.migrateResponseBody<typeof Payment, { id: string, amountCents: number }>(Payment, { latestBody, version: '2000-01-01' })
  t.ok(bound instanceof Promise)
  t.same(await bound, { id: 'p1', amountCents: 100 }, 'app.versioner.migrateResponseBody too')
})

test('migrateResponseBody throws FST_VERSIONER_UNCONVERTIBLE_RESPONSE instead of returning a value the version cannot take', async (t) => {
  const app = await buildSeededApp('enum')
  t.teardown(() => app.close())
  await app.ready()
  const order = { id: '3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f', status: 'refunded' } as const
  t.same(app.versioner.migrateResponseBody(Order, { latestBody: order, version: '2003-01-01' }), order, 'the version that has the member')
  const error = caught(() => app.versioner.migrateResponseBody(Order, { latestBody: order, version: '2001-01-01' }))
  t.equal(error?.code, 'FST_VERSIONER_UNCONVERTIBLE_RESPONSE')
  t.match(error?.message, /^migrateResponseBody: The value "refunded" of OrderStatus \(field 'status'\) cannot be expressed in API version 2001-01-01: version change AddOrdersProfilesTagsContacts removed it/)
  t.same(app.versioner.migrateResponseBody(Order, { latestBody: { ...order, status: 'placed' }, version: '2001-01-01' }), { ...order, status: 'placed' }, 'other members pass')

  const Named = Type.Object({ fullName: Type.String() }, { $id: 'Named' })
  class NameWasName extends VersionChange {
    description = 'fullName was name.'
    instructionsToMigrateToPreviousVersion = [schema(Named).field('fullName').had({ name: 'name' })]
  }
  const bundle = new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameWasName), new Version('2000-01-01'))
  const invalid = caught(() => migrateResponseBody(bundle, Named, { latestBody: { fullName: 'Ada' }, version: '2000-01-01' }))
  t.equal(invalid?.code, 'FST_VERSIONER_UNCONVERTIBLE_RESPONSE', 'a rename without its converter: the result does not match the version\'s schema')
  t.match(invalid?.message, /does not match that version's schema at '': must have required property 'name'/)
})

test('regression: a Date of a format date field, which a route writes as its date, was refused as a version change\'s fault; webhooks refused it too', async (t) => {
  const Invoice = Type.Object({ dueOn: Type.String({ format: 'date' }), name: Type.String() })
  const NameWasTitle = nameWasTitleInResponses(Invoice)
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameWasTitle), new Version('2000-01-01'))
  const due = new Date('2024-03-05T10:20:30.000Z')
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions })
  app.versioner.webhooks.add({ name: 'invoice.due', body: Invoice })
  await app.register(versioned(async (api) => {
    api.get('/invoice', { schema: { response: { 200: Invoice } } }, async () => ({ dueOn: due, name: 'Ada' }) as never)
  }))
  const written = (await app.inject({ url: '/invoice', headers: { 'x-api-version': '2000-01-01' } })).json()
  t.match(written, { dueOn: /^\d{4}-\d{2}-\d{2}$/, title: 'Ada' })
  const body = { dueOn: due, name: 'Ada' } as unknown as Static<typeof Invoice>
  t.same(migrateResponseBody(versions, Invoice, { latestBody: body, version: '2000-01-01' }), written, 'the body the route answers')
  t.same(app.versioner.migrateResponseBody(Invoice, { latestBody: body, version: '2001-01-01' }), { dueOn: written.dueOn, name: 'Ada' })
  const { deliveries } = await app.versioner.webhooks.render('invoice.due', body, { subscribers: [{ id: 'ep_1', version: '2000-01-01', secret: `whsec_${Buffer.alloc(24, 1).toString('base64')}` }] })
  t.same(deliveries.map((delivery) => JSON.parse(delivery.body)), [written], 'the webhook the subscriber gets')
})

test('regression: a HEAD body its own schema refuses (a Decimal where it says number) was blamed on a version change lacking a converter', async (t) => {
  const Price = Type.Object({ amount: Type.Number(), label: Type.String() })
  class LabelWasName extends VersionChange {
    description = 'label was name.'
    instructionsToMigrateToPreviousVersion = [schema(Price).field('label').had({ name: 'name' })]

    @ConvertResponseToPreviousVersionFor(Price)
    down (response: ResponseInfo) {
      response.body.name = response.body.label
      delete response.body.label
    }
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', LabelWasName), new Version('2000-01-01'))
  class Decimal {
    constructor (private readonly text: string) {}
    toJSON (): string { return this.text }
  }
  const latestBody = { amount: new Decimal('12.50'), label: 'x' } as unknown as Static<typeof Price>
  for (const version of ['2001-01-01', '2000-01-01']) {
    const error = caught(() => migrateResponseBody(versions, Price, { latestBody, version }))
    t.match(error, { code: 'FST_VERSIONER_UNCONVERTIBLE_RESPONSE' }, version)
    t.match(error?.message, /the body given is not one HEAD's schema accepts: at '\/amount', must be number/, version)
    t.notMatch(error?.message, /lacks a response converter/, version)
  }
})

test('regression: migrateResponseBody (and webhooks) run converters in the target version (isApplied)', async (t) => {
  const { Price, versions: bundle, PricesIncludeTax } = taxedPrices()
  t.same(migrateResponseBody(bundle, Price, { latestBody: { amount: 12, display: '12' }, version: '2000-01-01' }), { amount: 10 })
  t.same(migrateResponseBody(bundle, Price, { latestBody: { amount: 12, display: '12' }, version: '2001-01-01' }), { amount: 12 })
  t.equal(PricesIncludeTax.isApplied, true, 'outside, the class answers as before')

  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: bundle })
  await app.register(versioned(async (api) => {
    api.get('/price', { schema: { response: { 200: Price } } }, async () => ({
      amount: 12,
      // In a request of one version, a body migrated to another runs in that other version, then the request's comes back.
      display: JSON.stringify([app.versioner.migrateResponseBody(Price, { latestBody: { amount: 12 }, version: '2000-01-01' }), PricesIncludeTax.isApplied])
    }))
  }))
  await app.ready()
  t.same(app.versioner.migrateResponseBody(Price, { latestBody: { amount: 12 }, version: '2000-01-01' }), { amount: 10 }, 'bound to the app')
  const served = await app.inject({ url: '/price', headers: { 'x-api-version': '2001-01-01' } })
  t.same(served.json(), { amount: 12 }, '2001-01-01 lacks display; its request read its own version')
  const newest = await app.inject({ url: '/price', headers: { 'x-api-version': '2002-01-01' } })
  t.same(JSON.parse(newest.json().display), [{ amount: 10 }, true], 'the migration ran in 2000-01-01, the handler stayed in 2002-01-01')
})

test('regression: an async converter of migrateResponseBody reads the target version after its awaits, also when renders overlap and the worker serves nothing', async (t) => {
  const { Price, versions: bundle } = taxedPrices(async () => await new Promise((resolve) => setTimeout(resolve, 20)))
  const migrate = async (version: string): Promise<unknown> => await migrateResponseBody(bundle, Price, { latestBody: { amount: 12 }, version })
  const first = migrate('2000-01-01')
  // The second render, of the same version, ends first: the first still reads its version after it.
  const [second, third] = await Promise.all([migrate('2001-01-01'), migrate('2000-01-01')])
  t.same([await first, second, third], [{ amount: 10 }, { amount: 12 }, { amount: 10 }])
  t.same(await migrate('2000-01-01'), { amount: 10 }, 'a render after the others ended')
})

test('regression: schemas written alike (a list of one resource on many routes) share one compiled validator', async (t) => {
  const compile = strictValidator(() => undefined)
  const Customer = Type.Object({ id: Type.String() }, { $id: 'Customer' })
  const lists = Array.from({ length: 5 }, () => Type.Object({ data: Type.Array(Customer) }))
  const checks = new Set(lists.map((list) => compile(list)))
  t.equal(checks.size, 1, 'one validator for five routes\' lists')
  const check = [...checks][0]
  t.ok(check({ data: [{ id: 'c1' }] }))
  t.notOk(check({ data: [{ id: 1 }] }))
  const other = compile(Type.Object({ data: Type.Array(Type.String()) }))
  t.not(other, check, 'a schema written otherwise has its own')
  t.ok(other({ data: ['a'] }))
  t.notOk(other({ data: [{ id: 'c1' }] }))
})

test('regression: a converter\'s error status (an old version answers 404 for a card) was dropped by migrateResponseBody, and the webhook delivered the body', async (t) => {
  const Source = Type.Object({ id: Type.String(), kind: Type.String() }, { $id: 'Source' })
  class CardsAreSources extends VersionChange {
    description = 'Cards are sources; the versions before did not know them.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor(Source, { checkUsage: false })
    hideCards (response: ResponseInfo) {
      response.headers['x-legacy'] = '1'
      if (response.body.kind === 'card') response.statusCode = 404
    }
  }
  const versions = new VersionBundle(new Version('2001-01-01', CardsAreSources), new Version('2000-01-01'))
  const error = caught(() => migrateResponseBody(versions, Source, { latestBody: { id: 's_1', kind: 'card' }, version: '2000-01-01' }))
  t.equal(error?.code, 'FST_VERSIONER_UNCONVERTIBLE_RESPONSE', 'refused, not the body sent as if the version had it')
  t.match(error?.message, /^migrateResponseBody: a converter set the status 404 for API version 2000-01-01/)
  t.same(migrateResponseBody(versions, Source, { latestBody: { id: 's_2', kind: 'bank' }, version: '2000-01-01' }), { id: 's_2', kind: 'bank' },
    'a body the converters leave a success is given; a header they write is not part of it')

  const subscribers = [{ id: 'old', version: '2000-01-01', secret: `whsec_${randomBytes(32).toString('base64')}` }, { id: 'new', version: '2001-01-01', secret: `whsec_${randomBytes(32).toString('base64')}` }]
  const { deliveries, failed } = await renderWebhook(versions, { name: 'source.created', body: Source }, { id: 's_1', kind: 'card' }, { subscribers })
  t.same(deliveries.map((delivery) => delivery.subscriber.id), ['new'])
  t.same(failed.map(({ subscriber, error }) => [subscriber.id, (error as { code?: string }).code]), [['old', 'FST_VERSIONER_UNCONVERTIBLE_RESPONSE']],
    'the webhook is not delivered to the version that would answer it with an error')
})
