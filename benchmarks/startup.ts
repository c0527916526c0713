/**
 * Question (issue 10, target (c)): how long does `ready()` take, and how much memory does the process hold, for 100
 * routes × 50 versions where each version changes 2 schemas of 2 routes, against plain Fastify with the same 100
 * routes? Targets: `ready()` within 1.5× plain Fastify's, RSS within plain Fastify's + 40 MB, and `ready()` of
 * 50 versions within 1.3× that of 10 versions. And how do they grow: with the number of distinct route shapes
 * (what actually differs between versions), not with routes × versions?
 * With BENCH_STARTUP=shared: what does `ready()` cost an API versioned monthly for years, whose routes hold shared
 * `$id` schemas, with webhooks, against plain Fastify with the same HEAD routes; what grows faster than versions ×
 * routes?
 *
 * The application is `benchmarks/_startup-app.ts`. By default (the README's rows): each version change has 3 schema
 * instructions (a field renamed in a body schema and in its response schema, with a request and a response converter;
 * a keyword changed in another body schema); every schema is used by two routes. Configurations: 100 × 10, 100 × 25,
 * 100 × 50, 200 × 50, and plain Fastify with the same 100 and 200 HEAD routes as the baseline. With
 * BENCH_STARTUP=shared: GET and POST routes on resources holding 2 of 8 shared schemas by `$ref`, one webhook per ten
 * resources, each change also renaming a shared schema's field (4 instructions, 4 converters); V = 10, 20, 40 versions
 * at R = 100 routes, and R = 50, 100, 200 at V = 20; plain Fastify at each R.
 *
 * Each measurement runs in a fresh process (RSS is per process), configurations interleaved round by round; the table
 * shows the median time and the largest RSS of the runs, and the ratios are medians of the rounds' ratios. The counts
 * (Fastify routes, schemas compiled by `ready()`) are the same in every run. The first run of each configuration also
 * sends a first request to every route in every version: the route plans, validators and serializers of older versions
 * are built then, lazily, so that cost is reported apart from `ready()`.
 *
 * Run: `npm run bench -- startup`; `BENCH_STARTUP=shared npm run bench -- startup`. More runs per configuration:
 * BENCH_STARTUP_RUNS=5. Profile `Fastify()` to `ready()` of one size (after a run, which compiles the plugin, or with
 * BENCH_PLUGIN_SOURCE=ts): `node --expose-gc --import tsx benchmarks/_startup-app.ts 100 40 versioned --shared 8
 * --webhooks --profile ready.cpuprofile`.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fixed, markdownTable, median } from './_measure'
import { preparePlugin } from './_plugin'
import type { AppOptions, StartupResult } from './_startup-app'

if (![undefined, '', 'shared'].includes(process.env.BENCH_STARTUP)) throw new Error(`BENCH_STARTUP must be 'shared' or unset; got '${process.env.BENCH_STARTUP}'`)
const SHARED = process.env.BENCH_STARTUP === 'shared'
const RUNS = Math.max(1, Number(process.env.BENCH_STARTUP_RUNS ?? (SHARED ? 2 : 3)) || (SHARED ? 2 : 3))
/** `ready()` of 100 × 50 over plain Fastify's with the same 100 routes. */
const READY_RATIO_TARGET = 1.5
/** RSS of 100 × 50 minus plain Fastify's with the same 100 routes, MB. */
const RSS_EXTRA_TARGET_MB = 40
/** `ready()` of 100 × 50 over 100 × 10. */
const GROWTH_TARGET = 1.3

const size = (routes: number, versions: number, mode: AppOptions['mode'] = 'versioned'): AppOptions =>
  SHARED ? { routes, versions, mode, shared: 8, webhooks: true } : { routes, versions, mode, shared: 0, webhooks: false }

const CONFIGURATIONS: readonly AppOptions[] = SHARED
  ? [size(50, 1, 'plain'), size(50, 20), size(100, 1, 'plain'), size(100, 10), size(100, 20), size(100, 40), size(200, 1, 'plain'), size(200, 20)]
  : [size(100, 1, 'plain'), size(100, 10), size(100, 25), size(100, 50), size(200, 1, 'plain'), size(200, 50)]

function runChild (options: AppOptions, warm: boolean): StartupResult {
  const args = ['--expose-gc', '--import', 'tsx', join(__dirname, '_startup-app.ts'), String(options.routes), String(options.versions), options.mode,
    '--shared', String(options.shared), ...(options.webhooks ? ['--webhooks'] : []), ...(warm ? ['--warm'] : [])]
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 300_000 })
  const line = result.stdout.trim().split('\n').pop() ?? ''
  if (result.status !== 0 || !line.startsWith('{')) {
    throw new Error(`_startup-app.ts ${args.slice(4).join(' ')} failed (${result.error?.message ?? result.signal ?? `exit code ${result.status}`})`)
  }
  return JSON.parse(line) as StartupResult
}

interface Row {
  configuration: AppOptions
  runs: StartupResult[]
  readyMs: number
  readyCpuMs: number
  rssMb: number
  warm: StartupResult
}

function label ({ mode, routes, versions }: AppOptions): string {
  return mode === 'plain' ? `${routes} routes, plain Fastify` : `${routes} × ${versions}`
}

const middle = (values: number[]): number => median([...values].sort((a, b) => a - b))

function main (): void {
  const pluginDescription = preparePlugin()
  // Rounds interleave the configurations (one fresh process each), so a machine whose speed drifts over minutes
  // slows every configuration of a round alike; ratios are taken within a round, then their median.
  const byConfiguration: StartupResult[][] = CONFIGURATIONS.map(() => [])
  for (let run = 0; run < RUNS; run++) {
    CONFIGURATIONS.forEach((configuration, index) => { byConfiguration[index].push(runChild(configuration, run === 0)) })
  }
  const rows: Row[] = CONFIGURATIONS.map((configuration, index) => {
    const runs = byConfiguration[index]
    return {
      configuration,
      runs,
      readyMs: middle(runs.map((run) => run.readyMs)),
      readyCpuMs: middle(runs.map((run) => run.readyCpuMs)),
      rssMb: Math.max(...runs.map((run) => Math.max(run.rssMb, run.peakRssMb))),
      warm: runs[0]
    }
  })

  console.log(SHARED
    ? '# Start-up with shared schemas: routes × versions over 8 shared `$id` schemas, with webhooks, each version change 4 schema instructions and 4 converters'
    : '# Start-up: routes × versions, each version changing 2 schemas of 2 routes each (3 instructions, 2 converters)')
  console.log(`Node ${process.version}; ${RUNS} fresh processes per configuration; ready() = Fastify() to ready() resolved (median; CPU: ` +
    'process.cpuUsage() over the same span), measured after a first, 2-route application of the same kind in the same process (its ready() ' +
    'is the one-time initialization, reported apart); ' +
    `RSS = the largest of the runs (at ready(), peak included); ${pluginDescription}.\n`)
  const plainFor = (routes: number): Row | undefined => rows.find((row) => row.configuration.mode === 'plain' && row.configuration.routes === routes)
  console.log(markdownTable([
    'configuration', 'first 2-route app (one-time) ms', 'build versions ms', 'ready() ms (min–max)', 'ready() − plain ms', 'ready() CPU ms',
    'CPU − plain ms', '(CPU − plain) / (V × R) µs', 'RSS MB', 'heap after GC MB', 'Fastify routes (API / all)', 'validators / serializers compiled',
    'distinct route shapes', 'routes × versions', 'first request to every route in every version: ms', 'RSS after it MB'
  ], rows.map((row) => {
    const times = row.runs.map((run) => run.readyMs).sort((a, b) => a - b)
    const plain = plainFor(row.configuration.routes)
    const versioned = plain !== undefined && plain !== row
    const first = row.runs[0]
    return [
      label(row.configuration),
      fixed(middle(row.runs.map((run) => run.firstAppMs)), 0),
      fixed(middle(row.runs.map((run) => run.buildVersionsMs)), 1),
      `${fixed(row.readyMs, 0)} (${fixed(times[0], 0)}–${fixed(times[times.length - 1], 0)})`,
      versioned ? fixed(row.readyMs - plain.readyMs, 0) : '–',
      fixed(row.readyCpuMs, 0),
      versioned ? fixed(row.readyCpuMs - plain.readyCpuMs, 0) : '–',
      versioned ? fixed((row.readyCpuMs - plain.readyCpuMs) * 1000 / (row.configuration.routes * row.configuration.versions), 0) : '–',
      fixed(row.rssMb, 0),
      fixed(middle(row.runs.map((run) => run.heapMb)), 1),
      `${first.fastifyRoutes} / ${first.allFastifyRoutes}`,
      `${first.validatorCompiles} / ${first.serializerCompiles}`,
      String(first.distinctShapes),
      String(row.configuration.routes * row.configuration.versions),
      `${fixed(row.warm.requestsMs, 0)} (${row.warm.requests} requests)`,
      fixed(row.warm.rssAfterRequestsMb, 0)
    ]
  })))
  if (SHARED) return

  const find = (routes: number, versions: number): Row => rows.find((row) => row.configuration.mode === 'versioned' &&
    row.configuration.routes === routes && row.configuration.versions === versions) as Row
  const [headline, ten, wide] = [find(100, 50), find(100, 10), find(200, 50)]
  const plain100 = plainFor(100) as Row
  const plain200 = plainFor(200) as Row
  const extra = (row: Row, plain: Row): number => row.readyMs - plain.readyMs
  console.log(`\nGrowth: from 10 to 50 versions (5×) the plugin's share of ready() went ${fixed(extra(ten, plain100), 0)} → ` +
    `${fixed(extra(headline, plain100), 0)} ms (${fixed(extra(headline, plain100) / extra(ten, plain100))}×), distinct route shapes ` +
    `${ten.warm.distinctShapes} → ${headline.warm.distinctShapes}, Fastify routes ${ten.warm.fastifyRoutes} → ${headline.warm.fastifyRoutes}; ` +
    `from 100 to 200 routes at 50 versions: ${fixed(extra(headline, plain100), 0)} → ${fixed(extra(wide, plain200), 0)} ms.`)
  /** The median over rounds of `row`'s ready() over `reference`'s in the same round. */
  const pairedRatio = (row: Row, reference: Row): number => middle(row.runs.map((run, round) => run.readyMs / reference.runs[round].readyMs))
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
    `first request to each of the ${headline.warm.requests} (route, version) pairs: ${fixed(headline.warm.requestsMs / headline.warm.requests, 2)} ms on average.`)
}

main()
