/**
 * Every document of every kind of application is valid OpenAPI 3.1, whatever the application routes: named
 * versions, a QUERY route (kept under the path item's `x-query`, decision 0052), two versioned APIs. Checked with
 * swagger-parser and with Spectral's `oas` ruleset (0 errors).
 */
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Spectral, type RulesetDefinition } from '@stoplight/spectral-core'
import { oas } from '@stoplight/spectral-rulesets'
import { EVERY_KIND_OF_DOCUMENT, everyKindOfApp } from '../helpers/every-kind-of-app'
import { validationError } from '../helpers/openapi-documents'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned, Version, VersionBundle } from '../../plugin'
import { compareDocuments, typesModule } from '../../tools'

/** Every document the app serves, by `<prefix> <version>`. */
async function documentsOf (app: FastifyInstance): Promise<Map<string, Record<string, any>>> {
  const documents = new Map<string, Record<string, any>>()
  for (const [prefix, versions] of EVERY_KIND_OF_DOCUMENT) {
    for (const version of versions) {
      const response = await app.inject({ url: `${prefix}/openapi.json`, query: { version } })
      if (response.statusCode !== 200) throw new Error(`${prefix} ${version}: ${response.statusCode} ${response.body}`)
      documents.set(`${prefix} ${version}`, response.json())
    }
  }
  return documents
}

test('a QUERY route is served, and its document keeps it under x-query: valid OpenAPI 3.1, the operation in 3.2\'s shape', async (t) => {
  const app = await everyKindOfApp(t)
  const served = await app.inject({ method: 'QUERY' as never, url: '/a/search', headers: { 'x-api-version': '2025-06-01' }, payload: { term: 'pen' } })
  t.equal(served.statusCode, 200)
  t.same(served.json(), { hits: ['pen'] })
  const documents = await documentsOf(app)
  const document = documents.get('/a 2025-06-01.dahlia') as Record<string, any>
  const item = document.paths['/a/search']
  t.notOk('query' in item, 'no query operation: OpenAPI 3.1 has none')
  t.equal(item['x-query'].summary, 'Search the items', 'the operation is kept under x-query')
  t.equal(item['x-query'].operationId, 'queryASearch', 'with its generated operation id')
  t.match(item['x-query'].requestBody.content['application/json'].schema, { $ref: '#/components/schemas/SearchBody' })
  t.ok(document.components.schemas.SearchBody, 'the components it uses are kept')
  t.ok(item['x-query'].parameters.some((parameter: { name: string }) => parameter.name === 'x-api-version'), 'with the version parameter')
  t.ok(item['x-query'].responses['400'], "and the plugin's own answers")
  t.ok(documents.get('/a unversioned')?.paths['/a/lookup']['x-query'], 'unversioned QUERY routes too')
})

test('every document of an app with named versions, QUERY routes and two APIs passes swagger-parser and Spectral oas with 0 errors', async (t) => {
  const app = await everyKindOfApp(t)
  const documents = await documentsOf(app)
  t.equal(documents.size, 6)
  t.ok(documents.get('/a 2025-06-01.dahlia')?.components.schemas.SearchBody, 'a document holding a component only a QUERY route uses')
  const spectral = new Spectral()
  // The `oas` ruleset as `spectral lint` applies it (`extends: spectral:oas`: its recommended rules).
  spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] })
  for (const [key, document] of documents) {
    t.equal(await validationError(document), undefined, `${key}: swagger-parser validates it`)
    const results = await spectral.run(JSON.stringify(document))
    const errors = results.filter((result) => result.severity === 0)
    t.same(errors.map((error) => `${error.code} ${error.path.join('.')}: ${error.message}`), [], `${key}: Spectral oas reports no error`)
    const aboutQuery = results.filter((result) => result.code === 'oas3-unused-component' || result.path.includes('x-query'))
    t.same(aboutQuery.map((result) => `${result.code} ${result.path.join('.')}`), [],
      `${key}: no Spectral warning about the QUERY route or the components only it uses`)
  }
})

test('regression: a route of a method added with addHttpMethod (SEARCH) is kept under x-search, with the error answers, typed and compared by check', async (t) => {
  const searchApp = async (field: string) => {
    const app = Fastify()
    t.teardown(() => app.close())
    app.addHttpMethod('SEARCH', { hasBody: true })
    await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01')) })
    await app.register(versioned(async (api) => {
      api.route({ method: 'SEARCH', url: '/items', schema: { body: Type.Object({ [field]: Type.String() }), response: { 200: Type.Object({ n: Type.Integer() }) } }, handler: async () => ({ n: 1 }) })
      api.route({ method: 'QUERY', url: '/items', schema: { body: Type.Object({ term: Type.String() }), response: { 200: Type.Object({ n: Type.Integer() }) } }, handler: async () => ({ n: 2 }) })
    }))
    await app.ready()
    return app
  }
  const app = await searchApp('q')
  const served = await app.inject({ method: 'SEARCH' as never, url: '/items', headers: { 'x-api-version': '2001-01-01' }, payload: { q: 'pen' } })
  t.same([served.statusCode, served.json()], [200, { n: 1 }])
  const document = (await app.inject({ url: '/openapi.json', query: { version: '2001-01-01' } })).json()
  const item = document.paths['/items']
  t.notOk('search' in item, 'no search operation: OpenAPI 3.1 has none (the path item was invalid)')
  t.equal(item['x-search'].operationId, 'searchItems', 'the operation is kept under x-search')
  t.ok(item['x-search'].responses['400'], "with the plugin's own answers")
  t.ok(item['x-query'], 'beside a QUERY operation at the same path')
  t.equal(await validationError(document), undefined, 'swagger-parser validates it')
  const types = await typesModule(app)
  t.match(types, /'SEARCH \/items'/, 'typed')
  t.match(types, /'QUERY \/items'/)
  const renamed = (await (await searchApp('term')).inject({ url: '/openapi.json', query: { version: '2001-01-01' } })).json()
  const breaks = compareDocuments('2001-01-01', document, renamed).filter((change) => change.breaking).map((change) => change.text)
  t.ok(breaks.some((text) => text.startsWith('2001-01-01 SEARCH /items: request body')), `check sees the SEARCH body renamed: ${breaks.join('; ')}`)
  t.notOk(breaks.some((text) => text.includes('QUERY')), 'and nothing of the QUERY route beside it')
})
