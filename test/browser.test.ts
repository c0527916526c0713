/**
 * The docs pages in a real browser: `playwright-core` drives Debian's Chromium (`/usr/bin/chromium`) against
 * the example app listening on 127.0.0.1, with `@fastify/helmet` registered with its defaults (a strict
 * Content-Security-Policy: `script-src 'self'`). Every request to another host is refused and recorded, and
 * every CSP violation (`securitypolicyviolation`) and console error is recorded: none may happen. It opens
 * the version list, follows a link to one version, waits for Swagger UI to render that version's operations,
 * switches version with the topbar's "Select a definition", renders ReDoc with the network off, and opens
 * the upgrade guide from the list (every change, each example valid against its version's document; its range form
 * works without script), and pages with crafted `version` values (and crafted version names) that would run script if they were not
 * escaped. It saves a screenshot of a version's docs page (`docs/docs-page.png`, shown in the
 * README: rewritten when `DOCS_SCREENSHOT=1` or when missing; otherwise written under `test/.tmp`).
 *
 * Without Chromium the test says so and is skipped; `.ci/run` installs it with apt-get.
 */
import t, { type Test } from 'tap'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fastifyHelmet from '@fastify/helmet'
import Fastify, { type FastifyInstance } from 'fastify'
import { chromium, type BrowserContext, type Dialog, type Locator, type Page } from 'playwright-core'
import { buildApp } from '../examples/users/app'
import { fastifyVersioner, HeadVersion, Version, VersionBundle, versioned } from '../plugin'
import { EVERY_KIND_OF_DOCUMENT, everyKindOfApp } from './helpers/every-kind-of-app'
import { bodyChecker, operationsOf, responseSchemaOf, type OpenApiDocument } from './helpers/openapi-documents'

const CHROMIUM = '/usr/bin/chromium'
const SKIP_MESSAGE = `Chromium not found at ${CHROMIUM}: browser test skipped; .ci/run installs it with apt-get`
// The flags this machine needs: no sandbox as root, no GPU, and no background connections to Google's hosts.
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync']
const ROOT = join(__dirname, '..')
const SCREENSHOT = join(ROOT, 'docs', 'docs-page.png')
const VERSIONS = ['2002-01-01', '2001-01-01', '2000-01-01']
const WAIT = 30_000

/** What the tests read of a `<select>` in the page (the project's TypeScript has no DOM types). */
interface SelectElement { selectedOptions: ArrayLike<{ textContent: string | null }> }

/** The label of the option a `<select>` has selected. */
function selectedLabel (select: Locator): Promise<string | null | undefined> {
  return select.evaluate((element) => (element as unknown as SelectElement).selectedOptions[0]?.textContent)
}

/** A page that records every dialog (alert, confirm, prompt), uncaught error and console error. */
interface Watched {
  page: Page
  dialogs: string[]
  errors: string[]
  consoleErrors: string[]
}

async function watchedPage (context: BrowserContext): Promise<Watched> {
  const page = await context.newPage()
  const watched: Watched = { page, dialogs: [], errors: [], consoleErrors: [] }
  page.on('dialog', (dialog: Dialog) => {
    watched.dialogs.push(`${dialog.type()}: ${dialog.message()}`)
    dialog.dismiss().catch(() => {})
  })
  page.on('pageerror', (error) => watched.errors.push(error.message))
  page.on('console', (message) => {
    if (message.type() === 'error') watched.consoleErrors.push(`${message.text()} (${message.location().url})`)
  })
  return watched
}

/** What the tests read of a `securitypolicyviolation` event (no DOM types in the project). */
interface ViolationEvent { violatedDirective: string, blockedURI: string, sourceFile: string }

/**
 * Records every Content-Security-Policy violation of the context's pages in `window.__cspViolations` (an init
 * script runs before the page's own scripts and is not subject to the page's policy).
 */
async function recordViolations (context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const scope = globalThis as unknown as { __cspViolations: string[], addEventListener: (type: string, listener: (event: ViolationEvent) => void) => void }
    scope.__cspViolations = []
    scope.addEventListener('securitypolicyviolation', (event) => {
      scope.__cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI} (${event.sourceFile})`)
    })
  })
}

/** The CSP violations recorded in the page so far. */
function violations (page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as unknown as { __cspViolations?: string[] }).__cspViolations ?? ['the recorder did not run'])
}

/** Nothing went wrong on the page: no CSP violation, no console error, no uncaught error. */
async function cleanPage (t: Test, watched: Watched, label: string): Promise<void> {
  t.same(await violations(watched.page), [], `${label}: no Content-Security-Policy violation`)
  t.same(watched.consoleErrors, [], `${label}: no console error`)
  t.same(watched.errors, [], `${label}: no script error`)
}

async function listen (app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (address === null || typeof address !== 'object') throw new Error('the app is not listening on a TCP port')
  return `http://127.0.0.1:${address.port}`
}

/** `METHOD /path` of every operation a document lists, in document order. */
function documentedOperations (document: { paths?: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.keys(item).filter((key) => ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(key))
      .map((method) => `${method.toUpperCase()} ${path}`))
}

/** Waits until Swagger UI shows `version` (its info block), then answers the operations it renders. */
async function renderedOperations (page: Page, version: string): Promise<string[]> {
  await page.locator('.info .title .version').first().filter({ hasText: version }).waitFor({ timeout: WAIT })
  await page.locator('.opblock').first().waitFor({ timeout: WAIT })
  return page.locator('.opblock').evaluateAll((blocks) => blocks.map((block) => {
    // A deprecated operation's path has another class (opblock-summary-path__deprecated): read data-path.
    const method = block.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '?'
    const path = block.querySelector('.opblock-summary [data-path]')?.getAttribute('data-path') ?? '?'
    return `${method} ${path}`
  }))
}

/** The request body example Swagger UI shows for `POST /users` (expands the operation). */
async function postUsersExample (page: Page): Promise<string> {
  const block = page.locator('.opblock-post').filter({ has: page.locator('[data-path="/users"]') })
  if (!(await block.evaluate((element) => element.classList.contains('is-open')))) await block.locator('.opblock-summary').click()
  const section = block.locator('.opblock-section-request-body')
  await section.waitFor({ timeout: WAIT })
  return section.innerText()
}

/**
 * Runs `check` on every item, `concurrency` at a time, in the one browser: each worker keeps one watched page and
 * navigates it from item to item (a new page an item started a renderer process each; a navigation resets the page's
 * scripts, and what one item left, a dialog or `window.__xss`, fails that item's own check first). Only for light
 * pages: Swagger UI and ReDoc pages rendered at once were slower than one after the other on 2 cores.
 */
async function eachOnPages<T> (context: BrowserContext, items: readonly T[], concurrency: number, check: (watched: Watched, item: T) => Promise<void>): Promise<void> {
  let next = 0
  const worker = async (): Promise<void> => {
    const watched = await watchedPage(context)
    try {
      while (next < items.length) await check(watched, items[next++])
    } finally {
      await watched.page.close()
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker))
}

async function noScriptRan (t: Test, watched: Watched, label: string): Promise<void> {
  // Give anything queued (timers, image errors, late scripts) a moment to run.
  await watched.page.waitForTimeout(300)
  t.same(watched.dialogs, [], `${label}: no dialog opened`)
  t.equal(await watched.page.evaluate(() => typeof (globalThis as { __xss?: unknown }).__xss), 'undefined', `${label}: window.__xss was never set`)
}

if (!existsSync(CHROMIUM)) {
  process.stderr.write(`${SKIP_MESSAGE}\n`)
  t.skip(SKIP_MESSAGE, () => {})
} else {
  t.setTimeout(240_000)
  t.test('docs pages in Chromium', async (t) => {
    const app = await buildApp()
    t.teardown(() => app.close())
    // Helmet with its defaults: Content-Security-Policy (script-src 'self'; script-src-attr 'none'…), nosniff…
    await app.register(fastifyHelmet)
    const base = await listen(app)
    const csp = (await fetch(`${base}/docs?version=2002-01-01`)).headers.get('content-security-policy') ?? ''
    t.match(csp, "script-src 'self';", 'helmet\'s default policy is on the docs pages')

    const profile = mkdtempSync(join(tmpdir(), 'fastify-versioner-chromium-'))
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1280, height: 900 }
    })
    t.teardown(async () => {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    })
    await recordViolations(context)
    // Only the app is reachable: every other request is recorded and refused (the pages must work offline).
    const external: string[] = []
    await context.route('**/*', async (route) => {
      const url = new URL(route.request().url())
      if (url.hostname === '127.0.0.1' || !url.protocol.startsWith('http')) return route.continue()
      external.push(url.href)
      return route.abort('internetdisconnected')
    })

    const documents = new Map<string, string[]>()
    for (const key of [...VERSIONS, 'unversioned']) {
      const response = await fetch(`${base}/openapi.json?version=${key}`)
      documents.set(key, documentedOperations(await response.json() as { paths?: Record<string, Record<string, unknown>> }))
    }

    await t.test('the list, a version\'s Swagger UI, and the version switcher', async (t) => {
      const watched = await watchedPage(context)
      const { page } = watched
      t.teardown(() => page.close())

      const list = await page.goto(`${base}/docs`)
      t.equal(list?.status(), 200)
      t.equal(await page.title(), 'Users API: API versions')
      t.same(await page.locator('tbody tr td:first-child strong').allInnerTexts(), [...VERSIONS, 'unversioned'],
        'the list shows every version, newest first, then unversioned')

      // Follow the list's link to 2002-01-01.
      const row = page.locator('tbody tr').filter({ has: page.locator('strong', { hasText: '2002-01-01' }) })
      await Promise.all([page.waitForURL(`${base}/docs?version=2002-01-01`), row.getByRole('link', { name: 'Swagger UI' }).click()])
      t.equal(await page.title(), 'Users API: 2002-01-01: Swagger UI')
      const latest = await renderedOperations(page, '2002-01-01')
      t.same(latest, documents.get('2002-01-01'), '2002-01-01: exactly the operations of its document')
      t.ok(latest.includes('POST /users'), '2002-01-01: POST /users')
      t.ok(latest.includes('GET /users/{userId}/addresses'), '2002-01-01: GET /users/{userId}/addresses')
      t.match(await postUsersExample(page), /"defaultAddress"/, '2002-01-01: POST /users takes defaultAddress')

      const select = page.getByLabel('Select a definition')
      t.same(await select.locator('option').allInnerTexts(), [...VERSIONS, 'unversioned'], 'the switcher lists every version')
      t.equal(await selectedLabel(select), '2002-01-01',
        'the switcher starts on the page\'s version')
      t.equal(await page.locator('nav.versions strong').innerText(), '2002-01-01', 'the navigation bar marks the page\'s version')

      // Switch to 2001-01-01: the addresses endpoint did not exist yet; users had a list of addresses.
      await select.selectOption({ label: '2001-01-01' })
      const older = await renderedOperations(page, '2001-01-01')
      t.same(older, documents.get('2001-01-01'), '2001-01-01: exactly the operations of its document')
      t.ok(older.includes('POST /users'), '2001-01-01: POST /users')
      t.notOk(older.includes('GET /users/{userId}/addresses'), '2001-01-01: no GET /users/{userId}/addresses')
      t.not(older.length, latest.length, 'the operations changed with the version')
      const olderExample = await postUsersExample(page)
      t.match(olderExample, /"addresses"/, '2001-01-01: POST /users takes addresses')
      t.notMatch(olderExample, /"defaultAddress"/)

      // And to 2000-01-01: one address.
      await select.selectOption({ label: '2000-01-01' })
      const oldest = await renderedOperations(page, '2000-01-01')
      t.same(oldest, documents.get('2000-01-01'))
      t.notOk(oldest.includes('GET /users/{userId}/addresses'), '2000-01-01: no GET /users/{userId}/addresses')
      t.match(await postUsersExample(page), /"address"(?!es)/, '2000-01-01: POST /users takes one address')

      // The unversioned document: the routes outside versioned().
      await select.selectOption({ label: 'unversioned' })
      const unversioned = await renderedOperations(page, 'unversioned')
      t.same(unversioned, documents.get('unversioned'))
      t.ok(unversioned.includes('GET /health'), 'unversioned: GET /health')
      t.notOk(unversioned.includes('POST /users'), 'unversioned: no versioned route')

      // The navigation bar leads to another version's page, which opens on that version.
      await Promise.all([page.waitForURL(`${base}/docs?version=2001-01-01`), page.locator('nav.versions').getByRole('link', { name: '2001-01-01' }).click()])
      t.same(await renderedOperations(page, '2001-01-01'), documents.get('2001-01-01'), 'a direct page opens on its version')
      t.equal(await selectedLabel(page.getByLabel('Select a definition')), '2001-01-01')

      // Swagger UI writes the switched version into the address (&urls.primaryName=…); after a reload, the page's
      // own version (title, navigation bar) should still be the one shown.
      await page.getByLabel('Select a definition').selectOption({ label: '2000-01-01' })
      await renderedOperations(page, '2000-01-01')
      await page.reload()
      await page.locator('.opblock').first().waitFor({ timeout: WAIT })
      const shown = (await page.locator('.info .title .version').first().textContent())?.trim()
      t.equal(await page.locator('nav.versions strong').textContent(), shown,
        `after switching and reloading (${page.url().slice(base.length)}), the navigation bar marks the version shown`)

      // Regression: Back returns to the page switched from, whose address Swagger UI rewrote with the version switched
      // to (?urls.primaryName=), which it then opened under the page's title; a link carrying the key did the same.
      await page.getByLabel('Select a definition').selectOption({ label: '2002-01-01' })
      await page.waitForURL(`${base}/docs?version=2002-01-01`)
      await renderedOperations(page, '2002-01-01')
      await page.goBack()
      await page.locator('nav.versions strong').waitFor({ timeout: WAIT })
      const back = await page.locator('nav.versions strong').textContent()
      t.same(await renderedOperations(page, back ?? '?'), documents.get(back ?? '?'), `back on ${back ?? '?'}'s page: its operations`)
      t.equal(await selectedLabel(page.getByLabel('Select a definition')), back, 'back: the switcher on the page\'s version')
      await page.goto(`${base}/docs?version=2000-01-01&urls.primaryName=2002-01-01`)
      t.same(await renderedOperations(page, '2000-01-01'), documents.get('2000-01-01'), 'a link naming another definition: the page\'s version')
      t.equal(page.url(), `${base}/docs?version=2000-01-01`, 'the key taken out of the address')

      await cleanPage(t, watched, 'Swagger UI')
      t.same(external, [], 'Swagger UI loaded nothing from outside the app (it works offline)')
    })

    await t.test('ReDoc renders a version with the network off, under the strict policy', async (t) => {
      const watched = await watchedPage(context)
      const { page } = watched
      t.teardown(() => page.close())
      const attempted = external.length
      const response = await page.goto(`${base}/redoc?version=2002-01-01`)
      t.equal(response?.status(), 200)
      t.equal(await page.title(), 'Users API: 2002-01-01: ReDoc')
      // ReDoc shows each operation's summary as a heading; wait for the first, then read them all.
      await page.getByRole('heading', { name: 'Create a user' }).waitFor({ timeout: WAIT })
      const headings = await page.locator('h2').allInnerTexts()
      for (const summary of ['Create a user', 'Get a user', "List a user's addresses"]) t.ok(headings.includes(summary), `ReDoc shows "${summary}"`)
      // Its search runs in a worker, served as a file (a blob: worker would break script-src 'self').
      await page.getByPlaceholder('Search...').fill('addresses')
      const result = page.locator('[data-role="search:results"]').getByText("List a user's addresses")
      await result.first().waitFor({ timeout: WAIT })
      t.ok(await result.count() > 0, 'searching finds the addresses operation')
      await page.goto(`${base}/redoc?version=2000-01-01`)
      await page.getByRole('heading', { name: 'Create a user' }).waitFor({ timeout: WAIT })
      t.notOk((await page.locator('h2').allInnerTexts()).includes("List a user's addresses"), '2000-01-01: no addresses endpoint')
      await cleanPage(t, watched, 'ReDoc')
      t.same(external.slice(attempted), [], 'ReDoc attempted no request outside the app (no CDN script, no remote logo)')
    })

    await t.test('the version list, under the strict policy', async (t) => {
      const watched = await watchedPage(context)
      t.teardown(() => watched.page.close())
      await watched.page.goto(`${base}/docs`)
      t.equal(await watched.page.locator('nav, main h1').first().evaluate((element) =>
        (globalThis as unknown as { getComputedStyle: (e: unknown) => { fontFamily: string } }).getComputedStyle(element).fontFamily.includes('system-ui')), true,
      'its style sheet applies (served, not inline)')
      await cleanPage(t, watched, 'list')
    })

    await t.test('the upgrade guide, from the list, offline under the strict policy: every change, valid examples', async (t) => {
      const watched = await watchedPage(context)
      const { page } = watched
      t.teardown(() => page.close())
      const attempted = external.length
      await page.goto(`${base}/docs`)
      const row = page.locator('tbody tr').filter({ has: page.locator('strong', { hasText: '2000-01-01' }) })
      await Promise.all([page.waitForURL(`${base}/docs/upgrade?from=2000-01-01&to=2002-01-01`), row.getByRole('link', { name: 'upgrade guide to 2002-01-01' }).click()])
      t.equal(await page.title(), 'Users API: upgrading from 2000-01-01 to 2002-01-01')
      t.same(await page.locator('section.change h2').allInnerTexts(),
        ['2001-01-01: ReplaceUserAddressWithListOfAddresses', '2002-01-01: MoveUserAddressesToTheirOwnEndpoint'], 'every change between them, newest last')
      const shown = await page.locator('section.change').evaluateAll((sections) => sections.map((section) => ({
        version: section.querySelector('h2')?.textContent?.split(':')[0] ?? '',
        examples: [...section.querySelectorAll('.example')].map((example) => ({
          heading: example.querySelector('h4')?.textContent ?? '',
          // An operation the change added shows one body, of the version after it (decision 0333).
          before: example.querySelector('.before pre')?.textContent ?? null,
          after: example.querySelector('.after pre')?.textContent ?? ''
        }))
      })))
      const documentsByVersion = new Map<string, OpenApiDocument>()
      for (const version of VERSIONS) documentsByVersion.set(version, await (await fetch(`${base}/openapi.json?version=${version}`)).json() as OpenApiDocument)
      let checked = 0
      for (const section of shown) {
        const after = section.version
        const before = VERSIONS[VERSIONS.indexOf(after) + 1]
        t.ok(section.examples.length >= 2, `${after}: the page shows examples`)
        for (const example of section.examples) {
          const [, method, path, part, status] = /^(\S+) (\S+): (request body|response body)(?: \((\d+)\))?$/.exec(example.heading) ?? []
          for (const [version, text] of example.before === null ? [[after, example.after]] : [[before, example.before], [after, example.after]]) {
            const document = documentsByVersion.get(version) as OpenApiDocument
            const operation = operationsOf(document).find((candidate) => candidate.method === method && candidate.path === path)
            const documented = part === 'request body'
              ? operation?.operation.requestBody?.content?.['application/json']?.schema
              : operation === undefined ? undefined : responseSchemaOf(operation, Number(status))
            t.ok(documented !== undefined, `${example.heading}: documented in ${version}`)
            t.equal(bodyChecker(document, { closed: true })(documented, JSON.parse(text)), undefined, `${example.heading}: the ${version} example is valid there`)
            checked++
          }
        }
      }
      t.ok(checked >= 10, `${checked} examples checked against their versions' documents`)
      // The range form works without script: pick 2001-01-01 → 2002-01-01.
      await page.getByLabel('from').selectOption('2001-01-01')
      await Promise.all([page.waitForURL(`${base}/docs/upgrade?from=2001-01-01&to=2002-01-01`), page.getByRole('button', { name: 'Show' }).click()])
      t.same(await page.locator('section.change h2').allInnerTexts(), ['2002-01-01: MoveUserAddressesToTheirOwnEndpoint'], 'the form shows another range')
      t.equal(await page.locator('script').count(), 0, 'the page has no script')
      await cleanPage(t, watched, 'upgrade guide')
      t.same(external.slice(attempted), [], 'the guide loaded nothing from outside the app')
    })

    await t.test('a screenshot of the docs page of 2002-01-01', async (t) => {
      const { page } = await watchedPage(context)
      t.teardown(() => page.close())
      await page.goto(`${base}/docs?version=2002-01-01`)
      await renderedOperations(page, '2002-01-01')
      await postUsersExample(page)
      // No hover or focus ring in the picture.
      await page.mouse.move(0, 0)
      await page.evaluate(() => (globalThis as { document?: { activeElement?: { blur?: () => void } | null } }).document?.activeElement?.blur?.())
      const update = process.env.DOCS_SCREENSHOT === '1' || !existsSync(SCREENSHOT)
      const target = update ? SCREENSHOT : join(ROOT, 'test', '.tmp', 'docs-page.png')
      mkdirSync(join(target, '..'), { recursive: true })
      const png = await page.screenshot({ path: target, fullPage: true })
      t.same([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG')
      t.ok(png.length > 10_000, `not blank (${png.length} bytes)`)
      t.ok(existsSync(SCREENSHOT), 'docs/docs-page.png exists')
      t.match(readFileSync(join(ROOT, 'README.md'), 'utf8'), '](docs/docs-page.png)', 'the README shows it')
    })

    await t.test('every document of an app with named versions, QUERY routes and two APIs renders in Swagger UI and ReDoc', async (t) => {
      const every = await everyKindOfApp(t)
      const everyBase = await listen(every)
      const watched = await watchedPage(context)
      const { page } = watched
      t.teardown(() => page.close())
      for (const [prefix, versions] of EVERY_KIND_OF_DOCUMENT) {
        for (const version of versions.filter((value) => value !== 'unversioned')) {
          const label = `${prefix} ${version}`
          const document = await (await fetch(`${everyBase}${prefix}/openapi.json?version=${version}`)).json() as { paths?: Record<string, Record<string, unknown>> }
          const response = await page.goto(`${everyBase}${prefix}/docs?version=${encodeURIComponent(version)}`)
          t.equal(response?.status(), 200, `${label}: its Swagger UI page`)
          const operations = await renderedOperations(page, version)
          t.same(operations, documentedOperations(document), `${label}: Swagger UI renders exactly the document's operations (QUERY kept under x-query)`)
          const redoc = await page.goto(`${everyBase}${prefix}/redoc?version=${encodeURIComponent(version)}`)
          t.equal(redoc?.status(), 200, `${label}: its ReDoc page`)
          await page.locator('h2').first().waitFor({ timeout: WAIT })
          t.ok((await page.locator('h2').count()) >= operations.length, `${label}: ReDoc renders an operation heading per operation`)
        }
      }
      await cleanPage(t, watched, 'every kind of app')
    })

    await t.test('crafted version values in the query run no script', async (t) => {
      const crafted = [
        '"><script>window.__xss=1;alert(1)</script>',
        '</script><script>window.__xss=1;alert(1)</script>',
        "'onmouseover='window.__xss=1;alert(1)' x='",
        '" onmouseover="window.__xss=1;alert(1)" x="',
        '<img src=x onerror="window.__xss=1;alert(1)">',
        '<svg onload="window.__xss=1;alert(1)">',
        'javascript:window.__xss=1;alert(1)',
        'x\u2028</script>\u2029<script>window.__xss=1;alert(1)</script>'
      ]
      // Four pages at a time: each is a small 404 page, and most of its time is noScriptRan's wait.
      const pages = ['/docs', '/redoc'].flatMap((pageBase) => crafted.map((value) => ({ pageBase, value })))
      await eachOnPages(context, pages, 4, async (watched, { pageBase, value }) => {
        const label = `${pageBase} ${JSON.stringify(value).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`)}`
        const { page } = watched
        const response = await page.goto(`${base}${pageBase}?version=${encodeURIComponent(value)}`)
        t.equal(response?.status(), 404, `${label}: 404`)
        const heading = page.locator('h1')
        t.equal(await heading.textContent(), `No documentation for version '${value}'`, `${label}: the value is shown as text`)
        await heading.hover()
        await page.mouse.move(1, 1)
        t.equal(await page.locator('script').count(), 0, `${label}: no script element`)
        await noScriptRan(t, watched, label)
      })
    })

    await t.test('crafted version names run no script on the list, Swagger UI and ReDoc pages', async (t) => {
      const names = [
        'v3</script><script>window.__xss=1;alert(1)</script>',
        '"><img src=x onerror="window.__xss=1;alert(1)">',
        "v1'onmouseover='window.__xss=1;alert(1)'",
        // U+2028 and U+2029 cannot be in a version name (no header carries them); a Swagger UI setting still can.
        'v0\u00a0</script>\u00ff<!--'
      ]
      const crafted = Fastify()
      t.teardown(() => crafted.close())
      await crafted.register(fastifyVersioner, {
        apiVersionFormat: 'string',
        uiConfig: { crafted: 'x\u2028</script>\u2029<script>window.__xss=1;alert(1)</script>' },
        versions: new VersionBundle(new HeadVersion(), ...names.map((name) => new Version(name)))
      })
      await crafted.register(versioned(async (api) => {
        api.get('/things', { schema: { summary: 'List things' } }, async () => ({ ok: true }))
      }))
      const craftedBase = await listen(crafted)

      const watched = await watchedPage(context)
      const { page } = watched
      t.teardown(() => page.close())
      await page.goto(`${craftedBase}/docs`)
      t.same(await page.locator('tbody tr td:first-child strong').allTextContents(), [...names, 'unversioned'], 'the list shows the names as text')
      for (const link of await page.locator('a').all()) await link.hover()
      await noScriptRan(t, watched, 'list')

      for (const [index, name] of names.entries()) {
        const label = `name ${index + 1}`
        const response = await page.goto(`${craftedBase}/docs?version=${encodeURIComponent(name)}`)
        t.equal(response?.status(), 200, `${label}: its Swagger UI page`)
        await page.locator('.opblock').first().waitFor({ timeout: WAIT })
        t.same(await page.locator('.opblock .opblock-summary [data-path]').evaluateAll((paths) => paths.map((path) => path.getAttribute('data-path'))),
          ['/things'], `${label}: Swagger UI rendered the version's operations`)
        t.equal(await selectedLabel(page.getByLabel('Select a definition')), name,
          `${label}: the switcher selected the exact name`)
        t.equal(await page.locator('script').count(), 4, `${label}: only the page's own scripts (and its settings)`)
        for (const link of await page.locator('nav.versions a').all()) await link.hover()
        await noScriptRan(t, watched, `${label} Swagger UI`)

        const redoc = await page.goto(`${craftedBase}/redoc?version=${encodeURIComponent(name)}`)
        t.equal(redoc?.status(), 200, `${label}: its ReDoc page`)
        t.equal(await page.locator('nav.versions strong').textContent(), name, `${label}: named as text`)
        t.equal(await page.locator('redoc').getAttribute('spec-url'), `/openapi.json?version=${encodeURIComponent(name)}`)
        t.equal(await page.locator('script').count(), 1, `${label}: only ReDoc's script`)
        await noScriptRan(t, watched, `${label} ReDoc`)
      }
      t.same(watched.errors, [], 'no script error')
    })
  })
}
