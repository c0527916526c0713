/**
 * What generated clients read from a version's document besides schemas: an `operationId` on every
 * operation (generated from the HEAD route's method and path when the route sets none, the same in every
 * version, unique; user-set ones kept, `endpoint(...).had({ operationId })` too), and the plugin's own 400
 * and 404 as shared component responses whose schema the real answers match.
 */
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { endpoint, HeadVersion, Version, VersionBundle, VersionChange, type FastifyVersionerOptions } from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { assertDocumentsValid, bodyChecker, documentOf, operationsOf, responseSchemaOf } from '../helpers/openapi-documents'

const Item = Type.Object({ id: Type.String(), name: Type.String({ minLength: 1 }) }, { $id: 'Item' })
const VERSIONS = ['2002-01-01', '2001-01-01', '2000-01-01']

/** A fresh bundle (a version change class belongs to one bundle). */
function bundle (): VersionBundle {
  class RenameItemsPath extends VersionChange {
    description = 'Items were things; the item list had its own name.'
    instructionsToMigrateToPreviousVersion = [
      endpoint('/items/:itemId', ['GET']).had({ path: '/things/:itemId' }),
      endpoint('/items', ['GET']).had({ operationId: 'listThings' })
    ]
  }
  class AddExport extends VersionChange {
    description = 'Items can be exported.'
    instructionsToMigrateToPreviousVersion = [endpoint('/items/export', ['GET']).didntExist]
  }
  return new VersionBundle(new HeadVersion(), new Version('2002-01-01', AddExport), new Version('2001-01-01', RenameItemsPath), new Version('2000-01-01'))
}

async function itemsApp (t: Teardown, options: Partial<FastifyVersionerOptions> = {}): Promise<FastifyInstance> {
  const app = await versionedApp(t, bundle(), async (api) => {
    api.get('/items', { schema: { response: { 200: Type.Array(Item) } } }, async () => [])
    api.post('/items', { schema: { body: Item, response: { 201: Item } } }, async (request, reply) => reply.code(201).send(request.body))
    api.get('/items/:itemId', { schema: { params: Type.Object({ itemId: Type.String() }), response: { 200: Item } } }, async (request) =>
      ({ id: request.params.itemId, name: 'one' }))
    api.get('/items/export', { schema: { response: { 200: Type.Array(Item) } } }, async () => [])
    // Its own id is the one the GET /items route would be given: that one gets a number.
    api.get('/catalogue', { schema: { operationId: 'getItems', response: { 200: Type.Array(Item) } } }, async () => [])
    api.route({ method: ['PUT', 'PATCH'], url: '/items/:itemId', schema: { params: Type.Object({ itemId: Type.String() }), body: Item, response: { 200: Item } }, handler: async (request) => request.body })
    api.get('/files/*', async () => 'file')
    api.get('/', { schema: { response: { 400: Type.Object({ problem: Type.String() }) } } }, async () => undefined)
    api.get('/ranges/:from-:to', async () => 'range')
  }, { versioner: options })
  await app.ready()
  return app
}

/** `METHOD path` → operationId, for a version's document. */
function idsOf (app: FastifyInstance, version: string): Record<string, string> {
  return Object.fromEntries(operationsOf(documentOf(app, version)).map((operation) => [`${operation.method} ${operation.path}`, operation.operation.operationId]))
}

test('operations without an operationId get one from the HEAD method and path: camelCase, unique, the same in every version', async (t) => {
  const app = await itemsApp(t)
  const latest = idsOf(app, '2002-01-01')
  t.same(latest, {
    'GET /items': 'getItems2',
    'POST /items': 'postItems',
    'GET /items/{itemId}': 'getItemsByItemId',
    'GET /items/export': 'getItemsExport',
    'GET /catalogue': 'getItems',
    'PUT /items/{itemId}': 'putItemsByItemId',
    'PATCH /items/{itemId}': 'patchItemsByItemId',
    'GET /files/{*}': 'getFilesWildcard',
    'GET /': 'getRoot',
    'GET /ranges/{from}-{to}': 'getRangesByFromByTo'
  }, 'a user-set id is kept, and the generated one it would clash with gets a number')
  const old = idsOf(app, '2000-01-01')
  t.equal(old['GET /things/{itemId}'], 'getItemsByItemId', 'a route renamed in an older version keeps its HEAD id there')
  t.equal(old['GET /items'], 'listThings', 'endpoint(...).had({ operationId }) is kept')
  t.notOk('GET /items/export' in old, 'a route absent from a version has no operation there')
  for (const version of VERSIONS) {
    const ids = Object.values(idsOf(app, version))
    t.equal(ids.length, version === '2002-01-01' ? 10 : 9, `${version}: every operation (GET /items/export from 2002-01-01 on)`)
    t.equal(new Set(ids).size, ids.length, `${version}: ids are unique in the document`)
    t.ok(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]*$/.test(id)), `${version}: every operation has a camelCase id`)
    for (const [operation, id] of Object.entries(idsOf(app, version))) {
      if (operation !== 'GET /items' || version === '2002-01-01') t.equal(id, latest[operation] ?? latest['GET /items/{itemId}'], `${version} ${operation}: ${id}`)
    }
  }
  const again = await itemsApp(t)
  t.same(idsOf(again, '2001-01-01'), idsOf(app, '2001-01-01'), 'another application gives the same ids')
  await assertDocumentsValid(t, app)
})

test('regression: a version giving a one-method route more methods names each of its operations once', async (t) => {
  // Before: 2000-01-01 named both `POST /e` and `PUT /e` putE (both `POST /f` and `PUT /f` putF): a document whose
  // operationIds are not unique, which clients generated from it name twice.
  class UpdatesWerePostsToo extends VersionChange {
    description = 'PUT /e, PUT /f and DELETE /g took POST too.'
    instructionsToMigrateToPreviousVersion = [endpoint('/e', ['PUT']).had({ methods: ['POST', 'PUT'] }), endpoint('/f', ['PUT']).had({ methods: ['POST', 'PUT'] }),
      endpoint('/g', ['DELETE']).had({ methods: ['DELETE', 'POST'] })]
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', UpdatesWerePostsToo), new Version('2000-01-01')), async (api) => {
    api.put('/e', async () => ({}))
    api.put('/f', { schema: { operationId: 'replaceF' } }, async () => ({}))
    api.delete('/g', { schema: { operationId: 'removeG' } }, async () => ({}))
  })
  await app.ready()
  const ids = (version: string) => operationsOf(documentOf(app, version)).map(({ method, path, operation }) => `${method} ${path} ${String(operation.operationId)}`)
  t.same(ids('2001-01-01'), ['PUT /e putE', 'PUT /f replaceF', 'DELETE /g removeG'])
  t.same(ids('2000-01-01'), ['POST /e postE', 'PUT /e putE', 'POST /f postF', 'PUT /f replaceF', 'DELETE /g removeG', 'POST /g postG'], 'the HEAD method keeps the route\'s id; the other is named by its own')
})

test("the plugin's 400 and 404 are shared responses on every versioned operation, and its answers match them", async (t) => {
  const app = await itemsApp(t)
  for (const version of VERSIONS) {
    const document = documentOf(app, version)
    t.ok(document.components.responses.FastifyVersionerBadRequest, `${version}: the shared 400`)
    t.ok(document.components.responses.FastifyVersionerNotFound, `${version}: the shared 404`)
    const operations = operationsOf(document)
    t.equal(operations.length, version === '2002-01-01' ? 10 : 9, `${version}: every operation (GET /items/export from 2002-01-01 on)`)
    for (const { method, path } of operations) {
      // As written in the document (operationsOf resolves the references).
      const responses = document.paths[path][method.toLowerCase()].responses
      const where = `${version} ${method} ${path}`
      if (path === '/') {
        t.same(responses['400'].content['application/json'].schema.required, ['problem'], `${where}: its own 400 is kept`)
      } else {
        t.same(responses['400'], { $ref: '#/components/responses/FastifyVersionerBadRequest' }, `${where}: 400`)
      }
      t.same(responses['404'], { $ref: '#/components/responses/FastifyVersionerNotFound' }, `${where}: 404`)
    }
  }
  const unversioned = documentOf(app, 'unversioned')
  t.notOk(unversioned.components?.responses, 'the unversioned document has no versioned operation')

  // The real answers, checked against the documented schema (no undocumented property either).
  const document = documentOf(app, '2002-01-01')
  const check = bodyChecker(document, { closed: true })
  const operation = (method: string, path: string) => operationsOf(document).find((found) => found.method === method && found.path === path)
  for (const [label, request, status, path] of [
    ['missing version', { method: 'GET', url: '/items' }, 400, '/items'],
    ['unknown version', { method: 'GET', url: '/items', headers: { 'x-api-version': '1999-01-01' } }, 400, '/items'],
    ['malformed version', { method: 'GET', url: '/items', headers: { 'x-api-version': 'yesterday' } }, 400, '/items'],
    ['invalid body', { method: 'POST', url: '/items', headers: { 'x-api-version': '2002-01-01' }, payload: { id: '1' } }, 400, '/items'],
    ['route absent in the version', { method: 'GET', url: '/items/export', headers: { 'x-api-version': '2001-01-01' } }, 404, '/items/export']
  ] as const) {
    const response = await app.inject(request)
    t.equal(response.statusCode, status, `${label}: ${status}`)
    const documented = operation(request.method, path)
    if (documented === undefined) throw new Error(`no ${request.method} ${path} in the document`)
    const schema = responseSchemaOf(documented, status)
    t.ok(schema, `${label}: documented`)
    t.equal(check(schema ?? {}, response.json()), undefined, `${label}: the body matches the documented schema`, { body: response.json() })
  }
})

test('with path versions the shared 400 names the path segment; the version is a required path parameter', async (t) => {
  const app = await itemsApp(t, { apiVersionLocation: 'path' })
  const document = documentOf(app, '2001-01-01')
  t.match(document.components.responses.FastifyVersionerBadRequest.description, /path segment/)
  // Paths are in sorted order (issue 35): the items route is found by its path, not by its place.
  const first = operationsOf(document).find((found) => found.path === '/{x_api_version}/items' && found.method === 'GET')
  const parameter = first?.operation.parameters.find((found: { in: string, name: string }) => found.in === 'path' && found.name === 'x_api_version')
  t.equal(parameter?.required, true)
  t.equal(first?.operation.operationId, 'getItems2', 'the version segment is not part of the id')
  await assertDocumentsValid(t, app)
})
