// `verify` on a request field an old version declares that HEAD has no counterpart for (`formerField(...).existedAs`)
// and that no request converter carries to HEAD (decision 0225): every old client sends it, and HEAD never sees it.
// A field whose sentinel, in every example that holds one, arrives nowhere in the HEAD body and is still in it (no
// converter of the change that declared it took it out) is a finding; carried in one example, or deleted there by a
// converter that acted on it, it is not.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { ConvertRequestToNextVersionFor, schema, VersionChange, type RequestInfo } from '../../plugin'
import { verify } from '../../tools'
import { appWith, summary } from '../helpers/verify-apps'

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
    'what the version\'s clients send in it arrives nowhere in HEAD\'s body, in every example holding it, and no converter took it out; ' +
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

test('a coupon inside a list of objects is found at its place; a number field with no string is not judged', async (t) => {
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
  t.same(summary(findings), ['POST /orders 2000-01-01 request lost body/lines/*/coupon after Older (2001-01-01) by '])
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
