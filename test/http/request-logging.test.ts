/**
 * Logging: every log line of a versioned request carries `apiVersion` (the version served), Fastify's own
 * "incoming request" and "request completed" included; the served versions and the docs URL are logged once at
 * start-up, at `info`; with the application's logger off, nothing is installed.
 */
import { test } from 'tap'
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions, type FastifyPluginAsync } from 'fastify'
import { Writable } from 'node:stream'
import {
  ConvertRequestToNextVersionFor, enumeration, fastifyVersioner, HeadVersion, schema, Version, VersionBundle, VersionChange, VersionPicker, versioned,
  type FastifyVersionerOptions, type RequestInfo
} from '../../plugin'
import { Type } from '@sinclair/typebox'
import { versionedApp, type Teardown } from '../helpers/apps'
import { bundleOf, DATES } from '../helpers/http-apps'
import { jsonOf } from '../helpers/http'
import { changeClass } from '../helpers/version-changes'

interface LogLine { level: number, msg: string, reqId?: string, apiVersion?: string, [key: string]: unknown }

const Thing = Type.Object({ name: Type.String(), size: Type.Optional(Type.Number()) })

/** Versions of DATES; 2000-01-01 lacks `size`, so it goes through the hooks while the newer versions pass through. */
function bundle () {
  return bundleOf(DATES, { '2001-01-01': [changeClass('AddSize', [schema(Thing).field('size').didntExist])] })
}

async function loggedApp (t: Teardown, options: Partial<FastifyVersionerOptions> = {},
  setup: (app: FastifyInstance) => void = () => {}, fastify: FastifyServerOptions = {}, tenantRoutes?: FastifyPluginAsync) {
  const lines: LogLine[] = []
  const stream = new Writable({ write (chunk, _encoding, next) { lines.push(JSON.parse(String(chunk)) as LogLine); next() } })
  const app = await versionedApp(t, bundle(), async (api) => {
    api.post('/things', { schema: { body: Thing, response: { 200: Thing } } }, async (request) => {
      request.log.info('handler ran')
      return request.body
    })
  }, { fastify: { ...fastify, logger: { level: 'info', stream } }, beforeVersioner: setup, versioner: options, prefix: '/api' })
  app.get('/health', async (request) => { request.log.info('health'); return { ok: true } })
  if (tenantRoutes !== undefined) await app.register(tenantRoutes, { prefix: '/api/:tenant' })
  await app.ready()
  return { app, lines }
}

/** The log lines of one request (by its id), in order. */
function linesOf (lines: LogLine[], reqId: string | undefined): LogLine[] {
  return lines.filter((line) => line.reqId === reqId)
}

async function send (app: FastifyInstance, lines: LogLine[], url: string, headers: Record<string, string>) {
  const before = lines.length
  const response = await app.inject({ method: url === '/health' ? 'GET' : 'POST', url, headers, payload: url === '/health' ? undefined : { name: 'pen' } })
  const reqId = lines.slice(before).find((line) => line.reqId !== undefined)?.reqId
  return { response, lines: linesOf(lines, reqId) }
}

test('header versions: every line of a versioned request carries apiVersion, hooked or passed through', async (t) => {
  const { app, lines } = await loggedApp(t)
  for (const [sent, served] of [['2000-01-01', '2000-01-01'], ['2001-06-06', '2001-01-01'], ['2002-01-01', '2002-01-01']]) {
    const { response, lines: own } = await send(app, lines, '/api/things', { 'x-api-version': sent })
    t.equal(response.statusCode, 200, sent)
    t.same(own.map((line) => line.msg), ['incoming request', 'handler ran', 'request completed'], `${sent}: Fastify's lines and the handler's`)
    t.same(own.map((line) => line.apiVersion), [served, served, served], `${sent}: apiVersion is the version served`)
  }
  const health = await send(app, lines, '/health', { 'x-api-version': '2000-01-01' })
  t.same(health.lines.map((line) => line.apiVersion), [undefined, undefined, undefined], 'unversioned routes carry no apiVersion')
  const bad = await send(app, lines, '/api/things', { 'x-api-version': 'tomorrow' })
  t.equal(bad.response.statusCode, 400)
  t.ok(bad.lines.length >= 2)
  t.ok(bad.lines.every((line) => line.apiVersion === undefined), 'a version that cannot be served is not bound')
})

test('path versions and a string default bind apiVersion too', async (t) => {
  const { app, lines } = await loggedApp(t, { apiVersionLocation: 'path' })
  const { response, lines: own } = await send(app, lines, '/api/2001-02-03/things', {})
  t.equal(response.statusCode, 200)
  t.same(own.map((line) => line.apiVersion), ['2001-01-01', '2001-01-01', '2001-01-01'])

  const withDefault = await loggedApp(t, { apiVersionDefaultValue: '2000-01-01' })
  const byDefault = await send(withDefault.app, withDefault.lines, '/api/things', {})
  t.same(byDefault.lines.map((line) => line.apiVersion), ['2000-01-01', '2000-01-01', '2000-01-01'])
})

test('regression: path versions bind the version of the route\'s own segment, beside a deeper versioned prefix or case-insensitive', async (t) => {
  const { app, lines } = await loggedApp(t, { apiVersionLocation: 'path' }, () => {}, {}, versioned(async (api) => {
    api.get('/z', async () => ({ ok: true }))
  }))
  const { response, lines: own } = await send(app, lines, '/api/2001-02-03/things', {})
  t.equal(response.statusCode, 200)
  t.same(own.map((line) => line.apiVersion), ['2001-01-01', '2001-01-01', '2001-01-01'], 'not the segment after a tenant')

  const insensitive = await loggedApp(t, { apiVersionLocation: 'path' }, () => {}, { routerOptions: { caseSensitive: false } })
  const upper = await send(insensitive.app, insensitive.lines, '/API/2001-02-03/things', {})
  t.equal(upper.response.statusCode, 200)
  t.same(upper.lines.map((line) => line.apiVersion), ['2001-01-01', '2001-01-01', '2001-01-01'], 'a URL Fastify routes case-insensitively')
})

test('a custom picker: apiVersion from the request hook on, Fastify\'s "request completed" included', async (t) => {
  class AccountPicker extends VersionPicker {
    override async pick (request: FastifyRequest): Promise<string | undefined> {
      return this.requested(request) ?? (request.headers.authorization === 'Bearer sk_old' ? '2000-01-01' : '2002-01-01')
    }
  }
  const { app, lines } = await loggedApp(t, { versionPicker: AccountPicker })
  const { response, lines: own } = await send(app, lines, '/api/things', { authorization: 'Bearer sk_old' })
  t.equal(response.statusCode, 200)
  t.same(jsonOf(response), { name: 'pen' })
  t.same(own.map((line) => [line.msg, line.apiVersion]), [
    ['incoming request', undefined], // logged before the picker runs
    ['handler ran', '2000-01-01'],
    ['request completed', '2000-01-01']
  ])
})

test('the application\'s own childLoggerFactory keeps working, with apiVersion added', async (t) => {
  const { app, lines } = await loggedApp(t, {}, (root) => {
    root.setChildLoggerFactory(function (logger, bindings, options) { return logger.child({ ...bindings, tenant: 'acme' }, options) })
  })
  const { lines: own } = await send(app, lines, '/api/things', { 'x-api-version': '2000-01-01' })
  t.same(own.map((line) => [line.tenant, line.apiVersion]), [['acme', '2000-01-01'], ['acme', '2000-01-01'], ['acme', '2000-01-01']])
})

test('regression: a versioned route\'s own childLoggerFactory, or one set inside versioned(...), keeps apiVersion on every line', async (t) => {
  const lines: LogLine[] = []
  const stream = new Writable({ write (chunk, _encoding, next) { lines.push(JSON.parse(String(chunk)) as LogLine); next() } })
  const app = await versionedApp(t, bundle(), async (api) => {
    // The route the bundle's instruction is about (an app must use the schema an instruction names).
    api.post('/things', { schema: { body: Thing } }, async () => ({}))
    api.get('/own', { childLoggerFactory: (logger, bindings, options) => logger.child({ ...bindings, tenant: 'route' }, options) }, async (request) => {
      request.log.info('handler ran')
      return {}
    })
    await api.register(async (scope) => {
      scope.setChildLoggerFactory((logger, bindings, options) => logger.child({ ...bindings, tenant: 'scope' }, options))
      scope.get('/scoped', async (request) => { request.log.info('handler ran'); return {} })
    })
  }, { fastify: { logger: { level: 'info', stream } } })
  await app.ready()
  for (const [url, tenant] of [['/own', 'route'], ['/scoped', 'scope']]) {
    for (const method of ['GET', 'HEAD'] as const) {
      lines.length = 0
      t.equal((await app.inject({ method, url, headers: { 'x-api-version': '2000-01-01' } })).statusCode, 200)
      const own = lines.filter((line) => line.reqId !== undefined)
      t.same(own.map((line) => [line.msg, line.tenant, line.apiVersion]), [
        ['incoming request', tenant, '2000-01-01'], ['handler ran', tenant, '2000-01-01'], ['request completed', tenant, '2000-01-01']
      ], `${method} ${url}: the factory's binding and apiVersion`)
    }
  }
})

test('start-up logs the served versions and the docs URL once, at info, per API', async (t) => {
  const { lines } = await loggedApp(t)
  const startup = lines.filter((line) => Array.isArray(line.apiVersions))
  t.equal(startup.length, 1)
  t.equal(startup[0].level, 30, 'info')
  t.same(startup[0].apiVersions, DATES)
  t.equal(startup[0].docsUrl, '/docs')
  t.equal(startup[0].openapiUrl, '/openapi.json')
  t.equal(startup[0].msg, 'fastify-versioner: serving API versions 2002-01-01, 2001-01-01, 2000-01-01 (newest first; clients send the version in ' +
    'the \'x-api-version\' header); docs at /docs; OpenAPI documents at /openapi.json?version=<version>')

  const noDocs = await loggedApp(t, { openapiUrl: null })
  const quiet = noDocs.lines.filter((line) => Array.isArray(line.apiVersions))
  t.same(quiet.map((line) => [line.docsUrl, line.openapiUrl]), [[null, null]])
  t.notMatch(quiet[0].msg, /docs at/)

  const lines2: LogLine[] = []
  const app = Fastify({ logger: { stream: new Writable({ write (chunk, _encoding, next) { lines2.push(JSON.parse(String(chunk)) as LogLine); next() } }) } })
  t.teardown(() => app.close())
  for (const [prefix, values] of [['/a', ['2001-01-01', '2000-01-01']], ['/b', ['v2', 'v1']]] as const) {
    await app.register(async (api) => {
      await api.register(fastifyVersioner, { versions: bundleOf(values), apiVersionFormat: prefix === '/a' ? 'date' : 'string', apiVersionLocation: 'path' })
    }, { prefix })
  }
  await app.ready()
  t.same(lines2.filter((line) => Array.isArray(line.apiVersions)).map((line) => [line.apiVersions, line.docsUrl]),
    [[['2001-01-01', '2000-01-01'], '/a/docs'], [['v2', 'v1'], '/b/docs']])
  t.match(lines2.find((line) => Array.isArray(line.apiVersions))?.msg, /clients send the version in the path segment after the versioned\(\.\.\.\) prefix/)
})

test('with the logger off, no child logger factory is installed (Fastify skips child loggers as without the plugin)', async (t) => {
  const plain = Fastify()
  const app = Fastify()
  t.teardown(() => Promise.all([app.close(), plain.close()]))
  await app.register(fastifyVersioner, { versions: bundle() })
  t.equal(app.childLoggerFactory, plain.childLoggerFactory, 'Fastify\'s default factory')

  const logged = Fastify({ logger: { level: 'info', stream: new Writable({ write (_chunk, _encoding, next) { next() } }) } })
  t.teardown(() => logged.close())
  await logged.register(fastifyVersioner, { versions: bundle() })
  t.not(logged.childLoggerFactory, plain.childLoggerFactory, 'with a logger, the versioner\'s factory binds apiVersion')
})

/** How many times a raw JSON log line holds the key `apiVersion` (JSON.parse would keep only the last). */
function apiVersionKeys (line: string): number {
  return line.match(/[{,]"apiVersion":/g)?.length ?? 0
}

test('regression: every log line of a versioned request carries apiVersion once, error entries included (issue 30)', async (t) => {
  const Status = Type.Union([Type.Literal('open'), Type.Literal('refunded')])
  const Order = Type.Object({ status: Status })
  const Thing = Type.Object({ name: Type.String({ minLength: 2 }) })
  class RefundsAreNew extends VersionChange {
    description = 'Orders may be refunded.'
    instructionsToMigrateToPreviousVersion = [enumeration(Status).didntHave('refunded')]
  }
  class NamesWereLabels extends VersionChange {
    description = 'name was label.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('name').had({ name: 'label' })]
    @ConvertRequestToNextVersionFor(Thing)
    up (request: RequestInfo) {
      if (request.body.label === 'throw') throw new Error('converter broke')
      // 'empty' gives HEAD a name too short: HEAD validation fails after the migration.
      request.body.name = request.body.label === 'empty' ? '' : request.body.label
      delete request.body.label
    }
  }
  const versions = new VersionBundle(new HeadVersion(),
    new Version('2003-01-01.preview', { channel: 'preview', access: (request) => { if (request.headers['x-beta'] === 'throw') throw new Error('no'); return request.headers['x-beta'] === 'yes' } }),
    new Version('2002-01-01', RefundsAreNew), new Version('2001-01-01', NamesWereLabels), new Version('2000-01-01'))
  const raw: string[] = []
  const stream = new Writable({ write (chunk, _encoding, next) { raw.push(...String(chunk).split('\n').filter((line) => line !== '')); next() } })
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/orders', { schema: { response: { 200: Order } } }, async () => ({ status: 'refunded' as const }))
    api.post('/things', { schema: { body: Thing, response: { 200: Thing } } }, async (request) => request.body)
  }, { fastify: { logger: { level: 'debug', stream } } })
  await app.ready()
  const run = async (request: Case['request']) => {
    const before = raw.length
    const response = await app.inject(request)
    const lines = raw.slice(before).filter((line) => line.includes('"reqId"'))
    return { response, lines, keys: lines.map(apiVersionKeys) }
  }
  interface Case { what: string, request: { method?: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: object }, status: number, entry: string }
  const cases: Case[] = [
    { what: 'an unconvertible response', request: { url: '/orders', headers: { 'x-api-version': '2001-01-01' } }, status: 500, entry: 'UnconvertibleResponse|cannot be expressed' },
    { what: 'a request converter failure', request: { method: 'POST' as const, url: '/things', headers: { 'x-api-version': '2000-01-01' }, payload: { label: 'throw' } }, status: 500, entry: 'failed on POST /things' },
    { what: 'a latest-request-validation failure', request: { method: 'POST' as const, url: '/things', headers: { 'x-api-version': '2000-01-01' }, payload: { label: 'empty' } }, status: 500, entry: 'failed HEAD validation' },
    { what: 'a preview served', request: { url: '/orders', headers: { 'x-api-version': '2003-01-01.preview', 'x-beta': 'yes' } }, status: 200, entry: 'request completed' }
  ]
  for (const { what, request, status, entry } of cases) {
    const { response, lines, keys } = await run(request)
    t.equal(response.statusCode, status, `${what}: ${status}`)
    t.ok(lines.some((line) => new RegExp(entry).test(line)), `${what}: its entry is logged`)
    const served = request.headers['x-api-version']
    // A preview's access is asked in the request hook: its "incoming request" line comes before.
    const expected = lines.map((line) => served.endsWith('.preview') && line.includes('"incoming request"') ? 0 : 1)
    t.same(keys, expected, `${what}: apiVersion once in every line (${served})`)
    t.ok(lines.every((line) => apiVersionKeys(line) === 0 || line.includes(`"apiVersion":"${served}"`)), `${what}: the version served`)
  }
  for (const beta of ['no', 'throw']) {
    const { response, lines, keys } = await run({ url: '/orders', headers: { 'x-api-version': '2003-01-01.preview', 'x-beta': beta } })
    t.equal(response.statusCode, 400, `access ${beta}: answered as an unknown version`)
    t.same(keys, lines.map(() => 0), `access ${beta}: a refused preview is not the version served: no line carries apiVersion`)
    t.ok(lines.some((line) => line.includes('"previewVersion":"2003-01-01.preview"')), `access ${beta}: the refusal names the preview as previewVersion`)
  }
})

// An onRequest hook mapping an alias to the version header: the request is served the hook's version (decision 0331),
// and its lines said the version sent (or none) to the end, "request completed" included.
test('regression: a version header an onRequest hook sets is the apiVersion of the lines from the request hook on, once', async (t) => {
  const raw: string[] = []
  const stream = new Writable({ write (chunk, _encoding, next) { raw.push(...String(chunk).split('\n').filter((line) => line !== '')); next() } })
  const aliases: Record<string, string> = { legacy: '2000-01-01', current: '2002-01-01', broken: 'someday' }
  const app = await versionedApp(t, bundle(), async (api) => {
    api.post('/things', { schema: { body: Thing, response: { 200: Thing } } }, async (request) => {
      request.log.info('handler ran')
      return request.body
    })
  }, {
    fastify: { logger: { level: 'info', stream } },
    beforeVersioner: (root) => {
      root.setChildLoggerFactory(function (logger, bindings, options) { return logger.child({ ...bindings, tenant: 'acme' }, options) })
      root.addHook('onRequest', async (request) => {
        const alias = request.headers['x-api-alias']
        if (typeof alias === 'string') request.headers['x-api-version'] = aliases[alias]
      })
    }
  })
  await app.ready()
  const cases: Array<[Record<string, string>, number, Array<string | undefined>]> = [
    [{ 'x-api-alias': 'legacy' }, 200, [undefined, '2000-01-01', '2000-01-01']],
    [{ 'x-api-alias': 'legacy', 'x-api-version': '2002-01-01' }, 200, ['2002-01-01', '2000-01-01', '2000-01-01']],
    [{ 'x-api-alias': 'current', 'x-api-version': '2000-01-01' }, 200, ['2000-01-01', '2002-01-01', '2002-01-01']],
    [{ 'x-api-version': '2001-01-01' }, 200, ['2001-01-01', '2001-01-01', '2001-01-01']],
    [{ 'x-api-alias': 'broken', 'x-api-version': '2001-01-01' }, 400, ['2001-01-01', undefined, undefined]]
  ]
  for (const [headers, status, versions] of cases) {
    const before = raw.length
    const response = await app.inject({ method: 'POST', url: '/things', headers, payload: { name: 'pen' } })
    t.equal(response.statusCode, status, JSON.stringify(headers))
    const lines = raw.slice(before).filter((line) => line.includes('"reqId"'))
    const parsed = lines.map((line) => JSON.parse(line) as LogLine)
    t.same(parsed.map((line) => line.apiVersion), versions, `${JSON.stringify(headers)}: the version sent, then the version served`)
    t.same(lines.map(apiVersionKeys), versions.map((version) => version === undefined ? 0 : 1), `${JSON.stringify(headers)}: apiVersion once in every line`)
    t.ok(parsed.every((line) => line.tenant === 'acme'), `${JSON.stringify(headers)}: the application's own bindings kept`)
  }
})
