/**
 * One in-process per-request measurement (a helper, started by `benchmarks/per-request.ts` in a fresh process
 * with a young generation large enough that no garbage collection runs while measuring):
 * `node --expose-gc --max-semi-space-size=… --import tsx benchmarks/_per-request-app.ts <configuration> <requests>`.
 * Builds the configuration's application (`benchmarks/_http-app.ts`), warms it up, prints `ready`, then answers
 * `cpu <n>` lines on stdin with `cpu <µs per request>` over `<n>` requests sent with `app.inject()` (no sockets:
 * the figures are the application's own work plus light-my-request's, the same in every configuration). Any
 * other line (or the end of stdin) moves on: it prints one JSON line with the bytes allocated per request (heap
 * used after − before over `<requests>` requests, the median of 3 windows in which no GC ran), and, from V8's
 * sampling heap profiler (collected objects included), the bytes allocated per request by each function.
 * @module
 */
import { Session } from 'node:inspector/promises'
import { performance, PerformanceObserver } from 'node:perf_hooks'
import { getHeapStatistics } from 'node:v8'
import { buildBenchmarkApp, injectOptionsFor, PER_REQUEST_CONFIGURATIONS } from './_http-app'
import { answerCpuWindows } from './_windows'

/** What the child prints. */
export interface PerRequestResult {
  configuration: string
  requests: number
  bytesPerRequest: number
  /** Measuring windows (of 3) spoiled by a garbage collection; the bytes are the median of the others. */
  gcs: number
  /** Bytes allocated per request by functions of the plugin (sampled), by `function file:line`. */
  pluginAllocations: Record<string, number>
  /** Bytes allocated per request by every function (sampled), by `function file:line` (files relative to node_modules or the repository). */
  allocations: Record<string, number>
  /** Bytes allocated per request by all sampled functions (sampled; compare with bytesPerRequest). */
  sampledBytesPerRequest: number
}

interface ProfileNode {
  callFrame: { functionName: string, url: string, lineNumber: number }
  selfSize: number
  children: ProfileNode[]
}

async function main (): Promise<void> {
  const [name, requestsArg] = process.argv.slice(2)
  const configuration = PER_REQUEST_CONFIGURATIONS[name]
  const requests = Number(requestsArg)
  if (configuration === undefined || !(requests > 0)) throw new Error(`usage: _per-request-app.ts ${Object.keys(PER_REQUEST_CONFIGURATIONS).join('|')} <requests>`)
  const app = await buildBenchmarkApp(configuration.kind)
  await app.ready()
  const options = injectOptionsFor(configuration)
  const expected = (await app.inject(options)).body
  const send = async (count: number): Promise<void> => {
    for (let index = 0; index < count; index++) {
      const response = await app.inject(options)
      if (response.statusCode !== 200 || response.body !== expected) throw new Error(`${name}: got ${response.statusCode} ${response.body}`)
    }
  }
  await send(Math.max(2000, requests))

  // CPU time, in windows the parent asks for on stdin ("cpu <n>"; "bytes" moves on to the allocation figures),
  // so that it can interleave the configurations' windows finely: the machine's load then weighs on all alike.
  await answerCpuWindows(send)
  const gc = (globalThis as { gc?: () => void }).gc

  const gcTimes: number[] = []
  const observer = new PerformanceObserver((list) => { for (const entry of list.getEntries()) gcTimes.push(entry.startTime) })
  observer.observe({ entryTypes: ['gc'] })
  const windows: Array<{ bytes: number, start: number, end: number }> = []
  for (let window = 0; window < 3; window++) {
    gc?.()
    await new Promise((resolve) => setTimeout(resolve, 10))
    const start = performance.now()
    const heapBefore = getHeapStatistics().used_heap_size
    await send(requests)
    windows.push({ bytes: (getHeapStatistics().used_heap_size - heapBefore) / requests, start, end: performance.now() })
  }
  await new Promise((resolve) => setTimeout(resolve, 10))
  observer.disconnect()
  const clean = windows.filter((window) => !gcTimes.some((time) => time >= window.start && time <= window.end))
  const gcs = windows.length - clean.length
  const bytesPerRequest = clean.length === 0 ? Number.NaN : clean.map((window) => window.bytes).sort((a, b) => a - b)[Math.floor((clean.length - 1) / 2)]

  // Where the plugin allocates: V8's sampling heap profiler, objects collected since included.
  const session = new Session()
  session.connect()
  await session.post('HeapProfiler.enable')
  await session.post('HeapProfiler.startSampling', { samplingInterval: 128, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
  await send(requests)
  const { profile } = await session.post('HeapProfiler.stopSampling') as unknown as { profile: { head: ProfileNode } }
  session.disconnect()
  const pluginAllocations: Record<string, number> = {}
  const allocations: Record<string, number> = {}
  let sampled = 0
  const visit = (node: ProfileNode): void => {
    sampled += node.selfSize
    const { url, functionName, lineNumber } = node.callFrame
    if (node.selfSize > 0) {
      const name = functionName === '' ? '(anonymous)' : functionName
      const inModules = url.lastIndexOf('node_modules/')
      const file = inModules !== -1 ? url.slice(inModules + 'node_modules/'.length) : url.includes('/lib/') ? url.slice(url.lastIndexOf('/lib/') + 1) : url.slice(url.lastIndexOf('/') + 1)
      const key = `${name} ${file}:${lineNumber + 1}`
      allocations[key] = (allocations[key] ?? 0) + node.selfSize / requests
      if (/\/(plugin-build|dist)\/|\/wt-[^/]+\/lib\/|\/main\/lib\//.test(url) && inModules === -1) {
        pluginAllocations[key] = (pluginAllocations[key] ?? 0) + node.selfSize / requests
      }
    }
    for (const child of node.children) visit(child)
  }
  visit(profile.head)
  await app.close()

  const result: PerRequestResult = {
    configuration: name,
    requests,
    bytesPerRequest,
    gcs,
    pluginAllocations,
    allocations,
    sampledBytesPerRequest: sampled / requests
  }
  process.stdout.write(`${JSON.stringify(result)}\n`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
