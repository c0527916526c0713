/**
 * Captured webhook deliveries (`captureExchanges`, decision 0238): each `webhooks.render()` call is published on the
 * channel `fastify-versioner:webhook` with the webhook, the HEAD event as given and each version's body as rendered;
 * only with the option and a subscriber; sampled per render call; redaction pointers applied to the event and the
 * bodies; no signature nor secret.
 */
import { test } from 'tap'
import diagnosticsChannel from 'node:diagnostics_channel'
import type { FastifyInstance } from 'fastify'
import type { CapturedWebhook } from '../../plugin'
import { buildBillingApp, type Subscriber } from '../../examples/billing/app'

const CHANNEL = 'fastify-versioner:webhook'
const SECRET = `whsec_${'A'.repeat(32)}`
const VERSIONS = ['2023-10-16', '2024-04-10', '2024-09-30', '2025-03-31']
/** One subscriber pinned to each version of the billing example, two of them to the oldest. */
const SUBSCRIBERS: Subscriber[] = [...VERSIONS, VERSIONS[0]].map((version, index) => ({ id: `ep_${index}`, url: 'https://subscriber.test/hooks', version, secret: SECRET }))

/** The renders published while the test runs. */
function captured (t: { teardown: (fn: () => void) => void }): CapturedWebhook[] {
  const seen: CapturedWebhook[] = []
  const listener = (message: unknown): void => { seen.push(message as CapturedWebhook) }
  diagnosticsChannel.subscribe(CHANNEL, listener)
  t.teardown(() => diagnosticsChannel.unsubscribe(CHANNEL, listener))
  return seen
}

/** A customer and an invoice created in the newest version, and the invoice paid by card: one render of invoice.paid. */
async function payOne (app: FastifyInstance, last4 = '4242'): Promise<string> {
  const headers = { 'x-api-version': '2025-03-31' }
  const customer = await app.inject({ method: 'POST', url: '/customers', headers, payload: { givenName: 'Ada', email: 'ada@example.com' } })
  const invoice = await app.inject({
    method: 'POST', url: '/invoices', headers, payload: { customerId: customer.json<{ id: string }>().id, currency: 'usd', lines: [{ description: 'seat', quantity: 1, unitAmount: 1999 }] }
  })
  const id = invoice.json<{ id: string }>().id
  const paid = await app.inject({ method: 'POST', url: `/invoices/${id}/pay`, headers, payload: { paymentMethod: { type: 'card', brand: 'visa', last4 } } })
  if (paid.statusCode !== 200) throw new Error(paid.body)
  return id
}

test('a render: the webhook, the HEAD event as given, each version\'s body once (as its subscribers received it), no signature nor secret', async (t) => {
  const sent: Array<{ version: string, body: string }> = []
  const app = await buildBillingApp({ versioner: { captureExchanges: {} }, subscribers: SUBSCRIBERS, deliver: async ({ version, body }) => { sent.push({ version, body }) }, now: () => 1_750_000_000_000 })
  t.teardown(() => app.close())
  const seen = captured(t)
  const before = Math.floor(Date.now() / 1000)
  const invoiceId = await payOne(app)
  const after = Math.floor(Date.now() / 1000)
  t.equal(seen.length, 1, 'one message per render call')
  const [message] = seen
  t.same(message.webhook, { name: 'invoice.paid', method: 'POST' })
  t.equal(message.latest, '2025-03-31')
  // The render may fall in the second before the one the test reads afterwards.
  t.ok(message.timestamp >= before && message.timestamp <= after, 'webhook-timestamp, in seconds, of the render', { skip: after - before > 5 ? 'slow clock' : false })
  const event = message.event as { type: string, created: number, data: { object: { id: string, paymentMethod: unknown } } }
  t.same([event.type, event.created, event.data.object.id], ['invoice.paid', 1_750_000_000, invoiceId], 'the event as the handler gave it')
  t.same(event.data.object.paymentMethod, { type: 'card', brand: 'visa', last4: '4242' })
  t.same(message.deliveries.map((delivery) => delivery.version), VERSIONS, 'each version rendered once, whatever its subscribers')
  for (const delivery of message.deliveries) {
    t.same(delivery.body, JSON.parse(sent.find((one) => one.version === delivery.version)?.body ?? 'null'), `${delivery.version}: the body sent`)
  }
  const text = JSON.stringify(message)
  t.notOk(text.includes(SECRET) || text.includes('webhook-signature') || text.includes('ep_0'), 'no secret, signature nor subscriber')
  t.same(JSON.parse(text), message, 'plain JSON data: one NDJSON line')
})

test('with the option off, or without a subscriber to the channel, nothing is published; with no subscriber of the webhook, nothing either', async (t) => {
  const seen = captured(t)
  const off = await buildBillingApp({ subscribers: SUBSCRIBERS, deliver: async () => {} })
  t.teardown(() => off.close())
  await payOne(off)
  t.equal(seen.length, 0, 'the option off')
  const nobody = await buildBillingApp({ versioner: { captureExchanges: {} }, deliver: async () => {} })
  t.teardown(() => nobody.close())
  await payOne(nobody)
  t.equal(seen.length, 0, 'a render for no subscriber renders nothing')
})

test('sampleRate: a share of the render calls, by Math.random; 0 publishes none', async (t) => {
  const seen = captured(t)
  const random = Math.random
  t.teardown(() => { Math.random = random })
  const app = await buildBillingApp({ versioner: { captureExchanges: { sampleRate: 0.5 } }, subscribers: SUBSCRIBERS, deliver: async () => {} })
  t.teardown(() => app.close())
  Math.random = () => 0.7
  await payOne(app)
  t.equal(seen.length, 0, 'not sampled')
  Math.random = () => 0.2
  await payOne(app)
  t.equal(seen.length, 1, 'sampled: every version of the call')
  t.equal(seen[0].deliveries.length, 4)
  const none = await buildBillingApp({ versioner: { captureExchanges: { sampleRate: 0 } }, subscribers: SUBSCRIBERS, deliver: async () => {} })
  t.teardown(() => none.close())
  Math.random = () => 0
  await payOne(none)
  t.equal(seen.length, 1, 'sampleRate 0')
})

test('redaction: the pointers apply to the event and every body, and the value is removed wherever else it stands', async (t) => {
  const seen = captured(t)
  const app = await buildBillingApp({ versioner: { captureExchanges: { redact: { pointers: ['/data/object/paymentMethod/last4'] } } }, subscribers: SUBSCRIBERS, deliver: async () => {} })
  t.teardown(() => app.close())
  await payOne(app, '9876')
  t.equal(seen.length, 1)
  const text = JSON.stringify(seen[0])
  t.notOk(text.includes('9876'), 'the last 4 digits appear nowhere')
  t.equal((seen[0].event as { data: { object: { paymentMethod: { last4: string } } } }).data.object.paymentMethod.last4, '[redacted]')
  t.match(text, /\[redacted\]/)
})

test('regression: a redaction pointer into a webhook\'s body only is declared: it was warned about as misspelt (FSTVRS002)', async (t) => {
  const warned: string[] = []
  const listener = (warning: Error & { code?: string }): void => { if (warning.code === 'FSTVRS002') warned.push(warning.message) }
  process.on('warning', listener)
  t.teardown(() => process.off('warning', listener))
  const app = await buildBillingApp({ versioner: { captureExchanges: { redact: { pointers: ['/data/object/paymentMethod/last4', '/data/objekt'] } } } })
  t.teardown(() => app.close())
  await app.ready()
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(warned.length, 1, warned.join('\n'))
  t.match(warned[0], /'\/data\/objekt'/, 'the misspelt one still is')
})
