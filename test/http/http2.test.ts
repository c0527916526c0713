/**
 * HTTP/2 (`Fastify({ http2: true })`, cleartext, and over TLS with HTTP/1.1 beside it): an old version's answers carry
 * the same status, body, version headers and trailers as over HTTP/1, and a stream the client cancels while a
 * converter is pending ends nothing else.
 */
import { test } from 'tap'
import { readFileSync } from 'node:fs'
import https from 'node:https'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { connect, constants, type ClientHttp2Session, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2'
import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, fastifyVersioner, HeadVersion, schema, Version, VersionBundle,
  VersionChange, versioned, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { sleep } from '../helpers/http'

const User = Type.Object({ id: Type.String(), fullName: Type.String() })
const UserCreate = Type.Object({ fullName: Type.String() })

/** The response converter of a `slow` user says it started, and waits to be released. */
let started: () => void = () => {}
let release: () => void = () => {}

class NameAnd200 extends VersionChange {
  description = 'fullName was name; creating answered 200.'
  instructionsToMigrateToPreviousVersion = [
    schema(User).field('fullName').had({ name: 'name' }), schema(UserCreate).field('fullName').had({ name: 'name' }),
    endpoint('/users', ['POST']).had({ statusCode: 200 })
  ]

  @ConvertRequestToNextVersionFor(UserCreate)
  up (request: RequestInfo) {
    request.body.fullName = request.body.name
    delete request.body.name
  }

  @ConvertResponseToPreviousVersionFor(User)
  async down (response: ResponseInfo) {
    if (response.body.fullName === 'slow') {
      await new Promise<void>((resolve) => {
        release = resolve
        started()
      })
    }
    response.body.name = response.body.fullName
    delete response.body.fullName
  }
}

interface Answer { headers: IncomingHttpHeaders, body: string, trailers: IncomingHttpHeaders }

function ask (client: ClientHttp2Session, headers: OutgoingHttpHeaders, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = client.request(body === undefined ? headers : { ...headers, ':method': 'POST', 'content-type': 'application/json' })
    const answer: Answer = { headers: {}, body: '', trailers: {} }
    stream.setEncoding('utf8')
    stream.on('response', (received) => { answer.headers = received })
    stream.on('trailers', (received) => { answer.trailers = received })
    stream.on('data', (chunk: string) => { answer.body += chunk })
    stream.on('end', () => { resolve(answer) })
    stream.on('error', reject)
    stream.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

test('over HTTP/2, an old version is answered in its shape, status and headers, with trailers; a cancelled stream harms nothing', async (t) => {
  const app = Fastify({ http2: true })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameAnd200), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.get('/users/:id', { schema: { params: Type.Object({ id: Type.String() }), response: { 200: User } } },
      async (request) => ({ id: request.params.id, fullName: request.params.id === 'u2' ? 'slow' : 'Ada Lovelace' }))
    api.post('/users', { schema: { body: UserCreate, response: { 201: User } } }, async (request, reply) => {
      reply.trailer('x-length', (_reply, payload, done) => { done(null, String(String(payload).length)) })
      return await reply.code(201).send({ id: 'u1', fullName: request.body.fullName })
    })
  }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  const client = connect(`http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`)
  t.teardown(() => { client.close() })

  const newest = await ask(client, { ':path': '/users/u1', 'x-api-version': '2001-01-01' })
  t.equal(newest.headers[':status'], 200)
  t.same(JSON.parse(newest.body), { id: 'u1', fullName: 'Ada Lovelace' })
  const oldest = await ask(client, { ':path': '/users/u1', 'x-api-version': '2000-01-01' })
  t.equal(oldest.headers[':status'], 200)
  t.same(JSON.parse(oldest.body), { id: 'u1', name: 'Ada Lovelace' }, 'converted')
  t.equal(oldest.headers['x-api-version'], '2000-01-01')
  t.equal(oldest.headers.vary, 'x-api-version')
  t.equal(oldest.headers['content-length'], String(Buffer.byteLength(oldest.body)), 'the converted body\'s length')

  const created = await ask(client, { ':path': '/users', 'x-api-version': '2000-01-01' }, { name: 'Bea' })
  t.equal(created.headers[':status'], 200, 'the old version\'s status')
  t.same(JSON.parse(created.body), { id: 'u1', name: 'Bea' })
  t.same(created.trailers['x-length'], String(created.body.length), 'the trailer sees the converted body')

  const converting = new Promise<void>((resolve) => { started = resolve })
  const cancelled = client.request({ ':path': '/users/u2', 'x-api-version': '2000-01-01' })
  cancelled.on('error', () => {})
  cancelled.end()
  await converting
  cancelled.close(constants.NGHTTP2_CANCEL)
  await sleep(50)
  release()
  await sleep(50)
  const after = await ask(client, { ':path': '/users/u1', 'x-api-version': '2000-01-01' })
  t.same(JSON.parse(after.body), { id: 'u1', name: 'Ada Lovelace' }, 'the session serves the next request')
})

test('HTTP/2 over TLS with HTTP/1.1 beside it: both are answered in the old version\'s shape; the lifecycle headers, a converted stream, a document and a docs page pass', async (t) => {
  // A self-signed pair for localhost and 127.0.0.1, valid until 2126.
  const fixtures = join(__dirname, '..', 'fixtures', 'tls')
  const cert = readFileSync(join(fixtures, 'localhost-cert.pem'))
  const app = Fastify({ http2: true, https: { allowHTTP1: true, key: readFileSync(join(fixtures, 'localhost-key.pem')), cert } })
  t.teardown(() => app.close())
  class StreamedName extends VersionChange {
    description = 'fullName was name, also in the export.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('fullName').had({ name: 'name' })]

    @ConvertResponseToPreviousVersionFor(User)
    down (response: ResponseInfo) {
      response.body.name = response.body.fullName
      delete response.body.fullName
    }

    @ConvertResponseToPreviousVersionFor('/export', ['GET'])
    async export (response: ResponseInfo) {
      const { fullName, ...rest } = JSON.parse(await new Response(response.raw as ReadableStream).text()) as { fullName: string }
      response.body = { ...rest, name: fullName }
    }
  }
  await app.register(fastifyVersioner, {
    versions: new VersionBundle(new Version('2001-01-01', StreamedName), new Version('2000-01-01', { deprecatedAt: '2000-06-01', sunsetAt: '2100-01-01' }))
  })
  await app.register(versioned(async (api) => {
    api.get('/users/:id', { schema: { params: Type.Object({ id: Type.String() }), response: { 200: User } } },
      async (request) => ({ id: request.params.id, fullName: 'Ada Lovelace' }))
    api.get('/export', async (_request, reply) => reply.type('application/json').send(Readable.from([JSON.stringify({ id: 'u1', fullName: 'Ada' })]) as never))
  }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  const client = connect(`https://localhost:${port}`, { ca: cert })
  t.teardown(() => { client.close() })

  const oldest = await ask(client, { ':path': '/users/u1', 'x-api-version': '2000-01-01' })
  t.equal(oldest.headers[':status'], 200)
  t.same(JSON.parse(oldest.body), { id: 'u1', name: 'Ada Lovelace' })
  t.equal(oldest.headers['x-api-version'], '2000-01-01')
  t.equal(oldest.headers.vary, 'x-api-version')
  t.equal(oldest.headers.deprecation, '@959817600')
  t.equal(oldest.headers.sunset, 'Fri, 01 Jan 2100 00:00:00 GMT')
  t.equal(oldest.headers.link, '</openapi.json?version=2001-01-01>; rel="successor-version"')
  const exported = await ask(client, { ':path': '/export', 'x-api-version': '2000-01-01' })
  t.same(JSON.parse(exported.body), { id: 'u1', name: 'Ada' }, 'a stream its by-path converter read and replaced')
  t.equal(exported.headers['content-length'], String(Buffer.byteLength(exported.body)))
  t.same(JSON.parse((await ask(client, { ':path': '/export', 'x-api-version': '2001-01-01' })).body), { id: 'u1', fullName: 'Ada' })
  const document = await ask(client, { ':path': '/openapi.json?version=2000-01-01' })
  t.equal(document.headers[':status'], 200)
  t.equal((JSON.parse(document.body) as { info: { version: string } }).info.version, '2000-01-01')
  const page = await ask(client, { ':path': '/docs?version=2000-01-01' })
  t.equal(page.headers[':status'], 200)
  t.match(page.body, '/docs/assets/swagger-initializer.js')

  const overHttp1 = await new Promise<{ status?: number, version: unknown, body: string }>((resolve, reject) => {
    https.get({ host: 'localhost', port, path: '/users/u1', ca: cert, headers: { 'x-api-version': '2000-01-01' } }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => { body += chunk })
      response.on('end', () => { resolve({ status: response.statusCode, version: response.headers['x-api-version'], body }) })
    }).on('error', reject)
  })
  t.same({ ...overHttp1, body: JSON.parse(overHttp1.body) }, { status: 200, version: '2000-01-01', body: { id: 'u1', name: 'Ada Lovelace' } }, 'HTTP/1.1 on the same port')
})
