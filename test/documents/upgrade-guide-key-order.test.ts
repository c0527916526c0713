/**
 * The upgrade guide's examples list their keys in the order the version's serializer writes them (the schema's
 * property order), as the server answers: a renamed field is not moved last because its converter wrote it last.
 */
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange,
  type RequestInfo, type ResponseInfo
} from '../../plugin'
import { versionedApp } from '../helpers/apps'
import type { UpgradeGuide } from '../../lib/docs/upgrade-guide'
import { inSchemaOrder } from '../../lib/values/key-order'

const Line = Type.Object({ sku: Type.String(), quantity: Type.Integer() }, { $id: 'Line' })
const Order = Type.Object({
  id: Type.String(), fullName: Type.String(), lines: Type.Array(Line), total: Type.Integer()
}, { $id: 'Order', examples: [{ id: 'o-1', fullName: 'Ada Lovelace', lines: [{ sku: 'SKU-1', quantity: 2 }], total: 300 }] })
const OrderCreate = Type.Object({ fullName: Type.String(), lines: Type.Array(Line) }, { $id: 'OrderCreate' })

/** 2001-01-01 renamed an order's `name` (and a line's `qty`), fields in the middle of their objects. */
class NamesAreFull extends VersionChange {
  description = 'name is now fullName; a line\'s qty is quantity.'
  instructionsToMigrateToPreviousVersion = [
    schema(Order).field('fullName').had({ name: 'name' }),
    schema(OrderCreate).field('fullName').had({ name: 'name' }),
    schema(Line).field('quantity').had({ name: 'qty' })
  ]

  @ConvertRequestToNextVersionFor(OrderCreate)
  up (request: RequestInfo) {
    request.body.fullName = request.body.name
    delete request.body.name
  }

  @ConvertRequestToNextVersionFor(Line)
  lineUp (request: RequestInfo) {
    request.body.quantity = request.body.qty
    delete request.body.qty
  }

  @ConvertResponseToPreviousVersionFor(Order)
  down (response: ResponseInfo) {
    response.body.name = response.body.fullName
    delete response.body.fullName
  }

  @ConvertResponseToPreviousVersionFor(Line)
  lineDown (response: ResponseInfo) {
    response.body.qty = response.body.quantity
    delete response.body.quantity
  }
}

/** The keys of a value's objects, in order, nested ones by path: `['id', 'name', 'lines', 'lines.0.sku', …]`. */
function keyOrder (value: unknown, path = ''): string[] {
  if (typeof value !== 'object' || value === null) return []
  return Object.entries(value).flatMap(([key, item]) => [`${path}${key}`, ...keyOrder(item, `${path}${key}.`)])
}

test('regression: the guide\'s examples list a renamed field where the version\'s serializer writes it, not last', async (t) => {
  const app: FastifyInstance = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', NamesAreFull), new Version('2000-01-01')), async (api) => {
    api.post('/orders', { schema: { body: OrderCreate, response: { 201: Order } } }, async (request, reply) =>
      await reply.code(201).send({ id: 'o-1', fullName: request.body.fullName, lines: request.body.lines, total: 300 }))
  })
  await app.ready()
  const guide = (await app.inject('/docs/upgrade?from=2000-01-01&to=2001-01-01&format=json')).json<UpgradeGuide>()
  const [change] = guide.changes
  t.same(change.notes, [])
  const response = change.examples.find((example) => example.part === 'response body')
  const request = change.examples.find((example) => example.part === 'request body')
  t.strictSame(keyOrder(response?.before), ['id', 'name', 'lines', 'lines.0', 'lines.0.sku', 'lines.0.qty', 'total'], 'the older version\'s response, in its schema\'s order')
  t.strictSame(keyOrder(response?.after), ['id', 'fullName', 'lines', 'lines.0', 'lines.0.sku', 'lines.0.quantity', 'total'])
  t.strictSame(keyOrder(request?.after), ['fullName', 'lines', 'lines.0', 'lines.0.sku', 'lines.0.quantity'], 'the request as the newer version takes it, in its order')
  // What the server answers, key for key and in the same order.
  for (const [version, sent, answered] of [['2000-01-01', request?.before, response?.before], ['2001-01-01', request?.after, response?.after]] as const) {
    const served = await app.inject({ method: 'POST', url: '/orders', headers: { 'x-api-version': version }, payload: sent as object })
    t.strictSame(keyOrder(served.json()), keyOrder(answered), `${version}: the server writes the example's keys in its order`)
  }
})

test('inSchemaOrder orders by the schema (a union\'s member, a $ref, allOf, a tuple), keeps the rest, and changes nothing given', async (t) => {
  const Card = Type.Object({ type: Type.Literal('card'), last4: Type.String() }, { $id: 'Card' })
  const Bank = Type.Object({ type: Type.Literal('bank'), iban: Type.String(), bic: Type.String() }, { $id: 'Bank' })
  const Payment = Type.Object({ id: Type.String(), method: Type.Union([Type.Ref('Card'), Type.Ref('Bank')]), pair: Type.Tuple([Card, Bank]) })
  const refs = new Map<string, unknown>([['Card', Card], ['Bank', Bank]])
  const given = {
    extra: true,
    pair: [{ last4: '4242', type: 'card' }, { bic: 'B', iban: 'I', type: 'bank' }],
    method: { bic: 'B', iban: 'I', type: 'bank' },
    ['__proto__']: 'kept as data',
    id: 'p-1'
  }
  const copy = JSON.stringify(given)
  const ordered = inSchemaOrder(Payment, given, (ref) => refs.get(ref) as never)
  t.strictSame(keyOrder(ordered), [
    'id', 'method', 'method.type', 'method.iban', 'method.bic', 'pair', 'pair.0', 'pair.0.type', 'pair.0.last4', 'pair.1', 'pair.1.type', 'pair.1.iban', 'pair.1.bic',
    'extra', '__proto__'
  ], 'declared keys in order, a union by its member, then the others as they came')
  t.equal(JSON.stringify(given), copy, 'the value given is not changed')
  t.equal(Object.getPrototypeOf(ordered), Object.prototype, 'a __proto__ key stays data')
  const Merged = Type.Intersect([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })])
  t.strictSame(Object.keys(inSchemaOrder(Merged, { b: '', a: '' }) as object), ['a', 'b'], 'allOf parts merged, in order')
})
