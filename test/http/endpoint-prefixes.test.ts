/**
 * Endpoint paths and prefixes: `endpoint(...)` instructions and by-path converters name a route relative to the prefix
 * of its `versioned(...)` context, or by its full path; a version change shared by two APIs works under both
 * prefixes; a path that names no registered route is a start-up error listing the routes that exist; a partial
 * application (some route plugins, the full bundle) says the route is not registered, and `partialApp: true` builds it.
 */
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, fastifyVersioner, schema, VersionChange, versioned,
  type FastifyVersionerOptions, type RequestInfo, type ResponseInfo, type VersionBundle
} from '../../plugin'
import { bundleOf } from '../helpers/http-apps'
import { changeClass, fullNameWasNameInResponses } from '../helpers/version-changes'

type Teardown = { teardown: (fn: () => unknown) => void }

const itemRoutes = versioned(async (api) => {
  api.get('/items', async (request) => ({ handler: 'items', version: request.apiVersion }))
  api.post('/orders', async (request) => ({ order: request.body, version: request.apiVersion }))
})

async function appWith (t: Teardown, versions: VersionBundle, extra: Partial<FastifyVersionerOptions> = {}): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions, ...extra })
  await app.register(itemRoutes, { prefix: '/api' })
  return app
}

const get = (app: FastifyInstance, url: string, version: string) => app.inject({ url, headers: { 'x-api-version': version } })

test('endpoint(...) paths are relative to the versioned(...) prefix, or full; had({ path }) takes either too', async (t) => {
  for (const [label, items, renamed] of [['relative', '/items', '/things'], ['full', '/api/items', '/api/things']]) {
    const app = await appWith(t, bundleOf(['2001-01-01', '2000-01-01'], {
      '2001-01-01': [changeClass(`Rename${label}`, [endpoint(items, ['GET']).had({ path: renamed })])]
    }))
    await app.ready()
    t.equal((await get(app, '/api/items', '2001-01-01')).statusCode, 200, `${label}: HEAD path in 2001-01-01`)
    const old = await get(app, '/api/things', '2000-01-01')
    t.equal(old.statusCode, 200, `${label}: the old path, under the prefix, in 2000-01-01`)
    t.same(old.json(), { handler: 'items', version: '2000-01-01' })
    t.equal((await get(app, '/things', '2000-01-01')).statusCode, 404, `${label}: never outside the prefix`)
  }
})

test('by-path converters name routes relative to the versioned(...) prefix too', async (t) => {
  class OrderWasList extends VersionChange {
    description = 'Orders were a list of items.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor('/orders', ['POST'])
    wrap (request: RequestInfo) { request.body = { items: request.body } }
  }
  const app = await appWith(t, bundleOf(['2001-01-01', '2000-01-01'], { '2001-01-01': [OrderWasList] }))
  await app.ready()
  const old = await app.inject({ method: 'POST', url: '/api/orders', headers: { 'x-api-version': '2000-01-01' }, payload: ['pen'] })
  t.same(old.json(), { order: { items: ['pen'] }, version: '2000-01-01' })
})

test('regression: a converter naming one route by its relative and its full path is refused (it ran twice on each response)', async (t) => {
  class CountsUp extends VersionChange {
    description = 'Item counts start at one.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/items', ['GET'])
    @ConvertResponseToPreviousVersionFor('/api/items', ['GET'])
    countUp (response: ResponseInfo) { response.body.count = Number(response.body.count ?? 0) + 1 }
  }
  const app = await appWith(t, bundleOf(['2001-01-01', '2000-01-01'], { '2001-01-01': [CountsUp] }))
  await t.rejects(async () => { await app.ready() }, {
    code: 'FST_VERSIONER_STRUCTURE',
    message: /Converter "CountsUp\.countUp" names GET \/api\/items twice \('\/items' and '\/api\/items'\) in version '2001-01-01': it would run twice on each occurrence/
  })
})

test('a version change shared by two APIs, holding an endpoint instruction, works under both prefixes', async (t) => {
  const Item = Type.Object({ id: Type.String(), title: Type.String() })
  class RemoveLegacy extends VersionChange {
    description = 'GET /legacy was removed; Item.title was called name.'
    instructionsToMigrateToPreviousVersion = [endpoint('/legacy', ['GET']).existed, schema(Item).field('title').had({ name: 'name' })]

    @ConvertResponseToPreviousVersionFor(Item)
    titleToName (response: ResponseInfo) {
      response.body.name = response.body.title
      delete response.body.title
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  for (const [prefix, values] of [['/a', ['2001-01-01', '2000-01-01']], ['/b', ['v2', 'v1']]] as const) {
    await app.register(async (api) => {
      await api.register(fastifyVersioner, { versions: bundleOf(values, { [values[0]]: [RemoveLegacy] }), ...(prefix === '/b' ? { apiVersionFormat: 'string' as const } : {}) })
      await api.register(versioned(async (routes) => {
        routes.get('/item', { schema: { response: { 200: Item } } }, async () => ({ id: '1', title: 'Pen' }))
        routes.get('/legacy', { onlyExistsInOlderVersions: true }, async () => ({ legacy: true }))
      }))
    }, { prefix })
  }
  await app.ready()
  t.equal((await get(app, '/a/legacy', '2001-01-01')).statusCode, 404, 'API a: removed in the newer version')
  t.same((await get(app, '/a/legacy', '2000-01-01')).json(), { legacy: true }, 'API a: served in the older one')
  t.equal((await get(app, '/b/legacy', 'v2')).statusCode, 404, 'API b: removed in the newer version')
  t.same((await get(app, '/b/legacy', 'v1')).json(), { legacy: true }, 'API b: served in the older one')
  t.same((await get(app, '/b/item', 'v1')).json(), { id: '1', name: 'Pen' })
})

test('an instruction naming no registered route fails ready() saying so and listing the routes that exist', async (t) => {
  const app = await appWith(t, bundleOf(['2001-01-01', '2000-01-01'], {
    '2001-01-01': [changeClass('AddReports', [endpoint('/reports', ['GET']).didntExist])]
  }))
  await t.rejects(async () => await app.ready(), {
    code: 'FST_VERSIONER_ROUTER_GENERATION',
    message: /Endpoint "\[GET\] \/reports" named in "AddReports" is not a route registered in this application \(in any version\)\. .*relative to the prefix of its versioned\(\.\.\.\) context, or its full path.*The versioned routes registered: GET \/api\/items; POST \/api\/orders\. If this application registers only part of its routes .*\{ partialApp: true \}/
  })
})

test('a partial app (some route plugins, the full bundle): not registered, not the instruction\'s fault; partialApp: true builds it', async (t) => {
  const Report = Type.Object({ total: Type.Number() })
  class ReportsAndTotals extends VersionChange {
    description = 'Reports were added; Report.total was called sum.'
    instructionsToMigrateToPreviousVersion = [
      endpoint('/reports', ['GET']).didntExist,
      endpoint('/legacy-reports', ['GET']).existed,
      schema(Report).field('total').had({ name: 'sum' })
    ]

    @ConvertResponseToPreviousVersionFor(Report)
    totalToSum (response: ResponseInfo) { response.body.sum = response.body.total }

    @ConvertRequestToNextVersionFor('/reports', ['POST'])
    nothing (_request: RequestInfo) {}
  }
  const versions = () => bundleOf(['2001-01-01', '2000-01-01'], { '2001-01-01': [ReportsAndTotals] })
  const partial = await appWith(t, versions())
  await t.rejects(async () => await partial.ready(), { code: 'FST_VERSIONER_ROUTER_GENERATION', message: /"\[GET\] \/reports" named in "ReportsAndTotals" is not a route registered in this application/ })

  const built = await appWith(t, versions(), { partialApp: true })
  await built.ready()
  t.same((await get(built, '/api/items', '2000-01-01')).json(), { handler: 'items', version: '2000-01-01' }, 'the registered routes are served')
  const bad = Fastify()
  t.teardown(() => bad.close())
  await t.rejects(async () => await bad.register(fastifyVersioner, { versions: versions(), partialApp: 'yes' as never }),
    { code: 'FST_VERSIONER_INVALID_OPTION', message: /Option 'partialApp' must be true or false/ })
})

test('regression: the HEAD of a prefix\'s root route with a trailing slash is the GET\'s, in every version', async (t) => {
  const Root = Type.Object({ id: Type.String(), fullName: Type.String() })
  class RootWas200 extends VersionChange {
    description = 'The root answered 200, with name.'
    instructionsToMigrateToPreviousVersion = [endpoint('/', ['GET']).had({ statusCode: 200 }), schema(Root).field('fullName').had({ name: 'name' })]

    @ConvertResponseToPreviousVersionFor(Root)
    down (response: ResponseInfo) {
      response.body.name = response.body.fullName
      delete response.body.fullName
    }
  }
  for (const location of ['header', 'path'] as const) {
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(fastifyVersioner, { versions: bundleOf(['2001-01-01', '2000-01-01'], { '2001-01-01': [RootWas200] }), apiVersionLocation: location })
    // prefixTrailingSlash 'both' (Fastify's default): the route answers at /api and /api/.
    await app.register(versioned(async (api) => {
      api.get('/', { schema: { response: { 201: Root } } }, async (_request, reply) => reply.code(201).send({ id: 'r', fullName: 'Ada' }))
    }), { prefix: '/api' })
    await app.ready()
    t.same((app.versioner.routes.get('2000-01-01') ?? []).map((route) => route.methods.join()), ['GET'], `${location}: one route`)
    const urls = location === 'header' ? ['/api', '/api/'] : ['/api/2000-01-01', '/api/']
    for (const url of urls) {
      const got = await app.inject({ url, headers: { 'x-api-version': '2000-01-01' } })
      const head = await app.inject({ method: 'HEAD', url, headers: { 'x-api-version': '2000-01-01' } })
      t.equal(head.statusCode, got.statusCode, `${location} ${url}: HEAD answers the GET's status (${got.statusCode})`)
      t.equal(head.headers['content-length'], got.headers['content-length'], `${location} ${url}: and its length`)
    }
    t.equal((await app.inject({ method: 'HEAD', url: urls[0], headers: { 'x-api-version': '2000-01-01' } })).statusCode, 200, `${location}: the old version's status`)
  }
})

test('regression: with path versions, a prefix\'s root route answers at its trailing slash inside the version segment, as Fastify serves prefix/', async (t) => {
  const Order = Type.Object({ id: Type.String(), fullName: Type.String() })
  const FullNameWasName = fullNameWasNameInResponses(Order)
  const build = async (routerOptions: { ignoreTrailingSlash?: boolean } = {}): Promise<FastifyInstance> => {
    const app = Fastify({ routerOptions })
    t.teardown(() => app.close())
    await app.register(fastifyVersioner, { versions: bundleOf(['2001-01-01', '2000-01-01'], { '2001-01-01': [FullNameWasName] }), apiVersionLocation: 'path' })
    await app.register(versioned(async (api) => {
      // As @fastify/autoload registers a folder's index route.
      await api.register(async (orders) => { orders.get('/', { schema: { response: { 200: Order } } }, async () => ({ id: 'o1', fullName: 'Ada' })) }, { prefix: '/orders' })
    }), { prefix: '/api' })
    await app.ready()
    return app
  }
  const app = await build()
  for (const url of ['/api/2000-01-01/orders', '/api/2000-01-01/orders/']) {
    const got = await app.inject(url)
    t.equal(got.statusCode, 200, url)
    t.same(got.json(), { id: 'o1', name: 'Ada' }, `${url}: in the old version's shape`)
    t.equal(got.headers['x-api-version'], '2000-01-01')
    const head = await app.inject({ method: 'HEAD', url })
    t.equal(head.statusCode, 200, `${url}: HEAD`)
    t.equal(head.headers['content-length'], got.headers['content-length'], `${url}: HEAD has the GET's length`)
  }
  t.same((await app.inject('/api/2001-01-01/orders/')).json(), { id: 'o1', fullName: 'Ada' }, 'the newest version at the slash')
  t.same((app.versioner.routes.get('2000-01-01') ?? []).map((route) => route.methods.join()), ['GET'], 'listed once')
  // Fastify's own copy at /api/orders/ names no version.
  t.equal((await app.inject('/api/orders/')).statusCode, 400)
  const lenient = await build({ ignoreTrailingSlash: true })
  t.equal((await lenient.inject('/api/2000-01-01/orders/')).statusCode, 200, 'with ignoreTrailingSlash, the one route answers both')
})

test('regression: with path versions, a root route under a prefix written with a trailing slash (\'/orders/\') no longer fails registration with FST_ERR_DUPLICATED_ROUTE', async (t) => {
  const Order = Type.Object({ id: Type.String(), fullName: Type.String() })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: bundleOf(['2001-01-01', '2000-01-01'], { '2001-01-01': [fullNameWasNameInResponses(Order)] }), apiVersionLocation: 'path'
  })
  await app.register(versioned(async (api) => {
    await api.register(async (orders) => { orders.get('/', { schema: { response: { 200: Order } } }, async () => ({ id: 'o1', fullName: 'Ada' })) }, { prefix: '/orders/' })
  }), { prefix: '/api' })
  await app.ready()
  // As in Fastify, where this route answers /api/orders/ (and /api/orders is a 404).
  const got = await app.inject('/api/2000-01-01/orders/')
  t.equal(got.statusCode, 200)
  t.same(got.json(), { id: 'o1', name: 'Ada' }, "in the old version's shape")
  const head = await app.inject({ method: 'HEAD', url: '/api/2000-01-01/orders/' })
  t.equal(head.statusCode, 200)
  t.equal(head.headers['content-length'], got.headers['content-length'], "HEAD has the GET's length")
  t.same((await app.inject('/api/2001-01-01/orders/')).json(), { id: 'o1', fullName: 'Ada' })
  t.same((app.versioner.routes.get('2000-01-01') ?? []).map((route) => `${route.methods.join()} ${route.path}`), ['GET /api/orders/'], 'listed once')
  // With header versions, Fastify's second HEAD twin (made at the same path) was versioned as a route of its own.
  const byHeader = Fastify()
  t.teardown(() => byHeader.close())
  await byHeader.register(fastifyVersioner, { versions: bundleOf(['2001-01-01', '2000-01-01'], { '2001-01-01': [fullNameWasNameInResponses(Order)] }) })
  await byHeader.register(versioned(async (api) => {
    await api.register(async (orders) => { orders.get('/', { schema: { response: { 200: Order } } }, async () => ({ id: 'o1', fullName: 'Ada' })) }, { prefix: '/orders/' })
  }), { prefix: '/api' })
  await byHeader.ready()
  t.same((byHeader.versioner.routes.get('2000-01-01') ?? []).map((route) => `${route.methods.join()} ${route.path}`), ['GET /api/orders/'], 'listed once by header')
  t.equal((await byHeader.inject({ method: 'HEAD', url: '/api/orders/', headers: { 'x-api-version': '2000-01-01' } })).headers['content-length'], got.headers['content-length'])
})

test('regression: with path versions, a catch-all route (\'*\', as @fastify/cors registers) answers inside the version segment', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: bundleOf(['2001-01-01', '2000-01-01']), apiVersionLocation: 'path' })
  await app.register(versioned(async (api) => {
    // Fastify joins '*' to the prefix as '/api*': everything under the prefix.
    api.get('*', async (request) => ({ rest: (request.params as Record<string, string>)['*'], version: request.apiVersion }))
    api.options('*', async (request, reply) => reply.code(204).header('x-preflight', request.apiVersion ?? 'none').send())
  }), { prefix: '/api' })
  await app.ready()
  const got = await app.inject('/api/2000-06-01/files/a')
  t.equal(got.statusCode, 200)
  t.same(got.json(), { rest: 'files/a', version: '2000-01-01' })
  t.equal(got.headers['x-api-version'], '2000-01-01')
  t.same((await app.inject('/api/2001-01-01/')).json(), { rest: '', version: '2001-01-01' }, 'at the version segment\'s slash')
  const preflight = await app.inject({ method: 'OPTIONS', url: '/api/2001-01-01/items' })
  t.equal(preflight.statusCode, 204, 'a preflight at a versioned path')
  t.equal(preflight.headers['x-preflight'], '2001-01-01')
  t.equal((await app.inject('/api/x/files')).statusCode, 400, 'a segment naming no version is refused, saying so')
})

test('regression: with path versions and no prefix, the root route (\'/\') answers at the version segment with its slash too', async (t) => {
  const Root = Type.Object({ id: Type.String(), fullName: Type.String() })
  const labels = new Set<string>()
  const build = async (routerOptions: { ignoreTrailingSlash?: boolean } = {}): Promise<FastifyInstance> => {
    const app = Fastify({ routerOptions })
    t.teardown(() => app.close())
    app.addHook('onResponse', async (request) => { labels.add(request.routeOptions.url ?? 'none') })
    await app.register(fastifyVersioner, {
      versions: bundleOf(['2001-01-01', '2000-01-01'], { '2001-01-01': [fullNameWasNameInResponses(Root)] }), apiVersionLocation: 'path'
    })
    await app.register(versioned(async (api) => {
      api.get('/', { schema: { response: { 200: Root } } }, async () => ({ id: 'r1', fullName: 'Ada' }))
    }))
    await app.ready()
    return app
  }
  const app = await build()
  // The segment takes the place of a prefix: /2000-01-01/ is the route's path after it, as /2000-01-01/users is /users's.
  for (const url of ['/2000-01-01', '/2000-01-01/', '/2000-01-01/?q=1']) {
    const got = await app.inject(url)
    t.equal(got.statusCode, 200, url)
    t.same(got.json(), { id: 'r1', name: 'Ada' }, `${url}: in the old version's shape`)
    t.equal(got.headers['x-api-version'], '2000-01-01')
    const head = await app.inject({ method: 'HEAD', url })
    t.equal(head.statusCode, 200, `${url}: HEAD`)
    t.equal(head.headers['content-length'], got.headers['content-length'], `${url}: HEAD has the GET's length`)
  }
  t.same((await app.inject('/2001-01-01/')).json(), { id: 'r1', fullName: 'Ada' }, 'the newest version at the slash')
  t.same((app.versioner.routes.get('2000-01-01') ?? []).map((route) => route.methods.join()), ['GET'], 'listed once')
  t.same([...labels], ['/'], 'one routeOptions.url at both URLs, the path as written')
  const lenient = await build({ ignoreTrailingSlash: true })
  t.equal((await lenient.inject('/2000-01-01/')).statusCode, 200, 'with ignoreTrailingSlash, the one route answers both')
})
