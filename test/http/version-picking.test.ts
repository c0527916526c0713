/**
 * Version picking: plugin options and their errors, header names, path versions, the date and string
 * formats, default versions (a string or a function of the request) and custom `VersionPicker`s; what the 400 of a
 * refused value says (property-tested over near-miss named values), and `Vary` on every answer naming a version.
 */
import { test } from 'tap'
import fc from 'fast-check'
import Fastify, { type FastifyRequest, type FastifyServerOptions } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertResponseToPreviousVersionFor, endpoint, fastifyVersioner, HeadVersion, schema, Version, VersionBundle, VersionChange, VersionPicker, versioned,
  type FastifyVersionerOptions, type ResponseInfo
} from '../../plugin'
import { resolveVersion, type ApiVersionFormat } from '../../lib/serve/version-picking'
import { classifyRefusal, refusalReason } from '../../lib/serve/error-handling'
import { namedVersionValues } from '../helpers/version-values'
import { versionedApp } from '../helpers/apps'
import { bundleOf, DATES, getWith, listen, sharedPathBundle, sharedPathRoutes, SUPPORTED_DATES } from '../helpers/http-apps'
import { jsonOf } from '../helpers/http'
import { changeClass } from '../helpers/version-changes'
import { anotherCopy } from '../helpers/another-copy'

const echoRoute = versioned(async (api) => {
  api.get('/echo', async (request) => ({ version: request.apiVersion }))
})

test('bad options fail registration with FST_VERSIONER_INVALID_OPTION and say what is accepted', async (t) => {
  const other = anotherCopy()
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['unknown option', { apiVersionLocaton: 'path' }, /^Unknown option\(s\) apiVersionLocaton\. Known options: versions, apiVersionLocation/],
    ['no versions', { versions: undefined }, /^Option 'versions' must be a VersionBundle; got undefined\.$/],
    ['bad location', { apiVersionLocation: 'query' }, /^Option 'apiVersionLocation' must be 'header' or 'path'; got 'query'\.$/],
    ['bad format', { apiVersionFormat: 'semver' }, /^Option 'apiVersionFormat' must be 'date' or 'month' or 'string'; got 'semver'\.$/],
    ['non-date versions with the date format', { versions: bundleOf(['v2', 'v1']) },
      /every version must be an ISO date \(YYYY-MM-DD\); these are not: v2, v1\. Use apiVersionFormat: 'string'/],
    ['impossible date as a version', { versions: bundleOf(['2001-02-30', '2000-01-01']) }, /these are not: 2001-02-30\./],
    ['default older than the oldest', { apiVersionDefaultValue: '1999-01-01' },
      /^Option 'apiVersionDefaultValue' '1999-01-01' is not a version this API serves; versions: 2002-01-01, 2001-01-01, 2000-01-01\.$/],
    ['malformed default', { apiVersionDefaultValue: 'latest' }, /^Option 'apiVersionDefaultValue' 'latest' is not a version/],
    ['unknown string default', { versions: bundleOf(['v2', 'v1']), apiVersionFormat: 'string', apiVersionDefaultValue: 'v3' },
      /'v3' is not a version this API serves; versions: v2, v1\./],
    ['default neither string nor function', { apiVersionDefaultValue: 42 },
      /^Option 'apiVersionDefaultValue' must be a version string or a function of the request; got 42\.$/],
    ['default with path versions', { apiVersionLocation: 'path', apiVersionDefaultValue: '2001-01-01' },
      /^Option 'apiVersionDefaultValue' cannot be used with apiVersionLocation 'path'/],
    ['async default with path versions', { apiVersionLocation: 'path', apiVersionDefaultValue: async () => '2001-01-01' },
      /cannot be used with apiVersionLocation 'path'/],
    ['picker not a VersionPicker', { versionPicker: class NotAPicker { pick () { return '2001-01-01' } } },
      /^Option 'versionPicker' must be VersionPicker or a subclass of it; got class/],
    ['picker a function', { versionPicker: () => '2001-01-01' }, /^Option 'versionPicker' must be VersionPicker or a subclass of it/],
    ['picker an instance', { versionPicker: new VersionPicker({ versions: bundleOf(DATES), location: 'header', format: 'date', parameterName: 'x', defaultValue: undefined }) },
      /^Option 'versionPicker' must be VersionPicker or a subclass of it/],
    ['header name with a space', { apiVersionParameterName: 'api version' }, /must be a valid header name; got 'api version'\./],
    ['empty header name', { apiVersionParameterName: '' }, /must be a valid header name/],
    // regression: a bundle built with another copy of the package read as "must be a VersionBundle; got { headVersion: … }"
    ['bundle of another copy', { versions: new other.VersionBundle(new other.Version('2000-01-01')) },
      /^Option 'versions' must be a VersionBundle; got a VersionBundle of another copy of fastify-versioner/],
    // regression: it said to import everything from one copy, which a service does: it said not how to install one
    // regression: it read "must be VersionPicker or a subclass of it; got class VersionPicker"
    ['picker of another copy', { versions: bundleOf(DATES), versionPicker: other.VersionPicker },
      /^Option 'versionPicker' must be VersionPicker or a subclass of it; got a VersionPicker of another copy of fastify-versioner: /],
    ['bundle of another copy, how to install one', { versions: new other.VersionBundle(new other.Version('2000-01-01')) },
      /lists fastify-versioner and @sinclair\/typebox in its peerDependencies, not its dependencies; .*then run `npm dedupe`\./],
    // regression: a copy the same process loaded again (the helper's way, as jest.resetModules() does) got only the
    // advice to install one, which `npm ls` showed it had
    ['bundle of a copy a test runner loaded again', { versions: new other.VersionBundle(new other.Version('2000-01-01')) },
      /Where `npm ls` lists one copy, .*module registry \(`jest\.resetModules\(\)`, `jest\.isolateModules\(\)`\).*on the same side of the reset\.$/]
  ]
  for (const [label, options, message] of cases) {
    const app = Fastify()
    t.teardown(() => app.close())
    const error = await app.register(fastifyVersioner, { versions: bundleOf(DATES), ...options } as unknown as FastifyVersionerOptions)
      .then(() => app.ready()).then(() => undefined, (err: Error & { code?: string }) => err)
    t.equal(error?.code, 'FST_VERSIONER_INVALID_OPTION', `${label}: code`)
    t.match(error?.message, message, `${label}: message`)
  }
})

test('registering versioned(...) before the plugin fails app.ready()', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(echoRoute)
  app.register(fastifyVersioner, { versions: bundleOf(DATES) })
  const error = await app.ready().then(() => undefined, (err: Error & { code?: string }) => err)
  t.equal(error?.code, 'FST_VERSIONER_INVALID_OPTION')
  t.match(error?.message, /^versioned\(\.\.\.\) was registered before fastifyVersioner\. Register fastifyVersioner first/)
})

test('versioned(...) beside a plugin registered in another context (a plugins/ file without fastify-plugin) says so', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  // @fastify/autoload's plugins/versioner.js, not wrapped with fastify-plugin: the plugin lives in its own context.
  app.register(async function versionerFile (fastify) { await fastify.register(fastifyVersioner, { versions: bundleOf(DATES) }) })
  app.register(echoRoute)
  const error = await app.ready().then(() => undefined, (err: Error & { code?: string }) => err)
  t.equal(error?.code, 'FST_VERSIONER_INVALID_OPTION')
  t.match(error?.message, /^versioned\(\.\.\.\) cannot see fastifyVersioner: it is registered in another, encapsulated context /)
  t.match(error?.message, /Wrap that plugin with fastify-plugin/)
  t.notMatch(error?.message, /was registered before/)
})

test('apiVersionParameterName: the version is read from that header and echoed under it, with Vary', async (t) => {
  const app = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { apiVersionParameterName: 'Stripe-Version' } })
  await app.register(echoRoute)
  const response = await getWith(app, '/echo', '2001-03-04', 'stripe-version')
  t.equal(response.statusCode, 200)
  t.same(jsonOf(response), { version: '2001-01-01' })
  t.equal(response.headers['stripe-version'], '2001-01-01')
  t.equal(response.headers.vary, 'stripe-version')
  t.equal(response.headers['x-api-version'], undefined, 'the default header is not used')

  // Upper-case in the request works too (header names are case-insensitive).
  const upper = await app.inject({ url: '/echo', headers: { 'STRIPE-VERSION': '2000-01-01' } })
  t.same(jsonOf(upper), { version: '2000-01-01' })

  // x-api-version is not read any more.
  const other = await getWith(app, '/echo', '2001-01-01', 'x-api-version')
  t.equal(other.statusCode, 400)
  t.equal(jsonOf(other).code, 'FST_VERSIONER_MISSING_API_VERSION')
  t.equal(jsonOf(other).message,
    `This route is versioned: send the API version in the 'stripe-version' header (for example 'stripe-version: 2002-01-01'). ${SUPPORTED_DATES}`)
  const bad = await getWith(app, '/echo', 'soon', 'stripe-version')
  t.equal(jsonOf(bad).message, `Invalid API version 'soon' in the 'stripe-version' header: it must be a date written YYYY-MM-DD. ${SUPPORTED_DATES}`)
})

test('apiVersionHeaderName is a deprecated alias that warns FSTVRSDEP001', async (t) => {
  const warnings: Array<{ code?: string, name: string, message: string }> = []
  const onWarning = (warning: Error & { code?: string }): void => { warnings.push(warning) }
  process.on('warning', onWarning)
  t.teardown(() => { process.removeListener('warning', onWarning) })

  const app = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { apiVersionHeaderName: 'Api-Version' } })
  await app.register(echoRoute)
  await new Promise((resolve) => setImmediate(resolve))
  const warning = warnings.find((item) => item.code === 'FSTVRSDEP001')
  t.ok(warning, 'FSTVRSDEP001 is emitted')
  t.equal(warning?.name, 'DeprecationWarning')
  t.match(warning?.message, /apiVersionHeaderName.*deprecated.*apiVersionParameterName/)

  const response = await getWith(app, '/echo', '2001-05-05', 'api-version')
  t.equal(response.statusCode, 200)
  t.same(jsonOf(response), { version: '2001-01-01' })
  t.equal(response.headers['api-version'], '2001-01-01')
  t.equal(response.headers.vary, 'api-version')
  const empty = await getWith(app, '/echo', '', 'api-version')
  t.equal(empty.statusCode, 400)
  t.equal(jsonOf(empty).code, 'FST_VERSIONER_MISSING_API_VERSION')
  t.match(jsonOf(empty).message, /in the 'api-version' header/)
})

test('path versions: the date format waterfalls and checks the segment; no Vary', async (t) => {
  const app = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { apiVersionLocation: 'path' } })
  await app.register(versioned(async (api) => {
    api.get('/users', async (request) => ({ version: request.apiVersion, params: request.params }))
  }))
  const exact = await app.inject({ url: '/2001-01-01/users' })
  t.equal(exact.statusCode, 200)
  t.same(jsonOf(exact), { version: '2001-01-01', params: {} }, 'the version segment is not left in params')
  t.equal(exact.headers['x-api-version'], '2001-01-01')
  t.equal(exact.headers.vary, undefined)

  const between = await app.inject({ url: '/2001-07-04/users' })
  t.equal(between.statusCode, 200)
  t.equal(between.headers['x-api-version'], '2001-01-01')
  t.same(jsonOf(between).version, '2001-01-01')
  t.equal((await app.inject({ url: '/2030-01-01/users' })).headers['x-api-version'], '2002-01-01')

  const malformed = await app.inject({ url: '/2001-13-01/users' })
  t.equal(malformed.statusCode, 400)
  t.equal(jsonOf(malformed).code, 'FST_VERSIONER_INVALID_API_VERSION')
  t.equal(jsonOf(malformed).message,
    `Invalid API version '2001-13-01' in the path, right after '/' (as in /<version>/…): it must be a date written YYYY-MM-DD. ${SUPPORTED_DATES}`)
  const old = await app.inject({ url: '/1999-01-01/users' })
  t.equal(old.statusCode, 400)
  t.equal(jsonOf(old).message,
    `Unsupported API version '1999-01-01' in the path, right after '/' (as in /<version>/…): it is older than the oldest version. ${SUPPORTED_DATES}`)

  // A header does not count with path versions.
  const header = await app.inject({ url: '/users', headers: { 'x-api-version': '2001-01-01' } })
  t.equal(header.statusCode, 404)
})

test('path versions: the route constraint reads the version segment itself, not an earlier segment that looks like a version', async (t) => {
  // Two HEAD routes share GET /t/:tenant/:version/items; a tenant id that looks like a date must not choose the route.
  const versions = bundleOf(DATES, {
    '2002-01-01': [changeClass('ReplaceItems', [
      endpoint('/t/:tenant/items', ['GET']).didntExist,
      endpoint('/t/:tenant/legacy-items', ['GET']).existed,
      endpoint('/t/:tenant/legacy-items', ['GET']).had({ path: '/t/:tenant/items' })
    ])]
  })
  const app = await versionedApp(t, versions, undefined, { versioner: { apiVersionLocation: 'path' } })
  await app.register(versioned(async (api) => {
    api.get('/items', async (request) => ({ handler: 'new', version: request.apiVersion }))
    api.get('/legacy-items', { onlyExistsInOlderVersions: true }, async (request) => ({ handler: 'old', version: request.apiVersion }))
  }), { prefix: '/t/:tenant' })
  const older = await app.inject({ url: '/t/2002-01-01/2001-01-01/items' })
  t.equal(older.statusCode, 200)
  t.same(jsonOf(older), { handler: 'old', version: '2001-01-01' })
  t.same(jsonOf(await app.inject({ url: '/t/2000-01-01/2002-01-01/items' })), { handler: 'new', version: '2002-01-01' })
  t.same(jsonOf(await app.inject({ url: '/t/acme/2001-07-07/items' })), { handler: 'old', version: '2001-01-01' })
})

test('regression: path versions at a shared path are routed by the route\'s own version segment, beside a deeper versioned prefix, case-insensitive or with doubled slashes', async (t) => {
  // GET /api/:version/items and /api/:version/things are each served by two HEAD routes (sharedPathBundle); a second
  // versioned(...) scope at /api/:tenant made the constraint read the segment after the tenant ('items') instead.
  const served = async (routerOptions: Record<string, unknown>, url: string) => {
    const app = await versionedApp(t, sharedPathBundle(), undefined, { fastify: { routerOptions }, versioner: { apiVersionLocation: 'path' } })
    await app.register(sharedPathRoutes, { prefix: '/api' })
    await app.register(versioned(async (api) => { api.get('/z', async (request) => ({ version: request.apiVersion })) }), { prefix: '/api/:tenant' })
    const response = await app.inject({ url })
    return [response.statusCode, response.headers['x-api-version'], response.statusCode === 200 ? jsonOf(response).handler : undefined]
  }
  for (const [routerOptions, url, expected] of [
    [{}, '/api/2001-01-01/items', [200, '2001-01-01', 'old']],
    [{}, '/api/2000-01-01/things', [200, '2000-01-01', 'renamed']],
    [{}, '/api/2002-01-01/items', [200, '2002-01-01', 'new']],
    [{}, '/api/acme/2001-01-01/z', [200, '2001-01-01', undefined]],
    [{ caseSensitive: false }, '/API/2001-01-01/items', [200, '2001-01-01', 'old']],
    [{ ignoreDuplicateSlashes: true }, '/api//2001-01-01/items', [200, '2001-01-01', 'old']],
    [{ ignoreTrailingSlash: true }, '/api/2000-01-01/things/', [200, '2000-01-01', 'renamed']],
    [{ useSemicolonDelimiter: true }, '/api/2001-01-01/items;session=1', [200, '2001-01-01', 'old']]
  ] as const) {
    t.same(await served(routerOptions, url), expected, `${JSON.stringify(routerOptions)} ${url}`)
  }
})

test('regression: path versions: a route parameter named as the version\'s path parameter fails app.ready(), instead of being read as the version', async (t) => {
  // GET /:version/releases/:version: the release's name was taken as the version (/2001-01-01/releases/2002-06-01
  // served as 2002-01-01) and the handler lost it.
  for (const [name, path, shown] of [['version', '/releases/:version', ':version'], ['x-api-version', '/items/:x_api_version(^\\d+$)', ':x_api_version']] as const) {
    const app = await versionedApp(t, bundleOf(DATES), async (api) => {
      api.get(path, async (request) => ({ version: request.apiVersion }))
    }, { versioner: { apiVersionLocation: 'path', apiVersionParameterName: name } })
    const error = await app.ready().then(() => undefined, (err: Error & { code?: string }) => err)
    t.equal(error?.code, 'FST_VERSIONER_ROUTER_GENERATION', name)
    t.equal(error?.message, `The route GET ${path} has a path parameter ${shown}, the name of the version's own path parameter ` +
      `(apiVersionLocation 'path', apiVersionParameterName '${name}'): the version would be read from the wrong segment. ` +
      'Rename the route\'s parameter, or give apiVersionParameterName another name.', name)
  }
  const fine = await versionedApp(t, bundleOf(DATES), async (api) => {
    api.get('/items/:x_api_version_id', async (request) => ({ version: request.apiVersion, params: request.params }))
  }, { versioner: { apiVersionLocation: 'path' } })
  t.same(jsonOf(await fine.inject({ url: '/2001-01-01/items/7' })), { version: '2001-01-01', params: { x_api_version_id: '7' } }, 'a longer name is another parameter')
})

test('regression: path versions: a maxParamLength shorter than a version fails registration, instead of a 414 for every request', async (t) => {
  // routerOptions.maxParamLength 8 (short ids): every versioned request was Fastify's 414 FST_ERR_MAX_PARAM_LENGTH,
  // the version segment being a path parameter too.
  const named = bundleOf(['2002-01-01.basil', '2001-01-01'])
  for (const [label, fastify, versioner, needed] of [
    ['routerOptions', { routerOptions: { maxParamLength: 8 } }, { versions: bundleOf(DATES) }, 10],
    ['top level', { maxParamLength: 9 }, { versions: bundleOf(DATES) }, 10],
    ['named version', { routerOptions: { maxParamLength: 12 } }, { versions: named }, 16],
    ['month format, a date names its month', { routerOptions: { maxParamLength: 7 } }, { versions: bundleOf(['2002-01', '2001-01']), apiVersionFormat: 'month' as const }, 10],
    ['string format', { routerOptions: { maxParamLength: 3 } }, { versions: bundleOf(['beta', 'v1']), apiVersionFormat: 'string' as const }, 4]
  ] as const) {
    const app = Fastify(fastify as FastifyServerOptions)
    t.teardown(() => app.close())
    const error = await app.register(fastifyVersioner, { apiVersionLocation: 'path', ...versioner }).then(() => app.ready())
      .then(() => undefined, (err: Error & { code?: string }) => err)
    t.equal(error?.code, 'FST_VERSIONER_INVALID_OPTION', label)
    t.match(error?.message, new RegExp(`^Fastify's maxParamLength is ${String(fastify.routerOptions?.maxParamLength ?? (fastify as { maxParamLength?: number }).maxParamLength)}, ` +
      `shorter than the version segment of apiVersionLocation 'path' \\(${needed} characters: `), label)
    t.match(error?.message, new RegExp(`raise routerOptions\\.maxParamLength to at least ${needed}\\.$`), label)
  }
  for (const [maxParamLength, location, url] of [[10, 'path', '/2001-01-01/users'], [3, 'header', '/users']] as const) {
    const app = await versionedApp(t, bundleOf(DATES), async (api) => { api.get('/users', async (request) => ({ version: request.apiVersion })) },
      { fastify: { routerOptions: { maxParamLength } }, versioner: { apiVersionLocation: location } })
    const response = await app.inject({ url, headers: { 'x-api-version': '2001-01-01' } })
    t.same([response.statusCode, response.headers['x-api-version']], [200, '2001-01-01'], `${location}, maxParamLength ${maxParamLength}`)
  }
})

test('the string format: exact values in bundle order, no waterfalling, in headers and paths', async (t) => {
  // Bundle order (alpha newest, omega oldest) is the reverse of alphabetical order.
  const Resource = Type.Object({ name: Type.String() })
  class RenameTitleToName extends VersionChange {
    description = 'title became name'
    instructionsToMigrateToPreviousVersion = [schema(Resource).field('name').had({ name: 'title' })]
    @ConvertResponseToPreviousVersionFor(Resource)
    nameToTitle (response: ResponseInfo) {
      response.body.title = response.body.name
      delete response.body.name
    }
  }
  const app = await versionedApp(t, bundleOf(['alpha', 'omega'], { alpha: [RenameTitleToName] }), undefined, {
    versioner: { apiVersionFormat: 'string' }
  })
  await app.register(versioned(async (api) => {
    api.get('/thing', { schema: { response: { 200: Resource } } }, async () => ({ name: 'n' }))
  }))
  const alpha = await getWith(app, '/thing', 'alpha')
  t.equal(alpha.statusCode, 200)
  t.same(jsonOf(alpha), { name: 'n' })
  t.equal(alpha.headers['x-api-version'], 'alpha')
  const omega = await getWith(app, '/thing', 'omega')
  t.same(jsonOf(omega), { title: 'n' }, 'omega is the older version')
  t.equal(omega.headers['x-api-version'], 'omega')
  const unknown = await getWith(app, '/thing', 'beta')
  t.equal(unknown.statusCode, 400)
  t.equal(jsonOf(unknown).message, "Unknown API version 'beta' in the 'x-api-version' header. Supported versions: alpha, omega.")

  const pathApp = await versionedApp(t, bundleOf(['v2', 'v1']), undefined, { versioner: { apiVersionFormat: 'string', apiVersionLocation: 'path' } })
  await pathApp.register(echoRoute, { prefix: '/api' })
  const v1 = await pathApp.inject({ url: '/api/v1/echo' })
  t.equal(v1.statusCode, 200)
  t.same(jsonOf(v1), { version: 'v1' })
  t.equal(v1.headers['x-api-version'], 'v1')
  const v3 = await pathApp.inject({ url: '/api/v3/echo' })
  t.equal(v3.statusCode, 400)
  t.equal(jsonOf(v3).message, "Unknown API version 'v3' in the path, right after '/api' (as in /api/<version>/…). Supported versions: v2, v1.")
})

test('apiVersionDefaultValue as a string serves requests that name no version', async (t) => {
  const app = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { apiVersionDefaultValue: '2001-01-01' } })
  await app.register(echoRoute)
  for (const headers of [{}, { 'x-api-version': '' }]) {
    const response = await app.inject({ url: '/echo', headers })
    t.equal(response.statusCode, 200)
    t.same(jsonOf(response), { version: '2001-01-01' })
    t.equal(response.headers['x-api-version'], '2001-01-01')
  }
  const explicit = await getWith(app, '/echo', '2000-01-01')
  t.same(jsonOf(explicit), { version: '2000-01-01' }, 'a version sent wins over the default')
  const bad = await getWith(app, '/echo', 'nope')
  t.equal(bad.statusCode, 400, 'a bad version sent is not replaced by the default')
  t.equal(jsonOf(bad).code, 'FST_VERSIONER_INVALID_API_VERSION')
})

test('apiVersionDefaultValue as an async function of the request; its result is checked and waterfalled', async (t) => {
  const seen: string[] = []
  const app = await versionedApp(t, bundleOf(DATES), undefined, {
    versioner: {
      apiVersionDefaultValue: async (request: FastifyRequest) => {
        seen.push(request.url)
        await new Promise((resolve) => setTimeout(resolve, 2))
        const plan = request.headers['x-plan']
        return plan === 'legacy' ? '2000-06-30' : plan === 'broken' ? 'not-a-date' : plan === 'ancient' ? '1990-01-01' : '2002-01-01'
      }
    }
  })
  await app.register(echoRoute)
  const latest = await app.inject({ url: '/echo' })
  t.equal(latest.statusCode, 200)
  t.same(jsonOf(latest), { version: '2002-01-01' })
  const legacy = await app.inject({ url: '/echo?x=1', headers: { 'x-plan': 'legacy' } })
  t.same(jsonOf(legacy), { version: '2000-01-01' })
  t.equal(legacy.headers['x-api-version'], '2000-01-01')
  t.same(seen, ['/echo', '/echo?x=1'], 'the function receives the request')

  const explicit = await app.inject({ url: '/echo', headers: { 'x-plan': 'legacy', 'x-api-version': '2001-01-01' } })
  t.same(jsonOf(explicit), { version: '2001-01-01' }, 'the header wins over the default function')
  t.equal(seen.length, 2, 'the default function is not called when a version is sent')

  const broken = await app.inject({ url: '/echo', headers: { 'x-plan': 'broken' } })
  t.equal(broken.statusCode, 400)
  t.equal(jsonOf(broken).code, 'FST_VERSIONER_INVALID_API_VERSION')
  t.match(jsonOf(broken).message, /^Invalid API version 'not-a-date'/)
  const ancient = await app.inject({ url: '/echo', headers: { 'x-plan': 'ancient' } })
  t.equal(ancient.statusCode, 400)
  t.match(jsonOf(ancient).message, /^Unsupported API version '1990-01-01'.*older than the oldest version/)

  // A default function that throws answers with its error.
  const failing = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { apiVersionDefaultValue: async () => { throw Object.assign(new Error('no account'), { statusCode: 401 }) } } })
  await failing.register(echoRoute)
  const unauthorised = await failing.inject({ url: '/echo' })
  t.equal(unauthorised.statusCode, 401)
  t.equal(jsonOf(unauthorised).message, 'no account')
})

test('with a default version, unversioned routes are served as without one, and an unknown URL is still a 404', async (t) => {
  const calls: string[] = []
  const defaults: Array<FastifyVersionerOptions['apiVersionDefaultValue']> = ['2001-01-01', async (request) => { calls.push(request.url); return '2000-01-01' }]
  for (const apiVersionDefaultValue of defaults) {
    const app = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { apiVersionDefaultValue }, health: true })
    await app.register(echoRoute)
    const what = typeof apiVersionDefaultValue === 'string' ? 'a string default' : 'a default function'
    t.same(jsonOf(await app.inject({ url: '/echo' })), { version: typeof apiVersionDefaultValue === 'string' ? '2001-01-01' : '2000-01-01' }, `${what} serves the versioned route`)
    for (const headers of [{}, { 'x-api-version': '2000-01-01' }, { 'x-api-version': 'garbage' }]) {
      const health = await app.inject({ url: '/health', headers })
      t.equal(health.statusCode, 200, `${what}, ${JSON.stringify(headers)}: the unversioned route answers`)
      t.same(jsonOf(health), { ok: true })
      t.equal(health.headers['x-api-version'], undefined, 'without a version header')
    }
    const missing = await app.inject({ url: '/nowhere' })
    t.equal(missing.statusCode, 404, `${what}: an unknown URL is Fastify's 404`)
    t.equal(jsonOf(missing).message, 'Route GET:/nowhere not found')
  }
  t.same(calls, ['/echo'], 'the default function runs for the versioned route only')
})

test('a VersionPicker subclass picks the version (sync or async); the result is checked and waterfalled', async (t) => {
  const pinned: Record<string, string> = { acme: '2000-07-01', globex: 'v1', initech: '1980-01-01' }
  class AccountPicker extends VersionPicker {
    override async pick (request: FastifyRequest): Promise<string | undefined> {
      await new Promise((resolve) => setTimeout(resolve, 1))
      return this.requested(request) ?? pinned[String(request.headers['x-account'])]
    }
  }
  const app = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { versionPicker: AccountPicker } })
  await app.register(echoRoute)
  const acme = await app.inject({ url: '/echo', headers: { 'x-account': 'acme' } })
  t.equal(acme.statusCode, 200)
  t.same(jsonOf(acme), { version: '2000-01-01' })
  t.equal(acme.headers['x-api-version'], '2000-01-01')
  const header = await app.inject({ url: '/echo', headers: { 'x-account': 'acme', 'x-api-version': '2002-02-02' } })
  t.same(jsonOf(header), { version: '2002-01-01' }, 'this.requested() reads the header')
  const globex = await app.inject({ url: '/echo', headers: { 'x-account': 'globex' } })
  t.equal(globex.statusCode, 400)
  t.equal(jsonOf(globex).message, `Invalid API version 'v1' picked for this request (the request does not name it in the 'x-api-version' header): it must be a date written YYYY-MM-DD. ${SUPPORTED_DATES}`)
  const initech = await app.inject({ url: '/echo', headers: { 'x-account': 'initech' } })
  t.equal(initech.statusCode, 400)
  t.match(jsonOf(initech).message, /^Unsupported API version '1980-01-01'/)
  const nobody = await app.inject({ url: '/echo' })
  t.equal(nobody.statusCode, 400)
  t.equal(jsonOf(nobody).code, 'FST_VERSIONER_MISSING_API_VERSION')

  // A synchronous picker from the query string, with path-free header location.
  class QueryPicker extends VersionPicker {
    override pick (request: FastifyRequest): string | undefined {
      return (request.query as Record<string, string | undefined>).version ?? super.pick(request) as string | undefined
    }
  }
  const query = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { versionPicker: QueryPicker, apiVersionDefaultValue: '2001-01-01' } })
  await query.register(echoRoute)
  t.same(jsonOf(await query.inject({ url: '/echo?version=2000-01-01' })), { version: '2000-01-01' })
  t.same(jsonOf(await query.inject({ url: '/echo' })), { version: '2001-01-01' }, 'super.pick() falls back to the default')
  t.same(jsonOf(await query.inject({ url: '/echo', headers: { 'x-api-version': '2002-01-01' } })), { version: '2002-01-01' })

  // With path versions, this.requested() reads the segment.
  class PathPicker extends VersionPicker {
    override pick (request: FastifyRequest): string | undefined {
      const requested = this.requested(request)
      return requested === 'current' ? '2002-01-01' : requested
    }
  }
  const path = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { versionPicker: PathPicker, apiVersionLocation: 'path' } })
  await path.register(echoRoute, { prefix: '/api' })
  const current = await path.inject({ url: '/api/current/echo' })
  t.equal(current.statusCode, 200)
  t.same(jsonOf(current), { version: '2002-01-01' })
  t.same(jsonOf(await path.inject({ url: '/api/2000-05-05/echo' })), { version: '2000-01-01' })
})

test('named date versions: sent with or without the name, echoed in full, waterfalled by date; the string format is unaffected', async (t) => {
  const named = ['2024-09-30.acacia', '2024-06-20', '2023-10-16.basil']
  for (const location of ['header', 'path'] as const) {
    const app = await versionedApp(t, bundleOf(named), undefined, { versioner: { apiVersionLocation: location } })
    await app.register(echoRoute)
    const ask = (version: string): ReturnType<typeof getWith> => location === 'header' ? getWith(app, '/echo', version) : getWith(app, `/${version}/echo`)
    for (const [sent, served] of [
      ['2024-09-30.acacia', '2024-09-30.acacia'],
      ['2024-09-30', '2024-09-30.acacia'],
      ['2024-12-01', '2024-09-30.acacia'],
      ['2024-07-01', '2024-06-20'],
      ['2023-10-16', '2023-10-16.basil'],
      ['2024-01-01', '2023-10-16.basil']
    ]) {
      const response = await ask(sent)
      t.equal(response.statusCode, 200, `${location} ${sent}`)
      t.same(jsonOf(response), { version: served }, `${location} ${sent}: request.apiVersion is the full name`)
      t.equal(response.headers['x-api-version'], served, `${location} ${sent}: the full name is echoed`)
    }
    t.equal((await ask('2024-09-30.basil')).statusCode, 400, `${location}: a name that is not the date's`)
    t.equal((await ask('2023-01-01')).statusCode, 400, `${location}: older than the oldest`)
  }

  const strings = await versionedApp(t, bundleOf(['2024-09-30.acacia', 'v1']), undefined, { versioner: { apiVersionFormat: 'string' } })
  await strings.register(echoRoute)
  t.equal((await getWith(strings, '/echo', '2024-09-30.acacia')).statusCode, 200, 'string format: the exact value')
  t.equal((await getWith(strings, '/echo', '2024-09-30')).statusCode, 400, 'string format: no date matching')
})

test('caches could mix versions: every GET answer whose content depends on the version header says Vary (documents, 400s, 404s, successes), inject and real HTTP', async (t) => {
  const app = await versionedApp(t, sharedPathBundle())
  await app.register(sharedPathRoutes, { prefix: '/api' })
  const base = await listen(app)
  const cases: Array<[string, string, string | undefined, number]> = [
    ['the document chosen by the header', '/openapi.json', '2001-01-01', 200],
    ['the latest document, chosen by the header\'s absence', '/openapi.json', undefined, 200],
    ['a success', '/api/items', '2002-01-01', 200],
    ['a 400 for a bad version', '/api/items', 'soon', 400],
    ['a 400 for a missing version', '/api/items', undefined, 400],
    ['a 404 for a route the version lacks', '/api/things', '2001-01-01', 404]
  ]
  for (const [what, url, version, status] of cases) {
    const injected = await getWith(app, url, version)
    t.equal(injected.statusCode, status, `${what}: ${status}`)
    t.match(String(injected.headers.vary), /(^|, *)x-api-version(,|$)/, `${what}: Vary names the version header (inject)`)
    const real = await fetch(`${base}${url}`, { headers: version === undefined ? {} : { 'x-api-version': version } })
    await real.arrayBuffer()
    t.equal(real.status, status)
    t.match(String(real.headers.get('vary')), /(^|, *)x-api-version(,|$)/, `${what}: Vary names the version header (real HTTP)`)
  }
})

const NAMED = ['2025-06-01.dahlia', '2024-09-30.acacia', '2024-01-01'] as const
const SUPPORTED_NAMED = `Supported versions: ${NAMED.join(', ')}.`

test('regression: a refused version value says what is wrong and what is accepted, not only "a date YYYY-MM-DD" (issue 30)', async (t) => {
  for (const location of ['header', 'path'] as const) {
    const app = await versionedApp(t, bundleOf(NAMED), undefined, { versioner: { apiVersionLocation: location } })
    await app.register(echoRoute)
    const where = location === 'header' ? "the 'x-api-version' header" : "the path, right after '/' (as in /<version>/…)"
    for (const [value, why] of [
      ['2025-06-01.dahlya', "2025-06-01 is the version 2025-06-01.dahlia, and 'dahlya' is not its name: send 2025-06-01.dahlia or the plain date 2025-06-01."],
      ['dahlia', "'dahlia' is the name of version 2025-06-01.dahlia: send 2025-06-01.dahlia or the plain date 2025-06-01."],
      ['2025-06-01.acacia', "2025-06-01 is the version 2025-06-01.dahlia, and 'acacia' is not its name ('acacia' is the name of 2024-09-30.acacia): " +
        'send 2025-06-01.dahlia or the plain date 2025-06-01.'],
      ['2025-07-01.acacia', "'acacia' is the name of version 2024-09-30.acacia, not of a version dated 2025-07-01: send 2024-09-30.acacia, " +
        'or a plain date YYYY-MM-DD (served as the closest older version).'],
      ['2025-07-01.zinnia', "no version is named 'zinnia' or dated 2025-07-01: send a plain date YYYY-MM-DD (2025-07-01 is served as 2025-06-01.dahlia) " +
        "or a named version's full name (2025-06-01.dahlia, 2024-09-30.acacia)."],
      ['2020-01-01.zinnia', "no version is named 'zinnia' or dated 2020-01-01: send a plain date YYYY-MM-DD (2020-01-01 is older than the oldest version) " +
        "or a named version's full name (2025-06-01.dahlia, 2024-09-30.acacia)."],
      ['2024-01-01.spring', '2024-01-01 is the version 2024-01-01, which has no name: send 2024-01-01.'],
      ['zinnia', "it must be a date written YYYY-MM-DD or a named version's full name (2025-06-01.dahlia, 2024-09-30.acacia)."],
      ['2025-02-30', 'there is no such day: send a day of the calendar, written YYYY-MM-DD.'],
      ['2025-06-01T09:00:00Z', "a version is a date without a time: send '2025-06-01'."],
      // Quotes kept from JSON, a shell or a .env file: the version to send, not "it must be a date".
      ['"2025-06-01.dahlia"', "versions are matched exactly: send '2025-06-01.dahlia'."],
      ["'2024-05-01'", "versions are matched exactly: send '2024-05-01'."],
      ...(location === 'path' ? [[' 2025-06-01', "versions are matched exactly: send '2025-06-01'."]] : [])
    ]) {
      const response = location === 'header' ? await getWith(app, '/echo', value) : await app.inject({ url: `/${encodeURIComponent(value)}/echo` })
      t.equal(response.statusCode, 400, `${location} ${value}: 400`)
      t.equal(jsonOf(response).code, 'FST_VERSIONER_INVALID_API_VERSION')
      t.equal(jsonOf(response).message, `Invalid API version '${value}' in ${where}: ${why} ${SUPPORTED_NAMED}`, `${location} ${value}`)
    }
    const old = location === 'header' ? await getWith(app, '/echo', '2023-01-01') : await app.inject({ url: '/2023-01-01/echo' })
    t.equal(jsonOf(old).message, `Unsupported API version '2023-01-01' in ${where}: it is older than the oldest version. ${SUPPORTED_NAMED}`)
  }
})

test('regression: a version header sent twice (or a comma-separated list) is a 400 that says so, not "it must be a date"', async (t) => {
  // Node joins the values of a repeated header with ', ' (as do proxies that merge them): neither value is served.
  for (const [format, values, sent] of [
    ['date', DATES, ['2001-01-01', '2002-01-01']],
    ['date', DATES, ['2001-01-01', '2001-01-01']],
    ['string', ['v2', 'v1'], ['v1', 'v2']]
  ] as const) {
    const app = await versionedApp(t, bundleOf(values), undefined, { versioner: { apiVersionFormat: format } })
    await app.register(echoRoute)
    const response = await app.inject({ url: '/echo', headers: { 'x-api-version': [...sent] } })
    t.equal(response.statusCode, 400, `${format} ${sent.join(', ')}`)
    t.equal(jsonOf(response).message, `${format === 'string' ? 'Unknown' : 'Invalid'} API version '${sent.join(', ')}' in the 'x-api-version' header: ` +
      `it holds several versions (${sent.join(', ')}), as a header sent more than once arrives: send one. Supported versions: ${values.join(', ')}.`)
  }
})

test('regression: a requested date cost a calendar check per version (a header holding a date 1,400 times: 84,000 checks, 60 ms)', async (t) => {
  // Picking compared each version's date read anew: every date older than the newest checked the calendar once per
  // version, and the 400 of a repeated header once per version for each of its parts. The versions' dates are read once.
  let checks = 0
  const setUTCFullYear = Date.prototype.setUTCFullYear
  const counted = (): void => {
    Date.prototype.setUTCFullYear = function (this: Date, ...args: Parameters<Date['setUTCFullYear']>) { // eslint-disable-line no-extend-native
      checks++
      return setUTCFullYear.apply(this, args)
    }
  }
  t.teardown(() => { Date.prototype.setUTCFullYear = setUTCFullYear }) // eslint-disable-line no-extend-native
  const sent = { one: ['2001-06-01'], repeated: Array.from({ length: 200 }, () => '2001-06-01') }
  const counts: Record<string, number[]> = { one: [], repeated: [] }
  for (const count of [6, 60]) {
    const values = Array.from({ length: count }, (_, index) => `${2000 + count - index}-01-01`)
    const app = await versionedApp(t, bundleOf(values), undefined)
    await app.register(echoRoute)
    await app.ready()
    for (const [name, dates] of Object.entries(sent)) {
      counted()
      checks = 0
      const response = await app.inject({ url: '/echo', headers: { 'x-api-version': dates.join(', ') } })
      Date.prototype.setUTCFullYear = setUTCFullYear // eslint-disable-line no-extend-native
      t.equal(response.statusCode, name === 'one' ? 200 : 400, `${count} versions, ${name}: ${response.body.slice(0, 80)}`)
      counts[name].push(checks)
    }
  }
  t.ok(counts.one[0] > 0, `the calendar is checked at all (${counts.one[0]}): the count measures picking`)
  t.same(counts.one[1], counts.one[0], `one date: as many checks with 60 versions as with 6 (${counts.one.join(', ')})`)
  // The 400's message reads the versions' names once (a check each), whatever the value.
  t.ok(counts.repeated[1] - counts.repeated[0] <= 60 - 6, `200 dates: at most a check more per version added, not one per date and version (${counts.repeated.join(', ')})`)
  t.ok(counts.repeated[1] <= 4 * 200, `a few checks a date sent (${counts.repeated[1]})`)
})

/** A bundle of `values` (with `previews` first, whose access refuses everything), for the classifier. */
function refusalBundle (values: readonly string[], previews: readonly string[] = []): VersionBundle {
  return new VersionBundle(new HeadVersion(), ...previews.map((value) => new Version(value, { channel: 'preview', access: () => false })),
    ...values.map((value) => new Version(value)))
}

test('regression: a version header sent again empty (or with a trailing comma) is a 400 that names the version to send alone, not "it must be a date"', async (t) => {
  // Node joins a header sent twice, once empty, as '2001-01-01, '; a client building a list may leave a trailing comma.
  for (const [format, values, sent, version] of [
    ['date', DATES, ['2001-01-01', ''], '2001-01-01'],
    ['date', DATES, '2001-01-01,', '2001-01-01'],
    ['date', DATES, ', 2001-06-01', '2001-06-01'],
    ['string', ['v2', 'v1'], 'v1,', 'v1']
  ] as const) {
    const app = await versionedApp(t, bundleOf(values), undefined, { versioner: { apiVersionFormat: format } })
    await app.register(echoRoute)
    const response = await app.inject({ url: '/echo', headers: { 'x-api-version': typeof sent === 'string' ? sent : [...sent] } })
    const value = typeof sent === 'string' ? sent : sent.join(', ')
    t.equal(response.statusCode, 400, `${format} ${JSON.stringify(value)}`)
    t.equal(jsonOf(response).message, `${format === 'string' ? 'Unknown' : 'Invalid'} API version '${value}' in the 'x-api-version' header: ` +
      `it holds ${version} and an empty value, as a header sent again empty or a trailing comma arrives: send '${version}' alone. Supported versions: ${values.join(', ')}.`)
  }
  // In a path, a list is no header sent twice: the words say what it holds only.
  const app = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { apiVersionLocation: 'path' } })
  await app.register(echoRoute)
  const where = "in the path, right after '/' (as in /<version>/…)"
  t.equal(jsonOf(await app.inject({ url: '/2001-01-01,/echo' })).message,
    `Invalid API version '2001-01-01,' ${where}: it holds 2001-01-01 and an empty value: send '2001-01-01' alone. ${SUPPORTED_DATES}`)
  t.equal(jsonOf(await app.inject({ url: '/2001-01-01,2002-01-01/echo' })).message,
    `Invalid API version '2001-01-01,2002-01-01' ${where}: it holds several versions (2001-01-01, 2002-01-01): send one. ${SUPPORTED_DATES}`)
})

test('the refusal classifier (fast-check): total, sound (what it tells to send is served), blind to previews', async (t) => {
  const formats: Array<[ApiVersionFormat, readonly string[], readonly string[]]> = [
    ['date', NAMED, ['2026-01-01.preview', '2026-02-01.dahlia-beta']],
    ['date', ['2002-01-01', '2001-01-01'], ['2003-01-01.preview']],
    ['month', ['2026-04', '2026-01', '2025-10'], ['2026-07.preview']],
    ['string', ['v2', 'v1', 'Beta'], ['unstable']]
  ]
  for (const [format, values, previews] of formats) {
    const withPreviews = refusalBundle(values, previews)
    const without = refusalBundle(values)
    const problems: string[] = []
    let refused = 0
    const single = namedVersionValues(values, previews.map((value) => value.split('.').at(-1) ?? value))
    // Lists too, as a header sent more than once arrives (Node joins its values with ', '), empty members among them.
    const lists = fc.array(fc.oneof(single, fc.constantFrom(...values, '', ' ')), { minLength: 2, maxLength: 3 }).map((parts) => parts.join(','))
    const quoted = fc.tuple(fc.constantFrom('"', "'"), single).map(([quote, value]) => `${quote}${value}${quote}`)
    fc.assert(fc.property(fc.oneof({ arbitrary: single, weight: 4 }, { arbitrary: lists, weight: 1 }, { arbitrary: quoted, weight: 1 }), (value) => {
      const picked = resolveVersion(value, { versions: withPreviews, format })
      if (picked.ok) return
      refused++
      const refusal = classifyRefusal(picked, { versions: withPreviews, format })
      const reason = refusalReason(refusal, { versions: withPreviews, format })
      const blind = classifyRefusal(resolveVersion(value, { versions: without, format }) as typeof picked, { versions: without, format })
      if (JSON.stringify(blind) !== JSON.stringify(refusal) || refusalReason(blind, { versions: without, format }) !== reason) {
        problems.push(`${JSON.stringify(value)}: the previews change the answer`)
      }
      for (const preview of previews) if (reason?.includes(preview) === true && !value.includes(preview)) problems.push(`${JSON.stringify(value)}: names ${preview}`)
      const served = (candidate: string): boolean => resolveVersion(candidate, { versions: without, format }).ok
      const dateOf = (candidate: string): string => candidate.split('.')[0]
      switch (refusal.kind) {
        case 'other-name':
          if (!values.includes(refusal.version) || dateOf(refusal.version) !== refusal.date || refusal.version === value) problems.push(`${value}: other-name ${refusal.version}`)
          break
        case 'name-of-other-date':
        case 'bare-name':
          if (!values.includes(refusal.version) || refusal.version.split('.')[1] !== refusal.name) problems.push(`${value}: ${refusal.kind} ${refusal.version}`)
          if (refusal.kind === 'name-of-other-date' && values.some((candidate) => dateOf(candidate) === refusal.date)) problems.push(`${value}: its date has a version`)
          break
        case 'unknown-name':
          if (values.some((candidate) => dateOf(candidate) === refusal.date || candidate.split('.')[1] === refusal.name)) problems.push(`${value}: unknown-name, but known`)
          break
        case 'near':
          if (!served(refusal.version) || refusal.version.toLowerCase() !== value.trim().replace(/^(["'])(.*)\1$/, '$2').trim().toLowerCase()) problems.push(`${value}: near ${refusal.version}`)
          break
        case 'too-old':
          if (format === 'string' || !served(values[0])) problems.push(`${value}: too-old`)
          break
        case 'timed':
          if (!served(refusal.date) || !value.startsWith(`${refusal.date}T`)) problems.push(`${value}: timed ${refusal.date}`)
          break
        case 'several':
        case 'with-empty': {
          const members = value.split(',').map((part) => part.trim()).filter((part) => part !== '')
          const named = refusal.kind === 'several' ? refusal.versions : [refusal.version]
          if (JSON.stringify(named) !== JSON.stringify(members) || !named.every(served) || (refusal.kind === 'several') !== (named.length > 1)) problems.push(`${value}: ${refusal.kind} ${named.join(', ')}`)
          break
        }
      }
      // A quoted value served without its quotes is always told so.
      if (/^(["'])(.*)\1$/.test(value.trim()) && served(value.trim().slice(1, -1).trim()) && refusal.kind !== 'near') problems.push(`${value}: quoted, told as ${refusal.kind}`)
      // A list of values, each served, is always told as one (whatever its empty members).
      const members = value.split(',').map((part) => part.trim()).filter((part) => part !== '')
      if (value.includes(',') && members.length > 0 && members.every(served) && refusal.kind !== 'several' && refusal.kind !== 'with-empty') problems.push(`${value}: a list told as ${refusal.kind}`)
      // A value whose date part is a version's date always says which version that date is.
      const datePart = /^(\d{4}-\d{2}(?:-\d{2})?)\.[A-Za-z0-9_-]+$/.exec(value)?.[1]
      const atDate = datePart === undefined ? undefined : values.find((candidate) => dateOf(candidate) === (format === 'month' ? datePart.slice(0, 7) : datePart))
      if (format !== 'string' && atDate !== undefined && refusal.kind !== 'other-name') problems.push(`${value}: the version of its date, ${atDate}, is not named`)
      if (reason !== undefined && !/\.$/.test(reason)) problems.push(`${value}: "${reason}" is not a sentence`)
    }), { seed: 20261130, numRuns: 2000 })
    t.same(problems, [], `${format} ${values.join(', ')}: every refusal is sound and blind to previews`)
    t.ok(refused > 500, `${format}: ${refused} refused values classified`)
  }
})

test('regression: every answer naming a version varies on the version header, whatever its method, listed once (issue 30)', async (t) => {
  const bundle = new VersionBundle(new HeadVersion(), new Version('2002-01-01', changeClass('ThingsAreNew', [endpoint('/things', ['POST', 'DELETE']).didntExist])),
    new Version('2001-01-01'), new Version('2000-01-01', { sunsetAt: '2020-01-01', afterSunset: 'gone' }))
  const app = await versionedApp(t, bundle, async (api) => {
    api.addHook('onRequest', async (request, reply) => {
      const vary = request.headers['x-set-vary']
      if (typeof vary === 'string') reply.header('vary', vary)
    })
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const) {
      api.route({ method, url: '/items', handler: async (request) => request.headers['x-fail'] === 'yes' ? Promise.reject(new Error('broken')) : { ok: true } })
    }
    api.route({ method: ['POST', 'DELETE'], url: '/things', handler: async () => ({ ok: true }) })
  }, { health: true, versioner: { now: () => Date.parse('2026-01-01') } })
  const ask = (method: string, url: string, version: string | undefined, more: Record<string, string> = {}) =>
    app.inject({ method: method as 'GET', url, headers: { ...(version === undefined ? {} : { 'x-api-version': version }), ...more } })
  for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH']) {
    for (const [what, url, version, status, more] of [
      ['a success', '/items', '2002-01-01', 200, {}],
      ['a handler error', '/items', '2001-01-01', 500, { 'x-fail': 'yes' }],
      ['a bad version', '/items', '2002-01-01.x', 400, {}],
      ['a missing version', '/items', undefined, 400, {}],
      ['a version gone', '/items', '2000-01-01', 410, {}],
      ...(method === 'POST' || method === 'DELETE' ? [['a route absent in the version', '/things', '2001-01-01', 404, {}] as const] : []),
      ['an existing Vary', '/items', '2002-01-01', 200, { 'x-set-vary': 'Origin' }],
      ['a Vary that names the header already', '/items', '2002-01-01', 200, { 'x-set-vary': 'X-API-Version, origin' }],
      ['Vary: *', '/items', '2002-01-01', 200, { 'x-set-vary': '*' }]
    ] as const) {
      const response = await ask(method, url, version, more)
      t.equal(response.statusCode, status, `${method} ${what}: ${status}`)
      const expected = more['x-set-vary'] === undefined ? 'x-api-version' : more['x-set-vary'] === 'Origin' ? 'Origin, x-api-version' : more['x-set-vary']
      t.equal(response.headers.vary, expected, `${method} ${what}: Vary`)
    }
  }
  const health = await ask('GET', '/health', '2002-01-01')
  t.equal(health.headers.vary, undefined, 'an unversioned route does not vary on the version header')
  const paths = await versionedApp(t, bundleOf(DATES), undefined, { versioner: { apiVersionLocation: 'path' } })
  await paths.register(echoRoute)
  t.equal((await paths.inject({ url: '/2001-01-01/echo' })).headers.vary, undefined, 'path versions: the URL differs instead')
})

// An onRequest hook that maps what a client sends (an alias, another header) to the version header: the version is
// picked after the application's hooks, so it is served the hook's version. A hook before it reading request.apiVersion
// (a metrics or log hook) froze the version the request named then: that client was served another version, HEAD's
// shape to an old client, or a 400 saying it named no version.
test('regression: a version header an onRequest hook sets is served, also when an earlier hook read request.apiVersion', async (t) => {
  const User = Type.Object({ id: Type.String(), fullName: Type.String(), servedAs: Type.String(), seenFirst: Type.String() })
  class FullNameWasName extends VersionChange {
    description = 'fullName was name.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('fullName').had({ name: 'name' })]

    @ConvertResponseToPreviousVersionFor(User)
    nameDown (response: ResponseInfo) {
      response.body.name = response.body.fullName
      delete response.body.fullName
    }
  }
  const aliases: Record<string, string> = { legacy: '2000-01-01', current: '2001-01-01' }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', FullNameWasName), new Version('2000-01-01')), async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User } } }, async (request) => ({
      id: 'u1', fullName: 'Ada', servedAs: String(request.apiVersion), seenFirst: String((request as FastifyRequest & { seenFirst?: string }).seenFirst)
    }))
  }, {
    beforeVersioner: (app) => {
      app.addHook('onRequest', async (request) => {
        if (request.headers['x-read-first'] !== undefined) (request as FastifyRequest & { seenFirst?: string }).seenFirst = String(request.apiVersion)
      })
      app.addHook('onRequest', async (request) => {
        const alias = request.headers['x-api-alias']
        if (typeof alias === 'string') request.headers['x-api-version'] = aliases[alias]
      })
    }
  })
  const cases: Array<[Record<string, string>, Record<string, unknown>]> = [
    [{ 'x-api-alias': 'legacy' }, { id: 'u1', name: 'Ada', servedAs: '2000-01-01', seenFirst: 'undefined' }],
    [{ 'x-api-alias': 'legacy', 'x-read-first': '' }, { id: 'u1', name: 'Ada', servedAs: '2000-01-01', seenFirst: 'undefined' }],
    [{ 'x-api-alias': 'legacy', 'x-api-version': '2001-01-01', 'x-read-first': '' }, { id: 'u1', name: 'Ada', servedAs: '2000-01-01', seenFirst: '2001-01-01' }],
    [{ 'x-api-alias': 'current', 'x-api-version': '2000-01-01', 'x-read-first': '' }, { id: 'u1', fullName: 'Ada', servedAs: '2001-01-01', seenFirst: '2000-01-01' }],
    [{ 'x-api-version': '2000-01-01', 'x-read-first': '' }, { id: 'u1', name: 'Ada', servedAs: '2000-01-01', seenFirst: '2000-01-01' }]
  ]
  for (const [headers, expected] of cases) {
    const response = await app.inject({ url: '/users/u1', headers })
    t.equal(response.statusCode, 200, `${JSON.stringify(headers)}: ${response.body}`)
    t.same(response.json(), expected, JSON.stringify(headers))
    t.equal(response.headers['x-api-version'], expected.servedAs, `${JSON.stringify(headers)}: the version echoed`)
  }
})

// At a path two HEAD routes share, Fastify picks the route by the version the request names before the application's
// hooks run (decision 0015). A hook naming another version since reached a route that does not serve it: Fastify's
// 404, "Route GET:/api/items not found", for a path the version has.
test('regression: at a path two HEAD routes share, a version an onRequest hook names after routing is a logged 500 saying so, not a 404', async (t) => {
  const logged: string[] = []
  const stream = { write: (line: string) => { logged.push(line) } }
  const aliases: Record<string, string> = { legacy: '2000-01-01', current: '2002-01-01' }
  const fromAlias = (headers: Record<string, string | string[] | undefined>) => {
    const alias = headers['x-api-alias']
    if (typeof alias === 'string') headers['x-api-version'] = aliases[alias]
  }
  const hooked = await versionedApp(t, sharedPathBundle(), undefined, {
    fastify: { logger: { level: 'error', stream } },
    beforeVersioner: (app) => { app.addHook('onRequest', async (request) => { fromAlias(request.headers) }) }
  })
  await hooked.register(sharedPathRoutes, { prefix: '/api' })
  const get = (app: typeof hooked, headers: Record<string, string>) => app.inject({ url: '/api/items', headers })
  const changed = await get(hooked, { 'x-api-alias': 'legacy', 'x-api-version': '2002-01-01' })
  t.equal(changed.statusCode, 500)
  t.equal(jsonOf(changed).code, 'FST_VERSIONER_VERSION_PICKER')
  t.notMatch(changed.body, /onRequest/, 'the reason is the log\'s, not the client\'s')
  t.match(logged.join(''), /GET \/api\/items.*named then \('2002-01-01'\).*'2000-01-01'.*rewriteUrl/, 'the log says what happened and what to do')
  t.same(jsonOf(await get(hooked, { 'x-api-alias': 'legacy', 'x-api-version': '2001-01-01' })), { handler: 'old', version: '2000-01-01' },
    'a version the route chosen serves is served')
  t.same(jsonOf(await get(hooked, { 'x-api-alias': 'current' })), { handler: 'new', version: '2002-01-01' }, 'elsewhere the hook\'s version is served')
  const lacking = await hooked.inject({ url: '/api/things', headers: { 'x-api-version': '2001-01-01' } })
  t.equal(lacking.statusCode, 404, 'a version no route there serves, named before routing, is still Fastify\'s 404')
  // Named before routing: in Fastify's rewriteUrl, or read by a versionPicker (which runs before routing there).
  const rewritten = await versionedApp(t, sharedPathBundle(), undefined, { fastify: { rewriteUrl: (raw) => { fromAlias(raw.headers); return raw.url ?? '/' } } })
  await rewritten.register(sharedPathRoutes, { prefix: '/api' })
  class AliasPicker extends VersionPicker {
    override pick (request: FastifyRequest): string | undefined {
      const alias = request.headers['x-api-alias']
      return typeof alias === 'string' ? aliases[alias] : this.requested(request)
    }
  }
  const picked = await versionedApp(t, sharedPathBundle(), undefined, { versioner: { versionPicker: AliasPicker } })
  await picked.register(sharedPathRoutes, { prefix: '/api' })
  for (const app of [rewritten, picked]) {
    t.same(jsonOf(await get(app, { 'x-api-alias': 'legacy', 'x-api-version': '2002-01-01' })), { handler: 'old', version: '2000-01-01' })
    t.same(jsonOf(await get(app, { 'x-api-alias': 'current', 'x-api-version': '2000-01-01' })), { handler: 'new', version: '2002-01-01' })
  }
})
