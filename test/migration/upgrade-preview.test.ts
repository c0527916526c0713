/**
 * The upgrade preview (`upgradePreview: { headerName?, access }`): a previewed request is served exactly as an
 * ordinary one (same status, body and headers but the summary, one handler run); the patch it reports on the
 * channel `fastify-versioner:upgrade-preview` equals the diff between the served version's answer and the target
 * version's own answer, and `requestValid` says whether the target answers the same raw request without a 400,
 * over 1,000 generated cases; access, unknown targets, the same version, absent routes, failing converters, and
 * the option's checks.
 */
import { test } from 'tap'
import diagnosticsChannel from 'node:diagnostics_channel'
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import { applyPatch, compare, deepClone } from 'fast-json-patch'
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, HeadVersion, schema, Version, VersionBundle, VersionChange,
  type FastifyVersionerOptions, type RequestInfo, type ResponseInfo, type UpgradePreviewEvent
} from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { changeClass, nameWasTitleInResponses, taxedPrices } from '../helpers/version-changes'
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'

const Item = Type.Object({ sku: Type.String(), quantity: Type.Integer({ minimum: 0 }) }, { $id: 'Item' })
const Order = Type.Object({
  id: Type.String(),
  total: Type.Number(),
  note: Type.Optional(Type.String()),
  items: Type.Array(Item),
  tags: Type.Array(Type.String())
}, { $id: 'Order' })
const OrderCreate = Type.Object({ customer: Type.String(), items: Type.Array(Item), priority: Type.Optional(Type.Integer()) }, { $id: 'OrderCreate' })
type HeadOrder = Static<typeof Order>

class AddTags extends VersionChange {
  description = 'Orders have tags.'
  instructionsToMigrateToPreviousVersion = [schema(Order).field('tags').didntExist]
}

class RenameQuantity extends VersionChange {
  description = 'qty is called quantity.'
  instructionsToMigrateToPreviousVersion = [schema(Item).field('quantity').had({ name: 'qty' })]

  @ConvertRequestToNextVersionFor(Item)
  up (request: RequestInfo<{ sku: string, qty: number }, { sku: string, quantity: number }>) {
    const { qty, ...rest } = request.body
    request.body = { ...rest, quantity: qty }
  }

  @ConvertResponseToPreviousVersionFor(Item)
  down (response: ResponseInfo<{ sku: string, quantity: number }, { sku: string, qty: number }>) {
    const { quantity, ...rest } = response.body
    response.body = { ...rest, qty: quantity }
  }
}

class TotalInCents extends VersionChange {
  description = 'total is a decimal amount, not cents; orders may have a priority.'
  instructionsToMigrateToPreviousVersion = [schema(Order).field('total').had({ type: Type.Integer() }), schema(OrderCreate).field('priority').didntExist]

  @ConvertResponseToPreviousVersionFor(Order)
  async cents (response: ResponseInfo<{ total: number }, { total: number }>) {
    // Async: the preview waits for it as the route does.
    await Promise.resolve()
    response.body = { ...response.body, total: Math.round(response.body.total * 100) }
  }
}

const VERSIONS = ['2003-01-01', '2002-01-01', '2001-01-01', '2000-01-01']
const versions = new VersionBundle(new HeadVersion(), new Version('2003-01-01', AddTags), new Version('2002-01-01', RenameQuantity),
  new Version('2001-01-01', TotalInCents), new Version('2000-01-01'))

/** A request body valid in `version` (the handler ignores it). */
function validBody (version: string): Record<string, unknown> {
  return { customer: 'c', items: [version <= '2001-01-01' ? { sku: 's', qty: 1 } : { sku: 's', quantity: 1 }] }
}

interface Shop {
  app: FastifyInstance
  /** The HEAD body the next request answers. */
  next: HeadOrder
  calls: number
}

async function shop (t: Teardown, versioner: Partial<FastifyVersionerOptions> = { upgradePreview: { access: () => true } }): Promise<Shop> {
  const state: Partial<Shop> = { next: { id: 'o', total: 1, items: [], tags: [] }, calls: 0 }
  state.app = await versionedApp(t, versions, async (api) => {
    api.post('/orders', { schema: { body: OrderCreate, response: { 200: Order } } }, async () => {
      (state as Shop).calls++
      return (state as Shop).next
    })
    api.get('/plain', async () => ({ ok: true, list: [1, 2] }))
  }, { versioner })
  await state.app.ready()
  return state as Shop
}

/** Collects the channel's events while a test runs. */
function events (t: Teardown): UpgradePreviewEvent[] {
  const seen: UpgradePreviewEvent[] = []
  const listener = (message: unknown): void => { seen.push(message as UpgradePreviewEvent) }
  diagnosticsChannel.subscribe('fastify-versioner:upgrade-preview', listener)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:upgrade-preview', listener))
  return seen
}

function post (app: FastifyInstance, version: string, body: unknown, preview?: string): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST', url: '/orders', payload: body as object, headers: { 'x-api-version': version, ...(preview === undefined ? {} : { 'x-api-version-preview': preview }) }
  })
}

function headersBut (response: LightMyRequestResponse, ...names: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(response.headers).filter(([name]) => !['date', ...names].includes(name)))
}

const word = fc.string({ maxLength: 6 })
const headOrder = fc.record({
  id: word,
  total: fc.double({ min: -1e6, max: 1e6, noNaN: true }),
  note: fc.option(word, { nil: undefined }),
  items: fc.array(fc.record({ sku: word, quantity: fc.nat(1000) }), { maxLength: 3 }),
  tags: fc.array(word, { maxLength: 3 })
}).map((order) => order.note === undefined ? (({ note, ...rest }) => rest)(order) : order) as fc.Arbitrary<HeadOrder>
/** Request bodies of every version's shape and of none: some valid where they are sent, some not. */
const rawBody = fc.record({
  customer: fc.oneof(word, fc.integer()),
  items: fc.array(fc.oneof(fc.record({ sku: word, qty: fc.nat(9) }), fc.record({ sku: word, quantity: fc.nat(9) }), fc.record({ sku: word })), { maxLength: 2 }),
  priority: fc.option(fc.integer({ min: -3, max: 3 }), { nil: undefined })
}, { requiredKeys: ['items'] })

test('a previewed request is served as an ordinary one, and its patch is the diff of the two versions\' answers (1,000 cases)', async (t) => {
  const store = await shop(t)
  const seen = events(t)
  let compared = 0
  let invalid = 0
  await fc.assert(fc.asyncProperty(headOrder, rawBody, fc.constantFrom(...VERSIONS), fc.constantFrom(...VERSIONS), async (order, body, served, target) => {
    store.next = order
    const ordinary = await post(store.app, served, body)
    const before = store.calls
    const previewed = await post(store.app, served, body, target)
    const runs = store.calls - before
    const event = seen.pop()
    if (previewed.body !== ordinary.body || previewed.statusCode !== ordinary.statusCode) throw new Error('the previewed answer differs from the ordinary one')
    // The same headers but the summary, and the Cache-Control that keeps a previewed answer out of shared caches.
    if (JSON.stringify(headersBut(previewed, 'x-api-version-preview', 'cache-control')) !== JSON.stringify(headersBut(ordinary))) throw new Error('the headers differ')
    if (previewed.headers['cache-control'] !== 'private' || ordinary.headers['cache-control'] !== undefined) throw new Error('a previewed answer is private, an ordinary one is not')
    if (runs !== (ordinary.statusCode === 200 ? 1 : 0)) throw new Error(`the handler ran ${runs} times`)
    if (event === undefined || seen.length > 0) throw new Error('one event per previewed request')
    const asSent = await post(store.app, target, body)
    if (event.requestValid !== (asSent.statusCode !== 400)) throw new Error(`requestValid ${event.requestValid}, but ${target} answers ${asSent.statusCode}`)
    if (!event.requestValid) invalid++
    const summary = String(previewed.headers['x-api-version-preview'])
    if (ordinary.statusCode !== 200) {
      if (event.patch !== undefined || !summary.startsWith(`${target}: not compared`)) throw new Error(`no comparison for a ${ordinary.statusCode}: ${summary}`)
      return
    }
    const targetAnswer = await post(store.app, target, validBody(target))
    const servedBody: unknown = ordinary.json()
    const targetBody: unknown = targetAnswer.json()
    const expected = compare({ body: servedBody }, { body: targetBody }).map((operation) => ({ ...operation, path: operation.path.slice('/body'.length) }))
    if (!isDeepStrictEqual(event.patch, expected)) throw new Error(`patch ${JSON.stringify(event.patch)} ≠ ${JSON.stringify(expected)}`)
    const patched = applyPatch(deepClone({ body: servedBody }), (event.patch ?? []).map((operation) => ({ ...operation, path: `/body${operation.path}` })) as never).newDocument
    if (!isDeepStrictEqual(patched.body, targetBody)) throw new Error(`the patch does not turn the served body into the target's: ${JSON.stringify({ servedBody, targetBody, patch: event.patch, patched })}`)
    if (summary !== `${target}: ${expected.length} change${expected.length === 1 ? '' : 's'}; request ${event.requestValid ? 'valid' : 'invalid'}`) throw new Error(`summary ${summary}`)
    if (event.served !== served || event.target !== target || event.status.target !== targetAnswer.statusCode) throw new Error('event fields')
    compared++
  }), { numRuns: 1000, seed: 23 })
  t.ok(compared > 300, `${compared} answers compared`)
  t.ok(invalid > 100 && invalid < 900, `${invalid} requests invalid in their target, the rest valid`)
})

test('without the header, without access, or with access failing: served as usual, nothing said', async (t) => {
  let allow: () => boolean | Promise<boolean> = () => false
  const store = await shop(t, { upgradePreview: { access: () => allow() } })
  const seen = events(t)
  const plain = await post(store.app, '2000-01-01', validBody('2000-01-01'))
  t.equal(plain.headers['x-api-version-preview'], undefined, 'no header without the request header')
  for (const [label, access] of [['false', () => false], ['async false', async () => false], ['throws', () => { throw new Error('no') }],
    ['rejects', () => Promise.reject(new Error('no'))], ['truthy but not true', () => 1 as unknown as boolean]] as const) {
    allow = access
    const response = await post(store.app, '2000-01-01', validBody('2000-01-01'), '2003-01-01')
    t.equal(response.statusCode, 200, `${label}: served`)
    t.equal(response.headers['x-api-version-preview'], undefined, `${label}: no summary`)
  }
  t.same(seen, [], 'no event')
  allow = async () => true
  const allowed = await post(store.app, '2000-01-01', validBody('2000-01-01'), '2003-01-01')
  t.match(allowed.headers['x-api-version-preview'], /^2003-01-01: \d+ changes?; request invalid$/, 'async access granted: previewed')
})

test('answers vary on the preview header when the option is on, and only then', async (t) => {
  const store = await shop(t)
  for (const preview of [undefined, '2003-01-01']) {
    const response = await store.app.inject({ method: 'GET', url: '/plain', headers: { 'x-api-version': '2000-01-01', ...(preview === undefined ? {} : { 'x-api-version-preview': preview }) } })
    t.equal(response.statusCode, 200)
    t.equal(response.headers.vary, 'x-api-version, x-api-version-preview', `GET ${preview === undefined ? 'without' : 'with'} the preview header: both headers in Vary`)
  }
  const unknown = await store.app.inject({ method: 'GET', url: '/plain', headers: { 'x-api-version': 'nope' } })
  t.equal(unknown.statusCode, 400)
  t.equal(unknown.headers.vary, 'x-api-version, x-api-version-preview', 'a 400 varies on both too')
  const posted = await post(store.app, '2000-01-01', validBody('2000-01-01'), '2003-01-01')
  t.equal(posted.headers.vary, 'x-api-version, x-api-version-preview', 'POST answers vary on both too')
  const off = await shop(t, {})
  const plain = await off.app.inject({ method: 'GET', url: '/plain', headers: { 'x-api-version': '2000-01-01' } })
  t.equal(plain.headers.vary, 'x-api-version', 'without the option: the version header only')
})

test('an unknown target, the same version, a date between versions, a route without schemas, a failing converter', async (t) => {
  const store = await shop(t)
  const seen = events(t)
  const unknown = await post(store.app, '2001-01-01', validBody('2001-01-01'), 'next-year')
  t.equal(unknown.statusCode, 200)
  t.equal(unknown.headers['x-api-version-preview'], 'unknown version "next-year"; versions: 2003-01-01, 2002-01-01, 2001-01-01, 2000-01-01')
  t.equal(seen.length, 0, 'no event for an unknown target')
  // A client's own value is echoed up to 64 characters: a header near Node's limit is not sent back whole.
  const long = `2001-01-01.${'x'.repeat(15000)}`
  const echoed = await post(store.app, '2001-01-01', validBody('2001-01-01'), long)
  t.equal(echoed.headers['x-api-version-preview'],
    `unknown version ${JSON.stringify(long.slice(0, 64))}... (the first 64 of ${long.length} characters); versions: 2003-01-01, 2002-01-01, 2001-01-01, 2000-01-01`)
  const same = await post(store.app, '2001-01-01', validBody('2001-01-01'), '2001-01-01')
  t.equal(same.headers['x-api-version-preview'], '2001-01-01: 0 changes; request valid', 'the same version: nothing changes')
  const between = await post(store.app, '2003-01-01', validBody('2003-01-01'), '2001-06-30')
  t.match(between.headers['x-api-version-preview'], /^2001-01-01: /, 'a date between versions is the older version')
  const plain = await store.app.inject({ url: '/plain', headers: { 'x-api-version': '2003-01-01', 'x-api-version-preview': '2000-01-01' } })
  t.equal(plain.headers['x-api-version-preview'], '2000-01-01: 0 changes; request valid', 'a route no version changes (no response hook of its own)')
  t.same(seen.at(-1)?.route, { method: 'GET', url: '/plain' })
})

test('the route absent in the target, and a converter that fails only for the target', async (t) => {
  class Refuse extends VersionChange {
    description = 'Older versions cannot show negative totals.'
    instructionsToMigrateToPreviousVersion = [endpoint('/orders/:id/history', ['GET']).didntExist]
    @ConvertResponseToPreviousVersionFor(Order)
    refuse (response: ResponseInfo<HeadOrder, HeadOrder>) {
      if (response.body.total < 0) throw new Error('negative total')
      if (response.body.total > 1000) throw new Error('too much:\r\nx-injected: 1 ∞')
    }
  }
  const bundle = new VersionBundle(new HeadVersion(), new Version('2001-01-01', Refuse), new Version('2000-01-01'))
  let next: HeadOrder = { id: 'o', total: -1, items: [], tags: [] }
  const app = await versionedApp(t, bundle, async (api) => {
    api.get('/orders/:id', { schema: { response: { 200: Order } } }, async () => next)
    api.get('/orders/:id/history', async () => ({ events: [] }))
  }, { versioner: { upgradePreview: { access: () => true, headerName: 'X-Preview' } } })
  await app.ready()
  const seen = events(t)
  const failing = await app.inject({ url: '/orders/o', headers: { 'x-api-version': '2001-01-01', 'x-preview': '2000-01-01' } })
  t.equal(failing.statusCode, 200, 'the served version is not affected')
  t.equal(failing.json<HeadOrder>().total, -1)
  t.equal(failing.headers['x-preview'], '2000-01-01: not compared (the target version\'s response converters failed: negative total); request valid',
    'a custom header name; the summary says the target would fail')
  t.match(seen.at(-1), { patch: undefined, reason: /negative total/, status: { served: 200, target: undefined } })
  next = { ...next, total: 1001 }
  const message = await app.inject({ url: '/orders/o', headers: { 'x-api-version': '2001-01-01', 'x-preview': '2000-01-01' } })
  t.equal(message.headers['x-preview'], '2000-01-01: not compared (the target version\'s response converters failed: too much:??x-injected: 1 ?); request valid',
    'a converter\'s message reaches the header as printable text only')
  t.equal(message.headers['x-injected'], undefined)
  next = { ...next, total: 2 }
  const fine = await app.inject({ url: '/orders/o', headers: { 'x-api-version': '2001-01-01', 'x-preview': '2000-01-01' } })
  t.equal(fine.headers['x-preview'], '2000-01-01: 0 changes; request valid')

  const absent = await app.inject({ url: '/orders/o/history', headers: { 'x-api-version': '2001-01-01', 'x-preview': '2000-01-01' } })
  t.equal(absent.statusCode, 200)
  t.equal(absent.headers['x-preview'], '2000-01-01: not compared (GET /orders/:id/history does not exist in 2000-01-01); request invalid',
    'a route the target does not have: the request would not be served there')
  t.match(seen.at(-1), { requestValid: false, requestErrors: [{ part: 'route', message: 'GET /orders/:id/history does not exist in 2000-01-01' }] })
})

test('path versions: the version segment is not part of the request checked in the target', async (t) => {
  const Query = Type.Object({ limit: Type.Integer({ maximum: 10 }) })
  class Smaller extends VersionChange {
    description = 'limit may be up to 10.'
    instructionsToMigrateToPreviousVersion = [schema(Query).field('limit').had({ type: Type.Integer({ maximum: 5 }) })]
  }
  const bundle = new VersionBundle(new HeadVersion(), new Version('2001-01-01', Smaller), new Version('2000-01-01'))
  const app = await versionedApp(t, bundle, async (api) => {
    api.get('/items/:id', { schema: { params: Type.Object({ id: Type.String() }, { additionalProperties: false }), querystring: Query } }, async () => ({ ok: true }))
  }, { versioner: { apiVersionLocation: 'path', upgradePreview: { access: () => true } } })
  await app.ready()
  const valid = await app.inject({ url: '/2001-01-01/items/i?limit=4', headers: { 'x-api-version-preview': '2000-01-01' } })
  t.equal(valid.headers['x-api-version-preview'], '2000-01-01: 0 changes; request valid')
  const invalid = await app.inject({ url: '/2001-01-01/items/i?limit=8', headers: { 'x-api-version-preview': '2000-01-01' } })
  t.equal(invalid.statusCode, 200, 'served in 2001-01-01')
  t.equal(invalid.headers['x-api-version-preview'], '2000-01-01: 0 changes; request invalid', 'limit 8 is too large in 2000-01-01')
  t.equal((await app.inject('/2000-01-01/items/i?limit=8')).statusCode, 400, 'as 2000-01-01 itself answers')
})

test('the option is checked at registration', async (t) => {
  for (const [option, says] of [
    [true, "Option 'upgradePreview' must be an object"],
    [{}, "'upgradePreview.access' must be a function"],
    [{ access: () => true, headerName: 'bad header' }, "'upgradePreview.headerName' must be a valid header name"],
    [{ access: () => true, headerName: 'X-API-Version' }, 'other than the version header'],
    [{ access: () => true, header: 'x' }, 'unknown key(s) header']
  ] as const) {
    await t.rejects(versionedApp(t, versions, undefined, { versioner: { upgradePreview: option as never } }), { code: 'FST_VERSIONER_INVALID_OPTION', message: new RegExp(says.replace(/[()[\]'.]/g, '\\$&')) }, says)
  }
  const off = await shop(t, {})
  const response = await post(off.app, '2000-01-01', validBody('2000-01-01'), '2003-01-01')
  t.equal(response.headers['x-api-version-preview'], undefined, 'off: the header means nothing')
})

test('regression: a target past its sunset is reported gone, not compared; a preview version is compared only when its access allows (issue 30)', async (t) => {
  class NotesAreNew extends VersionChange {
    description = 'Orders have a note.'
    instructionsToMigrateToPreviousVersion = [schema(Order).field('note').didntExist]
  }
  class TagsAreNew extends VersionChange {
    description = 'Orders have tags.'
    instructionsToMigrateToPreviousVersion = [schema(Order).field('tags').didntExist]
  }
  const bundle = new VersionBundle(new HeadVersion(),
    new Version('2004-01-01.preview', NotesAreNew, { channel: 'preview', access: (request) => request.headers['x-beta'] === 'yes' }),
    new Version('2003-01-01', TagsAreNew), new Version('2002-01-01'), new Version('2001-01-01', { sunsetAt: '2020-01-01', afterSunset: 'gone' }))
  const app = await versionedApp(t, bundle, async (api) => {
    api.get('/orders/:id', { schema: { response: { 200: Order } } }, async () => ({ id: 'o', total: 1, note: 'n', items: [], tags: [] }))
  }, { versioner: { upgradePreview: { access: () => true }, now: () => Date.parse('2026-01-01') } })
  await app.ready()
  const seen = events(t)
  const ask = (target: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
    app.inject({ url: '/orders/o', headers: { 'x-api-version': '2003-01-01', 'x-api-version-preview': target, ...headers } })
  t.equal((await app.inject({ url: '/orders/o', headers: { 'x-api-version': '2001-01-01' } })).statusCode, 410, '2001-01-01 itself answers 410')
  for (const target of ['2001-01-01', '2001-06-30']) {
    const gone = await ask(target)
    t.equal(gone.statusCode, 200, `${target}: the served answer is not affected`)
    t.equal(gone.headers['x-api-version-preview'], '2001-01-01: not compared (2001-01-01 is gone since its sunset on 2020-01-01: it answers every request 410); request invalid',
      `${target}: gone, not "request valid"`)
    t.match(seen.at(-1), {
      target: '2001-01-01',
      patch: undefined,
      requestValid: false,
      requestErrors: [{ part: 'version', message: 'API version 2001-01-01 was sunset on 2020-01-01 and is no longer served. The oldest version still served is 2002-01-01.' }],
      reason: /gone since its sunset/
    }, `${target}: the event says so`)
  }
  const allowed = await ask('2004-01-01.preview', { 'x-beta': 'yes' })
  t.equal(allowed.headers['x-api-version-preview'], '2004-01-01.preview: 1 change; request valid', 'a preview its access allows is compared')
  t.match(seen.at(-1), { target: '2004-01-01.preview', patch: [{ op: 'add', path: '/note', value: 'n' }], requestValid: true })
  const count = seen.length
  const refused = await ask('2004-01-01.preview')
  const unknown = await ask('2004-01-01.previex')
  t.equal(refused.headers['x-api-version-preview'], 'unknown version "2004-01-01.preview"; versions: 2003-01-01, 2002-01-01, 2001-01-01',
    'a preview its access refuses is an unknown version')
  t.equal(unknown.headers['x-api-version-preview'], 'unknown version "2004-01-01.previex"; versions: 2003-01-01, 2002-01-01, 2001-01-01', 'as a value naming nothing')
  t.equal(seen.length, count, 'no event for either')
  for (const response of [allowed, refused, unknown]) t.equal(response.headers['cache-control'], 'private', 'a previewed answer is private')
  t.equal((await app.inject({ url: '/orders/o', headers: { 'x-api-version': '2003-01-01' } })).headers['cache-control'], undefined, 'an ordinary one is not')
})

test('regression: a served answer that failed after the handler succeeded (a served converter throws) is not compared', async (t) => {
  class Fails extends VersionChange {
    description = 'Older versions fail on negative totals.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertResponseToPreviousVersionFor(Order)
    refuse (response: ResponseInfo<HeadOrder, HeadOrder>) {
      if (response.body.total < 0) throw new Error('negative total')
    }
  }
  const bundle = new VersionBundle(new HeadVersion(), new Version('2001-01-01', Fails), new Version('2000-01-01'))
  const app = await versionedApp(t, bundle, async (api) => {
    api.get('/orders/:id', { schema: { response: { 200: Order } } }, async () => ({ id: 'o', total: -1, items: [], tags: [] }))
  }, { versioner: { upgradePreview: { access: () => true } } })
  const seen = events(t)
  const response = await app.inject({ url: '/orders/o', headers: { 'x-api-version': '2000-01-01', 'x-api-version-preview': '2001-01-01' } })
  t.equal(response.statusCode, 500, 'the served version fails')
  t.equal(response.headers['x-api-version-preview'], '2001-01-01: not compared (not a JSON success (status 500)); request valid', 'the 500 is not compared')
  t.match(seen.at(-1), { patch: undefined, targetBody: undefined, status: { served: 500, target: undefined }, reason: 'not a JSON success (status 500)' })
})

test('regression: the target version\'s converters see the response headers the handler set, and their changes go nowhere', async (t) => {
  class Region extends VersionChange {
    description = 'Older versions have the region in the body.'
    instructionsToMigrateToPreviousVersion = [schema(Order).formerField('region').existedAs({ type: Type.Union([Type.String(), Type.Null()]) })]
    @ConvertResponseToPreviousVersionFor(Order)
    region (response: ResponseInfo<HeadOrder, HeadOrder & { region: unknown }>) {
      const cookies = response.headers['set-cookie']
      if (Array.isArray(cookies)) cookies.push('leak=1')
      response.headers['x-region'] = 'changed'
      response.body = { ...response.body, region: response.headers['x-region-of-handler'] ?? null }
    }
  }
  const bundle = new VersionBundle(new HeadVersion(), new Version('2001-01-01', Region), new Version('2000-01-01'))
  const app = await versionedApp(t, bundle, async (api) => {
    api.get('/orders/:id', { schema: { response: { 200: Order } } }, async (_request, reply) => {
      reply.header('x-region-of-handler', 'eu').header('set-cookie', ['a=1', 'b=2'])
      return { id: 'o', total: 1, items: [], tags: [] }
    })
  }, { versioner: { upgradePreview: { access: () => true } } })
  const seen = events(t)
  const older = await app.inject({ url: '/orders/o', headers: { 'x-api-version': '2000-01-01' } })
  t.equal(older.json<{ region: unknown }>().region, 'eu', '2000-01-01 itself answers the handler\'s region')
  const previewed = await app.inject({ url: '/orders/o', headers: { 'x-api-version': '2001-01-01', 'x-api-version-preview': '2000-01-01' } })
  t.match(seen.at(-1), { patch: [{ op: 'add', path: '/region', value: 'eu' }], targetBody: { region: 'eu' } }, 'the preview renders what 2000-01-01 answers')
  t.same(previewed.headers['set-cookie'], ['a=1', 'b=2'], 'the served answer\'s cookies are untouched')
  t.equal(previewed.headers['x-region'], undefined, 'a target converter\'s header goes nowhere')
})

test('regression: with a custom validator compiler ({ error }) or an $async schema, the target\'s refusal is reported or left alone, never unhandled', async (t) => {
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown): void => { unhandled.push(reason) }
  process.on('unhandledRejection', onUnhandled)
  t.teardown(() => { process.off('unhandledRejection', onUnhandled) })
  const Query = Type.Object({ limit: Type.Integer({ maximum: 10 }) })
  const AsyncQuery = Type.Object({ limit: Type.Integer({ maximum: 10 }) }, { $async: true })
  // One bundle per app: an instruction on the other app's query schema would change nothing there (FST_VERSIONER_INSTRUCTION_UNUSED).
  const bundleOf = (query: typeof Query): VersionBundle => {
    class Smaller extends VersionChange {
      description = 'limit may be up to 10.'
      instructionsToMigrateToPreviousVersion = [schema(query).field('limit').had({ type: Type.Integer({ maximum: 5 }) })]
    }
    return new VersionBundle(new HeadVersion(), new Version('2001-01-01', Smaller), new Version('2000-01-01'))
  }
  const app = await versionedApp(t, bundleOf(Query), async (api) => {
    api.get('/items', { schema: { querystring: Query } }, async () => ({ ok: true }))
  }, {
    versioner: { upgradePreview: { access: () => true } },
    beforeVersioner: (instance) => { instance.setValidatorCompiler(TypeBoxValidatorCompiler) }
  })
  const asyncApp = await versionedApp(t, bundleOf(AsyncQuery), async (api) => {
    api.get('/items', { schema: { querystring: AsyncQuery } }, async () => ({ ok: true }))
  }, { versioner: { upgradePreview: { access: () => true } } })
  const preview = { 'x-api-version': '2001-01-01', 'x-api-version-preview': '2000-01-01' }
  t.equal((await app.inject({ url: '/items?limit=4', headers: preview })).headers['x-api-version-preview'], '2000-01-01: 0 changes; request valid')
  const invalid = await app.inject({ url: '/items?limit=8', headers: preview })
  t.equal(invalid.statusCode, 200, 'served in 2001-01-01')
  t.equal(invalid.headers['x-api-version-preview'], '2000-01-01: 0 changes; request invalid', 'the { error } of TypeBoxValidatorCompiler is read')
  t.equal((await app.inject({ url: '/items?limit=8', headers: { 'x-api-version': '2000-01-01' } })).statusCode, 400, 'as 2000-01-01 itself answers')

  const served = await asyncApp.inject({ url: '/items?limit=8', headers: preview })
  t.equal(served.statusCode, 200)
  await new Promise((resolve) => setTimeout(resolve, 10))
  t.same(unhandled, [], 'the async validator\'s refusal in the target was handled')
})

test('regression: a request without a body is judged as null in the target, as Fastify and the target itself validate it', async (t) => {
  const Longer = Type.Union([Type.Object({ text: Type.String({ maxLength: 100 }) }), Type.Null()])
  class LongerNotes extends VersionChange {
    description = 'Notes may be longer.'
    instructionsToMigrateToPreviousVersion = [schema(Longer).had({ description: 'A short note, or null.' })]
  }
  const bundle = new VersionBundle(new HeadVersion(), new Version('2001-01-01', LongerNotes), new Version('2000-01-01'))
  const app = await versionedApp(t, bundle, async (api) => {
    api.put('/notes', { schema: { body: Longer } }, async () => ({ ok: true }))
  }, { versioner: { upgradePreview: { access: () => true } } })
  t.equal((await app.inject({ method: 'PUT', url: '/notes', headers: { 'x-api-version': '2000-01-01' } })).statusCode, 200, '2000-01-01 takes no body')
  const previewed = await app.inject({ method: 'PUT', url: '/notes', headers: { 'x-api-version': '2001-01-01', 'x-api-version-preview': '2000-01-01' } })
  t.equal(previewed.statusCode, 200)
  t.match(previewed.headers['x-api-version-preview'], /; request valid$/, 'the preview says so too')
})

// Two HEAD routes at one path and method, one replacing the other in 2001-01-01: the preview said the route "does not
// exist" in the target and the request was invalid there, while a request naming the target is served by the other
// route. The request is checked against that route's schemas; its answer is not rendered (it is another handler).
test('regression: a route replaced at the same path and method: the request is checked against the target\'s route', async (t) => {
  class ReplaceSearch extends VersionChange {
    description = 'The search takes query instead of q.'
    instructionsToMigrateToPreviousVersion = [
      endpoint('/search', ['POST'], { operationId: 'search' }).didntExist,
      endpoint('/search', ['POST'], { operationId: 'legacySearch' }).existed
    ]
  }
  const bundle = new VersionBundle(new Version('2001-01-01', ReplaceSearch), new Version('2000-01-01'))
  let runs = 0
  const app = await versionedApp(t, bundle, async (api) => {
    api.post('/search', {
      onlyExistsInOlderVersions: true,
      schema: { operationId: 'legacySearch', body: Type.Object({ q: Type.String() }), response: { 200: Type.Object({ hits: Type.Array(Type.String()) }) } }
    }, async () => { runs++; return { hits: [] } })
    api.post('/search', {
      schema: { operationId: 'search', body: Type.Object({ query: Type.String() }), response: { 200: Type.Object({ results: Type.Array(Type.String()) }) } }
    }, async () => { runs++; return { results: [] } })
  }, { versioner: { upgradePreview: { access: () => true } } })
  await app.ready()
  const seen = events(t)
  const search = (version: string, preview: string, payload: Record<string, unknown>): Promise<LightMyRequestResponse> =>
    app.inject({ method: 'POST', url: '/search', headers: { 'x-api-version': version, 'x-api-version-preview': preview }, payload })
  const reason = 'POST /search is another route in 2001-01-01 (operationId search): its answer is not rendered'
  const valid = await search('2000-01-01', '2001-01-01', { q: 'x', query: 'x' })
  t.same([valid.statusCode, valid.json()], [200, { hits: [] }])
  t.equal(valid.headers['x-api-version-preview'], `2001-01-01: not compared (${reason}); request valid`)
  t.match(seen.at(-1), { requestValid: true, requestErrors: [], reason })
  const invalid = await search('2000-01-01', '2001-01-01', { q: 'x' })
  t.equal(invalid.headers['x-api-version-preview'], `2001-01-01: not compared (${reason}); request invalid`)
  t.match(seen.at(-1), { requestValid: false, requestErrors: [{ part: 'body', message: "must have required property 'query'" }] })
  const back = await search('2001-01-01', '2000-01-01', { query: 'x' })
  t.equal(back.headers['x-api-version-preview'],
    '2000-01-01: not compared (POST /search is another route in 2000-01-01 (operationId legacySearch): its answer is not rendered); request invalid')
  t.equal(runs, 3, 'one handler run per request')
})

test('regression: a target\'s converter reading isApplied reads the target version, not the version served', async (t) => {
  const { Price, versions: bundle } = taxedPrices()
  const app = await versionedApp(t, bundle, async (api) => {
    api.get('/price', { schema: { response: { 200: Price } } }, async () => ({ amount: 12, display: '12' }))
  }, { versioner: { upgradePreview: { access: () => true } } })
  const served = (version: string) => app.inject({ url: '/price', headers: { 'x-api-version': version } }).then((response) => response.json<unknown>())
  t.same([await served('2001-01-01'), await served('2000-01-01')], [{ amount: 12 }, { amount: 10 }])
  const seen = events(t)
  await app.inject({ url: '/price', headers: { 'x-api-version': '2001-01-01', 'x-api-version-preview': '2000-01-01' } })
  t.same(seen.at(-1)?.targetBody, { amount: 10 }, 'what 2000-01-01 sends')
  await app.inject({ url: '/price', headers: { 'x-api-version': '2000-01-01', 'x-api-version-preview': '2001-01-01' } })
  t.same(seen.at(-1)?.targetBody, { amount: 12 }, 'what 2001-01-01 sends')
})

test('regression: a Date of a format date field was a change the target does not make, and a BigInt body was changed in place by the target\'s converters', async (t) => {
  const Invoice = Type.Object({ id: Type.Integer(), dueOn: Type.String({ format: 'date' }), name: Type.String() })
  const NameWasTitle = nameWasTitleInResponses(Invoice)
  const bundle = new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameWasTitle), new Version('2000-01-01'))
  const cached = { id: 7n, dueOn: new Date('2024-03-05T10:20:30.000Z'), name: 'Ada' }
  const app = await versionedApp(t, bundle, async (api) => {
    api.get('/invoice', { schema: { response: { 200: Invoice } } }, async () => cached as never)
  }, { versioner: { upgradePreview: { access: () => true } } })
  const seen = events(t)
  const served = await app.inject({ url: '/invoice', headers: { 'x-api-version': '2001-01-01', 'x-api-version-preview': '2000-01-01' } })
  const target = await app.inject({ url: '/invoice', headers: { 'x-api-version': '2000-01-01' } })
  t.same(seen.at(-1)?.patch, compare(served.json(), target.json()), 'the patch is the difference of the two answers')
  t.same(cached, { id: 7n, dueOn: new Date('2024-03-05T10:20:30.000Z'), name: 'Ada' }, 'the handler\'s object is unchanged')
  t.equal((await app.inject({ url: '/invoice', headers: { 'x-api-version': '2001-01-01' } })).statusCode, 200)
})

test('with a serializer the application chose, a Date of a format date field is no change either', async (t) => {
  const Invoice = Type.Object({ dueOn: Type.String({ format: 'date' }), name: Type.String() })
  const NameWasTitle = nameWasTitleInResponses(Invoice)
  const bundle = new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameWasTitle), new Version('2000-01-01'))
  const app = await versionedApp(t, bundle, async (api) => {
    api.setReplySerializer((payload) => JSON.stringify(payload))
    api.get('/invoice', { schema: { response: { 200: Invoice } } }, async () => ({ dueOn: new Date('2024-03-05T10:20:30.000Z'), name: 'Ada' }) as never)
  }, { versioner: { upgradePreview: { access: () => true } } })
  const seen = events(t)
  const served = await app.inject({ url: '/invoice', headers: { 'x-api-version': '2001-01-01', 'x-api-version-preview': '2000-01-01' } })
  const target = await app.inject({ url: '/invoice', headers: { 'x-api-version': '2000-01-01' } })
  t.equal(served.json().dueOn, '2024-03-05T10:20:30.000Z')
  t.same(seen.at(-1)?.patch, compare(served.json(), target.json()), 'the patch is the difference of the two answers')
})

test('regression: a body with a cycle through a field the schema does not declare was changed in place by the target\'s converters', async (t) => {
  const Author = Type.Object({ id: Type.String(), name: Type.String() })
  const NameWasTitle = nameWasTitleInResponses(Author)
  const bundle = new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameWasTitle), new Version('2000-01-01'))
  const author: Record<string, unknown> = { id: 'a1', name: 'Ada' }
  author.self = author
  const app = await versionedApp(t, bundle, async (api) => {
    api.get('/author', { schema: { response: { 200: Author } } }, async () => author as never)
  }, { versioner: { upgradePreview: { access: () => true } } })
  const previewed = await app.inject({ url: '/author', headers: { 'x-api-version': '2001-01-01', 'x-api-version-preview': '2000-01-01' } })
  t.same(previewed.json(), { id: 'a1', name: 'Ada' })
  t.equal(author.name, 'Ada', 'the handler\'s object is unchanged')
  t.same((await app.inject({ url: '/author', headers: { 'x-api-version': '2001-01-01' } })).json(), { id: 'a1', name: 'Ada' })
})

test('regression: a field of HEAD the target lacks, in an object that accepts other fields, was in the target\'s rendered body', async (t) => {
  const Account = Type.Object({ id: Type.String(), nickname: Type.Optional(Type.String()) }, { additionalProperties: true })
  const bundle = new VersionBundle(new HeadVersion(), new Version('2001-01-01', changeClass('Nicknames', [schema(Account).field('nickname').didntExist])), new Version('2000-01-01'))
  const app = await versionedApp(t, bundle, async (api) => {
    api.get('/account', { schema: { response: { 200: Account } } }, async () => ({ id: 'a1', nickname: 'Al', plan: 'pro' }))
  }, { versioner: { upgradePreview: { access: () => true } } })
  const seen = events(t)
  const older = await app.inject({ url: '/account', headers: { 'x-api-version': '2000-01-01' } })
  t.same(older.json(), { id: 'a1', plan: 'pro' }, '2000-01-01 itself answers without the nickname')
  await app.inject({ url: '/account', headers: { 'x-api-version': '2001-01-01', 'x-api-version-preview': '2000-01-01' } })
  t.match(seen.at(-1), { patch: [{ op: 'remove', path: '/nickname' }], targetBody: { id: 'a1', plan: 'pro' } }, 'the preview renders what 2000-01-01 answers')
  t.notOk(Object.hasOwn(seen.at(-1)?.targetBody as object, 'nickname'))
})
