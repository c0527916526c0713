/**
 * The upgrade guide's examples of error bodies: a change that reshapes only an error response (a converter declared
 * with `migrateHttpErrors`) shows the old and new body of each status it reshapes, keyed as the documents key them
 * (`404`, `4XX`), and the statuses when a converter changes them; each the body the server answers.
 */
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import {
  ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange, type ResponseInfo
} from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { guideOf } from '../helpers/docs-pages'

const NotFound = Type.Object({ code: Type.String(), message: Type.String() }, { $id: 'NotFound', examples: [{ code: 'not_found', message: 'No such user' }] })
const User = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'User' })

/** 2001-01-01 gave errors a code; 2000-01-01 answered `{ error }`. */
class ErrorsHaveCodes extends VersionChange {
  description = 'An error says its code; its message was `error`.'
  instructionsToMigrateToPreviousVersion = [schema(NotFound).field('code').didntExist, schema(NotFound).field('message').had({ name: 'error' })]
  @ConvertResponseToPreviousVersionFor(NotFound, { migrateHttpErrors: true })
  down (response: ResponseInfo) {
    response.body.error = response.body.message
    delete response.body.message
    delete response.body.code
  }
}

async function appAnswering (t: Teardown, key: string, change = ErrorsHaveCodes): Promise<FastifyInstance> {
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', change), new Version('2000-01-01')), async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User, [key]: NotFound } } }, async (_request, reply) => await reply.code(404).send({ code: 'not_found', message: 'No such user' }))
  })
  await app.ready()
  return app
}

/** What the server answers each version for the route's 404. */
async function served (app: FastifyInstance): Promise<Array<{ status: number, body: unknown }>> {
  const answers = []
  for (const version of ['2000-01-01', '2001-01-01']) {
    const response = await app.inject({ url: '/users/u-1', headers: { 'x-api-version': version } })
    answers.push({ status: response.statusCode, body: response.json() })
  }
  return answers
}

for (const key of ['404', '4xx', '4XX']) {
  test(`regression: a change that reshapes only an error body (a ${key} response) shows its old and new body, as the server answers them`, async (t) => {
    const app = await appAnswering(t, key)
    const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
    t.same(change.operations.map((operation) => `${operation.method} ${operation.path} ${operation.status}`), ['GET /users/{id} changed'])
    const status = key === '404' ? '404' : '4XX'
    t.same(change.examples, [{
      operation: 'GET /users/{id}', part: 'response body', status, before: { error: 'No such user' }, after: { code: 'not_found', message: 'No such user' }
    }], `the ${status} body of each version, keyed as the documents key the response`)
    t.same(change.notes, [])
    t.same(await served(app), [{ status: 404, body: change.examples[0].before }, { status: 404, body: change.examples[0].after }], 'what the server answers')
    const page = (await app.inject('/docs/upgrade?from=2000-01-01&to=2001-01-01')).body
    t.ok(page.includes(`GET /users/{id}: response body (${status})`), 'the page shows it')
  })
}

test('regression: an error converter that changes the status says which status each version answers', async (t) => {
  class MissingWasBadRequest extends VersionChange {
    description = 'A missing user is a 404; it was a 400 `{ error }`.'
    instructionsToMigrateToPreviousVersion = [schema(NotFound).field('code').didntExist, schema(NotFound).field('message').had({ name: 'error' })]
    @ConvertResponseToPreviousVersionFor('/users/:id', ['GET'], { migrateHttpErrors: true })
    down (response: ResponseInfo) {
      if (response.statusCode !== 404) return
      response.statusCode = 400
      response.body = { error: response.body.message }
    }
  }
  const app = await appAnswering(t, '404', MissingWasBadRequest)
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(change.examples, [{
    operation: 'GET /users/{id}',
    part: 'response body',
    status: '404',
    before: { error: 'No such user' },
    after: { code: 'not_found', message: 'No such user' },
    answered: { before: 400, after: 404 }
  }], 'the older version answers the 404 with a 400')
  t.same(change.notes.filter((note) => !note.includes('(200)')), [], 'the 404\'s example was made (the by-path converter leaves the 200 as it is)')
  t.same(await served(app), [{ status: 400, body: change.examples[0].before }, { status: 404, body: change.examples[0].after }], 'what the server answers')
  const page = (await app.inject('/docs/upgrade?from=2000-01-01&to=2001-01-01')).body
  t.ok(page.includes('2000-01-01 (before, answered 400)') && page.includes('2001-01-01 (after, answered 404)'), 'the page says the statuses')
})

test('an error body the change does not reshape gets no example: only the success it reshapes', async (t) => {
  class NameWasFullName extends VersionChange {
    description = 'name was full_name.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('name').had({ name: 'full_name' })]
    @ConvertResponseToPreviousVersionFor(User)
    down (response: ResponseInfo) {
      response.body.full_name = response.body.name
      delete response.body.name
    }
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameWasFullName), new Version('2000-01-01')), async (api) => {
    api.get('/users/:id', { schema: { response: { '2xx': User, 404: NotFound } } }, async () => ({ id: 'u-1', name: 'Ada' }))
  })
  await app.ready()
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(change.examples.map((example) => example.status), ['2XX'], 'the 404, the same in both versions, is not shown; 2xx is keyed as the documents key it')
  t.same(change.notes, [])
})

test('an error converter on a route that declares no error response: a note says to declare one, not a route "changed" with nothing shown', async (t) => {
  class MissingWasNull extends VersionChange {
    description = 'A missing user is a 404; it was a 200 with { user: null }.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertResponseToPreviousVersionFor('/users/:id', ['GET'], { migrateHttpErrors: true })
    down (response: ResponseInfo) {
      if (response.statusCode !== 404) return
      response.statusCode = 200
      response.body = { user: null }
    }
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', MissingWasNull), new Version('2000-01-01')), async (api) => {
    api.get('/users/:id', async (_request, reply) => await reply.code(404).send({ code: 'not_found', message: 'No such user' }))
  })
  await app.ready()
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(change.operations.map((operation) => `${operation.method} ${operation.path} ${operation.status}`), ['GET /users/{id} changed'])
  t.same(change.examples, [])
  t.same(change.notes, ['GET /users/{id} error responses: this change\'s converters declared with migrateHttpErrors run on them, but the route declares ' +
    'no error response to make an example of: declare its schema (response: { 404: … }) to show the bodies'])
  const withSchema = await appAnswering(t, '404')
  t.same((await guideOf(withSchema, '2000-01-01', '2001-01-01')).changes[0].notes, [], 'a route declaring its 404 has its example, and no such note')
})

test('an error response declared by media type (a content map) is keyed by its status and media type, as its slot', async (t) => {
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', ErrorsHaveCodes), new Version('2000-01-01')), async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User, 404: { content: { 'application/problem+json': { schema: NotFound } } } } } },
      async (_request, reply) => await reply.code(404).type('application/problem+json').send({ code: 'not_found', message: 'No such user' }))
  })
  await app.ready()
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(change.examples, [{
    operation: 'GET /users/{id}', part: 'response body', status: '404 application/problem+json', before: { error: 'No such user' }, after: { code: 'not_found', message: 'No such user' }
  }])
  t.same(change.notes, [])
  const old = await app.inject({ url: '/users/u-1', headers: { 'x-api-version': '2000-01-01' } })
  t.same([old.statusCode, old.json()], [404, change.examples[0].before], 'what the server answers 2000-01-01')
})

test('regression: a default response beside a success is shown as the error body it answers, not as a success the converter leaves alone', async (t) => {
  // The converter reshapes errors only, as most do: the default slot's example made as a 200 was the same pair, and a note.
  class ErrorsHaveCodesByPath extends VersionChange {
    description = 'An error says its code; its message was `error`.'
    instructionsToMigrateToPreviousVersion = [schema(NotFound).field('code').didntExist, schema(NotFound).field('message').had({ name: 'error' })]
    @ConvertResponseToPreviousVersionFor('/users/:id', ['GET'], { migrateHttpErrors: true })
    down (response: ResponseInfo) {
      if (response.statusCode < 400) return
      response.body = { error: response.body.message }
    }
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', ErrorsHaveCodesByPath), new Version('2000-01-01')), async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User, 404: User, default: NotFound } } },
      async (_request, reply) => await reply.code(400).send({ code: 'not_found', message: 'No such user' }))
  })
  await app.ready()
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  const shown = change.examples.filter((example) => example.status === 'default')
  t.same(shown, [{ operation: 'GET /users/{id}', part: 'response body', status: 'default', before: { error: 'No such user' }, after: { code: 'not_found', message: 'No such user' } }],
    'the error body of each version, keyed default as the documents key it')
  t.notOk(change.notes.some((note) => note.includes('(default)')), 'no note that it could not be made')
  const old = await app.inject({ url: '/users/u-1', headers: { 'x-api-version': '2000-01-01' } })
  t.same([old.statusCode, old.json()], [400, shown[0].before], 'what the server answers 2000-01-01 for an error without a slot of its own')
  t.match((await app.inject('/docs/upgrade?from=2000-01-01&to=2001-01-01')).body, 'GET /users/{id}: response body (default)', 'the page shows it')

  // A default that is the route's only response still answers its successes: its example is made as one.
  const only = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', ErrorsHaveCodes), new Version('2000-01-01')), async (api) => {
    api.get('/users/:id', { schema: { response: { default: NotFound } } }, async () => ({ code: 'not_found', message: 'No such user' }))
  })
  await only.ready()
  const [alone] = (await guideOf(only, '2000-01-01', '2001-01-01')).changes
  t.same(alone.examples.map((example) => [example.status, example.before]), [['default', { error: 'No such user' }]], 'a success of the default slot, as served')
})
