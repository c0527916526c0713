// The fastify-versioner command, run for real (its TypeScript entry through tsx, as `node --import tsx`): exit codes
// 0, 1 (a break, a finding, an unusable app) and 2 (usage), and what it prints. The project checks its own examples
// here: `check` against the saved examples/users/openapi and examples/billing/openapi snapshots, and `verify`.
import t, { test } from 'tap'
import { execFile, spawn } from 'node:child_process'
import { createServer, type AddressInfo } from 'node:net'
import Module, { createRequire } from 'node:module'
import { cp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { inProcess, scratch, type Run } from './helpers/cli'
import { withoutLibraries } from './helpers/missing-libraries'

const root = resolve(__dirname, '..')
const bin = join(root, 'lib', 'tools', 'bin.ts')
const tsx = join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')
const snapshot = join(root, 'examples', 'users', 'openapi')

// Each run starts Node, tsx and the app: a few seconds on a loaded machine.
t.setTimeout(300_000)

// Child processes are tracked by tap's processinfo; they run the same sources, which need no separate coverage.
const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', _TAPJS_PROCESSINFO_COVERAGE_: '0' }

function cli (args: string[], cwd = root): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', tsx, bin, ...args], { cwd, env, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr })
    })
  })
}

test('check: the example app against its saved snapshot exits 0', async (t) => {
  const result = await cli(['check', 'examples/users/app.ts', '--against', 'examples/users/openapi'])
  t.equal(result.code, 0, result.stderr)
  t.match(result.stdout, /^check: no breaking change in 4 saved version\(s\) \(2000-01-01, 2001-01-01, 2002-01-01, unversioned\); 0 note\(s\)\.$/m)
  t.equal(result.stderr, '')
})

test('verify: the example app exits 0', async (t) => {
  const result = await cli(['verify', 'examples/users/app.ts'])
  t.equal(result.code, 0, result.stderr)
  t.match(result.stdout, /^verify: every version of every versioned route migrates cleanly \(3 versions, \d+ examples\)\.\n$/)
  t.ok(Number(/(\d+) examples/.exec(result.stdout)?.[1]) >= 200 * 3, 'at least 200 examples for each route')
})

test('check and verify: the billing example exits 0 against its saved snapshot, with no note', async (t) => {
  const checked = await inProcess(['check', 'examples/billing/app.ts', '--against', 'examples/billing/openapi'])
  t.equal(checked.code, 0, checked.stderr)
  t.equal(checked.stdout, 'check: no breaking change in 5 saved version(s) (2023-10-16, 2024-04-10, 2024-09-30, 2025-03-31, unversioned); 0 note(s).\n',
    'no note either: the snapshot is what export writes now')
  const verified = await inProcess(['verify', 'examples/billing/app.ts'])
  t.equal(verified.code, 0, verified.stderr)
  t.match(verified.stdout, /^verify: every version of every versioned route migrates cleanly \(4 versions, \d+ examples\)\.\n$/)
})

test('the command in this process loads the app with the TypeScript loader the tests run under, not a second one', async (t) => {
  // tsx registered beside scripts/typescript-loader.mjs loaded lib/ again under the same file names, and V8's
  // coverage of the two copies, merged by file name, counted lines of each as unrun (see that script).
  const verified = await inProcess(['verify', 'examples/users/app.ts', '--examples', '2'])
  t.equal(verified.code, 0, verified.stderr)
  const hooks = (Module as unknown as { _extensions: Record<string, { name: string } | undefined> })._extensions
  t.equal(hooks['.ts']?.name, 'loadTypeScript', "the .ts hook is still scripts/typescript-loader.mjs's")
})

test('check: a break exits 1 with one line per break, notes on stdout', async (t) => {
  const dir = await scratch(t)
  await cp(snapshot, dir, { recursive: true })
  // As if 2000-01-01 used to return a nickname, and lacked the summary text POST /users has now.
  const file = join(dir, '2000-01-01.json')
  const document = JSON.parse(await readFile(file, 'utf8'))
  document.components.schemas.UserResource.properties.nickname = { type: 'string' }
  delete document.paths['/users'].post.summary
  await writeFile(file, JSON.stringify(document))
  const result = await inProcess(['check', 'examples/users/app.ts', '--against', dir])
  t.equal(result.code, 1)
  t.equal(result.stderr, 'break: 2000-01-01 POST /users: response 200 /nickname: removed\nbreak: 2000-01-01 GET /users/{userId}: response 200 /nickname: removed\n')
  t.match(result.stdout, /^note: 2000-01-01 POST \/users: summary added \(text\)$/m)
  t.match(result.stdout, /^check: 2 breaking change\(s\); 1 note\(s\)\.$/m)
})

/**
 * A small app with what else a client consumes (issue 31): a webhook sending a schema no route uses (Invoice), one
 * sending a schema a route returns (Account), a QUERY route, a request header and a response header. `variant`
 * makes one of the mistakes teams make; `path` puts the version in the path.
 */
function consumerApp (variant: 'same' | 'webhook' | 'enum' | 'query' | 'headers' | 'version', location: 'header' | 'path' = 'header'): string {
  return `import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned, VersionBundle, HeadVersion, Version } from ${JSON.stringify(join(root, 'plugin'))}

const variant: string = ${JSON.stringify(variant)}
const Status = Type.Union([Type.Literal('active'), Type.Literal('closed'), ...(variant === 'enum' ? [Type.Literal('suspended')] : [])])
const Account = Type.Object({ id: Type.String(), status: Status }, { $id: 'Account' })
const Invoice = Type.Object({ id: Type.String(), amount: Type.Number(), ...(variant === 'webhook' ? { dueOn: Type.String({ format: 'date' }) } : { note: Type.String() }) }, { $id: 'Invoice' })
const Search = variant === 'query'
  ? Type.Object({ text: Type.String(), lang: Type.String() }, { $id: 'Search' })
  : Type.Object({ term: Type.String() }, { $id: 'Search' })
const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01'), new Version('2000-01-01'))

export async function build () {
  const app = Fastify()
  await app.register(fastifyVersioner, {
    versions,
    apiVersionLocation: ${JSON.stringify(location)},
    apiVersionParameterName: variant === 'version' ? 'api-version' : 'x-api-version'
  })
  app.versioner.webhooks.add({ name: 'invoice.paid', body: Invoice })
  app.versioner.webhooks.add({ name: 'account.updated', body: Account })
  await app.register(versioned(async (api) => {
    const tenant = variant === 'headers' ? Type.String() : Type.Optional(Type.String())
    const rate = variant === 'headers' ? {} : { 'x-rate-limit': Type.Integer() }
    api.get('/accounts/:id', { schema: { headers: Type.Object({ 'x-tenant': tenant }), response: { 200: { headers: rate, ...Account } } } },
      async () => ({ id: 'a1', status: 'active' as const }))
    api.route({ method: 'QUERY', url: '/search', schema: { body: Search, response: { 200: Type.Array(Account) } }, handler: async () => [] })
  }))
  return app
}
`
}

test('check: what else a client consumes, each mistake of issue 31 exits 1 with its line (webhooks, QUERY, headers were not compared)', async (t) => {
  const dir = await scratch(t)
  for (const variant of ['same', 'webhook', 'enum', 'query', 'headers', 'version'] as const) await writeFile(join(dir, `${variant}.ts`), consumerApp(variant))
  const exported = await inProcess(['export', join(dir, 'same.ts'), '--out', join(dir, 'openapi')])
  t.equal(exported.code, 0, exported.stderr)
  const same = await inProcess(['check', join(dir, 'same.ts'), '--against', join(dir, 'openapi')])
  t.equal(same.code, 0, same.stderr)
  t.equal(same.stdout, 'check: no breaking change in 3 saved version(s) (2000-01-01, 2001-01-01, unversioned); 0 note(s).\n', 'nothing to say of the same app')
  const expected: Array<[string, string[], string[]]> = [
    ['webhook', ['webhook invoice.paid: payload /note: removed'], ['webhook invoice.paid: payload /dueOn: new field']],
    ['enum', [
      "GET /accounts/{id}: response 200 /status: enum member 'suspended' added",
      "QUERY /search: response 200 /*/status: enum member 'suspended' added",
      "webhook account.updated: payload /status: enum member 'suspended' added"
    ], []],
    ['query', ['QUERY /search: request body /term: renamed to text', 'QUERY /search: request body /lang: new required field'], []],
    ['headers', ['GET /accounts/{id}: header parameter x-tenant: became required', 'GET /accounts/{id}: response 200 header x-rate-limit: removed'], []],
    ['version', ['GET /accounts/{id}: header parameter x-api-version: renamed to api-version', 'QUERY /search: header parameter x-api-version: renamed to api-version'], []]
  ]
  for (const [variant, breaks, notes] of expected) {
    const result = await inProcess(['check', join(dir, `${variant}.ts`), '--against', join(dir, 'openapi')])
    t.equal(result.code, 1, `${variant}: exit 1`)
    const inBoth = (found: string[], kind: string): string[] => ['2000-01-01', '2001-01-01'].flatMap((version) => found.map((line) => `${kind}: ${version} ${line}`))
    t.same(result.stderr.split('\n').filter((line) => line !== '').sort(), inBoth(breaks, 'break').sort(), `${variant}: breaks`)
    for (const line of inBoth(notes, 'note')) t.match(result.stdout, `${line}\n`, `${variant}: ${line}`)
  }
})

test('check: an app with webhooks, QUERY routes, headers and the version in the path reports nothing against its own snapshot', async (t) => {
  const dir = await scratch(t)
  await writeFile(join(dir, 'app.ts'), consumerApp('same', 'path'))
  const exported = await inProcess(['export', join(dir, 'app.ts'), '--out', join(dir, 'openapi')])
  t.equal(exported.code, 0, exported.stderr)
  t.match(JSON.parse(await readFile(join(dir, 'openapi', '2000-01-01.json'), 'utf8')).paths, { '/{x_api_version}/search': { 'x-query': {} } })
  const result = await inProcess(['check', join(dir, 'app.ts'), '--against', join(dir, 'openapi')])
  t.equal(result.code, 0, result.stderr)
  t.equal(result.stdout, 'check: no breaking change in 3 saved version(s) (2000-01-01, 2001-01-01, unversioned); 0 note(s).\n')
})

test('check: a corrupted saved document exits 1 naming the file, not 0', async (t) => {
  const dir = await scratch(t)
  await cp(snapshot, dir, { recursive: true })
  // A bad merge left null in one snapshot: it used to compare as "no breaking change".
  const file = join(dir, '2000-01-01.json')
  await writeFile(file, 'null\n')
  const result = await inProcess(['check', 'examples/users/app.ts', '--against', dir])
  t.equal(result.code, 1, 'CI fails (1), and it is no usage error (2)')
  t.equal(result.stderr, `fastify-versioner check: The saved document '${file}' is not an OpenAPI document: it holds null, where export writes an object. ` +
    'Restore it from version control, or run export again on the code that released that version.\n')
  t.equal(result.stdout, '')
  // The same in this process for a document of another version: a snapshot copied over another.
  await cp(join(snapshot, '2001-01-01.json'), file)
  const copied = await inProcess(['check', 'examples/users/app.ts', '--against', dir])
  t.equal(copied.code, 1)
  t.match(copied.stderr, `The saved document '${file}' is the document of version '2001-01-01' (its info.version), not of '2000-01-01' as its file name says.`)
})

test('check: a saved document nested 10,000 levels deep exits 1 naming the file and the depth', async (t) => {
  const dir = await scratch(t)
  await cp(snapshot, dir, { recursive: true })
  const file = join(dir, '2001-01-01.json')
  const deep = '{"type":"object","properties":{"a":'.repeat(10_000) + '{"type":"string"}' + '}}'.repeat(10_000)
  // The snapshot on one line, as export wrote it before (check reads both forms), to edit as text.
  const text = JSON.stringify(JSON.parse(await readFile(file, 'utf8')))
  const anchor = '"properties":{"id":'
  t.match(text, anchor)
  await writeFile(file, text.replace(anchor, `"properties":{"deep":${deep},"id":`))
  const result = await inProcess(['check', 'examples/users/app.ts', '--against', dir])
  t.equal(result.code, 1)
  t.match(result.stderr, `fastify-versioner check: The saved document '${file}' nests objects and arrays 20006 levels deep, where check compares at most 256 `)
  t.equal(result.stdout, '')
})

test('export, then verify a TypeScript app whose rename lacks its converter: exit 1 naming it', async (t) => {
  const dir = await scratch(t)
  const plugin = JSON.stringify(join(root, 'plugin'))
  await writeFile(join(dir, 'app.ts'), `import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned, VersionBundle, HeadVersion, Version, VersionChange, schema } from ${plugin}

const User = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'User' })
class RenameNameToFullName extends VersionChange {
  description = 'name became fullName.'
  instructionsToMigrateToPreviousVersion = [schema(User).field('fullName').had({ name: 'name' })]
}
const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameNameToFullName), new Version('2000-01-01'))

export async function build () {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions })
  await app.register(versioned(async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User } } }, async () => ({ id: 'u1', fullName: 'Ada' }))
  }))
  return app
}
`)
  const exported = await inProcess(['export', join(dir, 'app.ts'), '--out', join(dir, 'openapi')])
  t.equal(exported.code, 0, exported.stderr)
  t.equal(exported.stdout, ['2001-01-01', '2000-01-01', 'unversioned'].map((version) => `wrote ${join(dir, 'openapi', `${version}.json`)}\n`).join(''))
  t.match(JSON.parse(await readFile(join(dir, 'openapi', '2000-01-01.json'), 'utf8')), { components: { schemas: { User: { required: ['id', 'name'] } } } })
  const verified = await inProcess(['verify', join(dir, 'app.ts')])
  t.equal(verified.code, 1)
  t.match(verified.stderr, /^finding: GET \/users\/:id \(2000-01-01\): response 200\/name migrated down from HEAD fails the schema of 2000-01-01: must have required property 'name'; first wrong after RenameNameToFullName \(2001-01-01\), no converter ran/m)
  t.match(verified.stdout, /^verify: 1 finding\(s\) \(209 examples\)\.$/m, '200 random examples and 9 boundary ones (lines among them: the body holds a free string)')
})

test('export refuses an app whose document holds an invalid example: exit 1 naming the version, the pointer and the message', async (t) => {
  const dir = await scratch(t)
  const plugin = JSON.stringify(join(root, 'plugin'))
  await writeFile(join(dir, 'app.ts'), `import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned, VersionBundle, HeadVersion, Version, VersionChange, schema } from ${plugin}

const User = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'User' })
class RenameNameToFullName extends VersionChange {
  description = 'name became fullName.'
  instructionsToMigrateToPreviousVersion = [
    schema(User).field('fullName').had({ name: 'name' }),
    schema(User).had({ examples: [{ id: 'u1', fullName: 'Ada' }] })
  ]
}
const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameNameToFullName), new Version('2000-01-01'))

export default async function build () {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions })
  await app.register(versioned(async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User } } }, async () => ({ id: 'u1', fullName: 'Ada' }))
  }))
  return app
}
`)
  const result = await inProcess(['export', join(dir, 'app.ts'), '--out', join(dir, 'openapi')])
  t.equal(result.code, 1)
  t.equal(result.stdout, '')
  t.match(result.stderr, /^fastify-versioner export: 1 example\(s\) in the documents fail their schema, so no document was written/)
  t.match(result.stderr, /^2000-01-01 \/components\/schemas\/User\/examples\/0: must have required property 'name'$/m,
    'the examples the instruction gave are shown as written, and checked')
  await t.rejects(readFile(join(dir, 'openapi', '2001-01-01.json')), { code: 'ENOENT' }, 'nothing written')
})

test('JavaScript apps load without tsx: a CommonJS build export and an ESM default export', async (t) => {
  const dir = await scratch(t)
  const fastify = JSON.stringify(require.resolve('fastify'))
  await writeFile(join(dir, 'app.cjs'), `const Fastify = require(${fastify})
exports.build = async () => Fastify().decorate('versioner', {})
`)
  await writeFile(join(dir, 'app.mjs'), `import Fastify from ${fastify}
export default Fastify()
`)
  // A promise of the app (\`export default build()\`): it was refused as something else than an app.
  await writeFile(join(dir, 'promise.mjs'), `import Fastify from ${fastify}
export default Promise.resolve().then(() => Fastify())
`)
  for (const file of ['app.cjs', 'app.mjs', 'promise.mjs']) {
    const result = await cli(['verify', join(dir, file)])
    // Loaded, readied, then refused for what it is: an app without the plugin's tools.
    t.equal(result.code, 1, file)
    t.match(result.stderr, /does not register fastify-versioner, or a version of it without the tools/, file)
  }
})

test('a TypeScript app without tsx installed: exit 1 saying to install it', async (t) => {
  const dir = await scratch(t, tmpdir())
  await writeFile(join(dir, 'app.ts'), 'export default 1\n')
  // The precondition: no tsx reachable from the scratch folder (a node_modules in one of its parents would hold one).
  const reachable = (() => { try { return createRequire(join(dir, 'noop.js')).resolve('tsx') } catch { return undefined } })()
  t.equal(reachable, undefined, `no tsx is reachable from ${dir} (remove the node_modules folder that holds ${reachable ?? ''})`)
  const result = await cli(['verify', 'app.ts'], dir)
  t.equal(result.code, 1)
  t.match(result.stderr, /is a TypeScript module, and tsx is not installed to load it\. Install it in your project \(npm install --save-dev tsx\)/)
})

test('an install without the optional libraries: check and verify exit 1 saying what to install (FST_VERSIONER_TOOL)', async (t) => {
  withoutLibraries(t, ['api-smart-diff', 'fast-check'])
  const checked = await inProcess(['check', 'examples/users/app.ts', '--against', 'examples/users/openapi'])
  t.equal(checked.code, 1)
  t.equal(checked.stderr, 'fastify-versioner check: check needs api-smart-diff, an optional dependency of fastify-versioner that is not installed (an ' +
    'install that leaves optional dependencies out, such as npm ci --omit=optional, skips it). Install it: npm install --save-dev api-smart-diff@^1.0.6\n')
  const verified = await inProcess(['verify', 'examples/users/app.ts', '--examples', '1'])
  t.equal(verified.code, 1)
  t.match(verified.stderr, /^fastify-versioner verify: verify needs fast-check, .* Install it: npm install --save-dev fast-check@\^4\.10\.2\n$/)
  const exported = await inProcess(['export', 'examples/users/app.ts', '--out', await scratch(t)])
  t.equal(exported.code, 0, `export needs neither library: ${exported.stderr}`)
})

test('an unusable app: exit 1 naming the problem', async (t) => {
  const dir = await scratch(t)
  await writeFile(join(dir, 'nothing.cjs'), 'exports.other = 1\n')
  await writeFile(join(dir, 'throws.cjs'), 'module.exports = async () => { throw new Error("no database") }\n')
  const missing = await inProcess(['verify', join(dir, 'missing.js')])
  t.equal(missing.code, 1)
  t.match(missing.stderr, /The application module '.*missing\.js' does not exist/)
  const nothing = await inProcess(['export', join(dir, 'nothing.cjs'), '--out', join(dir, 'out')])
  t.equal(nothing.code, 1)
  t.match(nothing.stderr, /must default-export \(or export as 'build'\) a function returning a Fastify instance, or the instance; its exports have neither/)
  const throws = await inProcess(['check', join(dir, 'throws.cjs'), '--against', snapshot])
  t.equal(throws.code, 1)
  t.match(throws.stderr, /The app function of '.*throws\.cjs' failed: Error: no database/)
  // What to do, after what the app threw (its stack frames between): a team's app needs its environment at start-up.
  await writeFile(join(dir, 'env.mjs'), "if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is not set')\nexport default () => null\n")
  const env = await inProcess(['verify', join(dir, 'env.mjs')])
  t.equal(env.code, 1)
  t.match(env.stderr, /could not be loaded: Error: DATABASE_URL is not set\n( {4}at .*\n)*The command loads the module and builds the app as your server's start does, without listening: run it with the environment variables and services \(a database\) that start needs/)
  t.match(throws.stderr, /\nThe command loads the module and builds the app/, 'the same advice when the app function fails')
  // A Fastify plugin (fastify-cli's app.js) is no app function: said so, with what to export instead.
  await writeFile(join(dir, 'plugin.cjs'), 'module.exports = async function (fastify, opts) { await fastify.register(async () => {}) }\n')
  const plugin = await inProcess(['verify', join(dir, 'plugin.cjs')])
  t.equal(plugin.code, 1)
  t.match(plugin.stderr, /^fastify-versioner verify: The export of '.*plugin\.cjs' takes 2 parameters, as a Fastify plugin does \(fastify-cli's app\.js\), and failed when called without them: TypeError: /)
  t.match(plugin.stderr, /\nExport a function that builds the app instead: one that creates a Fastify instance, registers the plugin on it and returns it\.\n$/)
  // A plugin of one parameter (`async function (fastify)`) reads a property of the instance it was not given: said so too.
  await writeFile(join(dir, 'plugin-one.cjs'), 'module.exports = async function (fastify) { await fastify.register(async () => {}) }\n')
  const pluginOne = await inProcess(['verify', join(dir, 'plugin-one.cjs')])
  t.equal(pluginOne.code, 1)
  t.match(pluginOne.stderr, /The app function of '.*plugin-one\.cjs' failed: TypeError: Cannot read properties of undefined \(reading 'register'\)/)
  t.match(pluginOne.stderr, /\nIf it is a Fastify plugin \(its parameter the Fastify instance\), export a function that builds the app instead: one that creates a Fastify instance, registers the plugin on it and returns it\.\n/)
  t.notMatch(throws.stderr, /If it is a Fastify plugin/, 'no such advice for an app function that threw its own error')
  // A folder, and a module Node cannot parse: no advice on the environment (they are no matter of it).
  const folder = await inProcess(['verify', dir])
  t.equal(folder.code, 1)
  t.match(folder.stderr, /^fastify-versioner verify: The application module '.*' is a folder: name the module file that exports the app \(such as dist\/app\.js\)\.$/m)
  await writeFile(join(dir, 'broken.mjs'), 'export default (\n')
  const broken = await inProcess(['verify', join(dir, 'broken.mjs')])
  t.equal(broken.code, 1)
  t.match(broken.stderr, /could not be loaded: SyntaxError: /)
  t.notMatch(broken.stderr, /The command loads the module/, 'a syntax error is no matter of the environment')
  // A module exporting its app under another name: the names it has are shown.
  await writeFile(join(dir, 'named.mjs'), 'export const server = {}\nexport function createServer () {}\n')
  const named = await inProcess(['verify', join(dir, 'named.mjs')])
  t.equal(named.code, 1)
  t.match(named.stderr, /its exports have neither \(its named exports: (server, createServer|createServer, server)\)\.$/m)
})

test('regression: an app module listening as it loads, on a port in use, says to move listen() out (it advised on environment variables and services)', async (t) => {
  const dir = await scratch(t)
  // The developer's own server, running on the port the module listens on.
  const running = createServer()
  await new Promise<void>((resolve) => running.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => running.close(resolve)))
  const { port } = running.address() as AddressInfo
  await writeFile(join(dir, 'server.mjs'), `import Fastify from ${JSON.stringify(require.resolve('fastify'))}
const app = Fastify()
await app.listen({ port: ${port}, host: '127.0.0.1' })
export default app
`)
  const result = await inProcess(['verify', join(dir, 'server.mjs')])
  t.equal(result.code, 1)
  t.equal(result.stderr, `fastify-versioner verify: The application module '${join(dir, 'server.mjs')}' could not be loaded: Error: listen EADDRINUSE: address already in use 127.0.0.1:${port}\n` +
    'The application listens on a port as its module loads or its app function runs; the commands need the app built, never listening. Call ' +
    'listen() in the file that starts the server (or only when the module is the one run: require.main === module in CommonJS), and export the function that builds the app.\n',
  'no stack of Node\'s frames, no advice on the environment')
})

test('an app whose ready() fails with a coded error: exit 1, its code and message shown (the code was left out)', async (t) => {
  const dir = await scratch(t)
  await writeFile(join(dir, 'app.cjs'), `const Fastify = require(${JSON.stringify(require.resolve('fastify'))})
const { fastifyVersioner, versioned, VersionBundle, HeadVersion, Version, VersionChange, endpoint } = require(${JSON.stringify(join(root, 'plugin.ts'))})
class RemoveReports extends VersionChange {
  description = 'GET /reports is gone.'
  instructionsToMigrateToPreviousVersion = [endpoint('/reports', ['GET']).existed]
}
module.exports = () => {
  const app = Fastify()
  app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RemoveReports), new Version('2000-01-01')) })
  app.register(versioned(async (api) => { api.get('/items', async () => ({ ok: true })) }))
  return app
}
`)
  const result = await inProcess(['verify', join(dir, 'app.cjs')])
  t.equal(result.code, 1)
  t.match(result.stderr, /^fastify-versioner verify: The application of '.*app\.cjs' failed to start \(ready\(\)\): FastifyError \[FST_VERSIONER_ROUTER_GENERATION\]: Endpoint "\[GET\] \/reports" named in "RemoveReports" is not a route/)
  t.notMatch(result.stderr, /The command loads the module/, 'no advice beside the error\'s own (it says how to fix it)')
  t.equal(result.stdout, '')
})

test('an app module that throws anything is reported naming the file, by every command that loads an app', async (t) => {
  const dir = await scratch(t)
  const fastify = JSON.stringify(require.resolve('fastify'))
  const modules: Record<string, string> = {
    'import-null.cjs': 'throw null\n',
    'import-string.cjs': "throw 'no config\\ncheck: ok'\n",
    'build-undefined.cjs': 'module.exports = async () => { throw undefined }\n',
    'build-error.cjs': 'module.exports = () => { throw new Error("no database\\ncheck: ok") }\n',
    'build-rejects.cjs': 'module.exports = () => Promise.reject(Object.create(null))\n',
    'ready-string.cjs': `const Fastify = require(${fastify})\nmodule.exports = Fastify().register(async () => { throw 'no plugin' })\n`
  }
  const described: Record<string, RegExp> = {
    'import-null.cjs': /The application module '.*import-null\.cjs' could not be loaded: null\nThe command loads the module and builds the app as your server's start does/,
    'import-string.cjs': /The application module '.*import-string\.cjs' could not be loaded: no config\\ncheck: ok\nThe command loads the module/,
    'build-undefined.cjs': /The app function of '.*build-undefined\.cjs' failed: undefined\nThe command loads the module/,
    'build-error.cjs': /The app function of '.*build-error\.cjs' failed: Error: no database\\ncheck: ok\n {4}at /,
    'build-rejects.cjs': /The app function of '.*build-rejects\.cjs' failed: \{\}\nThe command loads the module/,
    'ready-string.cjs': /The application of '.*ready-string\.cjs' failed to start \(ready\(\)\): no plugin\nThe command loads the module/
  }
  for (const [name, text] of Object.entries(modules)) await writeFile(join(dir, name), text)
  for (const command of [['export', '--out', join(dir, 'out')], ['check', '--against', snapshot], ['types', '--out', join(dir, 'types.ts')], ['verify'], ['retire', '--version', '2000-01-01']]) {
    for (const name of Object.keys(modules)) {
      const result = await inProcess([command[0], join(dir, name), ...command.slice(1)])
      t.equal(result.code, 1, `${command[0]} ${name}`)
      t.match(result.stderr.trimEnd(), described[name], `${command[0]} ${name}`)
      t.notOk(/^check: ok/m.test(result.stderr), 'no line forged by what the app threw')
      t.equal(result.stdout, '')
    }
  }
  // An onClose hook that throws, once the command did its work.
  await writeFile(join(dir, 'close.cjs'), `const Fastify = require(${fastify})
const { fastifyVersioner, versioned, VersionBundle, Version } = require(${JSON.stringify(join(root, 'plugin.ts'))})
module.exports = async () => {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => { api.get('/items', async () => ({ ok: true })) }))
  app.addHook('onClose', async () => { throw '\\u001b[2Jgone' })
  return app
}
`)
  for (const command of [['export', '--out', join(dir, 'closed')], ['verify', '--examples', '2'], ['retire', '--version', '2000-01-01', '--examples', '2']]) {
    const result = await inProcess([command[0], join(dir, 'close.cjs'), ...command.slice(1)])
    t.equal(result.code, 1, command[0])
    t.match(result.stderr, /^fastify-versioner: closing the application of '.*close\.cjs' failed: \\x1b\[2Jgone$/m, command[0])
  }
})

test('a reader that stops reading the output (| head) leaves the exit code as it is: no EPIPE crash', async (t) => {
  const child = spawn(process.execPath, ['--import', tsx, bin, 'verify', 'examples/users/app.ts', '--examples', '2'], { cwd: root, env })
  // The reading end closed before the command writes, as `| head -n 0` does.
  child.stdout.destroy()
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += String(chunk) })
  const code = await new Promise((resolve) => child.on('close', resolve))
  t.equal(stderr, '', 'nothing on stderr (it was an EPIPE stack)')
  t.equal(code, 0, 'the exit code of a clean verify')
})

/**
 * Two apps whose onClose hook never settles, exported by the command in two processes at once: each waits out its
 * 10 s limit, idle. Started when this file loads, with the root test's scratch folder, and judged in its test below:
 * the tests before it run during the wait (it held this file for 10 s of idle time).
 */
async function exportNeverClosing (): Promise<Array<{ file: string, result: Run, milliseconds: number }>> {
  const dir = await scratch(t)
  const setup = `const Fastify = require(${JSON.stringify(require.resolve('fastify'))})
const { fastifyVersioner, versioned, VersionBundle, Version } = require(${JSON.stringify(join(root, 'plugin.ts'))})
module.exports = async () => {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => { api.get('/items', async () => ({ ok: true })) }))
`
  // Nothing keeps the process alive while it waits (it exited 0 with its work half done), or a handle does (it hung).
  await writeFile(join(dir, 'pending.cjs'), `${setup}  app.addHook('onClose', () => new Promise(() => {}))\n  return app\n}\n`)
  await writeFile(join(dir, 'held.cjs'), `${setup}  app.addHook('onClose', () => new Promise(() => { setInterval(() => {}, 1000) }))\n  return app\n}\n`)
  // Both at once: each waits its 10 s.
  return await Promise.all(['pending.cjs', 'held.cjs'].map(async (file) => {
    const started = Date.now()
    const result = await cli(['export', join(dir, file), '--out', join(dir, `openapi-${file}`)])
    return { file, result, milliseconds: Date.now() - started }
  }))
}
const neverClosing = exportNeverClosing()
// Judged by its test; until then, a rejection is not unhandled.
neverClosing.catch(() => {})

test('an onClose hook that never settles: the command stops after 10 s with exit 1 saying so (it exited 0, or never)', async (t) => {
  for (const { file, result, milliseconds } of await neverClosing) {
    t.equal(result.code, 1, `${file}: exit 1`)
    t.match(result.stdout, /^wrote .*2001-01-01\.json$/m, `${file}: the work is done`)
    t.match(result.stderr, /^fastify-versioner: closing the application of '.*' did not finish in 10 s \(an onClose hook that never settles\); the command stops without it\.$/m, file)
    t.ok(milliseconds < 60_000, `${file}: it stopped`)
  }
})

test('an app module or app function awaiting a promise that never settles: exit 1 saying so (it exited 0, checking nothing)', async (t) => {
  const dir = await scratch(t)
  await writeFile(join(dir, 'function.cjs'), 'module.exports = () => new Promise(() => {})\n')
  await writeFile(join(dir, 'module.mjs'), 'await new Promise(() => {})\nexport default () => null\n')
  for (const file of ['function.cjs', 'module.mjs']) {
    const result = await cli(['check', join(dir, file), '--against', snapshot])
    t.equal(result.code, 1, `${file}: exit 1`)
    t.equal(result.stdout, '')
    t.match(result.stderr, /^fastify-versioner: the command stopped unfinished: the application awaits a promise that never settles \(in its module, app function, plugins or hooks\) and left nothing running; nothing more was checked\.$/m, file)
  }
})

test('usage errors exit 2 with the usage text', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [[], /name a command: export, check, types, verify, retire, replay, mutate or fingerprint/],
    [['deploy', 'app.js'], /unknown command 'deploy'/],
    [['check'], /check needs the application module/],
    [['export', 'app.js'], /export needs --out <dir>/],
    [['check', 'app.js'], /check needs --against <dir>/],
    [['verify', 'app.js', '--out', 'x'], /--out does not apply to verify/],
    [['verify', 'app.js', 'extra'], /unexpected argument 'extra'/],
    [['verify', 'app.js', '--bogus'], /^fastify-versioner: unknown option '--bogus'\n/],
    // A misspelt option is named with the one meant (parseArgs's own hint was on positional arguments starting with '-').
    [['verify', 'app.js', '--example', '5'], /^fastify-versioner: unknown option '--example'; did you mean --examples\?\n/],
    [['check', 'app.js', '--agains', 'openapi'], /^fastify-versioner: unknown option '--agains'; did you mean --against\?\n/],
    [['export', 'app.js', '--output', 'openapi'], /^fastify-versioner: unknown option '--output'; did you mean --out\?\n/]
  ]
  for (const [args, message] of cases) {
    const result = await inProcess(args)
    t.equal(result.code, 2, args.join(' '))
    t.match(result.stderr, message)
    t.match(result.stderr, /Usage:\n {2}fastify-versioner export <app> --out <dir>/)
  }
  const help = await inProcess(['--help'])
  t.equal(help.code, 0)
  t.match(help.stdout, /^Usage:/)
  // --version alone is the package's (with a command, retire's version to retire).
  const version = await inProcess(['--version'])
  t.equal(version.code, 0, version.stderr)
  t.equal(version.stdout.trim(), (JSON.parse(await readFile(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version)
  t.equal((await inProcess(['verify', '--version'])).code, 2, 'an option of retire elsewhere is still a usage error')
  const spawned = await cli(['deploy'])
  t.equal(spawned.code, 2, 'the bin exits with the code')
  t.match(spawned.stderr, /^fastify-versioner: unknown command 'deploy'/)
})

test('verify: each mistake seeded into a copy of the example app exits 1 with one finding naming the change', async (t) => {
  // In this process (the bin's exit codes are checked above): the app module reads SEEDED_MISTAKE each time it builds.
  t.teardown(() => { delete process.env.SEEDED_MISTAKE })
  for (const mistake of ['enum', 'rename', 'retype', 'lossy']) {
    process.env.SEEDED_MISTAKE = mistake
    const result = await inProcess(['verify', 'test/fixtures/seeded-app.ts'])
    t.equal(result.code, 1, `${mistake}: exit 1`)
    const findings = result.stderr.split('\n').filter((line) => line.startsWith('finding: '))
    t.equal(findings.length, 1, `${mistake}: one finding`)
    t.match(findings[0], /\(2002-01-01; also 2001-01-01, 2000-01-01\): .*first wrong after AddOrdersProfilesTagsContacts \(2003-01-01\)/, `${mistake}: versions and change`)
    t.match(result.stdout, /^verify: 1 finding\(s\) \(\d+ examples\)\.$/m)
  }
})

test('verify: --examples and --seed choose how many examples and which; they apply to verify only', async (t) => {
  const few = await inProcess(['verify', 'examples/users/app.ts', '--examples', '20', '--seed', '3'])
  t.equal(few.code, 0, few.stderr)
  const replayed = Number(/(\d+) examples/.exec(few.stdout)?.[1])
  t.ok(replayed > 0 && replayed < 200 * 3, `${replayed} examples: fewer than the default`)
  for (const [args, message] of [
    [['verify', 'examples/users/app.ts', '--examples', 'many'], /--examples must be a whole number of 1 or more; got 'many'/],
    [['verify', 'examples/users/app.ts', '--examples', '0'], /--examples must be a whole number/],
    [['verify', 'examples/users/app.ts', '--seed', '1.5'], /--seed must be a whole number/],
    // Past Number.MAX_SAFE_INTEGER: verify's own check refused it with exit 1, naming the seed as 100000000000000000000.
    [['verify', 'examples/users/app.ts', '--seed', '99999999999999999999'], /--seed must be a whole number; got '99999999999999999999'/],
    [['export', 'examples/users/app.ts', '--out', 'x', '--seed', '1'], /--seed applies to verify, retire and mutate only/]
  ] as const) {
    const result = await inProcess([...args])
    t.equal(result.code, 2, `${args.join(' ')}: a usage error`)
    t.match(result.stderr, message)
  }
})
