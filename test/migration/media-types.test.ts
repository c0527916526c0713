// A route declaring its body and responses by media type, served to an old client: a form body beside JSON (through
// @fastify/formbody), a vendor `+json` type, a CSV export beside JSON, converted per media type by the version change
// that renamed a field, each media type validated against its version's schema.
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import formbody from '@fastify/formbody'
import multipartPlugin from '@fastify/multipart'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange, type RequestInfo,
  type ResponseInfo
} from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { multipart, v } from '../helpers/request-pipeline'

const OLD = '2000-01-01'
const NEW = '2001-01-01'
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

test('regression: a form body reaches its converter with the values its version\'s schema validated (numbers, flags), as a JSON body does', async (t) => {
  const Order = Type.Object({ quantity: Type.Integer({ minimum: 1 }), gift: Type.Boolean() }, { $id: 'Order' })
  const seen: unknown[] = []
  class QuantityWasExtraCount extends VersionChange {
    description = 'An order\'s quantity was the count of items past the first, extraCount.'
    instructionsToMigrateToPreviousVersion = [schema(Order).field('quantity').had({ name: 'extraCount', type: Type.Integer({ minimum: 0 }) })]

    @ConvertRequestToNextVersionFor(Order)
    quantityUp (request: RequestInfo) {
      seen.push({ ...request.body })
      request.body.quantity = request.body.extraCount + 1
      delete request.body.extraCount
    }
  }
  const bodies: unknown[] = []
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version(NEW, QuantityWasExtraCount), new Version(OLD)), async (api) => {
    const content = { 'application/json': { schema: Order }, 'application/x-www-form-urlencoded': { schema: Order }, 'multipart/form-data': { schema: Order } }
    api.post('/orders', { schema: { body: { content } } }, async (request) => {
      bodies.push(request.body)
      return {}
    })
  }, {
    beforeVersioner: async (instance) => {
      await instance.register(formbody)
      await instance.register(multipartPlugin, { attachFieldsToBody: 'keyValues' })
    }
  })
  const parts = multipart([{ name: 'extraCount', value: '2' }, { name: 'gift', value: 'true' }])
  const json = await app.inject({ method: 'POST', url: '/orders', headers: v(OLD), payload: { extraCount: 2, gift: true } })
  const form = await app.inject({ method: 'POST', url: '/orders', headers: v(OLD, FORM), payload: 'extraCount=2&gift=true' })
  const sent = await app.inject({ method: 'POST', url: '/orders', headers: v(OLD, parts.headers), payload: parts.payload })
  t.same([json.statusCode, form.statusCode, sent.statusCode], [200, 200, 200])
  const values = { extraCount: 2, gift: true }
  t.strictSame(seen, [values, values, values], 'the converter sees the forms\' values as their schema reads them')
  const order = { quantity: 3, gift: true }
  t.strictSame(bodies, [order, order, order], 'the handler gets three items from every body, not 21')
})

test('regression: text under a media type that is not JSON is sent as it is, whatever its parameters say', async (t) => {
  const User = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'User' })
  class FullNameWasName extends VersionChange {
    description = 'A user\'s name is now fullName.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('fullName').had({ name: 'name' })]

    @ConvertResponseToPreviousVersionFor(User)
    nameDown (response: ResponseInfo) {
      response.body.name = response.body.fullName
      delete response.body.fullName
    }
  }
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version(NEW, FullNameWasName), new Version(OLD)), async (api) => {
    const content = { 'application/json': { schema: Type.Array(User) }, 'text/csv': { schema: Type.String() } }
    // A count export: one cell of CSV, whose profile names the JSON Schema of the columns.
    api.get('/users/count', { schema: { response: { 200: { content } } } }, async (_request, reply) =>
      reply.type('text/csv; profile="https://acme.example/exports/count.json"').send('42\n'))
  })
  for (const version of [OLD, NEW]) {
    const response = await app.inject({ url: '/users/count', headers: v(version) })
    t.equal(response.body, '42\n', `${version}: the CSV as the handler wrote it`)
    t.match(response.headers['content-type'], /^text\/csv; profile=/)
  }
})
