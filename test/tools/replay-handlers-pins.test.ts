// replay --handlers of the version each subscriber is rendered in (decision 0290): a handler that renders invoice.paid
// for its subscribers in the version of the client that paid (request.apiVersion passed for the pin) is a finding naming
// the subscriber, both versions and the request; the correct ledger is none, with its subscribers re-pinned since the
// recording, added, removed or none at all, on either side.
import { test } from 'tap'
import fc from 'fast-check'
import { randomUUID } from 'node:crypto'
import diagnosticsChannel from 'node:diagnostics_channel'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { ConvertResponseToPreviousVersionFor, fastifyVersioner, HeadVersion, schema, versioned, Version, VersionBundle, VersionChange, type ResponseInfo } from '../../plugin'
import { handlerFindings } from '../helpers/handler-replays'

const Invoice = Type.Object({ id: Type.String(), total: Type.Integer(), status: Type.String() })
const InvoiceEvent = Type.Object({ id: Type.String(), type: Type.String(), data: Invoice })
const Params = Type.Object({ invoiceId: Type.String() })
const VERSIONS = ['2000-01-01', '2001-01-01', '2002-01-01'] as const

/** A subscriber as the ledger is configured with it. */
interface Subscriber { readonly id: string, readonly version: string }

/** One subscriber pinned to each version. */
const EACH = VERSIONS.map((version) => ({ id: `ep_${version}`, version }))

/** A builder of fresh ledgers telling `subscribers`; `payersVersion`: the mistake, each rendered in the paying client's version. */
function ledger (subscribers: readonly Subscriber[], payersVersion = false): () => Promise<FastifyInstance> {
  class TotalWasAmount extends VersionChange {
    description = 'total was amount.'
    instructionsToMigrateToPreviousVersion = [schema(Invoice).field('total').had({ name: 'amount' })]

    @ConvertResponseToPreviousVersionFor(Invoice)
    amountDown (response: ResponseInfo) {
      const { total, ...rest } = response.body as Record<string, unknown>
      response.body = { ...rest, amount: total }
    }
  }
  return async () => {
    const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01'), new Version('2001-01-01', TotalWasAmount), new Version('2000-01-01'))
    const app = Fastify()
    await app.register(fastifyVersioner, { versions, captureExchanges: { everyVersion: true } })
    app.versioner.webhooks.add({ name: 'invoice.paid', body: InvoiceEvent })
    const invoices = new Map<string, { id: string, total: number, status: string }>()
    await app.register(versioned(async (api) => {
      api.post('/invoices', { schema: { body: Type.Object({ total: Type.Integer() }), response: { 200: Invoice } } }, async (request) => {
        const invoice = { id: randomUUID(), total: request.body.total, status: 'open' }
        invoices.set(invoice.id, invoice)
        return invoice
      })
      api.post('/invoices/:invoiceId/pay', { schema: { params: Params, response: { 200: Invoice } } }, async (request) => {
        const paid = { ...invoices.get(request.params.invoiceId) as { id: string, total: number }, status: 'paid' }
        invoices.set(paid.id, paid)
        const secret = `whsec_${'A'.repeat(32)}`
        const given = subscribers.map((subscriber) => ({ ...subscriber, secret, version: payersVersion ? request.apiVersion ?? subscriber.version : subscriber.version }))
        await app.versioner.webhooks.render('invoice.paid', { id: `evt_${randomUUID()}`, type: 'invoice.paid', data: paid }, { subscribers: given })
        return paid
      })
    }))
    return app
  }
}

/** The traffic of clients of each version, twice, each creating and paying an invoice, on a fresh ledger `build` makes. */
async function traffic (build: () => Promise<FastifyInstance>): Promise<string[]> {
  const app = await build()
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  diagnosticsChannel.subscribe('fastify-versioner:webhook', record)
  try {
    for (const version of [...VERSIONS, ...VERSIONS]) {
      const headers = { 'x-api-version': version }
      const { id } = (await app.inject({ method: 'POST', url: '/invoices', headers, payload: { total: 1999 } })).json<{ id: string }>()
      await app.inject({ method: 'POST', url: `/invoices/${id}/pay`, headers })
    }
  } finally {
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record)
    diagnosticsChannel.unsubscribe('fastify-versioner:webhook', record)
    await app.close()
  }
  return lines
}

const PINNED = /^line (\d+): webhook invoice\.paid \((\d{4}-01-01)\): delivery to subscriber '([^']+)': rendered in \2, the version of the request that rendered it \(line (\d+): POST \/invoices\/:invoiceId\/pay \(\2\)\), and in (\d{4}-01-01) for the request of line \d+ \(\5\); the recording delivered this event in ([\d, -]+): a subscriber is rendered in its pinned version, whichever request renders the event \(check the version the handler passes to render for each subscriber: its own, not request\.apiVersion\)\.$/

test('replay --handlers: the correct ledger has no finding, its subscribers the same, re-pinned, added, removed or none, when recorded or replayed', async (t) => {
  const configurations: Array<readonly Subscriber[]> = [
    EACH,
    [{ id: 'ep_1', version: '2000-01-01' }],
    [{ id: 'ep_2000-01-01', version: '2002-01-01' }, { id: 'ep_2002-01-01', version: '2000-01-01' }],
    [...EACH, { id: 'ep_new', version: '2001-01-01' }],
    []
  ]
  for (const [recorded, replayed] of [[EACH, EACH], [EACH, configurations[1]], [EACH, configurations[2]], [EACH, configurations[3]], [EACH, []], [[], EACH], [configurations[1], EACH]] as const) {
    const lines = await traffic(ledger(recorded))
    t.same(await handlerFindings(lines, ledger(replayed)), [], `recorded with ${JSON.stringify(recorded)}, replayed with ${JSON.stringify(replayed)}`)
  }
})

test('replay --handlers: invoice.paid rendered in the paying client\'s version is a finding per subscriber, naming both versions and the request', async (t) => {
  const lines = await traffic(ledger(EACH))
  // As CI replays: a fresh ledger telling a subscriber production does not have.
  const found = await handlerFindings(lines, ledger([{ id: 'ep_1', version: '2000-01-01' }], true))
  t.equal(found.length, 1, found.join('\n'))
  const [, line, version, id, request, first, recordedIn] = PINNED.exec(found[0] ?? '') ?? []
  t.same([version, id, first, recordedIn], ['2001-01-01', 'ep_1', '2000-01-01', VERSIONS.join(', ')], found[0])
  t.ok(JSON.parse(lines[Number(line) - 1]).webhook !== undefined, 'on the line of the render')
  t.match(JSON.parse(lines[Number(request) - 1]), { route: { method: 'POST', url: '/invoices/:invoiceId/pay' }, version: '2001-01-01' }, 'naming the request that rendered it')
  // The same subscribers as recorded: each is a finding, on the first render in another version than its first.
  const each = await handlerFindings(lines, ledger(EACH, true))
  t.same(each.map((text) => PINNED.exec(text)?.[3]).sort(), EACH.map((subscriber) => subscriber.id), each.join('\n'))
})

test('replay --handlers: a recording whose renders reached no other version than the payer\'s compares no pin', async (t) => {
  // Recorded from the mistaken ledger itself: each event was delivered in its payer's version only.
  const lines = await traffic(ledger(EACH, true))
  t.same(await handlerFindings(lines, ledger(EACH, true)), [])
})

test('replay --handlers, any subscribers recorded and replayed: the correct ledger has no finding; the mistake is one finding per subscriber replayed, once the recording delivered any', async (t) => {
  const subscribers = fc.uniqueArray(fc.record({ id: fc.constantFrom('ep_a', 'ep_b', 'ep_c', 'ep_d'), version: fc.constantFrom(...VERSIONS) }), { selector: (subscriber) => subscriber.id, maxLength: 3 })
  await fc.assert(fc.asyncProperty(subscribers, subscribers, async (recorded, replayed) => {
    const lines = await traffic(ledger(recorded))
    t.same(await handlerFindings(lines, ledger(replayed)), [], 'the correct ledger')
    const found = await handlerFindings(lines, ledger(replayed, true))
    const expected = recorded.length === 0 ? [] : replayed.map((subscriber) => subscriber.id).sort()
    t.same(found.map((text) => PINNED.exec(text)?.[3]).sort(), expected, found.join('\n'))
  }), { numRuns: 12, seed: 290 })
})
