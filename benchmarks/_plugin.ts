/**
 * Which code of the plugin the benchmarks load (a helper: `benchmarks/run.js` skips files whose name starts with
 * `_`), chosen with `BENCH_PLUGIN_SOURCE`:
 * - `build` (default): the sources compiled by `tsc` with the package's build settings into
 *   `benchmarks/results/plugin-build/` (ignored by git) when a benchmark starts: the JavaScript users run;
 * - `ts`: the TypeScript sources through tsx. tsx compiles with esbuild's `keepNames`, which adds a
 *   `__name(fn, 'name')` call (an `Object.defineProperty`) each time a named closure is created, so per-request
 *   code costs measurably more than in the build;
 * - `dist`: the existing `dist/` (run `npm run build` first).
 * @module
 */
import { execFileSync } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

export type PluginSource = 'build' | 'ts' | 'dist'

const ROOT = join(__dirname, '..')
const BUILD_DIRECTORY = join(__dirname, 'results', 'plugin-build')

/** The source chosen by `BENCH_PLUGIN_SOURCE`. */
export function pluginSource (): PluginSource {
  const value = process.env.BENCH_PLUGIN_SOURCE
  if (value === undefined || value === '' || value === 'build') return 'build'
  if (value === 'ts' || value === 'dist') return value
  throw new Error(`BENCH_PLUGIN_SOURCE must be build, ts or dist; got '${value}'`)
}

/**
 * Run by a benchmark before it starts its processes: compiles the plugin when the source is `build`, and sets
 * `BENCH_PLUGIN_SOURCE` for the child processes. Returns a description for the report.
 */
export function preparePlugin (): string {
  const source = pluginSource()
  process.env.BENCH_PLUGIN_SOURCE = source
  if (source === 'ts') return 'plugin: TypeScript sources through tsx (BENCH_PLUGIN_SOURCE=ts)'
  if (source === 'dist') {
    if (!existsSync(join(ROOT, 'dist', 'plugin.js'))) throw new Error('BENCH_PLUGIN_SOURCE=dist: run `npm run build` first')
    return 'plugin: dist/ (BENCH_PLUGIN_SOURCE=dist)'
  }
  rmSync(BUILD_DIRECTORY, { recursive: true, force: true })
  const tsc = createRequire(__filename).resolve('typescript/bin/tsc')
  try {
    execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', BUILD_DIRECTORY, '--declaration', 'false',
      '--sourceMap', 'false'], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' })
  } catch (error) {
    const output = (error as { stdout?: string }).stdout ?? ''
    throw new Error(`compiling the plugin with tsc failed (measure the sources with BENCH_PLUGIN_SOURCE=ts):\n${output}`)
  }
  return 'plugin: compiled by tsc with tsconfig.build.json, as published (BENCH_PLUGIN_SOURCE=ts measures the sources through tsx)'
}

/** The plugin's exports, from the chosen source (or from `BENCH_PLUGIN_PATH`, a compiled `plugin.js`: see compare-builds.ts). */
export function loadPlugin (): typeof import('../plugin') {
  const chosen = process.env.BENCH_PLUGIN_PATH
  if (chosen !== undefined && chosen !== '') return createRequire(__filename)(chosen) as typeof import('../plugin')
  const source = pluginSource()
  const path = source === 'ts' ? join(ROOT, 'plugin') : source === 'dist' ? join(ROOT, 'dist', 'plugin.js') : join(BUILD_DIRECTORY, 'plugin.js')
  if (source === 'build' && !existsSync(path)) {
    throw new Error(`${path} does not exist: start this through a benchmark (npm run bench), which compiles it, or set BENCH_PLUGIN_SOURCE=ts`)
  }
  return createRequire(__filename)(path) as typeof import('../plugin')
}
