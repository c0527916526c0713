// `export`: every document the application serves, written pretty-printed (one property per line, names in a stable
// order), so that a change to a schema changes a few lines of the snapshot; `check` reads that form and the one-line
// form written before.
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { buildApp } from '../../examples/users/app'
import { fastifyVersioner, versioned, errorCodes } from '../../plugin'
import { checkDocuments, exportDocuments, servedDocuments } from '../../tools'
import { snapshotText } from '../../lib/tools/export'
import { versionedApp } from '../helpers/apps'
import { bundleOf } from '../helpers/http-apps'
import { inProcess as cli, scratch } from '../helpers/cli'

async function tempDir (t: { teardown: (fn: () => unknown) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-export-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** How many lines differ between two texts: lines of either outside their longest common subsequence. */
function changedLines (before: string, after: string): number {
  const a = before.split('\n')
  const b = after.split('\n')
  let previous = new Array<number>(b.length + 1).fill(0)
  for (const line of a) {
    const row = [0]
    for (let j = 0; j < b.length; j++) row.push(line === b[j] ? previous[j] + 1 : Math.max(previous[j + 1], row[j]))
    previous = row
  }
  return a.length + b.length - 2 * previous[b.length]
}

test('export writes each version of examples/users pretty-printed, holding the served document, with a final newline', async (t) => {
  const app = await buildApp()
  t.teardown(() => app.close())
  await app.ready()
  const dir = await tempDir(t)
  const files = await exportDocuments(app, join(dir, 'openapi'))
  t.same(files.map((file) => file.slice(dir.length + 1)),
    ['openapi/2002-01-01.json', 'openapi/2001-01-01.json', 'openapi/2000-01-01.json', 'openapi/unversioned.json'],
    'one file per version, newest first, then the unversioned routes (GET /health)')
  for (const version of ['2002-01-01', '2001-01-01', '2000-01-01', 'unversioned']) {
    const served = await app.inject({ method: 'GET', url: `/openapi.json?version=${version}` })
    t.equal(served.statusCode, 200)
    const written = await readFile(join(dir, 'openapi', `${version}.json`), 'utf8')
    t.same(JSON.parse(written), JSON.parse(served.body), `${version}.json holds the served document`)
    t.equal(written, snapshotText(JSON.parse(served.body)))
    t.ok(written.endsWith('}\n') && written.split('\n').length > 50, `${version}.json: one property per line, a final newline`)
  }
  t.equal(await readFile(join(dir, 'openapi', '2000-01-01.json'), 'utf8'),
    await readFile(join(__dirname, '..', '..', 'examples', 'users', 'openapi', '2000-01-01.json'), 'utf8'), 'the committed snapshot is current')
})

/** An app of one enum schema (`members`), its routes registered in `order`; readied. */
async function enumApp (t: { teardown: (fn: () => unknown) => void }, members: string[], order: 'forward' | 'backward'): Promise<FastifyInstance> {
  const Plan = Type.Union(members.map((member) => Type.Literal(member)), { $id: 'Plan' })
  const Account = Type.Object({ id: Type.String(), plan: Plan }, { $id: 'Account' })
  const Team = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'Team' })
  const app = await versionedApp(t, bundleOf(['2001-01-01', '2000-01-01']), async (api) => {
    const routes = [
      () => api.get('/accounts/:id', { schema: { response: { 200: Account } } }, async () => ({ id: 'a', plan: members[0] })),
      () => api.post('/accounts', { schema: { body: Account, response: { 200: Account } } }, async (request) => request.body),
      () => api.get('/teams/:id', { schema: { response: { 200: Team } } }, async () => ({ id: 't', name: 'T' }))
    ]
    for (const route of order === 'forward' ? routes : routes.reverse()) route()
  })
  await app.ready()
  return app
}

test('adding one enum member changes a few lines of each exported file; the order routes are registered in changes none', async (t) => {
  const dir = await tempDir(t)
  const exported = async (members: string[], order: 'forward' | 'backward', out: string): Promise<string> => {
    await exportDocuments(await enumApp(t, members, order), join(dir, out))
    return await readFile(join(dir, out, '2000-01-01.json'), 'utf8')
  }
  const before = await exported(['free', 'pro'], 'forward', 'before')
  const after = await exported(['free', 'pro', 'team'], 'forward', 'after')
  t.ok(before.split('\n').length > 100, `the file has ${before.split('\n').length} lines`)
  // `{`, `"type": "string",`, `"const": "team"`, `}` and the comma after the member before it.
  t.ok(changedLines(before, after) <= 8, `one member added: ${changedLines(before, after)} lines differ`)
  t.equal(await exported(['free', 'pro'], 'backward', 'reordered'), before, 'routes registered in the reverse order: the same bytes')
})

test('check reads the snapshots export writes, and the one-line snapshots written before', async (t) => {
  const app = await enumApp(t, ['free', 'pro'], 'forward')
  const dir = join(await tempDir(t), 'openapi')
  await exportDocuments(app, dir)
  t.same((await checkDocuments(app, dir)).breaks, [], 'pretty-printed')
  for (const file of await readdir(dir)) await writeFile(join(dir, file), JSON.stringify(JSON.parse(await readFile(join(dir, file), 'utf8'))))
  const result = await checkDocuments(app, dir)
  t.same(result.breaks, [], 'one line')
  t.same(result.compared, ['2000-01-01', '2001-01-01', 'unversioned'])
})

test('an app without unversioned routes gets no unversioned.json; a custom openapiUrl is followed', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: bundleOf(['2001-01-01', '2000-01-01']), openapiUrl: '/api-docs.json', changelogUrl: null })
  await app.register(versioned(async (api) => {
    api.get('/things', { schema: { response: { 200: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'a' }))
  }))
  await app.ready()
  const documents = await servedDocuments(app)
  t.same(documents.map((document) => document.version), ['2001-01-01', '2000-01-01'])
  const served = await app.inject({ url: '/api-docs.json?version=2000-01-01' })
  t.ok(documents[1].body.equals(served.rawPayload))
})

test('export says so when the app serves no documents (openapiUrl: null)', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: bundleOf(['2000-01-01']), openapiUrl: null })
  await app.ready()
  const dir = await tempDir(t)
  await t.rejects(exportDocuments(app, dir), { code: 'FST_VERSIONER_TOOL', message: /openapiUrl is null/ })
  await t.rejects(exportDocuments(app, dir), errorCodes.FST_VERSIONER_TOOL)
})

test('exportDocuments refuses a folder that is not a non-empty string with the tools\' coded error, writing nothing', async (t) => {
  const app = await buildApp()
  t.teardown(() => app.close())
  await app.ready()
  const cwd = await readdir('.')
  // '' was mkdir's raw ENOENT with no code; from JavaScript, an unset variable gave Node's ERR_INVALID_ARG_TYPE
  for (const dir of ['', undefined, 1] as unknown as string[]) {
    await t.rejects(exportDocuments(app, dir), {
      code: 'FST_VERSIONER_TOOL',
      message: /exportDocuments takes the folder to write the documents to as its second argument, a non-empty path/
    }, `dir ${JSON.stringify(dir)}`)
  }
  await t.rejects(exportDocuments(app, ''), { message: /got ''/ })
  t.same(await readdir('.'), cwd, 'nothing written in the working folder')
})

test('exportDocuments refuses a folder that is a file, or a path through one, with the tools\' coded error', async (t) => {
  const app = await buildApp()
  t.teardown(() => app.close())
  await app.ready()
  const dir = await tempDir(t)
  const file = join(dir, 'openapi.json')
  await writeFile(file, '{}')
  // mkdir's raw EEXIST and ENOTDIR, with no code of the tools
  for (const path of [file, join(file, 'openapi')]) {
    await t.rejects(exportDocuments(app, path), { code: 'FST_VERSIONER_TOOL', message: `exportDocuments writes the documents into a folder; '${path}' is a file, or a path through one: name a folder (exportDocuments(app, 'openapi')).` }, path)
  }
  t.equal(await readFile(file, 'utf8'), '{}', 'the file is left as it was')
})

test('export refuses, writing nothing, when a document holds an example that fails its schema', async (t) => {
  const User = Type.Object({ id: Type.String(), age: Type.Integer({ examples: ['old'] }) }, { $id: 'User', examples: [{ id: 'u1' }] })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: bundleOf(['2001-01-01', '2000-01-01']) })
  await app.register(versioned(async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User } } }, async () => ({ id: 'u1', age: 3 }))
  }))
  await app.ready()
  const dir = join(await tempDir(t), 'openapi')
  const error = await exportDocuments(app, dir).then(() => undefined, (failure: unknown) => failure as Error & { code?: string })
  t.equal(error?.code, 'FST_VERSIONER_TOOL')
  t.equal(error?.message, '4 example(s) in the documents fail their schema, so no document was written ' +
    '(fix the example, or say how the version had it with schema(S).had({ examples })):\n' +
    "2001-01-01 /components/schemas/User/examples/0: must have required property 'age'\n" +
    '2001-01-01 /components/schemas/User/properties/age/examples/0: must be integer\n' +
    "2000-01-01 /components/schemas/User/examples/0: must have required property 'age'\n" +
    '2000-01-01 /components/schemas/User/properties/age/examples/0: must be integer',
  'each invalid example, by version, JSON pointer and the validator\'s message (HEAD\'s own schema: shown as written in every version)')
  await t.rejects(readdir(dir), { code: 'ENOENT' }, 'not even the folder')
})

test('regression: export refuses an example that breaks a format the app declares (a RegExp, a function), as its routes would', async (t) => {
  const Product = Type.Object({
    sku: Type.String({ format: 'sku', examples: ['nope'] }),
    lot: Type.String({ format: 'lot', examples: ['L1', 'x'] })
  }, { $id: 'Product' })
  const app = Fastify({ ajv: { customOptions: { formats: { sku: /^[A-Z]{3}-\d+$/, lot: (value: string) => /^L\d+$/.test(value) } } } })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: bundleOf(['2000-01-01']) })
  await app.register(versioned(async (api) => {
    api.get('/products', { schema: { response: { 200: Product } } }, async () => ({ sku: 'ABC-1', lot: 'L1' }))
  }))
  await app.ready()
  const dir = join(await tempDir(t), 'openapi')
  const error = await exportDocuments(app, dir).then(() => undefined, (failure: unknown) => failure as Error & { code?: string })
  t.equal(error?.code, 'FST_VERSIONER_TOOL')
  t.equal(error?.message, '2 example(s) in the documents fail their schema, so no document was written ' +
    '(fix the example, or say how the version had it with schema(S).had({ examples })):\n' +
    '2000-01-01 /components/schemas/Product/properties/sku/examples/0: must match format "sku"\n' +
    '2000-01-01 /components/schemas/Product/properties/lot/examples/1: must match format "lot"')
  await t.rejects(readdir(dir), { code: 'ENOENT' }, 'nothing written')
})

/** An app serving `versions` (and `/users/:id` in each), readied. */
async function appOf (t: { teardown: (fn: () => unknown) => void }, versions: string[]): Promise<FastifyInstance> {
  const app = await versionedApp(t, bundleOf(versions), async (api) => {
    api.get('/users/:id', { schema: { response: { 200: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'u1' }))
  }, { versioner: { apiVersionFormat: 'string' } })
  await app.ready()
  return app
}

test('regression: export and check refuse versions whose files collide on macOS or Windows (V1 and v1, CON, nul.x); they overwrote each other', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [['V2', 'v2', 'v1'], /^Versions 'V2' and 'v2' would both be saved as v2\.json on a case-insensitive file system \(macOS, Windows\), one overwriting the other\. Give them values that differ by more than case/],
    // The changelog route makes an unversioned document, saved as unversioned.json.
    [['Unversioned', 'v1'], /^Versions 'Unversioned' and 'unversioned' would both be saved as unversioned\.json/],
    [['CON', 'v1'], /^Version 'CON' would be saved as CON\.json, a name Windows keeps for a device \(CON, PRN, AUX, NUL, COM0-9, LPT0-9, with any extension\).*Give the version another value/],
    [['nul.x', 'v1'], /^Version 'nul\.x' would be saved as nul\.x\.json, a name Windows keeps for a device/],
    [['v2', 'com1'], /^Version 'com1' would be saved as com1\.json/]
  ]
  for (const [versions, message] of cases) {
    const app = await appOf(t, versions)
    const dir = join(await tempDir(t), 'openapi')
    await t.rejects(exportDocuments(app, dir), { code: 'FST_VERSIONER_TOOL', message }, `export: ${versions.join(', ')}`)
    await t.rejects(readdir(dir), { code: 'ENOENT' }, `${versions.join(', ')}: nothing written`)
    // A snapshot folder made elsewhere (or before this check) is refused as well: one file would be compared as both versions.
    const saved = await tempDir(t)
    await writeFile(join(saved, 'v1.json'), '{}')
    await t.rejects(checkDocuments(app, saved), { code: 'FST_VERSIONER_TOOL', message }, `check: ${versions.join(', ')}`)
  }
  // Names that only resemble them are saved.
  const dir = join(await tempDir(t), 'openapi')
  const written = await exportDocuments(await appOf(t, ['console', 'com10', 'v1']), dir)
  t.same((await readdir(dir)).sort(), ['com10.json', 'console.json', 'unversioned.json', 'v1.json'], written.join(', '))
  // regression: a tab (a header may carry one) was kept in the file name, which a checkout on Windows cannot hold.
  const tabbed = join(await tempDir(t), 'openapi')
  await exportDocuments(await appOf(t, ['v\t2', 'v1']), tabbed)
  t.same((await readdir(tabbed)).sort(), ['unversioned.json', 'v1.json', 'v_2.json'], 'control characters are replaced as / and : are')
})

test('export into a folder holding a retired version\'s document keeps it and says so; check breaks on it until it is deleted', async (t) => {
  const dir = await scratch(t)
  const module = async (values: string[]): Promise<string> => {
    const file = join(dir, `app-${values.length}.cjs`)
    await writeFile(file, `const Fastify = require(${JSON.stringify(require.resolve('fastify'))})
const { fastifyVersioner, versioned, VersionBundle, Version } = require(${JSON.stringify(join(__dirname, '..', '..', 'plugin.ts'))})
module.exports = async () => {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(${values.map((value) => `new Version('${value}')`).join(', ')}), apiVersionFormat: 'string' })
  await app.register(versioned(async (routes) => { routes.get('/items', async () => ({ ok: true })) }))
  return app
}
`)
    return file
  }
  const out = join(dir, 'openapi')
  t.equal((await cli(['export', await module(['v3', 'v2', 'v1']), '--out', out])).code, 0)
  const retired = await module(['v3', 'v2'])
  const exported = await cli(['export', retired, '--out', out])
  t.equal(exported.code, 0, exported.stderr)
  t.match(exported.stdout, /^note: .*v1\.json kept: it is of no version the application has \(a retired version's, or a withdrawn preview's\); check reads it until you delete it\.$/m)
  t.notMatch(exported.stdout, /v2\.json kept|unversioned\.json kept/, 'the files it wrote are not named')
  const checked = await cli(['check', retired, '--against', out])
  t.equal(checked.code, 1, 'a version removed breaks its clients: deleting its document is the team\'s decision')
  t.match(checked.stderr, /^break: v1: version removed$/m)
  await rm(join(out, 'v1.json'))
  t.equal((await cli(['check', retired, '--against', out])).code, 0, 'deleted, as retiring a version says')
  t.notMatch((await cli(['export', retired, '--out', out])).stdout, /kept/)
})

test('regression: export --out a file, or a folder inside one, is a usage error naming the file (it was Node\'s bare EEXIST or ENOTDIR of mkdir)', async (t) => {
  const dir = await scratch(t)
  const file = join(dir, 'openapi.json')
  await writeFile(file, '{}')
  const onto = await cli(['export', 'examples/users/app.ts', '--out', file])
  t.equal(onto.code, 2)
  t.match(onto.stderr, /^fastify-versioner: --out names the folder export writes the documents in \(such as openapi\); .*openapi\.json is a file\.\nUsage:/)
  const inside = await cli(['export', 'examples/users/app.ts', '--out', join(file, 'v1')])
  t.equal(inside.code, 2)
  t.match(inside.stderr, /^fastify-versioner: --out .*openapi\.json\/v1 is inside .*openapi\.json, which is a file, not a folder\.\nUsage:/)
  t.equal(await readFile(file, 'utf8'), '{}', 'the file is left as it was')
})
