/**
 * Fixes in the documents, the changelog and the route table: route-level OpenAPI fields (`security`,
 * `externalDocs`, `servers`, `x-*`) kept in every version's document; the changelog reading the route an
 * `endpoint(path, methods, { operationId })` instruction names; `app.versioner.routes` giving a route's
 * schema as the document does (the version's attributes and success status); `deprecated` written where
 * `@fastify/swagger` writes it in a deprecated version; `/openapi.json` and the pages served the same on
 * every request.
 */
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { endpoint, HeadVersion, Version, VersionBundle } from '../plugin'
import { appOf, changeClass, documentOf, fetchChangelog, operationsOf, validationError, type Json } from './helpers/changelog-lifecycle'

const Ok = Type.Object({ ok: Type.Boolean() })
const Problem = Type.Object({ message: Type.String() })
const Thing = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'Thing' })
const ThingCreate = Type.Object({ name: Type.String() })

test("route-level OpenAPI fields of the HEAD schema are in every version's document; the user's schema is not changed", async (t) => {
  const versions = new VersionBundle(
    new HeadVersion(),
    new Version('2001-01-01', changeClass('OldPublicSummary', [endpoint('/public', ['GET']).had({ summary: 'Old public', tags: ['legacy'] })])),
    new Version('2000-01-01')
  )
  const publicSchema = {
    summary: 'Public',
    tags: ['open'],
    security: [],
    externalDocs: { url: 'https://example.com/public' },
    servers: [{ url: 'https://public.example.com' }],
    'x-rate-limit': 10,
    response: { 200: Ok }
  }
  const before = JSON.stringify(publicSchema)
  const routes: FastifyPluginAsyncTypebox = async (api) => {
    api.get('/public', { schema: publicSchema }, async () => ({ ok: true }))
    api.get('/private', { schema: { summary: 'Private', response: { 200: Ok } } }, async () => ({ ok: true }))
  }
  const app = await appOf(t, versions, routes, {
    versioner: {
      openapi: {
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
        security: [{ bearer: [] }]
      }
    }
  })
  await app.ready()
  for (const version of ['2001-01-01', '2000-01-01']) {
    const document = documentOf(app, version)
    t.equal(await validationError(document), undefined, `${version}: a valid document`)
    const operation = document.paths['/public'].get as Json
    t.same(operation.security, [], `${version}: the route needs no security, although the document's default does`)
    t.same(operation.externalDocs, { url: 'https://example.com/public' }, `${version}: externalDocs kept`)
    t.same(operation.servers, [{ url: 'https://public.example.com' }], `${version}: servers kept`)
    t.equal(operation['x-rate-limit'], 10, `${version}: x-* fields kept`)
    t.equal((document.paths['/private'].get as Json).security, undefined, `${version}: a route without its own security has the default`)
  }
  const old = documentOf(app, '2000-01-01').paths['/public'].get as Json
  t.equal(old.summary, 'Old public', "the version's attributes win over HEAD's")
  t.same(old.tags, ['legacy'], "the version's tags")
  t.equal((documentOf(app, '2001-01-01').paths['/public'].get as Json).summary, 'Public', "HEAD's summary in the latest version")
  t.equal(JSON.stringify(publicSchema), before, "the user's route schema is unchanged")
  t.equal(publicSchema.response[200], Ok, 'and holds the same response schema')
})

test('the changelog shows the route an endpoint instruction names by operationId, among routes sharing its path and methods', async (t) => {
  const versions = new VersionBundle(
    new HeadVersion(),
    new Version('2001-01-01', changeClass('OldSlashSummary', [
      endpoint('/items', ['GET'], { operationId: 'listItemsSlash' }).had({ summary: 'Old slash' })
    ])),
    new Version('2000-01-01')
  )
  // '/items' and '/items/' are two routes for Fastify, one path for endpoint instructions.
  const routes: FastifyPluginAsyncTypebox = async (api) => {
    api.get('/items', { schema: { operationId: 'listItems', summary: 'Items', response: { 200: Ok } } }, async () => ({ ok: true }))
    api.get('/items/', { schema: { operationId: 'listItemsSlash', summary: 'Items (slash)', response: { 200: Ok } } }, async () => ({ ok: true }))
  }
  const app = await appOf(t, versions, routes)
  await app.ready()
  const old = documentOf(app, '2000-01-01')
  t.equal(old.paths['/items/'].get.summary, 'Old slash', 'the instruction changed the route it names')
  t.equal(old.paths['/items'].get.summary, 'Items', 'and not the other one')
  const { body } = await fetchChangelog(app)
  const [entry] = body.versions[0].changes[0].instructions
  t.same(entry, {
    type: 'endpoint.changed',
    path: '/items',
    methods: ['GET'],
    changes: [{ name: 'summary', status: 'changed', previousValue: 'Old slash', newValue: 'Items (slash)' }]
  }, "the new value is the named route's summary")
})

test("app.versioner.routes gives a route's schema as the version's document does: its attributes and success status", async (t) => {
  const versions = new VersionBundle(
    new HeadVersion(),
    new Version('2001-01-01', changeClass('CreatedWas200', [
      endpoint('/things', ['POST']).had({ statusCode: 200, summary: 'Old make', tags: ['legacy'], deprecated: true })
    ])),
    new Version('2000-01-01')
  )
  const routes: FastifyPluginAsyncTypebox = async (api) => {
    api.post('/things', {
      schema: { summary: 'Make', tags: ['things'], operationId: 'makeThing', body: ThingCreate, response: { 201: Thing, 400: Problem } }
    }, async (request, reply) => reply.code(201).send({ id: '1', name: request.body.name }))
  }
  const app = await appOf(t, versions, routes)
  await app.ready()
  const routeIn = (version: string) => {
    const found = app.versioner.routes.get(version)?.find((route) => route.path === '/things')
    if (found === undefined) throw new Error(`no /things in ${version}`)
    return found
  }
  const latest = routeIn('2001-01-01')
  t.same(Object.keys(latest.schema.response ?? {}).sort(), ['201', '400'], "latest: HEAD's statuses")
  t.equal(latest.schema.summary, 'Make', "latest: HEAD's summary")
  const old = routeIn('2000-01-01')
  t.same(Object.keys(old.schema.response ?? {}).sort(), ['200', '400'], 'the success key is the version\'s status code')
  t.equal(old.schema.summary, 'Old make', "the version's summary")
  t.same(old.schema.tags, ['legacy'], "the version's tags")
  t.equal(old.schema.deprecated, true, 'deprecated in that version')
  t.equal(old.schema.operationId, 'makeThing', "HEAD's attributes the version keeps")
  t.equal(old.schema.summary, old.attributes.summary, 'schema and attributes agree')
  for (const version of ['2001-01-01', '2000-01-01']) {
    const [[, , operation]] = operationsOf(documentOf(app, version)).filter(([path]) => path === '/things')
    t.same(Object.keys(operation.responses).sort(), [...new Set([...Object.keys(routeIn(version).schema.response ?? {}), '400', '404'])].sort(),
      `${version}: the statuses of the route table are the document's, with the plugin's own 400 and 404`)
    t.equal(operation.summary, routeIn(version).schema.summary, `${version}: so is the summary`)
  }
  const served = await app.inject({ method: 'POST', url: '/things', headers: { 'x-api-version': '2000-01-01' }, payload: { name: 'a' } })
  t.equal(served.statusCode, 200, 'the version answers with the listed status')
})

test('in a deprecated version, deprecated is where @fastify/swagger writes it (before responses; before requestBody in webhooks)', async (t) => {
  const versions = new VersionBundle(
    new HeadVersion(),
    new Version('2001-01-01'),
    new Version('2000-01-01', { deprecatedAt: '2020-01-01' })
  )
  const routes: FastifyPluginAsyncTypebox = async (api) => {
    api.post('/things', { schema: { summary: 'Make', body: ThingCreate, response: { 201: Thing } } }, async (request, reply) =>
      reply.code(201).send({ id: '1', name: request.body.name }))
  }
  const app = await appOf(t, versions, routes, {
    before: (instance) => { instance.versioner.webhooks.add({ name: 'thing.made', body: Thing, summary: 'A thing was made' }) }
  })
  await app.ready()
  const text = (await app.inject('/openapi.json?version=2000-01-01')).body
  const document = JSON.parse(text) as Json
  t.same(Object.keys(document.paths['/things'].post), ['operationId', 'summary', 'requestBody', 'parameters', 'deprecated', 'responses'], 'an operation (its generated id first)')
  t.same(Object.keys(document.webhooks['thing.made'].post), ['summary', 'deprecated', 'requestBody', 'responses'], 'a webhook')
  const latest = documentOf(app, '2001-01-01')
  t.equal(latest.paths['/things'].post.deprecated, undefined, 'a version not deprecated')
  t.equal(latest.webhooks['thing.made'].post.deprecated, undefined, 'nor its webhooks')
})

test('/openapi.json and the pages answer the same bytes on every request', async (t) => {
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01'), new Version('2000-01-01'))
  const routes: FastifyPluginAsyncTypebox = async (api) => {
    api.get('/ok', { schema: { response: { 200: Ok } } }, async () => ({ ok: true }))
  }
  const app = await appOf(t, versions, routes, { health: true })
  await app.ready()
  for (const url of ['/openapi.json?version=2000-01-01', '/openapi.json?version=unversioned', '/docs', '/docs?version=2001-01-01',
    '/redoc?version=unversioned', '/docs?version=1999-01-01', '/openapi.json?version=1999-01-01']) {
    const first = await app.inject(url)
    const second = await app.inject(url)
    t.equal(second.statusCode, first.statusCode, `${url}: same status`)
    t.equal(second.headers['content-type'], first.headers['content-type'], `${url}: same content type`)
    t.equal(second.body, first.body, `${url}: same body`)
  }
  const json = await app.inject('/openapi.json?version=2000-01-01')
  t.equal(json.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(json.body, JSON.stringify(app.versioner.openapi('2000-01-01')), 'the document as JSON')
})
