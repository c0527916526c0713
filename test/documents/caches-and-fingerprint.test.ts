import { test } from 'tap'
import { createHash } from 'node:crypto'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyPluginAsync, LightMyRequestResponse } from 'fastify'
import fp from 'fastify-plugin'
import { endpoint, schema, Version, VersionBundle, type FastifyVersionerOptions, type VersionLifecycle } from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { changeClass } from '../helpers/version-changes'
import { rejection } from '../helpers/errors'

const PREVIEW = '2003-01-01.beta'

/** How a build differs from the reference one: the order of its routes, a plugin before or after them, its contract. */
interface Variant {
  readonly order?: 'forward' | 'backward'
  readonly plugin?: 'before' | 'after'
  /** Adds a field to `Item` (a contract change). */
  readonly itemColour?: boolean
  /** The type of `beta`, a field only the preview version has (a preview change). */
  readonly beta?: 'string' | 'integer'
  readonly releasedAt?: string
  readonly versioner?: Partial<FastifyVersionerOptions>
}

/** A plugin of the application that has nothing to do with versions: a shared schema and a hook. */
const Audit: FastifyPluginAsync = fp(async (app) => {
  app.addSchema({ $id: 'AuditEntry', type: 'object', properties: { at: { type: 'string' } } })
  app.addHook('onRequest', async () => {})
}, { name: 'audit' })

/** One build of the items API: 2002-01-01 (items gained `sku`, `/items/list` appeared), 2001-01-01, and a preview. */
async function itemsBuild (t: Teardown, variant: Variant = {}): Promise<FastifyInstance> {
  const Item = Type.Object({
    id: Type.String(),
    sku: Type.String(),
    stock: Type.Integer(),
    beta: variant.beta === 'integer' ? Type.Integer() : Type.String(),
    ...(variant.itemColour === true ? { colour: Type.String() } : {})
  }, { $id: 'Item' })
  const Note = Type.Object({ text: Type.String() }, { $id: 'Note' })
  const versions = new VersionBundle(
    new Version(PREVIEW, changeClass('PreviewChange', [schema(Item).field('beta').didntExist]), {
      channel: 'preview', access: (request) => request.headers['x-beta'] === 'yes'
    }),
    new Version('2002-01-01', changeClass('AddSku', [schema(Item).field('sku').didntExist, endpoint('/items/list', ['GET']).didntExist]),
      variant.releasedAt === undefined ? {} : { releasedAt: variant.releasedAt }),
    new Version('2001-01-01', { deprecatedAt: '2025-01-01' } satisfies VersionLifecycle)
  )
  return await versionedApp(t, versions, async (api) => {
    const routes = [
      () => api.get('/items/:id', { schema: { response: { 200: Item } } }, async () => ({ id: '1', sku: 'A', stock: 2, beta: variant.beta === 'integer' ? 1 : 'b', colour: 'red' })),
      () => api.post('/items', { schema: { body: Item, response: { 200: Item } } }, async (request) => request.body),
      // `GET /items-list` and `GET /items/list` both make the id getItemsList: one gets a number.
      () => api.get('/items-list', { schema: { response: { 200: Type.Array(Item) } } }, async () => []),
      () => api.get('/items/list', { schema: { response: { 200: Type.Array(Item) } } }, async () => []),
      () => api.post('/items/:id/notes', { schema: { body: Note } }, async () => ({ ok: true }))
    ]
    if (variant.plugin === 'before') await api.register(Audit)
    for (const route of variant.order === 'backward' ? [...routes].reverse() : routes) route()
    if (variant.plugin === 'after') await api.register(Audit)
  }, {
    health: true,
    versioner: { now: () => Date.parse('2026-06-01T00:00:00Z'), ...variant.versioner },
    beforeRoutes: (app) => { app.versioner.webhooks.add({ name: 'item.changed', body: Item }) }
  })
}

/** Every document and page a build serves, by URL (a preview's asked for with access). */
const URLS = [
  '/openapi.json', '/openapi.json?version=2002-01-01', '/openapi.json?version=2001-01-01', '/openapi.json?version=unversioned',
  `/openapi.json?version=${PREVIEW}&channel=preview`,
  '/docs', '/docs?version=2002-01-01', '/docs?version=2001-01-01', '/redoc?version=2002-01-01', `/docs?version=${PREVIEW}&channel=preview`,
  '/docs/upgrade?from=2001-01-01&to=2002-01-01', '/docs/upgrade?from=2001-01-01&to=2002-01-01&format=json'
]

function sha256 (text: string | Buffer, encoding: 'hex' | 'base64url' = 'hex'): string {
  return createHash('sha256').update(text).digest(encoding)
}

/** The hash of every document and page a build serves. */
async function hashes (app: FastifyInstance): Promise<Record<string, string>> {
  const found: Record<string, string> = {}
  for (const url of URLS) {
    const response = await app.inject({ url, headers: { 'x-beta': 'yes' } })
    if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}`)
    found[url] = sha256(response.rawPayload)
  }
  return found
}

test('documents and pages are byte-identical whatever order the routes and plugins register in', async (t) => {
  const reference = await itemsBuild(t)
  const expected = await hashes(reference)
  for (const variant of [{ order: 'backward', plugin: 'before' }, { order: 'forward', plugin: 'after' }] as const) {
    const other = await itemsBuild(t, variant)
    t.strictSame(await hashes(other), expected, `routes ${variant.order}, a plugin ${variant.plugin} them: the same bytes`)
    t.equal(other.versioner.fingerprint, reference.versioner.fingerprint, 'and the same fingerprint')
  }
  const document = reference.versioner.openapi('2002-01-01') as { paths: Record<string, Record<string, { operationId: string }>> }
  t.strictSame(Object.keys(document.paths), ['/items', '/items-list', '/items/list', '/items/{id}', '/items/{id}/notes'], 'paths in sorted order')
  t.strictSame([document.paths['/items-list'].get.operationId, document.paths['/items/list'].get.operationId], ['getItemsList', 'getItemsList2'],
    'a clash of generated ids is numbered in the order of the paths, not of registration')
})

test('every document and page has a strong ETag of its bytes; If-None-Match answers 304 without a body', async (t) => {
  const app = await itemsBuild(t)
  for (const url of URLS) {
    const headers = { 'x-beta': 'yes' }
    const response = await app.inject({ url, headers })
    const etag = `"${sha256(response.rawPayload, 'base64url')}"`
    t.equal(response.headers.etag, etag, `${url}: the SHA-256 of its bytes`)
    const privately = url.includes('channel=preview')
    t.equal(response.headers['cache-control'], privately ? 'private, no-cache' : 'public, no-cache', `${url}: ${privately ? 'private: it depended on access' : 'public'}`)
    for (const match of [etag, `W/${etag}`, `"other", ${etag}`, `"other",W/${etag} , "more"`, '*']) {
      const revalidated = await app.inject({ url, headers: { ...headers, 'if-none-match': match } })
      t.equal(revalidated.statusCode, 304, `${url}, If-None-Match: ${match}: 304`)
      t.equal(revalidated.body, '', 'no body')
      t.equal(revalidated.headers.etag, etag, 'the ETag')
      t.equal(revalidated.headers['cache-control'], response.headers['cache-control'], 'the Cache-Control')
    }
    for (const match of ['"other"', etag.slice(0, -2) + '"', 'W/"other", "more"', etag.slice(1, -1), '', 'garbage, *']) {
      t.equal((await app.inject({ url, headers: { ...headers, 'if-none-match': match } })).statusCode, 200, `${url}, If-None-Match: ${match}: 200`)
    }
  }
  const head = await app.inject({ method: 'HEAD', url: '/openapi.json', headers: { 'if-none-match': (await app.inject('/openapi.json')).headers.etag } })
  t.equal(head.statusCode, 304, 'HEAD too')
})

test('a document is answered with the ETag of the bytes it was built with, computed once, whatever the requests', async (t) => {
  const app = await itemsBuild(t)
  const answers: LightMyRequestResponse[] = []
  for (let count = 0; count < 3; count++) answers.push(await app.inject('/openapi.json?version=2001-01-01'), await app.inject({ url: '/openapi.json', headers: { 'x-api-version': '2001-01-01' } }))
  t.equal(new Set(answers.map((answer) => answer.headers.etag)).size, 1)
  t.equal(new Set(answers.map((answer) => answer.body)).size, 1)
  const unknown = await app.inject('/openapi.json?version=1999-01-01')
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.headers.etag, undefined, 'a 404 has no ETag')
  t.equal(unknown.headers['cache-control'], 'no-cache', 'and is not kept by caches (the version may be released later)')
  t.equal((await app.inject('/docs?version=1999-01-01')).headers['cache-control'], 'no-cache', 'nor is a 404 page')
})

test('the fingerprint changes with a released contract, not with the order of registration, a preview or the servers', async (t) => {
  const reference = await itemsBuild(t)
  await t.rejects(async () => reference.versioner.fingerprint, { code: 'FST_VERSIONER_NOT_READY' }, 'before ready: FST_VERSIONER_NOT_READY')
  t.equal((await rejection(() => reference.versioner.fingerprint))?.code, 'FST_VERSIONER_NOT_READY')
  await reference.ready()
  const fingerprint = reference.versioner.fingerprint
  t.match(fingerprint, /^[0-9a-f]{64}$/)
  const of = async (variant: Variant): Promise<string | undefined> => {
    const app = await itemsBuild(t, variant)
    await app.ready()
    return app.versioner.fingerprint
  }
  t.equal(await of({ order: 'backward', plugin: 'after' }), fingerprint, 'a pure reorder: the same')
  t.equal(await of({ beta: 'integer' }), fingerprint, 'a change of the preview version: the same')
  const integerBeta = await itemsBuild(t, { beta: 'integer' })
  await integerBeta.ready()
  t.notSame(integerBeta.versioner.openapi(PREVIEW), reference.versioner.openapi(PREVIEW), '(whose document did change)')
  t.equal(await of({ versioner: { openapi: { servers: [{ url: 'https://staging.example.com' }] } } }), fingerprint, 'other servers: the same')
  t.not(await of({ itemColour: true }), fingerprint, 'a field added to a released contract: another fingerprint')
  t.not(await of({ releasedAt: '2026-01-01' }), fingerprint, 'a release instant: another fingerprint')
  t.equal(await of({ versioner: { openapiUrl: null } }), undefined, 'no documents: no fingerprint')
})

test('regression: changing what app.versioner.openapi() and changelog() return changes nothing served, nor the fingerprint (GET /changelog: changelog.test.ts)', async (t) => {
  const untouched = await itemsBuild(t)
  await untouched.ready()
  const app = await itemsBuild(t)
  await app.ready()
  for (const version of ['2002-01-01', '2001-01-01', 'unversioned', PREVIEW]) {
    const document = app.versioner.openapi(version) as { info: Record<string, unknown>, paths: Record<string, unknown> }
    document.info.title = 'Edited by a caller'
    for (const path of Object.keys(document.paths)) delete document.paths[path]
  }
  const changelog = app.versioner.changelog()
  for (const version of changelog.versions) version.changes.splice(0)
  t.same(await hashes(app), await hashes(untouched), 'every document and page is served as built')
  t.equal(app.versioner.fingerprint, untouched.versioner.fingerprint)
  t.same(app.versioner.openapi('2001-01-01'), untouched.versioner.openapi('2001-01-01'), 'a caller reads the document as built again')
  t.same(app.versioner.changelog(), untouched.versioner.changelog())
})

test('regression: the files a docs page loads are revalidated as the page is (a page of the new build ran the old build\'s scripts for an hour)', async (t) => {
  const app = await itemsBuild(t)
  const assets = ['docs.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-ui.css', 'swagger-initializer.js',
    'favicon-32x32.png', 'oauth2-redirect.html', 'redoc.standalone.js', 'redoc-search-worker.js']
  for (const url of assets.map((name) => `/docs/assets/${name}`)) {
    const response = await app.inject(url)
    t.equal(response.statusCode, 200, url)
    const etag = `"${sha256(response.rawPayload, 'base64url')}"`
    t.equal(response.headers.etag, etag, `${url}: the SHA-256 of its bytes, the same on every instance of a build`)
    t.equal(response.headers['cache-control'], 'public, no-cache', `${url}: kept by caches, revalidated at each use`)
    const revalidated = await app.inject({ url, headers: { 'if-none-match': etag } })
    t.equal(revalidated.statusCode, 304, `${url}: If-None-Match of its ETag: 304`)
    t.equal(revalidated.body, '', 'no body')
    t.equal(revalidated.headers['cache-control'], 'public, no-cache')
    t.equal((await app.inject({ url, headers: { 'if-none-match': '"other"' } })).statusCode, 200, `${url}: another ETag: 200`)
  }
})
