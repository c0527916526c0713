/**
 * One run to count instructions in (a helper, started by `benchmarks/compare-builds.ts` with
 * `BENCH_COMPARE_COUNT=instructions`, under valgrind's callgrind):
 * `node --single-threaded --import tsx benchmarks/_instructions-app.ts <configuration> <warm-up> <requests>`.
 * Builds the configuration's application (`benchmarks/_http-app.ts`), then sends `<warm-up>` + `<requests>` requests
 * with `app.inject()`, each checked (200, the body of the first), and exits. Two runs that differ only in
 * `<requests>` differ by the instructions those requests took: start-up, warm-up and exit cancel out.
 * @module
 */
import { buildBenchmarkApp, exchangeFor, HEADER, NEWEST_VERSION, OLDEST_VERSION, PER_REQUEST_CONFIGURATIONS } from './_http-app'

async function main (): Promise<void> {
  const [name, warmUpArg, requestsArg] = process.argv.slice(2)
  const configuration = PER_REQUEST_CONFIGURATIONS[name]
  const total = Number(warmUpArg) + Number(requestsArg)
  if (configuration === undefined || !Number.isInteger(total) || total < 1) {
    throw new Error(`usage: _instructions-app.ts ${Object.keys(PER_REQUEST_CONFIGURATIONS).join('|')} <warm-up> <requests>`)
  }
  const app = await buildBenchmarkApp(configuration.kind)
  await app.ready()
  const options = {
    method: 'POST' as const,
    url: configuration.url,
    headers: { 'content-type': 'application/json', [HEADER]: configuration.versionIndex === 0 ? NEWEST_VERSION : OLDEST_VERSION },
    payload: exchangeFor(configuration.versionIndex).body
  }
  let expected: string | undefined
  for (let index = 0; index < total; index++) {
    const response = await app.inject(options)
    expected ??= response.body
    if (response.statusCode !== 200 || response.body !== expected) throw new Error(`${name}: got ${response.statusCode} ${response.body}`)
  }
  await app.close()
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
