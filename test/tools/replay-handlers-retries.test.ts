// `replay --handlers` (decisions 0234, 0239): a create retried with its idempotency key answers, when recorded, the
// same order again. A handler that stopped honouring the key answers a second order: the retry's answer holds a new
// id where the record holds one the replay already knows the counterpart of. Wherever the answer carries that id (its
// body, a URL in its body, a `Location`, a header of its own), the new id is a finding, never noise.
import { test } from 'tap'
import { randomUUID } from 'node:crypto'
import fc from 'fast-check'
import diagnosticsChannel from 'node:diagnostics_channel'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, HeadVersion, versioned, Version, VersionBundle } from '../../plugin'
import { readTraffic, replayTraffic } from '../../tools'
import { IdsInStrings, strayId } from '../../lib/tools/ids-in-strings'

/** Where an order's answer names the order: its body's `id`, a `url` in its body, a `Location`, an `X-Order-Id` header. */
type Carrier = 'id' | 'url' | 'location' | 'header'

const OrderInput = Type.Object({ sku: Type.String(), quantity: Type.Integer() })
const Order = Type.Object({ id: Type.Optional(Type.String()), url: Type.Optional(Type.String()), sku: Type.String(), quantity: Type.Integer() })
const Failure = Type.Object({ message: Type.String() })

/** A builder of fresh shops (each its own empty store) whose create answers name the order in `carriers`; `ignoresKey`: retries make new orders. */
function shop (carriers: readonly Carrier[], ignoresKey = false): () => Promise<FastifyInstance> {
  return async () => {
    const orders = new Map<string, typeof OrderInput.static>()
    const byKey = new Map<string, string>()
    const app = Fastify()
    await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2000-01-01')), captureExchanges: { everyVersion: true } })
    await app.register(versioned(async (api) => {
      const answer = (id: string): typeof Order.static => ({
        ...(carriers.includes('id') ? { id } : {}),
        ...(carriers.includes('url') ? { url: `/orders/${id}` } : {}),
        ...(orders.get(id) as typeof OrderInput.static)
      })
      api.post('/orders', { schema: { headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }), body: OrderInput, response: { 201: Order } } }, async (request, reply) => {
        const key = request.headers['idempotency-key']
        let id = key === undefined || ignoresKey ? undefined : byKey.get(key)
        if (id === undefined) {
          id = randomUUID()
          orders.set(id, request.body)
          if (key !== undefined) byKey.set(key, id)
        }
        if (carriers.includes('location')) reply.header('location', `/orders/${id}`)
        if (carriers.includes('header')) reply.header('x-order-id', id)
        return await reply.code(201).send(answer(id))
      })
      api.get('/orders/:orderId', { schema: { params: Type.Object({ orderId: Type.String() }), response: { 200: Order, 404: Failure } } }, async (request, reply) =>
        orders.has(request.params.orderId) ? answer(request.params.orderId) : await reply.code(404).send({ message: 'No such order' }))
    }))
    return app
  }
}

/** A client's create, retried with its key after a time-out, then read back by the id its answer named; recorded from the correct shop. */
async function retriedCreate (carriers: readonly Carrier[]): Promise<string> {
  const app = await shop(carriers)()
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  try {
    const create = { method: 'POST' as const, url: '/orders', headers: { 'x-api-version': '2000-01-01', 'idempotency-key': 'cart-41' }, payload: { sku: 'pen', quantity: 2 } }
    const first = await app.inject(create)
    const again = await app.inject(create)
    const id = String(first.headers['x-order-id'] ?? first.headers.location ?? (first.json() as { id?: string, url?: string }).id ?? (first.json() as { url: string }).url)
    if (again.body !== first.body) throw new Error('the correct shop answers a retry with the same order')
    await app.inject({ method: 'GET', url: `/orders/${id.replace('/orders/', '')}`, headers: { 'x-api-version': '2000-01-01' } })
  } finally {
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record)
    await app.close()
  }
  return lines.join('\n')
}

/** The findings of the traffic replayed through fresh shops built by `build`. */
async function findings (traffic: string, build: () => Promise<FastifyInstance>): Promise<string[]> {
  const app = await build()
  try {
    await app.ready()
    const report = await replayTraffic(app, readTraffic(traffic), { handlers: build })
    return report.findings.map((finding) => `${finding.line} ${finding.part}${finding.pointer}`)
  } finally {
    await app.close()
  }
}

const CASES: ReadonlyArray<{ carriers: Carrier[], place: string }> = [
  { carriers: ['id'], place: 'body/id' },
  { carriers: ['id', 'location'], place: 'body/id' },
  { carriers: ['location'], place: 'headers/location' },
  { carriers: ['header'], place: 'headers/x-order-id' },
  { carriers: ['url', 'location'], place: 'body/url' },
  { carriers: ['url', 'header'], place: 'body/url' }
]

for (const { carriers, place } of CASES) {
  test(`replay --handlers: a retry answered with a new order where the record holds the first is a finding, the order named by ${carriers.join(' and ')}`, async (t) => {
    const traffic = await retriedCreate(carriers)
    t.same(await findings(traffic, shop(carriers)), [], 'the correct shop answers as recorded')
    t.same(await findings(traffic, shop(carriers, true)), [`2 ${place}`], 'the retry makes a second order: the client is billed twice')
  })
}

test('strayId: a string holding a known id answered with its counterpart in its place is no change; with another id, or none, it is', (t) => {
  const id = fc.stringMatching(/^[a-z]{2,4}_[0-9a-f]{8,12}$/)
  // Where an answer names an id: a whole string, a path, a query, a quoted etag, a comma-joined list with another.
  const forms = fc.constantFrom((held: string) => held, (held: string) => `/orders/${held}`, (held: string) => `/v1/x?order=${held}&page=2`,
    (held: string) => `"${held}"`, (held: string) => `${held},ord_00000000`)
  fc.assert(fc.property(id, id, id, forms, (recorded, own, other, form) => {
    fc.pre(new Set([recorded, own, other]).size === 3)
    const app = { ids: new Map([[recorded, own]]), inside: new IdsInStrings([[recorded, own]]) }
    return !strayId(form(recorded), form(own), app) && strayId(form(recorded), form(other), app) && strayId(form(recorded), undefined, app)
  }))
  t.notOk(strayId('/orders/unknown_12345678', '/orders/anything_1', { ids: new Map(), inside: new IdsInStrings() }), 'no known id: nothing to judge')
  t.end()
})
