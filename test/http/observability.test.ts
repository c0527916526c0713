/**
 * What an observability stack sees of a versioned request, compared with plain Fastify: the route as metrics
 * plugins label it (`request.routeOptions.url`, read in `onResponse` hooks) and the events of Fastify's handler
 * tracing channel (`tracing:fastify.request.handler:*`, which APM agents subscribe to), in every version.
 */
import { test } from 'tap'
import diagnosticsChannel from 'node:diagnostics_channel'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import {
  ConvertResponseToPreviousVersionFor, endpoint, schema, VersionChange, type ResponseInfo
} from '../../plugin'
import fastifyMetrics from 'fastify-metrics'
import { versionedApp, type Teardown } from '../helpers/apps'
import { bundleOf, DATES } from '../helpers/http-apps'

const Thing = Type.Object({ fullName: Type.String() })

/** 2001-01-01 and older: `fullName` was `name` (a response converter, which throws for 'throw'), and the route was at `/items/:id`. */
class ThingsWereItems extends VersionChange {
  description = 'fullName was name; /things/:id was /items/:id.'
  instructionsToMigrateToPreviousVersion = [
    schema(Thing).field('fullName').had({ name: 'name' }),
    endpoint('/api/things/:id', ['GET']).had({ path: '/api/items/:id' })
  ]

  @ConvertResponseToPreviousVersionFor(Thing)
  static back (response: ResponseInfo) {
    if (response.body.fullName === 'throw') throw new Error('converter broke')
    response.body.name = response.body.fullName
    delete response.body.fullName
  }
}

/** The app: `GET /api/things/:id` (HEAD; `/api/items/:id` before 2002), `GET /api/boom` (throws), `GET /plain-boom` unversioned. */
async function observedApp (t: Teardown, location: 'header' | 'path' = 'header') {
  const labels: string[] = []
  const app = await versionedApp(t, bundleOf(DATES, { '2002-01-01': [ThingsWereItems] }), async (api) => {
    api.get('/things/:id', { schema: { response: { 200: Thing } } }, async (request) => ({ fullName: (request.params as { id: string }).id }))
    api.get('/boom', async () => { throw new Error('handler broke') })
  }, {
    prefix: '/api',
    versioner: { apiVersionLocation: location },
    beforeVersioner: (app: FastifyInstance) => {
      // As fastify-metrics reads the route: in onResponse, from request.routeOptions.
      app.addHook('onResponse', async (request) => { labels.push(`${request.routeOptions.method} ${request.routeOptions.url ?? ''}`) })
    }
  })
  app.get('/plain-boom', async () => { throw new Error('handler broke') })
  await app.ready()
  return { app, labels }
}

/** Records the events of Fastify's handler tracing channel, unsubscribed at teardown. */
function traceEvents (t: Teardown): string[] {
  const events: string[] = []
  const channels = diagnosticsChannel.tracingChannel('fastify.request.handler')
  const record = (name: string) => (message: unknown) => {
    const { error } = message as { error?: Error }
    events.push(error === undefined || name !== 'error' ? name : `error: ${error.message}`)
  }
  const subscribers = { start: record('start'), end: record('end'), asyncStart: record('asyncStart'), asyncEnd: record('asyncEnd'), error: record('error') }
  channels.subscribe(subscribers)
  t.teardown(() => { channels.unsubscribe(subscribers) })
  return events
}

test('regression: an error of a versioned route is published once on Fastify\'s handler tracing channel, as on a plain route', async (t) => {
  const events = traceEvents(t)
  const { app } = await observedApp(t)
  const traced = async (url: string, version: string) => {
    events.length = 0
    const response = await app.inject({ url, headers: { 'x-api-version': version } })
    return { status: response.statusCode, events: [...events] }
  }
  const plain = await traced('/plain-boom', DATES[0])
  t.same(plain, { status: 500, events: ['start', 'end', 'error: handler broke', 'asyncStart', 'asyncEnd'] }, 'plain Fastify: one error event')
  for (const version of DATES) {
    t.same(await traced('/api/boom', version), plain, `${version}: the handler's error once, as plain Fastify publishes it`)
  }
  // A response converter fails after the handler resolved: the handler's span has no error (as for a plain
  // preSerialization hook's); the failure is the logged 500.
  t.same(await traced('/api/items/throw', DATES[1]), { status: 500, events: ['start', 'end', 'asyncStart', 'asyncEnd'] },
    'a response converter\'s failure is not recorded as the handler\'s error')
})

test('regression: with path versions, an older path of a route is labelled as written, without the version\'s internal segment', async (t) => {
  for (const location of ['header', 'path'] as const) {
    const { app, labels } = await observedApp(t, location)
    const urlOf = (version: string, path: string) => location === 'path' ? `/api/${version}${path}` : `/api${path}`
    for (const [version, path, label] of [[DATES[0], '/things/1', 'GET /api/things/:id'], [DATES[1], '/items/1', 'GET /api/items/:id'], [DATES[2], '/items/1', 'GET /api/items/:id']]) {
      labels.length = 0
      for (const method of ['GET', 'HEAD'] as const) {
        const response = await app.inject({ method, url: urlOf(version, path), headers: { 'x-api-version': version } })
        t.equal(response.statusCode, 200, `${location} ${method} ${version}`)
      }
      t.same(labels, [label, label.replace('GET', 'HEAD')], `${location} ${version}: routeOptions.url is the route's path as written`)
    }
  }
})

test('fastify-metrics registered before the plugin counts every version of a route under its path as written, path versions too', async (t) => {
  for (const location of ['header', 'path'] as const) {
    const app = await versionedApp(t, bundleOf(DATES, { '2002-01-01': [ThingsWereItems] }), async (api) => {
      api.get('/things/:id', { schema: { response: { 200: Thing } } }, async (request) => ({ fullName: (request.params as { id: string }).id }))
    }, {
      prefix: '/api',
      versioner: { apiVersionLocation: location },
      beforeVersioner: async (app: FastifyInstance) => {
        await app.register(fastifyMetrics, { endpoint: '/metrics', defaultMetrics: { enabled: false }, clearRegisterOnInit: true })
      }
    })
    await app.ready()
    for (const [version, path] of [[DATES[0], '/things/1'], [DATES[1], '/items/1'], [DATES[2], '/items/2']]) {
      const response = await app.inject({ url: location === 'path' ? `/api/${version}${path}` : `/api${path}`, headers: { 'x-api-version': version } })
      t.equal(response.statusCode, 200, `${location} ${version}`)
    }
    const metrics = await app.inject({ url: '/metrics' })
    const counts = metrics.body.split('\n').filter((line) => line.startsWith('http_request_duration_seconds_count')).sort()
    t.same(counts, [
      'http_request_duration_seconds_count{method="GET",route="/api/items/:id",status_code="200"} 2',
      'http_request_duration_seconds_count{method="GET",route="/api/things/:id",status_code="200"} 1'
    ], `${location}: one series per path as written, none naming the version's segment`)
  }
})

test('regression: with path versions, a prefixed plugin\'s root route is one label at its slash too, as plain Fastify\'s', async (t) => {
  const labels: string[] = []
  const app = await versionedApp(t, bundleOf(DATES), async (api) => {
    await api.register(async (orders) => { orders.get('/', async () => ({ ok: true })) }, { prefix: '/orders' })
  }, {
    prefix: '/api',
    versioner: { apiVersionLocation: 'path' },
    beforeVersioner: (app: FastifyInstance) => {
      app.addHook('onResponse', async (request) => { labels.push(`${request.routeOptions.method} ${request.routeOptions.url ?? ''}`) })
    }
  })
  await app.register(async (plain) => { plain.get('/', async () => ({ ok: true })) }, { prefix: '/plain' })
  await app.ready()
  for (const method of ['GET', 'HEAD'] as const) {
    for (const url of ['/plain', '/plain/', ...DATES.flatMap((version) => [`/api/${version}/orders`, `/api/${version}/orders/`])]) {
      t.equal((await app.inject({ method, url })).statusCode, 200, `${method} ${url}`)
    }
  }
  const versioned = (method: string) => DATES.flatMap(() => [`${method} /api/orders`, `${method} /api/orders`])
  // Fastify's own HEAD twin at the slash says `/plain/`; its GET says `/plain` at both.
  t.same(labels, [...['GET /plain', 'GET /plain'], ...versioned('GET'), ...['HEAD /plain', 'HEAD /plain/'], ...versioned('HEAD')],
    'with and without the slash, in every version, routeOptions.url is the prefix, as Fastify gives its own GET at the slash')
})

test('fastify-metrics labelled by request.apiVersion: the version served (waterfalled), none for a refused or unversioned request, never the client\'s text', async (t) => {
  for (const location of ['header', 'path'] as const) {
    const app = await versionedApp(t, bundleOf(DATES, { '2002-01-01': [ThingsWereItems] }), async (api) => {
      api.get('/things/:id', { schema: { response: { 200: Thing } } }, async (request) => ({ fullName: (request.params as { id: string }).id }))
    }, {
      prefix: '/api',
      health: true,
      versioner: { apiVersionLocation: location },
      beforeVersioner: async (app: FastifyInstance) => {
        await app.register(fastifyMetrics, {
          endpoint: '/metrics',
          defaultMetrics: { enabled: false },
          clearRegisterOnInit: true,
          routeMetrics: { customLabels: { api_version: (request) => request.apiVersion ?? 'none' } }
        })
      }
    })
    await app.ready()
    const requests: Array<[string, string]> = [['2002-01-01', '/things/1'], ['2001-06-01', '/items/1'], ['2000-01-01', '/items/2'], ['1999-01-01', '/items/3'], ['<script>', '/items/4']]
    for (const [version, path] of requests) {
      const url = location === 'path' ? `/api/${encodeURIComponent(version)}${path}` : `/api${path}`
      await app.inject({ url, headers: { 'x-api-version': version } })
    }
    await app.inject({ url: '/health' })
    const metrics = await app.inject({ url: '/metrics' })
    const versions = metrics.body.split('\n').filter((line) => line.startsWith('http_request_duration_seconds_count'))
      .map((line) => /api_version="([^"]*)"/.exec(line)?.[1]).sort()
    // 2001-06-01 is served as 2001-01-01; the 400s (too old, malformed) are one series, /health (200) another.
    t.same(versions, ['2000-01-01', '2001-01-01', '2002-01-01', 'none', 'none'], `${location}: one series per version served`)
  }
})
