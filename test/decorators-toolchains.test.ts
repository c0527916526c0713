/*
 * The same version change, written with decorator syntax (test/fixtures/decorators/change.ts), must be read
 * the same way under every toolchain: tsx and tsc, each with standard (TC39) decorators and with
 * experimentalDecorators. As in an application, the toolchain compiles the application's code only, and the
 * plugin is the published package: the fixture is copied into a consumer folder where the packed package is
 * installed (test/helpers/packed-package.ts: the pack test/package.test.ts also uses), its imports of the plugin
 * pointed at it. Each case runs the fixture in a child process and compares its JSON summary.
 */
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import tap, { test } from 'tap'
import { installPacked, packedPackage } from './helpers/packed-package'

const root = join(__dirname, '..')
const fixtureDir = join(__dirname, 'fixtures', 'decorators')
const tmpRoot = join(__dirname, '.tmp')
const tsc = join(root, 'node_modules', '.bin', 'tsc')

type Mode = 'tc39' | 'legacy'

interface Outcome {
  error: (Error & { code?: unknown, signal?: unknown }) | null
  stdout: string
  stderr: string
}

// Packing (once, shared with the package test) takes up to a minute on a loaded machine; compiling and running
// take a few seconds each, and the cases run concurrently (tsc's two modes in one build).
tap.setTimeout(600_000)

/**
 * The environment of the children: without tap's loaders, so that only the toolchain under test compiles, and
 * outside coverage (tap's processinfo still tracks them): the packed dist/ is not the code coverage measures.
 */
function childEnv (extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra, _TAPJS_PROCESSINFO_COVERAGE_: '0' }
  delete env.NODE_OPTIONS
  for (const key of Object.keys(env)) {
    if (key.startsWith('TS_NODE_') || (key.startsWith('TSX_') && !(key in extra))) delete env[key]
  }
  return env
}

function run (file: string, args: string[], env: NodeJS.ProcessEnv, timeout = 90_000): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: root, env, timeout, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ error, stdout: String(stdout), stderr: String(stderr) })
    })
  })
}

/**
 * The fixture as an application's file: the plugin imported by its package name, the internals it reads (the
 * converters as the plugin sees them) from the package's dist/. It sits in `src/`, and tsc writes it to
 * `out-<mode>/`: both one folder below the consumer, so the relative imports hold in both.
 */
function asConsumerFile (text: string): string {
  const rewritten = text.replace(/from '\.\.\/\.\.\/\.\.\/plugin'/g, "from 'fastify-versioner'")
    .replace(/from '\.\.\/\.\.\/\.\.\/lib\//g, "from '../node_modules/fastify-versioner/dist/lib/")
  if (rewritten.includes("'../../../")) throw new Error('test/fixtures/decorators/change.ts imports a file this test does not point at the package')
  return rewritten
}

/**
 * A consumer folder with the packed package installed, the fixture in `src/change.ts`, and a tsconfig per mode
 * (the fixture's, whose options are the repository's with the decorators of that mode).
 */
async function consumer (): Promise<string> {
  const packed = await packedPackage()
  await mkdir(tmpRoot, { recursive: true })
  const dir = await mkdtemp(join(tmpRoot, 'decorators-'))
  await installPacked(packed, dir)
  await mkdir(join(dir, 'src'))
  await writeFile(join(dir, 'src', 'change.ts'), asConsumerFile(await readFile(join(fixtureDir, 'change.ts'), 'utf8')))
  for (const mode of ['tc39', 'legacy'] as const) {
    const config = { extends: join(fixtureDir, `tsconfig.${mode}.json`), compilerOptions: { rootDir: 'src', outDir: `out-${mode}` }, files: ['src/change.ts'] }
    await writeFile(join(dir, `tsconfig.${mode}.json`), JSON.stringify(config, null, 2))
  }
  return dir
}

/** (a), (b): tsx, loaded with `node --import tsx`; tsx 4 takes the tsconfig from TSX_TSCONFIG_PATH there. */
function runTsx (dir: string, mode: Mode): Promise<Outcome> {
  return run(process.execPath, ['--import', 'tsx', join(dir, 'src', 'change.ts')],
    childEnv({ TSX_TSCONFIG_PATH: join(dir, `tsconfig.${mode}.json`), TSX_DISABLE_CACHE: '1' }))
}

/**
 * (c), (d): tsc into `out-<mode>/` of the consumer folder, both modes in one build (`tsc -b` with both projects: one
 * process reads TypeScript's libraries and the package's declarations once, where two `tsc -p` read them twice).
 */
function compileBoth (dir: string): Promise<Outcome> {
  return run(tsc, ['-b', join(dir, 'tsconfig.tc39.json'), join(dir, 'tsconfig.legacy.json')], childEnv({}))
}

/** Then plain node on one mode's output: a failed build is the outcome of both modes. */
async function runTsc (dir: string, compiled: Outcome, mode: Mode): Promise<Outcome & { emitted: string }> {
  if (compiled.error !== null) return { ...compiled, emitted: '' }
  const output = join(dir, `out-${mode}`, 'change.js')
  const emitted = await readFile(output, 'utf8')
  return { ...await run(process.execPath, [output], childEnv({})), emitted }
}

const prepared = consumer()
const compiled = prepared.then(compileBoth)
const outcomes = {
  tsxTc39: prepared.then((dir) => runTsx(dir, 'tc39')),
  tsxLegacy: prepared.then((dir) => runTsx(dir, 'legacy')),
  tscTc39: Promise.all([prepared, compiled]).then(([dir, outcome]) => runTsc(dir, outcome, 'tc39')),
  tscLegacy: Promise.all([prepared, compiled]).then(([dir, outcome]) => runTsc(dir, outcome, 'legacy'))
}
tap.teardown(async () => {
  await Promise.allSettled(Object.values(outcomes))
  await rm(await prepared, { recursive: true, force: true })
})

const byPathDescription = 'Users can now store several addresses.'
const expectedConverters = [
  {
    direction: 'request',
    methodName: 'addressToList',
    isStatic: false,
    target: { kind: 'schema', schemas: ['UserCreateRequest'] },
    checkUsage: true,
    migrateHttpErrors: false,
    result: { addresses: ['1 Main St'] }
  },
  {
    direction: 'request',
    methodName: 'markByPath',
    isStatic: false,
    target: { kind: 'path', path: '/users/:id', methods: ['PATCH', 'PUT'] },
    checkUsage: true,
    migrateHttpErrors: false,
    result: { address: '1 Main St', byPath: byPathDescription }
  },
  {
    direction: 'response',
    methodName: 'markByPath',
    isStatic: false,
    target: { kind: 'path', path: '/users/:id', methods: ['GET'] },
    checkUsage: true,
    migrateHttpErrors: true,
    result: { id: 'u1', addresses: ['1 Main St', '2 Side St'], byPath: byPathDescription }
  },
  {
    direction: 'response',
    methodName: 'addressesToSingleItem',
    isStatic: false,
    target: { kind: 'schema', schemas: ['UserResource', 'UserCreateRequest'] },
    checkUsage: true,
    migrateHttpErrors: true,
    result: { id: 'u1', address: '1 Main St' }
  },
  {
    direction: 'response',
    methodName: 'markStatic',
    isStatic: true,
    target: { kind: 'schema', schemas: ['UserResource'] },
    checkUsage: false,
    migrateHttpErrors: false,
    result: { id: 'u1', addresses: ['1 Main St', '2 Side St'], staticThisIsClass: true }
  }
]

interface SummaryAsserts {
  equal: (found: unknown, wanted: unknown, message: string) => unknown
  same: (found: unknown, wanted: unknown, message: string) => unknown
  fail: (message: string) => unknown
}

/** Parses the fixture's summary and checks it, including the decorator mode really used. */
function checkSummary (t: SummaryAsserts, outcome: Outcome, mode: Mode): void {
  t.equal(outcome.error, null, outcome.error === null ? 'the fixture ran' : `the fixture failed: ${outcome.stderr.slice(0, 2000)}`)
  let summary: { mode: { tc39: number, legacy: number, symbolMetadataIsSymbolFor: boolean }, readCount: number, converters: unknown[] }
  try {
    summary = JSON.parse(outcome.stdout)
  } catch {
    t.fail(`the fixture printed no JSON: ${outcome.stdout.slice(0, 500)}`)
    return
  }
  if (mode === 'tc39') {
    t.same(summary.mode, { tc39: 5, legacy: 0, symbolMetadataIsSymbolFor: true },
      'TC39 decorators: the class has own Symbol.metadata holding the 5 entries, and no reflect-metadata')
  } else {
    t.same(summary.mode, { tc39: 0, legacy: 5, symbolMetadataIsSymbolFor: true },
      'legacy decorators: reflect-metadata holds the 5 entries, and the class has no Symbol.metadata')
  }
  t.equal(summary.readCount, 5, 'readConverters finds the 5 entries')
  t.same(summary.converters, expectedConverters, 'the same converters, in the same order, with the same effects')
}

test('(a) tsx with TC39 (standard) decorators', async (t) => {
  checkSummary(t, await outcomes.tsxTc39, 'tc39')
})

test('(b) tsx with experimentalDecorators', async (t) => {
  checkSummary(t, await outcomes.tsxLegacy, 'legacy')
})

test('(c) tsc output with TC39 (standard) decorators', async (t) => {
  const outcome = await outcomes.tscTc39
  t.match(outcome.emitted, /__esDecorate\(/, 'tsc emitted standard decorators')
  t.notMatch(outcome.emitted, /__decorate\(\[/, 'and not legacy ones')
  t.match(outcome.emitted, /require\("fastify-versioner"\)/, 'the plugin is the installed package')
  checkSummary(t, outcome, 'tc39')
})

test('(d) tsc output with experimentalDecorators', async (t) => {
  const outcome = await outcomes.tscLegacy
  t.match(outcome.emitted, /__decorate\(\[/, 'tsc emitted legacy decorators')
  t.notMatch(outcome.emitted, /__esDecorate\(/, 'and not standard ones')
  t.notMatch(outcome.emitted, /design:paramtypes/, 'no design:* metadata is needed')
  t.match(outcome.emitted, /require\("fastify-versioner"\)/, 'the plugin is the installed package')
  checkSummary(t, outcome, 'legacy')
})
