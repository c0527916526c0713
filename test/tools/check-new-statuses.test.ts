// `check` and a response status a saved version's operation newly documents (decision 0328): its clients' code does
// not handle it, so in a released version it breaks, saying which instruction gives older versions what they had, or
// that a status the route always answered is acknowledged by exporting again. The plugin's generic 400 and 404, a
// status a saved range or `default` covered, a range now documenting a status the saved operation named, a preview's
// status and a new operation's statuses are notes. Driven as a team does: export, change HEAD, check.
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { checkDocuments, compareDocuments, exportDocuments, type DocumentChange } from '../../tools'
import { endpoint, fastifyVersioner, schema, versioned, Version, VersionBundle, VersionChange, VersionChangeWithSideEffects } from '../../plugin'
import { scratch } from '../helpers/cli'

const [OLD, MIDDLE, NEW] = ['2000-01-01', '2001-01-01', '2002-01-01']
const User = Type.Object({ email: Type.String(), name: Type.Optional(Type.String()) }, { $id: 'User' })
const Conflict = Type.Object({ message: Type.String() }, { $id: 'Conflict' })

class NameDescribed extends VersionChange {
  description = 'A name is described.'
  instructionsToMigrateToPreviousVersion = [schema(User).field('name').had({ description: 'The full name.' })]
}

/** What a team that meant to refuse duplicates from a new version on writes: older versions had no 409. */
class DuplicateEmailsRefused extends VersionChangeWithSideEffects {
  description = 'A user whose email another user has is refused with 409.'
  instructionsToMigrateToPreviousVersion = [endpoint('/users', ['POST']).had({ response: { 200: User } })]
}

interface Build {
  /** HEAD refuses a user whose email another user has, with a documented 409. */
  readonly conflict?: boolean
  /** The 409 brought by a new version 2002-01-01 whose change says older versions had none (the handler asks `isApplied`). */
  readonly instructed?: boolean
  /** The unversioned `GET /health` documents and answers 503 when the app is draining. */
  readonly draining?: boolean
}

/** The app serving `POST /users` in two released versions (three with `instructed`), and the unversioned `GET /health`. */
async function appWith (t: { teardown: (fn: () => unknown) => void }, build: Build = {}): Promise<FastifyInstance> {
  const versions = build.instructed === true
    ? new VersionBundle(new Version(NEW, DuplicateEmailsRefused), new Version(MIDDLE, NameDescribed), new Version(OLD))
    : new VersionBundle(new Version(MIDDLE, NameDescribed), new Version(OLD))
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions, docsUrl: null })
  const health = build.draining === true ? { 200: Type.Object({ ok: Type.Boolean() }), 503: Conflict } : { 200: Type.Object({ ok: Type.Boolean() }) }
  app.get('/health', { schema: { response: health } }, async () => ({ ok: true }))
  const refuses = build.conflict === true || build.instructed === true
  await app.register(versioned(async (api) => {
    const emails = new Set<string>()
    api.post('/users', { schema: { body: User, response: refuses ? { 200: User, 409: Conflict } : { 200: User } } }, async (request, reply) => {
      const { email } = request.body as { email: string }
      const refused = build.instructed === true ? DuplicateEmailsRefused.isApplied : refuses
      if (refused && emails.has(email)) return reply.code(409).send({ message: 'A user with this email exists' })
      emails.add(email)
      return request.body
    })
  }))
  await app.ready()
  return app
}

/** The statuses a client of `version` is answered creating the same user twice. */
async function twice (app: FastifyInstance, version: string): Promise<number[]> {
  const create = async (): Promise<number> => (await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': version }, payload: { email: `${version}@example.com` } })).statusCode
  return [await create(), await create()]
}

const texts = (changes: readonly DocumentChange[]): string[] => changes.map((found) => found.text)

const newStatus = (version: string): string => `${version} POST /users: response 409: new status, not in ${version}'s saved document: its clients do not handle it; ` +
  `if ${version} did not answer it, write endpoint('/users', ['POST']).had({ response: { 200: … } }) (the responses ${version} documents) ` +
  'in the version change that brings 409, and give older versions what they answered (a migrateHttpErrors converter, or the handler ' +
  'asking isApplied); if the route always answered 409 and only its documentation is new, export the snapshot again'

test('a status a released version never documented, documented now, breaks in each released version, saying what to write', async (t) => {
  const dir = await scratch(t)
  await exportDocuments(await appWith(t), dir)
  const app = await appWith(t, { conflict: true })
  // What the mistake does: an old client creating a user it already created is answered a status it does not handle.
  t.same(await twice(app, OLD), [200, 409], 'a 2000-01-01 client is answered 409')
  const { breaks, notes } = await checkDocuments(app, dir)
  t.same(texts(breaks), [newStatus(OLD), newStatus(MIDDLE)])
  t.same(texts(notes).filter((text) => text.includes('409')), [], 'no longer a note as well')

  // Documented on purpose, the route always having answered it: exporting again acknowledges it.
  await exportDocuments(app, dir)
  t.same((await checkDocuments(app, dir)).breaks, [], 'exported again: no break')
})

test('a status instructed away for the versions before the change that brings it is no break', async (t) => {
  const dir = await scratch(t)
  await exportDocuments(await appWith(t), dir)
  const app = await appWith(t, { instructed: true })
  t.same(await twice(app, OLD), [200, 200], 'older versions are answered as before')
  t.same(await twice(app, NEW), [200, 409], 'the new version is refused')
  const { breaks, notes } = await checkDocuments(app, dir)
  t.same(breaks, [])
  t.same(texts(notes), [`${NEW}: new version`])
})

test("an unversioned route's new status breaks, saying there is no older version to instruct", async (t) => {
  const dir = await scratch(t)
  await exportDocuments(await appWith(t), dir)
  const { breaks } = await checkDocuments(await appWith(t, { draining: true }), dir)
  t.same(texts(breaks), [
    'unversioned GET /health: response 503: new status, not in the saved document: clients of this unversioned route do not handle it; ' +
    'answer them as before (version the route with versioned(...) to change what it answers), or, if the route always answered 503 and only its ' +
    'documentation is new, export the snapshot again'
  ])
})

type Json = Record<string, any>

/** A saved document of `POST /users` with these responses (the plugin's generic 400 and 404 as components). */
function documentWith (responses: Json, info: Json = {}): Json {
  const json = (schema: Json): Json => ({ description: 'Default Response', content: { 'application/json': { schema } } })
  const generic = { description: 'Generic', content: { 'application/json': { schema: { type: 'object', properties: { message: { type: 'string' } } } } } }
  return {
    openapi: '3.1.0',
    info: { title: 'API', version: OLD, ...info },
    components: { responses: { FastifyVersionerBadRequest: generic, FastifyVersionerNotFound: generic } },
    paths: {
      '/users/{userId}': {
        post: {
          responses: Object.fromEntries(Object.entries(responses).map(([status, schema]) => [status, typeof schema.$ref === 'string' ? schema : json(schema)]))
        }
      }
    }
  }
}

const OBJECT = { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] }
const PROBLEM = { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] }
const GENERIC_400 = { $ref: '#/components/responses/FastifyVersionerBadRequest' }

/** The breaks and the notes of comparing `before` with `after`, as text. */
function compared (before: Json, after: Json): [string[], string[]] {
  const changes = compareDocuments(OLD, before, after)
  return [texts(changes.filter((found) => found.breaking)), texts(changes.filter((found) => !found.breaking))]
}

test('each kind of new status, a break or a note', async (t) => {
  const operation = `${OLD} POST /users/{userId}`
  const breaks = (status: string, saved: string): string[] => [`${operation}: response ${status}: new status, not in ${OLD}'s saved document: its clients do not handle it; ` +
    `if ${OLD} did not answer it, write endpoint('/users/:userId', ['POST']).had({ response: { ${saved} } }) (the responses ${OLD} documents) ` +
    `in the version change that brings ${status}, and give older versions what they answered (a migrateHttpErrors converter, or the handler ` +
    `asking isApplied); if the route always answered ${status} and only its documentation is new, export the snapshot again`]
  t.same(compared(documentWith({ 200: OBJECT }), documentWith({ 200: OBJECT, 409: PROBLEM })), [breaks('409', '200: …'), []], 'an error status')
  // A client expecting 200 that is answered 201 is broken too.
  t.same(compared(documentWith({ 200: OBJECT }), documentWith({ 200: OBJECT, 201: OBJECT })), [breaks('201', '200: …'), []], 'a second success')
  t.same(compared(documentWith({ 200: OBJECT }), documentWith({ 200: OBJECT, '4XX': PROBLEM })), [breaks('4XX', '200: …'), []], 'a range')
  t.same(compared(documentWith({ 200: OBJECT }), documentWith({ 200: OBJECT, default: PROBLEM })), [breaks('default', '200: …'), []], 'default')
  // The plugin's generic answers are not listed among the responses to write, but a range is (quoted).
  t.same(compared(documentWith({ 200: OBJECT, 400: GENERIC_400, '5XX': PROBLEM }), documentWith({ 200: OBJECT, 400: GENERIC_400, '5XX': PROBLEM, 409: PROBLEM }))[0],
    breaks('409', "200: …, '5XX': …"), 'the responses the version documents')

  // The plugin's generic 400 and 404 are the plugin's to add: every route answers them.
  t.same(compared(documentWith({ 200: OBJECT }), documentWith({ 200: OBJECT, 400: GENERIC_400 })),
    [[], [`${operation}: response 400: new status (the plugin's generic error answer)`]], "the plugin's generic answer")
  // A status a saved range (or default) documented is not new: it is compared with the range's response.
  t.same(compared(documentWith({ 200: OBJECT, '4XX': PROBLEM }), documentWith({ 200: OBJECT, '4XX': PROBLEM, 409: PROBLEM })),
    [[], [`${operation}: response 409: now documented on its own, the saved 4XX documented it`]], 'under a saved range')
  t.same(compared(documentWith({ 200: OBJECT, default: PROBLEM }), documentWith({ 200: OBJECT, default: PROBLEM, 409: PROBLEM })),
    [[], [`${operation}: response 409: now documented on its own, the saved default documented it`]], 'under a saved default')
  t.same(compared(documentWith({ 200: OBJECT, '4XX': PROBLEM }), documentWith({ 200: OBJECT, '4XX': PROBLEM, 409: { type: 'object', properties: {} } }))[0],
    [`${operation}: response 409 /message: removed`], "what the range's response promised is compared")
  // A range now documenting a status the saved operation named: the same answers.
  t.same(compared(documentWith({ 201: OBJECT }), documentWith({ '2XX': OBJECT })),
    [[], [`${operation}: response 2XX: new status (the range now documenting 201, which ${OLD} documented)`, `${operation}: response 201: now documented under 2XX, the range covering it`]], 'a range for a status')
  // A preview may still change: its clients expect it.
  t.same(compared(documentWith({ 200: OBJECT }, { 'x-channel': 'preview' }), documentWith({ 200: OBJECT, 409: PROBLEM }, { 'x-channel': 'preview' })),
    [[], [`${operation}: response 409: new status`]], 'a preview')
  // A new operation's statuses are new with it.
  const added = documentWith({ 200: OBJECT })
  added.paths['/teams'] = { get: { responses: { 200: { description: 'Default Response' }, 409: { description: 'Conflict' } } } }
  t.same(compared(documentWith({ 200: OBJECT }), added), [[], [`${OLD} GET /teams: new endpoint`]], 'a new operation')
})

test("a webhook's payload has no status: a webhook added is a note", async (t) => {
  const before = documentWith({ 200: OBJECT })
  const after = { ...documentWith({ 200: OBJECT }), webhooks: { 'user.created': { post: { requestBody: { content: { 'application/json': { schema: OBJECT } } }, responses: { 200: { description: 'Received' } } } } } }
  t.same(compared(before, after), [[], [`${OLD} webhook user.created: new webhook`]])
})
