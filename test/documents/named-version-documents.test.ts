/**
 * Named versions (`2025-06-01.dahlia`) in documents, docs pages and `injectEveryVersion`: every document is valid
 * (no `format: 'date'` on a named value), and every value the API accepts (the plain date of a named version, a
 * date between versions) is answered with the version the API serves it as.
 */
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { fastifyVersioner, versioned, type FastifyVersionerOptions } from '../../plugin'
import { injectEveryVersion } from '../../tools'
import { bundleOf } from '../helpers/http-apps'
import { assertDocumentsValid, documentOf } from '../helpers/openapi-documents'

const NAMED = ['2025-06-01.dahlia', '2025-01-01', '2024-06-01.basil'] as const

async function namedApp (t: { teardown: (fn: () => unknown) => void }, extra: Partial<FastifyVersionerOptions> = {}): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: bundleOf(NAMED), ...extra })
  await app.register(versioned(async (api) => {
    api.get('/items', async (request) => ({ version: request.apiVersion }))
  }))
  await app.ready()
  return app
}

test('named versions: the version parameter has format date only on plain dates, and its default passes Ajv with formats', async (t) => {
  for (const location of ['header', 'path'] as const) {
    const app = await namedApp(t, { apiVersionLocation: location })
    const ajv = addFormats(new Ajv2020({ strict: false, useDefaults: true }))
    for (const version of NAMED) {
      const document = documentOf(app, version)
      const name = location === 'header' ? 'x-api-version' : 'x_api_version'
      const path = location === 'header' ? '/items' : `/{${name}}/items`
      const parameter = (document.paths[path].get.parameters as Array<Record<string, any>>).find((item) => item.name === name)
      t.ok(parameter, `${location} ${version}: the version parameter is documented`)
      t.same(parameter?.schema.enum, [version])
      t.equal(parameter?.schema.format, version.includes('.') ? undefined : 'date', `${location} ${version}: format date only on a plain date`)
      t.ok(ajv.validate(parameter?.schema, version), `${location} ${version}: the version passes its own schema, formats checked`)
      if (location === 'header') t.ok(ajv.validate(parameter?.schema, parameter?.schema.default), `${version}: and so does the default`)
    }
    await assertDocumentsValid(t, app)
  }
})

test('GET /openapi.json: a plain date of a named version, or a date between versions, is answered with the version the API serves', async (t) => {
  const app = await namedApp(t)
  for (const [asked, served] of [
    ['2025-06-01.dahlia', '2025-06-01.dahlia'],
    ['2025-06-01', '2025-06-01.dahlia'],
    ['2026-01-01', '2025-06-01.dahlia'],
    ['2025-03-01', '2025-01-01'],
    ['2024-06-01', '2024-06-01.basil']
  ]) {
    const byQuery = await app.inject({ url: `/openapi.json?version=${asked}` })
    t.equal(byQuery.statusCode, 200, `?version=${asked}: 200`)
    t.equal(byQuery.json().info.version, served, `?version=${asked}: the document of ${served}`)
    const byHeader = await app.inject({ url: '/openapi.json', headers: { 'x-api-version': asked } })
    t.equal(byHeader.json().info.version, served, `header ${asked}: the document of ${served}`)
    t.equal((await app.inject({ url: '/items', headers: { 'x-api-version': asked } })).json().version, served, `${asked}: as the API serves it`)
  }
  for (const refused of ['2024-01-01', '2025-06-01.acacia', 'latest']) {
    const response = await app.inject({ url: `/openapi.json?version=${refused}` })
    t.equal(response.statusCode, 404, `?version=${refused}: 404, as the API refuses it`)
    t.equal(response.json().code, 'FST_VERSIONER_OPENAPI_NOT_FOUND')
    t.match(response.json().message, `'${refused}'`, 'naming the value asked for')
  }
})

test('app.versioner.openapi(version) is a lookup by exact value: a plain date or a date between versions is undefined', async (t) => {
  const app = await namedApp(t)
  t.equal((app.versioner.openapi('2025-06-01.dahlia')?.info as { version?: string } | undefined)?.version, '2025-06-01.dahlia', 'a version\'s own value')
  for (const value of ['2025-06-01', '2026-01-01', '2025-03-01', '2024-01-01']) {
    t.equal(app.versioner.openapi(value), undefined, `${value}: no document, though GET /openapi.json?version=${value} answers one or a 404`)
  }
})

test('GET /docs and /redoc: a plain date of a named version gives the page of the version the API serves', async (t) => {
  const app = await namedApp(t)
  for (const base of ['/docs', '/redoc']) {
    const page = await app.inject({ url: `${base}?version=2025-06-01` })
    t.equal(page.statusCode, 200, `${base}: 200`)
    t.equal(page.body, (await app.inject({ url: `${base}?version=2025-06-01.dahlia` })).body, `${base}: the page of 2025-06-01.dahlia`)
    t.equal((await app.inject({ url: `${base}?version=2025-02-01` })).body, (await app.inject({ url: `${base}?version=2025-01-01` })).body,
      `${base}: a date between versions gives the older version's page`)
    t.equal((await app.inject({ url: `${base}?version=2020-01-01` })).statusCode, 404, `${base}: older than the oldest is a 404`)
  }
})

test('injectEveryVersion({ versions }): a plain date of a named version is sent as given, answered under the version served', async (t) => {
  const app = await namedApp(t)
  const answers = await injectEveryVersion(app, { url: '/items' }, { versions: ['2025-06-01', '2025-02-01'] })
  t.same([...answers.keys()], ['2025-06-01.dahlia', '2025-01-01'])
  t.same(answers.get('2025-06-01.dahlia')?.json(), { version: '2025-06-01.dahlia' })
  t.same(answers.get('2025-01-01')?.json(), { version: '2025-01-01' })
  const paths = await namedApp(t, { apiVersionLocation: 'path' })
  const byPath = await injectEveryVersion(paths, { url: '/items' }, { versions: ['2024-06-01'] })
  t.same([...byPath.keys()], ['2024-06-01.basil'])
  t.same(byPath.get('2024-06-01.basil')?.json(), { version: '2024-06-01.basil' }, 'path versions too')
  await t.rejects(injectEveryVersion(app, { url: '/items' }, { versions: ['2020-01-01'] }),
    { code: 'FST_VERSIONER_TOOL', message: /'2020-01-01' is not a version this API serves/ }, 'a value the API refuses is a coded error')
})

test('regression: the documents, docs pages and upgrade guide say why a value is refused, as the API does (issue 30)', async (t) => {
  const app = await namedApp(t)
  const typo = "2025-06-01 is the version 2025-06-01.dahlia, and 'dahlya' is not its name: send 2025-06-01.dahlia or the plain date 2025-06-01."
  const document = await app.inject({ url: '/openapi.json?version=2025-06-01.dahlya' })
  t.equal(document.statusCode, 404)
  t.equal(document.json().message, `No OpenAPI document for version '2025-06-01.dahlya': ${typo} ` +
    "Ask for one of: 2025-06-01.dahlia, 2025-01-01, 2024-06-01.basil, unversioned (as ?version=<version> or the 'x-api-version' header).")
  const api = await app.inject({ url: '/items', headers: { 'x-api-version': '2025-06-01.dahlya' } })
  t.match(api.json().message, typo, 'the same words as the API\'s 400')
  const bare = await app.inject({ url: '/openapi.json?version=basil' })
  t.match(bare.json().message, "'basil' is the name of version 2024-06-01.basil: send 2024-06-01.basil or the plain date 2024-06-01.")
  t.match((await app.inject({ url: '/openapi.json?version=latest' })).json().message,
    /^No OpenAPI document for version 'latest': it must be a date written YYYY-MM-DD or a named version's full name \(2025-06-01\.dahlia, 2024-06-01\.basil\)\. Ask for one of/)
  const page = await app.inject({ url: '/docs?version=basil' })
  t.equal(page.statusCode, 404)
  t.match(page.body, '<p>&#39;basil&#39; is the name of version 2024-06-01.basil: send 2024-06-01.basil or the plain date 2024-06-01.</p>')
  const guide = await app.inject({ url: '/docs/upgrade?from=2024-06-01.basl&to=2025-06-01' })
  t.equal(guide.statusCode, 400)
  t.match(guide.json().message, '\'from\' "2024-06-01.basl" is not a version this API serves: 2024-06-01 is the version 2024-06-01.basil, and \'basl\' is not its name')
})
