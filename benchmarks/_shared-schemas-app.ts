/**
 * One start-up measurement of an API grown by monthly versions over shared `$id` schemas, in a fresh process (a helper,
 * started by `benchmarks/startup-shared.ts`):
 * `node --expose-gc --import tsx benchmarks/_shared-schemas-app.ts <versions> <routes> <shared> plain|versioned [<profile file>]`.
 * Prints one JSON line: `ready()` wall and CPU time, RSS and heap (after a GC) at `ready()`, the Fastify routes, the
 * schemas Fastify's compilers were asked to compile by `ready()`, then a check that a few routes answer in the newest
 * and oldest versions (not timed). Given a fifth argument, writes a CPU profile of `Fastify()` to `ready()` there.
 *
 * The application: `routes` routes on `routes / 2` resources, `GET /things<p>/:id` and `POST /things<p>` (routes
 * 2p and 2p + 1); resource p's body `Create<p>` and response `Thing<p>` (each with an `$id`) hold two shared
 * schemas by `$ref`: `Shared0` (every route) and `Shared<1 + p mod (shared − 1)>`, added with `app.addSchema`. One
 * webhook per ten resources (`thing<p>.created`, body `Thing<p>`). Each version change but the oldest has 3 schema
 * instructions and 4 converters: it renames the `label` of shared schema `k mod shared` (a request and a response
 * converter by that schema), renames the `name` of one resource (both its schemas, a request and a response converter)
 * and changes a keyword of another resource's body. Plain Fastify gets the same HEAD routes and shared schemas.
 * @module
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Instruction, RequestInfo, ResponseInfo, VersionBundle, VersionChangeClass } from '../plugin'
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import { loadPlugin } from './_plugin'

const {
  fastifyVersioner, HeadVersion, schema, Version, VersionBundle: Bundle, VersionChange, versioned, ConvertRequestToNextVersionFor,
  ConvertResponseToPreviousVersionFor
} = loadPlugin()

/** What the child prints. */
export interface SharedSchemasResult {
  versions: number
  routes: number
  shared: number
  mode: 'plain' | 'versioned'
  /** `Fastify()` to `ready()` resolved, wall clock, ms. */
  readyMs: number
  /** The process's CPU time (user + system, every thread) over the same span, ms. */
  readyCpuMs: number
  rssMb: number
  heapMb: number
  /** Routes registered with Fastify for the API (`/things…`). */
  fastifyRoutes: number
  /** Schemas given to Fastify's validator and serializer compilers by `ready()`. */
  validatorCompiles: number
  serializerCompiles: number
}

const gc = (globalThis as { gc?: () => void }).gc

interface Shared {
  schema: TObject
  /** The label's name at each level (0 = HEAD). */
  labelAt: string[]
}

interface Resource {
  create: TObject
  thing: TObject
  secondary: number
  nameAt: string[]
}

function sharedSchemas (count: number): Shared[] {
  return Array.from({ length: count }, (_, index) => ({
    schema: Type.Object({
      label: Type.String({ maxLength: 80 }),
      code: Type.String({ pattern: '^[A-Z]{3}$' }),
      amount: Type.Integer({ minimum: 0 }),
      note: Type.Optional(Type.String({ maxLength: 200 }))
    }, { $id: `Shared${index}` }),
    labelAt: []
  }))
}

function resources (count: number, shared: Shared[]): Resource[] {
  return Array.from({ length: count }, (_, index) => {
    const secondary = shared.length === 1 ? 0 : 1 + (index % (shared.length - 1))
    const fields = (): Record<string, TSchema> => ({
      name: Type.String({ minLength: 1, maxLength: 100 }),
      email: Type.String({ maxLength: 200 }),
      age: Type.Integer({ minimum: 0, maximum: 200 }),
      tags: Type.Optional(Type.Array(Type.String({ maxLength: 30 }), { maxItems: 10 })),
      primary: Type.Ref(shared[0].schema),
      secondary: Type.Ref(shared[secondary].schema)
    })
    return {
      create: Type.Object(fields(), { $id: `Create${index}` }),
      thing: Type.Object({ id: Type.String(), ...fields(), createdAt: Type.String() }, { $id: `Thing${index}` }),
      secondary,
      nameAt: []
    }
  })
}

function rename (target: Record<string, unknown>, from: string, to: string): void {
  if (!(from in target)) return
  target[to] = target[from]
  delete target[from]
}

/** The change of step `k`: renames shared schema `s`'s label and resource `r`'s name, changes resource `q`'s email keyword. */
function changeOf (k: number, s: Shared, r: Resource, q: Resource, names: { label: [string, string], name: [string, string] }): VersionChangeClass {
  const [label, oldLabel] = names.label
  const [name, oldName] = names.name
  const instructions: Instruction[] = [
    schema(s.schema).field(label).had({ name: oldLabel }),
    schema(r.create).field(name).had({ name: oldName }),
    schema(r.thing).field(name).had({ name: oldName }),
    schema(q.create).field('email').had({ maxLength: 300 + k })
  ]
  class Change extends VersionChange {
    description = `Change ${k}: a ${s.schema.$id as string}'s ${label} was its ${oldLabel}; ${r.create.$id as string}'s ${name} was ${oldName}.`
    instructionsToMigrateToPreviousVersion = instructions

    @ConvertRequestToNextVersionFor(s.schema)
    labelUp (request: RequestInfo) { rename(request.body, oldLabel, label) }

    @ConvertResponseToPreviousVersionFor(s.schema)
    labelDown (response: ResponseInfo) { rename(response.body, label, oldLabel) }

    @ConvertRequestToNextVersionFor(r.create)
    nameUp (request: RequestInfo) { rename(request.body, oldName, name) }

    @ConvertResponseToPreviousVersionFor(r.thing)
    nameDown (response: ResponseInfo) { rename(response.body, name, oldName) }
  }
  return Object.defineProperty(Change, 'name', { value: `SharedChange${k}` })
}

/** The versions, newest first (monthly back from 2030-01-01); fills the names at every level. */
function buildVersions (shared: Shared[], things: Resource[], count: number): VersionBundle {
  const labels = shared.map(() => 'label')
  const names = things.map(() => 'name')
  const versions: Array<InstanceType<typeof Version>> = []
  for (let k = 0; k < count; k++) {
    shared.forEach((each, index) => { each.labelAt[k] = labels[index] })
    things.forEach((each, index) => { each.nameAt[k] = names[index] })
    const date = new Date(Date.UTC(2030, -k, 1))
    if (k === count - 1) {
      versions.push(new Version(date))
      break
    }
    const [s, r, q] = [k % shared.length, (k * 7) % things.length, (k * 13 + 1) % things.length]
    const older = { label: [labels[s], `label_v${k}`] as [string, string], name: [names[r], `name_v${k}`] as [string, string] }
    versions.push(new Version(date, changeOf(k, shared[s], things[r], things[q], older)))
    labels[s] = older.label[1]
    names[r] = older.name[1]
  }
  return new Bundle(new HeadVersion(), ...versions)
}

function registerRoutes (api: FastifyInstance, things: Resource[], routes: number): void {
  for (let index = 0; index < routes; index++) {
    const p = index >> 1
    const { create, thing } = things[p]
    if (index % 2 === 0) {
      api.post(`/things${p}`, { schema: { body: create, response: { 200: thing } } }, async (request) =>
        ({ id: `t${p}`, ...(request.body as object), createdAt: '2030-01-01T00:00:00Z' }))
    } else {
      api.get(`/things${p}/:id`, { schema: { params: Type.Object({ id: Type.String() }), response: { 200: thing } } }, async (request) =>
        ({ id: (request.params as { id: string }).id, name: 'Ada', email: 'ada@example.com', age: 36, primary: part(), secondary: part(), createdAt: '2030-01-01T00:00:00Z' }))
    }
  }
}

function part (label = 'label'): Record<string, unknown> {
  return { [label]: 'L', code: 'ABC', amount: 3 }
}

/** Counts the schemas Fastify's compilers are given (the factories wrap Fastify's own). */
function countCompiles (app: FastifyInstance, counts: { validator: number, serializer: number }): void {
  app.setSchemaController({
    compilersFactory: {
      buildValidator: wrapFactory(require('@fastify/ajv-compiler')(), () => { counts.validator++ }),
      buildSerializer: wrapFactory(require('@fastify/fast-json-stringify-compiler')(), () => { counts.serializer++ })
    }
  })
}

function wrapFactory<T extends (...args: any[]) => (route: any) => unknown> (factory: T, count: () => void): T {
  return ((...args: Parameters<T>) => {
    const compile = factory(...args)
    return (route: unknown) => { count(); return compile(route) }
  }) as T
}

async function check (app: FastifyInstance, bundle: VersionBundle | undefined, shared: Shared[], things: Resource[], routes: number): Promise<void> {
  const levels = bundle === undefined ? [0] : [0, bundle.versionValues.length - 1]
  for (const level of levels) {
    const version = bundle?.versionValues[level]
    for (let p = 0; p < Math.min(things.length, 5); p++) {
      const thing = things[p]
      const name = thing.nameAt[level] ?? 'name'
      const labelOf = (index: number): string => shared[index].labelAt[level] ?? 'label'
      const payload = { [name]: 'Ada', email: 'ada@example.com', age: 36, primary: part(labelOf(0)), secondary: part(labelOf(thing.secondary)) }
      const response = await app.inject({ method: 'POST', url: `/things${p}`, headers: version === undefined ? {} : { 'x-api-version': version }, payload })
      const body = response.json() as Record<string, Record<string, unknown>>
      if (response.statusCode !== 200 || body[name] as unknown !== 'Ada' || body.primary[labelOf(0)] !== 'L') {
        throw new Error(`POST /things${p} in ${String(version)}: ${response.statusCode} ${response.body}`)
      }
      if (2 * p + 1 >= routes) continue
      const got = await app.inject({ url: `/things${p}/x`, headers: version === undefined ? {} : { 'x-api-version': version } })
      if (got.statusCode !== 200 || (got.json() as Record<string, unknown>)[name] !== 'Ada') throw new Error(`GET /things${p}/x in ${String(version)}: ${got.statusCode} ${got.body}`)
    }
  }
}

/** Starts V8's profiler (100 µs sampling); the function returned stops it and writes the profile to `path`. */
async function startProfile (): Promise<(path: string) => Promise<void>> {
  const session = new Session()
  session.connect()
  const post = async (method: string, params?: object): Promise<any> => await new Promise((resolve, reject) => {
    session.post(method, params, (error, result) => { if (error === null) resolve(result); else reject(error) })
  })
  await post('Profiler.enable')
  await post('Profiler.setSamplingInterval', { interval: 100 })
  await post('Profiler.start')
  return async (path) => {
    const { profile } = await post('Profiler.stop') as { profile: unknown }
    writeFileSync(path, JSON.stringify(profile))
    session.disconnect()
  }
}

async function main (): Promise<void> {
  const [versionsArg, routesArg, sharedArg, modeArg, profileArg] = process.argv.slice(2)
  const [versions, routes, sharedCount] = [Number(versionsArg), Number(routesArg), Number(sharedArg)]
  const mode = modeArg === 'plain' ? 'plain' : 'versioned'
  if (!(versions >= 2) || !(routes >= 2) || !(sharedCount >= 1)) throw new Error('usage: _shared-schemas-app.ts <versions ≥ 2> <routes ≥ 2> <shared ≥ 1> plain|versioned')
  const shared = sharedSchemas(sharedCount)
  const things = resources(Math.ceil(routes / 2), shared)
  const bundle = mode === 'versioned' ? buildVersions(shared, things, versions) : undefined

  // A first, small application of the same kind: the process's one-time initialization, not measured.
  const first = Fastify()
  const firstShared = sharedSchemas(2)
  const firstThings = resources(1, firstShared)
  for (const each of firstShared) first.addSchema(each.schema)
  if (mode === 'plain') registerRoutes(first, firstThings, 2)
  else {
    await first.register(fastifyVersioner, { versions: buildVersions(firstShared, firstThings, 3) })
    await first.register(versioned(async (api) => { registerRoutes(api as unknown as FastifyInstance, firstThings, 2) }))
  }
  await first.ready()
  await first.close()
  gc?.()

  const counts = { validator: 0, serializer: 0 }
  let fastifyRoutes = 0
  const cpu = process.cpuUsage()
  const start = process.hrtime.bigint()
  const profiler = profileArg === undefined ? undefined : await startProfile()
  const app = Fastify()
  countCompiles(app, counts)
  app.addHook('onRoute', (route) => { if (route.url.startsWith('/things')) fastifyRoutes++ })
  for (const each of shared) app.addSchema(each.schema)
  if (bundle === undefined) registerRoutes(app, things, routes)
  else {
    await app.register(fastifyVersioner, { versions: bundle })
    for (let p = 0; p < things.length; p += 10) app.versioner.webhooks.add({ name: `thing${p}.created`, body: things[p].thing })
    await app.register(versioned(async (api) => { registerRoutes(api as unknown as FastifyInstance, things, routes) }))
  }
  await app.ready()
  const readyMs = Number(process.hrtime.bigint() - start) / 1e6
  const used = process.cpuUsage(cpu)
  if (profiler !== undefined) await profiler(profileArg)
  const rssMb = process.memoryUsage().rss / 1024 / 1024
  gc?.()
  const heapMb = process.memoryUsage().heapUsed / 1024 / 1024
  const compiled = { ...counts }
  await check(app, bundle, shared, things, routes)
  const result: SharedSchemasResult = {
    versions,
    routes,
    shared: sharedCount,
    mode,
    readyMs,
    readyCpuMs: (used.user + used.system) / 1000,
    rssMb,
    heapMb,
    fastifyRoutes,
    validatorCompiles: compiled.validator,
    serializerCompiles: compiled.serializer
  }
  process.stdout.write(`${JSON.stringify(result)}\n`)
  await app.close()
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
