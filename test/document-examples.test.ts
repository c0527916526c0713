/**
 * Examples in the documents: `invalidExamples(document)` (every example of an OpenAPI 3.1 document checked against
 * its schema there), and what each version's document shows (HEAD's object-level examples migrated down through
 * the response converters, `schema(S).had({ examples })`, invalid examples left out of rebuilt schemas).
 */
import { test } from 'tap'
import { buildApp } from '../examples/users/app'
import { invalidExamples } from '../plugin'

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

test('invalidExamples finds none in any document of the example app', async (t) => {
  const app = await buildApp()
  t.teardown(() => app.close())
  await app.ready()
  for (const version of [...app.versioner.versions.versionValues, 'unversioned']) {
    t.strictSame(invalidExamples(app.versioner.openapi(version)), [], version)
  }
})
