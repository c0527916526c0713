/**
 * Where each microsecond of a request goes (a helper, run by hand; `benchmarks/run.js` skips files whose name starts
 * with `_`): `node --import tsx benchmarks/_profile-requests.ts [configuration…]` (default: oldest handwritten newest
 * plain). For each configuration of `benchmarks/_http-app.ts`, a fresh process builds the application, warms it
 * up, then runs V8's CPU profiler (through `node:inspector`, warm-up excluded) over `BENCH_PROFILE_REQUESTS`
 * requests sent with `app.inject()` (default 40000), sampling every `BENCH_PROFILE_INTERVAL` µs (default 25), and
 * prints each function's self time in µs a request, grouped by owner: the plugin (`lib/`), Fastify and its
 * dependencies, light-my-request, Node, V8 (GC, program). Proportions hold on a busy machine; absolute figures
 * scale with its speed. `BENCH_PROFILE_DIRECTORY=<dir>` also writes each `.cpuprofile` there (open it in Chrome's
 * DevTools). The plugin is compiled as published first (see ./_plugin.ts).
 * @module
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { join } from 'node:path'
import { buildBenchmarkApp, exchangeFor, HEADER, NEWEST_VERSION, OLDEST_VERSION, PER_REQUEST_CONFIGURATIONS } from './_http-app'
import { preparePlugin } from './_plugin'

const REQUESTS = Math.max(1000, Number(process.env.BENCH_PROFILE_REQUESTS ?? 40000) || 40000)
const INTERVAL = Math.max(10, Number(process.env.BENCH_PROFILE_INTERVAL ?? 25) || 25)
const TOP = 40

interface ProfileNode {
  id: number
  callFrame: { functionName: string, url: string, lineNumber: number }
  children?: number[]
}

interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
  startTime: number
  endTime: number
}

/** The owner of a function, by its file. */
function ownerOf (url: string, name: string): string {
  if (url === '') return name === '(garbage collector)' ? 'V8: GC' : name.startsWith('(') ? `V8: ${name}` : 'V8/Node builtins'
  if (url.includes('/node_modules/light-my-request/')) return 'light-my-request'
  if (url.includes('/node_modules/fastify/')) return 'Fastify'
  if (url.includes('/node_modules/')) return `Fastify's dependencies (${url.slice(url.lastIndexOf('/node_modules/') + 14).split('/')[0]})`
  if (url.startsWith('node:')) return 'Node'
  if (url.includes('/benchmarks/') && !url.includes('/benchmarks/results/')) return 'the benchmark (handler, converters, loop)'
  return 'the plugin'
}

function shortFile (url: string): string {
  const modules = url.lastIndexOf('/node_modules/')
  if (modules !== -1) return url.slice(modules + 14)
  const lib = url.lastIndexOf('/lib/')
  if (lib !== -1) return url.slice(lib + 1)
  return url.slice(url.lastIndexOf('/') + 1)
}

function keyOf (node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame
  return `${functionName === '' ? '(anonymous)' : functionName} ${url === '' ? '' : `${shortFile(url)}:${lineNumber + 1}`}`
}

/** The time of the samples whose stack holds each function of the plugin or Fastify (each sample counted once a function). */
function inclusiveTimes (profile: Profile): Map<string, number> {
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const times = new Map<string, number>()
  for (let index = 0; index < profile.samples.length; index++) {
    const seen = new Set<string>()
    for (let id: number | undefined = profile.samples[index]; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id) as ProfileNode
      const owner = ownerOf(node.callFrame.url, node.callFrame.functionName)
      if (owner !== 'the plugin' && owner !== 'Fastify') continue
      const key = keyOf(node)
      if (seen.has(key)) continue
      seen.add(key)
      times.set(key, (times.get(key) ?? 0) + (profile.timeDeltas[index] ?? 0))
    }
  }
  return times
}

/** Self time per function and per owner, in µs a request. */
function summarise (profile: Profile, requests: number): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const self = new Map<number, number>()
  for (let index = 0; index < profile.samples.length; index++) {
    const id = profile.samples[index]
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0))
  }
  const functions = new Map<string, number>()
  const owners = new Map<string, number>()
  let total = 0
  for (const [id, time] of self) {
    const node = byId.get(id) as ProfileNode
    const { functionName, url } = node.callFrame
    if (functionName === '(idle)') continue
    total += time
    const key = keyOf(node)
    functions.set(key, (functions.get(key) ?? 0) + time)
    const owner = ownerOf(url, functionName)
    owners.set(owner, (owners.get(owner) ?? 0) + time)
  }
  const perRequest = (time: number): string => (time / requests).toFixed(2).padStart(7)
  const lines = [`total (idle excluded): ${perRequest(total)} µs a request`, 'by owner:']
  for (const [owner, time] of [...owners].sort((a, b) => b[1] - a[1])) lines.push(`  ${perRequest(time)}  ${owner}`)
  lines.push(`top ${TOP} functions (self time):`)
  for (const [key, time] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, TOP)) lines.push(`  ${perRequest(time)}  ${key}`)
  lines.push('the plugin\'s functions (self time):')
  for (const [key, time] of [...functions].filter(([key]) => key.includes(' lib/')).sort((a, b) => b[1] - a[1])) lines.push(`  ${perRequest(time)}  ${key}`)
  lines.push(`the plugin's and Fastify's functions, top ${TOP} (inclusive time: with what they call):`)
  for (const [key, time] of [...inclusiveTimes(profile)].sort((a, b) => b[1] - a[1]).slice(0, TOP)) lines.push(`  ${perRequest(time)}  ${key}`)
  return lines.join('\n')
}

async function child (name: string): Promise<void> {
  const configuration = PER_REQUEST_CONFIGURATIONS[name]
  if (configuration === undefined) throw new Error(`unknown configuration ${name}: ${Object.keys(PER_REQUEST_CONFIGURATIONS).join(', ')}`)
  const app = await buildBenchmarkApp(configuration.kind)
  await app.ready()
  const options = {
    method: 'POST' as const,
    url: configuration.url,
    headers: { 'content-type': 'application/json', [HEADER]: configuration.versionIndex === 0 ? NEWEST_VERSION : OLDEST_VERSION },
    payload: exchangeFor(configuration.versionIndex).body
  }
  const expected = (await app.inject(options)).body
  const send = async (count: number): Promise<void> => {
    for (let index = 0; index < count; index++) {
      const response = await app.inject(options)
      if (response.statusCode !== 200 || response.body !== expected) throw new Error(`${name}: got ${response.statusCode} ${response.body}`)
    }
  }
  await send(5000)
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: INTERVAL })
  await session.post('Profiler.start')
  await send(REQUESTS)
  const { profile } = await session.post('Profiler.stop') as unknown as { profile: Profile }
  session.disconnect()
  await app.close()
  const directory = process.env.BENCH_PROFILE_DIRECTORY
  if (directory !== undefined && directory !== '') writeFileSync(join(directory, `${name}.cpuprofile`), JSON.stringify(profile))
  console.log(`## ${name} (${REQUESTS} requests, sampled every ${INTERVAL} µs)\n${summarise(profile, REQUESTS)}\n`)
}

function main (): void {
  const names = process.argv.slice(2)
  const description = preparePlugin()
  console.log(`# CPU profiles, in process (app.inject); Node ${process.version}; ${description}\n`)
  for (const name of names.length > 0 ? names : ['oldest', 'handwritten', 'newest', 'plain']) {
    const result = spawnSync(process.execPath, ['--import', 'tsx', __filename, '--child', name], { stdio: 'inherit' })
    if (result.status !== 0) process.exitCode = 1
  }
}

if (process.argv[2] === '--child') {
  child(process.argv[3]).catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
} else {
  main()
}
