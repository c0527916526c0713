/**
 * The billing API: customers, invoices, payments and the `invoice.paid` webhook, written once against HEAD and served
 * in every version of ./versions.ts.
 */
import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { fastifyVersioner, versioned, type FastifyVersionerOptions, type WebhookDelivery, type WebhookSubscriber } from '../../plugin'
import {
  Customer, CustomerInput, CustomerParams, IdempotencyHeaders, Invoice, InvoiceCreate, InvoiceList, invoicePaidWebhook, InvoiceParams,
  InvoicePayment, InvoiceSearch, NotFound, type CustomerInputBody, type CustomerRecord, type InvoiceRecord
} from './schemas'
import { versions } from './versions'

/** A webhook subscriber: its id, URL, the version it was written against (`version`) and its `whsec_` secret. */
export interface Subscriber extends WebhookSubscriber { readonly url: string }

/** Options of the billing application. */
export interface BuildBillingAppOptions {
  fastify?: FastifyServerOptions
  versioner?: Partial<FastifyVersionerOptions>
  /** Who receives `invoice.paid` (default: nobody). */
  subscribers?: readonly Subscriber[]
  /** Sends one webhook (default: `fetch`): its body is in the subscriber's version, its headers signed for it. */
  deliver?: (delivery: WebhookDelivery<Subscriber>) => Promise<void>
  /** The clock of event times, in milliseconds (default `Date.now`). */
  now?: () => number
}

async function post ({ subscriber, body, headers }: WebhookDelivery<Subscriber>): Promise<void> {
  await fetch(subscriber.url, { method: 'POST', headers, body })
}

/** A made-up fraud score, 0 to 100: internal, never shown to clients. */
function riskScoreOf (email: string): number {
  return email.endsWith('.test') ? 90 : 10
}

/** The stored customer: the input's fields, one by one, as a database row holds them. */
function customerRecord (id: string, input: CustomerInputBody, riskScore: number): CustomerRecord {
  const { givenName, familyName, email, memo } = input
  return { id, givenName, familyName, email, memo, riskScore }
}

/** Builds the billing API (not listening). */
export async function buildBillingApp (options: BuildBillingAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify(options.fastify)
  const customers = new Map<string, CustomerRecord>()
  const invoices = new Map<string, InvoiceRecord>()
  const byIdempotencyKey = new Map<string, InvoiceRecord>()
  const deliver = options.deliver ?? post
  const now = options.now ?? Date.now
  // Requests without a version are served as the first one: clients written before versions existed send none.
  await app.register(fastifyVersioner, {
    versions,
    apiVersionDefaultValue: '2023-10-16',
    openapi: { info: { title: 'Billing API', description: 'Customers, invoices and payments.' } },
    ...options.versioner
  })
  app.versioner.webhooks.add(invoicePaidWebhook)

  await app.register(versioned(async (api) => {
    api.post('/customers', {
      schema: { summary: 'Create a customer', tags: ['customers'], body: CustomerInput, response: { 200: Customer } }
    }, async (request) => {
      const customer = customerRecord(randomUUID(), request.body, riskScoreOf(request.body.email))
      customers.set(customer.id, customer)
      return customer
    })

    api.get('/customers/:customerId', {
      schema: { summary: 'Get a customer', tags: ['customers'], params: CustomerParams, response: { 200: Customer, 404: NotFound } }
    }, async (request, reply) => {
      const customer = customers.get(request.params.customerId)
      return customer ?? reply.code(404).send({ message: 'No such customer' })
    })

    // A full replace: a field the body leaves out is cleared.
    api.put('/customers/:customerId', {
      schema: { summary: 'Replace a customer', tags: ['customers'], params: CustomerParams, body: CustomerInput, response: { 200: Customer, 404: NotFound } }
    }, async (request, reply) => {
      const existing = customers.get(request.params.customerId)
      if (existing === undefined) return reply.code(404).send({ message: 'No such customer' })
      const customer = customerRecord(existing.id, request.body, existing.riskScore)
      customers.set(customer.id, customer)
      return customer
    })

    api.post('/invoices', {
      schema: {
        summary: 'Create an invoice',
        tags: ['invoices'],
        headers: IdempotencyHeaders,
        body: InvoiceCreate,
        response: {
          200: {
            description: 'The invoice (the same one again for a repeated idempotency key)',
            headers: { 'request-id': { type: 'string', description: 'The id of this request, for support.' } },
            content: { 'application/json': { schema: Invoice } }
          },
          404: NotFound
        }
      }
    }, async (request, reply) => {
      reply.header('request-id', request.id)
      const key = request.headers['idempotency-key']
      const repeated = key === undefined ? undefined : byIdempotencyKey.get(key)
      if (repeated !== undefined) return repeated
      if (!customers.has(request.body.customerId)) return reply.code(404).send({ message: 'No such customer' })
      const { customerId, currency, lines } = request.body
      const total = lines.reduce((sum, line) => sum + line.unitAmount * line.quantity, 0)
      const invoice: InvoiceRecord = { id: randomUUID(), customerId, currency, status: 'open', lines, total }
      invoices.set(invoice.id, invoice)
      if (key !== undefined) byIdempotencyKey.set(key, invoice)
      return invoice
    })

    api.get('/invoices/:invoiceId', {
      schema: { summary: 'Get an invoice', tags: ['invoices'], params: InvoiceParams, response: { 200: Invoice, 404: NotFound } }
    }, async (request, reply) => {
      return invoices.get(request.params.invoiceId) ?? reply.code(404).send({ message: 'No such invoice' })
    })

    api.post('/invoices/:invoiceId/pay', {
      schema: { summary: 'Pay an invoice', tags: ['invoices'], params: InvoiceParams, body: InvoicePayment, response: { 200: Invoice, 404: NotFound } }
    }, async (request, reply) => {
      const open = invoices.get(request.params.invoiceId)
      if (open === undefined) return reply.code(404).send({ message: 'No such invoice' })
      const invoice: InvoiceRecord = { ...open, status: 'paid', paymentMethod: request.body.paymentMethod }
      invoices.set(invoice.id, invoice)
      // Each subscriber gets the event in the version it is pinned to, signed with its secret.
      const event = { id: `evt_${randomUUID()}`, type: 'invoice.paid' as const, created: Math.floor(now() / 1000), data: { object: invoice } }
      // A version whose converter fails is logged, its subscribers in `failed` (render them again once it is fixed).
      const { deliveries } = await app.versioner.webhooks.render('invoice.paid', event, { subscribers: options.subscribers ?? [], id: event.id })
      for (const delivery of deliveries) await deliver(delivery)
      return invoice
    })

    api.post('/invoices/:invoiceId/mark-uncollectible', {
      schema: { summary: 'Give up on an invoice', tags: ['invoices'], params: InvoiceParams, response: { 200: Invoice, 404: NotFound } }
    }, async (request, reply) => {
      const open = invoices.get(request.params.invoiceId)
      if (open === undefined) return reply.code(404).send({ message: 'No such invoice' })
      const invoice: InvoiceRecord = { ...open, status: 'uncollectible' }
      invoices.set(invoice.id, invoice)
      return invoice
    })

    // QUERY: a safe, repeatable search with a body.
    api.route({
      method: 'QUERY',
      url: '/invoices/search',
      schema: { summary: 'Search invoices', tags: ['invoices'], body: InvoiceSearch, response: { 200: InvoiceList } },
      handler: async (request) => {
        const { customerId, statuses, limit = 10 } = request.body
        const found = [...invoices.values()].filter((invoice) =>
          (customerId === undefined || invoice.customerId === customerId) && (statuses === undefined || statuses.includes(invoice.status)))
        return { data: found.slice(0, limit), hasMore: found.length > limit }
      }
    })
  }))

  return app
}

// The command-line tools load the app from its default export: `fastify-versioner check examples/billing/app.ts --against examples/billing/openapi`.
export default buildBillingApp
