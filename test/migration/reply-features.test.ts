/**
 * Fastify's request and reply features in a handler of an old version (docs/serving.md): each answers as in plain
 * Fastify, with the version headers, on the version's data.
 */
import { test } from 'tap'
import { parse } from 'node:querystring'
import type { FastifyReply } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, HeadVersion, schema, Version, VersionBundle, VersionChange,
  type RequestInfo, type ResponseInfo
} from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { call, jsonOf, sleep } from '../helpers/http'
import { captureLogs } from '../helpers/request-pipeline'

const User = Type.Object({ id: Type.String(), fullName: Type.String() })
const UserCreate = Type.Object({ fullName: Type.String() })
const Search = Type.Object({ q: Type.String(), exact: Type.Optional(Type.Boolean()) })

class NameAnd200 extends VersionChange {
  description = 'fullName was name; every answer was 200; searches could not be exact.'
  instructionsToMigrateToPreviousVersion = [
    schema(User).field('fullName').had({ name: 'name' }), schema(UserCreate).field('fullName').had({ name: 'name' }),
    schema(Search).field('exact').didntExist,
    ...['/go', '/unchanged', '/missing', '/raw'].map((path) => endpoint(path, ['GET']).had({ statusCode: 200 })), endpoint('/users', ['POST']).had({ statusCode: 200 })
  ]

  @ConvertRequestToNextVersionFor(UserCreate)
  up (request: RequestInfo) {
    request.body.fullName = request.body.name
    delete request.body.name
  }

  @ConvertResponseToPreviousVersionFor(User)
  down (response: ResponseInfo) {
    response.body.name = response.body.fullName
    delete response.body.fullName
  }
}

const versions = (): VersionBundle => new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameAnd200), new Version('2000-01-01'))
/** Each test registers some of the routes the change names. */
const partialApp = { versioner: { partialApp: true } }

test('redirects, 304s and callNotFound() from an old version\'s handler answer as in the newest, with the version headers', async (t) => {
  const app = await versionedApp(t, versions(), async (api) => {
    api.get('/go', async (_request, reply) => reply.redirect('/users/u1', 301))
    api.get('/unchanged', async (_request, reply) => reply.code(304).send())
    api.get('/missing', async (_request, reply) => { reply.callNotFound() })
  }, partialApp)
  for (const version of ['2001-01-01', '2000-01-01']) {
    const moved = await call(app, version, '/go')
    t.equal(moved.statusCode, 301, `${version}: a redirect keeps its status (had({ statusCode }) is a success's)`)
    t.equal(moved.headers.location, '/users/u1')
    t.equal(moved.headers['x-api-version'], version)
    t.equal(moved.headers.vary, 'x-api-version')
    const unchanged = await call(app, version, '/unchanged')
    t.equal(unchanged.statusCode, 304, `${version}: 304`)
    t.equal(unchanged.body, '')
    t.equal(unchanged.headers['x-api-version'], version)
    const missing = await call(app, version, '/missing')
    t.equal(missing.statusCode, 404, `${version}: callNotFound()`)
    t.equal(jsonOf(missing).message, 'Route GET:/missing not found')
    t.equal(missing.headers['x-api-version'], version)
  }
})

test('an old version\'s handler validates and serializes with Fastify\'s functions; HEAD answers the converted length', async (t) => {
  const app = await versionedApp(t, versions(), async (api) => {
    api.post('/users', { schema: { body: UserCreate, response: { 201: User } } }, async (request, reply) => {
      // The handler's data is HEAD's: HEAD's validators accept it.
      const valid = request.getValidationFunction('body')?.(request.body) === true && request.validateInput(request.body, 'body')
      return await reply.code(201).type('application/json').send(reply.serializeInput({ id: String(valid), fullName: request.body.fullName }, '201') as never)
    })
    api.get('/users/:id', { schema: { params: Type.Object({ id: Type.String() }), response: { 200: User } } }, async (request) => ({ id: request.params.id, fullName: 'Ada Lovelace' }))
  }, partialApp)
  const created = await call(app, '2000-01-01', '/users', { method: 'POST', payload: { name: 'Ada' } })
  t.equal(created.statusCode, 200)
  t.same(jsonOf(created), { id: 'true', name: 'Ada' }, 'the text of serializeInput() is converted')
  for (const version of ['2001-01-01', '2000-01-01']) {
    const got = await call(app, version, '/users/u1')
    const head = await call(app, version, '/users/u1', { method: 'HEAD' })
    t.equal(head.statusCode, 200)
    t.equal(head.body, '')
    t.equal(head.headers['content-length'], String(Buffer.byteLength(got.body)), `${version}: HEAD's length is the converted GET's`)
    t.equal(head.headers['x-api-version'], version)
  }
})

test('reply.hijack() in an old version\'s handler: the reply holds the version headers for the handler to write', async (t) => {
  const app = await versionedApp(t, versions(), async (api) => {
    api.get('/raw', async (_request, reply) => {
      reply.hijack()
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value)
      reply.raw.writeHead(201, { 'content-type': 'text/plain' })
      reply.raw.end('raw')
    })
  }, partialApp)
  const raw = await call(app, '2000-01-01', '/raw')
  t.equal(raw.statusCode, 201, 'the handler wrote the answer')
  t.equal(raw.body, 'raw')
  t.equal(raw.headers['x-api-version'], '2000-01-01')
  t.equal(raw.headers.vary, 'x-api-version')
})

test('a custom querystring parser: an old version\'s query is cleaned and validated as parsed', async (t) => {
  const app = await versionedApp(t, versions(), async (api) => {
    api.get('/search', { schema: { querystring: Search } }, async (request) => request.query)
  }, { ...partialApp, fastify: { routerOptions: { querystringParser: (text: string) => ({ ...parse(text.replaceAll(';', '&')) }) } } })
  t.same(jsonOf(await call(app, '2001-01-01', '/search?q=ada;exact=true')), { q: 'ada', exact: true })
  t.same(jsonOf(await call(app, '2000-01-01', '/search?q=ada;exact=true')), { q: 'ada' }, 'a field the version lacks is removed')
})

test('regression: a send that throws once response converters ran (a header Node refuses), awaiting or not, answers a logged 500; it hung', async (t) => {
  const Thing = Type.Object({ name: Type.String(), size: Type.Optional(Type.Number()) })
  class NameHeader extends VersionChange {
    description = 'Things had no size; old clients read the name in a header too.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('size').didntExist]

    @ConvertResponseToPreviousVersionFor('/things/:name', ['GET'], { migrateHttpErrors: true })
    nameHeader (response: ResponseInfo) {
      // A name outside Latin-1 ('→') is a header value Node's writeHead refuses, after every hook ran.
      const write = (): void => { response.headers['x-thing-name'] = response.body.name }
      if (String(response.body.name).startsWith('now')) return write()
      return sleep(1).then(write)
    }
  }
  const { stream, entries } = captureLogs()
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameHeader), new Version('2000-01-01')), async (api) => {
    api.get('/things/:name', { schema: { params: Type.Object({ name: Type.String() }), response: { 200: Thing } } }, async (request, reply: FastifyReply) => {
      const { name } = request.params as { name: string }
      if (name.startsWith('own')) reply.header('x-thing-name', name)
      if (name.startsWith('missing')) return reply.code(404).send({ message: 'no such thing', name })
      return reply.type('application/json').send(JSON.stringify({ name, size: 1 }))
    })
  }, { fastify: { logger: { level: 'error', stream } } })
  const bounded = async (version: string, url: string): Promise<{ status: number, body: unknown } | 'never answered'> => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const bound = new Promise<'never answered'>((resolve) => { timer = setTimeout(() => { resolve('never answered') }, 3000) })
    const response = await Promise.race([call(app, version, url), bound])
    clearTimeout(timer)
    return response === 'never answered' ? response : { status: response.statusCode, body: jsonOf(response) }
  }
  t.same(await bounded('2000-01-01', '/things/pen'), { status: 200, body: { name: 'pen' } }, 'a name Node sends in a header')
  const fastifys = await bounded('2001-01-01', '/things/own%E2%86%92')
  t.match(fastifys, { status: 500, body: { code: 'ERR_INVALID_CHAR' } }, 'no converter (the handler\'s header): Fastify answers the send\'s error')
  for (const url of ['/things/now%E2%86%92', '/things/caf%E2%86%92', '/things/missing%E2%86%92']) {
    const answer = await bounded('2000-01-01', url)
    t.not(answer, 'never answered', `${url} is answered`)
    t.same(answer, fastifys, `${url}: the send's error, as Fastify answers it`)
  }
  const logged = entries.filter((entry) => String(entry.msg).includes('could not be sent once its converters ran; it is answered 500'))
  t.equal(logged.length, 3, 'each failure is logged by the versioner')
  t.equal(logged[0].err.code, 'ERR_INVALID_CHAR')
})
