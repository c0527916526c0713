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
