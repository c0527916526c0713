// `verify` on a response field an old version declares that HEAD has no counterpart for (`formerField(...).existedAs`)
// and that no converter writes. Decision 0224 made it a finding; it was withdrawn (the same day): an optional field
// removed with no converter is the documented way to remove a field (docs/instructions.md), and verify cannot tell it
// from a forgotten converter. A required one is still found, as the body the version's schema refuses.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { ConvertResponseToPreviousVersionFor, schema, VersionChange, type ResponseInfo } from '../../plugin'
import { verify } from '../../tools'
import { appWith, summary } from '../helpers/verify-apps'

const PaymentMethod = Type.Union([Type.Literal('card'), Type.Literal('transfer')])
const Invoice = Type.Object({
  id: Type.String(),
  status: Type.Union([Type.Literal('open'), Type.Literal('paid')]),
  total: Type.Integer({ minimum: 0 })
}, { $id: 'Invoice' })

/** `GET /invoices/:id` answering an invoice, and `GET /invoices` a page of them. */
function invoiceRoutes (api: FastifyInstance): void {
  api.get('/invoices/:id', { schema: { response: { 200: Invoice } } }, async () => { throw new Error('not served in verify') })
  api.get('/invoices', { schema: { response: { 200: Type.Object({ data: Type.Array(Invoice) }) } } }, async () => { throw new Error('not served in verify') })
}

/** The instructions of a payment method moved to its own resource: declared (optional) for older versions. */
const moved = (): VersionChange['instructionsToMigrateToPreviousVersion'] => [schema(Invoice).formerField('paymentMethod').existedAs({ type: PaymentMethod, optional: true })]

/** The payment method moved to its own resource, declared for older versions with no converter: they lose it. */
class MovePaymentsToTheirOwnEndpoint extends VersionChange {
  description = "An invoice's payment method moved to its own endpoint."
  instructionsToMigrateToPreviousVersion = moved()
}

test('an optional field removed for older versions (existedAs) with no converter is no finding: the documented removal', async (t) => {
  const findings = await verify(await appWith(t, MovePaymentsToTheirOwnEndpoint, invoiceRoutes), { examples: 20 })
  t.same(summary(findings), [])
})

test('a field the old version requires is found once, as the body its schema refuses', async (t) => {
  class Required extends VersionChange {
    description = "An invoice's payment method moved to its own endpoint."
    instructionsToMigrateToPreviousVersion = [schema(Invoice).formerField('paymentMethod').existedAs({ type: PaymentMethod })]
  }
  const findings = await verify(await appWith(t, Required, (api) => {
    api.get('/invoices/:id', { schema: { response: { 200: Invoice } } }, async () => { throw new Error('not served in verify') })
  }), { examples: 20 })
  t.same(summary(findings), ['GET /invoices/:id 2000-01-01 response invalid response 200/paymentMethod after Required (2001-01-01) by '])
})

test('a field HEAD has under another name (had({ name })) is followed as a value, not reported as never written', async (t) => {
  const Renamed = Type.Object({ id: Type.String(), method: Type.Optional(PaymentMethod) }, { $id: 'Renamed' })
  class Rename extends VersionChange {
    description = 'paymentMethod became method.'
    instructionsToMigrateToPreviousVersion = [schema(Renamed).field('method').had({ name: 'paymentMethod' })]

    @ConvertResponseToPreviousVersionFor(Renamed)
    back (response: ResponseInfo) {
      if (Object.hasOwn(response.body, 'method')) response.body.paymentMethod = response.body.method
      delete response.body.method
    }
  }
  const findings = await verify(await appWith(t, Rename, (api) => {
    api.get('/invoices/:id', { schema: { response: { 200: Renamed } } }, async () => { throw new Error('not served in verify') })
  }), { examples: 20 })
  t.same(summary(findings), [])
})
