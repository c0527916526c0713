/**
 * Instructions a request takes, counted by valgrind's callgrind (a helper: `BENCH_COMPARE_COUNT=instructions` of
 * `benchmarks/compare-builds.ts`). A count does not move with the machine's load, where CPU time does: it resolves a
 * change of the plugin's own work on a busy machine. It does not see what costs time without instructions (cache
 * misses, branch mispredictions), so a figure in time still comes from the paired CPU windows on a quiet machine.
 * @module
 */
import { execFile, spawn, spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'

const ROOT = join(__dirname, '..')
/** Where the counted runs' JavaScript is written. */
const RUNNER = join(__dirname, 'results', 'instructions-app')

/**
 * Writes `_instructions-app.ts` and the helpers it imports as JavaScript: a run through a TypeScript loader would
 * count the loader's thread and its compiling, which vary from run to run.
 */
function compileRunner (): string {
  mkdirSync(RUNNER, { recursive: true })
  for (const name of ['_instructions-app', '_http-app', '_plugin']) {
    const { outputText } = ts.transpileModule(readFileSync(join(__dirname, `${name}.ts`), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, experimentalDecorators: true, useDefineForClassFields: true }
    })
    writeFileSync(join(RUNNER, `${name}.js`), outputText)
  }
  return join(RUNNER, '_instructions-app.js')
}
let runner: string | undefined

/**
 * Whether valgrind can run here: `undefined`, else the reason, saying how to install it.
 * @example
 * ```ts
 * const missing = valgrindMissing()
 * if (missing !== undefined) throw new Error(missing)
 * ```
 */
export function valgrindMissing (): string | undefined {
  const probe = spawnSync('valgrind', ['--version'], { encoding: 'utf8' })
  if (probe.error === undefined && probe.status === 0) return undefined
  return 'valgrind is not installed: on Debian or Ubuntu, `apt-get install -y valgrind`'
}

/**
 * The instructions of one run of `_instructions-app.ts` from the warm-up's end (the counted requests, then exit), under
 * callgrind. Start-up and warm-up run without instrumentation (a tenth of the time): the run says `warm` and waits on
 * its standard input; `callgrind_control` switches instrumentation on, then a line lets the run go on.
 */
async function instructionsOfRun (pluginPath: string, configuration: string, warmUp: number, requests: number): Promise<number> {
  const args = ['--tool=callgrind', '--callgrind-out-file=/dev/null', '--cache-sim=no', '--smc-check=all-non-file', '--instr-atstart=no',
    // V8's predictable mode (one thread, no timer-driven garbage collection) and fixed seeds: the same work in every run;
    // a young generation that holds what the counted requests allocate (emptied before them), and an old generation whose
    // first limit is far above what a run promotes (no full collection starts, in the warm-up or among the counted
    // requests): no collection among them, which `_instructions-app.ts` checks.
    process.execPath, '--predictable', '--random-seed=1', '--hash-seed=1', '--expose-gc', '--max-semi-space-size=256', '--min-semi-space-size=256',
    '--initial-old-space-size=2048',
    runner ??= compileRunner(), configuration, String(warmUp), String(requests)]
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('valgrind', args, { cwd: ROOT, env: { ...process.env, BENCH_PLUGIN_PATH: pluginPath } })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    child.stdout.setEncoding('utf8').once('data', (chunk: string) => {
      if (!chunk.startsWith('warm')) return
      execFile('callgrind_control', ['--instr=on', String(child.pid)], (error) => {
        if (error !== null) child.kill()
        child.stdin.end('go\n')
      })
    })
    child.once('error', reject)
    child.once('close', (code) => {
      if (code === 0) resolve(stderr)
      else reject(new Error(`${configuration}: valgrind failed: ${stderr.split('\n').filter((line) => !line.startsWith('==')).join('\n') || `exit ${String(code)}`}`))
    })
  })
  const collected = /Collected : (\d+)/.exec(output)
  if (collected === null) throw new Error(`${configuration}: no count in valgrind's output:\n${output.slice(-2000)}`)
  return Number(collected[1])
}

/**
 * Instructions per request of `configuration` (`benchmarks/_http-app.ts`) with the plugin at `pluginPath`: the count
 * of a run of `warmUp` + `requests` requests less that of a run of `warmUp` only (each counted from the warm-up's end), over
 * `requests`.
 * @example
 * ```ts
 * const perRequest = await instructionsPerRequest(join(build, 'plugin.js'), 'oldest', 1000, 2000)
 * ```
 */
export async function instructionsPerRequest (pluginPath: string, configuration: string, warmUp: number, requests: number): Promise<number> {
  const [without, withRequests] = await Promise.all([
    instructionsOfRun(pluginPath, configuration, warmUp, 0),
    instructionsOfRun(pluginPath, configuration, warmUp, requests)
  ])
  return (withRequests - without) / requests
}
