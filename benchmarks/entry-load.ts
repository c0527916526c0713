/**
 * Question (issue 32): what does `require('fastify-versioner')` cost an application (time, modules, RSS), before
 * and after the tools moved behind `fastify-versioner/tools`? And what do the docs pages (Swagger UI, ReDoc, the
 * upgrade guide) cost an application that does not serve them (decision 0076)?
 *
 * Two builds (git revisions `BENCH_BASE`, default 1dd2435, the last commit with one entry, and `BENCH_HEAD`, default
 * the working tree) compiled by tsc with the package's settings. Each measurement is a fresh plain Node process
 * (`benchmarks/_load-probe.cjs`, no tsx), the two builds alternated run by run (the order reversed every other run),
 * so that the machine's load weighs on both alike; the table shows medians, and the median of the paired
 * differences. Then, on the head build only: ready() of an application with and without the docs pages (paired the
 * same way), and the pages' own modules required after every other module of the plugin.
 *
 * Run: `npm run bench -- entry-load`. Knobs: BENCH_LOAD_RUNS (processes per build and measurement, default 30).
 * Check the machine's load first (`uptime`): on a busy machine the times are provisional.
 */
import { execFileSync } from 'node:child_process'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { buildRevision } from './_builds'
import { fixed, markdownTable, median } from './_measure'

const RUNS = Math.max(2, Number(process.env.BENCH_LOAD_RUNS ?? 30) || 30)
const PROBE = join(__dirname, '_load-probe.cjs')

type Probe = Record<string, number | string[]>

function probe (mode: string, build: string): Probe {
  return JSON.parse(execFileSync(process.execPath, [PROBE, mode, build], { encoding: 'utf8' })) as Probe
}

/** `RUNS` probes of each of two (mode, build) pairs, alternated; the results of each. */
function paired (first: [string, string], second: [string, string]): [Probe[], Probe[]] {
  const a: Probe[] = []
  const b: Probe[] = []
  for (let run = 0; run < RUNS; run++) {
    if (run % 2 === 0) {
      a.push(probe(...first))
      b.push(probe(...second))
    } else {
      b.push(probe(...second))
      a.push(probe(...first))
    }
  }
  return [a, b]
}

const sorted = (values: number[]): number[] => [...values].sort((x, y) => x - y)
const medianOf = (probes: Probe[], key: string): number => median(sorted(probes.map((result) => result[key] as number)))
const differences = (a: Probe[], b: Probe[], key: string): number[] => sorted(a.map((result, index) => (b[index][key] as number) - (result[key] as number)))
function spread (values: number[], decimals: number): string {
  return `${fixed(median(values), decimals)} (${fixed(values[Math.floor(values.length / 4)], decimals)} … ${fixed(values[Math.floor(values.length * 3 / 4)], decimals)})`
}

function main (): void {
  const baseRevision = process.env.BENCH_BASE ?? '1dd2435'
  const headRevision = process.env.BENCH_HEAD ?? 'worktree'
  const base = buildRevision(baseRevision, 'load-base')
  const head = buildRevision(headRevision, 'load-head')
  console.log(`# Loading the main entry: ${baseRevision} (base) against ${headRevision} (head); ${RUNS} processes each, alternated\n`)
  const [before, after] = paired(['require', base], ['require', head])
  const row = (label: string, key: string, decimals: number): string[] =>
    [label, fixed(medianOf(before, key), decimals), fixed(medianOf(after, key), decimals), spread(differences(before, after, key), decimals)]
  console.log(markdownTable(['require(\'fastify-versioner\')', 'base (median)', 'head (median)', 'head − base, median of pairs (interquartile range)'], [
    row('time, ms', 'ms', 1),
    row('modules loaded', 'modules', 0),
    row('the package\'s own modules', 'own', 0),
    row('tools\' libraries (fast-check, api-smart-diff and theirs)', 'libraries', 0),
    row('RSS after require, MiB', 'rssMib', 1)
  ]))
  console.log(`\nTools modules loaded by the main entry: base ${(before[0].tools as string[]).length}, head ${(after[0].tools as string[]).length} ` +
    `(${(after[0].tools as string[]).join(', ') || 'none'}).`)

  console.log('\n# The docs pages, head build: an application of 10 versioned routes in 3 versions\n')
  const [withPages, withoutPages] = paired(['ready-pages', head], ['ready-no-pages', head])
  const pageRow = (label: string, key: string, decimals: number): string[] =>
    [label, fixed(medianOf(withPages, key), decimals), fixed(medianOf(withoutPages, key), decimals), spread(differences(withPages, withoutPages, key), decimals)]
  console.log(markdownTable(['ready()', 'with the pages (median)', 'without (median)', 'without − with, median of pairs (interquartile range)'], [
    pageRow('ready() time, ms', 'readyMs', 1),
    pageRow('modules after ready()', 'modules', 0),
    pageRow('RSS after ready(), MiB', 'rssMib', 1)
  ]))
  const pages = Array.from({ length: RUNS }, () => probe('pages', head))
  console.log(`\nThe pages' own modules, required after every other module of the plugin: ${(pages[0].pageModules as string[]).length} ` +
    `(${(pages[0].pageModules as string[]).join(', ')}), ${pages[0].lines as number} lines of JavaScript; ` +
    `${fixed(medianOf(pages, 'ms'), 2)} ms and ${fixed(medianOf(pages, 'rssMib'), 2)} MiB of RSS (medians).`)
  console.log(`\nNode ${process.version}, ${cpus().length} CPUs, load average ${loadavg().map((value) => value.toFixed(2)).join(' ')} at the end.`)
}

main()
