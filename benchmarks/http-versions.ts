/**
 * Questions (issue 10): what does the plugin cost per request over HTTP, measured side by side in one run?
 *   (0) an ordinary, unversioned route in an application that registers the plugin, against the same route in
 *       plain Fastify: target ≥ 0.99× the requests per second (server CPU per request ≤ 1.01×);
 *   (a) a request for the newest of 10 versions, against plain Fastify: target ≥ 0.97× (CPU ≤ 1.03×);
 *   (b) a request for the oldest of 10 versions, through 9 request + 9 response converters, against the same
 *       conversions written by hand (a plain Fastify route on the oldest version's schemas whose handler runs the
 *       same statements): target ≥ 0.90× (CPU ≤ 1.11×).
 * The route: POST /users with a 5-field JSON body and a 6-field response; each of the 9 version changes renames
 * or removes one field of both schemas, with one request and one response converter (`benchmarks/_http-app.ts`).
 *
 * Method (as in the feasibility study, §6): one server process per configuration, pinned to one core with
 * `taskset`; autocannon in this process, pinned to another core; 127.0.0.1. Each round starts fresh server
 * processes (one process's own luck, its memory layout and JIT decisions, moves its figures by several percent,
 * which rounds on the same processes would not average out), checks every configuration (status, body, version
 * header, and that each version rejects another version's body), then warms up and measures each in turn (the
 * order rotated by one each round, so that each configuration is first, second, … equally often in 5, 10, …
 * rounds). Per round, each configuration's requests per second and server CPU time per
 * request (`utime + stime` from `/proc/<pid>/stat` over the measured window, divided by the requests) are
 * divided by its reference's of the same round; the answer is the median of those paired ratios. Every
 * configuration is sent the same `x-api-version` header (plain Fastify ignores it). Every response of every run
 * must be a 200 with the exact expected body.
 *
 * Run: `npm run bench -- http-versions` (about 6 minutes). Longer and steadier:
 *   BENCH_HTTP_ROUNDS=16 BENCH_HTTP_SECONDS=6 npm run bench -- http-versions
 * Other knobs: BENCH_HTTP_WARMUP (seconds per configuration and round, default 2), BENCH_HTTP_CONNECTIONS (default 10),
 * BENCH_HTTP_ONLY (comma-separated configuration names, e.g. plain,unversioned), BENCH_HTTP_CPU_PROF=<directory>
 * (servers write V8 CPU profiles there when they exit), BENCH_PLUGIN_SOURCE=ts|dist (by default the plugin is
 * compiled with tsc first, as published; see `benchmarks/_plugin.ts`).
 */
import { isDeepStrictEqual } from 'node:util'
import { cpus } from 'node:os'
import { fixed, markdownTable, median } from './_measure'
import { exchangeFor, HEADER, NEWEST_VERSION, OLDEST_VERSION, ROUTE, UNVERSIONED_ROUTE, VERSION_COUNT, type ServerKind } from './_http-app'
import { allowedCpus, measureLoad, pinSelf, startServer, type Exchange, type Measurement, type ServerProcess } from './_load'
import { preparePlugin } from './_plugin'

function numberFromEnv (name: string, fallback: number, minimum: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value < minimum) throw new Error(`${name} must be a number ≥ ${minimum}; got '${raw}'`)
  return value
}

const ROUNDS = numberFromEnv('BENCH_HTTP_ROUNDS', 10, 2)
const SECONDS = numberFromEnv('BENCH_HTTP_SECONDS', 4, 1)
const WARMUP = numberFromEnv('BENCH_HTTP_WARMUP', 2, 1)
const CONNECTIONS = numberFromEnv('BENCH_HTTP_CONNECTIONS', 10, 1)
const PROFILE_DIRECTORY = process.env.BENCH_HTTP_CPU_PROF

interface Configuration {
  readonly name: string
  readonly description: string
  readonly kind: ServerKind
  readonly url: string
  /** Index of the version whose body is sent (0 = newest). */
  readonly versionIndex: number
  /** The version header the response must carry (undefined: none). */
  readonly echoed: string | undefined
  /** The configuration it is compared with, and the ratio it must reach (undefined: no target). */
  readonly reference: string
  readonly target: number | undefined
}

const OLDEST = VERSION_COUNT - 1

const ALL_CONFIGURATIONS: readonly Configuration[] = [
  { name: 'plain', description: 'plain Fastify, HEAD route (baseline)', kind: 'plain', url: ROUTE, versionIndex: 0, echoed: undefined, reference: 'plain', target: undefined },
  {
    name: 'unversioned',
    description: '(0) ordinary unversioned route, app with the plugin',
    kind: 'versioned',
    url: UNVERSIONED_ROUTE,
    versionIndex: 0,
    echoed: undefined,
    reference: 'plain',
    target: 0.99
  },
  { name: 'newest', description: `(a) plugin, newest version ${NEWEST_VERSION}`, kind: 'versioned', url: ROUTE, versionIndex: 0, echoed: NEWEST_VERSION, reference: 'plain', target: 0.97 },
  {
    name: 'handwritten',
    description: 'hand-written: plain Fastify, oldest schemas, the 9 + 9 conversions in the handler',
    kind: 'handwritten',
    url: ROUTE,
    versionIndex: OLDEST,
    echoed: undefined,
    reference: 'plain',
    target: undefined
  },
  {
    name: 'oldest',
    description: `(b) plugin, oldest of ${VERSION_COUNT} versions ${OLDEST_VERSION}, 9 request + 9 response converters`,
    kind: 'versioned',
    url: ROUTE,
    versionIndex: OLDEST,
    echoed: OLDEST_VERSION,
    reference: 'handwritten',
    target: 0.90
  }
]

const ONLY = process.env.BENCH_HTTP_ONLY?.split(',').map((name) => name.trim()).filter((name) => name !== '')
const CONFIGURATIONS = ONLY === undefined
  ? ALL_CONFIGURATIONS
  : ALL_CONFIGURATIONS.filter((configuration) => ONLY.includes(configuration.name) || configuration.name === 'plain' ||
    ALL_CONFIGURATIONS.some((other) => ONLY.includes(other.name) && other.reference === configuration.name))

/** The exchange of a configuration; the exact expected body is the server's first answer, once checked. */
function exchangeOf (configuration: Configuration, server: ServerProcess): Exchange {
  const { body } = exchangeFor(configuration.versionIndex)
  return {
    url: `http://127.0.0.1:${server.port}${configuration.url}`,
    // Every configuration gets a version header (plain Fastify ignores it), so every one parses the same request headers.
    headers: { [HEADER]: versionValue(configuration.versionIndex) },
    body,
    expectBody: ''
  }
}

/** The version header value sent with the body of a version index. */
function versionValue (index: number): string {
  return index === 0 ? NEWEST_VERSION : OLDEST_VERSION
}

async function post (exchange: Exchange, body: string): Promise<{ status: number, text: string, version: string | null }> {
  const response = await fetch(exchange.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...exchange.headers },
    body
  })
  return { status: response.status, text: await response.text(), version: response.headers.get(HEADER) }
}

/**
 * Fails loudly unless the configuration answers as expected (status, body, version header), and its schema
 * rejects the body of the other end of the version range. Returns the exchange with the exact expected body.
 */
async function checkConfiguration (configuration: Configuration, exchange: Exchange): Promise<Exchange> {
  const where = `configuration '${configuration.name}'`
  const expected = exchangeFor(configuration.versionIndex).response
  const answer = await post(exchange, exchange.body)
  if (answer.status !== 200 || !isDeepStrictEqual(JSON.parse(answer.text), expected)) {
    throw new Error(`${where}: expected 200 ${JSON.stringify(expected)}, got ${answer.status} ${answer.text}`)
  }
  if (answer.version !== (configuration.echoed ?? null)) {
    throw new Error(`${where}: expected ${HEADER}: ${String(configuration.echoed)}, got ${String(answer.version)}`)
  }
  const otherBody = exchangeFor(configuration.versionIndex === 0 ? OLDEST : 0).body
  const rejected = await post(exchange, otherBody)
  if (rejected.status !== 400) throw new Error(`${where}: a body of another version must be rejected with 400; got ${rejected.status} ${rejected.text}`)
  return { ...exchange, expectBody: answer.text }
}

interface Sample {
  readonly round: number
  readonly measurement: Measurement
}

function spread (values: readonly number[], decimals: number): string {
  const sorted = [...values].sort((a, b) => a - b)
  return `${fixed(median(sorted), decimals)} (${fixed(sorted[0], decimals)}–${fixed(sorted[sorted.length - 1], decimals)})`
}

async function main (): Promise<void> {
  const pluginDescription = preparePlugin()
  const allowed = allowedCpus()
  const serverCpu = allowed !== undefined && allowed.length >= 2 ? allowed[0] : undefined
  const loadCpu = allowed !== undefined && allowed.length >= 2 ? allowed[1] : undefined
  const nodeFlags = PROFILE_DIRECTORY === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIRECTORY}`]

  const servers = new Map<string, ServerProcess>()
  const stopAll = async (): Promise<void> => {
    await Promise.all([...servers.values()].map((server) => server.stop()))
    servers.clear()
  }
  /** Fresh server processes for every configuration, checked. */
  const startAll = async (): Promise<Map<string, Exchange>> => {
    for (const configuration of CONFIGURATIONS) servers.set(configuration.name, await startServer(configuration.kind, serverCpu, nodeFlags))
    const exchanges = new Map<string, Exchange>()
    for (const configuration of CONFIGURATIONS) {
      exchanges.set(configuration.name, await checkConfiguration(configuration, exchangeOf(configuration, servers.get(configuration.name) as ServerProcess)))
    }
    return exchanges
  }
  try {
    if (loadCpu !== undefined) pinSelf(loadCpu)
    const cpuModel = cpus()[0]?.model ?? 'unknown CPU'
    console.log(`# HTTP: plugin vs plain Fastify and vs hand-written conversions, POST ${ROUTE} (5-field JSON body, 6-field response)`)
    console.log(`Node ${process.version}, ${cpuModel}; ` + (serverCpu === undefined
      ? 'NOT PINNED (taskset or a second CPU is unavailable): expect more noise; '
      : `servers pinned to CPU ${serverCpu}, autocannon (in this process) to CPU ${loadCpu}; `) +
      `${CONNECTIONS} connections; ${ROUNDS} rounds, each with fresh server processes, ${WARMUP} s warm-up then ${SECONDS} s measured per ` +
      `configuration, interleaved; ${pluginDescription}.`)
    console.log('Every configuration is checked in every round: 200, body, version header, another version\'s body rejected (400).\n')

    const samples = new Map<string, Sample[]>(CONFIGURATIONS.map((configuration) => [configuration.name, []]))
    for (let round = 1; round <= ROUNDS; round++) {
      // A process's own luck (memory layout, JIT decisions) shifts its figures by several percent: new processes each round average it out.
      const exchanges = await startAll()
      const run = async (configuration: Configuration, seconds: number): Promise<Measurement> =>
        await measureLoad(servers.get(configuration.name) as ServerProcess, exchanges.get(configuration.name) as Exchange, seconds, CONNECTIONS)
      // Each configuration takes each place in the order equally often (the order rotates by one each round), and is
      // warmed up just before it is measured: measured after the others' warm-ups, the first configuration of a round
      // shared its CPU with their background work (JIT, GC) and ran about 15 % slower (lab notes, 2026-11-28, night).
      const shift = (round - 1) % CONFIGURATIONS.length
      const order = [...CONFIGURATIONS.slice(shift), ...CONFIGURATIONS.slice(0, shift)]
      const line: string[] = []
      for (const configuration of order) {
        await run(configuration, WARMUP)
        const measurement = await run(configuration, SECONDS)
        samples.get(configuration.name)?.push({ round, measurement })
        line.push(`${configuration.name} ${fixed(measurement.throughput, 0)} req/s ${fixed(measurement.cpuPerRequest, 1)} µs`)
      }
      await stopAll()
      console.log(`round ${round}/${ROUNDS}: ${line.join(' · ')}`)
    }

    const rows: string[][] = []
    const verdicts: string[] = []
    const ratios = (own: readonly Sample[], reference: readonly Sample[]): { throughput: number[], cpu: number[] } => ({
      throughput: own.map((sample, index) => sample.measurement.throughput / reference[index].measurement.throughput),
      cpu: own.map((sample, index) => sample.measurement.cpuPerRequest / reference[index].measurement.cpuPerRequest)
    })
    const plain = samples.get('plain') as Sample[]
    for (const configuration of CONFIGURATIONS) {
      const own = samples.get(configuration.name) as Sample[]
      const reference = samples.get(configuration.reference) as Sample[]
      const toReference = ratios(own, reference)
      const toPlain = ratios(own, plain)
      const throughputRatio = median([...toReference.throughput].sort((a, b) => a - b))
      const cpuRatio = median([...toReference.cpu].sort((a, b) => a - b))
      const target = configuration.target
      const met = target === undefined ? undefined : throughputRatio >= target && cpuRatio <= 1 / target
      const isPlain = configuration.name === 'plain'
      rows.push([
        configuration.description,
        String(own.length),
        spread(own.map((sample) => sample.measurement.throughput), 0),
        spread(own.map((sample) => sample.measurement.cpuPerRequest), 1),
        isPlain ? '1' : spread(toPlain.throughput, 3),
        isPlain ? '1' : spread(toPlain.cpu, 3),
        configuration.reference === 'plain' ? '–' : `${spread(toReference.throughput, 3)} / ${spread(toReference.cpu, 3)} vs ${configuration.reference}`,
        fixed(median(own.map((sample) => sample.measurement.busy).sort((a, b) => a - b))),
        fixed(median(own.map((sample) => sample.measurement.loadBusy).sort((a, b) => a - b))),
        target === undefined ? '–' : `req/s ≥ ${fixed(target)}, CPU ≤ ${fixed(1 / target, 3)} (vs ${configuration.reference})`,
        met === undefined ? '–' : met ? 'yes' : '**NO**'
      ])
      if (isPlain) continue
      const extra = median(own.map((sample, index) => sample.measurement.cpuPerRequest - reference[index].measurement.cpuPerRequest).sort((a, b) => a - b))
      verdicts.push(`${configuration.description} vs ${configuration.reference}: throughput ratio ${fixed(throughputRatio, 3)}, server CPU per request ratio ` +
        `${fixed(cpuRatio, 3)} (${extra >= 0 ? '+' : ''}${fixed(extra, 2)} µs)` +
        (target === undefined ? '; no target.' : `; target ${fixed(target)}: ${met === true ? 'MET' : 'NOT MET'}.`))
    }
    console.log('\n' + markdownTable([
      'configuration', 'rounds', 'req/s median (min–max)', 'server CPU µs/req median (min–max)', 'req/s ratio vs plain, median of paired (min–max)',
      'CPU/req ratio vs plain, median of paired (min–max)', 'req/s / CPU ratios vs its reference', 'server busy', 'autocannon busy', 'target', 'met'
    ], rows))
    console.log('\nRatios are configuration ÷ reference of the same round; for CPU per request lower is better, so a target ratio t means ≤ 1/t. ' +
      'Busy = CPU time ÷ wall time (medians): a server busy well under 1 while autocannon is not saturated means the server ' +
      'waited for its CPU (other processes on the machine), which makes throughput noisy; CPU per request is the steadier figure.')
    for (const verdict of verdicts) console.log(`Answer ${verdict}`)
  } finally {
    await stopAll()
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
