/**
 * The docs pages through `app.inject`: the version list (`GET /docs`), Swagger UI for one version with its
 * switcher (`GET /docs?version=V`), ReDoc (`GET /redoc?version=V`), the 404 page of an unknown version, the
 * asset options, `null` options, the locally served assets (and nothing else), no inline script or style, and
 * crafted `version` values (in the query, and as version names) that must reach a page only escaped.
 */
import { test } from 'tap'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../examples/users/app'
import { fastifyVersioner, HeadVersion, Version, VersionBundle, versioned, type FastifyVersionerOptions } from '../../plugin'
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { versionedApp } from '../helpers/apps'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { eventHandlerTags, inlineCode, scriptSources, settingsBlock, swaggerConfig, swaggerSettings } from '../helpers/docs-pages'

type Teardown = { teardown: (fn: () => unknown) => void }

const EXAMPLE_VERSIONS = ['2002-01-01', '2001-01-01', '2000-01-01']
const LOCAL = '/docs/assets'

/** The example app (users API), ready; closed at teardown. */
async function example (t: Teardown, versioner: Partial<FastifyVersionerOptions> = {}): Promise<FastifyInstance> {
  const app = await buildApp({ versioner })
  t.teardown(() => app.close())
  await app.ready()
  return app
}

/** A small app with one versioned route and the given bundle/options; closed at teardown. */
async function small (t: Teardown, versions: VersionBundle, options: Partial<FastifyVersionerOptions> = {}, unversioned = true): Promise<FastifyInstance> {
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/things', { schema: { summary: 'List things' } }, async () => ({ ok: true }))
  }, { versioner: options, health: unversioned })
  await app.ready()
  return app
}

function page (app: FastifyInstance, url: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url })
}

const q = (key: string): string => encodeURIComponent(key)

/** The number of `<script` openings in a page, whatever follows them. */
function scriptOpenings (html: string): number {
  return html.match(/<script/gi)?.length ?? 0
}

/** Every `href` of a page's `<a>` elements, entity-decoded the way a browser reads it. */
function anchors (html: string): Array<{ href: string, text: string }> {
  return [...html.matchAll(/<a href="([^"]*)">([\s\S]*?)<\/a>/g)].map((match) => ({ href: decodeEntities(match[1]), text: match[2] }))
}

/** The `href` of every `<link rel="…">`. */
function linkHrefs (html: string, rel: string): string[] {
  return [...html.matchAll(new RegExp(`<link rel="${rel}" href="([^"]*)">`, 'g'))].map((match) => decodeEntities(match[1]))
}

/** The `href` of the last `<link rel="…">` (of a Swagger UI page's two style sheets, Swagger UI's own). */
function linkHref (html: string, rel: string): string | undefined {
  return linkHrefs(html, rel).at(-1)
}

function decodeEntities (text: string): string {
  return text.replace(/&#(\d+);/g, (_all, code: string) => String.fromCharCode(Number(code)))
}

/** A printable label for a value: JSON with U+2028/U+2029 spelled out (TAP reads them as line breaks). */
function show (value: string): string {
  return JSON.stringify(value).replace(/[\u2028\u2029]/g, (character) => `\\u${character.charCodeAt(0).toString(16)}`)
}

test('GET /docs: every version newest first, then unversioned, each with Swagger UI, ReDoc and OpenAPI links', async (t) => {
  const app = await example(t)
  const response = await page(app, '/docs')
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^text\/html; charset=utf-8/)
  t.equal(response.headers['x-content-type-options'], 'nosniff')
  t.match(response.body, /^<!doctype html>/i)
  t.equal(scriptOpenings(response.body), 0, 'the list page runs no script')
  t.same(inlineCode(response.body), [], 'no inline style (a strict Content-Security-Policy allows the page)')
  t.same(linkHrefs(response.body, 'stylesheet'), [`${LOCAL}/docs.css`], 'its style sheet is served')

  const rows = [...response.body.matchAll(/<tr><td><strong>([^<]*)<\/strong>/g)].map((match) => match[1])
  t.same(rows, [...EXAMPLE_VERSIONS, 'unversioned'], 'versions newest first, then unversioned')

  const links = anchors(response.body).map((link) => link.href)
  for (const key of [...EXAMPLE_VERSIONS, 'unversioned']) {
    t.ok(links.includes(`/docs?version=${key}`), `Swagger UI link of ${key}`)
    t.ok(links.includes(`/redoc?version=${key}`), `ReDoc link of ${key}`)
    t.ok(links.includes(`/openapi.json?version=${key}`), `OpenAPI link of ${key}`)
  }
  t.equal(links.length, 12, 'three links per row, nothing else')

  // Every link answers: the list page leads somewhere real.
  for (const href of links) {
    const followed = await page(app, href)
    t.equal(followed.statusCode, 200, `${href} answers 200`)
  }

  t.equal(linkHref(response.body, 'icon'), `${LOCAL}/favicon-32x32.png`, 'the favicon is served locally by default')
  t.equal((await page(app, '/docs?version=')).statusCode, 200, 'an empty version shows the list')
  t.match((await page(app, '/docs?version=')).body, /API versions<\/h1>/)
})

test('GET /docs: badges for deprecated and sunset versions, with the migration guide link', async (t) => {
  const app = await small(t, new VersionBundle(
    new HeadVersion(),
    new Version('2002-01-01'),
    new Version('2001-01-01', { deprecatedAt: '2024-01-01', link: 'https://example.com/upgrade?from=2001&to=2002' }),
    new Version('2000-01-01', { deprecatedAt: new Date('2023-06-30T00:00:00Z'), sunsetAt: '2030-01-01' })
  ))
  const list = (await page(app, '/docs')).body
  const row = (key: string): string => new RegExp(`<tr><td><strong>${key}</strong>.*</tr>`).exec(list)?.[0] ?? ''
  t.notMatch(row('2002-01-01'), /badge/, 'a current version has no badge')
  t.match(row('2001-01-01'), '<span class="badge deprecated">deprecated since 2024-01-01</span>')
  t.notMatch(row('2001-01-01'), /sunset/)
  t.match(row('2001-01-01'), '<a href="https://example.com/upgrade?from=2001&#38;to=2002">migration guide</a>',
    'the link, with & escaped in the attribute')
  t.match(row('2000-01-01'), '<span class="badge deprecated">deprecated since 2023-06-30</span>')
  t.match(row('2000-01-01'), '<span class="badge sunset">sunset 2030-01-01</span>')
  t.notMatch(row('2000-01-01'), /migration guide/)

  const swagger = (await page(app, '/docs?version=2000-01-01')).body
  t.match(swagger, '<span class="badge deprecated">deprecated since 2023-06-30</span><span class="badge sunset">sunset 2030-01-01</span>',
    'the Swagger UI page of a deprecated version shows its badges')
  t.notMatch((await page(app, '/docs?version=2002-01-01')).body, /class="badge/, 'a current version\'s page shows none')
})

test('GET /docs: no unversioned row when the app has no unversioned routes', async (t) => {
  const app = await small(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01'), new Version('2000-01-01')),
    { changelogUrl: null }, false)
  const list = (await page(app, '/docs')).body
  const rows = [...list.matchAll(/<tr><td><strong>([^<]*)<\/strong>/g)].map((match) => match[1])
  t.same(rows, ['2001-01-01', '2000-01-01'])
  t.notMatch(list, /unversioned/)
  const missing = await page(app, '/docs?version=unversioned')
  t.equal(missing.statusCode, 404)
  t.match(missing.body, "No documentation for version 'unversioned'")
  t.same((swaggerConfig((await page(app, '/docs?version=2001-01-01')).body).urls as Array<{ name: string }>).map((entry) => entry.name),
    ['2001-01-01', '2000-01-01'], 'the switcher lists the versions only')
})

test('GET /docs?version=V: Swagger UI for V, a switcher over every version, a navigation bar', async (t) => {
  const app = await example(t)
  for (const current of [...EXAMPLE_VERSIONS, 'unversioned']) {
    const response = await page(app, `/docs?version=${current}`)
    t.equal(response.statusCode, 200, `${current}: 200`)
    t.match(response.headers['content-type'], /^text\/html; charset=utf-8/)
    t.equal(response.headers['x-content-type-options'], 'nosniff')
    const html = response.body
    t.match(html, `<title>Users API: ${current}: Swagger UI</title>`)
    t.match(html, '<div id="swagger-ui"></div>')

    const config = swaggerConfig(html)
    t.same(config.urls, [...EXAMPLE_VERSIONS, 'unversioned'].map((key) => ({ url: `/openapi.json?version=${key}`, name: key })),
      `${current}: the switcher lists every version's document, newest first, then unversioned`)
    t.equal(config['urls.primaryName'], current, `${current}: the primary definition is the page's version`)
    t.equal(config.layout, 'StandaloneLayout', 'the standalone layout (the topbar with "Select a definition")')
    t.equal(config.dom_id, '#swagger-ui')
    t.notOk('url' in config, 'no single url competes with urls')
    t.equal(config.validatorUrl, null, 'no validator badge from validator.swagger.io')
    t.same(scriptSources(html), [`${LOCAL}/swagger-ui-bundle.js`, `${LOCAL}/swagger-ui-standalone-preset.js`, `${LOCAL}/swagger-initializer.js`],
      'bundle, preset, then the initializer, local')
    t.same(linkHrefs(html, 'stylesheet'), [`${LOCAL}/docs.css`, `${LOCAL}/swagger-ui.css`])
    t.equal(linkHref(html, 'icon'), `${LOCAL}/favicon-32x32.png`)
    t.equal(scriptOpenings(html), 4, 'the settings data block, two script files and the initializer')
    t.same(inlineCode(html), [], 'no inline script or style')
    t.equal(swaggerSettings(html).oauth2RedirectUrl, `${LOCAL}/oauth2-redirect.html`)
    t.equal(swaggerSettings(html).pages[`/openapi.json?version=${current}`], `/docs?version=${current}`, 'the switcher opens the version\'s page')

    // The navigation bar: All versions, links to the other versions' Swagger pages, the current one in bold.
    const nav = /<nav class="versions"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? ''
    t.match(nav, `<strong>${current}</strong>`)
    t.same(anchors(nav).map((link) => link.href),
      ['/docs', ...[...EXAMPLE_VERSIONS, 'unversioned'].filter((key) => key !== current).map((key) => `/docs?version=${key}`)])

    // Each switcher entry is a real document of that version.
    for (const entry of config.urls as Array<{ url: string, name: string }>) {
      const document = await page(app, entry.url)
      t.equal(document.statusCode, 200, `${entry.url} answers`)
      t.equal((document.json() as { info: { version: string } }).info.version, entry.name, `${entry.url} documents ${entry.name}`)
    }
  }
})

test('GET /redoc?version=V: ReDoc for V, a navigation bar of ReDoc pages, its script', async (t) => {
  const app = await example(t)
  for (const current of [...EXAMPLE_VERSIONS, 'unversioned']) {
    const response = await page(app, `/redoc?version=${current}`)
    t.equal(response.statusCode, 200)
    t.match(response.headers['content-type'], /^text\/html; charset=utf-8/)
    const html = response.body
    t.match(html, `<title>Users API: ${current}: ReDoc</title>`)
    t.match(html, `<redoc spec-url="/openapi.json?version=${current}"></redoc>`)
    t.equal(scriptOpenings(html), 1, 'only ReDoc\'s script')
    t.same(scriptSources(html), [`${LOCAL}/redoc.standalone.js`], 'the ReDoc bundle shipped with the package, served locally')
    t.same(inlineCode(html), [], 'no inline script or style')
    const nav = /<nav class="versions"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? ''
    t.same(anchors(nav).map((link) => link.href),
      ['/docs', ...[...EXAMPLE_VERSIONS, 'unversioned'].filter((key) => key !== current).map((key) => `/redoc?version=${key}`)])
    t.match(nav, `<strong>${current}</strong>`)
  }
  const localScript = await page(app, `${LOCAL}/redoc.standalone.js`)
  t.equal(localScript.statusCode, 200)
  t.match(localScript.headers['content-type'], /^application\/javascript/)
  t.match(localScript.body, 'redoc.standalone.js.LICENSE.txt', 'ReDoc\'s standalone bundle')
  t.notMatch(localScript.body, /cdn\.redoc\.ly/, 'no logo (or anything) from the CDN')
  t.notMatch(localScript.body, /\/\/# sourceMappingURL=\S+\s*$/, 'no source map to fetch')
  const list = await page(app, '/redoc')
  t.equal(list.statusCode, 200, '/redoc without a version lists the versions too')
  t.match(list.body, /API versions<\/h1>/)
})

test('unknown versions: a 404 HTML page naming the value and the available versions', async (t) => {
  const app = await example(t)
  for (const base of ['/docs', '/redoc']) {
    for (const unknown of ['1999-01-01', '2001-02-30', 'latest', 'UNVERSIONED']) {
      const response = await page(app, `${base}?version=${q(unknown)}`)
      t.equal(response.statusCode, 404, `${base} ${unknown}: 404`)
      t.match(response.headers['content-type'], /^text\/html; charset=utf-8/)
      t.match(response.body, `<h1>No documentation for version '${unknown}'</h1>`)
      t.match(response.body, 'Available versions: 2002-01-01, 2001-01-01, 2000-01-01, unversioned.')
      t.equal(scriptOpenings(response.body), 0, 'the 404 page runs no script')
      t.same(anchors(response.body).map((link) => link.href), ['/docs'], 'a link back to the list')
    }
  }
  const document = await page(app, '/openapi.json?version=1999-01-01')
  t.equal(document.statusCode, 404, 'the document of an unknown version is a 404 too')
})

test('crafted version values in the query reach the 404 page only escaped', async (t) => {
  const app = await example(t)
  const cases: Array<{ value: string, escaped: string }> = [
    { value: '"><script>window.__xss=1</script>', escaped: '&#34;&#62;&#60;script&#62;window.__xss=1&#60;/script&#62;' },
    { value: '</script><script>window.__xss=1</script>', escaped: '&#60;/script&#62;&#60;script&#62;window.__xss=1&#60;/script&#62;' },
    { value: "'onmouseover='window.__xss=1'", escaped: '&#39;onmouseover=&#39;window.__xss=1&#39;' },
    { value: '" onmouseover="window.__xss=1', escaped: '&#34; onmouseover=&#34;window.__xss=1' },
    { value: '<img src=x onerror=window.__xss=1>', escaped: '&#60;img src=x onerror=window.__xss=1&#62;' },
    { value: '`$' + '{window.__xss=1}`', escaped: '&#96;$' + '{window.__xss=1}&#96;' },
    { value: '&lt;script&gt;window.__xss=1&lt;/script&gt;', escaped: '&#38;lt;script&#38;gt;window.__xss=1&#38;lt;/script&#38;gt;' },
    { value: 'javascript:window.__xss=1', escaped: 'javascript:window.__xss=1' },
    { value: 'x\u2028</script>\u2029<script>window.__xss=1</script>', escaped: 'x\u2028&#60;/script&#62;\u2029&#60;script&#62;window.__xss=1&#60;/script&#62;' }
  ]
  for (const base of ['/docs', '/redoc']) {
    for (const { value, escaped } of cases) {
      const label = `${base} ${show(value)}`
      const response = await page(app, `${base}?version=${q(value)}`)
      t.equal(response.statusCode, 404, `${label}: 404`)
      t.match(response.headers['content-type'], /^text\/html/, `${label}: HTML`)
      const html = response.body
      t.equal(scriptOpenings(html), 0, `${label}: no <script> from the value`)
      t.same(eventHandlerTags(html), [], `${label}: no event-handler attribute`)
      t.notMatch(html, /(href|src)="\s*javascript:/i, `${label}: no javascript: URL`)
      t.ok(html.includes(`No documentation for version '${escaped}'`), `${label}: named, escaped`)
      if (/[<>"'`&]/.test(value)) t.notOk(html.includes(value), `${label}: never raw`)
    }
  }
  // The value never reaches a 200 page: only known versions have pages.
  const listed = await page(app, `/docs?version=${q('2001-01-01"><script>window.__xss=1</script>')}`)
  t.equal(listed.statusCode, 404, 'a known version with a crafted suffix is unknown')
})

test('crafted version names (string versions) reach the list, Swagger UI and ReDoc pages only escaped', async (t) => {
  const scriptName = 'v3</script><script>window.__xss=1</script>'
  const attributeName = '"><img src=x onerror=window.__xss=1>'
  const quoteName = "v1'onmouseover='window.__xss=1"
  // U+2028 and U+2029 (line ends in old JavaScript) cannot be in a version name: no header carries them (start-up error).
  const separatorName = 'v0\u00a0\u00ff</script><!--'
  const names = [scriptName, attributeName, quoteName, separatorName]
  const app = await small(t, new VersionBundle(new HeadVersion(), ...names.map((name) => new Version(name))), { apiVersionFormat: 'string', uiConfig: { crafted: 'x\u2028\u2029' } })

  const check = (label: string, html: string, expectedScripts: number): void => {
    t.equal(scriptOpenings(html), expectedScripts, `${label}: only the page's own scripts`)
    t.same(eventHandlerTags(html), [], `${label}: no event-handler attribute`)
    // Inside the inline script, a quote is harmless JSON text; everywhere else, no name appears raw.
    const outsideScripts = html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, '')
    for (const name of names) t.notOk(outsideScripts.includes(name), `${label}: ${show(name)} never raw in the HTML`)
    t.notMatch(html, /<!--/, `${label}: no comment opened by a name`)
  }

  const list = (await page(app, '/docs')).body
  check('list', list, 0)
  t.match(list, '<strong>v3&#60;/script&#62;&#60;script&#62;window.__xss=1&#60;/script&#62;</strong>')
  t.match(list, '<strong>&#34;&#62;&#60;img src=x onerror=window.__xss=1&#62;</strong>')
  t.match(list, '<strong>v1&#39;onmouseover=&#39;window.__xss=1</strong>')
  t.ok(anchors(list).some((link) => link.href === `/docs?version=${q(attributeName)}`), 'links carry the name URL-encoded')

  for (const name of names) {
    const swagger = await page(app, `/docs?version=${q(name)}`)
    t.equal(swagger.statusCode, 200, `Swagger UI page of ${show(name)}`)
    check(`swagger ${show(name)}`, swagger.body, 4)
    const inline = settingsBlock(swagger.body).body
    t.notMatch(inline, /[<>\u2028\u2029]/, 'the inline JSON has no <, >, U+2028 or U+2029')
    t.match(inline, '\\u003c/script\\u003e', '< and > are \\u-escaped in the script')
    t.match(inline, '\\u2028\\u2029', 'U+2028 and U+2029 are \\u-escaped in the script')
    const config = swaggerConfig(swagger.body)
    t.equal(config['urls.primaryName'], name, 'the JSON still parses back to the exact name')
    t.same((config.urls as Array<{ name: string }>).map((entry) => entry.name), [...names, 'unversioned'])
    for (const entry of config.urls as Array<{ url: string, name: string }>) {
      const document = await page(app, entry.url)
      t.equal(document.statusCode, 200, `the document of ${show(entry.name)} answers at its encoded URL`)
    }

    const redoc = await page(app, `/redoc?version=${q(name)}`)
    t.equal(redoc.statusCode, 200)
    check(`redoc ${show(name)}`, redoc.body, 1)
    t.match(redoc.body, `<redoc spec-url="/openapi.json?version=${q(name).replace(/'/g, '&#39;')}"></redoc>`)
  }
})

test('asset options: every Swagger UI and ReDoc asset URL is used where it belongs, escaped', async (t) => {
  const options = {
    swaggerJsUrl: 'https://cdn.example.com/swagger-ui@5/swagger-ui-bundle.js?a=1&b="2"',
    swaggerCssUrl: 'https://cdn.example.com/swagger-ui@5/swagger-ui.css?x=<y>',
    swaggerFaviconUrl: '/static/favicon.ico',
    redocJsUrl: 'https://cdn.example.com/redoc@2/redoc.standalone.js',
    redocFaviconUrl: '/static/redoc.png'
  }
  const app = await example(t, options)
  const swagger = (await page(app, '/docs?version=2001-01-01')).body
  t.same(scriptSources(swagger).map(decodeEntities), [
    options.swaggerJsUrl,
    'https://cdn.example.com/swagger-ui@5/swagger-ui-standalone-preset.js?a=1&b="2"',
    `${LOCAL}/swagger-initializer.js`
  ], 'the bundle, and the preset next to it (same query), then the initializer')
  t.match(swagger, 'src="https://cdn.example.com/swagger-ui@5/swagger-ui-bundle.js?a=1&#38;b=&#34;2&#34;"', 'escaped in the attribute')
  t.equal(linkHref(swagger, 'stylesheet'), options.swaggerCssUrl)
  t.match(swagger, 'href="https://cdn.example.com/swagger-ui@5/swagger-ui.css?x=&#60;y&#62;"')
  t.equal(linkHref(swagger, 'icon'), options.swaggerFaviconUrl)
  t.notMatch(swagger, /\/docs\/assets\/swagger-ui/, 'no local Swagger UI asset left')

  const list = (await page(app, '/docs')).body
  t.equal(linkHref(list, 'icon'), options.swaggerFaviconUrl, 'the list page uses the docs favicon')
  const missing = (await page(app, '/docs?version=nope')).body
  t.equal(linkHref(missing, 'icon'), options.swaggerFaviconUrl, 'the 404 page too')

  const redoc = (await page(app, '/redoc?version=2001-01-01')).body
  t.same(scriptSources(redoc), [options.redocJsUrl])
  t.equal(linkHref(redoc, 'icon'), options.redocFaviconUrl, 'the ReDoc page uses the ReDoc favicon')
})

test('asset options one at a time: the others keep their defaults', async (t) => {
  const onlyCss = await example(t, { swaggerCssUrl: '/assets/swagger.css' })
  const css = (await page(onlyCss, '/docs?version=2002-01-01')).body
  t.equal(linkHref(css, 'stylesheet'), '/assets/swagger.css')
  t.same(scriptSources(css), [`${LOCAL}/swagger-ui-bundle.js`, `${LOCAL}/swagger-ui-standalone-preset.js`, `${LOCAL}/swagger-initializer.js`])
  t.equal(linkHref(css, 'icon'), `${LOCAL}/favicon-32x32.png`)

  const onlyJs = await example(t, { swaggerJsUrl: '/assets/swagger-ui/swagger-ui-bundle.js' })
  const js = (await page(onlyJs, '/docs?version=2002-01-01')).body
  t.same(scriptSources(js), ['/assets/swagger-ui/swagger-ui-bundle.js', '/assets/swagger-ui/swagger-ui-standalone-preset.js', `${LOCAL}/swagger-initializer.js`])
  t.equal(linkHref(js, 'stylesheet'), `${LOCAL}/swagger-ui.css`)

  const onlyFavicon = await example(t, { swaggerFaviconUrl: '/favicon.ico' })
  t.equal(linkHref((await page(onlyFavicon, '/docs?version=2002-01-01')).body, 'icon'), '/favicon.ico')
  t.equal(linkHref((await page(onlyFavicon, '/redoc?version=2002-01-01')).body, 'icon'), '/favicon.ico',
    'ReDoc falls back to the docs favicon')

  const onlyRedocFavicon = await example(t, { redocFaviconUrl: '/redoc.ico' })
  t.equal(linkHref((await page(onlyRedocFavicon, '/redoc?version=2002-01-01')).body, 'icon'), '/redoc.ico')
  t.equal(linkHref((await page(onlyRedocFavicon, '/docs?version=2002-01-01')).body, 'icon'), `${LOCAL}/favicon-32x32.png`,
    'the Swagger UI page keeps its own')

  const onlyRedocJs = await example(t, { redocJsUrl: '/assets/redoc.js' })
  t.same(scriptSources((await page(onlyRedocJs, '/redoc?version=2002-01-01')).body), ['/assets/redoc.js'])
})

test('swaggerJsUrl not named swagger-ui-bundle.js: the page still gets a distinct preset script', async (t) => {
  const app = await example(t, { swaggerJsUrl: '/assets/sui.js' })
  const html = (await page(app, '/docs?version=2002-01-01')).body
  const [bundle, preset] = scriptSources(html)
  t.equal(bundle, '/assets/sui.js')
  t.not(preset, bundle, 'the preset is not the bundle loaded twice (SwaggerUIStandalonePreset would be undefined)')
})

test('invalid docs options fail at start-up', async (t) => {
  for (const [name, value] of [
    ['docsUrl', 'docs'], ['redocUrl', 42], ['openapiUrl', ''], ['swaggerJsUrl', ''], ['swaggerCssUrl', 1], ['redocJsUrl', null],
    ['uiConfig', 'none'], ['uiConfig', { urls: [] }], ['uiConfig', { onComplete: () => {} }], ['uiConfig', { x: [new Date()] }],
    ['initOAuth', []], ['initOAuth', { clientId: undefined }], ['uiHooks', () => {}], ['uiHooks', { onSend: () => {} }],
    ['uiHooks', { onRequest: 'auth' }], ['uiHooks', { preHandler: [] }]
  ] as const) {
    const app = Fastify()
    t.teardown(() => app.close())
    await t.rejects(async () => {
      await app.register(fastifyVersioner, {
        versions: new VersionBundle(new HeadVersion(), new Version('2000-01-01')),
        [name]: value
      } as unknown as FastifyVersionerOptions)
      await app.ready()
    }, { message: new RegExp(`'${name}'`) }, `${name}: ${JSON.stringify(value)}`)
  }
})

test('a uiConfig or initOAuth value JSON cannot carry is named by its path', async (t) => {
  for (const [name, value, path] of [['uiConfig', { x: [1, new Date()] }, 'uiConfig.x[1]'], ['uiConfig', { a: { b: [[Infinity]] } }, 'uiConfig.a.b[0][0]'],
    // eslint-disable-next-line no-sparse-arrays
    ['initOAuth', { scopes: ['a', , 'b'] }, 'initOAuth.scopes[1]'], ['initOAuth', { extra: { f: () => {} } }, 'initOAuth.extra.f']] as const) {
    const app = Fastify()
    t.teardown(() => app.close())
    await t.rejects(async () => {
      await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2000-01-01')), [name]: value } as unknown as FastifyVersionerOptions)
      await app.ready()
    }, { message: `Option '${name}' must hold JSON values only (it is sent to the browser); '${path}' is not one.` }, path)
  }
})

test('locally served assets: bundle, preset, CSS and favicon answer 200 with their content types', async (t) => {
  const app = await example(t)
  const expected: Array<[string, RegExp, string]> = [
    ['swagger-ui-bundle.js', /^application\/javascript/, 'SwaggerUIBundle'],
    ['swagger-ui-standalone-preset.js', /^application\/javascript/, 'SwaggerUIStandalonePreset'],
    ['swagger-ui.css', /^text\/css/, '.swagger-ui'],
    ['favicon-32x32.png', /^image\/png$/, '\x89PNG'],
    ['favicon-16x16.png', /^image\/png$/, '\x89PNG'],
    ['docs.css', /^text\/css/, 'nav.versions'],
    ['swagger-initializer.js', /^application\/javascript/, 'SwaggerUIBundle(config)'],
    ['oauth2-redirect.html', /^text\/html/, '<script src="oauth2-redirect.js"></script>'],
    ['oauth2-redirect.js', /^application\/javascript/, 'swaggerUIRedirectOauth2'],
    ['redoc.standalone.js', /^application\/javascript/, 'Redoc']
  ]
  for (const [file, type, marker] of expected) {
    const response = await app.inject({ method: 'GET', url: `${LOCAL}/${file}` })
    t.equal(response.statusCode, 200, `${file}: 200`)
    t.match(response.headers['content-type'], type, `${file}: ${type}`)
    t.equal(response.headers['x-content-type-options'], 'nosniff', `${file}: nosniff`)
    t.ok(response.rawPayload.length > 0, `${file}: not empty`)
    t.ok(response.rawPayload.toString('latin1').includes(marker), `${file}: is what it says`)
  }

  // Only those: not the rest of @fastify/swagger-ui's folder, nor its own page (a second, undocumented Swagger UI).
  for (const url of [`${LOCAL}/index.html`, `${LOCAL}/swagger-ui.js`, `${LOCAL}/csp.json`, `${LOCAL}/..%2Fpackage.json`, `${LOCAL}/`,
    '/docs/swagger-ui/', '/docs/swagger-ui/yaml', '/docs/swagger-ui/json', '/docs/swagger-ui/static/swagger-ui-bundle.js']) {
    t.equal((await page(app, url)).statusCode, 404, `${url}: 404`)
  }

  // Every asset the default pages reference is served by the app itself: the pages work offline.
  for (const url of ['/docs', '/docs?version=2002-01-01', '/docs?version=unversioned', '/redoc?version=2002-01-01', '/docs?version=nope']) {
    const html = (await page(app, url)).body
    const assets = [...scriptSources(html), linkHref(html, 'stylesheet'), linkHref(html, 'icon')]
      .filter((asset): asset is string => asset !== undefined)
    t.ok(assets.length > 0, `${url}: the page references assets to check`)
    for (const asset of assets) {
      t.notMatch(asset, /^[a-z]+:/i, `${url}: ${asset} is local`)
      t.equal((await page(app, asset)).statusCode, 200, `${url}: ${asset} answers`)
    }
  }

  // The docs routes are not part of any document.
  for (const key of [...EXAMPLE_VERSIONS, 'unversioned']) {
    const paths = Object.keys((await page(app, `/openapi.json?version=${key}`)).json().paths as object)
    t.notOk(paths.some((path) => /^\/(docs|redoc|openapi\.json)/.test(path)), `${key}: no docs route in the document (${paths.join(', ')})`)
  }
})

test('a custom docsUrl moves the pages and the local assets', async (t) => {
  const app = await example(t, { docsUrl: '/api/docs/', redocUrl: '/api/redoc', openapiUrl: '/api/openapi.json' })
  t.equal((await page(app, '/docs')).statusCode, 404)
  const list = (await page(app, '/api/docs')).body
  t.ok(anchors(list).some((link) => link.href === '/api/docs?version=2001-01-01'))
  t.ok(anchors(list).some((link) => link.href === '/api/redoc?version=2001-01-01'))
  t.ok(anchors(list).some((link) => link.href === '/api/openapi.json?version=2001-01-01'))
  const swagger = (await page(app, '/api/docs?version=2001-01-01')).body
  t.same(scriptSources(swagger), ['/api/docs/assets/swagger-ui-bundle.js', '/api/docs/assets/swagger-ui-standalone-preset.js',
    '/api/docs/assets/swagger-initializer.js'])
  t.same((swaggerConfig(swagger).urls as Array<{ url: string }>)[0].url, '/api/openapi.json?version=2002-01-01')
  for (const asset of [...scriptSources(swagger), linkHref(swagger, 'stylesheet') as string, linkHref(swagger, 'icon') as string]) {
    t.equal((await page(app, asset)).statusCode, 200, `${asset} answers`)
  }
  t.match((await page(app, '/api/redoc?version=2000-01-01')).body, '<redoc spec-url="/api/openapi.json?version=2000-01-01">')
})

test('null options turn pages off', async (t) => {
  t.test('openapiUrl: null: no documents, no pages, no assets', async (t) => {
    const app = await example(t, { openapiUrl: null })
    for (const url of ['/openapi.json?version=2002-01-01', '/docs', '/docs?version=2002-01-01', '/redoc', '/redoc?version=2002-01-01',
      `${LOCAL}/swagger-ui-bundle.js`, `${LOCAL}/favicon-32x32.png`]) {
      t.equal((await page(app, url)).statusCode, 404, `${url}: 404`)
    }
    t.equal((await page(app, '/changelog')).statusCode, 200, 'the changelog is its own option')
  })

  t.test('docsUrl: null: ReDoc only; its list links ReDoc and documents', async (t) => {
    const app = await example(t, { docsUrl: null })
    t.equal((await page(app, '/docs')).statusCode, 404)
    t.equal((await page(app, '/docs?version=2002-01-01')).statusCode, 404)
    const list = (await page(app, '/redoc')).body
    t.notMatch(list, /Swagger UI/)
    t.same(anchors(list).map((link) => link.href).filter((href) => href.includes('2001-01-01')),
      ['/redoc?version=2001-01-01', '/openapi.json?version=2001-01-01'])
    const redoc = await page(app, '/redoc?version=2001-01-01')
    t.equal(redoc.statusCode, 200)
    t.notMatch(redoc.body, /All versions/, 'no link to a docs page that does not exist')
    t.notOk(anchors(redoc.body).some((link) => link.href.startsWith('/docs')), 'no link to /docs at all')
    const icon = linkHref(redoc.body, 'icon') as string
    t.equal((await page(app, icon)).statusCode, 200, `the default favicon still answers (${icon})`)
    t.same(scriptSources(redoc.body), ['/redoc/assets/redoc.standalone.js'], 'the assets live under the ReDoc URL')
    t.equal((await page(app, '/redoc/assets/redoc.standalone.js')).statusCode, 200)
    t.equal((await page(app, '/redoc/assets/swagger-ui-bundle.js')).statusCode, 404, 'no Swagger UI asset without its page')
    const missing = await page(app, '/redoc?version=nope')
    t.equal(missing.statusCode, 404)
    t.notOk(anchors(missing.body).some((link) => link.href.startsWith('/docs')))
  })

  t.test('redocUrl: null: Swagger UI only', async (t) => {
    const app = await example(t, { redocUrl: null })
    t.equal((await page(app, '/redoc')).statusCode, 404)
    t.equal((await page(app, '/redoc?version=2002-01-01')).statusCode, 404)
    const list = (await page(app, '/docs')).body
    t.notMatch(list, /ReDoc/)
    t.same(anchors(list).map((link) => link.href).filter((href) => href.includes('2001-01-01')),
      ['/docs?version=2001-01-01', '/openapi.json?version=2001-01-01'])
    t.equal((await page(app, '/docs?version=2002-01-01')).statusCode, 200)
  })

  t.test('docsUrl and redocUrl null: documents only', async (t) => {
    const app = await example(t, { docsUrl: null, redocUrl: null })
    for (const url of ['/docs', '/docs?version=2002-01-01', '/redoc', '/redoc?version=2002-01-01', `${LOCAL}/swagger-ui-bundle.js`]) {
      t.equal((await page(app, url)).statusCode, 404, `${url}: 404`)
    }
    t.equal((await page(app, '/openapi.json?version=2002-01-01')).statusCode, 200)
  })
})

const Ok = Type.Object({ ok: Type.Boolean() })

test('regression: /openapi.json and the pages answer the same bytes on every request', async (t) => {
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01'), new Version('2000-01-01'))
  const routes: FastifyPluginAsyncTypebox = async (api) => {
    api.get('/ok', { schema: { response: { 200: Ok } } }, async () => ({ ok: true }))
  }
  const app = await versionedApp(t, versions, routes, { health: true })
  await app.ready()
  for (const url of ['/openapi.json?version=2000-01-01', '/openapi.json?version=unversioned', '/docs', '/docs?version=2001-01-01',
    '/redoc?version=unversioned', '/docs?version=1999-01-01', '/openapi.json?version=1999-01-01']) {
    const first = await app.inject(url)
    const second = await app.inject(url)
    t.equal(second.statusCode, first.statusCode, `${url}: same status`)
    t.equal(second.headers['content-type'], first.headers['content-type'], `${url}: same content type`)
    t.equal(second.body, first.body, `${url}: same body`)
  }
  const json = await app.inject('/openapi.json?version=2000-01-01')
  t.equal(json.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(json.body, JSON.stringify(app.versioner.openapi('2000-01-01')), 'the document as JSON')
})

test('regression: an application validating with TypeBoxValidatorCompiler starts, and the documentation routes check their query', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.setValidatorCompiler(TypeBoxValidatorCompiler)
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01'), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/ping', { schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async () => ({ ok: true }))
  }))
  await app.ready()
  t.equal((await app.inject({ url: '/openapi.json?version=2000-01-01' })).statusCode, 200)
  t.equal((await app.inject({ url: '/docs?version=2000-01-01' })).statusCode, 200)
  t.equal((await app.inject({ url: '/docs?channel=other' })).statusCode, 400, 'an unknown channel is still a 400')
  t.equal((await app.inject({ url: '/docs/upgrade?from=2000-01-01&to=2001-01-01&format=json' })).statusCode, 200)
})

test('regression: a documentation query its schema refuses (a value given twice, an unknown channel) is a 400 saying what is accepted', async (t) => {
  const app = await example(t)
  for (const url of ['/openapi.json?version=2000-01-01&version=2001-01-01', '/docs?version=2000-01-01&version=2001-01-01', '/redoc?version=a&version=b', '/openapi.json?channel=other']) {
    const response = await app.inject(url)
    t.equal(response.statusCode, 400, `${url}: 400`)
    const { code, message } = response.json<{ code: string, message: string }>()
    t.equal(code, 'FST_ERR_VALIDATION', `${url}: Fastify's validation error`)
    t.match(message, /^querystring\/(version|channel) must /, `${url}: what was wrong`)
    t.match(message, /Ask for \?version=<version> once, one of 2002-01-01, 2001-01-01, 2000-01-01, unversioned; \?channel=release or \?channel=preview at most once\.$/, `${url}: what is accepted`)
  }
  const upgrade = await app.inject('/docs/upgrade?from=2000-01-01&from=2001-01-01&to=2002-01-01')
  t.equal(upgrade.statusCode, 400)
  t.match(upgrade.json<{ message: string }>().message, /^querystring\/from must be string\. Ask for \?from=<version>&to=<newer version> \(add &format=json for the data\), with two of the versions 2002-01-01, 2001-01-01, 2000-01-01 \(newest first\)\.$/)
})

test("regression: an application's own route at a docs URL (its @fastify/swagger-ui at /docs) fails registration naming the option to change (it was Fastify's bare FST_ERR_DUPLICATED_ROUTE)", async (t) => {
  const versions = new VersionBundle(new Version('2000-01-01'))
  const cases: Array<[string, string, Partial<FastifyVersionerOptions>]> = [
    ['/docs', 'docsUrl', {}], ['/openapi.json', 'openapiUrl', {}], ['/redoc', 'redocUrl', {}], ['/changelog', 'changelogUrl', {}],
    ['/api/docs', 'docsUrl', {}]
  ]
  for (const [url, option, options] of cases) {
    const app = Fastify()
    t.teardown(() => app.close())
    app.get(url, async () => 'the application\'s own')
    const prefix = url.startsWith('/api') ? '/api' : ''
    app.register(async (api) => { await api.register(fastifyVersioner, { versions, ...options }) }, { prefix })
    await t.rejects(async () => { await app.ready() }, {
      code: 'FST_VERSIONER_INVALID_OPTION',
      message: `GET ${url} is already a route of the application (its own docs page or document?): give fastifyVersioner's '${option}' option another path, or null to serve none.`
    }, `${url}: names ${option}`)
  }
  const moved = Fastify()
  t.teardown(() => moved.close())
  moved.get('/docs', async () => 'the application\'s own')
  await moved.register(fastifyVersioner, { versions, docsUrl: '/api-docs' })
  await moved.ready()
  t.equal((await moved.inject('/docs')).body, 'the application\'s own', 'another docsUrl: both served')
  t.equal((await moved.inject('/api-docs')).statusCode, 200)
})

test('regression: two documentation routes given one path fail registration naming both options and the path (it was Fastify\'s bare FST_ERR_DUPLICATED_ROUTE)', async (t) => {
  const versions = new VersionBundle(new Version('2000-01-01'))
  const cases: Array<[Partial<FastifyVersionerOptions>, string, string, string]> = [
    [{ docsUrl: '/api-docs', redocUrl: '/api-docs' }, "'docsUrl'", "'redocUrl'", '/api-docs'],
    [{ openapiUrl: '/docs' }, "'openapiUrl'", "'docsUrl'", '/docs'],
    [{ changelogUrl: '/openapi.json' }, "'openapiUrl'", "'changelogUrl'", '/openapi.json'],
    [{ changelogUrl: '/docs/upgrade' }, "'changelogUrl'", "'docsUrl' (its upgrade guide)", '/docs/upgrade'],
    [{ docsUrl: '/', redocUrl: '/upgrade' }, "'redocUrl'", "'docsUrl' (its upgrade guide)", '/upgrade'],
    [{ docsUrl: '/reference/', changelogUrl: '/reference' }, "'docsUrl'", "'changelogUrl'", '/reference']
  ]
  for (const [options, first, second, path] of cases) {
    const app = Fastify()
    t.teardown(() => app.close())
    app.register(fastifyVersioner, { versions, ...options })
    await t.rejects(async () => { await app.ready() }, {
      code: 'FST_VERSIONER_INVALID_OPTION',
      message: `Options ${first} and ${second} both serve GET ${path}: give each documentation route a path of its own, or null to serve none.`
    }, JSON.stringify(options))
  }
  // A route turned off frees its path.
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions, redocUrl: null, changelogUrl: '/redoc' })
  t.equal((await app.inject('/redoc')).statusCode, 200, 'the changelog at the path the ReDoc page left')
})

test('regression: openapi.info whose title is not text fails registration (the version list answered 500, other pages showed it)', async (t) => {
  const versions = (): VersionBundle => new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01'))
  for (const [info, got] of [[{ title: 42 }, '42'], [{ title: ['API'] }, "['API']"], ['API', "'API'"]] as const) {
    const app = Fastify()
    t.teardown(() => app.close())
    app.register(fastifyVersioner, { versions: versions(), openapi: { info } as never })
    await t.rejects(async () => { await app.ready() }, {
      code: 'FST_VERSIONER_INVALID_OPTION',
      message: `Option 'openapi.info' must be an object whose title is a string (the documents' and pages' title); got ${got}.`
    }, JSON.stringify(info))
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: versions(), openapi: { info: { title: 'Billing <API>', version: 'ignored' } } })
  await app.register(versioned(async (api) => { api.get('/x', async () => ({ ok: true })) }))
  for (const url of ['/docs', '/docs?version=2000-01-01', '/redoc?version=2000-01-01', '/docs/upgrade?from=2000-01-01&to=2001-01-01']) {
    const page = await app.inject(url)
    t.equal(page.statusCode, 200, url)
    t.match(page.body, '<title>Billing &#60;API&#62;: ', `${url}: the title, escaped`)
  }
})
