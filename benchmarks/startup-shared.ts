/**
 * Question: what does `ready()` cost an API a team has versioned monthly for years, with shared `$id` schemas most
 * routes use and each version change touching a few schemas (webhooks too), against plain Fastify with the same
 * HEAD routes? What grows faster than versions × routes?
 *
 * The application is `benchmarks/_shared-schemas-app.ts`: `GET` and `POST` routes on resources whose schemas hold
 * two shared schemas by `$ref` (one held by every route), one webhook per ten resources, and version changes that
 * each rename a shared schema's field, rename a resource's field and change a keyword (3 schema instructions, 4
 * converters). Sizes: V = 10, 20, 40 versions at R = 100 routes, and R = 50, 100, 200 at V = 20, with S = 8 shared
 * schemas; plain Fastify at each R. Each measurement is a fresh process, after a first small application of the same
 * kind in it (the one-time initialization, not measured); rounds interleave the sizes, and the table shows medians
 * (RSS: the largest). The counts (Fastify routes, schemas compiled by `ready()`) are the same in every run.
 *
 * Run: `npm run bench -- startup-shared`. More rounds: BENCH_STARTUP_RUNS=5. Profile `Fastify()` to `ready()` of one
 * size: `node --expose-gc --import tsx benchmarks/_shared-schemas-app.ts 40 100 8 versioned ready.cpuprofile` (after
 * a run, which compiles the plugin, or with BENCH_PLUGIN_SOURCE=ts).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fixed, markdownTable, median } from './_measure'
import { preparePlugin } from './_plugin'
import type { SharedSchemasResult } from './_shared-schemas-app'

const RUNS = Math.max(1, Number(process.env.BENCH_STARTUP_RUNS ?? 2) || 2)
const SHARED = 8

interface Size { versions: number, routes: number, mode: 'plain' | 'versioned' }

const SIZES: readonly Size[] = [
  { versions: 2, routes: 50, mode: 'plain' },
  { versions: 20, routes: 50, mode: 'versioned' },
  { versions: 2, routes: 100, mode: 'plain' },
  { versions: 10, routes: 100, mode: 'versioned' },
  { versions: 20, routes: 100, mode: 'versioned' },
  { versions: 40, routes: 100, mode: 'versioned' },
  { versions: 2, routes: 200, mode: 'plain' },
  { versions: 20, routes: 200, mode: 'versioned' }
]

function run (size: Size): SharedSchemasResult {
  const args = ['--expose-gc', '--import', 'tsx', join(__dirname, '_shared-schemas-app.ts'), String(size.versions), String(size.routes), String(SHARED), size.mode]
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 300_000 })
  const line = child.stdout.trim().split('\n').pop() ?? ''
  if (child.status !== 0 || !line.startsWith('{')) throw new Error(`_shared-schemas-app.ts ${args.slice(4).join(' ')}: exit ${String(child.status)}`)
  return JSON.parse(line) as SharedSchemasResult
}

function main (): void {
  const plugin = preparePlugin()
  const results: SharedSchemasResult[][] = SIZES.map(() => [])
  for (let round = 0; round < RUNS; round++) SIZES.forEach((size, index) => { results[index].push(run(size)) })
  const middle = (values: number[]): number => median([...values].sort((a, b) => a - b))
  const plainCpu = (routes: number): number => middle(results[SIZES.findIndex((size) => size.mode === 'plain' && size.routes === routes)].map((each) => each.readyCpuMs))
  console.log(`# Start-up with shared schemas: ${SHARED} shared \`$id\` schemas, each version change 3 schema instructions and 4 converters`)
  console.log(`Node ${process.version}; ${RUNS} fresh process(es) per size, medians; ${plugin}.\n`)
  console.log(markdownTable(
    ['size', 'ready() ms', 'ready() CPU ms', 'CPU − plain ms', '(CPU − plain) / (V × R) µs', 'RSS MB', 'heap after GC MB', 'Fastify routes', 'validators / serializers compiled'],
    SIZES.map((size, index) => {
      const runs = results[index]
      const cpu = middle(runs.map((each) => each.readyCpuMs))
      const extra = cpu - plainCpu(size.routes)
      const versioned = size.mode === 'versioned'
      return [
        versioned ? `V ${size.versions} × R ${size.routes}` : `plain, R ${size.routes}`,
        fixed(middle(runs.map((each) => each.readyMs)), 0),
        fixed(cpu, 0),
        versioned ? fixed(extra, 0) : '–',
        versioned ? fixed(extra * 1000 / (size.versions * size.routes), 0) : '–',
        fixed(Math.max(...runs.map((each) => each.rssMb)), 0),
        fixed(middle(runs.map((each) => each.heapMb)), 1),
        String(runs[0].fastifyRoutes),
        `${runs[0].validatorCompiles} / ${runs[0].serializerCompiles}`
      ]
    })))
}

main()
