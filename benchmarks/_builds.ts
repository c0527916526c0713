/**
 * Builds of the plugin at a git revision, for the benchmarks that compare two of them in one run (a helper:
 * `benchmarks/run.js` skips files whose name starts with `_`): compare-builds.ts, entry-load.ts.
 * @module
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

const ROOT = join(__dirname, '..')

/**
 * Compiles the package at `revision` (`worktree`: the working tree) with tsc and its build settings into
 * `benchmarks/results/compare-<name>/`; returns that folder (its `plugin.js`, and `tools.js` where the revision has it).
 * @example
 * ```ts
 * const plugin = join(buildRevision('HEAD~1', 'base'), 'plugin.js')
 * ```
 */
export function buildRevision (revision: string, name: string): string {
  const out = join(__dirname, 'results', `compare-${name}`)
  rmSync(out, { recursive: true, force: true })
  let source = ROOT
  if (revision !== 'worktree') {
    source = join(__dirname, 'results', `source-${name}`)
    rmSync(source, { recursive: true, force: true })
    mkdirSync(source, { recursive: true })
    const archive = execFileSync('git', ['archive', '--format=tar', revision], { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 })
    execFileSync('tar', ['-x', '-C', source], { input: archive })
    if (!existsSync(join(source, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'))
  }
  const tsc = createRequire(__filename).resolve('typescript/bin/tsc')
  execFileSync(process.execPath, [tsc, '-p', join(source, 'tsconfig.build.json'), '--outDir', out, '--declaration', 'false', '--sourceMap', 'false'],
    { cwd: source, stdio: 'pipe' })
  return out
}
