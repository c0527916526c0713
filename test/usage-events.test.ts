import { test } from 'tap'
import diagnosticsChannel from 'node:diagnostics_channel'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned, Version, VersionBundle, VersionPicker, type FastifyVersionerOptions, type ServedEvent } from '../plugin'
import { versionedApp, type Teardown } from './helpers/apps'

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
  // deprecatedFields: test/field-deprecations.test.ts (here always empty: no schema deprecates a field).
  const { request: _request, deprecatedFields, ...rest } = event
  return deprecatedFields.length === 0 ? rest : { ...rest, deprecatedFields }
}

test('fastify-versioner:served: one event per versioned request, with each field, for header versions', async (t) => {
  const { app, events } = await appWithEvents(t)
  const newest = await app.inject({ url: '/api/items/7', headers: { 'x-api-version': '2002-01-01' } })
  t.equal(newest.statusCode, 200)
  t.equal(events.length, 1, 'one event')
  t.strictSame(fieldsOf(events[0]), {
    version: '2002-01-01', requested: '2002-01-01', route: { method: 'GET', url: '/api/items/:id' }, deprecated: false, sunset: undefined
  }, 'the newest version, with nothing to do on the route')
  t.equal((events[0].request.params as { id: string }).id, '7', 'the request itself')

  events.length = 0
  const old = await app.inject({ url: '/api/items/8', headers: { 'x-api-version': '2000-01-01' } })
  t.equal(old.statusCode, 200)
  t.equal(events.length, 1)
  t.strictSame(fieldsOf(events[0]), {
    version: '2000-01-01', requested: '2000-01-01', route: { method: 'GET', url: '/api/items/:id' }, deprecated: true, sunset: SUNSET
  }, 'a deprecated version served with hooks: deprecated and sunset')

  events.length = 0
  await app.inject({ method: 'HEAD', url: '/api/items/9', headers: { 'x-api-version': '2001-01-01' } })
  t.strictSame(events.map((event) => event.route), [{ method: 'GET', url: '/api/items/:id' }], 'a HEAD request names the GET route')

  events.length = 0
  const invalid = await app.inject({ method: 'POST', url: '/api/items', headers: { 'x-api-version': '2002-01-01' }, payload: {} })
  t.equal(invalid.statusCode, 400)
  t.strictSame(events.map(fieldsOf), [{ version: '2002-01-01', requested: '2002-01-01', route: { method: 'POST', url: '/api/items' }, deprecated: false, sunset: undefined }],
    'a request failing validation was still served in its version: one event')
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
    version: '2000-01-01', requested: '2000-03-01', route: { method: 'GET', url: '/api/items/:id' }, deprecated: true, sunset: SUNSET
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
