// `verify` on a field an old version declares that HEAD has no counterpart for (`formerField(...).existedAs`) and
// that no response converter writes (decision 0224): optional, its absence is valid in every example, and yet the
// version's clients always had it. A field absent at its place in every example of a route (or webhook), version and
// status is a finding; written in one example, it is not.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { verify } from '../../tools'
import { versionedApp, type Teardown } from '../helpers/apps'
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

test('an optional field existedAs declares that no converter writes is found, per route and place, naming the field, version and change', async (t) => {
  const findings = await verify(await appWith(t, MovePaymentsToTheirOwnEndpoint, invoiceRoutes), { examples: 20 })
  t.same(summary(findings), [
    'GET /invoices/:id 2000-01-01 response lost response 200/paymentMethod after MovePaymentsToTheirOwnEndpoint (2001-01-01) by ',
    'GET /invoices 2000-01-01 response lost response 200/data/*/paymentMethod after MovePaymentsToTheirOwnEndpoint (2001-01-01) by '
  ])
  t.equal(findings[0].text, 'GET /invoices/:id (2000-01-01): response 200/paymentMethod: declared by existedAs in this version, with no counterpart in HEAD, ' +
    'and absent from every example migrated down from HEAD: its clients always had it, and only a response converter can write it; ' +
    'first wrong after MovePaymentsToTheirOwnEndpoint (2001-01-01), no converter ran. ' +
    'Write /paymentMethod in a response converter of MovePaymentsToTheirOwnEndpoint; the version\'s clients had it.')
})

test('the same change with a converter that writes the field, for paid invoices only, verifies cleanly', async (t) => {
  class WithItsConverter extends VersionChange {
    description = "An invoice's payment method moved to its own endpoint."
    instructionsToMigrateToPreviousVersion = moved()

    @ConvertResponseToPreviousVersionFor(Invoice)
    paymentBack (response: ResponseInfo) {
      if (response.body.status === 'paid') response.body.paymentMethod = 'card'
    }
  }
  const findings = await verify(await appWith(t, WithItsConverter, invoiceRoutes), { examples: 20 })
  t.same(summary(findings), [])
})

test('a field written by a by-path converter of one route is still found where the other route embeds the schema', async (t) => {
  class OneRouteOnly extends VersionChange {
    description = "An invoice's payment method moved to its own endpoint."
    instructionsToMigrateToPreviousVersion = moved()

    @ConvertResponseToPreviousVersionFor('/invoices/:id', ['GET'])
    paymentBack (response: ResponseInfo) {
      response.body.paymentMethod = 'card'
    }
  }
  const findings = await verify(await appWith(t, OneRouteOnly, invoiceRoutes), { examples: 20 })
  t.same(summary(findings), ['GET /invoices 2000-01-01 response lost response 200/data/*/paymentMethod after OneRouteOnly (2001-01-01) by '])
})

test('a converter that runs and writes the field under another name is named in the finding', async (t) => {
  class Misspelt extends VersionChange {
    description = "An invoice's payment method moved to its own endpoint."
    instructionsToMigrateToPreviousVersion = moved()

    @ConvertResponseToPreviousVersionFor(Invoice)
    paymentBack (response: ResponseInfo) {
      response.body.payment_method = 'card'
    }
  }
  const findings = await verify(await appWith(t, Misspelt, invoiceRoutes), { examples: 20 })
  t.same(summary(findings), [
    'GET /invoices/:id 2000-01-01 response lost response 200/paymentMethod after Misspelt (2001-01-01) by Misspelt.paymentBack',
    'GET /invoices 2000-01-01 response lost response 200/data/*/paymentMethod after Misspelt (2001-01-01) by Misspelt.paymentBack'
  ])
})

test('the entries of a map are one place: a field a converter writes in one paid entry is written, one it never writes is found once', async (t) => {
  const byId = (api: FastifyInstance): void => {
    api.get('/invoices-by-id', { schema: { response: { 200: Type.Record(Type.String(), Invoice) } } }, async () => { throw new Error('not served in verify') })
  }
  class PaidOnly extends VersionChange {
    description = "An invoice's payment method moved to its own endpoint."
    instructionsToMigrateToPreviousVersion = moved()

    @ConvertResponseToPreviousVersionFor(Invoice)
    paymentBack (response: ResponseInfo) {
      if (response.body.status === 'paid') response.body.paymentMethod = 'card'
    }
  }
  t.same(summary(await verify(await appWith(t, PaidOnly, byId), { examples: 20 })), [])
  t.same(summary(await verify(await appWith(t, MovePaymentsToTheirOwnEndpoint, byId), { examples: 20 })), [
    'GET /invoices-by-id 2000-01-01 response lost response 200/*/paymentMethod after MovePaymentsToTheirOwnEndpoint (2001-01-01) by '
  ])
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

/** The app of `changes` (newest first, one version each over 2000-01-01) sending the webhook `invoice.paid`. */
async function webhookApp (t: Teardown, ...changes: VersionChangeClass[]): Promise<FastifyInstance> {
  const dates = ['2003-01-01', '2002-01-01', '2001-01-01']
  const versions = changes.map((change, index) => new Version(dates[dates.length - changes.length + index], change))
  const Event = Type.Object({ type: Type.Literal('invoice.paid'), data: Type.Object({ object: Invoice }) }, { $id: 'InvoicePaidEvent' })
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), ...versions, new Version('2000-01-01')), undefined, {
    beforeRoutes: (instance) => { instance.versioner.webhooks.add({ name: 'invoice.paid', body: Event }) }
  })
  await app.ready()
  return app
}

test('a webhook whose event embeds the schema is found, at the field inside the event, in every version that lacks it', async (t) => {
  class Older extends VersionChange {
    description = 'A total described otherwise.'
    instructionsToMigrateToPreviousVersion = [schema(Invoice).field('total').had({ description: 'In cents.' })]
  }
  const findings = await verify(await webhookApp(t, MovePaymentsToTheirOwnEndpoint, Older), { examples: 20 })
  t.same(findings.map(({ route, versions, kind, part, pointer, versionChanges, changeVersion }) => ({ route, versions, kind, part, pointer, versionChanges, changeVersion })), [
    { route: 'webhook invoice.paid', versions: ['2001-01-01', '2000-01-01'], kind: 'lost', part: 'payload', pointer: '/data/object/paymentMethod', versionChanges: ['MovePaymentsToTheirOwnEndpoint'], changeVersion: '2002-01-01' }
  ])
})
