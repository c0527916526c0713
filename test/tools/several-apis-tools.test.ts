/**
 * The tools on an application with several versioned APIs: `export`, `check` and `verify` handle each API (one
 * folder each), `--api <name>` picks one (named by `apiName` or its prefix), a module exporting one API's context
 * works, and `injectEveryVersion` on the root finds the API that answers; mistakes are coded errors.
 */
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fastifyVersioner, versioned, type FastifyVersionerOptions } from '../../plugin'
import { exportDocuments, injectEveryVersion, verify } from '../../tools'
import { inProcess as cli, scratch } from '../helpers/cli'
import { bundleOf } from '../helpers/http-apps'
import { anotherCopy } from '../helpers/another-copy'

const root = resolve(__dirname, '..', '..')

/**
 * The module of a two-API app (`/public`, dated; `/partner`, string versions, named `partnerName` if given); with
 * `exportApi`, an ES module whose default export is the `/partner` API's context, readied with its app (an async
 * function cannot return a context: awaiting it awaits the root).
 */
async function appModule (dir: string, partnerName?: string, exportApi = false, publicOptions = ''): Promise<string> {
  const file = join(dir, exportApi ? 'api.mjs' : 'app.cjs')
  const name = partnerName === undefined ? '' : `, apiName: '${partnerName}'`
  const build = `async function build () {
  const app = Fastify()
  let partner
  await app.register(async (api) => {
    await api.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01'))${publicOptions} })
    await api.register(versioned(async (routes) => { routes.get('/items', async () => ({ ok: true })) }))
  }, { prefix: '/public' })
  await app.register(async (api) => {
    partner = api
    await api.register(fastifyVersioner, { versions: new VersionBundle(new Version('v2'), new Version('v1')), apiVersionFormat: 'string'${name} })
    await api.register(versioned(async (routes) => { routes.get('/orders', async () => ({ ok: true })) }))
  }, { prefix: '/partner' })
  return { app, partner }
}
`
  const imports = exportApi
    ? `import Fastify from ${JSON.stringify(require.resolve('fastify'))}\nimport versioner from ${JSON.stringify(join(root, 'plugin.ts'))}\nconst { fastifyVersioner, versioned, VersionBundle, Version } = versioner\n`
    : `const Fastify = require(${JSON.stringify(require.resolve('fastify'))})\nconst { fastifyVersioner, versioned, VersionBundle, Version } = require(${JSON.stringify(join(root, 'plugin.ts'))})\n`
  const tail = exportApi
    ? 'const { app, partner } = await build()\nawait app.ready()\nexport default partner\n'
    : 'module.exports = async () => (await build()).app\n'
  await writeFile(file, `${imports}${build}${tail}`)
  return file
}

test('export, check and verify handle each API of a two-API app: one folder per API, lines labelled by API', async (t) => {
  const dir = await scratch(t)
  const app = await appModule(dir)
  const out = join(dir, 'openapi')
  const exported = await cli(['export', app, '--out', out])
  t.equal(exported.code, 0, exported.stderr)
  t.same((await readdir(out)).sort(), ['partner', 'public'], 'one folder per API, named by its prefix')
  t.same((await readdir(join(out, 'public'))).sort(), ['2000-01-01.json', '2001-01-01.json', 'unversioned.json'])
  t.same((await readdir(join(out, 'partner'))).sort(), ['unversioned.json', 'v1.json', 'v2.json'])
  t.match(exported.stdout, /^\[public\] wrote .*2001-01-01\.json$/m)
  const checked = await cli(['check', app, '--against', out])
  t.equal(checked.code, 0, checked.stderr)
  t.match(checked.stdout, /\[public\] check: no breaking change in 3 saved version\(s\)/)
  t.match(checked.stdout, /\[partner\] check: no breaking change in 3 saved version\(s\) \(unversioned, v1, v2\)/)
  const verified = await cli(['verify', app, '--examples', '5'])
  t.equal(verified.code, 0, verified.stderr)
  t.match(verified.stdout, /\[partner\] verify: every version/)
})

test('check of every API: a saved folder no API is named by any more is an API removed, a break (it was skipped: exit 0)', async (t) => {
  const dir = await scratch(t)
  const app = await appModule(dir)
  const out = join(dir, 'openapi')
  t.equal((await cli(['export', app, '--out', out])).code, 0)
  // The documents of an API the application served when they were exported, and serves no more.
  await cp(join(out, 'public'), join(out, 'legacy'), { recursive: true })
  await mkdir(join(out, 'drafts'))
  const checked = await cli(['check', app, '--against', out])
  t.equal(checked.code, 1, 'its clients lost every endpoint')
  t.match(checked.stderr, /^break: API 'legacy' removed: .*legacy holds its saved documents \(3\), and the application has no versioned API of that name \(its APIs: public, partner\)\.$/m)
  t.notMatch(checked.stderr, /drafts/, 'a folder without saved documents is no API')
  t.match(checked.stdout, /\[public\] check: no breaking change/, 'the APIs there are still checked')
  t.equal((await cli(['check', app, '--against', out, '--api', 'partner'])).code, 0, '--api checks the API it names only')
})

test('fingerprint --against of every API: a saved folder no API is named by any more differs, as check breaks on it (it exited 0)', async (t) => {
  const dir = await scratch(t)
  const app = await appModule(dir)
  const out = join(dir, 'openapi')
  t.equal((await cli(['export', app, '--out', out])).code, 0)
  t.equal((await cli(['fingerprint', app, '--against', out])).code, 0, 'the documents saved are what the APIs serve')
  await cp(join(out, 'public'), join(out, 'legacy'), { recursive: true })
  await mkdir(join(out, 'drafts'))
  const printed = await cli(['fingerprint', app, '--against', out])
  t.equal(printed.code, 1, 'a deploy of this build takes an API away from its clients')
  t.match(printed.stderr, /^fingerprint: .*legacy holds the saved documents \(3\) of API 'legacy', and the application has no versioned API of that name \(its APIs: public, partner\); run fastify-versioner check <app> --against .* to see the differences\.$/m)
  t.notMatch(printed.stderr, /drafts/, 'a folder without saved documents is no API')
  t.match(printed.stdout, /^\[partner\] fingerprint of /m, 'the APIs there are still compared')
  t.equal((await cli(['fingerprint', app, '--against', out, '--api', 'partner'])).code, 0, '--api compares the API it names only')
})

test('check of every API: an API added since the documents were saved, its folder missing, is a note (it exited 1, cannot be read)', async (t) => {
  const dir = await scratch(t)
  const app = await appModule(dir)
  const out = join(dir, 'openapi')
  t.equal((await cli(['export', app, '--out', out])).code, 0)
  await rm(join(out, 'partner'), { recursive: true })
  const checked = await cli(['check', app, '--against', out])
  t.equal(checked.code, 0, `an API no client uses yet breaks none: ${checked.stderr}`)
  t.match(checked.stdout, /^\[partner\] note: new API: .*partner does not exist \(an API added since the documents were saved\); save its documents with fastify-versioner export <app> --out .* --api partner\.$/m)
  t.match(checked.stdout, /^\[public\] check: no breaking change in 3 saved version\(s\)/m, 'the APIs saved are still checked')
  t.equal((await cli(['check', app, '--against', out, '--api', 'partner'])).code, 0, '--api on the new API alone')
  t.equal((await cli(['export', app, '--out', out, '--api', 'partner'])).code, 0, 'the advice followed')
  t.same((await readdir(join(out, 'partner'))).sort(), ['unversioned.json', 'v1.json', 'v2.json'])

  // No API's folder holds documents: a folder misspelt, or never exported, compares nothing.
  const empty = join(dir, 'empty')
  await mkdir(empty)
  const nothing = await cli(['check', app, '--against', empty])
  t.equal(nothing.code, 1, 'nothing saved is no green')
  t.match(nothing.stderr, /^\[public\] The saved documents folder .* cannot be read/m)
  // The folder holds the documents of the application when it had one API: they must move into that API's folder.
  const single = join(dir, 'single')
  await cp(join(out, 'public'), single, { recursive: true })
  await cp(join(out, 'partner'), join(single, 'partner'), { recursive: true })
  const moved = await cli(['check', app, '--against', single])
  t.equal(moved.code, 1, 'the documents of the API there before are not skipped')
  t.match(moved.stderr, /^\[public\] .*single holds saved documents of its own, as export writes them for an application with one API; with several, each API's are in .*<name>: move them into the folder of the API they are of\.$/m)
  t.match(moved.stderr, /^\[public\] The saved documents folder .* cannot be read/m)
})

test('types and check --types handle each API of a two-API app (one folder per API), and --api picks one', async (t) => {
  const dir = await scratch(t)
  const app = await appModule(dir)
  const file = join(dir, 'types', 'api-types.ts')
  const written = await cli(['types', app, '--out', file])
  t.equal(written.code, 0, written.stderr)
  t.same((await readdir(join(dir, 'types'))).sort(), ['partner', 'public'], 'one folder per API, named by its prefix')
  t.match(await readFile(join(dir, 'types', 'public', 'api-types.ts'), 'utf8'), /export type Version = '2001-01-01' \| '2000-01-01'/)
  const partner = await readFile(join(dir, 'types', 'partner', 'api-types.ts'), 'utf8')
  t.match(partner, /export type Version = 'v2' \| 'v1'/)
  t.match(partner, /'GET \/partner\/orders': \{/, "the partner API's routes")
  t.match(written.stdout, /^\[partner\] wrote .*partner\/api-types\.ts$/m)
  const current = await cli(['check', app, '--types', file])
  t.equal(current.code, 0, current.stderr)
  t.match(current.stdout, /\[public\] check: .*public\/api-types\.ts is current/)

  const one = join(dir, 'picked', 'api-types.ts')
  t.equal((await cli(['types', app, '--out', one, '--api', '/partner'])).code, 0)
  t.equal(await readFile(join(dir, 'picked', 'partner', 'api-types.ts'), 'utf8'), partner, 'the API picked alone: the same file, in its own folder')
  t.equal((await cli(['check', app, '--types', file, '--api', 'partner'])).code, 0, '--api checks the file types wrote for every API')
  await writeFile(join(dir, 'types', 'public', 'api-types.ts'), 'stale\n')
  const stale = await cli(['check', app, '--types', file])
  t.equal(stale.code, 1)
  t.match(stale.stderr, /\[public\] check: .*public\/api-types\.ts is stale/)
})

test("the README's pair: export of every API, then check --api partners of one, meet in openapi/partners/", async (t) => {
  const dir = await scratch(t)
  const app = await appModule(dir, 'partners')
  const out = join(dir, 'openapi')
  const exported = await cli(['export', app, '--out', out])
  t.equal(exported.code, 0, exported.stderr)
  t.same((await readdir(out)).sort(), ['partners', 'public'])
  const checked = await cli(['check', app, '--against', out, '--api', 'partners'])
  t.equal(checked.code, 0, checked.stderr)
  t.equal(checked.stdout, 'check: no breaking change in 3 saved version(s) (unversioned, v1, v2); 0 note(s).\n', 'the partners folder, unlabelled (one API)')
})

test('--api picks one API by name or prefix, its files in its own folder; an unknown name exits 1 listing the APIs', async (t) => {
  const dir = await scratch(t)
  const app = await appModule(dir, 'partners')
  const out = join(dir, 'one')
  const exported = await cli(['export', app, '--out', out, '--api', 'partners'])
  t.equal(exported.code, 0, exported.stderr)
  t.same(await readdir(out), ['partners'], 'apiName names the API; its documents go in <dir>/<name>/, as when every API is exported')
  t.same((await readdir(join(out, 'partners'))).sort(), ['unversioned.json', 'v1.json', 'v2.json'])
  t.equal((await cli(['check', app, '--against', out, '--api', '/partner'])).code, 0, 'its prefix names it too')
  const unknown = await cli(['verify', app, '--api', 'nope'])
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /no versioned API named 'nope'; its APIs: public \(prefix '\/public'\), partners \(prefix '\/partner'\)/)
})

test("a module exporting one API's context, readied with its app: the tools work on that API", async (t) => {
  const dir = await scratch(t)
  const app = await appModule(dir, undefined, true)
  const out = join(dir, 'context')
  const exported = await cli(['export', app, '--out', out])
  t.equal(exported.code, 0, exported.stderr)
  t.same((await readdir(out)).sort(), ['unversioned.json', 'v1.json', 'v2.json'], "only that API's documents")
})

test('one API failing a command (its documents off) is named, and the other APIs are still handled', async (t) => {
  const dir = await scratch(t)
  const app = await appModule(dir, undefined, false, ', openapiUrl: null')
  const out = join(dir, 'openapi')
  const exported = await cli(['export', app, '--out', out])
  t.equal(exported.code, 1)
  t.match(exported.stderr, /^\[public\] .*openapiUrl is null/m, 'the API without documents is named')
  t.same((await readdir(join(out, 'partner'))).sort(), ['unversioned.json', 'v1.json', 'v2.json'], 'the next API is still exported')
  const printed = await cli(['fingerprint', app])
  t.equal(printed.code, 1)
  t.match(printed.stderr, /^\[public\] .*openapiUrl is null/m)
  t.match(printed.stdout, /^\[partner\] fingerprint: [0-9a-f]{64}$/m)
})

async function twoApis (t: { teardown: (fn: () => unknown) => void }, names: Array<string | undefined> = [undefined, undefined]): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  const api = (options: FastifyVersionerOptions, path: string) => async (context: FastifyInstance) => {
    await context.register(fastifyVersioner, options)
    await context.register(versioned(async (routes) => { routes.get(path, async (request) => ({ version: request.apiVersion })) }))
  }
  await app.register(api({ versions: bundleOf(['2001-01-01', '2000-01-01']), ...(names[0] === undefined ? {} : { apiName: names[0] }) }, '/items'), { prefix: '/a' })
  await app.register(api({ versions: bundleOf(['v2', 'v1']), apiVersionFormat: 'string', ...(names[1] === undefined ? {} : { apiName: names[1] }) }, '/orders'), { prefix: '/b' })
  await app.ready()
  return app
}

test('injectEveryVersion on the root of a two-API app injects through the API that answers; none is a coded error', async (t) => {
  const app = await twoApis(t)
  const a = await injectEveryVersion(app, { url: '/a/items' })
  t.same([...a.keys()], ['2001-01-01', '2000-01-01'])
  t.same(a.get('2000-01-01')?.json(), { version: '2000-01-01' })
  const b = await injectEveryVersion(app, { url: '/b/orders' }, { versions: ['v1'] })
  t.same(b.get('v1')?.json(), { version: 'v1' })
  await t.rejects(injectEveryVersion(app, { url: '/c/nothing' }),
    { code: 'FST_VERSIONER_TOOL', message: /no versioned API of the application \(a, b\) answers GET \/c\/nothing/ })
})

test('verify(app) works on one API: each context of a two-API app; the root, an app without the plugin or another copy\'s are coded errors', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const contexts: FastifyInstance[] = []
  for (const [prefix, versions] of [['/a', ['2001-01-01', '2000-01-01']], ['/b', ['v2', 'v1']]] as const) {
    await app.register(async (context) => {
      contexts.push(context)
      await context.register(fastifyVersioner, { versions: bundleOf([...versions]), ...(prefix === '/b' ? { apiVersionFormat: 'string' as const } : {}) })
      await context.register(versioned(async (routes) => { routes.get('/items', async () => ({ ok: true })) }))
    }, { prefix })
  }
  await app.ready()
  for (const context of contexts) t.same(await verify(context, { examples: 1 }), [], `${context.prefix}: verified`)
  await t.rejects(verify(app), { code: 'FST_VERSIONER_TOOL', message: /^verify: the application holds 2 versioned APIs \(a, b\); pass one API's context/ })
  const plain = Fastify()
  t.teardown(() => plain.close())
  await t.rejects(verify(plain), { code: 'FST_VERSIONER_TOOL', message: /does not register fastify-versioner/ })
  const other = Fastify().decorate('versioner', {} as never)
  t.teardown(() => other.close())
  await t.rejects(verify(other), { code: 'FST_VERSIONER_TOOL', message: /^app\.versioner holds no state these tools can read: .* another copy of the package/ })
  // regression: an application the copy a test runner loaded again registers (jest.resetModules() and the app
  // required again, the tools imported before) was told to "run the tools of the copy the application imports"
  const copy = anotherCopy()
  const reloaded = Fastify()
  t.teardown(() => reloaded.close())
  await reloaded.register(copy.fastifyVersioner, { versions: new copy.VersionBundle(new copy.Version('2000-01-01')) })
  await reloaded.register(copy.versioned(async (routes) => { routes.get('/items', async () => ({ ok: true })) }))
  await reloaded.ready()
  await t.rejects(injectEveryVersion(reloaded, { url: '/items' }), {
    code: 'FST_VERSIONER_TOOL',
    message: /^app\.versioner holds the state of another copy of fastify-versioner: .*`npm dedupe`.*`jest\.resetModules\(\)`/
  })
})

test('the one-API functions on a two-API root, two APIs with one name, and a bad apiName are coded errors', async (t) => {
  const app = await twoApis(t)
  await t.rejects(exportDocuments(app, join(root, 'test', '.tmp', 'never')),
    { code: 'FST_VERSIONER_TOOL', message: /the application holds 2 versioned APIs \(a, b\); pass one API's context/ })
  const clash = await twoApis(t, ['same', 'same'])
  await t.rejects(injectEveryVersion(clash, { url: '/a/items' }),
    { code: 'FST_VERSIONER_TOOL', message: /both named 'same' \(their prefixes: '\/a', '\/b'\)\. Give each its own apiName option/ })
  const bad = Fastify()
  t.teardown(() => bad.close())
  await t.rejects(async () => await bad.register(fastifyVersioner, { versions: bundleOf(['v1']), apiVersionFormat: 'string', apiName: 'a/b' }),
    { code: 'FST_VERSIONER_INVALID_OPTION', message: /Option 'apiName' must be a name made of letters, digits/ })
})

/** The path a command's advice names after `flag`, unquoted (`--out "a b/c.ts"` gives `a b/c.ts`). */
function advisedPath (text: string, flag: string): string {
  const found = new RegExp(`${flag} ("[^"]*"|\\S+)`).exec(text)?.[1] ?? ''
  return found.startsWith('"') ? found.slice(1, -1) : found
}

test('the advice of a stale types file and of a fingerprint names the path given, quoted (with several APIs it named a path that misses)', async (t) => {
  const dir = join(await scratch(t), 'my project')
  await mkdir(dir)
  const app = await appModule(dir)
  const file = join(dir, 'types', 'api-types.ts')
  t.equal((await cli(['types', app, '--out', file])).code, 0)
  await writeFile(join(dir, 'types', 'partner', 'api-types.ts'), 'stale\n')
  const stale = await cli(['check', app, '--types', file])
  t.equal(stale.code, 1)
  t.match(stale.stderr, `[partner] check: ${join(dir, 'types', 'partner', 'api-types.ts')} is stale; run fastify-versioner types <app> --out "${file}" and commit it.`)
  t.equal((await cli(['types', app, '--out', advisedPath(stale.stderr, '--out')])).code, 0, 'the advice followed')
  t.equal((await cli(['check', app, '--types', file])).code, 0, 'the types are current again')

  const out = join(dir, 'openapi')
  t.equal((await cli(['export', app, '--out', out])).code, 0)
  const saved = join(out, 'partner', 'v1.json')
  const document = JSON.parse(await readFile(saved, 'utf8'))
  delete document.paths['/partner/orders']
  await writeFile(saved, JSON.stringify(document))
  const printed = await cli(['fingerprint', app, '--against', out])
  t.equal(printed.code, 1)
  t.match(printed.stderr, `run fastify-versioner check <app> --against "${out}" to see the differences.`)
  const advised = await cli(['check', app, '--against', advisedPath(printed.stderr, '--against')])
  t.equal(advised.code, 0, `the advice followed reads the saved documents: ${advised.stderr}`)
  t.match(advised.stdout, /^\[partner\] note: v1 GET \/partner\/orders: /m, 'and shows the change')
})
