/**
 * `@fastify/response-validation` beside the plugin: registered before it, it checks what handlers return (HEAD's
 * bodies) and every version answers; registered after it or inside `versioned(...)`, its hook would follow the
 * versioner's and check an older version's converted body against the newest version's schemas, so `app.ready()`
 * refuses it on a route some version converts (decision 0319).
 */
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import responseValidation from '@fastify/response-validation'
import { Type } from '@sinclair/typebox'
import { endpoint, fastifyVersioner, versioned, Version, VersionBundle } from '../../plugin'
import { changeClass, fullNameWasNameInResponses } from '../helpers/version-changes'
import { call, jsonOf } from '../helpers/http'

const User = Type.Object({ id: Type.String(), fullName: Type.String() })
const Health = Type.Object({ ok: Type.Boolean() })

/** HEAD answers POST /users with 201; 2001-01-01 with 200; 2000-01-01 also names fullName name. */
function bundle (): VersionBundle {
  const Created = changeClass('UsersAreCreated', [endpoint('/users', ['POST']).had({ statusCode: 200 })])
  return new VersionBundle(new Version('2002-01-01', Created), new Version('2001-01-01', fullNameWasNameInResponses(User)), new Version('2000-01-01'))
}

type Place = 'before' | 'after' | 'inside'

/** An application with response validation registered at `place`, the routes given `routeOptions`. */
async function appWith (t: { teardown: (fn: () => unknown) => void }, place: Place, routeOptions: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  const validation = { responseStatusCodeValidation: true }
  if (place === 'before') await app.register(responseValidation, validation)
  await app.register(fastifyVersioner, { versions: bundle() })
  if (place === 'after') await app.register(responseValidation, validation)
  await app.register(versioned(async (api) => {
    if (place === 'inside') await api.register(responseValidation, validation)
    api.get('/users/:id', { ...routeOptions, schema: { response: { 200: User } } }, async (request) => ({ id: (request.params as { id: string }).id, fullName: 'Ada' }))
    api.post('/users', { ...routeOptions, schema: { response: { 201: User } } }, async (_request, reply) => reply.code(201).send({ id: 'u2', fullName: 'Bo' }))
    // No version changes this route's answer: response validation may sit anywhere for it.
    api.get('/health', { schema: { response: { 200: Health } } }, async () => ({ ok: true }))
  }))
  return app
}

test('registered before the plugin: every version\'s answer, HEAD\'s body checked once', async (t) => {
  const app = await appWith(t, 'before')
  const got = async (version: string, method: 'GET' | 'POST', url: string): Promise<[number, unknown]> => {
    const response = await call(app, version, url, { method })
    return [response.statusCode, jsonOf(response)]
  }
  t.same(await got('2002-01-01', 'GET', '/users/u1'), [200, { id: 'u1', fullName: 'Ada' }])
  t.same(await got('2000-01-01', 'GET', '/users/u1'), [200, { id: 'u1', name: 'Ada' }], 'the old shape, not a 500')
  t.same(await got('2002-01-01', 'POST', '/users'), [201, { id: 'u2', fullName: 'Bo' }])
  t.same(await got('2001-01-01', 'POST', '/users'), [200, { id: 'u2', fullName: 'Bo' }], 'the old status, not a 500')
  t.same(await got('2000-01-01', 'POST', '/users'), [200, { id: 'u2', name: 'Bo' }])
})

for (const place of ['after', 'inside'] as const) {
  test(`registered ${place === 'after' ? 'after the plugin' : 'inside versioned(...)'}: app.ready() names the route and the fix`, async (t) => {
    const app = await appWith(t, place)
    await t.rejects(async () => { await app.ready() }, {
      code: 'FST_VERSIONER_INVALID_OPTION',
      message: /@fastify\/response-validation is registered after fastifyVersioner .*on GET \/users\/:id .*a 500 for every older client\. Register it before fastifyVersioner/
    })
  })

  test(`registered ${place === 'after' ? 'after the plugin' : 'inside versioned(...)'}, routes saying responseValidation: false: served in every version`, async (t) => {
    const app = await appWith(t, place, { responseValidation: false })
    await app.ready()
    t.same(jsonOf(await call(app, '2000-01-01', '/users/u1')), { id: 'u1', name: 'Ada' })
    const created = await call(app, '2001-01-01', '/users', { method: 'POST' })
    t.equal(created.statusCode, 200)
    const health = await call(app, '2000-01-01', '/health')
    t.same([health.statusCode, jsonOf(health)], [200, { ok: true }], 'a route no version converts is checked as in plain Fastify')
  })
}

test('registered before, in a parent context of the plugin\'s own (one API of several): served, not refused', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(responseValidation)
  await app.register(async (api) => {
    await api.register(fastifyVersioner, { versions: bundle(), partialApp: true })
    await api.register(versioned(async (routes) => {
      routes.get('/users/:id', { schema: { response: { 200: User } } }, async (request) => ({ id: (request.params as { id: string }).id, fullName: 'Ada' }))
    }))
  }, { prefix: '/public' })
  const old = await call(app, '2000-01-01', '/public/users/u1')
  t.same([old.statusCode, jsonOf(old)], [200, { id: 'u1', name: 'Ada' }])
})

test('registered inside versioned(...) with path versions: refused where only an older path\'s version converts', async (t) => {
  const Moved = changeClass('UsersWerePeople', [endpoint('/users/:id', ['GET']).had({ path: '/people/:id' })])
  const versions = new VersionBundle(new Version('2002-01-01', Moved), new Version('2001-01-01', fullNameWasNameInResponses(User)), new Version('2000-01-01'))
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions, apiVersionLocation: 'path' })
  await app.register(versioned(async (api) => {
    await api.register(responseValidation)
    api.get('/users/:id', { schema: { response: { 200: User } } }, async (request) => ({ id: (request.params as { id: string }).id, fullName: 'Ada' }))
  }))
  await t.rejects(async () => { await app.ready() }, { code: 'FST_VERSIONER_INVALID_OPTION', message: /on GET \/users\/:id/ })
})
