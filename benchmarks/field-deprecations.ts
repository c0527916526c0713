/**
 * Questions (issue 24, field deprecations; docs/field-deprecations.md): do routes whose schemas hold no deprecated
 * field pay anything for the feature? (Target: nothing.) And what does a route with one cost, when the request
 * does not send it and when it does?
 *
 * 1. No cost where nothing is deprecated: `benchmarks/compare-builds.ts` with `BENCH_BASE` the commit before the
 *    feature (the parent of the commit that added lib/routes/field-deprecations.ts, or `BENCH_BASE` when set) and
 *    the working tree as head: its configurations (newest version, oldest through 9 + 9 converters, plain Fastify
 *    as the control) have no deprecated field, so head − base must be noise. Skipped with BENCH_FIELD_DEPRECATIONS_BUILDS=0.
 * 2. The cost where one is: one process per configuration of `benchmarks/_field-deprecations-app.ts` (`without`,
 *    `unused`, `used`), CPU measured in short windows interleaved across the processes (the order reversed every
 *    other window); a configuration's cost is the median over windows of its CPU per request minus `without`'s.
 *
 * Run: `npm run bench -- field-deprecations`. Knobs: BENCH_FIELD_DEPRECATIONS_ROUNDS (fresh processes, default 3),
 * BENCH_FIELD_DEPRECATIONS_WINDOWS (per round, default 40), BENCH_FIELD_DEPRECATIONS_WINDOW (requests per window,
 * default 300), and compare-builds' own. Check the machine's load first: `uptime`.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { fixed, markdownTable, median } from './_measure'
import { nextLine, startMeasuringChild, type MeasuringChild } from './_windows'
import { preparePlugin } from './_plugin'

const ROOT = join(__dirname, '..')
const ROUNDS = Math.max(1, Number(process.env.BENCH_FIELD_DEPRECATIONS_ROUNDS ?? 3) || 3)
const WINDOWS = Math.max(4, Number(process.env.BENCH_FIELD_DEPRECATIONS_WINDOWS ?? 40) || 40)
const WINDOW = Math.max(50, Number(process.env.BENCH_FIELD_DEPRECATIONS_WINDOW ?? 300) || 300)
/** The configurations of `benchmarks/_field-deprecations-app.ts` (not imported: importing it would run it). */
const FIELD_DEPRECATION_CONFIGURATIONS = ['without', 'unused', 'used'] as const

/** The commit before the feature: `BENCH_BASE`, else the parent of the commit that added its plan. */
function baseRevision (): string {
  if (process.env.BENCH_BASE !== undefined && process.env.BENCH_BASE !== '') return process.env.BENCH_BASE
  const added = execFileSync('git', ['log', '--diff-filter=A', '--format=%H', '--', 'lib/routes/field-deprecations.ts'], { cwd: ROOT, encoding: 'utf8' })
    .trim().split('\n').pop()
  if (added === undefined || added === '') throw new Error('cannot find the commit that added lib/routes/field-deprecations.ts: set BENCH_BASE')
  return `${added}~1`
}

function start (configuration: string): MeasuringChild {
  return startMeasuringChild(join(__dirname, '_field-deprecations-app.ts'), [configuration])
}

/** Part 2: per configuration, its CPU per request in every window, and the difference from `without`'s in the same window. */
async function withDeprecatedFields (): Promise<{ cpu: Map<string, number[]>, differences: Map<string, number[]> }> {
  const cpu = new Map<string, number[]>(FIELD_DEPRECATION_CONFIGURATIONS.map((name) => [name, []]))
  const differences = new Map<string, number[]>(FIELD_DEPRECATION_CONFIGURATIONS.map((name) => [name, []]))
  for (let round = 0; round < ROUNDS; round++) {
    const children = new Map<string, MeasuringChild>()
    try {
      for (const name of FIELD_DEPRECATION_CONFIGURATIONS) {
        const child = start(name)
        children.set(name, child)
        if (await nextLine(child) !== 'ready') throw new Error(`${name} did not start`)
      }
      for (let window = 0; window < WINDOWS; window++) {
        const measured = new Map<string, number>()
        const order = (window + round) % 2 === 0 ? FIELD_DEPRECATION_CONFIGURATIONS : [...FIELD_DEPRECATION_CONFIGURATIONS].reverse()
        for (const name of order) {
          const child = children.get(name) as MeasuringChild
          child.process.stdin.write(`cpu ${WINDOW}\n`)
          measured.set(name, Number((await nextLine(child)).split(' ')[1]))
        }
        for (const name of FIELD_DEPRECATION_CONFIGURATIONS) {
          cpu.get(name)?.push(measured.get(name) as number)
          differences.get(name)?.push((measured.get(name) as number) - (measured.get('without') as number))
        }
      }
    } finally {
      for (const child of children.values()) { child.reader.close(); child.process.kill() }
    }
  }
  return { cpu, differences }
}

async function main (): Promise<void> {
  if (process.env.BENCH_FIELD_DEPRECATIONS_BUILDS !== '0') {
    const base = baseRevision()
    console.log(`## 1. Routes without deprecated fields: compare-builds, ${base} (before the feature) against the working tree\n`)
    const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(__dirname, 'compare-builds.ts')],
      { stdio: 'inherit', env: { ...process.env, BENCH_BASE: base, BENCH_HEAD: 'worktree' } })
    if (result.status !== 0) throw new Error(`compare-builds failed (${result.error?.message ?? `exit code ${String(result.status)}`})`)
  }
  const pluginDescription = preparePlugin()
  const { cpu, differences } = await withDeprecatedFields()
  const medianOf = (values: number[]): number => median([...values].sort((a, b) => a - b))
  console.log(`\n## 2. A route with a deprecated field: ${ROUNDS} rounds, ${WINDOWS} interleaved windows of ${WINDOW} requests`)
  console.log(`Node ${process.version}, ${cpus().length} CPUs, load average ${loadavg().map((value) => value.toFixed(2)).join(' ')} at the end; ${pluginDescription}.\n`)
  console.log(markdownTable(['configuration', 'CPU µs/request (median)', 'vs without: paired difference µs (median of windows)', 'interquartile range µs'],
    FIELD_DEPRECATION_CONFIGURATIONS.map((name) => {
      const sorted = [...(differences.get(name) ?? [])].sort((a, b) => a - b)
      return [name, fixed(medianOf(cpu.get(name) ?? []), 1), name === 'without' ? '–' : fixed(medianOf(sorted), 2),
        name === 'without' ? '–' : `${fixed(sorted[Math.floor(sorted.length / 4)], 2)} … ${fixed(sorted[Math.floor(sorted.length * 3 / 4)], 2)}`]
    })))
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
