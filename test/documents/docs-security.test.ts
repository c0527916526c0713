/**
 * The docs routes in a production app, through `app.inject`: under `@fastify/helmet`'s default
 * Content-Security-Policy the pages need nothing inline; every docs route sends
 * `X-Content-Type-Options: nosniff`; `uiHooks` protect every docs route; `uiConfig` and `initOAuth` reach
 * Swagger UI; the OAuth2 redirect page is served; deprecated versions are marked in the switcher.
 * (test/browser.test.ts checks the same pages in Chromium under helmet.)
 */
import { test } from 'tap'
import fastifyHelmet from '@fastify/helmet'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { buildApp } from '../../examples/users/app'
import { fastifyVersioner, HeadVersion, Version, VersionBundle, versioned, type FastifyVersionerOptions } from '../../plugin'
import { inlineCode, scriptSources, swaggerSettings } from '../helpers/docs-pages'

type Teardown = { teardown: (fn: () => unknown) => void }

const VERSIONS = ['2002-01-01', '2001-01-01', '2000-01-01']
const PAGES = ['/docs', '/docs?version=2002-01-01', '/docs?version=unversioned', '/redoc', '/redoc?version=2001-01-01', '/docs/upgrade?from=2000-01-01&to=2002-01-01']
const ASSETS = ['docs.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-ui.css', 'swagger-initializer.js',
  'favicon-32x32.png', 'favicon-16x16.png', 'oauth2-redirect.html', 'oauth2-redirect.js', 'redoc.standalone.js', 'redoc-search-worker.js']
  .map((name) => `/docs/assets/${name}`)
/** Every documentation route of the example app (with the default options). */
const DOCS_ROUTES = [...PAGES, '/openapi.json?version=2002-01-01', '/openapi.json?version=unversioned', '/changelog', ...ASSETS]

async function example (t: Teardown, versioner: Partial<FastifyVersionerOptions> = {}, helmet = false): Promise<FastifyInstance> {
  const app = await buildApp({ versioner })
  t.teardown(() => app.close())
  if (helmet) await app.register(fastifyHelmet)
  await app.ready()
  return app
}

test('under @fastify/helmet\'s defaults, the pages load only files of their own origin and nothing inline', async (t) => {
  const app = await example(t, {}, true)
  let sources = 0
  for (const url of PAGES) {
    const response = await app.inject(url)
    t.equal(response.statusCode, 200, `${url}: 200`)
    const policy = String(response.headers['content-security-policy'])
    t.match(policy, "script-src 'self';", `${url}: helmet's policy is sent`)
    t.match(policy, "script-src-attr 'none'")
    t.same(inlineCode(response.body), [], `${url}: no inline script, event handler or style`)
    for (const source of scriptSources(response.body)) {
      sources++
      t.ok(source.startsWith('/docs/assets/'), `${url}: ${source} is served by the app`)
      t.equal((await app.inject(source)).statusCode, 200, `${url}: ${source} answers`)
    }
  }
  t.equal(sources, 7, 'the scripts of two Swagger UI pages (3 each) and a ReDoc page (1) were checked')
})

test('X-Content-Type-Options: nosniff on every docs route, without helmet', async (t) => {
  const app = await example(t)
  for (const url of DOCS_ROUTES.filter((route) => route !== '/changelog')) {
    const response = await app.inject(url)
    t.equal(response.statusCode, 200, `${url}: 200`)
    t.equal(response.headers['x-content-type-options'], 'nosniff', `${url}: nosniff`)
  }
  t.equal((await app.inject('/docs?version=nope')).headers['x-content-type-options'], 'nosniff', 'the 404 page too')
})

test('uiConfig reaches SwaggerUIBundle over the defaults; initOAuth reaches ui.initOAuth', async (t) => {
  const initOAuth = { clientId: 'docs-client', scopes: ['read', 'write'], usePkceWithAuthorizationCodeGrant: true }
  const app = await example(t, {
    uiConfig: { docExpansion: 'none', deepLinking: false, persistAuthorization: true, validatorUrl: 'https://validator.example.com' },
    initOAuth
  })
  const settings = swaggerSettings((await app.inject('/docs?version=2001-01-01')).body)
  t.equal(settings.config.docExpansion, 'none', 'a setting the plugin does not set')
  t.equal(settings.config.persistAuthorization, true)
  t.equal(settings.config.deepLinking, false, 'a default the user overrides')
  t.equal(settings.config.validatorUrl, 'https://validator.example.com')
  t.equal(settings.config['urls.primaryName'], '2001-01-01', 'the version switcher stays the plugin\'s')
  t.equal((settings.config.urls as unknown[]).length, 4)
  t.same(settings.initOAuth, initOAuth)
  t.equal(settings.oauth2RedirectUrl, '/docs/assets/oauth2-redirect.html')

  const initializer = (await app.inject('/docs/assets/swagger-initializer.js')).body
  t.match(initializer, 'ui.initOAuth(settings.initOAuth)', 'the initializer passes initOAuth on')
  t.match(initializer, 'config.oauth2RedirectUrl = new URL(settings.oauth2RedirectUrl, window.location.href).href',
    'and the redirect page as an absolute URL unless uiConfig sets oauth2RedirectUrl')

  const defaults = swaggerSettings((await (await example(t)).inject('/docs?version=2001-01-01')).body)
  t.equal(defaults.initOAuth, null, 'no initOAuth by default')
  t.equal(defaults.config.deepLinking, true)
})

test('the OAuth2 redirect page: served with its script file, nothing inline', async (t) => {
  const app = await example(t, {}, true)
  const page = await app.inject('/docs/assets/oauth2-redirect.html')
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  t.same(inlineCode(page.body), [])
  t.same(scriptSources(page.body), ['oauth2-redirect.js'], 'a relative script: /docs/assets/oauth2-redirect.js')
  const script = await app.inject('/docs/assets/oauth2-redirect.js')
  t.equal(script.statusCode, 200)
  t.match(script.body, 'window.opener.swaggerUIRedirectOauth2', 'Swagger UI\'s redirect handler')
})

test('uiHooks.onRequest answering 401 protects every docs route, and no API route', async (t) => {
  const seen: string[] = []
  const onRequest = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    seen.push(request.url)
    if (request.headers.authorization !== 'Bearer docs') return reply.code(401).send({ message: 'Log in to read the docs' })
  }
  const app = await example(t, { uiHooks: { onRequest } })
  for (const url of DOCS_ROUTES) {
    const denied = await app.inject(url)
    t.equal(denied.statusCode, 401, `${url}: 401 without a login`)
    t.same(denied.json(), { message: 'Log in to read the docs' })
    const allowed = await app.inject({ url, headers: { authorization: 'Bearer docs' } })
    t.equal(allowed.statusCode, 200, `${url}: 200 with one`)
  }
  t.same(seen.length, DOCS_ROUTES.length * 2, 'the hook ran once per docs request')
  const before = seen.length
  const created = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': VERSIONS[0] }, payload: { defaultAddress: 'Main St' } })
  t.equal(created.statusCode, 200, 'a versioned API route is not protected by the docs hooks')
  t.equal((await app.inject('/health')).statusCode, 200, 'nor an unversioned one')
  t.equal(seen.length, before, 'the hook did not run for them')
})

test('uiHooks.preHandler, as an array, runs on every docs route', async (t) => {
  const calls: string[] = []
  const app = await example(t, {
    uiHooks: {
      preHandler: [
        async (request) => { calls.push(`first ${request.url}`) },
        async (request, reply) => { calls.push(`second ${request.url}`); return reply.code(403).send({ message: 'no' }) }
      ]
    }
  })
  for (const url of DOCS_ROUTES) t.equal((await app.inject(url)).statusCode, 403, `${url}: 403`)
  t.same(calls, DOCS_ROUTES.flatMap((url) => [`first ${url}`, `second ${url}`]), 'both hooks, in order, on every route')
})

test('a hook that throws answers 500 for that request only', async (t) => {
  const app = await example(t, { uiHooks: { onRequest: async (request) => { if (request.url.startsWith('/docs?')) throw new Error('auth service down') } } })
  t.equal((await app.inject('/docs?version=2002-01-01')).statusCode, 500)
  t.equal((await app.inject('/docs')).statusCode, 200, 'the next request is served')
})

test('deprecated versions are marked in the switcher and on the list', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new HeadVersion(), new Version('2002-01-01'), new Version('2001-01-01', { deprecatedAt: '2024-01-01' }),
      new Version('2000-01-01', { deprecatedAt: '2023-01-01', sunsetAt: '2030-01-01' }))
  })
  await app.register(versioned(async (api) => { api.get('/things', async () => ({ ok: true })) }))
  const settings = swaggerSettings((await app.inject('/docs?version=2001-01-01')).body)
  t.same((settings.config.urls as Array<{ name: string, url: string }>).map((entry) => entry.name),
    ['2002-01-01', '2001-01-01 (deprecated)', '2000-01-01 (deprecated)', 'unversioned'], 'the changelog is an unversioned route')
  t.equal(settings.config['urls.primaryName'], '2001-01-01 (deprecated)', 'the page opens on its version, so named')
  t.equal(settings.pages['/openapi.json?version=2001-01-01'], '/docs?version=2001-01-01')
  const list = (await app.inject('/docs')).body
  t.match(list, '<strong>2001-01-01</strong><span class="badge deprecated">deprecated since 2024-01-01</span>')
})
