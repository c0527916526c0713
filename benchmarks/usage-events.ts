/**
 * Question (issue 23): what does one subscriber of `fastify-versioner:served` cost a request of the oldest version
 * (9 + 9 converters, the per-request benchmark's app: `benchmarks/_http-app.ts`)? Target: ≤ 1 % of its CPU time
 * per request. The subscriber is the README's recipe reduced to its work in the process: it reads `version`,
 * `route`, `changes` and `client` (the `clientId` option set) and counts per change in a local map, as a metrics
 * client would.
 *
 * Two subscribers: `reading` only reads those fields (what the plugin costs: building and publishing the event),
 * `recipe` also counts (the plugin plus the application's own counting work).
 *
 * One process, one application, windows of `app.inject()` calls rotating between no subscriber, `reading` and
 * `recipe` (the order rotated every round, so the machine's load weighs on all alike); a cost is the median over
 * rounds of (CPU per request with − without), and its ratio to the median without. Each window checks the answer.
 * Windows are long (4,000 requests by default): subscribing and unsubscribing make V8 re-optimise the request hook,
 * which in windows of a few hundred requests weighs more than the event itself.
 *
 * Run: `npm run bench -- usage-events` (not run by tests). Knobs: BENCH_USAGE_PAIRS (rounds, default 30),
 * BENCH_USAGE_WINDOW (requests per window, default 4000).
 */
import diagnosticsChannel from 'node:diagnostics_channel'
import { buildBenchmarkApp, exchangeFor, HEADER, OLDEST_VERSION, ROUTE, VERSION_COUNT } from './_http-app'
import { fixed, markdownTable, median } from './_measure'
import { preparePlugin } from './_plugin'

const PAIRS = Math.max(4, Number(process.env.BENCH_USAGE_PAIRS ?? 30) || 30)
const WINDOW = Math.max(50, Number(process.env.BENCH_USAGE_WINDOW ?? 4000) || 4000)

interface Served { version: string, route: { method: string, url: string }, changes: readonly string[], client: string | undefined }

type Kind = 'none' | 'reading' | 'recipe'

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
  let read = 0
  const subscribers: Record<Exclude<Kind, 'none'>, (message: unknown) => void> = {
    reading: (message) => {
      const { version, route, changes, client } = message as Served
      seen++
      read += version.length + route.url.length + changes.length + (client?.length ?? 0)
    },
    recipe: (message) => {
      const { version, route, changes, client } = message as Served
      seen++
      for (const change of changes) {
        const key = `${version} ${route.method} ${route.url} ${change} ${client ?? ''}`
        counts.set(key, (counts.get(key) ?? 0) + 1)
      }
    }
  }
  await send(3000)
  const kinds: Kind[] = ['none', 'reading', 'recipe']
  const perKind: Record<Kind, number[]> = { none: [], reading: [], recipe: [] }
  const costs: Record<Exclude<Kind, 'none'>, number[]> = { reading: [], recipe: [] }
  for (let round = 0; round < PAIRS; round++) {
    const measured = new Map<Kind, number>()
    for (let index = 0; index < kinds.length; index++) {
      const kind = kinds[(index + round) % kinds.length]
      const subscriber = kind === 'none' ? undefined : subscribers[kind]
      if (subscriber !== undefined) diagnosticsChannel.subscribe('fastify-versioner:served', subscriber)
      try {
        measured.set(kind, await send(WINDOW))
      } finally {
        if (subscriber !== undefined) diagnosticsChannel.unsubscribe('fastify-versioner:served', subscriber)
      }
    }
    for (const kind of kinds) perKind[kind].push(measured.get(kind) ?? NaN)
    costs.reading.push((measured.get('reading') ?? NaN) - (measured.get('none') ?? NaN))
    costs.recipe.push((measured.get('recipe') ?? NaN) - (measured.get('none') ?? NaN))
  }
  await app.close()
  if (seen !== 2 * PAIRS * WINDOW || read === 0) throw new Error(`the subscribers saw ${seen} events, not ${2 * PAIRS * WINDOW}`)
  const sorted = (values: number[]): number[] => [...values].sort((a, b) => a - b)
  const base = median(sorted(perKind.none))
  console.log(`${source}; ${PAIRS} rounds of 3 windows of ${WINDOW} requests, oldest version (${OLDEST_VERSION}), ${counts.size} counted series\n`)
  console.log(markdownTable(['subscriber', 'µs/request (median)', 'cost against none (µs/request, median of rounds)', 'cost (%)'], [
    ['none', fixed(base), '–', '–'],
    ...(['reading', 'recipe'] as const).map((kind) => {
      const cost = median(sorted(costs[kind]))
      return [kind, fixed(median(sorted(perKind[kind]))), fixed(cost), fixed(cost / base * 100)]
    })
  ]))
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
