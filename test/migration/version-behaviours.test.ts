import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import type { RouteOptions } from 'fastify'
import { ConvertRequestToNextVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange, type RequestInfo, type VersionChangeClass } from '../../plugin'
import { VersionBehaviours } from '../../lib/routes/version-behaviours'
import type { VersionBehaviour } from '../../lib/routes/version-plan'
import type { RegisteredRoute } from '../../lib/routes/versioner-state'
import { kVersionedRoute } from '../../lib/core/symbols'
import { versionedApp } from '../helpers/apps'

// A route's versions build their behaviour on first use (registration builds the newest, to know whether it has work):
// ready() does not pay for versions nobody calls, and nothing about serving them changes.

const fake = (version: string): VersionBehaviour => ({ version }) as unknown as VersionBehaviour

test('VersionBehaviours: has and versions build nothing; get builds once, then keeps it; values builds the rest in order', async (t) => {
  const built: string[] = []
  const behaviours = new VersionBehaviours(new Map([['2003', 1], ['2002', 2], ['2001', 3], ['2000', 4]]), (level, version) => {
    built.push(`${version}@${level}`)
    return fake(version)
  })
  t.ok(behaviours.has('2001'))
  t.notOk(behaviours.has('1999'))
  t.same(behaviours.versions(), ['2003', '2002', '2001', '2000'])
  t.same(built, [], 'nothing built yet')
  t.equal(behaviours.get('2001')?.version, '2001')
  t.equal(behaviours.get('2001'), behaviours.get('2001'), 'built once, then kept')
  t.same(built, ['2001@3'], 'built from its level')
  t.equal(behaviours.get('1999'), undefined)
  t.same(built, ['2001@3'], 'a version the route does not serve builds nothing')
  t.same(behaviours.values().map((behaviour) => behaviour.version), ['2003', '2002', '2001', '2000'], 'every version, newest first')
  t.same(built, ['2001@3', '2003@1', '2002@2', '2000@4'], 'the rest built once each')
})

/** The registered routes of an application (recorded through onRoute). */
function registeredRoutes (routes: RouteOptions[]): RegisteredRoute[] {
  return routes.map((route) => (route.config as Record<symbol, RegisteredRoute | undefined> | undefined)?.[kVersionedRoute])
    .filter((route): route is RegisteredRoute => route !== undefined)
}

/** The versions whose behaviour a route has built so far (read without building). */
function builtVersions (behaviours: VersionBehaviours): string[] {
  return [...(behaviours as unknown as { built: Map<string, VersionBehaviour> }).built.keys()]
}

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
  const registered = registeredRoutes(routes)[0]
  if (registered === undefined) throw new Error('no versioned route registered')
  const behaviours = registered.behaviours
  // 2002-01-01's change gives 2001-01-01 its schemas: the newest version (2003-01-01) is built to know it has no
  // work, 2002-01-01 does what it does (told from the seeds), 2001-01-01 and 2000-01-01 wait for their first request.
  t.same(builtVersions(behaviours), ['2003-01-01'])
  t.same([...registered.headData], ['2003-01-01', '2002-01-01'], 'the versions known at registration to have nothing to do')
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
  t.same(builtVersions(behaviours), ['2003-01-01', '2001-01-01', '2000-01-01'], 'built on their first request')
  t.same([...app.versioner.routes.keys()], ['2003-01-01', '2002-01-01', '2001-01-01', '2000-01-01'])
  t.same(builtVersions(behaviours), ['2003-01-01', '2001-01-01', '2000-01-01', '2002-01-01'], 'the route table builds the rest')
})
