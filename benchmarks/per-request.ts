/**
 * Questions (issue 10): how many bytes does the plugin allocate per request, and where? (Target: nothing on the
 * newest version, nothing per converter beyond what the converter itself does.) And what does each
 * configuration of `benchmarks/http-versions.ts` cost in CPU time per request without sockets, where a shared
 * machine's noise is smaller than over HTTP?
 *
 * Each round starts a fresh process per configuration (`benchmarks/_per-request-app.ts`), with a young generation
 * of 256 MB. CPU: the processes run short windows of `app.inject()` calls in turn (the order reversed every other
 * window), each measuring its own CPU time; a configuration's cost is the median over windows of its CPU per
 * request minus its reference's in the same window (plain Fastify; the hand-written conversions for the oldest
 * version). Bytes: then each process counts, with no garbage collection running, the heap used after
 * `<requests>` calls minus before, divided by the requests. Then V8's sampling heap profiler
 * (objects already collected included) attributes the bytes to functions; the plugin's are listed. The figures
 * include light-my-request's own work, the same in every configuration: compare differences, not ratios.
 *
 * Run: `npm run bench -- per-request`. Knobs: BENCH_PER_REQUEST_RUNS (rounds, default 3), BENCH_PER_REQUEST_COUNT
 * (requests per byte count, default 3000), BENCH_PER_REQUEST_WINDOWS (CPU windows per round, default 40),
 * BENCH_PER_REQUEST_WINDOW (requests per window, default 300).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process'
import type { Readable, Writable } from 'node:stream'
import { createInterface, type Interface } from 'node:readline'
import { join } from 'node:path'
import { fixed, markdownTable, median } from './_measure'
import { preparePlugin } from './_plugin'
import type { PerRequestResult } from './_per-request-app'

const RUNS = Math.max(1, Number(process.env.BENCH_PER_REQUEST_RUNS ?? 3) || 3)
const COUNT = Math.max(100, Number(process.env.BENCH_PER_REQUEST_COUNT ?? 3000) || 3000)
const WINDOWS = Math.max(4, Number(process.env.BENCH_PER_REQUEST_WINDOWS ?? 40) || 40)
const WINDOW = Math.max(50, Number(process.env.BENCH_PER_REQUEST_WINDOW ?? 300) || 300)
const CONFIGURATIONS = ['plain', 'unversioned', 'newest', 'handwritten', 'oldest'] as const
const REFERENCE: Record<string, string> = { plain: 'plain', unversioned: 'plain', newest: 'plain', handwritten: 'plain', oldest: 'handwritten' }

interface Child {
  readonly process: ChildProcessByStdio<Writable, Readable, null>
  readonly lines: AsyncIterator<string>
  readonly reader: Interface
}

function startChild (configuration: string): Child {
  const args = ['--expose-gc', '--max-semi-space-size=256', '--min-semi-space-size=256', '--import', 'tsx',
    join(__dirname, '_per-request-app.ts'), configuration, String(COUNT)]
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] })
  const reader = createInterface({ input: child.stdout })
  return { process: child, reader, lines: reader[Symbol.asyncIterator]() }
}

async function nextLine (child: Child, what: string): Promise<string> {
  const { value, done } = await child.lines.next()
  if (done === true) throw new Error(`a per-request child ended before ${what}`)
  return value
}

/** One round: fresh processes for every configuration, CPU windows interleaved, then each one's allocation figures. */
async function round (index: number): Promise<{ cpu: Map<string, number[]>, results: Map<string, PerRequestResult> }> {
  const children = new Map(CONFIGURATIONS.map((name) => [name, startChild(name)]))
  try {
    for (const [name, child] of children) if (await nextLine(child, `${name} was ready`) !== 'ready') throw new Error(`${name}: no ready line`)
    const cpu = new Map<string, number[]>(CONFIGURATIONS.map((name) => [name, []]))
    for (let window = 0; window < WINDOWS; window++) {
      const order = (window + index) % 2 === 0 ? CONFIGURATIONS : [...CONFIGURATIONS].reverse()
      for (const name of order) {
        const child = children.get(name) as Child
        child.process.stdin.write(`cpu ${WINDOW}\n`)
        const line = await nextLine(child, `${name} measured its CPU`)
        cpu.get(name)?.push(Number(line.split(' ')[1]))
      }
    }
    const results = new Map<string, PerRequestResult>()
    for (const [name, child] of children) {
      child.process.stdin.end('bytes\n')
      results.set(name, JSON.parse(await nextLine(child, `${name} measured its bytes`)) as PerRequestResult)
    }
    return { cpu, results }
  } finally {
    for (const child of children.values()) {
      child.reader.close()
      child.process.kill()
    }
  }
}

async function main (): Promise<void> {
  const pluginDescription = preparePlugin()
  const runs = new Map<string, PerRequestResult[]>(CONFIGURATIONS.map((name) => [name, []]))
  /** Per configuration: CPU µs per request minus its reference's in the same window, over every window of every round. */
  const differences = new Map<string, number[]>(CONFIGURATIONS.map((name) => [name, []]))
  const cpuAll = new Map<string, number[]>(CONFIGURATIONS.map((name) => [name, []]))
  for (let index = 0; index < RUNS; index++) {
    const { cpu, results } = await round(index)
    for (const name of CONFIGURATIONS) {
      runs.get(name)?.push(results.get(name) as PerRequestResult)
      const own = cpu.get(name) as number[]
      const reference = cpu.get(REFERENCE[name]) as number[]
      cpuAll.get(name)?.push(...own)
      differences.get(name)?.push(...own.map((value, window) => value - reference[window]))
    }
  }
  const medianOf = (values: number[]): number => median([...values].sort((a, b) => a - b))
  const bytes = (name: string): number => medianOf((runs.get(name) ?? []).filter((run) => Number.isFinite(run.bytesPerRequest)).map((run) => run.bytesPerRequest))

  console.log(`# Per request, in process (app.inject): ${RUNS} rounds of fresh processes; CPU in ${WINDOWS} interleaved windows of ${WINDOW} requests per round; bytes over ${COUNT} requests`)
  console.log(`Node ${process.version}; ${pluginDescription}.\n`)
  console.log(markdownTable(['configuration', 'CPU µs/request (median of windows)', 'CPU vs reference: paired difference µs (median of windows)',
    'bytes allocated/request', 'bytes vs plain'],
  CONFIGURATIONS.map((name) => [
    name,
    fixed(medianOf(cpuAll.get(name) ?? []), 1),
    name === 'plain' ? '–' : `${fixed(medianOf(differences.get(name) ?? []), 2)} vs ${REFERENCE[name]}`,
    fixed(bytes(name), 0),
    name === 'plain' ? '–' : fixed(bytes(name) - bytes('plain'), 0)
  ])))
  for (const name of CONFIGURATIONS) {
    const last = (runs.get(name) ?? [])[0]
    const entries = Object.entries(last?.pluginAllocations ?? {}).sort((a, b) => b[1] - a[1])
    const total = entries.reduce((sum, [, value]) => sum + value, 0)
    console.log(`\n${name}: the plugin's functions allocate ${fixed(total, 0)} bytes per request (sampled)` +
      (entries.length === 0 ? '.' : ':\n' + entries.map(([where, value]) => `  ${fixed(value, 0)} B  ${where}`).join('\n')))
    if (name === 'plain') continue
    // Where the bytes differ from the reference, by function (sampled, every run averaged: noise of a sample or two remains).
    const reference = REFERENCE[name]
    const average = (of: string): Map<string, number> => {
      const sums = new Map<string, number>()
      const list = runs.get(of) ?? []
      for (const run of list) for (const [where, value] of Object.entries(run.allocations)) sums.set(where, (sums.get(where) ?? 0) + value / list.length)
      return sums
    }
    const own = average(name)
    const ref = average(reference)
    const differences = [...new Set([...own.keys(), ...ref.keys()])]
      .map((where) => [where, (own.get(where) ?? 0) - (ref.get(where) ?? 0)] as const)
      .filter(([, value]) => Math.abs(value) >= 24)
      .sort((a, b) => b[1] - a[1])
    console.log(`  differences from ${reference} by function (≥ 24 B):` + (differences.length === 0
      ? ' none'
      : '\n' +
      differences.map(([where, value]) => `    ${value > 0 ? '+' : ''}${fixed(value, 0)} B  ${where}`).join('\n')))
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
