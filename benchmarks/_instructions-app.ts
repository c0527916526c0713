/**
 * One run to count instructions in (a helper, started by `benchmarks/compare-builds.ts` with
 * `BENCH_COMPARE_COUNT=instructions`, under valgrind's callgrind):
 * `node --single-threaded --import tsx benchmarks/_instructions-app.ts <configuration> <warm-up> <requests>`.
 * Builds the configuration's application (`benchmarks/_http-app.ts`), then sends `<warm-up>` requests, empties the
 * young generation, writes `warm` and waits for a line on its standard input (or its end), sends `<requests>` more with `app.inject()`, each checked (200, the body of the first), and exits. Two runs that differ only in
 * `<requests>` differ by the instructions those requests took: start-up, warm-up and exit cancel out. A run whose
 * counted requests met a garbage collection fails: its count would not be of the requests alone.
 * @module
 */
import { readSync, writeSync } from 'node:fs'
import { GCProfiler } from 'node:v8'
import { buildBenchmarkApp, injectOptionsFor, PER_REQUEST_CONFIGURATIONS } from './_http-app'

/** Blocks until standard input gives a line or ends (a pipe's end may be non-blocking: then polls each millisecond). */
function waitForLine (): void {
  const byte = Buffer.alloc(1)
  const pause = new Int32Array(new SharedArrayBuffer(4))
  for (;;) {
    try {
      if (readSync(0, byte) === 0 || byte[0] === 10) return
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return
      Atomics.wait(pause, 0, 0, 1)
    }
  }
}

async function main (): Promise<void> {
  const [name, warmUpArg, requestsArg] = process.argv.slice(2)
  const configuration = PER_REQUEST_CONFIGURATIONS[name]
  const total = Number(warmUpArg) + Number(requestsArg)
  if (configuration === undefined || !Number.isInteger(total) || total < 1) {
    throw new Error(`usage: _instructions-app.ts ${Object.keys(PER_REQUEST_CONFIGURATIONS).join('|')} <warm-up> <requests>`)
  }
  const app = await buildBenchmarkApp(configuration.kind)
  await app.ready()
  const options = injectOptionsFor(configuration)
  let expected: string | undefined
  const send = async (count: number): Promise<void> => {
    for (let index = 0; index < count; index++) {
      const response = await app.inject(options)
      expected ??= response.body
      if (response.statusCode !== 200 || response.body !== expected) throw new Error(`${name}: got ${response.statusCode} ${response.body}`)
    }
  }
  await send(Number(warmUpArg))
  // A young-generation collection at the warm-up's end, in both runs; the young generation (see ./_instructions.ts)
  // then holds what the counted requests allocate, so that no collection falls among them. Not a full one: V8's
  // forced full collection (`gc()`) throws away optimized code, which the counted requests would then compile again.
  ;(globalThis as { gc?: (options: { type: 'minor' }) => void }).gc?.({ type: 'minor' })
  // Instrumentation is switched on here (./_instructions.ts): say so, and wait for a line (or the input's end).
  writeSync(1, 'warm\n')
  waitForLine()
  const collections = new GCProfiler()
  collections.start()
  await send(Number(requestsArg))
  const collected = collections.stop().statistics.map((collection) => collection.gcType)
  if (collected.length > 0) throw new Error(`${name}: garbage collected among the counted requests (${collected.join(', ')}): change <warm-up> or <requests>`)
  await app.close()
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
