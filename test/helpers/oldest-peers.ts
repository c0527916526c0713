/**
 * What the clients of the example apps see, observed on the Fastify and TypeBox this process loads: the newest (the
 * dev dependencies) in a test's process, or the oldest that package.json's peer ranges allow (Fastify 5.0.0, TypeBox
 * 0.34.0) in a process of their own: {@link observeOnOldestPeers}, which loads
 * test/fixtures/oldest-peers/resolve-oldest.mjs (docs/decisions/0220-the-oldest-peers-in-the-suite.md).
 * test/http/oldest-peers.test.ts compares the two.
 */
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, fastifyVersioner, HeadVersion, schema, Version, VersionBundle,
  VersionChange, versioned, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { checkDocuments, verify } from '../../tools'
import { recordTraffic, type ExampleName } from '../../examples/traffic'
import { buildApp } from '../../examples/users/app'
import { buildBillingApp } from '../../examples/billing/app'

const ROOT = join(__dirname, '..', '..')
const EXAMPLES: readonly ExampleName[] = ['users', 'billing']
/** Rounds of each example's clients (examples/traffic.ts): three show every variant of a billing round. */
const ROUNDS = 3
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g
const VOLATILE_HEADERS = new Set(['date', 'connection', 'keep-alive'])

/** What a client was answered: status, headers (those that change with the clock left out), body and its bytes. */
export interface Answer {
  readonly request: string
  readonly status: number
  readonly headers: Readonly<Record<string, unknown>>
  readonly body: unknown
  /** The body as sent, so that a change of key order or spacing shows. */
  readonly text: string
}

/** Everything observed, as JSON (what the process of the oldest peers prints). */
export interface Observation {
  /** The packages that provided `fastify` and `@sinclair/typebox`, with their versions (`name@version`), sorted. */
  readonly peers: readonly string[]
  /** Every exchange of each example's recorded traffic (`captureExchanges`), UUIDs numbered in order of appearance. */
  readonly traffic: Readonly<Record<string, readonly unknown[]>>
  /** Client mistakes sent to the examples (bodies each version refuses, unknown versions and routes): the answers. */
  readonly mistakes: readonly Answer[]
  /** Each example's OpenAPI document of each version, as `GET /openapi.json?version=V` serves it (bytes and ETag), by `<app> <V>`. */
  readonly documents: Readonly<Record<string, { readonly etag: unknown, readonly text: string }>>
  /** A body declared by media type (`content`), sent by an old and a new client: the answers. */
  readonly contentBody: readonly Answer[]
  /**
   * With `tools`: what `check` against each example's committed documents found, and `verify` of the users example
   * (the billing example's costs a CPU-second: what it would add, the traffic and the mistakes compare).
   */
  readonly tools?: readonly string[]
}

/** `text` with each UUID replaced by `<id N>`, N its order of first appearance in `seen`. */
function numbered (text: string, seen: Map<string, string>): string {
  return text.replace(UUID, (uuid) => {
    if (!seen.has(uuid)) seen.set(uuid, `<id ${seen.size + 1}>`)
    return seen.get(uuid) as string
  })
}

/** Sends `request`; the answer (UUIDs numbered through `seen`). */
async function answerOf (app: FastifyInstance, request: InjectOptions & { url: string }, seen: Map<string, string>): Promise<Answer> {
  const response = await app.inject(request)
  const headers = Object.fromEntries(Object.entries(response.headers).filter(([name]) => !VOLATILE_HEADERS.has(name)))
  let body: unknown = response.body
  try { body = JSON.parse(response.body) } catch {}
  const sent = `${request.method ?? 'GET'} ${request.url} ${JSON.stringify(request.headers ?? {})} ${JSON.stringify(request.payload ?? null)}`
  return JSON.parse(numbered(JSON.stringify({ request: sent, status: response.statusCode, headers, body, text: response.body }), seen)) as Answer
}

/** Requests a client gets wrong, for each version of each example. */
function mistakesOf (name: ExampleName, versions: readonly string[]): Array<InjectOptions & { url: string }> {
  const create = name === 'users' ? '/users' : '/customers'
  return [
    ...versions.flatMap((version) => [
      { method: 'POST' as const, url: create, headers: { 'x-api-version': version }, payload: {} },
      { method: 'POST' as const, url: create, headers: { 'x-api-version': version, 'content-type': 'text/plain' }, payload: 'name' },
      { method: 'GET' as const, url: `${create}/not-an-id`, headers: { 'x-api-version': version } }
    ]),
    { method: 'GET', url: `${create}/00000000-0000-4000-8000-000000000000`, headers: { 'x-api-version': '1999-01-01' } },
    { method: 'GET', url: '/no-such-route', headers: { 'x-api-version': versions[0] } }
  ]
}

/** The versions of an example, from its committed documents (`unversioned` aside). */
function versionsOf (name: ExampleName): string[] {
  return readdirSync(join(ROOT, 'examples', name, 'openapi')).map((file) => file.replace(/\.json$/, '')).filter((key) => key !== 'unversioned')
}

/** Mistakes, documents and (with `tools`) what check and verify found, on a fresh app of each example. */
async function observeExamples (tools: boolean): Promise<Pick<Observation, 'mistakes' | 'documents' | 'tools'>> {
  const mistakes: Answer[] = []
  const documents: Record<string, { etag: unknown, text: string }> = {}
  const found: string[] = []
  for (const name of EXAMPLES) {
    const app = name === 'users' ? await buildApp() : await buildBillingApp()
    try {
      const versions = versionsOf(name)
      const seen = new Map<string, string>()
      for (const request of mistakesOf(name, versions)) mistakes.push(await answerOf(app, request, seen))
      for (const key of [...versions, 'unversioned']) {
        const { headers, body } = await app.inject(`/openapi.json?version=${key}`)
        documents[`${name} ${key}`] = { etag: headers.etag, text: body }
      }
      if (tools) {
        const { breaks } = await checkDocuments(app, join(ROOT, 'examples', name, 'openapi'))
        found.push(...breaks.map((entry) => `${name}: check: ${entry.text}`))
        if (name === 'users') found.push(...(await verify(app, { examples: 5 })).map((finding) => `${name}: verify: ${finding.text}`))
      }
    } finally {
      await app.close()
    }
  }
  return { mistakes, documents, ...(tools ? { tools: found } : {}) }
}

/** HEAD's body of `POST /users`, declared by media type, and the user answered. */
const UserCreate = Type.Object({ fullName: Type.String() }, { $id: 'OldestPeersUserCreate' })
const User = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'OldestPeersUser' })

/** Before 2001-01-01, `fullName` was `name`. */
class FullNameWasName extends VersionChange {
  description = '`fullName` was `name`.'
  instructionsToMigrateToPreviousVersion = [
    schema(UserCreate).field('fullName').had({ name: 'name' }),
    schema(User).field('fullName').had({ name: 'name' })
  ]

  @ConvertRequestToNextVersionFor(UserCreate)
  nameUp (request: RequestInfo): void {
    request.body.fullName = request.body.name
    delete request.body.name
  }

  @ConvertResponseToPreviousVersionFor(User)
  nameDown (response: ResponseInfo): void {
    response.body.name = response.body.fullName
    delete response.body.fullName
  }
}

/** A versioned `POST /users` whose body is declared by media type; the handler refuses a taken name as Fastify does. */
async function observeContentBody (): Promise<Answer[]> {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', FullNameWasName), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/users', {
      schema: { body: { content: { 'application/json': { schema: UserCreate } } }, response: { 201: User } }
    }, async (request, reply) => {
      const { fullName } = request.body as { fullName: string }
      if (fullName === 'Taken') {
        throw Object.assign(new Error('body/fullName is already taken'), {
          statusCode: 400, code: 'FST_ERR_VALIDATION', validationContext: 'body', validation: [{ instancePath: '/fullName', keyword: 'unique', message: 'is already taken' }]
        })
      }
      return await reply.code(201).send({ id: 'u1', fullName })
    })
  }))
  const seen = new Map<string, string>()
  const post = (version: string, payload: object, type = 'application/json'): InjectOptions & { url: string } =>
    ({ method: 'POST', url: '/users', headers: { 'x-api-version': version, 'content-type': type }, payload: JSON.stringify(payload) })
  try {
    return [
      await answerOf(app, post('2000-01-01', { name: 'Ada' }), seen),
      await answerOf(app, post('2000-01-01', { name: 'Ada' }, 'application/json; charset=utf-8'), seen),
      await answerOf(app, post('2000-01-01', { name: 'Taken' }), seen),
      await answerOf(app, post('2000-01-01', { fullName: 'Ada' }), seen),
      await answerOf(app, post('2001-01-01', { fullName: 'Ada' }), seen)
    ]
  } finally {
    await app.close()
  }
}

/** `name@version` of the package that holds each loaded module of a Fastify or a TypeBox. */
function loadedPeers (): string[] {
  const roots = new Set<string>()
  for (const file of Object.keys(require.cache)) {
    const root = /^(.*\/node_modules\/(?:fastify|fastify-oldest|@sinclair\/typebox|typebox-oldest))\//.exec(file)?.[1]
    if (root !== undefined) roots.add(root)
  }
  return [...roots].map((root) => {
    const { name, version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string, version: string }
    return `${name}@${version}`
  }).sort()
}

/**
 * Observes the examples on the Fastify and TypeBox this process loads; `tools`: also runs check and verify.
 * @example
 * ```ts
 * const newest = await observe()
 * ```
 */
export async function observe (tools = false): Promise<Observation> {
  const traffic: Record<string, unknown[]> = {}
  for (const name of EXAMPLES) {
    const seen = new Map<string, string>()
    traffic[name] = (await recordTraffic(name, ROUNDS)).map((line) => JSON.parse(numbered(line, seen)) as unknown)
  }
  const examples = await observeExamples(tools)
  const contentBody = await observeContentBody()
  return { peers: loadedPeers(), traffic, ...examples, contentBody }
}

/**
 * {@link observe} with tools, in a process that loads the oldest peers (Fastify 5.0.0, TypeBox 0.34.0) in place of
 * the newest: what it printed.
 * @example
 * ```ts
 * const oldest = await observeOnOldestPeers()
 * ```
 */
export async function observeOnOldestPeers (): Promise<Observation> {
  const args = ['--import', join(ROOT, 'scripts', 'typescript-loader.mjs'), '--import', join(ROOT, 'test', 'fixtures', 'oldest-peers', 'resolve-oldest.mjs'), __filename]
  // Outside coverage: the newest peers' run in the test's process covers the same code.
  const env = { ...process.env, _TAPJS_PROCESSINFO_COVERAGE_: '0' }
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, args, { cwd: ROOT, env, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 }, (error, printed, stderr) => {
      if (error !== null) reject(new Error(`the process of the oldest peers failed: ${error.message}\n${stderr}`))
      else resolve(printed)
    })
  })
  return JSON.parse(stdout) as Observation
}

if (require.main === module) {
  observe(true)
    .then((observation) => { process.stdout.write(JSON.stringify(observation)) })
    .catch((error: unknown) => { console.error(error); process.exit(1) })
}
