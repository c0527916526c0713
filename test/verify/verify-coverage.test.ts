// `verify`'s coverage: strings of a format the application declares as a regular expression are generated from it,
// and a route (or webhook) version and part no generated example passes the schema of is named, not called clean.
import { test } from 'tap'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import { ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange, type RequestInfo, type ResponseInfo } from '../../plugin'
import { verify } from '../../tools'
import { printVerify } from '../../lib/tools/api-commands'
import { versionedApp, type Teardown } from '../helpers/apps'

/** The `formats` option of an app's Ajv, as Fastify types it. */
type Formats = NonNullable<NonNullable<NonNullable<FastifyServerOptions['ajv']>['customOptions']>['formats']>

/**
 * A ready app whose one version change renames a product's `label` (`name` in 2000-01-01) without a converter, with
 * `POST /products` taking and answering a product, a `product.updated` webhook, and `formats` as its Ajv's.
 */
async function productsApp (t: Teardown, formats: Formats, sku: TSchema = Type.String({ format: 'sku' })): Promise<FastifyInstance> {
  const Product = Type.Object({ sku, label: Type.String() }, { $id: 'Product' })
  class LabelWasName extends VersionChange {
    description = 'A product\'s name is its label.'
    instructionsToMigrateToPreviousVersion = [schema(Product).field('label').had({ name: 'name' })]
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', LabelWasName), new Version('2000-01-01')), async (api) => {
    api.post('/products', { schema: { body: Product, response: { 200: Product } } }, async (request) => request.body)
  }, {
    fastify: { ajv: { customOptions: { formats } } },
    beforeRoutes: (instance) => { instance.versioner.webhooks.add({ name: 'product.updated', body: Product }) }
  })
  await app.ready()
  return app
}

/** What `printVerify` prints for `app`'s findings, and its exit code. */
async function printed (app: FastifyInstance): Promise<{ code: number, out: string[], err: string[] }> {
  const out: string[] = []
  const err: string[] = []
  const code = printVerify(await verify(app, { examples: 10 }), 'every version of every versioned route migrates cleanly (2 versions', { out: (line) => out.push(line), err: (line) => err.push(line) })
  return { code, out, err }
}

const SKU = /^[A-Z]{3}-\d+$/

test('regression: a route whose schema uses a format the app declares as a RegExp is replayed, not skipped: its missing converter is found', async (t) => {
  for (const [given, formats] of [['a RegExp', { sku: SKU }], ['a string', { sku: SKU.source }], ['{ validate: RegExp }', { sku: { type: 'string', validate: SKU } }]] as const) {
    const app = await productsApp(t, formats)
    const findings = await verify(app, { examples: 10 })
    t.same(findings.unverified.map((note) => note.text), [], `${given}: every part is verified`)
    t.same([...new Set(findings.map((finding) => `${finding.route} ${finding.direction} ${finding.kind} ${finding.pointer}`))].sort(), [
      'POST /products request invalid /label',
      'POST /products response invalid /name',
      'webhook product.updated response invalid /name'
    ], `${given}: the rename without converters is found in every direction`)
    t.ok(findings.every((finding) => typeof finding.example !== 'object' || SKU.test((finding.example as { sku: string }).sku)), `${given}: the examples hold SKUs`)
  }
})

test('regression: a part no generated example passes the schema of is a note naming it, and verify no longer says it migrates cleanly', async (t) => {
  const app = await productsApp(t, { sku: (value: string) => SKU.test(value) })
  const findings = await verify(app, { examples: 10 })
  t.same(findings.length, 0, 'nothing was replayed, so nothing was found')
  t.same(findings.unverified.map(({ route, versions, direction, part }) => `${route} ${versions.join(',')} ${direction} ${part}`).sort(), [
    'POST /products 2000-01-01 request body',
    'POST /products 2000-01-01 response response 200',
    'webhook product.updated 2000-01-01 response payload'
  ], 'each part of the version that has converters to check (the latest has none)')
  const [note] = findings.unverified
  t.match(note.text, /^POST \/products \(2000-01-01\): request body not verified: no generated example passes the schema of 2000-01-01 \(body\/sku must match format "sku"\): the format "sku" is checked by a function/)
  t.match(note.text, /give that field an example its schema accepts \(its `examples`/, 'it says what to do')
  const { code, out, err } = await printed(app)
  t.equal(code, 1, 'a part not verified fails the run (decision 0092)')
  t.equal(err.filter((line) => line.startsWith('note: ')).length, 3, 'one note a part')
  t.same(out, ['verify: 0 finding(s); 3 part(s) not verified (the notes say why) (0 examples).'])
})

test('the fix a note gives works: a field with an example its function format accepts is verified', async (t) => {
  const app = await productsApp(t, { sku: (value: string) => SKU.test(value) }, Type.String({ format: 'sku', examples: ['ABC-1'] }))
  const findings = await verify(app, { examples: 10 })
  t.same(findings.unverified, [])
  t.ok(findings.length > 0, 'the missing converters are found again')
  const clean = await productsApp(t, { sku: SKU })
  t.match((await printed(clean)).out, [/^verify: 3 finding\(s\) \(\d+ examples\)\.$/], 'the summary of findings is as before when every part is verified')
})

test('regression: a field with a format and a pattern or length of its own (an e-mail at one domain) is verified, its example followed where it has one', async (t) => {
  // Before: its string was the format's sentinel (zq000001@example.com), which the pattern refused in every example:
  // a note, and exit 1, on a correct app, and the note's fix (an example of the field) did not change it.
  for (const sku of [
    Type.String({ format: 'email', pattern: '@acme\\.com$' }),
    Type.String({ format: 'email', pattern: '@acme\\.com$', examples: ['ada@acme.com'] }),
    Type.String({ format: 'email', maxLength: 16 }),
    Type.String({ format: 'uuid', pattern: '^[0-9a-f-]+$' })
  ]) {
    const findings = await verify(await productsApp(t, {}, sku), { examples: 10 })
    t.same(findings.unverified.map((note) => note.text), [], `${JSON.stringify(sku)}: every part is verified`)
    t.ok(findings.some((finding) => finding.direction === 'request' && finding.pointer === '/label'), `${JSON.stringify(sku)}: the rename without converters is found`)
  }
})

test('regression: a version whose schema an instruction made uncompilable crashed verify; its request is a finding, its responses notes', async (t) => {
  const Product = Type.Object({ sku: Type.String(), label: Type.String() }, { $id: 'Product' })
  class SkuHadAFormat extends VersionChange {
    description = 'SKUs had a format of their own.'
    instructionsToMigrateToPreviousVersion = [schema(Product).field('sku').had({ type: Type.String({ format: 'no-such-format' }) })]
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', SkuHadAFormat), new Version('2000-01-01')), async (api) => {
    api.post('/products', { schema: { body: Product, response: { 200: Product } } }, async (request) => request.body)
    api.get('/products', { schema: { response: { 200: Product } } }, async () => ({ sku: 'ABC-1', label: 'A' }))
  }, { beforeRoutes: (instance) => { instance.versioner.webhooks.add({ name: 'product.updated', body: Product }) } })
  await app.ready()
  const sent = await app.inject({ method: 'POST', url: '/products', headers: { 'x-api-version': '2000-01-01' }, payload: { sku: 'ABC-1', label: 'A' } })
  t.equal(sent.statusCode, 500, 'what the finding says: each request of the version answers 500')
  const findings = await verify(app, { examples: 10 })
  t.same(findings.map(({ route, version, kind, part, versionChanges }) => ({ route, version, kind, part, versionChanges })), [
    { route: 'POST /products', version: '2000-01-01', kind: 'uncompilable', part: 'body', versionChanges: ['SkuHadAFormat'] }
  ])
  t.match(findings[0].text, /^POST \/products \(2000-01-01\): request body: its schema in this version does not compile: unknown format "no-such-format".*first wrong after SkuHadAFormat \(2001-01-01\).*each request of 2000-01-01 answers 500/)
  t.same(findings.unverified.map(({ route, part }) => `${route} ${part}`).sort(), ['GET /products response 200', 'POST /products response 200', 'webhook product.updated payload'],
    'a response is only serialized (it is served), but verify cannot check it')
  t.match(findings.unverified[0].text, /does not compile with the application's Ajv \(unknown format "no-such-format".*\), since the instructions of SkuHadAFormat \(2001-01-01\)/)
  const { code } = await printed(app)
  t.equal(code, 1)
})

/**
 * A ready app whose version change renames an order's `currency` (`curr` in 2000-01-01), with a request converter
 * that refuses (400): with `typo`, every request (it reads `currr`); with `empty`, an empty `curr`; with `named`, a `curr`
 * other than the currencies its text names. `POST /orders` takes an order.
 */
async function refusingApp (t: Teardown, refuses: 'typo' | 'empty' | 'named', status = 400): Promise<FastifyInstance> {
  const Order = Type.Object({ id: Type.String(), currency: Type.String() }, { $id: 'Order' })
  class CurrencyWasCurr extends VersionChange {
    description = 'An order\'s curr is its currency.'
    instructionsToMigrateToPreviousVersion = [schema(Order).field('currency').had({ name: 'curr' })]

    @ConvertRequestToNextVersionFor(Order)
    up (request: RequestInfo) {
      const refused = refuses === 'typo' ? typeof request.body.currr !== 'string' : refuses === 'empty' ? request.body.curr === '' : !['EUR', 'USD'].includes(request.body.curr as string)
      if (refused) throw Object.assign(new Error('curr is required'), { statusCode: status })
      request.body.currency = request.body.curr
      delete request.body.curr
    }

    @ConvertResponseToPreviousVersionFor(Order)
    down (response: ResponseInfo) {
      response.body.curr = response.body.currency
      delete response.body.currency
    }
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', CurrencyWasCurr), new Version('2000-01-01')), async (api) => {
    api.post('/orders', { schema: { body: Order, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'o1' }))
    api.get('/orders/:id', { schema: { response: { 200: Order } } }, async () => ({ id: 'o1', currency: 'EUR' }))
  })
  await app.ready()
  return app
}

test('regression: a request converter refusing every example with a 4xx is a part not verified, not a clean run', async (t) => {
  // A typo (`currr`): every request of 2000-01-01 answers 400. Before, verify replayed nothing of it and said nothing.
  const app = await refusingApp(t, 'typo')
  const sent = await app.inject({ method: 'POST', url: '/orders', headers: { 'x-api-version': '2000-01-01' }, payload: { id: 'o1', curr: 'EUR' } })
  t.equal(sent.statusCode, 400, 'what the note says: a client of 2000-01-01 is refused')
  const findings = await verify(app, { examples: 10 })
  t.same(findings.length, 0)
  t.same(findings.unverified.map((note) => note.text), [
    'POST /orders (2000-01-01): request body not verified: every example the schema of 2000-01-01 accepts was refused by CurrencyWasCurr.up with a 400 (curr is required): ' +
    'make it take the requests the version\'s schema accepts, or compare what it takes with strings in its own text (examples are made of them).'
  ])
  const { code, out } = await printed(app)
  t.equal(code, 1, 'the run fails')
  t.match(out, [/^verify: 0 finding\(s\); 1 part\(s\) not verified/])
})

test('a request converter refusing some examples with a 4xx, or all but those holding a string it compares, verifies cleanly', async (t) => {
  for (const given of ['empty', 'named'] as const) {
    const findings = await verify(await refusingApp(t, given), { examples: 10 })
    t.same(findings.map((finding) => finding.text), [], `${given}: no finding`)
    t.same(findings.unverified.map((note) => note.text), [], `${given}: every part is verified`)
  }
})

test('a response HEAD\'s own schema makes uncompilable is a note that blames no version change', async (t) => {
  // Fastify's serializer takes a format its Ajv lacks; verify's validator cannot. Before, the note said "since the
  // instructions of  (HeadVersion) … fix those instructions": no instruction, and none to fix.
  const Product = Type.Object({ sku: Type.String({ format: 'sku' }), label: Type.String() }, { $id: 'Product' })
  class LabelWasName extends VersionChange {
    description = 'A product\'s name is its label.'
    instructionsToMigrateToPreviousVersion = [schema(Product).field('label').had({ name: 'name' })]
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', LabelWasName), new Version('2000-01-01')), async (api) => {
    api.get('/products', { schema: { response: { 200: Product } } }, async () => ({ sku: 'ABC-1', label: 'A' }))
  })
  await app.ready()
  const findings = await verify(app, { examples: 5 })
  t.same(findings.unverified.map((note) => note.text), [
    'GET /products (2001-01-01, 2000-01-01): response 200 not verified: its schema in this version does not compile with the application\'s Ajv (unknown format "sku" ignored in schema at path "#/properties/sku"), ' +
    'nor does HEAD\'s; nothing of this version was replayed: make it compile (give the application\'s Ajv its formats and keywords).'
  ])
})

test('a request converter refusing every example with a status that depends on state (a lookup\'s 404, a 409) is not noted', async (t) => {
  for (const status of [404, 409]) {
    const findings = await verify(await refusingApp(t, 'typo', status), { examples: 10 })
    t.same(findings.unverified, [], `${status}: verify has no state to look up`)
  }
  const findings = await verify(await refusingApp(t, 'typo', 422), { examples: 10 })
  t.match(findings.unverified.map((note) => note.text), [/refused by CurrencyWasCurr\.up with a 422 \(curr is required\)/], 'a 422 refuses the request itself')
})
