// `verify` run inside a test suite measured for coverage (c8, tap, Node's NODE_V8_COVERAGE) leaves the suite's
// coverage as it was: it reads the source of converters' modules without Node's inspector debugger (decision 0236).
import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { test } from 'tap'

test('verify leaves the process\'s code coverage as it was: block counts of code loaded before it stay', async (t) => {
  // V8 drops the block counts of every function compiled before its debugger is enabled; reading scripts through the
  // inspector's debugger made every line of a called function count as run in a test suite that runs `verify` under
  // c8, tap or Node's own coverage.
  const root = join(__dirname, '..', '..')
  const dir = await mkdtemp(join(root, 'test', '.tmp', 'coverage-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const program = join(dir, 'run.ts')
  await writeFile(program, [
    `import { verify } from ${JSON.stringify(join(root, 'tools'))}`,
    `import { buildBillingApp } from ${JSON.stringify(join(root, 'examples', 'billing', 'app'))}`,
    'export function early (amount: number): string {',
    "  if (amount > 1) return 'many'",
    "  return 'one'",
    '}',
    'early(2)',
    'void (async () => {',
    '  const app = await buildBillingApp()',
    '  await app.ready()',
    '  const findings = await verify(app, { examples: 2 })',
    '  await app.close()',
    '  console.log(findings.length)',
    '})()'
  ].join('\n'))
  const coverage = join(dir, 'coverage')
  const env = { ...process.env, NODE_V8_COVERAGE: coverage, _TAPJS_PROCESSINFO_COVERAGE_: '0' }
  const printed = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--import', join(root, 'scripts', 'typescript-loader.mjs'), program], { cwd: root, env, timeout: 120_000 },
      (error, stdout, stderr) => { if (error === null) resolve(stdout); else reject(new Error(`${error.message}\n${stderr}`)) })
  })
  t.equal(printed, '0\n', 'the billing example verifies cleanly')
  const scripts = (await Promise.all((await readdir(coverage)).map(async (file) => JSON.parse(await readFile(join(coverage, file), 'utf8')) as { result: Array<{ url: string, functions: Array<{ functionName: string, isBlockCoverage: boolean }> }> })))
    .flatMap((report) => report.result)
  const early = scripts.find((script) => script.url === pathToFileURL(program).href)?.functions.find((fn) => fn.functionName === 'early')
  t.equal(early?.isBlockCoverage, true, 'the function run before verify keeps its block counts')
})
