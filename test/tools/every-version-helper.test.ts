// injectEveryVersion: one request, answered by every version in which its route exists, keyed by version.
import { test } from 'tap'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { buildApp } from '../../examples/users/app'
import { endpoint, fastifyVersioner, versioned, Version, VersionBundle } from '../../plugin'
import { injectEveryVersion } from '../../tools'
import { bundleOf } from '../helpers/http-apps'
import { versionedApp } from '../helpers/apps'
import { changeClass } from '../helpers/version-changes'

test("one test states every version's contract of POST /users (the reference copies these tests per version)", async (t) => {
  const app = await buildApp()
  t.teardown(() => app.close())
  await app.ready()
  const answers = await injectEveryVersion(app, (version) => ({
    method: 'POST',
    url: '/users',
    payload: version === '2000-01-01' ? { address: '1 Main St' } : version === '2001-01-01' ? { addresses: ['1 Main St', '2 Side St'] } : { defaultAddress: '1 Main St' }
  }))
  t.same([...answers.keys()], ['2002-01-01', '2001-01-01', '2000-01-01'], 'every version, newest first')
  const bodies = Object.fromEntries([...answers].map(([version, response]) => {
    const { id, ...rest } = response.json()
    t.match(id, /^[0-9a-f-]{36}$/, `${version}: an id`)
    t.equal(response.headers['x-api-version'], version, `${version}: served as ${version}`)
    return [version, { status: response.statusCode, ...rest }]
  }))
  t.same(bodies, {
    '2002-01-01': { status: 200 },
    '2001-01-01': { status: 200, addresses: ['1 Main St', '2 Side St'] },
    '2000-01-01': { status: 200, address: '1 Main St' }
  })
})

test('only the versions where the route exists answer', async (t) => {
  const app = await buildApp()
  t.teardown(() => app.close())
  await app.ready()
  const created = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': '2002-01-01' }, payload: { defaultAddress: 'a' } })
  const answers = await injectEveryVersion(app, { method: 'GET', url: `/users/${created.json().id as string}/addresses` })
  t.same([...answers.keys()], ['2002-01-01'], 'GET /users/:userId/addresses is new in 2002-01-01')
  t.match(answers.get('2002-01-01')?.json(), { data: [{ value: 'a' }] })
  const some = await injectEveryVersion(app, { method: 'GET', url: `/users/${created.json().id as string}` }, { versions: ['2000-01-01'] })
  t.same([...some.keys()], ['2000-01-01'], 'the versions option narrows the list')
  await t.rejects(injectEveryVersion(app, { method: 'DELETE', url: '/users' }), { code: 'FST_VERSIONER_TOOL', message: /no versioned route answers DELETE \/users/ })
})

test('path versions: the version goes into the path, under the prefix; renamed paths answer where they match', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const versions = bundleOf(['2001-01-01', '2000-01-01'], { '2001-01-01': [changeClass('RenameItems', [endpoint('/api/things/:id', ['GET']).had({ path: '/api/items/:id' })])] })
  await app.register(fastifyVersioner, { versions, apiVersionLocation: 'path' })
  await app.register(versioned(async (api) => {
    api.get('/things/:id', { schema: { params: Type.Object({ id: Type.String() }) } }, async (request) => ({ id: request.params.id, url: request.url }))
  }), { prefix: '/api' })
  await app.ready()
  const things = await injectEveryVersion(app, { url: '/api/things/7?full=1' })
  t.same([...things.keys()], ['2001-01-01'])
  t.same(things.get('2001-01-01')?.json(), { id: '7', url: '/api/2001-01-01/things/7?full=1' })
  const items = await injectEveryVersion(app, { url: '/api/items/8' })
  t.same([...items.keys()], ['2000-01-01'])
  t.same(items.get('2000-01-01')?.json(), { id: '8', url: '/api/2000-01-01/items/8' })
})

test('before ready it throws FST_VERSIONER_NOT_READY', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: bundleOf(['2000-01-01']) })
  await t.rejects(injectEveryVersion(app, { url: '/x' }), { code: 'FST_VERSIONER_NOT_READY' })
})

test('it injects one version after another, newest first, as docs/testing.md says', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: bundleOf(['2002-01-01', '2001-01-01', '2000-01-01']) })
  const seen: string[] = []
  let running = 0
  await app.register(versioned(async (api) => {
    api.post('/counters', async (request) => {
      running += 1
      const alone = running === 1
      await new Promise((resolve) => setTimeout(resolve, 5))
      running -= 1
      seen.push(request.apiVersion ?? '')
      return { number: seen.length, alone }
    })
  }))
  await app.ready()
  const answers = await injectEveryVersion(app, { method: 'POST', url: '/counters', payload: {} })
  t.same(seen, ['2002-01-01', '2001-01-01', '2000-01-01'], 'the handler sees the newest version first')
  t.same([...answers].map(([version, response]) => [version, response.json()]), [
    ['2002-01-01', { number: 1, alone: true }],
    ['2001-01-01', { number: 2, alone: true }],
    ['2000-01-01', { number: 3, alone: true }]
  ])
})

test('regression: a catch-all, regex or multi-parameter route under a path-version prefix is injected as Fastify routes it', async (t) => {
  for (const location of ['header', 'path'] as const) {
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(fastifyVersioner, { versions: bundleOf(['2001-01-01', '2000-01-01']), ...(location === 'path' ? { apiVersionLocation: 'path' } : {}) })
    await app.register(versioned(async (api) => {
      api.get('*', async (request) => ({ route: 'catch-all', rest: (request.params as Record<string, string>)['*'] }))
      api.get('/numbers/:n(^\\d+)', async (request) => ({ route: 'regex', n: (request.params as Record<string, string>).n }))
      api.get('/ranges/:from-:to', async (request) => ({ route: 'multi', ...request.params as object }))
    }), { prefix: '/api' })
    await app.ready()
    const bodies = async (url: string): Promise<unknown[]> => [...(await injectEveryVersion(app, { url })).values()].map((response) => response.json())
    t.same(await bodies('/api/some/where?x=1'), [{ route: 'catch-all', rest: location === 'path' ? 'some/where' : '/some/where' }, { route: 'catch-all', rest: location === 'path' ? 'some/where' : '/some/where' }], `${location}: the catch-all answers`)
    t.same(await bodies('/api/numbers/12'), [{ route: 'regex', n: '12' }, { route: 'regex', n: '12' }], `${location}: the regex route wins over the catch-all, as in Fastify`)
    t.same(await bodies('/api/ranges/1-5'), [{ route: 'multi', from: '1', to: '5' }, { route: 'multi', from: '1', to: '5' }], `${location}: the multi-parameter route`)
  }
})

test('regression: with two path-version APIs, the one whose catch-all answers is found (no "no versioned API answers")', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  for (const prefix of ['/public', '/partner']) {
    await app.register(async (scope) => {
      await scope.register(fastifyVersioner, { versions: bundleOf(['2001-01-01', '2000-01-01']), apiVersionLocation: 'path' })
      await scope.register(versioned(async (api) => {
        api.get('*', async (request) => ({ api: prefix, url: request.url }))
      }))
    }, { prefix })
  }
  await app.ready()
  const answers = await injectEveryVersion(app, { url: '/partner/files/a.txt' })
  t.same([...answers.values()].map((response) => response.json()), [
    { api: '/partner', url: '/partner/2001-01-01/files/a.txt' }, { api: '/partner', url: '/partner/2000-01-01/files/a.txt' }
  ])
})

test("the route is found with the application's router options: case and trailing slash as Fastify routes them", async (t) => {
  for (const routerOptions of [{}, { caseSensitive: false, ignoreTrailingSlash: true }]) {
    const app = Fastify({ routerOptions })
    t.teardown(() => app.close())
    await app.register(fastifyVersioner, { versions: bundleOf(['2001-01-01', '2000-01-01']) })
    await app.register(versioned(async (api) => { api.get('/items/:id', async (request) => request.params) }))
    await app.ready()
    for (const url of ['/ITEMS/1', '/items/1/']) {
      if (routerOptions.caseSensitive === false) {
        t.same([...(await injectEveryVersion(app, { url })).values()].map((response) => response.json()), [{ id: '1' }, { id: '1' }], `${url} answers where Fastify routes it`)
      } else {
        await t.rejects(injectEveryVersion(app, { url }), { code: 'FST_VERSIONER_TOOL', message: /no versioned route answers/ }, `${url} is no route of a case-sensitive app`)
      }
    }
  }
})

test('regression: a release whose releasedAt has not come is not injected, and a date after the newest is keyed by the version served then', async (t) => {
  const versions = new VersionBundle(new Version('2027-01-01', { releasedAt: '2027-01-01T00:00:00Z' }), new Version('2026-06-01'), new Version('2026-01-01'))
  for (const [now, newest] of [[Date.parse('2026-11-29T00:00:00Z'), '2026-06-01'], [Date.parse('2027-01-01T00:00:00Z'), '2027-01-01']] as const) {
    const app = await versionedApp(t, versions, async (api) => {
      api.get('/version', async (request) => ({ version: request.apiVersion }))
    }, { versioner: { now: () => now } })
    await app.ready()
    const every = await injectEveryVersion(app, { url: '/version' })
    t.same([...every.keys()], [...(newest === '2027-01-01' ? ['2027-01-01'] : []), '2026-06-01', '2026-01-01'], `${newest}: the versions served then`)
    for (const [version, answer] of every) t.same(answer.json(), { version }, `${newest}: the answer keyed ${version} is that version's`)
    const later = await injectEveryVersion(app, { url: '/version' }, { versions: ['2099-01-01'] })
    t.same([...later.keys()], [newest], `${newest}: a date after every version is keyed by the version it is served as`)
    t.same(later.get(newest)?.json(), { version: newest })
  }
})

test('regression: a path version whose name a URL must escape (`v2 beta`, `v1/old`, `v1?x`) is injected escaped, and answers', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const names = ['v2 beta', 'v1/old', 'v1?x', 'v0#1%']
  await app.register(fastifyVersioner, { versions: bundleOf(names), apiVersionFormat: 'string', apiVersionLocation: 'path' })
  await app.register(versioned(async (api) => {
    api.get('/echo', async (request) => ({ version: request.apiVersion }))
  }), { prefix: '/api' })
  await app.ready()
  const answers = await injectEveryVersion(app, { url: '/api/echo' })
  t.same([...answers].map(([version, response]) => [version, response.statusCode, response.json()]), names.map((name) => [name, 200, { version: name }]))
})

test("regression: a path parameter longer than the app's maxParamLength found no route (an error), where every version answers Fastify's 414", async (t) => {
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')), async (api) => {
    api.get('/users/:id', { schema: { params: Type.Object({ id: Type.String() }) } }, async (request) => ({ id: request.params.id }))
  })
  await app.ready()
  const url = `/users/${'x'.repeat(150)}` // Fastify's limit is 100 characters
  const answers = await injectEveryVersion(app, { url })
  t.same([...answers].map(([version, response]) => [version, response.statusCode, response.json().code]), [
    ['2001-01-01', 414, 'FST_ERR_MAX_PARAM_LENGTH'], ['2000-01-01', 414, 'FST_ERR_MAX_PARAM_LENGTH']
  ], 'each version answers as a client of it is answered')
  t.equal((await app.inject({ url, headers: { 'x-api-version': '2000-01-01' } })).statusCode, 414, 'as the app answers a client')
})
