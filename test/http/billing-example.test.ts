/**
 * The billing example (`examples/billing`) serves each version in its own shapes, from one set of HEAD handlers:
 * names, memos, amounts in decimals or cents, payment methods, statuses, the idempotency key header, the QUERY
 * search, PUT, the `invoice.paid` webhook per subscriber, and requests that name no version.
 */
import { test, type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { buildBillingApp, type Subscriber } from '../../examples/billing/app'
import type { WebhookDelivery } from '../../plugin'

const NOW = Date.UTC(2025, 5, 1)

async function billing (t: Test, subscribers: Subscriber[] = [], delivered: Array<WebhookDelivery<Subscriber>> = []): Promise<FastifyInstance> {
  const app = await buildBillingApp({ subscribers, deliver: async (delivery) => { delivered.push(delivery) }, now: () => NOW })
  t.teardown(() => app.close())
  return app
}

/** Sends a request of `version` (none when undefined) and returns the status and the JSON body. */
async function send (app: FastifyInstance, version: string | undefined, request: { method?: string, url: string, payload?: object, headers?: Record<string, string> }) {
  const response = await app.inject({
    method: (request.method ?? 'GET') as 'GET',
    url: request.url,
    payload: request.payload,
    headers: { ...(version === undefined ? {} : { 'x-api-version': version }), ...request.headers }
  })
  return { status: response.statusCode, body: response.json(), headers: response.headers }
}

test('customers: one name before 2024-04-10, given and family names since; description became memo', async (t) => {
  const app = await billing(t)
  const created = await send(app, '2023-10-16', { method: 'POST', url: '/customers', payload: { name: 'Ada King Lovelace', email: 'ada@example.com', description: '' } })
  t.equal(created.status, 200)
  t.same(Object.keys(created.body).sort(), ['description', 'email', 'id', 'name'], 'no internal riskScore, no new field')
  t.match(created.body, { name: 'Ada King Lovelace', description: '' }, 'an empty description is kept, not dropped')
  const latest = await send(app, '2025-03-31', { url: `/customers/${created.body.id as string}` })
  t.same(latest.body, { id: created.body.id, givenName: 'Ada', familyName: 'King Lovelace', email: 'ada@example.com', memo: '' })
  const cher = await send(app, '2024-04-10', { method: 'POST', url: '/customers', payload: { givenName: 'Cher', email: 'cher@example.com' } })
  t.equal((await send(app, '2023-10-16', { url: `/customers/${cher.body.id as string}` })).body.name, 'Cher', 'a one-word name has no family name')
  const zoe = await send(app, '2023-10-16', { method: 'POST', url: '/customers', payload: { name: 'Zoë Brontë', email: 'zoe@example.com' } })
  t.equal(zoe.body.name, 'Zoë Brontë', 'names outside ASCII come back as sent')
})

test('PUT replaces a customer since 2024-04-10, and did not exist before', async (t) => {
  const app = await billing(t)
  const { body } = await send(app, '2024-04-10', { method: 'POST', url: '/customers', payload: { givenName: 'Ada', email: 'ada@example.com', memo: 'Pays late' } })
  const replaced = await send(app, '2024-04-10', { method: 'PUT', url: `/customers/${body.id as string}`, payload: { givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.com' } })
  t.same(replaced.body, { id: body.id, givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.com' }, 'a full replace: the memo left out is cleared')
  t.equal((await send(app, '2023-10-16', { method: 'PUT', url: `/customers/${body.id as string}`, payload: { name: 'Ada', email: 'ada@example.com' } })).status, 404)
})

test('invoices: decimals before 2024-09-30, cents since, in the total and in every line; the idempotency key in both header names', async (t) => {
  const app = await billing(t)
  const customer = await send(app, '2024-04-10', { method: 'POST', url: '/customers', payload: { givenName: 'Ada', email: 'ada@example.com' } })
  const lines = [{ description: 'Seat', quantity: 2, unitAmount: 19.99 }, { description: 'Stamp', quantity: 1, unitAmount: 0.07 }]
  const old = await send(app, '2024-04-10', { method: 'POST', url: '/invoices', headers: { 'x-idempotency-key': 'order-1' }, payload: { customerId: customer.body.id, currency: 'usd', lines } })
  t.equal(old.status, 200)
  t.match(old.body, { status: 'open', total: 40.05, lines }, 'decimals come back as sent: 2 × 19.99 + 0.07')
  t.equal(old.headers['request-id'], 'req-2', 'the response header')
  const cents = await send(app, '2025-03-31', { url: `/invoices/${old.body.id as string}` })
  t.match(cents.body, { total: 4005, lines: [{ unitAmount: 1999 }, { unitAmount: 7 }] })
  const retried = await send(app, '2024-09-30', { method: 'POST', url: '/invoices', headers: { 'x-idempotency-key': 'order-1' }, payload: { customerId: customer.body.id, currency: 'usd', lines: [{ description: 'Seat', quantity: 1, unitAmount: 100 }] } })
  t.equal(retried.body.id, old.body.id, 'a retry with the old header name returns the first invoice')
  const again = await send(app, '2025-03-31', { method: 'POST', url: '/invoices', headers: { 'idempotency-key': 'order-1' }, payload: { customerId: customer.body.id, currency: 'usd', lines: [{ description: 'Seat', quantity: 1, unitAmount: 100 }] } })
  t.equal(again.body.id, old.body.id, 'and with the new one')
})

test('payment methods say object before 2024-09-30, type since; new statuses are open and paid for older versions', async (t) => {
  const app = await billing(t)
  const customer = await send(app, '2025-03-31', { method: 'POST', url: '/customers', payload: { givenName: 'Ada', email: 'ada@example.com' } })
  const create = async (): Promise<string> => (await send(app, '2025-03-31', { method: 'POST', url: '/invoices', payload: { customerId: customer.body.id, currency: 'usd', lines: [{ description: 'Seat', quantity: 1, unitAmount: 500 }] } })).body.id
  const paid = await create()
  const bank = { bankName: 'First Bank', last4: '6789' }
  const payment = await send(app, '2024-04-10', { method: 'POST', url: `/invoices/${paid}/pay`, payload: { paymentMethod: { object: 'bank_account', ...bank } } })
  t.match(payment.body, { status: 'paid', total: 5, paymentMethod: { object: 'bank_account', ...bank } })
  t.same((await send(app, '2025-03-31', { url: `/invoices/${paid}` })).body.paymentMethod, { type: 'bank_account', ...bank })
  const given = await create()
  t.equal((await send(app, '2025-03-31', { method: 'POST', url: `/invoices/${given}/mark-uncollectible` })).body.status, 'uncollectible')
  t.equal((await send(app, '2024-09-30', { url: `/invoices/${given}` })).body.status, 'open', 'uncollectible is open for 2024-09-30')
  t.equal((await send(app, '2024-09-30', { method: 'POST', url: `/invoices/${given}/mark-uncollectible` })).status, 404, 'the endpoint came with the status')
})

test('QUERY /invoices/search: one status before 2025-03-31, a list since', async (t) => {
  const app = await billing(t)
  const customer = await send(app, '2025-03-31', { method: 'POST', url: '/customers', payload: { givenName: 'Ada', email: 'ada@example.com' } })
  for (const unitAmount of [100, 200]) {
    await send(app, '2025-03-31', { method: 'POST', url: '/invoices', payload: { customerId: customer.body.id, currency: 'usd', lines: [{ description: 'Seat', quantity: 1, unitAmount }] } })
  }
  const [first] = (await send(app, '2025-03-31', { method: 'QUERY', url: '/invoices/search', payload: { customerId: customer.body.id } })).body.data
  await send(app, '2025-03-31', { method: 'POST', url: `/invoices/${first.id as string}/pay`, payload: { paymentMethod: { type: 'card', brand: 'visa', last4: '4242' } } })
  const old = await send(app, '2024-09-30', { method: 'QUERY', url: '/invoices/search', payload: { customerId: customer.body.id, status: 'open' } })
  t.same(old.body.data.map((invoice: { total: number }) => invoice.total), [200], '2024-09-30: the open invoice, in cents')
  const both = await send(app, '2025-03-31', { method: 'QUERY', url: '/invoices/search', payload: { statuses: ['open', 'paid'], limit: 1 } })
  t.match(both.body, { data: [{ total: 100 }], hasMore: true })
})

test('the invoice.paid webhook reaches each subscriber in the version it is pinned to, signed with its secret', async (t) => {
  const delivered: Array<WebhookDelivery<Subscriber>> = []
  const secret = `whsec_${randomBytes(24).toString('base64')}`
  const app = await billing(t, [
    { id: 'ep_old', url: 'https://old.test', version: '2023-10-16', secret },
    { id: 'ep_new', url: 'https://new.test', version: '2025-03-31', secret }
  ], delivered)
  const customer = await send(app, '2025-03-31', { method: 'POST', url: '/customers', payload: { givenName: 'Ada', email: 'ada@example.com' } })
  const invoice = await send(app, '2025-03-31', { method: 'POST', url: '/invoices', payload: { customerId: customer.body.id, currency: 'usd', lines: [{ description: 'Seat', quantity: 1, unitAmount: 1250 }] } })
  await send(app, '2025-03-31', { method: 'POST', url: `/invoices/${invoice.body.id as string}/pay`, payload: { paymentMethod: { type: 'card', brand: 'visa', last4: '4242' } } })
  t.same(delivered.map(({ version }) => version), ['2023-10-16', '2025-03-31'])
  t.match(JSON.parse(delivered[0].body), { type: 'invoice.paid', created: NOW / 1000, data: { object: { total: 12.5, status: 'paid', paymentMethod: { object: 'card' } } } })
  t.match(JSON.parse(delivered[1].body), { type: 'invoice.paid', created: NOW / 1000, data: { object: { total: 1250, status: 'paid', paymentMethod: { type: 'card' } } } })
  for (const { subscriber, body, headers } of delivered) {
    t.same(new Webhook(secret).verify(body, headers), JSON.parse(body), `${subscriber.id}: its signature verifies`)
    t.equal(headers['webhook-id'], JSON.parse(body).id, "webhook-id is the event's id")
    t.equal(headers['x-api-version'], subscriber.version)
  }
})

test('a request that names no version is served as 2023-10-16', async (t) => {
  const app = await billing(t)
  const created = await send(app, undefined, { method: 'POST', url: '/customers', payload: { name: 'Ada Lovelace', email: 'ada@example.com' } })
  t.equal(created.status, 200)
  t.equal(created.headers['x-api-version'], '2023-10-16')
  t.equal(created.body.name, 'Ada Lovelace')
})
