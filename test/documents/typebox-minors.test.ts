/**
 * A bump of `@sinclair/typebox` inside 0.34.x changes nothing a team commits or a cache keeps: TypeBox wrote an
 * object's `required` after its `properties` up to 0.34.41 and before them from 0.34.42, and the documents, their
 * ETags and the files `export` writes are the same bytes either way (docs/decisions/0183-documents-the-same-bytes-on-every-typebox-minor.md).
 * The oldest release the peer range allows is installed as `typebox-oldest` (0.34.0); the newest is the dev dependency.
 */
import { test } from 'tap'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type, type TSchema } from '@sinclair/typebox'
import { Type as OldestType } from 'typebox-oldest'
import type { FastifyInstance } from 'fastify'
import { enumeration, HeadVersion, schema, Version, VersionBundle } from '../../plugin'
import { checkDocuments, exportDocuments } from '../../tools'
import { versionedApp, type Teardown } from '../helpers/apps'
import { changeClass } from '../helpers/version-changes'

const VERSIONS = ['2002-01-01', '2001-01-01', '2000-01-01', 'unversioned']

/**
 * The same API built with the `Type` of one TypeBox release: shared schemas, a union of `$ref`s, records, a recursive
 * tree; `widened`: with a real change, an amount any number in place of an integer.
 */
async function ordersApp (t: Teardown, T: typeof Type, widened = false): Promise<FastifyInstance> {
  const Money = T.Object({ amount: widened ? T.Number({ minimum: 0 }) : T.Integer({ minimum: 0 }), currency: T.String({ default: 'EUR' }) }, { $id: 'Money' })
  const Kind = T.Union([T.Literal('card'), T.Literal('bank'), T.Literal('wallet')], { $id: 'Kind' })
  const Card = T.Object({ kind: T.Literal('card'), last4: T.String() }, { $id: 'Card' })
  const Bank = T.Object({ kind: T.Literal('bank'), iban: T.String(), holder: T.Union([T.String(), T.Null()]) }, { $id: 'Bank' })
  const Node = T.Recursive((This) => T.Object({ name: T.String(), children: T.Array(This) }), { $id: 'Node' })
  const Order = T.Object({
    id: T.String({ format: 'uuid' }),
    total: T.Ref('Money'),
    kind: T.Ref('Kind'),
    method: T.Union([T.Ref('Card'), T.Ref('Bank')]),
    labels: T.Record(T.String(), T.String()),
    tree: T.Optional(T.Ref('Node')),
    extra: T.Intersect([T.Object({ a: T.String() }), T.Object({ b: T.Optional(T.Number()) })])
  }, { $id: 'Order', additionalProperties: false })
  const OrderCreate = T.Omit(Order, ['id'], { $id: 'OrderCreate' })
  const versions = new VersionBundle(
    new HeadVersion(),
    new Version('2002-01-01', changeClass('WalletsAreNew', [enumeration(Kind).didntHave('wallet')])),
    new Version('2001-01-01', changeClass('LabelsWereMeta', [schema(Order).field('labels').had({ name: 'meta' }), schema(OrderCreate).field('labels').had({ name: 'meta' })])),
    new Version('2000-01-01')
  )
  return await versionedApp(t, versions, async (api) => {
    api.post('/orders', { schema: { body: OrderCreate, response: { 201: Order } } }, async () => {})
    api.get('/orders/:id', { schema: { params: T.Object({ id: T.String() }), response: { 200: Order } } }, async () => {})
  }, {
    beforeVersioner: (app) => { for (const shared of [Money, Kind, Card, Bank, Node]) app.addSchema(shared) },
    beforeRoutes: (app) => { app.versioner.webhooks.add({ name: 'order.paid', body: Order }) },
    health: true
  })
}

/** Each document's bytes and ETag, the fingerprint, and the files `export` writes. */
async function servedAndExported (app: FastifyInstance): Promise<Record<string, unknown>> {
  await app.ready()
  const seen: Record<string, unknown> = { fingerprint: app.versioner.fingerprint }
  for (const version of VERSIONS) {
    const response = await app.inject(`/openapi.json?version=${version}`)
    seen[`served ${version}`] = { status: response.statusCode, etag: response.headers.etag, body: response.body }
  }
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-minors-'))
  try {
    await exportDocuments(app, dir)
    for (const file of (await readdir(dir)).sort()) seen[`exported ${file}`] = await readFile(join(dir, file), 'utf8')
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  return seen
}

test('TypeBox 0.34.0 and the newest 0.34.x give the same document bytes, ETags, exported files and fingerprint', async (t) => {
  const oldest = OldestType.Object({ a: OldestType.String() }) as unknown as Record<string, unknown>
  const newest = Type.Object({ a: Type.String() }) as unknown as Record<string, unknown>
  t.not(Object.keys(oldest).join(), Object.keys(newest).join(), 'the two releases write an object\'s keys in different orders')

  const [a, b] = [await servedAndExported(await ordersApp(t, OldestType as unknown as typeof Type)), await servedAndExported(await ordersApp(t, Type))]
  t.same(Object.keys(a), Object.keys(b), 'the same documents')
  for (const key of Object.keys(b)) t.strictSame(a[key], b[key], `${key}: the same on both releases`)
  t.match(b['served 2001-01-01'], { status: 200 }, 'the documents are served')
})

test('a plain JSON Schema writes its required list before its properties; field names and other keys keep their order', async (t) => {
  // `required` and `properties` as field names, and `required` last or first: one text, the fields in their order.
  const fields = { properties: { type: 'string' }, required: { type: 'boolean' }, name: { type: 'string' } }
  const written = (requiredFirst: boolean): TSchema => (requiredFirst
    ? { $id: 'Thing', type: 'object', additionalProperties: false, required: ['name'], properties: fields, description: 'A thing.' }
    : { $id: 'Thing', type: 'object', additionalProperties: false, properties: fields, required: ['name'], description: 'A thing.' }) as unknown as TSchema
  const documentOf = async (requiredFirst: boolean): Promise<string> => {
    const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2000-01-01')), async (api) => {
      api.post('/things', { schema: { body: written(requiredFirst), response: { 200: written(requiredFirst) } } }, async (request) => request.body)
    })
    return (await app.inject('/openapi.json?version=2000-01-01')).body
  }
  const [last, first] = [await documentOf(false), await documentOf(true)]
  t.equal(last, first, 'the same bytes whichever place the schema gave required')
  const thing = JSON.parse(first).components.schemas.Thing as Record<string, unknown>
  t.same(Object.keys(thing), ['type', 'additionalProperties', 'required', 'properties', 'description'], 'required moved to just before properties')
  t.same(Object.keys(thing.properties as object), ['properties', 'required', 'name'], 'the fields in the order written')
})

test('a bump of TypeBox checks clean against the documents exported before it; a real change beside the bump breaks', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-minors-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const before = await ordersApp(t, OldestType as unknown as typeof Type)
  await before.ready()
  await exportDocuments(before, dir)

  const bumped = await ordersApp(t, Type)
  await bumped.ready()
  t.strictSame(await checkDocuments(bumped, dir), { breaks: [], notes: [], compared: [...VERSIONS].sort() }, 'every document compared, nothing to report after the bump alone')

  const changed = await ordersApp(t, Type, true)
  await changed.ready()
  const { breaks } = await checkDocuments(changed, dir)
  const texts = breaks.map((entry) => entry.text)
  for (const version of ['2000-01-01', '2001-01-01', '2002-01-01']) {
    t.ok(texts.some((text) => text.startsWith(`${version} GET /orders/{id}: response 200 /total/amount: type 'integer' → 'number'`)), `${version}: the widened amount breaks`)
  }
})
