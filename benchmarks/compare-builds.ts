/**
 * Question: does a change of the plugin cost time per request? Compares two builds of the plugin (two git
 * revisions, `BENCH_BASE` and `BENCH_HEAD`, default `HEAD~1` and the working tree) in the same run, paired: for each
 * configuration of `benchmarks/_http-app.ts` (an unversioned route of an application with the plugin, the newest
 * version and the oldest, through 9 + 9 converters; plain Fastify as a control that must show no difference), one process per build, CPU measured in short windows
 * interleaved across the processes (the order reversed every other window), the cost being the median over
 * windows of head − base in the same window. Each build is compiled by tsc with the package's settings.
 *
 * Run: `npm run bench -- compare-builds` (or `BENCH_BASE=<rev> BENCH_HEAD=<rev> npm run bench -- compare-builds`).
 * Knobs: BENCH_COMPARE_ROUNDS (fresh processes, default 3), BENCH_COMPARE_WINDOWS (per round, default 40),
 * BENCH_COMPARE_WINDOW (requests per window, default 300). Check the machine's load first: `uptime`.
 */
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { buildRevision } from './_builds'
import { fixed, markdownTable, median } from './_measure'
import { nextLine, startMeasuringChild, type MeasuringChild } from './_windows'

const ROUNDS = Math.max(1, Number(process.env.BENCH_COMPARE_ROUNDS ?? 3) || 3)
const WINDOWS = Math.max(4, Number(process.env.BENCH_COMPARE_WINDOWS ?? 40) || 40)
const WINDOW = Math.max(50, Number(process.env.BENCH_COMPARE_WINDOW ?? 300) || 300)
const CONFIGURATIONS = ['plain', 'unversioned', 'newest', 'oldest'] as const

function start (configuration: string, pluginPath: string): MeasuringChild {
  return startMeasuringChild(join(__dirname, '_per-request-app.ts'), [configuration, '200'], { ...process.env, BENCH_PLUGIN_PATH: pluginPath })
}

async function main (): Promise<void> {
  const baseRevision = process.env.BENCH_BASE ?? 'HEAD~1'
  const headRevision = process.env.BENCH_HEAD ?? 'worktree'
  const builds = { base: join(buildRevision(baseRevision, 'base'), 'plugin.js'), head: join(buildRevision(headRevision, 'head'), 'plugin.js') }
  const differences = new Map<string, number[]>(CONFIGURATIONS.map((name) => [name, []]))
  const bases = new Map<string, number[]>(CONFIGURATIONS.map((name) => [name, []]))
  for (let round = 0; round < ROUNDS; round++) {
    const children = new Map<string, MeasuringChild>()
    try {
      for (const name of CONFIGURATIONS) {
        for (const which of ['base', 'head'] as const) {
          const child = start(name, builds[which])
          children.set(`${name} ${which}`, child)
          if (await nextLine(child) !== 'ready') throw new Error(`${name} ${which} did not start`)
        }
      }
      const keys = [...children.keys()]
      for (let window = 0; window < WINDOWS; window++) {
        const cpu = new Map<string, number>()
        for (const key of (window + round) % 2 === 0 ? keys : [...keys].reverse()) {
          const child = children.get(key) as MeasuringChild
          child.process.stdin.write(`cpu ${WINDOW}\n`)
          cpu.set(key, Number((await nextLine(child)).split(' ')[1]))
        }
        for (const name of CONFIGURATIONS) {
          const base = cpu.get(`${name} base`) as number
          differences.get(name)?.push((cpu.get(`${name} head`) as number) - base)
          bases.get(name)?.push(base)
        }
      }
    } finally {
      for (const child of children.values()) { child.reader.close(); child.process.kill() }
    }
  }
  const medianOf = (values: number[]): number => median([...values].sort((a, b) => a - b))
  console.log(`# Per request, in process: ${baseRevision} (base) against ${headRevision} (head); ${ROUNDS} rounds, ${WINDOWS} interleaved windows of ${WINDOW} requests`)
  console.log(`Node ${process.version}, ${cpus().length} CPUs, load average ${loadavg().map((value) => value.toFixed(2)).join(' ')} at the end.\n`)
  console.log(markdownTable(['configuration', 'base CPU µs/request (median)', 'head − base µs (median of paired windows)', 'interquartile range µs'],
    CONFIGURATIONS.map((name) => {
      const sorted = [...(differences.get(name) ?? [])].sort((a, b) => a - b)
      return [name, fixed(medianOf(bases.get(name) ?? []), 1), fixed(medianOf(sorted), 2),
        `${fixed(sorted[Math.floor(sorted.length / 4)], 2)} … ${fixed(sorted[Math.floor(sorted.length * 3 / 4)], 2)}`]
    })))
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
