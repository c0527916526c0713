// replay --handlers of the webhooks each exchange renders (decision 0177): an exchange records the webhooks rendered
// while it was served (sampled or not, with a subscriber or not), and a handler that now renders a webhook more times
// for it (an invoice.paid sent when an invoice is voided) is a finding on that exchange. No finding on the correct
// application: with renders sampled out, without subscribers, made by a queue outside any request, several per
// exchange in any order, or in traffic recorded before exchanges said what they rendered.
import { test } from 'tap'
import { randomInt, randomUUID } from 'node:crypto'
import diagnosticsChannel from 'node:diagnostics_channel'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { ConvertResponseToPreviousVersionFor, fastifyVersioner, HeadVersion, schema, versioned, Version, VersionBundle, VersionChange, type CaptureExchangesOptions, type ResponseInfo } from '../../plugin'
import { readTraffic, replayTraffic } from '../../tools'
import { handlerFindings } from '../helpers/handler-replays'

const Invoice = Type.Object({ id: Type.String(), total: Type.Integer(), status: Type.String() })
const InvoiceEvent = Type.Object({ id: Type.String(), type: Type.String(), data: Invoice })
const Params = Type.Object({ invoiceId: Type.String() })
const Missing = Type.Object({ message: Type.String() })

/** How the ledger is built. */
interface Ledger {
  /** The mistake: voiding saves through the helper paying uses, which sends `invoice.paid`. */
  readonly paidOnVoid?: boolean
  /** `invoice.paid` sent by a queue the application drains on a timer, not by the request paying. */
  readonly queued?: boolean
  /** Subscribers to render for (default: one pinned to each version). */
  readonly subscribers?: boolean
  /** An application hook that renders `request.seen` for every request: before the recorded window, within it, or after it. */
  readonly seenIn?: 'onRequest' | 'preParsing' | 'preValidation' | 'preHandler' | 'onResponse'
  /** Invoice events rendered by the definitions given to `webhooks.add()` (their bodies typed), not by name. */
  readonly byDefinition?: boolean
}

/** A builder of fresh ledger applications. */
function ledger (options: Ledger = {}, capture: CaptureExchangesOptions = { everyVersion: true }): () => Promise<FastifyInstance> {
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
    const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', TotalWasAmount), new Version('2000-01-01'))
    const subscribers = options.subscribers === false ? [] : ['2001-01-01', '2000-01-01'].map((version) => ({ id: `ep_${version}`, version, secret: `whsec_${'A'.repeat(32)}` }))
    const app = Fastify()
    await app.register(fastifyVersioner, { versions, captureExchanges: capture })
    const definitions = new Map(['invoice.paid', 'invoice.voided'].map((name) => [name, { name, body: InvoiceEvent }]))
    for (const definition of definitions.values()) app.versioner.webhooks.add(definition)
    app.versioner.webhooks.add({ name: 'request.seen', body: Type.Object({ url: Type.String() }) })
    const invoices = new Map<string, Static>()
    const send = async (type: string, invoice: Static): Promise<void> => {
      const body = { id: `evt_${randomUUID()}`, type, data: invoice }
      const definition = definitions.get(type)
      if (options.byDefinition === true && definition !== undefined) await app.versioner.webhooks.render(definition, body, { subscribers })
      else await app.versioner.webhooks.render(type, body, { subscribers })
    }
    if (options.seenIn !== undefined) {
      app.addHook(options.seenIn, async (request: { url: string }) => { await app.versioner.webhooks.render('request.seen', { url: request.url }, { subscribers }) })
    }
    // A queue of its own: drained on a timer set when the application is built, outside any request.
    const queue: Static[] = []
    const timer = setInterval(() => { for (const invoice of queue.splice(0)) send('invoice.paid', invoice).catch(() => {}) }, 1)
    app.addHook('onClose', async () => { clearInterval(timer) })
    // Saves a changed invoice and tells the subscribers (the mistake: every change is told as a payment).
    const saved = async (invoice: Static): Promise<Static> => {
      invoices.set(invoice.id, invoice)
      await send('invoice.paid', invoice)
      return invoice
    }
    await app.register(versioned(async (api) => {
      api.post('/invoices', { schema: { body: Type.Object({ total: Type.Integer() }), response: { 200: Invoice } } }, async (request) => {
        const invoice = { id: randomUUID(), total: request.body.total, status: 'open' }
        invoices.set(invoice.id, invoice)
        return invoice
      })
      api.post('/invoices/:invoiceId/pay', { schema: { params: Params, response: { 200: Invoice, 404: Missing } } }, async (request, reply) => {
        const open = invoices.get(request.params.invoiceId)
        if (open === undefined) return await reply.code(404).send({ message: 'no such invoice' })
        const paid = { ...open, status: 'paid' }
        if (options.queued !== true) return await saved(paid)
        invoices.set(paid.id, paid)
        queue.push(paid)
        return paid
      })
      api.post('/invoices/:invoiceId/void', { schema: { params: Params, response: { 200: Invoice, 404: Missing } } }, async (request, reply) => {
        const open = invoices.get(request.params.invoiceId)
        if (open === undefined) return await reply.code(404).send({ message: 'no such invoice' })
        const voided = { ...open, status: 'void' }
        if (options.paidOnVoid === true) await saved(voided)
        else invoices.set(voided.id, voided)
        await send('invoice.voided', voided)
        return voided
      })
      // Both events at once, in an order that differs from run to run.
      api.post('/invoices/:invoiceId/settle', { schema: { params: Params, response: { 200: Invoice } } }, async (request) => {
        const invoice = invoices.get(request.params.invoiceId) as Static
        const later = async (type: string): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, randomInt(3))); await send(type, invoice) }
        await Promise.all([later('invoice.paid'), later('invoice.voided')])
        return invoice
      })
    }))
    return app
  }
}

/** An invoice as stored. */
interface Static { id: string, total: number, status: string }

/** The traffic of clients of each version on a fresh ledger `build` makes (one exchange or render a line). */
async function traffic (build: () => Promise<FastifyInstance>): Promise<string[]> {
  const app = await build()
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  diagnosticsChannel.subscribe('fastify-versioner:webhook', record)
  try {
    for (const version of ['2000-01-01', '2001-01-01', '2001-01-01']) {
      const headers = { 'x-api-version': version }
      const ids: string[] = []
      for (const total of [100, 200, 300]) ids.push((await app.inject({ method: 'POST', url: '/invoices', headers, payload: { total } })).json<{ id: string }>().id)
      await app.inject({ method: 'POST', url: `/invoices/${ids[0]}/pay`, headers })
      await app.inject({ method: 'POST', url: `/invoices/${ids[1]}/void`, headers })
      await app.inject({ method: 'POST', url: `/invoices/${ids[2]}/settle`, headers })
    }
    // What the queue holds is sent before the recording ends.
    await new Promise((resolve) => setTimeout(resolve, 20))
  } finally {
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record)
    diagnosticsChannel.unsubscribe('fastify-versioner:webhook', record)
    await app.close()
  }
  return lines
}

/** The lines of the exchanges of `path` (`/void`) in `lines`, from 1. */
function linesOf (lines: readonly string[], path: string): number[] {
  return lines.flatMap((line, index) => line.includes('"clientRequest"') && (JSON.parse(line) as { route: { url: string } }).route.url.endsWith(path) ? [index + 1] : [])
}

const VOID = /^line (\d+): POST \/invoices\/:invoiceId\/void \((2000|2001)-01-01\): answer webhooks\/invoice\.paid: the recording shows 0 render\(s\) of webhook invoice\.paid \(POST\) while it was served, the handlers of a fresh application now render 1: its subscribers are sent an event that did not happen: \{"id":"evt_[0-9a-f-]{36}","type":"invoice\.paid","data":\{.*"status":"void"\}\}\.$/

test('an exchange records the webhooks rendered while it was served, whether they are sampled, have subscribers, or not', async (t) => {
  for (const [options, capture] of [[{}, { everyVersion: true }], [{ subscribers: false }, { everyVersion: true }], [{}, { everyVersion: true, sampleRate: 0.999 }]] as const) {
    const lines = await traffic(ledger(options, capture))
    const read = readTraffic(lines.join('\n'))
    t.same(read.problems, [])
    const rendersOf = (path: string): unknown[] => read.exchanges.filter(({ exchange }) => exchange.route.url.endsWith(path)).map(({ exchange }) => exchange.renders)
    t.same(new Set(rendersOf('/invoices').map((renders) => JSON.stringify(renders))), new Set(['[]']), 'creating renders nothing')
    for (const renders of rendersOf('/pay')) t.same(renders, [{ name: 'invoice.paid', method: 'POST', count: 1 }])
    for (const renders of rendersOf('/settle')) {
      t.same(new Set(renders as unknown[]), new Set([{ name: 'invoice.paid', method: 'POST', count: 1 }, { name: 'invoice.voided', method: 'POST', count: 1 }]))
    }
    t.equal(read.deliveries.length === 0, options.subscribers === false, 'a render without a subscriber is not published; its exchange still counts it')
  }
})

test('replay --handlers: the correct ledger\'s traffic has no finding: renders without a subscriber, sent by a queue, several per exchange in any order', async (t) => {
  for (const options of [{}, { subscribers: false }, { queued: true }] as const) {
    const build = ledger(options)
    t.same(await handlerFindings(await traffic(build), build), [], JSON.stringify(options))
  }
})

test('replay --handlers: invoice.paid rendered where voiding recorded none is a finding on the exchange that voided', async (t) => {
  const lines = await traffic(ledger())
  const found = await handlerFindings(lines, ledger({ paidOnVoid: true }))
  t.equal(found.length, 3, found.join('\n'))
  for (const text of found) t.match(text, VOID)
  t.same(found.map((text) => Number(VOID.exec(text)?.[1])), linesOf(lines, '/void'), 'on the line of each exchange voiding an invoice')
  // Rendered by its definition (its body typed), a render is seen as by name.
  const byDefinition = await handlerFindings(lines, ledger({ paidOnVoid: true, byDefinition: true }))
  t.same(byDefinition.map((text) => Number(VOID.exec(text)?.[1])), linesOf(lines, '/void'), 'the same findings, the webhooks rendered by their definitions')
  t.same(await handlerFindings(lines, ledger({ byDefinition: true })), [], 'and none on the correct ledger')
  // Recorded without a subscriber, the file holds no render: the exchanges still say what they rendered.
  const silent = await traffic(ledger({ subscribers: false }))
  t.equal((await handlerFindings(silent, ledger({ paidOnVoid: true, subscribers: false }))).filter((text) => VOID.test(text)).length, 3)
})

test('replay --handlers: a render of an application hook running before the recorded window (onRequest, preParsing, preValidation) is no finding', async (t) => {
  for (const seenIn of ['onRequest', 'preParsing', 'preValidation'] as const) {
    const lines = await traffic(ledger({ seenIn }))
    const read = readTraffic(lines.join('\n'))
    t.ok(read.deliveries.some(({ delivery }) => delivery.webhook.name === 'request.seen'), `${seenIn}: the hook renders`)
    t.notOk(read.exchanges.some(({ exchange }) => exchange.renders?.some((render) => render.name === 'request.seen')), `${seenIn}: counted for no exchange`)
    t.same(await handlerFindings(lines, ledger({ seenIn })), [], `${seenIn}: no finding`)
    // The mistake is still found where the hook renders too.
    t.equal((await handlerFindings(lines, ledger({ seenIn, paidOnVoid: true }))).filter((text) => VOID.test(text)).length, 3, `${seenIn}: the mistake`)
  }
})

test('replay --handlers: request.seen newly rendered by a preHandler hook is a finding on every exchange', async (t) => {
  const lines = await traffic(ledger())
  const seen = /^line (\d+): POST \/invoices\S* \((2000|2001)-01-01\): answer webhooks\/request\.seen: the recording shows 0 render\(s\) of webhook request\.seen \(POST\) while it was served, the handlers of a fresh application now render 1: /
  const found = await handlerFindings(lines, ledger({ seenIn: 'preHandler' }))
  t.same(found.map((text) => Number(seen.exec(text)?.[1])), linesOf(lines, ''), found.join('\n'))
  // Recorded with the hook, the same application has no finding.
  const build = ledger({ seenIn: 'preHandler' })
  t.same(await handlerFindings(await traffic(build), build), [])
})

test('replay --handlers: a render of an onResponse hook, after the recorded window, is no finding; the mistake is still found', async (t) => {
  const lines = await traffic(ledger({ seenIn: 'onResponse' }))
  const read = readTraffic(lines.join('\n'))
  t.ok(read.deliveries.some(({ delivery }) => delivery.webhook.name === 'request.seen'), 'the hook renders')
  t.same(await handlerFindings(lines, ledger({ seenIn: 'onResponse' })), [])
  t.equal((await handlerFindings(lines, ledger({ seenIn: 'onResponse', paidOnVoid: true }))).filter((text) => VOID.test(text)).length, 3, 'the mistake')
})

test('replay --handlers: traffic recorded with a sampleRate below 1 has no finding on the correct ledger; a sampled exchange still shows the mistake', async (t) => {
  // Every other render sampled out, as Math.random drawn by the capture of renders decides (exchanges: all kept).
  const random = Math.random
  let draws = 0
  Math.random = () => new Error().stack?.includes('webhook-capture') === true && draws++ % 2 === 1 ? 0.9 : 0.1
  let recorded: string[]
  try {
    recorded = await traffic(ledger({}, { everyVersion: true, sampleRate: 0.5 }))
  } finally {
    Math.random = random
  }
  // The requests paying and settling sampled out too (the requests creating what the others use kept).
  const lines = recorded.filter((line) => !/"url":"\/invoices\/:invoiceId\/(pay|settle)"/.test(line))
  const read = readTraffic(lines.join('\n'))
  t.same([read.exchanges.length, read.deliveries.length], [12, 6], 'the paying and settling requests and half the renders sampled out')
  const build = ledger()
  const app = await build()
  t.teardown(() => app.close())
  await app.ready()
  const report = await replayTraffic(app, read, { handlers: build })
  t.same(report.findings.map((finding) => finding.text), [], 'no finding: a render sampled out is still counted by its exchange')
  t.ok(report.notReplayable.length > 0 && report.notReplayable.every((item) => item.route.startsWith('webhook ')), 'the renders of requests sampled out are not replayed')
  const found = (await handlerFindings(lines, ledger({ paidOnVoid: true }))).filter((text) => VOID.test(text))
  t.same(found.map((text) => Number(VOID.exec(text)?.[1])), linesOf(lines, '/void'), 'each voiding exchange')
})

test('replay --handlers: traffic recorded before exchanges said what they rendered is not judged on its renders', async (t) => {
  const lines = (await traffic(ledger())).flatMap((line) => {
    const value = JSON.parse(line) as Record<string, unknown>
    if ('webhook' in value) return []
    delete value.renders
    return [JSON.stringify(value)]
  })
  t.same(await handlerFindings(lines, ledger({ paidOnVoid: true })), [])
})

test('the traffic file: an exchange whose renders is not a list of { name, method, count } is malformed', async (t) => {
  const [line] = (await traffic(ledger())).filter((text) => text.includes('"clientRequest"'))
  for (const renders of [{}, [{ name: 'invoice.paid', method: 'POST' }], [{ name: 'invoice.paid', method: 'POST', count: 0 }]]) {
    const bad = JSON.stringify({ ...JSON.parse(line) as object, renders })
    t.same(readTraffic(bad).problems, [{ line: 1, message: 'its renders is not a list of { name, method, count }' }])
  }
})
