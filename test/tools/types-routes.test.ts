/**
 * `fastify-versioner types`: each route and webhook of each version is typed as its clients call it (regressions found by
 * comparing the printed types with what each version's validator accepts and its serializer answers).
 */
import { test } from 'tap'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned, Version, VersionBundle } from '../../plugin'
import { typesModule } from '../../tools'

// A QUERY route's operation is under its path item's `x-query` in the documents (OpenAPI 3.1 has no `query`): the
// types module read the eight OpenAPI methods only, so `Routes` had no QUERY route in any version.
test('regression: a QUERY route is in Routes, with its body and responses', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.route({
      method: 'QUERY',
      url: '/search',
      schema: { body: Type.Object({ term: Type.String() }), response: { 200: Type.Object({ hits: Type.Array(Type.String()) }) } },
      handler: async (request) => ({ hits: [request.body.term] })
    })
  }))
  const answer = await app.inject({ method: 'QUERY', url: '/search', headers: { 'x-api-version': '2000-01-01' }, payload: { term: 'a' } })
  t.same(answer.json(), { hits: ['a'] }, 'the route is served')
  const types = await typesModule(app)
  for (const version of ['2001-01-01', '2000-01-01']) {
    t.match(types, new RegExp(`'${version}': \\{\\n {4}'QUERY /search': \\{\\n {6}headers: \\{\\n {8}'x-api-version'\\?: '${version}'\\n {6}\\}\\n` +
      ' {6}body: \\{\\n {8}term: string\\n {6}\\}\\n {6}responses: \\{\\n {8}200: \\{\\n {10}hits: Array<string>'), `${version}: QUERY /search`)
  }
})

// `@fastify/swagger` documents a wildcard as the path parameter `{*}`: the route's key was 'GET /files/:*', a path
// neither Fastify nor the document has.
test("regression: a wildcard route's key is its Fastify path ('GET /files/*')", async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/files/*', { schema: { response: { 200: Type.String() } } }, async () => 'file')
  }))
  const types = await typesModule(app)
  t.match(types, /'GET \/files\/\*': \{\n {6}params: \{\n {8}'\*': string/)
  t.notMatch(types, /:\*/)
})

// A webhook's payload schemas are put in the document by the plugin, not by `@fastify/swagger`, which turns
// OpenAPI 3.0's `nullable: true` into a `null` type for routes: the component kept `nullable`, which OpenAPI 3.1
// does not have, so the types (and generated clients) said `string` where the server sends null, for the route
// sharing the schema too.
test('regression: a nullable field (nullable: true) of a webhook payload is string | null, in the webhook and a route sharing it', async (t) => {
  // A field named nullable (and one named type) is a field, not the keyword.
  const Paid = Type.Object({ id: Type.String(), note: Type.Unsafe<string | null>({ type: 'string', nullable: true }), nullable: Type.Boolean(), type: Type.String() }, { $id: 'Paid' })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  app.versioner.webhooks.add({ name: 'invoice.paid', body: Paid })
  await app.register(versioned(async (api) => {
    api.get('/paid', { schema: { response: { 200: Paid } } }, async () => ({ id: 'in_1', note: null, nullable: true, type: 't' }))
  }))
  const answer = await app.inject({ method: 'GET', url: '/paid', headers: { 'x-api-version': '2000-01-01' } })
  t.same(answer.json(), { id: 'in_1', note: null, nullable: true, type: 't' }, 'the server sends null')
  const document = app.versioner.openapi('2000-01-01') as { components: { schemas: { Paid: { properties: { note: unknown } } } } }
  t.same(document.components.schemas.Paid.properties.note, { type: ['string', 'null'] }, 'OpenAPI 3.1: null among the types')
  const types = await typesModule(app)
  t.match(types, /'2000-01-01': \{(?:\n {4,}.*)*?\n {4}Paid: \{\n {6}id: string\n {6}note: string \| null\n {6}nullable: boolean\n {6}type: string\n/)
  t.match(types, /'POST invoice\.paid': Schemas\['2000-01-01'\]\['Paid'\]/)
})
