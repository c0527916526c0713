/**
 * Requests whose client leaves mid-conversion, over real connections (HTTP/1.1 keep-alive and HTTP/2): wherever it
 * leaves (while an async picker resolves, a request converter runs, the handler runs, a response or error converter
 * runs), later requests on the same instance and connection pool are answered in their version, a request served
 * meanwhile is not held, nothing is logged or rejected unhandled, the version storage is let go, and the exchange is
 * published as the application answered it. Each stop is a latch the test holds and releases: no timing races. The
 * seed is fixed, so a run makes the same requests and assertions every time (set FC_SEED to try others).
 */
import { test } from 'tap'
import fc from 'fast-check'
import http from 'node:http'
import net from 'node:net'
import { connect, constants, type ClientHttp2Session } from 'node:http2'
import diagnosticsChannel from 'node:diagnostics_channel'
import { Writable } from 'node:stream'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, fastifyVersioner, schema, Version, VersionBundle, VersionChange,
  VersionChangeWithSideEffects, versioned, VersionPicker, type CapturedExchange, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { kBundleInternals } from '../../lib/core/symbols'
import { sharedPathBundle, sharedPathRoutes } from '../helpers/http-apps'

type Stop = 'pick' | 'request converter' | 'handler' | 'response converter' | 'error converter'

/** A promise and the function that resolves it. */
function released (): { promise: Promise<void>, release: () => void } {
  let release = (): void => {}
  const promise = new Promise<void>((resolve) => { release = resolve })
  return { promise, release }
}

/** Where requests are held, by the name each sends: the test releases them once it has done its part. */
class Latch {
  private readonly held = new Map<string, { stop: Stop, reached: () => void, released: Promise<void>, release: () => void }>()

  /** Holds the request named `name` at `stop`; resolves once it got there. */
  arm (stop: Stop, name: string): Promise<void> {
    return new Promise((resolve) => {
      const releasing = released()
      this.held.set(name, { stop, reached: resolve, released: releasing.promise, release: releasing.release })
    })
  }

  /** A promise to await at `stop` for the request named `name`, or `undefined` when it is not held (sync converters). */
  at (stop: Stop, name: unknown): Promise<void> | undefined {
    const held = this.held.get(String(name))
    if (held === undefined || held.stop !== stop) return undefined
    held.reached()
    return held.released
  }

  /** Releases every request held. */
  open (): void {
    for (const { release } of this.held.values()) release()
    this.held.clear()
  }
}

const latch = new Latch()
const Thing = Type.Object({ name: Type.String(), size: Type.Number(), note: Type.String() })
const NewThing = Type.Object({ name: Type.String(), size: Type.Number() })

/** 2001-01-01 and older: `isApplied` says which of them serves (read in the handler, through every await). */
class ThingsAreNoted extends VersionChangeWithSideEffects {
  description = 'Things carry a note.'
  instructionsToMigrateToPreviousVersion = []
}

/** 2001-01-01 and older lack `size`; their errors are `{ error: { text } }`. Each converter is sync unless held. */
class SizesAndErrors extends VersionChange {
  description = 'Things have a size; errors are problem details.'
  instructionsToMigrateToPreviousVersion = [schema(NewThing).field('size').didntExist, schema(Thing).field('size').didntExist]

  @ConvertRequestToNextVersionFor(NewThing)
  up (request: RequestInfo) {
    const set = (): void => { request.body.size = 1 }
    const held = latch.at('request converter', request.body.name)
    if (held === undefined) set()
    else return held.then(set)
  }

  @ConvertResponseToPreviousVersionFor(Thing)
  down (response: ResponseInfo) {
    const drop = (): void => { delete response.body.size }
    const held = latch.at('response converter', response.headers['x-thing'])
    if (held === undefined) drop()
    else return held.then(drop)
  }

  @ConvertResponseToPreviousVersionFor('/things', ['POST'], { migrateHttpErrors: true })
  errors (response: ResponseInfo) {
    if (response.statusCode < 400) return
    const reshape = (): void => { response.body = { error: { text: response.body.message } } }
    const held = latch.at('error converter', response.headers['x-thing'])
    if (held === undefined) reshape()
    else return held.then(reshape)
  }
}

/** The version the request names; held when the test says so (an account store answering late). */
class SlowAccountPicker extends VersionPicker {
  override pick (request: FastifyRequest) {
    const requested = this.requested(request)
    return latch.at('pick', request.headers['x-name'])?.then(() => requested) ?? requested
  }
}

const OLD = ['2001-01-01', '2000-01-01'] as const

/** What a version answers for a thing named `name` (a `missing-` one is a 404). */
function expected (version: string, name: string): { status: number, body: unknown } {
  if (name.startsWith('missing-')) return { status: 404, body: { error: { text: `No thing named ${name}.` } } }
  return { status: 200, body: { name, note: version === '2001-01-01' ? 'noted' : 'plain' } }
}

/** One request in flight: its answer (status and JSON body, or `'gone'`), and a way to leave it. */
interface Call { readonly answer: Promise<{ status: number, body: unknown } | 'gone'>, leave: () => void }

interface Client { send: (version: string, name: string) => Call, close: () => void }

function http1Client (port: number, maxSockets = 1): Client {
  // One socket at a time by default: later requests reuse the connection pool the left requests were sent on.
  const agent = new http.Agent({ keepAlive: true, maxSockets })
  return {
    send (version, name) {
      let leave = (): void => {}
      const answer = new Promise<{ status: number, body: unknown } | 'gone'>((resolve) => {
        const request = http.request({ port, host: '127.0.0.1', method: 'POST', path: '/things', agent, headers: { 'content-type': 'application/json', 'x-api-version': version, 'x-name': name } }, (response) => {
          let text = ''
          response.setEncoding('utf8')
          response.on('data', (chunk: string) => { text += chunk })
          response.on('end', () => { resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }) })
          response.on('aborted', () => { resolve('gone') })
        })
        request.on('error', () => { resolve('gone') })
        leave = () => { request.destroy() }
        request.end(JSON.stringify({ name }))
      })
      return { answer, leave }
    },
    close: () => { agent.destroy() }
  }
}

function http2Client (port: number): Client {
  const session: ClientHttp2Session = connect(`http://127.0.0.1:${port}`)
  return {
    send (version, name) {
      const stream = session.request({ ':method': 'POST', ':path': '/things', 'content-type': 'application/json', 'x-api-version': version, 'x-name': name })
      const answer = new Promise<{ status: number, body: unknown } | 'gone'>((resolve) => {
        let status = 0
        let text = ''
        stream.setEncoding('utf8')
        stream.on('response', (headers) => { status = Number(headers[':status']) })
        stream.on('data', (chunk: string) => { text += chunk })
        stream.on('end', () => { resolve(status === 0 ? 'gone' : { status, body: JSON.parse(text) }) })
        stream.on('error', () => { resolve('gone') })
        stream.on('close', () => { resolve('gone') })
      })
      stream.end(JSON.stringify({ name }))
      return { answer, leave: () => { stream.close(constants.NGHTTP2_CANCEL) } }
    },
    close: () => { session.close() }
  }
}

/** An app of the versions above, watched: its closed responses and published exchanges by name, its log above info. */
async function watchedApp (http2: boolean, options: { forceCloseConnections?: boolean | 'idle' } = {}) {
  const logged: string[] = []
  const stream = new Writable({ write (chunk, _encoding, done) { logged.push(String(chunk)); done() } })
  const versions = new VersionBundle(new Version('2002-01-01', SizesAndErrors), new Version('2001-01-01', ThingsAreNoted), new Version('2000-01-01'))
  const app = (http2 ? Fastify({ http2: true, logger: { level: 'warn', stream } }) : Fastify({ ...options, logger: { level: 'warn', stream } })) as unknown as FastifyInstance
  await app.register(fastifyVersioner, { versions, openapiUrl: null, versionPicker: SlowAccountPicker, captureExchanges: {} })
  const closed = new Map<string, Promise<void>>()
  app.addHook('onRequest', async (request, reply) => {
    closed.set(String(request.headers['x-name']), new Promise((resolve) => { reply.raw.once('close', resolve) }))
  })
  await app.register(versioned(async (api) => {
    api.post('/things', { schema: { body: NewThing, response: { 200: Thing } } }, async (request, reply: FastifyReply) => {
      const { name, size } = request.body as { name: string, size: number }
      reply.header('x-thing', name)
      await latch.at('handler', name)
      if (name.startsWith('missing-')) return reply.code(404).send({ message: `No thing named ${name}.` })
      return { name, size, note: ThingsAreNoted.isApplied ? 'noted' : 'plain' }
    })
  }))
  const published = new Map<string, (exchange: CapturedExchange) => void>()
  const exchanges = new Map<string, Promise<CapturedExchange>>()
  const listen = (message: unknown): void => {
    const exchange = message as CapturedExchange
    published.get(String(exchange.clientRequest.headers['x-name']))?.(exchange)
  }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', listen)
  /** The exchange of the request named `name`, published once the application answered it. */
  const exchangeOf = (name: string): Promise<CapturedExchange> => {
    exchanges.set(name, new Promise((resolve) => { published.set(name, resolve) }))
    return exchanges.get(name) as Promise<CapturedExchange>
  }
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return { app, versions, port, logged, closed, exchangeOf, stop: () => { diagnosticsChannel.unsubscribe('fastify-versioner:exchange', listen) } }
}

const SEED = Number(process.env.FC_SEED ?? 20261201)
const STOPS: readonly Stop[] = ['pick', 'request converter', 'handler', 'response converter', 'error converter']

for (const transport of ['HTTP/1.1 keep-alive', 'HTTP/2'] as const) {
  test(`over ${transport}, a client leaving wherever a request is held harms no later request, nor one served meanwhile; its exchange is published as answered`, async (t) => {
    const unhandled: unknown[] = []
    const record = (reason: unknown): void => { unhandled.push(reason) }
    process.on('unhandledRejection', record)
    t.teardown(() => { process.off('unhandledRejection', record) })
    const watched = await watchedApp(transport === 'HTTP/2')
    t.teardown(watched.stop)
    const client = (transport === 'HTTP/2' ? http2Client : http1Client)(watched.port)
    const bystanders = (transport === 'HTTP/2' ? http2Client : http1Client)(watched.port)
    let count = 0
    const request = fc.record({ stop: fc.option(fc.constantFrom(...STOPS), { nil: undefined }), leaves: fc.boolean(), version: fc.constantFrom(...OLD) })
    await fc.assert(fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 5 }), async (requests) => {
      for (const { stop, leaves, version } of requests) {
        const name = `${stop === 'error converter' ? 'missing-' : ''}thing-${++count}`
        const held = stop === undefined ? undefined : latch.arm(stop, name)
        const published = watched.exchangeOf(name)
        const call = client.send(version, name)
        if (held !== undefined) {
          await held
          // Served while the other is held: on another connection (HTTP/1.1), on the same session (HTTP/2).
          const other = version === OLD[0] ? OLD[1] : OLD[0]
          t.same(await bystanders.send(other, `bystander-${count}`).answer, expected(other, `bystander-${count}`), `${stop}: a request served meanwhile`)
          if (leaves) {
            call.leave()
            await watched.closed.get(name)
          }
          latch.open()
        }
        const answer = await call.answer
        const exchange = await published
        const right = expected(version, name)
        if (held === undefined || !leaves) t.same(answer, right, `${stop ?? 'not held'}, ${version}: answered in its version`)
        t.same({ status: exchange.clientResponse.status, body: exchange.clientResponse.body }, right, `${stop ?? 'not held'}, ${version}, ${leaves ? 'left' : 'stayed'}: published as answered`)
      }
      t.same(await client.send(OLD[1], `after-${count}`).answer, expected(OLD[1], `after-${count}`), 'the same connection pool serves the next request')
    }), { seed: SEED, numRuns: 12 })
    client.close()
    bystanders.close()
    await watched.app.close()
    t.same(watched.logged, [], 'no warning or error logged (no reply sent twice)')
    t.same(unhandled, [], 'no unhandled rejection')
    t.equal(watched.versions[kBundleInternals].serving.inFlight, 0, 'no request holds the version storage')
  })
}

test('regression: a client leaving while a picker resolves before routing (at a path two HEAD routes share) lets handlerTimeout\'s timer go, as Fastify lets its own go', async (t) => {
  let reached = (): void => {}
  const picking = new Promise<void>((resolve) => { reached = resolve })
  class NeverAnswers extends VersionPicker {
    override pick (request: FastifyRequest) {
      if (request.headers.authorization !== 'stuck') return this.requested(request) ?? '2001-01-01'
      reached()
      return new Promise<string>(() => {})
    }
  }
  const app = Fastify({ handlerTimeout: 100 })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: sharedPathBundle(), versionPicker: NeverAnswers, openapiUrl: null })
  const routed: string[] = []
  app.addHook('onRequest', async (request) => { routed.push(request.url) })
  await app.register(sharedPathRoutes, { prefix: '/api' })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const socketClosed = new Promise((resolve) => { app.server.once('connection', (socket) => { socket.once('close', resolve) }) })
  const address = app.server.address()
  const request = http.get({ port: typeof address === 'object' && address !== null ? address.port : 0, host: '127.0.0.1', path: '/api/items', headers: { authorization: 'stuck' } })
  request.on('error', () => {})
  await picking
  request.destroy()
  await socketClosed
  // Had the timer stayed, it would route the request at 100 ms to answer its 503 to no one (and hold a closing process till then).
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.same(routed, [], 'the request was never routed to answer a 503')
})

for (const forceCloseConnections of [true, false, 'idle', 'HTTP/2'] as const) {
  const label = forceCloseConnections === 'HTTP/2' ? 'over HTTP/2 (its sessions closed gracefully)' : `(forceCloseConnections: ${String(forceCloseConnections)})`
  test(`app.close() ${label} while requests are held at every stop: each is answered in its version or its socket closes, and close resolves`, async (t) => {
    const http2 = forceCloseConnections === 'HTTP/2'
    const watched = await watchedApp(http2, http2 ? {} : { forceCloseConnections })
    t.teardown(watched.stop)
    const client = http2 ? http2Client(watched.port) : http1Client(watched.port, Infinity)
    const held = STOPS.map((stop, index) => {
      const name = `${stop === 'error converter' ? 'missing-' : ''}closing-${index}`
      const version = OLD[index % 2]
      const reached = latch.arm(stop, name)
      return { stop, name, version, reached, published: watched.exchangeOf(name), call: client.send(version, name) }
    })
    await Promise.all(held.map(({ reached }) => reached))
    const closing = watched.app.close()
    // Forced, every connection is closed at once; else each request runs on, its connection open.
    if (forceCloseConnections === true) await Promise.all(held.map(({ name }) => watched.closed.get(name)))
    latch.open()
    for (const { stop, name, version, call, published } of held) {
      const right = expected(version, name)
      t.same(await call.answer, forceCloseConnections === true ? 'gone' : right, `${stop}: ${forceCloseConnections === true ? 'its socket closed' : 'answered in its version'}`)
      const exchange = await published
      t.same({ status: exchange.clientResponse.status, body: exchange.clientResponse.body }, right, `${stop}: its exchange published as answered`)
    }
    // Idle keep-alive connections stay open till their client lets them go or keepAliveTimeout passes, as in plain Fastify.
    client.close()
    await closing
    t.same(watched.logged, [], 'no warning or error logged')
    t.equal(watched.versions[kBundleInternals].serving.inFlight, 0, 'no request holds the version storage')
  })
}

test('a webhook render held in a converter when the app closes: close does not wait for it, and it resolves with each version\'s body, read in its version', async (t) => {
  const Shipped = Type.Object({ id: Type.String(), region: Type.String(), taxed: Type.Optional(Type.Boolean()) })
  class ShipmentsAreTaxed extends VersionChangeWithSideEffects {
    description = 'Shipments are taxed.'
    instructionsToMigrateToPreviousVersion = []
  }
  class ShipmentsHaveRegions extends VersionChange {
    description = 'Shipments carry their region.'
    instructionsToMigrateToPreviousVersion = [schema(Shipped).field('region').didntExist]

    @ConvertResponseToPreviousVersionFor(Shipped, { checkUsage: false })
    async dropRegion (response: ResponseInfo) {
      await latch.at('response converter', response.body.id)
      response.body.taxed = ShipmentsAreTaxed.isApplied
      delete response.body.region
    }
  }
  const versions = new VersionBundle(new Version('2002-01-01', ShipmentsHaveRegions), new Version('2001-01-01', ShipmentsAreTaxed), new Version('2000-01-01'))
  const app = Fastify()
  await app.register(fastifyVersioner, { versions, openapiUrl: null })
  app.versioner.webhooks.add({ name: 'order.shipped', body: Shipped })
  await app.ready()
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
  const reached = latch.arm('response converter', 'o_1')
  let settled = false
  const rendering = app.versioner.webhooks.render('order.shipped', { id: 'o_1', region: 'eu' }, {
    subscribers: [{ id: 'ep_old', version: '2000-01-01', secret }, { id: 'ep_mid', version: '2001-01-01', secret }]
  }).finally(() => { settled = true })
  await reached
  await app.close()
  t.notOk(settled, 'close resolved with the render still held')
  latch.open()
  const { deliveries, failed } = await rendering
  t.same(failed, [])
  t.same(Object.fromEntries(deliveries.map(({ subscriber, body }) => [subscriber.id, JSON.parse(body)])), {
    ep_old: { id: 'o_1', taxed: false },
    ep_mid: { id: 'o_1', taxed: true }
  }, 'each version\'s body, its converter reading its own version')
  t.equal(versions[kBundleInternals].serving.inFlight, 0, 'the render no longer holds the version storage')
})

/** The responses read on a raw connection, in order: status, headers (lower-case names) and body text. */
function responsesOf (text: string): Array<{ status: number, headers: Record<string, string>, body: string }> {
  const responses: Array<{ status: number, headers: Record<string, string>, body: string }> = []
  let rest = text
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n')
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n')
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
    const length = Number(headers['content-length'] ?? 0)
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, body: rest.slice(end + 4, end + 4 + length) })
    rest = rest.slice(end + 4 + length)
  }
  return responses
}

/** Writes `parts` on a new connection (each once the server answered what came before, when `after` says so), and reads till it closes. */
async function exchange (port: number, parts: readonly string[], after: (read: string) => boolean = () => true): Promise<string> {
  const socket = net.connect(port, '127.0.0.1')
  let read = ''
  const closed = new Promise<void>((resolve) => { socket.on('close', () => { resolve() }) })
  socket.on('error', () => {})
  const grown = (): Promise<void> => new Promise((resolve) => { socket.once('data', () => { resolve() }) })
  socket.on('data', (chunk: Buffer) => { read += chunk.toString('latin1') })
  for (const [index, part] of parts.entries()) {
    if (index > 0) while (!after(read)) await grown()
    socket.write(part)
  }
  await closed
  return read
}

test('a body over bodyLimit (sized, chunked, after Expect: 100-continue) is answered 413 in the old version\'s error shape; requestTimeout\'s 408 and a malformed request\'s 400 are Fastify\'s, outside every route', async (t) => {
  // Node checks requestTimeout every connectionsCheckingInterval (30 s by default): made short to see it here.
  const app = Fastify({
    bodyLimit: 100,
    serverFactory: (handler) => http.createServer({ requestTimeout: 200, connectionsCheckingInterval: 20 }, handler)
  })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2002-01-01', SizesAndErrors), new Version('2001-01-01')), openapiUrl: null })
  await app.register(versioned(async (api) => {
    api.post('/things', { schema: { body: NewThing, response: { 200: Thing } } }, async (request) => ({ ...request.body, note: 'plain' }))
  }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  const head = (extra: string): string => `POST /things HTTP/1.1\r\nhost: x\r\nx-api-version: 2001-01-01\r\ncontent-type: application/json\r\nconnection: close\r\n${extra}\r\n`
  const large = JSON.stringify({ name: 'x'.repeat(200) })
  const tooLarge = { status: 413, body: { error: { text: 'Request body is too large' } } }
  const answered = (text: string): Array<{ status: number, version?: string, body: unknown }> =>
    responsesOf(text).map(({ status, headers, body }) => ({ status, version: headers['x-api-version'], body: body === '' ? undefined : JSON.parse(body) }))

  t.same(answered(await exchange(port, [head(`content-length: ${large.length}\r\n`) + large])), [{ ...tooLarge, version: '2001-01-01' }], 'sized')
  t.same(answered(await exchange(port, [head('transfer-encoding: chunked\r\n') + `${large.length.toString(16)}\r\n${large}\r\n0\r\n\r\n`])),
    [{ ...tooLarge, version: '2001-01-01' }], 'chunked')
  const continued = (read: string): boolean => read.includes('100 Continue')
  t.same(answered(await exchange(port, [head('content-length: 14\r\nexpect: 100-continue\r\n'), '{"name":"pen"}'], continued)), [
    { status: 100, version: undefined, body: undefined },
    { status: 200, version: '2001-01-01', body: { name: 'pen', note: 'plain' } }
  ], 'Expect: 100-continue, then the body')
  t.same(answered(await exchange(port, [head(`content-length: ${large.length}\r\nexpect: 100-continue\r\n`), large], continued)), [
    { status: 100, version: undefined, body: undefined },
    { ...tooLarge, version: '2001-01-01' }
  ], 'Expect: 100-continue, then a body too large')
  t.same(answered(await exchange(port, [head('content-length: 14\r\n') + '{"name":'])),
    [{ status: 408, version: undefined, body: { error: 'Request Timeout', message: 'Client Timeout', statusCode: 408 } }], 'a body never finished: Fastify\'s 408')
  t.same(answered(await exchange(port, ['POST /things HTTP/1.1\r\nx-api-version: 2001-01-01\r\ncontent-length: nope\r\n\r\n'])),
    [{ status: 400, version: undefined, body: { error: 'Bad Request', message: 'Client Error', statusCode: 400 } }], 'a malformed request: Fastify\'s 400')
})
