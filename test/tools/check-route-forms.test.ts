// `check` on routes declaring their schemas in Fastify's other forms: responses under a status range (`2xx`, `4xx`,
// which the documents write `2XX`, `4XX`) and bodies and responses keyed by media type. A break in an old version's
// schema there is red, as under a plain status; a build changing nothing is green.
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import formbody from '@fastify/formbody'
import Fastify, { type FastifyInstance } from 'fastify'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, fastifyVersioner, HeadVersion, schema, Version, VersionBundle,
  VersionChange, versioned, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { checkDocuments, compareDocuments, exportDocuments, verify } from '../../tools'
import { scratch } from '../helpers/cli'

const OLD = '2000-01-01'
const NEW = '2001-01-01'

/** What an old version's field is called in one build: the one released (`name`), or renamed in a later build. */
interface OldNames {
  readonly user: string
  readonly create: string
  readonly problem: string
}

const RELEASED: OldNames = { user: 'name', create: 'name', problem: 'message' }

/** An application whose old version renames HEAD's fields to `names`, on routes declaring ranges and media types. */
async function appWith (t: { teardown: (fn: () => unknown) => void }, names: OldNames): Promise<FastifyInstance> {
  const User = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'User' })
  const UserCreate = Type.Object({ fullName: Type.String() }, { $id: 'UserCreate' })
  const Problem = Type.Object({ detail: Type.String() }, { $id: 'Problem' })
  class Renamed extends VersionChange {
    description = 'The user\'s fullName was its name; a problem\'s detail was its message.'
    instructionsToMigrateToPreviousVersion = [
      schema(User).field('fullName').had({ name: names.user }),
      schema(UserCreate).field('fullName').had({ name: names.create }),
      schema(Problem).field('detail').had({ name: names.problem })
    ]

    @ConvertRequestToNextVersionFor(UserCreate)
    fullNameUp (request: RequestInfo) {
      request.body.fullName = request.body[names.create]
      delete request.body[names.create]
    }

    @ConvertResponseToPreviousVersionFor(User)
    fullNameDown (response: ResponseInfo) {
      response.body[names.user] = response.body.fullName
      delete response.body.fullName
    }

    @ConvertResponseToPreviousVersionFor(Problem, { migrateHttpErrors: true })
    detailDown (response: ResponseInfo) {
      response.body[names.problem] = response.body.detail
      delete response.body.detail
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(formbody)
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version(NEW, Renamed), new Version(OLD)) })
  await app.register(versioned(async (api) => {
    api.get('/users/:id', { schema: { response: { '2xx': User, '4xx': Problem } } }, async () => ({ id: 'u1', fullName: 'Ada' }))
    api.route({
      method: 'POST',
      url: '/users',
      schema: {
        body: { content: { 'application/json': { schema: UserCreate }, 'application/x-www-form-urlencoded': { schema: UserCreate } } },
        response: { 201: { description: 'Created', content: { 'application/json': { schema: User } } }, '4xx': Problem }
      },
      handler: async (request, reply) => reply.code(201).send({ id: 'u2', fullName: (request.body as { fullName: string }).fullName })
    })
  }))
  await app.ready()
  return app
}

/** The breaks `check` reports for a build with `names`, against the documents the released build exported. */
async function breaksOf (t: { teardown: (fn: () => unknown) => void }, dir: string, names: OldNames): Promise<string[]> {
  return (await checkDocuments(await appWith(t, names), dir)).breaks.map((change) => change.text).sort()
}

test('check: a field renamed under an old version\'s 2xx or 4xx response, or in its body by media type, breaks', async (t) => {
  const dir = await scratch(t)
  await exportDocuments(await appWith(t, RELEASED), dir)
  t.same(await breaksOf(t, dir, RELEASED), [], 'the same build: green')
  t.same(await breaksOf(t, dir, { ...RELEASED, user: 'label' }), [
    `${OLD} GET /users/{id}: response 2XX /name: renamed to label`,
    `${OLD} POST /users: response 201 /name: renamed to label`
  ], 'the success range, beside a plain status')
  t.same(await breaksOf(t, dir, { ...RELEASED, problem: 'text' }), [
    `${OLD} GET /users/{id}: response 4XX /message: renamed to text`,
    `${OLD} POST /users: response 4XX /message: renamed to text`
  ], 'the error range')
  t.same(await breaksOf(t, dir, { ...RELEASED, create: 'label' }), [
    `${OLD} POST /users: request body (application/json) /name: renamed to label`,
    `${OLD} POST /users: request body (application/x-www-form-urlencoded) /name: renamed to label`
  ], 'each media type of the body')
})

test('compareDocuments: what changes under a status range is compared, its headers too, and named with the range as written', async (t) => {
  const document = (field: string, limit: number, key: string): Record<string, unknown> => ({
    openapi: '3.1.0',
    info: { title: 'Users', version: OLD },
    paths: {
      '/users': {
        get: {
          responses: {
            [key]: {
              description: 'The users',
              headers: { 'x-rate-limit': { schema: { type: 'integer', maximum: limit } } },
              content: { 'application/json': { schema: { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] } } }
            }
          }
        }
      }
    }
  })
  for (const key of ['2XX', '4XX', '5XX', '2xx', '201', 'default']) {
    const texts = compareDocuments(OLD, document('name', 10, key), document('label', 20, key)).filter((change) => change.breaking).map((change) => change.text).sort()
    t.same(texts, [
      `${OLD} GET /users: response ${key} /name: renamed to label`,
      `${OLD} GET /users: response ${key} header x-rate-limit /: maximum 10 → 20`
    ], key)
  }
})

test('verify runs on routes declaring ranges and media types, and finds nothing where the converters are right', async (t) => {
  t.same([...await verify(await appWith(t, RELEASED))], [])
})
