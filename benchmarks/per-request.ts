/**
 * Questions (issue 10): how many bytes does the plugin allocate per request, and where? (Target: nothing on the
 * newest version, nothing per converter beyond what the converter itself does.) And what does each
 * configuration of `benchmarks/http-versions.ts` cost in CPU time per request without sockets, where a shared
 * machine's noise is smaller than over HTTP?
 *
 * Each configuration runs in fresh processes (`benchmarks/_per-request-app.ts`, rounds interleaved) with a young
 * generation of 256 MB, so that no garbage collection runs while the bytes are counted: the heap used after
 * `<requests>` `app.inject()` calls minus before, divided by the requests. Then V8's sampling heap profiler
 * (objects already collected included) attributes the bytes to functions; the plugin's are listed. The figures
 * include light-my-request's own work, the same in every configuration: compare differences, not ratios.
 *
 * Run: `npm run bench -- per-request`. Knobs: BENCH_PER_REQUEST_RUNS (default 5), BENCH_PER_REQUEST_COUNT (requests
 * per run, default 3000).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fixed, markdownTable, median } from './_measure'
import { preparePlugin } from './_plugin'
import type { PerRequestResult } from './_per-request-app'

const RUNS = Math.max(1, Number(process.env.BENCH_PER_REQUEST_RUNS ?? 5) || 5)
const COUNT = Math.max(100, Number(process.env.BENCH_PER_REQUEST_COUNT ?? 3000) || 3000)
const CONFIGURATIONS = ['plain', 'unversioned', 'newest', 'handwritten', 'oldest'] as const
const REFERENCE: Record<string, string> = { plain: 'plain', unversioned: 'plain', newest: 'plain', handwritten: 'plain', oldest: 'handwritten' }

function runChild (configuration: string): PerRequestResult {
  const args = ['--expose-gc', '--max-semi-space-size=256', '--min-semi-space-size=256', '--import', 'tsx',
    join(__dirname, '_per-request-app.ts'), configuration, String(COUNT)]
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 300_000 })
  if (result.status !== 0) throw new Error(`_per-request-app.ts ${configuration} failed (${result.error?.message ?? result.signal ?? `exit code ${result.status}`})`)
  return JSON.parse(result.stdout.trim().split('\n').pop() ?? '') as PerRequestResult
}

function main (): void {
  const pluginDescription = preparePlugin()
  const runs = new Map<string, PerRequestResult[]>(CONFIGURATIONS.map((name) => [name, []]))
  for (let round = 0; round < RUNS; round++) {
    const order = round % 2 === 0 ? CONFIGURATIONS : [...CONFIGURATIONS].reverse()
    for (const name of order) runs.get(name)?.push(runChild(name))
  }
  const medianOf = (values: number[]): number => median(values.sort((a, b) => a - b))
  const cpu = (name: string): number[] => (runs.get(name) ?? []).map((run) => run.cpuMicrosPerRequest)
  const bytes = (name: string): number => medianOf((runs.get(name) ?? []).filter((run) => Number.isFinite(run.bytesPerRequest)).map((run) => run.bytesPerRequest))

  console.log(`# Per request, in process (app.inject, ${COUNT} requests per run, ${RUNS} fresh processes per configuration, interleaved)`)
  console.log(`Node ${process.version}; ${pluginDescription}.\n`)
  console.log(markdownTable(['configuration', 'CPU µs/request (median)', 'vs reference: paired difference µs (median)', 'bytes allocated/request', 'bytes vs plain'],
    CONFIGURATIONS.map((name) => {
      const reference = REFERENCE[name]
      const own = cpu(name)
      const ref = cpu(reference)
      const differences = own.map((value, index) => value - ref[index])
      return [
        name,
        fixed(medianOf([...own]), 1),
        name === 'plain' ? '–' : `${fixed(medianOf(differences), 1)} vs ${reference}`,
        fixed(bytes(name), 0),
        name === 'plain' ? '–' : fixed(bytes(name) - bytes('plain'), 0)
      ]
    })))
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

main()
