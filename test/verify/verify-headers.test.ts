// `verify` follows a request's headers and query parameters as it follows its body (issue 31): each version's headers
// and query string are generated (optional ones present in the boundary examples), converted up by the route's
// request converters, validated against HEAD's schemas, and their values must arrive. A header renamed between
// versions whose converter is missing or renames it the wrong way is found.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, Version, VersionBundle, VersionChange, type RequestInfo, type ResponseInfo } from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { changeClass } from '../helpers/version-changes'
import { verify } from '../../tools'
import { appWith, summary } from '../helpers/verify-apps'

const TenantHeaders = Type.Object({ 'tenant-id': Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }, { $id: 'TenantHeaders' })
const ProjectCreate = Type.Object({ name: Type.String() }, { $id: 'ProjectCreate' })

/** `POST /projects`, scoped to the tenant its header names. */
function projects (api: FastifyInstance): void {
  api.post('/projects', { schema: { headers: TenantHeaders, body: ProjectCreate, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'p1' }))
}

test('a header renamed without its request converter, or renamed the wrong way, is found: its value does not reach HEAD', async (t) => {
  class TenantHeaderLostItsPrefix extends VersionChange {
    description = 'The tenant header is tenant-id (it was x-tenant).'
    instructionsToMigrateToPreviousVersion = [schema(TenantHeaders).field('tenant-id').had({ name: 'x-tenant' })]
    // No request converter: the old header reaches HEAD as it was, and the project is created for no tenant.
  }
  const forgotten = await appWith(t, TenantHeaderLostItsPrefix, projects)
  const findings = await verify(forgotten, { examples: 1 })
  t.same(summary(findings), ['POST /projects 2000-01-01 request lost headers/x-tenant after TenantHeaderLostItsPrefix (2001-01-01) by '])
  t.match(findings[0].text, /request headers\/x-tenant: the value at \/x-tenant in 2000-01-01 does not reach HEAD: 'zq\w+ Łódź 🙂zq\w+' is dropped; /)
  t.match(findings[0].fix, /^Add a request converter to TenantHeaderLostItsPrefix that moves the value to its counterpart/)

  class TenantHeaderRenamedBackwards extends VersionChange {
    description = 'The tenant header is tenant-id (it was x-tenant).'
    instructionsToMigrateToPreviousVersion = [schema(TenantHeaders).field('tenant-id').had({ name: 'x-tenant' })]

    @ConvertRequestToNextVersionFor('/projects', ['POST'])
    renameHeader (request: RequestInfo) {
      const tenant = request.headers['tenant-id'] // the new name: an old client never sends it
      if (tenant !== undefined) {
        request.headers['x-tenant'] = tenant
        delete request.headers['tenant-id']
      }
    }
  }
  const backwards = await appWith(t, TenantHeaderRenamedBackwards, projects)
  t.same(summary(await verify(backwards, { examples: 1 })), [
    'POST /projects 2000-01-01 request lost headers/x-tenant after TenantHeaderRenamedBackwards (2001-01-01) by TenantHeaderRenamedBackwards.renameHeader'
  ])
})

test('a query parameter renamed without its request converter is found', async (t) => {
  const Page = Type.Object({ pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })), cursor: Type.Optional(Type.String()) }, { $id: 'Page' })
  class PageSizeWasPerPage extends VersionChange {
    description = 'The page size is pageSize (it was per_page).'
    instructionsToMigrateToPreviousVersion = [schema(Page).field('pageSize').had({ name: 'per_page' })]
  }
  const app = await appWith(t, PageSizeWasPerPage, (api) => {
    api.get('/projects', { schema: { querystring: Page, response: { 200: Type.Array(Type.Object({ id: Type.String() })) } } }, async () => [])
  })
  t.same(summary(await verify(app, { examples: 1 })), ['GET /projects 2000-01-01 request lost querystring/per_page after PageSizeWasPerPage (2001-01-01) by '])
})

test('headers are followed whatever the case of the names their schema declares: a header renamed with its converter is no finding', async (t) => {
  const Headers = Type.Object({ 'Tenant-Id': Type.Optional(Type.String({ minLength: 1 })), 'X-Trace': Type.Optional(Type.String()) }, { $id: 'Headers' })
  const appOf = async (convert: boolean): Promise<FastifyInstance> => {
    class TenantHeaderLostItsPrefix extends VersionChange {
      description = 'The tenant header is Tenant-Id (it was X-Tenant).'
      instructionsToMigrateToPreviousVersion = [schema(Headers).field('Tenant-Id').had({ name: 'X-Tenant' })]

      @ConvertRequestToNextVersionFor('/projects', ['POST'])
      renameHeader (request: RequestInfo) {
        if (convert && request.headers['x-tenant'] !== undefined) request.headers['tenant-id'] = request.headers['x-tenant']
        delete request.headers['x-tenant']
      }
    }
    return await appWith(t, TenantHeaderLostItsPrefix, (api) => {
      api.post('/projects', { schema: { headers: Headers, body: ProjectCreate, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'p1' }))
    })
  }
  t.same((await verify(await appOf(true), { examples: 20 })).map((finding) => finding.text), [])
  const findings = await verify(await appOf(false), { examples: 1 })
  t.same(findings.map((finding) => `${finding.kind} ${finding.part}${finding.pointer}`), ['lost headers/x-tenant'], 'named as Fastify names headers')
  t.match(findings[0].example, { 'x-trace': /^zq/ }, 'the finding shows the headers sent')
})

test('regression: a path parameter a version loosens was found with a fix that cannot work (a request converter): it says path parameters cannot be converted', async (t) => {
  const ItemParams = Type.Object({ id: Type.Integer() }, { $id: 'ItemParams' })
  class IdsWereStrings extends VersionChange {
    description = 'Item ids are integers (they were strings).'
    instructionsToMigrateToPreviousVersion = [schema(ItemParams).field('id').had({ type: Type.String() })]
  }
  const app = await appWith(t, IdsWereStrings, (api) => {
    api.get('/items/:id', { schema: { params: ItemParams } }, async () => ({}))
  })
  const findings = await verify(app, { examples: 20 })
  t.same(summary(findings), ['GET /items/:id 2000-01-01 request invalid params/id after IdsWereStrings (2001-01-01) by '])
  t.match(findings[0].fix, /^Path parameters cannot be converted: change the instructions of IdsWereStrings so that params\/id in this version accepts only what the schema of 2001-01-01 accepts/)
  t.notMatch(findings[0].text, /Add a request converter/)
})

test('regression: verify ran converters outside the versions\' storage, so isApplied read true in every version and a converter failing in old versions only passed', async (t) => {
  const Price = Type.Object({ amount: Type.Number() }, { $id: 'Price' })
  const PricesInCents = changeClass('PricesInCents', [], { sideEffects: true, description: 'Prices are amounts.' })
  class AmountShown extends VersionChange {
    description = 'Prices are shown as amounts.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor(Price)
    down (response: ResponseInfo) {
      // Wrong for versions before PricesInCents: `cents` is no field of HEAD's price.
      if (!PricesInCents.isApplied) response.body.amount = (response.body.cents as { value: number }).value
    }
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2002-01-01', AmountShown), new Version('2001-01-01', PricesInCents), new Version('2000-01-01')), async (api) => {
    api.get('/price', { schema: { response: { 200: Price } } }, async () => ({ amount: 1 }))
  })
  await app.ready()
  const served = await app.inject({ url: '/price', headers: { 'x-api-version': '2000-01-01' } })
  t.equal(served.statusCode, 500, 'serving 2000-01-01 runs the failing branch')
  const findings = await verify(app, { examples: 5 })
  t.same(summary(findings), ['GET /price 2000-01-01 response converter failed converter after AmountShown (2002-01-01) by AmountShown.down'], 'verify runs it as served: only 2000-01-01 fails')
})

test('regression: a query value a converter leaves as text is coerced as Fastify coerces it (ids split into strings for integers were invalid)', async (t) => {
  const Filter = Type.Object({ ids: Type.Optional(Type.Array(Type.Integer())) }, { $id: 'Filter' })
  const idsApp = async (split: (text: string) => unknown): Promise<FastifyInstance> => {
    class IdsRepeated extends VersionChange {
      description = 'ids is a repeated parameter (it was one comma-separated text).'
      instructionsToMigrateToPreviousVersion = [schema(Filter).field('ids').had({ type: Type.String({ pattern: '^[0-9]{1,9}(,[0-9]{1,9})*$' }) })]

      @ConvertRequestToNextVersionFor('/projects', ['GET'])
      splitIds (request: RequestInfo) {
        const ids: unknown = request.queryParams.ids
        if (typeof ids === 'string') request.queryParams.ids = split(ids)
      }
    }
    return await appWith(t, IdsRepeated, (api) => {
      api.get('/projects', { schema: { querystring: Filter } }, async (request) => request.query)
    })
  }
  // The text of each id, as a client of 2001-01-01 sends it (`?ids=1&ids=22`): Fastify's validation makes it a number.
  const asText = await idsApp((text) => text.split(','))
  const served = await asText.inject({ url: '/projects?ids=1,22', headers: { 'x-api-version': '2000-01-01' } })
  t.same(served.json(), { ids: [1, 22] }, 'served right')
  t.same(summary(await verify(asText, { examples: 20 })), [], 'no finding')
  t.same(summary(await verify(await idsApp((text) => text.split(',').map(Number)), { examples: 20 })), [], 'numbers: no finding either')
  // A list is never made of a lone value: the text not split is one id `'1,22'`, which no integer is.
  t.same(summary(await verify(await idsApp((text) => text), { examples: 20 })), ['GET /projects 2000-01-01 request invalid querystring/ids after IdsRepeated (2001-01-01) by IdsRepeated.splitIds'])
  // Text that is no number is still refused.
  t.same(summary(await verify(await idsApp((text) => text.split(',').map((id) => `#${id}`)), { examples: 20 })), ['GET /projects 2000-01-01 request invalid querystring/ids/* after IdsRepeated (2001-01-01) by IdsRepeated.splitIds'])
})

test('regression: no query example holds an empty list, which no client can send (its first item read was a finding)', async (t) => {
  const Search = Type.Object({ tag: Type.String({ minLength: 1 }) }, { $id: 'Search' })
  class OneTag extends VersionChange {
    description = 'A search takes one tag (it took several, of which the first was used).'
    instructionsToMigrateToPreviousVersion = [schema(Search).field('tag').had({ name: 'tags', type: Type.Array(Type.String({ minLength: 1 })) })]

    @ConvertRequestToNextVersionFor('/search', ['GET'])
    firstTag (request: RequestInfo) {
      // `?tags=a` arrives as `['a']`, `?tags=` as `['']` (refused): Fastify's parser never gives an empty list.
      const [tag] = request.queryParams.tags as string[]
      request.queryParams.tag = tag
      delete request.queryParams.tags
    }
  }
  const app = await appWith(t, OneTag, (api) => {
    api.get('/search', { schema: { querystring: Search } }, async (request) => request.query)
  })
  for (const [url, status] of [['/search?tags=a&tags=b', 200], ['/search?tags=', 400], ['/search', 400]] as const) {
    t.equal((await app.inject({ url, headers: { 'x-api-version': '2000-01-01' } })).statusCode, status, url)
  }
  const findings = await verify(app, { examples: 20 })
  t.same(summary(findings), [])
  t.ok(findings.replayed > 0, 'replayed')
})
