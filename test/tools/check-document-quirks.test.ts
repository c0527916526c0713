// `check` on parts of an OpenAPI document the diff library pairs or classifies wrongly: an operation's callbacks
// (what the application sends a client's callback URL), media types written in another case, and a `$ref` beside
// other keywords (OpenAPI 3.1's schemas allow it). A break there is red, a build changing nothing green.
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import { fastifyVersioner, HeadVersion, Version, VersionBundle, VersionChange, versioned } from '../../plugin'
import { checkDocuments, compareDocuments, exportDocuments } from '../../tools'
import { scratch } from '../helpers/cli'

const OLD = '2000-01-01'
const NEW = '2001-01-01'

class Nothing extends VersionChange {
  description = 'Nothing an old client sees.'
  instructionsToMigrateToPreviousVersion = []
}

type Json = Record<string, any>

/** An application whose `POST /jobs` calls the client's URL back with `payload` when the job is done. */
async function jobsApp (t: { teardown: (fn: () => unknown) => void }, payload: Json | undefined): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version(NEW, Nothing), new Version(OLD)) })
  const callbacks = payload === undefined
    ? undefined
    : { jobDone: { '{$request.body#/callbackUrl}': { post: { requestBody: { content: { 'application/json': { schema: payload } } }, responses: { 200: { description: 'Received' } } } } } }
  await app.register(versioned(async (api) => {
    api.post('/jobs', {
      schema: { body: Type.Object({ callbackUrl: Type.String() }), response: { 202: Type.Object({ id: Type.String() }) }, ...(callbacks === undefined ? {} : { callbacks }) }
    }, async (_request, reply) => reply.code(202).send({ id: 'j1' }))
  }))
  await app.ready()
  return app
}

const RELEASED = Type.Object({ jobId: Type.String(), status: Type.Union([Type.Literal('done'), Type.Literal('failed')]) })

test('check: what a callback sends an old version\'s client is compared as a webhook\'s payload', async (t) => {
  const dir = await scratch(t)
  await exportDocuments(await jobsApp(t, RELEASED), dir)
  const changes = async (payload: Json | undefined): Promise<[string[], string[]]> => {
    const { breaks, notes } = await checkDocuments(await jobsApp(t, payload), dir)
    return [breaks.map((change) => change.text).sort(), notes.map((change) => change.text).sort()]
  }
  t.same(await changes(RELEASED), [[], []], 'the same build: green')
  // The callback is the application's, the same in every version: each version's clients meet the change.
  const everyVersion = (text: string): string[] => [OLD, NEW].map((version) => `${version} POST /jobs callback jobDone: ${text}`)
  t.same((await changes(Type.Object({ job: Type.String(), status: RELEASED.properties.status })))[0], everyVersion('payload /jobId: renamed to job'), 'a field renamed')
  const statuses = Type.Union([Type.Literal('done'), Type.Literal('failed'), Type.Literal('lost')])
  t.same((await changes(Type.Object({ jobId: Type.String(), status: statuses })))[0], everyVersion("payload /status: enum member 'lost' added"), 'a value it did not send')
  t.same((await changes(undefined))[0], everyVersion('callback removed'), 'the callback removed')
  t.same(await changes(Type.Object({ ...RELEASED.properties, at: Type.Optional(Type.String()) })), [[], everyVersion('payload /at: new field')], 'a field added: a note')
})

/** An application whose unversioned `POST /notes` (which the plugin does not read) declares its bodies under `media`. */
async function notesApp (t: { teardown: (fn: () => unknown) => void }, media: string, field: string): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version(NEW, Nothing), new Version(OLD)) })
  const Note = Type.Object({ [field]: Type.String() })
  app.post('/notes', {
    schema: { body: { content: { [media]: { schema: Note } } }, response: { 201: { description: 'Created', content: { [media]: { schema: Note } } } } }
  }, async (request, reply) => reply.code(201).send(request.body))
  await app.register(versioned(async (api) => {
    api.get('/ping', { schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async () => ({ ok: true }))
  }))
  await app.ready()
  return app
}

test('check: a media type written in another case is the same media type (HTTP compares them in any case)', async (t) => {
  const dir = await scratch(t)
  await exportDocuments(await notesApp(t, 'Application/JSON', 'text'), dir)
  const breaks = async (media: string, field: string): Promise<string[]> => (await checkDocuments(await notesApp(t, media, field), dir)).breaks.map((change) => change.text).sort()
  t.same(await breaks('application/json', 'text'), [], 'the case written otherwise: green')
  t.same(await breaks('application/json', 'body'), [
    'unversioned POST /notes: request body /text: renamed to body',
    'unversioned POST /notes: response 201 /text: renamed to body'
  ], 'a field renamed under it: red, named where it is')
  t.same(await breaks('text/plain', 'text'), [
    'unversioned POST /notes: request body content/application/json: remove (breaking)',
    'unversioned POST /notes: response 201 content/application/json: remove (breaking)'
  ], 'another media type: red')
})

test('compareDocuments: a `$ref` beside other keywords is the schema it refers to with them', async (t) => {
  /** A document whose response and request hold `Name` and `Address` with the keywords `beside` each `$ref`. */
  const document = (beside: { name?: Json, address?: Json }): Json => ({
    openapi: '3.1.0',
    info: { title: 'Users', version: OLD },
    components: {
      schemas: {
        Name: { type: 'string' },
        Address: { type: 'object', properties: { street: { type: 'string' } }, required: ['street'] }
      }
    },
    paths: {
      '/users': {
        post: {
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { name: { $ref: '#/components/schemas/Name', ...beside.name } } } } } },
          responses: {
            200: {
              description: 'The user',
              content: { 'application/json': { schema: { type: 'object', properties: { address: { $ref: '#/components/schemas/Address', ...beside.address } }, required: ['address'] } } }
            }
          }
        }
      }
    }
  })
  const changes = (saved: Json, current: Json): string[] => compareDocuments(OLD, saved, current).map((change) => `${change.breaking ? 'break' : 'note'}: ${change.text}`).sort()
  t.same(changes(document({}), document({ address: { description: 'Where the user lives' } })), [
    `note: ${OLD} POST /users: response 200 /address: description added (text)`
  ], 'a description beside it: text')
  t.same(changes(document({}), document({ name: { maxLength: 20 } })), [
    `break: ${OLD} POST /users: request body /name: maxLength (none) → 20`
  ], 'a request narrowed beside it: red')
  t.same(changes(document({ name: { maxLength: 20 } }), document({})), [
    `note: ${OLD} POST /users: request body /name: maxLength 20 → (none)`
  ], 'the same, undone: a note')
  t.same(changes(document({ address: { description: 'Where the user lives' } }), document({ address: { description: 'Where the user lives' } })), [], 'the same: nothing')
  // How the plugin documents `Type.Ref(Name, { maxLength: 20 })`: the keyword beside an `allOf` of the `$ref`. Facing
  // the `$ref` alone (a document saved before the plugin documented it), the keyword beside it, or the schema inline.
  const named = (name: Json): Json => {
    const written = document({})
    written.paths['/users'].post.requestBody.content['application/json'].schema.properties.name = name
    return written
  }
  const wrapped = (maxLength: number): Json => named({ maxLength, allOf: [{ $ref: '#/components/schemas/Name' }] })
  t.same(changes(document({}), wrapped(20)), [`break: ${OLD} POST /users: request body /name: maxLength (none) → 20`],
    'the $ref alone, then wrapped with a maxLength: the maxLength (not the type removed)')
  t.same(changes(wrapped(20), document({})), [`note: ${OLD} POST /users: request body /name: maxLength 20 → (none)`], 'the same, undone: a note')
  t.same(changes(document({ name: { maxLength: 20 } }), wrapped(20)), [], 'beside the $ref, then wrapped: nothing')
  t.same(changes(named({ type: 'string', maxLength: 20 }), wrapped(20)), [], 'inline, then wrapped: nothing')
  t.same(changes(wrapped(20), wrapped(15)), [`break: ${OLD} POST /users: request body /name: maxLength 20 → 15`], 'wrapped on both sides, narrowed: red')
  // A schema referring to itself beside keywords (a tree's branches) stays as the diff library reads it: compared once.
  const tree = (limit: number): Json => ({
    openapi: '3.1.0',
    info: { title: 'Trees', version: OLD },
    components: {
      schemas: {
        Tree: {
          type: 'object',
          properties: { value: { type: 'string', maxLength: limit }, left: { $ref: '#/components/schemas/Tree', description: 'l' }, right: { $ref: '#/components/schemas/Tree', description: 'r' } }
        }
      }
    },
    paths: { '/tree': { get: { responses: { 200: { description: 'The tree', content: { 'application/json': { schema: { $ref: '#/components/schemas/Tree' } } } } } } } }
  })
  t.same(changes(tree(5), tree(10)), [`break: ${OLD} GET /tree: response 200 /value: maxLength 5 → 10`], 'a schema holding itself beside keywords')
})
