/**
 * Fastify's request and reply features in a handler of an old version (docs/serving.md): each answers as in plain
 * Fastify, with the version headers, on the version's data.
 */
import { test } from 'tap'
import { parse } from 'node:querystring'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, HeadVersion, schema, Version, VersionBundle, VersionChange,
  type RequestInfo, type ResponseInfo
} from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { call, jsonOf } from '../helpers/http'

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
