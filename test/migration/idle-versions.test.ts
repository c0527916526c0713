import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance, RouteOptions } from 'fastify'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, currentDependencySolver, HeadVersion, schema, Version, VersionBundle,
  VersionChange, VersionChangeWithSideEffects, type FastifyVersionerOptions, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'

/**
 * Versions with nothing to do on a route (the newest ones, usually) are served by the same route as the versions
 * with converters, and pass its hooks without work: they must answer exactly as the converting versions do
 * (headers, errors, the application's own hooks and error handler, documents).
 */

const UserCreate = Type.Object({ fullName: Type.String({ minLength: 1 }) })
const User = Type.Object({ id: Type.String(), fullName: Type.String() })
const ErrorBody = Type.Object({ route: Type.String(), message: Type.String() })

/** Calls of the converters of {@link renameName}. */
const converterCalls: string[] = []

/** A fresh class each time: a version change belongs to one bundle. */
function renameName (): VersionChangeClass {
  class RenameName extends VersionChange {
    description = 'fullName was called name.'
    instructionsToMigrateToPreviousVersion = [
      schema(UserCreate).field('fullName').had({ name: 'name' }),
      schema(User).field('fullName').had({ name: 'name' })
    ]

    @ConvertRequestToNextVersionFor(UserCreate)
    up (request: RequestInfo) {
      converterCalls.push('up')
      request.body.fullName = request.body.name
      delete request.body.name
    }

    @ConvertResponseToPreviousVersionFor(User)
    down (response: ResponseInfo) {
      converterCalls.push('down')
      response.body.name = response.body.fullName
      delete response.body.fullName
    }
  }
  return RenameName
}

/** 2003-01-01 and 2002-01-01 (deprecated) are HEAD as it is; 2001-01-01 renames the field. */
function bundle (): VersionBundle {
  return new VersionBundle(
    new HeadVersion(),
    new Version('2003-01-01'),
    new Version('2002-01-01', renameName(), { deprecatedAt: '2026-01-01' }),
    new Version('2001-01-01')
  )
}

interface Seen {
  hooks: string[]
  versions: Array<string | undefined>
  errors: string[]
}

async function appOf (t: Teardown, options: Partial<FastifyVersionerOptions> = {}): Promise<{ app: FastifyInstance, seen: Seen, routes: RouteOptions[] }> {
  const seen: Seen = { hooks: [], versions: [], errors: [] }
  const routes: RouteOptions[] = []
  const app = await versionedApp(t, bundle(), async (api) => {
    api.post('/users', {
      schema: { body: UserCreate, response: { 201: User, '4xx': ErrorBody, '5xx': ErrorBody } },
      onRequest: async (request, reply) => {
        seen.hooks.push('route onRequest')
        reply.header('vary', 'accept-encoding')
        if (request.headers['x-fail'] === 'onRequest') throw Object.assign(new Error('Forbidden'), { statusCode: 403 })
      },
      preHandler: async (request) => {
        seen.hooks.push('route preHandler')
        if (request.headers.authorization === 'bad') throw Object.assign(new Error('Unauthorized'), { statusCode: 401 })
      },
      onSend: async (_request, reply, payload) => {
        seen.hooks.push('route onSend')
        reply.header('x-route-on-send', 'yes')
        return payload
      },
      errorHandler: async (error, _request, reply) => {
        seen.errors.push(error.message)
        return await reply.code((error.statusCode ?? 500) as 500).send({ route: 'error handler', message: error.message })
      }
    }, async (request, reply) => {
      if (request.body.fullName === 'boom') throw new Error('boom')
      seen.versions.push(request.apiVersion)
      return await reply.code(201).send({ id: 'u1', fullName: request.body.fullName })
    })
    api.get('/users/:id', { schema: { response: { 200: User } } }, async () => ({ id: 'u1', fullName: 'Ada' }))
  }, {
    versioner: options,
    beforeRoutes: (instance) => {
      instance.addHook('onRoute', (route) => { routes.push(route) })
      instance.addHook('onRequest', async (request) => { seen.versions.push(request.apiVersion) })
    }
  })
  await app.ready()
  return { app, seen, routes }
}

const post = (app: FastifyInstance, version: string | undefined, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/users', headers: { ...(version === undefined ? {} : { 'x-api-version': version }), ...headers }, payload: payload as object })

test('a version with nothing to do answers as the converting versions do: headers, hooks, errors, error handler', async (t) => {
  const { app, seen } = await appOf(t)

  let response = await post(app, '2003-01-01', { fullName: 'Ada' })
  t.equal(response.statusCode, 201)
  t.same(response.json(), { id: 'u1', fullName: 'Ada' })
  t.equal(response.headers['x-api-version'], '2003-01-01', 'the version is echoed')
  t.equal(response.headers['x-route-on-send'], 'yes', "the route's own onSend hook ran")
  t.equal(response.headers.deprecation, undefined)
  t.same(seen.hooks, ['route onRequest', 'route preHandler', 'route onSend'], "the route's own hooks ran, once each")
  t.same(seen.versions, ['2003-01-01', '2003-01-01'], 'request.apiVersion in an onRequest hook and in the handler')

  seen.hooks.length = 0
  seen.versions.length = 0
  response = await post(app, '2001-01-01', { name: 'Ada' })
  t.equal(response.statusCode, 201)
  t.same(response.json(), { id: 'u1', name: 'Ada' })
  t.equal(response.headers['x-api-version'], '2001-01-01')
  t.equal(response.headers['x-route-on-send'], 'yes')
  t.same(seen.hooks, ['route onRequest', 'route preHandler', 'route onSend'], 'the same hooks for a converting version')
  t.same(seen.versions, ['2001-01-01', '2001-01-01'])

  response = await post(app, '2002-01-01', { fullName: 'Bob' })
  t.equal(response.statusCode, 201)
  t.equal(response.headers['x-api-version'], '2002-01-01')
  t.equal(response.headers.deprecation, `@${Date.parse('2026-01-01') / 1000}`, 'a deprecated version with nothing to do still says so')

  response = await post(app, '2002-06-15', { fullName: 'Cy' })
  t.equal(response.statusCode, 201, 'a date between versions waterfalls to the one before it')
  t.equal(response.headers['x-api-version'], '2002-01-01')

  for (const version of ['2003-01-01', '2001-01-01']) {
    const body = version === '2003-01-01' ? { name: 'Ada' } : { fullName: 'Ada' }
    response = await post(app, version, body)
    t.equal(response.statusCode, 400, `${version}: the other version's body is a validation error`)
    t.equal(response.headers['x-api-version'], version, `${version}: the version is echoed on a validation error`)
    t.match(response.json(), { route: 'error handler', message: /fullName|name/ }, "the route's error handler answers")

    response = await post(app, version, version === '2003-01-01' ? { fullName: 'boom' } : { name: 'boom' })
    t.equal(response.statusCode, 500, `${version}: a handler error`)
    t.equal(response.headers['x-api-version'], version)
    t.same(response.json(), { route: 'error handler', message: 'boom' })

    response = await post(app, version, version === '2003-01-01' ? { fullName: 'Ada' } : { name: 'Ada' }, { authorization: 'bad' })
    t.equal(response.statusCode, 401, `${version}: an error thrown by a preHandler hook`)
    t.equal(response.headers['x-api-version'], version)
    t.equal(response.headers['x-route-on-send'], 'yes')

    response = await post(app, version, version === '2003-01-01' ? { fullName: 'Ada' } : { name: 'Ada' }, { 'x-fail': 'onRequest' })
    t.equal(response.statusCode, 403, `${version}: an error thrown by an onRequest hook, before the version is picked`)
    t.equal(response.headers['x-api-version'], version, `${version}: still says which version answers`)
    t.same(response.json(), { route: 'error handler', message: 'Forbidden' })
  }
  response = await post(app, '1999-01-01', { fullName: 'Ada' }, { 'x-fail': 'onRequest' })
  t.equal(response.statusCode, 403, 'an onRequest error for a version that cannot be served')
  t.equal(response.headers['x-api-version'], undefined, 'names no version')

  response = await post(app, undefined, { fullName: 'Ada' })
  t.equal(response.statusCode, 400, 'no version and no default')
  t.match(response.json().message, /x-api-version/)
  response = await post(app, '1999-01-01', { fullName: 'Ada' })
  t.equal(response.statusCode, 400, 'a version older than the oldest')
  t.match(response.json().message, /2003-01-01, 2002-01-01, 2001-01-01/)
})

test('GET and HEAD of a version with nothing to do: Vary and the version header', async (t) => {
  const { app } = await appOf(t)
  for (const version of ['2003-01-01', '2001-01-01']) {
    const get = await app.inject({ method: 'GET', url: '/users/u1', headers: { 'x-api-version': version } })
    t.equal(get.statusCode, 200)
    t.same(get.json(), version === '2003-01-01' ? { id: 'u1', fullName: 'Ada' } : { id: 'u1', name: 'Ada' })
    t.equal(get.headers.vary, 'x-api-version', `${version}: GET responses vary on the version header`)
    t.equal(get.headers['x-api-version'], version)
    const head = await app.inject({ method: 'HEAD', url: '/users/u1', headers: { 'x-api-version': version } })
    t.equal(head.statusCode, 200)
    t.equal(head.body, '')
    t.equal(head.headers['x-api-version'], version, `${version}: HEAD too`)
    t.equal(head.headers.vary, 'x-api-version')
  }
})

test('a string default that is a version with nothing to do', async (t) => {
  const { app } = await appOf(t, { apiVersionDefaultValue: '2003-01-01' })
  const response = await post(app, undefined, { fullName: 'Ada' })
  t.equal(response.statusCode, 201)
  t.equal(response.headers['x-api-version'], '2003-01-01')
  const empty = await post(app, '', { fullName: 'Ada' })
  t.equal(empty.statusCode, 201, 'an empty header is no version: the default')
  t.equal(empty.headers['x-api-version'], '2003-01-01')
  const old = await post(app, '2001-01-01', { name: 'Ada' })
  t.equal(old.statusCode, 201)
  t.same(old.json(), { id: 'u1', name: 'Ada' })
})

/** The versioner's hooks on the routes Fastify registered for POST /users (`[constraint, hook names]`). */
function versionerHooksOf (routes: RouteOptions[]): Array<[string, string[]]> {
  return routes.filter((route) => route.url.endsWith('/users') && route.method === 'POST').map((route): [string, string[]] => {
    const names: string[] = []
    for (const name of ['preValidation', 'preSerialization', 'onSend'] as const) {
      const hooks = [route[name] ?? []].flat() as Array<{ name: string }>
      for (const hook of hooks) if (hook.name.startsWith('versioner')) names.push(`${name}:${hook.name}`)
    }
    const constraint = (route.constraints as Record<string, string> | undefined)?.fastifyVersionerApiVersion
    return [constraint === undefined ? 'unconstrained' : constraint.split('\n').join(','), names]
  })
}

test('one route serves every version of a HEAD route, whatever the options', async (t) => {
  class Audit extends VersionChangeWithSideEffects {
    description = 'Audit logging.'
    instructionsToMigrateToPreviousVersion = []
  }
  const cases: Array<[string, Partial<FastifyVersionerOptions>, VersionBundle | undefined]> = [
    ['header versions', {}, undefined],
    ['a function default', { apiVersionDefaultValue: async () => '2003-01-01' }, undefined],
    ['path versions', { apiVersionLocation: 'path' }, undefined],
    ['a version change with side effects', {}, new VersionBundle(new HeadVersion(), new Version('2003-01-01', Audit), new Version('2002-01-01', renameName()), new Version('2001-01-01'))]
  ]
  for (const [name, options, versions] of cases) {
    const { app, routes } = await appOf(t, { ...options, ...(versions === undefined ? {} : { versions }) })
    t.same(versionerHooksOf(routes), [
      ['unconstrained', ['preValidation:versionerRequestHook', 'preSerialization:versionerSuccessHook', 'onSend:versionerSendHook']]
    ], `${name}: one unconstrained route, with the hooks (some versions convert)`)
    const url = options.apiVersionLocation === 'path' ? '/2003-01-01/users' : '/users'
    const response = await app.inject({ method: 'POST', url, headers: { 'x-api-version': '2003-01-01' }, payload: { fullName: 'Ada' } })
    t.equal(response.statusCode, 201, `${name}: served`)
    t.equal(response.headers['x-api-version'], '2003-01-01')
  }
})

test('a version with nothing to do passes the hooks without work: no converter runs', async (t) => {
  const { app } = await appOf(t)
  converterCalls.length = 0
  for (const version of ['2003-01-01', '2002-01-01']) {
    const response = await post(app, version, { fullName: 'Ada' })
    t.equal(response.statusCode, 201)
    t.same(response.json(), { id: 'u1', fullName: 'Ada' }, `${version}: HEAD data, serialized with the route's own schema`)
  }
  t.same(converterCalls, [], 'no converter ran')
  const old = await post(app, '2001-01-01', { name: 'Ada' })
  t.same(old.json(), { id: 'u1', name: 'Ada' })
  t.same(converterCalls, ['up', 'down'], 'the converting version runs both converters')
})

test('documents and the route table list a route once per version', async (t) => {
  const { app } = await appOf(t)
  for (const version of ['2003-01-01', '2002-01-01', '2001-01-01']) {
    const document = app.versioner.openapi(version) as { paths: Record<string, Record<string, unknown>> }
    t.same(Object.keys(document.paths).sort(), ['/users', '/users/{id}'], `${version}: the paths`)
    t.same(Object.keys(document.paths['/users']), ['post'], `${version}: POST /users once`)
    t.equal(app.versioner.routes.get(version)?.filter((route) => route.headPath === '/users').length, 1)
  }
  const unversioned = app.versioner.openapi('unversioned') as { paths: Record<string, unknown> }
  t.same(Object.keys(unversioned.paths).filter((path) => path.startsWith('/users')), [], 'no versioned route leaks into the unversioned document')
})

test('printRoutes: a versioned route is listed once, without a version constraint, with its hooks', async (t) => {
  const { app } = await appOf(t)
  const lines = app.printRoutes({ commonPrefix: false }).split('\n').filter((line) => /\/users \(POST\)/.test(line))
  t.same(lines.map((line) => line.replace(/^[│├└─\s]+/, '')), ['/users (POST)'], 'one POST /users route, every version')
  const withHooks = app.printRoutes({ commonPrefix: false, includeHooks: true })
  t.match(withHooks, /\/users \(POST\)\n[│\s]*• \(onRequest\) \[[^\]]*\]\n[│\s]*• \(preValidation\) \[[^\]]*"versionerRequestHook\(\)"/,
    'with includeHooks, it shows the versioner\'s request hook')
})

test("a versioned route serializes every version with the route's or the application's compiler", async (t) => {
  type Compiler = (routeSchema: { httpStatus?: string, url: string }) => (data: unknown) => string
  // The plugin's own routes (documents) compile with the application's compiler too: only /users is counted.
  const counting = (marker: string, calls: string[]): Compiler => ({ httpStatus, url }) => {
    if (url === '/users') calls.push(String(httpStatus))
    return (data) => JSON.stringify({ ...(data as object), compiledBy: marker })
  }
  const build = async (place: 'route' | 'application' | 'none', calls: string[]): Promise<FastifyInstance> => {
    const app = await versionedApp(t, bundle(), async (api) => {
      api.post('/users', {
        schema: { body: UserCreate, response: { 201: User, '4xx': ErrorBody } },
        ...(place === 'route' ? { serializerCompiler: counting('route', calls) } : {})
      }, async (request, reply) => await reply.code(201).send({ id: 'u1', fullName: request.body.fullName, secret: 's' } as { id: string, fullName: string }))
    }, { beforeVersioner: (instance) => { if (place === 'application') instance.setSerializerCompiler(counting('application', calls)) } })
    await app.ready()
    return app
  }
  for (const place of ['route', 'application'] as const) {
    const calls: string[] = []
    const app = await build(place, calls)
    t.same(calls.sort(), ['201', '4xx'], `${place}: ready() compiles each response schema once`)
    // 2003-01-01 has nothing to do; 2002-01-01 (deprecated) sends a Link: both serialize with the route's schemas.
    for (const version of ['2003-01-01', '2002-01-01', '2002-01-01']) {
      const response = await post(app, version, { fullName: 'Ada' })
      t.equal(response.statusCode, 201)
      t.same(response.json(), { id: 'u1', fullName: 'Ada', secret: 's', compiledBy: place }, `${place}, ${version}: the ${place}'s compiler serializes`)
    }
    t.same(calls.sort(), ['201', '4xx'], `${place}: serving compiled nothing more`)
  }
  const app = await build('none', [])
  for (const version of ['2003-01-01', '2002-01-01']) {
    const response = await post(app, version, { fullName: 'Ada' })
    t.same(response.json(), { id: 'u1', fullName: 'Ada' }, `default compiler, ${version}: fields the schema lacks are not sent`)
  }
})

test('currentDependencySolver: HEAD data in every hook for header versions with nothing to do', async (t) => {
  for (const location of ['header', 'path'] as const) {
    const phases: string[] = []
    const app = await versionedApp(t, bundle(), async (api) => {
      api.post('/users', {
        schema: { body: UserCreate, response: { 200: User } },
        onRequest: async (request) => { phases.push(`${request.apiVersion ?? '?'} onRequest:${currentDependencySolver(request)}`) }
      }, async (request) => {
        phases.push(`${request.apiVersion ?? '?'} handler:${currentDependencySolver(request)}`)
        return { id: 'u1', fullName: request.body.fullName }
      })
    }, { versioner: { apiVersionLocation: location } })
    await app.ready()
    for (const [version, body] of [['2003-01-01', { fullName: 'Ada' }], ['2002-01-01', { fullName: 'Ada' }], ['2001-01-01', { name: 'Ada' }]] as const) {
      const url = location === 'path' ? `/${version}/users` : '/users'
      const response = await app.inject({ method: 'POST', url, headers: { 'x-api-version': version }, payload: body })
      t.equal(response.statusCode, 200, `${location}, ${version}`)
    }
    const idle = location === 'header' ? 'versioner' : 'fastify'
    t.same(phases, [
      `2003-01-01 onRequest:${idle}`, '2003-01-01 handler:versioner',
      `2002-01-01 onRequest:${idle}`, '2002-01-01 handler:versioner',
      '2001-01-01 onRequest:fastify', '2001-01-01 handler:versioner'
    ], `${location} versions: ${location === 'header' ? 'the versions with nothing to do (a deprecated one too) hold HEAD data from the start' : 'the version segment is among the params until the request hook'}`)
  }
})
