/**
 * Caches in front of a versioned API: `@fastify/etag`'s tags on what each version sends (JSON text and error bodies
 * converted in the send hook included, decision 0188), and a small cache keyed on the URL and the headers `Vary`
 * names, revalidating with `If-None-Match`, fed requests of several versions in random order across a release instant
 * over real HTTP: no client ever gets another version's body.
 */
import { test } from 'tap'
import fc from 'fast-check'
import etag from '@fastify/etag'
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertResponseToPreviousVersionFor, fastifyVersioner, HeadVersion, schema, Version, VersionBundle, VersionChange, versioned, type ResponseInfo
} from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { listen } from '../helpers/http-apps'

const SEED = Number(process.env.FC_SEED ?? 20261130)
const RELEASE = Date.parse('2002-01-01T09:00:00Z')

const User = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'CachedUser' })
const Missing = Type.Object({ message: Type.String() }, { $id: 'CachedMissing' })

class FullNameWasName extends VersionChange {
  description = 'A user\'s name is now fullName; a missing user\'s message was its error.'
  instructionsToMigrateToPreviousVersion = [schema(User).field('fullName').had({ name: 'name' }), schema(Missing).field('message').had({ name: 'error' })]

  @ConvertResponseToPreviousVersionFor(User)
  nameDown (response: ResponseInfo) {
    response.body.name = response.body.fullName
    delete response.body.fullName
  }

  @ConvertResponseToPreviousVersionFor(Missing, { migrateHttpErrors: true })
  errorDown (response: ResponseInfo) {
    response.body.error = response.body.message
    delete response.body.message
  }
}

/** A user whose name the test changes, answered as an object, as JSON text, and (for `u2`) as a 404; and with the handler's own tag. */
async function cachedApp (t: Teardown, now: () => number, weak = false): Promise<{ app: FastifyInstance, rename: (name: string) => void }> {
  let name = 'Ada'
  const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01', FullNameWasName, { releasedAt: new Date(RELEASE).toISOString() }), new Version('2001-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    const schemaOf = { response: { 200: User, 404: Missing } }
    api.get('/object/:id', { schema: schemaOf }, async (request, reply) =>
      (request.params as { id: string }).id === 'u1' ? { id: 'u1', fullName: name } : await reply.code(404).send({ message: 'no such user' }))
    api.get('/text/:id', { schema: schemaOf }, async (request, reply: FastifyReply) => (request.params as { id: string }).id === 'u1'
      ? await reply.type('application/json').send(JSON.stringify({ id: 'u1', fullName: name }))
      : await reply.code(404).type('application/json').send(JSON.stringify({ message: 'no such user' })))
    // A tag the handler computes from the HEAD resource, holding the version served, as docs/serving.md asks.
    api.get('/tagged/:id', { schema: schemaOf }, async (request, reply: FastifyReply) => {
      const tag = `"${name}-${request.apiVersion}"`
      if (request.headers['if-none-match'] === tag) return await reply.code(304).header('etag', tag).send()
      reply.header('etag', tag)
      return { id: 'u1', fullName: name }
    })
  }, { beforeVersioner: async (root) => { await root.register(etag, { weak }) }, versioner: { now } })
  return { app, rename: (next) => { name = next } }
}

test('@fastify/etag: JSON text and error bodies converted in the send hook carry the tag of the bytes sent, one per version', async (t) => {
  for (const weak of [false, true]) {
    const { app } = await cachedApp(t, () => RELEASE, weak)
    for (const url of ['/text/u1', '/text/u2', '/object/u1', '/object/u2']) {
      const answers = []
      for (const version of ['2002-01-01', '2001-01-01']) {
        const answer = await app.inject({ url, headers: { 'x-api-version': version } })
        t.equal(answer.headers.etag?.startsWith('W/'), weak, `${url} ${version}: weak stays weak`)
        answers.push({ version, tag: String(answer.headers.etag), body: answer.body, status: answer.statusCode })
      }
      t.not(answers[0].body, answers[1].body, `${url}: each version its own body`)
      t.not(answers[0].tag, answers[1].tag, `${url}: so each its own tag`)
      for (const own of answers) {
        const another = answers.find((answer) => answer !== own) as typeof own
        const refused = await app.inject({ url, headers: { 'x-api-version': own.version, 'if-none-match': another.tag } })
        // The newest version's tag is the tag of HEAD's bytes, which @fastify/etag hashes before the send hook converts
        // them: the plugin holds If-None-Match back from it on versions that convert there (decision 0188).
        t.equal(refused.statusCode, own.status, `${url} ${own.version}: another version's tag is no 304`)
        t.equal(refused.body, own.body, `${url} ${own.version}: but this version's body`)
        // A 404 is never a 304 by the plugin (RFC 9110 §13.2.1); @fastify/etag answers one on a match of bytes it tagged.
        if (own.status !== 200) continue
        for (const method of ['GET', 'HEAD'] as const) {
          const again = await app.inject({ method, url, headers: { 'x-api-version': own.version, 'if-none-match': own.tag } })
          t.equal(again.statusCode, 304, `${method} ${url} ${own.version}: its own tag is a 304`)
          t.equal(again.body, '')
          t.equal(again.headers.etag, own.tag, `${method} ${url} ${own.version}: the 304 names the tag`)
        }
      }
    }
    const listed = await app.inject({ url: '/text/u1', headers: { 'x-api-version': '2001-01-01' } })
    const matched = await app.inject({ url: '/text/u1', headers: { 'x-api-version': '2001-01-01', 'if-none-match': `"stale", ${String(listed.headers.etag)}` } })
    t.equal(matched.statusCode, 304, 'a list naming the converted text\'s tag matches too')
    const head = await app.inject({ method: 'HEAD', url: '/text/u1', headers: { 'x-api-version': '2001-01-01' } })
    const get = await app.inject({ url: '/text/u1', headers: { 'x-api-version': '2001-01-01' } })
    t.equal(head.headers.etag, get.headers.etag, 'a HEAD request carries the GET\'s tag')
    t.equal(head.headers['content-length'], String(Buffer.byteLength(get.body)), 'and its length')
  }
})

/** A by-path converter giving the body of a buffer the handler sends, in the older shape (decision 0243). */
class BufferNameWasName extends VersionChange {
  description = 'A user sent as bytes has fullName, which was name.'
  instructionsToMigrateToPreviousVersion = []

  @ConvertResponseToPreviousVersionFor('/buffer', ['GET'])
  bufferDown (response: ResponseInfo) {
    const { id, fullName } = JSON.parse(String(response.raw)) as { id: string, fullName: string }
    response.body = { id, name: fullName }
  }
}

/**
 * `@fastify/etag` registered before the plugin, after it, or inside `versioned(...)`, and every answer the send hook
 * converts: JSON text (GET, HEAD, POST), a 404 sent as JSON text, a thrown 404, a 401 an application-wide `onRequest`
 * hook throws before the version is known, a buffer a by-path converter replaces. The handler and `onResponse` note
 * the `If-None-Match` they read.
 */
async function etagApp (t: Teardown, where: 'before' | 'after' | 'inside', weak: boolean): Promise<{ app: FastifyInstance, seen: Array<[string, unknown]> }> {
  const app = Fastify()
  t.teardown(() => app.close())
  const seen: Array<[string, unknown]> = []
  const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01', FullNameWasName, BufferNameWasName), new Version('2001-01-01'))
  app.addHook('onRequest', async (request) => {
    if (request.headers['x-deny'] !== undefined) throw Object.assign(new Error('no such user'), { statusCode: 401 })
  })
  app.addHook('onError', async (request) => { seen.push(['onError', request.headers['if-none-match']]) })
  app.addHook('onSend', async (request, _reply, payload) => { seen.push(['onSend', request.headers['if-none-match']]); return payload })
  app.addHook('onResponse', async (request) => { seen.push(['onResponse', request.headers['if-none-match']]) })
  if (where === 'before') await app.register(etag, { weak })
  await app.register(fastifyVersioner, { versions })
  if (where === 'after') await app.register(etag, { weak })
  await app.register(versioned(async (api) => {
    if (where === 'inside') await api.register(etag, { weak })
    const schemaOf = { response: { 200: User, 401: Missing, 404: Missing } }
    for (const method of ['get', 'post'] as const) {
      api[method]('/text/:id', { schema: schemaOf }, async (request, reply: FastifyReply) => {
        seen.push(['handler', request.headers['if-none-match']])
        return (request.params as { id: string }).id === 'u1'
          ? await reply.type('application/json').send(JSON.stringify({ id: 'u1', fullName: 'Ada' }))
          : await reply.code(404).type('application/json').send(JSON.stringify({ message: 'no such user' }))
      })
    }
    api.get('/thrown', { schema: schemaOf }, async () => { throw Object.assign(new Error('no such user'), { statusCode: 404 }) })
    api.get('/buffer', async (_request, reply) => await reply.type('application/json').send(Buffer.from(JSON.stringify({ id: 'u1', fullName: 'Ada' }))))
  }))
  return { app, seen }
}

/** The tags a client may present for `tag`: as sent, weak and strong swapped, in a list. */
const presented = (tag: string): string[] => [tag, tag.startsWith('W/') ? tag.slice(2) : `W/${tag}`, `"stale", ${tag}`]

test('@fastify/etag before, after or inside versioned(...): another version\'s tag is never a 304 of a body converted in the send hook', async (t) => {
  const requests = [
    { method: 'GET', url: '/text/u1' }, { method: 'HEAD', url: '/text/u1' }, { method: 'POST', url: '/text/u1' }, { method: 'GET', url: '/text/u2' },
    { method: 'GET', url: '/thrown' }, { method: 'GET', url: '/text/u1', headers: { 'x-deny': '1' } }, { method: 'GET', url: '/buffer' }
  ] as const
  for (const where of ['before', 'after', 'inside'] as const) {
    for (const weak of [false, true]) {
      const { app, seen } = await etagApp(t, where, weak)
      for (const request of requests) {
        const name = `${where}${weak ? ', weak' : ''}: ${request.method} ${request.url}${'headers' in request ? ' denied' : ''}`
        const [newest, old] = await Promise.all(['2002-01-01', '2001-01-01'].map(async (version) =>
          await app.inject({ ...request, headers: { ...('headers' in request ? request.headers : {}), 'x-api-version': version } })))
        t.not(old.headers.etag, newest.headers.etag, `${name}: each version its own tag`)
        t.equal(old.headers.etag?.startsWith('W/'), weak, `${name}: weak stays weak`)
        const revalidated = old.statusCode === 200 && request.method !== 'POST'
        for (const [tag, matches] of [[String(newest.headers.etag), false], [String(old.headers.etag), revalidated]] as const) {
          for (const condition of presented(tag)) {
            seen.length = 0
            const answer = await app.inject({ ...request, headers: { ...('headers' in request ? request.headers : {}), 'x-api-version': '2001-01-01', 'if-none-match': condition } })
            const which = `${name}, If-None-Match ${condition} (${tag === old.headers.etag ? 'its own' : 'the newest version\'s'})`
            t.equal(answer.statusCode, matches ? 304 : old.statusCode, `${which}: ${matches ? 'a 304' : 'its answer'}`)
            t.equal(answer.body, matches ? '' : old.body, which)
            if (matches) t.equal(answer.headers.etag, old.headers.etag, `${which}: the 304 names the tag`)
            // An onSend hook added with addHook runs on HEAD's bytes: the header is held back from it (decision 0282).
            for (const [hook, value] of seen) t.equal(value, hook === 'onSend' ? undefined : condition, `${which}: ${hook} reads ${hook === 'onSend' ? 'no If-None-Match' : 'If-None-Match as sent'}`)
            const thrown = request.url === '/thrown' || 'headers' in request
            t.same(new Set(seen.map(([hook]) => hook)), new Set(['onSend', 'onResponse', ...thrown ? ['onError'] : [], ...request.url.startsWith('/text') && !thrown ? ['handler'] : []]), `${which}: the hooks ran`)
          }
        }
      }
    }
  }
})

test('over HTTP: a client whose version changed revalidates its stored answer with the other version\'s tag and gets its version\'s body', async (t) => {
  const { app } = await etagApp(t, 'after', false)
  const origin = await listen(app)
  for (const url of ['/text/u1', '/text/u2', '/thrown', '/buffer']) {
    const newest = await fetch(origin + url, { headers: { 'x-api-version': '2002-01-01' } })
    const tag = String(newest.headers.get('etag'))
    await newest.text()
    const direct = await fetch(origin + url, { headers: { 'x-api-version': '2001-01-01' } })
    const moved = await fetch(origin + url, { headers: { 'x-api-version': '2001-01-01', 'if-none-match': tag } })
    t.equal(moved.status, direct.status, `${url}: no 304 for the newest version's bytes`)
    t.equal(await moved.text(), await direct.text(), `${url}: the 2001-01-01 body`)
    const again = await fetch(origin + url, { headers: { 'x-api-version': '2001-01-01', 'if-none-match': String(moved.headers.get('etag')) } })
    t.equal(again.status, moved.status === 200 ? 304 : moved.status, `${url}: its own tag revalidates it`)
    await again.text()
  }
})

/** A stored answer: the request headers `Vary` named, with their values, and what the client is given. */
interface Stored { varied: Array<[string, string | null]>, tag: string, status: number, body: string, version: string | null }

/**
 * A cache in front of the API, keyed per RFC 9111 §4.1 on the URL and the values of the request headers a stored
 * answer's `Vary` names; it keeps answers with an ETag and revalidates a stored one with `If-None-Match` on every
 * use (as `no-cache` asks), giving its body on a 304.
 */
function variantCache (origin: string): (url: string, headers: Record<string, string>) => Promise<Omit<Stored, 'varied' | 'tag'>> {
  const stored = new Map<string, Stored[]>()
  return async (url, headers) => {
    const header = (name: string): string | null => headers[name.toLowerCase()] ?? null
    const variants = stored.get(url) ?? []
    const hit = variants.find((variant) => variant.varied.every(([name, value]) => header(name) === value))
    const answer = await fetch(origin + url, { headers: hit === undefined ? headers : { ...headers, 'if-none-match': hit.tag } })
    const body = await answer.text()
    if (answer.status === 304 && hit !== undefined) {
      hit.version = answer.headers.get('x-api-version') ?? hit.version
      return { status: hit.status, body: hit.body, version: hit.version }
    }
    const tag = answer.headers.get('etag')
    const vary = (answer.headers.get('vary') ?? '').split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '')
    if (tag !== null && !vary.includes('*')) {
      const varied = vary.map((name): [string, string | null] => [name, header(name)])
      stored.set(url, [...variants.filter((variant) => variant !== hit), { varied, tag, status: answer.status, body, version: answer.headers.get('x-api-version') }])
    }
    return { status: answer.status, body, version: answer.headers.get('x-api-version') }
  }
}

const operation = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('get' as const), url: fc.constantFrom('/text/u1', '/text/u2', '/object/u1', '/object/u2', '/tagged/u1'), value: fc.constantFrom('2001-01-01', '2001-06-01', '2002-01-01', '2002-06-01') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rename' as const), name: fc.constantFrom('Ada', 'Grace') }) }
)
/** Requests and renames before the release instant, then after it. */
const operations = fc.tuple(fc.array(operation, { maxLength: 15 }), fc.array(operation, { minLength: 1, maxLength: 15 }))
  .map(([before, after]) => [...before, { kind: 'release' as const }, ...after])

test('a cache keyed on the URL and Vary, revalidating, across a release instant: every client gets its version\'s body', async (t) => {
  await fc.assert(fc.asyncProperty(operations, async (steps) => {
    let time = RELEASE - 1000
    const closing: Array<() => unknown> = []
    const { app, rename } = await cachedApp({ teardown: (fn) => closing.push(fn) }, () => time)
    try {
      const origin = await listen(app)
      const cached = variantCache(origin)
      for (const step of steps) {
        if (step.kind === 'rename') rename(step.name)
        if (step.kind === 'release') time = RELEASE + 1000
        if (step.kind !== 'get') continue
        const headers = { 'x-api-version': step.value }
        const direct = await fetch(origin + step.url, { headers })
        const through = await cached(step.url, headers)
        const expected = { status: direct.status, body: await direct.text(), version: direct.headers.get('x-api-version') }
        if (JSON.stringify(through) !== JSON.stringify(expected)) {
          throw new Error(`${step.url} as ${step.value}: the cache gave ${JSON.stringify(through)}, the API answers ${JSON.stringify(expected)}`)
        }
      }
    } finally {
      for (const close of closing) await close()
    }
  }), { seed: SEED, numRuns: 60 })
  t.pass('no client got another version\'s body')
})

test('an answer an application-wide onRequest hook sends before the version is known: a success is the same bytes in every version, so @fastify/etag\'s 304 names what an old client gets', async (t) => {
  for (const where of ['before', 'after'] as const) {
    const app = Fastify()
    t.teardown(() => app.close())
    if (where === 'before') await app.register(etag)
    await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2002-01-01', FullNameWasName), new Version('2001-01-01')) })
    if (where === 'after') await app.register(etag)
    // A maintenance switch, a cached answer, an early answer as teams write them.
    app.addHook('onRequest', async (request, reply) => {
      const mode = request.headers['x-mode']
      if (mode === 'text') return await reply.type('application/json').send(JSON.stringify({ id: 'u1', fullName: 'Ada' }))
      if (mode === 'object') return await reply.send({ id: 'u1', fullName: 'Ada' })
      if (mode === 'plain') return await reply.type('text/plain').send('down for maintenance')
    })
    await app.register(versioned(async (api) => {
      api.get('/user', { schema: { response: { 200: User, 404: Missing } } }, async () => ({ id: 'u1', fullName: 'Ada' }))
    }))
    for (const mode of ['text', 'object', 'plain']) {
      const [newest, old] = await Promise.all(['2002-01-01', '2001-01-01'].map(async (version) => await app.inject({ url: '/user', headers: { 'x-mode': mode, 'x-api-version': version } })))
      t.equal(old.body, newest.body, `${where}, ${mode}: sent as it is, in every version`)
      t.equal(old.headers.etag, newest.headers.etag, `${where}, ${mode}: one tag, of those bytes`)
      const revalidated = await app.inject({ url: '/user', headers: { 'x-mode': mode, 'x-api-version': '2001-01-01', 'if-none-match': String(newest.headers.etag) } })
      t.equal(revalidated.statusCode, 304, `${where}, ${mode}: the newest version's tag is a 304 for the old client, whose stored body is the same bytes`)
    }
  }
})
