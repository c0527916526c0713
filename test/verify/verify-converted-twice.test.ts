// `verify` on one place converted twice by two converters of one version change (decision 0223): a converter of a
// schema already runs wherever the schema is embedded, so a second converter of the same change (a webhook's, a list
// route's) converting the embedded field again gives old clients a value converted twice (0.1999 for 19.99), which is
// still a valid number and has no round trip to show it. Each app with the conversion done once verifies cleanly.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, enumeration, HeadVersion, schema, Version, VersionBundle,
  VersionChange, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { verify } from '../../tools'
import { versionedApp } from '../helpers/apps'
import { appWith, summary } from '../helpers/verify-apps'

const Invoice = Type.Object({ id: Type.String(), total: Type.Integer({ minimum: 0 }) }, { $id: 'Invoice' })
const InvoicePaidEvent = Type.Object({ id: Type.String(), data: Type.Object({ object: Invoice }) }, { $id: 'InvoicePaidEvent' })
const InvoiceList = Type.Object({ data: Type.Array(Invoice), hasMore: Type.Boolean() }, { $id: 'InvoiceList' })
const TOTAL_WAS_DECIMAL = schema(Invoice).field('total').had({ type: Type.Number({ minimum: 0 }) })

/** The invoice routes: one invoice, and a list of them. */
function invoiceRoutes (api: FastifyInstance): void {
  api.get('/invoices/:id', { schema: { response: { 200: Invoice } } }, async () => ({ id: 'in1', total: 1999 }))
  api.get('/invoices', { schema: { response: { 200: InvoiceList } } }, async () => ({ data: [{ id: 'in1', total: 1999 }], hasMore: false }))
}

/** A ready app with `change` between 2000-01-01 and 2001-01-01, the invoice routes, and the `invoice.paid` webhook. */
async function billing (t: Parameters<typeof versionedApp>[0], change: VersionChangeClass, more: VersionChangeClass[] = []): Promise<FastifyInstance> {
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', change, ...more), new Version('2000-01-01')), async (api) => {
    invoiceRoutes(api as unknown as FastifyInstance)
  }, { beforeRoutes: (instance) => { instance.versioner.webhooks.add({ name: 'invoice.paid', body: InvoicePaidEvent }) } })
  await app.ready()
  return app
}

class TotalInCents extends VersionChange {
  description = 'Totals are integer cents.'
  instructionsToMigrateToPreviousVersion = [TOTAL_WAS_DECIMAL]

  @ConvertResponseToPreviousVersionFor(Invoice)
  totalFromCents (response: ResponseInfo) {
    response.body.total = response.body.total / 100
  }
}

test("a webhook's converter dividing its embedded invoice's total again is found, naming both converters in order, the values and the fix", async (t) => {
  class TotalInCentsAndTheEvent extends VersionChange {
    description = 'Totals are integer cents.'
    instructionsToMigrateToPreviousVersion = [TOTAL_WAS_DECIMAL]

    @ConvertResponseToPreviousVersionFor(Invoice)
    totalFromCents (response: ResponseInfo) {
      response.body.total = response.body.total / 100
    }

    // "The webhook is no route": its invoice's total converted here too.
    @ConvertResponseToPreviousVersionFor(InvoicePaidEvent)
    eventTotalFromCents (response: ResponseInfo) {
      response.body.data.object.total = response.body.data.object.total / 100
    }
  }
  const app = await billing(t, TotalInCentsAndTheEvent)
  const findings = await verify(app, { examples: 20, seed: 3 })
  t.same(summary(findings), [
    'webhook invoice.paid 2000-01-01 response converted twice payload/data/object/total after TotalInCentsAndTheEvent (2001-01-01) by TotalInCentsAndTheEvent.totalFromCents,TotalInCentsAndTheEvent.eventTotalFromCents'
  ])
  const [finding] = findings
  const total = finding.value as number
  t.type(total, 'number', 'the value is the HEAD total')
  t.match(finding.message, `TotalInCentsAndTheEvent.totalFromCents changed ${total} to ${total / 100}, then TotalInCentsAndTheEvent.eventTotalFromCents changed ${total / 100} to ${total / 100 / 100}`)
  t.match(finding.fix, 'A converter on Invoice already runs on every Invoice the body embeds; remove the second conversion, or if both are meant, merge them into one converter')
  t.match(finding.text, /^webhook invoice\.paid \(2000-01-01\): payload\/data\/object\/total: converted twice/)
  t.equal(JSON.stringify(await verify(app, { examples: 20, seed: 3 })), JSON.stringify(findings), 'the same seed, the same finding')
})

test('the webhook and the list with the invoice converted once (by its schema converter) verify cleanly', async (t) => {
  const app = await billing(t, TotalInCents)
  t.same(summary(await verify(app, { examples: 20 })), [])
})

test("a list route's by-path converter converting its items' totals again (new objects) is found", async (t) => {
  class TotalInCentsAndTheList extends VersionChange {
    description = 'Totals are integer cents.'
    instructionsToMigrateToPreviousVersion = [TOTAL_WAS_DECIMAL]

    @ConvertResponseToPreviousVersionFor(Invoice)
    totalFromCents (response: ResponseInfo) {
      response.body.total = response.body.total / 100
    }

    @ConvertResponseToPreviousVersionFor('/invoices', ['GET'])
    listTotalsFromCents (response: ResponseInfo) {
      response.body.data = response.body.data.map((invoice: { total: number }) => ({ ...invoice, total: invoice.total / 100 }))
    }
  }
  const app = await billing(t, TotalInCentsAndTheList)
  t.same(summary(await verify(app, { examples: 20 })), [
    'GET /invoices 2000-01-01 response converted twice response 200/data/*/total after TotalInCentsAndTheList (2001-01-01) by TotalInCentsAndTheList.totalFromCents,TotalInCentsAndTheList.listTotalsFromCents'
  ])
})

test("a list route's converter that reorders the items its schema converter converted is no double conversion", async (t) => {
  const Status = Type.Union([Type.Literal('open'), Type.Literal('paid'), Type.Literal('refunded')])
  const Ticket = Type.Object({ id: Type.String(), status: Status }, { $id: 'Ticket' })
  class Refunds extends VersionChange {
    description = 'Tickets can be refunded; lists were newest first.'
    instructionsToMigrateToPreviousVersion = [enumeration(Status).didntHave('refunded')]

    @ConvertResponseToPreviousVersionFor(Ticket)
    refundedWasPaid (response: ResponseInfo) {
      if (response.body.status === 'refunded') response.body.status = 'paid'
    }

    @ConvertResponseToPreviousVersionFor('/tickets', ['GET'])
    newestFirst (response: ResponseInfo) {
      response.body.reverse()
    }
  }
  const app = await appWith(t, Refunds, (api) => {
    api.get('/tickets', { schema: { response: { 200: Type.Array(Ticket) } } }, async () => [])
  })
  t.same(summary(await verify(app, { examples: 40 })), [])
})

test('two converters of different version changes of one version converting one place are a chain, not a finding', async (t) => {
  class TotalInCentsForTheEvent extends VersionChange {
    description = 'Event totals are cents.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor(InvoicePaidEvent)
    eventTotalFromCents (response: ResponseInfo) {
      response.body.data.object.total = response.body.data.object.total / 100
    }
  }
  const app = await billing(t, TotalInCents, [TotalInCentsForTheEvent])
  t.same(summary(await verify(app, { examples: 20 })).filter((line) => line.includes('converted twice')), [])
})

test("a route's request converter converting its embedded lines' amounts again is found, in the request direction", async (t) => {
  const Line = Type.Object({ unitAmount: Type.Integer({ minimum: 0 }) }, { $id: 'Line' })
  const InvoiceCreate = Type.Object({ lines: Type.Array(Line, { minItems: 1 }) }, { $id: 'InvoiceCreate' })
  const created = Type.Object({ id: Type.String() })
  const changeOf = (twice: boolean) => {
    class UnitAmountsInCents extends VersionChange {
      description = 'Unit amounts are integer cents.'
      instructionsToMigrateToPreviousVersion = [schema(Line).field('unitAmount').had({ type: Type.Number({ minimum: 0, multipleOf: 0.01 }) })]

      @ConvertRequestToNextVersionFor(Line)
      unitAmountToCents (request: RequestInfo) {
        request.body.unitAmount = Math.round(request.body.unitAmount * 100)
      }

      @ConvertRequestToNextVersionFor('/invoices', ['POST'])
      linesToCents (request: RequestInfo) {
        if (twice) for (const line of request.body.lines) line.unitAmount = Math.round(line.unitAmount * 100)
      }
    }
    return UnitAmountsInCents
  }
  const routes = (api: FastifyInstance): void => {
    api.post('/invoices', { schema: { body: InvoiceCreate, response: { 201: created } } }, async () => ({ id: 'in1' }))
  }
  const found = summary(await verify(await appWith(t, changeOf(true), routes), { examples: 20 }))
  t.same(found.filter((line) => line.includes('converted twice')), [
    'POST /invoices 2000-01-01 request converted twice body/lines/*/unitAmount after UnitAmountsInCents (2001-01-01) by UnitAmountsInCents.unitAmountToCents,UnitAmountsInCents.linesToCents'
  ])
  t.same(summary(await verify(await appWith(t, changeOf(false), routes), { examples: 20 })), [])
})

test('a value renamed and converted by the schema converter, then converted again by an async webhook converter, is found', async (t) => {
  const Payment = Type.Object({ id: Type.String(), amountCents: Type.Integer({ minimum: 0 }) }, { $id: 'Payment' })
  const PaymentEvent = Type.Object({ id: Type.String(), data: Type.Object({ object: Payment }) }, { $id: 'PaymentEvent' })
  class AmountInCents extends VersionChange {
    description = 'amount became amountCents.'
    instructionsToMigrateToPreviousVersion = [schema(Payment).field('amountCents').had({ name: 'amount', type: Type.Number({ minimum: 0 }) })]

    @ConvertResponseToPreviousVersionFor(Payment)
    amountFromCents (response: ResponseInfo) {
      response.body.amount = response.body.amountCents / 100
      delete response.body.amountCents
    }

    @ConvertResponseToPreviousVersionFor(PaymentEvent)
    async eventAmountFromCents (response: ResponseInfo) {
      await Promise.resolve()
      response.body.data.object.amount = response.body.data.object.amount / 100
    }
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', AmountInCents), new Version('2000-01-01')), async (api) => {
    api.get('/payments/:id', { schema: { response: { 200: Payment } } }, async () => ({ id: 'p1', amountCents: 1999 }))
  }, { beforeRoutes: (instance) => { instance.versioner.webhooks.add({ name: 'payment.made', body: PaymentEvent }) } })
  await app.ready()
  const findings = await verify(app, { examples: 20 })
  t.same(summary(findings), [
    'webhook payment.made 2000-01-01 response converted twice payload/data/object/amount after AmountInCents (2001-01-01) by AmountInCents.amountFromCents,AmountInCents.eventAmountFromCents'
  ])
  t.match(findings[0].message, /AmountInCents\.amountFromCents wrote [\d.]+, then AmountInCents\.eventAmountFromCents changed/)
})
