import { test } from 'tap'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, fastifyVersioner, HeadVersion, schema, Version, VersionBundle,
  VersionChange, versioned, type RequestInfo, type ResponseInfo
} from '../../plugin'

/**
 * The route constraint that tells apart the routes serving one path in different versions (two HEAD routes sharing
 * a path and method) is derived by find-my-way for every request of the application. The
 * version is read only at the route nodes the constraint separates: a request to any other route never has its
 * version read (it costs nothing), and a request to a separated node is routed by its version.
 */

const UserCreate = Type.Object({ fullName: Type.String() })
const User = Type.Object({ id: Type.String(), fullName: Type.String() })

class RenameName extends VersionChange {
  description = 'fullName was called name.'
  instructionsToMigrateToPreviousVersion = [
    schema(UserCreate).field('fullName').had({ name: 'name' }),
    schema(User).field('fullName').had({ name: 'name' })
  ]

  @ConvertRequestToNextVersionFor(UserCreate)
  up (request: RequestInfo) {
    request.body.fullName = request.body.name
    delete request.body.name
  }

  @ConvertResponseToPreviousVersionFor(User)
  down (response: ResponseInfo) {
    response.body.name = response.body.fullName
    delete response.body.fullName
  }
}

/** `GET /items` is new in 2001-01-01: before it, `GET /legacy-items` answered at its path (the two share a route node). */
class ReplaceItems extends VersionChange {
  description = 'GET /items replaced GET /legacy-items, at the same path.'
  instructionsToMigrateToPreviousVersion = [
    endpoint('/items', ['GET']).didntExist,
    endpoint('/legacy-items', ['GET']).existed,
    endpoint('/legacy-items', ['GET']).had({ path: '/items' })
  ]
}

test('the version is read only for requests to route nodes the version constraint separates', async (t) => {
  // Reads of the version header, counted on the raw request before Fastify routes it.
  let reads = 0
  const app = Fastify({
    serverFactory: (handler) => createServer((request: IncomingMessage, response: ServerResponse) => {
      const headers = request.headers
      Object.defineProperty(request, 'headers', {
        value: new Proxy(headers, {
          get (target, key, receiver) {
            if (key === 'x-api-version') reads++
            return Reflect.get(target, key, receiver) as unknown
          }
        })
      })
      handler(request, response)
    })
  })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameName, ReplaceItems), new Version('2000-01-01'))
  })
  await app.register(versioned(async (api) => {
    api.get('/items', async () => ({ handler: 'new' }))
    api.get('/legacy-items', { onlyExistsInOlderVersions: true }, async () => ({ handler: 'old' }))
    api.post('/users', { schema: { body: UserCreate, response: { 200: User } } }, async (request) => ({ id: 'u1', fullName: (request.body as { fullName: string }).fullName }))
  }))
  app.get('/health', async () => ({ ok: true }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  const base = typeof address === 'object' && address !== null ? `http://127.0.0.1:${address.port}` : ''
  const routeConstraints = app.printRoutes({ commonPrefix: false })
  t.match(routeConstraints, /fastifyVersionerApiVersion/, 'the app has a route constrained on the version (the precondition of this test)')

  const health = await fetch(`${base}/health`, { headers: { 'x-api-version': '2000-01-01' } })
  t.equal(health.status, 200)
  t.same(await health.json(), { ok: true })
  t.equal(reads, 0, 'a request to an unversioned route never has its version read, even with the header sent')

  const post = (version: string, body: unknown): Promise<Response> => fetch(`${base}/users`, {
    method: 'POST', headers: { 'x-api-version': version, 'content-type': 'application/json' }, body: JSON.stringify(body)
  })
  const newest = await post('2001-01-01', { fullName: 'Ada' })
  t.equal(newest.status, 200)
  t.same(await newest.json(), { id: 'u1', fullName: 'Ada' }, 'the newest version is served')
  const oldest = await post('2000-01-01', { name: 'Ada' })
  t.equal(oldest.status, 200)
  t.same(await oldest.json(), { id: 'u1', name: 'Ada' }, 'the oldest version is served by the same route, with the converters')
  const unknown = await post('1999-01-01', { name: 'Ada' })
  t.equal(unknown.status, 400, 'a version older than every version is answered 400 by the versioned route')

  const readsBefore = reads
  const items = async (version: string): Promise<unknown> => await (await fetch(`${base}/items`, { headers: { 'x-api-version': version } })).json()
  t.same(await items('2001-01-01'), { handler: 'new' }, 'at the separated node, the newest version reaches the new route')
  t.ok(reads > readsBefore, 'a request to the separated node has its version read')
  t.same(await items('2000-01-01'), { handler: 'old' }, 'and the oldest version the route that had its path')
})

test('regression: two HEAD routes on one path told apart by their own constraints (host, Fastify\'s version) start and serve every version', async (t) => {
  class ReplaceOrdersAtOneHost extends VersionChange {
    description = 'GET /orders at a.example replaced GET /legacy-orders, served at every host.'
    instructionsToMigrateToPreviousVersion = [
      endpoint('/orders', ['GET']).didntExist, endpoint('/legacy-orders', ['GET']).existed, endpoint('/legacy-orders', ['GET']).had({ path: '/orders' })
    ]
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameName, ReplaceItems, ReplaceOrdersAtOneHost), new Version('2000-01-01'))
  })
  await app.register(versioned(async (api) => {
    for (const host of ['a.example', 'b.example']) {
      api.get('/users', { constraints: { host }, schema: { response: { 200: User } } }, async () => ({ id: host, fullName: 'Ada' }))
      api.post('/users', { constraints: { host }, schema: { body: UserCreate, response: { 200: User } } }, async (request) => ({ id: host, fullName: request.body.fullName }))
    }
    api.get('/books', async () => ({ handler: 'any' }))
    api.get('/books', { constraints: { version: '2.0.0' } }, async () => ({ handler: 'semver 2' }))
    // Replaced at one host only: the version constraint joins the host's.
    api.get('/items', { constraints: { host: 'a.example' } }, async () => ({ handler: 'new' }))
    api.get('/legacy-items', { constraints: { host: 'a.example' }, onlyExistsInOlderVersions: true }, async () => ({ handler: 'old' }))
    // A host's own route beside the one of every other host, in every version, as in plain Fastify.
    api.get('/reports', async () => ({ handler: 'any host' }))
    api.get('/reports', { constraints: { host: 'a.example' } }, async () => ({ handler: 'a.example' }))
    // Replaced at one host by a route of that host's, served at every host before.
    api.get('/orders', { constraints: { host: 'a.example' } }, async () => ({ handler: 'new' }))
    api.get('/legacy-orders', { onlyExistsInOlderVersions: true }, async () => ({ handler: 'old' }))
  }))
  const get = async (url: string, version: string, headers: Record<string, string>): Promise<unknown> =>
    (await app.inject({ url, headers: { ...headers, 'x-api-version': version } })).json()
  for (const host of ['a.example', 'b.example']) {
    t.same(await get('/users', '2001-01-01', { host }), { id: host, fullName: 'Ada' }, `${host}: the newest version`)
    t.same(await get('/users', '2000-01-01', { host }), { id: host, name: 'Ada' }, `${host}: the oldest version, converted`)
    const created = await app.inject({ method: 'POST', url: '/users', headers: { host, 'x-api-version': '2000-01-01' }, payload: { name: 'Bea' } })
    t.same(created.json(), { id: host, name: 'Bea' }, `${host}: a request of the oldest version, converted`)
  }
  t.same(await get('/books', '2000-01-01', {}), { handler: 'any' }, 'a route without Accept-Version')
  t.same(await get('/books', '2000-01-01', { 'accept-version': '2.x' }), { handler: 'semver 2' }, 'Fastify\'s version constraint beside the API version')
  t.same(await get('/items', '2001-01-01', { host: 'a.example' }), { handler: 'new' })
  t.same(await get('/items', '2000-01-01', { host: 'a.example' }), { handler: 'old' }, 'the route that had the path in the older version, at the same host')
  const head = await app.inject({ method: 'HEAD', url: '/items', headers: { host: 'a.example', 'x-api-version': '2000-01-01' } })
  t.equal(head.statusCode, 200, 'the HEAD of the route that had the path')
  t.equal(head.headers['content-length'], String(JSON.stringify({ handler: 'old' }).length))
  t.equal((await app.inject({ url: '/items', headers: { host: 'b.example', 'x-api-version': '2000-01-01' } })).statusCode, 404, 'no route at another host')
  for (const version of ['2001-01-01', '2000-01-01']) {
    t.same(await get('/reports', version, { host: 'a.example' }), { handler: 'a.example' }, `${version}: the host's own route`)
    t.same(await get('/reports', version, { host: 'b.example' }), { handler: 'any host' }, `${version}: the route of every other host`)
  }
  t.same(await get('/orders', '2000-01-01', { host: 'b.example' }), { handler: 'old' }, 'the route every host had')
  t.equal((await app.inject({ url: '/orders', headers: { host: 'b.example', 'x-api-version': '2001-01-01' } })).statusCode, 404, 'and no longer has')
  t.same(await get('/orders', '2001-01-01', { host: 'a.example' }), { handler: 'new' }, 'the host\'s new route')
  t.same(await get('/orders', '2000-01-01', { host: 'a.example' }), { handler: 'old' }, 'the route the host had before')
})

test('routes with other constraints of their own and versions partly in common fail ready(): no rule answers each version', async (t) => {
  class RestoreBooks extends VersionChange {
    description = 'GET /legacy-books answered at /books for every host.'
    instructionsToMigrateToPreviousVersion = [endpoint('/legacy-books', ['GET']).existed, endpoint('/legacy-books', ['GET']).had({ path: '/books' })]
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RestoreBooks), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    // Every version at a.example, beside a route of every host that serves 2000-01-01 only: at a.example in 2000-01-01,
    // plain Fastify would pick the host's route, the version constraint the other.
    api.get('/books', { constraints: { host: 'a.example' } }, async () => ({ handler: 'a.example' }))
    api.get('/legacy-books', { onlyExistsInOlderVersions: true }, async () => ({ handler: 'old' }))
  }))
  await t.rejects(async () => { await app.ready() }, { code: 'FST_VERSIONER_ROUTER_GENERATION', message: /Two routes answer \[GET\] \/books in version\(s\) 2000-01-01/ })
})

test('regression: routes on one router node written differently (a parameter\'s name, case, a trailing or doubled slash the router ignores) are told apart by version', async (t) => {
  // The old route moved back to the new one's node, as the router sees it: each start-up failed with Fastify's
  // bare "Method 'GET' already declared", naming neither route nor instruction.
  const cases: Array<{ oldPath: string, routerOptions: Record<string, boolean> }> = [
    { oldPath: '/items/:itemId', routerOptions: {} },
    { oldPath: '/Items/:itemId', routerOptions: { caseSensitive: false } },
    { oldPath: '/items/:itemId/', routerOptions: { ignoreTrailingSlash: true } },
    { oldPath: '//items/:itemId', routerOptions: { ignoreDuplicateSlashes: true } }
  ]
  for (const location of ['header', 'path'] as const) {
    for (const { oldPath, routerOptions } of cases) {
      const label = `${location}, ${oldPath} ${JSON.stringify(routerOptions)}`
      const Moved = class extends VersionChange {
        description = 'GET /items/:id replaced GET /legacy/:itemId, on the same node.'
        instructionsToMigrateToPreviousVersion = [
          endpoint('/items/:id', ['GET']).didntExist,
          endpoint('/legacy/:itemId', ['GET']).existed,
          endpoint('/legacy/:itemId', ['GET']).had({ path: oldPath })
        ]
      }
      const app = Fastify({ routerOptions })
      t.teardown(() => app.close())
      await app.register(fastifyVersioner, {
        apiVersionLocation: location, versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', Moved), new Version('2000-01-01'))
      })
      await app.register(versioned(async (api) => {
        api.get('/items/:id', async (request) => ({ handler: 'new', params: request.params }))
        api.get('/legacy/:itemId', { onlyExistsInOlderVersions: true }, async (request) => ({ handler: 'old', params: request.params }))
      }), { prefix: '/api' })
      await app.ready()
      const get = (version: string): Promise<{ statusCode: number, json: () => unknown }> =>
        app.inject({ url: location === 'path' ? `/api/${version}/items/7` : '/api/items/7', headers: { 'x-api-version': version } })
      const current = await get('2001-01-01')
      t.equal(current.statusCode, 200, `${label}: the newest version`)
      t.same(current.json(), { handler: 'new', params: { id: '7' } }, `${label}: the new route`)
      const old = await get('2000-01-01')
      t.equal(old.statusCode, 200, `${label}: the old version`)
      t.same(old.json(), { handler: 'old', params: { itemId: '7' } }, `${label}: the old route, its parameter as it names it`)
    }
  }
})
