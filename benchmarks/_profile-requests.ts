/**
 * Where each microsecond of a request goes (a helper, run by hand; `benchmarks/run.js` skips files whose name starts
 * with `_`): `node --import tsx benchmarks/_profile-requests.ts [configuration…]` (default: oldest handwritten newest
 * plain unversioned). One process per configuration of `benchmarks/_http-app.ts` builds its application and warms
 * it up, then runs V8's CPU profiler (through `node:inspector`, warm-up excluded) while it answers short windows of
 * `app.inject()` calls that this process interleaves across the configurations (as `per-request.ts` does), so that a
 * busy machine weighs on every configuration alike: `BENCH_PROFILE_WINDOWS` windows (default 100) of
 * `BENCH_PROFILE_WINDOW` requests (default 400), sampled every `BENCH_PROFILE_INTERVAL` µs (default 50). Each
 * prints its self time in µs a request, idle excluded: by owner (the plugin, Fastify, light-my-request, Node and V8,
 * GC), by stage of the request path for the plugin's functions and the validation Fastify runs, and its top
 * functions. Proportions hold on a busy machine; absolute figures scale with its speed.
 * `BENCH_PROFILE_DIRECTORY=<dir>` also writes each `.cpuprofile` there (open it in Chrome's DevTools);
 * `BENCH_PLUGIN_PATH=<plugin.js>` profiles another build (see `compare-builds.ts`), else the plugin is compiled as
 * published first (see ./_plugin.ts); `BENCH_PROFILE_BASE=<plugin.js>` profiles each configuration of the plugin with
 * that build too, in the same interleaved windows (before and after a change, under the same load).
 * @module
 */
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { join } from 'node:path'
import { buildBenchmarkApp, injectOptionsFor, PER_REQUEST_CONFIGURATIONS } from './_http-app'
import { preparePlugin } from './_plugin'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { answerCpuWindows, nextLine, type MeasuringChild } from './_windows'

const WINDOWS = Math.max(4, Number(process.env.BENCH_PROFILE_WINDOWS ?? 100) || 100)
const WINDOW = Math.max(50, Number(process.env.BENCH_PROFILE_WINDOW ?? 400) || 400)
const INTERVAL = Math.max(10, Number(process.env.BENCH_PROFILE_INTERVAL ?? 50) || 50)
const TOP = 25

interface ProfileNode {
  id: number
  callFrame: { functionName: string, url: string, lineNumber: number }
  children?: number[]
}

interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
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

/** A plugin's file (compiled anywhere, or the sources). */
function pluginFile (url: string): string | undefined {
  if (url.includes('/node_modules/')) return undefined
  const match = /\/lib\/(\w+\/[\w-]+)\.[jt]s$/.exec(url)
  return match === null ? undefined : match[1]
}

/** The stages of the request path, by the plugin's file (both layouts of lib/serve/ since issue 32) and function. */
const STAGES: ReadonlyArray<readonly [RegExp, string]> = [
  [/json-copy/, 'response copy'],
  [/shape-walk|shapes/, 'cleaning (shape walk)'],
  [/step-runner|converter-inputs|form-fields|own-properties|occurrences/, 'converters: runner and inputs'],
  [/pick-version|version-picking|preview-access|routing-pick|request-state|request-logging/, 'pick and request state'],
  [/version-headers|lifecycle/, 'version headers'],
  [/migrate-request|request-hook/, 'request hook'],
  [/migrate-response|response-hooks|schema-forms|value-guards/, 'response hooks'],
  [/error-handling|version-refusals|route-preparation/, 'errors']
]

/** The stage or owner a sample's function belongs to; `parentOf` walks up its stack. */
function ownerOf (node: ProfileNode, ancestors: () => Iterable<ProfileNode>): string {
  const { functionName, url } = node.callFrame
  if (functionName === '(garbage collector)') return 'V8: GC'
  if (/^validate\d+$/.test(functionName) && url === '') {
    for (const ancestor of ancestors()) {
      if (ancestor.callFrame.url.includes('fastify/lib/validation.js')) return "Fastify's validation (route schema)"
      if (pluginFile(ancestor.callFrame.url) !== undefined) return 'plugin: validation against the version'
    }
    return "Fastify's validation (route schema)"
  }
  const file = pluginFile(url)
  if (file !== undefined) {
    const stage = STAGES.find(([pattern]) => pattern.test(file))?.[1] ?? file
    if (stage !== 'converters: runner and inputs') return `plugin: ${stage}`
    for (const ancestor of ancestors()) {
      const name = ancestor.callFrame.functionName
      if (name === 'convert') return 'plugin: request converters (runner and inputs)'
      if (name === 'convertBody' || name === 'versionerSendHook') return 'plugin: response converters (runner and inputs)'
    }
    return `plugin: ${stage}`
  }
  if (url.includes('/node_modules/light-my-request/')) return 'light-my-request'
  if (url.includes('fastify/lib/validation.js')) return "Fastify's validation (route schema)"
  if (url.includes('fastify/lib/hooks.js')) return "Fastify's hook runners"
  if (url.includes('/node_modules/fastify/')) return 'Fastify (other)'
  if (url.includes('/node_modules/')) return `Fastify's dependencies (${shortFile(url).split('/')[0]})`
  if (url.includes('/benchmarks/')) return 'the benchmark: handler, conversions, loop'
  return 'Node and V8'
}

/** Self time per stage or owner and per function, in µs a request. */
function summarise (profile: Profile, requests: number): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
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
    if (node.callFrame.functionName === '(idle)') continue
    total += time
    const key = keyOf(node)
    functions.set(key, (functions.get(key) ?? 0) + time)
    const ancestors = function * (): Iterable<ProfileNode> {
      for (let at = parent.get(id); at !== undefined; at = parent.get(at)) yield byId.get(at) as ProfileNode
    }
    const owner = ownerOf(node, ancestors)
    owners.set(owner, (owners.get(owner) ?? 0) + time)
  }
  const perRequest = (time: number): string => (time / requests).toFixed(2).padStart(7)
  const lines = [`total (idle excluded): ${perRequest(total)} µs a request`, 'by stage or owner:']
  for (const [owner, time] of [...owners].sort((a, b) => b[1] - a[1])) lines.push(`  ${perRequest(time)}  ${owner}`)
  lines.push(`top ${TOP} functions (self time):`)
  for (const [key, time] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, TOP)) lines.push(`  ${perRequest(time)}  ${key}`)
  return lines.join('\n')
}

async function child (name: string): Promise<void> {
  const configuration = PER_REQUEST_CONFIGURATIONS[name]
  if (configuration === undefined) throw new Error(`unknown configuration ${name}: ${Object.keys(PER_REQUEST_CONFIGURATIONS).join(', ')}`)
  const app = await buildBenchmarkApp(configuration.kind)
  await app.ready()
  const options = injectOptionsFor(configuration)
  const expected = (await app.inject(options)).body
  let sent = 0
  const send = async (count: number): Promise<void> => {
    for (let index = 0; index < count; index++) {
      const response = await app.inject(options)
      if (response.statusCode !== 200 || response.body !== expected) throw new Error(`${name}: got ${response.statusCode} ${response.body}`)
    }
    sent += count
  }
  await send(5000)
  sent = 0
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: INTERVAL })
  await session.post('Profiler.start')
  await answerCpuWindows(send)
  const { profile } = await session.post('Profiler.stop') as unknown as { profile: Profile }
  session.disconnect()
  await app.close()
  const directory = process.env.BENCH_PROFILE_DIRECTORY
  const build = process.env.BENCH_PLUGIN_PATH === undefined ? '' : `-${process.env.BENCH_PLUGIN_PATH.split('/').at(-2) ?? 'build'}`
  if (directory !== undefined && directory !== '') writeFileSync(join(directory, `${name}${build}.cpuprofile`), JSON.stringify(profile))
  process.stdout.write(`${JSON.stringify(`## ${name} (${sent} requests, sampled every ${INTERVAL} µs)\n${summarise(profile, sent)}\n`)}\n`)
}

/** A measured process: a configuration, with this build or the base build. */
interface Run {
  readonly label: string
  readonly name: string
  readonly pluginPath: string | undefined
}

async function main (): Promise<void> {
  const names = process.argv.slice(2)
  const chosen = names.length > 0 ? names : ['oldest', 'handwritten', 'newest', 'plain', 'unversioned']
  const description = process.env.BENCH_PLUGIN_PATH === undefined ? preparePlugin() : `plugin: ${process.env.BENCH_PLUGIN_PATH}`
  // With BENCH_PROFILE_BASE=<plugin.js> (a build compare-builds made), each configuration of the plugin runs with it too, interleaved.
  const base = process.env.BENCH_PROFILE_BASE
  const runs: Run[] = chosen.flatMap((name) => [
    { label: name, name, pluginPath: process.env.BENCH_PLUGIN_PATH },
    ...(base === undefined || PER_REQUEST_CONFIGURATIONS[name]?.kind !== 'versioned' ? [] : [{ label: `${name} (base: ${base})`, name, pluginPath: base }])
  ])
  console.log(`# CPU profiles, in process (app.inject), ${WINDOWS} interleaved windows of ${WINDOW} requests; Node ${process.version}; ${description}\n`)
  const children = new Map<Run, MeasuringChild>()
  try {
    for (const run of runs) {
      // Node's default heap (no larger young generation, unlike the CPU benchmarks): garbage collection is part of the cost.
      const env = run.pluginPath === undefined ? process.env : { ...process.env, BENCH_PLUGIN_PATH: run.pluginPath }
      const started = spawn(process.execPath, ['--import', 'tsx', __filename, '--child', run.name], { stdio: ['pipe', 'pipe', 'inherit'], env })
      const reader = createInterface({ input: started.stdout })
      const measured: MeasuringChild = { process: started, reader, lines: reader[Symbol.asyncIterator]() }
      children.set(run, measured)
      if (await nextLine(measured) !== 'ready') throw new Error(`${run.label} did not start`)
    }
    for (let window = 0; window < WINDOWS; window++) {
      for (const run of window % 2 === 0 ? runs : [...runs].reverse()) {
        const measured = children.get(run) as MeasuringChild
        measured.process.stdin.write(`cpu ${WINDOW}\n`)
        await nextLine(measured)
      }
    }
    for (const run of runs) {
      const measured = children.get(run) as MeasuringChild
      measured.process.stdin.end('stop\n')
      console.log((JSON.parse(await nextLine(measured)) as string).replace(`## ${run.name} `, `## ${run.label} `))
    }
  } finally {
    for (const measured of children.values()) { measured.reader.close(); measured.process.kill() }
  }
}

if (process.argv[2] === '--child') {
  child(process.argv[3]).catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
} else {
  main().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
