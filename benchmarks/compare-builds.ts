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
 *
 * `BENCH_COMPARE_COUNT=instructions` counts instructions instead (valgrind's callgrind, see `_instructions.ts`), which a
 * busy machine does not move: per request, for each configuration and for hand-written conversions (the reference of
 * the oldest version), each build's count over BENCH_COMPARE_REQUESTS requests (default 2000, after
 * BENCH_COMPARE_WARMUP to warm up, default 14,000: a steady state, where V8 in its predictable mode has done compiling
 * what a request runs; 3000 counted mostly compiling, decision 0341) less that of the warm-up alone, with no garbage
 * collection among the requests counted (a run that meets one fails), BENCH_COMPARE_ROUNDS times (default 1 in this
 * mode: the counts repeat), runs spread over the CPUs. It prints the ratios issue 32's targets are read against.
 */
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { buildRevision } from './_builds'
import { instructionsPerRequest, valgrindMissing } from './_instructions'
import { fixed, markdownTable, median } from './_measure'
import { nextLine, startMeasuringChild, type MeasuringChild } from './_windows'

const BY_INSTRUCTIONS = process.env.BENCH_COMPARE_COUNT === 'instructions'
const ROUNDS = Math.max(1, Number(process.env.BENCH_COMPARE_ROUNDS ?? (BY_INSTRUCTIONS ? 1 : 3)) || 1)
const WINDOWS = Math.max(4, Number(process.env.BENCH_COMPARE_WINDOWS ?? 40) || 40)
const WINDOW = Math.max(50, Number(process.env.BENCH_COMPARE_WINDOW ?? 300) || 300)
const CONFIGURATIONS = ['plain', 'unversioned', 'newest', 'oldest'] as const

function start (configuration: string, pluginPath: string): MeasuringChild {
  return startMeasuringChild(join(__dirname, '_per-request-app.ts'), [configuration, '200'], { ...process.env, BENCH_PLUGIN_PATH: pluginPath })
}

async function main (): Promise<void> {
  const baseRevision = process.env.BENCH_BASE ?? 'HEAD~1'
  const headRevision = process.env.BENCH_HEAD ?? 'worktree'
  const missing = BY_INSTRUCTIONS ? valgrindMissing() : undefined
  if (missing !== undefined) throw new Error(`BENCH_COMPARE_COUNT=instructions: ${missing}`)
  const builds = { base: join(buildRevision(baseRevision, 'base'), 'plugin.js'), head: join(buildRevision(headRevision, 'head'), 'plugin.js') }
  if (BY_INSTRUCTIONS) {
    await compareInstructions(baseRevision, headRevision, builds)
    return
  }
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

/** The `BENCH_COMPARE_COUNT=instructions` comparison: instructions per request of each build, and the difference. */
async function compareInstructions (baseRevision: string, headRevision: string, builds: { base: string, head: string }): Promise<void> {
  const requests = Math.max(100, Number(process.env.BENCH_COMPARE_REQUESTS ?? 2000) || 2000)
  const warmUp = Math.max(0, Number(process.env.BENCH_COMPARE_WARMUP ?? 14000) || 0)
  const names = [...CONFIGURATIONS, 'handwritten']
  const jobs = names.flatMap((name) => (['base', 'head'] as const).flatMap((which) =>
    Array.from({ length: ROUNDS }, () => ({ name, which }))))
  const counts = new Map<string, number[]>()
  // Two runs a job; a count does not depend on how many run at once.
  const lanes = Math.max(1, Math.floor(cpus().length / 2))
  let next = 0
  await Promise.all(Array.from({ length: lanes }, async () => {
    for (let job = jobs[next++]; job !== undefined; job = jobs[next++]) {
      const perRequest = await instructionsPerRequest(builds[job.which], job.name, warmUp, requests)
      const key = `${job.name} ${job.which}`
      counts.set(key, [...(counts.get(key) ?? []), perRequest])
    }
  }))
  const of = (name: string, which: string): number => median([...(counts.get(`${name} ${which}`) ?? [])].sort((a, b) => a - b))
  const spread = (name: string, which: string): string => {
    const values = counts.get(`${name} ${which}`) ?? []
    return values.length < 2 ? '' : ` (${fixed(Math.min(...values) / 1000, 1)} … ${fixed(Math.max(...values) / 1000, 1)})`
  }
  console.log(`# Instructions per request, in process (callgrind): ${baseRevision} (base) against ${headRevision} (head); ${ROUNDS} round(s) of ${requests} requests after ${warmUp}`)
  console.log(`Node ${process.version}, ${cpus().length} CPUs, load average ${loadavg().map((value) => value.toFixed(2)).join(' ')} at the end (a count does not move with it).\n`)
  console.log(markdownTable(['configuration', 'base k instructions/request', 'head k instructions/request', 'head − base (k)', 'head ÷ base'],
    names.map((name) => [name, `${fixed(of(name, 'base') / 1000, 1)}${spread(name, 'base')}`, `${fixed(of(name, 'head') / 1000, 1)}${spread(name, 'head')}`,
      fixed((of(name, 'head') - of(name, 'base')) / 1000, 2), fixed(of(name, 'head') / of(name, 'base'), 4)])))
  // Issue 32's targets in requests a second, as ratios of instructions (instructions are not time): ≥ 0.90 ⇔ ≤ 1.111×.
  const targets = [['oldest', 'handwritten', 0.90], ['newest', 'plain', 0.97], ['unversioned', 'plain', 0.99]] as const
  for (const which of ['base', 'head']) {
    console.log(`${which}: ` + targets.map(([name, reference, target]) => {
      const ratio = of(name, which) / of(reference, which)
      const difference = (of(name, which) - of(reference, which)) / 1000
      return `${name} ${fixed(ratio, 3)}× ${reference} (${difference < 0 ? '' : '+'}${fixed(difference, 1)} k a request; ` +
        `target ≤ ${fixed(1 / target, 3)}×: ${ratio <= 1 / target ? 'met' : 'not met'})`
    }).join(', ') + '.')
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
