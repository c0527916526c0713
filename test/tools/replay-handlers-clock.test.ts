// replay --handlers leaves out the places where the two fresh applications answer or render differently (what the
// handlers make anew: ids, tokens), learned by route (by webhook and version). A value the handlers derive from the
// clock more coarsely than it ticks (the seconds of the minute, a date) differs between them only when a second turns
// while they serve the same request: under load, now and then. Learned from that request, it hid the place on every
// line, and a mistake there passed or failed by chance: the mutation score's traffic figure varied by one (issue 31:
// an event time given older subscribers as getSeconds()). The clock's turns are told from the handlers' choices.
import { test } from 'tap'
import { randomUUID } from 'node:crypto'
import diagnosticsChannel from 'node:diagnostics_channel'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, HeadVersion, versioned, Version, VersionBundle } from '../../plugin'
import { readTraffic, replayTraffic } from '../../tools'

const Ping = Type.Object({ id: Type.String(), at: Type.Integer({ description: 'Unix time, in seconds.' }) })

/** How the handlers read the clock: as recorded (Unix time in seconds), or its seconds of the minute (the mistake). */
type Clock = 'unix' | 'seconds-of-the-minute'

/** When the second application waits for the clock's next second before answering: never, its first request, every one. */
type Turn = 'never' | 'first' | 'every'

/** Waits until the clock's second turns. */
async function nextSecond (): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1001 - (Date.now() % 1000)))
}

/**
 * A builder of fresh ping applications: POST /pings answers a ping (a random id, the time) and renders ping.made with
 * it. The second application built waits for the clock's next second before it reads the clock, where `turn` says.
 */
function pings (clock: Clock, turn: Turn = 'never'): () => Promise<FastifyInstance> {
  let built = 0
  return async () => {
    const slow = built++ === 1 && turn !== 'never'
    let served = 0
    const app = Fastify()
    await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2000-01-01')), captureExchanges: { everyVersion: true } })
    app.versioner.webhooks.add({ name: 'ping.made', body: Ping })
    const subscribers = [{ id: 'ep_1', version: '2000-01-01', secret: `whsec_${'A'.repeat(32)}` }]
    await app.register(versioned(async (api) => {
      api.post('/pings', { schema: { response: { 200: Ping } } }, async () => {
        if (slow && (turn === 'every' || served++ === 0)) await nextSecond()
        const now = new Date()
        const ping = { id: randomUUID(), at: clock === 'unix' ? Math.floor(now.getTime() / 1000) : now.getUTCSeconds() }
        await app.versioner.webhooks.render('ping.made', ping, { subscribers })
        return ping
      })
    }))
    return app
  }
}

/** Three clients' pings on the correct application, recorded (their exchanges and renders, one a line). */
async function recorded (): Promise<string> {
  const app = await pings('unix')()
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  diagnosticsChannel.subscribe('fastify-versioner:webhook', record)
  try {
    for (let client = 0; client < 3; client++) await app.inject({ method: 'POST', url: '/pings', headers: { 'x-api-version': '2000-01-01' } })
  } finally {
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record)
    diagnosticsChannel.unsubscribe('fastify-versioner:webhook', record)
    await app.close()
  }
  return lines.join('\n')
}

/** The findings of `traffic` replayed through the handlers of fresh applications of `build`. */
async function findings (traffic: string, build: () => Promise<FastifyInstance>): Promise<string[]> {
  const app = await pings('unix')()
  try {
    await app.ready()
    return (await replayTraffic(app, readTraffic(traffic), { handlers: build })).findings.map((finding) => finding.text)
  } finally {
    await app.close()
  }
}

test('replay --handlers: the seconds of the minute where Unix time was recorded are a finding, whether or not a second turns between the two applications', async (t) => {
  const traffic = await recorded()
  const expected = [
    /^line \d: POST \/pings \(2000-01-01\): answer body\/at: the client received \d{10}, the handlers of a fresh application now answer \d{1,2}\.$/,
    /^line \d: webhook ping\.made \(2000-01-01\): delivery body\/at: the subscribers received \d{10}, the handlers of a fresh application now render \d{1,2}\.$/
  ]
  const steady = await findings(traffic, pings('seconds-of-the-minute'))
  t.ok(steady.length >= 2, steady.join('\n'))
  for (const pattern of expected) t.ok(steady.some((text) => pattern.test(text)), `${String(pattern)} in ${steady.join('\n')}`)
  // The second application reads the clock a second later than the first for the first request: the two differ there.
  const turned = await findings(traffic, pings('seconds-of-the-minute', 'first'))
  t.ok(turned.length >= 2, `a turn of the clock on one request hides nothing: ${turned.join('\n')}`)
  for (const pattern of expected) t.ok(turned.some((text) => pattern.test(text)), `${String(pattern)} in ${turned.join('\n')}`)
})

test('replay --handlers: the correct application is none, a second turning on one request or on every one (what the handlers make anew is still left out)', async (t) => {
  const traffic = await recorded()
  t.same(await findings(traffic, pings('unix', 'first')), [], 'a turn on the first request')
  // No request served within one second by both: the places they answer differently are still left out (the ids).
  t.same(await findings(traffic, pings('unix', 'every')), [], 'a turn on every request')
})

const Order = Type.Object({ id: Type.String(), confirmation: Type.Optional(Type.Integer()) })

/**
 * A builder of fresh order applications: POST /orders answers a confirmation number made anew for an order with a
 * coupon only. The second application built waits for the clock's next second on those orders, where `turn` says.
 */
function orders (turn: boolean): () => Promise<FastifyInstance> {
  let built = 0
  return async () => {
    const slow = built++ === 1 && turn
    const app = Fastify()
    await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2000-01-01')), captureExchanges: { everyVersion: true } })
    await app.register(versioned(async (api) => {
      api.post('/orders', { schema: { body: Type.Object({ coupon: Type.Boolean() }), response: { 200: Order } } }, async (request) => {
        const { coupon } = request.body as { coupon: boolean }
        if (!coupon) return { id: 'ord_1' }
        if (slow) await nextSecond()
        return { id: 'ord_1', confirmation: Math.floor(Math.random() * 1e9) }
      })
    }))
    return app
  }
}

test('regression: a value made anew for some requests only was a finding when a second turned on their pairs alone', async (t) => {
  const app = await orders(false)()
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  try {
    for (const coupon of [false, true, false]) await app.inject({ method: 'POST', url: '/orders', payload: { coupon }, headers: { 'x-api-version': '2000-01-01' } })
  } finally {
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record)
    await app.close()
  }
  const replayed = await orders(false)()
  t.teardown(() => replayed.close())
  await replayed.ready()
  const traffic = readTraffic(lines.join('\n'))
  for (const turn of [false, true]) {
    const report = await replayTraffic(replayed, traffic, { handlers: orders(turn) })
    t.same(report.findings.map((finding) => finding.text), [], turn ? 'a second turning on the order with a coupon' : 'no second turning')
    t.equal(report.answers?.compared, 3, 'each exchange compared')
  }
})

/** How an invoice's handlers write the day it was issued: today's date (as recorded), today's instant, a month on. */
type IssuedOn = 'today' | 'instant' | 'month-on'

/** A builder of fresh invoice applications: POST /invoices answers the invoice with the day it was issued, as `issued` says. */
function invoices (issued: IssuedOn): () => Promise<FastifyInstance> {
  return async () => {
    const app = Fastify()
    await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2000-01-01')), captureExchanges: { everyVersion: true } })
    await app.register(versioned(async (api) => {
      api.post('/invoices', { schema: { response: { 200: Type.Object({ id: Type.String(), issuedOn: Type.String() }) } } }, async () => {
        const now = new Date(Date.now() + (issued === 'month-on' ? 30 * 86_400_000 : 0))
        return { id: 'in_1', issuedOn: issued === 'instant' ? now.toISOString() : now.toISOString().slice(0, 10) }
      })
    }))
    return app
  }
}

test('regression: a date read from the clock (the day an invoice was issued), recorded on another day, was a finding on every line', async (t) => {
  const app = await invoices('today')()
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  try {
    for (let client = 0; client < 2; client++) await app.inject({ method: 'POST', url: '/invoices', headers: { 'x-api-version': '2000-01-01' } })
  } finally {
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record)
    await app.close()
  }
  // Recorded three days before the replay runs.
  const today = new Date().toISOString().slice(0, 10)
  const earlier = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10)
  const traffic = readTraffic(lines.join('\n').replaceAll(`"issuedOn":"${today}"`, `"issuedOn":"${earlier}"`))
  const replayed = await invoices('today')()
  t.teardown(() => replayed.close())
  await replayed.ready()
  const findings = async (issued: IssuedOn): Promise<string[]> => (await replayTraffic(replayed, traffic, { handlers: invoices(issued) })).findings.map((finding) => finding.text)
  t.same(await findings('today'), [], 'the day of the replay where a day was recorded')
  const instant = await findings('instant')
  t.equal(instant.length, 2, `a date made an instant: ${instant.join('\n')}`)
  t.match(instant[0], /answer body\/issuedOn: the client received '\d{4}-\d\d-\d\d', the handlers of a fresh application now answer '\d{4}-\d\d-\d\dT/)
  t.equal((await findings('month-on')).length, 2, 'a day a month on is no day of the replay')
})
