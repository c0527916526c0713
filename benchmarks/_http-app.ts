/**
 * The applications `benchmarks/http-versions.ts` measures (a helper: `benchmarks/run.js` skips files whose name
 * starts with `_`): POST /users with a 5-field JSON body and a 6-field response, written once against the HEAD
 * schemas, served by
 * - `plain`: plain Fastify, the HEAD route;
 * - `versioned`: the plugin over 10 versions: the HEAD route inside `versioned(...)`, and an ordinary route
 *   (`POST /accounts`, the same schemas and handler) outside it, which the plugin does not version;
 * - `handwritten`: plain Fastify, the conversions written by hand: a route whose body and response schemas are the
 *   oldest version's, written out in TypeBox, whose handler runs the same nine request conversions (the same
 *   statements as the converters, `delete` included), the HEAD logic, then the same nine response conversions.
 *
 * The 10 versions are linked by 9 version changes; each renames or removes one field of both the body and the
 * response schema, with one request converter and one response converter (see `CHANGES`): a request for the
 * oldest version passes 9 request converters and 9 response converters, one for the newest passes none.
 * @module
 */
import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import type { FieldInstructionBuilder, Instruction, RequestInfo, ResponseInfo, VersionBundle, VersionChangeClass } from '../plugin'
import { loadPlugin } from './_plugin'

// The build users run by default, or the sources (BENCH_PLUGIN_SOURCE, see ./_plugin.ts), loaded when a server
// builds its application (the benchmark itself imports this module before it compiles the plugin).
let loaded: ReturnType<typeof loadPlugin> | undefined
function plugin (): ReturnType<typeof loadPlugin> {
  loaded ??= loadPlugin()
  return loaded
}

/** How many versions the versioned application serves. */
export const VERSION_COUNT = 10

/** The version values, newest first (ISO dates). */
export const VERSION_VALUES: readonly string[] = Array.from({ length: VERSION_COUNT }, (_, index) =>
  new Date(Date.UTC(2020, 0, 1) + (VERSION_COUNT - 1 - index) * 86_400_000).toISOString().slice(0, 10))

export const NEWEST_VERSION = VERSION_VALUES[0]
export const OLDEST_VERSION = VERSION_VALUES[VERSION_COUNT - 1]

/** The body fields of HEAD, with their schemas. */
const HEAD_BODY_FIELDS = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  email: Type.String({ maxLength: 200 }),
  age: Type.Integer({ minimum: 0, maximum: 200 }),
  country: Type.String({ minLength: 2, maxLength: 2 }),
  newsletter: Type.Boolean()
} satisfies TProperties

export const CreateUser = Type.Object(HEAD_BODY_FIELDS)

/** The response fields of HEAD (the response also has `id`). */
const HEAD_RESPONSE_FIELDS = {
  name: Type.String(),
  email: Type.String(),
  age: Type.Integer(),
  country: Type.String(),
  newsletter: Type.Boolean()
} satisfies TProperties

export const User = Type.Object({ id: Type.String(), ...HEAD_RESPONSE_FIELDS })

/** One version change: a field renamed (`newer` was called `older`), or removed (it did not exist; requests get `fill`). */
type Change =
  | { readonly kind: 'rename', readonly newer: string, readonly older: string }
  | { readonly kind: 'remove', readonly field: string, readonly fill: unknown }

/** The 9 changes, newest first: `CHANGES[i]` turns version `i` into version `i + 1` (older). */
export const CHANGES: readonly Change[] = [
  { kind: 'rename', newer: 'name', older: 'fullName' },
  { kind: 'rename', newer: 'email', older: 'emailAddress' },
  { kind: 'remove', field: 'newsletter', fill: false },
  { kind: 'rename', newer: 'fullName', older: 'full_name' },
  { kind: 'rename', newer: 'emailAddress', older: 'mail' },
  { kind: 'rename', newer: 'age', older: 'years' },
  { kind: 'remove', field: 'country', fill: 'ZZ' },
  { kind: 'rename', newer: 'full_name', older: 'userName' },
  { kind: 'rename', newer: 'years', older: 'userAge' }
]

/** The HEAD field names as they are in each version (index 0 = newest): HEAD name → name in that version, missing when removed. */
export const FIELD_NAMES: ReadonlyArray<ReadonlyMap<string, string>> = ((): Array<Map<string, string>> => {
  const result: Array<Map<string, string>> = []
  let current = new Map(Object.keys(HEAD_BODY_FIELDS).map((field) => [field, field]))
  for (let index = 0; index < VERSION_COUNT; index++) {
    result.push(current)
    const change = CHANGES[index]
    if (change === undefined) break
    const next = new Map<string, string>()
    for (const [head, name] of current) {
      if (change.kind === 'remove' && name === change.field) continue
      next.set(head, change.kind === 'rename' && name === change.newer ? change.older : name)
    }
    current = next
  }
  return result
})()

/** The values of the HEAD fields the benchmark sends. */
const VALUES: Readonly<Record<string, unknown>> = { name: 'Ada Lovelace', email: 'ada@example.com', age: 36, country: 'GB', newsletter: true }

export const ROUTE = '/users'
/** The ordinary route of the versioned application, outside `versioned(...)`. */
export const UNVERSIONED_ROUTE = '/accounts'
export const USER_ID = 'user_42'
export const HEADER = 'x-api-version'

/**
 * The request body a version sends, and the response it must get back (as an object: the server's field order
 * is taken from its first answer). Removed fields are filled by the request converters and removed again by
 * the response converters.
 */
export function exchangeFor (versionIndex: number): { body: string, response: Record<string, unknown> } {
  const names = FIELD_NAMES[versionIndex]
  const body: Record<string, unknown> = {}
  const response: Record<string, unknown> = { id: USER_ID }
  for (const [head, name] of names) {
    body[name] = VALUES[head]
    response[name] = VALUES[head]
  }
  return { body: JSON.stringify(body), response }
}

/** The schema of the body (or response, with `id`) in the oldest version, written out in TypeBox. */
function oldestSchema (fields: TProperties, withId: boolean): TObject {
  const names = FIELD_NAMES[VERSION_COUNT - 1]
  const properties: TProperties = withId ? { id: Type.String() } : {}
  for (const [head, name] of names) properties[name] = fields[head]
  return Type.Object(properties)
}

type Body = Record<string, unknown>

// The conversions, as statements on a body: the converters run exactly these, and the hand-written route too.
function requestConversion (change: Change): (body: Body) => void {
  if (change.kind === 'rename') {
    const { newer, older } = change
    return (body) => {
      body[newer] = body[older]
      delete body[older]
    }
  }
  const { field, fill } = change
  return (body) => { body[field] = fill }
}

function responseConversion (change: Change): (body: Body) => void {
  if (change.kind === 'rename') {
    const { newer, older } = change
    return (body) => {
      body[older] = body[newer]
      delete body[newer]
    }
  }
  const { field } = change
  return (body) => { delete body[field] }
}

function versionChange (change: Change, index: number): VersionChangeClass {
  const { schema, VersionChange, ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor } = plugin()
  // The names are computed, not literals: formerField takes any name. (Builds older than formerField, which
  // compare-builds may load, have only field, with the same behaviour.)
  const named = (target: TSchema, name: string): FieldInstructionBuilder => {
    const builder = schema(target)
    return 'formerField' in builder ? builder.formerField(name) : (builder as { field: (name: string) => FieldInstructionBuilder }).field(name)
  }
  const instructions: Instruction[] = change.kind === 'rename'
    ? [named(CreateUser, change.newer).had({ name: change.older }), named(User, change.newer).had({ name: change.older })]
    : [named(CreateUser, change.field).didntExist, named(User, change.field).didntExist]
  const toNext = requestConversion(change)
  const toPrevious = responseConversion(change)
  class BenchmarkChange extends VersionChange {
    description = change.kind === 'rename' ? `The field ${change.newer} was called ${change.older}.` : `The field ${change.field} did not exist.`
    instructionsToMigrateToPreviousVersion = instructions

    @ConvertRequestToNextVersionFor(CreateUser)
    toNextVersion (request: RequestInfo) {
      toNext(request.body)
    }

    @ConvertResponseToPreviousVersionFor(User)
    toPreviousVersion (response: ResponseInfo) {
      toPrevious(response.body)
    }
  }
  Object.defineProperty(BenchmarkChange, 'name', { value: `BenchmarkChange${index}` })
  return BenchmarkChange
}

/** The 10 versions, each but the oldest made by one version change. */
export function buildVersions (): VersionBundle {
  const { HeadVersion, Version, VersionBundle: Bundle } = plugin()
  const versions = VERSION_VALUES.map((value, index) => index === VERSION_COUNT - 1
    ? new Version(value)
    : new Version(value, versionChange(CHANGES[index], index)))
  return new Bundle(new HeadVersion(), ...versions)
}

/** The HEAD logic, shared by every route. */
async function createUser (request: { body: Static<typeof CreateUser> }): Promise<Static<typeof User>> {
  const body = request.body
  return { id: USER_ID, name: body.name, email: body.email, age: body.age, country: body.country, newsletter: body.newsletter }
}

const routeSchema = { body: CreateUser, response: { 200: User } }

const REQUEST_CONVERSIONS = CHANGES.map(requestConversion)
const RESPONSE_CONVERSIONS = CHANGES.map(responseConversion)

/** The hand-written route: the oldest version's schemas, the same conversions in the handler. */
async function createUserByHand (request: { body: Body }): Promise<Body> {
  const body = request.body
  for (let index = REQUEST_CONVERSIONS.length - 1; index >= 0; index--) REQUEST_CONVERSIONS[index](body)
  const user = await createUser(request as { body: Static<typeof CreateUser> }) as Body
  for (let index = 0; index < RESPONSE_CONVERSIONS.length; index++) RESPONSE_CONVERSIONS[index](user)
  return user
}

/** The server kinds (see the module's description). */
export type ServerKind = 'plain' | 'versioned' | 'handwritten'

export const SERVER_KINDS: readonly ServerKind[] = ['plain', 'versioned', 'handwritten']

/** Builds the application of a kind (not listening); `versionerOptions` are added to the plugin's (a versioned kind). */
export async function buildBenchmarkApp (kind: ServerKind, versionerOptions: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  if (kind === 'plain') {
    app.withTypeProvider<TypeBoxTypeProvider>().post(ROUTE, { schema: routeSchema }, createUser)
    return app
  }
  if (kind === 'handwritten') {
    const schema = { body: oldestSchema(HEAD_BODY_FIELDS, false), response: { 200: oldestSchema(HEAD_RESPONSE_FIELDS, true) } }
    app.post(ROUTE, { schema }, createUserByHand as never)
    return app
  }
  const { fastifyVersioner, versioned } = plugin()
  await app.register(fastifyVersioner, { versions: buildVersions(), ...versionerOptions })
  await app.register(versioned(async (api) => {
    api.post(ROUTE, { schema: routeSchema }, createUser)
  }))
  app.withTypeProvider<TypeBoxTypeProvider>().post(UNVERSIONED_ROUTE, { schema: routeSchema }, createUser)
  return app
}

/** The configurations: server kind, URL and version index of the in-process benchmarks (as in `benchmarks/http-versions.ts`). */
export const PER_REQUEST_CONFIGURATIONS: Readonly<Record<string, { kind: ServerKind, url: string, versionIndex: number }>> = {
  plain: { kind: 'plain', url: ROUTE, versionIndex: 0 },
  unversioned: { kind: 'versioned', url: UNVERSIONED_ROUTE, versionIndex: 0 },
  newest: { kind: 'versioned', url: ROUTE, versionIndex: 0 },
  handwritten: { kind: 'handwritten', url: ROUTE, versionIndex: VERSION_COUNT - 1 },
  oldest: { kind: 'versioned', url: ROUTE, versionIndex: VERSION_COUNT - 1 }
}

/**
 * The `app.inject()` options of a configuration's request (of `PER_REQUEST_CONFIGURATIONS`): its route, its version's
 * header and body.
 * @example
 * ```ts
 * const response = await app.inject(injectOptionsFor(PER_REQUEST_CONFIGURATIONS.oldest))
 * ```
 */
export function injectOptionsFor (configuration: { url: string, versionIndex: number }): { method: 'POST', url: string, headers: Record<string, string>, payload: string } {
  return {
    method: 'POST',
    url: configuration.url,
    headers: { 'content-type': 'application/json', [HEADER]: configuration.versionIndex === 0 ? NEWEST_VERSION : OLDEST_VERSION },
    payload: exchangeFor(configuration.versionIndex).body
  }
}
