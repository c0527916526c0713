import { test } from 'tap'
import diagnosticsChannel from 'node:diagnostics_channel'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertResponseToPreviousVersionFor, endpoint, fastifyVersioner, HeadVersion, schema, versioned, Version, VersionBundle, VersionChange, VersionPicker,
  type FastifyVersionerOptions, type ResponseInfo, type ServedEvent
} from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { buildApp } from '../../examples/users/app'

const SUNSET = new Date('2030-01-01T00:00:00Z')

function bundle (): VersionBundle {
  return new VersionBundle(
    new Version('2002-01-01'),
    new Version('2001-01-01'),
    new Version('2000-01-01', { deprecatedAt: '2025-01-01', sunsetAt: SUNSET })
  )
}

/** An application with `GET /items/:id` and `POST /items` (versioned) and `GET /health` (unversioned), and the events it publishes. */
async function appWithEvents (t: Teardown, options: Partial<FastifyVersionerOptions> = {}): Promise<{ app: FastifyInstance, events: ServedEvent[] }> {
  const events: ServedEvent[] = []
  // Tests run one after the other, each closing its application: every event seen is this application's.
  const listener = (message: unknown): void => { events.push(message as ServedEvent) }
  diagnosticsChannel.subscribe('fastify-versioner:served', listener)
  t.teardown(() => { diagnosticsChannel.unsubscribe('fastify-versioner:served', listener) })
  const app = await versionedApp(t, bundle(), async (api) => {
    api.get('/items/:id', async (request) => ({ id: (request.params as { id: string }).id }))
    api.post('/items', { schema: { body: Type.Object({ name: Type.String() }) } }, async () => ({ ok: true }))
  }, { versioner: options, prefix: '/api', health: true })
  await app.ready()
  return { app, events }
}

function fieldsOf (event: ServedEvent | undefined): Record<string, unknown> {
  if (event === undefined) return {}
  // deprecatedFields: test/migration/field-deprecations.test.ts (here always empty: no schema deprecates a field).
  const { request: _request, deprecatedFields, ...rest } = event
  return deprecatedFields.length === 0 ? rest : { ...rest, deprecatedFields }
}

test('fastify-versioner:served: one event per versioned request, with each field, for header versions', async (t) => {
  const { app, events } = await appWithEvents(t)
  const newest = await app.inject({ url: '/api/items/7', headers: { 'x-api-version': '2002-01-01' } })
  t.equal(newest.statusCode, 200)
  t.equal(events.length, 1, 'one event')
  t.strictSame(fieldsOf(events[0]), {
    version: '2002-01-01', requested: '2002-01-01', route: { method: 'GET', url: '/api/items/:id' }, deprecated: false, sunset: undefined, changes: [], client: undefined, brownout: undefined, api: 'root'
  }, 'the newest version, with nothing to do on the route')
  t.equal((events[0].request.params as { id: string }).id, '7', 'the request itself')

  events.length = 0
  const old = await app.inject({ url: '/api/items/8', headers: { 'x-api-version': '2000-01-01' } })
  t.equal(old.statusCode, 200)
  t.equal(events.length, 1)
  t.strictSame(fieldsOf(events[0]), {
    version: '2000-01-01', requested: '2000-01-01', route: { method: 'GET', url: '/api/items/:id' }, deprecated: true, sunset: SUNSET, changes: [], client: undefined, brownout: undefined, api: 'root'
  }, 'a deprecated version served with hooks: deprecated and sunset')

  events.length = 0
  await app.inject({ method: 'HEAD', url: '/api/items/9', headers: { 'x-api-version': '2001-01-01' } })
  t.strictSame(events.map((event) => event.route), [{ method: 'GET', url: '/api/items/:id' }], 'a HEAD request names the GET route')

  events.length = 0
  const invalid = await app.inject({ method: 'POST', url: '/api/items', headers: { 'x-api-version': '2002-01-01' }, payload: {} })
  t.equal(invalid.statusCode, 400)
  t.strictSame(events.map(fieldsOf), [{ version: '2002-01-01', requested: '2002-01-01', route: { method: 'POST', url: '/api/items' }, deprecated: false, sunset: undefined, changes: [], client: undefined, brownout: undefined, api: 'root' }],
    'a request failing validation was still served in its version: one event')
})

test('regression: a HEAD request to a route of several methods GET among them names GET, not the route\'s methods joined', async (t) => {
  const events: ServedEvent[] = []
  const listener = (message: unknown): void => { events.push(message as ServedEvent) }
  diagnosticsChannel.subscribe('fastify-versioner:served', listener)
  t.teardown(() => { diagnosticsChannel.unsubscribe('fastify-versioner:served', listener) })
  const app = await versionedApp(t, bundle(), async (api) => {
    api.route({ method: ['GET', 'POST'], url: '/items/:id', handler: async () => ({ ok: true }) })
  }, { prefix: '/api' })
  for (const method of ['HEAD', 'GET', 'POST'] as const) {
    const response = await app.inject({ method, url: '/api/items/1', headers: { 'x-api-version': '2001-01-01' } })
    t.equal(response.statusCode, 200, method)
  }
  t.strictSame(events.map((event) => event.route.method), ['GET', 'GET', 'POST'], 'one metric series per method the route has')
})

test('waterfalled dates: requested is what the client sent, version what served it', async (t) => {
  const { app, events } = await appWithEvents(t)
  const response = await app.inject({ url: '/api/items/1', headers: { 'x-api-version': '2001-06-15' } })
  t.equal(response.headers['x-api-version'], '2001-01-01')
  t.strictSame(events.map((event) => [event.requested, event.version]), [['2001-06-15', '2001-01-01']])
})

test('path versions: requested is the path segment', async (t) => {
  const { app, events } = await appWithEvents(t, { apiVersionLocation: 'path' })
  const response = await app.inject({ url: '/api/2000-03-01/items/1' })
  t.equal(response.statusCode, 200)
  t.strictSame(events.map(fieldsOf), [{
    version: '2000-01-01', requested: '2000-03-01', route: { method: 'GET', url: '/api/items/:id' }, deprecated: true, sunset: SUNSET, changes: [], client: undefined, brownout: undefined, api: 'root'
  }])
})

test('pinned versions (a custom picker, a default): requested is undefined when the client sent nothing', async (t) => {
  class PinnedPicker extends VersionPicker {
    override async pick (request: FastifyRequest): Promise<string | undefined> {
      return this.requested(request) ?? (request.headers.authorization === 'acme' ? '2001-01-01' : undefined)
    }
  }
  const { app, events } = await appWithEvents(t, { versionPicker: PinnedPicker })
  const pinned = await app.inject({ url: '/api/items/1', headers: { authorization: 'acme' } })
  t.equal(pinned.statusCode, 200)
  t.strictSame(events.map((event) => [event.requested, event.version]), [[undefined, '2001-01-01']], 'pinned by account')
  events.length = 0
  await app.inject({ url: '/api/items/1', headers: { authorization: 'acme', 'x-api-version': '2002-01-01' } })
  t.strictSame(events.map((event) => [event.requested, event.version]), [['2002-01-01', '2002-01-01']], 'sent explicitly')

  const withDefault = await appWithEvents(t, { apiVersionDefaultValue: '2002-01-01' })
  await withDefault.app.inject({ url: '/api/items/1' })
  t.strictSame(withDefault.events.map((event) => [event.requested, event.version]), [[undefined, '2002-01-01']], 'a string default')
})

test('no event for unversioned routes, bad versions or routes missing in the version', async (t) => {
  const { app, events } = await appWithEvents(t)
  t.equal((await app.inject({ url: '/health' })).statusCode, 200)
  t.equal((await app.inject({ url: '/health', headers: { 'x-api-version': '2000-01-01' } })).statusCode, 200)
  t.equal((await app.inject({ url: '/api/items/1', headers: { 'x-api-version': 'yesterday' } })).statusCode, 400)
  t.equal((await app.inject({ url: '/api/items/1' })).statusCode, 400)
  t.equal((await app.inject({ url: '/api/items/1', headers: { 'x-api-version': '1999-01-01' } })).statusCode, 400)
  t.equal((await app.inject({ url: '/openapi.json?version=2000-01-01' })).statusCode, 200)
  t.equal(events.length, 0)
})

test('without subscribers nothing is published and requests are served as before', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: bundle() })
  await app.register(versioned(async (api) => { api.get('/ping', async () => ({ ok: true })) }))
  const channel = diagnosticsChannel.channel('fastify-versioner:served')
  t.equal(channel.hasSubscribers, false, 'no one listens')
  const response = await app.inject({ url: '/ping', headers: { 'x-api-version': '2002-01-01' } })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['x-api-version'], '2002-01-01')
})

// The example application (examples/users): which version changes shape each route in each version.
const HIDE = 'HideInternalUserFields'
const MOVE = 'MoveUserAddressesToTheirOwnEndpoint'
const REPLACE = 'ReplaceUserAddressWithListOfAddresses'

test('changes: exact for each version of the example app\'s routes, over interleaved requests; client from the option', async (t) => {
  const events: ServedEvent[] = []
  const listener = (message: unknown): void => { events.push(message as ServedEvent) }
  diagnosticsChannel.subscribe('fastify-versioner:served', listener)
  t.teardown(() => { diagnosticsChannel.unsubscribe('fastify-versioner:served', listener) })
  const app = await buildApp({ versioner: { clientId: (request) => request.headers['x-account'] as string | undefined } })
  t.teardown(() => app.close())
  await app.ready()
  const created = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': '2002-01-01' }, payload: { defaultAddress: '1 Main St' } })
  const id = (created.json() as { id: string }).id
  const bodies: Record<string, object> = { '2002-01-01': { defaultAddress: 'a' }, '2001-01-01': { addresses: ['a'] }, '2000-01-01': { address: 'a' } }
  const expected: Record<string, Record<string, string[]>> = {
    'POST /users': { '2002-01-01': [HIDE], '2001-01-01': [HIDE, MOVE], '2000-01-01': [HIDE, MOVE, REPLACE] },
    'GET /users/:userId': { '2002-01-01': [HIDE], '2001-01-01': [HIDE, MOVE], '2000-01-01': [HIDE, MOVE, REPLACE] },
    'GET /users/:userId/addresses': { '2002-01-01': [] }
  }
  // Interleaved: every route and version twice, oldest and newest alternating, so a cached answer of one version cannot leak into another.
  const order = ['2000-01-01', '2002-01-01', '2001-01-01', '2002-01-01', '2000-01-01', '2001-01-01']
  events.length = 0
  const sent: Array<[string, string]> = []
  for (const version of order) {
    for (const route of Object.keys(expected)) {
      if (expected[route][version] === undefined) continue
      const [method, url] = route.split(' ')
      const response = await app.inject({
        method: method as 'GET' | 'POST',
        url: url.replace(':userId', id),
        headers: { 'x-api-version': version, ...(version === '2000-01-01' ? { 'x-account': 'acct_old' } : {}) },
        ...(method === 'POST' ? { payload: bodies[version] } : {})
      })
      t.equal(response.statusCode, 200, `${route} ${version}`)
      sent.push([route, version])
    }
  }
  t.equal(events.length, sent.length, 'one event per request')
  events.forEach((event, index) => {
    const [route, version] = sent[index]
    t.equal(`${event.route.method} ${event.route.url}`, route)
    t.equal(event.version, version)
    t.strictSame(event.changes, expected[route][version], `${route} in ${version}`)
    t.equal(event.client, version === '2000-01-01' ? 'acct_old' : undefined, 'the client the option names')
  })
  const again = sent.findIndex(([route, version], index) => index > 0 && route === sent[0][0] && version === sent[0][1])
  t.ok(again > 0)
  t.equal(events[again].changes, events[0].changes, 'computed once per route and version: the same list')
})

test('clientId: a throwing option is logged and the event has no client, nor with a value that is not a string; a non-function is refused', async (t) => {
  const { app, events } = await appWithEvents(t, { clientId: () => { throw new Error('no account') } })
  const response = await app.inject({ url: '/api/items/1', headers: { 'x-api-version': '2000-01-01' } })
  t.equal(response.statusCode, 200, 'the request is served')
  t.strictSame(events.map((event) => event.client), [undefined])
  const numbered = await appWithEvents(t, { clientId: () => 42 as never })
  t.equal((await numbered.app.inject({ url: '/api/items/1', headers: { 'x-api-version': '2000-01-01' } })).statusCode, 200)
  t.strictSame(numbered.events.map((event) => event.client), [undefined], 'a value that is not a string counts as none')
  const bad = Fastify()
  t.teardown(() => bad.close())
  await t.rejects(async () => { await bad.register(fastifyVersioner, { versions: bundle(), clientId: 'acct' as never }) }, { code: 'FST_VERSIONER_INVALID_OPTION', message: /Option 'clientId' must be a function/ })
})

test('changes: endpoint instructions and by-path converters name their route only; a change to a schema the route does not use names none', async (t) => {
  const Unused = Type.Object({ a: Type.String(), b: Type.String() }, { $id: 'Unused' })
  class OldSummary extends VersionChange {
    description = 'GET /items/:id had another summary.'
    instructionsToMigrateToPreviousVersion = [endpoint('/items/:id', ['GET']).had({ summary: 'Fetch an item' })]
  }
  class CreatedFlag extends VersionChange {
    description = 'POST /items answered { created } before.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertResponseToPreviousVersionFor('/items', ['POST'])
    created (response: ResponseInfo) { response.body = { created: true } }
  }
  class UnusedSchema extends VersionChange {
    description = 'A schema only GET /others uses lost a field.'
    instructionsToMigrateToPreviousVersion = [schema(Unused).field('b').didntExist]
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', OldSummary, CreatedFlag, UnusedSchema), new Version('2000-01-01'))
  const events: ServedEvent[] = []
  const listener = (message: unknown): void => { events.push(message as ServedEvent) }
  diagnosticsChannel.subscribe('fastify-versioner:served', listener)
  t.teardown(() => { diagnosticsChannel.unsubscribe('fastify-versioner:served', listener) })
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/items/:id', { schema: { summary: 'Get an item' } }, async () => ({ id: '1' }))
    api.post('/items', async () => ({ ok: true }))
    api.get('/others', { schema: { response: { 200: Unused } } }, async () => ({ a: 'a', b: 'b' }))
  })
  await app.ready()
  for (const version of ['2000-01-01', '2001-01-01']) {
    await app.inject({ url: '/items/1', headers: { 'x-api-version': version } })
    await app.inject({ method: 'POST', url: '/items', headers: { 'x-api-version': version }, payload: {} })
  }
  t.strictSame(events.map((event) => [event.version, `${event.route.method} ${event.route.url}`, event.changes]), [
    ['2000-01-01', 'GET /items/:id', ['OldSummary']],
    ['2000-01-01', 'POST /items', ['CreatedFlag']],
    ['2001-01-01', 'GET /items/:id', []],
    ['2001-01-01', 'POST /items', []]
  ])
})
