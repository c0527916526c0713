/**
 * The upgrade guide, `GET /docs/upgrade?from=A&to=B`: every version change between A and B (newest last) with its
 * description, the operations and webhooks it affects, and before/after examples made by the real converters,
 * each valid (closed: no field the document does not list) against the document of its version; the same
 * examples the documents show; the 400 for a bad range; `uiHooks`; the links from `/docs`.
 */
import { test, type Test } from 'tap'
import { Type, type TObject } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../examples/users/app'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, endpoint, enumeration, HeadVersion, schema, Version, VersionBundle, VersionChange,
  type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { withoutLibraries } from '../helpers/missing-libraries'
import { bodyChecker, documentOf, operationsOf, responseSchemaOf, type OpenApiDocument } from '../helpers/openapi-documents'
import { UpgradeGuides, type UpgradeGuide } from '../../lib/docs/upgrade-guide'
import { manyReleasesApp, releaseDate } from '../helpers/many-releases'
import { changeClass } from '../helpers/version-changes'
import { guideOf } from '../helpers/docs-pages'

async function example (t: Teardown, versioner = {}): Promise<FastifyInstance> {
  const app = await buildApp({ versioner })
  t.teardown(() => app.close())
  await app.ready()
  return app
}

/** The documented schema of an example's payload in a document. */
function documentedSchema (document: OpenApiDocument, example: UpgradeGuide['changes'][number]['examples'][number]): unknown {
  if (example.part === 'webhook payload') {
    const name = example.operation.replace(/^webhook /, '')
    return operationsOf(document, 'webhooks').find((operation) => operation.path === name)?.operation.requestBody?.content?.['application/json']?.schema
  }
  const [method, path] = example.operation.split(' ')
  const operation = operationsOf(document).find((candidate) => candidate.method === method && candidate.path === path)
  if (operation === undefined) return undefined
  return example.part === 'request body'
    ? operation.operation.requestBody?.content?.['application/json']?.schema
    : responseSchemaOf(operation, Number(example.status))
}

/** Every example of a guide is valid, closed, against the document of its version (before: the older one). */
function assertExamplesValid (t: Test, app: FastifyInstance, guide: UpgradeGuide): number {
  let checked = 0
  for (const change of guide.changes) {
    for (const example of change.examples) {
      // An operation the change added has no "before" (decision 0333).
      const sides = Object.hasOwn(example, 'before') ? [[change.previousVersion, example.before], [change.version, example.after]] as const : [[change.version, example.after]] as const
      for (const [version, value] of sides) {
        const document = documentOf(app, version)
        const documented = documentedSchema(document, example)
        t.ok(documented !== undefined, `${change.name}: ${example.operation} ${example.part} is documented in ${version}`)
        t.equal(bodyChecker(document, { closed: true })(documented as never, value), undefined,
          `${change.name}: ${example.operation} ${example.part} is valid in ${version} (${JSON.stringify(value)})`)
        checked++
      }
    }
  }
  return checked
}

test('the guide lists every change between two versions, oldest first, with valid before/after examples', async (t) => {
  const app = await example(t)
  const guide = await guideOf(app, '2000-01-01', '2002-01-01')
  t.equal(guide.from, '2000-01-01')
  t.equal(guide.to, '2002-01-01')
  t.same(guide.changes.map((change) => [change.previousVersion, change.version, change.name]), [
    ['2000-01-01', '2001-01-01', 'ReplaceUserAddressWithListOfAddresses'],
    ['2001-01-01', '2002-01-01', 'MoveUserAddressesToTheirOwnEndpoint']
  ], 'every change between them, newest last (HEAD\'s own change is not between public versions)')
  const changelog = app.versioner.changelog()
  for (const change of guide.changes) {
    const described = changelog.versions.find((version) => version.value === change.version)?.changes.map((entry) => entry.description)
    t.same(described, [change.description], `${change.name}: its description`)
  }
  const [older, newer] = guide.changes
  t.same(older.operations.map((operation) => `${operation.method} ${operation.path} ${operation.status}`), ['POST /users changed', 'GET /users/{userId} changed'])
  t.same(newer.operations.map((operation) => `${operation.method} ${operation.path} ${operation.status}`),
    ['POST /users changed', 'GET /users/{userId} changed', 'GET /users/{userId}/addresses added'], 'an endpoint the change added is listed as added')
  t.same(older.examples.find((entry) => entry.part === 'request body'), {
    operation: 'POST /users', part: 'request body', before: { address: 'example' }, after: { addresses: ['example'] }
  }, 'a request of the older version, converted up by the change\'s request converter')
  t.same(newer.examples.find((entry) => entry.part === 'request body')?.after, { defaultAddress: 'example' },
    'HEAD\'s internal field the converter writes is not part of the newer version\'s request')
  const response = newer.examples.find((entry) => entry.operation === 'GET /users/{userId}')
  t.same(response?.before, { id: '0f8b5a52-3c1e-4d2a-9b7f-6e4c2a1d9b30', addresses: ['1 Main St', '2 Side St'] })
  t.same(response?.after, { id: '0f8b5a52-3c1e-4d2a-9b7f-6e4c2a1d9b30' }, 'the newer version has no addresses inline')
  t.ok(assertExamplesValid(t, app, guide) >= 10, 'every example was checked against both documents')
  t.same(guide.changes.flatMap((change) => change.notes), [], 'no example was left out')

  // The same examples the documents show: the 2000-01-01 document's UserResource example is the guide's "before".
  const document = documentOf(app, '2000-01-01')
  const ref = operationsOf(document).find((operation) => operation.path === '/users/{userId}')?.operation.responses['200'].content['application/json'].schema.$ref as string
  const component = document.components.schemas[ref.split('/').pop() as string]
  t.same(component.examples[0], older.examples.find((entry) => entry.operation === 'GET /users/{userId}')?.before,
    'the response example is the one the version\'s document shows')

  const one = await guideOf(app, '2000-01-01', '2001-01-01')
  t.same(one.changes.map((change) => change.name), ['ReplaceUserAddressWithListOfAddresses'], 'a narrower range holds only its changes')
  const between = await guideOf(app, '2000-06-01', '2001-01-01')
  t.equal(between.from, '2000-01-01', 'a date between versions is the older version, as requests are served')
})

test('the HTML page shows every change, its operations and its examples, escaped, and links to the JSON', async (t) => {
  const app = await example(t)
  const response = await app.inject('/docs/upgrade?from=2000-01-01&to=2002-01-01')
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^text\/html/)
  t.equal(response.headers['x-content-type-options'], 'nosniff')
  const html = response.body
  for (const text of ['ReplaceUserAddressWithListOfAddresses', 'MoveUserAddressesToTheirOwnEndpoint', 'Users can now store several addresses',
    '<code>GET /users/{userId}/addresses</code> <span class="badge">added</span>', '&#34;defaultAddress&#34;: &#34;example&#34;',
    'href="/docs/upgrade?from=2000-01-01&#38;to=2002-01-01&#38;format=json"']) {
    t.ok(html.includes(text), `the page holds ${text}`)
  }
  t.ok(html.indexOf('ReplaceUserAddressWithListOfAddresses') < html.indexOf('MoveUserAddressesToTheirOwnEndpoint'), 'newest last')
  // Regression: only examples/users/server.ts named the API, so an app built from app.ts (as a user copies it) was "API".
  t.ok(html.includes('<h1>Users API: upgrading from 2000-01-01 to 2002-01-01</h1>'), 'the example app\'s own title, from app.ts')
  t.notOk(/<script|style=|\son[a-z]+=/i.test(html), 'no script, inline style or event handler: the page works under a strict CSP')
})

test('a bad range is a 400 saying what is accepted', async (t) => {
  const app = await example(t)
  for (const [query, says] of [
    ['from=2000-01-01&to=', "Missing 'to'"],
    ['from=&to=2002-01-01', "Missing 'from'"],
    ['from=2002-01-01', "'from' (2002-01-01) must be older than 'to' (2002-01-01, the newest release when left out)"],
    ['from=1999-01-01&to=2002-01-01', '\'from\' "1999-01-01" is not a version this API serves'],
    ['from=2000-01-01&to=tomorrow', '\'to\' "tomorrow" is not a version'],
    ['from=2002-01-01&to=2000-01-01', "'from' (2002-01-01) must be older than 'to' (2000-01-01)"],
    ['from=2001-01-01&to=2001-01-01', "'from' (2001-01-01) must be older than 'to' (2001-01-01)"],
    // A plain date between versions is served as the older one: the message says which (it read as 'from' (2001-01-01) … 'to' (2001-01-01)).
    ['from=2001-01-01&to=2001-06-01', '\'from\' (2001-01-01) must be older than \'to\' ("2001-06-01", served as 2001-01-01)'],
    ['from=2000-01-01&to=2002-01-01&format=yaml', "Unknown format 'yaml'"]
  ]) {
    const response = await app.inject(`/docs/upgrade?${query}`)
    t.equal(response.statusCode, 400, `${query}: 400`)
    const body = response.json<{ code: string, message: string }>()
    t.equal(body.code, 'FST_VERSIONER_INVALID_UPGRADE_RANGE')
    t.ok(body.message.includes(says), `${query}: ${body.message}`)
    t.ok(body.message.includes('2002-01-01, 2001-01-01, 2000-01-01'), `${query}: the versions are listed`)
  }
})

test('regression: /docs/upgrade alone, the URL the docs name, is the guide of every change, not a 400; one version given leads to or from it', async (t) => {
  const app = await example(t)
  const page = await app.inject('/docs/upgrade')
  t.equal(page.statusCode, 200, 'a page, not a 400 in JSON')
  t.match(page.headers['content-type'], /^text\/html/)
  t.ok(page.body.includes('upgrading from 2000-01-01 to 2002-01-01'), 'from the oldest version to the newest release')
  for (const [query, from, to] of [['from=2001-01-01', '2001-01-01', '2002-01-01'], ['to=2001-01-01', '2000-01-01', '2001-01-01'], ['', '2000-01-01', '2002-01-01']]) {
    const guide = await guideOf(app, ...([from, to] as const))
    const asked = (await app.inject(`/docs/upgrade?${query}${query === '' ? '' : '&'}format=json`)).json<UpgradeGuide>()
    t.same(asked, guide, `?${query}: the guide from ${from} to ${to}`)
  }
})

test('the docs page links each older version to its guide; uiHooks protect the guide; docsUrl: null turns it off', async (t) => {
  const app = await example(t)
  const list = (await app.inject('/docs')).body
  t.ok(list.includes('href="/docs/upgrade?from=2000-01-01&#38;to=2002-01-01"'), '2000-01-01 links to its guide to the latest version')
  t.ok(list.includes('href="/docs/upgrade?from=2001-01-01&#38;to=2002-01-01"'), '2001-01-01 too')
  t.notOk(list.includes('from=2002-01-01'), 'the latest version has no guide')
  const swagger = (await app.inject('/docs?version=2001-01-01')).body
  t.ok(swagger.includes('<a class="upgrade" href="/docs/upgrade?from=2001-01-01&#38;to=2002-01-01">Upgrade guide to 2002-01-01</a>'), 'a version\'s Swagger UI page links to its guide')
  t.ok((await app.inject('/redoc?version=2000-01-01')).body.includes('href="/docs/upgrade?from=2000-01-01&#38;to=2002-01-01"'), 'and its ReDoc page')
  t.notOk((await app.inject('/docs?version=2002-01-01')).body.includes('/docs/upgrade'), 'not the latest version\'s')

  const guarded = await example(t, { uiHooks: { onRequest: async (_request: unknown, reply: { code: (status: number) => { send: (body: unknown) => unknown } }) => reply.code(401).send({ message: 'login' }) } })
  t.equal((await guarded.inject('/docs/upgrade?from=2000-01-01&to=2002-01-01')).statusCode, 401, 'uiHooks run on the guide')
  const off = await example(t, { docsUrl: null })
  t.equal((await off.inject('/docs/upgrade?from=2000-01-01&to=2002-01-01')).statusCode, 404, 'no docs page, no guide')
})

test('webhooks a change affects are listed with payload examples; an example a converter refuses is a note', async (t) => {
  const Event = Type.Object({ id: Type.String(), name: Type.String(), size: Type.Integer() }, { $id: 'Event', examples: [{ id: 'e1', name: 'Ada', size: 3 }] })
  const Other = Type.Object({ ok: Type.Boolean() }, { $id: 'Other' })
  const Widget = Type.Object({ id: Type.String(), size: Type.Integer() }, { $id: 'Widget' })
  class SplitName extends VersionChange {
    description = 'name was called title.'
    instructionsToMigrateToPreviousVersion = [schema(Event).field('name').had({ name: 'title' })]
    @ConvertResponseToPreviousVersionFor(Event)
    rename (response: ResponseInfo<{ name: string }, { title: string }>) {
      const { name, ...rest } = response.body
      response.body = { ...rest, title: name }
    }
  }
  class DropSize extends VersionChange {
    description = 'size is new.'
    instructionsToMigrateToPreviousVersion = [schema(Widget).field('size').didntExist]
    @ConvertResponseToPreviousVersionFor(Widget)
    refuse (_response: ResponseInfo) { throw new Error('cannot render size') }
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01', DropSize), new Version('2001-01-01', SplitName), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/events/:id', { schema: { response: { 200: Event } } }, async () => ({ id: 'e', name: 'n', size: 1 }))
    api.get('/widgets/:id', { schema: { response: { 200: Widget } } }, async () => ({ id: 'w', size: 1 }))
    api.get('/other', { schema: { response: { 200: Other } } }, async () => ({ ok: true }))
  }, { beforeRoutes: (instance) => { instance.versioner.webhooks.add({ name: 'event.created', body: Event }) } })
  await app.ready()
  const guide = await guideOf(app, '2000-01-01', '2002-01-01')
  const [split, drop] = guide.changes
  t.same(split.operations.map((operation) => `${operation.method} ${operation.path}`), ['GET /events/{id}'], 'the route holding the schema, not the other one')
  t.same(split.webhooks, [{ name: 'event.created', method: 'POST', status: 'changed' }], 'the webhook whose payload holds the schema')
  t.same(split.examples.find((entry) => entry.part === 'webhook payload'), {
    operation: 'webhook event.created', part: 'webhook payload', before: { id: 'e1', size: 3, title: 'Ada' }, after: { id: 'e1', name: 'Ada', size: 3 }
  }, 'the payload example before and after, from HEAD\'s example through the converters')
  assertExamplesValid(t, app, { ...guide, changes: [split] })
  t.same(drop.operations.map((operation) => `${operation.method} ${operation.path}`), ['GET /widgets/{id}'])
  t.same(drop.examples, [], 'no example when a converter refuses it')
  t.ok(drop.notes.some((note) => note.includes('cannot render size')), `the note says why: ${drop.notes.join('; ')}`)
})

test('a webhook added (didntExist) or removed (onlyExistsInOlderVersions) is listed with its status, as an operation is', async (t) => {
  const Event = Type.Object({ id: Type.String() })
  const Changes = changeClass('AddVoidedRemoveFinalized', [endpoint('invoice.voided', ['POST']).didntExist, endpoint('invoice.finalized', ['POST']).existed])
  const versions = new VersionBundle(new Version('2001-01-01', Changes), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => { api.get('/ping', async () => ({ ok: true })) }, {
    beforeRoutes: (instance) => {
      instance.versioner.webhooks.add({ name: 'invoice.voided', body: Event }).add({ name: 'invoice.finalized', body: Event, onlyExistsInOlderVersions: true })
    }
  })
  await app.ready()
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(change.webhooks, [{ name: 'invoice.finalized', method: 'POST', status: 'removed' }, { name: 'invoice.voided', method: 'POST', status: 'added' }])
  const page = (await app.inject('/docs/upgrade?from=2000-01-01&to=2001-01-01')).body
  t.match(page, '<li><code>webhook invoice.finalized (POST)</code> <span class="badge">removed</span></li>', 'the page shows it removed')
  t.match(page, '<li><code>webhook invoice.voided (POST)</code> <span class="badge">added</span></li>')
  // Regression: an added webhook had no example; its payload is shown as the version after the change sends it (decision 0333).
  t.same(change.examples, [{ operation: 'webhook invoice.voided', part: 'webhook payload', after: { id: 'example' } }], 'the added webhook\'s payload, with no "before"')
  t.match(page, '<h4>webhook invoice.voided: webhook payload</h4><div class="after"><h5>2001-01-01 (added by this change)</h5>')
})

test('preview versions are in guides only asked with ?channel=preview (decision 0276); links lead released versions to the newest release', async (t) => {
  const Thing = Type.Object({ id: Type.String(), label: Type.String() }, { $id: 'Thing' })
  class Labels extends VersionChange {
    description = 'label was called name.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('label').had({ name: 'name' })]
    @ConvertResponseToPreviousVersionFor(Thing)
    rename (response: ResponseInfo<{ id: string, label: string }, { id: string, name: string }>) {
      response.body = { id: response.body.id, name: response.body.label }
    }
  }
  class Beta extends VersionChange {
    description = 'Beta: nothing yet.'
    instructionsToMigrateToPreviousVersion = []
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2027-01-01.beta', Beta, { channel: 'preview', access: () => true }),
    new Version('2001-01-01', Labels), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/things/:id', { schema: { response: { 200: Thing } } }, async () => ({ id: 't', label: 'l' }))
  })
  await app.ready()
  const guide = await guideOf(app, '2000-01-01', '2001-01-01')
  t.same(guide.changes.map((change) => change.name), ['Labels'])
  const preview = await app.inject('/docs/upgrade?from=2000-01-01&to=2027-01-01.beta&format=json')
  t.equal(preview.statusCode, 400, 'a preview version is not a guide\'s end without the channel')
  t.match(preview.json<{ message: string }>().message, /versions 2001-01-01, 2000-01-01 \(newest first\)/, 'the message lists the released versions')
  const list = (await app.inject('/docs?channel=preview')).body
  t.ok(list.includes('href="/docs/upgrade?from=2000-01-01&#38;to=2001-01-01&#38;channel=preview"'), 'released versions lead to the newest release, keeping the channel')
  const asked = await app.inject('/docs/upgrade?from=2000-01-01&to=2027-01-01.beta&format=json&channel=preview')
  t.same(asked.json<UpgradeGuide>().changes.map((change) => change.name), ['Labels', 'Beta'], 'asked with the channel, the preview is a guide\'s end')
  t.ok(list.includes('2027-01-01.beta'), 'the list shows the preview version')
  t.notOk(list.includes('from=2027-01-01.beta'), 'a preview version has no guide')
})

/** Every example of a guide differs before and after: a pair the same in both versions is never shown. */
function assertNoIdenticalPair (t: Test, guide: UpgradeGuide): void {
  const same = guide.changes.flatMap((change) => change.examples.filter((entry) => JSON.stringify(entry.before) === JSON.stringify(entry.after))
    .map((entry) => `${change.name}: ${entry.operation} ${entry.part}`))
  t.same(same, [], 'no example is the same before and after')
}

const OrderStatus = Type.Union([Type.Literal('pending'), Type.Literal('paid'), Type.Literal('refunded'), Type.Literal('open')], { $id: 'OrderStatus' })
const Order = Type.Object({ id: Type.String(), status: OrderStatus, note: Type.Optional(Type.String({ maxLength: 20 })) }, {
  $id: 'Order', examples: [{ id: 'o-1', status: 'paid', note: 'gift' }]
})
const OrderInput = Type.Object({ status: OrderStatus }, { $id: 'OrderInput' })

async function enumApp (t: Test, changes: { newer: VersionChangeClass, older: VersionChangeClass }): Promise<FastifyInstance> {
  const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01', changes.newer), new Version('2001-01-01', changes.older), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.post('/orders', { schema: { body: OrderInput, response: { 201: Order } } }, async (request) => ({ id: 'o', status: request.body.status }))
  })
  await app.ready()
  return app
}

test('regression: an enum change shows the member that differs and what an old client receives instead, not identical pairs', async (t) => {
  // Before: the examples held the enum's first member, the same in both versions, and the change showed nothing.
  class AddRefunds extends VersionChange {
    description = 'Orders can be refunded.'
    instructionsToMigrateToPreviousVersion = [enumeration(OrderStatus).didntHave('refunded')]
    @ConvertResponseToPreviousVersionFor(Order)
    refundedWasPaid (response: ResponseInfo<{ status: string }>) {
      if (response.body.status === 'refunded') response.body.status = 'paid'
    }
  }
  class OpenWasPending extends VersionChange {
    description = "'open' was called 'pending' and was no value of its own."
    instructionsToMigrateToPreviousVersion = [enumeration(OrderStatus).didntHave('open'), enumeration(OrderStatus).had({ waiting: 'waiting' })]
    @ConvertRequestToNextVersionFor(OrderInput)
    waitingIsOpen (request: RequestInfo<{ status: string }>) {
      if (request.body.status === 'waiting') request.body.status = 'open'
    }

    @ConvertResponseToPreviousVersionFor(Order)
    openIsWaiting (response: ResponseInfo<{ status: string }>) {
      if (response.body.status === 'open') response.body.status = 'waiting'
    }
  }
  const app = await enumApp(t, { newer: AddRefunds, older: OpenWasPending })
  const guide = await guideOf(app, '2000-01-01', '2002-01-01')
  const [older, newer] = guide.changes
  t.same(newer.examples, [{
    operation: 'POST /orders',
    part: 'response body',
    status: '201',
    shows: 'the enum OrderStatus value "refunded", which 2001-01-01 lacks',
    before: { id: 'o-1', status: 'paid', note: 'gift' },
    after: { id: 'o-1', status: 'refunded', note: 'gift' }
  }], 'HEAD\'s example holding the removed member: the newer version sends it, the older one what the converter made of it')
  t.same(newer.notes, ['POST /orders request body: not shown, the same in 2001-01-01 and 2002-01-01: a client of 2001-01-01 sends the same bodies; 2002-01-01 also accepts "refunded"'],
    'the request is the same in both versions: the note says why')
  t.same(older.examples.map((entry) => [entry.part, entry.shows, entry.before, entry.after]), [
    ['request body', 'the enum OrderStatus value "waiting", which 2001-01-01 lacks', { status: 'waiting' }, { status: 'open' }],
    ['response body', 'the enum OrderStatus value "open", which 2000-01-01 lacks', { id: 'o-1', status: 'waiting', note: 'gift' }, { id: 'o-1', status: 'open', note: 'gift' }]
  ], 'an old client\'s request holding the member the newer version lacks, converted up; a response holding the newer member, converted down')
  t.same(older.notes, [])
  assertNoIdenticalPair(t, guide)
  assertExamplesValid(t, app, guide)
  const html = (await app.inject('/docs/upgrade?from=2001-01-01&to=2002-01-01')).body
  t.ok(html.includes('<p>With the enum OrderStatus value &#34;refunded&#34;, which 2001-01-01 lacks:</p>'), 'the page says what the example shows')
})

test('an enum member no converter maps: the guide says what the server does instead of showing a pair', async (t) => {
  class AddRefunds extends VersionChange {
    description = 'Orders can be refunded.'
    instructionsToMigrateToPreviousVersion = [enumeration(OrderStatus).didntHave('refunded')]
  }
  class Waiting extends VersionChange {
    description = "'waiting' is no more."
    instructionsToMigrateToPreviousVersion = [enumeration(OrderStatus).had({ waiting: 'waiting' })]
  }
  const app = await enumApp(t, { newer: AddRefunds, older: Waiting })
  const guide = await guideOf(app, '2000-01-01', '2002-01-01')
  const [older, newer] = guide.changes
  t.same(newer.examples, [])
  t.same(newer.notes, [
    'POST /orders request body: not shown, the same in 2001-01-01 and 2002-01-01: a client of 2001-01-01 sends the same bodies; 2002-01-01 also accepts "refunded"',
    'POST /orders response body (201), the enum OrderStatus value "refunded", which 2001-01-01 lacks: a client of 2001-01-01 receives a 500 ' +
      'FST_VERSIONER_UNCONVERTIBLE_RESPONSE instead: no response converter maps "refunded" to a value that version has (add one)'
  ])
  t.same(older.notes, [
    'POST /orders request body, the enum OrderStatus value "waiting", which 2001-01-01 lacks: no example (no request converter of this change turns it ' +
      'into a value 2001-01-01 has: such a request fails on the server (add one))',
    "POST /orders response body (201): not shown, the same in 2000-01-01 and 2001-01-01: this change does not alter this example (what differs is in the two versions' schemas)"
  ])
  const served = await app.inject({ method: 'POST', url: '/orders', payload: { status: 'waiting' }, headers: { 'x-api-version': '2000-01-01' } })
  t.equal(served.statusCode, 500, 'what the note says the server does')
})

test('a retype shows a value valid in the older schema (its pattern honoured), or says to give one with had({ examples })', async (t) => {
  const Item = Type.Object({ code: Type.Integer(), size: Type.Integer() }, { $id: 'Item' })
  const ItemInput = Type.Object({ code: Type.Integer(), size: Type.Integer() }, { $id: 'ItemInput' })
  const CODE = Type.String({ pattern: '^C[0-9]{3}$' })
  // A lookahead: fast-check cannot make a string from it; the second change gives one.
  const SIZE = Type.String({ pattern: '^(?!0)[0-9]+$' })
  class CodeWasString extends VersionChange {
    description = 'code was a string: C and three digits.'
    instructionsToMigrateToPreviousVersion = [schema(Item).field('code').had({ type: CODE }), schema(ItemInput).field('code').had({ type: CODE })]
    @ConvertRequestToNextVersionFor(ItemInput)
    up (request: RequestInfo<{ code: string }>) { request.body.code = Number(request.body.code.slice(1)) as unknown as string }

    @ConvertResponseToPreviousVersionFor(Item)
    down (response: ResponseInfo<{ code: number }>) { response.body.code = `C${String(response.body.code).padStart(3, '0')}` as unknown as number }
  }
  const build = async (given: boolean): Promise<FastifyInstance> => {
    class SizeWasString extends VersionChange {
      description = 'size was a string.'
      instructionsToMigrateToPreviousVersion = [schema(ItemInput).field('size').had({ type: SIZE, ...(given ? { examples: ['42'] } : {}) })]
      @ConvertRequestToNextVersionFor(ItemInput)
      up (request: RequestInfo<{ size: string }>) { request.body.size = Number(request.body.size) as unknown as string }
    }
    const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01', CodeWasString), new Version('2001-01-01', SizeWasString), new Version('2000-01-01'))
    const app = await versionedApp(t, versions, async (api) => {
      api.post('/items', { schema: { body: ItemInput, response: { 200: Item } } }, async (request) => request.body)
    })
    await app.ready()
    return app
  }
  const app = await build(false)
  const guide = await guideOf(app, '2000-01-01', '2002-01-01')
  const [size, code] = guide.changes
  const request = code.examples.find((entry) => entry.part === 'request body') as { before: { code: string }, after: { code: number } } | undefined
  t.match(request?.before, { code: /^C[0-9]{3}$/ }, `the older code matches the pattern (${JSON.stringify(request?.before)})`)
  t.equal(request?.after.code, Number(request?.before.code.slice(1)), 'and the converter made a number of it')
  t.same((await guideOf(app, '2000-01-01', '2002-01-01')).changes[1].examples, code.examples, 'the same example every time')
  t.same(size.examples, [])
  t.same(size.notes, ['POST /items request body: no example (no string could be made to match the pattern "^(?!0)[0-9]+$": give the schema an example ' +
    "(its `examples`, or `had({ examples })` in a version change) at '/size' in version 2000-01-01)"], 'a pattern no string could be made for: the note says what to do')
  assertNoIdenticalPair(t, guide)
  assertExamplesValid(t, app, guide)

  const given = await guideOf(await build(true), '2000-01-01', '2001-01-01')
  t.same(given.changes[0].examples.map((entry) => [entry.before, entry.after]), [[{ code: request?.before.code, size: '42' }, { code: request?.before.code, size: 42 }]],
    'with had({ examples }), that example')
})

test('without fast-check (an optional dependency left out), a pattern example is a note saying to install it; the page still serves', async (t) => {
  withoutLibraries(t, ['fast-check'])
  const ItemInput = Type.Object({ code: Type.Integer() }, { $id: 'ItemInput' })
  class CodeWasString extends VersionChange {
    description = 'code was a string: C and three digits.'
    instructionsToMigrateToPreviousVersion = [schema(ItemInput).field('code').had({ type: Type.String({ pattern: '^C[0-9]{3}$' }) })]
    @ConvertRequestToNextVersionFor(ItemInput)
    up (request: RequestInfo<{ code: string }>) { request.body.code = Number(request.body.code.slice(1)) as unknown as string }
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', CodeWasString), new Version('2000-01-01')), async (api) => {
    api.post('/items', { schema: { body: ItemInput } }, async (request) => request.body)
  })
  await app.ready()
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(change.examples, [])
  t.same(change.notes, ['POST /items request body: no example (no string could be made to match the pattern "^C[0-9]{3}$": fast-check, which makes ' +
    'such strings, is not installed (an optional dependency of fastify-versioner: npm install fast-check@^4.10.2); or give the schema an example ' +
    "(its `examples`, or `had({ examples })` in a version change) at '/code' in version 2000-01-01)"])
  const page = await app.inject('/docs/upgrade?from=2000-01-01&to=2001-01-01')
  t.equal(page.statusCode, 200, 'the page serves')
  t.match(page.body, 'npm install fast-check@^4.10.2')
  const served = await app.inject({ method: 'POST', url: '/items', headers: { 'x-api-version': '2000-01-01' }, payload: { code: 'C007' } })
  t.same(served.json(), { code: 7 }, 'and the API serves as ever')
})

test('regression: a retype to a format the app declares shows a value of it (a RegExp), or says the format is checked by a function', async (t) => {
  const SKU = /^[A-Z]{3}-\d+$/
  const Item = Type.Object({ code: Type.Integer() }, { $id: 'Item' })
  const ItemInput = Type.Object({ code: Type.Integer(), lot: Type.Integer() }, { $id: 'ItemInput' })
  const CODE = Type.String({ format: 'sku' })
  class CodeWasSku extends VersionChange {
    description = 'code was a SKU.'
    instructionsToMigrateToPreviousVersion = [schema(Item).field('code').had({ type: CODE }), schema(ItemInput).field('code').had({ type: CODE })]
    @ConvertRequestToNextVersionFor(ItemInput)
    up (request: RequestInfo<{ code: string }>) { request.body.code = Number(request.body.code.split('-')[1]) as unknown as string }

    @ConvertResponseToPreviousVersionFor(Item)
    down (response: ResponseInfo<{ code: number }>) { response.body.code = `ABC-${response.body.code}` as unknown as number }
  }
  class LotWasString extends VersionChange {
    description = 'lot was a string.'
    instructionsToMigrateToPreviousVersion = [schema(ItemInput).field('lot').had({ type: Type.String({ format: 'lot' }) })]
    @ConvertRequestToNextVersionFor(ItemInput)
    up (request: RequestInfo<{ lot: string }>) { request.body.lot = Number(request.body.lot.slice(1)) as unknown as string }
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01', CodeWasSku), new Version('2001-01-01', LotWasString), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.post('/items', { schema: { body: ItemInput, response: { 200: Item } } }, async (request) => ({ code: request.body.code }))
  }, { fastify: { ajv: { customOptions: { formats: { sku: SKU, lot: (value: string) => /^L\d+$/.test(value) } } } } })
  await app.ready()
  const guide = await guideOf(app, '2001-01-01', '2002-01-01')
  const request = guide.changes[0].examples.find((entry) => entry.part === 'request body') as { before: { code: string }, after: { code: number } } | undefined
  t.match(request?.before, { code: SKU }, `the older code is a SKU (${JSON.stringify(request?.before)})`)
  t.equal(request?.after.code, Number(request?.before.code.split('-')[1]), 'and the converter made a number of it')
  t.same(guide.changes[0].notes, [], 'no note')
  assertExamplesValid(t, app, guide)
  const [lot] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(lot.examples, [])
  t.same(lot.notes, ['POST /items request body: no example (no string could be made to match the format "lot", which the application\'s Ajv checks with ' +
    'a function (no string can be made from one): give the schema an example (its `examples`, or `had({ examples })` in a version change) ' +
    "at '/lot' in version 2000-01-01)"], 'a function format: the note says so, and what to do')
})

test('regression: a renamed request field shows its request example when the HEAD body has object-level examples (HEAD\'s shape)', async (t) => {
  const NewUser = Type.Object({ fullName: Type.String({ examples: ['Ada Lovelace'] }) }, { $id: 'NewUser', examples: [{ fullName: 'Ada' }] })
  class Rename extends VersionChange {
    description = 'name became fullName.'
    instructionsToMigrateToPreviousVersion = [schema(NewUser).field('fullName').had({ name: 'name' })]
    @ConvertRequestToNextVersionFor(NewUser)
    forward (request: RequestInfo<{ name?: string, fullName?: string }>) {
      request.body.fullName = request.body.name
      delete request.body.name
    }
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', Rename), new Version('2000-01-01')), async (api) => {
    api.post('/users', { schema: { body: NewUser } }, async () => ({}))
  })
  await app.ready()
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(change.examples, [{ operation: 'POST /users', part: 'request body', before: { name: 'Ada Lovelace' }, after: { fullName: 'Ada Lovelace' } }],
    'HEAD\'s example, of HEAD\'s shape, is left out in 2000-01-01 (as its document does): the example is built from the form\'s keywords')
  t.same(change.notes, [])
  t.notOk(JSON.stringify(documentOf(app, '2000-01-01').components.schemas.NewUser).includes('"Ada"'), 'the document of 2000-01-01 does not show HEAD\'s example either')
})

test('regression: two changes of one version renaming fields of one request body each show its example, and only their own payloads', async (t) => {
  // Each change's request converter alone made a body neither version has (one field renamed, the other not yet):
  // the example was left out with a note blaming the converters; and a change not touching the body showed its
  // sibling's response pair.
  const Order = Type.Object({ sku: Type.String(), qty: Type.Integer() }, { $id: 'Order' })
  const Problem = Type.Object({ code: Type.String() }, { $id: 'Problem' })
  class SkuWasCode extends VersionChange {
    description = 'sku was code.'
    instructionsToMigrateToPreviousVersion = [schema(Order).field('sku').had({ name: 'code' })]
    @ConvertRequestToNextVersionFor(Order) up (request: RequestInfo) { request.body.sku = request.body.code; delete request.body.code }
    @ConvertResponseToPreviousVersionFor(Order) down (response: ResponseInfo) { response.body.code = response.body.sku; delete response.body.sku }
  }
  class QtyWasCount extends VersionChange {
    description = 'qty was count.'
    instructionsToMigrateToPreviousVersion = [schema(Order).field('qty').had({ name: 'count' })]
    @ConvertRequestToNextVersionFor(Order) up (request: RequestInfo) { request.body.qty = request.body.count; delete request.body.count }
    @ConvertResponseToPreviousVersionFor(Order) down (response: ResponseInfo) { response.body.count = response.body.qty; delete response.body.qty }
  }
  class ProblemCodeWasKind extends VersionChange {
    description = 'code was kind.'
    instructionsToMigrateToPreviousVersion = [schema(Problem).field('code').had({ name: 'kind' })]
    @ConvertResponseToPreviousVersionFor(Problem, { migrateHttpErrors: true }) down (response: ResponseInfo) { response.body.kind = response.body.code; delete response.body.code }
  }
  const received: unknown[] = []
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', SkuWasCode, QtyWasCount, ProblemCodeWasKind), new Version('2000-01-01')), async (api) => {
    api.post('/orders', { schema: { body: Order, response: { 201: Order, 422: Problem } } }, async (request, reply) => {
      received.push(request.body)
      return await reply.code(201).send(request.body)
    })
  })
  await app.ready()
  const guide = await guideOf(app, '2000-01-01', '2001-01-01')
  const pair = { before: { code: 'example', count: 1 }, after: { sku: 'example', qty: 1 } }
  for (const name of ['SkuWasCode', 'QtyWasCount']) {
    const change = guide.changes.find((entry) => entry.name === name)
    t.same(change?.notes, [], `${name}: no example left out`)
    t.same(change?.examples, [
      { operation: 'POST /orders', part: 'request body', ...pair },
      { operation: 'POST /orders', part: 'response body', status: '201', ...pair }
    ], `${name}: the request and the response as each version has them`)
  }
  const problem = guide.changes.find((entry) => entry.name === 'ProblemCodeWasKind')
  t.same(problem?.operations.map((operation) => `${operation.method} ${operation.path}`), ['POST /orders'])
  t.same(problem?.examples, [{ operation: 'POST /orders', part: 'response body', status: '422', before: { kind: 'example' }, after: { code: 'example' } }],
    'the change touching neither body shows no example of them, only of the error body it reshapes')
  t.same(problem?.notes, [])
  // What the guide says is what the server does.
  for (const [version, body] of [['2000-01-01', pair.before], ['2001-01-01', pair.after]] as const) {
    const response = await app.inject({ method: 'POST', url: '/orders', headers: { 'x-api-version': version }, payload: body })
    t.same(response.json(), body, `${version}: the response is the example's`)
  }
  t.same(received, [pair.after, pair.after], 'both requests reach the handler as the newer version\'s example')
  t.ok(assertExamplesValid(t, app, guide) >= 8)
})

test('regression: a change to a union member the example does not hold shows one holding it, not a note that nothing differs', async (t) => {
  const Card = Type.Object({ type: Type.Literal('card'), number: Type.String() }, { $id: 'Card' })
  const Bank = Type.Object({ type: Type.Literal('bank'), iban: Type.String() }, { $id: 'Bank' })
  const Payment = Type.Object({ id: Type.String(), method: Type.Union([Card, Bank]) }, { $id: 'Payment' })
  class BankWasBankAccount extends VersionChange {
    description = 'bank was bank_account.'
    instructionsToMigrateToPreviousVersion = [schema(Bank).field('type').had({ type: Type.Literal('bank_account') })]
    @ConvertRequestToNextVersionFor(Bank) up (request: RequestInfo) { request.body.type = 'bank' }
    @ConvertResponseToPreviousVersionFor(Bank) down (response: ResponseInfo) { response.body.type = 'bank_account' }
  }
  const received: unknown[] = []
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', BankWasBankAccount), new Version('2000-01-01')), async (api) => {
    api.post('/payments', { schema: { body: Payment, response: { 201: Payment } } }, async (request, reply) => {
      received.push(request.body)
      return await reply.code(201).send(request.body)
    })
  })
  await app.ready()
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  const shows = 'a Bank, which this change edits'
  const pair = { before: { id: 'example', method: { type: 'bank_account', iban: 'example' } }, after: { id: 'example', method: { type: 'bank', iban: 'example' } } }
  t.same(change.examples, [
    { operation: 'POST /payments', part: 'request body', shows, ...pair },
    { operation: 'POST /payments', part: 'response body', status: '201', shows, ...pair }
  ], 'the examples hold a Bank, though a Card is the union\'s first member')
  t.same(change.notes, [], 'no note that the pair is the same in both versions')
  for (const [version, body] of [['2000-01-01', pair.before], ['2001-01-01', pair.after]] as const) {
    const response = await app.inject({ method: 'POST', url: '/payments', headers: { 'x-api-version': version }, payload: body })
    t.same(response.json(), body, `${version}: the response is the example's`)
  }
  t.same(received, [pair.after, pair.after], 'both requests reach the handler as the newer version\'s example')
  t.ok(assertExamplesValid(t, app, { from: '2000-01-01', to: '2001-01-01', changes: [change] }) >= 4)
})

test('regression: HEAD\'s example already holding the added enum member is shown once, saying what it shows', async (t) => {
  const State = Type.Union([Type.Literal('active'), Type.Literal('frozen')], { $id: 'State' })
  const Account = Type.Object({ id: Type.String(), state: State }, { $id: 'Account', examples: [{ id: 'a-1', state: 'frozen' }] })
  class AddFrozen extends VersionChange {
    description = 'Accounts can be frozen.'
    instructionsToMigrateToPreviousVersion = [enumeration(State).didntHave('frozen')]
    @ConvertResponseToPreviousVersionFor(Account)
    frozenWasActive (response: ResponseInfo<{ state: string }>) {
      if (response.body.state === 'frozen') response.body.state = 'active'
    }
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', AddFrozen), new Version('2000-01-01')), async (api) => {
    api.get('/accounts/:id', { schema: { response: { 200: Account } } }, async () => ({ id: 'a', state: 'active' as const }))
  })
  await app.ready()
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(change.examples, [{
    operation: 'GET /accounts/{id}',
    part: 'response body',
    status: '200',
    shows: 'the enum State value "frozen", which 2000-01-01 lacks',
    before: { id: 'a-1', state: 'active' },
    after: { id: 'a-1', state: 'frozen' }
  }], 'one example, not the same pair twice')
})

test('regression: a response example a converter refuses gives way to HEAD\'s next example, the one the document shows', async (t) => {
  const Person = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'Person', examples: [{ id: 'p-0', fullName: '' }, { id: 'p-1', fullName: 'Ada Lovelace' }] })
  class Rename extends VersionChange {
    description = 'name became fullName.'
    instructionsToMigrateToPreviousVersion = [schema(Person).field('fullName').had({ name: 'name', type: Type.String({ minLength: 1 }) })]
    @ConvertResponseToPreviousVersionFor(Person)
    back (response: ResponseInfo<{ fullName?: string, name?: string }>) {
      if (response.body.fullName === '') throw new Error('an empty name has no older form')
      response.body.name = response.body.fullName
      delete response.body.fullName
    }
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', Rename), new Version('2000-01-01')), async (api) => {
    api.get('/people/:id', { schema: { response: { 200: Person } } }, async () => ({ id: 'p', fullName: 'A' }))
  })
  await app.ready()
  t.same(documentOf(app, '2000-01-01').components.schemas.Person.examples, [{ id: 'p-1', name: 'Ada Lovelace' }], 'the document shows the second example')
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(change.examples, [{
    operation: 'GET /people/{id}', part: 'response body', status: '200', before: { id: 'p-1', name: 'Ada Lovelace' }, after: { id: 'p-1', fullName: 'Ada Lovelace' }
  }], 'the guide shows the same one')
  t.same(change.notes, [])
})

test('regression: an enum member added, then renamed in a later version, still shows its example in the older change', async (t) => {
  const Plan = Type.Union([Type.Literal('free'), Type.Literal('pro'), Type.Literal('business')], { $id: 'Plan' })
  const Customer = Type.Object({ id: Type.String(), plan: Plan }, { $id: 'Customer', examples: [{ id: 'c-1', plan: 'pro' }] })
  class AddTeamPlan extends VersionChange {
    description = 'The team plan.'
    instructionsToMigrateToPreviousVersion = [enumeration(Plan).didntHave('team')]
    @ConvertResponseToPreviousVersionFor(Customer)
    teamWasPro (response: ResponseInfo<{ plan: string }>) {
      if (response.body.plan === 'team') response.body.plan = 'pro'
    }
  }
  class RenameTeamToBusiness extends VersionChange {
    description = 'The team plan is the business plan.'
    instructionsToMigrateToPreviousVersion = [enumeration(Plan).had({ business: 'team' })]
    @ConvertResponseToPreviousVersionFor(Customer)
    businessWasTeam (response: ResponseInfo<{ plan: string }>) {
      if (response.body.plan === 'business') response.body.plan = 'team'
    }
  }
  const versions = new VersionBundle(new Version('2025-03-01', RenameTeamToBusiness), new Version('2025-02-01', AddTeamPlan), new Version('2025-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/customers/:id', { schema: { response: { 200: Customer } } }, async () => ({ id: 'c', plan: 'pro' as const }))
  })
  await app.ready()
  const [added, renamed] = (await guideOf(app, '2025-01-01', '2025-03-01')).changes
  t.same(added.examples, [{
    operation: 'GET /customers/{id}',
    part: 'response body',
    status: '200',
    shows: 'the enum Plan value "team", which 2025-01-01 lacks',
    before: { id: 'c-1', plan: 'pro' },
    after: { id: 'c-1', plan: 'team' }
  }], 'the member as the version after the change names it, made from the HEAD member it became')
  t.same(added.notes, [], 'not "this change does not alter this example"')
  t.same(renamed.examples.map((example) => example.shows), ['the enum Plan value "business", which 2025-02-01 lacks'])
})

test('regression: a pattern shared by many routes and versions is sampled by fast-check once, not once per example', async (t) => {
  const fc = require('fast-check') as { sample: (...args: unknown[]) => unknown }
  const sample = fc.sample
  let calls = 0
  fc.sample = (...args: unknown[]) => { calls++; return sample(...args) }
  t.teardown(() => { fc.sample = sample })
  const Item = Type.Object({ code: Type.Integer(), note: Type.String() }, { $id: 'Item' })
  const ItemInput = Type.Object({ code: Type.Integer(), note: Type.String() }, { $id: 'ItemInput' })
  const CODE = Type.String({ pattern: '^K[0-9]{4}$' })
  class CodeWasString extends VersionChange {
    description = 'code was a string.'
    instructionsToMigrateToPreviousVersion = [schema(Item).field('code').had({ type: CODE }), schema(ItemInput).field('code').had({ type: CODE })]
    @ConvertRequestToNextVersionFor(ItemInput)
    up (request: RequestInfo<{ code: string }>) { request.body.code = Number(request.body.code.slice(1)) as unknown as string }

    @ConvertResponseToPreviousVersionFor(Item)
    down (response: ResponseInfo<{ code: number }>) { response.body.code = `K${String(response.body.code).padStart(4, '0')}` as unknown as number }
  }
  class NoteWasShort extends VersionChange {
    description = 'a note was at most 40 characters.'
    instructionsToMigrateToPreviousVersion = [schema(Item).field('note').had({ maxLength: 40 }), schema(ItemInput).field('note').had({ maxLength: 40 })]
    @ConvertResponseToPreviousVersionFor(Item)
    down (response: ResponseInfo<{ note: string }>) { response.body.note = response.body.note.slice(0, 40) }
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01', CodeWasString), new Version('2001-01-01', NoteWasShort), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    for (let k = 0; k < 6; k++) api.post(`/items${k}`, { schema: { body: ItemInput, response: { 200: Item } } }, async (request) => request.body)
  })
  await app.ready()
  const guide = await guideOf(app, '2000-01-01', '2002-01-01')
  t.equal(guide.changes[0].operations.length, 6, 'the older change affects the 6 routes, and its examples hold the code as a string')
  t.match(guide.changes[1].examples.find((entry) => entry.part === 'request body')?.before, { code: /^K[0-9]{4}$/ }, 'the example matches the pattern')
  await guideOf(app, '2001-01-01', '2002-01-01')
  t.equal(calls, 1, 'one sample of the pattern for 6 routes, 2 changes and two guides')
})

test('regression: the guides of many ranges neither keep every range built nor build a change again per range', async (t) => {
  const counts = { guides: 0, changes: 0 }
  const prototype = UpgradeGuides.prototype as unknown as Record<'guide' | 'changeAt', (...args: unknown[]) => unknown>
  for (const [name, count] of [['guide', 'guides'], ['changeAt', 'changes']] as const) {
    const original = prototype[name]
    prototype[name] = function (this: unknown, ...args: unknown[]) { counts[count]++; return original.apply(this, args) }
    t.teardown(() => { prototype[name] = original })
  }
  const app = await manyReleasesApp(t, 8)
  await app.ready()
  const ranges: Array<[number, number]> = []
  for (let from = 1; from < 8; from++) for (let to = from + 1; to <= 8; to++) ranges.push([from, to])
  t.equal(ranges.length, 28)
  const first = await guideOf(app, releaseDate(1), releaseDate(8))
  for (const [from, to] of ranges) t.same((await guideOf(app, releaseDate(from), releaseDate(to))).changes.length, to - from)
  t.equal(counts.changes, 7, 'each of the 7 changes built once, for 28 ranges')
  t.equal(counts.guides, 28, 'each range built once: the first was still kept when asked for again')
  t.same(await guideOf(app, releaseDate(1), releaseDate(8)), first, 'the same guide')
  t.equal(counts.guides, 29, 'built again once the 16 ranges kept were others')
  await guideOf(app, releaseDate(7), releaseDate(8))
  t.equal(counts.guides, 29, 'a range asked for lately is kept')
})

test('regression: a change that moved a path names the path the older version\'s clients call, in the JSON and on the page', async (t) => {
  // The guide listed only the newer path (`GET /api/users/{id}`): a client of the older version, calling
  // `/api/accounts/{id}`, was not told its URL changed.
  class AccountsAreUsers extends VersionChange {
    description = 'Accounts are called users.'
    instructionsToMigrateToPreviousVersion = [endpoint('/users/:id', ['GET']).had({ path: '/accounts/:id' })]
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', AccountsAreUsers), new Version('2000-01-01')), async (api) => {
    api.get('/users/:id', async () => ({}))
    api.get('/orders', async () => [])
  }, { prefix: '/api' })
  await app.ready()
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(change.operations, [{ method: 'GET', path: '/api/users/{id}', previousPath: '/api/accounts/{id}', status: 'changed' }])
  const page = (await app.inject('/docs/upgrade?from=2000-01-01&to=2001-01-01')).body
  t.ok(page.includes('<code>GET /api/users/{id}</code> (was <code>/api/accounts/{id}</code>)'), 'the page says what the path was')
})

test('regression: a wildcard route is named by the path its documents give it (`/files/{*}`), not `/files/*`', async (t) => {
  // The guide wrote paths with its own rewrite of `:param`, which left `*` as it was: the operation it named was
  // found in no document.
  class FilesMoved extends VersionChange {
    description = 'Files moved under /files.'
    instructionsToMigrateToPreviousVersion = [endpoint('/files/*', ['GET']).had({ path: '/documents/*' })]
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', FilesMoved), new Version('2000-01-01')), async (api) => {
    api.get('/files/*', async () => ({}))
  })
  await app.ready()
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(change.operations, [{ method: 'GET', path: '/files/{*}', previousPath: '/documents/{*}', status: 'changed' }])
  t.same(operationsOf(documentOf(app, '2001-01-01')).map((operation) => operation.path), ['/files/{*}'], 'the path the document gives it')
  t.same(operationsOf(documentOf(app, '2000-01-01')).map((operation) => operation.path), ['/documents/{*}'], 'and the older document')
})

test('regression: a change that moved a route\'s method names the method the older version\'s clients call, in the JSON and on the page', async (t) => {
  // The guide listed only `PATCH /users/{id}`: a client of the older version, calling `PUT`, was not told its method changed.
  class UpdatesArePatches extends VersionChange {
    description = 'Users are updated with PATCH.'
    instructionsToMigrateToPreviousVersion = [endpoint('/users/:id', ['PATCH']).had({ methods: ['PUT'] })]
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', UpdatesArePatches), new Version('2000-01-01')), async (api) => {
    api.patch('/users/:id', async () => ({}))
    api.get('/users/:id', async () => ({}))
  })
  await app.ready()
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(change.operations, [{ method: 'PATCH', path: '/users/{id}', previousMethod: 'PUT', status: 'changed' }])
  const page = (await app.inject('/docs/upgrade?from=2000-01-01&to=2001-01-01')).body
  t.ok(page.includes('<code>PATCH /users/{id}</code> (was <code>PUT</code>)'), 'the page says what the method was')
})

test('regression: a method a change added to a route, or took from it, was listed as changed, or not at all', async (t) => {
  class MethodsMoved extends VersionChange {
    description = 'Users can be patched; orders are no longer posted to /orders/:id.'
    instructionsToMigrateToPreviousVersion = [
      endpoint('/users/:id', ['PUT', 'PATCH']).had({ methods: ['PUT'] }),
      endpoint('/orders/:id', ['GET']).had({ methods: ['GET', 'POST'] })
    ]
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', MethodsMoved), new Version('2000-01-01')), async (api) => {
    api.route({ method: ['PUT', 'PATCH'], url: '/users/:id', handler: async () => ({}) })
    api.get('/orders/:id', async () => ({}))
  })
  await app.ready()
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(change.operations.map(({ method, path, status }) => `${method} ${path} ${status}`),
    ['GET /orders/{id} changed', 'POST /orders/{id} removed', 'PATCH /users/{id} added', 'PUT /users/{id} changed'])
})

test('regression: an operation is named by the operationId the version\'s document gives it, not HEAD\'s', async (t) => {
  // The guide named every operation by its HEAD operationId: after had({ operationId }) in a newer change, the id
  // it gave an older change's operation was in neither document of that change (`getUser` where both say `getAccount`).
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(),
    new Version('2002-01-01', changeClass('UsersWereAccounts', [endpoint('/users/:id', ['GET']).had({ operationId: 'getAccount' })])),
    new Version('2001-01-01', changeClass('AccountsDeprecated', [endpoint('/users/:id', ['GET']).had({ deprecated: true }), endpoint('/users', ['GET']).existed])),
    new Version('2000-01-01')
  ), async (api) => {
    api.get('/users/:id', { schema: { operationId: 'getUser' } }, async () => ({}))
    api.get('/users', { onlyExistsInOlderVersions: true, schema: { operationId: 'listUsers' } }, async () => [])
  })
  await app.ready()
  t.same(operationsOf(documentOf(app, '2001-01-01')).map(({ operation }) => operation.operationId), ['getAccount'], 'the document of 2001-01-01')
  t.same((await guideOf(app, '2000-01-01', '2002-01-01')).changes.map((change) => change.operations.map(({ method, path, operationId, status }) => `${method} ${path} ${operationId} ${status}`)), [
    ['GET /users listUsers removed', 'GET /users/{id} getAccount changed'],
    ['GET /users/{id} getUser changed']
  ], 'each operation by the id of the version the change introduced (of the one before it, when removed)')
})

test('regression: the range form submits a version name exactly, whitespace inside it included', async (t) => {
  // An <option> without a value attribute submits its text with whitespace collapsed: `v2  beta` was sent as
  // `v2 beta`, a version the guide does not know (400).
  class Beta extends VersionChange {
    description = 'Orders have notes.'
    instructionsToMigrateToPreviousVersion = [endpoint('/orders', ['GET']).didntExist]
  }
  const app = await versionedApp(t, new VersionBundle(new Version('v2  beta', Beta), new Version('v1')), async (api) => {
    api.get('/orders', async () => [])
  }, { versioner: { apiVersionFormat: 'string' } })
  await app.ready()
  const page = (await app.inject(`/docs/upgrade?from=v1&to=${encodeURIComponent('v2  beta')}`)).body
  const options = [...page.matchAll(/<option([^>]*)>([^<]*)<\/option>/g)]
  t.ok(options.length >= 4, 'the form lists the versions twice (from, to)')
  for (const [, attributes, text] of options) t.match(attributes, ` value="${text}"`, `the option ${text} submits its name as written`)
})

/**
 * An app whose one change renamed `Order`'s `title` to `name` (POST /orders), and the upgrade guide's example of that
 * change, which must come with no note.
 */
async function renamedOrderExample (t: Test, Order: TObject): Promise<{ app: FastifyInstance, example: UpgradeGuide['changes'][number]['examples'][number] }> {
  class Rename extends VersionChange {
    description = 'title became name.'
    instructionsToMigrateToPreviousVersion = [schema(Order).field('name').had({ name: 'title' })]
    @ConvertRequestToNextVersionFor(Order)
    forward (request: RequestInfo<{ title?: string, name?: string }>) {
      request.body.name = request.body.title
      delete request.body.title
    }
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', Rename), new Version('2000-01-01')), async (api) => {
    api.post('/orders', { schema: { body: Order } }, async () => ({}))
  })
  await app.ready()
  const guide = await guideOf(app, '2000-01-01', '2001-01-01')
  t.same(guide.changes[0].notes, [], 'the change has its example, not a note')
  return { app, example: guide.changes[0].examples[0] }
}

test('regression: a body with a tuple (Type.Tuple) or a multipleOf number had no example ("does not match"), only a note', async (t) => {
  const Order = Type.Object({
    name: Type.String(),
    cents: Type.Integer({ multipleOf: 100 }),
    below: Type.Integer({ maximum: -5, multipleOf: 3 }),
    at: Type.Tuple([Type.String(), Type.Integer({ minimum: 1 })])
  })
  const { app, example } = await renamedOrderExample(t, Order)
  t.same(example.before, { title: 'example', cents: 100, below: -6, at: ['example', 1] })
  const sent = await app.inject({ method: 'POST', url: '/orders', headers: { 'x-api-version': '2000-01-01' }, payload: example.before as object })
  t.equal(sent.statusCode, 200, `a client of 2000-01-01 sending the example is served: ${sent.body}`)
})

test('regression: a list with uniqueItems and minItems of 2 or more had an example holding one item twice, which the version refuses', async (t) => {
  const unique = { uniqueItems: true, minItems: 3 }
  const Order = Type.Object({
    name: Type.String(),
    tags: Type.Array(Type.String({ maxLength: 7 }), unique),
    kinds: Type.Array(Type.Union([Type.Literal('card'), Type.Literal('bank'), Type.Literal('cash')]), unique),
    scores: Type.Array(Type.Integer({ maximum: 1 }), unique),
    flags: Type.Array(Type.Boolean(), { uniqueItems: true, minItems: 2 }),
    lines: Type.Array(Type.Object({ sku: Type.String({ default: 'a' }), size: Type.Optional(Type.Number()) }), unique),
    pairs: Type.Array(Type.Tuple([Type.Enum({ a: 'a', b: 'b' }), Type.Integer({ minimum: 0, maximum: 0 })]), { uniqueItems: true, minItems: 2 })
  })
  const { app, example } = await renamedOrderExample(t, Order)
  for (const [version, body] of [['2000-01-01', example.before], ['2001-01-01', example.after]] as const) {
    const sent = await app.inject({ method: 'POST', url: '/orders', headers: { 'x-api-version': version }, payload: body as object })
    t.equal(sent.statusCode, 200, `a client of ${version} sending the example is served: ${sent.body}`, { body })
  }
  t.match(example.before, { tags: ['example', 'exampl1', 'exampl2'], kinds: ['card', 'bank', 'cash'], scores: [1, 0, -1], flags: [true, false] })
})

test('regression: an older change on a route a newer change reshapes starts from HEAD\'s answer, converted down through both', async (t) => {
  // A list object in HEAD ({ object, data }) that 2002-01-01 made of a bare array (had({ response })): the guide of
  // the older rename started from an example of the bare array, as if HEAD answered it, and ran the newer change's
  // by-path converter (`response.body.data`) on it.
  const Order = Type.Object({ id: Type.String(), sku: Type.String() }, { $id: 'Order', examples: [{ id: 'o-1', sku: 'SKU-1' }] })
  const OrderList = Type.Object({ object: Type.Literal('list'), data: Type.Array(Order) }, { $id: 'OrderList' })
  class ListsAreObjects extends VersionChange {
    description = 'GET /orders answers a list object.'
    instructionsToMigrateToPreviousVersion = [endpoint('/orders', ['GET']).had({ response: { 200: Type.Array(Order) } })]
    @ConvertResponseToPreviousVersionFor('/orders', ['GET']) bare (response: ResponseInfo) { response.body = response.body.data }
  }
  class SkuWasCode extends VersionChange {
    description = 'sku was code.'
    instructionsToMigrateToPreviousVersion = [schema(Order).field('sku').had({ name: 'code' })]
    @ConvertResponseToPreviousVersionFor(Order) down (response: ResponseInfo) { response.body.code = response.body.sku; delete response.body.sku }
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01', ListsAreObjects), new Version('2001-01-01', SkuWasCode), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.get('/orders', { schema: { response: { 200: OrderList } } }, async () => ({ object: 'list' as const, data: [{ id: 'o-1', sku: 'SKU-1' }] }))
  })
  await app.ready()
  const guide = await guideOf(app, '2000-01-01', '2002-01-01')
  const older = guide.changes.find((change) => change.name === 'SkuWasCode')
  t.same(older?.notes, [], 'no example left out')
  t.same(older?.examples, [{
    operation: 'GET /orders', part: 'response body', status: '200', before: [{ id: 'o-1', code: 'SKU-1' }], after: [{ id: 'o-1', sku: 'SKU-1' }]
  }], 'the older change\'s pair is HEAD\'s list converted down: bare arrays in both versions')
  // What the guide says is what the server does.
  for (const [version, body] of [['2000-01-01', [{ id: 'o-1', code: 'SKU-1' }]], ['2001-01-01', [{ id: 'o-1', sku: 'SKU-1' }]]] as const) {
    t.same((await app.inject({ url: '/orders', headers: { 'x-api-version': version } })).json(), body, `${version}: the server answers so`)
  }
  t.ok(assertExamplesValid(t, app, guide) >= 2)
})

test('regression: a renamed query parameter had no example: the guide shows the query string each version\'s client sends', async (t) => {
  const Query = Type.Object({ pageSize: Type.Optional(Type.Integer({ minimum: 1, examples: [20] })) }, { $id: 'ItemQuery' })
  class PageSizeWasLimit extends VersionChange {
    description = 'The page size is pageSize (it was limit).'
    instructionsToMigrateToPreviousVersion = [schema(Query).field('pageSize').had({ name: 'limit' })]
    @ConvertRequestToNextVersionFor('/items', ['GET'])
    limitToPageSize (request: RequestInfo) {
      if (request.queryParams.limit === undefined) return
      request.queryParams.pageSize = request.queryParams.limit
      delete request.queryParams.limit
    }
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', PageSizeWasLimit), new Version('2000-01-01')), async (api) => {
    api.get('/items', { schema: { querystring: Query } }, async (request) => ({ pageSize: (request.query as { pageSize?: number }).pageSize }))
  })
  await app.ready()
  const [change] = (await guideOf(app, '2000-01-01', '2001-01-01')).changes
  t.same(change.examples, [{ operation: 'GET /items', part: 'query string', before: { limit: 20 }, after: { pageSize: 20 } }])
  t.same(change.notes, [])
  const served = await app.inject({ url: '/items', query: { limit: '20' }, headers: { 'x-api-version': '2000-01-01' } })
  t.same(served.json(), { pageSize: 20 }, 'the server takes the older query string as the guide says the newer one reads')
})
