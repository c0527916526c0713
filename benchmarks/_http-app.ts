/**
 * The applications `benchmarks/http-versions.ts` measures (a helper: `benchmarks/run.js` skips files whose name
 * starts with `_`): one POST route with a small JSON body and a 4-field response, written once against the HEAD
 * schemas, served by plain Fastify, by plain Fastify with three no-op route hooks (the floor of any design that
 * converts in hooks), or by the plugin over 10 versions.
 *
 * The 10 versions are linked by 9 version changes. In the `versioned` application each renames the same field
 * of the body and of the response (`name` in HEAD and the newest version, `name1` one version older, … `name9`
 * in the oldest), with a request converter and a response converter: a request for the oldest version passes 9
 * request converters and 9 response converters, one for the newest passes none. In the `versioned-request`
 * application the changes rename the body field only, with a request converter each (9 converters in all); the
 * response is the same in every version.
 * @module
 */
import { Type, type Static } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import type { RequestInfo, ResponseInfo, VersionBundle, VersionChangeClass } from '../plugin'
import { loadPlugin } from './_plugin'

// The build users run by default, or the sources (BENCH_PLUGIN_SOURCE, see ./_plugin.ts).
const {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, fastifyVersioner, HeadVersion, schema, Version, VersionBundle: Bundle,
  VersionChange, versioned
} = loadPlugin()

/** How many versions the versioned application serves. */
export const VERSION_COUNT = 10

/** The name of the renamed field, by version index: 0 is the newest version, `VERSION_COUNT - 1` the oldest. */
export const FIELD_NAMES: readonly string[] = Array.from({ length: VERSION_COUNT }, (_, index) => index === 0 ? 'name' : `name${index}`)

/** The version values, newest first (ISO dates). */
export const VERSION_VALUES: readonly string[] = Array.from({ length: VERSION_COUNT }, (_, index) =>
  new Date(Date.UTC(2020, 0, 1) + (VERSION_COUNT - 1 - index) * 86_400_000).toISOString().slice(0, 10))

export const NEWEST_VERSION = VERSION_VALUES[0]
export const OLDEST_VERSION = VERSION_VALUES[VERSION_COUNT - 1]

export const CreateUser = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  email: Type.String({ maxLength: 200 }),
  age: Type.Integer({ minimum: 0 })
})

export const User = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Type.String(),
  age: Type.Integer()
})

export const ROUTE = '/users'
export const USER_ID = 'user_42'
export const HEADER = 'x-api-version'

/** The request body a version sends, and the exact response body it must get back. */
export function exchangeFor (versionIndex: number, kind: ServerKind = 'versioned'): { body: string, response: string } {
  const field = FIELD_NAMES[versionIndex]
  const responseField = kind === 'versioned-request' ? FIELD_NAMES[0] : field
  return {
    body: JSON.stringify({ [field]: 'Ada Lovelace', email: 'ada@example.com', age: 36 }),
    response: JSON.stringify({ id: USER_ID, [responseField]: 'Ada Lovelace', email: 'ada@example.com', age: 36 })
  }
}

function renameChange (newer: string, older: string, renameResponse: boolean): VersionChangeClass {
  class RenameField extends VersionChange {
    description = `The field ${newer} was called ${older}.`
    instructionsToMigrateToPreviousVersion = [
      schema(CreateUser).field(newer).had({ name: older }),
      schema(User).field(newer).had({ name: older })
    ]

    @ConvertRequestToNextVersionFor(CreateUser)
    renameInRequest (request: RequestInfo) {
      request.body[newer] = request.body[older]
      delete request.body[older]
    }

    @ConvertResponseToPreviousVersionFor(User)
    renameInResponse (response: ResponseInfo) {
      response.body[older] = response.body[newer]
      delete response.body[newer]
    }
  }
  class RenameBodyField extends VersionChange {
    description = `The body field ${newer} was called ${older}.`
    instructionsToMigrateToPreviousVersion = [schema(CreateUser).field(newer).had({ name: older })]

    @ConvertRequestToNextVersionFor(CreateUser)
    renameInRequest (request: RequestInfo) {
      request.body[newer] = request.body[older]
      delete request.body[older]
    }
  }
  const change = renameResponse ? RenameField : RenameBodyField
  Object.defineProperty(change, 'name', { value: `Rename${older}To${newer}` })
  return change
}

/** The 10 versions: each but the oldest made by one version change that renames the field (of the body and, by default, the response). */
export function buildVersions (renameResponse = true): VersionBundle {
  const versions = VERSION_VALUES.map((value, index) => index === VERSION_COUNT - 1
    ? new Version(value)
    : new Version(value, renameChange(FIELD_NAMES[index], FIELD_NAMES[index + 1], renameResponse)))
  return new Bundle(new HeadVersion(), ...versions)
}

type Body = Static<typeof CreateUser>

async function createUser (request: { body: Body }): Promise<Static<typeof User>> {
  const body = request.body
  return { id: USER_ID, name: body.name, email: body.email, age: body.age }
}

const routeSchema = { body: CreateUser, response: { 200: User } }

/** The server kinds: plain Fastify, with three no-op route hooks, or the route inside `versioned(...)` (9 + 9 or 9 request converters). */
export type ServerKind = 'plain' | 'hooks' | 'versioned' | 'versioned-request'

export const SERVER_KINDS: readonly ServerKind[] = ['plain', 'hooks', 'versioned', 'versioned-request']

/** Builds the application of a kind (not listening). */
export async function buildBenchmarkApp (kind: ServerKind): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  if (kind === 'plain') {
    app.withTypeProvider<TypeBoxTypeProvider>().post(ROUTE, { schema: routeSchema }, createUser)
    return app
  }
  if (kind === 'hooks') {
    app.withTypeProvider<TypeBoxTypeProvider>().post(ROUTE, {
      schema: routeSchema,
      preValidation: (_request, _reply, done) => { done() },
      preSerialization: (_request, _reply, payload, done) => { done(null, payload) },
      onSend: (_request, _reply, payload, done) => { done(null, payload) }
    }, createUser)
    return app
  }
  await app.register(fastifyVersioner, { versions: buildVersions(kind === 'versioned') })
  await app.register(versioned(async (api) => {
    api.post(ROUTE, { schema: routeSchema }, createUser)
  }))
  return app
}
