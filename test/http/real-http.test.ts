/**
 * The key routing and version-picking cases through a real HTTP server on 127.0.0.1 and Node's `fetch`.
 */
import { test } from 'tap'
import fastifyStatic from '@fastify/static'
import type { FastifyRequest } from 'fastify'
import { buildApp } from '../../examples/users/app'
import fastifyCookie from '@fastify/cookie'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, HeadVersion, schema, Version, VersionBundle, VersionChange, versioned,
  type RequestInfo, type ResponseInfo
} from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { bundleOf, DATES, listen, sharedPathBundle, sharedPathRoutes, SUPPORTED_DATES } from '../helpers/http-apps'

async function exampleServer (t: { teardown: (fn: () => unknown) => void }): Promise<string> {
  const app = await buildApp()
  t.teardown(() => app.close())
  return listen(app)
}

function post (url: string, version: string | undefined, body: unknown): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (version !== undefined) headers['x-api-version'] = version
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })
}

function get (url: string, version?: string): Promise<Response> {
  return fetch(url, { headers: version === undefined ? {} : { 'x-api-version': version } })
}

test('the example over HTTP: each version in its shape, the served version echoed, waterfalling', async (t) => {
  const base = await exampleServer(t)
  const created = await post(`${base}/users`, '2000-01-01', { address: '1 Main St' })
  t.equal(created.status, 200)
  t.equal(created.headers.get('x-api-version'), '2000-01-01')
  t.equal(created.headers.get('vary'), 'x-api-version', 'every answer naming a version varies on the version header, POST included')
  t.match(created.headers.get('content-type'), /^application\/json/)
  const user = await created.json() as { id: string, address: string }
  t.equal(user.address, '1 Main St')
  t.same(Object.keys(user).sort(), ['address', 'id'])

  const between = await get(`${base}/users/${user.id}`, '2001-06-15')
  t.equal(between.status, 200)
  t.equal(between.headers.get('x-api-version'), '2001-01-01')
  t.equal(between.headers.get('vary'), 'x-api-version', 'a GET response varies on the version header')
  t.same(await between.json(), { id: user.id, addresses: ['1 Main St'] })

  const future = await get(`${base}/users/${user.id}`, '2100-01-01')
  t.equal(future.headers.get('x-api-version'), '2002-01-01')
  t.same(await future.json(), { id: user.id })

  const addresses = await get(`${base}/users/${user.id}/addresses`, '2002-01-01')
  t.equal(addresses.status, 200)
  const list = await addresses.json() as { data: Array<{ value: string }> }
  t.same(list.data.map((address) => address.value), ['1 Main St'])

  const latest = await post(`${base}/users`, '2002-01-01', { defaultAddress: 'Elm St' })
  t.equal(latest.status, 200)
  t.equal(latest.headers.get('x-api-version'), '2002-01-01')
})

test('the example over HTTP: 400s for bad, too old and missing versions; 404 for an absent route; 400 validation', async (t) => {
  const base = await exampleServer(t)

  const malformed = await post(`${base}/users`, '2001-13-01', { address: 'a' })
  t.equal(malformed.status, 400)
  t.equal(malformed.headers.get('x-api-version'), null)
  t.same(await malformed.json(), {
    statusCode: 400,
    code: 'FST_VERSIONER_INVALID_API_VERSION',
    error: 'Bad Request',
    message: `Invalid API version '2001-13-01' in the 'x-api-version' header: it must be a date written YYYY-MM-DD. ${SUPPORTED_DATES}`
  })

  const tooOld = await get(`${base}/users/8a3c2b3e-3a43-4f53-9b8a-6f0f7e6b8b53`, '1999-12-31')
  t.equal(tooOld.status, 400)
  const tooOldBody = await tooOld.json() as { code: string, message: string }
  t.equal(tooOldBody.code, 'FST_VERSIONER_INVALID_API_VERSION')
  t.equal(tooOldBody.message, `Unsupported API version '1999-12-31' in the 'x-api-version' header: it is older than the oldest version. ${SUPPORTED_DATES}`)

  const missing = await post(`${base}/users`, undefined, { address: 'a' })
  t.equal(missing.status, 400)
  const missingBody = await missing.json() as { code: string, message: string }
  t.equal(missingBody.code, 'FST_VERSIONER_MISSING_API_VERSION')
  t.equal(missingBody.message,
    `This route is versioned: send the API version in the 'x-api-version' header (for example 'x-api-version: 2002-01-01'). ${SUPPORTED_DATES}`)

  const created = await post(`${base}/users`, '2001-01-01', { addresses: ['x'] })
  const { id } = await created.json() as { id: string }
  const absent = await get(`${base}/users/${id}/addresses`, '2001-01-01')
  t.equal(absent.status, 404)
  t.same(await absent.json(), { message: `Route GET:/users/${id}/addresses not found`, error: 'Not Found', statusCode: 404 })

  const invalid = await post(`${base}/users`, '2001-01-01', { address: 'a' })
  t.equal(invalid.status, 400)
  t.same(await invalid.json(), {
    statusCode: 400, code: 'FST_ERR_VALIDATION', error: 'Bad Request', message: "body must have required property 'addresses'"
  })

  const health = await get(`${base}/health`, 'garbage')
  t.equal(health.status, 200)
  t.same(await health.json(), { ok: true })
  t.equal(health.headers.get('x-api-version'), null)
})

test('over HTTP: static files and path versions under a prefix; a custom header name is echoed', async (t) => {
  const root = t.testdir({ 'logo.txt': 'static bytes' })
  const app = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { apiVersionLocation: 'path', apiVersionParameterName: 'Api-Version' } })
  await app.register(fastifyStatic, { root, prefix: '/assets/' })
  await app.register(versioned(async (api) => {
    api.get('/users/:id', async (request) => ({ id: (request.params as { id: string }).id, version: request.apiVersion }))
  }), { prefix: '/api' })
  const base = await listen(app)

  const served = await fetch(`${base}/api/2000-08-08/users/u1`)
  t.equal(served.status, 200)
  t.same(await served.json(), { id: 'u1', version: '2000-01-01' })
  t.equal(served.headers.get('api-version'), '2000-01-01')
  t.equal(served.headers.get('vary'), null, 'path versions do not vary on a header')

  const bad = await fetch(`${base}/api/v2/users/u1`)
  t.equal(bad.status, 400)
  const badBody = await bad.json() as { code: string, message: string }
  t.equal(badBody.code, 'FST_VERSIONER_INVALID_API_VERSION')
  t.equal(badBody.message, `Invalid API version 'v2' in the path, right after '/api' (as in /api/<version>/…): it must be a date written YYYY-MM-DD. ${SUPPORTED_DATES}`)

  for (const header of [undefined, '2001-01-01', 'garbage']) {
    const file = await fetch(`${base}/assets/logo.txt`, { headers: header === undefined ? {} : { 'api-version': header } })
    t.equal(file.status, 200, `static file with ${String(header)}`)
    t.equal(await file.text(), 'static bytes')
    t.equal(file.headers.get('api-version'), null)
  }
})

test('over HTTP: shared paths reach the right handler, and interleaved requests keep their own versions', async (t) => {
  const delay = (request: FastifyRequest): Promise<unknown> =>
    new Promise((resolve) => setTimeout(resolve, Number(request.headers['x-delay'] ?? 0)))
  // Two HEAD routes on one path are told apart when the route is found: the version comes from the header there.
  const app = await versionedApp(t, sharedPathBundle())
  await app.register(sharedPathRoutes, { prefix: '/api' })
  const base = await listen(app)
  // An async default (a version per client plan) on another application, for the same interleaving.
  const slowApp = await versionedApp(t, bundleOf(DATES), undefined, {
    versioner: {
      apiVersionDefaultValue: async (request: FastifyRequest) => {
        await delay(request)
        return String(request.headers['x-plan'])
      }
    }
  })
  await slowApp.register(versioned(async (api) => {
    api.get('/slow', async (request) => {
      const before = request.apiVersion
      await delay(request)
      return { before, after: request.apiVersion }
    })
  }))
  const slowBase = await listen(slowApp)

  t.same(await (await get(`${base}/api/items`, '2002-01-01')).json(), { handler: 'new', version: '2002-01-01' })
  t.same(await (await get(`${base}/api/items`, '2001-04-04')).json(), { handler: 'old', version: '2001-01-01' })
  t.equal((await get(`${base}/api/things`, '2001-04-04')).status, 404)

  // Earlier requests wait longest, so they finish in the reverse order.
  const plans = ['2002-01-01', '2001-01-01', '2000-01-01', '2001-05-05', '2002-02-02', '2000-09-09']
  const served = ['2002-01-01', '2001-01-01', '2000-01-01', '2001-01-01', '2002-01-01', '2000-01-01']
  const requests = plans.flatMap((plan, index) => {
    const wait = String(30 - index * 5)
    return [
      fetch(`${base}/api/items`, { headers: { 'x-api-version': plan } }),
      fetch(`${slowBase}/slow`, { headers: { 'x-plan': plan, 'x-delay': wait } }),
      fetch(`${slowBase}/slow`, { headers: { 'x-api-version': plan, 'x-delay': wait } })
    ]
  })
  const responses = await Promise.all(requests)
  for (const [index, response] of responses.entries()) {
    const version = served[Math.floor(index / 3)]
    t.equal(response.status, 200, `request ${index}: 200`)
    t.equal(response.headers.get('x-api-version'), version, `request ${index}: echo ${version}`)
    const expected = index % 3 === 0
      ? { handler: version === '2002-01-01' ? 'new' : 'old', version }
      : { before: version, after: version }
    t.same(await response.json(), expected, `request ${index}: its own version`)
  }
})

test('over HTTP: a converter\'s 4xx refusal, a failing error converter\'s 500, the lifecycle Link on a 404, a cookie set after reading headers', async (t) => {
  const Thing = Type.Object({ kind: Type.String() })
  const Conflict = Type.Object({ conflictingName: Type.String() })
  class OldThings extends VersionChange {
    description = 'Legacy kinds are refused; conflicts named the field name; /fresh did not exist.'
    instructionsToMigrateToPreviousVersion = [
      schema(Conflict).field('conflictingName').had({ name: 'name' }),
      endpoint('/fresh', ['GET']).didntExist
    ]

    @ConvertRequestToNextVersionFor(Thing)
    refuseLegacy (request: RequestInfo) {
      if (request.body.kind === 'legacy') throw Object.assign(new Error("kind 'legacy' is no longer supported"), { statusCode: 422 })
    }

    @ConvertResponseToPreviousVersionFor(Conflict, { migrateHttpErrors: true })
    conflictName (response: ResponseInfo) {
      if (response.body.conflictingName === 'fail') throw new Error('cannot convert')
      response.body.name = response.body.conflictingName
      delete response.body.conflictingName
      response.headers['x-converted'] = 'yes'
      response.setCookie('seen', 'yes')
    }
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', OldThings),
    new Version('2000-01-01', { deprecatedAt: '2025-01-01', link: 'https://example.com/upgrade' }))
  const app = await versionedApp(t, versions, async (api) => {
    api.post('/things', { schema: { body: Thing, response: { 200: Thing, 409: Conflict } } }, async (request) => {
      if (request.body.kind !== 'ok') throw Object.assign(new Error('conflict'), { statusCode: 409, conflictingName: request.body.kind })
      return request.body
    })
    api.get('/fresh', async () => ({ ok: true }))
  }, { beforeVersioner: async (instance) => { await instance.register(fastifyCookie) } })
  const base = await listen(app)

  const refused = await post(`${base}/things`, '2000-01-01', { kind: 'legacy' })
  t.same([refused.status, (await refused.json() as { message: string }).message], [422, "kind 'legacy' is no longer supported"], 'a converter\'s 422')
  const converted = await post(`${base}/things`, '2000-01-01', { kind: 'taken' })
  t.same([converted.status, await converted.json()], [409, { name: 'taken' }], 'the 409 converted')
  t.match(converted.headers.get('set-cookie'), /^seen=yes/, 'the cookie set after reading the headers')
  const failed = await post(`${base}/things`, '2000-01-01', { kind: 'fail' })
  const failure = await failed.text()
  t.equal(failed.status, 500)
  t.match(JSON.parse(failure), { code: 'FST_VERSIONER_CONVERTER_FAILED' })
  t.notMatch(failure, /conflictingName/, 'no HEAD field')
  const absent = await get(`${base}/fresh`, '2000-01-01')
  t.equal(absent.status, 404, 'a route the deprecated version lacks')
  t.equal(absent.headers.get('link'), '<https://example.com/upgrade>; rel="deprecation", </openapi.json?version=2001-01-01>; rel="successor-version"')
})
