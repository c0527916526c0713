// `verify` on one schema carried by several routes and webhooks (decision 0230): a team that turns the by-schema
// converter of `Invoice` into by-path converters on its invoice routes leaves the `invoice.paid` webhook, which has no
// path, sending old subscribers cents (1999 for 19.99): a valid number, with no round trip to show it. The same HEAD
// value of the schema, migrated down to a version through each carrier, must come out equal at the schema's place.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange, type ResponseInfo,
  type VersionChangeClass
} from '../../plugin'
import { verify } from '../../tools'
import { versionedApp } from '../helpers/apps'
import { summary } from '../helpers/verify-apps'

const Invoice = Type.Object({ id: Type.String(), total: Type.Integer({ minimum: 0 }) }, { $id: 'Invoice' })
const InvoicePaidEvent = Type.Object({ id: Type.String(), data: Type.Object({ object: Invoice }) }, { $id: 'InvoicePaidEvent' })
const InvoiceList = Type.Object({ data: Type.Array(Invoice), hasMore: Type.Boolean() }, { $id: 'InvoiceList' })
const TOTAL_WAS_DECIMAL = schema(Invoice).field('total').had({ type: Type.Number({ minimum: 0 }) })

/**
 * A ready app with `change` between 2000-01-01 and 2001-01-01, `GET /invoices/:id`, `POST /invoices` (with `list`,
 * also `GET /invoices`) and (with `webhook`) the `invoice.paid` webhook.
 */
async function billing (t: Parameters<typeof versionedApp>[0], change: VersionChangeClass, carriers: { webhook?: boolean, list?: boolean } = {}): Promise<FastifyInstance> {
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', change), new Version('2000-01-01')), async (api) => {
    api.get('/invoices/:id', { schema: { response: { 200: Invoice } } }, async () => ({ id: 'in1', total: 1999 }))
    api.post('/invoices', { schema: { response: { 200: Invoice } } }, async () => ({ id: 'in1', total: 1999 }))
    if (carriers.list === true) api.get('/invoices', { schema: { response: { 200: InvoiceList } } }, async () => ({ data: [], hasMore: false }))
  }, { beforeRoutes: (instance) => { if (carriers.webhook === true) instance.versioner.webhooks.add({ name: 'invoice.paid', body: InvoicePaidEvent }) } })
  await app.ready()
  return app
}

test('a webhook carrying the invoice that by-path converters of its routes convert is found, naming both carriers, the values and the fix', async (t) => {
  class TotalInCentsRouteByRoute extends VersionChange {
    description = 'Totals are integer cents.'
    instructionsToMigrateToPreviousVersion = [TOTAL_WAS_DECIMAL]

    @ConvertResponseToPreviousVersionFor('/invoices/:id', ['GET'])
    fetchedFromCents (response: ResponseInfo) {
      response.body.total = response.body.total / 100
    }

    @ConvertResponseToPreviousVersionFor('/invoices', ['POST'])
    createdFromCents (response: ResponseInfo) {
      response.body.total = response.body.total / 100
    }
  }
  const app = await billing(t, TotalInCentsRouteByRoute, { webhook: true })
  const findings = await verify(app, { examples: 20, seed: 3 })
  t.same(summary(findings), [
    'webhook invoice.paid 2000-01-01 response converted unalike payload/data/object/total after TotalInCentsRouteByRoute (2001-01-01) by TotalInCentsRouteByRoute.fetchedFromCents'
  ])
  const [finding] = findings
  const total = finding.value as number
  t.type(total, 'number', 'the value is what the webhook sends: the HEAD total')
  t.match(finding.message, `Invoice is converted unalike: through GET /invoices/:id (response 200) /total arrives as ${total / 100}, through webhook invoice.paid (payload) as ${total}`)
  t.match(finding.fix, 'Convert Invoice by schema (@ConvertResponseToPreviousVersionFor(Invoice)) so that every route and webhook carrying it is converted alike')
  t.match(finding.text, /^webhook invoice\.paid \(2000-01-01\): payload\/data\/object\/total: Invoice is converted unalike/)
  t.equal(JSON.stringify(await verify(app, { examples: 20, seed: 3 })), JSON.stringify(findings), 'the same seed, the same finding')
})

test('a route carrying the invoice left out of the by-path converters is found, against the routes converting it', async (t) => {
  class TotalInCentsForgettingTheList extends VersionChange {
    description = 'Totals are integer cents.'
    instructionsToMigrateToPreviousVersion = [TOTAL_WAS_DECIMAL]

    @ConvertResponseToPreviousVersionFor('/invoices/:id', ['GET'])
    fetchedFromCents (response: ResponseInfo) {
      response.body.total = response.body.total / 100
    }

    @ConvertResponseToPreviousVersionFor('/invoices', ['POST'])
    createdFromCents (response: ResponseInfo) {
      response.body.total = response.body.total / 100
    }
  }
  const app = await billing(t, TotalInCentsForgettingTheList, { list: true })
  t.same(summary(await verify(app, { examples: 20 })), [
    'GET /invoices 2000-01-01 response converted unalike response 200/data/*/total after TotalInCentsForgettingTheList (2001-01-01) by TotalInCentsForgettingTheList.fetchedFromCents'
  ])
})

test('the webhook, the list and the routes with the invoice converted by its schema verify cleanly', async (t) => {
  class TotalInCents extends VersionChange {
    description = 'Totals are integer cents.'
    instructionsToMigrateToPreviousVersion = [TOTAL_WAS_DECIMAL]

    @ConvertResponseToPreviousVersionFor(Invoice)
    totalFromCents (response: ResponseInfo) {
      response.body.total = response.body.total / 100
    }
  }
  const app = await billing(t, TotalInCents, { webhook: true, list: true })
  t.same(summary(await verify(app, { examples: 20 })), [])
})

test('two routes whose by-path converters agree verify cleanly', async (t) => {
  class TotalInCentsOnBothRoutes extends VersionChange {
    description = 'Totals are integer cents.'
    instructionsToMigrateToPreviousVersion = [TOTAL_WAS_DECIMAL]

    @ConvertResponseToPreviousVersionFor('/invoices/:id', ['GET'])
    fetchedFromCents (response: ResponseInfo) {
      response.body.total = response.body.total / 100
    }

    @ConvertResponseToPreviousVersionFor('/invoices', ['POST'])
    createdFromCents (response: ResponseInfo) {
      response.body = { ...response.body, total: response.body.total / 100 }
    }
  }
  const app = await billing(t, TotalInCentsOnBothRoutes)
  t.same(summary(await verify(app, { examples: 20 })), [])
})

test('a carrier whose replay stops in an older version is still compared in the newer ones, naming it', async (t) => {
  class TotalInCentsRouteByRoute extends VersionChange {
    description = 'Totals are integer cents.'
    instructionsToMigrateToPreviousVersion = [TOTAL_WAS_DECIMAL]

    @ConvertResponseToPreviousVersionFor('/invoices/:id', ['GET'])
    fetchedFromCents (response: ResponseInfo) {
      response.body.total = response.body.total / 100
    }

    @ConvertResponseToPreviousVersionFor('/invoices', ['POST'])
    createdFromCents (response: ResponseInfo) {
      response.body.total = response.body.total / 100
    }
  }
  class FetchedInvoiceFails extends VersionChange {
    description = 'A fetched invoice is read from the old ledger.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/invoices/:id', ['GET'])
    fromTheOldLedger (_response: ResponseInfo) {
      throw new Error('the old ledger is gone')
    }
  }
  const bundle = new VersionBundle(new HeadVersion(), new Version('2002-01-01', TotalInCentsRouteByRoute), new Version('2001-01-01', FetchedInvoiceFails), new Version('2000-01-01'))
  const app = await versionedApp(t, bundle, async (api) => {
    api.get('/invoices/:id', { schema: { response: { 200: Invoice } } }, async () => ({ id: 'in1', total: 1999 }))
    api.post('/invoices', { schema: { response: { 200: Invoice } } }, async () => ({ id: 'in1', total: 1999 }))
  }, { beforeRoutes: (instance) => { instance.versioner.webhooks.add({ name: 'invoice.paid', body: InvoicePaidEvent }) } })
  await app.ready()
  const findings = await verify(app, { examples: 20, seed: 3 })
  t.same(summary(findings), [
    'GET /invoices/:id 2000-01-01 response converter failed converter after FetchedInvoiceFails (2001-01-01) by FetchedInvoiceFails.fromTheOldLedger',
    'webhook invoice.paid 2001-01-01 response converted unalike payload/data/object/total after TotalInCentsRouteByRoute (2002-01-01) by TotalInCentsRouteByRoute.fetchedFromCents',
    'webhook invoice.paid 2000-01-01 response converted unalike payload/data/object/total after TotalInCentsRouteByRoute (2002-01-01) by TotalInCentsRouteByRoute.createdFromCents'
  ])
  const through = findings.filter((finding) => finding.kind === 'converted unalike').map((finding) => /^Invoice is converted unalike: through (.+?) \(response 200\)/.exec(finding.message)?.[1])
  t.same(through, ['GET /invoices/:id', 'POST /invoices'], 'the fetched invoice is compared in 2001-01-01, where its replay still runs')
})
