// One request never affects another, one application never affects another: state shared between requests, apps and bundles.
import { AsyncLocalStorage } from 'node:async_hooks'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { test, type Test } from 'tap'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { taxedPrices } from '../helpers/version-changes'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, fastifyVersioner, schema, versioned, Version, VersionBundle, VersionChange,
  VersionChangeWithSideEffects, migrateResponseBody, renderWebhook, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** True once nothing holds the target of `ref` (garbage collection given a few turns). */
async function collected (ref: WeakRef<object>): Promise<boolean> {
  for (let turn = 0; turn < 10; turn++) {
    await new Promise((resolve) => setImmediate(resolve))
    gc()
    if (ref.deref() === undefined) return true
  }
  return false
}

class SendsWelcomeEmail extends VersionChangeWithSideEffects {
  description = 'Creating a user sends a welcome email.'
  instructionsToMigrateToPreviousVersion = []
}

/** Builds an app with its own bundle (as a factory does), serves one old-version request, closes; gives weak references to the bundle and its storage. */
async function buildServeClose (): Promise<{ bundle: WeakRef<object>, storage: WeakRef<object>, applied: boolean }> {
  const versions = new VersionBundle(new Version('2001-01-01', SendsWelcomeEmail), new Version('2000-01-01'))
  const app = Fastify()
  await app.register(fastifyVersioner, { versions })
  await app.register(versioned(async (api) => {
    api.get('/effects', { schema: { response: { 200: Type.Object({ applied: Type.Boolean() }) } } }, async () => ({ applied: SendsWelcomeEmail.isApplied }))
  }))
  const response = await app.inject({ url: '/effects', headers: { 'x-api-version': '2000-01-01' } })
  await app.close()
  return { bundle: new WeakRef(versions), storage: new WeakRef(versions.apiVersionStorage), applied: (response.json() as { applied: boolean }).applied }
}

test('regression: an app closed lets its bundle and its version storage go (a test suite building an app and a bundle per test)', async (t) => {
  const built = await buildServeClose()
  t.equal(built.applied, false, 'the request saw its version')
  t.ok(await collected(built.storage), 'the bundle\'s version storage was collected once its app closed')
  t.ok(await collected(built.bundle), 'the bundle was collected once its app closed')
  t.equal(SendsWelcomeEmail.isApplied, true, 'outside any request, the class still answers')
})

test('two apps serving one bundle: closing one leaves the other\'s requests their version, and a new app built after both closed serves it', async (t) => {
  const versions = new VersionBundle(new Version('2001-01-01', SendsWelcomeEmail), new Version('2000-01-01'))
  let release = (): void => {}
  const held = new Promise<void>((resolve) => { release = resolve })
  const build = async (): Promise<ReturnType<typeof Fastify>> => {
    const app = Fastify()
    await app.register(fastifyVersioner, { versions })
    await app.register(versioned(async (api) => {
      api.get('/effects', async (request) => {
        if (request.headers['x-hold'] === 'yes') await held
        return { applied: SendsWelcomeEmail.isApplied }
      })
    }))
    return app
  }
  const first = await build()
  const second = await build()
  t.teardown(() => second.close())
  await first.inject({ url: '/effects', headers: { 'x-api-version': '2000-01-01' } })
  const inFlight = second.inject({ url: '/effects', headers: { 'x-api-version': '2000-01-01', 'x-hold': 'yes' } })
  await new Promise((resolve) => setTimeout(resolve, 20))
  await first.close()
  release()
  t.same((await inFlight).json(), { applied: false }, 'the request in flight in the other app still sees its version')
  await second.close()

  const third = await build()
  t.teardown(() => third.close())
  t.same((await third.inject({ url: '/effects', headers: { 'x-api-version': '2000-01-01' } })).json(), { applied: false })
  t.same((await third.inject({ url: '/effects', headers: { 'x-api-version': '2001-01-01' } })).json(), { applied: true })
})

const Order = Type.Object({ id: Type.String(), total: Type.Integer() })
const OrderIn = Type.Object({ total: Type.Integer() })

/** Two clients' old-version requests at once through `change` (whose converters keep a value on `this`): each gets a logged 500, never the other's value. */
async function twoClientsAtOnce (t: Test, change: VersionChangeClass, what: string): Promise<void> {
  const versions = new VersionBundle(new Version('2001-01-01', change), new Version('2000-01-01'))
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions })
  await app.register(versioned(async (api) => {
    api.post('/orders', { schema: { body: OrderIn, response: { 200: Order } } }, async (request) => {
      await new Promise((resolve) => setTimeout(resolve, request.headers['x-client'] === 'a' ? 30 : 0))
      return { id: String(request.headers['x-client']), total: 1 }
    })
  }))
  const [a, b] = await Promise.all(['a', 'b'].map((client) =>
    app.inject({ method: 'POST', url: '/orders', headers: { 'x-api-version': '2000-01-01', 'x-client': client }, payload: { total: 1 } })))
  for (const [client, response] of [['a', a], ['b', b]] as const) {
    t.not(response.headers['x-client'], client === 'a' ? 'b' : 'a', `client ${client} is not given the other client's value`)
    t.equal(response.statusCode, 500, `client ${client}: ${what} writing on \`this\` is a logged 500`)
  }
}

test('regression: a converter keeping a request\'s value on `this` (shared by every request) fails loudly instead of answering another client with it', async (t) => {
  class TotalInCents extends VersionChange {
    description = 'total is in cents.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor(OrderIn)
    remember (request: RequestInfo) {
      // The mistake: the instance is shared by every request (and every app serving the bundle).
      ;(this as unknown as { client: unknown }).client = request.headers['x-client']
    }

    @ConvertResponseToPreviousVersionFor(Order)
    answer (response: ResponseInfo) {
      response.headers['x-client'] = String((this as unknown as { client: unknown }).client)
    }
  }
  await twoClientsAtOnce(t, TotalInCents, 'the converter')
})

test('regression: a static converter keeping a request\'s value on `this` (the class, shared by every request) fails loudly as an instance one does', async (t) => {
  class StaticTotalInCents extends VersionChange {
    description = 'total is in cents.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor(OrderIn)
    static remember (request: RequestInfo) {
      ;(this as unknown as { client: unknown }).client = request.headers['x-client']
    }

    @ConvertResponseToPreviousVersionFor(Order)
    static answer (response: ResponseInfo) {
      response.headers['x-client'] = String((this as unknown as { client: unknown }).client)
    }
  }
  await twoClientsAtOnce(t, StaticTotalInCents, 'the static converter')
  // the class stays the user's: a spy may still replace and restore a method (decision 0135)
  const original = StaticTotalInCents.answer
  t.doesNotThrow(() => { StaticTotalInCents.answer = original })
})

test('work a request starts keeps its version (a fire-and-forget email); shared work started inside apiVersionStorage.exit() sees none', async (t) => {
  const versions = new VersionBundle(new Version('2001-01-01', SendsWelcomeEmail), new Version('2000-01-01'))
  const seen: Record<string, boolean> = {}
  let refresher: Promise<boolean> | undefined
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions })
  await app.register(versioned(async (api) => {
    api.get('/signup', async () => {
      setImmediate(() => { seen.email = SendsWelcomeEmail.isApplied })
      // A shared cache refresher started lazily by the first request: outside the request's version.
      refresher ??= versions.apiVersionStorage.exit(() => new Promise((resolve) => setTimeout(() => { resolve(SendsWelcomeEmail.isApplied) }, 5)))
      return { ok: true }
    })
  }))
  await app.inject({ url: '/signup', headers: { 'x-api-version': '2000-01-01' } })
  await new Promise((resolve) => setTimeout(resolve, 10))
  t.equal(seen.email, false, 'the email the old client\'s request started follows its version')
  t.equal(await refresher, true, 'the shared refresher runs as outside any request')
})

test('regression: an old-version request still running when its app closes keeps its version (forceCloseConnections), and the storage is let go after it', async (t) => {
  class UsersGetWelcomeEmail extends VersionChangeWithSideEffects {
    description = 'Creating a user sends a welcome email.'
    instructionsToMigrateToPreviousVersion = []
  }
  const versions = new VersionBundle(new Version('2001-01-01', UsersGetWelcomeEmail), new Version('2000-01-01'))
  const emailed: boolean[] = []
  let started = (): void => {}
  const running = new Promise<void>((resolve) => { started = resolve })
  let finished = (): void => {}
  const done = new Promise<void>((resolve) => { finished = resolve })
  const app = Fastify({ forceCloseConnections: true })
  await app.register(fastifyVersioner, { versions })
  await app.register(versioned(async (api) => {
    api.post('/users', { schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async () => {
      started()
      await new Promise((resolve) => setTimeout(resolve, 100))
      emailed.push(UsersGetWelcomeEmail.isApplied)
      setImmediate(finished)
      return { ok: true }
    })
  }))
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  fetch(`${address}/users`, { method: 'POST', headers: { 'x-api-version': '2000-01-01' } }).catch(() => {})
  await running
  await app.close()
  await done
  t.same(emailed, [false], 'the request in flight read its own version, not the newest')
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(versions.apiVersionStorage.run('2000-01-01', () => UsersGetWelcomeEmail.isApplied), false, 'a later run still works')
})

test('regression: a request Fastify never runs onSend for (hijacked, its client gone mid-stream, answered 503 by handlerTimeout while its converter ran), or whose client left before its version was picked, lets its closed app\'s storage go', async (t) => {
  const Thing = Type.Object({ name: Type.String() })
  class SlowLookup extends VersionChangeWithSideEffects {
    description = 'Things are looked up.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor(Thing)
    async lookUp (_request: RequestInfo) { await new Promise((resolve) => setTimeout(resolve, 100)) }
  }
  /** Builds an app with its own bundle, lets `serve` send its requests, closes it: gives a weak reference to the storage. */
  const serveAndClose = async (serve: (app: ReturnType<typeof Fastify>, base: string) => Promise<unknown>): Promise<WeakRef<object>> => {
    const versions = new VersionBundle(new Version('2001-01-01', SlowLookup), new Version('2000-01-01'))
    const app = Fastify({ handlerTimeout: 50, forceCloseConnections: true })
    await app.register(fastifyVersioner, { versions, openapiUrl: null })
    app.addHook('onRequest', async (request) => { if (request.headers['x-slow-auth'] === 'yes') await new Promise((resolve) => setTimeout(resolve, 100)) })
    await app.register(versioned(async (api) => {
      api.post('/things', { schema: { body: Thing } }, async (request) => request.body)
      api.get('/hijacked', (_request, reply) => { reply.hijack(); reply.raw.end('{}') })
      api.get('/things', async () => [])
      api.get('/raw-events', async (_request, reply) => { reply.raw.writeHead(200, { 'content-type': 'text/event-stream' }); reply.raw.write('data: 1\n\n'); return reply })
      api.get('/events', (_request, reply) => { reply.hijack(); reply.raw.writeHead(200, { 'content-type': 'text/event-stream' }); reply.raw.write('data: 1\n\n') })
    }))
    await serve(app, await app.listen({ port: 0, host: '127.0.0.1' }))
    await app.close()
    return new WeakRef(versions.apiVersionStorage)
  }
  const cases: Record<string, (app: ReturnType<typeof Fastify>, base: string) => Promise<unknown>> = {
    'a hijacked reply': (app) => app.inject({ url: '/hijacked', headers: { 'x-api-version': '2000-01-01' } }),
    'an event stream its client left': async (_app, base) => {
      const aborting = new AbortController()
      const response = await fetch(`${base}/events`, { headers: { 'x-api-version': '2000-01-01' }, signal: aborting.signal })
      await response.body?.getReader().read()
      aborting.abort()
      await new Promise((resolve) => setTimeout(resolve, 50))
    },
    'an event stream written on reply.raw (not hijacked) its client left': async (_app, base) => {
      const aborting = new AbortController()
      const response = await fetch(`${base}/raw-events`, { headers: { 'x-api-version': '2000-01-01' }, signal: aborting.signal })
      await response.body?.getReader().read()
      aborting.abort()
      await new Promise((resolve) => setTimeout(resolve, 50))
    },
    'a client gone before its version was picked (an authentication hook awaiting)': async (_app, base) => {
      await fetch(`${base}/things`, { headers: { 'x-api-version': '2000-01-01', 'x-slow-auth': 'yes' }, signal: AbortSignal.timeout(20) }).catch(() => undefined)
      await new Promise((resolve) => setTimeout(resolve, 150))
    },
    'a 503 sent while its request converter ran': async (app) => {
      const response = await app.inject({ method: 'POST', url: '/things', headers: { 'x-api-version': '2000-01-01' }, payload: { name: 'pen' } })
      t.equal(response.statusCode, 503)
      await new Promise((resolve) => setTimeout(resolve, 150))
    }
  }
  for (const [label, serve] of Object.entries(cases)) {
    t.ok(await collected(await serveAndClose(serve)), `${label}: the storage was collected once its app closed`)
  }
})

test('regression: a request converter (and code it awaits, a lookup) reads isApplied in the request\'s version, as the handler and response converters do', async (t) => {
  const Order = Type.Object({ id: Type.String(), region: Type.Optional(Type.String()) })
  const seen: Array<[string, boolean]> = []
  class OrdersHaveRegions extends VersionChangeWithSideEffects {
    description = 'Orders have a region, looked up from the account.'
    instructionsToMigrateToPreviousVersion = []
  }
  class RegionAdded extends VersionChange {
    description = 'Orders carry their region.'
    instructionsToMigrateToPreviousVersion = [schema(Order).field('region').didntExist]

    @ConvertRequestToNextVersionFor(Order)
    async lookUpRegion (request: RequestInfo) {
      seen.push(['request converter', OrdersHaveRegions.isApplied])
      await new Promise((resolve) => setTimeout(resolve, 5))
      seen.push(['after its lookup', OrdersHaveRegions.isApplied])
      request.body.region = 'eu'
    }

    @ConvertResponseToPreviousVersionFor(Order)
    dropRegion (_response: ResponseInfo) { seen.push(['response converter', OrdersHaveRegions.isApplied]) }
  }
  const versions = new VersionBundle(new Version('2002-01-01', RegionAdded), new Version('2001-01-01', OrdersHaveRegions), new Version('2000-01-01'))
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions, openapiUrl: null })
  await app.register(versioned(async (api) => {
    api.post('/orders', { schema: { body: Order, response: { 200: Order } } }, async (request) => {
      seen.push(['handler', OrdersHaveRegions.isApplied])
      return request.body
    })
  }))
  for (const [version, applied] of [['2001-01-01', true], ['2000-01-01', false]] as const) {
    seen.length = 0
    await app.inject({ method: 'POST', url: '/orders', headers: { 'x-api-version': version }, payload: { id: 'o1' } })
    t.same(seen, [['request converter', applied], ['after its lookup', applied], ['handler', applied], ['response converter', applied]], version)
  }
})

test('regression: a worker rendering webhooks without serving runs each render in its version and lets the bundle\'s storage go after it', async (t) => {
  /** Renders in a worker's way (its own bundle, no app): gives what 2000-01-01 got and weak references to the bundle and its storage. */
  const renderInWorker = async (): Promise<{ bodies: unknown[], bundle: WeakRef<object>, storage: WeakRef<object> }> => {
    const { Price, versions } = taxedPrices(async () => await new Promise((resolve) => setTimeout(resolve, 10)))
    const subscribers = [{ id: 'ep_1', version: '2000-01-01', secret: `whsec_${Buffer.from('a secret of twenty-four!').toString('base64')}` }]
    const bodies: unknown[] = []
    for (let round = 0; round < 3; round++) {
      // A render still running when another (a shorter, synchronous path) ends keeps its version.
      const running = renderWebhook(versions, { name: 'price.changed', body: Price }, { amount: 12 }, { subscribers })
      bodies.push(migrateResponseBody(versions, Type.Object({ id: Type.String() }), { latestBody: { id: 'x' }, version: '2000-01-01' }))
      bodies.push(JSON.parse((await running).deliveries[0].body))
    }
    return { bodies, bundle: new WeakRef(versions), storage: new WeakRef(versions.apiVersionStorage) }
  }
  const { bodies, bundle, storage } = await renderInWorker()
  t.same(bodies, [{ id: 'x' }, { amount: 10 }, { id: 'x' }, { amount: 10 }, { id: 'x' }, { amount: 10 }], 'every render in 2000-01-01')
  t.ok(await collected(bundle), 'the bundle was let go once the renders ended')
  // From Node.js 24 on, AsyncLocalStorage is built on async context frames: run() outside any store leaves the storage
  // a key (its value undefined) of the caller's frame, which holds that small object, not the bundle, while the
  // caller's async chain lives; nor does an enabled storage cost other async work there, as async hooks do before.
  if (!AsyncLocalStorage.prototype.enterWith.toString().includes('AsyncContextFrame')) {
    t.ok(await collected(storage), 'the storage was let go once the renders ended')
  }
})

test('a worker\'s job running in a version (apiVersionStorage.run) keeps it after a render inside it ends', async (t) => {
  const Price = Type.Object({ amount: Type.Number() })
  class PricesIncludeTax extends VersionChangeWithSideEffects { description = 'Prices include tax.'; instructionsToMigrateToPreviousVersion = [] }
  class AmountRenamed extends VersionChange {
    description = 'Prices carry their amount.'
    instructionsToMigrateToPreviousVersion = [schema(Price).field('amount').had({ name: 'total' })]
    @ConvertResponseToPreviousVersionFor(Price)
    async toTotal (response: ResponseInfo) {
      await new Promise((resolve) => setImmediate(resolve))
      response.body.total = response.body.amount
      delete response.body.amount
    }
  }
  const versions = new VersionBundle(new Version('2002-01-01', AmountRenamed), new Version('2001-01-01', PricesIncludeTax), new Version('2000-01-01'))
  const job = await versions.apiVersionStorage.run('2000-01-01', async () => {
    const body = await migrateResponseBody(versions, Price, { latestBody: { amount: 12 }, version: '2001-01-01' })
    await new Promise((resolve) => setTimeout(resolve, 5))
    return { body, applied: PricesIncludeTax.isApplied }
  })
  t.same(job, { body: { total: 12 }, applied: false }, 'the job still reads 2000-01-01 after the render ended')
})
