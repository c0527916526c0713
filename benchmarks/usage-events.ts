/**
 * Question (issue 23): what does one subscriber of `fastify-versioner:served` cost a request of the oldest version
 * (9 + 9 converters, the per-request benchmark's app: `benchmarks/_http-app.ts`)? Target: ≤ 1 % of its CPU time
 * per request. The subscriber is the README's recipe reduced to its work in the process: it reads `version`,
 * `route`, `changes` and `client` (the `clientId` option set) and counts per change in a local map, as a metrics
 * client would.
 *
 * One process, one application, windows of `app.inject()` calls alternating without and with the subscriber (the
 * order reversed every other pair, so the machine's load weighs on both alike); the cost is the median over pairs of
 * (CPU per request with − without), and the ratio to the median without. Each window checks the answer.
 *
 * Run: `npm run bench -- usage-events` (not run by tests). Knobs: BENCH_USAGE_PAIRS (default 60),
 * BENCH_USAGE_WINDOW (requests per window, default 400).
 */
import diagnosticsChannel from 'node:diagnostics_channel'
import { buildBenchmarkApp, exchangeFor, HEADER, OLDEST_VERSION, ROUTE, VERSION_COUNT } from './_http-app'
import { fixed, markdownTable, median } from './_measure'
import { preparePlugin } from './_plugin'

const PAIRS = Math.max(4, Number(process.env.BENCH_USAGE_PAIRS ?? 60) || 60)
const WINDOW = Math.max(50, Number(process.env.BENCH_USAGE_WINDOW ?? 400) || 400)

interface Served { version: string, route: { method: string, url: string }, changes: readonly string[], client: string | undefined }

async function main (): Promise<void> {
  const source = preparePlugin()
  const clientId = (request: { headers: Record<string, unknown> }): string | undefined => {
    const account = request.headers['x-account']
    return typeof account === 'string' ? account : undefined
  }
  const app = await buildBenchmarkApp('versioned', { clientId })
  await app.ready()
  const { body } = exchangeFor(VERSION_COUNT - 1)
  const options = {
    method: 'POST' as const,
    url: ROUTE,
    headers: { 'content-type': 'application/json', [HEADER]: OLDEST_VERSION, 'x-account': 'acct_1' },
    payload: body
  }
  const expected = (await app.inject(options)).body
  const send = async (count: number): Promise<number> => {
    const before = process.cpuUsage()
    for (let index = 0; index < count; index++) {
      const response = await app.inject(options)
      if (response.statusCode !== 200 || response.body !== expected) throw new Error(`got ${response.statusCode} ${response.body}`)
    }
    const used = process.cpuUsage(before)
    return (used.user + used.system) / count
  }
  const counts = new Map<string, number>()
  let seen = 0
  const subscriber = (message: unknown): void => {
    const { version, route, changes, client } = message as Served
    seen++
    for (const change of changes) {
      const key = `${version} ${route.method} ${route.url} ${change} ${client ?? ''}`
      counts.set(key, (counts.get(key) ?? 0) + 1)
    }
  }
  await send(3000)
  const without: number[] = []
  const withOne: number[] = []
  const differences: number[] = []
  for (let pair = 0; pair < PAIRS; pair++) {
    const subscribedFirst = pair % 2 === 1
    const measureOne = async (subscribed: boolean): Promise<number> => {
      if (subscribed) diagnosticsChannel.subscribe('fastify-versioner:served', subscriber)
      try {
        return await send(WINDOW)
      } finally {
        if (subscribed) diagnosticsChannel.unsubscribe('fastify-versioner:served', subscriber)
      }
    }
    const first = await measureOne(subscribedFirst)
    const second = await measureOne(!subscribedFirst)
    const [plain, subscribed] = subscribedFirst ? [second, first] : [first, second]
    without.push(plain)
    withOne.push(subscribed)
    differences.push(subscribed - plain)
  }
  await app.close()
  if (seen !== PAIRS * WINDOW) throw new Error(`the subscriber saw ${seen} events, not ${PAIRS * WINDOW}`)
  const base = median([...without].sort((a, b) => a - b))
  const cost = median([...differences].sort((a, b) => a - b))
  console.log(`${source}; ${PAIRS} pairs of ${WINDOW} requests, oldest version (${OLDEST_VERSION}), ${counts.size} counted series\n`)
  console.log(markdownTable(['without a subscriber (µs/request)', 'with one (µs/request)', 'cost (µs/request, median of pairs)', 'cost (%)'], [[
    fixed(base), fixed(median([...withOne].sort((a, b) => a - b))), fixed(cost), fixed(cost / base * 100)
  ]]))
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
