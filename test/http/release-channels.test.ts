/**
 * Preview versions (`channel: 'preview'`): served only to requests that name them exactly and that `access` allows,
 * never waterfalled to nor a default; denied requests get exactly the answer of an application without the preview;
 * left out of the docs, the documents, the changelog, export, check and types unless asked for; promoting a preview
 * leaves every released version's document byte-identical.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import fc from 'fast-check'
import type { FastifyInstance, FastifyRequest, LightMyRequestResponse } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  endpoint, HeadVersion, schema, Version, VersionBundle, VersionChange, type FastifyVersionerOptions, type VersionLifecycle
} from '../../plugin'
import { checkDocuments, exportDocuments, injectEveryVersion, runCli, servedDocuments, typesModule, verify } from '../../tools'
import { versionedApp, type Teardown } from '../helpers/apps'
import { versionValues } from '../helpers/version-values'
import { buildApp, gen, randomHistory, rng, type History } from '../helpers/random-histories'

const SEED = Number(process.env.FC_SEED ?? 20261126)
const PREVIEW = '2027-01-01.preview'
const RELEASES = ['2026-06-01', '2026-01-01'] as const

const User = Type.Object({ id: Type.String(), name: Type.String(), beta: Type.String() })
const Params = Type.Object({ id: Type.String() })

/** The preview's changes: the newest release has no `beta` field and no `/beta` route. */
function previewChange (): typeof VersionChange {
  return class BetaFieldAndRoute extends VersionChange {
    description = 'Users have a beta field; GET /beta exists.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('beta').didntExist, endpoint('/beta', ['GET']).didntExist]
  } as unknown as typeof VersionChange
}

/** How the API looks: `preview` (the preview version), `promoted` (the same, released), `absent` (HEAD hides what the preview adds). */
type Shape = 'preview' | 'promoted' | 'absent'

const allowBeta = (request: FastifyRequest): boolean => request.headers['x-beta'] === 'yes'

function bundle (shape: Shape, lifecycle: VersionLifecycle = { channel: 'preview', access: allowBeta }): VersionBundle {
  class NamesWereRequired extends VersionChange {
    description = 'The name is described.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('name').had({ description: 'The name.' })]
  }
  const releases = [new Version(RELEASES[0], NamesWereRequired), new Version(RELEASES[1])]
  const change = previewChange() as never
  if (shape === 'absent') return new VersionBundle(new HeadVersion(change), ...releases)
  if (shape === 'promoted') return new VersionBundle(new HeadVersion(), new Version('2027-01-01', change), ...releases)
  return new VersionBundle(new HeadVersion(), new Version(PREVIEW, change, lifecycle), ...releases)
}

async function app (t: Teardown, shape: Shape, options: Partial<FastifyVersionerOptions> = {}, lifecycle?: VersionLifecycle): Promise<FastifyInstance> {
  return await versionedApp(t, bundle(shape, lifecycle), async (api) => {
    api.get('/users/:id', { schema: { params: Params, response: { 200: User } } }, async (request) => ({ id: request.params.id, name: 'Ada', beta: 'yes' }))
    api.get('/beta', async () => ({ beta: true }))
  }, { versioner: options })
}

/** Everything a client sees of a response. */
function seen (response: LightMyRequestResponse): string {
  return JSON.stringify({ status: response.statusCode, headers: response.headers, body: response.body })
}

test('a preview named exactly is served to requests its access allows; a plain date after it lands on the newest release', async (t) => {
  const api = await app(t, 'preview')
  const allowed = await api.inject({ url: '/users/1', headers: { 'x-api-version': PREVIEW, 'x-beta': 'yes' } })
  t.equal(allowed.statusCode, 200)
  t.equal(allowed.headers['x-api-version'], PREVIEW)
  t.same(allowed.json(), { id: '1', name: 'Ada', beta: 'yes' })
  t.equal((await api.inject({ url: '/beta', headers: { 'x-api-version': PREVIEW, 'x-beta': 'yes' } })).statusCode, 200)
  for (const value of ['2099-01-01', '2027-01-01', '2026-07-01']) {
    const later = await api.inject({ url: '/users/1', headers: { 'x-api-version': value, 'x-beta': 'yes' } })
    t.equal(later.headers['x-api-version'], RELEASES[0], `${value} is served as the newest release`)
    t.same(later.json(), { id: '1', name: 'Ada' }, 'without the preview\'s field')
  }
  t.equal((await api.inject({ url: '/beta', headers: { 'x-api-version': '2099-01-01' } })).statusCode, 404, 'the preview\'s route is not released')
  t.equal(api.versioner.versions.get(PREVIEW)?.channel, 'preview')
  t.same(api.versioner.versions.releasedValues, RELEASES)
})

test('version fuzz with preview names: without access, 0 preview answers and byte for byte the answers of an API without the preview', async (t) => {
  for (const location of ['header', 'path'] as const) {
    const withPreview = await app(t, 'preview', { apiVersionLocation: location })
    const without = await app(t, 'absent', { apiVersionLocation: location })
    const previewNames = [PREVIEW, ` ${PREVIEW}`, `${PREVIEW} `, '2027-01-01.PREVIEW', '2027-01-01', '2027-01-01.previe']
    const failures: string[] = []
    let previewAnswers = 0
    let denied = 0
    await fc.assert(fc.asyncProperty(versionValues(RELEASES, previewNames), fc.constantFrom('/users/1', '/beta'), fc.boolean(), async (value, path, wrongKey) => {
      const header = value.replace(/[^\x20-\x7e]/g, '')
      const request = location === 'header'
        ? { url: path, headers: { 'x-api-version': header, ...(wrongKey ? { 'x-beta': 'no' } : {}) } }
        : { url: `/${encodeURIComponent(value)}${path}`, headers: wrongKey ? { 'x-beta': 'no' } : {} }
      const [a, b] = [await withPreview.inject(request), await without.inject(request)]
      if (a.headers['x-api-version'] === PREVIEW) previewAnswers++
      if ((location === 'header' ? header : value) === PREVIEW) denied++
      if (seen(a) !== seen(b)) failures.push(`${JSON.stringify(value)} ${path}: ${seen(a)} vs ${seen(b)}`)
    }), { seed: SEED, numRuns: 400 })
    t.equal(previewAnswers, 0, `${location}: no preview answer without access`)
    t.ok(denied > 0, `${location}: the preview's own name was tried (${denied} times)`)
    t.same(failures, [], `${location}: every answer is the one of the API without the preview`)
    const exact = location === 'header'
      ? { url: '/users/1', headers: { 'x-api-version': PREVIEW } }
      : { url: `/${PREVIEW}/users/1`, headers: {} }
    const answer = await withPreview.inject(exact)
    t.equal(answer.statusCode, 400, `${location}: the preview without access is a 400`)
    t.notMatch(answer.json().message, /Supported versions: .*preview/i, `${location}: the versions listed do not name the preview`)
    t.equal(seen(answer), seen(await without.inject(exact)), `${location}: byte-identical to an unknown version`)
    const allowed = await withPreview.inject({ ...exact, headers: { ...exact.headers, 'x-beta': 'yes' } })
    t.same([allowed.statusCode, allowed.headers['x-api-version']], [200, PREVIEW], `${location}: served to a request access allows`)
  }
})

test('access: async answers, throws and non-true values deny; a preview without access is served to whoever names it', async (t) => {
  const calls: string[] = []
  const asyncApi = await app(t, 'preview', {}, {
    channel: 'preview',
    access: async (request) => {
      calls.push(String(request.headers['x-beta']))
      if (request.headers['x-beta'] === 'throw') throw new Error('no account service')
      return request.headers['x-beta'] === 'yes' ? true : 'yes' as never
    }
  })
  const asked = (beta: string): Promise<LightMyRequestResponse> => asyncApi.inject({ url: '/users/1', headers: { 'x-api-version': PREVIEW, 'x-beta': beta } })
  t.equal((await asked('yes')).headers['x-api-version'], PREVIEW)
  t.equal((await asked('maybe')).statusCode, 400, 'a truthy non-true answer denies')
  t.equal((await asked('throw')).statusCode, 400, 'a failing access denies (and is logged)')
  t.same(calls, ['yes', 'maybe', 'throw'])
  const throwing = await app(t, 'preview', {}, { channel: 'preview', access: () => { throw new Error('no account service') } })
  const thrown = await throwing.inject({ url: '/users/1', headers: { 'x-api-version': PREVIEW } })
  t.equal(thrown.statusCode, 400, 'a synchronous throw denies too')
  const open = await app(t, 'preview', {}, { channel: 'preview' })
  await open.ready()
  t.same(await verify(open, { examples: 5 }), [], 'verify checks the preview (and finds nothing here)')
  t.equal((await open.inject({ url: '/users/1', headers: { 'x-api-version': PREVIEW } })).headers['x-api-version'], PREVIEW)
  t.equal((await open.inject({ url: '/users/1' })).statusCode, 400, 'never a default: no version is still a 400')
  const defaulted = await app(t, 'preview', { apiVersionDefaultValue: RELEASES[1] }, { channel: 'preview' })
  t.equal((await defaulted.inject({ url: '/users/1' })).headers['x-api-version'], RELEASES[1])
  await t.rejects(app(t, 'preview', { apiVersionDefaultValue: PREVIEW }).then(async (api) => { await api.ready() }), /'2027-01-01\.preview' is not a version this API serves; versions: 2026-06-01, 2026-01-01\./)
})

test('request.apiVersion read in onRequest does not decide a preview before the application\'s hooks run', async (t) => {
  const api = await versionedApp(t, bundle('preview', { channel: 'preview', access: (request) => (request as FastifyRequest & { user?: string }).user === 'beta' }), async (scope) => {
    scope.addHook('onRequest', async (request) => {
      request.log.debug({ version: request.apiVersion }, 'read early')
      Object.assign(request, { user: request.headers.authorization === 'beta' ? 'beta' : 'other' })
    })
    scope.get('/users/:id', { schema: { params: Params, response: { 200: User } } }, async (request) => ({ id: request.params.id, name: 'Ada', beta: request.apiVersion ?? '' }))
    scope.get('/beta', async () => ({ beta: true }))
  })
  const served = await api.inject({ url: '/users/1', headers: { 'x-api-version': PREVIEW, authorization: 'beta' } })
  t.same(served.json(), { id: '1', name: 'Ada', beta: PREVIEW })
  t.equal((await api.inject({ url: '/users/1', headers: { 'x-api-version': PREVIEW, authorization: 'x' } })).statusCode, 400)
})

test('the docs pages, documents and changelog leave the preview out unless asked with ?channel=preview (and access allows)', async (t) => {
  const api = await app(t, 'preview')
  const without = await app(t, 'absent')
  for (const url of ['/docs', '/redoc', '/openapi.json', '/docs?version=2099-01-01', '/openapi.json?version=2099-01-01', `/openapi.json?version=${PREVIEW}`,
    `/docs?version=${PREVIEW}`, `/docs?version=${PREVIEW}&channel=preview`, `/openapi.json?version=${PREVIEW}&channel=preview`]) {
    const [a, b] = [await api.inject({ url }), await without.inject({ url })]
    t.equal(seen(a), seen(b), `${url}: as if there were no preview`)
    if (!url.includes(PREVIEW)) t.notMatch(a.body, /preview/i, `${url}: no word of the preview`)
  }
  const document = await api.inject({ url: `/openapi.json?version=${PREVIEW}&channel=preview`, headers: { 'x-beta': 'yes' } })
  t.equal(document.statusCode, 200)
  t.equal(document.json().info.version, PREVIEW)
  t.ok(document.json().paths['/beta'], 'the preview\'s document has its route')
  const list = await api.inject({ url: '/docs?channel=preview', headers: { 'x-beta': 'yes' } })
  t.match(list.body, `openapi.json?version=${encodeURIComponent(PREVIEW)}&#38;channel=preview`)
  t.match(list.body, /badge preview/)
  const page = await api.inject({ url: `/docs?version=${PREVIEW}&channel=preview`, headers: { 'x-beta': 'yes' } })
  t.equal(page.statusCode, 200)
  t.match(page.body, `${PREVIEW} (preview)`)
  t.equal((await api.inject({ url: '/docs?channel=other' })).statusCode, 400, 'an unknown channel is a 400')
  t.same(api.versioner.changelog().versions.map((version) => version.value), [RELEASES[0]], 'the changelog has no preview')
})

test('regression: pages asked with ?channel=preview keep it in every link, so going back from the preview keeps it listed', async (t) => {
  const api = await app(t, 'preview')
  const without = await app(t, 'absent')
  const beta = { 'x-beta': 'yes' }
  const hrefs = (body: string): string[] => [...body.matchAll(/href="([^"]*)"/g)].map((match) => match[1].replace(/&#38;/g, '&'))
    .filter((href) => /^\/(docs|redoc|openapi\.json)(\?|\/upgrade)/.test(href))
  for (const base of ['/docs', '/redoc']) {
    const page = await api.inject({ url: `${base}?version=${PREVIEW}&channel=preview`, headers: beta })
    const links = hrefs(page.body)
    t.ok(links.includes('/docs?channel=preview'), `${base}: All versions keeps the channel`)
    t.ok(links.includes(`${base}?version=${RELEASES[0]}&channel=preview`), `${base}: a release's link keeps the channel`)
    t.same(links.filter((href) => !href.includes('channel=preview')), [], `${base}: no link drops the channel`)
    const back = await api.inject({ url: `${base}?version=${RELEASES[0]}&channel=preview`, headers: beta })
    t.match(back.body, `${base}?version=${encodeURIComponent(PREVIEW)}&#38;channel=preview`, `${base}: the release's page still links the preview`)
  }
  const release = await api.inject({ url: `/docs?version=${RELEASES[0]}&channel=preview`, headers: beta })
  t.match(release.body, `"name":"${PREVIEW} (preview)"`, 'the switcher of a release\'s page asked with the channel holds the preview')
  const list = await api.inject({ url: '/docs?channel=preview', headers: beta })
  t.same(hrefs(list.body).filter((href) => !href.includes('channel=preview')), [], 'the list\'s links keep the channel')
  for (const url of [`/docs?version=${RELEASES[0]}&channel=preview`, '/docs?channel=preview', `/redoc?version=${RELEASES[1]}&channel=preview`]) {
    const [a, b] = [await api.inject({ url }), await without.inject({ url })]
    t.equal(seen(a), seen(b), `${url} (refused): as if there were no preview`)
    t.notMatch(a.body, PREVIEW, `${url} (refused): no word of the preview`)
  }
  t.notMatch((await api.inject({ url: `/docs?version=${RELEASES[0]}`, headers: beta })).body, 'channel=preview', 'a page asked without the channel links without it')
})

test('regression: the upgrade guide leads to a preview for a request asked with ?channel=preview that access allows', async (t) => {
  const api = await app(t, 'preview')
  const without = await app(t, 'absent')
  const beta = { 'x-beta': 'yes' }
  const guide = await api.inject({ url: `/docs/upgrade?from=${RELEASES[1]}&to=${PREVIEW}&channel=preview&format=json`, headers: beta })
  t.equal(guide.statusCode, 200, guide.body)
  t.equal(guide.headers['cache-control'], 'private, no-cache')
  t.same(guide.json().changes.map((change: { version: string, name: string }) => `${change.version} ${change.name}`),
    [`${RELEASES[0]} NamesWereRequired`, `${PREVIEW} BetaFieldAndRoute`])
  t.match(guide.json().changes[1].operations, [{ method: 'GET', path: '/beta', status: 'added' }])
  const page = await api.inject({ url: `/docs/upgrade?from=${RELEASES[0]}&to=${PREVIEW}&channel=preview`, headers: beta })
  t.equal(page.statusCode, 200)
  t.match(page.body, `<option value="${PREVIEW}" selected>`, 'the form offers the preview')
  t.match(page.body, '<input type="hidden" name="channel" value="preview">', 'the form keeps the channel')
  t.match(page.body, '<a href="/docs?channel=preview">All versions</a>')
  t.match(page.body, 'format=json&#38;channel=preview"', 'the JSON link keeps the channel')
  const older = await api.inject({ url: `/docs/upgrade?from=${PREVIEW}&to=${RELEASES[0]}&channel=preview`, headers: beta })
  t.equal(older.statusCode, 400)
  t.match(older.json().message, `'from' (${PREVIEW}) must be older than 'to' (${RELEASES[0]}). Ask for ?from=<version>&to=<newer version> (add &format=json for the data), with two of the versions ${PREVIEW}, ${RELEASES.join(', ')} (newest first).`)
  // Refused, or asked without the channel: the answer of an application without the preview.
  for (const [url, headers] of [[`/docs/upgrade?from=${RELEASES[1]}&to=${PREVIEW}&channel=preview`, {}], [`/docs/upgrade?from=${RELEASES[1]}&to=${PREVIEW}`, beta],
    [`/docs/upgrade?from=${RELEASES[1]}&to=${RELEASES[0]}&channel=preview`, {}]] as const) {
    const [a, b] = [await api.inject({ url, headers }), await without.inject({ url, headers })]
    t.equal(seen(a), seen(b), `${url} (${'x-beta' in headers ? 'allowed' : 'refused'}): as if there were no preview`)
    if (!url.includes(PREVIEW)) t.notMatch(a.body, PREVIEW, `${url}: no word of the preview`)
  }
})
test('export, check and types leave the preview out unless asked (--channel preview)', async (t) => {
  const api = await app(t, 'preview')
  const dir = await mkdtemp(join(tmpdir(), 'versioner-channels-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  t.same((await servedDocuments(api)).map((document) => document.version), [...RELEASES, 'unversioned'])
  await exportDocuments(api, join(dir, 'released'))
  t.same((await readdir(join(dir, 'released'))).sort(), ['2026-01-01.json', '2026-06-01.json', 'unversioned.json'])
  const files = await exportDocuments(api, join(dir, 'all'), { channel: 'preview' })
  t.equal(files.length, 4)
  const served = await api.inject({ url: `/openapi.json?version=${PREVIEW}&channel=preview`, headers: { 'x-beta': 'yes' } })
  t.same(JSON.parse(await readFile(join(dir, 'all', `${PREVIEW}.json`), 'utf8')), JSON.parse(served.body), 'the preview\'s file holds the document served to allowed requests')
  const checked = await checkDocuments(api, join(dir, 'all'))
  t.same(checked.compared.sort(), [...RELEASES, 'unversioned'].sort(), 'check compares the released versions only')
  t.match(checked.notes.map((note) => note.text).join('\n'), /preview version not checked/)
  t.same((await checkDocuments(api, join(dir, 'all'), { channel: 'preview' })).compared.sort(), [PREVIEW, ...RELEASES, 'unversioned'].sort())
  t.notMatch(await typesModule(api), /preview|BetaFieldAndRoute/)
  t.match(await typesModule(api, { channel: 'preview' }), `'${PREVIEW}'`)
  const module = join(dir, 'app.ts')
  await writeFile(module, 'export default function () { throw new Error(\'unused\') }\n')
  const errors: string[] = []
  t.equal(await runCli(['verify', module, '--channel', 'preview'], { out: () => {}, err: (line) => errors.push(line) }), 2)
  t.equal(await runCli(['export', module, '--out', dir, '--channel', 'beta'], { out: () => {}, err: (line) => errors.push(line) }), 2)
  t.match(errors.join('\n'), /--channel does not apply to verify[\s\S]*--channel must be preview or release/)
})

test('promoting a preview (renaming it to a date, dropping the channel) changes no byte of a released version\'s document', async (t) => {
  const before = await app(t, 'preview')
  const after = await app(t, 'promoted')
  for (const version of RELEASES) {
    const [a, b] = [await before.inject({ url: `/openapi.json?version=${version}` }), await after.inject({ url: `/openapi.json?version=${version}` })]
    t.equal(a.statusCode, 200)
    t.equal(a.body, b.body, `${version}: the same bytes`)
  }
  const previewDocument = (await before.inject({ url: `/openapi.json?version=${PREVIEW}&channel=preview`, headers: { 'x-beta': 'yes' } })).json()
  const promoted = (await after.inject({ url: '/openapi.json?version=2027-01-01' })).json()
  t.same(previewDocument.paths, JSON.parse(JSON.stringify(promoted.paths).replaceAll('2027-01-01', PREVIEW).replaceAll(',"format":"date"', '')), 'the promoted version serves what the preview did')
})

test('regression: check after promoting a preview: its document saved with --channel preview is a note, not a removed version', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'versioner-promotion-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const before = await app(t, 'preview')
  await before.ready()
  await exportDocuments(before, dir, { channel: 'preview' })
  const saved = JSON.parse(await readFile(join(dir, `${PREVIEW}.json`), 'utf8'))
  t.equal(saved.info['x-channel'], 'preview', 'the preview\'s document says it is one')
  for (const version of RELEASES) t.notOk('x-channel' in JSON.parse(await readFile(join(dir, `${version}.json`), 'utf8')).info, `${version}: a release's says nothing`)
  const after = await app(t, 'promoted')
  await after.ready()
  const checked = await checkDocuments(after, dir)
  t.same(checked.breaks, [], 'promoting breaks nothing released')
  t.same(checked.notes.map((note) => note.text), [`${PREVIEW}: preview version no longer served (promoted or withdrawn), not checked`, '2027-01-01: new version'])
  t.same((await checkDocuments(after, dir, { channel: 'preview' })).breaks.map((change) => change.text), [`${PREVIEW}: version removed`],
    'asked to check previews, the preview\'s clients are told: the value they send is gone')
  const withdrawn = await app(t, 'absent')
  await withdrawn.ready()
  t.same((await checkDocuments(withdrawn, dir)).breaks, [], 'a preview withdrawn (its changes back in HEAD) breaks nothing released either')
  await writeFile(join(dir, '2026-06-01.json'), JSON.stringify({ ...JSON.parse(await readFile(join(dir, '2026-06-01.json'), 'utf8')), info: { title: 'API', version: '2026-06-01', 'x-channel': 'preview' } }))
  t.same((await checkDocuments(after, dir)).compared.includes('2026-06-01'), true, 'a served release is compared whatever its saved document says')
})

test('regression: a released version made a preview again breaks (it was a note, exit 0), whatever the channel checked', async (t) => {
  // A named release (`2026-06-01.acacia`) given `channel: 'preview'`: its clients, whom access does not allow, are refused.
  const build = async (lifecycle: VersionLifecycle[]): Promise<FastifyInstance> => await versionedApp(t, new VersionBundle(new Version('2026-06-01.acacia', ...lifecycle), new Version('2026-01-01')),
    async (routes) => { routes.get('/orders', async () => ({ ok: true })) })
  const dir = await mkdtemp(join(tmpdir(), 'versioner-demoted-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await exportDocuments(await build([]), dir)
  const demoted = await build([{ channel: 'preview', access: (request) => request.headers['x-beta'] === 'yes' }])
  t.equal((await demoted.inject({ url: '/orders', headers: { 'x-api-version': '2026-06-01.acacia' } })).statusCode, 400, 'its clients are refused')
  const broken = '2026-06-01.acacia: released version made a preview: served only to requests its access allows'
  const checked = await checkDocuments(demoted, dir)
  t.same(checked.breaks.map((change) => change.text), [broken])
  t.match(checked.notes.map((change) => change.text), ['2026-06-01.acacia: preview version not checked (check with --channel preview)'])
  t.same((await checkDocuments(demoted, dir, { channel: 'preview' })).breaks.map((change) => change.text), [broken], 'with --channel preview too')
  t.same((await checkDocuments(await build([]), dir)).breaks, [], 'released still: nothing')
})

test('preview structure checks', async (t) => {
  const change = previewChange() as never
  t.throws(() => new Version('2026-01-01', { channel: 'beta' as never }), /channel must be 'release' or 'preview'/)
  t.throws(() => new Version('2026-01-01', { access: () => true }), /access applies to preview versions only/)
  t.throws(() => new Version('2026-01-01.preview', { channel: 'preview', access: 'yes' as never }), /access must be a function/)
  t.throws(() => new VersionBundle(new Version('2026-06-01', change), new Version('2027-01-01.preview', { channel: 'preview' })), /is listed after released version/)
  t.throws(() => new VersionBundle(new Version('2027-01-01.preview', { channel: 'preview' })), /at least one released version/)
  t.throws(() => new VersionBundle(new Version('2026-01-01.preview', change, { channel: 'preview' }), new Version('2026-06-01')), /not after the newest release/)
  const plain = new VersionBundle(new Version('2027-01-01', change, { channel: 'preview' }), new Version('2026-06-01'))
  await t.rejects(versionedApp(t, plain).then(async (api) => { await api.ready() }), /must not be a plain date/)
  const unstable = new VersionBundle(new Version('unstable', previewChange() as never, { channel: 'preview' }), new Version('2026-06-01'))
  const api = await versionedApp(t, unstable, async (scope) => {
    scope.get('/ping', async () => ({ ok: true }))
    scope.get('/beta', async () => ({ beta: true }))
    scope.get('/users/me', { schema: { response: { 200: User } } }, async () => ({ id: 'u1', name: 'Ada', beta: 'b' }))
  })
  t.equal((await api.inject({ url: '/ping', headers: { 'x-api-version': 'unstable' } })).headers['x-api-version'], 'unstable', 'a preview may be any name')
  t.equal((await api.inject({ url: '/ping', headers: { 'x-api-version': '2030-01-01' } })).headers['x-api-version'], '2026-06-01')
})

test('a preview that replaces a route at the same path: routed by its name when allowed, else as an unknown version', async (t) => {
  class ReplaceItems extends VersionChange {
    description = 'GET /items replaced GET /legacy-items, at the same path.'
    instructionsToMigrateToPreviousVersion = [
      endpoint('/items', ['GET']).didntExist, endpoint('/legacy-items', ['GET']).existed, endpoint('/legacy-items', ['GET']).had({ path: '/items' })
    ]
  }
  const routes = async (api: FastifyInstance): Promise<void> => {
    api.get('/items', async () => ({ items: 'new' }))
    api.get('/legacy-items', { onlyExistsInOlderVersions: true }, async () => ({ items: 'legacy' }))
  }
  for (const picking of ['sync', 'async'] as const) {
    const options = picking === 'async' ? { apiVersionDefaultValue: async () => RELEASES[1] } : {}
    const withPreview = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version(PREVIEW, ReplaceItems, { channel: 'preview', access: allowBeta }),
      new Version(RELEASES[0]), new Version(RELEASES[1])), routes as never, { versioner: options })
    const without = await versionedApp(t, new VersionBundle(new HeadVersion(ReplaceItems), new Version(RELEASES[0]), new Version(RELEASES[1])), routes as never, { versioner: options })
    const allowed = await withPreview.inject({ url: '/items', headers: { 'x-api-version': PREVIEW, 'x-beta': 'yes' } })
    t.same([allowed.headers['x-api-version'], allowed.json()], [PREVIEW, { items: 'new' }], `${picking}: the preview's route`)
    for (const value of [PREVIEW, '2027-01-01.other', '2099-01-01', RELEASES[1]]) {
      const request = { url: '/items', headers: { 'x-api-version': value } }
      t.equal(seen(await withPreview.inject(request)), seen(await without.inject(request)), `${picking} ${value}: as without the preview`)
    }
  }
})

test('promotion with HEAD changes and nested schemas the preview does not touch: released documents keep every byte', async (t) => {
  const Tag = Type.Object({ label: Type.String(), internal: Type.String() })
  const Item = Type.Object({ id: Type.String(), tag: Tag, tags: Type.Array(Tag), beta: Type.String() })
  const build = async (promoted: boolean): Promise<FastifyInstance> => {
    class InternalFieldsAreHidden extends VersionChange {
      description = 'Tags have no internal field.'
      instructionsToMigrateToPreviousVersion = [schema(Tag).field('internal').didntExist]
    }
    class ItemsHaveBeta extends VersionChange {
      description = 'Items have a beta field.'
      instructionsToMigrateToPreviousVersion = [schema(Item).field('beta').didntExist]
    }
    class LabelsWereDescribed extends VersionChange {
      description = 'Labels are no longer described.'
      instructionsToMigrateToPreviousVersion = [schema(Tag).field('label').had({ description: 'A label.' })]
    }
    const top = promoted ? new Version('2027-01-01', ItemsHaveBeta) : new Version(PREVIEW, ItemsHaveBeta, { channel: 'preview' })
    const versions = new VersionBundle(new HeadVersion(InternalFieldsAreHidden), top, new Version(RELEASES[0], LabelsWereDescribed), new Version(RELEASES[1]))
    return await versionedApp(t, versions, async (api) => {
      api.get('/items/:id', { schema: { params: Params, response: { 200: Item } } }, async (request) => ({
        id: request.params.id, tag: { label: 'a', internal: 'x' }, tags: [], beta: 'b'
      }))
      api.post('/items', { schema: { body: Type.Object({ tag: Tag }), response: { 200: Item } } }, async (request) => ({
        id: '1', tag: request.body.tag, tags: [request.body.tag], beta: 'b'
      }))
    })
  }
  const [before, after] = [await build(false), await build(true)]
  for (const version of RELEASES) {
    const [a, b] = [await before.inject({ url: `/openapi.json?version=${version}` }), await after.inject({ url: `/openapi.json?version=${version}` })]
    t.equal(a.statusCode, 200)
    t.notMatch(a.body, /preview|2027/, `${version}: no word of the preview or its date`)
    t.equal(a.body, b.body, `${version}: the same bytes`)
    const response = await before.inject({ url: '/items/1', headers: { 'x-api-version': version } })
    t.notOk('beta' in response.json() || 'internal' in response.json().tag, `${version}: neither the preview's nor HEAD's internal field`)
  }
})

test('the start-up log names the preview versions apart from the released ones', async (t) => {
  const lines: Array<Record<string, unknown>> = []
  const stream = { write: (line: string) => { lines.push(JSON.parse(line) as Record<string, unknown>) } }
  const api = await versionedApp(t, bundle('preview'), async (scope) => {
    scope.get('/users/:id', { schema: { params: Params, response: { 200: User } } }, async (request) => ({ id: request.params.id, name: 'Ada', beta: 'b' }))
    scope.get('/beta', async () => ({ beta: true }))
  }, { fastify: { logger: { level: 'info', stream } } })
  await api.ready()
  const startup = lines.find((line) => String(line.msg).startsWith('fastify-versioner: serving'))
  t.same(startup?.apiVersions, RELEASES)
  t.same(startup?.previewVersions, [PREVIEW])
  t.match(String(startup?.msg), `serving API versions 2026-06-01, 2026-01-01 (newest first; clients send the version in the 'x-api-version' header); preview versions ${PREVIEW} (only when named and allowed)`)
})

test('injectEveryVersion injects the released versions, and a preview when named', async (t) => {
  const api = await app(t, 'preview')
  await api.ready()
  const request = { url: '/users/1', headers: { 'x-beta': 'yes' } }
  t.same([...(await injectEveryVersion(api, request)).keys()], RELEASES)
  const preview = await injectEveryVersion(api, request, { versions: [PREVIEW] })
  t.same([...preview.keys()], [PREVIEW])
  t.same(preview.get(PREVIEW)?.json(), { id: '1', name: 'Ada', beta: 'yes' })
})

test('regression: a preview\'s answers never reach a shared cache: Cache-Control private, whatever the handler set (issue 30)', async (t) => {
  for (const location of ['header', 'path'] as const) {
    const api = await versionedApp(t, bundle('preview'), async (scope) => {
      scope.get('/users/:id', { schema: { params: Params, response: { 200: User } } }, async (request, reply) => {
        const cacheControl = request.headers['x-cache-control']
        if (typeof cacheControl === 'string') reply.header('cache-control', cacheControl)
        if (request.params.id === 'fail') throw new Error('broken')
        return { id: request.params.id, name: 'Ada', beta: 'yes' }
      })
      scope.get('/beta', async () => ({ beta: true }))
    }, { versioner: { apiVersionLocation: location } })
    const ask = (version: string, headers: Record<string, string> = {}, id = '1'): Promise<LightMyRequestResponse> => location === 'header'
      ? api.inject({ url: `/users/${id}`, headers: { 'x-api-version': version, ...headers } })
      : api.inject({ url: `/${version}/users/${id}`, headers })
    const beta = { 'x-beta': 'yes' }
    for (const [set, expected] of [
      [undefined, 'private'],
      ['public, max-age=60, s-maxage=600', 'private, max-age=60'],
      ['max-age=60', 'private, max-age=60'],
      ['no-store', 'no-store'],
      ['private, max-age=5', 'private, max-age=5']
    ] as const) {
      const response = await ask(PREVIEW, { ...beta, ...(set === undefined ? {} : { 'x-cache-control': set }) })
      t.same([response.statusCode, response.headers['x-api-version']], [200, PREVIEW], `${location} ${set ?? 'nothing set'}: the preview served`)
      t.equal(response.headers['cache-control'], expected, `${location}, the handler set ${set ?? 'nothing'}: ${expected}`)
    }
    t.equal((await ask(PREVIEW, beta, 'fail')).headers['cache-control'], 'private', `${location}: a preview's error answer too`)
    t.equal((await api.inject(location === 'header' ? { url: '/missing', headers: { 'x-api-version': PREVIEW, ...beta } } : { url: `/${PREVIEW}/missing`, headers: beta })).headers['cache-control'],
      undefined, `${location}: a path no versioned route serves is not the preview's answer`)
    t.equal((await ask(RELEASES[0])).headers['cache-control'], undefined, `${location}: a release's answer is left alone`)
    t.equal((await ask(RELEASES[0], { 'x-cache-control': 'public, max-age=60' })).headers['cache-control'], 'public, max-age=60', `${location}: and so is its handler's`)
    t.equal((await ask(PREVIEW)).headers['cache-control'], undefined, `${location}: a refused preview answers as an unknown version, without Cache-Control`)
  }
})

test('regression: documentation asked with ?channel=preview is private, whether access allows it or not, previews or not (issue 30)', async (t) => {
  const api = await app(t, 'preview')
  const without = await app(t, 'absent')
  for (const url of ['/docs?channel=preview', '/redoc?channel=preview', '/openapi.json?channel=preview', `/openapi.json?version=${PREVIEW}&channel=preview`,
    `/docs?version=${PREVIEW}&channel=preview`, '/docs/upgrade?from=2026-01-01&to=2026-06-01&channel=preview', '/changelog?channel=preview']) {
    for (const headers of [{ 'x-beta': 'yes' }, {}]) {
      const allowed = 'x-beta' in headers ? 'allowed' : 'refused'
      const [a, b] = [await api.inject({ url, headers }), await without.inject({ url, headers })]
      // Issue 35: private answers are revalidated too (no-cache), as the documents carry an ETag.
      t.equal(a.headers['cache-control'], 'private, no-cache', `${url} (${allowed}): private`)
      if (allowed === 'refused') t.equal(seen(a), seen(b), `${url} (refused): as if there were no preview`)
    }
    const plain = url.replace(/[?&]channel=preview/, '')
    t.notMatch((await api.inject({ url: plain })).headers['cache-control'] ?? '', /private/, `${plain}: the released documentation is not private`)
  }
})

test('regression: the 410 of a release gone while only a preview is left names no preview as the oldest version served', async (t) => {
  const gone: VersionLifecycle = { deprecatedAt: '2025-01-01', sunsetAt: '2026-01-01', afterSunset: 'gone' }
  const routes: FastifyPluginAsyncTypebox = async (api) => {
    api.get('/beta', async () => ({ beta: true }))
  }
  const now = (): number => Date.parse('2026-11-29T00:00:00Z')
  const withPreview = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version(PREVIEW, { channel: 'preview', access: allowBeta }),
    new Version(RELEASES[1], gone)), routes, { versioner: { now } })
  const without = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version(RELEASES[1], gone)), routes, { versioner: { now } })
  const [a, b] = [withPreview, without].map((api) => api.inject({ url: '/beta', headers: { 'x-api-version': RELEASES[1] } }))
  const [answer, expected] = [await a, await b]
  t.equal(answer.statusCode, 410)
  t.notMatch(answer.body, /preview/, 'the preview is not named')
  t.same([answer.statusCode, answer.body], [expected.statusCode, expected.body], 'the answer of an application without the preview')
})

test('random histories whose newest one or two versions are previews: served, documented, exported and promoted as promised', async (t) => {
  const runs = Number(process.env.RANDOM_HISTORIES_RUNS ?? 3)
  for (let seed = 1; seed <= runs; seed++) {
    const r = rng(seed * 104729)
    const history = randomHistory(r)
    const [head, ...released] = [history.versions.find((version) => version.value === 'head') ?? { value: 'head', changes: [] }, ...history.versions.filter((version) => version.value !== 'head')]
    const count = Math.min(released.length, 1 + Math.floor(r() * 2))
    const rename = (text: string): string => released.slice(0, count).reduce((all, { value }) => all.replaceAll(value, `${value}.preview`), text)
    const previewed: History = { ...history, versions: [head, ...released.map((version, at) => at < count ? { ...version, value: `${version.value}.preview`, preview: true } : version)] }
    const withoutPreviews: History = { ...history, versions: [head, ...released.slice(count)] }
    const [P, promoted, without] = [await buildApp(previewed), await buildApp({ ...history, versions: [head, ...released] }), await buildApp(withoutPreviews)]
    t.teardown(async () => { await Promise.all([P.app.close(), promoted.app.close(), without.app.close()]) })
    const label = `seed ${seed} (${count} preview(s)): ${JSON.stringify(previewed.versions)}`
    const at = (version: string, payload: object, headers: Record<string, string> = {}) => history.location === 'path'
      ? { method: 'POST' as const, url: `/${version}/orders`, payload, headers }
      : { method: 'POST' as const, url: '/orders', payload, headers: { 'x-api-version': version, ...headers } }
    for (const { value } of released.slice(0, count)) {
      const preview = `${value}.preview`
      const document = (await promoted.app.inject({ url: `/openapi.json?version=${value}` })).json()
      const body = { ...gen(document, document.paths[Object.keys(document.paths).find((path) => path.endsWith('/orders')) as string].post.requestBody.content['application/json'].schema, r) as object, id: `o${seed}` }
      const [allowed, asPromoted] = [await P.app.inject(at(preview, body, { 'x-beta': 'yes' })), await promoted.app.inject(at(value, body))]
      t.same([allowed.statusCode, allowed.body, allowed.headers['cache-control']], [asPromoted.statusCode, asPromoted.body, 'private'], `${label}: ${preview} allowed is served as its promoted self, privately`)
      const [denied, unknown] = [await P.app.inject(at(preview, body, { 'x-beta': 'no' })), await without.app.inject(at(preview, body, { 'x-beta': 'no' }))]
      t.same([denied.statusCode, denied.body, denied.headers['cache-control']], [400, unknown.body, undefined], `${label}: ${preview} denied is the 400 of an app without the previews`)
      const [asPreview, asRelease] = [await P.app.inject({ url: `/openapi.json?version=${preview}&channel=preview`, headers: { 'x-beta': 'yes' } }), await promoted.app.inject({ url: `/openapi.json?version=${value}` })]
      t.same(asPreview.json().paths, JSON.parse(rename(JSON.stringify(asRelease.json().paths)).replaceAll(',"format":"date"', '')), `${label}: ${preview}'s document is its promoted self's`)
    }
    for (const version of [...released.slice(count).map(({ value }) => value), '2000-01-01', 'unversioned']) {
      const url = `/openapi.json?version=${version}`
      t.equal((await P.app.inject({ url })).body, (await promoted.app.inject({ url })).body, `${label}: promoting changes no byte of ${version}'s document`)
    }
    t.equal(await typesModule(P.app, { channel: 'preview' }), rename(await typesModule(promoted.app)).replaceAll(',"format":"date"', ''), `${label}: types --channel preview are the promoted ones'`)
    const dir = await mkdtemp(join(tmpdir(), 'versioner-random-previews-'))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    await exportDocuments(P.app, dir, { channel: 'preview' })
    t.same((await checkDocuments(P.app, dir, { channel: 'preview' })).breaks, [], `${label}: check --channel preview is clean`)
    t.same((await checkDocuments(promoted.app, dir)).breaks, [], `${label}: check after promotion is clean`)
  }
})
