/**
 * The per-version OpenAPI documents (`GET /openapi.json?version=V`, `app.versioner.openapi(V)`): one OpenAPI
 * 3.1.0 document per version with the routes, paths, schemas, component names, version parameter, endpoint
 * attributes and tags of that version, webhooks, lifecycle, the unversioned document, the 404 answers and
 * the cache. Every document built here passes `@apidevtools/swagger-parser`'s `validate`. Each test builds
 * fresh applications and fresh version change classes (a class can be bound to one bundle only).
 */
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import fastifySwagger from '@fastify/swagger'
import { Type, type TSchema } from '@sinclair/typebox'
import Ajv2020 from 'ajv/dist/2020'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkDocuments, exportDocuments } from '../../tools'
import {
  ConvertRequestToNextVersionFor, endpoint, fastifyVersioner, HeadVersion, schema, Version, VersionBundle, VersionChange,
  versioned, type FastifyVersionerOptions, type RequestInfo, type VersionLifecycle
} from '../../plugin'
import { versionedApp } from '../helpers/apps'
import {
  assertDocumentsValid, bodyChecker, documentKeys, documentOf, operationsOf, reachableComponents, refsIn, validationError, type OpenApiDocument, type OpenApiDocument as Json
} from '../helpers/openapi-documents'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { changeClass } from '../helpers/version-changes'

type Teardown = { teardown: (fn: () => unknown) => void }

const VERSIONS = ['2002-01-01', '2001-01-01', '2000-01-01']

// HEAD schemas of a small shop. Version changes are made per application (see shopChanges).
const Owner = Type.Object({ name: Type.String({ minLength: 1 }) }, { $id: 'Owner' })
const Product = Type.Object({
  id: Type.String({ format: 'uuid' }),
  title: Type.String(),
  price: Type.Integer({ minimum: 0 }),
  owner: Owner,
  internalNote: Type.Optional(Type.String())
}, { $id: 'Product' })
const ProductCreate = Type.Object({ title: Type.String({ minLength: 1 }), price: Type.Integer({ minimum: 0 }) }, { $id: 'ProductCreate' })
const Review = Type.Object({ stars: Type.Integer({ minimum: 1, maximum: 5 }) }, { $id: 'Review' })
const NotFound = Type.Object({ message: Type.String() }, { $id: 'NotFound' })
const ProductParams = Type.Object({ productId: Type.String({ format: 'uuid' }) })
const Receipt = Type.Object({ total: Type.Integer() })

const PRODUCT_ID = '7d3c0c8e-2f5b-4a51-9c0e-1b2a3c4d5e6f'

/** The shop's bundle, with fresh classes: see the instructions for what each version looks like. */
function shopBundle (lifecycle: Record<string, VersionLifecycle> = {}): VersionBundle {
  // HEAD → 2002-01-01: the internal note is not public.
  const HideInternal = changeClass('HideInternal', [schema(Product).field('internalNote').didntExist])
  // 2002-01-01 → 2001-01-01: reviews are new; Product was called Article and had no owner; creating answered 200.
  const ReviewsAndOwners = changeClass('ReviewsAndOwners', [
    endpoint('/products/:productId/reviews', ['GET']).didntExist,
    schema(Product).had({ name: 'Article' }),
    schema(Product).field('owner').didntExist,
    endpoint('/products', ['POST']).had({
      statusCode: 200,
      summary: 'Make a product',
      description: 'The old way.',
      tags: ['legacy'],
      deprecated: true,
      operationId: 'makeProduct'
    })
  ])
  // 2001-01-01 → 2000-01-01: products lived at /articles/:productId, `title` was `label`, checkout was hidden.
  class RenamedPaths extends VersionChange {
    description = 'Products moved from /articles, label became title, checkout is documented.'
    instructionsToMigrateToPreviousVersion = [
      endpoint('/products/:productId', ['GET']).had({ path: '/articles/:productId' }),
      schema(ProductCreate).field('title').had({ name: 'label' }),
      endpoint('/checkout', ['POST']).had({ hide: true })
    ]

    @ConvertRequestToNextVersionFor(ProductCreate)
    labelToTitle (request: RequestInfo) {
      request.body.title = request.body.label
      delete request.body.label
    }
  }
  return new VersionBundle(
    new HeadVersion(HideInternal),
    new Version('2002-01-01', ReviewsAndOwners, ...(lifecycle['2002-01-01'] === undefined ? [] : [lifecycle['2002-01-01']])),
    new Version('2001-01-01', RenamedPaths, ...(lifecycle['2001-01-01'] === undefined ? [] : [lifecycle['2001-01-01']])),
    new Version('2000-01-01', ...(lifecycle['2000-01-01'] === undefined ? [] : [lifecycle['2000-01-01']]))
  )
}

interface ShopOptions {
  versioner?: Partial<FastifyVersionerOptions>
  lifecycle?: Record<string, VersionLifecycle>
  /** Adds the unversioned `GET /health` (default true). */
  health?: boolean
  /** Runs before `app.ready()` (e.g. webhooks). */
  before?: (app: FastifyInstance) => void
}

/** A fresh shop application, ready. */
async function shop (t: Teardown, options: ShopOptions = {}): Promise<FastifyInstance> {
  const app = await versionedApp(t, shopBundle(options.lifecycle), async (api) => {
    api.post('/products', {
      schema: {
        summary: 'Create a product',
        tags: ['products'],
        operationId: 'createProduct',
        body: ProductCreate,
        response: { 201: Product }
      }
    }, async (request, reply) => reply.code(201).send({
      id: PRODUCT_ID, title: request.body.title, price: request.body.price, owner: { name: 'Ann' }, internalNote: 'secret'
    }))
    api.get('/products/:productId', {
      schema: { summary: 'Get a product', tags: ['products'], params: ProductParams, response: { 200: Product, 404: NotFound } }
    }, async (request, reply) => request.params.productId === PRODUCT_ID
      ? { id: PRODUCT_ID, title: 'Tea', price: 3, owner: { name: 'Ann' } }
      : reply.code(404).send({ message: 'No such product' }))
    api.get('/products/:productId/reviews', {
      schema: { summary: 'List reviews', tags: ['reviews'], params: ProductParams, response: { 200: Type.Array(Review) } }
    }, async () => [{ stars: 5 }])
    api.post('/checkout', { schema: { tags: ['checkout'], response: { 200: Receipt } } }, async () => ({ total: 3 }))
  }, {
    versioner: {
      openapi: {
        info: { title: 'Shop', description: 'A small shop.' },
        tags: [{ name: 'products' }, { name: 'reviews' }, { name: 'legacy' }, { name: 'checkout' }, { name: 'never-used' }]
      },
      ...options.versioner
    }
  })
  if (options.health !== false) app.get('/health', { schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async () => ({ ok: true }))
  options.before?.(app)
  await app.ready()
  return app
}

/** The parsed body of `GET /openapi.json` with these query and headers. */
async function fetchDocument (app: FastifyInstance, query: string, headers: Record<string, string> = {}): Promise<{ status: number, body: any, type: string, vary: unknown }> {
  const response = await app.inject({ method: 'GET', url: `/openapi.json${query}`, headers })
  return { status: response.statusCode, body: JSON.parse(response.body), type: String(response.headers['content-type']), vary: response.headers.vary }
}

const pathsOf = (document: OpenApiDocument): string[] => Object.keys(document.paths ?? {}).sort()
const componentsOf = (document: OpenApiDocument): string[] => Object.keys(document.components?.schemas ?? {}).sort()

test('GET /openapi.json?version=V and the version header serve the OpenAPI 3.1.0 document of V, equal to app.versioner.openapi(V)', async (t) => {
  const app = await shop(t)
  for (const version of VERSIONS) {
    const byQuery = await fetchDocument(app, `?version=${version}`)
    t.equal(byQuery.status, 200, `${version}: 200 by query`)
    t.match(byQuery.type, /^application\/json/, `${version}: JSON`)
    t.equal(byQuery.body.openapi, '3.1.0', `${version}: OpenAPI 3.1.0`)
    t.same(byQuery.body.info, { title: 'Shop', description: 'A small shop.', version }, `${version}: info.version is the version, the rest from openapi.info`)
    const byHeader = await fetchDocument(app, '', { 'x-api-version': version })
    t.equal(byHeader.status, 200, `${version}: 200 by header`)
    t.same(byHeader.body, byQuery.body, `${version}: the header gives the same document`)
    t.same(byQuery.body, documentOf(app, version), `${version}: the same as app.versioner.openapi()`)
  }
  const both = await fetchDocument(app, '?version=2000-01-01', { 'x-api-version': '2002-01-01' })
  t.equal(both.body.info.version, '2000-01-01', 'the query wins over the header')
  t.same(documentKeys(app), [...VERSIONS, 'unversioned'])
  await assertDocumentsValid(t, app)
})

test("each version documents only the routes it serves, at that version's paths, with that version's schemas", async (t) => {
  const app = await shop(t)
  const [v2002, v2001, v2000] = VERSIONS.map((version) => documentOf(app, version))

  t.same(pathsOf(v2002), ['/checkout', '/products', '/products/{productId}', '/products/{productId}/reviews'])
  t.same(pathsOf(v2001), ['/checkout', '/products', '/products/{productId}'], '2001-01-01 has no reviews')
  t.same(pathsOf(v2000), ['/articles/{productId}', '/products'], '2000-01-01: /articles/{productId}, checkout hidden')
  t.same(Object.keys(v2000.paths['/articles/{productId}']), ['get'])
  t.same(v2000.paths['/articles/{productId}'].get.parameters.find((p: any) => p.in === 'path'),
    { schema: { format: 'uuid', type: 'string' }, in: 'path', name: 'productId', required: true }, 'the path parameter keeps its schema')

  // Request bodies: `label` in 2000-01-01, `title` after.
  const body = (document: OpenApiDocument): unknown => document.paths['/products'].post.requestBody.content['application/json'].schema
  t.same(body(v2002), { $ref: '#/components/schemas/ProductCreate' })
  t.same(v2002.components.schemas.ProductCreate.required, ['title', 'price'])
  t.same(Object.keys(v2000.components.schemas.ProductCreate.properties).sort(), ['label', 'price'])
  t.same([...v2000.components.schemas.ProductCreate.required].sort(), ['label', 'price'])
  t.same(Object.keys(v2001.components.schemas.ProductCreate.properties).sort(), ['price', 'title'])

  // Responses: HEAD-only internalNote never shows; owner only in 2002-01-01.
  t.same(Object.keys(v2002.components.schemas.Product.properties).sort(), ['id', 'owner', 'price', 'title'])
  t.same(v2002.components.schemas.Product.properties.owner, { $ref: '#/components/schemas/Owner' })
  for (const document of [v2001, v2000]) {
    t.same(Object.keys(document.components.schemas.Article.properties).sort(), ['id', 'price', 'title'], `${document.info.version}: no owner`)
  }
  t.same(v2002.paths['/products/{productId}/reviews'].get.responses['200'].content['application/json'].schema,
    { type: 'array', items: { $ref: '#/components/schemas/Review' } }, 'an array of a named schema refers to its component')

  // The documents say what the routes do: the old path answers in 2000-01-01 and the new one does not.
  const old = await app.inject({ url: `/articles/${PRODUCT_ID}`, headers: { 'x-api-version': '2000-01-01' } })
  t.equal(old.statusCode, 200)
  const moved = await app.inject({ url: `/products/${PRODUCT_ID}`, headers: { 'x-api-version': '2000-01-01' } })
  t.equal(moved.statusCode, 404)
  const reviews = await app.inject({ url: `/products/${PRODUCT_ID}/reviews`, headers: { 'x-api-version': '2001-01-01' } })
  t.equal(reviews.statusCode, 404)
  await assertDocumentsValid(t, app)
})

test('named schemas are components under their name in each version; schema(S).had({ name }) renames the component', async (t) => {
  const app = await shop(t)
  const [v2002, v2001, v2000] = VERSIONS.map((version) => documentOf(app, version))
  // FastifyVersionerError: the body of the plugin's own 400 and 404 responses.
  t.same(componentsOf(v2002), ['FastifyVersionerError', 'NotFound', 'Owner', 'Product', 'ProductCreate', 'Review'])
  t.same(componentsOf(v2001), ['Article', 'FastifyVersionerError', 'NotFound', 'ProductCreate'], 'Product is Article; Owner and Review are unused, so absent')
  t.same(componentsOf(v2000), ['Article', 'FastifyVersionerError', 'NotFound', 'ProductCreate'])
  for (const document of [v2001, v2000]) {
    const version = document.info.version
    const refs = refsIn(document.paths)
    t.notOk(refs.includes('#/components/schemas/Product'), `${version}: nothing refers to Product`)
    t.ok(refs.includes('#/components/schemas/Article'), `${version}: responses refer to Article`)
    t.notOk(JSON.stringify(document).includes('__'), `${version}: no generated $id leaks into the document`)
    t.notOk(JSON.stringify(document).includes('"$id"'), `${version}: no $id in the document`)
  }
  const getProduct = v2001.paths['/products/{productId}'].get.responses
  t.same(getProduct['200'].content['application/json'].schema, { $ref: '#/components/schemas/Article' })
  t.same(getProduct['404'].content['application/json'].schema, { $ref: '#/components/schemas/NotFound' })
  await assertDocumentsValid(t, app)
})

test('unreferenced components are removed from every document', async (t) => {
  const Unused = Type.Object({ never: Type.String() }, { $id: 'Unused' })
  const app = await shop(t, {
    versioner: { openapi: { components: { schemas: { Extra: { type: 'string' } } } } as never },
    before: (instance) => { instance.addSchema(Unused) }
  })
  for (const key of documentKeys(app)) {
    const document = documentOf(app, key)
    const reachable = reachableComponents(document)
    t.same(componentsOf(document), [...reachable].sort(), `${key}: every component is referenced, and every reference has a component`)
    t.notOk('Unused' in (document.components?.schemas ?? {}), `${key}: a shared schema no route uses is not a component`)
  }
  t.notOk('Owner' in documentOf(app, '2001-01-01').components.schemas, 'Owner is only used by a field 2001-01-01 lacks')
  t.notOk('Review' in documentOf(app, '2001-01-01').components.schemas, 'Review is only used by a route 2001-01-01 lacks')
  await assertDocumentsValid(t, app)
})

test('regression: a component referenced only by a pointer into it (Address#/properties/zip) was pruned, leaving the $ref dangling', async (t) => {
  const Address = Type.Object({ street: Type.String(), zip: Type.String() }, { $id: 'Address' })
  const Label = Type.Object({ zip: Type.Ref('Address#/properties/zip') })
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', changeClass('StreetWasLine1', [schema(Address).field('street').had({ name: 'line1' })])), new Version('2000-01-01')), async (api) => {
    api.addSchema(Address)
    api.get('/label', { schema: { response: { 200: Label } } }, async () => ({ zip: '75001' }))
  })
  await app.ready()
  for (const version of ['2001-01-01', '2000-01-01']) {
    const response = await app.inject({ url: '/label', headers: { 'x-api-version': version } })
    t.same(response.json(), { zip: '75001' }, `${version}: served`)
    const document = documentOf(app, version)
    t.same(document.paths['/label'].get.responses['200'].content['application/json'].schema.properties.zip, { $ref: '#/components/schemas/Address/properties/zip' })
    t.same(document.components.schemas.Address.properties.zip, { type: 'string' }, `${version}: the component the pointer goes into is kept`)
  }
  t.same(Object.keys(documentOf(app, '2000-01-01').components.schemas.Address.properties), ['line1', 'zip'], 'in its form of 2000-01-01')
  await assertDocumentsValid(t, app)
})

test("regression: a schema of the openapi option's components named by its own shared response was pruned, leaving the $ref dangling", async (t) => {
  const openapi = {
    components: {
      schemas: { Problem: { type: 'object', properties: { title: { type: 'string' } } }, Extra: { type: 'string' } },
      responses: { Problem: { description: 'A problem', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } } }
    }
  }
  const app = await shop(t, { versioner: { openapi: openapi as never } })
  for (const key of documentKeys(app)) {
    const { schemas, responses } = documentOf(app, key).components
    t.same(schemas.Problem, openapi.components.schemas.Problem, `${key}: the schema the option's response names is kept`)
    t.same(responses.Problem, openapi.components.responses.Problem, `${key}: the option's response is kept`)
    t.notOk('Extra' in schemas, `${key}: a schema nothing names is still left out`)
  }
  await assertDocumentsValid(t, app)
})

test("regression: a route's own config.swaggerTransform made every version's document show HEAD's route (and the unversioned one its versioned routes)", async (t) => {
  const summarised = ({ schema, url }: { schema: Record<string, unknown>, url: string }): unknown => ({ schema: { ...schema, summary: 'Mine' }, url })
  for (const swaggerTransform of [false, summarised]) {
    const User = Type.Object({ fullName: Type.String() }, { $id: 'User' })
    const app = await versionedApp(t, new VersionBundle(
      new Version('2001-01-01', changeClass('NameAndOther', [schema(User).field('fullName').had({ name: 'name' }), endpoint('/other', ['GET']).didntExist])),
      new Version('2000-01-01')
    ), async (api) => {
      api.get('/users', { config: { swaggerTransform } as never, schema: { response: { 200: User } } }, async () => ({ fullName: 'Ada' }))
      api.get('/other', { config: { swaggerTransform } as never }, async () => ({}))
    }, { beforeVersioner: async (instance) => { await instance.register(fastifySwagger, { openapi: { info: { title: 'Own', version: '1.0.0' } } }) } })
    app.get('/health', { config: { swaggerTransform } as never }, async () => ({ ok: true }))
    await app.ready()
    const label = swaggerTransform === false ? 'false' : 'a function'
    const old = documentOf(app, '2000-01-01')
    t.same(Object.keys(old.paths), ['/users'], `${label}: /other and /health are not in 2000-01-01`)
    t.same(old.components.schemas.User.properties, { name: { type: 'string' } }, `${label}: 2000-01-01 shows its own User`)
    t.equal(old.paths['/users'].get.operationId, 'getUsers', `${label}: with its operationId`)
    t.same(Object.keys(documentOf(app, 'unversioned').paths), ['/changelog', '/health'], `${label}: the unversioned document lists no versioned route`)
    const summaries = [old.paths['/users'].get.summary, documentOf(app, '2001-01-01').paths['/other'].get.summary, documentOf(app, 'unversioned').paths['/health'].get.summary]
    t.same(summaries, swaggerTransform === false ? [undefined, undefined, undefined] : ['Mine', 'Mine', 'Mine'], `${label}: the route's own transform runs on each version's form`)
    const own = app.swagger() as unknown as Json
    t.same(Object.keys(own.paths).sort(), ['/health', '/other', '/users'], `${label}: the application's own document lists its routes`)
    t.equal(own.paths['/users'].get.summary, swaggerTransform === false ? undefined : 'Mine', `${label}: with the route's own transform alone`)
    await assertDocumentsValid(t, app)
  }
})

test('the version header parameter: enum [V] and default V, date format, title and description, optional (sent by a client\'s default headers)', async (t) => {
  const titled = await shop(t, { versioner: { apiVersionTitle: 'API version', apiVersionDescription: 'The version to speak (YYYY-MM-DD).' } })
  for (const version of VERSIONS) {
    const document = documentOf(titled, version)
    const operations = operationsOf(document)
    t.ok(operations.length > 0, `${version}: there are operations to check`)
    for (const operation of operations) {
      const parameters = operation.operation.parameters.filter((p: any) => p.name === 'x-api-version')
      t.equal(parameters.length, 1, `${version} ${operation.method} ${operation.path}: one version parameter`)
      const [parameter] = parameters
      t.equal(parameter.in, 'header')
      t.equal(parameter.required, false, 'optional, without apiVersionDefaultValue too: a generated client needs no version argument')
      t.same(parameter.schema.enum, [version])
      t.equal(parameter.schema.default, version)
      t.equal(parameter.schema.type, 'string')
      t.equal(parameter.schema.format, 'date')
      t.equal(parameter.schema.title, 'API version')
      t.equal(parameter.description ?? parameter.schema.description, 'The version to speak (YYYY-MM-DD).')
    }
  }
  await assertDocumentsValid(t, titled)

  const defaulted = await shop(t, { versioner: { apiVersionDefaultValue: '2002-01-01' } })
  for (const version of VERSIONS) {
    const operations = operationsOf(documentOf(defaulted, version))
    t.ok(operations.length > 0, `${version}: there are operations to check`)
    for (const operation of operations) {
      const parameter = operation.operation.parameters.find((p: any) => p.name === 'x-api-version')
      t.equal(parameter.required, false, `${version} ${operation.method} ${operation.path}: optional with a default version`)
      t.same(parameter.schema.enum, [version])
    }
    t.equal(documentOf(defaulted, version).info['x-api-version-default'], '2002-01-01', `${version}: info names the version requests naming none are served as`)
  }
  await assertDocumentsValid(t, defaulted)
  t.notOk('x-api-version-default' in documentOf(titled, '2002-01-01').info, 'without a default, none')
  const between = await shop(t, { versioner: { apiVersionDefaultValue: '2001-06-01' } })
  t.equal(documentOf(between, '2000-01-01').info['x-api-version-default'], '2001-01-01', 'a default date between versions: the version it is served as')
  t.equal((await fetchDocument(between, '')).body.info.version, '2002-01-01',
    'GET /openapi.json naming no version is the latest version\'s document, not the default\'s (decision 0029)')
  const perRequest = await shop(t, { versioner: { apiVersionDefaultValue: () => '2002-01-01' } })
  t.notOk('x-api-version-default' in documentOf(perRequest, '2002-01-01').info, 'a default function decides per request: none')

  const named = await shop(t, { versioner: { apiVersionParameterName: 'Stripe-Version' } })
  const parameter = operationsOf(documentOf(named, '2001-01-01'))[0].operation.parameters.find((p: any) => p.in === 'header')
  t.equal(parameter.name.toLowerCase(), 'stripe-version', 'apiVersionParameterName names the header (header names ignore case)')
  const byHeader = await fetchDocument(named, '', { 'stripe-version': '2001-01-01' })
  t.equal(byHeader.body.info.version, '2001-01-01', 'the document can be asked for with that header')
  await assertDocumentsValid(t, named)
})

test("regression: a route declaring the version header in another case than the option's documented it twice, once as any string", async (t) => {
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')), async (api) => {
    api.get('/users', { schema: { headers: Type.Object({ 'x-api-version': Type.String(), 'x-trace': Type.Optional(Type.String()) }) } }, async () => ({}))
  }, { versioner: { apiVersionParameterName: 'X-API-Version' } })
  await app.ready()
  for (const version of ['2001-01-01', '2000-01-01']) {
    t.equal((await app.inject({ url: '/users', headers: { 'X-API-Version': version } })).statusCode, 200, `${version}: served`)
    const parameters = documentOf(app, version).paths['/users'].get.parameters as Array<{ name: string, required: boolean, schema: Json }>
    t.same(parameters.map(({ name }) => name.toLowerCase()).sort(), ['x-api-version', 'x-trace'], `${version}: one parameter per header`)
    t.same(parameters.find(({ name }) => name.toLowerCase() === 'x-api-version')?.schema.enum, [version], `${version}: the version's own`)
  }
  await assertDocumentsValid(t, app)
})

test("apiVersionFormat 'string': the version parameter has no date format", async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const Renamed = changeClass('Renamed', [schema(Review).field('stars').had({ name: 'rating' })])
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('beta', Renamed), new Version('alpha')),
    apiVersionFormat: 'string'
  })
  await app.register(versioned(async (api) => {
    api.get('/review', { schema: { response: { 200: Review } } }, async () => ({ stars: 4 }))
  }))
  await app.ready()
  for (const version of ['beta', 'alpha']) {
    const document = documentOf(app, version)
    t.equal(document.info.version, version)
    const parameter = document.paths['/review'].get.parameters.find((p: any) => p.name === 'x-api-version')
    t.same(parameter.schema.enum, [version])
    t.notOk('format' in parameter.schema, `${version}: no date format`)
  }
  t.same(Object.keys(documentOf(app, 'alpha').components.schemas.Review.properties), ['rating'])
  await assertDocumentsValid(t, app)
})

test("apiVersionLocation 'path': the version is a path parameter of every versioned path", async (t) => {
  const app = await shop(t, { versioner: { apiVersionLocation: 'path', apiVersionTitle: 'Version', apiVersionDescription: 'In the path.' } })
  for (const version of VERSIONS) {
    const document = documentOf(app, version)
    const operations = operationsOf(document)
    t.ok(operations.length > 0)
    for (const operation of operations) {
      const where = `${version} ${operation.method} ${operation.path}`
      t.match(operation.path, /^\/\{x_api_version\}\//, `${where}: the version segment leads the path`)
      const parameter = operation.operation.parameters.find((p: any) => p.name === 'x_api_version')
      t.ok(parameter, `${where}: the version parameter is documented`)
      t.equal(parameter?.in, 'path')
      t.equal(parameter?.required, true)
      t.same(parameter?.schema.enum, [version])
      t.equal(parameter?.schema.format, 'date')
      t.equal(parameter?.schema.title, 'Version')
      t.equal(parameter?.description ?? parameter?.schema.description, 'In the path.')
      t.notOk(operation.operation.parameters.some((p: any) => p.in === 'header' && /version/.test(p.name)), `${where}: no version header`)
    }
  }
  t.same(pathsOf(documentOf(app, '2000-01-01')), ['/{x_api_version}/articles/{productId}', '/{x_api_version}/products'])
  // The documented path answers.
  const response = await app.inject({ url: `/2000-01-01/articles/${PRODUCT_ID}` })
  t.equal(response.statusCode, 200)
  const document = await fetchDocument(app, '?version=2001-01-01')
  t.equal(document.body.info.version, '2001-01-01')
  await assertDocumentsValid(t, app)
})

test("apiVersionLocation 'path': a route without a params schema keeps its URL's parameters in every version's document", async (t) => {
  // Regression: the version parameter became the route's only `params`, so `@fastify/swagger` documented none of the
  // URL's own parameters: `{id}` had no parameter (an invalid document; Swagger UI's "Try it out" could not fill it).
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    apiVersionLocation: 'path',
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', changeClass('AccountsAreUsers', [
      endpoint('/users/:id/notes/:noteId', ['GET']).had({ path: '/accounts/:id/notes/:noteId' })
    ])), new Version('2000-01-01'))
  })
  await app.register(versioned(async (api) => {
    api.get('/users/:id/notes/:noteId', async () => ({}))
    api.get('/notes/:n(^\\d+)', { schema: { params: Type.Object({ n: Type.Integer() }) } }, async () => ({}))
  }), { prefix: '/api' })
  await app.ready()
  for (const [version, path] of [['2001-01-01', '/api/{x_api_version}/users/{id}/notes/{noteId}'], ['2000-01-01', '/api/{x_api_version}/accounts/{id}/notes/{noteId}']]) {
    const document = documentOf(app, version)
    const parameters = document.paths[path].get.parameters.map((p: any) => [p.in, p.name, p.required, p.schema.type])
    t.same(parameters, [['path', 'x_api_version', true, 'string'], ['path', 'id', true, 'string'], ['path', 'noteId', true, 'string']], `${version}: every parameter of ${path}, in its order`)
    t.same(document.paths['/api/{x_api_version}/notes/{n}'].get.parameters.map((p: any) => [p.name, p.schema.type]), [['n', 'integer'], ['x_api_version', 'string']],
      `${version}: a declared params schema is documented as declared`)
  }
  await assertDocumentsValid(t, app)
})

test('regression: a params or headers schema given as a $ref to a shared schema keeps the version parameter beside its own', async (t) => {
  // The `$ref` won over the properties the version parameter was added beside: path versions documented
  // `/{x_api_version}/users/{id}` without `x_api_version`, header versions had no version header.
  for (const location of ['path', 'header'] as const) {
    const app = Fastify()
    t.teardown(() => app.close())
    app.addSchema(Type.Object({ id: Type.String({ minLength: 2 }) }, { $id: 'IdParams' }))
    app.addSchema(Type.Object({ 'x-tenant': Type.String() }, { $id: 'TenantHeaders' }))
    await app.register(fastifyVersioner, { apiVersionLocation: location, versions: new VersionBundle(new HeadVersion(), new Version('2000-01-01')) })
    await app.register(versioned(async (api) => {
      api.get('/users/:id', { schema: { params: Type.Ref('IdParams'), headers: Type.Ref('TenantHeaders') } }, async () => ({}))
    }))
    await app.ready()
    const document = documentOf(app, '2000-01-01')
    const path = location === 'path' ? '/{x_api_version}/users/{id}' : '/users/{id}'
    const parameters = document.paths[path].get.parameters.map((p: any) => `${p.in} ${p.name} ${p.required} ${JSON.stringify(p.schema)}`).sort()
    t.same(parameters, [
      'header x-tenant true {"type":"string"}',
      ...(location === 'header' ? ['header x-api-version false {"type":"string","enum":["2000-01-01"],"format":"date","default":"2000-01-01"}'] : []),
      'path id true {"minLength":2,"type":"string"}',
      ...(location === 'path' ? ['path x_api_version true {"type":"string","enum":["2000-01-01"],"format":"date"}'] : [])
    ].sort(), `${location}: the shared schema's parameters and the version's`)
    await assertDocumentsValid(t, app)
  }
})

test('endpoint attributes per version: summary, description, tags, deprecated, operationId, hide, and statusCode moves the success response', async (t) => {
  const app = await shop(t)
  const [v2002, v2001, v2000] = VERSIONS.map((version) => documentOf(app, version))
  const create2002 = v2002.paths['/products'].post
  t.equal(create2002.summary, 'Create a product')
  t.equal(create2002.operationId, 'createProduct')
  t.same(create2002.tags, ['products'])
  t.notOk('deprecated' in create2002, 'not deprecated in 2002-01-01')
  t.notOk('description' in create2002)
  t.same(Object.keys(create2002.responses), ['201', '400', '404'], "HEAD answers 201 (400 and 404: the plugin's own)")
  t.same(create2002.responses['201'].content['application/json'].schema, { $ref: '#/components/schemas/Product' })

  for (const document of [v2001, v2000]) {
    const version = document.info.version
    const create = document.paths['/products'].post
    t.equal(create.summary, 'Make a product', `${version}: summary`)
    t.equal(create.description, 'The old way.', `${version}: description`)
    t.same(create.tags, ['legacy'], `${version}: tags`)
    t.equal(create.deprecated, true, `${version}: deprecated`)
    t.equal(create.operationId, 'makeProduct', `${version}: operationId`)
    t.same(Object.keys(create.responses), ['200', '400', '404'], `${version}: the success response moved to 200`)
    t.same(create.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/Article' },
      `${version}: with the version's response schema`)
  }
  // What the routes answer agrees.
  const created2002 = await app.inject({ method: 'POST', url: '/products', headers: { 'x-api-version': '2002-01-01' }, payload: { title: 'Tea', price: 3 } })
  t.equal(created2002.statusCode, 201)
  const created2001 = await app.inject({ method: 'POST', url: '/products', headers: { 'x-api-version': '2001-01-01' }, payload: { title: 'Tea', price: 3 } })
  t.equal(created2001.statusCode, 200)
  const created2000 = await app.inject({ method: 'POST', url: '/products', headers: { 'x-api-version': '2000-01-01' }, payload: { label: 'Tea', price: 3 } })
  t.equal(created2000.statusCode, 200)
  t.same(Object.keys(JSON.parse(created2000.body)).sort(), ['id', 'price', 'title'])

  // hide: served, not documented.
  t.ok(v2001.paths['/checkout']?.post, 'checkout is documented in 2001-01-01')
  t.notOk('/checkout' in v2000.paths, 'checkout is hidden in 2000-01-01')
  const checkout = await app.inject({ method: 'POST', url: '/checkout', headers: { 'x-api-version': '2000-01-01' } })
  t.equal(checkout.statusCode, 200, 'a hidden route is still served')
  // Routes without an operationId get one from their HEAD method and path.
  const operationIds = operationsOf(v2002).map((operation) => operation.operation.operationId)
  // Paths in sorted order (issue 35): /checkout first.
  t.same(operationIds, ['postCheckout', 'createProduct', 'getProductsByProductId', 'getProductsByProductIdReviews'])
  await assertDocumentsValid(t, app)
})

test('regression: had({ statusCode }) on a route with two success statuses documents both bodies under the one status', async (t) => {
  // Before: the 2000-01-01 document's 200 was the 201 body alone ({ id, created } required), the last success key
  // written over the first: the update a 2000-01-01 client receives ({ id, updated }) broke a client built from it.
  const Updated = Type.Object({ id: Type.String(), updated: Type.Boolean() })
  const Created = Type.Object({ id: Type.String(), created: Type.Boolean() })
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(),
    new Version('2001-01-01', changeClass('CreatesAre201', [endpoint('/items/:id', ['PUT']).had({ statusCode: 200 })])), new Version('2000-01-01')), async (api) => {
    api.put('/items/:id', { schema: { params: Type.Object({ id: Type.String() }), response: { 200: Updated, 201: { description: 'Created', content: { 'application/json': { schema: Created } } } } } },
      async (request, reply) => request.params.id === 'new' ? await reply.code(201).send({ id: 'new', created: true }) : { id: request.params.id, updated: true })
  })
  await app.ready()
  const document = documentOf(app, '2000-01-01')
  const check = bodyChecker(document)
  const put = document.paths['/items/{id}'].put
  t.same(Object.keys(put.responses), ['200', '400', '404'])
  const body = put.responses['200'].content['application/json'].schema
  for (const id of ['new', 'old']) {
    const response = await app.inject({ method: 'PUT', url: `/items/${id}`, headers: { 'x-api-version': '2000-01-01' } })
    t.equal(response.statusCode, 200, `${id}: 200 in 2000-01-01`)
    t.equal(check(body, response.json()), undefined, `${id}: the documented 200 takes ${response.body}`)
  }
  t.same(Object.keys(documentOf(app, '2001-01-01').paths['/items/{id}'].put.responses), ['200', '201', '400', '404'], 'HEAD\'s statuses in 2001-01-01')
  await assertDocumentsValid(t, app)
})

test('route shapes per version: methods, routes restored with existed, two HEAD routes on one path, HEAD hide; openapi base fields kept', async (t) => {
  const Entry = Type.Object({ text: Type.String() }, { $id: 'Entry' })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', changeClass('Shapes', [
      endpoint('/legacy', ['GET']).existed,
      endpoint('/entry', ['PATCH']).had({ methods: ['PUT'] }),
      endpoint('/entries', ['GET'], { operationId: 'listEntries' }).didntExist,
      endpoint('/entries', ['GET'], { operationId: 'listEntriesLegacy' }).existed
    ])), new Version('2000-01-01')),
    openapi: {
      servers: [{ url: 'https://api.example.com' }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
      externalDocs: { url: 'https://example.com/guide' }
    },
    changelogUrl: null
  })
  await app.register(versioned(async (api) => {
    api.get('/legacy', { onlyExistsInOlderVersions: true, schema: { response: { 200: Entry } } }, async () => ({ text: 'old' }))
    api.patch('/entry', { schema: { body: Entry } }, async () => ({}))
    api.get('/internal', { schema: { hide: true } }, async () => ({}))
    api.get('/entries', { schema: { operationId: 'listEntries', response: { 200: Type.Array(Entry) } } }, async () => [{ text: 'a' }])
    api.get('/entries', {
      onlyExistsInOlderVersions: true,
      schema: { operationId: 'listEntriesLegacy', response: { 200: Type.Object({ items: Type.Array(Entry) }) } }
    }, async () => ({ items: [{ text: 'a' }] }))
  }))
  await app.ready()
  const [latest, old] = ['2001-01-01', '2000-01-01'].map((version) => documentOf(app, version))
  t.same(pathsOf(latest), ['/entries', '/entry'], 'latest: no /legacy, no hidden /internal')
  t.same(pathsOf(old), ['/entries', '/entry', '/legacy'], '2000-01-01: /legacy restored')
  t.same(Object.keys(latest.paths['/entry']), ['patch'])
  t.same(Object.keys(old.paths['/entry']), ['put'], 'PATCH was PUT in 2000-01-01')
  t.equal(latest.paths['/entries'].get.operationId, 'listEntries')
  t.same(latest.paths['/entries'].get.responses['200'].content['application/json'].schema, { type: 'array', items: { $ref: '#/components/schemas/Entry' } })
  t.equal(old.paths['/entries'].get.operationId, 'listEntriesLegacy', 'the other HEAD route documents the path in 2000-01-01')
  t.same(old.paths['/entries'].get.responses['200'].content['application/json'].schema.properties.items, { type: 'array', items: { $ref: '#/components/schemas/Entry' } })
  for (const document of [latest, old]) {
    const version = document.info.version
    t.same(document.servers, [{ url: 'https://api.example.com' }], `${version}: servers`)
    t.same(document.components.securitySchemes, { bearer: { type: 'http', scheme: 'bearer' } }, `${version}: security schemes`)
    t.same(document.security, [{ bearer: [] }], `${version}: security`)
    t.same(document.externalDocs, { url: 'https://example.com/guide' }, `${version}: externalDocs`)
  }
  const legacyList = await app.inject({ url: '/entries', headers: { 'x-api-version': '2000-01-01' } })
  t.same(legacyList.json(), { items: [{ text: 'a' }] }, 'and the routes agree')
  t.equal((await app.inject({ method: 'PUT', url: '/entry', headers: { 'x-api-version': '2000-01-01' }, payload: { text: 'x' } })).statusCode, 200)
  await assertDocumentsValid(t, app)
})

test('openapi.tags: each document lists only the tags its operations use, in the given order', async (t) => {
  const app = await shop(t)
  t.same(documentOf(app, '2002-01-01').tags, [{ name: 'products' }, { name: 'reviews' }, { name: 'checkout' }])
  t.same(documentOf(app, '2001-01-01').tags, [{ name: 'products' }, { name: 'legacy' }, { name: 'checkout' }])
  t.same(documentOf(app, '2000-01-01').tags, [{ name: 'products' }, { name: 'legacy' }], 'checkout is hidden in 2000-01-01')
  for (const key of documentKeys(app)) {
    t.notOk(JSON.stringify(documentOf(app, key).tags ?? []).includes('never-used'), `${key}: an unused tag is not listed`)
  }
  t.notOk('tags' in documentOf(app, 'unversioned'), 'no operation of the unversioned document has a tag: no tags')
  await assertDocumentsValid(t, app)
})

test('versions the API does not serve answer 404 FST_VERSIONER_OPENAPI_NOT_FOUND naming the version and the available ones', async (t) => {
  const app = await shop(t)
  for (const [query, headers, named] of [
    ['?version=1999-01-01', {}, '1999-01-01'],
    ['?version=2001-13-01', {}, '2001-13-01'],
    ['?version=head', {}, 'head'],
    ['', { 'x-api-version': 'v77' }, 'v77']
  ] as Array<[string, Record<string, string>, string]>) {
    const response = await fetchDocument(app, query, headers)
    t.equal(response.status, 404, `${query || JSON.stringify(headers)}: 404`)
    t.match(response.type, /^application\/json/)
    t.equal(response.body.code, 'FST_VERSIONER_OPENAPI_NOT_FOUND')
    t.match(response.body.message, named, 'the message names the version asked for')
    for (const key of [...VERSIONS, 'unversioned']) t.match(response.body.message, key, `the message lists ${key}`)
  }
  const unknownHeader = await fetchDocument(app, '', { 'x-api-version': 'v77' })
  t.equal(unknownHeader.vary, 'x-api-version', 'a 404 for the version header varies on it')
  t.equal(app.versioner.openapi('1999-01-01'), undefined, 'app.versioner.openapi() answers undefined for an unknown version')
  const between = await fetchDocument(app, '?version=2001-06-01')
  t.equal(between.status, 200, 'a date between versions is served, as the API serves it (decision 0051)')
  t.equal(between.body.info.version, '2001-01-01', "with the older version's document")
})

test('GET /openapi.json without a version serves the latest version\'s document; Vary names the version header whenever it was read', async (t) => {
  const app = await shop(t)
  const none = await fetchDocument(app, '')
  t.equal(none.status, 200, 'no version at all: served')
  t.same(none.body, app.versioner.openapi('2002-01-01'), "the latest version's document")
  t.equal(none.vary, 'x-api-version', 'its content depends on the version header')
  const byHeader = await fetchDocument(app, '', { 'x-api-version': '2000-01-01' })
  t.equal(byHeader.body.info.version, '2000-01-01')
  t.equal(byHeader.vary, 'x-api-version')
  const emptyHeader = await fetchDocument(app, '', { 'x-api-version': '' })
  t.equal(emptyHeader.body.info.version, '2002-01-01', 'an empty header is no version')
  const byQuery = await fetchDocument(app, '?version=2001-01-01', { 'x-api-version': '2000-01-01' })
  t.equal(byQuery.body.info.version, '2001-01-01', '?version= wins over the header')
  t.equal(byQuery.vary, undefined, 'and the header does not change the answer')
  const head = await app.inject({ method: 'HEAD', url: '/openapi.json' })
  t.equal(head.statusCode, 200)
  t.equal(head.headers.vary, 'x-api-version', 'HEAD too')

  // Path versions: no header to vary on.
  const paths = await shop(t, { versioner: { apiVersionLocation: 'path' } })
  const latest = await fetchDocument(paths, '')
  t.equal(latest.status, 200)
  t.equal(latest.body.info.version, '2002-01-01')
  t.equal(latest.vary, undefined)
})

test('?version=unversioned documents the unversioned routes and /changelog, and nothing versioned or internal', async (t) => {
  const app = await shop(t)
  const document = (await fetchDocument(app, '?version=unversioned')).body
  t.equal(document.openapi, '3.1.0')
  t.equal(document.info.version, 'unversioned')
  t.same(pathsOf(document), ['/changelog', '/health'])
  t.same(document.paths['/health'].get.responses['200'].content['application/json'].schema,
    { type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' } } })
  t.notOk(JSON.stringify(document.paths).includes('x-api-version'), 'no version parameter on unversioned routes')
  t.equal(document.paths['/changelog'].get.deprecated, true, 'the changelog is documented as deprecated')
  t.notOk('webhooks' in document)
  await assertDocumentsValid(t, app)

  const withoutChangelog = await shop(t, { versioner: { includeChangelogUrlInSchema: false } })
  t.same(pathsOf(documentOf(withoutChangelog, 'unversioned')), ['/health'], 'includeChangelogUrlInSchema: false leaves the changelog out')
  t.equal((await withoutChangelog.inject('/changelog')).statusCode, 200, 'the changelog is still served')
  await assertDocumentsValid(t, withoutChangelog)

  const none = await shop(t, { health: false, versioner: { includeChangelogUrlInSchema: false } })
  const missing = await fetchDocument(none, '?version=unversioned')
  t.equal(missing.status, 404, 'no unversioned route: 404')
  t.equal(missing.body.code, 'FST_VERSIONER_OPENAPI_NOT_FOUND')
  t.match(missing.body.message, 'unversioned')
  t.notMatch(missing.body.message.replace("'unversioned'", ''), 'unversioned', 'unversioned is not offered as available')
  t.equal(none.versioner.openapi('unversioned'), undefined)
  t.same(documentKeys(none), VERSIONS)
  await assertDocumentsValid(t, none)

  const noChangelogUrl = await shop(t, { health: false, versioner: { changelogUrl: null } })
  t.equal((await fetchDocument(noChangelogUrl, '?version=unversioned')).status, 404, 'changelogUrl: null and no unversioned route: 404')
})

test('a version in which no route exists has a document without paths (served, and from app.versioner.openapi())', async (t) => {
  const Item = Type.Object({ id: Type.String() })
  const ItemsAdded = changeClass('ItemsAdded', [endpoint('/items', ['GET']).didntExist])
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', ItemsAdded), new Version('2000-01-01')), async (api) => {
    api.get('/items', { schema: { response: { 200: Item } } }, async () => ({ id: 'i1' }))
  })
  const served = await fetchDocument(app, '?version=2000-01-01')
  t.equal(served.status, 200, 'served, not a 404')
  t.equal(served.body.info.version, '2000-01-01')
  t.same(served.body.paths, {}, 'no paths')
  t.same(app.versioner.openapi('2000-01-01'), served.body, 'app.versioner.openapi() returns the same document')
  t.same(documentKeys(app).slice(0, 2), ['2001-01-01', '2000-01-01'], 'every version has a document')
  await assertDocumentsValid(t, app)
})

test('openapiUrl: null turns the documents and the docs pages off', async (t) => {
  const app = await shop(t, { versioner: { openapiUrl: null } })
  t.equal((await app.inject('/openapi.json?version=2002-01-01')).statusCode, 404)
  t.equal((await app.inject({ url: '/openapi.json', headers: { 'x-api-version': '2002-01-01' } })).statusCode, 404)
  t.equal((await app.inject('/docs')).statusCode, 404)
  t.equal((await app.inject('/docs?version=2002-01-01')).statusCode, 404)
  t.equal((await app.inject('/redoc?version=2002-01-01')).statusCode, 404)
  t.equal(app.versioner.openapi('2002-01-01'), undefined)
  t.equal(app.versioner.openapi('unversioned'), undefined)
  const served = await app.inject({ url: `/products/${PRODUCT_ID}`, headers: { 'x-api-version': '2002-01-01' } })
  t.equal(served.statusCode, 200, 'the API itself is served')

  const moved = await shop(t, { versioner: { openapiUrl: '/spec.json' } })
  t.equal((await moved.inject('/spec.json?version=2001-01-01')).json().info.version, '2001-01-01', 'openapiUrl moves the documents')
  t.equal((await moved.inject('/openapi.json?version=2001-01-01')).statusCode, 404)
  await assertDocumentsValid(t, moved)
})

test('documents are built once and cached; app.versioner.openapi() needs ready()', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: shopBundle() })
  await app.register(versioned(async (api) => {
    api.get('/products/:productId', { schema: { params: ProductParams, response: { 200: Product } } }, async () => ({
      id: PRODUCT_ID, title: 'Tea', price: 3, owner: { name: 'Ann' }
    }))
    api.get('/products/:productId/reviews', { schema: { params: ProductParams, response: { 200: Type.Array(Review) } } }, async () => [])
    api.post('/products', { schema: { body: ProductCreate, response: { 201: Product } } }, async (_request, reply) => reply.code(201).send({ id: PRODUCT_ID, title: 'Tea', price: 3, owner: { name: 'Ann' } }))
    api.post('/checkout', async () => ({}))
  }))
  t.throws(() => app.versioner.openapi('2002-01-01'), { code: 'FST_VERSIONER_NOT_READY' }, 'before ready: NotReadyError')
  await app.ready()
  for (const key of documentKeys(app)) {
    const first = app.versioner.openapi(key)
    t.ok(first)
    t.same(app.versioner.openapi(key), first, `${key}: the same document on a second call (a copy: a caller's changes are not served)`)
  }
  const one = await app.inject('/openapi.json?version=2001-01-01')
  const two = await app.inject('/openapi.json?version=2001-01-01')
  t.equal(two.body, one.body, 'the same document on a second request')
  t.same(app.versioner.openapi('2001-01-01'), app.versioner.openapi('2001-01-01'), 'still the same document after requests')
  t.notSame(app.versioner.openapi('2001-01-01'), app.versioner.openapi('2000-01-01'), 'one document per version')
  await assertDocumentsValid(t, app)
})

test('documents are deterministic: two applications built alike give equal documents', async (t) => {
  const one = await shop(t)
  const two = await shop(t)
  const keys = documentKeys(one)
  t.equal(keys.length, VERSIONS.length + 1, 'every version and unversioned')
  for (const key of keys) {
    t.same(JSON.stringify(documentOf(two, key)), JSON.stringify(documentOf(one, key)), `${key}: byte-identical`)
  }
})

test('webhooks appear under `webhooks` in each version, with schema instructions applied; endpoint(name).didntExist removes one', async (t) => {
  const Payment = Type.Object({ id: Type.String(), amount: Type.Integer(), payer: Owner }, { $id: 'Payment' })
  const Refund = Type.Object({ paymentId: Type.String() })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(
      new HeadVersion(),
      new Version('2002-01-01', changeClass('RefundsAreNew', [endpoint('payment.refunded', ['POST']).didntExist])),
      new Version('2001-01-01', changeClass('PaymentWasCharge', [
        schema(Payment).had({ name: 'Charge' }),
        schema(Payment).field('amount').had({ name: 'cents' }),
        schema(Owner).field('name').had({ name: 'fullName' }),
        endpoint('payment.succeeded', ['POST']).had({ summary: 'A charge went through' })
      ])),
      new Version('2000-01-01', { deprecatedAt: '2020-01-01' })
    ),
    openapi: { tags: [{ name: 'payments' }, { name: 'unused' }] },
    changelogUrl: null
  })
  await app.register(versioned(async (api) => {
    api.get('/ping', { schema: { response: { 200: Type.Object({ pong: Type.Boolean() }) } } }, async () => ({ pong: true }))
  }))
  app.versioner.webhooks.add({ name: 'payment.succeeded', body: Payment, summary: 'A payment went through', tags: ['payments'] })
  app.versioner.webhooks.add({ name: 'payment.refunded', body: Refund, description: 'Money went back.' })
  await app.ready()
  t.throws(() => app.versioner.webhooks.add({ name: 'late', body: Refund }), /app\.ready\(\)/, 'no webhook after ready')

  const [v2002, v2001, v2000] = VERSIONS.map((version) => documentOf(app, version))
  t.same(Object.keys(v2002.webhooks).sort(), ['payment.refunded', 'payment.succeeded'])
  t.same(Object.keys(v2001.webhooks), ['payment.succeeded'], 'payment.refunded did not exist in 2001-01-01')
  t.same(Object.keys(v2000.webhooks), ['payment.succeeded'])

  const succeeded2002 = v2002.webhooks['payment.succeeded'].post
  t.equal(succeeded2002.summary, 'A payment went through')
  t.same(succeeded2002.tags, ['payments'])
  t.same(succeeded2002.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/Payment' })
  t.same(Object.keys(v2002.components.schemas.Payment.properties), ['id', 'amount', 'payer'])
  t.same(v2002.components.schemas.Payment.properties.payer, { $ref: '#/components/schemas/Owner' })
  t.same(v2002.components.schemas.Owner.required, ['name'])
  t.ok(succeeded2002.responses, 'a webhook documents its acknowledgement')
  t.same(v2002.webhooks['payment.refunded'].post.requestBody.content['application/json'].schema,
    { type: 'object', required: ['paymentId'], properties: { paymentId: { type: 'string' } } }, 'an unnamed payload is inline')
  t.equal(v2002.webhooks['payment.refunded'].post.description, 'Money went back.')
  t.same(v2002.tags, [{ name: 'payments' }], 'a tag used by a webhook only is listed')

  const succeeded2001 = v2001.webhooks['payment.succeeded'].post
  t.equal(succeeded2001.summary, 'A payment went through', '2001-01-01: as HEAD')
  t.same(succeeded2001.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/Payment' })
  t.same(componentsOf(v2001), ['FastifyVersionerError', 'Owner', 'Payment'], 'the webhook payload (and the body of the 400 and 404 of GET /ping)')

  const succeeded2000 = v2000.webhooks['payment.succeeded'].post
  t.equal(succeeded2000.summary, 'A charge went through', "2000-01-01: the webhook's summary in that version")
  t.same(succeeded2000.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/Charge' }, '2000-01-01: the renamed component')
  t.same(componentsOf(v2000), ['Charge', 'FastifyVersionerError', 'Owner'], '2000-01-01: no Payment component')
  t.same(Object.keys(v2000.components.schemas.Charge?.properties ?? {}), ['id', 'cents', 'payer'], '2000-01-01: amount was cents')
  t.same(v2000.components.schemas.Charge?.required, ['id', 'cents', 'payer'])
  t.same(Object.keys(v2000.components.schemas.Owner?.properties ?? {}), ['fullName'], "2000-01-01: a nested schema's instruction applies too")
  t.equal(v2000.webhooks['payment.succeeded'].post.deprecated, true, 'a deprecated version deprecates its webhooks')
  t.notOk('deprecated' in v2001.webhooks['payment.succeeded'].post)
  await assertDocumentsValid(t, app)
})

test('a version with deprecatedAt / sunsetAt: every operation deprecated, info x-deprecated-at / x-sunset-at', async (t) => {
  const app = await shop(t, {
    lifecycle: {
      '2001-01-01': { deprecatedAt: '2030-06-01' },
      '2000-01-01': { deprecatedAt: new Date('2020-01-01T00:00:00Z'), sunsetAt: '2031-01-01', link: 'https://example.com/upgrade' }
    }
  })
  const [v2002, v2001, v2000] = VERSIONS.map((version) => documentOf(app, version))
  t.notOk('x-deprecated-at' in v2002.info)
  t.notOk('x-sunset-at' in v2002.info)
  t.ok(operationsOf(v2002).some((operation) => operation.operation.deprecated !== true), '2002-01-01 is not deprecated as a whole')
  t.equal(v2001.info['x-deprecated-at'], '2030-06-01')
  t.notOk('x-sunset-at' in v2001.info)
  t.equal(v2000.info['x-deprecated-at'], '2020-01-01')
  t.equal(v2000.info['x-sunset-at'], '2031-01-01')
  t.match(v2000.info.description, /^A small shop\./, 'the base description is kept')
  t.match(v2000.info.description, 'https://example.com/upgrade', 'and the link is mentioned')
  for (const document of [v2001, v2000]) {
    const operations = operationsOf(document)
    t.ok(operations.length >= 2)
    for (const operation of operations) {
      t.equal(operation.operation.deprecated, true, `${document.info.version} ${operation.method} ${operation.path}: deprecated`)
    }
  }
  t.notOk(JSON.stringify(documentOf(app, 'unversioned')).includes('x-deprecated-at'), 'the unversioned document has no lifecycle')
  await assertDocumentsValid(t, app)
})

test('a schema renamed onto the name of another schema a version documents: a start-up error naming both and the instruction', async (t) => {
  const Draft = Type.Object({ text: Type.String() }, { $id: 'Draft' })
  const Note = Type.Object({ id: Type.Integer() }, { $id: 'Note' })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', changeClass('DraftWasNote', [schema(Draft).had({ name: 'Note' })])), new Version('2000-01-01')),
    changelogUrl: null
  })
  await app.register(versioned(async (api) => {
    api.post('/notes', { schema: { body: Draft, response: { 200: Note } } }, async () => ({ id: 1 }))
  }))
  const error = await app.ready().then(() => undefined, (err: Error & { code?: string }) => err)
  t.equal(error?.code, 'FST_VERSIONER_INVALID_GENERATION_INSTRUCTION')
  t.match(error?.message, /In version '2000-01-01', two different schemas would both be named 'Note'/)
  t.match(error?.message, /'Note' and 'Draft'|'Draft' and 'Note'/, 'the message names both schemas')
  t.match(error?.message, /schema\(Draft\)\.had\(\{ name: 'Note' \}\) in "DraftWasNote"/, 'and the instruction')
})

test('a shared schema (app.addSchema + Type.Ref) changed by a version: the component is its form in that version', async (t) => {
  const Money = Type.Object({ cents: Type.Integer() }, { $id: 'Money' })
  const Invoice = Type.Object({ total: Type.Ref(Money) }, { $id: 'Invoice' })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', changeClass('CentsWereAmount', [schema(Money).field('cents').had({ name: 'amount' })])), new Version('2000-01-01')),
    changelogUrl: null
  })
  app.addSchema(Money)
  await app.register(versioned(async (api) => {
    api.get('/invoice', { schema: { response: { 200: Invoice } } }, async () => ({ total: { cents: 5 } }))
  }))
  app.versioner.webhooks.add({ name: 'money.moved', body: Money })
  app.versioner.webhooks.add({ name: 'money.referenced', body: Type.Object({ total: Type.Ref(Money) }) })
  await app.ready()
  const latest = documentOf(app, '2001-01-01')
  t.same(latest.components.schemas.Money, { type: 'object', required: ['cents'], properties: { cents: { type: 'integer' } } })
  t.same(latest.components.schemas.Invoice.properties.total, { $ref: '#/components/schemas/Money' })
  const old = documentOf(app, '2000-01-01')
  // The route's response, however documented (inline or by reference), has `amount` in 2000-01-01.
  const total = old.components.schemas.Invoice.properties.total
  const totalSchema = typeof total.$ref === 'string' ? old.components.schemas[total.$ref.split('/').pop()] : total
  t.same(Object.keys(totalSchema.properties), ['amount'], 'the response documents amount')
  const hookRef = old.webhooks['money.moved'].post.requestBody.content['application/json'].schema.$ref
  t.same(Object.keys(old.components.schemas[hookRef.split('/').pop()].properties), ['amount'],
    "the webhook's payload is Money as it stands in 2000-01-01")
  t.same(old.webhooks['money.referenced'].post.requestBody.content['application/json'].schema.properties.total, { $ref: '#/components/schemas/Money' },
    "a webhook payload's reference to a shared schema points at its component")
  t.notOk(Object.values(old.components.schemas).some((component: any) => 'cents' in (component.properties ?? {})),
    'no component of 2000-01-01 documents cents')
  t.equal(await validationError(old), undefined)
  t.equal(await validationError(latest), undefined)
})

test('regression: a recursive shared schema (app.addSchema, a Type.Ref to itself) a version changes was documented in its HEAD form below the first level', async (t) => {
  const Node = Type.Object({ name: Type.String(), note: Type.Optional(Type.String()), children: Type.Optional(Type.Array(Type.Ref('Node'))) }, { $id: 'Node' })
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', changeClass('NodesHaveNotes', [schema(Node).field('note').didntExist])), new Version('2000-01-01')), async (api) => {
    api.addSchema(Node)
    api.put('/nodes', { schema: { body: Type.Object({ node: Node }), response: { 200: Type.Object({ node: Node }) } } }, async (request) => request.body)
  })
  await app.ready()
  const old = documentOf(app, '2000-01-01')
  t.notOk(Object.values(old.components.schemas).some((component: any) => 'note' in (component.properties ?? {})),
    'no component of 2000-01-01 documents note (the children\'s $ref names the Node component)')
  t.same(Object.keys(old.components.schemas.Node.properties), ['name', 'children'])
  t.same(Object.keys(documentOf(app, '2001-01-01').components.schemas.Node.properties), ['name', 'note', 'children'])
  t.equal(await validationError(old), undefined)
})

const Ok = Type.Object({ ok: Type.Boolean() })
const Thing = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'Thing' })
const ThingCreate = Type.Object({ name: Type.String() })

test("regression: route-level OpenAPI fields of the HEAD schema are in every version's document; the user's schema is not changed", async (t) => {
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
  const app = await versionedApp(t, versions, routes, {
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

test('regression: in a deprecated version, deprecated is where @fastify/swagger writes it (before responses; before requestBody in webhooks)', async (t) => {
  const versions = new VersionBundle(
    new HeadVersion(),
    new Version('2001-01-01'),
    new Version('2000-01-01', { deprecatedAt: '2020-01-01' })
  )
  const routes: FastifyPluginAsyncTypebox = async (api) => {
    api.post('/things', { schema: { summary: 'Make', body: ThingCreate, response: { 201: Thing } } }, async (request, reply) =>
      reply.code(201).send({ id: '1', name: request.body.name }))
  }
  const app = await versionedApp(t, versions, routes, {
    beforeRoutes: (instance) => { instance.versioner.webhooks.add({ name: 'thing.made', body: Thing, summary: 'A thing was made' }) }
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

test('a name clash is found in the version it appears in, after versions where neither route changed, and in nested schemas', async (t) => {
  const Draft = Type.Object({ text: Type.String() }, { $id: 'Draft' })
  const Note = Type.Object({ id: Type.Integer() }, { $id: 'Note' })
  const Other = Type.Object({ size: Type.Integer() }, { $id: 'Other' })
  const build = async (withRename: boolean): Promise<Error | undefined> => {
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(fastifyVersioner, {
      versions: new VersionBundle(
        new HeadVersion(),
        new Version('2005-01-01', changeClass('OtherHadMax', [schema(Other).field('size').had({ maximum: 5 })])),
        new Version('2004-01-01'),
        new Version('2003-01-01', changeClass('DraftWasNote', withRename ? [schema(Draft).had({ name: 'Note' })] : [schema(Draft).field('text').had({ maxLength: 5 })])),
        new Version('2002-01-01', changeClass('OtherHadMin', [schema(Other).field('size').had({ minimum: 1 })])),
        new Version('2001-01-01')
      ),
      changelogUrl: null
    })
    await app.register(versioned(async (api) => {
      api.post('/drafts', { schema: { body: Type.Object({ draft: Draft }) } }, async () => null)
      api.get('/notes', { schema: { response: { 200: Type.Object({ items: Type.Array(Note) }) } } }, async () => ({ items: [] }))
      api.get('/others', { schema: { response: { 200: Other } } }, async () => ({ size: 1 }))
    }))
    return await app.ready().then(() => undefined, (err: Error) => err)
  }
  t.equal(await build(false), undefined, 'without the rename, no clash')
  const error = await build(true)
  t.match(error?.message, /In version '2002-01-01', two different schemas would both be named 'Note'/, 'the first version documenting both')
})

test('regression: a default naming a version released at an instant (now past) is named in the documents, so that check sees it move', async (t) => {
  const build = async (defaultValue: string): Promise<FastifyInstance> => {
    const app = await versionedApp(t, new VersionBundle(
      new Version('2002-01-01', changeClass('Later', []), { releasedAt: '2026-01-01T09:00:00Z' }),
      new Version('2001-01-01')
    ), async (api) => { api.get('/items', async () => ({ ok: true })) },
    { versioner: { apiVersionDefaultValue: defaultValue, now: () => Date.parse('2026-11-29T10:00:00Z') } })
    await app.ready()
    return app
  }
  const named = await build('2002-01-01')
  t.equal((await named.inject('/items')).headers['x-api-version'], '2002-01-01', 'requests naming none are served as 2002-01-01')
  for (const version of ['2002-01-01', '2001-01-01']) {
    t.equal(documentOf(named, version).info['x-api-version-default'], '2002-01-01', `${version}: info names it`)
  }
  const date = await build('2099-01-01')
  t.notOk('x-api-version-default' in documentOf(date, '2001-01-01').info,
    'a default date reaching a release at an instant names none: it moves at the instant, and documents are built once')
})

/** Every schema object under `value` reached through keywords (a rough walk: enough for the tuples below). */
function schemaNodes (value: unknown, found: Array<Record<string, unknown>> = []): Array<Record<string, unknown>> {
  if (Array.isArray(value)) for (const item of value) schemaNodes(item, found)
  else if (typeof value === 'object' && value !== null) {
    if ((value as Record<string, unknown>).type === 'array') found.push(value as Record<string, unknown>)
    for (const item of Object.values(value)) schemaNodes(item, found)
  }
  return found
}

/** A document as written before tuples were `prefixItems`: draft-07's `items` list and `additionalItems`. */
function draft07Tuples (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(draft07Tuples)
  if (typeof value !== 'object' || value === null) return value
  const { prefixItems, items, ...rest } = value as Record<string, unknown>
  const mapped = Object.fromEntries(Object.entries(rest).map(([key, item]) => [key, draft07Tuples(item)]))
  if (!Array.isArray(prefixItems)) return items === undefined ? mapped : { ...mapped, items: draft07Tuples(items) }
  return { ...mapped, items: draft07Tuples(prefixItems), ...(items === undefined ? {} : { additionalItems: draft07Tuples(items) }) }
}

test('regression: a tuple (Type.Tuple) is written as OpenAPI 3.1 writes one, prefixItems and items: false, not draft-07\'s items list', async (t) => {
  const Point = Type.Tuple([Type.Number(), Type.String()], { $id: 'Point' })
  const Body = Type.Object({ at: Type.Tuple([Type.Number(), Type.Number()]), named: Type.Ref('Point'), rest: Type.Array(Type.Tuple([Type.Boolean()])) })
  const written = JSON.stringify([Point, Body])
  const appWith = async (second: TSchema): Promise<FastifyInstance> => {
    const Retyped = Type.Object({ ...Body.properties, at: Type.Tuple([Type.Number(), second]) })
    const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01'), new Version('2000-01-01')), async (api) => {
      api.post('/places', { schema: { body: Retyped as TSchema, response: { 200: Type.Object({ at: Type.Tuple([Type.Number(), Type.Number()], { examples: [[1, 2]] }) }) } } }, async () => ({ at: [1, 2] as [number, number] }))
    }, { beforeRoutes: (api) => { api.addSchema(Point) } })
    await app.ready()
    return app
  }
  const app = await appWith(Type.Number())
  const meta = new Ajv2020({ strict: false })
  for (const version of ['2001-01-01', '2000-01-01']) {
    const document = documentOf(app, version)
    t.equal(document.openapi, '3.1.0', 'an OpenAPI 3.1 document: its schemas are JSON Schema 2020-12')
    t.equal(await validationError(document), undefined, `${version}: swagger-parser's validate passes`)
    const tuples = schemaNodes(document).filter((node) => node.items !== undefined && node.minItems !== undefined && node.minItems === node.maxItems)
    t.equal(tuples.length, 4, `${version}: every tuple is found (the body's, its named one, its list's, the response's)`)
    for (const tuple of tuples) {
      t.ok(Array.isArray(tuple.prefixItems) && tuple.items === false && !('additionalItems' in tuple), `${version}: ${JSON.stringify(tuple)}`)
      t.ok(meta.validateSchema(tuple), `${version}: a valid JSON Schema 2020-12 (${meta.errorsText(meta.errors)})`)
    }
    const schema = document.paths['/places'].post.requestBody.content['application/json'].schema
    const check = bodyChecker(document)
    t.equal(check(schema, { at: [1, 2], named: [1, 'a'], rest: [[true]] }), undefined, `${version}: a body of the tuples matches`)
    t.not(check(schema, { at: [1, 2, 3], named: [1, 'a'], rest: [] }), undefined, `${version}: a third position is refused, as the route refuses it`)
    const sent = await app.inject({ method: 'POST', url: '/places', headers: { 'x-api-version': version }, payload: { at: [1, 2, 3], named: [1, 'a'], rest: [] } })
    t.equal(sent.statusCode, 400, 'the route refuses it')
  }
  t.equal(JSON.stringify([Point, Body]), written, 'the application\'s schemas are not changed')

  // Examples of tuples are valid to the tools' Ajv (draft-07, Fastify's): `export` refuses an invalid one.
  // Documents saved before tuples were prefixItems check clean; a tuple position retyped still breaks.
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-tuples-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  await exportDocuments(app, dir)
  for (const name of await readdir(dir)) {
    const saved = JSON.parse(await readFile(join(dir, name), 'utf8')) as unknown
    await writeFile(join(dir, name), JSON.stringify(draft07Tuples(saved)))
  }
  t.ok((await readFile(join(dir, '2000-01-01.json'), 'utf8')).includes('"additionalItems":false'), 'saved in the form of before')
  const clean = await checkDocuments(app, dir)
  t.strictSame([clean.breaks, clean.notes], [[], []], 'nothing to report')
  t.ok(clean.compared.includes('2000-01-01'), 'the versions compared')
  const { breaks } = await checkDocuments(await appWith(Type.Object({ x: Type.Number() })), dir)
  t.ok(breaks.some((entry) => entry.text.startsWith('2000-01-01 POST /places: request body /at/1: type')), `a tuple position retyped breaks: ${breaks.map((entry) => entry.text).join('\n')}`)
})
