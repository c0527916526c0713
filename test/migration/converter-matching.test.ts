import { test } from 'tap'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, RouterGenerationError, Version, VersionBundle, VersionChange,
  endpoint, enumeration, extendSchema, schema, versioned, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { rejection } from '../helpers/errors'
import { v } from '../helpers/request-pipeline'

/** 2001-01-01 holding `change`, then 2000-01-01. */
function twoVersions (change: VersionChangeClass): VersionBundle {
  return new VersionBundle(new HeadVersion(), new Version('2001-01-01', change), new Version('2000-01-01'))
}

test('a by-schema request converter applies to every route whose body uses one of its schemas, and to no other', async (t) => {
  const Address = Type.Object({ street: Type.String() })
  const Company = Type.Object({ name: Type.String(), seen: Type.Optional(Type.Array(Type.String())) })
  const Invoice = Type.Object({ total: Type.Number(), seen: Type.Optional(Type.Array(Type.String())) })
  const Note = Type.Object({ text: Type.String(), seen: Type.Optional(Type.Array(Type.String())) })
  const calls: string[] = []
  class RenameStreet extends VersionChange {
    description = 'Addresses have street instead of line1.'
    instructionsToMigrateToPreviousVersion = [schema(Address).field('street').had({ name: 'line1' })]

    @ConvertRequestToNextVersionFor(Address)
    line1ToStreet (request: RequestInfo) {
      calls.push(`Address ${JSON.stringify(request.body)}`)
      request.body.street = request.body.line1
      delete request.body.line1
    }

    @ConvertResponseToPreviousVersionFor(Address)
    streetToLine1 (response: ResponseInfo) {
      response.body.line1 = response.body.street
    }

    @ConvertRequestToNextVersionFor(Company, Invoice)
    stamp (request: RequestInfo) {
      calls.push(`Company|Invoice ${JSON.stringify(request.body)}`)
      request.body.seen = ['stamp']
    }
  }
  const app = await versionedApp(t, twoVersions(RenameStreet), async (api) => {
    api.post('/users', { schema: { body: Address } }, async (request) => request.body)
    api.put('/users/:id', { schema: { body: Address } }, async (request) => request.body)
    api.get('/addresses/:id', { schema: { response: { 200: Address } } }, async () => ({ street: 'Main St' }))
    api.post('/companies', { schema: { body: Company } }, async (request) => request.body)
    api.post('/invoices', { schema: { body: Invoice } }, async (request) => request.body)
    api.post('/notes', { schema: { body: Note } }, async (request) => request.body)
  })
  await app.ready()

  const send = async (method: 'POST' | 'PUT' | 'GET', url: string, payload?: object) => {
    calls.length = 0
    const response = await app.inject({ method, url, headers: v('2000-01-01'), ...(payload === undefined ? {} : { payload }) })
    return { status: response.statusCode, body: response.json(), calls: [...calls] }
  }
  t.same(await send('POST', '/users', { line1: 'Main St' }), { status: 200, body: { street: 'Main St' }, calls: ['Address {"line1":"Main St"}'] })
  t.same(await send('PUT', '/users/7', { line1: 'High St' }), { status: 200, body: { street: 'High St' }, calls: ['Address {"line1":"High St"}'] })
  t.same(await send('GET', '/addresses/1'), { status: 200, body: { line1: 'Main St' }, calls: [] },
    'a request converter does not run for a route using the schema only in its response')
  t.same(await send('POST', '/companies', { name: 'Acme' }), { status: 200, body: { name: 'Acme', seen: ['stamp'] }, calls: ['Company|Invoice {"name":"Acme"}'] })
  t.same(await send('POST', '/invoices', { total: 3 }), { status: 200, body: { total: 3, seen: ['stamp'] }, calls: ['Company|Invoice {"total":3}'] })
  t.same(await send('POST', '/notes', { text: 'hi' }), { status: 200, body: { text: 'hi' }, calls: [] }, 'a route with another body schema is untouched')

  calls.length = 0
  const latest = await app.inject({ method: 'POST', url: '/users', headers: v('2001-01-01'), payload: { street: 'Elm St' } })
  t.same(latest.json(), { street: 'Elm St' })
  t.same(calls, [], 'no converter runs in the version holding the change')
})

test('by-schema request converters run once per occurrence of the schema nested in a body, with request.body set to it', async (t) => {
  const Pet = Type.Object({ name: Type.String(), kind: Type.Literal('pet') })
  const Car = Type.Object({ plate: Type.String(), kind: Type.Literal('car') })
  const Tag = Type.Object({ label: Type.String() }, { $id: 'Tag' })
  const Body = Type.Object({
    owner: Pet,
    pets: Type.Array(Pet),
    favourite: Type.Optional(Pet),
    either: Type.Union([Car, Pet]),
    tag: Type.Optional(Type.Ref('Tag')),
    note: Type.Optional(Type.String())
  })
  const calls: string[] = []
  class RenamePetNameAndTagLabel extends VersionChange {
    description = 'Pets have name instead of petName; tags have label instead of text.'
    instructionsToMigrateToPreviousVersion = [
      schema(Pet).field('name').had({ name: 'petName' }),
      schema(Tag).field('label').had({ name: 'text' })
    ]

    @ConvertRequestToNextVersionFor(Pet)
    renamePet (request: RequestInfo) {
      calls.push(`Pet ${JSON.stringify(request.body)}`)
      request.body.name = request.body.petName
      delete request.body.petName
    }

    @ConvertRequestToNextVersionFor(Car)
    seeCar (request: RequestInfo) {
      calls.push(`Car ${JSON.stringify(request.body)}`)
    }

    @ConvertRequestToNextVersionFor(Tag)
    replaceTag (request: RequestInfo) {
      calls.push(`Tag ${JSON.stringify(request.body)}`)
      request.body = { label: `#${request.body.text as string}` }
    }
  }
  const app = await versionedApp(t, twoVersions(RenamePetNameAndTagLabel), async (api) => {
    api.addSchema(Tag)
    api.post('/households', { schema: { body: Body } }, async (request) => request.body)
  })
  await app.ready()

  let response = await app.inject({
    method: 'POST',
    url: '/households',
    headers: v('2000-01-01'),
    payload: {
      owner: { petName: 'Rex', kind: 'pet' },
      pets: [{ petName: 'Tom', kind: 'pet' }, { petName: 'Kit', kind: 'pet' }],
      favourite: { petName: 'Fido', kind: 'pet' },
      either: { petName: 'Bo', kind: 'pet' },
      tag: { text: 'cute' },
      note: 'n'
    }
  })
  t.equal(response.statusCode, 200)
  t.same(response.json(), {
    owner: { name: 'Rex', kind: 'pet' },
    pets: [{ name: 'Tom', kind: 'pet' }, { name: 'Kit', kind: 'pet' }],
    favourite: { name: 'Fido', kind: 'pet' },
    either: { name: 'Bo', kind: 'pet' },
    tag: { label: '#cute' },
    note: 'n'
  }, 'every occurrence converted, a replaced occurrence written back')
  t.same(calls.filter((call) => call.startsWith('Pet')).sort(), [
    'Pet {"petName":"Bo","kind":"pet"}',
    'Pet {"petName":"Fido","kind":"pet"}',
    'Pet {"petName":"Kit","kind":"pet"}',
    'Pet {"petName":"Rex","kind":"pet"}',
    'Pet {"petName":"Tom","kind":"pet"}'
  ], 'the Pet converter ran once per occurrence: property, two array items, Optional property, union member')
  t.same(calls.filter((call) => !call.startsWith('Pet')), ['Tag {"text":"cute"}'], 'the Tag converter ran on the $ref occurrence; Car not at all')

  calls.length = 0
  response = await app.inject({
    method: 'POST',
    url: '/households',
    headers: v('2000-01-01'),
    payload: { owner: { petName: 'Rex', kind: 'pet' }, pets: [], either: { plate: 'AB-12', kind: 'car' } }
  })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { owner: { name: 'Rex', kind: 'pet' }, pets: [], either: { plate: 'AB-12', kind: 'car' } })
  t.same(calls, ['Pet {"petName":"Rex","kind":"pet"}', 'Car {"plate":"AB-12","kind":"car"}'],
    'absent optional occurrences are skipped; the union runs the converter of the member the data belongs to')
})

test('a by-schema converter runs on occurrences innermost first; of several schemas, each one\'s in the order listed', async (t) => {
  const Line = Type.Object({ id: Type.String() }, { $id: 'Line' })
  const Node = Type.Recursive((This) => Type.Object({ id: Type.String(), children: Type.Optional(Type.Array(This)) }), { $id: 'Node' })
  const Order = Type.Object({ id: Type.String(), lines: Type.Array(Line), tree: Type.Optional(Node) }, { $id: 'Order' })
  const calls: string[] = []
  const seeing = (name: string, ...targets: TSchema[]): VersionChangeClass => {
    class Sees extends VersionChange {
      description = 'Sees orders, lines and nodes.'
      instructionsToMigrateToPreviousVersion = []

      @ConvertResponseToPreviousVersionFor(...(targets as [TSchema]))
      see (response: ResponseInfo) { calls.push(String(response.body.id)) }
    }
    return Object.defineProperty(Sees, 'name', { value: name })
  }
  for (const [targets, expected] of [
    [[Node], ['grandchild', 'child', 'sibling', 'root']],
    [[Line, Order], ['l1', 'l2', 'o1']],
    [[Order, Line], ['o1', 'l1', 'l2']]
  ] as const) {
    const app = await versionedApp(t, twoVersions(seeing('Sees', ...targets)), async (api) => {
      api.get('/orders/:id', { schema: { response: { 200: Order } } }, async () => ({ id: 'o1', lines: [{ id: 'l1' }, { id: 'l2' }] }))
      api.get('/tree', { schema: { response: { 200: Node } } }, async () => ({ id: 'root', children: [{ id: 'child', children: [{ id: 'grandchild' }] }, { id: 'sibling' }] }))
    })
    calls.length = 0
    await app.inject({ url: targets.length === 1 ? '/tree' : '/orders/o1', headers: v('2000-01-01') })
    t.same(calls, expected, targets.map((target) => target.$id).join(', '))
  }
})

test('regression: converters on a schema inside a Type.Recursive (which TypeBox copies) failed app.ready() as unused, its instructions did nothing', async (t) => {
  const Meta = Type.Object({ owner: Type.String() })
  const Kind = Type.Union([Type.Literal('file'), Type.Literal('link')])
  const Node = Type.Recursive((This) => Type.Object({ meta: Meta, kind: Kind, next: Type.Optional(This) }), { $id: 'Node' })
  class OwnerWasUser extends VersionChange {
    description = 'A node\'s owner was its user; links are new.'
    instructionsToMigrateToPreviousVersion = [schema(Meta).field('owner').had({ name: 'user' }), enumeration(Kind).didntHave('link')]

    @ConvertRequestToNextVersionFor(Meta)
    up (request: RequestInfo) {
      request.body.owner = request.body.user
      delete request.body.user
    }

    @ConvertResponseToPreviousVersionFor(Meta)
    down (response: ResponseInfo) {
      response.body.user = response.body.owner
      delete response.body.owner
    }

    @ConvertResponseToPreviousVersionFor(Node)
    linkWasFile (response: ResponseInfo) {
      if (response.body.kind === 'link') response.body.kind = 'file'
    }
  }
  const received: unknown[] = []
  const app = await versionedApp(t, twoVersions(OwnerWasUser), async (api) => {
    api.post('/nodes', { schema: { body: Type.Object({ node: Node }), response: { 200: Type.Object({ node: Node }) } } }, async (request) => {
      received.push(request.body)
      return { node: { meta: { owner: 'x' }, kind: 'link' as const, next: { meta: { owner: 'y' }, kind: 'link' as const, next: { meta: { owner: 'z' }, kind: 'file' as const } } } }
    })
  })
  const node = (key: string, kind: string): unknown => ({ meta: { [key]: 'a' }, kind, next: { meta: { [key]: 'b' }, kind, next: { meta: { [key]: 'c' }, kind: 'file' } } })
  const reply = await app.inject({ method: 'POST', url: '/nodes', headers: v('2000-01-01'), payload: { node: node('user', 'file') } })
  t.equal(reply.statusCode, 200, reply.body)
  t.same(received[0], { node: node('owner', 'file') }, 'the handler gets HEAD\'s field at every depth')
  t.same(reply.json(), { node: { meta: { user: 'x' }, kind: 'file', next: { meta: { user: 'y' }, kind: 'file', next: { meta: { user: 'z' }, kind: 'file' } } } },
    'the old client gets its field and members at every depth')
  const link = await app.inject({ method: 'POST', url: '/nodes', headers: v('2000-01-01'), payload: { node: node('user', 'link') } })
  t.equal(link.statusCode, 400, 'a member the version lacks is refused at every depth')
})

test('by-path request converters match the path of the version holding the change and keep applying after renames in older versions', async (t) => {
  const Body = Type.Object({ trail: Type.Array(Type.String()) })
  const calls: string[] = []
  class RenameUsersToPeople extends VersionChange {
    description = 'People are called users.'
    instructionsToMigrateToPreviousVersion = [endpoint('/users/:id', ['PUT']).had({ path: '/people/:id' })]

    @ConvertRequestToNextVersionFor('/users/:id', ['PUT'])
    inLatestPath (request: RequestInfo) {
      calls.push('2002')
      request.body.trail.push('2002')
    }
  }
  class RenamePersonsToPeople extends VersionChange {
    description = 'Persons are called people.'
    instructionsToMigrateToPreviousVersion = [endpoint('/people/:id', ['PUT']).had({ path: '/persons/:id' })]

    @ConvertRequestToNextVersionFor('/people/:id', ['PUT'])
    inMiddlePath (request: RequestInfo) {
      calls.push('2001')
      request.body.trail.push('2001')
    }
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2002-01-01', RenameUsersToPeople),
    new Version('2001-01-01', RenamePersonsToPeople), new Version('2000-01-01')), async (api) => {
    api.put('/users/:id', { schema: { body: Body, params: Type.Object({ id: Type.String() }) } }, async (request) => ({
      id: request.params.id, trail: request.body.trail
    }))
  })
  await app.ready()

  const cases: Array<[string, string, number, unknown]> = [
    ['2000-01-01', '/persons/1', 200, { id: '1', trail: ['2001', '2002'] }],
    ['2001-01-01', '/people/2', 200, { id: '2', trail: ['2002'] }],
    ['2002-01-01', '/users/3', 200, { id: '3', trail: [] }],
    ['2000-01-01', '/users/4', 404, undefined],
    ['2000-01-01', '/people/5', 404, undefined],
    ['2002-01-01', '/people/6', 404, undefined]
  ]
  for (const [version, url, status, body] of cases) {
    calls.length = 0
    const response = await app.inject({ method: 'PUT', url, headers: v(version), payload: { trail: [] } })
    t.equal(response.statusCode, status, `${version} PUT ${url}: ${status}`)
    if (body !== undefined) t.same(response.json(), body, `${version} PUT ${url}: converters ran`)
    t.same(calls, body === undefined ? [] : (body as { trail: string[] }).trail, `${version} PUT ${url}: calls`)
  }
})

test('by-path request converters on multi-method routes run for the methods they name; one converter may cover two routes', async (t) => {
  const Body = Type.Object({ trail: Type.Array(Type.String()) })
  class TrackMethods extends VersionChange {
    description = 'Items record which converters saw them.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor('/items/:id', ['PATCH'])
    patchOnly (request: RequestInfo) { request.body.trail.push('patchOnly') }

    @ConvertRequestToNextVersionFor('/items/:id', ['put', 'patch'])
    both (request: RequestInfo) { request.body.trail.push('both') }

    @ConvertRequestToNextVersionFor('/things', ['POST', 'DELETE'])
    twoRoutes (request: RequestInfo) { request.body.trail.push('twoRoutes') }
  }
  const app = await versionedApp(t, twoVersions(TrackMethods), async (api) => {
    api.route({ method: ['PUT', 'PATCH'], url: '/items/:id', schema: { body: Body }, handler: async (request) => request.body })
    api.post('/things', { schema: { body: Body } }, async (request) => request.body)
    api.delete('/things', { schema: { body: Body } }, async (request) => request.body)
  })
  await app.ready()

  const trail = async (method: 'PUT' | 'PATCH' | 'POST' | 'DELETE', url: string, version = '2000-01-01') => {
    const response = await app.inject({ method, url, headers: v(version), payload: { trail: [] } })
    t.equal(response.statusCode, 200, `${method} ${url} in ${version}`)
    return response.json().trail
  }
  t.same(await trail('PUT', '/items/1'), ['both'], 'PUT runs the converter naming PUT only')
  t.same(await trail('PATCH', '/items/1'), ['patchOnly', 'both'], 'PATCH runs both, in declaration order')
  t.same(await trail('POST', '/things'), ['twoRoutes'])
  t.same(await trail('DELETE', '/things'), ['twoRoutes'])
  t.same(await trail('PATCH', '/items/1', '2001-01-01'), [], 'nothing runs in the latest version')
})

test('regression: a HEAD request to a multi-method route holding GET ran none of the by-path converters naming GET, as its GET does', async (t) => {
  class RenameSearchAndTotal extends VersionChange {
    description = 'The q parameter was called search; the x-total header x-count.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertRequestToNextVersionFor('/items', ['GET'])
    qToSearch (request: RequestInfo) {
      request.queryParams.search = request.queryParams.q
      delete request.queryParams.q
    }

    @ConvertResponseToPreviousVersionFor('/items', ['GET'])
    totalToCount (response: ResponseInfo) {
      response.headers['x-count'] = response.headers['x-total']
      delete response.headers['x-total']
    }
  }
  const app = await versionedApp(t, twoVersions(RenameSearchAndTotal), async (api) => {
    api.route({
      method: ['GET', 'POST'],
      url: '/items',
      schema: { querystring: Type.Object({ search: Type.Optional(Type.String()) }) },
      handler: async (request, reply) => {
        reply.header('x-total', '3').header('x-searched', String((request.query as { search?: string }).search))
        return [1, 2, 3]
      }
    })
  })
  await app.ready()

  for (const method of ['GET', 'HEAD'] as const) {
    const response = await app.inject({ method, url: '/items?q=ada', headers: v('2000-01-01') })
    t.equal(response.statusCode, 200, method)
    t.equal(response.headers['x-searched'], 'ada', `${method}: the handler reads the parameter the GET request converter renamed`)
    t.equal(response.headers['x-count'], '3', `${method}: the GET response converter renamed the header`)
    t.equal(response.headers['x-total'], undefined, `${method}: HEAD's header name is not sent`)
  }
  const post = await app.inject({ method: 'POST', url: '/items?q=ada', headers: v('2000-01-01') })
  t.equal(post.headers['x-searched'], 'undefined', 'POST runs neither: they name GET only')
  t.equal(post.headers['x-total'], '3')
})

test('by-schema converters whose schema no route uses fail at start-up, unless declared with checkUsage: false', async (t) => {
  const Used = Type.Object({ name: Type.String() })
  const Nickname = Type.Object({ nickname: Type.String() }, { $id: 'Nickname' })
  const Receipt = Type.Object({ total: Type.Number() }, { $id: 'Receipt' })
  const routes = async (api: Parameters<Parameters<typeof versioned>[0]>[0]) => {
    api.post('/users', { schema: { body: Used, response: { 200: Nickname } } }, async () => ({ nickname: 'x' }))
    api.post('/payments', { schema: { body: Receipt } }, async () => ({}))
  }

  class ConvertNicknameRequests extends VersionChange {
    description = 'Nicknames.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor(Used, Nickname) nicknameUp (_request: RequestInfo) {}
  }
  let app = await versionedApp(t, twoVersions(ConvertNicknameRequests), routes)
  let error = await rejection(async () => await app.ready())
  t.ok(error instanceof RouterGenerationError, 'a RouterGenerationError subclass')
  t.equal(error?.code, 'FST_VERSIONER_REQUEST_CONVERTER_UNUSED', 'Nickname is only a response schema')
  t.match(error?.message, 'Request by body schema converter "ConvertNicknameRequests.nicknameUp" failed to find routes with the following body schemas: [Nickname]')
  t.notMatch(error?.message, /\[Used|, Object/, 'the schema that is used is not listed')
  t.match(error?.message, /checkUsage: false/, 'the message names the way out')

  class ConvertReceiptResponses extends VersionChange {
    description = 'Receipts.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertResponseToPreviousVersionFor(Receipt) receiptDown (_response: ResponseInfo) {}
  }
  app = await versionedApp(t, twoVersions(ConvertReceiptResponses), routes)
  error = await rejection(async () => await app.ready())
  t.equal(error?.code, 'FST_VERSIONER_RESPONSE_CONVERTER_UNUSED', 'Receipt is only a body schema')
  t.match(error?.message, 'Response by response schema converter "ConvertReceiptResponses.receiptDown" failed to find routes with the following response schemas: [Receipt]')

  class Unchecked extends VersionChange {
    description = 'Webhook payloads.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor(Nickname, { checkUsage: false }) nicknameUp (_request: RequestInfo) {}
    @ConvertResponseToPreviousVersionFor(Receipt, { checkUsage: false }) receiptDown (_response: ResponseInfo) {}
  }
  app = await versionedApp(t, twoVersions(Unchecked), routes)
  t.equal(await rejection(async () => await app.ready()), undefined, 'checkUsage: false lets unused schemas through')
  const response = await app.inject({ method: 'POST', url: '/payments', headers: v('2000-01-01'), payload: { total: 1 } })
  t.equal(response.statusCode, 200, 'and the application serves')
})

test('regression: a by-schema request converter of a query string or headers schema says to convert them by path, not checkUsage: false', async (t) => {
  // By-schema request converters run on bodies. checkUsage: false, which the message offered, let the app start with
  // a converter that never runs: old clients' `?filter_state=open` reached the handler as no filter at all.
  const ListQuery = Type.Object({ status: Type.Optional(Type.String()) }, { $id: 'ListQuery' })
  class StatusWasState extends VersionChange {
    description = 'The status filter was state.'
    instructionsToMigrateToPreviousVersion = [schema(ListQuery).field('status').had({ name: 'state' })]
    @ConvertRequestToNextVersionFor(ListQuery) stateUp (_request: RequestInfo) {}
  }
  const app = await versionedApp(t, twoVersions(StatusWasState), async (api) => {
    api.get('/orders', { schema: { querystring: ListQuery } }, async () => ({}))
  })
  const error = await rejection(async () => await app.ready())
  t.equal(error?.code, 'FST_VERSIONER_REQUEST_CONVERTER_UNUSED')
  t.match(error?.message, 'ListQuery is the querystring schema of GET /orders: by-schema request converters run on bodies only. ' +
    "Convert it with a by-path converter, @ConvertRequestToNextVersionFor('/orders', ['GET']), which reads and changes request.queryParams.")
  t.notMatch(error?.message, /checkUsage: false/, 'not the way out')
})

test('a by-schema converter on an extendSchema parent that only its children use names the children, not checkUsage: false', async (t) => {
  // A Stripe-like list envelope: every list is built from ListBase, and a version renames has_more. Converters on a
  // parent do not run on its children: the way out is naming them, and checkUsage: false would leave every list broken.
  const ListBase = Type.Object({ object: Type.Literal('list'), has_more: Type.Boolean() }, { $id: 'ListBase' })
  const Invoice = Type.Object({ id: Type.String() })
  const InvoiceList = extendSchema(ListBase, { data: Type.Array(Invoice) }, { $id: 'InvoiceList' })
  const CustomerList = extendSchema(ListBase, { data: Type.Array(Invoice) }, { $id: 'CustomerList' })
  const routes = async (api: Parameters<Parameters<typeof versioned>[0]>[0]) => {
    api.get('/invoices', { schema: { response: { 200: InvoiceList } } }, async () => ({ object: 'list' as const, has_more: false, data: [] }))
    api.post('/customers/search', { schema: { body: CustomerList, response: { 200: Type.Array(CustomerList) } } }, async () => [])
  }
  class HasMoreWasMore extends VersionChange {
    description = 'has_more was more.'
    instructionsToMigrateToPreviousVersion = [schema(ListBase).field('has_more').had({ name: 'more' })]
    @ConvertResponseToPreviousVersionFor(ListBase) down (_response: ResponseInfo) {}
  }
  let error = await rejection(async () => await (await versionedApp(t, twoVersions(HasMoreWasMore), routes)).ready())
  t.equal(error?.code, 'FST_VERSIONER_RESPONSE_CONVERTER_UNUSED')
  t.match(error?.message, 'ListBase is the parent (extendSchema) of InvoiceList, CustomerList, which the routes use: converters on a parent do not run on its children, so name them in the decorator too (@ConvertResponseToPreviousVersionFor(ListBase, InvoiceList, CustomerList))')
  t.notMatch(error?.message, /checkUsage: false/, 'not the way out here')

  class MoreUp extends VersionChange {
    description = 'has_more was more.'
    instructionsToMigrateToPreviousVersion = [schema(ListBase).field('has_more').had({ name: 'more' })]
    @ConvertRequestToNextVersionFor(ListBase) up (_request: RequestInfo) {}
  }
  error = await rejection(async () => await (await versionedApp(t, twoVersions(MoreUp), routes)).ready())
  t.equal(error?.code, 'FST_VERSIONER_REQUEST_CONVERTER_UNUSED')
  t.match(error?.message, 'ListBase is the parent (extendSchema) of CustomerList, which the routes use: converters on a parent do not run on its children, so name them in the decorator too (@ConvertRequestToNextVersionFor(ListBase, CustomerList))')
})

test('by-path converters that find no route in the version of their change fail at start-up, naming the converter, methods and path', async (t) => {
  const routes = async (api: Parameters<Parameters<typeof versioned>[0]>[0]) => {
    api.put('/users/:id', async () => ({}))
    api.get('/users/:id', async () => ({}))
  }
  const cases: Array<[string, VersionBundle, RegExp]> = []

  class NoSuchPath extends VersionChange {
    description = 'No such path.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor('/accounts/:id', ['PUT']) up (_request: RequestInfo) {}
  }
  cases.push(['a path no route has', twoVersions(NoSuchPath),
    /^Request by path converter "NoSuchPath\.up" failed to find routes with the following methods: \[PUT\] at \/accounts\/:id in version '2001-01-01'/])

  class MissingMethod extends VersionChange {
    description = 'Missing method.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertResponseToPreviousVersionFor('/users/:id', ['GET', 'DELETE']) down (_response: ResponseInfo) {}
  }
  cases.push(['a method the path lacks', twoVersions(MissingMethod),
    /^Response by path converter "MissingMethod\.down" failed to find routes with the following methods: \[DELETE\] at \/users\/:id/])

  class RenameUsers extends VersionChange {
    description = 'Users were accounts.'
    instructionsToMigrateToPreviousVersion = [endpoint('/users/:id', ['PUT']).had({ path: '/accounts/:id' })]
  }
  class UsesHeadPath extends VersionChange {
    description = 'Uses the HEAD path in a version where the route is renamed.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor('/users/:id', ['PUT']) up (_request: RequestInfo) {}
  }
  cases.push(['the HEAD path of a route renamed by a newer version',
    new VersionBundle(new HeadVersion(), new Version('2002-01-01', RenameUsers), new Version('2001-01-01', UsesHeadPath), new Version('2000-01-01')),
    /"UsesHeadPath\.up" failed to find routes with the following methods: \[PUT\] at \/users\/:id in version '2001-01-01'/])

  for (const [what, versions, message] of cases) {
    const app = await versionedApp(t, versions, routes)
    const error = await rejection(async () => await app.ready())
    t.equal(error?.code, 'FST_VERSIONER_PATH_CONVERTER_UNUSED', `${what}: code`)
    t.ok(error instanceof RouterGenerationError, `${what}: a RouterGenerationError subclass`)
    t.match(error?.message, message, `${what}: message`)
  }

  class UsesVersionPath extends VersionChange {
    description = 'Uses the path the route has in its version.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor('/accounts/:id', ['PUT']) up (request: RequestInfo) { request.headers['x-seen'] = 'yes' }
  }
  class RenameUsersAgain extends VersionChange {
    description = 'Users were accounts.'
    instructionsToMigrateToPreviousVersion = [endpoint('/users/:id', ['PUT']).had({ path: '/accounts/:id' })]
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2002-01-01', RenameUsersAgain),
    new Version('2001-01-01', UsesVersionPath), new Version('2000-01-01')), async (api) => {
    api.put('/users/:id', async (request) => ({ seen: request.headers['x-seen'] ?? null }))
  })
  t.equal(await rejection(async () => await app.ready()), undefined, 'the path of the route in that version is accepted')
  const response = await app.inject({ method: 'PUT', url: '/accounts/1', headers: v('2000-01-01') })
  t.same(response.json(), { seen: 'yes' })
})

test('regression: a by-schema converter of a schema only an existedAs field of an older version holds is used, and runs', async (t) => {
  // HEAD keeps how an invoice was paid as a string; 2001-01-01 brought back the payment method object (existedAs), and
  // 2000-01-01 named its type `object`. The 2000-01-01 converter on PaymentMethod runs on every old invoice, but the
  // usage check looked for PaymentMethod in HEAD's schemas only, and refused the correct app at start-up.
  const PaymentMethod = Type.Object({ type: Type.String() }, { $id: 'PaymentMethod' })
  const Invoice = Type.Object({ id: Type.String(), paidWith: Type.String() }, { $id: 'Invoice' })
  class PaidWithReplacesPaymentMethod extends VersionChange {
    description = 'An invoice says how it was paid as a string, paidWith (it was a payment method object).'
    instructionsToMigrateToPreviousVersion = [
      schema(Invoice).field('paidWith').didntExist,
      schema(Invoice).formerField('paymentMethod').existedAs({ type: PaymentMethod })
    ]

    @ConvertResponseToPreviousVersionFor(Invoice)
    paymentMethodFromPaidWith (response: ResponseInfo) {
      response.body.paymentMethod = { type: response.body.paidWith }
      delete response.body.paidWith
    }
  }
  class PaymentMethodTypeWasObject extends VersionChange {
    description = "A payment method's type was its object."
    instructionsToMigrateToPreviousVersion = [schema(PaymentMethod).field('type').had({ name: 'object' })]

    @ConvertResponseToPreviousVersionFor(PaymentMethod)
    typeToObject (response: ResponseInfo) {
      response.body.object = response.body.type
      delete response.body.type
    }
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01', PaidWithReplacesPaymentMethod),
    new Version('2001-01-01', PaymentMethodTypeWasObject), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/invoices/:id', { schema: { response: { 200: Invoice } } }, async () => ({ id: 'in_1', paidWith: 'card' }))
  })
  t.equal(await rejection(async () => await app.ready()), undefined, 'the application starts')
  const answers = await Promise.all(['2002-01-01', '2001-01-01', '2000-01-01'].map(async (version) =>
    (await app.inject({ url: '/invoices/in_1', headers: v(version) })).json()))
  t.same(answers, [
    { id: 'in_1', paidWith: 'card' },
    { id: 'in_1', paymentMethod: { type: 'card' } },
    { id: 'in_1', paymentMethod: { object: 'card' } }
  ], 'each version reads the payment method as it had it')
})

test('a by-schema converter of a schema HEAD holds but its own version no longer does never runs, and is refused', async (t) => {
  // Invoices stopped embedding the payment method in 2001-01-01's older neighbour: the 2000-01-01 converter on
  // PaymentMethod meets no payment method in any body of its version. HEAD holding the schema let it through before.
  const PaymentMethod = Type.Object({ type: Type.String() }, { $id: 'PaymentMethod' })
  const Invoice = Type.Object({ id: Type.String(), paymentMethod: Type.Optional(PaymentMethod) }, { $id: 'Invoice' })
  class InvoicesEmbedThePaymentMethod extends VersionChange {
    description = 'Invoices embed their payment method.'
    instructionsToMigrateToPreviousVersion = [schema(Invoice).field('paymentMethod').didntExist]
  }
  class PaymentMethodTypeWasObject extends VersionChange {
    description = "A payment method's type was its object."
    instructionsToMigrateToPreviousVersion = [schema(PaymentMethod).field('type').had({ name: 'object' })]
    @ConvertResponseToPreviousVersionFor(PaymentMethod) typeToObject (_response: ResponseInfo) {}
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01', InvoicesEmbedThePaymentMethod),
    new Version('2001-01-01', PaymentMethodTypeWasObject), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/invoices/:id', { schema: { response: { 200: Invoice } } }, async () => ({ id: 'in_1' }))
  })
  const error = await rejection(async () => await app.ready())
  t.equal(error?.code, 'FST_VERSIONER_RESPONSE_CONVERTER_UNUSED')
  t.match(error?.message, '"PaymentMethodTypeWasObject.typeToObject" failed to find routes with the following response schemas: [PaymentMethod]')
})

test('regression: two changes of one version, one renaming the field that holds a schema the other converts: both directions convert it', async (t) => {
  // 2001-01-01 renamed an order's `lines` to `items` and an item's `code` to `sku`, in two changes. The second one's
  // converters looked for items where the version's newer (responses) or older (requests) shape has them, not where
  // the first change's converters had just put them: every old client's request and response was a 500.
  const Item = Type.Object({ sku: Type.String() }, { $id: 'Item' })
  const Order = Type.Object({ items: Type.Array(Item) }, { $id: 'Order' })
  class ItemsWereLines extends VersionChange {
    description = "An order's items were its lines."
    instructionsToMigrateToPreviousVersion = [schema(Order).field('items').had({ name: 'lines' })]
    @ConvertRequestToNextVersionFor(Order) up (request: RequestInfo) { request.body.items = request.body.lines; delete request.body.lines }
    @ConvertResponseToPreviousVersionFor(Order) down (response: ResponseInfo) { response.body.lines = response.body.items; delete response.body.items }
  }
  class SkuWasCode extends VersionChange {
    description = "An item's sku was its code."
    instructionsToMigrateToPreviousVersion = [schema(Item).field('sku').had({ name: 'code' })]
    @ConvertRequestToNextVersionFor(Item) up (request: RequestInfo) { request.body.sku = request.body.code; delete request.body.code }
    @ConvertResponseToPreviousVersionFor(Item) down (response: ResponseInfo) { response.body.code = response.body.sku; delete response.body.sku }
  }
  for (const changes of [[ItemsWereLines, SkuWasCode], [SkuWasCode, ItemsWereLines]]) {
    const seen: unknown[] = []
    const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', ...changes), new Version('2000-01-01')), async (api) => {
      api.post('/orders', { schema: { body: Order, response: { 200: Order } } }, async (request) => { seen.push(request.body); return request.body })
    })
    const answer = await app.inject({ method: 'POST', url: '/orders', headers: v('2000-01-01'), payload: { lines: [{ code: 'k1' }, { code: 'k2' }] } })
    const order = changes.map((change) => change.name).join(', ')
    t.same(seen, [{ items: [{ sku: 'k1' }, { sku: 'k2' }] }], `${order}: the handler sees HEAD's order`)
    t.equal(answer.statusCode, 200, order)
    t.same(answer.json(), { lines: [{ code: 'k1' }, { code: 'k2' }] }, `${order}: the old client reads its own shape back`)
  }
})

test('regression: a union of Type.Ref members (or of Type.Intersect members) ran the first member\'s converters on every value, the others\' on none', async (t) => {
  const Cat = Type.Object({ kind: Type.Literal('cat'), meow: Type.String() }, { $id: 'Cat' })
  const Dog = Type.Object({ kind: Type.Literal('dog'), bark: Type.String() }, { $id: 'Dog' })
  const Named = Type.Object({ name: Type.String() })
  const Bird = Type.Object({ kind: Type.Literal('bird'), song: Type.String() })
  const Fish = Type.Object({ kind: Type.Literal('fish'), fins: Type.Number() })
  const calls: string[] = []
  class SeeEach extends VersionChange {
    description = 'Each animal is seen by its own converters.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor(Cat) requestCat (request: RequestInfo) { calls.push(`request Cat ${request.body.kind as string}`) }
    @ConvertRequestToNextVersionFor(Dog) requestDog (request: RequestInfo) { calls.push(`request Dog ${request.body.kind as string}`) }
    @ConvertRequestToNextVersionFor(Bird) requestBird (request: RequestInfo) { calls.push(`request Bird ${request.body.kind as string}`) }
    @ConvertRequestToNextVersionFor(Fish) requestFish (request: RequestInfo) { calls.push(`request Fish ${request.body.kind as string}`) }
    @ConvertResponseToPreviousVersionFor(Cat) responseCat (response: ResponseInfo) { calls.push(`response Cat ${response.body.kind as string}`) }
    @ConvertResponseToPreviousVersionFor(Dog) responseDog (response: ResponseInfo) { calls.push(`response Dog ${response.body.kind as string}`) }
  }
  const app = await versionedApp(t, twoVersions(SeeEach), async (api) => {
    api.addSchema(Cat)
    api.addSchema(Dog)
    const Pen = Type.Object({ pet: Type.Union([Type.Ref('Cat'), Type.Ref('Dog')]) })
    api.post('/pens', { schema: { body: Pen, response: { 200: Pen } } }, async (request) => request.body)
    const Tank = Type.Object({ animal: Type.Union([Type.Intersect([Named, Bird]), Type.Intersect([Named, Fish])]) })
    api.post('/tanks', { schema: { body: Tank } }, async (request) => request.body)
  })
  const send = async (url: string, payload: object) => {
    calls.length = 0
    const response = await app.inject({ method: 'POST', url, headers: v('2000-01-01'), payload })
    t.equal(response.statusCode, 200, response.body)
    return [...calls]
  }
  t.same(await send('/pens', { pet: { kind: 'dog', bark: 'woof' } }), ['request Dog dog', 'response Dog dog'])
  t.same(await send('/pens', { pet: { kind: 'cat', meow: 'mew' } }), ['request Cat cat', 'response Cat cat'])
  t.same(await send('/tanks', { animal: { name: 'Nemo', kind: 'fish', fins: 2 } }), ['request Fish fish'])
  t.same(await send('/tanks', { animal: { name: 'Tweety', kind: 'bird', song: 'tweet' } }), ['request Bird bird'])
})

test('regression: a union member whose discriminator allows several values (a union of literals, an enum) took the values of the members after it', async (t) => {
  const Person = Type.Object({ kind: Type.Union([Type.Literal('person'), Type.Literal('trader')]), name: Type.String() })
  const Club = Type.Object({ kind: Type.Unsafe<string>({ type: 'string', enum: ['charity', 'club'] }), name: Type.String() })
  const Company = Type.Object({ kind: Type.Literal('company'), name: Type.String() })
  const calls: string[] = []
  class SeeEach extends VersionChange {
    description = 'Each party is seen by its own converters.'
    instructionsToMigrateToPreviousVersion = []
    @ConvertRequestToNextVersionFor(Person) person (request: RequestInfo) { calls.push(`Person ${request.body.kind as string}`) }
    @ConvertRequestToNextVersionFor(Club) club (request: RequestInfo) { calls.push(`Club ${request.body.kind as string}`) }
    @ConvertRequestToNextVersionFor(Company) company (request: RequestInfo) { calls.push(`Company ${request.body.kind as string}`) }
    @ConvertResponseToPreviousVersionFor(Company) companyDown (response: ResponseInfo) { calls.push(`Company down ${response.body.kind as string}`) }
  }
  const app = await versionedApp(t, twoVersions(SeeEach), async (api) => {
    const Party = Type.Object({ party: Type.Union([Person, Club, Company]) })
    api.post('/parties', { schema: { body: Party, response: { 200: Party } } }, async (request) => request.body)
  })
  const send = async (kind: string) => {
    calls.length = 0
    const response = await app.inject({ method: 'POST', url: '/parties', headers: v('2000-01-01'), payload: { party: { kind, name: 'n' } } })
    t.equal(response.statusCode, 200, response.body)
    return [...calls]
  }
  t.same(await send('trader'), ['Person trader'])
  t.same(await send('club'), ['Club club'])
  t.same(await send('company'), ['Company company', 'Company down company'])
})
