/**
 * One start-up measurement, in a fresh process (a helper, started by `benchmarks/startup.ts`):
 * `node --expose-gc --import tsx benchmarks/_startup-app.ts <routes> <versions> plain|versioned [--shared <n>] [--webhooks]
 * [--warm] [--profile <file>]`.
 * Prints one JSON line: the time to build the versions, `ready()` wall and CPU time from `Fastify()`, RSS (peak too) and
 * heap (after a GC) at `ready()`, the Fastify routes (an `onRoute` counter), the schemas Fastify's compilers were asked
 * to compile by `ready()`; then first requests, checked: with `--warm` to every route in every version, timed (they
 * build the route plans, validators and serializers of older versions, lazily), else to the first 10 routes in the
 * newest and oldest versions; then the distinct route shapes across versions. `--profile` writes a CPU profile of
 * `Fastify()` to `ready()`.
 *
 * The application: `routes` routes on `routes / 2` resources. Resource p has a body schema `Create<p>` and a response
 * schema, each with an `$id`. Each version change but the oldest (monthly back from 2030-01-01) renames the `name` of
 * one resource (both its schemas, a request and a response converter) and changes a keyword of another resource's body.
 * - Without `--shared` (the README's start-up rows): routes 2p and 2p + 1 are `POST /resource<2p>` and
 *   `POST /resource<2p+1>`, both on `Create<p>` and `Resource<p>`; 3 schema instructions and 2 converters a change.
 * - With `--shared <n>`: `n` shared schemas (`app.addSchema`), held by `$ref` in both schemas of every resource:
 *   `Shared0` and `Shared<1 + p mod (n − 1)>`; routes 2p and 2p + 1 are `POST /things<p>` and `GET /things<p>/:id`
 *   (response `Thing<p>`); each change also renames the `label` of shared schema `k mod n` (a request and a response
 *   converter by that schema): 4 schema instructions, 4 converters. `--webhooks`: one webhook per ten resources
 *   (`thing<p>.created`, body the resource's response schema).
 * Plain Fastify gets the same HEAD routes and shared schemas.
 * @module
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import { readFileSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import { parseArgs } from 'node:util'
import type { Instruction, RequestInfo, ResponseInfo, VersionBundle, VersionChangeClass } from '../plugin'
import { loadPlugin } from './_plugin'

// The build users run by default, or the sources (BENCH_PLUGIN_SOURCE, see ./_plugin.ts).
const {
  fastifyVersioner, HeadVersion, schema, Version, VersionBundle: Bundle, VersionChange, versioned, ConvertRequestToNextVersionFor,
  ConvertResponseToPreviousVersionFor
} = loadPlugin()

/** What the application is made of. */
export interface AppOptions {
  routes: number
  versions: number
  mode: 'plain' | 'versioned'
  /** Shared `$id` schemas (0: none, the README's application). */
  shared: number
  webhooks: boolean
}

/** What the child prints. */
export interface StartupResult extends AppOptions {
  buildVersionsMs: number
  /** `ready()` of a first, 2-route application of the same kind in the process: the one-time initialization. */
  firstAppMs: number
  /** `Fastify()` to `ready()` resolved, wall clock, ms. */
  readyMs: number
  /** The process's CPU time (user + system, every thread) over the same span, ms. */
  readyCpuMs: number
  rssMb: number
  peakRssMb: number
  heapMb: number
  /** Routes registered with Fastify for the API, copies included. */
  fastifyRoutes: number
  /** All routes registered with Fastify, the plugin's own (documents, docs pages) included. */
  allFastifyRoutes: number
  /** Schemas given to Fastify's validator and serializer compilers by `ready()`. */
  validatorCompiles: number
  serializerCompiles: number
  /** The first requests (`--warm`: every route in every version). */
  requests: number
  requestsMs: number
  rssAfterRequestsMb: number
  distinctShapes: number
}

const gc = (globalThis as { gc?: () => void }).gc
const megabytes = (bytes: number): number => bytes / 1024 / 1024

interface Shared {
  schema: TObject
  /** The label's name at each version index (0 = newest). */
  labelAt: string[]
}

interface Resource {
  create: TObject
  response: TObject
  secondary: number
  nameAt: string[]
}

interface Model {
  shared: Shared[]
  resources: Resource[]
  bundle: VersionBundle | undefined
  /** The API's paths start with it. */
  prefix: string
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
    const secondary = shared.length <= 1 ? 0 : 1 + (index % (shared.length - 1))
    const fields = (): Record<string, TSchema> => ({
      name: Type.String({ minLength: 1, maxLength: 100 }),
      email: Type.String({ maxLength: 200 }),
      age: Type.Integer({ minimum: 0, maximum: 200 }),
      tags: Type.Optional(Type.Array(Type.String({ maxLength: 30 }), { maxItems: 10 }))
    })
    if (shared.length > 0) {
      const refs = (): Record<string, TSchema> => ({ primary: Type.Ref(shared[0].schema), secondary: Type.Ref(shared[secondary].schema) })
      return {
        create: Type.Object({ ...fields(), ...refs() }, { $id: `Create${index}` }),
        response: Type.Object({ id: Type.String(), ...fields(), ...refs(), createdAt: Type.String() }, { $id: `Thing${index}` }),
        secondary,
        nameAt: []
      }
    }
    return {
      create: Type.Object({
        ...fields(),
        address: Type.Optional(Type.Object({ street: Type.String(), city: Type.String(), zip: Type.Optional(Type.String()) })),
        kind: Type.Optional(Type.Union([Type.Literal('person'), Type.Literal('company')])),
        note: Type.Optional(Type.String({ maxLength: 500 }))
      }, { $id: `Create${index}` }),
      response: Type.Object({
        id: Type.String(), name: Type.String(), email: Type.String(), age: Type.Integer(), tags: Type.Array(Type.String()), createdAt: Type.String()
      }, { $id: `Resource${index}` }),
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

/** The change of step `k`: renames resource `r`'s name (and shared schema `s`'s label), changes resource `q`'s email keyword. */
function changeOf (k: number, r: Resource, q: Resource, [name, oldName]: string[], label?: { shared: Shared, names: string[] }): VersionChangeClass {
  const [newLabel, oldLabel] = label?.names ?? []
  const instructions: Instruction[] = [
    ...(label === undefined ? [] : [schema(label.shared.schema).field(newLabel).had({ name: oldLabel })]),
    schema(r.create).field(name).had({ name: oldName }),
    schema(r.response).field(name).had({ name: oldName }),
    schema(q.create).field('email').had({ maxLength: 300 + k })
  ]
  class Change extends VersionChange {
    description = `Change ${k}: ${r.create.$id as string}'s ${name} was ${oldName}${label === undefined ? '' : `; a ${label.shared.schema.$id as string}'s ${newLabel} was its ${oldLabel}`}.`
    instructionsToMigrateToPreviousVersion = instructions

    @ConvertRequestToNextVersionFor(r.create)
    nameUp (request: RequestInfo) { rename(request.body, oldName, name) }

    @ConvertResponseToPreviousVersionFor(r.response)
    nameDown (response: ResponseInfo) { rename(response.body, name, oldName) }
  }
  if (label !== undefined) {
    Object.assign(Change.prototype, {
      labelUp (request: RequestInfo) { rename(request.body, oldLabel, newLabel) },
      labelDown (response: ResponseInfo) { rename(response.body, newLabel, oldLabel) }
    })
    ConvertRequestToNextVersionFor(label.shared.schema)(Change.prototype, 'labelUp')
    ConvertResponseToPreviousVersionFor(label.shared.schema)(Change.prototype, 'labelDown')
  }
  return Object.defineProperty(Change, 'name', { value: `StartupChange${k}` })
}

/** The versions, newest first (monthly back from 2030-01-01); fills the names at every version index. */
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
    const [r, q] = [(k * 7) % things.length, (k * 13 + 1) % things.length]
    const s = shared.length === 0 ? undefined : k % shared.length
    const label = s === undefined ? undefined : { shared: shared[s], names: [labels[s], `label_v${k}`] }
    versions.push(new Version(date, changeOf(k, things[r], things[q], [names[r], `name_v${k}`], label)))
    if (s !== undefined) labels[s] = `label_v${k}`
    names[r] = `name_v${k}`
  }
  return new Bundle(new HeadVersion(), ...versions)
}

function part (label = 'label'): Record<string, unknown> {
  return { [label]: 'L', code: 'ABC', amount: 3 }
}

function routePath (model: Model, index: number): string {
  return model.shared.length === 0 ? `/resource${index}` : index % 2 === 0 ? `/things${index >> 1}` : `/things${index >> 1}/:id`
}

function registerRoutes (api: FastifyInstance, model: Model, routes: number): void {
  for (let index = 0; index < routes; index++) {
    const response = { 200: model.resources[index >> 1].response }
    if (model.shared.length > 0 && index % 2 === 1) {
      api.get(routePath(model, index), { schema: { params: Type.Object({ id: Type.String() }), response } }, async (request) =>
        ({ id: (request.params as { id: string }).id, name: 'Ada', email: 'ada@example.com', age: 36, primary: part(), secondary: part(), createdAt: '2030-01-01T00:00:00Z' }))
    } else {
      api.post(routePath(model, index), { schema: { body: model.resources[index >> 1].create, response } }, async (request) =>
        ({ id: `r${index}`, tags: [], ...(request.body as object), createdAt: '2030-01-01T00:00:00Z' }))
    }
  }
}

function modelOf ({ routes, versions, mode, shared }: AppOptions): Model {
  const sharedSchemasMade = sharedSchemas(shared)
  const things = resources(Math.ceil(routes / 2), sharedSchemasMade)
  const bundle = mode === 'versioned' ? buildVersions(sharedSchemasMade, things, versions) : undefined
  return { shared: sharedSchemasMade, resources: things, bundle, prefix: shared === 0 ? '/resource' : '/things' }
}

/** Registers the application on `app` (the plugin, the webhooks, the routes). */
async function register (app: FastifyInstance, model: Model, { routes, webhooks }: AppOptions): Promise<void> {
  for (const each of model.shared) app.addSchema(each.schema)
  if (model.bundle === undefined) return registerRoutes(app, model, routes)
  await app.register(fastifyVersioner, { versions: model.bundle })
  for (let p = 0; p < (webhooks ? model.resources.length : 0); p += 10) app.versioner.webhooks.add({ name: `thing${p}.created`, body: model.resources[p].response })
  await app.register(versioned(async (api) => { registerRoutes(api as unknown as FastifyInstance, model, routes) }))
}

/** Sends a first request to each route of `routes` in each version index of `levels`, and checks the answer. */
async function firstRequests (app: FastifyInstance, model: Model, routes: number, levels: number[]): Promise<number> {
  let sent = 0
  for (let index = 0; index < routes; index++) {
    const resource = model.resources[index >> 1]
    for (const level of levels) {
      const version = model.bundle?.versionValues[level]
      const headers = version === undefined ? {} : { 'x-api-version': version }
      const name = resource.nameAt[level] ?? 'name'
      const labelOf = (shared: number): string => model.shared[shared].labelAt[level] ?? 'label'
      const parts = model.shared.length === 0 ? {} : { primary: part(labelOf(0)), secondary: part(labelOf(resource.secondary)) }
      const url = routePath(model, index).replace(':id', 'x')
      const response = model.shared.length > 0 && index % 2 === 1
        ? await app.inject({ url, headers })
        : await app.inject({ method: 'POST', url, headers, payload: { [name]: 'Ada', email: 'ada@example.com', age: 36, tags: ['a'], ...parts } })
      const body = response.json() as Record<string, unknown>
      if (response.statusCode !== 200 || body[name] !== 'Ada' || body.email !== 'ada@example.com' ||
        (model.shared.length > 0 && (body.primary as Record<string, unknown>)[labelOf(0)] !== 'L')) {
        throw new Error(`${url} in version ${String(version)}: expected 200 with ${name}; got ${response.statusCode} ${response.body}`)
      }
      sent++
    }
  }
  return sent
}

/** Counts the schemas Fastify's compilers are given (the factories wrap Fastify's own). */
function countCompiles (app: FastifyInstance, counts: { validator: number, serializer: number }): void {
  const wrap = <T extends (...args: any[]) => (route: any) => unknown>(factory: T, count: () => void): T =>
    ((...args: Parameters<T>) => {
      const compile = factory(...args)
      return (route: unknown) => { count(); return compile(route) }
    }) as T
  app.setSchemaController({
    compilersFactory: {
      buildValidator: wrap(require('@fastify/ajv-compiler')(), () => { counts.validator++ }),
      buildSerializer: wrap(require('@fastify/fast-json-stringify-compiler')(), () => { counts.serializer++ })
    }
  })
}

/** Distinct (body form, response form) pairs per route across versions: what Fastify compiles, lazily. */
function countShapes (app: FastifyInstance): number {
  const ids = new Map<unknown, number>()
  const idOf = (value: unknown): number => ids.get(value) ?? ids.set(value, ids.size).size - 1
  const shapes = new Set<string>()
  for (const routes of app.versioner.routes.values()) {
    for (const route of routes) shapes.add(`${route.headPath} ${idOf(route.schema.body)} ${idOf(route.schema.response?.['200'])}`)
  }
  return shapes.size
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
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { shared: { type: 'string', default: '0' }, webhooks: { type: 'boolean', default: false }, warm: { type: 'boolean', default: false }, profile: { type: 'string' } }
  })
  const options: AppOptions = {
    routes: Number(positionals[0]),
    versions: Number(positionals[1]),
    mode: positionals[2] === 'plain' ? 'plain' : 'versioned',
    shared: Number(values.shared),
    webhooks: values.webhooks === true
  }
  if (!(options.routes >= 2) || !(options.versions >= 1) || !(options.shared >= 0) || positionals.length !== 3) {
    throw new Error('usage: _startup-app.ts <routes ≥ 2> <versions ≥ 1> plain|versioned [--shared <n>] [--webhooks] [--warm] [--profile <file>]')
  }
  const versionsStart = process.hrtime.bigint()
  const model = modelOf(options)
  const buildVersionsMs = Number(process.hrtime.bigint() - versionsStart) / 1e6

  // A first, small application of the same kind: what the process pays once, whatever the routes and versions.
  const firstStart = process.hrtime.bigint()
  const firstOptions = { ...options, routes: 2, versions: Math.min(options.versions, 3), shared: Math.min(options.shared, 2), webhooks: false }
  const first = Fastify({ logger: false })
  await register(first, modelOf(firstOptions), firstOptions)
  await first.ready()
  const firstAppMs = Number(process.hrtime.bigint() - firstStart) / 1e6
  await first.close()
  gc?.()

  const counts = { validator: 0, serializer: 0 }
  const routeCounts = { api: 0, all: 0 }
  const cpu = process.cpuUsage()
  const start = process.hrtime.bigint()
  const profiler = values.profile === undefined ? undefined : await startProfile()
  const app = Fastify({ logger: false })
  countCompiles(app, counts)
  app.addHook('onRoute', (route) => {
    routeCounts.all++
    if (route.url.startsWith(model.prefix)) routeCounts.api++
  })
  await register(app, model, options)
  await app.ready()
  const readyMs = Number(process.hrtime.bigint() - start) / 1e6
  const used = process.cpuUsage(cpu)
  const compiled = { ...counts }
  if (profiler !== undefined) await profiler(values.profile as string)
  const rssMb = megabytes(process.memoryUsage().rss)
  const peakRssMb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? Number.NaN) / 1024
  gc?.()
  const heapMb = megabytes(process.memoryUsage().heapUsed)

  const last = (model.bundle?.versionValues.length ?? 1) - 1
  const requestsStart = process.hrtime.bigint()
  const requests = values.warm === true
    ? await firstRequests(app, model, options.routes, Array.from({ length: last + 1 }, (_, level) => level))
    : await firstRequests(app, model, Math.min(options.routes, 10), [...new Set([0, last])])
  const requestsMs = Number(process.hrtime.bigint() - requestsStart) / 1e6
  const rssAfterRequestsMb = megabytes(process.memoryUsage().rss)
  // After the first requests: reading app.versioner.routes builds every version's route plan (see docs/decisions/0018-what-ready-builds.md).
  const distinctShapes = model.bundle === undefined ? options.routes : countShapes(app)

  const result: StartupResult = {
    ...options,
    buildVersionsMs,
    firstAppMs,
    readyMs,
    readyCpuMs: (used.user + used.system) / 1000,
    rssMb,
    peakRssMb,
    heapMb,
    fastifyRoutes: routeCounts.api,
    allFastifyRoutes: routeCounts.all,
    validatorCompiles: compiled.validator,
    serializerCompiles: compiled.serializer,
    requests,
    requestsMs,
    rssAfterRequestsMb,
    distinctShapes
  }
  process.stdout.write(`${JSON.stringify(result)}\n`)
  await app.close()
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
