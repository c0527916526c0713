/**
 * Question (issue 10, target (c)): how long does `ready()` take, and how much memory does the process hold, for 100
 * routes × 50 versions where each version changes 2 schemas of 2 routes, against plain Fastify with the same 100
 * routes? Targets: `ready()` within 1.5× plain Fastify's, RSS within plain Fastify's + 40 MB, and `ready()` of
 * 50 versions within 1.3× that of 10 versions. And how do they grow: with the number of distinct route shapes
 * (what actually differs between versions), not with routes × versions?
 *
 * Each version change has 3 schema instructions (a field renamed in a body schema and in its response schema, with
 * a request and a response converter; a keyword changed in another body schema); every schema is used by two
 * routes (`benchmarks/_startup-app.ts`). Configurations: 100 × 10, 100 × 25, 100 × 50, 200 × 50, and plain Fastify
 * with the same 100 and 200 HEAD routes as the baseline. Each measurement runs in a fresh process (RSS is per
 * process), configurations interleaved round by round; the table shows the median time and the largest RSS of the
 * runs, and the ratios are medians of the rounds' ratios. The first run of each configuration
 * also sends a first request to every route in every version: the route plans, validators and serializers of
 * older versions are built then, lazily, so that cost is reported apart from `ready()`.
 *
 * Run: `npm run bench -- startup`. More runs per configuration: BENCH_STARTUP_RUNS=5.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fixed, markdownTable, median } from './_measure'
import { preparePlugin } from './_plugin'
import type { StartupResult } from './_startup-app'

const RUNS = Math.max(1, Number(process.env.BENCH_STARTUP_RUNS ?? 3) || 3)
/** `ready()` of 100 × 50 over plain Fastify's with the same 100 routes. */
const READY_RATIO_TARGET = 1.5
/** RSS of 100 × 50 minus plain Fastify's with the same 100 routes, MB. */
const RSS_EXTRA_TARGET_MB = 40
/** `ready()` of 100 × 50 over 100 × 10. */
const GROWTH_TARGET = 1.3

interface Configuration {
  routes: number
  versions: number
  mode: 'plain' | 'versioned'
}

const CONFIGURATIONS: readonly Configuration[] = [
  { routes: 100, versions: 1, mode: 'plain' },
  { routes: 100, versions: 10, mode: 'versioned' },
  { routes: 100, versions: 25, mode: 'versioned' },
  { routes: 100, versions: 50, mode: 'versioned' },
  { routes: 200, versions: 1, mode: 'plain' },
  { routes: 200, versions: 50, mode: 'versioned' }
]

function runChild (configuration: Configuration, warm: boolean): StartupResult {
  const args = ['--expose-gc', '--import', 'tsx', join(__dirname, '_startup-app.ts'),
    String(configuration.routes), String(configuration.versions), configuration.mode, ...(warm ? [] : ['no-warm'])]
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 300_000 })
  if (result.status !== 0) throw new Error(`_startup-app.ts ${args.slice(4).join(' ')} failed (${result.error?.message ?? result.signal ?? `exit code ${result.status}`})`)
  const line = result.stdout.trim().split('\n').pop() ?? ''
  return JSON.parse(line) as StartupResult
}

interface Row {
  configuration: Configuration
  runs: StartupResult[]
  readyMs: number
  rssMb: number
  warm: StartupResult
}

function label (configuration: Configuration): string {
  return configuration.mode === 'plain' ? `${configuration.routes} routes, plain Fastify` : `${configuration.routes} × ${configuration.versions}`
}

function main (): void {
  const pluginDescription = preparePlugin()
  const rows: Row[] = []
  // Rounds interleave the configurations (one fresh process each), so a machine whose speed drifts over minutes
  // slows every configuration of a round alike; ratios are taken within a round, then their median.
  const byConfiguration: StartupResult[][] = CONFIGURATIONS.map(() => [])
  for (let run = 0; run < RUNS; run++) {
    CONFIGURATIONS.forEach((configuration, index) => { byConfiguration[index].push(runChild(configuration, run === 0)) })
  }
  CONFIGURATIONS.forEach((configuration, index) => {
    const runs = byConfiguration[index]
    rows.push({
      configuration,
      runs,
      readyMs: median(runs.map((run) => run.readyMs).sort((a, b) => a - b)),
      rssMb: Math.max(...runs.map((run) => Math.max(run.rssMb, run.peakRssMb))),
      warm: runs[0]
    })
  })

  console.log('# Start-up: routes × versions, each version changing 2 schemas of 2 routes each (3 instructions, 2 converters)')
  console.log(`Node ${process.version}; ${RUNS} fresh processes per configuration; ready() = Fastify() to ready() resolved (median), ` +
    'measured after a first, 2-route application of the same kind in the same process (its ready() is the one-time initialization, ' +
    'reported apart); ' +
    `RSS = the largest of the runs (at ready(), peak included); ${pluginDescription}.\n`)
  const plainFor = (routes: number): Row | undefined => rows.find((row) => row.configuration.mode === 'plain' && row.configuration.routes === routes)
  console.log(markdownTable([
    'configuration', 'first 2-route app (one-time) ms', 'build versions ms', 'ready() ms (min–max)', 'ready() − plain ms', 'RSS MB', 'heap after GC MB', 'Fastify routes (API / all)',
    'distinct route shapes', 'routes × versions', 'first request to every route in every version: ms', 'RSS after it MB'
  ], rows.map((row) => {
    const times = row.runs.map((run) => run.readyMs).sort((a, b) => a - b)
    const plain = plainFor(row.configuration.routes)
    const first = row.runs[0]
    return [
      label(row.configuration),
      fixed(median(row.runs.map((run) => run.firstAppMs).sort((a, b) => a - b)), 0),
      fixed(median(row.runs.map((run) => run.buildVersionsMs).sort((a, b) => a - b)), 1),
      `${fixed(row.readyMs, 0)} (${fixed(times[0], 0)}–${fixed(times[times.length - 1], 0)})`,
      plain === undefined || plain === row ? '–' : fixed(row.readyMs - plain.readyMs, 0),
      fixed(row.rssMb, 0),
      fixed(median(row.runs.map((run) => run.heapMb).sort((a, b) => a - b)), 0),
      `${first.fastifyRoutes} / ${first.allFastifyRoutes}`,
      String(first.distinctShapes),
      String(row.configuration.routes * row.configuration.versions),
      `${fixed(row.warm.warmAllMs, 0)} (${row.warm.warmRequests} requests)`,
      fixed(row.warm.rssAfterWarmMb, 0)
    ]
  })))

  const headline = rows.find((row) => row.configuration.mode === 'versioned' && row.configuration.routes === 100 && row.configuration.versions === 50) as Row
  const ten = rows.find((row) => row.configuration.mode === 'versioned' && row.configuration.routes === 100 && row.configuration.versions === 10) as Row
  const wide = rows.find((row) => row.configuration.mode === 'versioned' && row.configuration.routes === 200) as Row
  const plain100 = plainFor(100) as Row
  const plain200 = plainFor(200) as Row
  const extra = (row: Row, plain: Row): number => row.readyMs - plain.readyMs
  console.log(`\nGrowth: from 10 to 50 versions (5×) the plugin's share of ready() went ${fixed(extra(ten, plain100), 0)} → ` +
    `${fixed(extra(headline, plain100), 0)} ms (${fixed(extra(headline, plain100) / extra(ten, plain100))}×), distinct route shapes ` +
    `${ten.warm.distinctShapes} → ${headline.warm.distinctShapes}, Fastify routes ${ten.warm.fastifyRoutes} → ${headline.warm.fastifyRoutes}; ` +
    `from 100 to 200 routes at 50 versions: ${fixed(extra(headline, plain100), 0)} → ${fixed(extra(wide, plain200), 0)} ms.`)
  /** The median over rounds of `row`'s ready() over `reference`'s in the same round. */
  const pairedRatio = (row: Row, reference: Row): number =>
    median(row.runs.map((run, round) => run.readyMs / reference.runs[round].readyMs).sort((a, b) => a - b))
  const readyRatio = pairedRatio(headline, plain100)
  const rssExtra = headline.rssMb - plain100.rssMb
  const growth = pairedRatio(headline, ten)
  const verdict = (met: boolean): string => met ? 'MET' : 'NOT MET'
  const ratios = headline.runs.map((run, round) => fixed(run.readyMs / plain100.runs[round].readyMs)).join(', ')
  console.log(`Answer: 100 routes × 50 versions: ready() ${fixed(headline.readyMs, 0)} ms against plain Fastify's ${fixed(plain100.readyMs, 0)} ms (medians); ` +
    `per round ${ratios}: median ${fixed(readyRatio)}× ` +
    `(target ≤ ${fixed(READY_RATIO_TARGET, 1)}×: ${verdict(readyRatio <= READY_RATIO_TARGET)}); RSS ${fixed(headline.rssMb, 0)} MB = plain + ${fixed(rssExtra, 0)} MB ` +
    `(target ≤ + ${RSS_EXTRA_TARGET_MB} MB: ${verdict(rssExtra <= RSS_EXTRA_TARGET_MB)}); ready() from 10 to 50 versions ${fixed(ten.readyMs, 0)} → ` +
    `${fixed(headline.readyMs, 0)} ms, median of the rounds' ratios ${fixed(growth)}× (target ≤ ${fixed(GROWTH_TARGET, 1)}×: ${verdict(growth <= GROWTH_TARGET)}); ` +
    `${headline.warm.fastifyRoutes} Fastify routes for ${headline.configuration.routes * headline.configuration.versions} (route, version) pairs; ` +
    `first request to each of the ${headline.warm.warmRequests} (route, version) pairs: ${fixed(headline.warm.warmAllMs / headline.warm.warmRequests, 2)} ms on average.`)
}

main()
