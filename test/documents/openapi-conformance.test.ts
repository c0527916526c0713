/**
 * Each version documents what its routes actually accept and return. For the users example and for a
 * richer application (nested schemas, arrays of schemas, a renamed field, a removed field, an enum member
 * removed, a renamed path, a renamed schema, a moved success status, a header parameter), every operation of
 * every document (each version, and unversioned) gets a request built from the document alone — path,
 * query and header parameters from their schemas, the version header from its `enum`, a body generated
 * from the requestBody schema — and the answer must carry a status the operation documents, with a body
 * that validates against the documented schema of that status (ajv 2020 + ajv-formats, `$ref`s resolved
 * against that version's components, no undocumented property).
 */
import { test, type Test } from 'tap'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { randomUUID } from 'node:crypto'
import { buildApp } from '../../examples/users/app'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, enumeration, fastifyVersioner, HeadVersion, schema,
  Version, VersionBundle, VersionChange, versioned, type RequestInfo, type ResponseInfo
} from '../../plugin'
import {
  assertDocumentsValid, bodyChecker, documentedStatuses, documentKeys, documentOf, isDocumentedStatus, operationsOf, parametersOf,
  requestFor, responseSchemaOf, type DocumentedOperation, type OpenApiDocument
} from '../helpers/openapi-documents'
import { versionedApp } from '../helpers/apps'
import { EXAMPLE_UUID } from '../helpers/schema-example'

/** Sends one request built from `operation` and checks the answer against the document; returns the answer. */
async function exchange (
  t: Test, app: FastifyInstance, key: string, document: OpenApiDocument, operation: DocumentedOperation,
  options: { uuids?: Record<string, string>, includeOptional?: boolean, expectSuccess: boolean, label: string }
): Promise<LightMyRequestResponse> {
  const where = `${key} ${operation.method} ${operation.path} (${options.label})`
  const request = requestFor(document, operation, options)
  const response = await app.inject(request)
  const status = response.statusCode
  t.ok(isDocumentedStatus(operation, status), `${where}: ${status} is a documented status (${documentedStatuses(operation).join(', ')})`,
    { request, body: response.body })
  if (options.expectSuccess) t.ok(status >= 200 && status < 300, `${where}: a request built from the document succeeds (${status})`, { request, body: response.body })
  if (key !== 'unversioned') t.equal(response.headers['x-api-version'], key, `${where}: served as ${key}`)
  const responseSchema = responseSchemaOf(operation, status)
  if (responseSchema !== undefined) {
    let body: unknown
    try {
      body = JSON.parse(response.body)
    } catch {
      t.fail(`${where}: the body is JSON`, { body: response.body })
      return response
    }
    t.equal(bodyChecker(document, { closed: true })(responseSchema, body), undefined, `${where}: the body matches the documented ${status} schema`, { body })
  }
  return response
}

/**
 * The conformance walk: for each document, creations first (POST), then the rest; `id`s of created
 * records fill the uuid path parameters of later requests of the same version; GETs with path parameters
 * are also sent for a record that does not exist (which must answer a documented status too).
 */
async function checkConformance (t: Test, app: FastifyInstance): Promise<void> {
  const keys = documentKeys(app)
  t.ok(keys.length > 1, 'the application has documents')
  for (const key of keys) {
    const document = documentOf(app, key)
    const operations = operationsOf(document).sort((a, b) => Number(b.method === 'POST') - Number(a.method === 'POST'))
    t.ok(operations.length > 0, `${key}: the document has operations`)
    const pathParameters = new Set(operations.flatMap((operation) => parametersOf(document, operation).filter((p) => p.in === 'path').map((p) => p.name as string)))
    const uuids: Record<string, string> = {}
    for (const operation of operations) {
      for (const includeOptional of [false, true]) {
        const label = includeOptional ? 'with optional values' : 'required values only'
        const response = await exchange(t, app, key, document, operation, { uuids, includeOptional, expectSuccess: true, label })
        const created = operation.method === 'POST' && response.statusCode < 300 ? response.json() as { id?: unknown } : undefined
        if (typeof created?.id === 'string') for (const name of pathParameters) uuids[name] = created.id
      }
      if (operation.method === 'GET' && parametersOf(document, operation).some((p) => p.in === 'path')) {
        const missing = Object.fromEntries([...pathParameters].map((name) => [name, randomUUID()]))
        const response = await exchange(t, app, key, document, operation, { uuids: missing, expectSuccess: false, label: 'unknown record' })
        t.not(response.statusCode, 500, `${key} ${operation.method} ${operation.path}: an unknown record is no server error`)
      }
    }
  }
}

test('the users example: each version documents what its routes accept and return', async (t) => {
  const app = await buildApp()
  t.teardown(() => app.close())
  await app.ready()
  await assertDocumentsValid(t, app)
  await checkConformance(t, app)
})

// A richer application: HEAD schemas.
const Status = Type.Union([Type.Literal('active'), Type.Literal('archived'), Type.Literal('pending')], { $id: 'Status' })
const Tag = Type.Object({ label: Type.String({ minLength: 1 }), color: Type.Optional(Type.String({ minLength: 3, maxLength: 7 })) }, { $id: 'Tag' })
const Address = Type.Object({ street: Type.String({ minLength: 1 }), city: Type.String({ minLength: 1 }), zip: Type.Optional(Type.String({ minLength: 5, maxLength: 5 })) }, { $id: 'Address' })
const Item = Type.Object({
  id: Type.String({ format: 'uuid' }),
  title: Type.String(),
  status: Status,
  tags: Type.Array(Tag),
  address: Address,
  contact: Type.String({ format: 'email' }),
  createdAt: Type.String({ format: 'date-time' }),
  due: Type.Optional(Type.String({ format: 'date' }))
}, { $id: 'Item' })
const ItemCreate = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 40 }),
  status: Status,
  tags: Type.Array(Tag, { minItems: 1, maxItems: 3 }),
  address: Address,
  contact: Type.String({ format: 'email' }),
  priority: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 3 })),
  due: Type.Optional(Type.String({ format: 'date' }))
}, { $id: 'ItemCreate' })
const ItemPage = Type.Object({ data: Type.Array(Item), total: Type.Integer({ minimum: 0 }) }, { $id: 'ItemPage' })
const ItemParams = Type.Object({ itemId: Type.String({ format: 'uuid' }) })
const ItemQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })), status: Type.Optional(Status) })
const TenantHeaders = Type.Object({ 'x-tenant': Type.String({ minLength: 3 }) })
const Missing = Type.Object({ message: Type.String() }, { $id: 'Missing' })

type StoredItem = Static<typeof Item>

/** The richer application, with fresh version change classes. */
async function richApp (t: Test): Promise<FastifyInstance> {
  // HEAD → 2003-01-01: nothing (HEAD is the latest).
  // 2003-01-01 → 2002-01-01: `title` was `name`.
  class TitleWasName extends VersionChange {
    description = 'name is now title.'
    instructionsToMigrateToPreviousVersion = [
      schema(Item).field('title').had({ name: 'name' }),
      schema(ItemCreate).field('title').had({ name: 'name' })
    ]

    @ConvertRequestToNextVersionFor(ItemCreate)
    nameToTitle (request: RequestInfo) {
      request.body.title = request.body.name
      delete request.body.name
    }

    @ConvertResponseToPreviousVersionFor(Item)
    titleToName (response: ResponseInfo) {
      response.body.name = response.body.title
      delete response.body.title
    }
  }
  // 2002-01-01 → 2001-01-01: no createdAt, no `pending` status, items lived at /things/:itemId, Tag was Label,
  // creating answered 200.
  class OlderShapes extends VersionChange {
    description = 'Items gained createdAt and the pending status, moved from /things, Label became Tag; creation answers 201.'
    instructionsToMigrateToPreviousVersion = [
      schema(Item).field('createdAt').didntExist,
      enumeration(Status).didntHave('pending'),
      endpoint('/items/:itemId', ['GET']).had({ path: '/things/:itemId' }),
      endpoint('/items', ['POST']).had({ statusCode: 200 }),
      schema(Tag).had({ name: 'Label' })
    ]

    @ConvertResponseToPreviousVersionFor(Item)
    pendingWasActive (response: ResponseInfo) {
      if (response.body.status === 'pending') response.body.status = 'active'
    }
  }
  // 2001-01-01 → 2000-01-01: items had no address (a placeholder is stored).
  class NoAddressYet extends VersionChange {
    description = 'Items have an address.'
    instructionsToMigrateToPreviousVersion = [
      schema(Item).field('address').didntExist,
      schema(ItemCreate).field('address').didntExist
    ]

    @ConvertRequestToNextVersionFor(ItemCreate)
    placeholderAddress (request: RequestInfo) {
      request.body.address = { street: 'unknown', city: 'unknown' }
    }
  }

  // HEAD data, including what older versions lack (a pending item, createdAt).
  const items = new Map<string, StoredItem>()
  const seeded: StoredItem = {
    id: randomUUID(),
    title: 'Seed',
    status: 'pending',
    tags: [{ label: 'seed', color: '#abc' }],
    address: { street: '1 Main St', city: 'Town' },
    contact: 'seed@example.com',
    createdAt: '2020-01-01T00:00:00.000Z'
  }
  items.set(seeded.id, seeded)
  const versions = new VersionBundle(
    new HeadVersion(),
    new Version('2003-01-01', TitleWasName),
    new Version('2002-01-01', OlderShapes),
    new Version('2001-01-01', NoAddressYet),
    new Version('2000-01-01')
  )
  // Handlers answer copies: converters work on the answered object (see the last test of this file).
  const app = await versionedApp(t, versions, async (api) => {
    api.post('/items', { schema: { tags: ['items'], body: ItemCreate, response: { 201: Item } } }, async (request, reply) => {
      const { priority: _priority, ...body } = request.body
      const item: StoredItem = { id: randomUUID(), ...body, createdAt: new Date().toISOString() }
      items.set(item.id, item)
      return reply.code(201).send(structuredClone(item))
    })
    api.get('/items', { schema: { tags: ['items'], querystring: ItemQuery, headers: TenantHeaders, response: { 200: ItemPage } } }, async (request) => {
      const all = [...items.values()].filter((item) => request.query.status === undefined || item.status === request.query.status)
      return { data: structuredClone(all.slice(0, request.query.limit)), total: all.length }
    })
    api.get('/items/:itemId', { schema: { tags: ['items'], params: ItemParams, response: { 200: Item, 404: Missing } } }, async (request, reply) => {
      const item = items.get(request.params.itemId)
      return item === undefined ? reply.code(404).send({ message: 'No such item' }) : structuredClone(item)
    })
  }, { versioner: { openapi: { info: { title: 'Items' }, tags: [{ name: 'items' }] } } })
  app.get('/ping', { schema: { response: { 200: Type.Object({ pong: Type.Literal(true) }) } } }, async () => ({ pong: true }))
  await app.ready()
  return app
}

test('a richer application: each version documents what its routes accept and return', async (t) => {
  const app = await richApp(t)
  await assertDocumentsValid(t, app)
  // The documents differ as the version changes say (so that the walk below checks each shape).
  const documents = Object.fromEntries(documentKeys(app).map((key) => [key, documentOf(app, key)]))
  t.same(Object.keys(documents['2003-01-01'].components.schemas.Item.properties), ['id', 'title', 'status', 'tags', 'address', 'contact', 'createdAt', 'due'])
  t.same(Object.keys(documents['2002-01-01'].components.schemas.Item.properties), ['id', 'name', 'status', 'tags', 'address', 'contact', 'createdAt', 'due'])
  t.same(Object.keys(documents['2000-01-01'].components.schemas.Item.properties), ['id', 'name', 'status', 'tags', 'contact', 'due'])
  t.ok('Label' in documents['2001-01-01'].components.schemas && !('Tag' in documents['2001-01-01'].components.schemas), '2001-01-01: Label')
  t.ok('/things/{itemId}' in documents['2001-01-01'].paths, '2001-01-01: /things/{itemId}')
  t.same(Object.keys(documents['2001-01-01'].paths['/items'].post.responses), ['200', '400', '404'])
  t.same(documents['2001-01-01'].components.schemas.Status.anyOf.map((member: { enum: string[] }) => member.enum[0]), ['active', 'archived'])
  t.same(documents['2002-01-01'].paths['/items'].get.parameters.find((p: { in: string, name: string }) => p.in === 'header' && p.name === 'x-tenant')?.required, true)
  await checkConformance(t, app)

  // Enum: a HEAD-only value (the seeded pending item) is answered as a member the old version documents.
  const check = bodyChecker(documents['2000-01-01'], { closed: true })
  const list = await app.inject({ url: '/items?status=pending', headers: { 'x-api-version': '2000-01-01', 'x-tenant': 'acme' } })
  t.equal(list.statusCode, 400, "2000-01-01 rejects a status it doesn't document")
  const all = await app.inject({ url: '/items?limit=100', headers: { 'x-api-version': '2000-01-01', 'x-tenant': 'acme' } })
  t.equal(all.statusCode, 200)
  t.ok(all.json().data.some((item: { name: string, status: string }) => item.name === 'Seed' && item.status === 'active'), 'pending is answered as active')
  t.equal(check(responseSchemaOf(operationsOf(documents['2000-01-01']).find((o) => o.method === 'GET' && o.path === '/items') as DocumentedOperation, 200) ?? {}, all.json()), undefined)
})

test('a request built from the document of one version is refused by another where the shapes differ', async (t) => {
  // The negative counterpart of the walk: the documents are not all alike, and the routes enforce each one.
  const app = await richApp(t)
  const post = (key: string): DocumentedOperation => operationsOf(documentOf(app, key)).find((operation) => operation.method === 'POST') as DocumentedOperation
  const from2003 = requestFor(documentOf(app, '2003-01-01'), post('2003-01-01'))
  const sentTo2002 = await app.inject({ ...from2003, headers: { ...from2003.headers, 'x-api-version': '2002-01-01' } })
  t.equal(sentTo2002.statusCode, 400, '2002-01-01 needs name, not title')
  const from2000 = requestFor(documentOf(app, '2000-01-01'), post('2000-01-01'))
  const sentTo2003 = await app.inject({ ...from2000, headers: { ...from2000.headers, 'x-api-version': '2003-01-01' } })
  t.equal(sentTo2003.statusCode, 400, '2003-01-01 needs title and address')
  t.equal((await app.inject(from2000)).statusCode, 200, 'while 2000-01-01 accepts it, with the documented 200')
})

test('the example generator makes valid values (checked with ajv against the schemas it read)', async (t) => {
  const app = await richApp(t)
  let bodies = 0
  for (const key of documentKeys(app)) {
    const document = documentOf(app, key)
    const check = bodyChecker(document)
    for (const operation of operationsOf(document)) {
      const schemaOfBody = operation.operation.requestBody?.content?.['application/json']?.schema
      if (schemaOfBody === undefined) continue
      bodies++
      for (const includeOptional of [false, true]) {
        const request = requestFor(document, operation, { includeOptional })
        t.equal(check(schemaOfBody, request.payload), undefined, `${key} ${operation.method} ${operation.path}: the generated body is valid`, { payload: request.payload })
      }
    }
  }
  t.equal(bodies, 4, 'the body of POST /items in each of the four versions was generated')
  const sample = requestFor({ paths: {}, components: { schemas: {} } }, {
    path: '/x/{id}',
    method: 'GET',
    operation: { parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'string', format: 'uuid' } }] }
  })
  t.equal(sample.url, `/x/${EXAMPLE_UUID}`)
})

test("a record answered twice in an older version still matches the document (converters must not change the handler's data)", async (t) => {
  const Doc = Type.Object({ id: Type.String(), title: Type.String() }, { $id: 'Doc' })
  class TitleWasName extends VersionChange {
    description = 'name is now title.'
    instructionsToMigrateToPreviousVersion = [schema(Doc).field('title').had({ name: 'name' })]

    @ConvertResponseToPreviousVersionFor(Doc)
    titleToName (response: ResponseInfo) {
      response.body.name = response.body.title
      delete response.body.title
    }
  }
  const stored = { id: 'd1', title: 'Tea' }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', TitleWasName), new Version('2000-01-01')) })
  // The handler answers the stored record itself, as handlers reading a cache or an in-memory store do.
  await app.register(versioned(async (api) => {
    api.get('/doc', { schema: { response: { 200: Doc } } }, async () => stored)
  }))
  await app.ready()
  const document = documentOf(app, '2000-01-01')
  const operation = operationsOf(document)[0]
  const first = await exchange(t, app, '2000-01-01', document, operation, { expectSuccess: true, label: 'first read' })
  t.same(first.json(), { id: 'd1', name: 'Tea' })
  t.same(stored, { id: 'd1', title: 'Tea' }, "the handler's object is unchanged")
  const second = await app.inject({ url: '/doc', headers: { 'x-api-version': '2000-01-01' } })
  t.equal(second.statusCode, 200, 'the second read succeeds too')
  const latest = await app.inject({ url: '/doc', headers: { 'x-api-version': '2001-01-01' } })
  t.equal(latest.statusCode, 200, 'and the latest version still reads the record')
})
