// The published package, as users get it: packed exactly as a publisher packs it (test/helpers/packed-package.ts:
// `npm pack` in a clean copy of the repository, where `prepare` must build; one pack shared with the other tests that
// need it), then installed (extracted) into a fresh consumer folder, imported from ESM and CommonJS, served from a
// Fastify app, and type-checked from TypeScript (module nodenext, .mts and .cts). The type tests (test/types, with
// tsd) run here too, against the packed declarations: `npm test` builds the package once, in the pack.
//
// The consumer folder lives under test/.tmp (gitignored) so that Node and TypeScript find the package's
// dependencies by walking up to the repository's node_modules: no registry, no network.
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { basename, join, relative, resolve } from 'node:path'
import semver from 'semver'
import t from 'tap'
import { installPacked, packedPackage, run as runChild, type Run } from './helpers/packed-package'
import { codeBlocks, readText } from './helpers/markdown-blocks'

const root = resolve(__dirname, '..')
// The consumers' programs, checked as `tsc -p <config> --listFiles` would (but for other packages' declarations).
const typeCheckScript = join(__dirname, 'helpers', 'consumer-type-check.js')
const tsdCli = join(root, 'node_modules', 'tsd', 'dist', 'cli.js')
// tsd with its program's semantic diagnostics computed only for the files outside node_modules, the only ones it reports.
const tsdOwnFiles = join(__dirname, 'helpers', 'type-tests-own-files.js')

// Building and packing take about 20 s on a quiet machine, and the consumers' type checks about 20 s more (they
// run concurrently); the whole file takes 1 to 3 minutes on a loaded one. Generous, to hold on a busy machine.
t.setTimeout(600_000)

function run (file: string, args: string[], cwd: string, timeout = 120_000): Promise<Run> {
  return runChild(file, args, cwd, { timeout })
}

// The public names every consumer imports; the runtime checks compare both module systems against this list.
const NAMED = ['VersionBundle', 'Version', 'HeadVersion', 'VersionChange', 'schema', 'generateVersionedSchemas', 'errorCodes']
const ALSO_EXPORTED = ['VersionChangeWithSideEffects', 'enumeration', 'endpoint', 'ConvertRequestToNextVersionFor',
  'ConvertResponseToPreviousVersionFor', 'extendSchema', 'defineValidator', 'withValidators', 'VersionedSchemas',
  'VersionerStructureError', 'InvalidGenerationInstructionError', 'LintingError']

/** The body shared by the ESM and CJS consumers: one rename, then what the old version's schema looks like. */
const SCENARIO = `
const User = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) }, { $id: 'User' })
class ReplaceAddressWithAddresses extends VersionChange {
  description = 'Users can now store several addresses.'
  instructionsToMigrateToPreviousVersion = [
    schema(User).field('addresses').had({ name: 'address', type: Type.String() })
  ]
}
const bundle = new VersionBundle(new HeadVersion(), new Version('2001-01-01', ReplaceAddressWithAddresses), new Version('2000-01-01'))
const schemas = generateVersionedSchemas(bundle)
const OldUser = schemas.get('2000-01-01').get(User)
let errorCode = 'no error'
try {
  new Version(42)
} catch (error) {
  errorCode = error instanceof errorCodes.FST_VERSIONER_STRUCTURE ? error.code : 'another error class'
}
const result = {
  versions: schemas.versions,
  oldProperties: Object.keys(OldUser.properties),
  oldRequired: OldUser.required,
  oldId: OldUser.$id,
  headUnchanged: Object.keys(User.properties),
  latestIsHead: schemas.get('2001-01-01').get(User) === User,
  errorCode,
  exportNames: Object.keys(ns).filter((name) => !['default', 'module.exports', '__esModule'].includes(name)).sort()
}
`

const ESM_CONSUMER = `import { createRequire } from 'node:module'
import { Type } from '@sinclair/typebox'
import { VersionBundle, Version, HeadVersion, VersionChange, schema, generateVersionedSchemas, errorCodes } from 'fastify-versioner'
import * as ns from 'fastify-versioner'
${SCENARIO}
result.resolved = import.meta.resolve('fastify-versioner')
result.sameModuleAsRequire = createRequire(import.meta.url)('fastify-versioner') === ns.default
console.log(JSON.stringify(result))
`

/** The packed package serves its docs assets (Swagger UI's files, the shipped ReDoc) from a Fastify app. */
const SERVER_CONSUMER = `'use strict'
const Fastify = require('fastify')
const { fastifyVersioner, VersionBundle, HeadVersion, Version } = require('fastify-versioner')
const app = Fastify()
app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2000-01-01')) })
app.ready().then(async () => {
  const result = {}
  for (const url of ['/docs?version=2000-01-01', '/redoc?version=2000-01-01', '/docs/assets/swagger-ui-bundle.js',
    '/docs/assets/swagger-initializer.js', '/docs/assets/oauth2-redirect.html', '/docs/assets/redoc.standalone.js',
    '/docs/assets/redoc-search-worker.js']) {
    const response = await app.inject(url)
    result[url] = [response.statusCode, response.rawPayload.length]
  }
  console.log(JSON.stringify(result))
  await app.close()
})
`

/**
 * What the process has loaded: every module Node loaded through its CommonJS loader (`require.cache`, which an ESM
 * `import` of a CommonJS module fills too), the package's own (under its dist/), its tools' (dist/tools.js and
 * dist/lib/tools/), and the tools' libraries (fast-check, api-smart-diff and what they load).
 */
const LOADED = `function loaded (require) {
  const { dirname, join, sep } = require('node:path')
  const dist = join(dirname(require.resolve('fastify-versioner/package.json')), 'dist') + sep
  const modules = Object.keys(require.cache)
  const own = modules.filter((file) => file.startsWith(dist)).map((file) => file.slice(dist.length).split(sep).join('/'))
  const libraries = modules.map((file) => /[\\\\/]node_modules[\\\\/](fast-check|pure-rand|api-smart-diff|allof-merge|json-crawl)[\\\\/]/.exec(file)?.[1])
  return {
    own: own.length,
    serving: own.filter((file) => file === 'plugin.js' || file.startsWith('lib/serve/')).length,
    tools: own.filter((file) => file === 'tools.js' || file.startsWith('lib/tools/')),
    libraries: [...new Set(libraries.filter((name) => name !== undefined))].sort()
  }
}

/** A rename without its converter, verified with the tools entry: the findings' texts. */
async function verified ({ Fastify, Type, plugin, tools }) {
  const { fastifyVersioner, versioned, VersionBundle, HeadVersion, Version, VersionChange, schema } = plugin
  const Thing = Type.Object({ id: Type.String(), label: Type.String() }, { $id: 'Thing' })
  class RenameNameToLabel extends VersionChange {
    description = 'name became label.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('label').had({ name: 'name' })]
  }
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameNameToLabel), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/things/:id', { schema: { response: { 200: Thing } } }, async (request) => ({ id: request.params.id, label: 'a' }))
  }))
  await app.ready()
  const findings = await tools.verify(app, { examples: 5 })
  await app.close()
  return findings.map((finding) => finding.text)
}
`

/** Loads the main entry, then the tools entry, then runs verify (CommonJS). */
const LOAD_CJS = `'use strict'
${LOADED}
const plugin = require('fastify-versioner')
const main = loaded(require)
const tools = require('fastify-versioner/tools')
const withTools = loaded(require)
verified({ Fastify: require('fastify'), Type: require('@sinclair/typebox').Type, plugin, tools }).then((findings) => {
  console.log(JSON.stringify({ main, withTools, afterVerify: loaded(require), findings }))
})
`

/** The same through ESM imports, one after the other. */
const LOAD_ESM = `import { createRequire } from 'node:module'
${LOADED}
const require = createRequire(import.meta.url)
const plugin = await import('fastify-versioner')
const main = loaded(require)
const tools = await import('fastify-versioner/tools')
const withTools = loaded(require)
const findings = await verified({ Fastify: (await import('fastify')).default, Type: (await import('@sinclair/typebox')).Type, plugin, tools })
console.log(JSON.stringify({ main, withTools, afterVerify: loaded(require), findings, toolsNames: Object.keys(tools).sort() }))
`

/** TypeScript using the tools entry; a misuse must be reported (the types are real). */
const TS_CONSUMER_TOOLS = `import Fastify from 'fastify'
import { checkDocuments, injectEveryVersion, mutateConverters, readTraffic, verify, type CheckResult, type VerifyFindings } from 'fastify-versioner/tools'
import type { UpgradeGuide } from 'fastify-versioner'

const app = Fastify()
export const findings: Promise<VerifyFindings> = verify(app, { examples: 5 })
// Inferred, as exported by a module compiled with declaration: true: every type they name is one of the entry's.
export const errorBody = verify(app).then((all) => all.find((finding) => finding.kind === 'error body'))
export const operator = mutateConverters(app).then((report) => report.mutants[0]?.operator)
export const recorded = readTraffic('').exchanges[0]?.exchange
declare const guide: UpgradeGuide
export const firstChange = guide.changes[0]
export const routeSchema = app.versioner.routes.get('2000-01-01')?.[0]?.schema
export const checked: Promise<CheckResult> = checkDocuments(app, 'openapi')
export const answers = injectEveryVersion(app, { url: '/things/1' })
// @ts-expect-error examples is a number
export const wrong = verify(app, { examples: '5' })
`

/** JavaScript checked by TypeScript (`checkJs`) registering the plugin as `require` returns it, as Fastify's docs show. */
const CHECKJS_CONSUMER = `// @ts-check
'use strict'
const Fastify = require('fastify')
const { VersionBundle, HeadVersion, Version } = require('fastify-versioner')
const app = Fastify()
app.register(require('fastify-versioner'), { versions: new VersionBundle(new HeadVersion(), new Version('2000-01-01')) })
/** @type {import('fastify').FastifyPluginAsync<import('fastify-versioner').FastifyVersionerOptions>} */
const named = require('fastify-versioner').fastifyVersioner
if (named !== require('fastify-versioner') || require('fastify-versioner').default !== named) throw new Error('one plugin under every name')
app.ready().then(async () => {
  const response = await app.inject('/openapi.json?version=2000-01-01')
  console.log(JSON.stringify({ status: response.statusCode, version: response.json().info.version }))
  await app.close()
})
`

/** Must fail to type-check: the options given with \`require('fastify-versioner')\` are checked. */
const CHECKJS_CONSUMER_WITH_ERRORS = `// @ts-check
'use strict'
const app = require('fastify')()
app.register(require('fastify-versioner'), { versions: 'none' })
`

const CJS_CONSUMER = `'use strict'
const { Type } = require('@sinclair/typebox')
const { VersionBundle, Version, HeadVersion, VersionChange, schema, generateVersionedSchemas, errorCodes } = require('fastify-versioner')
const ns = require('fastify-versioner')
${SCENARIO}
result.resolved = require.resolve('fastify-versioner')
console.log(JSON.stringify(result))
`

/**
 * TypeScript consumers with standard (TC39) decorators. The core one passes no TypeBox schema to the package
 * and is checked as both .mts and .cts; the TypeBox one passes schemas, and is checked as .cts and as .mts.
 */
const TS_CONSUMER_CORE = `import {
  VersionBundle, Version, HeadVersion, VersionChange, endpoint, errorCodes, ConvertRequestToNextVersionFor,
  ConvertResponseToPreviousVersionFor
} from 'fastify-versioner'
import type { RequestInfo, ResponseInfo, UntypedBody } from 'fastify-versioner'

export class RenameUsersEndpoint extends VersionChange {
  description = 'POST /accounts was POST /users.'
  instructionsToMigrateToPreviousVersion = [endpoint('/accounts', ['post']).had({ path: '/users' })]

  @ConvertRequestToNextVersionFor('/accounts', ['POST'])
  addressToList (request: RequestInfo): void {
    const body: UntypedBody = request.body
    body.addresses = [body.address]
    delete body.address
  }

  @ConvertResponseToPreviousVersionFor('/accounts', ['POST'], { migrateHttpErrors: true })
  statusWas200 (response: ResponseInfo<{ id: string }>): void {
    const id: string = response.body.id
    response.headers['x-account-id'] = id
    response.statusCode = 200
  }
}

export const bundle: VersionBundle = new VersionBundle(
  new HeadVersion(),
  new Version('2001-01-01', RenameUsersEndpoint),
  new Version(new Date('2000-01-01'), { deprecatedAt: '2001-01-01' })
)
const error = new errorCodes.FST_VERSIONER_STRUCTURE('x')
export const code: 'FST_VERSIONER_STRUCTURE' = error.code
export const status: 500 = error.statusCode
`

const TS_CONSUMER_TYPEBOX = `import { Type, type Static } from '@sinclair/typebox'
import {
  VersionBundle, Version, HeadVersion, VersionChange, schema, enumeration, endpoint, generateVersionedSchemas,
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor
} from 'fastify-versioner'
import type { RequestInfo, ResponseInfo, SchemaLookup } from 'fastify-versioner'

const User = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) })

const Status = Type.Union([Type.Literal('active'), Type.Literal('archived')])

export class ReplaceAddressWithAddresses extends VersionChange {
  description = 'Users can now store several addresses.'
  instructionsToMigrateToPreviousVersion = [
    schema(User).field('addresses').had({ name: 'address', type: Type.String() }),
    schema(User).had({ description: 'A user with one address.' }),
    schema(User).formerField('legacyId').existedAs({ type: Type.Integer() }),
    schema(User).field('id').didntHave('minLength'),
    enumeration(Status).didntHave('archived'),
    endpoint('/users', ['POST']).had({ statusCode: 200 }),
    endpoint('/users/:id/addresses', ['GET']).didntExist
  ]

  @ConvertRequestToNextVersionFor(User)
  addressToList (request: RequestInfo): void {
    request.body.addresses = [request.body.address]
  }

  @ConvertResponseToPreviousVersionFor(User)
  addressesToSingleItem (response: ResponseInfo<Static<typeof User>>): void {
    const first: string | undefined = response.body.addresses[0]
    response.headers['x-first-address'] = first
  }
}

const bundle = new VersionBundle(new HeadVersion(), new Version('2001-01-01', ReplaceAddressWithAddresses), new Version('2000-01-01'))
const lookup: SchemaLookup = generateVersionedSchemas(bundle).get('2000-01-01')
export const oldUserKeys: string[] = Object.keys(lookup.get(User).properties)
`

/**
 * ESM TypeScript consumers (.mts, or any file of a "type": "module" project) get TypeBox's ESM declarations, and
 * TypeBox declares its Kind symbol separately in its ESM and CJS declarations (sinclairzx81/typebox#890). The
 * package therefore ships its declarations twice (dist/esm for the `import` condition), so that a schema built
 * with the ESM `Type` is a `TSchema` to the package.
 */

/** Must fail to type-check: proves the consumer sees real types (an \`any\` would accept all of this). */
const TS_CONSUMER_WITH_ERRORS = `import { Version, VersionChange, endpoint, ConvertRequestToNextVersionFor } from 'fastify-versioner'
import type { RequestInfo } from 'fastify-versioner'

export const version = new Version(42)
export const instruction = endpoint('/users', ['FETCH']).existed

export class TwoParameters extends VersionChange {
  description = 'A converter with two parameters.'
  instructionsToMigrateToPreviousVersion = []

  @ConvertRequestToNextVersionFor('/users', ['POST'])
  convert (request: RequestInfo, extra: string): void {
    request.body.extra = extra
  }
}
`

const TSCONFIG = {
  compilerOptions: {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    strict: true,
    noEmit: true,
    // A consumer's exports are nameable (a library, a composite project): the instruction types its classes infer too.
    declaration: true,
    skipLibCheck: false,
    types: ['node']
  }
}

/**
 * The consumers' TypeScript programs, by name (tsconfig.<name>.json): one per module mode, which also checks the
 * packed declarations (skipLibCheck: false). The package ships its declarations once per mode, and both copies
 * augment Fastify's types, so one program cannot hold both modes. Each program holds the consumers that must
 * type-check and the misuses that must be reported (`broken.mts`, `broken-app.js`): tsc reports every file's errors
 * with the file's name, so the tests tell them apart, and each declaration file is checked once. Both start in
 * before() and run concurrently, each in a child process (test/helpers/consumer-type-check.js, which checks the
 * declarations of this package only, not those of every dependency).
 */
const PROGRAMS = {
  cjs: ['core.cts', 'typebox.cts', 'tools.cts', 'app.js', 'broken-app.js'],
  esm: ['core.mts', 'typebox.mts', 'tools.mts', 'broken.mts'],
  node10: ['tools.ts'],
  bundler: ['tools.ts']
} as const
/**
 * Compiler options of a program besides TSCONFIG's: `node10` resolves modules as TypeScript did before package
 * exports (`module: commonjs` still defaults to it), where the tools entry's types come from `typesVersions`.
 */
const PROGRAM_OPTIONS: Partial<Record<keyof typeof PROGRAMS, Record<string, unknown>>> = {
  node10: { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true, skipLibCheck: true },
  // A bundled application (Vite, esbuild, webpack): the `import` condition's declarations.
  bundler: { module: 'esnext', moduleResolution: 'bundler', skipLibCheck: true }
}
/** The consumers that must be reported, each in the program of its module mode. */
const MISUSES = ['broken.mts', 'broken-app.js']
type ProgramName = keyof typeof PROGRAMS

let workDir = ''
let consumerDir = ''
let tarball = ''
let distBeforePack = true
const typeChecks = new Map<ProgramName, Promise<Run>>()
let typeTests: Promise<Run> = Promise.resolve({ code: 1, stdout: '', stderr: 'the type tests were not started' })

/**
 * A type test that must fail (`npm run test:types` does not see it): proves that tsd reads the packed declarations
 * and reports a wrong expectation.
 */
const FAILING_TYPE_TEST = `import { expectType } from 'tsd'
import { Version } from '../..'

expectType<number>(new Version('2000-01-01').value)
`

/**
 * tsd on test/types/*.test-d.ts in a copy of the packed package (outside node_modules, where TypeScript would report
 * nothing), with {@link FAILING_TYPE_TEST} beside them: their \`'../..'\` is the packed package. tsd runs with
 * test/helpers/type-tests-own-files.js, which spares it checking the declarations under node_modules, whose
 * diagnostics it drops unread.
 */
async function startTypeTests (tarball: string, dir: string): Promise<Run> {
  await mkdir(dir, { recursive: true })
  const extracted = await run('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1'], dir)
  if (extracted.code !== 0) throw new Error(`tar failed:\n${extracted.stderr}`)
  await cp(join(root, 'test', 'types'), join(dir, 'test', 'types'), { recursive: true })
  await writeFile(join(dir, 'test', 'types', 'must-fail.test-d.ts'), FAILING_TYPE_TEST)
  return run(process.execPath, ['--require', tsdOwnFiles, tsdCli, '--files', 'test/types/*.test-d.ts'], dir, 300_000)
}

/** tsd's errors by file: `file:line:column` headers, each followed by its `✖ line:column message` lines. */
function typeTestErrors (output: string): Map<string, string[]> {
  const errors = new Map<string, string[]>()
  let file = ''
  for (const line of output.split('\n')) {
    const header = /^\s*(test\/types\/[\w.-]+\.ts):\d+:\d+\s*$/.exec(line)
    if (header !== null) file = header[1]
    else if (/^\s*[✖×]\s+\d+:\d+/.test(line)) errors.set(file, [...errors.get(file) ?? [], line.trim()])
  }
  return errors
}

/** The outcome of the type check of tsconfig.<name>.json in the consumer folder (as `tsc -p … --listFiles` prints it). */
function typeCheck (name: ProgramName): Promise<Run> {
  const checked = typeChecks.get(name)
  if (checked === undefined) throw new Error(`the type check ${name} was not started`)
  return checked
}

/** The errors tsc reported, each line `file(line,column): error TS…`, of the given files or (`files` omitted) of the others. */
function errorsOf (checked: Run, files?: readonly string[]): string[] {
  const errors = checked.stdout.split('\n').filter((line) => line.includes('error TS'))
  const inFiles = (line: string): boolean => (files ?? MISUSES).some((file) => line.startsWith(`${file}(`))
  return errors.filter((line) => files === undefined ? !inFiles(line) : inFiles(line))
}

t.before(async () => {
  const packed = await packedPackage()
  tarball = packed.tarball
  distBeforePack = packed.distBeforePack
  await mkdir(join(root, 'test', '.tmp'), { recursive: true })
  workDir = await mkdtemp(join(root, 'test', '.tmp', 'package-'))
  consumerDir = join(workDir, 'consumer')
  await installPacked(packed, consumerDir)
  await writeFile(join(consumerDir, 'consumer.mjs'), ESM_CONSUMER)
  await writeFile(join(consumerDir, 'consumer.cjs'), CJS_CONSUMER)
  await writeFile(join(consumerDir, 'server.cjs'), SERVER_CONSUMER)
  await writeFile(join(consumerDir, 'app.js'), CHECKJS_CONSUMER)
  await writeFile(join(consumerDir, 'broken-app.js'), CHECKJS_CONSUMER_WITH_ERRORS)
  await writeFile(join(consumerDir, 'load.cjs'), LOAD_CJS)
  await writeFile(join(consumerDir, 'load.mjs'), LOAD_ESM)
  const typescript: Record<string, string> = {
    'core.mts': TS_CONSUMER_CORE,
    'core.cts': TS_CONSUMER_CORE,
    'typebox.cts': TS_CONSUMER_TYPEBOX,
    'typebox.mts': TS_CONSUMER_TYPEBOX,
    'broken.mts': TS_CONSUMER_WITH_ERRORS,
    'tools.cts': TS_CONSUMER_TOOLS,
    'tools.mts': TS_CONSUMER_TOOLS,
    'tools.ts': TS_CONSUMER_TOOLS
  }
  for (const [file, text] of Object.entries(typescript)) await writeFile(join(consumerDir, file), text)
  for (const [name, files] of Object.entries(PROGRAMS) as Array<[ProgramName, typeof PROGRAMS[ProgramName]]>) {
    const javascript = files.some((file) => file.endsWith('.js')) ? { allowJs: true, checkJs: true } : {}
    const config = { compilerOptions: { ...TSCONFIG.compilerOptions, ...javascript, ...PROGRAM_OPTIONS[name] }, files }
    await writeFile(join(consumerDir, `tsconfig.${name}.json`), JSON.stringify(config, null, 2))
  }
  for (const name of Object.keys(PROGRAMS) as ProgramName[]) {
    typeChecks.set(name, run(process.execPath, [typeCheckScript, `tsconfig.${name}.json`], consumerDir, 300_000))
  }
  typeTests = startTypeTests(tarball, join(workDir, 'type-tests'))
})

t.teardown(async () => {
  if (workDir !== '') await rm(workDir, { recursive: true, force: true })
})

function checkScenario (t: tap.Test, result: Record<string, unknown>, format: string): void {
  t.same(result.versions, ['2001-01-01', '2000-01-01'], `${format}: the bundle's versions, newest first`)
  t.same(result.oldProperties, ['id', 'address'], `${format}: 2000-01-01 has address instead of addresses`)
  t.same(result.oldRequired, ['id', 'address'], `${format}: the renamed field stays required`)
  t.not(result.oldId, 'User', `${format}: the old schema has its own $id`)
  t.type(result.oldId, 'string', `${format}: the old schema keeps an $id`)
  t.same(result.headUnchanged, ['id', 'addresses'], `${format}: the HEAD schema is not mutated`)
  t.equal(result.latestIsHead, true, `${format}: an unchanged version shares the HEAD schema`)
  t.equal(result.errorCode, 'FST_VERSIONER_STRUCTURE', `${format}: errors are errorCodes classes with their code`)
  const names = result.exportNames as string[]
  for (const name of [...NAMED, ...ALSO_EXPORTED]) t.ok(names.includes(name), `${format}: exports ${name}`)
}

function parseOutput (t: tap.Test, output: Run): Record<string, unknown> {
  t.equal(output.code, 0, 'the consumer exits with 0')
  t.equal(output.stderr.replace(/^npm warn .*\n/gm, ''), '', 'the consumer writes nothing to stderr')
  const lines = output.stdout.trim().split('\n')
  t.equal(lines.length, 1, 'the consumer prints one line')
  return JSON.parse(lines[0] ?? '{}') as Record<string, unknown>
}

/** What LOADED reports. */
interface Loaded { own: number, serving: number, tools: string[], libraries: string[] }

let esmExports: string[] = []
let cjsExports: string[] = []

t.test('an ESM consumer imports the packed package by name and generates schemas', async (t) => {
  const result = parseOutput(t, await run(process.execPath, ['consumer.mjs'], consumerDir))
  checkScenario(t, result, 'ESM')
  t.equal(result.resolved, `file://${join(consumerDir, 'node_modules', 'fastify-versioner', 'dist', 'plugin.js')}`,
    'fastify-versioner resolves to the packed copy, not to the repository')
  t.equal(result.sameModuleAsRequire, true, 'import and require share one module instance (no dual-package hazard)')
  esmExports = result.exportNames as string[]
})

t.test('a CommonJS consumer requires the packed package and generates schemas', async (t) => {
  const result = parseOutput(t, await run(process.execPath, ['consumer.cjs'], consumerDir))
  checkScenario(t, result, 'CJS')
  t.equal(result.resolved, join(consumerDir, 'node_modules', 'fastify-versioner', 'dist', 'plugin.js'),
    'fastify-versioner resolves to the packed copy, not to the repository')
  cjsExports = result.exportNames as string[]
})

t.test('ESM sees every named export that CommonJS sees', async (t) => {
  t.ok(cjsExports.length > NAMED.length, 'the CommonJS export list was collected')
  t.same(esmExports, cjsExports, 'cjs-module-lexer detects every export, including `export *` re-exports')
})

t.test('a TypeScript consumer type-checks with module nodenext, as .mts and .cts', async (t) => {
  const programs = [
    { name: 'cjs', declarations: join('dist', 'plugin.d.ts') },
    { name: 'esm', declarations: join('dist', 'esm', 'plugin.d.ts') }
  ] as const
  for (const { name, declarations } of programs) {
    const program = { config: `tsconfig.${name}.json`, files: PROGRAMS[name], declarations }
    const checked = await typeCheck(name)
    const lines = checked.stdout.split('\n')
    t.same(errorsOf(checked), [], `${program.config}: tsc reports no errors but the misuses' (none in the shipped .d.ts files)`)
    t.ok(errorsOf(checked, MISUSES).length > 0, `${program.config}: tsc reports its misuse (the errors were read)`)
    for (const file of program.files) t.ok(lines.includes(join(consumerDir, file)), `${file} was checked`)
    t.ok(lines.includes(join(consumerDir, 'node_modules', 'fastify-versioner', program.declarations)),
      `${program.config}: the types come from the packed ${program.declarations}`)
    t.same(lines.filter((file) => file.startsWith(root) && !file.startsWith(consumerDir) && !file.includes('/node_modules/')), [],
      `${program.config}: no file of the repository outside node_modules is compiled`)
  }
})

t.test('the main entry loads no module of the tools and none of their libraries (require and import); the tools entry verifies', async (t) => {
  for (const [file, format] of [['load.cjs', 'require'], ['load.mjs', 'import']]) {
    const output = parseOutput(t, await run(process.execPath, [file], consumerDir)) as {
      main: Loaded, withTools: Loaded, afterVerify: Loaded, findings: string[], toolsNames?: string[]
    }
    // The controls first: what is measured is seen (the serving modules, then the tools and a library once loaded).
    t.ok(output.main.serving > 10, `${format}: the main entry's serving modules are seen loaded (${output.main.serving})`)
    t.same(output.main.tools, [], `${format} 'fastify-versioner': no module of the tools`)
    t.same(output.main.libraries, [], `${format} 'fastify-versioner': none of the tools' libraries`)
    t.ok(output.withTools.tools.includes('tools.js') && output.withTools.tools.includes('lib/tools/verify.js'),
      `${format} 'fastify-versioner/tools': its modules are seen loaded`)
    t.same(output.withTools.libraries, [], `${format} 'fastify-versioner/tools': its libraries wait until a tool needs one`)
    t.same(output.afterVerify.libraries, ['fast-check', 'pure-rand'], `${format}: verify loaded fast-check`)
    t.equal(output.findings.length, 1, `${format}: verify(app) from the packed tools entry finds the rename without a converter`)
    t.match(output.findings[0], /^GET \/things\/:id \(2000-01-01\): response 200\/name .*RenameNameToLabel \(2001-01-01\), no converter ran/)
  }
})

t.test('a TypeScript consumer of fastify-versioner/tools type-checks: nodenext (.cts, .mts), node10 (typesVersions) and bundler', async (t) => {
  for (const [name, file, declarations] of [
    ['cjs', 'tools.cts', join('dist', 'tools.d.ts')],
    ['esm', 'tools.mts', join('dist', 'esm', 'tools.d.ts')],
    ['node10', 'tools.ts', join('dist', 'tools.d.ts')],
    ['bundler', 'tools.ts', join('dist', 'esm', 'tools.d.ts')]
  ] as const) {
    const checked = await typeCheck(name)
    const lines = checked.stdout.split('\n')
    t.ok(lines.includes(join(consumerDir, file)), `${file} was checked`)
    t.same(errorsOf(checked, [file]), [], `${file}: no error (the misuse it expects is reported)`)
    t.ok(lines.includes(join(consumerDir, 'node_modules', 'fastify-versioner', declarations)), `${file}: the tools' types come from the packed ${declarations}`)
  }
  t.equal((await typeCheck('node10')).code, 0, 'the node10 program compiles')
  t.equal((await typeCheck('bundler')).code, 0, 'the bundler program compiles')
})

t.test('an ESM TypeScript consumer passes TypeBox schemas to the package', async (t) => {
  const checked = await typeCheck('esm')
  t.ok(checked.stdout.split('\n').includes(join(consumerDir, 'typebox.mts')), 'typebox.mts was checked')
  t.same(errorsOf(checked, ['typebox.mts']), [], 'tsc reports no errors in typebox.mts')
})

t.test('a TypeScript consumer gets real types: misuse is reported', async (t) => {
  const checked = await typeCheck('esm')
  t.not(checked.code, 0, 'tsc fails')
  const errors = errorsOf(checked, ['broken.mts'])
  t.match(errors[0], /^broken\.mts\(4,\d+\): error TS2345: .*'number'.*'string \| Date'/, 'new Version(42) is rejected')
  t.match(errors[1], /^broken\.mts\(5,\d+\): error TS2345: Argument of type '"FETCH"\[\]'/, "endpoint(path, ['FETCH']) is rejected")
  t.match(errors[2], /^broken\.mts\(11,\d+\): error TS1241: /, 'a converter with two parameters is rejected')
  t.equal(errors.length, 3, 'nothing else is reported')
})

t.test('npm pack from a clean copy builds the package itself (prepare runs: no ignore-scripts in .npmrc)', async (t) => {
  t.equal(distBeforePack, false, 'the copy had no dist/ before npm pack')
  const npmrc = await readFile(join(root, '.npmrc'), 'utf8')
  t.notMatch(npmrc, /^\s*ignore-scripts\s*=\s*true/m, '.npmrc does not stop prepare')
  const readme = await readFile(join(root, 'README.md'), 'utf8')
  const named = [...readme.matchAll(/fastify-versioner-[\w.-]+?\.tgz/g)].map((match) => match[0])
  t.ok(named.length > 0, "the README's install section names the tarball to install")
  for (const name of named) t.equal(name, basename(tarball), 'the README names the tarball npm pack writes')
  const listed = await run('tar', ['-tzf', tarball], workDir)
  const files = listed.stdout.trim().split('\n').map((line) => line.replace(/^package\//, ''))
  for (const file of ['dist/plugin.js', 'dist/plugin.d.ts', 'dist/esm/plugin.d.ts', 'dist/esm/package.json', 'dist/lib/docs/assets.js',
    'dist/tools.js', 'dist/tools.d.ts', 'dist/esm/tools.d.ts',
    'dist/vendor/redoc/redoc.standalone.js', 'dist/vendor/redoc/LICENSE', 'dist/vendor/redoc/redoc.standalone.js.LICENSE.txt']) {
    t.ok(files.includes(file), `the tarball holds ${file}`)
  }
})

t.test('JavaScript with checkJs registers require(\'fastify-versioner\') itself: it type-checks and runs', async (t) => {
  const checked = await typeCheck('cjs')
  t.ok(checked.stdout.split('\n').includes(join(consumerDir, 'app.js')), 'app.js was checked (with the CommonJS consumers)')
  t.same(errorsOf(checked, ['app.js']), [], 'tsc reports no errors in app.js')
  const output = parseOutput(t, await run(process.execPath, ['app.js'], consumerDir))
  t.same(output, { status: 200, version: '2000-01-01' }, 'the plugin registered as require() returns it serves its documents')
  t.not(checked.code, 0, 'tsc fails on broken-app.js')
  t.match(errorsOf(checked, ['broken-app.js']).join('\n'), /broken-app\.js\(4,\d+\): error TS2769: /, 'wrong options are reported: the types are real')
  t.match(checked.stdout, "Type 'string' is not assignable to type 'VersionBundle'")
})

t.test('the packed package serves its docs pages and assets, ReDoc included', async (t) => {
  const output = parseOutput(t, await run(process.execPath, ['server.cjs'], consumerDir))
  for (const [url, [status, size]] of Object.entries(output as Record<string, [number, number]>)) {
    t.equal(status, 200, `${url}: 200`)
    t.ok(size > 100, `${url}: ${size} bytes`)
  }
  t.equal(Object.keys(output).length, 7, 'every URL was asked')
})

t.test('the Node.js versions engines claims require ES modules, and no dependency of the package excludes one (no EBADENGINE warning on install)', async (t) => {
  const engines = (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node
  // Fastify's cookie 2 is an ES module: below these, inject() and the CLI fail with ERR_REQUIRE_ESM (decision 0212).
  t.ok(semver.subset(engines, '^20.19.0 || >=22.12.0'), `engines.node ${engines} claims only Node.js versions that require ES modules`)
  // The lowest version of each line the range allows (20.19.0, 22.12.0).
  const lowest = new semver.Range(engines).set.map((comparators) => semver.minVersion(comparators.map(String).join(' '))?.version ?? '?')
  t.ok(lowest.includes('20.19.0'), `the range's lowest versions: ${lowest.join(', ')}`)
  const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean, devOptional?: boolean, peer?: boolean, version?: string, engines?: { node?: string } | string[] }>
  }
  t.equal((lock.packages[''].engines as { node?: string } | undefined)?.node, engines, 'the lockfile has the same range')
  const runtime = Object.entries(lock.packages).filter(([path, entry]) => path !== '' && entry.dev !== true && entry.devOptional !== true)
  t.ok(runtime.some(([path]) => path === 'node_modules/@fastify/swagger-ui'), 'the runtime dependencies are read from the lockfile')
  const excluded = runtime.flatMap(([path, entry]) => {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node
    return range === undefined ? [] : lowest.filter((version) => !semver.satisfies(version, range)).map((version) => `${path}@${entry.version ?? '?'}: node ${range}, not ${version}`)
  })
  t.same(excluded, [], `every runtime dependency accepts ${lowest.join(' and ')}`)
})

t.test('no package in the lockfile has an install script unless listed (installs run none: npm ci --ignore-scripts)', async (t) => {
  const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> }
  const withScripts = Object.entries(lock.packages).filter(([, entry]) => entry.hasInstallScript === true).map(([path]) => path)
  // esbuild (via tsx, dev only): its postinstall only checks its platform binary, which its optional dependency provides.
  // @scarf/scarf (via Spectral's packages, dev only): its postinstall reports the install to an analytics service; never
  // run (--ignore-scripts), and nothing needs it.
  // msgpackr-extract (via bullmq's msgpackr, dev only, for the webhook delivery example): its install script only looks
  // for its platform binary (an optional dependency provides it) and would compile one otherwise; msgpackr works
  // without it.
  t.same(withScripts, ['node_modules/@scarf/scarf', 'node_modules/esbuild', 'node_modules/msgpackr-extract'], 'only the reviewed ones')
  t.match(await readFile(join(root, '.ci', 'run'), 'utf8'), /^npm ci --ignore-scripts$/m, 'CI installs without running them')
})

t.test('the type tests (test/types) pass against the packed declarations; a wrong expectation is reported', async (t) => {
  const tested = await typeTests
  const output = `${tested.stdout}${tested.stderr}`
  const errors = typeTestErrors(output)
  t.same([...errors.keys()], ['test/types/must-fail.test-d.ts'], 'tsd reports errors in the failing type test only', { output })
  const failing = errors.get('test/types/must-fail.test-d.ts') ?? []
  t.equal(failing.length, 1, 'one error in it')
  t.match(failing[0], /^[✖×]\s+4:\d+\s+Argument of type '?string'? is not assignable to parameter of type '?number'?/, 'its wrong expectation, at its line')
  t.equal(tested.code, 1, 'tsd exits 1')
})

t.test('the tarball holds the built package and nothing else', async (t) => {
  const listed = await run('tar', ['-tzf', tarball], workDir)
  t.equal(listed.code, 0, 'tar lists the tarball')
  const files = listed.stdout.trim().split('\n').map((line) => line.replace(/^package\//, ''))
  for (const file of ['package.json', 'dist/plugin.js', 'dist/plugin.d.ts', 'dist/lib/describe/versions.js', 'dist/lib/describe/versions.d.ts']) {
    t.ok(files.includes(file), `contains ${file}`)
  }
  t.same(files.filter((file) => file.startsWith('test/')), [], 'no tests')
  t.same(files.filter((file) => /\.(c|m)?ts$/.test(file) && !/\.d\.(c|m)?ts$/.test(file)), [], 'no TypeScript sources (lib/*.ts, plugin.ts)')
  t.same(files.filter((file) => file.endsWith('.tsbuildinfo')), [], 'no .tsbuildinfo')
  t.same(files.filter((file) => !file.startsWith('dist/') && !/^(package\.json|README\.md|LICENSE(\.md)?|CHANGELOG\.md)$/.test(file)), [],
    'only dist/, package.json and the usual documents')
})

t.test("the shipped declarations leak no `any` except UntypedBody's", async (t) => {
  const dist = join(consumerDir, 'node_modules', 'fastify-versioner', 'dist')
  const found: string[] = []
  const visit = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) await visit(path)
      else if (entry.name.endsWith('.d.ts')) {
        const code = (await readFile(path, 'utf8')).replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')
        for (const line of code.split('\n')) if (/\bany\b/.test(line)) found.push(`${relative(dist, path)}: ${line.trim()}`)
      }
    }
  }
  await visit(dist)
  t.same(found, [
    'esm/lib/describe/converter-info.d.ts: export type UntypedBody = Record<string, any>;',
    'lib/describe/converter-info.d.ts: export type UntypedBody = Record<string, any>;'
  ], 'only the documented UntypedBody (in the CommonJS and the ESM declarations)')
})

/** A JavaScript application using the packed package, for its command: one versioned route with a renamed field. */
const JS_APP = `'use strict'
const Fastify = require('fastify')
const { Type } = require('@sinclair/typebox')
const { fastifyVersioner, versioned, VersionBundle, HeadVersion, Version, VersionChange, schema } = require('fastify-versioner')

const Thing = Type.Object({ id: Type.String(), label: Type.String() }, { $id: 'Thing' })
class RenameNameToLabel extends VersionChange {
  description = 'name became label.'
  instructionsToMigrateToPreviousVersion = [schema(Thing).field('label').had({ name: 'name' })]
}
const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameNameToLabel), new Version('2000-01-01'))

module.exports = async function build () {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions })
  await app.register(versioned(async (api) => {
    api.get('/things/:id', { schema: { response: { 200: Thing } } }, async (request) => ({ id: request.params.id, label: 'a' }))
  }))
  return app
}
`

/** Compares the exported files with what the app serves. */
const JS_COMPARE = `'use strict'
const { readFileSync } = require('node:fs')
const { isDeepStrictEqual } = require('node:util')
require('./app.cjs')().then(async (app) => {
  const same = {}
  for (const version of ['2001-01-01', '2000-01-01', 'unversioned']) {
    const served = await app.inject({ url: '/openapi.json?version=' + version })
    same[version] = isDeepStrictEqual(JSON.parse(readFileSync('openapi/' + version + '.json', 'utf8')), JSON.parse(served.body))
  }
  await app.close()
  console.log(JSON.stringify(same))
})
`

t.test('the packed bin (fastify-versioner) exports the documents of a JavaScript app', async (t) => {
  const installed = join(consumerDir, 'node_modules', 'fastify-versioner')
  const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as { bin?: Record<string, string> }
  const binFile = manifest.bin?.['fastify-versioner']
  t.type(binFile, 'string', 'package.json names the bin fastify-versioner')
  const binPath = join(installed, binFile ?? 'missing')
  t.match(await readFile(binPath, 'utf8'), /^#!\/usr\/bin\/env node\n/, 'the bin starts with a node shebang')
  const version = await run(process.execPath, [binPath, '--version'], consumerDir)
  t.equal(version.stdout, `${String((manifest as { version?: unknown }).version)}\n`, '--version prints the installed package\'s version')
  await writeFile(join(consumerDir, 'app.cjs'), JS_APP)
  await writeFile(join(consumerDir, 'compare.cjs'), JS_COMPARE)
  const exported = await run(process.execPath, [binPath, 'export', 'app.cjs', '--out', 'openapi'], consumerDir)
  t.equal(exported.code, 0, exported.stderr)
  t.equal(exported.stdout, 'wrote openapi/2001-01-01.json\nwrote openapi/2000-01-01.json\nwrote openapi/unversioned.json\n')
  const compared = await run(process.execPath, ['compare.cjs'], consumerDir)
  t.same(JSON.parse(compared.stdout), { '2001-01-01': true, '2000-01-01': true, unversioned: true }, 'each file holds the document the app serves')
  const checked = await run(process.execPath, [binPath, 'check', 'app.cjs', '--against', 'openapi'], consumerDir)
  t.equal(checked.code, 0, checked.stderr)
  const verified = await run(process.execPath, [binPath, 'verify', 'app.cjs'], consumerDir)
  t.equal(verified.code, 1, 'the rename without converters is found')
  t.match(verified.stderr, /^finding: GET \/things\/:id \(2000-01-01\): response 200\/name .*RenameNameToLabel \(2001-01-01\), no converter ran/m)
})

/** The app of JS_APP as TypeScript, for the module forms teams write (`export default`, `export =`). */
const TS_APP = `import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned, VersionBundle, HeadVersion, Version, VersionChange, schema } from 'fastify-versioner'

const Thing = Type.Object({ id: Type.String(), label: Type.String() }, { $id: 'Thing' })
class RenameNameToLabel extends VersionChange {
  description = 'name became label.'
  instructionsToMigrateToPreviousVersion = [schema(Thing).field('label').had({ name: 'name' })]
}
const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameNameToLabel), new Version('2000-01-01'))

async function build () {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions })
  await app.register(versioned(async (api) => {
    api.get<{ Params: { id: string } }>('/things/:id', { schema: { response: { 200: Thing } } }, async (request) => ({ id: request.params.id, label: 'a' }))
  }))
  return app
}
`

/** TS_APP as JavaScript (ESM). */
const JS_OF_TS_APP = TS_APP.replace('<{ Params: { id: string } }>', '')

t.test('the packed bin loads the app module forms teams write, from another folder, paths with spaces (a .cts app failed)', async (t) => {
  const binPath = join(consumerDir, 'node_modules', 'fastify-versioner', 'dist', 'lib', 'tools', 'bin.js')
  const forms = join(consumerDir, 'app forms')
  await mkdir(join(forms, 'module'), { recursive: true })
  await writeFile(join(forms, 'module', 'package.json'), JSON.stringify({ type: 'module' }))
  // A project of its own (a monorepo's package), whose tsconfig.json maps a path alias: tsx read the tsconfig.json
  // of the working folder, where the alias is unknown.
  await mkdir(join(forms, 'aliased', 'src', 'lib'), { recursive: true })
  await writeFile(join(forms, 'aliased', 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, paths: { '@lib/*': ['./src/lib/*'] } } }))
  await writeFile(join(forms, 'aliased', 'src', 'lib', 'label.ts'), "export const label: string = 'a'\n")
  const files: Record<string, string> = {
    // CommonJS TypeScript: Node 20 imported it through the ESM loader's CommonJS bridge, which failed in Ajv.
    'app.cts': `${TS_APP}export default build\n`,
    'assigned.cts': `${TS_APP}export = build\n`,
    'app.mts': `${TS_APP}export default build\n`,
    // An ESM package's .js (and .ts), the factory as the named export build.
    'module/app.js': `${JS_OF_TS_APP}export { build }\n`,
    'module/app.ts': `${TS_APP}export default build\n`,
    'aliased/src/app.ts': `import { label } from '@lib/label'\n${TS_APP.replace("label: 'a'", 'label')}export default build\n`,
    // The instance itself, not readied: the command readies it.
    'instance.mjs': `${JS_OF_TS_APP}export default await build()\n`
  }
  for (const [file, text] of Object.entries(files)) await writeFile(join(forms, file), text)
  // As in a user's shell: without the NODE_OPTIONS tap's process tracking adds to every child process (its require
  // hook claims .cts files before tsx can), which `env -u` drops for the command's process.
  const bin = (args: string[], cwd: string): Promise<Run> => run('env', ['-u', 'NODE_OPTIONS', process.execPath, binPath, ...args], cwd)
  const out = join(forms, 'new folder', 'openapi')
  const exported = await bin(['export', join('app forms', 'module', 'app.js'), '--out', out], consumerDir)
  t.equal(exported.code, 0, exported.stderr)
  t.equal(exported.stdout, ['2001-01-01', '2000-01-01', 'unversioned'].map((version) => `wrote ${join(out, `${version}.json`)}\n`).join(''),
    '--out into a folder that does not exist yet')
  const checked = await Promise.all(Object.keys(files).map(async (file) => [file, await bin(['check', join(forms, file), '--against', out], workDir)] as const))
  for (const [file, result] of checked) {
    t.equal(result.code, 0, `${file}: ${result.stderr}`)
    t.equal(result.stdout, 'check: no breaking change in 3 saved version(s) (2000-01-01, 2001-01-01, unversioned); 0 note(s).\n', file)
  }
})

/** The shared package of a monorepo (docs/adopting.md): a bundle of one version change, built with its copy. */
const SHARED_PACKAGE = `'use strict'
const { Type } = require('@sinclair/typebox')
const { VersionBundle, Version, VersionChange, schema } = require('fastify-versioner')
const Invoice = Type.Object({ id: Type.String(), totalCents: Type.Integer() }, { $id: 'Invoice' })
class TotalInCents extends VersionChange {
  description = 'An invoice total is in cents.'
  instructionsToMigrateToPreviousVersion = [schema(Invoice).field('totalCents').had({ name: 'total', type: Type.Number() })]
}
module.exports = { Invoice, versions: new VersionBundle(new Version('2025-01-01', TotalInCents), new Version('2024-01-01')) }
`

/** A service of the monorepo: the plugin of its copy, with the shared package's bundle. */
const SERVICE = `'use strict'
const Fastify = require('fastify')
const { fastifyVersioner, versioned } = require('fastify-versioner')
const { Invoice, versions } = require('@acme/api-versions')
const app = Fastify()
app.register(fastifyVersioner, { versions })
app.register(versioned(async (api) => { api.get('/invoice', { schema: { response: { 200: Invoice } } }, async () => ({ id: 'in_1', totalCents: 1250 })) }))
app.inject({ url: '/invoice', headers: { 'x-api-version': '2025-01-01' } })
  .then((response) => console.log(JSON.stringify({ status: response.statusCode, body: response.json() })),
    (error) => console.log(JSON.stringify({ code: error.code, message: error.message })))
`

t.test('a monorepo as docs/adopting.md lays it out: the shared package\'s peerDependencies give one copy; a second copy is refused saying how to install one', async (t) => {
  const doc = readText(join(root, 'docs', 'adopting.md'))
  const section = doc.slice(doc.indexOf('## Monorepos and shared version changes'))
  const manifest = codeBlocks('docs/adopting.md', section).find((block) => block.lang === 'json')
  if (manifest === undefined) return t.fail('no package.json of the shared package in docs/adopting.md')
  const shared = JSON.parse(manifest.code) as { name: string, peerDependencies?: Record<string, string>, dependencies?: Record<string, string> }
  t.strictSame(Object.keys(shared.peerDependencies ?? {}).sort(), ['@sinclair/typebox', 'fastify-versioner'], 'the documented package.json lists both as peers')
  t.equal(shared.dependencies, undefined, 'and neither as a dependency (which installs a copy of its own)')
  t.ok(semver.satisfies(JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).version, shared.peerDependencies?.['fastify-versioner'] ?? ''), 'its range holds this version')
  // The workspace as npm installs it: one copy at the root, the shared package (a link) without node_modules of its own.
  const monorepo = join(workDir, 'monorepo')
  const packed = { tarball, distBeforePack }
  await installPacked(packed, monorepo)
  const sharedDir = join(monorepo, 'node_modules', ...shared.name.split('/'))
  await mkdir(sharedDir, { recursive: true })
  await writeFile(join(sharedDir, 'package.json'), JSON.stringify({ ...shared, type: 'commonjs', main: 'index.js' }))
  await writeFile(join(sharedDir, 'index.js'), SHARED_PACKAGE)
  await writeFile(join(monorepo, 'service.cjs'), SERVICE)
  const one = await run(process.execPath, ['service.cjs'], monorepo)
  t.strictSame(JSON.parse(one.stdout), { status: 200, body: { id: 'in_1', totalCents: 1250 } }, one.stderr)
  // A dependencies entry of another range (or install-strategy=nested) installs a second copy under the shared package.
  await installPacked(packed, sharedDir)
  await writeFile(join(sharedDir, 'package.json'), JSON.stringify({ ...shared, type: 'commonjs', main: 'index.js' }))
  const two = await run(process.execPath, ['service.cjs'], monorepo)
  const refused = JSON.parse(two.stdout) as { code: string, message: string }
  t.equal(refused.code, 'FST_VERSIONER_INVALID_OPTION', two.stderr)
  t.match(refused.message, /got a VersionBundle of another copy of fastify-versioner: .*`npm ls fastify-versioner`.*peerDependencies.*`npm dedupe`/)
})
