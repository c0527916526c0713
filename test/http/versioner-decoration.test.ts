import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import Fastify from 'fastify'
import { endpoint, fastifyVersioner, schema, Version, VersionBundle, VersionChange, versioned, type VersionedRouteInfo, HeadVersion } from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { caught } from '../helpers/errors'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { documentOf, operationsOf } from '../helpers/openapi-documents'
import { changeClass } from '../helpers/version-changes'

test('app.versioner.routes lists each version\'s routes with their versioned schemas, after ready', async (t) => {
  const UserCreate = Type.Object({ name: Type.String(), email: Type.Optional(Type.String()) })
  const User = Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() })
  const Health = Type.Object({ ok: Type.Boolean() })
  const Params = Type.Object({ id: Type.String() })

  class AddEmail extends VersionChange {
    description = 'Users have an email; /users/:id was /people/:id; /stats is new.'
    instructionsToMigrateToPreviousVersion = [
      schema(UserCreate).field('email').didntExist,
      schema(User).field('email').didntExist,
      endpoint('/api/users/:id', ['GET']).had({ path: '/api/people/:id' }),
      endpoint('/api/stats', ['GET']).didntExist
    ]
  }

  const versions = new VersionBundle(new Version('2001-01-01', AddEmail), new Version('2000-01-01'))
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions })
  await app.register(versioned(async (api) => {
    api.post('/users', { schema: { body: UserCreate, response: { 201: User } } }, async (request, reply) => {
      return reply.code(201).send({ id: 'u1', name: request.body.name, email: request.body.email ?? 'none' })
    })
    api.get('/users/:id', { schema: { params: Params, response: { 200: User } } }, async (request) => ({ id: request.params.id, name: 'n', email: 'e' }))
    api.get('/stats', { schema: { response: { 200: Health } } }, async () => ({ ok: true }))
  }), { prefix: '/api' })
  app.get('/health', async () => ({ ok: true }))

  const early = caught(() => app.versioner.routes)
  t.equal(early?.code, 'FST_VERSIONER_NOT_READY', 'routes before ready')
  t.match(early?.message, /app\.ready\(\)/)

  await app.ready()
  t.equal(app.versioner.versions, versions, 'the bundle')
  const routes = app.versioner.routes
  t.same([...routes.keys()], ['2001-01-01', '2000-01-01'], 'one entry per version, newest first')

  const describe = (list: readonly VersionedRouteInfo[]): string[] => list.map((route) => `${route.methods.join(',')} ${route.path}`).sort()
  t.same(describe(routes.get('2001-01-01') ?? []), ['GET /api/stats', 'GET /api/users/:id', 'POST /api/users'])
  t.same(describe(routes.get('2000-01-01') ?? []), ['GET /api/people/:id', 'POST /api/users'],
    'the renamed path, without the route that did not exist; never the unversioned route')

  const find = (version: string, path: string): VersionedRouteInfo | undefined => routes.get(version)?.find((route) => route.path === path)
  const oldGet = find('2000-01-01', '/api/people/:id')
  t.equal(oldGet?.headPath, '/api/users/:id', 'the HEAD path of a renamed route')
  t.equal(find('2001-01-01', '/api/users/:id')?.headPath, '/api/users/:id')

  const oldUser = app.versioner.schemas.get('2000-01-01').get(User)
  const oldCreate = app.versioner.schemas.get('2000-01-01').get(UserCreate)
  t.same(Object.keys((oldUser as TSchema & { properties: object }).properties), ['id', 'name'], 'schemas.get(v).get(S): email is gone')
  t.same(Object.keys((oldCreate as TSchema & { properties: object }).properties), ['name'])
  t.equal(app.versioner.schemas.get('2001-01-01').get(Health), Health, 'an untouched schema is the HEAD object itself')

  const oldPost = find('2000-01-01', '/api/users')
  t.same(oldPost?.schema.body, oldCreate, 'the route lists the version\'s request schema')
  t.same(oldPost?.schema.response?.['201'], oldUser, 'and its response schema')
  t.same(oldGet?.schema.response?.['200'], oldUser)
  t.same(oldGet?.schema.params, Params)
  const newPost = find('2001-01-01', '/api/users')
  t.same(Object.keys((newPost?.schema.body as TSchema & { properties: object }).properties), ['name', 'email'])
  t.same(Object.keys((newPost?.schema.response?.['201'] as TSchema & { properties: object }).properties), ['id', 'name', 'email'])

  t.same(app.versioner.schemas.versions, ['2001-01-01', '2000-01-01'])
  t.equal(caught(() => app.versioner.schemas.get('1999-01-01'))?.code, 'FST_VERSIONER_UNKNOWN_VERSION')

  const served = await app.inject({ method: 'POST', url: '/api/users', headers: { 'x-api-version': '2000-01-01' }, payload: { name: 'Ada' } })
  t.equal(served.statusCode, 201, 'the listed schemas are the ones served')
  t.same(JSON.parse(served.body), { id: 'u1', name: 'Ada' })
  const latest = await app.inject({ method: 'POST', url: '/api/users', headers: { 'x-api-version': '2001-01-01' }, payload: { name: 'Ada' } })
  t.equal(latest.statusCode, 201, 'latest: email is optional')
  t.same(JSON.parse(latest.body), { id: 'u1', name: 'Ada', email: 'none' })
})

const Problem = Type.Object({ message: Type.String() })
const Thing = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'Thing' })
const ThingCreate = Type.Object({ name: Type.String() })

test("regression: app.versioner.routes gives a route's schema as the version's document does: its attributes and success status", async (t) => {
  const versions = new VersionBundle(
    new HeadVersion(),
    new Version('2001-01-01', changeClass('CreatedWas200', [
      endpoint('/things', ['POST']).had({ statusCode: 200, summary: 'Old make', tags: ['legacy'], deprecated: true })
    ])),
    new Version('2000-01-01')
  )
  const routes: FastifyPluginAsyncTypebox = async (api) => {
    api.post('/things', {
      schema: { summary: 'Make', tags: ['things'], operationId: 'makeThing', body: ThingCreate, response: { 201: Thing, 400: Problem } }
    }, async (request, reply) => reply.code(201).send({ id: '1', name: request.body.name }))
  }
  const app = await versionedApp(t, versions, routes)
  await app.ready()
  const routeIn = (version: string) => {
    const found = app.versioner.routes.get(version)?.find((route) => route.path === '/things')
    if (found === undefined) throw new Error(`no /things in ${version}`)
    return found
  }
  const latest = routeIn('2001-01-01')
  t.same(Object.keys(latest.schema.response ?? {}).sort(), ['201', '400'], "latest: HEAD's statuses")
  t.equal(latest.schema.summary, 'Make', "latest: HEAD's summary")
  const old = routeIn('2000-01-01')
  t.same(Object.keys(old.schema.response ?? {}).sort(), ['200', '400'], 'the success key is the version\'s status code')
  t.equal(old.schema.summary, 'Old make', "the version's summary")
  t.same(old.schema.tags, ['legacy'], "the version's tags")
  t.equal(old.schema.deprecated, true, 'deprecated in that version')
  t.equal(old.schema.operationId, 'makeThing', "HEAD's attributes the version keeps")
  t.equal(old.schema.summary, old.attributes.summary, 'schema and attributes agree')
  for (const version of ['2001-01-01', '2000-01-01']) {
    const [{ operation }] = operationsOf(documentOf(app, version)).filter(({ path }) => path === '/things')
    t.same(Object.keys(operation.responses).sort(), [...new Set([...Object.keys(routeIn(version).schema.response ?? {}), '400', '404'])].sort(),
      `${version}: the statuses of the route table are the document's, with the plugin's own 400 and 404`)
    t.equal(operation.summary, routeIn(version).schema.summary, `${version}: so is the summary`)
  }
  const served = await app.inject({ method: 'POST', url: '/things', headers: { 'x-api-version': '2000-01-01' }, payload: { name: 'a' } })
  t.equal(served.statusCode, 200, 'the version answers with the listed status')
})

test('every request of the application carries one property of the versioner: Fastify sets each decoration in its constructor', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01'), new Version('2000-01-01')) })
  const versionerKeys = (object: object): string[] => Object.getOwnPropertySymbols(object)
    .map((symbol) => symbol.description ?? '').filter((name) => name.startsWith('fastify-versioner'))
  const seen: Record<string, { request: string[], reply: string[] }> = {}
  await app.register(versioned(async (api) => {
    api.get('/versioned', async (request, reply) => {
      seen.versioned = { request: versionerKeys(request), reply: versionerKeys(reply) }
      return { ok: true }
    })
  }))
  app.get('/plain', async (request, reply) => {
    seen.plain = { request: versionerKeys(request), reply: versionerKeys(reply) }
    return { ok: true }
  })
  await app.ready()
  t.equal((await app.inject({ url: '/plain' })).statusCode, 200)
  t.equal((await app.inject({ url: '/versioned', headers: { 'x-api-version': '2000-01-01' } })).statusCode, 200)
  t.same(seen.plain, { request: ['fastify-versioner.requestState'], reply: [] }, 'an unversioned request: one decoration, none on the reply')
  t.same(seen.versioned, { request: ['fastify-versioner.requestState'], reply: [] }, 'a versioned request keeps its state in that one property')
})
