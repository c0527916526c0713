// `verify` on a request field an old version declares that HEAD has no counterpart for (`formerField(...).existedAs`)
// and that no request converter carries to HEAD (decision 0225): every old client sends it, and HEAD never sees it.
// A field whose sentinel, in every example that holds one, arrives nowhere in HEAD's request and is still in it (no
// converter of the change that declared it took it out) is a finding; carried in one example, or deleted there by a
// converter that acted on it, it is not.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { ConvertRequestToNextVersionFor, enumeration, schema, Version, VersionBundle, VersionChange, type RequestInfo } from '../../plugin'
import { verify } from '../../tools'
import { appWith, summary } from '../helpers/verify-apps'
import { versionedApp } from '../helpers/apps'
import { otherValue } from '../../lib/tools/former-values'

const InvoiceCreate = Type.Object({
  customer: Type.String(),
  total: Type.Integer({ minimum: 0 }),
  discounts: Type.Optional(Type.Array(Type.String())),
  discountId: Type.Optional(Type.Integer()),
  promotionCode: Type.Optional(Type.String())
}, { $id: 'InvoiceCreate' })

/** `POST /invoices` taking an invoice, answering its id only (no round trip to show what HEAD stored). */
function invoiceRoutes (api: FastifyInstance): void {
  api.post('/invoices', { schema: { body: InvoiceCreate, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => { throw new Error('not served in verify') })
}

/** The coupon moved to its own endpoint: older versions still declare it on an invoice they create. */
const moved = (): VersionChange['instructionsToMigrateToPreviousVersion'] => [schema(InvoiceCreate).formerField('coupon').existedAs({ type: Type.String(), optional: true })]

/** The coupon moved to its own endpoint, with no converter: every old client's coupon is ignored. */
class MoveCouponsToTheirOwnEndpoint extends VersionChange {
  description = "An invoice's coupon moved to its own endpoint."
  instructionsToMigrateToPreviousVersion = moved()
}

test('a request field existedAs declares that no converter carries to HEAD is found, naming the field, version and change', async (t) => {
  const findings = await verify(await appWith(t, MoveCouponsToTheirOwnEndpoint, invoiceRoutes), { examples: 20 })
  t.same(summary(findings), ['POST /invoices 2000-01-01 request lost body/coupon after MoveCouponsToTheirOwnEndpoint (2001-01-01) by '])
  t.equal(findings[0].text, 'POST /invoices (2000-01-01): request body/coupon: declared by existedAs in this version, with no counterpart in HEAD: ' +
    'what the version\'s clients send in it arrives nowhere in HEAD\'s request, in every example holding it, and no converter took it out; ' +
    'first wrong after MoveCouponsToTheirOwnEndpoint (2001-01-01), no converter ran. ' +
    'Carry /coupon to HEAD in a request converter of MoveCouponsToTheirOwnEndpoint (or act on it there and delete it from the body); the version\'s clients send it.')
})

test('a converter that carries the coupon into a HEAD field (leaving it in place too) verifies cleanly', async (t) => {
  class Carried extends VersionChange {
    description = "An invoice's coupon moved to its own endpoint."
    instructionsToMigrateToPreviousVersion = moved()

    @ConvertRequestToNextVersionFor(InvoiceCreate)
    couponUp (request: RequestInfo) {
      if (typeof request.body.coupon === 'string') request.body.discounts = [...request.body.discounts ?? [], request.body.coupon]
    }
  }
  t.same(summary(await verify(await appWith(t, Carried, invoiceRoutes), { examples: 20 })), [])
})

test('a converter that renames the coupon into HEAD\'s field verifies cleanly', async (t) => {
  class Renamed extends VersionChange {
    description = "An invoice's coupon became its promotion code."
    instructionsToMigrateToPreviousVersion = [...moved(), schema(InvoiceCreate).field('promotionCode').didntExist]

    @ConvertRequestToNextVersionFor(InvoiceCreate)
    couponUp (request: RequestInfo) {
      if (Object.hasOwn(request.body, 'coupon')) request.body.promotionCode = request.body.coupon
      delete request.body.coupon
    }
  }
  t.same(summary(await verify(await appWith(t, Renamed, invoiceRoutes), { examples: 20 })), [])
})

test('a converter that acts on the coupon and deletes it verifies cleanly; one that acts and leaves it is found, naming it', async (t) => {
  class ActsAndDeletes extends VersionChange {
    description = "An invoice's coupon moved to its own endpoint."
    instructionsToMigrateToPreviousVersion = [...moved(), schema(InvoiceCreate).field('discountId').didntExist]

    @ConvertRequestToNextVersionFor(InvoiceCreate)
    couponUp (request: RequestInfo) {
      if (typeof request.body.coupon === 'string') request.body.discountId = request.body.coupon.length
      delete request.body.coupon
    }
  }
  class ActsOnIt extends VersionChange {
    description = "An invoice's coupon moved to its own endpoint."
    instructionsToMigrateToPreviousVersion = [...moved(), schema(InvoiceCreate).field('discountId').didntExist]

    @ConvertRequestToNextVersionFor(InvoiceCreate)
    couponUp (request: RequestInfo) {
      if (typeof request.body.coupon === 'string') request.body.discountId = request.body.coupon.length
    }
  }
  t.same(summary(await verify(await appWith(t, ActsAndDeletes, invoiceRoutes), { examples: 20 })), [])
  t.same(summary(await verify(await appWith(t, ActsOnIt, invoiceRoutes), { examples: 20 })), [
    'POST /invoices 2000-01-01 request lost body/coupon after ActsOnIt (2001-01-01) by ActsOnIt.couponUp'
  ])
})

test('a coupon and a number inside a list of objects are found at their places', async (t) => {
  const Order = Type.Object({ lines: Type.Array(Type.Object({ sku: Type.String() })) }, { $id: 'Order' })
  const Line = Order.properties.lines.items
  class Older extends VersionChange {
    description = 'Lines lost their coupon and their discount.'
    instructionsToMigrateToPreviousVersion = [
      schema(Line).formerField('coupon').existedAs({ type: Type.String(), optional: true }),
      schema(Line).formerField('percentOff').existedAs({ type: Type.Integer(), optional: true })
    ]
  }
  const findings = await verify(await appWith(t, Older, (api) => {
    api.post('/orders', { schema: { body: Order, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => { throw new Error('not served in verify') })
  }), { examples: 20 })
  t.same(summary(findings).sort(), [
    'POST /orders 2000-01-01 request lost body/lines/*/coupon after Older (2001-01-01) by ',
    'POST /orders 2000-01-01 request lost body/lines/*/percentOff after Older (2001-01-01) by '
  ])
  t.match(findings.find((finding) => finding.pointer === '/lines/*/percentOff')?.text, /HEAD's request is the same whatever the version's clients send in it/)
})

test('a converter that moves the coupon to a field HEAD does not declare is found: HEAD\'s handler never reads it', async (t) => {
  class Misspelt extends VersionChange {
    description = "An invoice's coupon moved to its own endpoint."
    instructionsToMigrateToPreviousVersion = moved()

    @ConvertRequestToNextVersionFor(InvoiceCreate)
    couponUp (request: RequestInfo) {
      if (Object.hasOwn(request.body, 'coupon')) request.body.coupon_code = request.body.coupon
      delete request.body.coupon
    }
  }
  t.same(summary(await verify(await appWith(t, Misspelt, invoiceRoutes), { examples: 20 })), [
    'POST /invoices 2000-01-01 request lost body/coupon after Misspelt (2001-01-01) by Misspelt.couponUp'
  ])
})

// Decision 0227: the rule reaches the query string and headers, and numbers, flags and enum members, judged by a
// second replay with the value changed: carried when HEAD's request (what its schemas declare) changes with it.
const InvoiceQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })), paid: Type.Optional(Type.Boolean()) }, { $id: 'InvoiceQuery' })

/** `GET /invoices` filtered by its query string. */
function listRoutes (api: FastifyInstance): void {
  api.get('/invoices', { schema: { querystring: InvoiceQuery, response: { 200: Type.Object({ count: Type.Integer() }) } } }, async () => { throw new Error('not served in verify') })
}

/** The old status filter and archive flag, gone from HEAD's query string. */
const filters = (): VersionChange['instructionsToMigrateToPreviousVersion'] => [
  schema(InvoiceQuery).formerField('status').existedAs({ type: Type.Union([Type.Literal('paid'), Type.Literal('open')]), optional: true }),
  schema(InvoiceQuery).formerField('include_archived').existedAs({ type: Type.Boolean(), optional: true })
]

test('a query filter and flag an old version declares that no converter maps are found: every old client gets every invoice', async (t) => {
  class FiltersForgotten extends VersionChange {
    description = 'Invoices are filtered by `paid`.'
    instructionsToMigrateToPreviousVersion = filters()
  }
  t.same(summary(await verify(await appWith(t, FiltersForgotten, listRoutes), { examples: 20 })).sort(), [
    'GET /invoices 2000-01-01 request lost querystring/include_archived after FiltersForgotten (2001-01-01) by ',
    'GET /invoices 2000-01-01 request lost querystring/status after FiltersForgotten (2001-01-01) by '
  ])
})

test('a query filter a converter maps onto HEAD\'s (leaving it in place), and a flag it deletes, verify cleanly', async (t) => {
  class FiltersMapped extends VersionChange {
    description = 'Invoices are filtered by `paid`.'
    instructionsToMigrateToPreviousVersion = filters()

    @ConvertRequestToNextVersionFor('/invoices', ['GET'])
    filtersUp (request: RequestInfo) {
      if (request.queryParams.status !== undefined) request.queryParams.paid = request.queryParams.status === 'paid'
      delete request.queryParams.include_archived
    }
  }
  t.same(summary(await verify(await appWith(t, FiltersMapped, listRoutes), { examples: 20 })), [])
})

test('a converter whose HEAD request changes on every replay (a fresh id) does not hide a dropped flag', async (t) => {
  let made = 0
  class Stamped extends VersionChange {
    description = 'Invoices are filtered by `paid`.'
    instructionsToMigrateToPreviousVersion = [filters()[1]]

    @ConvertRequestToNextVersionFor('/invoices', ['GET'])
    stampUp (request: RequestInfo) {
      request.queryParams.limit = 1 + (made++ % 100)
    }
  }
  t.same(summary(await verify(await appWith(t, Stamped, listRoutes), { examples: 20 })), [
    'GET /invoices 2000-01-01 request lost querystring/include_archived after Stamped (2001-01-01) by Stamped.stampUp'
  ])
})

test('a number body field no converter carries is found; one converted into HEAD\'s units is not', async (t) => {
  const DiscountCreate = Type.Object({ basisPoints: Type.Optional(Type.Integer()) }, { $id: 'DiscountCreate' })
  const discountRoutes = (api: FastifyInstance): void => {
    api.post('/discounts', { schema: { body: DiscountCreate, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => { throw new Error('not served in verify') })
  }
  const percent = (): VersionChange['instructionsToMigrateToPreviousVersion'] => [
    schema(DiscountCreate).formerField('percentOff').existedAs({ type: Type.Number({ minimum: 0, maximum: 100 }), optional: true })
  ]
  class PercentDropped extends VersionChange {
    description = 'Discounts are given in basis points.'
    instructionsToMigrateToPreviousVersion = percent()
  }
  class PercentConverted extends VersionChange {
    description = 'Discounts are given in basis points.'
    instructionsToMigrateToPreviousVersion = percent()

    @ConvertRequestToNextVersionFor(DiscountCreate)
    percentUp (request: RequestInfo) {
      if (typeof request.body.percentOff === 'number') request.body.basisPoints = Math.round(request.body.percentOff * 100)
    }
  }
  t.same(summary(await verify(await appWith(t, PercentDropped, discountRoutes), { examples: 20 })), [
    'POST /discounts 2000-01-01 request lost body/percentOff after PercentDropped (2001-01-01) by '
  ])
  t.same(summary(await verify(await appWith(t, PercentConverted, discountRoutes), { examples: 20 })), [])
})

test('a header an old version declares that no converter carries is found; one moved into the body is not', async (t) => {
  const ChargeHeaders = Type.Object({ 'x-request-id': Type.Optional(Type.String()) }, { $id: 'ChargeHeaders' })
  const ChargeCreate = Type.Object({ amount: Type.Integer(), idempotencyKey: Type.Optional(Type.String()) }, { $id: 'ChargeCreate' })
  const chargeRoutes = (api: FastifyInstance): void => {
    api.post('/charges', { schema: { headers: ChargeHeaders, body: ChargeCreate, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => { throw new Error('not served in verify') })
  }
  const moved = (): VersionChange['instructionsToMigrateToPreviousVersion'] => [
    schema(ChargeHeaders).formerField('Idempotency-Key').existedAs({ type: Type.String(), optional: true }),
    schema(ChargeCreate).field('idempotencyKey').didntExist
  ]
  class KeyDropped extends VersionChange {
    description = 'The idempotency key moved into the body.'
    instructionsToMigrateToPreviousVersion = moved()
  }
  class KeyMoved extends VersionChange {
    description = 'The idempotency key moved into the body.'
    instructionsToMigrateToPreviousVersion = moved()

    @ConvertRequestToNextVersionFor(ChargeCreate)
    keyUp (request: RequestInfo) {
      const key = request.headers['idempotency-key']
      if (typeof key === 'string') request.body.idempotencyKey = key
    }
  }
  t.same(summary(await verify(await appWith(t, KeyDropped, chargeRoutes), { examples: 20 })), [
    'POST /charges 2000-01-01 request lost headers/idempotency-key after KeyDropped (2001-01-01) by '
  ])
  t.same(summary(await verify(await appWith(t, KeyMoved, chargeRoutes), { examples: 20 })), [])
})

test('a body field a converter moves into a header HEAD reads without declaring it verifies cleanly', async (t) => {
  class CouponToHeader extends VersionChange {
    description = "An invoice's coupon moved to a header."
    instructionsToMigrateToPreviousVersion = moved()

    @ConvertRequestToNextVersionFor(InvoiceCreate)
    couponUp (request: RequestInfo) {
      if (typeof request.body.coupon === 'string') request.headers['x-coupon'] = request.body.coupon
    }
  }
  t.same(summary(await verify(await appWith(t, CouponToHeader, invoiceRoutes), { examples: 20 })), [])
})

test('the other value a changed replay sends is one the field takes, whichever member or bound the example holds', async (t) => {
  const none = (): undefined => undefined
  const status = Type.Union([Type.Literal('paid'), Type.Literal('open')])
  t.equal(otherValue(status, 'paid', none), 'open')
  t.equal(otherValue(status, 'open', none), 'paid')
  t.equal(otherValue(Type.Integer({ minimum: 1, maximum: 100 }), 1, none), 2)
  t.equal(otherValue(Type.Integer({ minimum: 1, maximum: 100 }), 100, none), 99)
  t.equal(otherValue(Type.Boolean(), false, none), true)
  t.equal(otherValue(Type.Literal('only'), 'only', none), undefined)
  t.equal(otherValue(Type.Array(Type.Integer()), [1], none), undefined)
})

test('regression: a number field a converter deletes is taken out in the versions before a rename of it too, in a body and in its list items', async (t) => {
  // 2002-01-01 removed a line's code (the converter deletes it); in 2001-01-01 the code had been the line's count. The
  // deletion was looked for under the version's name (count) in the body as the removal found it (code): a 2000-01-01
  // client's count was "taken out by no converter", a finding on a correct app (none for 2001-01-01).
  const Line = Type.Object({ sku: Type.String() }, { $id: 'Line' })
  const Order = Type.Object({ sku: Type.String(), lines: Type.Array(Line) }, { $id: 'Order' })
  class CodeRemoved extends VersionChange {
    description = 'Orders and their lines no longer have a code.'
    instructionsToMigrateToPreviousVersion = [Order, Line].map((target) => schema(target).formerField('code').existedAs({ type: Type.Integer() }))
    @ConvertRequestToNextVersionFor(Line, Order) up (request: RequestInfo) { delete request.body.code }
  }
  class CodeWasCount extends VersionChange {
    description = 'The code of orders and their lines was their count.'
    instructionsToMigrateToPreviousVersion = [Order, Line].map((target) => schema(target).formerField('code').had({ name: 'count' }))
    @ConvertRequestToNextVersionFor(Line, Order) up (request: RequestInfo) { request.body.code = request.body.count; delete request.body.count }
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2002-01-01', CodeRemoved), new Version('2001-01-01', CodeWasCount), new Version('2000-01-01')), async (api) => {
    api.post('/orders', { schema: { body: Order, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => { throw new Error('not served in verify') })
  })
  await app.ready()
  t.same(summary(await verify(app, { examples: 20 })), [])
})

test('regression: a number field a converter deletes is taken out when another change of its version gives its name to another field', async (t) => {
  // In 2001-01-01 an account's name was its fullName, and its name a number; that version dropped the number and
  // renamed fullName to name, in two changes. The number's converter deletes it, but the field was looked for under
  // its name after the whole version, where the renamed fullName stands: "taken out by no converter".
  const AccountCreate = Type.Object({ name: Type.String() }, { $id: 'AccountCreate' })
  class NameWasFullName extends VersionChange {
    description = "An account's name was its fullName."
    instructionsToMigrateToPreviousVersion = [schema(AccountCreate).field('name').had({ name: 'fullName' })]
    @ConvertRequestToNextVersionFor(AccountCreate) up (request: RequestInfo) { request.body.name = request.body.fullName; delete request.body.fullName }
  }
  class NumberRemoved extends VersionChange {
    description = "An account's number (its name) is gone."
    instructionsToMigrateToPreviousVersion = [schema(AccountCreate).formerField('name').existedAs({ type: Type.Integer() })]
    @ConvertRequestToNextVersionFor(AccountCreate) up (request: RequestInfo) { delete request.body.name }
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', NameWasFullName, NumberRemoved), new Version('2000-01-01')), async (api) => {
    api.post('/accounts', { schema: { body: AccountCreate, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => { throw new Error('not served in verify') })
  })
  await app.ready()
  t.same(summary(await verify(app, { examples: 20 })), [])
})

test('a former query filter of an enum an instruction renames a member of is judged by the members the version has', async (t) => {
  // HEAD's first other member (`open`) was `opened` in the version: a changed replay sending `open` was refused by the
  // version's own schema, so no example judged the filter, and one no converter maps went unreported.
  const Status = Type.Union([Type.Literal('open'), Type.Literal('paid')])
  const Query = Type.Object({ state: Type.Optional(Status) }, { $id: 'StateQuery' })
  const findings = async (carried: boolean): Promise<string[]> => {
    class StatusBecameState extends VersionChange {
      description = 'Invoices are filtered by `state`; an open invoice was `opened`.'
      instructionsToMigrateToPreviousVersion = [enumeration(Status).had({ open: 'opened' }), schema(Query).formerField('status').existedAs({ type: Status, optional: true })]

      @ConvertRequestToNextVersionFor('/invoices', ['GET'])
      openedUp (request: RequestInfo) {
        const query = request.queryParams as Record<string, string | undefined>
        if (carried && query.status !== undefined) {
          query.state = query.status
          delete query.status
        }
        if (query.state === 'opened') query.state = 'open'
      }
    }
    const app = await appWith(t, StatusBecameState, (api) => {
      api.get('/invoices', { schema: { querystring: Query, response: { 200: Type.Object({ count: Type.Integer() }) } } }, async () => { throw new Error('not served in verify') })
    })
    return summary(await verify(app, { examples: 20 }))
  }
  t.same(await findings(true), [], 'carried to state')
  t.same(await findings(false), [
    'GET /invoices 2000-01-01 request lost querystring/status after StatusBecameState (2001-01-01) by StatusBecameState.openedUp'
  ], 'dropped')
})
