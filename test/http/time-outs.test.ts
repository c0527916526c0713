/**
 * Time-outs: a converter that never settles must not hold a request for ever. Fastify's `handlerTimeout` covers
 * the versioner's hooks (request converters run in `preValidation`, response converters in `preSerialization`
 * and `onSend`): the request answers Fastify's 503 and the other requests are served.
 */
import { Agent, request as httpRequest } from 'node:http'
import { test } from 'tap'
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, fastifyVersioner, schema, Version, VersionBundle, VersionChange, versioned, VersionPicker,
  type RequestInfo, type ResponseInfo
} from '../../plugin'
import { jsonOf } from '../helpers/http'
import { listen, sharedPathBundle, sharedPathRoutes } from '../helpers/http-apps'

const Thing = Type.Object({ name: Type.String(), size: Type.Optional(Type.Number()) })

test('a request or response converter that never settles answers handlerTimeout\'s 503; other requests are served', async (t) => {
  class AddSize extends VersionChange {
    description = 'Things have a size.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('size').didntExist]

    @ConvertRequestToNextVersionFor(Thing)
    up (request: RequestInfo) {
      if (request.body.name === 'stuck on the way in') return new Promise<void>(() => {})
    }

    @ConvertResponseToPreviousVersionFor(Thing)
    down (response: ResponseInfo) {
      if (response.body.name === 'stuck on the way out') return new Promise<void>(() => {})
    }
  }
  const app = Fastify({ handlerTimeout: 200 })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', AddSize), new Version('2000-01-01')), openapiUrl: null })
  await app.register(versioned(async (api) => {
    api.post('/things', { schema: { body: Thing, response: { 200: Thing } } }, async (request) => request.body)
  }))
  const post = (name: string) => app.inject({ method: 'POST', url: '/things', headers: { 'x-api-version': '2000-01-01' }, payload: { name } })
  const [stuckIn, stuckOut, fine] = await Promise.all([post('stuck on the way in'), post('stuck on the way out'), post('pen')])
  for (const [label, response] of [['request converter', stuckIn], ['response converter', stuckOut]] as const) {
    t.equal(response.statusCode, 503, label)
    t.equal(jsonOf(response).code, 'FST_ERR_HANDLER_TIMEOUT', label)
  }
  t.equal(fine.statusCode, 200)
  t.same(jsonOf(fine), { name: 'pen' })
})

test('regression: a custom picker that never settles at a path two HEAD routes share answers handlerTimeout\'s 503 (it runs before routing)', async (t) => {
  const app = Fastify({ handlerTimeout: 100 })
  t.teardown(() => app.close())
  class StuckForSomeKeys extends VersionPicker {
    override pick (request: FastifyRequest) {
      return request.headers.authorization === 'stuck' ? new Promise<string>(() => {}) : this.requested(request) ?? '2001-01-01'
    }
  }
  await app.register(fastifyVersioner, { versions: sharedPathBundle(), versionPicker: StuckForSomeKeys })
  await app.register(sharedPathRoutes, { prefix: '/api' })
  // Without the bound, the stuck request would hang the test: close the app (ending it) after a while.
  const timer = setTimeout(() => { app.close().catch(() => undefined) }, 5000)
  t.teardown(() => { clearTimeout(timer) })
  const [stuck, served] = await Promise.all([
    app.inject({ url: '/api/items', headers: { authorization: 'stuck' } }),
    app.inject({ url: '/api/items', headers: { authorization: 'fine' } })
  ])
  t.equal(stuck.statusCode, 503)
  t.equal(jsonOf(stuck).code, 'FST_ERR_HANDLER_TIMEOUT')
  t.same(jsonOf(served), { handler: 'old', version: '2001-01-01' }, 'another request is served')
})

test('over a real connection, a POST whose request converter never settles ends: handlerTimeout\'s 503, or (Fastify stops that timer once the body is read, fastify#6725) connectionTimeout closing the socket', async (t) => {
  class Stuck extends VersionChange {
    description = 'Things have a size.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('size').didntExist]

    @ConvertRequestToNextVersionFor(Thing)
    up (request: RequestInfo) {
      if (request.body.name === 'stuck') return new Promise<void>(() => {})
    }
  }
  const app = Fastify({ handlerTimeout: 100, connectionTimeout: 400 })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', Stuck), new Version('2000-01-01')), openapiUrl: null })
  await app.register(versioned(async (api) => {
    api.post('/things', { schema: { body: Thing, response: { 200: Thing } } }, async (request) => request.body)
  }))
  const base = await listen(app)
  const post = async (name: string): Promise<string> => {
    try {
      const response = await fetch(`${base}/things`, { method: 'POST', headers: { 'x-api-version': '2000-01-01', 'content-type': 'application/json' }, body: JSON.stringify({ name }) })
      return `${response.status} ${await response.text()}`
    } catch {
      return 'socket closed'
    }
  }
  const [stuck, fine] = await Promise.all([post('stuck'), post('pen')])
  t.ok(stuck === 'socket closed' || stuck.startsWith('503 '), `the stuck request ended: ${stuck}`)
  t.equal(fine, '200 {"name":"pen"}', 'another request is served')
})

test('regression: a slow error converter (or JSON text success, or upgrade preview) still running when handlerTimeout answers leaves no unhandled rejection, which would end the process', async (t) => {
  const unhandled: unknown[] = []
  const record = (reason: unknown): void => { unhandled.push(reason) }
  process.on('unhandledRejection', record)
  t.teardown(() => { process.off('unhandledRejection', record) })
  const slow = (): Promise<unknown> => new Promise((resolve) => setTimeout(resolve, 150))
  class SlowOnTheWayOut extends VersionChange {
    description = 'Things have a size.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('size').didntExist]

    @ConvertResponseToPreviousVersionFor('/things/:name', ['GET'], { migrateHttpErrors: true })
    async lookUp (_response: ResponseInfo) { await slow() }
  }
  // The versioner's send hook is the last onSend hook without the upgrade preview, the preview's with it.
  for (const upgradePreview of [undefined, { access: () => true }]) {
    const app = Fastify({ handlerTimeout: 50, logger: { level: 'fatal' } })
    t.teardown(() => app.close())
    await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', SlowOnTheWayOut), new Version('2000-01-01')), openapiUrl: null, upgradePreview })
    await app.register(versioned(async (api) => {
      api.get('/things/:name', { schema: { response: { 200: Thing } } }, async (request, reply: FastifyReply) => {
        const { name } = request.params as { name: string }
        if (name === 'missing') return reply.code(404).send({ message: 'no such thing' })
        return name === 'text' ? reply.type('application/json').send(JSON.stringify({ name })) : { name }
      })
    }))
    const base = await listen(app)
    const cases: Array<[string, Record<string, string>]> = upgradePreview === undefined
      ? [['missing', { 'x-api-version': '2000-01-01' }], ['text', { 'x-api-version': '2000-01-01' }]]
      : [['previewed', { 'x-api-version': '2001-01-01', 'x-api-version-preview': '2000-01-01' }]]
    for (const [name, headers] of cases) {
      const response = await fetch(`${base}/things/${name}`, { headers })
      t.equal(response.status, 503, name)
      await response.text()
      await slow()
      await slow()
    }
  }
  t.same(unhandled.map(String), [], 'no unhandled rejection')
})

test('regression: handlerTimeout\'s 503 sent while a converter\'s promise is pending passes no converter (decision 0158): an error converter that never settles no longer holds it for ever', async (t) => {
  const Item = Type.Object({ name: Type.String(), size: Type.Optional(Type.Number()) })
  class LookUps extends VersionChange {
    description = 'Items have a size; errors were { error: { text } }.'
    instructionsToMigrateToPreviousVersion = [schema(Item).field('size').didntExist]

    @ConvertRequestToNextVersionFor(Item)
    up (request: RequestInfo) {
      if (request.body.name === 'stuck on the way in') return new Promise<void>(() => {})
    }

    /** A lookup for every answer, successes and errors, that hangs for some. */
    @ConvertResponseToPreviousVersionFor(Item, { migrateHttpErrors: true })
    lookUp (response: ResponseInfo) {
      if (response.body.name === 'hangs everywhere') return new Promise<void>(() => {})
    }

    @ConvertResponseToPreviousVersionFor('/items', ['POST'], { migrateHttpErrors: true })
    errors (response: ResponseInfo) {
      if (response.statusCode < 400) return
      if (response.body.message === 'no such item: error lookup hangs') return new Promise<void>(() => {})
      response.body = { error: { text: response.body.message } }
    }
  }
  const app = Fastify({ handlerTimeout: 100, logger: { level: 'fatal' } })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', LookUps), new Version('2000-01-01')), openapiUrl: null })
  await app.register(versioned(async (api) => {
    api.post('/items', { schema: { body: Item, response: { 200: Item } } }, async (request, reply: FastifyReply) => {
      const { name } = request.body as { name: string }
      if (name === 'slow handler') await new Promise<void>(() => {})
      if (name.startsWith('no such item')) return reply.code(404).send({ message: name })
      return { name }
    })
  }))
  const post = async (name: string): Promise<{ status: number, body: unknown } | 'never answered'> => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const bound = new Promise<'never answered'>((resolve) => { timer = setTimeout(() => { resolve('never answered') }, 3000) })
    const response = await Promise.race([app.inject({ method: 'POST', url: '/items', headers: { 'x-api-version': '2000-01-01' }, payload: { name } }), bound])
    clearTimeout(timer)
    return response === 'never answered' ? response : { status: response.statusCode, body: response.json() }
  }
  const timedOut = (await app.inject({ method: 'POST', url: '/items', headers: { 'x-api-version': '2001-01-01' }, payload: { name: 'slow handler' } })).json()
  t.equal(timedOut.code, 'FST_ERR_HANDLER_TIMEOUT')
  const asFastifySends = { status: 503, body: timedOut }
  t.same(await post('no such item: error lookup hangs'), asFastifySends, 'the error converter that hangs is not run again on the 503')
  t.same(await post('hangs everywhere'), asFastifySends, 'a success\'s converter that hangs, which converts errors too, is not run again on the 503')
  t.same(await post('stuck on the way in'), asFastifySends, 'a request converter pending: the 503 passes no converter either')
  t.same(await post('slow handler'), { status: 503, body: { error: { text: timedOut.message } } }, 'no converter pending (a slow handler): the 503 is the version\'s error')
  t.same(await post('no such item'), { status: 404, body: { error: { text: 'no such item' } } }, 'other errors are the version\'s')
})

test('converters read request.signal: aborted when handlerTimeout passes, so what they await can stop', async (t) => {
  const seen: Array<{ side: string, reason: unknown }> = []
  const stopped = (signal: AbortSignal | undefined, side: string) => new Promise<void>((resolve, reject) => {
    if (signal === undefined) return reject(new Error('no signal'))
    signal.addEventListener('abort', () => { seen.push({ side, reason: (signal.reason as { code?: string }).code }); resolve() }, { once: true })
  })
  class AddSize extends VersionChange {
    description = 'Things have a size.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('size').didntExist]

    @ConvertRequestToNextVersionFor(Thing)
    up (request: RequestInfo) {
      if (request.body.name === 'slow on the way in') return stopped(request.signal, 'request')
    }

    @ConvertResponseToPreviousVersionFor(Thing)
    down (response: ResponseInfo) {
      if (response.body.name === 'slow on the way out') return stopped(response.signal, 'response')
    }
  }
  const app = Fastify({ handlerTimeout: 100 })
  t.teardown(() => app.close())
  let handlerSignal: AbortSignal | undefined
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', AddSize), new Version('2000-01-01')), openapiUrl: null })
  await app.register(versioned(async (api) => {
    api.post('/things', { schema: { body: Thing, response: { 200: Thing } } }, async (request) => {
      handlerSignal = request.signal
      return request.body
    })
  }))
  const post = (name: string) => app.inject({ method: 'POST', url: '/things', headers: { 'x-api-version': '2000-01-01' }, payload: { name } })
  const [slowIn, slowOut, fine] = await Promise.all([post('slow on the way in'), post('slow on the way out'), post('pen')])
  t.equal(slowIn.statusCode, 503)
  t.equal(slowOut.statusCode, 503)
  t.same(jsonOf(fine), { name: 'pen' })
  t.same(seen.map(({ side }) => side).sort(), ['request', 'response'], 'both converters saw their request\'s signal abort')
  t.same(seen.map(({ reason }) => reason), ['FST_ERR_HANDLER_TIMEOUT', 'FST_ERR_HANDLER_TIMEOUT'])
  t.ok(handlerSignal instanceof AbortSignal, 'the handler reads the same Fastify signal')
})

test('regression: a stale copy an error handler sends for handlerTimeout\'s 503 while a converter is pending reached an old client as HEAD\'s (JSON text) or waited on converters (an object): a logged 500', async (t) => {
  class NameWasLabel extends VersionChange {
    description = 'A thing\'s name was its label; every converter waits on a rate service that stopped answering.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('name').had({ name: 'label' })]

    @ConvertRequestToNextVersionFor('/things/:id', ['GET'])
    up (request: RequestInfo) {
      if (request.headers['x-stuck'] === 'request') return new Promise<void>(() => {})
    }

    @ConvertResponseToPreviousVersionFor(Thing)
    down (response: ResponseInfo) {
      // The outage: every answer but the healthy one waits for ever, the stale copy included.
      if (response.body.name !== 'pen') return new Promise<void>(() => {})
      response.body.label = response.body.name
      delete response.body.name
    }
  }
  for (const form of ['an object', 'JSON text']) {
    const logged: string[] = []
    const app = Fastify({ handlerTimeout: 100, logger: { level: 'error', stream: { write: (line: string) => { logged.push(line) } } } })
    t.teardown(() => app.close())
    await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', NameWasLabel), new Version('2000-01-01')), openapiUrl: null })
    await app.register(versioned(async (api) => {
      api.setErrorHandler(async (_error, _request, reply) => {
        const stale = { name: 'a stale thing' }
        return form === 'an object' ? await reply.code(200).send(stale) : await reply.code(200).type('application/json').send(JSON.stringify(stale))
      })
      api.get('/things/:id', { schema: { response: { 200: Thing } } }, async (request) => ({ name: (request.params as { id: string }).id }))
    }))
    for (const [where, url, headers] of [['request', '/things/pen', { 'x-stuck': 'request' }], ['response', '/things/cup', {}]] as const) {
      const answer = await Promise.race([
        app.inject({ url, headers: { 'x-api-version': '2000-01-01', ...headers } }),
        new Promise<'never answered'>((resolve) => { setTimeout(() => { resolve('never answered') }, 1000) })
      ])
      t.not(answer, 'never answered', `${form}, a ${where} converter pending: answered`)
      if (answer === 'never answered') continue
      t.same([answer.statusCode, jsonOf(answer).code], [500, 'FST_VERSIONER_CONVERTER_FAILED'], `${form}, a ${where} converter pending: a 500, never HEAD's name`)
    }
    t.equal(logged.filter((line) => line.includes('while one of its converters was still pending')).length, 2, `${form}: each 500 is logged`)
    const healthy = await app.inject({ url: '/things/pen', headers: { 'x-api-version': '2000-01-01' } })
    t.same(jsonOf(healthy), { label: 'pen' }, `${form}: a request no converter holds is converted`)
  }
})

test('while app.close() drains, a request on an open connection gets Fastify\'s own 503 before any hook; return503OnClosing: false serves it in its version', async (t) => {
  const ErrorBody = Type.Object({ statusCode: Type.Integer(), error: Type.String(), message: Type.String() })
  class ErrorsSaidDetail extends VersionChange {
    description = 'Error bodies said detail where they now say message.'
    instructionsToMigrateToPreviousVersion = [schema(ErrorBody).field('message').had({ name: 'detail' })]

    @ConvertResponseToPreviousVersionFor(ErrorBody, { migrateHttpErrors: true })
    detail (response: ResponseInfo) {
      response.body.detail = response.body.message
      delete response.body.message
    }
  }
  const answers = async (return503OnClosing: boolean): Promise<Array<[number | undefined, unknown, string]>> => {
    const app = Fastify({ return503OnClosing })
    t.teardown(() => app.close())
    // Fastify marks itself closing, runs its preClose hooks, then stops its server: this hook holds it in between.
    let closing = (): void => {}
    const closingStarted = new Promise<void>((resolve) => { closing = resolve })
    let release = (): void => {}
    const released = new Promise<void>((resolve) => { release = resolve })
    app.addHook('preClose', async () => {
      closing()
      await released
    })
    await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', ErrorsSaidDetail), new Version('2000-01-01')), openapiUrl: null })
    await app.register(versioned(async (api) => {
      api.get('/drain', { schema: { response: { 200: Type.Object({ served: Type.Boolean() }), '5xx': ErrorBody } } }, async () => ({ served: true }))
    }))
    const base = new URL(await listen(app))
    // One kept-alive connection: the second request arrives on it once the shutdown started.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    t.teardown(() => { agent.destroy() })
    const get = async (): Promise<[number | undefined, unknown, string]> => await new Promise((resolve, reject) => {
      httpRequest({ host: base.hostname, port: base.port, path: '/drain', agent, headers: { 'x-api-version': '2000-01-01' } }, (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => { text += chunk })
        response.on('end', () => { resolve([response.statusCode, response.headers['x-api-version'], text]) })
      }).on('error', reject).end()
    })
    const before = await get()
    const closed = app.close()
    await closingStarted
    const during = await get()
    release()
    await closed
    return [before, during]
  }
  const [first, drained] = await answers(true)
  t.same(first, [200, '2000-01-01', '{"served":true}'])
  t.same([drained[0], drained[1], JSON.parse(drained[2])], [503, undefined, { error: 'Service Unavailable', message: 'Service Unavailable', statusCode: 503 }],
    'Fastify\'s 503, in its own shape: no version header, no error converter (README, time-outs)')
  const [, served] = await answers(false)
  t.same(served, [200, '2000-01-01', '{"served":true}'], 'return503OnClosing: false: served in its version while the server drains')
})
