/**
 * The rows of API.md's HTTP table about routing and version picking, through `app.inject()`, mostly on the
 * users example (versions 2002-01-01, 2001-01-01, 2000-01-01).
 */
import { test } from 'tap'
import fp from 'fastify-plugin'
import fastifyStatic from '@fastify/static'
import websocket from '@fastify/websocket'
import responseValidation from '@fastify/response-validation'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../examples/users/app'
import { versions as exampleVersions } from '../../examples/users/versions'
import { ConvertRequestToNextVersionFor, endpoint, versioned, fastifyVersioner, Version, VersionBundle, VersionChange, type RequestInfo } from '../../plugin'
import { changeClass, fullNameWasNameInResponses } from '../helpers/version-changes'
import { versionedApp } from '../helpers/apps'
import { bundleOf, DATES, getWith, SUPPORTED_DATES } from '../helpers/http-apps'
import { jsonOf } from '../helpers/http'
import { Type } from '@sinclair/typebox'

async function example (t: { teardown: (fn: () => unknown) => void }): Promise<FastifyInstance> {
  const app = await buildApp()
  t.teardown(() => app.close())
  return app
}

/** Creates a user with one address in 2000-01-01 and returns its id. */
async function createUser (app: FastifyInstance, address = '1 Main St'): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': '2000-01-01' }, payload: { address } })
  if (response.statusCode !== 200) throw new Error(`user creation failed: ${response.statusCode} ${response.body}`)
  return jsonOf(response).id
}

test('the example serves the versions 2002-01-01, 2001-01-01, 2000-01-01', async (t) => {
  t.same(exampleVersions.versionValues, ['2002-01-01', '2001-01-01', '2000-01-01'])
})

test('a known version is served in its own shape and echoed in x-api-version, with Vary', async (t) => {
  const app = await example(t)

  const v2000 = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': '2000-01-01' }, payload: { address: '1 Main St' } })
  t.equal(v2000.statusCode, 200)
  t.equal(v2000.headers['x-api-version'], '2000-01-01')
  t.equal(v2000.headers.vary, 'x-api-version', 'every answer naming a version varies on the version header, POST included')
  t.match(jsonOf(v2000), { id: String, address: '1 Main St' })
  const read = await app.inject({ url: `/users/${jsonOf(v2000).id as string}`, headers: { 'x-api-version': '2000-01-01' } })
  t.equal(read.headers.vary, 'x-api-version', 'a GET response varies on the version header')
  t.notOk('addresses' in jsonOf(v2000), '2000-01-01 has no addresses')
  t.notOk('prefetchedAddresses' in jsonOf(v2000), 'HEAD-only field is not shown')

  const v2001 = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': '2001-01-01' }, payload: { addresses: ['a', 'b'] } })
  t.equal(v2001.statusCode, 200)
  t.equal(v2001.headers['x-api-version'], '2001-01-01')
  t.same(Object.keys(jsonOf(v2001)).sort(), ['addresses', 'id'])
  t.same(jsonOf(v2001).addresses, ['a', 'b'])

  const v2002 = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': '2002-01-01' }, payload: { defaultAddress: 'c' } })
  t.equal(v2002.statusCode, 200)
  t.equal(v2002.headers['x-api-version'], '2002-01-01')
  t.same(Object.keys(jsonOf(v2002)), ['id'])

  // The user created in 2001-01-01, read back in each version.
  const id = jsonOf(v2001).id
  t.same(jsonOf(await getWith(app, `/users/${id}`, '2000-01-01')), { id, address: 'a' })
  t.same(jsonOf(await getWith(app, `/users/${id}`, '2001-01-01')), { id, addresses: ['a', 'b'] })
  t.same(jsonOf(await getWith(app, `/users/${id}`, '2002-01-01')), { id })
  const addresses = await getWith(app, `/users/${id}/addresses`, '2002-01-01')
  t.equal(addresses.statusCode, 200)
  t.same(jsonOf(addresses).data.map((address: { value: string }) => address.value), ['a', 'b'])
})

test('a date between versions or after the newest is served as the closest older version, which is echoed', async (t) => {
  const app = await example(t)
  const id = await createUser(app, 'Elm St')
  const cases: Array<[string, string, unknown]> = [
    ['2001-06-15', '2001-01-01', { id, addresses: ['Elm St'] }],
    ['2001-12-31', '2001-01-01', { id, addresses: ['Elm St'] }],
    ['2000-02-29', '2000-01-01', { id, address: 'Elm St' }], // a leap day
    ['2000-12-31', '2000-01-01', { id, address: 'Elm St' }],
    ['2002-01-02', '2002-01-01', { id }],
    ['2099-12-31', '2002-01-01', { id }]
  ]
  for (const [requested, served, body] of cases) {
    const response = await getWith(app, `/users/${id}`, requested)
    t.equal(response.statusCode, 200, `${requested}: 200`)
    t.equal(response.headers['x-api-version'], served, `${requested} is served as ${served}`)
    t.same(jsonOf(response), body, `${requested}: the body of ${served}`)
  }
  // The request side is waterfalled too: 2001-06-15 speaks `addresses`.
  const created = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': '2001-06-15' }, payload: { addresses: ['x'] } })
  t.equal(created.statusCode, 200)
  t.equal(created.headers['x-api-version'], '2001-01-01')
  t.same(jsonOf(created).addresses, ['x'])
})

test('a malformed date is a 400 naming the value, the header and the supported versions', async (t) => {
  const app = await example(t)
  const noSuchDay = 'there is no such day: send a day of the calendar, written YYYY-MM-DD.'
  const malformed = 'it must be a date written YYYY-MM-DD.'
  for (const [value, why] of [['2001-13-01', malformed], ['2001-1-1', malformed], ['2001-02-30', noSuchDay], ['2001-02-29', noSuchDay],
    ['2001-01-01T00:00:00Z', "a version is a date without a time: send '2001-01-01'."], ['20010101', malformed], ['latest', malformed]]) {
    const response = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': value }, payload: { address: 'a' } })
    t.equal(response.statusCode, 400, `${value}: 400`)
    const body = jsonOf(response)
    t.equal(body.code, 'FST_VERSIONER_INVALID_API_VERSION', `${value}: code`)
    t.equal(body.error, 'Bad Request')
    t.equal(body.message, `Invalid API version '${value}' in the 'x-api-version' header: ${why} ${SUPPORTED_DATES}`,
      `${value}: message`)
    t.equal(response.headers['x-api-version'], undefined, `${value}: no version is echoed`)
  }
})

test('a date older than the oldest version is a 400 saying so, with the supported versions', async (t) => {
  const app = await example(t)
  for (const value of ['1999-12-31', '1970-01-01', '0999-01-01']) {
    const response = await getWith(app, '/users/8a3c2b3e-3a43-4f53-9b8a-6f0f7e6b8b53', value)
    t.equal(response.statusCode, 400, `${value}: 400`)
    t.equal(jsonOf(response).code, 'FST_VERSIONER_INVALID_API_VERSION')
    t.equal(jsonOf(response).message, `Unsupported API version '${value}' in the 'x-api-version' header: it is older than the oldest version. ${SUPPORTED_DATES}`)
  }
  // Years below 100 are real ISO dates too.
  const ancient = await getWith(app, '/users/8a3c2b3e-3a43-4f53-9b8a-6f0f7e6b8b53', '0050-06-01')
  t.equal(ancient.statusCode, 400)
  t.match(jsonOf(ancient).message, /^Unsupported API version '0050-06-01' .*older than the oldest version/)
})

test('with apiVersionFormat string, an unknown version is a 400 listing the versions; no waterfalling', async (t) => {
  const app = await versionedApp(t, bundleOf(['v2', 'v1']), undefined, { versioner: { apiVersionFormat: 'string' } })
  await app.register(versioned(async (api) => { api.get('/things', async (request) => ({ version: request.apiVersion })) }))

  const known = await getWith(app, '/things', 'v1')
  t.equal(known.statusCode, 200)
  t.equal(known.headers['x-api-version'], 'v1')
  t.same(jsonOf(known), { version: 'v1' })

  for (const value of ['v3', 'V1', 'v', '2001-01-01']) {
    const response = await getWith(app, '/things', value)
    t.equal(response.statusCode, 400, `${JSON.stringify(value)}: 400`)
    t.equal(jsonOf(response).code, 'FST_VERSIONER_INVALID_API_VERSION')
    // A value differing from a version only in case says which version it is close to.
    const near = value === 'V1' ? ": versions are matched exactly: send 'v1'" : ''
    t.equal(jsonOf(response).message, `Unknown API version '${value}' in the 'x-api-version' header${near}. Supported versions: v2, v1.`)
  }

  // Dated versions with the string format: exact values only.
  const dated = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { apiVersionFormat: 'string' } })
  await dated.register(versioned(async (api) => { api.get('/things', async (request) => ({ version: request.apiVersion })) }))
  t.equal((await getWith(dated, '/things', '2001-01-01')).statusCode, 200)
  const between = await getWith(dated, '/things', '2001-06-01')
  t.equal(between.statusCode, 400)
  t.equal(jsonOf(between).message, `Unknown API version '2001-06-01' in the 'x-api-version' header. ${SUPPORTED_DATES}`)
})

test('no version and no default on a versioned route is a 400 naming the header to send', async (t) => {
  const app = await example(t)
  const expected = "This route is versioned: send the API version in the 'x-api-version' header (for example 'x-api-version: 2002-01-01'). " +
    SUPPORTED_DATES
  for (const headers of [{}, { 'x-api-version': '' }, { 'x-version': '2001-01-01' }]) {
    const response = await app.inject({ method: 'POST', url: '/users', headers, payload: { address: 'a' } })
    t.equal(response.statusCode, 400, `${JSON.stringify(headers)}: 400`)
    t.equal(jsonOf(response).code, 'FST_VERSIONER_MISSING_API_VERSION')
    t.equal(jsonOf(response).message, expected)
    t.equal(response.headers['x-api-version'], undefined)
  }
  const get = await getWith(app, '/users/8a3c2b3e-3a43-4f53-9b8a-6f0f7e6b8b53')
  t.equal(get.statusCode, 400)
  t.equal(jsonOf(get).message, expected)
  t.equal(get.headers.vary, 'x-api-version', 'a GET 400 depends on the version header: Vary names it')
  const unknown = await getWith(app, '/users/8a3c2b3e-3a43-4f53-9b8a-6f0f7e6b8b53', '1999-01-01')
  t.equal(unknown.statusCode, 400)
  t.equal(unknown.headers.vary, 'x-api-version', 'so does a GET 400 for an unknown version')
})

test('with path versions, an empty version segment is a 400 naming the path form', async (t) => {
  const app = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { apiVersionLocation: 'path' } })
  await app.register(versioned(async (api) => { api.get('/users', async (request) => ({ version: request.apiVersion })) }), { prefix: '/api' })
  const response = await app.inject({ method: 'GET', url: '/api//users' })
  t.equal(response.statusCode, 400)
  t.equal(jsonOf(response).code, 'FST_VERSIONER_MISSING_API_VERSION')
  t.equal(jsonOf(response).message,
    `This route is versioned: put the API version in the path, right after '/api' (for example /api/2002-01-01/…). ${SUPPORTED_DATES}`)
})

test('with path versions, a URL without the version segment is another path: the application\'s 404 (decision 0231)', async (t) => {
  for (const prefix of ['/api', '']) {
    const app = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { apiVersionLocation: 'path' } })
    await app.register(versioned(async (api) => { api.get('/users', async (request) => ({ version: request.apiVersion })) }), { prefix })
    t.equal((await app.inject({ method: 'GET', url: `${prefix}/2001-01-01/users` })).statusCode, 200, `${prefix}/2001-01-01/users: served`)
    const missing = await app.inject({ method: 'GET', url: `${prefix}/users` })
    t.equal(missing.statusCode, 404, `${prefix}/users: 404`)
    t.same(jsonOf(missing), { message: `Route GET:${prefix}/users not found`, error: 'Not Found', statusCode: 404 }, 'Fastify\'s own 404 body')
  }
  const custom = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { apiVersionLocation: 'path' } })
  custom.setNotFoundHandler((request, reply) => { reply.code(404).send({ custom: true, url: request.url }) })
  await custom.register(versioned(async (api) => { api.get('/users', async () => ({ ok: true })) }), { prefix: '/api' })
  t.same(jsonOf(await custom.inject({ method: 'GET', url: '/api/users' })), { custom: true, url: '/api/users' }, 'the application\'s not-found handler answers it')
})

test('a valid version in which the route does not exist is Fastify\'s 404', async (t) => {
  const app = await example(t)
  const id = await createUser(app)
  for (const version of ['2001-01-01', '2000-01-01', '2001-06-01']) {
    const response = await getWith(app, `/users/${id}/addresses`, version)
    t.equal(response.statusCode, 404, `${version}: 404`)
    t.same(jsonOf(response), { message: `Route GET:/users/${id}/addresses not found`, error: 'Not Found', statusCode: 404 })
  }
  const latest = await getWith(app, `/users/${id}/addresses`, '2002-01-01')
  t.equal(latest.statusCode, 200)
  t.equal(jsonOf(latest).data[0].value, '1 Main St')

  // The application's own not-found handler answers, with the version echoed.
  const custom = await versionedApp(t, bundleOf(['2001-01-01', '2000-01-01'], { '2001-01-01': [changeClass('AddNew', [endpoint('/new', ['GET']).didntExist])] }))
  custom.setNotFoundHandler((request, reply) => { reply.code(404).send({ custom: true, url: request.url, version: request.apiVersion }) })
  await custom.register(versioned(async (api) => { api.get('/new', async () => ({ ok: true })) }))
  t.equal((await getWith(custom, '/new', '2001-01-01')).statusCode, 200)
  const absent = await getWith(custom, '/new', '2000-01-01')
  t.equal(absent.statusCode, 404)
  t.same(jsonOf(absent), { custom: true, url: '/new', version: '2000-01-01' })
})

test('a route a version lacks runs its own hooks up to the version\'s pick, and its onSend hooks on the 404 (decision 0249)', async (t) => {
  // Plain Fastify answers a path it has no route for without any route's hooks; here the route is found first, and
  // the version it lacks is known in its preValidation hook (decision 0004).
  for (const apiVersionLocation of ['header', 'path'] as const) {
    const ran: string[] = []
    const app = await versionedApp(t, bundleOf(['2001-01-01', '2000-01-01'], { '2001-01-01': [changeClass('AddNew', [endpoint('/new', ['GET']).didntExist])] }),
      async (api) => {
        api.get('/new', {
          onRequest: async (request, reply) => { ran.push('onRequest'); if (request.headers.authorization === undefined) return reply.code(401).send({ login: true }) },
          preValidation: async () => { ran.push('preValidation') },
          preHandler: async () => { ran.push('preHandler') },
          onSend: async (_request, reply, payload) => { ran.push('onSend'); reply.header('x-route', 'new'); return payload }
        }, async () => ({ ok: true }))
      }, { versioner: { apiVersionLocation } })
    app.setNotFoundHandler((request, reply) => { reply.code(404).send({ custom: true, version: request.apiVersion }) })
    const url = apiVersionLocation === 'path' ? '/2000-01-01/new' : '/new'
    const headers = apiVersionLocation === 'path' ? {} : { 'x-api-version': '2000-01-01' }
    const absent = await app.inject({ url, headers: { ...headers, authorization: 'Bearer t' } })
    t.same([absent.statusCode, jsonOf(absent), absent.headers['x-route']], [404, { custom: true, version: '2000-01-01' }, 'new'], `${apiVersionLocation}: the not-found handler's body`)
    t.same(ran, ['onRequest', 'preValidation', 'onSend'], `${apiVersionLocation}: the route's hooks before the pick, and its onSend; never its preHandler`)
    const anonymous = await app.inject({ url, headers })
    t.same([anonymous.statusCode, jsonOf(anonymous)], [401, { login: true }], `${apiVersionLocation}: the route's onRequest hook answers first`)
  }
})

test('a request invalid for the requested version\'s schema is Fastify\'s 400 validation error', async (t) => {
  const app = await example(t)
  const cases: Array<[string, unknown, string]> = [
    ['2000-01-01', { addresses: ['a'] }, "body must have required property 'address'"],
    ['2000-01-01', { address: '' }, 'body/address must NOT have fewer than 1 characters'],
    ['2001-01-01', { address: 'a' }, "body must have required property 'addresses'"],
    ['2001-01-01', { addresses: [] }, 'body/addresses must NOT have fewer than 1 items'],
    ['2002-01-01', { addresses: ['a'] }, "body must have required property 'defaultAddress'"],
    ['2002-06-01', { address: 'a' }, "body must have required property 'defaultAddress'"]
  ]
  for (const [version, payload, message] of cases) {
    const response = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': version }, payload: payload as object })
    t.equal(response.statusCode, 400, `${version} ${JSON.stringify(payload)}: 400`)
    t.equal(jsonOf(response).code, 'FST_ERR_VALIDATION')
    t.equal(jsonOf(response).message, message)
  }
  const params = await getWith(app, '/users/not-a-uuid', '2000-01-01')
  t.equal(params.statusCode, 400)
  t.equal(jsonOf(params).code, 'FST_ERR_VALIDATION')
  t.equal(jsonOf(params).message, 'params/userId must match format "uuid"')
})

test('unversioned routes, mounted plugins and static files are served whatever version header is sent', async (t) => {
  const root = t.testdir({ 'hello.txt': 'hello static' })
  for (const options of [{}, { apiVersionDefaultValue: '2001-01-01' }, { apiVersionDefaultValue: async () => '2000-01-01' }]) {
    const app = await versionedApp(t, bundleOf(DATES), undefined, { versioner: options })
    await app.register(fastifyStatic, { root, prefix: '/static/' })
    await app.register(async (mounted) => {
      mounted.get('/ping', async (request) => ({ pong: true, version: request.apiVersion ?? null }))
    }, { prefix: '/mounted' })
    await app.register(fp(async (shared) => {
      shared.get('/fp-ping', async (request) => ({ fp: true, version: request.apiVersion ?? null }))
    }))
    await app.register(versioned(async (api) => { api.get('/versioned', async (request) => ({ version: request.apiVersion })) }))
    app.get('/health', async (request) => ({ ok: true, version: request.apiVersion ?? null }))

    for (const header of [undefined, '2001-01-01', '2001-06-01', 'garbage', '1999-01-01', '2001-13-01', '']) {
      const label = `${JSON.stringify(options)} header ${JSON.stringify(header)}`
      const file = await getWith(app, '/static/hello.txt', header)
      t.equal(file.statusCode, 200, `${label}: static file`)
      t.equal(file.body, 'hello static')
      t.equal(file.headers['x-api-version'], undefined, `${label}: static file is not versioned`)
      for (const [url, body] of [['/health', { ok: true, version: null }], ['/mounted/ping', { pong: true, version: null }],
        ['/fp-ping', { fp: true, version: null }]] as const) {
        const response = await getWith(app, url, header)
        t.equal(response.statusCode, 200, `${label}: ${url}`)
        t.same(jsonOf(response), body, `${label}: ${url} body`)
        t.equal(response.headers['x-api-version'], undefined, `${label}: ${url} echoes no version`)
      }
    }
    // The versioned route next to them still checks the header.
    t.equal((await getWith(app, '/versioned', 'garbage')).statusCode, 400)
  }
})

test('regression: an explicit HEAD route after a GET without its HEAD twin keeps its own schema', async (t) => {
  // The twin turned off by the route, or by the application (the GET's handler serves the HEAD route too).
  for (const off of ['route', 'application'] as const) {
    const app = Fastify({ exposeHeadRoutes: off !== 'application' })
    t.teardown(() => app.close())
    await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
    const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
      if (request.method === 'GET') return { from: 'get' }
      reply.header('x-from', 'head')
      return ''
    }
    await app.register(versioned(async (api) => {
      api.get('/x', { exposeHeadRoute: off === 'route' ? false : undefined }, handler)
      api.head('/x', { schema: { querystring: Type.Object({ q: Type.String() }) } }, handler)
    }))
    const head = async (url: string): Promise<LightMyRequestResponse> => await app.inject({ method: 'HEAD', url, headers: { 'x-api-version': '2000-01-01' } })
    t.equal((await head('/x')).statusCode, 400, `${off}: the HEAD route validates its own querystring`)
    const ok = await head('/x?q=1')
    t.equal(ok.statusCode, 200)
    t.equal(ok.headers['x-from'], 'head')
    const get = await app.inject({ method: 'GET', url: '/x', headers: { 'x-api-version': '2000-01-01' } })
    t.strictSame(get.json(), { from: 'get' })
    t.ok(app.versioner.routes.get('2000-01-01')?.some((route) => route.methods.includes('HEAD')), 'the HEAD route is a versioned route')
  }
})

test('regression: with a plugin wrapping every route\'s handler (@fastify/websocket) registered first, HEAD follows GET in every version', async (t) => {
  const Changes = changeClass('AddReportsMoveUsers', [
    endpoint('/reports', ['GET']).didntExist,
    endpoint('/users', ['GET']).had({ path: '/people' })
  ])
  const seen: string[] = []
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', Changes), new Version('2000-01-01')), async (api) => {
    api.get('/reports', async (request) => { seen.push(`reports ${String(request.apiVersion)}`); return { reports: [] } })
    api.get('/users', async () => ({ users: [] }))
  }, { beforeVersioner: async (instance) => { await instance.register(websocket) } })
  const head = async (url: string, version: string): Promise<number> => (await app.inject({ method: 'HEAD', url, headers: { 'x-api-version': version } })).statusCode
  t.equal(await head('/reports', '2001-01-01'), 200)
  t.equal(await head('/reports', '2000-01-01'), 404, 'HEAD of a route its version lacks is a 404, as its GET is')
  t.same(seen, ['reports 2001-01-01'], 'the handler ran only for the version that has the route')
  t.equal(await head('/people', '2000-01-01'), 200, 'HEAD at the path the version has')
  t.equal(await head('/users', '2000-01-01'), 404, 'and not at the newer path')
  t.equal(await head('/users', '2001-01-01'), 200)
  t.equal(await head('/people', '2001-01-01'), 404)
})

test('regression: a route whose path changed gets the hooks of plugins registered before the versioner once, in every version', async (t) => {
  const User = Type.Object({ id: Type.String(), fullName: Type.String() })
  const FullNameWasName = fullNameWasNameInResponses(User)
  const Moved = changeClass('UsersWerePeople', [endpoint('/users/:id', ['GET']).had({ path: '/people/:id' })])
  const ran: string[] = []
  // An onRoute hook adding a route hook, as plugins do (@fastify/response-validation, @fastify/compress, @fastify/rate-limit).
  const counting = fp(async (instance) => {
    instance.addHook('onRoute', (route) => {
      const hook = async (request: FastifyRequest): Promise<void> => { ran.push(`${request.method} ${request.url}`) }
      if (Array.isArray(route.onRequest)) route.onRequest.push(hook)
      else route.onRequest = route.onRequest === undefined ? [hook] : [route.onRequest, hook]
    })
  })
  const versions = new VersionBundle(new Version('2002-01-01', Moved), new Version('2001-01-01', FullNameWasName), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User } } }, async (request) => ({ id: (request.params as { id: string }).id, fullName: 'Ada' }))
  }, { beforeVersioner: async (instance) => { await instance.register(responseValidation); await instance.register(counting) } })
  const expected: Array<[string, string, unknown]> = [
    ['2002-01-01', '/users/u1', { id: 'u1', fullName: 'Ada' }],
    ['2001-01-01', '/people/u1', { id: 'u1', fullName: 'Ada' }],
    ['2000-01-01', '/people/u1', { id: 'u1', name: 'Ada' }]
  ]
  for (const [version, url, body] of expected) {
    ran.length = 0
    const answer = await app.inject({ url, headers: { 'x-api-version': version } })
    t.equal(answer.statusCode, 200, `${version}: the handler's HEAD body passes response validation`)
    t.same(answer.json(), body)
    t.same(ran, [`GET ${url}`], `${version}: the plugin's hook ran once`)
    ran.length = 0
    t.equal((await app.inject({ method: 'HEAD', url, headers: { 'x-api-version': version } })).statusCode, 200)
    t.same(ran, [`HEAD ${url}`], `${version}: and once on HEAD`)
  }
})

test('regression: a route whose path changed has its handler wrapped once by a plugin registered before the versioner (@fastify/otel\'s handler span)', async (t) => {
  const Moved = changeClass('UsersWerePeople', [endpoint('/users/:id', ['GET']).had({ path: '/people/:id' })])
  const spans: string[] = []
  // An onRoute hook wrapping the handler, as @fastify/otel does to open the handler's span (labelled with route.url).
  const wrapping = fp(async (instance) => {
    instance.addHook('onRoute', (route) => {
      const handler = route.handler
      const label = route.url
      route.handler = function (this: unknown, ...args: unknown[]) { spans.push(`handler ${label}`); return (handler as (...given: unknown[]) => unknown).apply(this, args) } as typeof route.handler
    })
  })
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', Moved), new Version('2000-01-01')), async (api) => {
    api.get('/users/:id', async (request) => ({ id: (request.params as { id: string }).id }))
  }, { beforeVersioner: async (instance) => { await instance.register(wrapping) } })
  for (const [version, url] of [['2001-01-01', '/users/u1'], ['2000-01-01', '/people/u1']]) {
    for (const method of ['GET', 'HEAD'] as const) {
      spans.length = 0
      t.equal((await app.inject({ method, url, headers: { 'x-api-version': version } })).statusCode, 200, `${method} ${version}`)
      t.same(spans, ['handler /users/:id'], `${method} ${version}: the handler's wrapper ran once (the handler is HEAD's)`)
    }
  }
})

test('regression: a prefixed plugin\'s root route (as @fastify/autoload registers a folder\'s index) has its HEAD at both URLs in the versions that have it only', async (t) => {
  for (const location of ['header', 'path'] as const) {
    const Added = changeClass('AddOrders', [endpoint('/api/orders', ['GET']).didntExist])
    const seen: string[] = []
    const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', Added), new Version('2000-01-01')), async (api) => {
      await api.register(async (orders) => {
        orders.get('/', async (request) => { seen.push(`${request.method} ${String(request.apiVersion)}`); return { orders: [] } })
      }, { prefix: '/orders' })
    }, { prefix: '/api', versioner: { apiVersionLocation: location } })
    await app.ready()
    t.same(app.versioner.routes.get('2000-01-01'), [], `${location}: no route in the version before the route`)
    for (const version of ['2001-01-01', '2000-01-01']) {
      for (const slash of ['', '/']) {
        const url = location === 'header' ? `/api/orders${slash}` : `/api/${version}/orders${slash}`
        const headers = location === 'header' ? { 'x-api-version': version } : {}
        const get = await app.inject({ method: 'GET', url, headers })
        const head = await app.inject({ method: 'HEAD', url, headers })
        t.equal(head.statusCode, get.statusCode, `${location} ${version} ${url}: HEAD answers as GET (${get.statusCode})`)
      }
    }
    t.notOk(seen.includes('HEAD 2000-01-01'), `${location}: the handler never ran for the version without the route`)
  }
})

test('a WebSocket route inside versioned(...): its version is picked and checked, and request converters by path see its query string', async (t) => {
  class TopicWasChannel extends VersionChange {
    description = 'The feed was subscribed to by topic; the live feed did not exist.'
    instructionsToMigrateToPreviousVersion = [endpoint('/live', ['GET']).didntExist]

    @ConvertRequestToNextVersionFor('/feed', ['GET'])
    channel (request: RequestInfo) {
      request.queryParams.channel = request.queryParams.topic
      delete request.queryParams.topic
    }
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', TopicWasChannel), new Version('2000-01-01')), async (api) => {
    api.get('/feed', { websocket: true }, (socket, request) => {
      socket.send(JSON.stringify({ version: request.apiVersion, query: request.query }))
    })
    api.get('/live', { websocket: true }, (socket) => { socket.send('live') })
  }, { beforeVersioner: async (instance) => { await instance.register(websocket) } })
  await app.ready()
  const first = async (url: string, version?: string): Promise<string> => {
    let message: Promise<string> = Promise.resolve('')
    const socket = await app.injectWS(url, { headers: version === undefined ? {} : { 'x-api-version': version } }, {
      onInit: (ws) => { message = new Promise((resolve) => { ws.once('message', (data: Buffer) => { resolve(data.toString()) }) }) }
    })
    const text = await message
    socket.terminate()
    return text
  }
  t.same(JSON.parse(await first('/feed?channel=a', '2001-01-01')), { version: '2001-01-01', query: { channel: 'a' } })
  t.same(JSON.parse(await first('/feed?topic=a', '2000-01-01')), { version: '2000-01-01', query: { channel: 'a' } }, 'converted to HEAD')
  await t.rejects(first('/feed?topic=a'), /Unexpected server response: 400/, 'no version: refused before the upgrade')
  await t.rejects(first('/feed?topic=a', '1999-01-01'), /Unexpected server response: 400/, 'a version too old: refused')
  await t.rejects(first('/live', '2000-01-01'), /Unexpected server response: 404/, 'a route its version lacks')
  t.equal(await first('/live', '2001-01-01'), 'live')
})
