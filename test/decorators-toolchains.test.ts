/*
 * The same version change, written with decorator syntax (test/fixtures/decorators/change.ts), must be read
 * the same way under every toolchain: tsx and tsc, each with standard (TC39) decorators and with
 * experimentalDecorators. Each case runs the fixture in a child process and compares its JSON summary.
 */
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { join, relative } from 'node:path'
import tap, { test } from 'tap'

const root = join(__dirname, '..')
const fixtureDir = join(__dirname, 'fixtures', 'decorators')
const fixture = join(fixtureDir, 'change.ts')
const tmpRoot = join(__dirname, '.tmp')
const tsc = join(root, 'node_modules', '.bin', 'tsc')
const config = (mode: Mode): string => join(fixtureDir, `tsconfig.${mode}.json`)

type Mode = 'tc39' | 'legacy'

interface Outcome {
  error: (Error & { code?: unknown, signal?: unknown }) | null
  stdout: string
  stderr: string
}

// Compiling and running take a few seconds each; the four cases run concurrently.
tap.setTimeout(180_000)

/**
 * The environment of the children: without tap's loaders, so that only the toolchain under test compiles, and
 * outside coverage (tap's processinfo still tracks them): the fixture's lib/ through tsx, or compiled by tsc, is
 * not the code coverage measures.
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

/** (a), (b): tsx, loaded with `node --import tsx`; tsx 4 takes the tsconfig from TSX_TSCONFIG_PATH there. */
function runTsx (mode: Mode): Promise<Outcome> {
  return run(process.execPath, ['--import', 'tsx', fixture],
    childEnv({ TSX_TSCONFIG_PATH: config(mode), TSX_DISABLE_CACHE: '1' }))
}

/** (c), (d): tsc into a fresh directory under test/.tmp, then plain node. */
async function runTsc (mode: Mode): Promise<Outcome & { emitted: string }> {
  await mkdir(tmpRoot, { recursive: true })
  const outDir = await mkdtemp(join(tmpRoot, `decorators-${mode}-`))
  try {
    const compiled = await run(tsc, ['-p', config(mode), '--outDir', outDir], childEnv({}))
    if (compiled.error !== null) return { ...compiled, emitted: '' }
    const output = join(outDir, relative(root, fixtureDir), 'change.js')
    const emitted = await readFile(output, 'utf8')
    return { ...await run(process.execPath, [output], childEnv({})), emitted }
  } finally {
    await rm(outDir, { recursive: true, force: true })
  }
}

const outcomes = {
  tsxTc39: runTsx('tc39'),
  tsxLegacy: runTsx('legacy'),
  tscTc39: runTsc('tc39'),
  tscLegacy: runTsc('legacy')
}

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
  checkSummary(t, outcome, 'tc39')
})

test('(d) tsc output with experimentalDecorators', async (t) => {
  const outcome = await outcomes.tscLegacy
  t.match(outcome.emitted, /__decorate\(\[/, 'tsc emitted legacy decorators')
  t.notMatch(outcome.emitted, /__esDecorate\(/, 'and not standard ones')
  t.notMatch(outcome.emitted, /design:paramtypes/, 'no design:* metadata is needed')
  checkSummary(t, outcome, 'legacy')
})
