import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import { ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, type RequestInfo, schema, Version, VersionBundle, VersionChange, type ResponseInfo, HeadVersion, fastifyVersioner, versioned } from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { call, jsonOf, sleep } from '../helpers/http'
import Fastify, { type FastifyReply } from 'fastify'
import rateLimit from '@fastify/rate-limit'
import sensible from '@fastify/sensible'
import jwt from '@fastify/jwt'
import auth from '@fastify/auth'
import underPressure from '@fastify/under-pressure'
import { captureLogs, v } from '../helpers/request-pipeline'

const Params = Type.Object({ id: Type.String() })

/** An error with an HTTP status, as handlers throw them. */
function httpError (statusCode: number, message: string): Error {
  return Object.assign(new Error(message), { statusCode })
}

test('404 → 200: a migrateHttpErrors converter turns an error into a success, with a body and a header', async (t) => {
  const User = Type.Object({ id: Type.String(), name: Type.String() })
  const NotFound = Type.Object({ message: Type.String() })
  const seen: Array<{ status: number, body: unknown }> = []

  class MissingUsersWereGhosts extends VersionChange {
    description = 'Unknown users used to be answered with a ghost user.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/users/:id', ['GET'], { migrateHttpErrors: true })
    ghost (response: ResponseInfo) {
      seen.push({ status: response.statusCode, body: structuredClone(response.body) })
      if (response.statusCode !== 404) return
      response.statusCode = 200
      response.body = { id: 'ghost', name: 'darkness', extra: 'not in the schema' }
      response.headers.hewwo = 'dawkness'
    }
  }

  const versions = new VersionBundle(new Version('2001-01-01', MissingUsersWereGhosts), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/users/:id', { schema: { params: Params, response: { 200: User, 404: NotFound } } }, async (request, reply) => {
      if (request.params.id === 'returned') return reply.code(404).send({ message: 'No such user' })
      if (request.params.id === 'thrown') throw httpError(404, 'No such user (thrown)')
      return { id: request.params.id, name: 'Ada' }
    })
  })

  const returned = await call(app, '2000-01-01', '/users/returned')
  t.equal(returned.statusCode, 200, 'reply.code(404).send(...) became 200')
  t.same(jsonOf(returned), { id: 'ghost', name: 'darkness' }, 'the new body, serialized with the 200 schema')
  t.equal(returned.headers.hewwo, 'dawkness', 'the header set by the converter')
  t.equal(returned.headers['x-api-version'], '2000-01-01')
  t.same(seen, [{ status: 404, body: { message: 'No such user' } }], 'the converter saw the parsed error body and its status')

  seen.length = 0
  const thrown = await call(app, '2000-01-01', '/users/thrown')
  t.equal(thrown.statusCode, 200, 'a thrown 404 became 200')
  t.same(jsonOf(thrown), { id: 'ghost', name: 'darkness' })
  t.equal(thrown.headers.hewwo, 'dawkness')
  t.equal(seen.length, 1)
  t.equal(seen[0].status, 404)
  t.match(seen[0].body, { message: 'No such user (thrown)' }, 'the default error handler\'s body reached the converter')

  seen.length = 0
  const found = await call(app, '2000-01-01', '/users/u1')
  t.equal(found.statusCode, 200)
  t.same(jsonOf(found), { id: 'u1', name: 'Ada' }, 'a success passes through untouched')
  t.equal(found.headers.hewwo, undefined)
  t.same(seen, [{ status: 200, body: { id: 'u1', name: 'Ada' } }], 'the converter saw the success too')

  seen.length = 0
  const latest = await call(app, '2001-01-01', '/users/returned')
  t.equal(latest.statusCode, 404, 'latest keeps the 404')
  t.same(jsonOf(latest), { message: 'No such user' })
  t.equal(latest.headers.hewwo, undefined)
  t.same(seen, [], 'no converter for latest')
})

test('404 → 401: a thrown error and a by-schema error converter', async (t) => {
  const Item = Type.Object({ id: Type.String() })
  const ErrorBody = Type.Object({ statusCode: Type.Integer(), error: Type.String(), message: Type.String() })
  let calls = 0

  class NotFoundWasUnauthorized extends VersionChange {
    description = 'Items of other accounts used to answer 401.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor(ErrorBody, { migrateHttpErrors: true })
    unauthorized (response: ResponseInfo) {
      calls++
      response.statusCode = 401
      response.body.statusCode = 401
      response.body.error = 'Unauthorized'
      response.body.message = `was: ${String(response.body.message)}`
    }
  }

  const versions = new VersionBundle(new Version('2001-01-01', NotFoundWasUnauthorized), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/items/:id', { schema: { params: Params, response: { 200: Item, '4xx': ErrorBody } } }, async (request) => {
      if (request.params.id === 'other') throw httpError(404, 'Not yours')
      return { id: request.params.id }
    })
  })

  const old = await call(app, '2000-01-01', '/items/other')
  t.equal(old.statusCode, 401)
  t.same(jsonOf(old), { statusCode: 401, error: 'Unauthorized', message: 'was: Not yours' }, 'the converted body')
  t.equal(old.headers['x-api-version'], '2000-01-01')
  t.equal(calls, 1)

  const latest = await call(app, '2001-01-01', '/items/other')
  t.equal(latest.statusCode, 404)
  t.same(jsonOf(latest), { statusCode: 404, error: 'Not Found', message: 'Not yours' })

  const ok = await call(app, '2000-01-01', '/items/mine')
  t.equal(ok.statusCode, 200)
  t.same(jsonOf(ok), { id: 'mine' }, 'the 200 response is not of the error schema: untouched')
  t.equal(calls, 1, 'the converter ran only for the error')
})

test('without migrateHttpErrors, error responses (and redirects) are left untouched', async (t) => {
  const User = Type.Object({ id: Type.String(), name: Type.String() })
  const NotFound = Type.Object({ message: Type.String() })
  const ran: string[] = []

  class Unflagged extends VersionChange {
    description = 'Converters without the flag.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/users/:id', ['GET'])
    byPath (response: ResponseInfo) {
      ran.push(`byPath ${response.statusCode}`)
      response.statusCode = 200
      response.body = { id: 'x', name: 'converted' }
      response.headers['x-converted'] = 'yes'
    }

    @ConvertResponseToPreviousVersionFor(NotFound)
    bySchema (response: ResponseInfo) {
      ran.push('bySchema')
      response.body.message = 'converted'
    }

    @ConvertResponseToPreviousVersionFor('/go', ['GET'])
    redirect (response: ResponseInfo) {
      ran.push('redirect')
      response.headers.location = '/converted'
    }
  }

  const versions = new VersionBundle(new Version('2001-01-01', Unflagged), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/users/:id', { schema: { params: Params, response: { 200: User, 404: NotFound } } }, async (request, reply) => {
      if (request.params.id === 'thrown') throw httpError(404, 'thrown')
      if (request.params.id === 'missing') return reply.code(404).send({ message: 'No such user' })
      return { id: request.params.id, name: 'Ada' }
    })
    api.get('/go', async (_request, reply) => reply.redirect('/target'))
  })

  const missing = await call(app, '2000-01-01', '/users/missing')
  t.equal(missing.statusCode, 404)
  t.same(jsonOf(missing), { message: 'No such user' })
  t.equal(missing.headers['x-converted'], undefined)

  const thrown = await call(app, '2000-01-01', '/users/thrown')
  t.equal(thrown.statusCode, 404)
  t.same(jsonOf(thrown), { message: 'thrown' }, 'serialized with the 404 schema, not converted')

  const redirect = await call(app, '2000-01-01', '/go')
  t.equal(redirect.statusCode, 302)
  t.equal(redirect.headers.location, '/target', 'a 3xx counts as an error: the unflagged converter does not run')
  t.same(ran, [], 'no unflagged converter ran on an error or redirect')

  const found = await call(app, '2000-01-01', '/users/u1')
  t.equal(found.statusCode, 200)
  t.same(jsonOf(found), { id: 'x', name: 'converted' }, 'the by-path converter does run on success')
  t.equal(found.headers['x-converted'], 'yes')
  t.same(ran, ['byPath 200'])
})

test('a custom error handler\'s body reaches migrateHttpErrors converters', async (t) => {
  const Thing = Type.Object({ id: Type.String() })
  const seen: unknown[] = []

  class ProblemWasReason extends VersionChange {
    description = 'Errors used to carry reason instead of problem, and gone things answered 410.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/things/:id', ['GET'], { migrateHttpErrors: true })
    problemToReason (response: ResponseInfo) {
      if (response.statusCode < 400) return
      seen.push(structuredClone(response.body))
      response.body = { reason: response.body.problem, kind: response.body.kind }
      if (response.statusCode === 404) response.statusCode = 410
      response.setCookie('error-seen', '1')
    }
  }

  const versions = new VersionBundle(new Version('2001-01-01', ProblemWasReason), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
      return reply.code(error.statusCode ?? 500).send({ problem: error.message, kind: 'custom' })
    })
    api.get('/things/:id', { schema: { params: Params, response: { 200: Thing } } }, async (request) => {
      if (request.params.id === 'gone') throw httpError(404, 'It is gone')
      if (request.params.id === 'teapot') throw httpError(418, 'I am a teapot')
      return { id: request.params.id }
    })
  })

  const gone = await call(app, '2000-01-01', '/things/gone')
  t.equal(gone.statusCode, 410)
  t.same(jsonOf(gone), { reason: 'It is gone', kind: 'custom' })
  t.match(gone.headers['set-cookie'], /error-seen=1/)

  const teapot = await call(app, '2000-01-01', '/things/teapot')
  t.equal(teapot.statusCode, 418)
  t.same(jsonOf(teapot), { reason: 'I am a teapot', kind: 'custom' })
  t.same(seen, [{ problem: 'It is gone', kind: 'custom' }, { problem: 'I am a teapot', kind: 'custom' }])

  const latest = await call(app, '2001-01-01', '/things/gone')
  t.equal(latest.statusCode, 404)
  t.same(jsonOf(latest), { problem: 'It is gone', kind: 'custom' })
  t.equal(latest.headers['set-cookie'], undefined)
})

test('error bodies are serialized with the schema the version has for the final status', async (t) => {
  const User = Type.Object({ id: Type.String(), name: Type.String() })
  const NotFound = Type.Object({ message: Type.String(), code: Type.String() })
  const Unauthorized = Type.Object({ reason: Type.String() })

  class RenameCode extends VersionChange {
    description = 'NotFound.code was errorCode; User.name was fullName.'
    instructionsToMigrateToPreviousVersion = [
      schema(NotFound).field('code').had({ name: 'errorCode' }),
      schema(User).field('name').had({ name: 'fullName' })
    ]

    @ConvertResponseToPreviousVersionFor(NotFound, { migrateHttpErrors: true })
    codeToErrorCode (response: ResponseInfo) {
      response.body.errorCode = response.body.code
      delete response.body.code
    }

    @ConvertResponseToPreviousVersionFor('/users/:id', ['GET'], { migrateHttpErrors: true })
    byStatus (response: ResponseInfo) {
      if (response.statusCode === 200) {
        response.body.fullName = response.body.name
        delete response.body.name
      }
      if (response.body.errorCode === 'E_GHOST') {
        response.statusCode = 200
        response.body = { id: 'ghost', fullName: 'Ghost', name: 'HEAD field', errorCode: 'E_GHOST' }
      }
      if (response.body.errorCode === 'E_AUTH') {
        response.statusCode = 401
        response.body = { reason: 'auth', message: 'dropped' }
      }
    }
  }

  const versions = new VersionBundle(new Version('2001-01-01', RenameCode), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/users/:id', { schema: { params: Params, response: { 200: User, 404: NotFound, 401: Unauthorized } } }, async (request, reply) => {
      if (request.params.id === 'missing') return reply.code(404).send({ message: 'No such user', code: 'E_MISSING', stack: 'secret' } as never)
      if (request.params.id === 'ghost') return reply.code(404).send({ message: 'Ghost', code: 'E_GHOST' })
      if (request.params.id === 'auth') return reply.code(404).send({ message: 'Auth', code: 'E_AUTH' })
      return { id: request.params.id, name: 'Ada' }
    })
  })

  const latest = await call(app, '2001-01-01', '/users/missing')
  t.equal(latest.statusCode, 404)
  t.same(jsonOf(latest), { message: 'No such user', code: 'E_MISSING' }, 'latest: the 404 schema strips the unknown field')

  const old = await call(app, '2000-01-01', '/users/missing')
  t.equal(old.statusCode, 404, 'still a 404')
  t.same(jsonOf(old), { message: 'No such user', errorCode: 'E_MISSING' }, '2000-01-01 speaks errorCode, with its own 404 schema')
  t.notOk(JSON.parse(old.body).stack, 'the unknown field is stripped in 2000-01-01 too')

  const success = await call(app, '2000-01-01', '/users/u1')
  t.same(jsonOf(success), { id: 'u1', fullName: 'Ada' }, 'a success uses the version\'s 200 schema')

  const ghost = await call(app, '2000-01-01', '/users/ghost')
  t.equal(ghost.statusCode, 200, '404 → 200')
  t.same(jsonOf(ghost), { id: 'ghost', fullName: 'Ghost' }, 'serialized with 2000-01-01\'s 200 schema (fullName, no HEAD name)')

  const auth = await call(app, '2000-01-01', '/users/auth')
  t.equal(auth.statusCode, 401, '404 → 401')
  t.same(jsonOf(auth), { reason: 'auth' }, 'serialized with the 401 schema')
})

test('regression: a response converter that turns a success into an error runs once', async (t) => {
  const User = Type.Object({ id: Type.String() })
  const calls: number[] = []
  class GoneUsers extends VersionChange {
    description = 'Deleted users answered 410.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/users/:id', ['GET'], { migrateHttpErrors: true })
    gone (response: ResponseInfo) {
      calls.push(response.statusCode)
      if (response.statusCode === 200 && response.body.id === 'deleted') {
        response.statusCode = 410
        response.body = { message: 'gone' }
      }
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', GoneUsers), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User } } }, async (request) => ({ id: (request.params as { id: string }).id }))
  }))

  const response = await app.inject({ method: 'GET', url: '/users/deleted', headers: v('2000-01-01') })
  t.equal(response.statusCode, 410)
  t.same(response.json(), { message: 'gone' }, 'serialized for the new status')
  t.same(calls, [200], 'the converter ran once (the onSend hook does not convert the converted payload again)')

  calls.length = 0
  const kept = await app.inject({ method: 'GET', url: '/users/ok', headers: v('2000-01-01') })
  t.same([kept.statusCode, kept.json()], [200, { id: 'ok' }])
  t.same(calls, [200])
})
test('regression: an error after the preSerialization hook converted a success is converted as an error', async (t) => {
  const User = Type.Object({ id: Type.String() })
  const calls: number[] = []
  class LegacyErrors extends VersionChange {
    description = 'Errors carried legacy: true; users had no id.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/broken', ['GET'], { migrateHttpErrors: true })
    legacy (response: ResponseInfo) {
      calls.push(response.statusCode)
      if (response.statusCode === 200) delete response.body.id
      else response.body.legacy = true
    }
  }
  const app = Fastify({ logger: { level: 'fatal' } })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', LegacyErrors), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/broken', { schema: { response: { 200: User } } }, async () => ({ id: '1' }))
  }))
  const response = await app.inject({ method: 'GET', url: '/broken', headers: v('2000-01-01') })
  t.equal(response.statusCode, 500, 'the converted body fails serialization')
  t.same(calls, [200, 500], 'the error body goes through the converters of errors')
  t.equal(response.json().legacy, true)
})

test('regression: an error converter that fails on a documented 409 answers FST_VERSIONER_CONVERTER_FAILED, never HEAD\'s error body', async (t) => {
  const User = Type.Object({ id: Type.String() })
  const Conflict = Type.Object({ conflictingName: Type.String() })
  class ConflictNamedName extends VersionChange {
    description = 'Conflicts named the field name.'
    instructionsToMigrateToPreviousVersion = [schema(Conflict).field('conflictingName').had({ name: 'name' })]

    @ConvertResponseToPreviousVersionFor(Conflict, { migrateHttpErrors: true })
    toName (response: ResponseInfo) {
      if (response.body.conflictingName === 'fail') throw new Error('cannot convert')
      response.body.name = response.body.conflictingName
      delete response.body.conflictingName
    }
  }
  const { stream, entries } = captureLogs()
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', ConflictNamedName), new Version('2000-01-01')), async (api) => {
    const response = { 200: User, 409: Conflict }
    api.post('/thrown', { schema: { body: Type.Object({ n: Type.String() }), response } }, async (request) => {
      throw Object.assign(httpError(409, 'conflict'), { conflictingName: request.body.n })
    })
    api.post('/sent', { schema: { body: Type.Object({ n: Type.String() }), response } }, async (request, reply) => reply.code(409).send({ conflictingName: request.body.n }))
  }, { fastify: { logger: { level: 'error', stream } } })
  for (const url of ['/thrown', '/sent']) {
    const converted = await app.inject({ method: 'POST', url, headers: v('2000-01-01'), payload: { n: 'taken' } })
    t.same([converted.statusCode, converted.json()], [409, { name: 'taken' }], `${url}: the converter ran`)
    const failed = await app.inject({ method: 'POST', url, headers: v('2000-01-01'), payload: { n: 'fail' } })
    t.equal(failed.statusCode, 500, `${url}: 500`)
    t.match(failed.json(), { code: 'FST_VERSIONER_CONVERTER_FAILED', message: /A converter failed while migrating/ }, `${url}: the documented error`)
    t.notMatch(failed.body, /conflictingName|cannot convert/, `${url}: no HEAD field and no failure text reaches the client`)
    t.equal(failed.headers['x-api-version'], '2000-01-01', `${url}: the version header`)
  }
  t.equal(entries.filter((entry) => entry.converter === 'ConflictNamedName.toName').length, 2, 'each failure is logged, naming the converter')
})

test('by-schema converters never saw errors: with migrateHttpErrors, errors of the routes holding the schema pass through them (thrown, reply.code().send(), the app\'s error handler), which may change status and body', async (t) => {
  const Res = Type.Object({ id: Type.String(), name: Type.String() })
  const seen: Array<{ status: number, body: unknown }> = []
  class ErrorsWereTeapots extends VersionChange {
    description = 'Missing resources used to answer 418 with a reason.'
    instructionsToMigrateToPreviousVersion = [schema(Res).field('name').had({ name: 'title' })]

    @ConvertResponseToPreviousVersionFor(Res, { migrateHttpErrors: true })
    convert (response: ResponseInfo) {
      seen.push({ status: response.statusCode, body: structuredClone(response.body) })
      if (response.statusCode === 404) {
        response.statusCode = 418
        response.body = { reason: `was: ${String(response.body.message)}` }
        return
      }
      if (response.statusCode >= 300) return
      response.body.title = response.body.name
      delete response.body.name
    }
  }
  const versions = new VersionBundle(new Version('2001-01-01', ErrorsWereTeapots), new Version('2000-01-01'))
  for (const how of ['thrown', 'sent', 'error handler'] as const) {
    seen.length = 0
    const app = await versionedApp(t, versions, async (api) => {
      if (how === 'error handler') api.setErrorHandler(async (_error, _request, reply) => reply.code(404).send({ message: 'handled' }))
      api.get('/res/:id', { schema: { params: Params, response: { 200: Res } } }, async (request, reply) => {
        if (request.params.id !== 'missing') return { id: request.params.id, name: 'n' }
        if (how === 'sent') return reply.code(404 as never).send({ message: 'no such thing' } as never)
        if (how === 'thrown') throw httpError(404, 'no such thing')
        throw new Error('boom')
      })
    })
    const old = await call(app, '2000-01-01', '/res/missing')
    t.equal(old.statusCode, 418, `${how}: the converter changed the status`)
    t.same(jsonOf(old), { reason: `was: ${how === 'error handler' ? 'handled' : 'no such thing'}` }, `${how}: and the body`)
    t.equal(seen.length, 1, `${how}: the converter saw the error once`)
    t.equal(seen[0]?.status, 404)
    const found = await call(app, '2000-01-01', '/res/r1')
    t.same(jsonOf(found), { id: 'r1', title: 'n' }, `${how}: successes are converted as before`)
    const latest = await call(app, '2001-01-01', '/res/missing')
    t.equal(latest.statusCode, 404, `${how}: the latest version keeps the error`)
  }
})

/** Versions whose 2000-01-01 error bodies of `/things` (for `methods`) said `detail` where HEAD's say `message`. */
function errorsHadADetail (methods: Array<'GET' | 'POST'>): VersionBundle {
  class ErrorsHadADetail extends VersionChange {
    description = 'Error bodies used to say `detail` where they now say `message`.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/things', methods, { migrateHttpErrors: true })
    detail (response: ResponseInfo) {
      if (response.statusCode < 400) return
      response.body.detail = response.body.message
      delete response.body.message
    }
  }
  return new VersionBundle(new Version('2001-01-01', ErrorsHadADetail), new Version('2000-01-01'))
}

test('regression: an error raised before the request hook (an onRequest hook\'s 401, @fastify/rate-limit\'s 429) reaches the version\'s error converters', async (t) => {
  const versions = errorsHadADetail(['GET', 'POST'])
  const app = await versionedApp(t, versions, async (api) => {
    api.addHook('onRequest', async (request) => {
      if (request.headers.authorization === undefined) throw httpError(401, 'Sign in first')
    })
    api.addHook('preHandler', async (request) => {
      if (request.headers.authorization === 'expired') throw httpError(401, 'Sign in again')
    })
    api.get('/things', async () => ({ things: [] }))
    api.post('/things', async () => ({ things: [] }))
  }, {
    // The onRequest hook above runs before the limiter's: the fourth request it lets through is refused.
    beforeVersioner: async (instance) => { await instance.register(rateLimit, { max: 3, timeWindow: 60_000 }) }
  })

  const early = await call(app, '2000-01-01', '/things')
  t.equal(early.statusCode, 401)
  t.equal(early.headers['x-api-version'], '2000-01-01')
  t.match(jsonOf(early), { statusCode: 401, detail: 'Sign in first' }, 'an onRequest hook\'s error is in the version\'s shape')
  t.notOk('message' in jsonOf(early), 'HEAD\'s field is gone')
  const unparsed = await call(app, '2000-01-01', '/things', {
    method: 'POST', headers: { authorization: 'ok', 'content-type': 'application/json' }, payload: '{"not json'
  })
  t.equal(unparsed.statusCode, 400)
  t.match(jsonOf(unparsed), { statusCode: 400, detail: /JSON/ }, 'as a body the content-type parser refuses')
  const later = await call(app, '2000-01-01', '/things', { headers: { authorization: 'expired' } })
  t.match(jsonOf(later), { statusCode: 401, detail: 'Sign in again' }, 'as a preHandler hook\'s error is')
  const served = await call(app, '2000-01-01', '/things', { headers: { authorization: 'ok' } })
  t.equal(served.statusCode, 200)
  const limited = await call(app, '2000-01-01', '/things', { headers: { authorization: 'ok' } })
  t.equal(limited.statusCode, 429, 'the rate limit is reached')
  t.match(jsonOf(limited), { statusCode: 429, detail: /Rate limit exceeded/ }, 'the 429 is in the version\'s shape')
  const newest = await call(app, '2001-01-01', '/things', { headers: { authorization: 'ok' } })
  t.equal(newest.statusCode, 429)
  t.match(jsonOf(newest), { statusCode: 429, message: /Rate limit exceeded/ }, 'the newest version keeps HEAD\'s error body')
})

test('@fastify/sensible\'s errors (reply.notFound, httpErrors) reach an old version\'s error converters and schema', async (t) => {
  const ErrorBody = Type.Object({ statusCode: Type.Integer(), error: Type.String(), message: Type.String(), code: Type.Optional(Type.String()) })
  class ErrorsSaidDetail extends VersionChange {
    description = 'Error bodies said detail where they now say message.'
    instructionsToMigrateToPreviousVersion = [schema(ErrorBody).field('message').had({ name: 'detail' })]

    @ConvertResponseToPreviousVersionFor(ErrorBody, { migrateHttpErrors: true })
    detail (response: ResponseInfo) {
      response.body.detail = response.body.message
      delete response.body.message
    }
  }
  const versions = new VersionBundle(new Version('2001-01-01', ErrorsSaidDetail), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/orders/:id', { schema: { params: Params, response: { 200: Type.Object({ id: Type.String() }), '4xx': ErrorBody } } }, async (request, reply) => {
      const { id } = request.params
      if (id === 'missing') return reply.notFound('No such order')
      if (id === 'paid') throw api.httpErrors.createError(409, 'Already paid', { code: 'E_PAID' })
      if (id === 'bad') throw api.httpErrors.unprocessableEntity('Not an order id')
      return { id }
    })
  }, { beforeVersioner: async (instance) => { await instance.register(sensible) } })

  const cases = [
    ['/orders/missing', 404, { statusCode: 404, error: 'Not Found', detail: 'No such order' }],
    ['/orders/paid', 409, { statusCode: 409, error: 'Conflict', detail: 'Already paid', code: 'E_PAID' }],
    ['/orders/bad', 422, { statusCode: 422, error: 'Unprocessable Entity', detail: 'Not an order id' }]
  ] as const
  for (const [url, status, body] of cases) {
    const old = await call(app, '2000-01-01', url)
    t.equal(old.statusCode, status, url)
    t.same(jsonOf(old), body, `${url}: the version's error shape`)
    t.equal(old.headers['x-api-version'], '2000-01-01')
    const { detail, ...rest } = body
    t.same(jsonOf(await call(app, '2001-01-01', url)), { ...rest, message: detail }, `${url}: HEAD's shape in the newest version`)
  }
})

test('@fastify/jwt, @fastify/auth and @fastify/under-pressure: their 401, 403 and 503 are an old version\'s errors; request.user beside a converted body', async (t) => {
  const ErrorBody = Type.Object({ statusCode: Type.Integer(), error: Type.String(), message: Type.String(), code: Type.Optional(Type.String()) })
  const Note = Type.Object({ text: Type.String(), author: Type.String() })
  const NewNote = Type.Object({ text: Type.String() })
  class NotesSaidBody extends VersionChange {
    description = 'A note\'s text was its body; error bodies said detail.'
    instructionsToMigrateToPreviousVersion = [
      schema(ErrorBody).field('message').had({ name: 'detail' }),
      schema(Note).field('text').had({ name: 'body' }),
      schema(NewNote).field('text').had({ name: 'body' })
    ]

    @ConvertRequestToNextVersionFor(NewNote)
    textUp (request: RequestInfo) {
      request.body.text = request.body.body
      delete request.body.body
    }

    @ConvertResponseToPreviousVersionFor(Note)
    textDown (response: ResponseInfo) {
      response.body.body = response.body.text
      delete response.body.text
    }

    @ConvertResponseToPreviousVersionFor(ErrorBody, { migrateHttpErrors: true })
    detail (response: ResponseInfo) {
      response.body.detail = response.body.message
      delete response.body.message
    }
  }
  let overloaded = false
  const versions = new VersionBundle(new Version('2001-01-01', NotesSaidBody), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.post('/notes', {
      schema: { body: NewNote, response: { 201: Note, '4xx': ErrorBody, '5xx': ErrorBody } },
      onRequest: async (request) => { await request.jwtVerify() },
      preHandler: api.auth([async (request) => {
        if ((request.user as { sub: string }).sub === 'eve') throw Object.assign(new Error('Eve may not write notes'), { statusCode: 403 })
      }])
    }, async (request, reply) => reply.code(201).send({ text: request.body.text, author: (request.user as { sub: string }).sub }))
  }, {
    beforeVersioner: async (instance) => {
      await instance.register(jwt, { secret: 'a secret long enough' })
      await instance.register(auth)
      await instance.register(underPressure, { healthCheck: async () => !overloaded, healthCheckInterval: 10 })
    }
  })
  await app.ready()
  const post = (version: string, user: string | undefined, payload: object) => call(app, version, '/notes', {
    method: 'POST', payload, headers: user === undefined ? {} : { authorization: `Bearer ${app.jwt.sign({ sub: user })}` }
  })

  const created = await post('2000-01-01', 'ada', { body: 'Hello' })
  t.equal(created.statusCode, 201)
  t.same(jsonOf(created), { body: 'Hello', author: 'ada' }, 'the converted body, and request.user from the token')
  t.same(jsonOf(await post('2001-01-01', 'ada', { text: 'Hello' })), { text: 'Hello', author: 'ada' })
  const anonymous = await post('2000-01-01', undefined, { body: 'Hello' })
  t.equal(anonymous.statusCode, 401)
  t.same(jsonOf(anonymous), { statusCode: 401, code: 'FST_JWT_NO_AUTHORIZATION_IN_HEADER', error: 'Unauthorized', detail: 'No Authorization was found in request.headers' }, 'jwtVerify\'s 401 in onRequest')
  t.equal(anonymous.headers['x-api-version'], '2000-01-01')
  t.equal(anonymous.headers.vary, 'x-api-version')
  const eve = await post('2000-01-01', 'eve', { body: 'Hello' })
  t.same(jsonOf(eve), { statusCode: 403, error: 'Forbidden', detail: 'Eve may not write notes' }, '@fastify/auth\'s refusal in preHandler')
  t.same(jsonOf(await post('2001-01-01', 'eve', { text: 'Hello' })), { statusCode: 403, error: 'Forbidden', message: 'Eve may not write notes' })
  overloaded = true
  await sleep(50)
  const busy = await post('2000-01-01', 'ada', { body: 'Hello' })
  t.equal(busy.statusCode, 503)
  t.same(jsonOf(busy), { statusCode: 503, code: 'FST_UNDER_PRESSURE', error: 'Service Unavailable', detail: 'Service Unavailable' }, 'the 503 under pressure')
  t.ok(busy.headers['retry-after'], 'with its Retry-After')
  t.equal(busy.headers['x-api-version'], '2000-01-01')
})

test('regression: an error an onRequest or preParsing hook answers with reply.code(401).send(...) (not thrown) is the version\'s too: its shape and headers', async (t) => {
  const versions = errorsHadADetail(['GET'])
  const app = await versionedApp(t, versions, async (api) => {
    // Fastify's documented way to answer from a hook: send, and return the reply.
    api.addHook('onRequest', async (request, reply) => {
      if (request.headers.authorization === undefined) return reply.code(401).send({ statusCode: 401, error: 'Unauthorized', message: 'Sign in first' })
    })
    api.addHook('preParsing', async (request, reply) => {
      if (request.headers.authorization === 'banned') return reply.code(403).send({ statusCode: 403, error: 'Forbidden', message: 'Banned' })
    })
    api.get('/things', async () => ({ things: [] }))
  })

  const early = await call(app, '2000-01-01', '/things')
  t.equal(early.statusCode, 401)
  t.same(jsonOf(early), { statusCode: 401, error: 'Unauthorized', detail: 'Sign in first' }, 'the version\'s error shape')
  t.equal(early.headers['x-api-version'], '2000-01-01', 'and its headers')
  t.match(early.headers.vary, /x-api-version/)
  const banned = await call(app, '2000-01-01', '/things', { headers: { authorization: 'banned' } })
  t.same(jsonOf(banned), { statusCode: 403, error: 'Forbidden', detail: 'Banned' }, 'from a preParsing hook too')
  const newest = await call(app, '2001-01-01', '/things')
  t.same(jsonOf(newest), { statusCode: 401, error: 'Unauthorized', message: 'Sign in first' }, 'the newest version keeps HEAD\'s body')
  t.equal(newest.headers['x-api-version'], '2001-01-01')
  const unknown = await app.inject({ url: '/things', headers: { 'x-api-version': '1999-01-01' } })
  t.equal(unknown.statusCode, 401, 'a version the API does not serve: the hook\'s answer as it is')
  t.same(jsonOf(unknown), { statusCode: 401, error: 'Unauthorized', message: 'Sign in first' })
  t.equal(unknown.headers['x-api-version'], undefined)
  t.equal(unknown.headers.vary, 'x-api-version')
  t.equal((await call(app, '2000-01-01', '/things', { headers: { authorization: 'ok' } })).statusCode, 200)
})

test('regression: an error body sent as JSON under an upper-case media type (Application/Problem+JSON) reaches error converters parsed, as a lower-case one does', async (t) => {
  class ProblemHadCode extends VersionChange {
    description = 'Problems carried a code.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/things', ['GET'], { migrateHttpErrors: true })
    addCode (response: ResponseInfo) {
      if (response.statusCode === 404) response.body.code = 'NOT_FOUND'
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', ProblemHadCode), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/things', { schema: { querystring: Type.Object({ type: Type.String() }) } }, async (request, reply) =>
      reply.code(404).type((request.query as { type: string }).type).send({ title: 'Not found' }))
  }))
  for (const type of ['application/problem+json', 'Application/Problem+JSON; charset=utf-8', 'APPLICATION/JSON']) {
    const response = await app.inject({ url: `/things?type=${encodeURIComponent(type)}`, headers: v('2000-01-01') })
    t.equal(response.statusCode, 404)
    t.same(response.json(), { title: 'Not found', code: 'NOT_FOUND' }, type)
  }
})

test('regression: a child context\'s error handler answers an old version\'s unconvertible response in its own format, not serialized with the version\'s success schema', async (t) => {
  const Thing = Type.Object({ fullName: Type.String(), kind: Type.String() })
  class FullNameWasName extends VersionChange {
    description = 'fullName was name.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('fullName').had({ name: 'name' })]

    @ConvertResponseToPreviousVersionFor(Thing)
    fullNameToName (response: ResponseInfo) {
      response.body.name = response.body.fullName
      delete response.body.fullName
      // A converter bug on one thing: the old version's serializer refuses what HEAD's writes.
      if (response.body.kind === 'lost') delete response.body.kind
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', FullNameWasName), new Version('2000-01-01')) })
  await app.register(async (child) => {
    child.setErrorHandler((error: Error & { code?: string }, _request, reply) => reply.code(422).send({ error: { code: error.code ?? null, message: error.message } }))
    await child.register(versioned(async (api) => {
      api.get('/things', { schema: { response: { 200: Thing } } }, async () => ({ fullName: 'Ada', kind: 'lost' }))
      // The handler forgets `kind`: HEAD's serializer and the old version's both refuse the answer.
      api.get('/forgotten', { schema: { response: { 200: Thing } } }, async () => ({ fullName: 'Ada' }) as never)
    }))
  }, { prefix: '/api' })

  const old = await call(app, '2000-01-01', '/api/things')
  t.equal(old.statusCode, 422, 'the child\'s error handler chose the status')
  t.same(jsonOf(old), {
    error: { code: 'FST_VERSIONER_UNCONVERTIBLE_RESPONSE', message: 'A response of this route cannot be expressed in API version 2000-01-01. This is a server error; it has been logged.' }
  }, 'its body, in its format: the serializer\'s message stays in the log')
  const latest = await call(app, '2001-01-01', '/api/forgotten')
  t.equal(latest.statusCode, 422)
  t.same(jsonOf(latest), { error: { code: null, message: '"kind" is required!' } }, 'as plain Fastify answers HEAD')
  const forgotten = await call(app, '2000-01-01', '/api/forgotten')
  t.same([forgotten.statusCode, jsonOf(forgotten)], [422, jsonOf(latest)], 'HEAD\'s own refusal reaches the old client as HEAD\'s error (decision 0298)')
})

test('HEAD of an old version\'s answer is its GET\'s without the body: an error\'s converted status, length and headers, a success sent as JSON text', async (t) => {
  const User = Type.Object({ id: Type.String(), fullName: Type.String() })
  class GhostsAndDetails extends VersionChange {
    description = 'fullName was name; unknown users were answered with a ghost; error bodies said detail.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('fullName').had({ name: 'name' })]

    @ConvertResponseToPreviousVersionFor(User)
    name (response: ResponseInfo) {
      response.body.name = response.body.fullName
      delete response.body.fullName
    }

    @ConvertResponseToPreviousVersionFor('/users/:id', ['GET'], { migrateHttpErrors: true })
    ghost (response: ResponseInfo) {
      response.headers['x-legacy'] = String(response.statusCode)
      if (response.statusCode === 404) {
        response.statusCode = 200
        response.body = { id: 'ghost', name: 'a user no one knows' }
      } else if (response.statusCode >= 400) response.body = { detail: response.body.message }
    }
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', GhostsAndDetails), new Version('2000-01-01')), async (api) => {
    api.get('/users/:id', { schema: { params: Params, response: { 200: User } } }, async (request, reply: FastifyReply) => {
      const { id } = request.params as { id: string }
      if (id === 'missing') return reply.code(404).send({ message: 'No such user' })
      if (id === 'taken') throw httpError(409, 'That user is being edited')
      if (id === 'text') return reply.type('application/json').send(JSON.stringify({ id, fullName: 'Ada Lovelace' }))
      return { id, fullName: 'Ada Lovelace' }
    })
  })
  const expected: Array<[string, number, unknown]> = [
    ['/users/missing', 200, { id: 'ghost', name: 'a user no one knows' }],
    ['/users/taken', 409, { detail: 'That user is being edited' }],
    ['/users/text', 200, { id: 'text', name: 'Ada Lovelace' }],
    ['/users/u1', 200, { id: 'u1', name: 'Ada Lovelace' }]
  ]
  for (const [url, status, body] of expected) {
    const got = await call(app, '2000-01-01', url)
    t.same([got.statusCode, jsonOf(got)], [status, body], `${url}: GET answers the version's`)
    const head = await call(app, '2000-01-01', url, { method: 'HEAD' })
    t.equal(head.statusCode, status, `${url}: HEAD has the converted status`)
    t.equal(head.body, '', `${url}: and no body`)
    t.equal(head.headers['content-length'], String(Buffer.byteLength(got.body)), `${url}: the length of the version's body`)
    t.equal(head.headers['x-legacy'], got.headers['x-legacy'], `${url}: the converter's header`)
    t.equal(head.headers['x-api-version'], '2000-01-01')
  }
  const newest = await call(app, '2001-01-01', '/users/missing', { method: 'HEAD' })
  t.same([newest.statusCode, newest.headers['x-legacy']], [404, undefined], 'the newest version\'s HEAD is HEAD\'s 404')
})
