/**
 * Whatever a handler or hook of a versioned route throws, rejects with or sends as an error gets exactly the
 * status, body and content type plain Fastify gives the same route, plus the version headers: on versions
 * with converters and on those with nothing to do, with and without a response schema. Regression: a thrown non-Error (`'boom'`, `{ statusCode: 418 }`, `null`) was answered 200, or went
 * through the success serializer, because the versioner's route error handlers rethrew it.
 */
import { test } from 'tap'
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest, type RouteShorthandOptions } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertResponseToPreviousVersionFor, fastifyVersioner, HeadVersion, schema, Version, VersionBundle, VersionChange, versioned,
  type ResponseInfo
} from '../../plugin'
import { listen } from '../helpers/http-apps'

const Item = Type.Object({ id: Type.String(), name: Type.String() })

/** What a handler or hook throws: every kind of value, selected by the request's `kind` query parameter. */
const KINDS: Record<string, () => unknown> = {
  string: () => 'boom',
  number: () => 42,
  null: () => null,
  undefined: () => undefined,
  object: () => ({ message: 'plain object' }),
  'object with statusCode': () => ({ statusCode: 418, message: 'teapot' }),
  Error: () => new Error('broken'),
  'Error 404': () => Object.assign(new Error('not here'), { statusCode: 404 }),
  'Error 503': () => Object.assign(new Error('later'), { statusCode: 503 })
}
const ERROR_KINDS = ['Error', 'Error 404', 'Error 503']

const HOOKS = ['onRequest', 'preParsing', 'preValidation', 'preHandler', 'preSerialization', 'onSend'] as const
/** Where the value comes from: the handler (async, sync, `reply.send(error)`) or one of the route's hooks. */
const SOURCES = ['async handler', 'sync handler', 'reply.send', ...HOOKS] as const
type Source = typeof SOURCES[number]

/**
 * Combinations plain Fastify 5 itself cannot answer, left out: its default error handler sends the thrown value
 * as a payload, which passes the route's preSerialization (objects) and onSend hooks again; when one of them
 * throws a non-Error value again, Fastify's fallback error handler is called without its callback and the process
 * crashes (`cb is not a function`). `reply.send(value)` of a non-Error is an ordinary payload, not an error.
 */
function plainFastifyAnswers (source: Source, kind: string): boolean {
  if (source === 'reply.send') return ERROR_KINDS.includes(kind)
  if (source === 'preSerialization') return !['number', 'object', 'object with statusCode'].includes(kind)
  if (source === 'onSend') return !['string', 'number', 'object', 'object with statusCode'].includes(kind)
  return true
}

function thrownFor (request: FastifyRequest): unknown {
  return KINDS[(request.query as { kind: string }).kind]()
}

/** The route under test: `GET /item`, whose `source` throws what `?kind=` names. */
function routesThrowingFrom (source: Source, withSchema: boolean): FastifyPluginAsync {
  return async (api) => {
    const options: RouteShorthandOptions & Record<string, unknown> = withSchema ? { schema: { response: { 200: Item } } } : {}
    if ((HOOKS as readonly string[]).includes(source)) options[source] = async (request: FastifyRequest) => { throw thrownFor(request) }
    api.get('/item', options, (request: FastifyRequest, reply: FastifyReply) => {
      if (source === 'sync handler') throw thrownFor(request)
      if (source === 'reply.send') return reply.send(thrownFor(request))
      if (source === 'async handler') return Promise.reject(thrownFor(request))
      return Promise.resolve({ id: 'i1', name: 'a name' })
    })
  }
}

/** The version change of 2000-01-01: `name` was `title`, with its response converter. */
class NameWasTitle extends VersionChange {
  description = 'Items had a title.'
  instructionsToMigrateToPreviousVersion = [schema(Item).field('name').had({ name: 'title' })]

  @ConvertResponseToPreviousVersionFor(Item, { checkUsage: false })
  nameToTitle (response: ResponseInfo) {
    response.body.title = response.body.name
    delete response.body.name
  }
}

/** The same routes in plain Fastify, and inside `versioned(...)` (2001-01-01 with nothing to do, 2000-01-01 with a converter). */
async function apps (t: { teardown: (fn: () => unknown) => void }, source: Source, withSchema: boolean): Promise<{ plain: FastifyInstance, versionedApp: FastifyInstance }> {
  const plain = Fastify()
  t.teardown(() => plain.close())
  await plain.register(routesThrowingFrom(source, withSchema))
  const versionedApp = Fastify()
  t.teardown(() => versionedApp.close())
  await versionedApp.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameWasTitle), new Version('2000-01-01')) })
  await versionedApp.register(versioned(routesThrowingFrom(source, withSchema)))
  return { plain, versionedApp }
}

for (const source of SOURCES) {
  for (const withSchema of [false, true]) {
    test(`a value thrown from the ${source} is answered as plain Fastify answers it (${withSchema ? 'with' : 'without'} a response schema)`, async (t) => {
      const { plain, versionedApp } = await apps(t, source, withSchema)
      let compared = 0
      for (const kind of Object.keys(KINDS)) {
        if (!plainFastifyAnswers(source, kind)) continue
        const expected = await plain.inject({ url: `/item?kind=${encodeURIComponent(kind)}` })
        t.ok(expected.statusCode >= 400, `plain Fastify answers ${kind} from the ${source} as an error (${expected.statusCode})`)
        for (const version of ['2001-01-01', '2000-01-01']) {
          const answer = await versionedApp.inject({ url: `/item?kind=${encodeURIComponent(kind)}`, headers: { 'x-api-version': version } })
          t.same({ status: answer.statusCode, type: answer.headers['content-type'], body: answer.body },
            { status: expected.statusCode, type: expected.headers['content-type'], body: expected.body }, `${kind}, ${version}: plain Fastify's answer`)
          t.equal(answer.headers['x-api-version'], version, `${kind}, ${version}: the version header`)
          compared++
        }
      }
      t.ok(compared >= 4, `${compared} answers compared`)
    })
  }
}

test('a non-Error thrown through an application error handler, or a route error handler, is answered as plain Fastify answers it', async (t) => {
  const routes: FastifyPluginAsync = async (api) => {
    api.setErrorHandler((error, request, reply) => {
      if ('rethrow' in (request.query as object)) throw error
      return reply.code(409).send({ handled: String(error) })
    })
    api.get('/item', async (request) => { throw thrownFor(request) })
    api.get('/own', {
      errorHandler: (error, _request, reply) => reply.code(422).send({ own: String(error) })
    }, async (request) => { throw thrownFor(request) })
  }
  const plain = Fastify()
  t.teardown(() => plain.close())
  await plain.register(routes)
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameWasTitle), new Version('2000-01-01')) })
  await app.register(versioned(routes))
  const urls = ['/item?kind=string', '/item?kind=null', '/item?kind=string&rethrow', '/item?kind=Error&rethrow', '/own?kind=string', '/own?kind=undefined']
  for (const url of urls) {
    const expected = await plain.inject({ url })
    for (const version of ['2001-01-01', '2000-01-01']) {
      const answer = await app.inject({ url, headers: { 'x-api-version': version } })
      t.same([answer.statusCode, answer.body], [expected.statusCode, expected.body], `${url} in ${version}: ${expected.statusCode}`)
      t.equal(answer.headers['x-api-version'], version, `${url} in ${version}: the version header`)
    }
  }
})

test('over real HTTP, a thrown string is a 500 with the body plain Fastify sends and the version headers', async (t) => {
  const { versionedApp } = await apps(t, 'async handler', true)
  const base = await listen(versionedApp)
  for (const version of ['2001-01-01', '2000-01-01']) {
    const failed = await fetch(`${base}/item?kind=string`, { headers: { 'x-api-version': version } })
    t.equal(failed.status, 500, `${version}: 500`)
    t.equal(await failed.text(), 'boom', `${version}: plain Fastify's body`)
    t.equal(failed.headers.get('x-api-version'), version, `${version}: the version header`)
  }
})
