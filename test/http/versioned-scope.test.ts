/**
 * What `versioned(...)` covers: nested plugins and prefixes, several registrations, path versions under a
 * prefix, HEAD routes sharing a path across versions (route constraint), and `request.apiVersion`.
 */
import { test } from 'tap'
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { endpoint, VersionPicker, versioned } from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { bundleOf, DATES, getWith, sharedPathBundle, sharedPathRoutes, SUPPORTED_DATES } from '../helpers/http-apps'
import { jsonOf } from '../helpers/http'
import { changeClass } from '../helpers/version-changes'
import { anotherCopy } from '../helpers/another-copy'

/** A bundle of DATES where `GET /a/b/v/deep/x` (nested two plugins deep) was added in 2001-01-01. */
function nestedBundle () {
  return bundleOf(DATES, { '2001-01-01': [changeClass('AddDeep', [endpoint('/a/b/v/deep/x', ['GET']).didntExist])] })
}

/** Registers, inside an outer plugin with prefix /a, versioned routes with prefix /b and nested plugins. */
async function registerNested (app: FastifyInstance): Promise<void> {
  await app.register(async (outer) => {
    await outer.register(versioned(async (api) => {
      await api.register(async (v) => {
        v.get('/y', async (request) => ({ y: request.apiVersion }))
        await v.register(async (deep) => {
          deep.get('/x', async (request) => ({ deep: request.apiVersion }))
        }, { prefix: '/deep' })
      }, { prefix: '/v' })
      await api.register(fp(async (shared) => { shared.get('/fp', async (request) => ({ fp: request.apiVersion })) }))
    }), { prefix: '/b' })
    outer.get('/plain', async (request) => ({ plain: request.apiVersion ?? null }))
  }, { prefix: '/a' })
}

test('nested plugins and prefixes inside versioned(...) are HEAD routes; instructions name their full path', async (t) => {
  const app = await versionedApp(t, nestedBundle())
  await registerNested(app)

  const y = await getWith(app, '/a/b/v/y', '2000-01-01')
  t.equal(y.statusCode, 200)
  t.same(jsonOf(y), { y: '2000-01-01' })
  t.equal(y.headers['x-api-version'], '2000-01-01')

  for (const version of ['2001-01-01', '2002-01-01', '2001-09-09']) {
    const deep = await getWith(app, '/a/b/v/deep/x', version)
    t.equal(deep.statusCode, 200, `${version}: deep route served`)
    t.same(jsonOf(deep), { deep: version === '2001-09-09' ? '2001-01-01' : version })
  }
  const absent = await getWith(app, '/a/b/v/deep/x', '2000-12-31')
  t.equal(absent.statusCode, 404, 'the deep route did not exist in 2000-01-01')
  t.equal(jsonOf(absent).message, 'Route GET:/a/b/v/deep/x not found')

  const missing = await getWith(app, '/a/b/v/deep/x')
  t.equal(missing.statusCode, 400)
  t.equal(jsonOf(missing).code, 'FST_VERSIONER_MISSING_API_VERSION')

  const wrapped = await getWith(app, '/a/b/fp', '2002-01-01')
  t.equal(wrapped.statusCode, 200, 'a fastify-plugin plugin inside versioned is versioned too')
  t.same(jsonOf(wrapped), { fp: '2002-01-01' })
  t.equal((await getWith(app, '/a/b/fp')).statusCode, 400)

  const plain = await getWith(app, '/a/plain', 'garbage')
  t.equal(plain.statusCode, 200, 'a sibling route outside versioned is unversioned')
  t.same(jsonOf(plain), { plain: null })
})

test('several versioned(...) registrations with different prefixes, and unversioned routes between them', async (t) => {
  const app = await versionedApp(t, bundleOf(DATES))
  await app.register(versioned(async (api) => { api.get('/users', async (request) => ({ area: 'api', version: request.apiVersion })) }), { prefix: '/api' })
  app.get('/api/status', async (request) => ({ status: 'ok', version: request.apiVersion ?? null }))
  await app.register(versioned(async (api) => { api.get('/users', async (request) => ({ area: 'admin', version: request.apiVersion })) }), { prefix: '/admin' })
  await app.register(versioned(async (api) => { api.get('/root', async (request) => ({ area: 'root', version: request.apiVersion })) }))

  for (const [url, area] of [['/api/users', 'api'], ['/admin/users', 'admin'], ['/root', 'root']]) {
    const response = await getWith(app, url, '2001-02-03')
    t.equal(response.statusCode, 200, `${url}: 200`)
    t.same(jsonOf(response), { area, version: '2001-01-01' })
    t.equal(response.headers['x-api-version'], '2001-01-01')
    const missing = await getWith(app, url)
    t.equal(missing.statusCode, 400, `${url}: versioned`)
    t.equal(jsonOf(missing).code, 'FST_VERSIONER_MISSING_API_VERSION')
  }
  const status = await getWith(app, '/api/status', 'garbage')
  t.equal(status.statusCode, 200)
  t.same(jsonOf(status), { status: 'ok', version: null })
})

test('path versions go right after the versioned(...) prefix, including prefixes of outer plugins', async (t) => {
  const app = await versionedApp(t, nestedBundle(), undefined, { versioner: { apiVersionLocation: 'path' } })
  await registerNested(app)
  await app.register(versioned(async (api) => { api.get('/users', async (request) => ({ area: 'api', version: request.apiVersion })) }), { prefix: '/api' })
  await app.register(versioned(async (api) => { api.get('/users', async (request) => ({ area: 'top', version: request.apiVersion })) }))
  app.get('/health', async (request) => ({ ok: true, version: request.apiVersion ?? null }))

  const cases: Array<[string, number, unknown, string?]> = [
    ['/api/2001-01-01/users', 200, { area: 'api', version: '2001-01-01' }, '2001-01-01'],
    ['/api/2001-05-01/users', 200, { area: 'api', version: '2001-01-01' }, '2001-01-01'],
    ['/2000-01-01/users', 200, { area: 'top', version: '2000-01-01' }, '2000-01-01'],
    ['/a/b/2000-01-01/v/y', 200, { y: '2000-01-01' }, '2000-01-01'],
    ['/a/b/2002-01-01/v/deep/x', 200, { deep: '2002-01-01' }, '2002-01-01'],
    ['/a/b/2002-01-01/fp', 200, { fp: '2002-01-01' }, '2002-01-01'],
    ['/health', 200, { ok: true, version: null }],
    ['/a/plain', 200, { plain: null }]
  ]
  for (const [url, status, body, echoed] of cases) {
    const response = await app.inject({ url })
    t.equal(response.statusCode, status, `${url}: ${status}`)
    t.same(jsonOf(response), body, `${url}: body`)
    t.equal(response.headers['x-api-version'], echoed, `${url}: echo`)
  }
  const absent = await app.inject({ url: '/a/b/2000-01-01/v/deep/x' })
  t.equal(absent.statusCode, 404, 'the deep route did not exist in 2000-01-01')
  const invalid = await app.inject({ url: '/a/b/2001-02-30/v/y' })
  t.equal(invalid.statusCode, 400)
  t.equal(jsonOf(invalid).message,
    `Invalid API version '2001-02-30' in the path, right after '/a/b' (as in /a/b/<version>/…): there is no such day: send a day of the calendar, written YYYY-MM-DD. ${SUPPORTED_DATES}`)
  const tooOld = await app.inject({ url: '/api/1999-01-01/users' })
  t.equal(tooOld.statusCode, 400)
  t.match(jsonOf(tooOld).message, /^Unsupported API version '1999-01-01' in the path, right after '\/api' \(as in \/api\/<version>\/…\)/)
  t.equal((await app.inject({ url: '/2000-01-01/api/users' })).statusCode, 404, 'the version does not go before the prefix')
  t.equal((await app.inject({ url: '/api/users/2000-01-01' })).statusCode, 404, 'nor at the end')
})

test('two HEAD routes on one path and method reach the right handler in each version (header)', async (t) => {
  const app = await versionedApp(t, sharedPathBundle())
  await app.register(sharedPathRoutes, { prefix: '/api' })

  const cases: Array<[string, string, number, unknown]> = [
    ['/api/items', '2002-01-01', 200, { handler: 'new', version: '2002-01-01' }],
    ['/api/items', '2010-10-10', 200, { handler: 'new', version: '2002-01-01' }],
    ['/api/items', '2001-01-01', 200, { handler: 'old', version: '2001-01-01' }],
    ['/api/items', '2001-12-31', 200, { handler: 'old', version: '2001-01-01' }],
    ['/api/items', '2000-06-01', 200, { handler: 'old', version: '2000-01-01' }],
    ['/api/things', '2002-01-01', 200, { handler: 'things', version: '2002-01-01' }],
    ['/api/things', '2001-01-01', 404, { message: 'Route GET:/api/things not found', error: 'Not Found', statusCode: 404 }],
    ['/api/things', '2001-12-31', 404, { message: 'Route GET:/api/things not found', error: 'Not Found', statusCode: 404 }],
    ['/api/things', '2000-01-01', 200, { handler: 'renamed', version: '2000-01-01' }],
    ['/api/things', '2000-03-03', 200, { handler: 'renamed', version: '2000-01-01' }]
  ]
  for (const [url, version, status, body] of cases) {
    const response = await getWith(app, url, version)
    t.equal(response.statusCode, status, `${url} ${version}: ${status}`)
    t.same(jsonOf(response), body, `${url} ${version}: body`)
  }
  for (const version of DATES) {
    t.equal((await getWith(app, '/api/legacy-items', version)).statusCode, 404, `${version}: the moved route is not at its HEAD path`)
  }
  const missing = await getWith(app, '/api/items')
  t.equal(missing.statusCode, 400)
  t.equal(jsonOf(missing).code, 'FST_VERSIONER_MISSING_API_VERSION')
  const bad = await getWith(app, '/api/things', '2001-1-1')
  t.equal(bad.statusCode, 400)
  t.equal(jsonOf(bad).code, 'FST_VERSIONER_INVALID_API_VERSION')
  const head = await app.inject({ method: 'HEAD', url: '/api/things', headers: { 'x-api-version': '2000-01-01' } })
  t.equal(head.statusCode, 200, 'HEAD requests follow the same routes')
  t.equal(head.headers['x-api-version'], '2000-01-01')
})

test('a route deleted with didntExist and another restored with existed on the same path: without operationId the restore is ambiguous', async (t) => {
  const versions = bundleOf(DATES, {
    '2002-01-01': [changeClass('AddNewItems', [endpoint('/api/items', ['GET']).didntExist])],
    '2001-01-01': [changeClass('RemoveOldItems', [endpoint('/api/items', ['GET']).existed])]
  })
  const app = await versionedApp(t, versions)
  const error = await app.register(versioned(async (api) => {
    api.get('/items', async (request) => ({ handler: 'new', version: request.apiVersion }))
    api.get('/items', { onlyExistsInOlderVersions: true }, async (request) => ({ handler: 'old', version: request.apiVersion }))
  }), { prefix: '/api' }).then(() => app.ready()).then(() => undefined, (err: Error & { code?: string }) => err)
  t.equal((error as { code?: string } | undefined)?.code, 'FST_VERSIONER_ROUTER_GENERATION')
  t.match(error?.message, /Endpoint "\[GET\] \/api\/items" you tried to restore in "RemoveOldItems" has 2 applicable routes/)
  t.match(error?.message, /endpoint\(path, methods, \{ operationId \}\)/, 'the message says how to name the route')
})

test('a route deleted with didntExist and another restored with existed on the same path, named by operationId', async (t) => {
  // GET /api/items is `new` in 2002-01-01 and `old` (onlyExistsInOlderVersions) before it: one change, two named routes.
  const versions = bundleOf(DATES, {
    '2002-01-01': [changeClass('ReplaceItems', [
      endpoint('/api/items', ['GET'], { operationId: 'listItems' }).didntExist,
      endpoint('/api/items', ['GET'], { operationId: 'listItemsLegacy' }).existed
    ])]
  })
  const app = await versionedApp(t, versions)
  await app.register(versioned(async (api) => {
    api.get('/items', { schema: { operationId: 'listItems' } }, async (request) => ({ handler: 'new', version: request.apiVersion }))
    api.get('/items', { onlyExistsInOlderVersions: true, schema: { operationId: 'listItemsLegacy' } },
      async (request) => ({ handler: 'old', version: request.apiVersion }))
  }), { prefix: '/api' })
  await app.ready()
  t.same(jsonOf(await getWith(app, '/api/items', '2002-01-01')), { handler: 'new', version: '2002-01-01' })
  t.same(jsonOf(await getWith(app, '/api/items', '2001-01-01')), { handler: 'old', version: '2001-01-01' })
  t.same(jsonOf(await getWith(app, '/api/items', '2000-01-01')), { handler: 'old', version: '2000-01-01' })
})

test('two HEAD routes on one path: path versions and a string default reach the right handler', async (t) => {
  const app = await versionedApp(t, sharedPathBundle(), undefined, { versioner: { apiVersionLocation: 'path' } })
  await app.register(sharedPathRoutes, { prefix: '/api' })
  t.same(jsonOf(await app.inject({ url: '/api/2002-01-01/items' })), { handler: 'new', version: '2002-01-01' })
  t.same(jsonOf(await app.inject({ url: '/api/2001-07-07/items' })), { handler: 'old', version: '2001-01-01' })
  t.equal((await app.inject({ url: '/api/2001-01-01/things' })).statusCode, 404)
  t.same(jsonOf(await app.inject({ url: '/api/2000-01-01/things' })), { handler: 'renamed', version: '2000-01-01' })
  t.same(jsonOf(await app.inject({ url: '/api/2003-01-01/things' })), { handler: 'things', version: '2002-01-01' })

  const withDefault = await versionedApp(t, sharedPathBundle(), undefined, { versioner: { apiVersionDefaultValue: '2000-01-01' } })
  await withDefault.register(sharedPathRoutes, { prefix: '/api' })
  const byDefault = await getWith(withDefault, '/api/things')
  t.equal(byDefault.statusCode, 200)
  t.same(jsonOf(byDefault), { handler: 'renamed', version: '2000-01-01' })
  t.same(jsonOf(await getWith(withDefault, '/api/things', '2002-01-01')), { handler: 'things', version: '2002-01-01' })
})

test('two HEAD routes on one path: a default function and a custom picker reach the right handler (picked before routing)', async (t) => {
  const withFunction = await versionedApp(t, sharedPathBundle(), undefined, { versioner: { apiVersionDefaultValue: async () => '2000-01-01' } })
  await withFunction.register(sharedPathRoutes, { prefix: '/api' })
  t.same(jsonOf(await getWith(withFunction, '/api/things')), { handler: 'renamed', version: '2000-01-01' })
  t.same(jsonOf(await getWith(withFunction, '/api/things', '2002-01-01')), { handler: 'things', version: '2002-01-01' })
  t.equal((await getWith(withFunction, '/api/things', '2001-01-01')).statusCode, 404)

  class QueryPicker extends VersionPicker {
    override pick (request: FastifyRequest): string | undefined {
      return (request.query as Record<string, string | undefined>).v ?? this.requested(request)
    }
  }
  const withPicker = await versionedApp(t, sharedPathBundle(), undefined, { versioner: { versionPicker: QueryPicker } })
  await withPicker.register(sharedPathRoutes, { prefix: '/api' })
  t.same(jsonOf(await getWith(withPicker, '/api/items?v=2001-05-05')), { handler: 'old', version: '2001-01-01' })
  t.same(jsonOf(await getWith(withPicker, '/api/items', '2002-01-01')), { handler: 'new', version: '2002-01-01' })
  const missing = await getWith(withPicker, '/api/items')
  t.equal(missing.statusCode, 400)
  t.equal(jsonOf(missing).code, 'FST_VERSIONER_MISSING_API_VERSION')
})

test('request.apiVersion is the served version on versioned routes, in hooks and handlers; undefined elsewhere', async (t) => {
  const seen: Array<[string, string | undefined]> = []
  const app = await versionedApp(t, bundleOf(DATES))
  app.addHook('onRequest', async (request) => { seen.push(['app onRequest', request.apiVersion]) })
  await app.register(versioned(async (api) => {
    api.addHook('onRequest', async (request) => { seen.push(['onRequest', request.apiVersion]) })
    api.addHook('preValidation', async (request) => { seen.push(['preValidation', request.apiVersion]) })
    api.addHook('preHandler', async (request) => { seen.push(['preHandler', request.apiVersion]) })
    api.addHook('onResponse', async (request) => { seen.push(['onResponse', request.apiVersion]) })
    api.get('/v', async (request) => { seen.push(['handler', request.apiVersion]); return { version: request.apiVersion } })
  }))
  app.get('/u', async (request) => { seen.push(['unversioned', request.apiVersion]); return { version: request.apiVersion ?? null } })

  const response = await getWith(app, '/v', '2001-10-10')
  t.same(jsonOf(response), { version: '2001-01-01' })
  t.same(seen.splice(0), [
    ['app onRequest', '2001-01-01'], ['onRequest', '2001-01-01'], ['preValidation', '2001-01-01'],
    ['preHandler', '2001-01-01'], ['handler', '2001-01-01'], ['onResponse', '2001-01-01']
  ])
  const unversioned = await getWith(app, '/u', '2001-10-10')
  t.same(jsonOf(unversioned), { version: null })
  t.same(seen.splice(0), [['app onRequest', undefined], ['unversioned', undefined]])

  const invalid = await getWith(app, '/v', '1999-01-01')
  t.equal(invalid.statusCode, 400)
  t.same(seen.splice(0), [['app onRequest', undefined], ['onRequest', undefined], ['preValidation', undefined], ['onResponse', undefined]],
    'an unservable version is undefined, and the handler does not run')

  // With an async default, the version is known from the versioner's preValidation hook on.
  const lazy = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { apiVersionDefaultValue: async () => '2000-01-01' } })
  const lazySeen: Array<[string, string | undefined]> = []
  await lazy.register(versioned(async (api) => {
    api.addHook('preHandler', async (request) => { lazySeen.push(['preHandler', request.apiVersion]) })
    api.get('/v', async (request) => ({ version: request.apiVersion }))
  }))
  t.same(jsonOf(await getWith(lazy, '/v')), { version: '2000-01-01' })
  t.same(lazySeen, [['preHandler', '2000-01-01']])
})

test('regression: versioned(...) wrapped with fastify-plugin fails registration saying so: it versioned the enclosing context instead (its prefix dropped, every route registered there after it versioned)', async (t) => {
  const app = await versionedApp(t, bundleOf(DATES))
  await t.rejects(async () => {
    await app.register(fp(versioned(async (api) => { api.get('/a', async () => ({ a: 1 })) })), { prefix: '/api' })
  }, { code: 'FST_VERSIONER_INVALID_OPTION', message: /versioned\(anonymous\) is wrapped with fastify-plugin.*its prefix ignored.*versioned\(fp\(routes\)\)/ })
})

test('regression: routes inside versioned(...) of another copy of the package fail start-up saying so: they were served unversioned', async (t) => {
  // A shared package with its own copy of fastify-versioner exports its routes wrapped in its versioned(...): the
  // application's plugin did not see them as versioned, so /a was served in 2000-01-01, where it did not exist.
  const other = anotherCopy()
  const app = await versionedApp(t, nestedBundleOf('/a'))
  await app.register(other.versioned(async (api) => { api.get('/a', async () => ({ a: 1 })) }), { prefix: '' })
  await t.rejects(async () => { await app.ready() }, {
    code: 'FST_VERSIONER_INVALID_OPTION',
    message: /^Route GET \/a is registered inside versioned\(\.\.\.\) of another copy of fastify-versioner: .*npm ls fastify-versioner.*peerDependencies/
  })
  // The other way round: this copy's versioned(...) under another copy's plugin (its own check, once it is a copy with it).
  const ours = await versionedApp(t, nestedBundleOf('/b'))
  await ours.register(versioned(async (api) => { api.get('/b', async () => ({ b: 1 })) }))
  await ours.ready()
  t.equal((await getWith(ours, '/b', '2000-01-01')).statusCode, 404)
})

/** A bundle of DATES where `GET path` was added in 2001-01-01. */
function nestedBundleOf (path: string) {
  return bundleOf(DATES, { '2001-01-01': [changeClass('AddRoute', [endpoint(path, ['GET']).didntExist])] })
}
