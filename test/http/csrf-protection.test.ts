/**
 * `@fastify/csrf-protection` beside the plugin, as docs/serving.md says: its token read from `request.body._csrf`
 * is the client's in `preValidation` (the version's body, before conversion), and in `preHandler` only where the body
 * schema declares it (a body a version rebuilds loses the fields it does not declare, decision 0013); a token in a
 * header is read in every hook. Its 403 is the version's error.
 */
import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import cookie from '@fastify/cookie'
import csrf from '@fastify/csrf-protection'
import type { FastifyInstance } from 'fastify'
import { ConvertRequestToNextVersionFor, schema, Version, VersionBundle, VersionChange, type RequestInfo } from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { call, jsonOf } from '../helpers/http'

type Hook = 'onRequest' | 'preValidation' | 'preHandler'

/** Notes whose `text` 2000-01-01 calls `body`, protected by `csrfProtection` in `hook`. */
async function notesApp (t: { teardown: (fn: () => unknown) => void }, hook: Hook, NewNote: TSchema): Promise<FastifyInstance> {
  class TextWasBody extends VersionChange {
    description = 'A note\'s text was its body.'
    instructionsToMigrateToPreviousVersion = [schema(NewNote).field('text').had({ name: 'body' })]

    @ConvertRequestToNextVersionFor(NewNote)
    textUp (request: RequestInfo) {
      request.body.text = request.body.body
      delete request.body.body
    }
  }
  return await versionedApp(t, new VersionBundle(new Version('2001-01-01', TextWasBody), new Version('2000-01-01')), async (api) => {
    api.get('/notes/form', async (_request, reply) => ({ token: reply.generateCsrf() }))
    api.post('/notes', { schema: { body: NewNote }, [hook]: api.csrfProtection }, async (request, reply) =>
      reply.code(201).send({ text: (request.body as { text: string }).text }))
  }, { beforeVersioner: async (app) => { await app.register(cookie); await app.register(csrf) } })
}

/** The statuses of a note posted in each version with the token in its body, then in the `x-csrf-token` header. */
async function posted (app: FastifyInstance): Promise<Record<string, [number, number]>> {
  const statuses: Record<string, [number, number]> = {}
  for (const [version, field] of [['2001-01-01', 'text'], ['2000-01-01', 'body']]) {
    const form = await call(app, version, '/notes/form')
    const token = String(jsonOf(form).token)
    const secret = String(form.headers['set-cookie']).split(';')[0]
    const inBody = await call(app, version, '/notes', { method: 'POST', payload: { [field]: 'Hi', _csrf: token }, headers: { cookie: secret } })
    const inHeader = await call(app, version, '/notes', { method: 'POST', payload: { [field]: 'Hi' }, headers: { cookie: secret, 'x-csrf-token': token } })
    statuses[version] = [inBody.statusCode, inHeader.statusCode]
  }
  return statuses
}

const Undeclared = Type.Object({ text: Type.String() })
const Declared = Type.Object({ text: Type.String(), _csrf: Type.Optional(Type.String()) })

test('in preValidation a body token is read in every version, as a header token is', async (t) => {
  t.same(await posted(await notesApp(t, 'preValidation', Undeclared)), { '2001-01-01': [201, 201], '2000-01-01': [201, 201] })
})

test('in onRequest the body is not parsed yet: a header token, in every version', async (t) => {
  t.same(await posted(await notesApp(t, 'onRequest', Undeclared)), { '2001-01-01': [403, 201], '2000-01-01': [403, 201] })
})

test('limit: in preHandler an undeclared _csrf is removed from the body a version rebuilds: a 403 in that version only', async (t) => {
  const app = await notesApp(t, 'preHandler', Undeclared)
  t.same(await posted(app), { '2001-01-01': [201, 201], '2000-01-01': [403, 201] })
  const form = await call(app, '2000-01-01', '/notes/form')
  const refused = await call(app, '2000-01-01', '/notes', {
    method: 'POST', payload: { body: 'Hi', _csrf: String(jsonOf(form).token) }, headers: { cookie: String(form.headers['set-cookie']).split(';')[0] }
  })
  t.match(jsonOf(refused), { statusCode: 403, code: 'FST_CSRF_INVALID_TOKEN' })
  t.equal(refused.headers['x-api-version'], '2000-01-01', 'the version\'s error')
})

test('in preHandler a _csrf the body schema declares is kept in every version', async (t) => {
  t.same(await posted(await notesApp(t, 'preHandler', Declared)), { '2001-01-01': [201, 201], '2000-01-01': [201, 201] })
})
