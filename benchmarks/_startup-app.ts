/**
 * One start-up measurement, in a fresh process (a helper, started by `benchmarks/startup.ts`):
 * `node --expose-gc --import tsx benchmarks/_startup-app.ts <routes> <versions> plain|versioned [no-warm]`.
 * Prints one JSON line: the time to build the versions, the time from `Fastify()` to `ready()`, RSS and heap
 * after `ready()`, the Fastify routes registered (an `onRoute` counter), the distinct route shapes across versions,
 * then the time and RSS after a first request to every route in every version (which builds the route plans,
 * validators and serializers of older versions lazily), unless `no-warm` is given.
 *
 * The application: `routes` POST routes; routes 2k and 2k+1 share a body schema and a response schema, so every
 * schema is used by two routes. Each version change (one per version but the oldest) has 3 schema instructions
 * and 2 converters: it renames a field of one body schema and of the matching response schema, with a request
 * and a response converter, and changes a keyword of another body schema.
 * @module
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import { readFileSync } from 'node:fs'
import type { Instruction, RequestInfo, ResponseInfo, VersionBundle, VersionChangeClass } from '../plugin'
import { loadPlugin } from './_plugin'

// The build users run by default, or the sources (BENCH_PLUGIN_SOURCE, see ./_plugin.ts).
const {
  fastifyVersioner, HeadVersion, schema, Version, VersionBundle: Bundle, VersionChange, versioned, ConvertRequestToNextVersionFor,
  ConvertResponseToPreviousVersionFor
} = loadPlugin()

/** What the child prints. */
export interface StartupResult {
  routes: number
  versions: number
  mode: 'plain' | 'versioned'
  buildVersionsMs: number
  /**
   * `ready()` of a first, 2-route application of the same kind in the process: the one-time initialization
   * (modules' first runs, @fastify/swagger's lazy requires, JIT) that no later application pays again.
   */
  firstAppMs: number
  readyMs: number
  rssMb: number
  heapMb: number
  peakRssMb: number
  /** Routes registered with Fastify for the API (`/resource…`), copies included. */
  fastifyRoutes: number
  /** All routes registered with Fastify, the plugin's own (documents, docs pages) included. */
  allFastifyRoutes: number
  distinctShapes: number
  warmAllMs: number
  warmRequests: number
  rssAfterWarmMb: number
}

const gc = (globalThis as { gc?: () => void }).gc

function megabytes (bytes: number): number {
  return bytes / 1024 / 1024
}

/** Peak RSS of this process (VmHWM), in MB. */
function peakRssMb (): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))
  return match === null ? Number.NaN : Number(match[1]) / 1024
}

interface Pair {
  body: TObject
  response: TObject
  /** The renamed field's name in each version, newest first (index = version index). */
  nameAt: string[]
}

function buildPairs (count: number): Pair[] {
  return Array.from({ length: count }, (_, index) => ({
    body: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 100 }),
      email: Type.String({ maxLength: 200 }),
      age: Type.Integer({ minimum: 0, maximum: 200 }),
      tags: Type.Optional(Type.Array(Type.String({ maxLength: 30 }), { maxItems: 10 })),
      address: Type.Optional(Type.Object({ street: Type.String(), city: Type.String(), zip: Type.Optional(Type.String()) })),
      kind: Type.Optional(Type.Union([Type.Literal('person'), Type.Literal('company')])),
      note: Type.Optional(Type.String({ maxLength: 500 }))
    }, { $id: `Create${index}` }),
    response: Type.Object({
      id: Type.String(),
      name: Type.String(),
      email: Type.String(),
      age: Type.Integer(),
      tags: Type.Array(Type.String()),
      createdAt: Type.String()
    }, { $id: `Resource${index}` }),
    nameAt: []
  }))
}

function renameChange (step: number, pair: Pair, newer: string, older: string, keywordTarget: TSchema): VersionChangeClass {
  const instructions: Instruction[] = [
    schema(pair.body).field(newer).had({ name: older }),
    schema(pair.response).field(newer).had({ name: older }),
    schema(keywordTarget).field('email').had({ maxLength: 300 + step })
  ]
  class Change extends VersionChange {
    description = `Change ${step}: ${newer} was called ${older}; email had another maxLength.`
    instructionsToMigrateToPreviousVersion = instructions

    @ConvertRequestToNextVersionFor(pair.body)
    renameInRequest (request: RequestInfo) {
      request.body[newer] = request.body[older]
      delete request.body[older]
    }

    @ConvertResponseToPreviousVersionFor(pair.response)
    renameInResponse (response: ResponseInfo) {
      response.body[older] = response.body[newer]
      delete response.body[newer]
    }
  }
  Object.defineProperty(Change, 'name', { value: `StartupChange${step}` })
  return Change
}

/** The versions, newest first; fills each pair's `nameAt`. */
function buildVersions (pairs: Pair[], versionCount: number): VersionBundle {
  const current = pairs.map(() => 'name')
  const versions: Array<InstanceType<typeof Version>> = []
  for (let step = 0; step < versionCount; step++) {
    pairs.forEach((pair, index) => { pair.nameAt[step] = current[index] })
    const date = new Date(Date.UTC(2030, 0, 1) - step * 86_400_000)
    if (step === versionCount - 1) {
      versions.push(new Version(date))
      break
    }
    const renamed = (step * 7) % pairs.length
    const keyword = (step * 13 + 1) % pairs.length
    const older = `name_v${step}`
    versions.push(new Version(date, renameChange(step, pairs[renamed], current[renamed], older, pairs[keyword].body)))
    current[renamed] = older
  }
  return new Bundle(new HeadVersion(), ...versions)
}

function registerRoutes (api: FastifyInstance, pairs: Pair[], routes: number): void {
  for (let index = 0; index < routes; index++) {
    const pair = pairs[index >> 1]
    api.post(`/resource${index}`, { schema: { body: pair.body, response: { 200: pair.response } } }, async (request) => {
      const body = request.body as { name: string, email: string, age: number, tags?: string[] }
      return { id: `r${index}`, name: body.name, email: body.email, age: body.age, tags: body.tags ?? [], createdAt: '2030-01-01T00:00:00Z' }
    })
  }
}

/** Distinct (body form, response form) pairs per route across versions: what Fastify compiles, lazily. */
function countShapes (app: FastifyInstance): number {
  const ids = new Map<unknown, number>()
  const idOf = (value: unknown): number => {
    let id = ids.get(value)
    if (id === undefined) {
      id = ids.size
      ids.set(value, id)
    }
    return id
  }
  const shapes = new Set<string>()
  for (const routes of app.versioner.routes.values()) {
    for (const route of routes) shapes.add(`${route.headPath} ${idOf(route.schema.body)} ${idOf(route.schema.response?.['200'])}`)
  }
  return shapes.size
}

async function main (): Promise<void> {
  const [routesArg, versionsArg, modeArg, warmArg] = process.argv.slice(2)
  const warm = warmArg !== 'no-warm'
  const routes = Number(routesArg)
  const versionCount = Number(versionsArg)
  const mode = modeArg === 'plain' ? 'plain' : 'versioned'
  if (!(routes >= 2) || !(versionCount >= 1)) throw new Error('usage: _startup-app.ts <routes ≥ 2> <versions ≥ 1> plain|versioned [no-warm]')
  const pairs = buildPairs(Math.ceil(routes / 2))

  const versionsStart = process.hrtime.bigint()
  const bundle = mode === 'versioned' ? buildVersions(pairs, versionCount) : undefined
  const buildVersionsMs = Number(process.hrtime.bigint() - versionsStart) / 1e6

  // A first, small application of the same kind: what the process pays once, whatever the routes and versions.
  const firstStart = process.hrtime.bigint()
  const first = Fastify({ logger: false })
  const firstPairs = buildPairs(1)
  if (mode === 'plain') {
    registerRoutes(first, firstPairs, 2)
  } else {
    await first.register(fastifyVersioner, { versions: buildVersions(firstPairs, Math.min(versionCount, 2)) })
    await first.register(versioned(async (api) => { registerRoutes(api as unknown as FastifyInstance, firstPairs, 2) }))
  }
  await first.ready()
  const firstAppMs = Number(process.hrtime.bigint() - firstStart) / 1e6
  await first.close()

  const start = process.hrtime.bigint()
  const app = Fastify({ logger: false })
  let fastifyRoutes = 0
  let allFastifyRoutes = 0
  app.addHook('onRoute', (route) => {
    allFastifyRoutes++
    if (route.url.startsWith('/resource')) fastifyRoutes++
  })
  if (bundle === undefined) {
    registerRoutes(app, pairs, routes)
  } else {
    await app.register(fastifyVersioner, { versions: bundle })
    await app.register(versioned(async (api) => { registerRoutes(api as unknown as FastifyInstance, pairs, routes) }))
  }
  await app.ready()
  const readyMs = Number(process.hrtime.bigint() - start) / 1e6
  const rssMb = megabytes(process.memoryUsage().rss)
  const peakAtReady = peakRssMb()
  gc?.()
  const heapMb = megabytes(process.memoryUsage().heapUsed)

  // A first request to every route in every version, with the body that version expects.
  const versionValues = bundle?.versionValues ?? [undefined]
  const warmStart = process.hrtime.bigint()
  let warmRequests = 0
  for (let index = 0; index < (warm ? routes : 0); index++) {
    const pair = pairs[index >> 1]
    for (let versionIndex = 0; versionIndex < versionValues.length; versionIndex++) {
      const version = versionValues[versionIndex]
      const field = bundle === undefined ? 'name' : pair.nameAt[versionIndex]
      const response = await app.inject({
        method: 'POST',
        url: `/resource${index}`,
        headers: version === undefined ? {} : { 'x-api-version': version },
        payload: { [field]: 'Ada', email: 'ada@example.com', age: 36, tags: ['a'] }
      })
      const body = response.json() as Record<string, unknown>
      if (response.statusCode !== 200 || body[field] !== 'Ada' || body.email !== 'ada@example.com') {
        throw new Error(`POST /resource${index} in version ${String(version)}: expected 200 with ${field}; got ${response.statusCode} ${response.body}`)
      }
      warmRequests++
    }
  }
  const warmAllMs = Number(process.hrtime.bigint() - warmStart) / 1e6
  const rssAfterWarmMb = megabytes(process.memoryUsage().rss)
  // After the first requests: reading app.versioner.routes builds every version's route plan (see docs/decisions/0018-what-ready-builds.md).
  const distinctShapes = bundle === undefined ? routes : countShapes(app)

  const result: StartupResult = {
    routes,
    versions: versionCount,
    mode,
    buildVersionsMs,
    firstAppMs,
    readyMs,
    rssMb,
    heapMb,
    peakRssMb: peakAtReady,
    fastifyRoutes,
    allFastifyRoutes,
    distinctShapes,
    warmAllMs,
    warmRequests,
    rssAfterWarmMb
  }
  process.stdout.write(`${JSON.stringify(result)}\n`)
  await app.close()
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
