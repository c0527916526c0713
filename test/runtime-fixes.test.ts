import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import Fastify, { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify'
import fastifyFormbody from '@fastify/formbody'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, Version, VersionBundle, VersionChange,
  fastifyVersioner, migrateResponseBody, schema, versioned, type FormValue, type RequestInfo, type ResponseInfo
} from '../plugin'
import { captureLogs, v } from './helpers/request-pipeline'

/**
 * Regression tests of the request and response runtime: request cleaning of intersections and unions,
 * converters that fail after an await, converters that only read cookies, response converters that turn a
 * success into an error, the FSTVRS001 warning, and migrateResponseBody's handling of intersections and
 * Object.prototype names.
 */

const URLENCODED = { 'content-type': 'application/x-www-form-urlencoded' }

/** Injects, failing instead of hanging when no response comes. */
async function injectOrTimeout (app: FastifyInstance, options: InjectOptions): Promise<LightMyRequestResponse | 'timeout'> {
  const timer = sleep(2000, 'timeout' as const)
  return await Promise.race([app.inject(options), timer])
}

test('an intersection body: a member rebuilt by a version keeps the fields of the other members', async (t) => {
  const Person = Type.Object({ name: Type.String(), nickname: Type.Optional(Type.String()) })
  const Contact = Type.Object({ email: Type.String() })
  const Body = Type.Intersect([Person, Contact])
  class NoNickname extends VersionChange {
    description = 'People had no nickname.'
    instructionsToMigrateToPreviousVersion = [schema(Person).field('nickname').didntExist]
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', NoNickname), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/people', { schema: { body: Body } }, async (request) => request.body)
  }))

  const response = await app.inject({
    method: 'POST', url: '/people', headers: v('2000-01-01'), payload: { name: 'Ada', email: 'ada@example.com', nickname: 'A', internal: true }
  })
  t.equal(response.statusCode, 200, 'the other member\'s required field survives cleaning (it used to fail HEAD validation: 500)')
  t.same(response.json(), { name: 'Ada', email: 'ada@example.com' }, 'only the fields no member declares in that version are removed')

  const latest = await app.inject({ method: 'POST', url: '/people', headers: v('2001-01-01'), payload: { name: 'Ada', email: 'e', nickname: 'A' } })
  t.same(latest.json(), { name: 'Ada', email: 'e', nickname: 'A' })
})

test('a union body: when several members plausibly match, fields of any of them are kept', async (t) => {
  const Card = Type.Object({ cardNumber: Type.Optional(Type.String()), wallet: Type.Optional(Type.String()) })
  const Transfer = Type.Object({ iban: Type.Optional(Type.String()) })
  const Payment = Type.Union([Card, Transfer])
  class NoWallets extends VersionChange {
    description = 'Cards had no wallet.'
    instructionsToMigrateToPreviousVersion = [schema(Card).field('wallet').didntExist]
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', NoWallets), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/payments', { schema: { body: Payment } }, async (request) => request.body)
  }))

  const transfer = await app.inject({ method: 'POST', url: '/payments', headers: v('2000-01-01'), payload: { iban: 'DE00' } })
  t.equal(transfer.statusCode, 200)
  t.same(transfer.json(), { iban: 'DE00' }, 'the second member\'s field is not removed by the first member\'s cleaner')

  const withWallet = await app.inject({ method: 'POST', url: '/payments', headers: v('2000-01-01'), payload: { iban: 'DE00', wallet: 'w' } })
  t.same(withWallet.json(), { iban: 'DE00' }, 'a field no plausible member declares in that version is still removed')
})

test('an error while writing back after an async request converter is a 500, and the server goes on', async (t) => {
  const Signup = Type.Object({ name: Type.String() })
  let breakHeaders = true
  class AsyncRename extends VersionChange {
    description = 'name was full_name.'
    instructionsToMigrateToPreviousVersion = [schema(Signup).field('name').had({ name: 'full_name' })]

    @ConvertRequestToNextVersionFor(Signup)
    async rename (request: RequestInfo) {
      await sleep(1)
      if (request.form !== undefined) {
        const fields: Record<string, FormValue> = { name: String(request.form.full_name) }
        if (breakHeaders) Object.defineProperty(fields, 'broken', { enumerable: true, get () { throw new Error('form write-back failed') } })
        request.form = fields
        return
      }
      request.body.name = request.body.full_name
      delete request.body.full_name
      if (breakHeaders) request.headers = Object.defineProperty({}, 'x-broken', { enumerable: true, get () { throw new Error('header write-back failed') } })
    }
  }
  const { stream, entries } = captureLogs()
  const app = Fastify({ logger: { level: 'error', stream } })
  t.teardown(() => app.close())
  await app.register(fastifyFormbody)
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', AsyncRename), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/signups', { schema: { body: Signup } }, async (request) => request.body)
  }))

  const json = await injectOrTimeout(app, { method: 'POST', url: '/signups', headers: v('2000-01-01'), payload: { full_name: 'Ada' } })
  t.not(json, 'timeout', 'a JSON request gets an answer')
  if (json !== 'timeout') t.equal(json.statusCode, 500, 'the error is answered as a 500')
  const form = await injectOrTimeout(app, { method: 'POST', url: '/signups', headers: v('2000-01-01', URLENCODED), payload: 'full_name=Ada' })
  t.not(form, 'timeout', 'a form request gets an answer')
  if (form !== 'timeout') t.equal(form.statusCode, 500)
  t.ok(entries.some((entry) => /write-back failed/.test(String(entry.err?.message))), 'the error is logged')

  breakHeaders = false
  const next = await injectOrTimeout(app, { method: 'POST', url: '/signups', headers: v('2000-01-01', URLENCODED), payload: 'full_name=Grace' })
  t.not(next, 'timeout')
  if (next !== 'timeout') t.same([next.statusCode, next.json()], [200, { name: 'Grace' }], 'the next request is served')
})

test('a form field a converter sets to null is written back as null', async (t) => {
  const Profile = Type.Object({ bio: Type.Union([Type.Null(), Type.String()]) })
  class EmptyBio extends VersionChange {
    description = 'An empty bio used to mean no bio.'
    instructionsToMigrateToPreviousVersion = [schema(Profile).field('bio').had({ type: Type.String() })]

    @ConvertRequestToNextVersionFor(Profile)
    emptyIsNull (request: RequestInfo) {
      if (request.form !== undefined && request.form.bio === '') (request.form as Record<string, FormValue | null>).bio = null
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyFormbody)
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', EmptyBio), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/profiles', { schema: { body: Profile } }, async (request) => request.body)
  }))
  const response = await app.inject({ method: 'POST', url: '/profiles', headers: v('2000-01-01', URLENCODED), payload: 'bio=' })
  t.equal(response.statusCode, 200, 'a null field is not taken for a file')
  t.same(response.json(), { bio: null })
})

test('a converter that only reads cookies leaves the Cookie header as it was', async (t) => {
  const Query = Type.Object({ page: Type.Optional(Type.Integer()) })
  const read: string[] = []
  class CookieReader extends VersionChange {
    description = 'page was p; a session cookie could rename itself.'
    instructionsToMigrateToPreviousVersion = [schema(Query).field('page').had({ name: 'p' })]

    @ConvertRequestToNextVersionFor('/cookies', ['GET'])
    readCookies (request: RequestInfo) {
      read.push(String(request.cookies.token))
      if (request.cookies.old_session !== undefined) {
        request.cookies.session = request.cookies.old_session
        delete request.cookies.old_session
      }
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', CookieReader), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/cookies', { schema: { querystring: Query } }, async (request) => ({ cookie: request.headers.cookie ?? null }))
  }))

  const unchanged = await app.inject({ method: 'GET', url: '/cookies', headers: v('2000-01-01', { cookie: 'token=abc==; theme=dark' }) })
  t.same(unchanged.json(), { cookie: 'token=abc==; theme=dark' }, 'the header is not re-encoded')
  t.same(read, ['abc=='])

  const changed = await app.inject({ method: 'GET', url: '/cookies', headers: v('2000-01-01', { cookie: 'old_session=s 1; token=t' }) })
  t.same(changed.json(), { cookie: 'token=t; session=s%201' }, 'a changed jar is written back')
})

test('a response converter that turns a success into an error runs once', async (t) => {
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

test('FSTVRS001: once per route, version and status, for successes too, with by-schema converters at the root or nested', async (t) => {
  const Item = Type.Object({ sku: Type.String() })
  const Wrapped = Type.Object({ item: Item })
  const warnings: Array<{ code: string, message: string }> = []
  const onWarning = (warning: Error & { code?: string }): void => { warnings.push({ code: String(warning.code), message: warning.message }) }
  process.on('warning', onWarning)
  t.teardown(() => { process.removeListener('warning', onWarning) })
  class SkuWasCode extends VersionChange {
    description = 'sku was code.'
    instructionsToMigrateToPreviousVersion = [schema(Item).field('sku').had({ name: 'code' })]

    @ConvertResponseToPreviousVersionFor(Item)
    toCode (response: ResponseInfo) {
      response.body.code = response.body.sku
      delete response.body.sku
    }
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', SkuWasCode), new Version('2000-01-01')) })
  // Streams where the schema expects objects: the type provider does not know streams are sent as they are.
  const streamed = (text: string): never => Readable.from([text]) as never
  await app.register(versioned(async (api) => {
    api.get('/wrapped', { schema: { response: { 200: Wrapped } } }, async (_request, reply) => reply.type('application/json').send(streamed('{"item":{"sku":"a"}}')))
    api.get('/item', { schema: { response: { 200: Item } } }, async (_request, reply) => reply.type('application/json').send(streamed('{"sku":"a"}')))
  }))

  for (let round = 0; round < 3; round++) {
    const wrapped = await app.inject({ method: 'GET', url: '/wrapped', headers: v('2000-01-01') })
    t.equal(wrapped.body, '{"item":{"sku":"a"}}', 'the stream is untouched')
    await app.inject({ method: 'GET', url: '/item', headers: v('2000-01-01') })
    await app.inject({ method: 'GET', url: '/item', headers: v('2001-01-01') })
  }
  await new Promise((resolve) => setImmediate(resolve))
  const ours = warnings.filter((warning) => warning.code === 'FSTVRS001')
  t.equal(ours.length, 2, 'one warning per route (version 2000-01-01, status 200), not one per request; none for the latest version')
  t.match(ours[0]?.message, /^A response of status 200 could not be migrated to API version '2000-01-01'/)
})

test('migrateResponseBody: intersections keep every member\'s fields; Object.prototype names are not fields', async (t) => {
  const Person = Type.Object({ name: Type.String(), nickname: Type.String() })
  const Contact = Type.Object({ email: Type.String(), phone: Type.String({ default: 'none' }) })
  const Card = Type.Intersect([Person, Contact])
  const Plain = Type.Object({ id: Type.String() })
  class NoNickname extends VersionChange {
    description = 'People had no nickname.'
    instructionsToMigrateToPreviousVersion = [schema(Person).field('nickname').didntExist]
  }
  const versions = new VersionBundle(new Version('2001-01-01', NoNickname), new Version('2000-01-01'))
  const latestBody = { name: 'Ada', nickname: 'A', email: 'ada@example.com', secret: 's' }
  t.same(migrateResponseBody(versions, Card, { latestBody, version: '2000-01-01' }), { name: 'Ada', email: 'ada@example.com', phone: 'none' },
    'fields of both members kept, defaults filled, the removed field and unknown fields dropped')
  t.same(migrateResponseBody(versions, Card, { latestBody, version: '2001-01-01' }), { name: 'Ada', nickname: 'A', email: 'ada@example.com', phone: 'none' })

  const withPrototypeNames = JSON.parse('{"id":"1","constructor":"c","toString":"t","hasOwnProperty":"h"}') as unknown
  t.same(migrateResponseBody(versions, Plain, { latestBody: withPrototypeNames, version: '2000-01-01' }), { id: '1' },
    'constructor, toString and hasOwnProperty are undeclared fields')
})

test('an error before the handler sets the version headers once (Vary not repeated)', async (t) => {
  const Query = Type.Object({ page: Type.Integer() })
  class PageWasP extends VersionChange {
    description = 'page was p.'
    instructionsToMigrateToPreviousVersion = [schema(Query).field('page').had({ name: 'p' })]
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', PageWasP), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/pages', { schema: { querystring: Query } }, async (request) => request.query)
  }))
  for (const version of ['2000-01-01', '2001-01-01']) {
    const response = await app.inject({ method: 'GET', url: '/pages?p=x&page=x', headers: v(version) })
    t.equal(response.statusCode, 400, `${version}: a validation error`)
    t.equal(response.headers['x-api-version'], version)
    t.equal(response.headers.vary, 'x-api-version', `${version}: Vary names the version header once`)
  }
})

test('an error after the preSerialization hook converted a success is converted as an error', async (t) => {
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
