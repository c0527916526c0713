/**
 * The application's own hooks (added with `addHook` on the application, a plugin, a `fastify-plugin` one or the
 * versioned scope, or given to the route) and Fastify's reply API, driven by clients of a new and an old version
 * (docs/serving.md, "Your own hooks"): what each hook sees, what an answer sent from it becomes, and, for the newest
 * version, exactly what plain Fastify answers for the same routes.
 */
import { test } from 'tap'
import fp from 'fastify-plugin'
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, fastifyVersioner, HeadVersion, schema, Version, VersionBundle,
  VersionChange, versioned, type RequestInfo, type ResponseInfo
} from '../../plugin'

const Status = Type.Union([Type.Literal('active'), Type.Literal('held')])
const User = Type.Object({ id: Type.String(), fullName: Type.String(), status: Status })
const UserCreate = Type.Object({ fullName: Type.String(), status: Status })
const OldStatus = Type.Union([Type.Literal('active'), Type.Literal('paused')])

class FullNameWasName extends VersionChange {
  description = 'fullName was name.'
  instructionsToMigrateToPreviousVersion = [schema(User).field('fullName').had({ name: 'name' }), schema(UserCreate).field('fullName').had({ name: 'name' })]

  @ConvertRequestToNextVersionFor(UserCreate)
  fullNameUp (request: RequestInfo) {
    request.body.fullName = request.body.name
    delete request.body.name
  }

  @ConvertResponseToPreviousVersionFor(User)
  nameDown (response: ResponseInfo) {
    response.body.name = response.body.fullName
    delete response.body.fullName
  }
}

class HeldWasPausedAndErrorsWereFlat extends VersionChange {
  description = 'held was paused; errors were { error, code }.'
  instructionsToMigrateToPreviousVersion = [schema(User).field('status').had({ type: OldStatus }), schema(UserCreate).field('status').had({ type: OldStatus })]

  @ConvertRequestToNextVersionFor(UserCreate)
  heldUp (request: RequestInfo) {
    if (request.body.status === 'paused') request.body.status = 'held'
  }

  @ConvertResponseToPreviousVersionFor(User, { migrateHttpErrors: true })
  pausedDown (response: ResponseInfo) {
    if (response.statusCode >= 400) response.body = { error: response.body.message, code: response.body.code }
    else if (response.body.status === 'held') response.body.status = 'paused'
  }
}

const NEWEST = '2002-01-01'
const OLDEST = '2000-01-01'
const versions = (): VersionBundle =>
  new VersionBundle(new HeadVersion(), new Version(NEWEST, FullNameWasName), new Version('2001-01-01', HeldWasPausedAndErrorsWereFlat), new Version(OLDEST))

const ada = { id: 'u1', fullName: 'Ada', status: 'held' as const }
const adaOld = { id: 'u1', name: 'Ada', status: 'paused' }
const conflict = { statusCode: 409, code: 'E_TAKEN', error: 'Conflict', message: 'taken' }
const conflictOld = { error: 'taken', code: 'E_TAKEN' }
const taken = (): Error => Object.assign(new Error('taken'), { statusCode: 409, code: 'E_TAKEN' })
const response = { 200: User }

/** The same application with the versioner (its routes inside `versioned(...)`) or without it (plain Fastify). */
async function appOf (
  t: { teardown: (fn: () => unknown) => void }, withVersioner: boolean, routes: FastifyPluginAsync, around: (app: FastifyInstance) => void = () => {}
): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  t.teardown(() => app.close())
  around(app)
  if (!withVersioner) {
    await app.register(routes)
    return app
  }
  await app.register(fastifyVersioner, { versions: versions() })
  await app.register(versioned(async (api) => {
    // The converters' schemas need a route using them.
    api.post('/users', { schema: { body: UserCreate, response } }, async (request) => ({ id: 'u2', ...request.body }))
    await api.register(routes)
  }))
  return app
}

const get = async (app: FastifyInstance, url: string, version?: string) =>
  await app.inject({ url, headers: version === undefined ? {} : { 'x-api-version': version } })

test('the reply API from an old version\'s handler: as plain Fastify for the newest version, in its own shape for the old one', async (t) => {
  const routes: FastifyPluginAsync = async (api) => {
    api.get('/send-twice', { schema: { response } }, async (_request, reply) => {
      reply.send(ada)
      reply.send({ ...ada, fullName: 'Bob' })
    })
    api.get('/send-and-return', { schema: { response } }, async (_request, reply) => {
      reply.send(ada)
      return { ...ada, fullName: 'Bob' }
    })
    api.get('/later', { schema: { response } }, async (_request, reply) => {
      setTimeout(() => reply.send(ada), 1)
      return reply
    })
    api.get('/later-error', { schema: { response } }, async (_request, reply) => {
      setTimeout(() => reply.send(taken()), 1)
      return reply
    })
    api.get('/vendor-json', { schema: { response } }, async (_request, reply) => reply.header('content-type', 'application/vnd.x+json').send(ada))
    api.get('/yaml', { schema: { response } }, async (_request, reply) =>
      reply.type('application/x-yaml').serializer((data: Record<string, unknown>) => Object.entries(data).map(([key, value]) => `${key}: ${String(value)}`).join('\n')).send(ada))
    api.get('/text-plain-object', { schema: { response } }, async (_request, reply) => reply.type('text/plain').send(ada))
    api.get('/sent-error', { schema: { response } }, async (_request, reply) => reply.send(taken()))
  }
  const plain = await appOf(t, false, routes)
  const app = await appOf(t, true, routes)
  const expected: Record<string, unknown> = {
    '/send-twice': adaOld,
    '/send-and-return': adaOld,
    '/later': adaOld,
    '/later-error': conflictOld,
    '/vendor-json': adaOld,
    '/yaml': 'id: u1\nstatus: paused\nname: Ada',
    '/sent-error': conflictOld
  }
  for (const url of [...Object.keys(expected), '/text-plain-object']) {
    const mine = await get(plain, url)
    const newest = await get(app, url, NEWEST)
    t.equal(newest.statusCode, mine.statusCode, `${url}: the newest version's status is plain Fastify's`)
    t.equal(newest.body, mine.body, `${url}: and its body`)
    t.equal(newest.headers['content-type'], mine.headers['content-type'], `${url}: and its content type`)
    const old = await get(app, url, OLDEST)
    t.equal(old.statusCode, mine.statusCode, `${url}: the old version's status is plain Fastify's`)
    t.equal(old.headers['content-type'], mine.headers['content-type'], `${url}: and its content type`)
    t.equal(old.headers['x-api-version'], OLDEST)
    if (url === '/text-plain-object') {
      t.equal(old.statusCode, 500, 'an object sent as text/plain is Fastify\'s 500, in the old version\'s error shape')
      t.same(old.json(), { error: 'Attempted to send payload of invalid type \'object\'. Expected a string or Buffer.', code: 'FST_ERR_REP_INVALID_PAYLOAD_TYPE' })
    } else t.same(typeof expected[url] === 'string' ? old.body : old.json(), expected[url], `${url}: the old version's shape`)
  }
})

test('an error handler of a child context throwing again, not-found handlers per prefix: as plain Fastify, in the old version\'s error shape', async (t) => {
  const routes: FastifyPluginAsync = async (api) => {
    api.setErrorHandler(async (error: Error & { statusCode?: number, code?: string, retry?: number }, _request, reply) =>
      await reply.code(error.statusCode ?? 500).send({ statusCode: error.statusCode ?? 500, code: error.code ?? 'E', error: 'Outer', message: `outer: ${error.message}`, retry: error.retry }))
    api.setNotFoundHandler(async (request, reply) => await reply.code(404).send({ statusCode: 404, code: 'E_NONE', error: 'Not Found', message: `outer: ${request.url}` }))
    await api.register(async (inner) => {
      inner.setErrorHandler(async (error: Error & { statusCode?: number }) => {
        if (error.statusCode === 409) throw Object.assign(new Error(`again ${error.message}`), { statusCode: 503, code: 'E_AGAIN', retry: 5 })
        throw error
      })
      inner.setNotFoundHandler(async (request, reply) => await reply.code(404).send({ statusCode: 404, code: 'E_NONE', error: 'Not Found', message: `inner: ${request.url}` }))
      inner.get('/users/:id', { schema: { response } }, async (request, reply) => {
        const { id } = request.params as { id: string }
        if (id === 'taken') throw taken()
        if (id === 'teapot') return await reply.send(Object.assign(new Error('short and stout'), { statusCode: 418, code: 'E_TEA', extra: 'dropped' }))
        if (id === 'nobody') return reply.callNotFound()
        return ada
      })
    }, { prefix: '/inner' })
  }
  const plain = await appOf(t, false, routes)
  const app = await appOf(t, true, routes)
  const cases: Array<[string, unknown]> = [
    ['/inner/users/taken', { error: 'outer: again taken', code: 'E_AGAIN' }],
    ['/inner/users/teapot', { error: 'outer: short and stout', code: 'E_TEA' }],
    ['/inner/users/nobody', { error: 'inner: /inner/users/nobody', code: 'E_NONE' }],
    ['/inner/users/u1', adaOld]
  ]
  for (const [url, old] of cases) {
    const mine = await get(plain, url)
    const newest = await get(app, url, NEWEST)
    t.equal(newest.statusCode, mine.statusCode, `${url}: plain Fastify's status`)
    t.equal(newest.body, mine.body, `${url}: plain Fastify's body for the newest version`)
    const oldest = await get(app, url, OLDEST)
    t.equal(oldest.statusCode, mine.statusCode, `${url}: the old version's status`)
    t.same(oldest.json(), old, `${url}: the old version's shape`)
    t.equal(oldest.headers['x-api-version'], OLDEST)
  }
  // A URL no route answers has no version: its context's not-found handler answers it as it is.
  for (const url of ['/inner/nothing', '/nothing']) {
    const oldest = await get(app, url, OLDEST)
    t.equal(oldest.body, (await get(plain, url)).body, `${url}: plain Fastify's 404`)
    t.equal(oldest.headers['x-api-version'], undefined)
  }
})

/** A hook of every kind, recording what it sees; where (`app`, `plugin` wrapped in fastify-plugin, `scope`, `route`). */
type Seen = Map<string, unknown>
const KINDS = ['onRequest', 'preParsing', 'preValidation', 'preHandler', 'preSerialization', 'onSend', 'onResponse'] as const

function recorders (seen: Seen, where: string): Record<typeof KINDS[number], (...args: any[]) => Promise<unknown>> {
  const body = (request: FastifyRequest) => structuredClone(request.body)
  return {
    onRequest: async (request: FastifyRequest) => { seen.set(`${where} onRequest`, request.apiVersion) },
    preParsing: async (_request: FastifyRequest, _reply: FastifyReply, payload: unknown) => payload,
    preValidation: async (request: FastifyRequest) => { seen.set(`${where} preValidation`, body(request)) },
    preHandler: async (request: FastifyRequest) => { seen.set(`${where} preHandler`, body(request)) },
    preSerialization: async (_request: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
      seen.set(`${where} preSerialization`, structuredClone(payload))
      return payload
    },
    onSend: async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      seen.set(`${where} onSend ${reply.statusCode}`, JSON.parse(String(payload)))
      return payload
    },
    onResponse: async (_request: FastifyRequest, reply: FastifyReply) => { seen.set(`${where} onResponse`, reply.getHeader('x-api-version')) }
  }
}

test('what the application\'s hooks see at every level, for an old version\'s request: what docs/serving.md says', async (t) => {
  const seen: Seen = new Map()
  const add = (instance: FastifyInstance, where: string): void => {
    const hooks = recorders(seen, where)
    for (const kind of KINDS) instance.addHook(kind as 'onRequest', hooks[kind] as never)
  }
  const routeHooks = recorders(seen, 'route')
  const app = await appOf(t, true, async (api) => {
    add(api, 'scope')
    await api.register(fp(async (plugin) => { add(plugin, 'plugin') }))
    api.post('/accounts', { schema: { body: UserCreate, response }, ...routeHooks }, async (request) => {
      const body = request.body as Static<typeof UserCreate>
      if (body.fullName === 'taken') throw taken()
      return { id: 'u3', ...body }
    })
  }, (root) => { add(root, 'app') })
  const created = await app.inject({ method: 'POST', url: '/accounts', headers: { 'x-api-version': OLDEST }, payload: { name: 'Ada', status: 'paused' } })
  t.same(created.json(), { id: 'u3', name: 'Ada', status: 'paused' })
  const places = ['app', 'scope', 'plugin', 'route']
  for (const where of places) {
    t.equal(seen.get(`${where} onRequest`), OLDEST, `${where}: request.apiVersion in onRequest`)
    t.same(seen.get(`${where} preValidation`), { name: 'Ada', status: 'paused' }, `${where}: the request as sent in preValidation`)
    t.same(seen.get(`${where} preHandler`), { fullName: 'Ada', status: 'held' }, `${where}: HEAD data in preHandler`)
    t.same(seen.get(`${where} preSerialization`), { id: 'u3', fullName: 'Ada', status: 'held' }, `${where}: HEAD's body in preSerialization`)
    t.same(seen.get(`${where} onSend 200`), { id: 'u3', name: 'Ada', status: 'paused' }, `${where}: the version's text in onSend`)
    t.equal(seen.get(`${where} onResponse`), OLDEST, `${where}: the version header in onResponse`)
  }
  seen.clear()
  const refused = await app.inject({ method: 'POST', url: '/accounts', headers: { 'x-api-version': OLDEST }, payload: { name: 'taken', status: 'paused' } })
  t.equal(refused.statusCode, 409)
  t.same(refused.json(), conflictOld)
  // An error body is converted in the route's own onSend hook: hooks added with addHook see HEAD's, the route's the version's.
  for (const where of ['app', 'scope', 'plugin']) t.same(seen.get(`${where} onSend 409`), conflict, `${where}: HEAD's error body in onSend`)
  t.same(seen.get('route onSend 409'), conflictOld, 'the route\'s own onSend hook sees the version\'s error body')
})

test('an answer a hook sends: an error is the version\'s from every hook, a success only once the version is picked (preHandler on)', async (t) => {
  const EARLY = ['onRequest', 'preParsing', 'preValidation'] as const
  for (const kind of [...EARLY, 'preHandler'] as const) {
    for (const where of ['scope', 'route'] as const) {
      const answer = async (request: FastifyRequest, reply: FastifyReply) => {
        const { id } = request.params as { id: string }
        if (id === 'taken') return await reply.code(409).send(conflict)
        if (id === 'cached') return await reply.send(ada)
      }
      const app = await appOf(t, true, async (api) => {
        if (where === 'scope') api.addHook(kind as 'onRequest', answer)
        api.get('/users/:id', { schema: { response }, ...(where === 'route' ? { [kind]: answer } : {}) }, async () => ({ ...ada, fullName: 'Handler' }))
      })
      const refused = await get(app, '/users/taken', OLDEST)
      t.equal(refused.statusCode, 409)
      t.same(refused.json(), conflictOld, `${where} ${kind}: an error in the old version's shape`)
      t.equal(refused.headers['x-api-version'], OLDEST)
      const cached = await get(app, '/users/cached', OLDEST)
      const early = (EARLY as readonly string[]).includes(kind)
      t.same(cached.json(), early ? ada : adaOld, `${where} ${kind}: a success ${early ? 'sent as it is (HEAD\'s)' : 'in the old version\'s shape'}`)
      t.equal(cached.headers['x-api-version'], early ? undefined : OLDEST)
    }
  }
})

/** An onSend hook wrapping every JSON answer in an envelope. */
async function envelope (request: FastifyRequest, _reply: FastifyReply, payload: unknown): Promise<unknown> {
  return typeof payload === 'string' ? JSON.stringify({ data: JSON.parse(payload), version: request.apiVersion }) : payload
}

const envelopedRoutes: FastifyPluginAsync = async (api) => {
  api.get('/users/:id', { schema: { response } }, async (request, reply) => {
    const { id } = request.params as { id: string }
    if (id === 'taken') throw taken()
    if (id === 'cached') return await reply.type('application/json').send(JSON.stringify(ada))
    return ada
  })
}

test('hooks an onRoute hook adds run before the versioner\'s when it is registered before the plugin, after them when registered after it', async (t) => {
  for (const registered of ['before', 'after'] as const) {
    const seen: Seen = new Map()
    const hooks = recorders(seen, registered)
    const toEveryRoute = (route: RouteOptions): void => {
      for (const kind of ['preValidation', 'preSerialization', 'onSend'] as const) {
        route[kind] = [...[route[kind] ?? []].flat(), hooks[kind]] as never
      }
    }
    const app = Fastify({ logger: false })
    t.teardown(() => app.close())
    if (registered === 'before') app.addHook('onRoute', toEveryRoute)
    await app.register(fastifyVersioner, { versions: versions() })
    if (registered === 'after') app.addHook('onRoute', toEveryRoute)
    await app.register(versioned(async (api) => {
      api.post('/users', { schema: { body: UserCreate, response } }, async (request) => {
        if (request.body.fullName === 'taken') throw taken()
        return { id: 'u2', ...request.body }
      })
    }))
    const post = async (name: string) =>
      await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': OLDEST }, payload: { name, status: 'paused' } })
    t.same((await post('Ada')).json(), { id: 'u2', name: 'Ada', status: 'paused' })
    const before = registered === 'before'
    t.same(seen.get(`${registered} preValidation`), before ? { name: 'Ada', status: 'paused' } : { fullName: 'Ada', status: 'held' },
      `${registered}: preValidation sees ${before ? 'the request as sent' : 'HEAD data'}`)
    t.same(seen.get(`${registered} preSerialization`), before ? { id: 'u2', fullName: 'Ada', status: 'held' } : { id: 'u2', name: 'Ada', status: 'paused' },
      `${registered}: preSerialization sees ${before ? 'HEAD\'s body' : 'the version\'s converted body'}`)
    t.same(seen.get(`${registered} onSend 200`), { id: 'u2', name: 'Ada', status: 'paused' }, `${registered}: onSend sees the version's text`)
    t.same((await post('taken')).json(), conflictOld)
    t.same(seen.get(`${registered} onSend 409`), conflictOld, `${registered}: and the version's error body`)
  }
})

test('an onSend hook given to every route (an onRoute hook) wraps what each version answers, errors and JSON text included', async (t) => {
  const toEveryRoute = (root: FastifyInstance): void => {
    root.addHook('onRoute', (route: RouteOptions) => { route.onSend = [...[route.onSend ?? []].flat(), envelope] })
  }
  const app = await appOf(t, true, envelopedRoutes, toEveryRoute)
  for (const [url, newest, old] of [['/users/u1', ada, adaOld], ['/users/cached', ada, adaOld], ['/users/taken', conflict, conflictOld]]) {
    t.same((await get(app, url as string, NEWEST)).json(), { data: newest, version: NEWEST }, `${String(url)}: the newest version`)
    t.same((await get(app, url as string, OLDEST)).json(), { data: old, version: OLDEST }, `${String(url)}: the old version's body, wrapped`)
  }
})

test('limit: an onSend hook added with addHook runs before the route\'s own: what it returns for an error or JSON text is what the version converts', async (t) => {
  const app = await appOf(t, true, envelopedRoutes, (root) => { root.addHook('onSend', envelope) })
  t.same((await get(app, '/users/u1', OLDEST)).json(), { data: adaOld, version: OLDEST }, 'a returned object: converted before it')
  const text = await get(app, '/users/cached', OLDEST)
  t.equal(text.statusCode, 500, 'JSON text wrapped before its conversion does not fit the version\'s schema')
  t.equal(text.json().data.code, 'FST_VERSIONER_UNCONVERTIBLE_RESPONSE')
  t.same((await get(app, '/users/taken', OLDEST)).json(), {}, 'the error converter reads the envelope in place of the error')
  t.same((await get(app, '/users/taken', NEWEST)).json(), { data: conflict, version: NEWEST }, 'the newest version has nothing to convert')
})

test('regression: text under a JSON media type that is not one JSON value (NDJSON records) reached an old version as HEAD\'s, and nothing said so', async (t) => {
  const warnings: string[] = []
  const onWarning = (warning: Error & { code?: string }): void => { warnings.push(`${String(warning.code)}: ${warning.message}`) }
  process.on('warning', onWarning)
  t.teardown(() => { process.removeListener('warning', onWarning) })
  const records = `${JSON.stringify(ada)}\n${JSON.stringify(ada)}\n`
  const app = await appOf(t, true, async (api) => {
    api.get('/export', { schema: { response } }, async (_request, reply) => await reply.type('application/x-ndjson').send(records as never))
    api.get('/empty', { schema: { response } }, async (_request, reply) => await reply.type('application/json').send('' as never))
  })
  for (let round = 0; round < 2; round++) {
    t.equal((await get(app, '/export', OLDEST)).body, records, 'sent as it is, as a stream is')
    t.equal((await get(app, '/export', NEWEST)).body, records)
    t.equal((await get(app, '/empty', OLDEST)).body, '', 'an empty text has nothing to convert')
  }
  await new Promise((resolve) => setImmediate(resolve))
  const ours = warnings.filter((warning) => warning.startsWith('FSTVRS001'))
  t.equal(ours.length, 1, 'FSTVRS001 once for the route, version and status; none for the newest version nor the empty text')
  t.match(ours[0], /status 200 could not be migrated to API version '2000-01-01'.*text that is not one JSON value/)
})
