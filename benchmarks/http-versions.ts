/**
 * Questions: what does the plugin cost per request over HTTP, against a plain Fastify route with the same
 * schemas, measured in the same run?
 *   (a) a request for the newest version (`x-api-version` = newest): target ratio ≥ 0.97;
 *   (b) a request for the oldest of 10 versions, through 9 converters (each of the 9 version changes renames a
 *       field of the body, with a request converter): target ratio ≥ 0.90;
 *   (b') the same, where each version change also renames a field of the response (9 request + 9 response
 *       converters): measured against the same target.
 * Also measured, as a reference without a target: plain Fastify with three no-op route hooks (preValidation,
 * preSerialization, onSend), what hooks alone cost, the floor of any design that converts in Fastify's hooks.
 * The route: POST /users with a 3-field JSON body and a 4-field response schema (`benchmarks/_http-app.ts`).
 *
 * Method (as in the feasibility study, §6): one server process per configuration, pinned to one core with
 * `taskset`; autocannon in this process, pinned to another core; 127.0.0.1. Each round starts fresh server
 * processes (one process's own luck, its memory layout and JIT decisions, moves its figures by several percent,
 * which rounds on the same processes would not average out), checks every configuration (status, exact body,
 * version header, and that each version rejects the other's body), warms each up, then measures each in turn
 * (the order reversed on even rounds). Per round, each configuration's
 * requests per second and server CPU time per request (`utime + stime` from `/proc/<pid>/stat` over the
 * measured window, divided by the requests) are divided by plain Fastify's of the same round; the answer is the
 * median of those paired ratios. Plain Fastify is sent the same `x-api-version` header (which it ignores). Every response of every run must be a 200 with the exact expected body.
 *
 * Run: `npm run bench -- http-versions` (about 5 minutes). Longer and steadier:
 *   BENCH_HTTP_ROUNDS=16 BENCH_HTTP_SECONDS=6 npm run bench -- http-versions
 * Other knobs: BENCH_HTTP_WARMUP (seconds per configuration and round, default 2), BENCH_HTTP_CONNECTIONS (default 10),
 * BENCH_HTTP_CPU_PROF=<directory> (servers write V8 CPU profiles there when they exit), BENCH_PLUGIN_SOURCE=ts|dist
 * (by default the plugin is compiled with tsc first, as published; see `benchmarks/_plugin.ts`).
 */
import { cpus } from 'node:os'
import { fixed, markdownTable, median } from './_measure'
import { exchangeFor, HEADER, NEWEST_VERSION, OLDEST_VERSION, ROUTE, VERSION_COUNT, type ServerKind } from './_http-app'
import { allowedCpus, measureLoad, pinSelf, startServer, type Exchange, type Measurement, type ServerProcess } from './_load'
import { preparePlugin } from './_plugin'

function numberFromEnv (name: string, fallback: number, minimum: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value < minimum) throw new Error(`${name} must be a number ≥ ${minimum}; got '${raw}'`)
  return value
}

const ROUNDS = numberFromEnv('BENCH_HTTP_ROUNDS', 8, 2)
const SECONDS = numberFromEnv('BENCH_HTTP_SECONDS', 4, 1)
const WARMUP = numberFromEnv('BENCH_HTTP_WARMUP', 2, 1)
const CONNECTIONS = numberFromEnv('BENCH_HTTP_CONNECTIONS', 10, 1)
const PROFILE_DIRECTORY = process.env.BENCH_HTTP_CPU_PROF

interface Configuration {
  readonly name: string
  readonly description: string
  readonly kind: ServerKind
  /** Index of the version sent (0 = newest); also picks the field name of the body. */
  readonly versionIndex: number
  readonly version: string | undefined
  /** The ratio it must reach (undefined: no target). */
  readonly target: number | undefined
}

const CONFIGURATIONS: readonly Configuration[] = [
  { name: 'plain', description: 'plain Fastify route, same schemas (baseline)', kind: 'plain', versionIndex: 0, version: undefined, target: undefined },
  { name: 'hooks', description: 'reference: plain Fastify + 3 no-op route hooks', kind: 'hooks', versionIndex: 0, version: undefined, target: undefined },
  { name: 'newest', description: `(a) plugin, newest version ${NEWEST_VERSION}`, kind: 'versioned', versionIndex: 0, version: NEWEST_VERSION, target: 0.97 },
  {
    name: 'oldest',
    description: `(b) plugin, oldest of ${VERSION_COUNT} versions ${OLDEST_VERSION}, 9 request converters`,
    kind: 'versioned-request',
    versionIndex: VERSION_COUNT - 1,
    version: OLDEST_VERSION,
    target: 0.90
  },
  {
    name: 'oldest-both',
    description: `(b') plugin, oldest of ${VERSION_COUNT} versions ${OLDEST_VERSION}, 9 request + 9 response converters`,
    kind: 'versioned',
    versionIndex: VERSION_COUNT - 1,
    version: OLDEST_VERSION,
    target: 0.90
  }
]

function exchangeOf (configuration: Configuration, server: ServerProcess): Exchange {
  const { body, response } = exchangeFor(configuration.versionIndex, configuration.kind)
  return {
    url: `http://127.0.0.1:${server.port}${ROUTE}`,
    // Plain Fastify gets the newest version's header too (and ignores it), so every configuration parses the same request headers.
    headers: { [HEADER]: configuration.version ?? NEWEST_VERSION },
    body,
    expectBody: response
  }
}

async function post (exchange: Exchange, body: string): Promise<{ status: number, text: string, version: string | null }> {
  const response = await fetch(exchange.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...exchange.headers },
    body
  })
  return { status: response.status, text: await response.text(), version: response.headers.get(HEADER) }
}

/** Fails loudly unless the configuration answers exactly as expected, and its version rejects the other body shape. */
async function checkConfiguration (configuration: Configuration, exchange: Exchange): Promise<void> {
  const where = `configuration '${configuration.name}'`
  const answer = await post(exchange, exchange.body)
  if (answer.status !== 200 || answer.text !== exchange.expectBody) {
    throw new Error(`${where}: expected 200 ${exchange.expectBody}, got ${answer.status} ${answer.text}`)
  }
  const parsed = JSON.parse(answer.text) as Record<string, unknown>
  if (Object.keys(parsed).length !== 4) throw new Error(`${where}: the response must have 4 fields; got ${answer.text}`)
  if (answer.version !== (configuration.version ?? null)) {
    throw new Error(`${where}: expected ${HEADER}: ${String(configuration.version)}, got ${String(answer.version)}`)
  }
  if (configuration.version === undefined) return
  // The version's own schema is enforced: the body of the other end of the version range is a 400.
  const otherBody = exchangeFor(configuration.versionIndex === 0 ? VERSION_COUNT - 1 : 0, configuration.kind).body
  const rejected = await post(exchange, otherBody)
  if (rejected.status !== 400) throw new Error(`${where}: a body of another version must be rejected with 400; got ${rejected.status} ${rejected.text}`)
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
    const exchanges = new Map(CONFIGURATIONS.map((configuration) => [configuration.name, exchangeOf(configuration, servers.get(configuration.name) as ServerProcess)]))
    for (const configuration of CONFIGURATIONS) await checkConfiguration(configuration, exchanges.get(configuration.name) as Exchange)
    return exchanges
  }
  try {
    if (loadCpu !== undefined) pinSelf(loadCpu)
    const cpuModel = cpus()[0]?.model ?? 'unknown CPU'
    console.log(`# HTTP: plugin vs plain Fastify, POST ${ROUTE} (3-field JSON body, 4-field response schema)`)
    console.log(`Node ${process.version}, ${cpuModel}; ` + (serverCpu === undefined
      ? 'NOT PINNED (taskset or a second CPU is unavailable): expect more noise; '
      : `servers pinned to CPU ${serverCpu}, autocannon (in this process) to CPU ${loadCpu}; `) +
      `${CONNECTIONS} connections; ${ROUNDS} rounds, each with fresh server processes, ${WARMUP} s warm-up then ${SECONDS} s measured per ` +
      `configuration, interleaved; ${pluginDescription}.`)
    console.log('Every configuration is checked in every round: 200, exact body, version header echoed, other versions\' bodies rejected (400).\n')

    const samples = new Map<string, Sample[]>(CONFIGURATIONS.map((configuration) => [configuration.name, []]))
    for (let round = 1; round <= ROUNDS; round++) {
      // A process's own luck (memory layout, JIT decisions) shifts its figures by several percent: new processes each round average it out.
      const exchanges = await startAll()
      const run = async (configuration: Configuration, seconds: number): Promise<Measurement> =>
        await measureLoad(servers.get(configuration.name) as ServerProcess, exchanges.get(configuration.name) as Exchange, seconds, CONNECTIONS)
      const order = round % 2 === 0 ? [...CONFIGURATIONS].reverse() : CONFIGURATIONS
      for (const configuration of order) await run(configuration, WARMUP)
      const line: string[] = []
      for (const configuration of order) {
        const measurement = await run(configuration, SECONDS)
        samples.get(configuration.name)?.push({ round, measurement })
        line.push(`${configuration.name} ${fixed(measurement.throughput, 0)} req/s ${fixed(measurement.cpuPerRequest, 1)} µs`)
      }
      await stopAll()
      console.log(`round ${round}/${ROUNDS}: ${line.join(' · ')}`)
    }

    const baseline = samples.get('plain') as Sample[]
    const rows: string[][] = []
    const verdicts: string[] = []
    for (const configuration of CONFIGURATIONS) {
      const own = samples.get(configuration.name) as Sample[]
      const throughputRatios = own.map((sample, index) => sample.measurement.throughput / baseline[index].measurement.throughput)
      const cpuRatios = own.map((sample, index) => sample.measurement.cpuPerRequest / baseline[index].measurement.cpuPerRequest)
      const throughputRatio = median([...throughputRatios].sort((a, b) => a - b))
      const cpuRatio = median([...cpuRatios].sort((a, b) => a - b))
      const target = configuration.target
      const met = target === undefined ? undefined : throughputRatio >= target && cpuRatio <= 1 / target
      rows.push([
        configuration.description,
        String(own.length),
        spread(own.map((sample) => sample.measurement.throughput), 0),
        configuration.name === 'plain' ? '1.000' : spread(throughputRatios, 3),
        spread(own.map((sample) => sample.measurement.cpuPerRequest), 1),
        configuration.name === 'plain' ? '1.000' : spread(cpuRatios, 3),
        fixed(median(own.map((sample) => sample.measurement.busy).sort((a, b) => a - b))),
        fixed(median(own.map((sample) => sample.measurement.loadBusy).sort((a, b) => a - b))),
        target === undefined ? '–' : `req/s ≥ ${fixed(target)}, CPU ≤ ${fixed(1 / target, 3)}`,
        met === undefined ? '–' : met ? 'yes' : '**NO**'
      ])
      if (configuration.name === 'hooks') {
        verdicts.push(`${configuration.description}: throughput ratio ${fixed(throughputRatio, 3)}, server CPU per request ratio ${fixed(cpuRatio, 3)} ` +
          `(+${fixed((cpuRatio - 1) * 100, 1)}%); no target.`)
      } else if (target !== undefined) {
        verdicts.push(`${configuration.description}: throughput ratio ${fixed(throughputRatio, 3)}, server CPU per request ratio ${fixed(cpuRatio, 3)} ` +
          `(+${fixed((cpuRatio - 1) * 100, 1)}%); target ${fixed(target)}: ${met === true ? 'MET' : 'NOT MET'}.`)
      }
    }
    console.log('\n' + markdownTable([
      'configuration', 'rounds', 'req/s median (min–max)', 'req/s ratio vs plain, median of paired (min–max)', 'server CPU µs/req median (min–max)',
      'CPU µs/req ratio vs plain, median of paired (min–max)', 'server busy', 'autocannon busy', 'target', 'met'
    ], rows))
    console.log('\nRatios are config ÷ plain of the same round; for CPU per request lower is better, so a target ratio t means ≤ 1/t. ' +
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
