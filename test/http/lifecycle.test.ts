import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import diagnosticsChannel from 'node:diagnostics_channel'
import { endpoint, fastifyVersioner, versioned, Version, VersionBundle, type ServedEvent, type VersionLifecycle } from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { documentOf, operationsOf, validationError } from '../helpers/openapi-documents'
import { changeClass } from '../helpers/version-changes'
import { caught } from '../helpers/errors'

const DEPRECATED_AT = '2025-01-01T00:00:00.999Z'
const DEPRECATION = `@${Math.floor(Date.parse(DEPRECATED_AT) / 1000)}` // @1735689600
const SUNSET_AT = new Date('2031-03-04T05:06:07Z')
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/

/**
 * 2002-01-01: current; 2001-01-01: sunset only (with a link); 2000-01-01: deprecated and sunset (with a link);
 * `/things` exists from 2001-01-01 on.
 */
function lifecycleBundle (oldest: VersionLifecycle = { deprecatedAt: DEPRECATED_AT, sunsetAt: '2026-01-01', link: 'https://example.com/upgrade' }): VersionBundle {
  return new VersionBundle(
    new Version('2002-01-01'),
    new Version('2001-01-01', changeClass('AddThings', [endpoint('/things', ['POST']).didntExist]), { sunsetAt: SUNSET_AT, link: 'https://example.com/sunset' }),
    new Version('2000-01-01', oldest)
  )
}

async function lifecycleApp (t: { teardown: (fn: () => unknown) => void }, options: Record<string, unknown> = {}, bundle = lifecycleBundle()): Promise<FastifyInstance> {
  const app = await versionedApp(t, bundle, async (api) => {
    api.get('/ping', { schema: { summary: 'Ping', response: { 200: Type.Object({ version: Type.String() }) } } }, async (request) => ({ version: String(request.apiVersion) }))
    api.post('/orders', { schema: { body: Type.Object({ count: Type.Integer() }) } }, async () => ({ ok: true }))
    api.get('/boom', async () => { throw new Error('boom') })
    api.post('/things', async () => ({ ok: true }))
  }, {
    health: true,
    versioner: options,
    beforeRoutes: (instance) => { instance.versioner.webhooks.add({ name: 'order.created', body: Type.Object({ id: Type.String() }) }) }
  })
  await app.ready()
  return app
}

function lifecycleOf (response: { headers: Record<string, unknown> }): Record<string, unknown> {
  return { deprecation: response.headers.deprecation, sunset: response.headers.sunset, link: response.headers.link }
}

test('Version lifecycle options: Date or date string; sunset before deprecation and bad values are FST_VERSIONER_STRUCTURE', async (t) => {
  const fromStrings = new Version('2000-01-01', { deprecatedAt: '2025-01-01', sunsetAt: '2026-06-30T12:00:00Z', link: 'https://example.com/upgrade' })
  t.ok(fromStrings.deprecatedAt instanceof Date)
  t.equal(fromStrings.deprecatedAt?.toISOString(), '2025-01-01T00:00:00.000Z')
  t.equal(fromStrings.sunsetAt?.toISOString(), '2026-06-30T12:00:00.000Z')
  t.equal(fromStrings.link, 'https://example.com/upgrade')
  const given = new Date('2025-01-01T00:00:00Z')
  const fromDates = new Version('2000-01-01', { deprecatedAt: given, sunsetAt: given })
  t.equal(fromDates.deprecatedAt?.getTime(), given.getTime(), 'a Date; sunset on the deprecation date is allowed')
  given.setUTCFullYear(2030)
  t.equal(fromDates.deprecatedAt?.toISOString(), '2025-01-01T00:00:00.000Z', 'the Date is copied, not shared')
  const plain = new Version('2000-01-01')
  t.equal(plain.deprecatedAt, undefined)
  t.equal(plain.sunsetAt, undefined)
  t.equal(plain.link, undefined)

  const early = caught(() => new Version('2000-01-01', { deprecatedAt: '2026-01-01', sunsetAt: '2025-12-31' }))
  t.equal(early?.code, 'FST_VERSIONER_STRUCTURE', 'sunset before deprecation')
  t.match(early?.message, /2000-01-01.*sunsetAt.*deprecatedAt/)
  for (const [what, lifecycle] of [
    ['an invalid date string', { deprecatedAt: 'next year' }],
    ['an invalid Date', { sunsetAt: new Date('nope') }],
    ['a number', { deprecatedAt: 1735689600 }],
    ['an empty link', { link: '' }],
    ['an unknown option', { retiredAt: '2025-01-01' }]
  ] as const) {
    t.equal(caught(() => new Version('2000-01-01', lifecycle as VersionLifecycle))?.code, 'FST_VERSIONER_STRUCTURE', what)
  }
  t.equal(caught(() => new Version('2000-01-01', { deprecatedAt: '2025-01-01', link: 'https://example.com/upgrade\r\nx-injected: 1' }))?.code,
    'FST_VERSIONER_STRUCTURE', 'a link that cannot be a header value is refused at start-up')
})

test('responses served as a deprecated version carry Deprecation (RFC 9745), Sunset (RFC 8594) and Link; others carry none', async (t) => {
  const app = await lifecycleApp(t)
  const get = (version: string, url = '/ping'): Promise<LightMyRequestResponse> => app.inject({ url, headers: { 'x-api-version': version } })

  const deprecated = await get('2000-01-01')
  t.equal(deprecated.statusCode, 200)
  t.strictSame(lifecycleOf(deprecated), {
    deprecation: DEPRECATION,
    sunset: 'Thu, 01 Jan 2026 00:00:00 GMT',
    link: '<https://example.com/upgrade>; rel="deprecation", </openapi.json?version=2001-01-01>; rel="successor-version"'
  })
  t.match(String(deprecated.headers.deprecation), /^@\d+$/, 'Deprecation is a structured-field Date: @ and whole seconds')
  t.match(String(deprecated.headers.sunset), IMF_FIXDATE, 'Sunset is an IMF-fixdate in GMT')
  t.equal(Date.parse(String(deprecated.headers.sunset)), Date.parse('2026-01-01T00:00:00Z'))

  const waterfalled = await get('2000-12-31')
  t.same(JSON.parse(waterfalled.body), { version: '2000-01-01' })
  t.strictSame(lifecycleOf(waterfalled), lifecycleOf(deprecated), 'a date served as 2000-01-01 (waterfalling) gets its headers')

  const sunsetOnly = await get('2001-06-01')
  t.same(JSON.parse(sunsetOnly.body), { version: '2001-01-01' })
  t.strictSame(lifecycleOf(sunsetOnly), { deprecation: undefined, sunset: 'Tue, 04 Mar 2031 05:06:07 GMT', link: '<https://example.com/sunset>; rel="sunset"' },
    'without a deprecation date: Sunset with its time, and the link as rel="sunset"')

  for (const version of ['2002-01-01', '2003-05-05']) {
    t.strictSame(lifecycleOf(await get(version)), { deprecation: undefined, sunset: undefined, link: undefined }, `${version}: none`)
  }
  t.strictSame(lifecycleOf(await get('2000-01-01', '/health')), { deprecation: undefined, sunset: undefined, link: undefined },
    'an unversioned route: none, whatever version is sent')
  t.strictSame(lifecycleOf(await get('2000-01-01', '/openapi.json?version=2000-01-01')), { deprecation: undefined, sunset: undefined, link: undefined },
    'the document of the deprecated version is itself unversioned')
  t.strictSame(lifecycleOf(await get('1999-01-01')), { deprecation: undefined, sunset: undefined, link: undefined }, 'a version not served: none')
})

test('every answer of a deprecated version carries the same lifecycle headers: 400, 500, its 404s, and its 410 once gone', async (t) => {
  let clock = Date.parse('2025-06-01T00:00:00Z')
  const app = await lifecycleApp(t, { now: () => clock }, lifecycleBundle({ deprecatedAt: DEPRECATED_AT, sunsetAt: '2026-01-01', afterSunset: 'gone', link: 'https://example.com/upgrade' }))
  const expected = {
    deprecation: DEPRECATION,
    sunset: 'Thu, 01 Jan 2026 00:00:00 GMT',
    link: '<https://example.com/upgrade>; rel="deprecation", </openapi.json?version=2001-01-01>; rel="successor-version"'
  }
  const served = await app.inject({ url: '/ping', headers: { 'x-api-version': '2000-01-01' } })
  t.strictSame([served.statusCode, lifecycleOf(served)], [200, expected], 'a success')
  const invalid = await app.inject({ method: 'POST', url: '/orders', headers: { 'x-api-version': '2000-01-01' }, payload: { count: 'many' } })
  t.strictSame([invalid.statusCode, lifecycleOf(invalid)], [400, expected], 'a 400 for the version\'s schema')
  const failed = await app.inject({ url: '/boom', headers: { 'x-api-version': '2000-01-01' } })
  t.strictSame([failed.statusCode, lifecycleOf(failed)], [500, expected], 'a 500 from the handler')
  const absent = await app.inject({ method: 'POST', url: '/things', headers: { 'x-api-version': '2000-01-01' } })
  t.strictSame([absent.statusCode, lifecycleOf(absent)], [404, expected], 'a 404: a route the version does not have')
  clock = Date.parse('2026-01-01T00:00:00Z')
  const gone = await app.inject({ url: '/ping', headers: { 'x-api-version': '2000-01-01' } })
  t.strictSame([gone.statusCode, lifecycleOf(gone)], [410, expected], 'the 410 of the version gone since its sunset')
  const goneAbsent = await app.inject({ method: 'POST', url: '/things', headers: { 'x-api-version': '2000-01-01' } })
  t.strictSame([goneAbsent.statusCode, lifecycleOf(goneAbsent)], [410, expected], 'a route the gone version lacks: its 410, not a 404')
  const fine = await app.inject({ method: 'POST', url: '/things', headers: { 'x-api-version': '2001-01-01' } })
  t.equal(fine.statusCode, 200)
  t.equal(fine.headers.deprecation, undefined)
})

test('the headers follow the version however it is picked: path segment, default version', async (t) => {
  const byPath = await lifecycleApp(t, { apiVersionLocation: 'path' })
  const old = await byPath.inject('/2000-01-01/ping')
  t.equal(old.statusCode, 200)
  t.strictSame(lifecycleOf(old), { deprecation: DEPRECATION, sunset: 'Thu, 01 Jan 2026 00:00:00 GMT', link: '<https://example.com/upgrade>; rel="deprecation", </openapi.json?version=2001-01-01>; rel="successor-version"' })
  t.equal((await byPath.inject('/2002-01-01/ping')).headers.deprecation, undefined)

  const byDefault = await lifecycleApp(t, { apiVersionDefaultValue: '2000-01-01' })
  const implicit = await byDefault.inject('/ping')
  t.same(JSON.parse(implicit.body), { version: '2000-01-01' })
  t.equal(implicit.headers.deprecation, DEPRECATION, 'a request that names no version, served as the deprecated default')
  t.equal((await byDefault.inject({ url: '/ping', headers: { 'x-api-version': '2002-01-01' } })).headers.deprecation, undefined)

  const deprecationOnly = await lifecycleApp(t, {}, lifecycleBundle({ deprecatedAt: new Date(0) }))
  t.strictSame(lifecycleOf(await deprecationOnly.inject({ url: '/ping', headers: { 'x-api-version': '2000-01-01' } })),
    { deprecation: '@0', sunset: undefined, link: '</openapi.json?version=2001-01-01>; rel="successor-version"' }, 'only the dates given; no deprecation link without one, the successor link')
})

test('the deprecation link survives other Link headers of the response', async (t) => {
  const bundle = new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01', { deprecatedAt: '2025-01-01', link: 'https://example.com/upgrade' }))
  const app = await versionedApp(t, bundle, async (api) => {
    api.get('/pages', async (_request, reply) => {
      reply.header('link', '<https://example.com/pages?page=2>; rel="next"')
      return { page: 1 }
    })
    api.get('/plain', async () => ({ ok: true }))
  })
  app.addHook('onRequest', async (_request, reply) => { reply.header('link', '<https://example.com/status>; rel="status"') })
  await app.ready()
  const plain = await app.inject({ url: '/plain', headers: { 'x-api-version': '2000-01-01' } })
  t.match(String(plain.headers.link), '<https://example.com/upgrade>; rel="deprecation"')
  t.match(String(plain.headers.link), 'rel="status"', 'a Link set by an onRequest hook is kept')
  const pages = await app.inject({ url: '/pages', headers: { 'x-api-version': '2000-01-01' } })
  t.match(String(pages.headers.link), 'rel="next"', 'the handler\'s own link')
  t.match(String(pages.headers.link), 'rel="deprecation"', 'and the deprecation link')
  t.equal(pages.headers.deprecation, '@1735689600', 'the Deprecation header itself stays')
})

test("the deprecated version's document marks every operation deprecated and carries x-deprecated-at / x-sunset-at", async (t) => {
  const app = await lifecycleApp(t)
  const old = documentOf(app, '2000-01-01')
  const operations = [...operationsOf(old), ...operationsOf(old, 'webhooks')]
  t.strictSame(operations.map(({ path, method }) => `${method} ${path}`).sort(), ['GET /boom', 'GET /ping', 'POST /orders', 'POST order.created'])
  for (const { path, method, operation } of operations) t.equal(operation.deprecated, true, `${method} ${path} is deprecated`)
  t.equal(old.info['x-deprecated-at'], '2025-01-01')
  t.equal(old.info['x-sunset-at'], '2026-01-01')
  t.equal(old.info.version, '2000-01-01')
  t.equal(await validationError(old), undefined, 'the document is valid')

  const sunset = documentOf(app, '2001-01-01')
  t.equal(sunset.info['x-sunset-at'], '2031-03-04')
  t.equal(sunset.info['x-deprecated-at'], undefined, 'no deprecation date: no x-deprecated-at')
  for (const version of ['2002-01-01', 'unversioned']) {
    const document = documentOf(app, version)
    t.equal(document.info['x-deprecated-at'], undefined, `${version}: no x-deprecated-at`)
    t.equal(document.info['x-sunset-at'], undefined, `${version}: no x-sunset-at`)
    const operations = [...operationsOf(document), ...operationsOf(document, 'webhooks')]
    t.ok(operations.some(({ path }) => path !== '/changelog'), `${version}: there are operations to check`)
    for (const { path, method, operation } of operations) {
      // The changelog endpoint is deprecated on its own account.
      if (path !== '/changelog') t.notOk(operation.deprecated, `${version}: ${method} ${path} is not deprecated`)
    }
  }
  t.ok(operationsOf(documentOf(app, '2002-01-01')).length > 0)
})

test('the /docs list page shows deprecation and sunset badges, and the version\'s Swagger UI page shows its own', async (t) => {
  const app = await lifecycleApp(t)
  const list = await app.inject('/docs')
  t.equal(list.statusCode, 200)
  const rows = list.body.split('<tr>').slice(1)
  const row = (label: string): string => rows.find((item) => item.includes(`<strong>${label}</strong>`)) ?? ''
  t.match(row('2000-01-01'), /class="badge deprecated"[^>]*>deprecated since 2025-01-01</)
  t.match(row('2000-01-01'), /class="badge sunset"[^>]*>sunset 2026-01-01</)
  t.match(row('2000-01-01'), 'href="https://example.com/upgrade"', 'with the link')
  t.match(row('2001-01-01'), /class="badge sunset"[^>]*>sunset 2031-03-04</)
  t.notMatch(row('2001-01-01'), 'badge deprecated')
  t.notMatch(row('2002-01-01'), 'badge')
  t.notMatch(row('unversioned'), 'badge')
  t.ok(row('2002-01-01') !== '' && row('unversioned') !== '', 'every version is listed')

  const page = await app.inject('/docs?version=2000-01-01')
  t.equal(page.statusCode, 200)
  t.match(page.body, 'deprecated since 2025-01-01')
  t.match(page.body, 'sunset 2026-01-01')
  const current = await app.inject('/docs?version=2002-01-01')
  t.equal(current.statusCode, 200)
  t.notMatch(current.body, 'deprecated since', 'the current version\'s page shows no badge')
})

test("afterSunset: 'gone' answers 410 problem+json after the sunset date, by the clock of the now option; 'serve' keeps serving", async (t) => {
  let clock = Date.parse('2025-12-31T23:59:59Z')
  const bundle = new VersionBundle(
    new Version('2002-01-01'),
    new Version('2001-01-01', { sunsetAt: '2026-01-01', afterSunset: 'gone' }),
    new Version('2000-01-01', { deprecatedAt: '2024-01-01', sunsetAt: '2025-06-01', afterSunset: 'gone' }),
    new Version('1999-01-01', { sunsetAt: '2020-01-01' })
  )
  const app = await lifecycleApp(t, { now: () => new Date(clock) }, bundle)
  const get = (version: string, method: 'GET' | 'POST' = 'GET'): Promise<LightMyRequestResponse> =>
    app.inject({ method, url: method === 'GET' ? '/ping' : '/orders', headers: { 'x-api-version': version }, ...(method === 'POST' ? { payload: { count: 1 } } : {}) })

  t.equal((await get('2001-01-01')).statusCode, 200, 'before its sunset date: served')
  const gone = await get('2000-01-01')
  t.equal(gone.statusCode, 410, 'after its sunset date: gone')
  t.match(gone.headers['content-type'], /^application\/problem\+json/)
  t.match(String(gone.headers.vary), /x-api-version/, 'Vary on the version header')
  t.strictSame(JSON.parse(gone.body), {
    type: 'about:blank',
    title: 'API version gone',
    status: 410,
    detail: 'API version 2000-01-01 was sunset on 2025-06-01 and is no longer served. The oldest version still served is 1999-01-01.',
    version: '2000-01-01',
    sunsetAt: '2025-06-01T00:00:00.000Z',
    oldestVersion: '1999-01-01'
  }, 'RFC 9457 body naming the version, its date and the oldest version still served')
  t.equal((await get('2000-06-01')).statusCode, 410, 'a date waterfalled to a gone version')
  t.equal((await get('2000-01-01', 'POST')).statusCode, 410, 'every route and method of the version')
  t.equal((await get('1999-01-01')).statusCode, 200, "afterSunset 'serve' (the default): still served after the date")

  clock = Date.parse('2026-01-01T00:00:00Z')
  const later = await get('2001-01-01')
  t.equal(later.statusCode, 410, 'the clock moved past the next sunset')
  t.match(JSON.parse(later.body).detail, 'The oldest version still served is 1999-01-01.')
  t.equal((await get('2002-01-01')).statusCode, 200)
  t.equal((await app.inject({ url: '/health', headers: { 'x-api-version': '2000-01-01' } })).statusCode, 200, 'unversioned routes are not affected')

  const alone = await lifecycleApp(t, { now: () => Date.parse('2026-06-01T00:00:00Z') },
    new VersionBundle(new Version('2000-01-01', { deprecatedAt: '2025-01-01', sunsetAt: '2026-01-01', afterSunset: 'gone' })))
  const none = await alone.inject({ url: '/ping', headers: { 'x-api-version': '2000-01-01' } })
  t.equal(none.statusCode, 410)
  t.notOk('oldestVersion' in JSON.parse(none.body), 'no version served any longer: oldestVersion is left out')
  t.match(JSON.parse(none.body).detail, 'No version of this API is served any longer.')

  t.equal(caught(() => new Version('2000-01-01', { afterSunset: 'gone' }))?.code, 'FST_VERSIONER_STRUCTURE', "'gone' needs sunsetAt")
  t.equal(caught(() => new Version('2000-01-01', { sunsetAt: '2025-01-01', afterSunset: 'later' as 'gone' }))?.code, 'FST_VERSIONER_STRUCTURE', 'an unknown policy')
  t.equal(new Version('2000-01-01', { sunsetAt: '2025-01-01' }).afterSunset, 'serve', "'serve' by default")
})

test('regression: without the now option, Date.now is read at each request, so a fake clock installed after registration (a test\'s fake timers) is followed', async (t) => {
  const sunsetAt = Date.now() + 86_400_000
  const releasedAt = new Date(Date.now() + 3_600_000).toISOString()
  const bundle = new VersionBundle(
    new Version('2002-01-01', { releasedAt }),
    new Version('2001-01-01'),
    new Version('2000-01-01', { deprecatedAt: '2024-01-01', sunsetAt: new Date(sunsetAt), afterSunset: 'gone' })
  )
  const app = await lifecycleApp(t, {}, bundle)
  const status = async (version: string): Promise<number> => (await app.inject({ url: '/ping', headers: { 'x-api-version': version } })).statusCode
  const served = async (version: string): Promise<unknown> => (await app.inject({ url: '/ping', headers: { 'x-api-version': version } })).json().version
  t.strictSame([await status('2000-01-01'), await served('2002-01-01')], [200, '2001-01-01'], 'before the release and the sunset')
  // What vi.useFakeTimers() / jest.useFakeTimers() and setSystemTime do to the clock, after the application started.
  const realNow = Date.now
  Date.now = () => sunsetAt + 1
  t.teardown(() => { Date.now = realNow })
  t.strictSame([await status('2000-01-01'), await served('2002-01-01')], [410, '2002-01-01'], 'after them, by the clock the test set')
  Date.now = realNow
})

test("the document of a version with afterSunset: 'gone' says so", async (t) => {
  const bundle = new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01', { sunsetAt: '2099-01-01', afterSunset: 'gone' }))
  const app = await lifecycleApp(t, {}, bundle)
  const info = documentOf(app, '2000-01-01').info
  t.equal(info['x-sunset-at'], '2099-01-01')
  t.equal(info['x-after-sunset'], 'gone')
  t.match(info.description, 'answered 410 Gone')
  t.equal((await app.inject({ url: '/ping', headers: { 'x-api-version': '2000-01-01' } })).statusCode, 200, 'before the date (real clock): served')
})

test('deprecated versions link to the next version\'s document with rel="successor-version" (RFC 5829)', async (t) => {
  const bundle = (): VersionBundle => new VersionBundle(
    new Version('2002-01-01'), new Version('2001-01-01', { deprecatedAt: '2025-01-01' }), new Version('2000-01-01', { deprecatedAt: '2024-01-01' })
  )
  const app = await lifecycleApp(t, {}, bundle())
  const links = async (instance: FastifyInstance, version: string, url = '/ping'): Promise<unknown> =>
    (await instance.inject({ url, headers: { 'x-api-version': version } })).headers.link
  t.equal(await links(app, '2000-01-01'), '</openapi.json?version=2001-01-01>; rel="successor-version"')
  t.equal(await links(app, '2001-01-01'), '</openapi.json?version=2002-01-01>; rel="successor-version"')
  t.equal(await links(app, '2002-01-01'), undefined, 'not on the newest version')
  const document = await app.inject('/openapi.json?version=2001-01-01')
  t.equal(document.statusCode, 200, 'the link leads to the document')

  const moved = await lifecycleApp(t, { openapiUrl: '/docs/api.json' }, bundle())
  t.equal(await links(moved, '2000-01-01'), '</docs/api.json?version=2001-01-01>; rel="successor-version"', 'the configured openapiUrl')
  const off = await lifecycleApp(t, { openapiUrl: null }, bundle())
  t.equal(await links(off, '2000-01-01'), undefined, 'no documents: no successor link')

  const prefixed = Fastify()
  t.teardown(() => prefixed.close())
  await prefixed.register(async (scope) => {
    await scope.register(fastifyVersioner, { versions: bundle() })
    await scope.register(versioned(async (api) => { api.get('/ping', async () => ({ ok: true })) }))
  }, { prefix: '/v' })
  t.equal(await links(prefixed, '2000-01-01', '/v/ping'), '</v/openapi.json?version=2001-01-01>; rel="successor-version"', 'the prefix the plugin is registered under')
  t.equal((await prefixed.inject('/v/openapi.json?version=2001-01-01')).statusCode, 200)
})

test('regression: a prefix or openapiUrl holding text a header cannot (文档, a space, <>) is percent-encoded in Link, never a 500', async (t) => {
  const bundle = new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01', { deprecatedAt: '2024-01-01' }))
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(async (scope) => {
    await scope.register(fastifyVersioner, { versions: bundle, openapiUrl: '/文档/open api<1>.json' })
    await scope.register(versioned(async (api) => {
      api.get('/ping', { schema: { querystring: Type.Object({ old: Type.Optional(Type.String({ deprecated: true })) }) } }, async () => ({ ok: true }))
    }))
  }, { prefix: '/éditions' })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`
  const base = '/%C3%A9ditions/%E6%96%87%E6%A1%A3/open%20api%3C1%3E.json'
  for (const [url, link] of [
    ['/%C3%A9ditions/ping', `<${base}?version=2001-01-01>; rel="successor-version"`],
    ['/%C3%A9ditions/ping?old=1', `<${base}?version=2001-01-01>; rel="successor-version", <${base}?version=2000-01-01>; rel="deprecation"`]
  ]) {
    const response = await fetch(`${origin}${url}`, { headers: { 'x-api-version': '2000-01-01' } })
    t.equal(response.status, 200, `${url}: served over HTTP, not a 500 ERR_INVALID_CHAR`)
    t.equal(response.headers.get('link'), link, `${url}: every target percent-encoded`)
  }
  for (const version of ['2001-01-01', '2000-01-01']) {
    const document = await fetch(`${origin}${base}?version=${version}`)
    t.equal(document.status, 200, `the link to ${version} leads to its document`)
    t.equal(((await document.json()) as { info: { version: string } }).info.version, version)
  }
})

test('a deprecated version\'s successor link skips a newer version gone after its sunset', async (t) => {
  const bundle = (): VersionBundle => new VersionBundle(
    new Version('2002-01-01'),
    new Version('2001-01-01', { deprecatedAt: '2025-01-01', sunsetAt: '2026-01-01', afterSunset: 'gone' }),
    new Version('2000-01-01', { deprecatedAt: '2025-01-01', sunsetAt: '2027-01-01' })
  )
  const linkOf = async (app: FastifyInstance): Promise<unknown> => (await app.inject({ url: '/ping', headers: { 'x-api-version': '2000-01-01' } })).headers.link
  let time = Date.parse('2025-12-31T23:59:59Z')
  const moving = await lifecycleApp(t, { now: () => time }, bundle())
  t.equal(await linkOf(moving), '</openapi.json?version=2001-01-01>; rel="successor-version"', 'before its sunset: the next newer version')
  time = Date.parse('2026-01-01T00:00:00Z')
  t.equal((await moving.inject({ url: '/ping', headers: { 'x-api-version': '2001-01-01' } })).statusCode, 410, 'from its sunset, 2001-01-01 is gone')
  t.equal(await linkOf(moving), '</openapi.json?version=2002-01-01>; rel="successor-version"', 'from its sunset: the next version served')
  const after = await lifecycleApp(t, { now: () => Date.parse('2026-11-29T00:00:00Z') }, bundle())
  t.equal(await linkOf(after), '</openapi.json?version=2002-01-01>; rel="successor-version"', 'gone before start-up: never named')
})

/** A deprecated version with two brownouts before its sunset (2027-01-01), and the newest version. */
function brownoutBundle (): VersionBundle {
  return new VersionBundle(
    new Version('2002-01-01'),
    new Version('2001-01-01', {
      deprecatedAt: '2026-01-01',
      sunsetAt: '2027-01-01',
      afterSunset: 'gone',
      brownouts: [{ start: '2026-11-02T15:00:00Z', end: '2026-11-02T16:00:00Z' }, { start: new Date('2026-10-05T14:00:00Z'), end: '2026-10-05T14:10:00Z' }]
    })
  )
}

test('brownouts: inside a window a deprecated version answers as after its sunset, exact to the millisecond by the now clock', async (t) => {
  let clock = Date.parse('2026-10-05T13:59:59.999Z')
  const app = await lifecycleApp(t, { now: () => clock }, brownoutBundle())
  const get = (version = '2001-01-01'): Promise<LightMyRequestResponse> => app.inject({ url: '/ping', headers: { 'x-api-version': version } })
  t.equal((await get()).statusCode, 200, 'the millisecond before the first window: served')
  clock = Date.parse('2026-10-05T14:00:00Z')
  const brownout = await get()
  t.equal(brownout.statusCode, 410, 'its start: answered as after the sunset')
  t.match(brownout.headers['content-type'], /^application\/problem\+json/)
  t.equal(brownout.headers['x-api-version'], '2001-01-01', 'with the version headers')
  t.match(brownout.headers.sunset, IMF_FIXDATE)
  t.strictSame(brownout.json(), {
    type: 'about:blank',
    title: 'API version gone',
    status: 410,
    detail: 'API version 2001-01-01 is in a scheduled brownout until 2026-10-05T14:10:00.000Z: its requests are answered as they will be after its sunset on 2027-01-01. Upgrade to a newer version.',
    version: '2001-01-01',
    sunsetAt: '2027-01-01T00:00:00.000Z',
    brownout: { start: '2026-10-05T14:00:00.000Z', end: '2026-10-05T14:10:00.000Z' }
  })
  t.equal((await get('2001-06-01')).statusCode, 410, 'a date waterfalled to it too')
  t.equal((await get('2002-01-01')).statusCode, 200, 'other versions are served')
  t.equal((await app.inject({ method: 'POST', url: '/things', headers: { 'x-api-version': '2001-01-01' } })).statusCode, 410, 'every route of the version')
  clock = Date.parse('2026-10-05T14:09:59.999Z')
  t.equal((await get()).statusCode, 410, 'its last millisecond')
  clock = Date.parse('2026-10-05T14:10:00Z')
  t.equal((await get()).statusCode, 200, 'its end: served again')
  clock = Date.parse('2026-11-02T15:30:00Z')
  t.equal((await get()).statusCode, 410, 'the second window')
  clock = Date.parse('2026-12-01T00:00:00Z')
  t.equal((await get()).statusCode, 200, 'between the last window and the sunset: served')
  clock = Date.parse('2027-01-01T00:00:00Z')
  t.match((await get()).json().detail, /was sunset on 2027-01-01/, 'after the sunset: gone for good')
  clock = Date.parse('2026-10-05T14:05:00Z')
  t.equal((await get()).statusCode, 410, 'a clock set back lands in its window again')
})

test('regression: a brownout\'s 410 is not kept by caches past its window (a 410 is cacheable by default)', async (t) => {
  let clock = Date.parse('2026-10-05T14:00:00Z')
  const app = await lifecycleApp(t, { now: () => clock }, brownoutBundle())
  const brownout = await app.inject({ url: '/ping', headers: { 'x-api-version': '2001-01-01' } })
  t.equal(brownout.statusCode, 410)
  t.equal(brownout.headers['cache-control'], 'no-cache', 'revalidated on each use: the version is served again at the end of the window')
  t.equal(brownout.headers.vary, 'x-api-version', 'and varies on the version')
  clock = Date.parse('2026-10-05T14:10:00Z')
  t.equal((await app.inject({ url: '/ping', headers: { 'x-api-version': '2001-01-01' } })).headers['cache-control'], undefined, 'served: the handler\'s own')
})

test('brownouts are marked in the served event, and shown in the document and on the docs pages', async (t) => {
  const events: ServedEvent[] = []
  const listener = (message: unknown): void => { events.push(message as ServedEvent) }
  diagnosticsChannel.subscribe('fastify-versioner:served', listener)
  t.teardown(() => { diagnosticsChannel.unsubscribe('fastify-versioner:served', listener) })
  let clock = Date.parse('2026-11-02T15:00:00Z')
  const app = await lifecycleApp(t, { now: () => clock }, brownoutBundle())
  await app.inject({ url: '/ping', headers: { 'x-api-version': '2001-01-01' } })
  await app.inject({ url: '/things', method: 'POST', headers: { 'x-api-version': '2001-01-01' } })
  clock = Date.parse('2026-11-02T16:00:00Z')
  await app.inject({ url: '/ping', headers: { 'x-api-version': '2001-01-01' } })
  await app.inject({ url: '/things', method: 'POST', headers: { 'x-api-version': '2001-01-01' } })
  t.strictSame(events.map((event) => [event.route.url, event.version, event.requested, event.brownout?.start.toISOString(), event.brownout?.end.toISOString()]), [
    ['/ping', '2001-01-01', '2001-01-01', '2026-11-02T15:00:00.000Z', '2026-11-02T16:00:00.000Z'],
    ['/things', '2001-01-01', '2001-01-01', '2026-11-02T15:00:00.000Z', '2026-11-02T16:00:00.000Z'],
    ['/ping', '2001-01-01', '2001-01-01', undefined, undefined],
    ['/things', '2001-01-01', '2001-01-01', undefined, undefined]
  ], 'one event per request, marked inside the window')
  t.strictSame({ ...events[1], request: null, brownout: undefined }, { ...events[3], request: null }, 'otherwise the event a request served then has')

  const info = documentOf(app, '2001-01-01').info
  t.strictSame(info['x-brownouts'], [{ start: '2026-10-05T14:00:00.000Z', end: '2026-10-05T14:10:00.000Z' }, { start: '2026-11-02T15:00:00.000Z', end: '2026-11-02T16:00:00.000Z' }],
    'the document lists the windows, sorted')
  t.match(info.description, 'Scheduled brownouts, during which its requests are answered 410 Gone as after its sunset: 2026-10-05T14:00:00.000Z to 2026-10-05T14:10:00.000Z')
  for (const url of ['/docs', '/docs?version=2001-01-01']) {
    const page = (await app.inject(url)).body
    t.match(page, '<time datetime="2026-10-05T14:00:00.000Z">2026-10-05T14:00:00.000Z</time> to <time datetime="2026-10-05T14:10:00.000Z">', `${url} shows the schedule`)
  }
  t.notMatch((await app.inject('/docs?version=2002-01-01')).body, 'brownouts', 'not on a version without brownouts')
})

test('brownouts are checked: on a deprecated version with afterSunset gone, each window within its deprecation, none overlapping', async (t) => {
  const base = { deprecatedAt: '2026-01-01', sunsetAt: '2027-01-01', afterSunset: 'gone' as const }
  const window = { start: '2026-06-01T10:00:00Z', end: '2026-06-01T11:00:00Z' }
  t.equal(new Version('2000-01-01', { ...base, brownouts: [] }).brownouts.length, 0)
  for (const [what, lifecycle, message] of [
    ['no afterSunset gone', { deprecatedAt: '2026-01-01', sunsetAt: '2027-01-01', brownouts: [window] }, /brownouts need deprecatedAt and afterSunset: 'gone'/],
    ['not deprecated', { sunsetAt: '2027-01-01', afterSunset: 'gone', brownouts: [window] }, /brownouts need deprecatedAt/],
    ['not an array', { ...base, brownouts: window }, /brownouts must be an array/],
    ['an extra key', { ...base, brownouts: [{ ...window, reason: 'drill' }] }, /brownouts\[0\] must be \{ start, end \}/],
    ['an end before its start', { ...base, brownouts: [{ start: window.end, end: window.start }] }, /brownouts\[0\]: end .* must be after start/],
    ['an empty window', { ...base, brownouts: [{ start: window.start, end: window.start }] }, /must be after start/],
    ['before the deprecation', { ...base, brownouts: [{ start: '2025-12-31T23:00:00Z', end: '2026-01-01T01:00:00Z' }] }, /must lie between deprecatedAt/],
    ['after the sunset', { ...base, brownouts: [{ start: '2026-12-31T23:00:00Z', end: '2027-01-01T01:00:00Z' }] }, /must lie between deprecatedAt .* and sunsetAt/],
    ['an instant without a time zone', { ...base, brownouts: [{ start: '2026-06-01T10:00:00', end: window.end }] }, /brownouts\[0\]\.start must be a Date or an ISO 8601 string/],
    ['overlapping windows', { ...base, brownouts: [window, { start: '2026-06-01T10:30:00Z', end: '2026-06-01T12:00:00Z' }] }, /brownouts overlap/]
  ] as const) {
    const error = caught(() => new Version('2000-01-01', lifecycle as VersionLifecycle))
    t.equal(error?.code, 'FST_VERSIONER_STRUCTURE', what)
    t.match(error?.message, /^Version\('2000-01-01'\)/, `${what}: names the version`)
    t.match(error?.message, message, `${what}: says what is wrong`)
  }
  const touching = new Version('2000-01-01', { ...base, brownouts: [window, { start: window.end, end: '2026-06-01T12:00:00Z' }] })
  t.equal(touching.brownouts.length, 2, 'windows may touch')
  t.ok(Object.isFrozen(touching.brownouts) && Object.isFrozen(touching.brownouts[0]))
})

test('regression: deprecatedAt and sunsetAt in local time (a date-time without a time zone, words) are refused, as releasedAt is', async (t) => {
  // Read in each instance's time zone, they would send a different Sunset and answer 410 at a different instant per instance.
  for (const lifecycle of [
    { sunsetAt: '2027-01-01T00:00:00', afterSunset: 'gone' }, { deprecatedAt: 'March 1, 2026' }, { deprecatedAt: '2026-03-01 10:00' }
  ] as const) {
    const error = caught(() => new Version('2000-01-01', lifecycle))
    t.equal(error?.code, 'FST_VERSIONER_STRUCTURE', JSON.stringify(lifecycle))
    t.match(error?.message, /A date-time needs its time zone/, 'says what to write')
  }
  t.equal(new Version('2000-01-01', { deprecatedAt: '2026-03-01T10:00:00+02:00' }).deprecatedAt?.toISOString(), '2026-03-01T08:00:00.000Z')
  t.equal(new Version('2000-01-01', { sunsetAt: '2027-01-01' }).sunsetAt?.toISOString(), '2027-01-01T00:00:00.000Z', 'a date is midnight UTC')
  t.throws(() => new Version('2000-01-01', { sunsetAt: '2027-02-30' }), /sunsetAt must be a Date/, 'a date that does not exist')
})

test('regression: a usage-event subscriber changing the sunset Date it is given (rounded to its day, in place) does not move the version\'s sunset', async (t) => {
  const clock = Date.parse('2026-01-01T06:00:00Z')
  const bundle = new VersionBundle(new Version('2002-01-01'), new Version('2001-01-01', { sunsetAt: '2026-01-01T12:00:00Z', afterSunset: 'gone' }))
  const app = await lifecycleApp(t, { now: () => clock }, bundle)
  const byDay = (message: unknown): void => { (message as ServedEvent).sunset?.setUTCHours(0, 0, 0, 0) }
  diagnosticsChannel.subscribe('fastify-versioner:served', byDay)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:served', byDay))
  const first = await app.inject({ url: '/ping', headers: { 'x-api-version': '2001-01-01' } })
  const second = await app.inject({ url: '/ping', headers: { 'x-api-version': '2001-01-01' } })
  t.equal(first.statusCode, 200)
  t.equal(second.statusCode, 200, 'still served until its sunset at noon')
  t.equal(second.headers.sunset, 'Thu, 01 Jan 2026 12:00:00 GMT')
  t.equal(bundle.get('2001-01-01')?.sunsetAt?.toISOString(), '2026-01-01T12:00:00.000Z', 'the version\'s own date is untouched')

  // The same from the webhook-rendered event: the subscriber pinned to 2001-01-01 is still sent its version.
  diagnosticsChannel.subscribe('fastify-versioner:webhook-rendered', byDay)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:webhook-rendered', byDay))
  const subscribers = [{ id: 'ep_1', version: '2001-01-01', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }]
  for (let round = 0; round < 2; round++) {
    const { deliveries } = await app.versioner.webhooks.render('order.created', { id: 'o' }, { subscribers, timestamp: new Date(clock) })
    t.equal(deliveries[0]?.version, '2001-01-01', `render ${round + 1}: in the subscriber's version`)
  }
})
