import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import type { RouteOptions } from 'fastify'
import { ConvertRequestToNextVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange, type RequestInfo, type VersionChangeClass } from '../plugin'
import { VersionBehaviours } from '../lib/routes/version-behaviours'
import type { VersionBehaviour } from '../lib/routes/version-plan'
import type { RegisteredRoute } from '../lib/routes/versioner-state'
import { kVersionedRoute } from '../lib/core/symbols'
import { versionedApp } from './helpers/apps'

// A route's versions older than its newest version with work build their behaviour on first use: ready() does not
// pay for versions nobody calls, and nothing about serving them changes.

const fake = (version: string): VersionBehaviour => ({ version }) as unknown as VersionBehaviour

test('VersionBehaviours: has, size and versions build nothing; get builds once; a walk builds the rest in order', async (t) => {
  const built: string[] = []
  const behaviours = new VersionBehaviours()
  behaviours.set('2003', fake('2003'))
  for (const version of ['2002', '2001', '2000']) behaviours.defer(version, () => { built.push(version); return fake(version) })
  t.equal(behaviours.size, 4)
  t.ok(behaviours.has('2001'))
  t.notOk(behaviours.has('1999'))
  t.same(behaviours.versions(), ['2003', '2002', '2001', '2000'])
  t.same([...behaviours.built()].map((behaviour) => behaviour.version), ['2003'])
  t.equal(behaviours.deferredCount, 3)
  t.same(built, [], 'nothing built yet')
  t.equal(behaviours.get('2001')?.version, '2001')
  t.equal(behaviours.get('2001'), behaviours.get('2001'), 'built once, then kept')
  t.same(built, ['2001'])
  t.equal(behaviours.get('1999'), undefined)
  t.same([...behaviours.keys()], ['2003', '2001', '2002', '2000'], 'a walk builds every deferred behaviour')
  t.same(built, ['2001', '2002', '2000'])
  t.equal(behaviours.deferredCount, 0)
  t.equal(behaviours.size, 4)
  t.same([...behaviours].map(([version]) => version), ['2003', '2001', '2002', '2000'])

  const other = new VersionBehaviours([['2003', fake('2003')]])
  other.defer('2002', () => fake('2002 built'))
  other.defer('2001', () => fake('2001 built'))
  other.set('2002', fake('2002 set'))
  t.equal(other.size, 3, 'a deferred version set is counted once')
  t.equal(other.get('2002')?.version, '2002 set')
  t.ok(other.delete('2001'), 'a deferred version can be deleted')
  t.notOk(other.has('2001'))
  other.clear()
  t.equal(other.size, 0)
})

const Create = Type.Object({ fullName: Type.String() })

function renamed (): VersionChangeClass {
  class Renamed extends VersionChange {
    description = 'fullName was called name.'
    instructionsToMigrateToPreviousVersion = [schema(Create).field('fullName').had({ name: 'name' })]

    @ConvertRequestToNextVersionFor(Create)
    up (request: RequestInfo) {
      request.body.fullName = request.body.name
      delete request.body.name
    }
  }
  return Renamed
}

test('a route builds its older versions on their first request, and serves them as before', async (t) => {
  const routes: RouteOptions[] = []
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2003-01-01'), new Version('2002-01-01', renamed()),
    new Version('2001-01-01'), new Version('2000-01-01')), async (api) => {
    api.post('/users', { schema: { body: Create, response: { 201: Type.Object({ fullName: Type.String() }) } } },
      async (request, reply) => await reply.code(201).send({ fullName: request.body.fullName }))
  }, { beforeRoutes: (instance) => { instance.addHook('onRoute', (route) => { routes.push(route) }) } })
  await app.ready()
  const registered = routes.map((route) => (route.config as Record<symbol, RegisteredRoute | undefined> | undefined)?.[kVersionedRoute])
    .find((route): route is RegisteredRoute => route !== undefined)
  if (registered === undefined) throw new Error('no versioned route registered')
  const behaviours = registered.behaviours as VersionBehaviours
  // 2002-01-01's change gives 2001-01-01 its schemas: 2001-01-01 is the newest version with work, 2000-01-01 waits.
  t.same([...behaviours.built()].map((behaviour) => behaviour.version), ['2003-01-01', '2002-01-01', '2001-01-01'])
  t.same(behaviours.versions(), ['2003-01-01', '2002-01-01', '2001-01-01', '2000-01-01'])
  for (const version of ['2001-01-01', '2000-01-01']) {
    const response = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': version }, payload: { name: 'Ada' } })
    t.equal(response.statusCode, 201, version)
    t.same(response.json(), { fullName: 'Ada' })
    t.equal(response.headers['x-api-version'], version)
    const wrong = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': version }, payload: { fullName: 'Ada' } })
    t.equal(wrong.statusCode, 400, `${version}: validated against its own schema`)
    t.match(wrong.json().message, /name/)
  }
  t.same([...behaviours.built()].map((behaviour) => behaviour.version), ['2003-01-01', '2002-01-01', '2001-01-01', '2000-01-01'])
  t.same([...app.versioner.routes.keys()], ['2003-01-01', '2002-01-01', '2001-01-01', '2000-01-01'])
})
