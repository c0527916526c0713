/**
 * Field deprecations (docs/field-deprecations.md, decision 0061): a request field, query parameter, header or enum
 * member whose schema in the version says `deprecated` gets `Deprecation`, `Sunset` and `Link rel="deprecation"`
 * only on requests that carry it, its JSON pointer in the served event, and `deprecated: true` in the document.
 */
import { test } from 'tap'
import diagnosticsChannel from 'node:diagnostics_channel'
import fc from 'fast-check'
import type { FastifyInstance, LightMyRequestResponse, RouteOptions } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange, VersionerStructureError, type FastifyVersionerOptions,
  type RequestInfo, type ServedEvent
} from '../../plugin'
import { compareDocuments, typesModule } from '../../tools'
import { kVersionedRoute } from '../../lib/core/symbols'
import type { RegisteredRoute } from '../../lib/routes/versioner-state'
import { versionedApp, type Teardown } from '../helpers/apps'
import { assertDocumentsValid } from '../helpers/openapi-documents'

const Address = Type.Object({
  street: Type.String(),
  zip: Type.Optional(Type.String({ deprecated: { sunsetAt: '2030-01-01', link: 'https://example.com/zip' } }))
}, { $id: 'Address' })
const Status = Type.Union([Type.Literal('active'), Type.Literal('legacy', { deprecated: true })])
const Order = Type.Object({
  name: Type.String(),
  note: Type.Optional(Type.String()),
  quantity: Type.Optional(Type.Integer()),
  address: Type.Optional(Address),
  items: Type.Optional(Type.Array(Type.Object({ sku: Type.String(), color: Type.Optional(Type.String({ deprecated: true })) }))),
  status: Type.Optional(Status),
  nickname: Type.Optional(Type.String())
}, { $id: 'Order' })
const Query = Type.Object({ page: Type.Optional(Type.Integer()), size: Type.Optional(Type.Integer({ deprecated: true })) })
const Headers = Type.Object({ 'x-trace': Type.Optional(Type.String()), 'X-Legacy-Token': Type.Optional(Type.String({ deprecated: true })) })
const Plain = Type.Object({ name: Type.String(), note: Type.Optional(Type.String()) })

class NicknameNoLongerDeprecated extends VersionChange {
  description = 'nickname is no longer deprecated'
  instructionsToMigrateToPreviousVersion = [schema(Order).field('nickname').had({ deprecated: { deprecatedAt: '2000-06-01' } })]
}

const NEW = '2001-01-01'
const OLD = '2000-01-01'
const SECONDS = (date: string): string => `@${Date.parse(date) / 1000}`

interface Setup {
  readonly app: FastifyInstance
  readonly events: ServedEvent[]
  readonly routes: RegisteredRoute[]
}

async function setup (t: Teardown, versions?: VersionBundle, options: Partial<FastifyVersionerOptions> = {}): Promise<Setup> {
  const events: ServedEvent[] = []
  const listener = (message: unknown): void => { events.push(message as ServedEvent) }
  diagnosticsChannel.subscribe('fastify-versioner:served', listener)
  t.teardown(() => { diagnosticsChannel.unsubscribe('fastify-versioner:served', listener) })
  const captured: RouteOptions[] = []
  const app = await versionedApp(t, versions ?? new VersionBundle(new Version(NEW, NicknameNoLongerDeprecated), new Version(OLD)), async (api) => {
    api.post('/orders', { schema: { body: Order, querystring: Query, headers: Headers } }, async () => ({ ok: true }))
    api.post('/plain', { schema: { body: Plain } }, async () => ({ ok: true }))
    api.get('/linked', { schema: { querystring: Query } }, async (_request, reply) => {
      // The handler sets its own Link: the deprecation's stays.
      reply.header('link', '<https://example.com/next>; rel="next"')
      return { ok: true }
    })
  }, { versioner: options, beforeRoutes: (instance) => { instance.addHook('onRoute', (route) => { captured.push(route) }) } })
  await app.ready()
  const routes = captured.map((route) => (route.config as Record<symbol, RegisteredRoute | undefined>)[kVersionedRoute])
    .filter((route): route is RegisteredRoute => route !== undefined)
  return { app, events, routes }
}

/** A request of the route `/orders` and the deprecated parts it carries (their pointers). */
interface OrderRequest {
  readonly version: string
  readonly body: Record<string, unknown>
  readonly query: Record<string, string>
  readonly headers: Record<string, string>
  readonly expected: string[]
}

const text = fc.string({ minLength: 1, maxLength: 8 }).map((value) => value.replace(/[^\x21-\x7e]/g, 'a'))

/** Requests carrying no deprecated part of their version: every field, parameter and header but the deprecated ones. */
const cleanRequest: fc.Arbitrary<OrderRequest> = fc.record({
  version: fc.constantFrom(NEW, OLD),
  name: text,
  note: fc.option(text, { nil: undefined }),
  quantity: fc.option(fc.integer(), { nil: undefined }),
  address: fc.option(fc.record({ street: text }), { nil: undefined }),
  items: fc.option(fc.array(fc.record({ sku: text }), { maxLength: 4 }), { nil: undefined }),
  status: fc.option(fc.constant('active'), { nil: undefined }),
  nickname: fc.option(text, { nil: undefined }),
  page: fc.option(fc.nat(), { nil: undefined }),
  trace: fc.option(text, { nil: undefined })
}).map(({ version, page, trace, ...fields }) => {
  const body: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) body[key] = value
  // nickname is deprecated in the older version only.
  if (version === OLD) delete body.nickname
  return {
    version,
    body,
    query: page === undefined ? {} : { page: String(page) } as Record<string, string>,
    headers: trace === undefined ? {} : { 'x-trace': trace } as Record<string, string>,
    expected: [] as string[]
  }
})

/** Each deprecated part a request can carry: its pointer, and how to add it. */
const DEPRECATED_PARTS: ReadonlyArray<readonly [string, (request: OrderRequest) => OrderRequest | undefined]> = [
  ['/body/address/zip', (request) => ({ ...request, body: { ...request.body, address: { street: 's', zip: '12345' } } })],
  ['/body/items/*/color', (request) => ({ ...request, body: { ...request.body, items: [{ sku: 'a' }, { sku: 'b', color: 'red' }] } })],
  ['/body/status', (request) => ({ ...request, body: { ...request.body, status: 'legacy' } })],
  ['/body/nickname', (request) => request.version === OLD ? { ...request, body: { ...request.body, nickname: 'nick' } } : undefined],
  ['/query/size', (request) => ({ ...request, query: { ...request.query, size: '10' } })],
  ['/headers/x-legacy-token', (request) => ({ ...request, headers: { ...request.headers, 'x-legacy-token': 'secret' } })]
]

/** Requests carrying one deprecated part or more (each added to a clean request). */
const deprecatedRequest: fc.Arbitrary<OrderRequest> = fc.tuple(cleanRequest, fc.subarray([...DEPRECATED_PARTS.keys()], { minLength: 1 }))
  .map(([clean, chosen]) => {
    let request = clean
    const expected: string[] = []
    for (const index of chosen) {
      const [pointer, add] = DEPRECATED_PARTS[index]
      const added = add(request)
      if (added === undefined) continue
      request = added
      expected.push(pointer)
    }
    return { ...request, expected }
  })
  .filter((request) => request.expected.length > 0)

async function send (app: FastifyInstance, request: OrderRequest): Promise<LightMyRequestResponse> {
  const query = new URLSearchParams(request.query).toString()
  return await app.inject({
    method: 'POST',
    url: `/orders${query === '' ? '' : `?${query}`}`,
    payload: request.body,
    headers: { 'x-api-version': request.version, ...request.headers }
  })
}

test('deprecation headers on none of 1,000 requests without deprecated parts, on all of 1,000 with one, with their pointers', async (t) => {
  const { app, events } = await setup(t)
  const failures: string[] = []
  for (const request of fc.sample(cleanRequest, { seed: 61, numRuns: 1000 })) {
    events.length = 0
    const response = await send(app, request)
    const deprecation = response.headers.deprecation
    if (response.statusCode !== 200 || deprecation !== undefined || response.headers.link !== undefined || events[0]?.deprecatedFields.length !== 0) {
      failures.push(`${JSON.stringify(request)}: ${response.statusCode}, Deprecation ${String(deprecation)}, ${String(events[0]?.deprecatedFields)}`)
    }
  }
  t.same(failures.slice(0, 5), [], '0 of 1,000 requests without deprecated parts get deprecation headers')
  let withHeaders = 0
  for (const request of fc.sample(deprecatedRequest, { seed: 61, numRuns: 1000 })) {
    events.length = 0
    const response = await send(app, request)
    const fields = events[0]?.deprecatedFields ?? []
    const ok = response.statusCode === 200 && response.headers.deprecation !== undefined &&
      /rel="deprecation"/.test(String(response.headers.link)) && JSON.stringify([...fields].sort()) === JSON.stringify([...request.expected].sort())
    if (ok) withHeaders++
    else failures.push(`${JSON.stringify(request)}: ${response.statusCode}, ${JSON.stringify(response.headers)}, ${JSON.stringify(fields)}`)
  }
  t.same(failures.slice(0, 5), [], 'every request with a deprecated part gets the headers and its pointers')
  t.equal(withHeaders, 1000, 'all of 1,000')
})

test('one request: the headers, the pointers in order, each place once', async (t) => {
  const { app, events } = await setup(t)
  const response = await app.inject({
    method: 'POST',
    url: '/orders?size=3&page=1',
    payload: { name: 'n', address: { street: 's', zip: '1' }, items: [{ sku: 'a', color: 'red' }, { sku: 'b', color: 'blue' }], status: 'legacy', nickname: 'n' },
    headers: { 'x-api-version': NEW, 'x-legacy-token': 't' }
  })
  t.equal(response.statusCode, 200)
  t.equal(response.headers.deprecation, '@0', 'fields without a date: deprecated already (RFC 9745 needs a date)')
  t.equal(response.headers.sunset, new Date('2030-01-01').toUTCString(), 'the sunset of the zip field')
  t.equal(response.headers.link, '<https://example.com/zip>; rel="deprecation", </openapi.json?version=2001-01-01>; rel="deprecation"',
    'the zip field\'s page, then the version\'s document for fields without one (each once)')
  t.strictSame(events.map((event) => event.deprecatedFields), [[
    '/body/address/zip', '/body/items/*/color', '/body/status', '/query/size', '/headers/x-legacy-token'
  ]], 'body, query, headers; schema order; array items as *; nickname is not deprecated in the newest version')
  t.equal(events[0].deprecated, false, 'the version itself is not deprecated')
})

test('a field deprecated only in an older version (had) gets headers only in that version', async (t) => {
  const { app, events } = await setup(t)
  const newer = await app.inject({ method: 'POST', url: '/orders', payload: { name: 'n', nickname: 'x' }, headers: { 'x-api-version': NEW } })
  t.equal(newer.statusCode, 200)
  t.equal(newer.headers.deprecation, undefined, 'not deprecated in the newest version')
  t.equal(newer.headers.link, undefined)
  const older = await app.inject({ method: 'POST', url: '/orders', payload: { name: 'n', nickname: 'x' }, headers: { 'x-api-version': OLD } })
  t.equal(older.statusCode, 200)
  t.equal(older.headers.deprecation, SECONDS('2000-06-01'), 'the date given to had({ deprecated: { deprecatedAt } })')
  t.equal(older.headers.sunset, undefined)
  t.equal(older.headers.link, '</openapi.json?version=2000-01-01>; rel="deprecation"', 'the version\'s document')
  t.strictSame(events.map((event) => event.deprecatedFields), [[], ['/body/nickname']])
  const failing = await app.inject({ method: 'POST', url: '/orders', payload: { name: { first: 'n' }, nickname: 'x' }, headers: { 'x-api-version': OLD } })
  t.equal(failing.statusCode, 400, 'a request failing validation…')
  t.equal(failing.headers.deprecation, SECONDS('2000-06-01'), '…still learns that it uses a deprecated field')
})

test('the documents: deprecated: true on fields, enum members and parameters, with the dates and page as extensions', async (t) => {
  const { app } = await setup(t)
  const newer = (await app.inject(`/openapi.json?version=${NEW}`)).json()
  const older = (await app.inject(`/openapi.json?version=${OLD}`)).json()
  const schemas = newer.components.schemas
  t.strictSame(schemas.Address.properties.zip, { deprecated: true, type: 'string', 'x-sunset-at': '2030-01-01', 'x-deprecation-link': 'https://example.com/zip' })
  t.equal(schemas.Order.properties.items.items.properties.color.deprecated, true)
  t.strictSame(schemas.Order.properties.status.anyOf.map((member: { deprecated?: boolean }) => member.deprecated === true), [false, true], 'the enum member')
  t.equal(schemas.Order.properties.nickname.deprecated, undefined, 'nickname: not in the newest version')
  t.strictSame(older.components.schemas.Order.properties.nickname, { type: 'string', deprecated: true, 'x-deprecated-at': '2000-06-01' }, 'but in the older')
  const parameters = newer.paths['/orders'].post.parameters as Array<{ name: string, deprecated?: boolean }>
  t.strictSame(Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter.deprecated === true])),
    { page: false, size: true, 'X-Legacy-Token': true, 'x-trace': false, 'x-api-version': false }, 'on the Parameter object, as OpenAPI shows it')
  t.notOk(JSON.stringify(newer).includes('"sunsetAt"'), 'no object-valued deprecated keyword is left in the document')
  await assertDocumentsValid(t, app)
})

test('routes whose schemas hold no deprecated part have nothing to check in any version', async (t) => {
  const { app, routes } = await setup(t)
  const byUrl = new Map(routes.map((route) => [route.url, route]))
  for (const version of [NEW, OLD]) {
    t.equal(byUrl.get('/plain')?.behaviours.get(version)?.deprecations, undefined, `/plain in ${version}: nothing`)
    t.ok(byUrl.get('/orders')?.behaviours.get(version)?.deprecations, `/orders in ${version}: its finders`)
  }
  const response = await app.inject({ method: 'POST', url: '/plain', payload: { name: 'n', note: 'x' }, headers: { 'x-api-version': OLD } })
  t.equal(response.statusCode, 200)
  t.equal(response.headers.deprecation, undefined)
})

test('with the version deprecated too: the earliest date and sunset, every page', async (t) => {
  const versions = new VersionBundle(
    new Version(NEW, NicknameNoLongerDeprecated),
    new Version(OLD, { deprecatedAt: '2025-01-01', sunsetAt: '2031-01-01', link: 'https://example.com/upgrade' })
  )
  const { app, events } = await setup(t, versions)
  const plain = await app.inject({ method: 'POST', url: '/orders', payload: { name: 'n' }, headers: { 'x-api-version': OLD } })
  t.equal(plain.headers.deprecation, SECONDS('2025-01-01'), 'without deprecated fields: the version\'s own headers')
  t.equal(plain.headers.sunset, new Date('2031-01-01').toUTCString())
  const nickname = await app.inject({ method: 'POST', url: '/orders', payload: { name: 'n', nickname: 'x' }, headers: { 'x-api-version': OLD } })
  t.equal(nickname.headers.deprecation, SECONDS('2000-06-01'), 'the earliest deprecation: the nickname field\'s (before the version\'s)')
  t.equal(nickname.headers.sunset, new Date('2031-01-01').toUTCString(), 'the field has no sunset: the version\'s')
  const used = await app.inject({
    method: 'POST', url: '/orders', payload: { name: 'n', nickname: 'x', address: { street: 's', zip: '1' } }, headers: { 'x-api-version': OLD }
  })
  t.equal(used.headers.deprecation, '@0', 'the zip field has no date: deprecated already')
  t.equal(used.headers.sunset, new Date('2030-01-01').toUTCString(), 'the earliest sunset: the zip field\'s')
  t.equal(used.headers.link, '<https://example.com/upgrade>; rel="deprecation", </openapi.json?version=2001-01-01>; rel="successor-version", ' +
    '<https://example.com/zip>; rel="deprecation", </openapi.json?version=2000-01-01>; rel="deprecation"', 'the version\'s links, then the fields\'')
  t.strictSame(events.map((event) => [event.deprecated, event.deprecatedFields]), [[true, []], [true, ['/body/nickname']], [true, ['/body/address/zip', '/body/nickname']]])
})

test('a handler setting its own Link keeps the deprecation\'s, also where every version is idle; no document, no link', async (t) => {
  const { app } = await setup(t, new VersionBundle(new Version(NEW)))
  const response = await app.inject({ url: '/linked?size=2', headers: { 'x-api-version': NEW } })
  t.equal(response.statusCode, 200)
  t.equal(response.headers.deprecation, '@0')
  t.equal(response.headers.link, '<https://example.com/next>; rel="next", </openapi.json?version=2001-01-01>; rel="deprecation"')
  const { app: withoutDocuments } = await setup(t, new VersionBundle(new Version(NEW)), { openapiUrl: null } as Partial<FastifyVersionerOptions>)
  const bare = await withoutDocuments.inject({ method: 'POST', url: '/orders?size=2', payload: { name: 'n' }, headers: { 'x-api-version': NEW } })
  t.equal(bare.headers.deprecation, '@0')
  t.equal(bare.headers.link, undefined, 'documents off and no link given: nothing to point at')
})

test('a bad deprecated keyword is a start-up error naming it', async (t) => {
  const had = (value: unknown) => () => schema(Order).field('note').had({ deprecated: value as boolean })
  t.throws(had('yes'), VersionerStructureError)
  t.throws(had({ when: '2027-01-01' }), /'deprecated' takes true, false or \{ deprecatedAt, sunsetAt, link \}/)
  t.throws(had({ sunsetAt: 'soon' }), /deprecated\.sunsetAt must be a Date or a date string such as '2027-01-01'; got 'soon'/)
  t.throws(had({ link: 'not a url' }), /deprecated\.link must be an absolute URL/)
  t.throws(had({ deprecatedAt: '2027-01-01', sunsetAt: '2026-01-01' }), /must not be earlier/)
  t.ok(had({ deprecatedAt: '2026-01-01', sunsetAt: new Date('2027-01-01'), link: '/guides/note' })(), 'a good one (dates as strings or Dates)')

  const Bad = Type.Object({ old: Type.Optional(Type.String({ deprecated: { sunsetAt: 'someday' } })) })
  const app = await versionedApp(t, new VersionBundle(new Version(NEW)), async (api) => {
    api.post('/bad', { schema: { body: Bad } }, async () => ({ ok: true }))
  })
  await t.rejects(async () => { await app.ready() }, /POST \/bad: the body schema in version 2001-01-01: deprecated\.sunsetAt must be a Date or a date string such as '2027-01-01'/)
})

test('check: deprecating a field, parameter or enum member does not break a saved document', async (t) => {
  const documentWith = async (deprecated: boolean): Promise<unknown> => {
    const mark = deprecated ? { deprecated: { sunsetAt: '2030-01-01', link: 'https://example.com/zip' } } : {}
    const Body = Type.Object({ name: Type.String(), zip: Type.Optional(Type.String(mark)) })
    const Size = Type.Object({ size: Type.Optional(Type.Integer(deprecated ? { deprecated: true } : {})) })
    const app = await versionedApp(t, new VersionBundle(new Version(NEW)), async (api) => {
      api.post('/orders', { schema: { body: Body, querystring: Size } }, async () => ({ ok: true }))
    })
    return (await app.inject(`/openapi.json?version=${NEW}`)).json()
  }
  const changes = await compareDocuments(NEW, await documentWith(false), await documentWith(true))
  t.ok(changes.length >= 3, 'the changes are reported…')
  t.strictSame(changes.filter((change) => change.breaking).map((change) => change.text), [], '…as not breaking')
})

test('a deprecated field inside a Type.Recursive or behind $ref, at depth 3 and 1,000: the headers and every pointer', async (t) => {
  // Regression: the $ref of a Type.Recursive names its own $id, which the finder did not follow: no header at any depth.
  const Tree = Type.Recursive((This) => Type.Object({
    name: Type.String(), old: Type.Optional(Type.String({ deprecated: true })), children: Type.Optional(Type.Array(This))
  }), { $id: 'Tree' })
  const Chain = Type.Object({ legacy: Type.Optional(Type.String({ deprecated: true })), next: Type.Optional(Type.Unsafe({ $ref: 'Chain' })) }, { $id: 'Chain' })
  const Body = Type.Object({ title: Type.String(), tree: Type.Optional(Tree), chain: Type.Optional(Type.Ref('Chain')) }, { $id: 'Body' })
  class TitleWasLabel extends VersionChange {
    description = 'title was called label'
    instructionsToMigrateToPreviousVersion = [schema(Body).field('title').had({ name: 'label' })]
    @ConvertRequestToNextVersionFor(Body)
    titleFromLabel (request: RequestInfo<{ label: string }, { title: string }>) {
      const { label, ...rest } = request.body
      request.body = { ...rest, title: label }
    }
  }
  const events: ServedEvent[] = []
  const listener = (message: unknown): void => { events.push(message as ServedEvent) }
  diagnosticsChannel.subscribe('fastify-versioner:served', listener)
  t.teardown(() => { diagnosticsChannel.unsubscribe('fastify-versioner:served', listener) })
  const app = await versionedApp(t, new VersionBundle(new Version(NEW, TitleWasLabel), new Version(OLD)), async (api) => {
    api.post('/trees', { schema: { body: Body } }, async (request) => ({ size: JSON.stringify(request.body).length }))
  }, { beforeRoutes: (instance) => { instance.addSchema(Chain) } })
  await app.ready()
  const tree = (depth: number): Record<string, unknown> => {
    let value: Record<string, unknown> = { name: 'leaf', old: 'x' }
    for (let level = 1; level < depth; level++) value = { name: 'n', old: 'x', children: [{ name: 'sibling' }, value] }
    return value
  }
  const chain = (depth: number): Record<string, unknown> => {
    let value: Record<string, unknown> = { legacy: 'x' }
    for (let level = 1; level < depth; level++) value = { next: value }
    return value
  }
  for (const depth of [3, 1000]) {
    for (const [version, title] of [[NEW, { title: 't' }], [OLD, { label: 't' }]] as const) {
      events.length = 0
      const response = await app.inject({
        method: 'POST', url: '/trees', headers: { 'x-api-version': version }, payload: { ...title, tree: tree(depth), chain: chain(depth) }
      })
      t.equal(response.statusCode, 200, `depth ${depth}, ${version}: served (the older version through its converters)`)
      t.equal(response.headers.deprecation, '@0', `depth ${depth}, ${version}: Deprecation`)
      const fields = events[0]?.deprecatedFields ?? []
      const expected = [
        ...Array.from({ length: depth }, (_, level) => `/body/tree${'/children/*'.repeat(level)}/old`),
        `/body/chain${'/next'.repeat(depth - 1)}/legacy`
      ]
      // The first 100 places of the body: a client's body nested deeper costs no more (lib/values/occurrences.ts).
      t.strictSame(fields, expected.slice(0, 100), `depth ${depth}, ${version}: every pointer, the first 100 at most (${fields.length}), outer before inner`)
    }
  }
})

test('regression: deprecated enum members in a query string are found as Fastify reads it (a lone value of a list, a number), and a default is not', async (t) => {
  const Level = Type.Union([Type.Literal(1), Type.Literal(2, { deprecated: true })])
  const ListQuery = Type.Object({
    status: Type.Optional(Type.Array(Status)),
    level: Type.Optional(Level),
    legacy: Type.Optional(Type.String({ deprecated: true, default: 'x' }))
  })
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version(OLD)), async (api) => {
    api.get('/orders', { schema: { querystring: ListQuery } }, async (request) => ({ query: request.query }))
  })
  for (const url of ['/orders?status=legacy&status=active', '/orders?status=legacy', '/orders?level=2']) {
    const response = await app.inject({ url, headers: { 'x-api-version': OLD } })
    t.equal(response.statusCode, 200, url)
    t.equal(response.headers.deprecation, '@0', `${url}: the deprecated member is used`)
  }
  const plain = await app.inject({ url: '/orders?status=active&level=1', headers: { 'x-api-version': OLD } })
  t.equal(plain.headers.deprecation, undefined, 'members not deprecated, and a deprecated field filled by its default: no header')
  t.same(plain.json(), { query: { status: ['active'], level: 1, legacy: 'x' } }, 'the handler reads the query as before')
})

test('regression: an $async query schema with a deprecated field refuses a bad query with a 400, leaving no rejection unhandled', async (t) => {
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown): void => { unhandled.push(reason) }
  process.on('unhandledRejection', onUnhandled)
  t.teardown(() => { process.off('unhandledRejection', onUnhandled) })
  const Query = Type.Object({ limit: Type.Optional(Type.Integer()), legacy: Type.Optional(Type.String({ deprecated: true })) }, { $async: true })
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version(OLD)), async (api) => {
    api.get('/orders', { schema: { querystring: Query } }, async (request) => ({ query: request.query }))
  })
  const deprecated = await app.inject({ url: '/orders?legacy=a', headers: { 'x-api-version': OLD } })
  t.equal(deprecated.statusCode, 200)
  t.equal(deprecated.headers.deprecation, '@0')
  const bad = await app.inject({ url: '/orders?limit=many', headers: { 'x-api-version': OLD } })
  t.equal(bad.statusCode, 400)
  await new Promise((resolve) => setTimeout(resolve, 10))
  t.same(unhandled, [], 'the async validator\'s refusal was handled')
})

test('regression: a handler\'s Link naming one of the deprecation pages is not listed twice', async (t) => {
  const Body = Type.Object({
    name: Type.String(),
    zip: Type.Optional(Type.String({ deprecated: { link: 'https://example.com/zip' } })),
    fax: Type.Optional(Type.String({ deprecated: { link: 'https://example.com/fax' } }))
  })
  const app = await versionedApp(t, new VersionBundle(new Version(OLD)), async (api) => {
    api.post('/orders', { schema: { body: Body } }, async (_request, reply) => {
      reply.header('link', '<https://example.com/zip>; rel="deprecation"')
      return { ok: true }
    })
  })
  const response = await app.inject({ method: 'POST', url: '/orders', payload: { name: 'n', zip: '1', fax: '2' }, headers: { 'x-api-version': OLD } })
  t.equal(response.statusCode, 200)
  t.equal(response.headers.link, '<https://example.com/zip>; rel="deprecation", <https://example.com/fax>; rel="deprecation"',
    'the handler\'s link once, then the other page')
})

test('regression: a preview version\'s deprecated field links to the preview\'s document, which only ?channel=preview serves', async (t) => {
  const Body = Type.Object({ name: Type.Optional(Type.String()), old: Type.Optional(Type.String({ deprecated: true })) })
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2002-01-01.preview', { channel: 'preview' }), new Version(NEW)), async (api) => {
    api.post('/orders', { schema: { body: Body } }, async () => ({ ok: true }))
  })
  const response = await app.inject({ method: 'POST', url: '/orders', payload: { old: 'x' }, headers: { 'x-api-version': '2002-01-01.preview' } })
  t.equal(response.headers.link, '</openapi.json?version=2002-01-01.preview&channel=preview>; rel="deprecation"')
  const page = await app.inject({ url: '/openapi.json?version=2002-01-01.preview&channel=preview' })
  t.equal(page.statusCode, 200, 'the link is served')
  const released = await app.inject({ method: 'POST', url: '/orders', payload: { old: 'x' }, headers: { 'x-api-version': NEW } })
  t.equal(released.headers.link, '</openapi.json?version=2001-01-01>; rel="deprecation"', 'a release\'s link names no channel')
})

test('regression: a field deprecated after its version\'s sunset gets no Sunset earlier than its Deprecation (RFC 9745 section 4)', async (t) => {
  const Body = Type.Object({ name: Type.Optional(Type.String()), old: Type.Optional(Type.String({ deprecated: { deprecatedAt: '2030-01-01' } })) })
  const app = await versionedApp(t, new VersionBundle(new Version(NEW), new Version(OLD, { sunsetAt: '2029-01-01' })), async (api) => {
    api.post('/orders', { schema: { body: Body } }, async () => ({ ok: true }))
  })
  const response = await app.inject({ method: 'POST', url: '/orders', payload: { old: 'x' }, headers: { 'x-api-version': OLD } })
  t.equal(response.headers.sunset, new Date('2029-01-01').toUTCString(), 'the version\'s sunset')
  t.equal(response.headers.deprecation, SECONDS('2029-01-01'), 'deprecated at the latest when it sunsets')
  const newer = await app.inject({ method: 'POST', url: '/orders', payload: { old: 'x' }, headers: { 'x-api-version': NEW } })
  t.equal(newer.headers.deprecation, SECONDS('2030-01-01'), 'without a sunset: the field\'s own date')
})

test('regression: a field whose schema is a $ref is documented deprecated (the keyword beside the $ref was dropped), in every version and in the types', async (t) => {
  const Card = Type.Object({ number: Type.String(), holder: Type.Optional(Type.String()) }, { $id: 'Card' })
  const Box = Type.Object({ label: Type.String() }, { $id: 'Box' })
  class CardsHadNoHolder extends VersionChange {
    description = 'cards have a holder; box was deprecated'
    instructionsToMigrateToPreviousVersion = [schema(Card).field('holder').didntExist, schema(Payment).field('box').had({ deprecated: { sunsetAt: '2030-01-01' } })]
  }
  const Payment = Type.Object({
    card: Type.Optional(Type.Ref(Card, { deprecated: { link: 'https://example.com/cards' } })),
    box: Type.Optional(Type.Ref(Box))
  })
  const app = await versionedApp(t, new VersionBundle(new Version(NEW, CardsHadNoHolder), new Version(OLD)), async (api) => {
    api.post('/payments', { schema: { body: Payment } }, async () => ({ ok: true }))
  }, { beforeVersioner: (instance) => { instance.addSchema(Card); instance.addSchema(Box) } })
  await app.ready()
  for (const version of [NEW, OLD]) {
    const sent = await app.inject({ method: 'POST', url: '/payments', payload: { card: { number: '4242' }, box: { label: 'b' } }, headers: { 'x-api-version': version } })
    t.equal(sent.headers.deprecation, '@0', `${version}: the request is told`)
    const document = (await app.inject(`/openapi.json?version=${version}`)).json()
    const properties = document.paths['/payments'].post.requestBody.content['application/json'].schema.properties
    t.match(properties.card, { deprecated: true, 'x-deprecation-link': 'https://example.com/cards' }, `${version}: the $ref field is deprecated in the document`)
    if (version === NEW) t.strictSame(properties.card.allOf, [{ $ref: '#/components/schemas/Card' }], 'and still refers to its component')
    t.equal(properties.box.deprecated, version === OLD ? true : undefined, `${version}: box, deprecated by had() in the older version only`)
  }
  await assertDocumentsValid(t, app)
  const types = await typesModule(app)
  t.equal(types.match(/\/\*\* @deprecated \*\/\n\s*card\?/g)?.length, 2, 'the types mark the field @deprecated in both versions')
  // `check`: a $ref deprecated since the saved document (or no longer) is a note, as any field deprecation.
  const plain = await versionedApp(t, new VersionBundle(new Version(NEW)), async (api) => {
    api.post('/payments', { schema: { body: Type.Object({ card: Type.Optional(Type.Ref(Card)), box: Type.Optional(Type.Ref(Box)) }) } }, async () => ({ ok: true }))
  }, { beforeVersioner: (instance) => { instance.addSchema(Card); instance.addSchema(Box) } })
  const saved = (await plain.inject(`/openapi.json?version=${NEW}`)).json()
  const current = (await app.inject(`/openapi.json?version=${NEW}`)).json()
  for (const [from, to] of [[saved, current], [current, saved]]) {
    const changes = await compareDocuments(NEW, from, to)
    t.ok(changes.some((change) => change.text === `${NEW} POST /payments: request body /card: deprecated ${from === saved ? 'added' : 'removed'} (text)`), 'check: the deprecation is noted…')
    t.strictSame(changes.filter((change) => change.breaking).map((change) => change.text), [], '…as not breaking')
  }
})

test('regression: a bad deprecated keyword in a response or webhook payload schema is a start-up error, not a 500 on every document request', async (t) => {
  const Bad = Type.Object({ old: Type.Optional(Type.String({ deprecated: { sunsetAt: 'someday' } })) })
  const route = await versionedApp(t, new VersionBundle(new Version(NEW)), async (api) => {
    api.get('/bad', { schema: { response: { 200: Bad } } }, async () => ({}))
  })
  await t.rejects(async () => { await route.ready() }, /GET \/bad: the response schema of 200: deprecated\.sunsetAt must be a Date or a date string/)
  const Word = Type.Object({ old: Type.Optional(Type.String({ deprecated: 'yes' } as never)) })
  const webhook = await versionedApp(t, new VersionBundle(new Version(NEW)))
  t.throws(() => webhook.versioner.webhooks.add({ name: 'thing.done', body: Word }), /webhook thing\.done: 'deprecated' takes true, false or/, 'a webhook\'s: when it is added')
  const good = await versionedApp(t, new VersionBundle(new Version(NEW)), async (api) => {
    api.get('/good', { schema: { response: { 200: Type.Object({ old: Type.Optional(Type.String({ deprecated: { sunsetAt: '2030-01-01' } })) }) } } }, async () => ({}))
  })
  t.equal((await good.inject(`/openapi.json?version=${NEW}`)).statusCode, 200, 'a good one is documented')
})

test('regression: a field and the union member its value belongs to, both deprecated, tell their dates and pages (one place, two deprecations)', async (t) => {
  const Card = Type.Object({ type: Type.Literal('card'), number: Type.String() }, { deprecated: { sunsetAt: '2029-01-01', link: 'https://example.com/cards' } })
  const Bank = Type.Object({ type: Type.Literal('bank'), iban: Type.String() })
  const Body = Type.Object({
    pay: Type.Optional(Type.Union([Card, Bank], { deprecated: { deprecatedAt: '2026-01-01', link: 'https://example.com/pay' } })),
    note: Type.Optional(Type.Union([Type.Null({ deprecated: { sunsetAt: '2028-01-01' } }), Type.String()], { deprecated: true }))
  })
  const events: ServedEvent[] = []
  const listener = (message: unknown): void => { events.push(message as ServedEvent) }
  diagnosticsChannel.subscribe('fastify-versioner:served', listener)
  t.teardown(() => { diagnosticsChannel.unsubscribe('fastify-versioner:served', listener) })
  const api = await versionedApp(t, new VersionBundle(new Version(NEW)), async (scope) => {
    scope.post('/payments', { schema: { body: Body } }, async () => ({ ok: true }))
  })
  const card = await api.inject({ method: 'POST', url: '/payments', payload: { pay: { type: 'card', number: '4242' } }, headers: { 'x-api-version': NEW } })
  t.equal(card.headers.deprecation, '@0', 'the card member has no date: deprecated already')
  t.equal(card.headers.sunset, new Date('2029-01-01').toUTCString(), 'the card member\'s sunset')
  t.equal(card.headers.link, '<https://example.com/pay>; rel="deprecation", <https://example.com/cards>; rel="deprecation"', 'both pages')
  t.strictSame(events.at(-1)?.deprecatedFields, ['/body/pay'], 'the place is listed once')
  const bank = await api.inject({ method: 'POST', url: '/payments', payload: { pay: { type: 'bank', iban: 'x' } }, headers: { 'x-api-version': NEW } })
  t.equal(bank.headers.deprecation, SECONDS('2026-01-01'), 'a bank: the field only')
  t.equal(bank.headers.sunset, undefined)
  t.equal(bank.headers.link, '<https://example.com/pay>; rel="deprecation"')
  const note = await api.inject({ method: 'POST', url: '/payments', payload: { note: null }, headers: { 'x-api-version': NEW } })
  t.equal(note.headers.sunset, new Date('2028-01-01').toUTCString(), 'null, a deprecated member of a deprecated field: its sunset')
  const text = await api.inject({ method: 'POST', url: '/payments', payload: { note: 'x' }, headers: { 'x-api-version': NEW } })
  t.equal(text.headers.sunset, undefined, 'a string: the field only')
  t.equal(text.headers.deprecation, '@0')
})

test('regression: check: deprecating a union whose members are schemas with an $id (written as $refs) is not a break', async (t) => {
  // `api-smart-diff` moved the `deprecated` beside `anyOf` into each member: `{ allOf: [{ deprecated }, { $ref }] }`
  // against `{ $ref }` read as the type changed and the members' fields removed.
  const documentWith = async (deprecated: boolean): Promise<unknown> => {
    const Card = Type.Object({ type: Type.Literal('card'), number: Type.String() }, { $id: 'Card' })
    const Bank = Type.Object({ type: Type.Literal('bank'), iban: Type.String() }, { $id: 'Bank' })
    const Wallet = Type.Object({ wid: Type.String() }, { $id: 'Wallet' })
    const mark = deprecated ? { deprecated: { sunsetAt: '2030-01-01' }, description: 'how it is paid' } : {}
    const Payment = Type.Object({ pay: Type.Union([Card, Bank], mark), kind: Type.Optional(Type.Union([Wallet, Type.String()], deprecated ? { deprecated: true } : {})) })
    const app = await versionedApp(t, new VersionBundle(new Version(NEW)), async (api) => {
      api.post('/payments', { schema: { body: Payment, response: { 200: Payment } } }, async (request) => request.body)
    })
    return (await app.inject(`/openapi.json?version=${NEW}`)).json()
  }
  const [plain, marked] = [await documentWith(false), await documentWith(true)]
  for (const [before, after, what] of [[plain, marked, 'deprecated'], [marked, plain, 'no longer deprecated']] as const) {
    const changes = await compareDocuments(NEW, before, after)
    t.strictSame(changes.filter((change) => change.breaking).map((change) => change.text), [], `${what}: no break`)
    t.ok(changes.some((change) => change.text.includes('request body /pay: deprecated')), `${what}: the note names the union`)
  }
})
