import { test, type Test } from 'tap'
import { Readable } from 'node:stream'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, HeadVersion, LintingError, RouterGenerationError, RouterPathParamsModifiedError, Version, VersionBundle, VersionChange,
  endpoint, enumeration, fastifyVersioner, schema, versioned, type Instruction, type RequestInfo, type VersionChangeClass
} from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { rejection } from '../helpers/errors'
import { v } from '../helpers/request-pipeline'
import { changeClass } from '../helpers/version-changes'

type Api = Parameters<Parameters<typeof versioned>[0]>[0]

/** 2002-01-01 holding `newer`, 2001-01-01 holding `older` (if any), then 2000-01-01. */
function threeVersions (newer: VersionChangeClass, older?: VersionChangeClass): VersionBundle {
  return new VersionBundle(new HeadVersion(), new Version('2002-01-01', newer),
    older === undefined ? new Version('2001-01-01') : new Version('2001-01-01', older), new Version('2000-01-01'))
}

/** `[status, body]` of a request in `version`. */
async function call (app: FastifyInstance, version: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string): Promise<[number, unknown]> {
  const response = await app.inject({ method, url, headers: v(version) })
  return [response.statusCode, response.body === '' ? '' : response.json()]
}

const notFound = (method: string, url: string) => ({ message: `Route ${method}:${url} not found`, error: 'Not Found', statusCode: 404 })

/** Asserts that `app.ready()` fails with `code`, a `RouterGenerationError`, and a message matching `message`. */
async function failsWith (t: Test, app: FastifyInstance, code: string, message: RegExp | string, what: string) {
  const error = await rejection(async () => await app.ready())
  t.ok(error instanceof RouterGenerationError, `${what}: a RouterGenerationError`)
  t.equal(error?.code, code, `${what}: ${code}`)
  t.match(error?.message, message, `${what}: message`)
}

test('didntExist: a route added in a version is a 404 in older versions and is served from that version on', async (t) => {
  const app = await versionedApp(t, threeVersions(changeClass('AddUserAddresses', [endpoint('/users/:id/addresses', ['GET']).didntExist])), async (api) => {
    api.get('/users/:id', async (request) => ({ user: (request.params as { id: string }).id }))
    api.get('/users/:id/addresses', async (request) => ({ addressesOf: (request.params as { id: string }).id }))
  })
  await app.ready()
  t.same(await call(app, '2002-01-01', 'GET', '/users/7/addresses'), [200, { addressesOf: '7' }])
  t.same(await call(app, '2003-05-05', 'GET', '/users/7/addresses'), [200, { addressesOf: '7' }], 'a later date waterfalls to 2002-01-01')
  t.same(await call(app, '2001-01-01', 'GET', '/users/7/addresses'), [404, notFound('GET', '/users/7/addresses')])
  t.same(await call(app, '2000-01-01', 'GET', '/users/7/addresses'), [404, notFound('GET', '/users/7/addresses')])
  t.same(await call(app, '2000-01-01', 'GET', '/users/7'), [200, { user: '7' }], 'the other route of the path prefix is untouched')
  t.same(app.versioner.routes.get('2001-01-01')?.map((route) => route.path), ['/users/:id'])
  t.same(app.versioner.routes.get('2002-01-01')?.map((route) => route.path).sort(), ['/users/:id', '/users/:id/addresses'])
})

test('existed restores a route that a newer change deleted', async (t) => {
  const app = await versionedApp(t, threeVersions(
    changeClass('AddReports', [endpoint('/reports', ['GET']).didntExist]),
    changeClass('RemoveOldReports', [endpoint('/reports', ['GET']).existed])
  ), async (api) => {
    api.get('/reports', async () => ({ reports: [] }))
  })
  await app.ready()
  t.same(await call(app, '2002-01-01', 'GET', '/reports'), [200, { reports: [] }])
  t.same(await call(app, '2001-01-01', 'GET', '/reports'), [404, notFound('GET', '/reports')], 'deleted in 2001-01-01')
  t.same(await call(app, '2000-01-01', 'GET', '/reports'), [200, { reports: [] }], 'restored in 2000-01-01')
})

test('onlyExistsInOlderVersions: the route is absent from latest until restored, and may then take the path of the route replacing it', async (t) => {
  const app = await versionedApp(t, threeVersions(changeClass('ReplaceItemEndpoint', [
    endpoint('/items/:id', ['GET']).didntExist,
    endpoint('/legacy/items/:id', ['GET']).existed,
    endpoint('/legacy/items/:id', ['GET']).had({ path: '/items/:id' })
  ])), async (api) => {
    api.get('/items/:id', async (request) => ({ handler: 'new', id: (request.params as { id: string }).id }))
    api.get('/legacy/items/:id', { onlyExistsInOlderVersions: true }, async (request) => ({ handler: 'old', id: (request.params as { id: string }).id }))
    api.get('/archive', { onlyExistsInOlderVersions: true }, async () => ({ archive: true }))
  })
  const error = await rejection(async () => await app.ready())
  t.match(error?.message, /never restored: \[GET\] \/archive/, 'a marked route that is never restored is an error')

  const fixed = await versionedApp(t, threeVersions(
    changeClass('ReplaceItemEndpointAgain', [
      endpoint('/items/:id', ['GET']).didntExist,
      endpoint('/legacy/items/:id', ['GET']).existed,
      endpoint('/legacy/items/:id', ['GET']).had({ path: '/items/:id' })
    ]),
    changeClass('AddArchive', [endpoint('/archive', ['GET']).existed])
  ), async (api) => {
    api.get('/items/:id', async (request) => ({ handler: 'new', id: (request.params as { id: string }).id }))
    api.get('/legacy/items/:id', { onlyExistsInOlderVersions: true }, async (request) => ({ handler: 'old', id: (request.params as { id: string }).id }))
    api.get('/archive', { onlyExistsInOlderVersions: true }, async () => ({ archive: true }))
  })
  await fixed.ready()
  t.same(await call(fixed, '2002-01-01', 'GET', '/items/5'), [200, { handler: 'new', id: '5' }])
  t.same(await call(fixed, '2002-01-01', 'GET', '/legacy/items/5'), [404, notFound('GET', '/legacy/items/5')], 'absent from latest')
  t.same(await call(fixed, '2002-01-01', 'GET', '/archive'), [404, notFound('GET', '/archive')])
  t.same(await call(fixed, '2001-01-01', 'GET', '/items/5'), [200, { handler: 'old', id: '5' }], 'the restored route answers the shared path')
  t.same(await call(fixed, '2001-01-01', 'GET', '/legacy/items/5'), [404, notFound('GET', '/legacy/items/5')])
  t.same(await call(fixed, '2001-01-01', 'GET', '/archive'), [404, notFound('GET', '/archive')], 'restored only in 2000-01-01')
  t.same(await call(fixed, '2000-01-01', 'GET', '/items/5'), [200, { handler: 'old', id: '5' }])
  t.same(await call(fixed, '2000-01-01', 'GET', '/archive'), [200, { archive: true }])
  t.same(fixed.versioner.routes.get('2002-01-01')?.map((route) => route.headPath), ['/items/:id'])
})

test('had({ path, methods, summary, tags, deprecated }) serves the route under its old path and methods, with its old attributes', async (t) => {
  const app = await versionedApp(t, threeVersions(changeClass('RenameAccountsToUsers', [
    endpoint('/users/:id', ['GET']).had({ path: '/accounts/:id', summary: 'Get an account', tags: ['accounts'], deprecated: true }),
    endpoint('/users', ['POST']).had({ methods: ['PUT'] })
  ])), async (api) => {
    api.get('/users/:id', { schema: { summary: 'Get a user', tags: ['users'], params: Type.Object({ id: Type.String() }) } },
      async (request) => ({ id: request.params.id }))
    api.post('/users', async (request) => ({ method: request.method }))
  })
  await app.ready()
  t.same(await call(app, '2002-01-01', 'GET', '/users/3'), [200, { id: '3' }])
  t.same(await call(app, '2002-01-01', 'GET', '/accounts/3'), [404, notFound('GET', '/accounts/3')])
  t.same(await call(app, '2001-01-01', 'GET', '/accounts/3'), [200, { id: '3' }], 'the old path, with its path parameter')
  t.same(await call(app, '2000-01-01', 'GET', '/users/3'), [404, notFound('GET', '/users/3')])
  t.same(await call(app, '2002-01-01', 'POST', '/users'), [200, { method: 'POST' }])
  t.same(await call(app, '2000-01-01', 'PUT', '/users'), [200, { method: 'PUT' }], 'the old method')
  t.same(await call(app, '2000-01-01', 'POST', '/users'), [404, notFound('POST', '/users')])
  const attributes = (version: string) => app.versioner.routes.get(version)?.find((route) => route.headPath === '/users/:id')
  t.match(attributes('2002-01-01'), { path: '/users/:id', attributes: { summary: 'Get a user', tags: ['users'] } })
  t.notOk(attributes('2002-01-01')?.attributes.deprecated)
  t.match(attributes('2001-01-01'), { path: '/accounts/:id', attributes: { summary: 'Get an account', tags: ['accounts'], deprecated: true } })
})

test('had({ statusCode }) sends successful responses of that version with the old status; errors keep theirs', async (t) => {
  const Created = Type.Object({ id: Type.String() })
  const app = await versionedApp(t, threeVersions(changeClass('CreatedIs201', [endpoint('/users', ['POST']).had({ statusCode: 200 })])), async (api) => {
    api.post('/users', {
      schema: { body: Type.Object({ fail: Type.Optional(Type.Boolean()) }), response: { 201: Created, 409: Type.Object({ message: Type.String() }) } }
    }, async (request, reply) => {
      if (request.body.fail === true) return reply.code(409).send({ message: 'exists' })
      reply.code(201)
      return { id: 'u1', internalNote: 'not in any schema' }
    })
  })
  await app.ready()
  const post = (version: string, fail: boolean) => app.inject({ method: 'POST', url: '/users', headers: v(version), payload: { fail } })

  let response = await post('2002-01-01', false)
  t.equal(response.statusCode, 201, 'the latest version answers 201')
  t.same(response.json(), { id: 'u1' })
  response = await post('2001-01-01', false)
  t.equal(response.statusCode, 200, '2001-01-01 answers 200')
  t.equal(response.json().id, 'u1')
  t.same(response.json(), { id: 'u1' })
  response = await post('2000-01-01', true)
  t.equal(response.statusCode, 409, 'an error status is not changed')
  t.same(response.json(), { message: 'exists' })
})

test('regression: had({ statusCode }) also sends an empty, buffer or stream success with the old status', async (t) => {
  const app = await versionedApp(t, threeVersions(changeClass('DeletesAnswer204', [
    endpoint('/users/:id', ['DELETE']).had({ statusCode: 200 }),
    endpoint('/exports', ['POST']).had({ statusCode: 200 }),
    endpoint('/reports', ['POST']).had({ statusCode: 200 })
  ])), async (api) => {
    api.delete('/users/:id', async (_request, reply) => reply.code(204).send())
    api.post('/exports', async (_request, reply) => reply.code(201).type('text/csv').send(Buffer.from('id\nu1\n')))
    api.post('/reports', async (_request, reply) => reply.code(202).type('text/plain').send(Readable.from(['queued'])))
  })
  await app.ready()
  t.same(await call(app, '2002-01-01', 'DELETE', '/users/u1'), [204, ''], 'the latest version answers 204')
  t.same(await call(app, '2001-01-01', 'DELETE', '/users/u1'), [200, ''], 'the version documented with 200 answers 200')
  const exported = await app.inject({ method: 'POST', url: '/exports', headers: v('2001-01-01') })
  t.equal(exported.statusCode, 200)
  t.equal(exported.body, 'id\nu1\n', 'the buffer as it was')
  const report = await app.inject({ method: 'POST', url: '/reports', headers: v('2001-01-01') })
  t.equal(report.statusCode, 200)
  t.equal(report.body, 'queued', 'the stream as it was')
  t.equal((await app.inject({ method: 'POST', url: '/reports', headers: v('2002-01-01') })).statusCode, 202)
})

test('regression: a path parameter whose enum a version gives a value HEAD lacks fails at start-up, not on every such request', async (t) => {
  // Before: app.ready() passed; GET /reports/week in 2000-01-01 passed its version's validation, then failed HEAD's:
  // a 500 for every such request, no converter able to change a path parameter (and `verify` asked to fix one).
  const Period = Type.Union([Type.Literal('day'), Type.Literal('weekly'), Type.Literal('monthly')])
  const routes = async (api: FastifyInstance): Promise<void> => {
    api.get('/reports/:period', { schema: { params: Type.Object({ period: Period }) } }, async (request) => request.params)
  }
  const renamed = await versionedApp(t, threeVersions(changeClass('WeekBecameWeekly', [enumeration(Period).had({ weekly: 'week' })])), routes)
  const error = await rejection(async () => await renamed.ready())
  t.ok(error instanceof RouterPathParamsModifiedError, 'a RouterPathParamsModifiedError')
  t.match(error?.message, /GET \/reports\/:period: in API version 2001-01-01, its path parameters accept "week", which HEAD's refuse \(version change WeekBecameWeekly renamed or removed it\)/)

  const removed = await versionedApp(t, threeVersions(changeClass('Day', []), changeClass('HourlyDropped', [enumeration(Period).had({ hourly: 'hourly' })])), routes)
  t.match(await rejection(async () => await removed.ready()), { code: 'FST_VERSIONER_ROUTER_PATH_PARAMS_MODIFIED', message: /in API version 2000-01-01, its path parameters accept "hourly".*HourlyDropped/ }, 'a member HEAD removed')

  const added = await versionedApp(t, threeVersions(changeClass('MonthlyAdded', [enumeration(Period).didntHave('monthly')])), routes)
  t.equal(await rejection(async () => await added.ready()), undefined, 'a member HEAD added is fine: the older version accepts less')
  t.same(await call(added, '2001-01-01', 'GET', '/reports/day'), [200, { period: 'day' }])
  t.equal((await call(added, '2001-01-01', 'GET', '/reports/monthly'))[0], 400)
})

test('regression: a schema instruction renaming or removing a path parameter\'s field fails at start-up, not with a 400 on every request of the version', async (t) => {
  // Before: app.ready() passed; every 2001-01-01 request was refused (`params must have required property 'itemId'`),
  // and its document named a parameter `itemId` at `/items/{id}` (or none for `{sub}`), which no client can send.
  const Params = Type.Object({ id: Type.String(), sub: Type.String() })
  const routes = async (api: FastifyInstance): Promise<void> => {
    api.get('/items/:id/:sub', { schema: { params: Params } }, async (request) => request.params)
  }
  const renamed = await versionedApp(t, threeVersions(changeClass('ItemIdParam', [schema(Params).field('id').had({ name: 'itemId' })])), routes)
  const error = await rejection(async () => await renamed.ready())
  t.ok(error instanceof RouterPathParamsModifiedError, 'a RouterPathParamsModifiedError')
  t.match(error?.message, /GET \/items\/:id\/:sub: in API version 2001-01-01, its path parameters are \[itemId, sub\], where HEAD's are \[id, sub\] \(version change ItemIdParam\)/)

  const removed = await versionedApp(t, threeVersions(changeClass('Day', []), changeClass('NoSub', [schema(Params).field('sub').didntExist])), routes)
  t.match(await rejection(async () => await removed.ready()), { code: 'FST_VERSIONER_ROUTER_PATH_PARAMS_MODIFIED', message: /in API version 2000-01-01, its path parameters are \[id\], where HEAD's are \[id, sub\] \(version change NoSub\)/ }, 'a field removed')

  const retyped = await versionedApp(t, threeVersions(changeClass('NumericIds', [schema(Params).field('id').had({ pattern: '^[0-9]+$' })])), routes)
  t.equal(await rejection(async () => await retyped.ready()), undefined, 'a field changed but not renamed is fine')
  t.equal((await call(retyped, '2001-01-01', 'GET', '/items/a/b'))[0], 400)
})

test('had({ path }) that changes path parameters fails with RouterPathParamsModifiedError', async (t) => {
  const app = await versionedApp(t, threeVersions(changeClass('RenameUserIdParam', [endpoint('/users/:id/posts/:postId', ['GET']).had({ path: '/users/:userId/posts/:postId' })])), async (api) => {
    api.get('/users/:id/posts/:postId', async () => ({}))
  })
  const error = await rejection(async () => await app.ready())
  t.ok(error instanceof RouterPathParamsModifiedError, 'a RouterPathParamsModifiedError')
  t.ok(error instanceof RouterGenerationError, 'which is a RouterGenerationError')
  t.equal(error?.code, 'FST_VERSIONER_ROUTER_PATH_PARAMS_MODIFIED')
  t.match(error?.message, 'When altering the path of "[GET] /users/:id/posts/:postId" in "RenameUserIdParam", you have tried to change its path params from [id, postId] to [postId, userId]')

  const same = await versionedApp(t, threeVersions(changeClass('RenameUsersKeepParams', [endpoint('/users/:id', ['GET']).had({ path: '/people/:id/' })])), async (api) => {
    api.get('/users/:id', async (request) => request.params)
  })
  t.equal(await rejection(async () => await same.ready()), undefined, 'a new path with the same parameters is fine')
  t.same(await call(same, '2001-01-01', 'GET', '/people/9/'), [200, { id: '9' }])
})

test('an endpoint instruction that matches no route fails at start-up, naming the change and the endpoint', async (t) => {
  const routes = async (api: Api) => {
    api.get('/users', async () => ({}))
    api.route({ method: ['GET', 'POST'], url: '/both', handler: async () => ({}) })
  }
  const cases: Array<[string, Instruction, RegExp]> = [
    ['didntExist', endpoint('/nope', ['GET']).didntExist, /^Endpoint "\[GET\] \/nope" named in "NoRoute0" is not a route registered in this application .*The versioned routes registered: GET \/users; GET,POST \/both\./],
    ['existed', endpoint('/nope', ['GET']).existed, /^Endpoint "\[GET\] \/nope" named in "NoRoute1" is not a route registered in this application/],
    ['had', endpoint('/nope', ['GET']).had({ summary: 'x' }), /^Endpoint "\[GET\] \/nope" named in "NoRoute2" is not a route registered in this application/],
    ['a method the path lacks', endpoint('/users', ['GET', 'DELETE']).didntExist, /^Endpoint "\[DELETE\] \/users" you tried to delete in "NoRoute3" doesn't exist/],
    ['fewer methods than the route has', endpoint('/both', ['GET']).didntExist, /^Endpoint "\[GET\] \/both" named in "NoRoute4" is not a route registered .*with every one of its methods/]
  ]
  for (const [index, [what, instruction, message]] of cases.entries()) {
    const app = await versionedApp(t, threeVersions(changeClass(`NoRoute${index}`, [instruction])), routes)
    await failsWith(t, app, 'FST_VERSIONER_ROUTER_GENERATION', message, what)
  }

  const covering = await versionedApp(t, threeVersions(changeClass('DeleteGetAndPost', [endpoint('/both/', ['POST', 'GET']).didntExist,
    endpoint('/users', ['GET']).had({ summary: 'Users' })])), routes)
  t.equal(await rejection(async () => await covering.ready()), undefined, 'listing every method of the route matches it; trailing slashes are ignored')
  t.same(await call(covering, '2001-01-01', 'POST', '/both'), [404, notFound('POST', '/both')])
  t.same(await call(covering, '2002-01-01', 'POST', '/both'), [200, {}])

  const deletedThenChanged = await versionedApp(t, threeVersions(
    changeClass('AddUsers', [endpoint('/users', ['GET']).didntExist]),
    changeClass('DescribeUsers', [endpoint('/users', ['GET']).had({ summary: 'x' })])
  ), routes)
  await failsWith(t, deletedThenChanged, 'FST_VERSIONER_ROUTER_GENERATION',
    /^Endpoint "\[GET\] \/users" you tried to change in "DescribeUsers" doesn't exist/, 'had on a route deleted by a newer version')
})

test('regression: an instruction naming a route an earlier instruction of its change moved says why it names nothing, and what to write', async (t) => {
  const routes = async (api: Api) => {
    api.get('/a', async () => ({ a: 1 }))
  }
  const moved = await versionedApp(t, threeVersions(changeClass('MoveA', [endpoint('/a', ['GET']).had({ path: '/z' }), endpoint('/a', ['GET']).had({ summary: 'Old A' })])), routes)
  await failsWith(t, moved, 'FST_VERSIONER_ROUTER_GENERATION', new RegExp('^Endpoint "\\[GET\\] /a" named in "MoveA" names no route where it applies: ' +
    'instructions of one change apply in order, and an earlier one of "MoveA", endpoint\\(\'/a\', \\[GET\\]\\)\\.had\\(\\{ path \\}\\), had already ' +
    'made it "\\[GET\\] /z"\\. Name it as the earlier instruction left it \\(endpoint\\(\'/z\', \\[GET\\]\\)\\), or put this instruction before the one that moved it\\.'), 'moved by path')
  const methods = await versionedApp(t, threeVersions(changeClass('PostA', [endpoint('/a', ['GET']).had({ methods: ['POST'] }), endpoint('/a', ['GET']).had({ summary: 'Old A' })])), routes)
  await failsWith(t, methods, 'FST_VERSIONER_ROUTER_GENERATION', /an earlier one of "PostA", endpoint\('\/a', \[GET\]\)\.had\(\{ methods \}\), had already made it "\[POST\] \/a"/, 'moved by methods')
  for (const fixed of [[endpoint('/a', ['GET']).had({ path: '/z' }), endpoint('/z', ['GET']).had({ summary: 'Old A' })],
    [endpoint('/a', ['GET']).had({ summary: 'Old A' }), endpoint('/a', ['GET']).had({ path: '/z' })]]) {
    const app = await versionedApp(t, threeVersions(changeClass('MoveA', fixed)), routes)
    t.equal(await rejection(async () => await app.ready()), undefined, 'either way the message tells works')
    t.same(await call(app, '2001-01-01', 'GET', '/z'), [200, { a: 1 }])
  }
  const partial = await versionedApp(t, threeVersions(changeClass('MoveA', [endpoint('/a', ['GET']).had({ path: '/z' }), endpoint('/a', ['GET']).had({ summary: 'Old A' })])),
    routes, { versioner: { partialApp: true } })
  await failsWith(t, partial, 'FST_VERSIONER_ROUTER_GENERATION', /names no route where it applies/, 'not skipped in a partial application: its route is registered')
})

test('regression: two routes landing on one path and method name both, and the version change that moved each there', async (t) => {
  const app = await versionedApp(t, threeVersions(changeClass('MoveAToB', [endpoint('/a', ['GET']).had({ path: '/b' })])), async (api) => {
    api.get('/a', async () => ({ a: 1 }))
    api.get('/b', async () => ({ b: 1 }))
  })
  const error = await rejection(async () => await app.ready())
  t.match(error?.message, /^Two routes answer \[GET\] \/b in version\(s\) 2001-01-01, 2000-01-01: /)
  t.match(error?.message, 'GET /a (at GET /b from 2001-01-01 on, by "MoveAToB")', 'names the moved route and the change that moved it')
  t.match(error?.message, 'GET /b (at its HEAD path and methods)', 'names the other route')
})
test('deleting a deleted route, restoring an existing one, ambiguous restores, no-op attributes and unrestored routes fail at start-up', async (t) => {
  const deletedTwice = await versionedApp(t, threeVersions(
    changeClass('AddWidgets', [endpoint('/widgets', ['GET']).didntExist]),
    changeClass('AddWidgetsAgain', [endpoint('/widgets', ['GET']).didntExist])
  ), async (api) => { api.get('/widgets', async () => ({})) })
  await failsWith(t, deletedTwice, 'FST_VERSIONER_ROUTER_GENERATION',
    'Endpoint "[GET] /widgets" you tried to delete in "AddWidgetsAgain" was already deleted in a newer version', 'deleting twice')

  const restoredExisting = await versionedApp(t, threeVersions(changeClass('RestoreWidgets', [endpoint('/widgets', ['GET']).existed])),
    async (api) => { api.get('/widgets', async () => ({})) })
  await failsWith(t, restoredExisting, 'FST_VERSIONER_ROUTER_GENERATION',
    'Endpoint "[GET] /widgets" you tried to restore in "RestoreWidgets" already existed in a newer version', 'restoring an existing route')

  const ambiguous = await versionedApp(t, threeVersions(
    changeClass('AddGadgets', [endpoint('/gadgets', ['GET']).didntExist]),
    changeClass('RestoreGadgets', [endpoint('/gadgets', ['GET']).existed])
  ), async (api) => {
    api.get('/gadgets', async () => ({ handler: 'new' }))
    api.get('/gadgets', { onlyExistsInOlderVersions: true }, async () => ({ handler: 'old' }))
  })
  const error = await rejection(async () => await ambiguous.ready())
  t.ok(error instanceof RouterGenerationError, 'restoring two candidates: a RouterGenerationError')
  t.equal(error?.code, 'FST_VERSIONER_ROUTER_GENERATION')
  t.match(error?.message, /\[GET\] \/gadgets/, 'the message names the endpoint')
  t.match(error?.message, /"RestoreGadgets"/)

  const sameSummary = await versionedApp(t, threeVersions(changeClass('SameSummary', [endpoint('/widgets', ['GET']).had({ summary: 'List widgets' })])),
    async (api) => { api.get('/widgets', { schema: { summary: 'List widgets' } }, async () => ({})) })
  await failsWith(t, sameSummary, 'FST_VERSIONER_ROUTER_GENERATION',
    'Expected attribute "summary" of endpoint "[GET] /widgets" to be different in "SameSummary", but it was the same', 'an unchanged summary')

  const sameStatus = await versionedApp(t, threeVersions(
    changeClass('StatusWas200', [endpoint('/widgets', ['POST']).had({ statusCode: 200 })]),
    changeClass('StatusWas200Again', [endpoint('/widgets', ['POST']).had({ statusCode: 200 })])
  ), async (api) => { api.post('/widgets', async (_request, reply) => reply.code(201).send({})) })
  await failsWith(t, sameStatus, 'FST_VERSIONER_ROUTER_GENERATION',
    'Expected attribute "statusCode" of endpoint "[POST] /widgets" to be different in "StatusWas200Again", but it was the same', 'an unchanged status')

  const samePath = await versionedApp(t, threeVersions(changeClass('SamePath', [endpoint('/widgets', ['GET']).had({ path: '/widgets' })])),
    async (api) => { api.get('/widgets', async () => ({})) })
  await failsWith(t, samePath, 'FST_VERSIONER_ROUTER_GENERATION', 'Expected attribute "path" of endpoint "[GET] /widgets" to be different in "SamePath"',
    'an unchanged path')

  const neverRestored = await versionedApp(t, threeVersions(changeClass('Unrelated', [])), async (api) => {
    api.get('/widgets', async () => ({}))
    api.get('/old-widgets', { onlyExistsInOlderVersions: true }, async () => ({}))
  })
  await failsWith(t, neverRestored, 'FST_VERSIONER_ROUTER_GENERATION',
    /must be restored with endpoint\(\.\.\.\)\.existed in one of the older versions.*never restored: \[GET\] \/old-widgets/, 'a route never restored')

  // regression: a string from configuration was read as false, so the route meant for older versions served HEAD
  const notBoolean = await versionedApp(t, threeVersions(changeClass('Unrelated', [])), async (api) => {
    api.get('/widgets', async () => ({}))
    api.get('/old-widgets', { onlyExistsInOlderVersions: 'true' as unknown as boolean }, async () => ({}))
  })
  await failsWith(t, notBoolean, 'FST_VERSIONER_ROUTER_GENERATION', "GET /old-widgets: the option onlyExistsInOlderVersions is 'true'; it takes true or false.",
    'a route marked with a string')
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: threeVersions(changeClass('Unrelated', [])) })
  t.throws(() => app.versioner.webhooks.add({ name: 'user.created', body: Type.Object({}), onlyExistsInOlderVersions: 1 as unknown as boolean }),
    { code: 'FST_VERSIONER_ROUTER_GENERATION', message: 'webhook user.created: the option onlyExistsInOlderVersions is 1; it takes true or false.' },
    'a webhook marked with a number')
})

test('regression: after a first start-up error, a route sharing a path with one meant for older versions does not hide it behind Fastify\'s duplicate route error', async (t) => {
  // Before: the routes registered after the first error got no version constraint, so the HEAD route and the one
  // meant for older versions at the same path collided: app.register threw FST_ERR_DUPLICATED_ROUTE, naming neither
  // the unrestored route nor the version changes.
  const app = await versionedApp(t, threeVersions(changeClass('Unrelated', [])))
  await app.register(versioned(async (api) => {
    api.get('/archive', { onlyExistsInOlderVersions: true }, async () => ({}))
    api.get('/orders/:id', async () => ({ handler: 'new' }))
    api.get('/orders/:id', { onlyExistsInOlderVersions: true, schema: { operationId: 'getOrderLegacy' } }, async () => ({ handler: 'old' }))
  }))
  await failsWith(t, app, 'FST_VERSIONER_ROUTER_GENERATION', /never restored: \[GET\] \/archive/, 'the first error, not a duplicate route')

  const params = await versionedApp(t, threeVersions(changeClass('OrderIdParam', [endpoint('/items/:id', ['GET']).had({ path: '/items/:itemId' })])))
  await params.register(versioned(async (api) => {
    api.get('/items/:id', async () => ({}))
    api.get('/orders/:id', async () => ({ handler: 'new' }))
    api.get('/orders/:id', { onlyExistsInOlderVersions: true, schema: { operationId: 'getOrderLegacy' } }, async () => ({ handler: 'old' }))
  }))
  t.match(await rejection(async () => await params.ready()), { code: 'FST_VERSIONER_ROUTER_PATH_PARAMS_MODIFIED', message: /OrderIdParam/ }, 'a path parameter renamed')
})

test('instructions and by-path converters name full paths (prefix included), with the version in a header or in the path', async (t) => {
  for (const location of ['header', 'path'] as const) {
    class RenameAccounts extends VersionChange {
      description = 'Accounts are called users; the news endpoint is new.'
      instructionsToMigrateToPreviousVersion = [
        endpoint('/api/users/:id', ['PUT']).had({ path: '/api/accounts/:id', statusCode: 202 }),
        endpoint('/api/news', ['GET']).didntExist
      ]

      @ConvertRequestToNextVersionFor('/api/users/:id', ['PUT'])
      markConverted (request: RequestInfo) { request.body = { ...request.body, converted: true } }
    }
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(fastifyVersioner, {
      versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameAccounts), new Version('2000-01-01')),
      apiVersionLocation: location
    })
    await app.register(versioned(async (api) => {
      api.put('/users/:id', {
        schema: { body: Type.Object({ name: Type.String(), converted: Type.Optional(Type.Boolean()) }), params: Type.Object({ id: Type.String() }) }
      }, async (request) => ({ ...request.body, id: request.params.id }))
      api.get('/news', async () => ({ news: [] }))
    }), { prefix: '/api' })
    const url = (version: string, rest: string) => location === 'header' ? `/api${rest}` : `/api/${version}${rest}`
    const send = async (version: string, method: 'PUT' | 'GET' | 'HEAD', rest: string) => {
      const response = await app.inject({ method, url: url(version, rest), headers: v(version), ...(method === 'PUT' ? { payload: { name: 'n' } } : {}) })
      return [response.statusCode, method === 'HEAD' || response.statusCode === 404 ? undefined : response.json()]
    }
    t.same(await send('2000-01-01', 'PUT', '/accounts/1'), [202, { name: 'n', converted: true, id: '1' }], `${location}: old path, old status, converted`)
    t.same(await send('2000-01-01', 'PUT', '/users/1'), [404, undefined], `${location}: the new path is absent from 2000-01-01`)
    t.same(await send('2001-01-01', 'PUT', '/users/1'), [200, { name: 'n', id: '1' }], `${location}: the latest version is untouched`)
    t.same(await send('2000-01-01', 'GET', '/news'), [404, undefined], `${location}: news did not exist`)
    t.same(await send('2000-01-01', 'HEAD', '/news'), [404, undefined], `${location}: nor did its HEAD twin`)
    t.same(await send('2001-01-01', 'GET', '/news'), [200, { news: [] }])
    t.same(await send('2001-01-01', 'HEAD', '/news'), [200, undefined])
  }
})

test('bad HTTP methods were the wrong error: a method no Fastify application can route throws LintingError (FST_VERSIONER_LINTING) where it is written', async (t) => {
  const attempts: Array<[string, () => unknown]> = [
    ['endpoint(path, [\'DEATH\'])', () => endpoint('/ping', ['DEATH'] as never)],
    ['endpoint(path, \'death\')', () => endpoint('/ping', 'death' as never)],
    ['endpoint(path, [\'GET\', 42])', () => endpoint('/ping', ['GET', 42] as never)],
    ['endpoint(path, [])', () => endpoint('/ping', [] as never)],
    ['had({ methods: [\'DEATH\'] })', () => endpoint('/ping', ['GET']).had({ methods: ['DEATH'] as never })],
    ['a by-path converter', () => ConvertRequestToNextVersionFor('/ping', ['DEATH'] as never)]
  ]
  for (const [what, attempt] of attempts) {
    const error = t.throws(attempt, what) as Error & { code?: string }
    t.ok(error instanceof LintingError, `${what}: a LintingError`)
    t.equal(error.code, 'FST_VERSIONER_LINTING', `${what}: FST_VERSIONER_LINTING`)
  }
})

test('regression: endpoint(path) with no methods (plain JavaScript) says none were given, not "undefined"', async (t) => {
  const error = t.throws(() => endpoint('/ping', undefined as never)) as Error & { code?: string }
  t.equal(error.code, 'FST_VERSIONER_LINTING')
  t.match(error.message, 'not valid: (none given)')
})

test('the valid methods are Fastify\'s own: QUERY works, a method added with addHttpMethod works, one the application does not route fails app.ready() with LintingError', async (t) => {
  const Moves = (name: string) => changeClass(name, [endpoint('/search', ['QUERY']).had({ path: '/find' }), endpoint('/props', ['PROPFIND']).had({ path: '/properties' })])
  class QueryWasSearch extends VersionChange {
    description = 'Searches were QUERY /find.'
    instructionsToMigrateToPreviousVersion = [endpoint('/search', ['QUERY']).had({ path: '/find' })]

    @ConvertRequestToNextVersionFor('/search', ['QUERY'])
    renameTerm (request: RequestInfo) {
      request.body.term = request.body.q
      delete request.body.q
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', QueryWasSearch), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.route({ method: 'QUERY', url: '/search', handler: async (request) => ({ term: (request.body as { term: string }).term }) })
  }))
  const old = await app.inject({ method: 'QUERY' as never, url: '/find', headers: v('2000-01-01'), payload: { q: 'ada' } })
  t.equal(old.statusCode, 200, 'QUERY /find in 2000-01-01')
  t.same(old.json(), { term: 'ada' }, 'the by-path converter for QUERY ran')
  const latest = await app.inject({ method: 'QUERY' as never, url: '/search', headers: v('2001-01-01'), payload: { term: 'bob' } })
  t.same(latest.json(), { term: 'bob' })

  const added = Fastify()
  t.teardown(() => added.close())
  added.addHttpMethod('PROPFIND')
  added.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', Moves('PropfindAdded')), new Version('2000-01-01')) })
  added.register(versioned(async (api) => {
    api.route({ method: 'QUERY', url: '/search', handler: async () => ({ found: 'search' }) })
    api.route({ method: 'PROPFIND', url: '/props', handler: async () => ({ found: 'props' }) })
  }))
  t.equal(await rejection(async () => await added.ready()), undefined, 'PROPFIND added with addHttpMethod is accepted')
  const props = await added.inject({ method: 'PROPFIND' as never, url: '/properties', headers: v('2000-01-01') })
  t.same(props.json(), { found: 'props' }, 'and routed under its old path')

  const plain = Fastify()
  t.teardown(() => plain.close())
  plain.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', Moves('PropfindNotAdded')), new Version('2000-01-01')) })
  plain.register(versioned(async (api) => {
    api.route({ method: 'QUERY', url: '/search', handler: async () => ({ found: 'search' }) })
  }))
  const error = await rejection(async () => await plain.ready())
  t.ok(error instanceof LintingError, 'PROPFIND without addHttpMethod: a LintingError at start-up')
  t.equal(error?.code, 'FST_VERSIONER_LINTING')
  t.match(error?.message, /PROPFIND .*PropfindNotAdded.*addHttpMethod/, 'naming the method, the version change and the remedy')
})
