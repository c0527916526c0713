/**
 * Examples in the documents: `invalidExamples(document)` (every example of an OpenAPI 3.1 document checked against
 * its schema there), and what each version's document shows (HEAD's object-level examples migrated down through
 * the response converters, `schema(S).had({ examples })`, invalid examples left out of rebuilt schemas).
 */
import { test, type Test } from 'tap'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../examples/users/app'
import { EXAMPLE_USER_ID } from '../../examples/users/schemas'
import { ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange, type ResponseInfo } from '../../plugin'
import { invalidExamples } from '../../tools'
import { versionedApp } from '../helpers/apps'
import { assertDocumentsValid, documentOf } from '../helpers/openapi-documents'
import { changeClass } from '../helpers/version-changes'

const ID = '3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f'

/** Every document of `app` holds only valid examples, and none of the plugin's marks. */
function assertExamplesValid (t: Test, app: FastifyInstance): void {
  for (const version of app.versioner.versions.versionValues) {
    const document = documentOf(app, version)
    t.strictSame(invalidExamples(document), [], `${version}: every example is valid`)
    t.notOk(JSON.stringify(document).includes('x-fastify-versioner-check-examples'), `${version}: no mark left`)
  }
}

test('invalidExamples: every example of a document against its schema, $refs resolved in the document', async (t) => {
  const document = {
    openapi: '3.1.0',
    info: { title: 'API', version: '2000-01-01' },
    components: {
      schemas: {
        Address: { type: 'object', properties: { street: { type: 'string', examples: ['1 Main St', 7] } }, required: ['street'] },
        User: {
          type: 'object',
          properties: { id: { type: 'string', format: 'uuid' }, name: { type: 'string' }, address: { $ref: '#/components/schemas/Address' } },
          required: ['id', 'name'],
          additionalProperties: false,
          examples: [
            { id: '3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f', name: 'Ada', address: { street: '1 Main St' } },
            { id: '3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f', fullName: 'Ada' },
            { id: 'not-a-uuid', name: 'Ada' },
            { id: '3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f', name: 'Ada', address: { street: 3 } }
          ]
        }
      },
      responses: {
        Problem: { description: 'A problem', content: { 'application/json': { schema: { type: 'object', required: ['code'] }, example: {} } } }
      }
    },
    paths: {
      '/users/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, example: 12 }],
        put: {
          parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, example: 0 } }],
          requestBody: {
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/User' },
                examples: { good: { value: { id: '3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f', name: 'Ada' } }, bad: { value: { name: 'Ada' } }, far: { externalValue: 'x' } }
              }
            }
          },
          responses: {
            200: {
              description: 'OK',
              headers: { 'x-count': { schema: { type: 'integer' }, examples: { many: { value: 'lots' } } } },
              content: { 'application/json': { schema: { type: 'array', items: { type: 'string' }, example: ['a', 1] } } }
            }
          }
        }
      }
    },
    webhooks: { 'user.created': { post: { requestBody: { content: { 'application/json': { schema: { type: 'boolean', examples: ['yes'] } } } } } } }
  }
  const before = JSON.stringify(document)
  // In the order of the walk: breadth first, components, then paths, then webhooks.
  t.strictSame(invalidExamples(document), [
    { pointer: '/components/schemas/User/examples/1', message: "must have required property 'name'" },
    { pointer: '/components/schemas/User/examples/2', message: '/id must match format "uuid"' },
    { pointer: '/components/schemas/User/examples/3', message: '/address/street must be string' },
    { pointer: '/components/schemas/Address/properties/street/examples/1', message: 'must be string' },
    { pointer: '/components/responses/Problem/content/application~1json/example', message: "must have required property 'code'" },
    { pointer: '/paths/~1users~1{id}/parameters/0/example', message: 'must be string' },
    { pointer: '/paths/~1users~1{id}/put/parameters/0/schema/example', message: 'must be >= 1' },
    { pointer: '/paths/~1users~1{id}/put/requestBody/content/application~1json/examples/bad/value', message: "must have required property 'id'" },
    { pointer: '/paths/~1users~1{id}/put/responses/200/headers/x-count/examples/many/value', message: 'must be integer' },
    { pointer: '/webhooks/user.created/post/requestBody/content/application~1json/schema/examples/0', message: 'must be boolean' },
    { pointer: '/paths/~1users~1{id}/put/responses/200/content/application~1json/schema/example', message: '/1 must be string' }
  ])
  const extra = invalidExamples({ components: { schemas: { Closed: { type: 'object', additionalProperties: false, examples: [{ other: 1 }] } } } })
  t.strictSame(extra, [{ pointer: '/components/schemas/Closed/examples/0', message: 'must NOT have additional properties (other)' }],
    'an additional property is named')
  const broken = invalidExamples({ components: { schemas: { Broken: { $ref: '#/components/schemas/Missing', examples: [1] } } } })
  t.match(broken, [{ pointer: '/components/schemas/Broken/examples/0', message: /^its schema cannot be compiled: can't resolve reference/ }],
    'a schema that cannot be compiled is reported, not thrown')
  t.equal(JSON.stringify(document), before, 'the document is not changed (no coercion, no defaults, nothing removed)')
  t.strictSame(invalidExamples({ openapi: '3.1.0', paths: {} }), [], 'a document without examples')
  t.throws(() => invalidExamples('{}'), { code: 'FST_VERSIONER_TOOL', message: /takes an OpenAPI document \(an object\); got string/ })
})

test('the example app: each version shows its own UserResource example, and invalidExamples finds none in any document', async (t) => {
  const app = await buildApp()
  t.teardown(() => app.close())
  await app.ready()
  for (const version of [...app.versioner.versions.versionValues, 'unversioned']) {
    t.strictSame(invalidExamples(app.versioner.openapi(version)), [], version)
  }
  const examplesOf = (version: string): unknown => documentOf(app, version).components.schemas.UserResource.examples
  t.strictSame(examplesOf('2002-01-01'), [{ id: EXAMPLE_USER_ID }], '2002-01-01: without the internal field')
  t.strictSame(examplesOf('2001-01-01'), [{ id: EXAMPLE_USER_ID, addresses: ['1 Main St', '2 Side St'] }], '2001-01-01: addresses inline')
  t.strictSame(examplesOf('2000-01-01'), [{ id: EXAMPLE_USER_ID, address: '1 Main St' }], '2000-01-01: one address')
})

test('a version rebuilt by a change shows HEAD\'s object-level examples migrated down by the response converters', async (t) => {
  const User = Type.Object({ id: Type.String({ format: 'uuid' }), fullName: Type.String() }, {
    $id: 'User', description: 'A user.', examples: [{ id: ID, fullName: 'Ada Lovelace' }, { id: ID, fullName: 'Grace Hopper' }]
  })
  class SplitNames extends VersionChange {
    description = 'fullName replaced name.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('fullName').had({ name: 'name' })]

    @ConvertResponseToPreviousVersionFor(User)
    fullNameToName (response: ResponseInfo) {
      response.body.name = response.body.fullName.split(' ')[0]
      delete response.body.fullName
    }
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', SplitNames), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User } } }, async () => ({ id: ID, fullName: 'Ada Lovelace' }))
    api.get('/users', { schema: { response: { 200: Type.Array(User) } } }, async () => [])
  }, { beforeRoutes: (app) => app.versioner.webhooks.add({ name: 'user.created', body: User }) })
  await app.ready()
  const latest = documentOf(app, '2001-01-01')
  t.equal(JSON.stringify(latest.components.schemas.User), JSON.stringify({
    description: 'A user.',
    examples: [{ id: ID, fullName: 'Ada Lovelace' }, { id: ID, fullName: 'Grace Hopper' }],
    type: 'object',
    required: ['id', 'fullName'],
    properties: { id: { format: 'uuid', type: 'string' }, fullName: { type: 'string' } }
  }), 'the latest version has HEAD\'s form: its component is HEAD\'s, examples as written')
  const oldest = documentOf(app, '2000-01-01')
  t.strictSame(oldest.components.schemas.User.examples, [{ id: ID, name: 'Ada' }, { id: ID, name: 'Grace' }],
    'the older version: HEAD\'s examples through the converter that serves its responses')
  t.strictSame(Object.keys(oldest.components.schemas.User), ['description', 'examples', 'type', 'required', 'properties'], 'in their place, in HEAD\'s order')
  t.strictSame(oldest.webhooks['user.created'].post.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/User' }, 'webhooks use the same component')
  t.strictSame(User.examples, [{ id: ID, fullName: 'Ada Lovelace' }, { id: ID, fullName: 'Grace Hopper' }], 'HEAD\'s examples are not touched')
  assertExamplesValid(t, app)
  await assertDocumentsValid(t, app)
})

test('schema(S).had({ examples }) wins in its version, and is carried to older versions until changed again', async (t) => {
  const User = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'User', examples: [{ id: 'u1', fullName: 'Ada Lovelace' }] })
  class RenameName extends VersionChange {
    description = 'fullName replaced name.'
    instructionsToMigrateToPreviousVersion = [
      schema(User).field('fullName').had({ name: 'name' }),
      schema(User).had({ examples: [{ id: 'u1', name: 'Ada' }] })
    ]

    @ConvertResponseToPreviousVersionFor(User)
    fullNameToName (response: ResponseInfo) {
      response.body.name = response.body.fullName
      delete response.body.fullName
    }
  }
  const AddNickname = changeClass('AddNickname', [schema(User).formerField('nickname').existedAs({ type: Type.String(), optional: true })])
  const Describe = changeClass('Describe', [schema(User).had({ examples: [{ id: 'u0', name: 'Bob' }] })])
  const versions = new VersionBundle(new HeadVersion(), new Version('2003-01-01', RenameName), new Version('2002-01-01', AddNickname),
    new Version('2001-01-01', Describe), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User } } }, async () => ({ id: 'u1', fullName: 'Ada Lovelace' }))
  })
  await app.ready()
  const examplesOf = (version: string): unknown => documentOf(app, version).components.schemas.User.examples
  t.strictSame(examplesOf('2003-01-01'), [{ id: 'u1', fullName: 'Ada Lovelace' }], 'HEAD\'s in the version with HEAD\'s form')
  t.strictSame(examplesOf('2002-01-01'), [{ id: 'u1', name: 'Ada' }], 'the given examples, not the converter\'s ({ name: \'Ada Lovelace\' })')
  t.strictSame(examplesOf('2001-01-01'), [{ id: 'u1', name: 'Ada' }], 'carried to the version before, which another change rebuilt')
  t.strictSame(examplesOf('2000-01-01'), [{ id: 'u0', name: 'Bob' }], 'until changed again')
  assertExamplesValid(t, app)
})

test('a request-only schema rebuilt by a version keeps only the HEAD examples that fit it; a retyped field drops an example it kept', async (t) => {
  const UserCreate = Type.Object({
    fullName: Type.String(),
    nickname: Type.Optional(Type.String()),
    tags: Type.Optional(Type.String({ description: 'Comma-separated.', examples: ['vip,early'] })),
    age: Type.Integer({ examples: [36] })
  }, {
    $id: 'UserCreate',
    examples: [
      { fullName: 'Ada', age: 41 },
      { fullName: 'Ada', tags: 'vip', age: 41 },
      { nickname: 'ada', fullName: 'Ada', age: 36 },
      { nickname: 'grace', fullName: 'Grace', age: 50 }
    ]
  })
  const Search = Type.Object({ q: Type.String() }, { examples: [{ q: 'ada' }] })
  const Change = changeClass('ReshapeUserCreate', [
    schema(UserCreate).field('nickname').didntExist,
    schema(UserCreate).field('tags').had({ type: Type.Array(Type.String()) }),
    schema(UserCreate).field('age').had({ type: Type.Integer({ minimum: 40 }) }),
    schema(Search).field('q').had({ name: 'query' })
  ])
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', Change), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.post('/users', { schema: { body: UserCreate } }, async () => ({ ok: true }))
    api.post('/search', { schema: { body: Search } }, async () => ({ ok: true }))
  })
  await app.ready()
  const latest = documentOf(app, '2001-01-01')
  t.strictSame(latest.components.schemas.UserCreate.examples, UserCreate.examples, 'HEAD\'s form: HEAD\'s examples')
  t.strictSame(latest.paths['/search'].post.requestBody.content['application/json'].example, { q: 'ada' })
  const oldest = documentOf(app, '2000-01-01')
  const old = oldest.components.schemas.UserCreate
  t.strictSame(old.examples, [{ fullName: 'Ada', age: 41 }, { fullName: 'Grace', age: 50 }],
    'the HEAD examples that fit 2000-01-01 (tags was an array, age at least 40), without the fields it lacks (nickname)')
  t.strictSame(old.properties.tags, { type: 'array', items: { type: 'string' }, description: 'Comma-separated.' },
    'the retyped field keeps its description, not its string example')
  t.strictSame(old.properties.age, { type: 'integer', minimum: 40 }, 'nor an example its new type refuses')
  t.notOk('example' in oldest.paths['/search'].post.requestBody.content['application/json'], 'an unnamed body\'s example that no longer fits goes too')
  assertExamplesValid(t, app)
  await assertDocumentsValid(t, app)
})

test('an example a converter fails on, or answers with a promise for, is left out: a document is built at once', async (t) => {
  const Order = Type.Object({ total: Type.Integer() }, { $id: 'Order', examples: [{ total: 5 }, { total: -1 }] })
  const Invoice = Type.Object({ amount: Type.Integer() }, { $id: 'Invoice', examples: [{ amount: 3 }] })
  class Reshape extends VersionChange {
    description = 'total was cents; amount was a string.'
    instructionsToMigrateToPreviousVersion = [
      schema(Order).field('total').had({ name: 'cents' }),
      schema(Invoice).field('amount').had({ type: Type.String() })
    ]

    @ConvertResponseToPreviousVersionFor(Order)
    totalToCents (response: ResponseInfo) {
      if (response.body.total < 0) throw new Error('no negative totals')
      response.body.cents = response.body.total * 100
      delete response.body.total
    }

    @ConvertResponseToPreviousVersionFor(Invoice)
    async amountToString (response: ResponseInfo) {
      response.body.amount = String(response.body.amount)
    }
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', Reshape), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/orders', { schema: { response: { 200: Order } } }, async () => ({ total: 5 }))
    api.get('/invoices', { schema: { response: { 200: Invoice } } }, async () => ({ amount: 3 }))
  })
  await app.ready()
  const oldest = documentOf(app, '2000-01-01')
  t.strictSame(oldest.components.schemas.Order.examples, [{ cents: 500 }], 'the example the converter threw on is not shown')
  t.notOk('examples' in oldest.components.schemas.Invoice, 'an async converter: no example')
  t.equal((await app.inject({ url: '/invoices', headers: { 'x-api-version': '2000-01-01' } })).json().amount, '3', 'while it serves responses')
  assertExamplesValid(t, app)
})

test('regression: a retyped field\'s example that breaks a format the app declares (a RegExp, a function) is left out of the version\'s document', async (t) => {
  const Product = Type.Object({
    code: Type.String({ examples: ['plain'] }),
    lot: Type.String({ examples: ['x'] }),
    batch: Type.String({ examples: ['L7'] })
  }, { $id: 'Product' })
  const Change = changeClass('CodesHadFormats', [
    schema(Product).field('code').had({ type: Type.String({ format: 'sku' }) }),
    schema(Product).field('lot').had({ type: Type.String({ format: 'lot' }) }),
    schema(Product).field('batch').had({ type: Type.String({ format: 'lot' }) })
  ])
  const ajv = { customOptions: { formats: { sku: /^[A-Z]{3}-\d+$/, lot: (value: string) => /^L\d+$/.test(value) } } }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', Change), new Version('2000-01-01')), async (api) => {
    api.post('/products', { schema: { body: Product } }, async () => ({ ok: true }))
  }, { fastify: { ajv } })
  await app.ready()
  const old = documentOf(app, '2000-01-01').components.schemas.Product.properties
  t.strictSame(old.code, { type: 'string', format: 'sku' }, 'an example its RegExp format refuses goes')
  t.strictSame(old.lot, { type: 'string', format: 'lot' }, 'so does one its function format refuses')
  t.strictSame(old.batch, { type: 'string', format: 'lot', examples: ['L7'] }, 'one the function accepts stays')
  for (const version of app.versioner.versions.versionValues) t.strictSame(invalidExamples(documentOf(app, version), { ajv }), [], `${version}: every example is valid for the app's formats`)
})

test('invalidExamples checks the formats of the app\'s Ajv setup when given it (a RegExp, a function); without it, a format Ajv does not know is not checked', async (t) => {
  const document = {
    openapi: '3.1.0',
    components: {
      schemas: {
        Product: {
          type: 'object',
          properties: { sku: { type: 'string', format: 'sku', examples: ['ABC-1', 'nope'] }, lot: { type: 'string', format: 'lot', examples: ['L1', 'x'] } }
        }
      }
    }
  }
  const ajv = { customOptions: { formats: { sku: /^[A-Z]{3}-\d+$/, lot: (value: string) => /^L\d+$/.test(value) } } }
  t.strictSame(invalidExamples(document, { ajv }), [
    { pointer: '/components/schemas/Product/properties/sku/examples/1', message: 'must match format "sku"' },
    { pointer: '/components/schemas/Product/properties/lot/examples/1', message: 'must match format "lot"' }
  ])
  t.strictSame(invalidExamples(document), [], 'without the setup: unknown formats, not checked')
})
