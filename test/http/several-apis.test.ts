/**
 * Several versioned APIs in one application: the plugin registered once per encapsulated context, each with its
 * own bundle, versions, routes, documents and pages; registering it twice where one registration already serves
 * is a coded error.
 */
import { test } from 'tap'
import { AsyncLocalStorage } from 'node:async_hooks'
import diagnosticsChannel from 'node:diagnostics_channel'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertResponseToPreviousVersionFor, endpoint, fastifyVersioner, schema, Version, VersionBundle, VersionChange, VersionChangeWithSideEffects, versioned, VersionPicker, type FastifyVersionerOptions, type ResponseInfo
} from '../../plugin'
import { bundleOf, DATES } from '../helpers/http-apps'
import { jsonOf } from '../helpers/http'
import { changeClass } from '../helpers/version-changes'

const Item = Type.Object({ id: Type.String(), title: Type.String() })

/** API `/b`: string versions; in v1 the item's `title` was called `name`. */
function bundleOfB () {
  class RenameTitle extends VersionChange {
    description = 'Item.title was called name.'
    instructionsToMigrateToPreviousVersion = [schema(Item).field('title').had({ name: 'name' })]

    @ConvertResponseToPreviousVersionFor(Item)
    titleToName (response: ResponseInfo) {
      response.body.name = response.body.title
      delete response.body.title
    }
  }
  return bundleOf(['v2', 'v1'], { v2: [RenameTitle] })
}

/** API `/a`: dated versions; `GET /a/items` is served by HEAD route `new` in 2002-01-01, by `old` in older versions. */
function bundleOfA () {
  return bundleOf(DATES, {
    '2002-01-01': [changeClass('ReplaceItems', [
      endpoint('/a/items', ['GET']).didntExist,
      endpoint('/a/legacy-items', ['GET']).existed,
      endpoint('/a/legacy-items', ['GET']).had({ path: '/a/items' })
    ])]
  })
}

const routesOfA = versioned(async (api) => {
  api.get('/items', async (request) => ({ handler: 'new', version: request.apiVersion }))
  api.get('/legacy-items', { onlyExistsInOlderVersions: true }, async (request) => ({ handler: 'old', version: request.apiVersion }))
  api.get('/things', async (request) => ({ handler: 'things', version: request.apiVersion }))
})

/** An app serving API `/a` (dated versions, two HEAD routes sharing a path) and API `/b` (string versions, a converter). */
async function twoApis (t: { teardown: (fn: () => unknown) => void }, extra: Partial<FastifyVersionerOptions> = {}): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(async (api) => {
    await api.register(fastifyVersioner, { versions: bundleOfA(), openapi: { info: { title: 'API A', version: 'a' } }, ...extra })
    await api.register(routesOfA)
  }, { prefix: '/a' })
  await app.register(async (api) => {
    await api.register(fastifyVersioner, { versions: bundleOfB(), apiVersionFormat: 'string', openapi: { info: { title: 'API B', version: 'b' } }, ...extra })
    await api.register(versioned(async (routes) => {
      routes.get('/items/:id', { schema: { response: { 200: Item } } }, async (request) => ({ id: (request.params as { id: string }).id, title: 'Pen' }))
      // The same path as API a's, in another context: each API answers its own.
      routes.get('/items', async (request) => ({ handler: 'b', version: request.apiVersion }))
    }))
  }, { prefix: '/b' })
  await app.ready()
  return app
}

test('two APIs in sibling contexts: each serves its own versions, routes and converters', async (t) => {
  const app = await twoApis(t)
  const get = (url: string, version?: string) => app.inject({ url, headers: version === undefined ? {} : { 'x-api-version': version } })

  // API a: dated versions, waterfalling, and two HEAD routes told apart by the version.
  t.same(jsonOf(await get('/a/items', '2002-06-01')), { handler: 'new', version: '2002-01-01' })
  t.same(jsonOf(await get('/a/items', '2000-01-01')), { handler: 'old', version: '2000-01-01' })
  t.same(jsonOf(await get('/a/things', '2001-01-01')), { handler: 'things', version: '2001-01-01' })
  t.equal((await get('/a/legacy-items', '2001-01-01')).statusCode, 404, 'the old route moved in API a')
  const unknownInA = await get('/a/items', 'v1')
  t.equal(unknownInA.statusCode, 400, 'API b\'s versions are not API a\'s')
  t.match(jsonOf(unknownInA).message, /Supported versions: 2002-01-01, 2001-01-01, 2000-01-01\./)

  // API b: string versions and its own converter.
  const v1 = await get('/b/items/7', 'v1')
  t.equal(v1.statusCode, 200)
  t.same(jsonOf(v1), { id: '7', name: 'Pen' })
  t.equal(v1.headers['x-api-version'], 'v1')
  t.same(jsonOf(await get('/b/items/7', 'v2')), { id: '7', title: 'Pen' })
  t.same(jsonOf(await get('/b/items', 'v1')), { handler: 'b', version: 'v1' })
  const unknownInB = await get('/b/items/7', '2001-01-01')
  t.equal(unknownInB.statusCode, 400)
  t.match(jsonOf(unknownInB).message, /^Unknown API version '2001-01-01' in the 'x-api-version' header\. Supported versions: v2, v1\.$/)

  t.notOk(app.hasDecorator('versioner'), 'the root context has no versioner of its own')
})

test('two APIs: each has its own documents (versions, paths, title) and docs pages under its prefix', async (t) => {
  const app = await twoApis(t)
  const documentOf = async (url: string) => {
    const response = await app.inject({ url })
    t.equal(response.statusCode, 200, url)
    return jsonOf(response)
  }
  const a = await documentOf('/a/openapi.json?version=2000-01-01')
  t.equal(a.info.title, 'API A')
  t.equal(a.info.version, '2000-01-01')
  t.same(Object.keys(a.paths).sort(), ['/a/items', '/a/things'])
  const b = await documentOf('/b/openapi.json?version=v1')
  t.equal(b.info.title, 'API B')
  t.same(Object.keys(b.paths).sort(), ['/b/items', '/b/items/{id}'])
  t.equal((await app.inject({ url: '/b/openapi.json?version=2000-01-01' })).statusCode, 404, 'API a\'s versions have no document in API b')
  t.equal((await app.inject({ url: '/openapi.json' })).statusCode, 404, 'no document outside the APIs')

  for (const prefix of ['/a', '/b']) {
    const list = await app.inject({ url: `${prefix}/docs` })
    t.equal(list.statusCode, 200, `${prefix}/docs`)
    t.match(list.headers['content-type'], /^text\/html/)
  }
  t.match((await app.inject({ url: '/b/docs' })).body, /v2/)
  t.notMatch((await app.inject({ url: '/b/docs' })).body, /2001-01-01/, 'API b\'s page lists its own versions only')

  // Every local link of each API's pages (documents, pages, scripts, styles) is under its prefix and answers.
  for (const [prefix, version] of [['/a', '2001-01-01'], ['/b', 'v1']]) {
    const links = new Set<string>()
    for (const page of [`${prefix}/docs`, `${prefix}/docs?version=${version}`, `${prefix}/redoc?version=${version}`]) {
      const body = (await app.inject({ url: page })).body
      for (const match of body.matchAll(/(?:href|src|spec-url)="(\/[^"]*)"|"(?:url|spec)":\s*"(\/[^"]*)"/g)) links.add((match[1] ?? match[2]).replace(/&amp;|&#38;/g, '&'))
    }
    t.ok(links.size >= 5, `${prefix}: the pages link to documents, pages and assets`)
    for (const url of links) {
      t.ok(url.startsWith(`${prefix}/`), `${url} is under ${prefix}`)
      t.equal((await app.inject({ url })).statusCode, 200, `${url} answers`)
    }
    t.ok(links.has(`${prefix}/openapi.json?version=${version}`), `${prefix}: the page reads its API's document`)
  }
})

test('app.versioner in each API context describes that API', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const seen: Record<string, readonly string[]> = {}
  for (const [prefix, values, format] of [['/a', ['2001-01-01', '2000-01-01'], 'date'], ['/b', ['v2', 'v1'], 'string']] as const) {
    await app.register(async (api) => {
      await api.register(fastifyVersioner, { versions: bundleOf(values), apiVersionFormat: format, openapiUrl: null })
      await api.register(versioned(async (routes) => { routes.get('/ping', async () => ({ ok: true })) }))
      api.addHook('onReady', async function () { seen[prefix] = api.versioner.routes.get(values[0])?.map((route) => route.path) ?? [] })
    }, { prefix })
  }
  await app.ready()
  t.same(seen, { '/a': ['/a/ping'], '/b': ['/b/ping'] })
})

test('registering the plugin twice in one context, or again in a child context, is FST_VERSIONER_ALREADY_REGISTERED', async (t) => {
  const same = Fastify()
  t.teardown(() => same.close())
  await same.register(fastifyVersioner, { versions: bundleOf(['2001-01-01', '2000-01-01']) })
  const error = await same.register(fastifyVersioner, { versions: bundleOf(['v2', 'v1']), apiVersionFormat: 'string' })
    .then(() => same.ready()).then(() => undefined, (err: Error & { code?: string }) => err)
  t.equal(error?.code, 'FST_VERSIONER_ALREADY_REGISTERED')
  t.match(error?.message, /^fastifyVersioner is already registered in this Fastify context or a parent of it\. .*register the plugin and its versioned\(\.\.\.\) routes once in each API's own context/)

  const nested = Fastify()
  t.teardown(() => nested.close())
  await nested.register(fastifyVersioner, { versions: bundleOf(['2001-01-01', '2000-01-01']) })
  nested.register(async (child) => {
    await child.register(fastifyVersioner, { versions: bundleOf(['v2', 'v1']), apiVersionFormat: 'string' })
  })
  const nestedError = await nested.ready().then(() => undefined, (err: Error & { code?: string }) => err)
  t.equal(nestedError?.code, 'FST_VERSIONER_ALREADY_REGISTERED')
})

test('a change class shared by two APIs (in different versions): isApplied follows the API serving each request', async (t) => {
  class ChargesTax extends VersionChangeWithSideEffects {
    description = 'Orders are charged tax.'
    instructionsToMigrateToPreviousVersion = []
  }
  const app = Fastify()
  t.teardown(() => app.close())
  const apis = [['/a', bundleOf(DATES, { '2002-01-01': [ChargesTax] })], ['/b', bundleOf(['v2', 'v1'], { v2: [ChargesTax] })]] as const
  for (const [prefix, versions] of apis) {
    await app.register(async (api) => {
      await api.register(fastifyVersioner, { versions, apiVersionFormat: prefix === '/a' ? 'date' : 'string', openapiUrl: null })
      await api.register(versioned(async (routes) => {
        routes.get('/order', async (request) => {
          await new Promise((resolve) => setImmediate(resolve))
          return { version: request.apiVersion, taxed: ChargesTax.isApplied }
        })
      }))
    }, { prefix })
  }
  const answers = await Promise.all([
    ['/a/order', '2002-01-01'], ['/a/order', '2001-01-01'], ['/b/order', 'v2'], ['/b/order', 'v1']
  ].map(async ([url, version]) => jsonOf(await app.inject({ url, headers: { 'x-api-version': version } }))))
  t.same(answers, [
    { version: '2002-01-01', taxed: true }, { version: '2001-01-01', taxed: false }, { version: 'v2', taxed: true }, { version: 'v1', taxed: false }
  ])
})

test('regression: two APIs sharing one apiVersionStorage that hold a change in different places fail start-up (isApplied answered by the other API\'s versions)', async (t) => {
  class ChargesTax extends VersionChangeWithSideEffects {
    description = 'Orders are charged tax.'
    instructionsToMigrateToPreviousVersion = []
  }
  const build = async (bundles: ReadonlyArray<readonly [string, VersionBundle]>): Promise<FastifyInstance> => {
    const app = Fastify()
    t.teardown(() => app.close())
    for (const [prefix, versions] of bundles) {
      app.register(async (api) => {
        await api.register(fastifyVersioner, { versions, openapiUrl: null })
        await api.register(versioned(async (routes) => {
          routes.get('/order', async (request) => ({ version: request.apiVersion, taxed: ChargesTax.isApplied }))
        }))
      }, { prefix })
    }
    await app.ready()
    return app
  }
  const failure = async (bundles: ReadonlyArray<readonly [string, VersionBundle]>) =>
    await build(bundles).then(() => undefined, (err: Error & { code?: string }) => err)
  const apiVersionStorage = new AsyncLocalStorage<string | undefined>()
  // API a charges tax from 2002-01-01, API b from 2003-01-01: in 2002-01-01 the storage cannot say which API serves.
  const a = new VersionBundle(new Version('2002-01-01', ChargesTax), new Version('2001-01-01'), { apiVersionStorage })
  const b = new VersionBundle(new Version('2003-01-01', ChargesTax), new Version('2002-01-01'), new Version('2001-01-01'), { apiVersionStorage })
  const error = await failure([['/a', a], ['/b', b]])
  t.equal(error?.code, 'FST_VERSIONER_STRUCTURE')
  t.match(error?.message, /'ChargesTax'/)
  t.match(error?.message, /apiVersionStorage/)
  t.match(error?.message, /'2002-01-01'/)
  t.match(error?.message, /API 'b'/)
  t.match(error?.message, /API 'a'/)

  // A change one API holds and the other shares the storage without: the other's requests would read false in older versions.
  const held = new VersionBundle(new Version('2002-01-01', ChargesTax), new Version('2001-01-01'), { apiVersionStorage })
  const without = new VersionBundle(new Version('2001-01-01'), { apiVersionStorage })
  const alone = await failure([['/a', held], ['/b', without]])
  t.equal(alone?.code, 'FST_VERSIONER_STRUCTURE')
  t.match(alone?.message, /'ChargesTax'/)

  // The same places in both (a bundle built twice by a factory), or a storage each: isApplied answers for each API.
  const twice = (storage?: AsyncLocalStorage<string | undefined>) =>
    new VersionBundle(new Version('2002-01-01', ChargesTax), new Version('2001-01-01'), ...(storage === undefined ? [] : [{ apiVersionStorage: storage }]))
  const same = await build([['/a', twice(apiVersionStorage)], ['/b', twice(apiVersionStorage)]])
  t.same((await same.inject({ url: '/b/order', headers: { 'x-api-version': '2001-01-01' } })).json(), { version: '2001-01-01', taxed: false })
  const own = await build([['/a', new VersionBundle(new Version('2002-01-01', ChargesTax), new Version('2001-01-01'))],
    ['/b', new VersionBundle(new Version('2003-01-01', ChargesTax), new Version('2002-01-01'), new Version('2001-01-01'))]])
  t.same((await own.inject({ url: '/a/order', headers: { 'x-api-version': '2002-01-01' } })).json(), { version: '2002-01-01', taxed: true })
  t.same((await own.inject({ url: '/b/order', headers: { 'x-api-version': '2002-01-01' } })).json(), { version: '2002-01-01', taxed: false })
})

test('regression: the usage events name their API (served and webhook-rendered), so two APIs with the same versions can be told apart', async (t) => {
  const served: Array<{ api: string, version: string }> = []
  const rendered: Array<{ api: string | undefined, version: string }> = []
  const onServed = (message: unknown): void => { served.push(message as { api: string, version: string }) }
  const onRendered = (message: unknown): void => { rendered.push(message as { api: string | undefined, version: string }) }
  diagnosticsChannel.subscribe('fastify-versioner:served', onServed)
  diagnosticsChannel.subscribe('fastify-versioner:webhook-rendered', onRendered)
  t.teardown(() => {
    diagnosticsChannel.unsubscribe('fastify-versioner:served', onServed)
    diagnosticsChannel.unsubscribe('fastify-versioner:webhook-rendered', onRendered)
  })
  const app = Fastify()
  t.teardown(() => app.close())
  const contexts: FastifyInstance[] = []
  for (const [prefix, apiName] of [['/a', undefined], ['/b/v', undefined], ['/c', 'partners']] as const) {
    await app.register(async (api) => {
      await api.register(fastifyVersioner, { versions: bundleOf(DATES), ...(apiName === undefined ? {} : { apiName }) })
      api.versioner.webhooks.add({ name: 'thing.done', body: Item })
      await api.register(versioned(async (routes) => { routes.get('/things', async () => ({ id: '1', title: 't' })) }))
      contexts.push(api)
    }, { prefix })
  }
  await app.ready()
  for (const url of ['/a/things', '/b/v/things', '/c/things']) {
    t.equal((await app.inject({ url, headers: { 'x-api-version': DATES[1] } })).statusCode, 200, url)
  }
  t.same(served.map((event) => [event.api, event.version]), [['a', DATES[1]], ['b-v', DATES[1]], ['partners', DATES[1]]],
    'the option, else the prefix: the names the tools\' --api takes')
  const secret = 'whsec_' + Buffer.from('x'.repeat(32)).toString('base64')
  for (const context of contexts) await context.versioner.webhooks.render('thing.done', { id: '1', title: 't' }, { subscribers: [{ id: 's1', version: DATES[1], secret }] })
  t.same(rendered.map((event) => [event.api, event.version]), [['a', DATES[1]], ['b-v', DATES[1]], ['partners', DATES[1]]])
})

test('regression: an API\'s custom picker run before routing does not answer another API\'s requests', async (t) => {
  // API at the root: path versions, a custom picker, GET /:version/items shared by two HEAD routes (picked before
  // routing). API `/partner`: its own custom picker pins v1. The root's picker also runs on /partner/items (its
  // shared path matches, version 'partner'), and that outcome used to be read by /partner's request hook: a 400.
  const app = Fastify()
  t.teardown(() => app.close())
  class RequestedOnly extends VersionPicker {
    override async pick (request: FastifyRequest) { return this.requested(request) }
  }
  class PinnedToV1 extends VersionPicker {
    override async pick (request: FastifyRequest) { return this.requested(request) ?? 'v1' }
  }
  const replaceItems = changeClass('ReplaceRootItems', [
    endpoint('/items', ['GET']).didntExist, endpoint('/legacy-items', ['GET']).existed, endpoint('/legacy-items', ['GET']).had({ path: '/items' })
  ])
  await app.register(async (api) => {
    await api.register(fastifyVersioner, { versions: bundleOf(['2002-01-01', '2001-01-01'], { '2002-01-01': [replaceItems] }), apiVersionLocation: 'path', versionPicker: RequestedOnly })
    await api.register(versioned(async (routes) => {
      routes.get('/items', async (request) => ({ handler: 'new', version: request.apiVersion }))
      routes.get('/legacy-items', { onlyExistsInOlderVersions: true }, async (request) => ({ handler: 'old', version: request.apiVersion }))
    }))
  })
  await app.register(async (api) => {
    await api.register(fastifyVersioner, { versions: bundleOf(['v2', 'v1']), apiVersionFormat: 'string', versionPicker: PinnedToV1 })
    await api.register(versioned(async (routes) => { routes.get('/items', async (request) => ({ handler: 'partner', version: request.apiVersion })) }))
  }, { prefix: '/partner' })
  t.same(jsonOf(await app.inject({ url: '/2001-01-01/items' })), { handler: 'old', version: '2001-01-01' })
  const pinned = await app.inject({ url: '/partner/items' })
  t.equal(pinned.statusCode, 200, 'the partner API picks its own version')
  t.same(jsonOf(pinned), { handler: 'partner', version: 'v1' })
  t.same(jsonOf(await app.inject({ url: '/partner/items', headers: { 'x-api-version': 'v2' } })), { handler: 'partner', version: 'v2' })
})
