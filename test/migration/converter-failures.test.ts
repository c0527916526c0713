import { test } from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, Version, VersionBundle, VersionChange,
  schema, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { captureLogs, v } from '../helpers/request-pipeline'
import { listen } from '../helpers/http-apps'
import { versionedApp, type Teardown } from '../helpers/apps'
import { call } from '../helpers/http'

const Address = Type.String({ minLength: 1 })
const UserCreate = Type.Object({ addresses: Type.Array(Address) })
const User = Type.Object({ id: Type.String(), addresses: Type.Array(Address) })

/** The ways a converter can fail: throwing or rejecting with things that are not Errors, and with an Error. */
const FAILURES: Array<[string, () => unknown]> = [
  ['Promise.reject()', () => Promise.reject()], // eslint-disable-line prefer-promise-reject-errors
  ['Promise.reject(null)', () => Promise.reject(null)], // eslint-disable-line prefer-promise-reject-errors
  ['throw null', () => { throw null }], // eslint-disable-line no-throw-literal
  ['throw undefined', () => { throw undefined }], // eslint-disable-line no-throw-literal
  ['throw a string', () => { throw 'converter broke' }], // eslint-disable-line no-throw-literal
  ['throw an Error', () => { throw new Error('converter broke') }],
  ['reject with an Error', () => Promise.reject(new Error('converter broke'))],
  // Regression: `instanceof` throws on a revoked proxy: a 500 whose log named no converter, and, from an async response
  // converter, an unhandled rejection (which ends a Node process) and a request never answered.
  ['throw a revoked proxy', () => { throw revokedProxy() }],
  ['reject with a revoked proxy', () => Promise.reject(revokedProxy())],
  ['throw a circular object', () => { throw circularObject() }]
]

/** A proxy whose every operation throws, as one revoked: `Proxy.revocable({}, {})` once `revoke()`d. */
function revokedProxy (): object {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}

function circularObject (): object {
  const object: Record<string, unknown> = { reason: 'loop' }
  object.self = object
  return object
}

/** An app whose 2000-01-01 converters (request and response side, for `addresses` renamed to `address`) fail as `side` says. */
async function failingApp (t: Teardown, side: 'request' | 'response', fail: () => unknown) {
  class AddressWasSingle extends VersionChange {
    description = 'Users had one address.'
    instructionsToMigrateToPreviousVersion = [
      schema(UserCreate).field('addresses').had({ name: 'address', type: Address }),
      schema(User).field('addresses').had({ name: 'address', type: Address })
    ]

    @ConvertRequestToNextVersionFor(UserCreate)
    up (request: RequestInfo) {
      const failing = side === 'request' && request.body.address === 'fail'
      request.body.addresses = [request.body.address]
      delete request.body.address
      if (failing) return fail()
    }

    @ConvertResponseToPreviousVersionFor(User)
    down (response: ResponseInfo) {
      const failing = side === 'response' && response.body.addresses[0] === 'fail'
      response.body.address = response.body.addresses[0]
      delete response.body.addresses
      if (failing) return fail()
    }
  }
  const { stream, entries } = captureLogs()
  let handled = 0
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', AddressWasSingle), new Version('2000-01-01')), async (api) => {
    api.post('/users', { schema: { body: UserCreate, response: { 200: User } } }, async (request) => {
      handled++
      return { id: 'u1', addresses: request.body.addresses }
    })
  }, { fastify: { logger: { level: 'error', stream } } })
  return { app, entries, handled: () => handled }
}

for (const side of ['request', 'response'] as const) {
  for (const [name, fail] of FAILURES) {
    test(`a ${side} converter that fails with ${name} answers a logged 500 for that request, never a success or a 400`, async (t) => {
      const { app, entries, handled } = await failingApp(t, side, fail)
      const failing = await app.inject({ method: 'POST', url: '/users', headers: v('2000-01-01'), payload: { address: 'fail' } })
      t.equal(failing.statusCode, 500, 'a 500')
      t.equal(failing.json().code, 'FST_VERSIONER_CONVERTER_FAILED', 'the converter failure code')
      t.notMatch(failing.body, /addresses|converter broke/, 'neither the HEAD shape nor the failure\'s detail reaches the client')
      t.equal(failing.headers['x-api-version'], '2000-01-01', 'the version header is still set')
      t.equal(handled(), side === 'request' ? 0 : 1, side === 'request' ? 'the handler did not run' : 'the handler ran once')
      const logged = entries.filter((entry) => entry.converter === 'AddressWasSingle.' + (side === 'request' ? 'up' : 'down'))
      t.equal(logged.length, 1, 'one error log entry names the converter method')
      t.match(logged[0], {
        level: 50, apiVersion: '2000-01-01', route: 'POST /users', versionChange: 'AddressWasSingle'
      }, 'the log names the version, the route and the version change class')

      const fine = await app.inject({ method: 'POST', url: '/users', headers: v('2000-01-01'), payload: { address: 'Main St' } })
      t.equal(fine.statusCode, 200, 'the next request of the same version is served')
      t.same(fine.json(), { id: 'u1', address: 'Main St' })
    })
  }
}

test('regression: the log entry says what a converter threw that is not an Error, a cycle, a BigInt or a revoked proxy included', async (t) => {
  const thrown: Array<[() => unknown, RegExp]> = [
    [circularObject, /reason: 'loop'.*\[Circular/],
    [() => 10n, /^10n$/],
    [revokedProxy, /Revoked Proxy/],
    [() => 'converter broke', /^"converter broke"$/]
  ]
  for (const [value, described] of thrown) {
    const { app, entries } = await failingApp(t, 'response', () => { throw value() })
    const failing = await app.inject({ method: 'POST', url: '/users', headers: v('2000-01-01'), payload: { address: 'fail' } })
    t.equal(failing.statusCode, 500)
    t.match(entries.find((entry) => entry.converter === 'AddressWasSingle.down')?.thrown, described, `described: ${String(described)}`)
  }
})

test('a failing converter over real HTTP answers 500 and the connection serves the next request', async (t) => {
  const { app } = await failingApp(t, 'response', () => Promise.reject()) // eslint-disable-line prefer-promise-reject-errors
  const base = await listen(app)
  const failing = await fetch(`${base}/users`, { method: 'POST', headers: v('2000-01-01', { 'content-type': 'application/json' }), body: '{"address":"fail"}' })
  t.equal(failing.status, 500)
  t.match(await failing.json(), { code: 'FST_VERSIONER_CONVERTER_FAILED' })
  const fine = await fetch(`${base}/users`, { method: 'POST', headers: v('2000-01-01', { 'content-type': 'application/json' }), body: '{"address":"x"}' })
  t.equal(fine.status, 200)
  t.same(await fine.json(), { id: 'u1', address: 'x' })
})

test('a converter that never settles keeps only its own request open; others of every version are served', async (t) => {
  let release: () => void = () => {}
  const pending = new Promise<void>((resolve) => { release = resolve })
  t.teardown(() => release())
  const { app } = await failingApp(t, 'response', () => pending)
  let hungDone = false
  const hung = app.inject({ method: 'POST', url: '/users', headers: v('2000-01-01'), payload: { address: 'fail' } })
    .then((response) => { hungDone = true; return response })
  for (const version of ['2000-01-01', '2001-01-01']) {
    const other = await app.inject({ method: 'POST', url: '/users', headers: v(version), payload: version === '2000-01-01' ? { address: 'a' } : { addresses: ['a'] } })
    t.equal(other.statusCode, 200, `a request of ${version} is served meanwhile`)
  }
  t.equal(hungDone, false, 'the request whose converter has not settled is still open')
  release()
  const response = await hung
  t.equal(response.statusCode, 200, 'it answers once the converter settles')
})

/** An Error with an HTTP status, as `@fastify/sensible` or `http-errors` make them. */
function httpError (statusCode: number, message: string): Error {
  return Object.assign(new Error(message), { statusCode })
}

test('a converter that throws or rejects with an Error with a 4xx statusCode refuses the request: answered as from a handler', async (t) => {
  for (const [name, fail] of [
    ['throws', () => { throw httpError(422, "kind 'legacy' is no longer supported") }],
    ['rejects', () => Promise.reject(httpError(422, "kind 'legacy' is no longer supported"))]
  ] as const) {
    const { app, entries, handled } = await failingApp(t, 'request', fail)
    const refused = await app.inject({ method: 'POST', url: '/users', headers: v('2000-01-01'), payload: { address: 'fail' } })
    t.equal(refused.statusCode, 422, `a request converter that ${name}: its status`)
    t.same(refused.json(), { statusCode: 422, error: 'Unprocessable Entity', message: "kind 'legacy' is no longer supported" }, 'Fastify\'s error body with its message')
    t.equal(refused.headers['x-api-version'], '2000-01-01', 'the version header is set')
    t.equal(handled(), 0, 'the handler did not run')
    t.equal(entries.filter((entry) => entry.level >= 50).length, 0, 'no error is logged: it is the client\'s')
    const fine = await app.inject({ method: 'POST', url: '/users', headers: v('2000-01-01'), payload: { address: 'Main St' } })
    t.same([fine.statusCode, fine.json()], [200, { id: 'u1', address: 'Main St' }], 'the next request is served')
  }
  const { app } = await failingApp(t, 'response', () => { throw httpError(409, 'cannot show this user in 2000-01-01') })
  const response = await app.inject({ method: 'POST', url: '/users', headers: v('2000-01-01'), payload: { address: 'fail' } })
  t.same([response.statusCode, response.json().message], [409, 'cannot show this user in 2000-01-01'], 'a response converter\'s 4xx too')
})

test('a converter\'s client error goes through the route\'s error handler; a 5xx or a status-less Error stays the logged 500', async (t) => {
  class KindLegacyIsGone extends VersionChange {
    description = 'The legacy kind is gone.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor('/things', ['POST'])
    refuse (request: RequestInfo) {
      const kind = request.body.kind as string
      if (kind === 'legacy') throw httpError(422, "kind 'legacy' is no longer supported")
      if (kind === 'teapot') throw Object.assign(new Error('status, not statusCode'), { status: 418 })
      if (kind === 'broken') throw httpError(503, 'the converter broke')
      if (kind === 'plain') throw new Error('the converter broke')
    }
  }
  const { stream, entries } = captureLogs()
  const seen: unknown[] = []
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', KindLegacyIsGone), new Version('2000-01-01')), async (api) => {
    api.setErrorHandler((error: Error & { statusCode?: number, status?: number }, _request, reply) => {
      const status = error.statusCode ?? error.status ?? 500
      seen.push(status)
      return reply.code(status).send({ refused: error.message })
    })
    api.post('/things', { schema: { body: Type.Object({ kind: Type.String() }) } }, async (request) => request.body)
  }, { fastify: { logger: { level: 'error', stream } } })
  const answer = async (kind: string): Promise<LightMyRequestResponse> => await app.inject({ method: 'POST', url: '/things', headers: v('2000-01-01'), payload: { kind } })

  const legacy = await answer('legacy')
  t.same([legacy.statusCode, legacy.json()], [422, { refused: "kind 'legacy' is no longer supported" }], 'the application\'s error handler answered it')
  const teapot = await answer('teapot')
  t.same([teapot.statusCode, teapot.json()], [418, { refused: 'status, not statusCode' }], 'a status property counts, as in Fastify')
  for (const kind of ['broken', 'plain']) {
    const failed = await answer(kind)
    t.same([failed.statusCode, failed.json().refused], [500, 'A converter failed while migrating this request or response of API version 2000-01-01. ' +
      'This is a server error; it has been logged.'], `${kind}: the 500 FST_VERSIONER_CONVERTER_FAILED`)
    t.notMatch(failed.body, /the converter broke/, `${kind}: the failure's text stays in the log`)
  }
  t.same(seen, [422, 418, 500, 500], 'every error went through the application\'s error handler')
  t.equal(entries.filter((entry) => entry.converter === 'KindLegacyIsGone.refuse').length, 2, 'the two server errors are logged with the converter')
  const current = await app.inject({ method: 'POST', url: '/things', headers: v('2001-01-01'), payload: { kind: 'legacy' } })
  t.equal(current.statusCode, 200, 'the newest version never runs the converter')
})

test('neither a converter\'s refusal nor its failure passes a migrateHttpErrors converter again', async (t) => {
  const errorsSeen: unknown[] = []
  class ErrorsAreRewritten extends VersionChange {
    description = 'Errors of 2000-01-01 say "problem".'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor('/things', ['POST'])
    refuse (request: RequestInfo) {
      if (request.body.kind === 'legacy') throw httpError(422, "kind 'legacy' is no longer supported")
    }

    @ConvertResponseToPreviousVersionFor('/things', ['POST'], { migrateHttpErrors: true })
    rewrite (response: ResponseInfo) {
      errorsSeen.push(response.statusCode)
      if (response.body.kind === 'broken') throw new Error('the converter broke')
      if (response.statusCode >= 400) response.body = { problem: response.body.message }
    }
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', ErrorsAreRewritten), new Version('2000-01-01')), async (api) => {
    api.post('/things', { schema: { body: Type.Object({ kind: Type.String() }) } }, async (request, reply) =>
      request.body.kind === 'missing' ? await reply.code(404).send({ message: 'no such thing' }) : request.body)
  })
  const answer = async (kind: string): Promise<[number, unknown, unknown[]]> => {
    errorsSeen.length = 0
    const response = await app.inject({ method: 'POST', url: '/things', headers: v('2000-01-01'), payload: { kind } })
    return [response.statusCode, response.json(), [...errorsSeen]]
  }
  t.same(await answer('missing'), [404, { problem: 'no such thing' }, [404]], 'a handler\'s error is converted')
  t.same(await answer('legacy'), [422, { statusCode: 422, error: 'Unprocessable Entity', message: "kind 'legacy' is no longer supported" }, []],
    'the refusal is answered as thrown: the error converter never sees it')
  const [status, body, seen] = await answer('broken')
  t.same([status, (body as { code: string }).code, seen], [500, 'FST_VERSIONER_CONVERTER_FAILED', [200]], 'the failure\'s 500 does not pass the converter that failed')
})

test('regression: an error body an async converter leaves unfit for the version\'s schema crashed the process (an unhandled rejection) and the request hung', async (t) => {
  const ErrorBody = Type.Object({ statusCode: Type.Integer(), error: Type.String(), message: Type.String() })
  class ErrorsSaidDetail extends VersionChange {
    description = 'Error bodies said detail where they now say message.'
    instructionsToMigrateToPreviousVersion = [schema(ErrorBody).field('message').had({ name: 'detail' })]

    // The bug: the converter removes message and forgets to write detail, which the version's schema requires.
    @ConvertResponseToPreviousVersionFor(ErrorBody, { migrateHttpErrors: true })
    async forgetful (response: ResponseInfo) {
      await Promise.resolve()
      delete response.body.message
    }
  }
  const rejections: unknown[] = []
  const onRejection = (reason: unknown): void => { rejections.push(reason) }
  process.on('unhandledRejection', onRejection)
  t.teardown(() => { process.off('unhandledRejection', onRejection) })
  const { stream, entries } = captureLogs()
  let handled = 0
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', ErrorsSaidDetail), new Version('2000-01-01')), async (api) => {
    api.setErrorHandler(async (error: Error & { statusCode?: number }, _request, reply) => {
      handled++
      return reply.code(error.statusCode ?? 500).send({ statusCode: error.statusCode ?? 500, error: 'Failed', message: error.message })
    })
    api.get('/orders/:id', { schema: { response: { '4xx': ErrorBody } } }, async (_request, reply) => reply.code(404).send({ statusCode: 404, error: 'Not Found', message: 'No such order' }))
  }, { fastify: { logger: { level: 'error', stream } } })

  const answer = await Promise.race([
    call(app, '2000-01-01', '/orders/o1'),
    new Promise<undefined>((resolve) => { setTimeout(() => { resolve(undefined) }, 2000) })
  ])
  t.ok(answer, 'answered, not left hanging')
  t.equal(answer?.statusCode, 500)
  t.equal(answer?.json().message, 'A response of this route cannot be expressed in API version 2000-01-01. This is a server error; it has been logged.',
    'the versioner\'s generic message, never the serializer\'s')
  t.equal(answer?.headers['x-api-version'], '2000-01-01')
  t.equal(handled, 1, 'the error handler ran once, for the failure')
  t.match(entries.find((entry) => entry.apiVersion === '2000-01-01'), { level: 50, route: 'GET /orders/:id', err: { message: /detail/ } },
    'logged, with the serializer\'s message')
  await new Promise((resolve) => setImmediate(resolve))
  t.same(rejections, [], 'no unhandled rejection')
  t.equal((await call(app, '2001-01-01', '/orders/o1')).statusCode, 404, 'the newest version is answered as before')
})

test('a converter returning a new object (which is ignored) answers a logged 500, never the unconverted body', async (t) => {
  const Price = Type.Object({ amount: Type.Number() }, { $id: 'Price' })
  const PriceUpdate = Type.Object({ amount: Type.Number() }, { $id: 'PriceUpdate' })
  const returns = {
    'a new object': (body: Record<string, unknown>): unknown => ({ ...body, amount: (body.amount as number) / 100 }),
    'a promise of a new object': async (body: Record<string, unknown>): Promise<unknown> => ({ ...body, amount: (body.amount as number) / 100 })
  }
  for (const [name, make] of Object.entries(returns)) {
    class AmountsWereDollars extends VersionChange {
      description = 'Amounts were in dollars; they are in cents.'
      instructionsToMigrateToPreviousVersion = []

      @ConvertRequestToNextVersionFor(PriceUpdate)
      up (request: RequestInfo) { return make(request.body) }

      @ConvertResponseToPreviousVersionFor(Price)
      down (response: ResponseInfo) { return make(response.body) }
    }
    const { stream, entries } = captureLogs()
    const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', AmountsWereDollars), new Version('2000-01-01')), async (api) => {
      api.get('/price', { schema: { response: { 200: Price } } }, async () => ({ amount: 1250 }))
      api.put('/price', { schema: { body: PriceUpdate, response: { 200: PriceUpdate } } }, async (request) => request.body)
    }, { fastify: { logger: { level: 'error', stream } } })
    const read = await app.inject({ url: '/price', headers: v('2000-01-01') })
    t.equal(read.statusCode, 500, `${name}: a response converter's 500, not the cents as dollars (${read.body})`)
    t.equal(read.json().code, 'FST_VERSIONER_CONVERTER_FAILED')
    t.match(entries.find((entry) => entry.converter === 'AmountsWereDollars.down')?.err,
      { message: /AmountsWereDollars\.down returned an object, which is ignored: a converter changes response\.body in place \(or assigns response\.body\)/ })
    const update = await app.inject({ method: 'PUT', url: '/price', headers: v('2000-01-01'), payload: { amount: 12.5 } })
    t.equal(update.statusCode, 500, `${name}: a request converter's 500, not dollars stored as cents`)
    t.match(entries.find((entry) => entry.converter === 'AmountsWereDollars.up')?.err, { message: /returned an object, which is ignored: a converter changes request\.body in place/ })
  }
})

test('a converter returning its info, its body or a value that is no object is served as before', async (t) => {
  const Price = Type.Object({ amount: Type.Number(), tax: Type.Object({ rate: Type.Number() }) }, { $id: 'Price' })
  const returns: Record<string, (response: ResponseInfo) => unknown> = {
    'the response': (response) => response,
    'the body it changed': (response) => response.body,
    'a body it assigned': (response) => (response.body = { ...response.body, amount: response.body.amount / 100 }),
    'what delete returns': (response) => delete response.body.unknown,
    'a promise of the body': async (response) => response.body,
    'an object inside the body a helper changed in place': (response) => Object.assign(response.body.tax as object, { rate: 20 })
  }
  for (const [name, after] of Object.entries(returns)) {
    class AmountsWereDollars extends VersionChange {
      description = 'Amounts were in dollars; they are in cents.'
      instructionsToMigrateToPreviousVersion = []

      @ConvertResponseToPreviousVersionFor(Price)
      down (response: ResponseInfo) {
        response.body.amount = name === 'a body it assigned' ? response.body.amount : response.body.amount / 100
        return after(response)
      }
    }
    const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', AmountsWereDollars), new Version('2000-01-01')), async (api) => {
      api.get('/price', { schema: { response: { 200: Price } } }, async () => ({ amount: 1250, tax: { rate: 19 } }))
    })
    const read = await app.inject({ url: '/price', headers: v('2000-01-01') })
    const rate = name.startsWith('an object inside') ? 20 : 19
    t.same([read.statusCode, read.json()], [200, { amount: 12.5, tax: { rate } }], `${name}: served`)
  }
})

test('regression: a write after an async converter that throws (a holder an earlier converter froze) crashed the process with an unhandled rejection', async (t) => {
  const Line = Type.Object({ sku: Type.String() }, { $id: 'Line' })
  const Order = Type.Object({ lines: Type.Array(Line) }, { $id: 'Order' })
  class LinesWereFrozen extends VersionChange {
    description = 'An older change freezes the list of lines it checked.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor(Order)
    check (request: RequestInfo) { Object.freeze(request.body.lines) }
  }
  class SkusWereLowerCase extends VersionChange {
    description = 'SKUs were lower case.'
    instructionsToMigrateToPreviousVersion = []

    // Replaces each line: writing it back into the frozen list throws, after the converter's promise settled.
    @ConvertRequestToNextVersionFor(Line)
    async upper (request: RequestInfo) {
      await Promise.resolve()
      request.body = { sku: String(request.body.sku).toUpperCase() }
    }
  }
  const rejections: unknown[] = []
  const onRejection = (reason: unknown): void => { rejections.push(reason) }
  process.on('unhandledRejection', onRejection)
  t.teardown(() => { process.off('unhandledRejection', onRejection) })
  const { stream, entries } = captureLogs()
  const app = await versionedApp(t, new VersionBundle(
    new Version('2002-01-01', SkusWereLowerCase), new Version('2001-01-01', LinesWereFrozen), new Version('2000-01-01')
  ), async (api) => {
    api.post('/orders', { schema: { body: Order, response: { 200: Order } } }, async (request) => request.body)
  }, { fastify: { logger: { level: 'error', stream } } })
  const answer = await Promise.race([
    app.inject({ method: 'POST', url: '/orders', headers: v('2000-01-01'), payload: { lines: [{ sku: 'ab-1' }] } }),
    new Promise<undefined>((resolve) => { setTimeout(() => { resolve(undefined) }, 2000) })
  ])
  t.ok(answer, 'answered, not left hanging')
  t.equal(answer?.statusCode, 500)
  t.equal(answer?.json().code, 'FST_VERSIONER_CONVERTER_FAILED')
  t.match(entries.find((entry) => entry.converter === 'SkusWereLowerCase.upper'), { level: 50, err: { message: /read only|frozen|Cannot assign/ } },
    'logged, naming the converter whose write failed')
  await new Promise((resolve) => setImmediate(resolve))
  t.same(rejections, [], 'no unhandled rejection')
  const newest = await app.inject({ method: 'POST', url: '/orders', headers: v('2002-01-01'), payload: { lines: [{ sku: 'AB-1' }] } })
  t.equal(newest.statusCode, 200, 'another version is served as before')
})

test('regression: a converter returning an object inside its occurrence cost each occurrence of a recursive schema the data below it (quadratic in the depth)', async (t) => {
  // Telling whether the returned array sits inside the body walked depth first: a client putting `tags` before `next`
  // made every occurrence walk the whole chain below it first (2,000 levels: 4 million object listings, ~25x plain Fastify).
  const Node = Type.Recursive((This) => Type.Object({ tags: Type.Array(Type.String()), next: Type.Optional(This) }), { $id: 'Node' })
  class TagsWereUntrimmed extends VersionChange {
    description = 'Tags were sent with spaces around them.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor(Node)
    up (request: RequestInfo) { return (request.body.tags = (request.body.tags as string[]).map((tag) => tag.trim())) }
  }
  let listings = 0
  // Each object of the body behind a proxy counting the listings of its keys (whatever lists them: keys, values, for…in).
  const counted = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value
    const object = value as Record<string, unknown>
    for (const key of Object.keys(object)) object[key] = counted(object[key])
    return new Proxy(object, { ownKeys (target) { listings++; return Reflect.ownKeys(target) } })
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', TagsWereUntrimmed), new Version('2000-01-01')), async (api) => {
    api.post('/nodes', {
      schema: { body: Type.Object({ node: Node }) },
      preValidation: async (request) => { request.body = counted(request.body) as typeof request.body }
    }, async (request) => ({ depth: JSON.stringify(request.body).split('"next"').length - 1, first: (request.body as { node: { tags: string[] } }).node.tags }))
  })
  const chain = (depth: number): string => `{"node":${'{"tags":[" a "],"next":'.repeat(depth)}{"tags":[" z "]}${'}'.repeat(depth)}}`
  const listed: number[] = []
  for (const depth of [200, 400]) {
    listings = 0
    const reply = await app.inject({ method: 'POST', url: '/nodes', headers: { ...v('2000-01-01'), 'content-type': 'application/json' }, payload: chain(depth) })
    t.same([reply.statusCode, reply.json()], [200, { depth, first: ['a'] }], `${depth} levels: converted at every level`)
    listed.push(listings)
  }
  t.ok(listed[1] < listed[0] * 2.5, `twice as deep, about twice the listings, not four times (${listed.join(', ')})`)
  t.ok(listed[1] < 400 * 4, `a few listings a level (${listed[1]} for 400 levels)`)
})

test('regression: a success the error handler sends as JSON text after a converter failed or refused reached the old client in HEAD\'s shape, as an object never did', async (t) => {
  const Profile = Type.Object({ id: Type.String(), fullName: Type.String() })
  class NameWasShort extends VersionChange {
    description = 'fullName was name; some requests are refused or break a converter.'
    instructionsToMigrateToPreviousVersion = [schema(Profile).field('fullName').had({ name: 'name' })]

    @ConvertRequestToNextVersionFor('/profiles/:id', ['GET'])
    check (request: RequestInfo) {
      if (request.headers['x-break'] === 'refuse') throw Object.assign(new Error('Profiles of robots are refused'), { statusCode: 422 })
      if (request.headers['x-break'] === 'request') throw new Error('the request converter broke')
    }

    @ConvertResponseToPreviousVersionFor(Profile)
    name (response: ResponseInfo) {
      if (response.body.id === 'broken') throw new Error('the response converter broke')
      response.body.name = response.body.fullName
      delete response.body.fullName
    }
  }
  for (const form of ['an object', 'JSON text']) {
    const { stream, entries } = captureLogs()
    const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameWasShort), new Version('2000-01-01')), async (api) => {
      // A stale copy from a cache answers when serving fails: the cache holds HEAD's object, or its JSON text.
      api.setErrorHandler(async (_error, _request, reply) => {
        const stale = { id: 'stale', fullName: 'Ada Lovelace' }
        return form === 'an object' ? await reply.code(200).send(stale) : await reply.code(200).type('application/json').send(JSON.stringify(stale))
      })
      api.get('/profiles/:id', { schema: { params: Type.Object({ id: Type.String() }), response: { 200: Profile } } }, async (request) => ({ id: request.params.id, fullName: 'Ada' }))
    }, { fastify: { logger: { level: 'error', stream } } })
    for (const [cause, url, headers] of [
      ['a response converter failed', '/profiles/broken', {}],
      ['a request converter failed', '/profiles/p1', { 'x-break': 'request' }],
      ['a request converter refused', '/profiles/p1', { 'x-break': 'refuse' }]
    ] as const) {
      const old = await call(app, '2000-01-01', url, { headers })
      t.same([old.statusCode, old.json()], [200, { id: 'stale', name: 'Ada Lovelace' }], `${form}, ${cause}: the stale copy in the version's shape`)
      const newest = await call(app, '2001-01-01', url, { headers })
      t.same([newest.statusCode, newest.json()], [200, { id: url === '/profiles/broken' ? 'broken' : 'p1', fullName: 'Ada' }], `${form}, ${cause}: the newest version runs no converter`)
    }
    t.equal(entries.filter((entry) => entry.converter !== undefined).length, 2, `${form}: each failure is logged once`)
  }
})

test('a Web Response the error handler sends after a converter failed or refused reaches an old client in its version\'s shape', async (t) => {
  const Profile = Type.Object({ id: Type.String(), fullName: Type.String() })
  class NameWasShort extends VersionChange {
    description = 'fullName was name; some requests are refused or break a converter.'
    instructionsToMigrateToPreviousVersion = [schema(Profile).field('fullName').had({ name: 'name' })]

    @ConvertRequestToNextVersionFor('/profiles/:id', ['GET'])
    check (request: RequestInfo) {
      if (request.headers['x-break'] === 'refuse') throw Object.assign(new Error('Profiles of robots are refused'), { statusCode: 422 })
      if (request.headers['x-break'] === 'request') throw new Error('the request converter broke')
    }

    // By path: a Web Response's body is a stream, which only by-path converters see (on raw).
    @ConvertResponseToPreviousVersionFor('/profiles/:id', ['GET'])
    async name (response: ResponseInfo) {
      const body = (response.raw instanceof ReadableStream ? JSON.parse(await new Response(response.raw).text()) : response.body) as { id: string, fullName: string }
      if (body.id === 'broken') throw new Error('the response converter broke')
      response.body = { id: body.id, name: body.fullName }
    }
  }
  const { stream, entries } = captureLogs()
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameWasShort), new Version('2000-01-01')), async (api) => {
    // A stale copy from a cache of Web Responses answers when serving fails: HEAD's JSON, with its own status and headers.
    // Without a copy, the Response is an error of its own, which passes no converter (decision 0326).
    api.setErrorHandler(async (_error, request) => request.headers['x-cached'] === 'no'
      ? new Response('{"message":"down"}', { status: 503, headers: { 'content-type': 'application/json' } })
      : new Response(JSON.stringify({ id: 'stale', fullName: 'Ada Lovelace' }), { status: 200, headers: { 'content-type': 'application/json', 'x-from': 'cache' } }))
    api.get('/profiles/:id', { schema: { params: Type.Object({ id: Type.String() }), response: { 200: Profile } } }, async (request) => ({ id: request.params.id, fullName: 'Ada' }))
  }, { fastify: { logger: { level: 'error', stream } } })
  for (const [cause, url, headers] of [
    ['a response converter failed', '/profiles/broken', {}],
    ['a request converter failed', '/profiles/p1', { 'x-break': 'request' }],
    ['a request converter refused', '/profiles/p1', { 'x-break': 'refuse' }]
  ] as const) {
    const old = await call(app, '2000-01-01', url, { headers })
    t.same([old.statusCode, old.json()], [200, { id: 'stale', name: 'Ada Lovelace' }], `${cause}: the stale copy in the version's shape`)
    t.equal(old.headers['x-from'], 'cache', `${cause}: the Response's headers are sent`)
    const newest = await call(app, '2001-01-01', url, { headers })
    t.same([newest.statusCode, newest.json()], [200, { id: url === '/profiles/broken' ? 'broken' : 'p1', fullName: 'Ada' }], `${cause}: the newest version runs no converter`)
    const down = await call(app, '2000-01-01', url, { headers: { ...headers, 'x-cached': 'no' } })
    t.same([down.statusCode, down.body], [503, '{"message":"down"}'], `${cause}: an error Response is sent as it is`)
  }
  t.equal(entries.filter((entry) => entry.converter !== undefined).length, 4, 'each failure is logged once')
})
