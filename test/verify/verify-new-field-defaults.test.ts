// `verify` on a request field a version change adds with a `default` (`didntExist` before it) and no request converter
// for older versions (issue 31, decision 0340): an older client cannot send the field, and HEAD's validation (Ajv's
// `useDefaults`, Fastify's default) fills HEAD's default into its request, so its behaviour changes with no word in
// it. Each generated request arriving at HEAD without the field is a finding, in the body, the query string or the
// headers; a converter writing the field silences it; a field the older version had, or an Ajv filling no defaults,
// gives none.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import { ConvertRequestToNextVersionFor, schema, VersionChange, type RequestInfo, type VersionChangeClass } from '../../plugin'
import { verify } from '../../tools'
import { appWith, summary } from '../helpers/verify-apps'
import type { AppOptions, Teardown } from '../helpers/apps'

const Order = Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' })
const Search = Type.Object({ customerId: Type.Optional(Type.String()), order: Type.Optional(Order) }, { $id: 'Search' })
const Page = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })) }, { $id: 'Page' })
const Sorting = Type.Object({ 'X-Sort': Type.Optional(Type.String({ minLength: 1, default: 'newest' })) }, { $id: 'Sorting' })
const Answer = { 200: Type.Object({ ok: Type.Boolean() }) }

/** `QUERY`-like search by body, a paged list by query string, a sorted list by header. */
function routes (api: FastifyInstance): void {
  const ok = async (): Promise<{ ok: boolean }> => ({ ok: true })
  api.post('/search', { schema: { body: Search, response: Answer } }, ok)
  api.get('/addresses', { schema: { querystring: Page, response: Answer } }, ok)
  api.get('/events', { schema: { headers: Sorting, response: Answer } }, ok)
}

/** The three fields added in 2001-01-01, for older versions. */
const instructions = (): VersionChange['instructionsToMigrateToPreviousVersion'] => [
  schema(Search).field('order').didntExist,
  schema(Page).field('limit').didntExist,
  schema(Sorting).field('X-Sort').didntExist
]

/** The three fields added with no request converter. */
class SortedAndPaged extends VersionChange {
  description = 'Searches sort newest first, lists come in pages, events sort by a header.'
  instructionsToMigrateToPreviousVersion = instructions()
}

/** The three fields added, with request converters for older versions running `converters`. */
function added (converters: Record<'body' | 'query' | 'header', (request: RequestInfo) => void>): VersionChangeClass {
  class SortedAndPaged extends VersionChange {
    description = 'Searches sort newest first, lists come in pages, events sort by a header.'
    instructionsToMigrateToPreviousVersion = instructions()

    @ConvertRequestToNextVersionFor(Search)
    body (request: RequestInfo) { converters.body(request) }

    @ConvertRequestToNextVersionFor('/addresses', ['GET'])
    query (request: RequestInfo) { converters.query(request) }

    @ConvertRequestToNextVersionFor('/events', ['GET'])
    header (request: RequestInfo) { converters.header(request) }
  }
  return SortedAndPaged
}

async function findings (t: Teardown, change: VersionChangeClass, options?: AppOptions): Promise<string[]> {
  return summary(await verify(await appWith(t, change, routes, options), { examples: 20 }))
}

const all = [
  'POST /search 2000-01-01 request default filled body/order after SortedAndPaged (2001-01-01) by ',
  'GET /addresses 2000-01-01 request default filled querystring/limit after SortedAndPaged (2001-01-01) by ',
  'GET /events 2000-01-01 request default filled headers/x-sort after SortedAndPaged (2001-01-01) by '
]

test('a field added with a default and no converter is found in the body, the query string and the headers', async (t) => {
  t.same(await findings(t, SortedAndPaged), all)
  const app = await appWith(t, SortedAndPaged, routes)
  const [first] = await verify(app, { examples: 5 })
  t.equal(first.text, 'POST /search (2000-01-01): request body/order: this version has no order, and HEAD\'s validation fills in its default ' +
    'where a request leaves it out: older versions\' clients are served HEAD\'s default \'desc\' for order, which they cannot send; ' +
    'first wrong after SortedAndPaged (2001-01-01), no converter ran. Add a request converter to SortedAndPaged that writes /order into ' +
    'the body for older versions: the value their clients were served with, even where it equals HEAD\'s default \'desc\'.')
  t.equal(first.kind, 'default filled')
  t.equal(first.value, 'desc')
})

test('a request converter writing the field for older versions silences it, even with HEAD\'s default', async (t) => {
  const written = added({
    body: (request) => { request.body.order = 'asc' },
    query: (request) => { request.queryParams.limit = 100 },
    header: (request) => { request.headers['x-sort'] = 'newest' }
  })
  t.same(await findings(t, written), [])
})

test('a converter writing the field only sometimes is found: a request arrived without it', async (t) => {
  const sometimes = added({
    body: (request) => { if (request.body.customerId !== undefined) request.body.order = 'asc' },
    query: (request) => { request.queryParams.limit = 100 },
    header: (request) => { request.headers['x-sort'] = 'newest' }
  })
  const found = await verify(await appWith(t, sometimes, routes), { examples: 20, seed: 3 })
  t.same(summary(found), ['POST /search 2000-01-01 request default filled body/order after SortedAndPaged (2001-01-01) by SortedAndPaged.body'])
  t.not(found[0].example, undefined, 'the finding shows a request that arrived without the field')
  t.notOk(Object.hasOwn(found[0].example as object, 'customerId'), 'one without the field the converter looks for')
})

test('a field the older version had, with the same default, is no finding; nor is a new field without a default', async (t) => {
  const Query = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, default: 10 })), cursor: Type.Optional(Type.String()) }, { $id: 'Query' })
  class Cursors extends VersionChange {
    description = 'Lists take a cursor.'
    instructionsToMigrateToPreviousVersion = [schema(Query).field('cursor').didntExist]
  }
  const app = await appWith(t, Cursors, (api) => {
    api.get('/addresses', { schema: { querystring: Query, response: Answer } }, async () => ({ ok: true }))
  })
  t.same(summary(await verify(app, { examples: 20 })), [])
})

test('a nested object\'s new field with a default is found at its place', async (t) => {
  const Filter = Type.Object({ text: Type.String(), exact: Type.Optional(Type.Boolean({ default: true })) })
  const Find = Type.Object({ filter: Filter }, { $id: 'Find' })
  class ExactByDefault extends VersionChange {
    description = 'A filter matches exactly unless told otherwise.'
    instructionsToMigrateToPreviousVersion = [schema(Filter as TSchema).field('exact').didntExist]
  }
  const app = await appWith(t, ExactByDefault, (api) => {
    api.post('/find', { schema: { body: Find, response: Answer } }, async () => ({ ok: true }))
  })
  t.same(summary(await verify(app, { examples: 20 })), ['POST /find 2000-01-01 request default filled body/filter/exact after ExactByDefault (2001-01-01) by '])
})

test('an application whose Ajv fills no defaults (useDefaults: false) gets no finding: HEAD\'s handler sees the field absent', async (t) => {
  t.same(await findings(t, SortedAndPaged, { fastify: { ajv: { customOptions: { useDefaults: false } } } }), [])
})

test('a partial update\'s body is left to update overwrites: a converter writing the field would overwrite what is stored', async (t) => {
  const Patch = Type.Object({ name: Type.Optional(Type.String()), currency: Type.Optional(Type.String({ default: 'usd' })) }, { $id: 'Patch' })
  class Currencies extends VersionChange {
    description = 'Prices have a currency.'
    instructionsToMigrateToPreviousVersion = [schema(Patch).field('currency').didntExist]
  }
  const app = await appWith(t, Currencies, (api) => {
    api.patch('/prices/:id', { schema: { body: Patch, response: Answer } }, async () => ({ ok: true }))
  })
  t.same(summary(await verify(app, { examples: 20 })), ['PATCH /prices/:id 2000-01-01 request update overwrites body/currency after Currencies (2001-01-01) by '])
})
