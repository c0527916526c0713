// `verify` follows the status a version's converters answer with (decision 0286): a HEAD error a converter reshapes
// and keeps the status of, where the version's documents (`had({ response })`) do not give that status, is a finding
// naming route, version, change and converter; a body is judged by the schema of the status the converter sets, not
// HEAD's. The apps are written as a team writes them: a route, a version change, `verify(app)`.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertResponseToPreviousVersionFor, endpoint, Version, VersionBundle, VersionChange, type ResponseInfo, type SchemaLike, type VersionChangeClass
} from '../../plugin'
import { versionedApp } from '../helpers/apps'
import { verify, type VerifyFindings } from '../../tools'

const OrderCreate = Type.Object({ customerId: Type.String(), amount: Type.Integer() }, { $id: 'OrderCreate' })
const Order = Type.Object({ id: Type.String(), customerId: Type.String(), amount: Type.Integer() }, { $id: 'Order' })
const NotFound = Type.Object({ message: Type.String() }, { $id: 'NotFound' })
const UnknownReference = Type.Object({ message: Type.String(), param: Type.String() }, { $id: 'UnknownReference' })

interface Variant {
  /** What the converter does to the 422 besides giving back `{ message }`: keep its status, or set one. */
  readonly status?: number
  /** The responses older versions had (`endpoint('/orders', ['POST']).had({ response })`); none: HEAD's. */
  readonly response?: Record<number | string, SchemaLike>
  /** No converter at all. */
  readonly noConverter?: boolean
}

/** The change of 2001-01-01: an unknown customer is refused 422 `{ message, param }`, where it was 404 `{ message }`. */
function unknownAre422 (variant: Variant): VersionChangeClass {
  class Unconverted extends VersionChange {
    description = 'An order for an unknown customer is refused with 422, naming the field at fault (param); it was a 404.'
    instructionsToMigrateToPreviousVersion = variant.response === undefined ? [] : [endpoint('/orders', ['POST']).had({ response: variant.response })]
  }
  if (variant.noConverter === true) return Object.defineProperty(Unconverted, 'name', { value: 'UnknownReferencesAre422' })
  class UnknownReferencesAre422 extends VersionChange {
    description = 'An order for an unknown customer is refused with 422, naming the field at fault (param); it was a 404.'
    instructionsToMigrateToPreviousVersion = variant.response === undefined ? [] : [endpoint('/orders', ['POST']).had({ response: variant.response })]

    @ConvertResponseToPreviousVersionFor('/orders', ['POST'], { migrateHttpErrors: true })
    unknownAsNotFound (response: ResponseInfo): void {
      if (response.statusCode !== 422) return
      response.body = { message: response.body.message }
      if (variant.status !== undefined) response.statusCode = variant.status
    }
  }
  return UnknownReferencesAre422
}

/** `POST /orders` in 2001-01-01 and 2000-01-01, answering 201, 404 and (at HEAD) 422. */
async function ordersApp (t: Parameters<typeof versionedApp>[0], variant: Variant): Promise<FastifyInstance> {
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', unknownAre422(variant)), new Version('2000-01-01')), async (api) => {
    api.post('/orders', { schema: { body: OrderCreate, response: { 201: Order, 404: NotFound, 422: UnknownReference } } }, async (request, reply) => {
      if (request.body.customerId !== 'c1') return await reply.code(422).send({ message: 'No such customer', param: 'customerId' })
      return await reply.code(201).send({ id: 'o1', ...request.body })
    })
  })
  await app.ready()
  return app
}

const BEFORE = { 201: Order, 404: NotFound }

/** The findings: route, versions, part, and the changes and converters they name. */
function named (findings: VerifyFindings): string[] {
  return findings.map((finding) => `${finding.route} ${finding.versions.join(',')} ${finding.part}${finding.pointer} ${finding.versionChanges.join(',')} [${finding.converters.join(',')}]`)
}

test('an error converter that keeps HEAD\'s 422 for a version documenting 201 and 404 is a finding naming route, version, change and converter', async (t) => {
  const findings = await verify(await ordersApp(t, { response: BEFORE }), { examples: 20 })
  t.same(named(findings), ['POST /orders 2000-01-01 response 422 UnknownReferencesAre422 [UnknownReferencesAre422.unknownAsNotFound]'])
  t.match(findings[0].text, /response 422: answered 422 as HEAD answers it, a status 2000-01-01 does not document for the operation \(it documents 201, 404\)/)
  t.match(findings[0].fix, /Make UnknownReferencesAre422\.unknownAsNotFound set response\.statusCode to a status 2000-01-01 documents/)
  const none = await verify(await ordersApp(t, { response: BEFORE, noConverter: true }), { examples: 20 })
  t.same(named(none), ['POST /orders 2000-01-01 response 422 UnknownReferencesAre422 []'], 'with no converter at all, the same')
  t.match(none[0].fix, /Add a response converter with migrateHttpErrors to UnknownReferencesAre422 that sets response\.statusCode/)
})

test('a converter setting a status the version does not document either is a finding naming both statuses', async (t) => {
  const findings = await verify(await ordersApp(t, { response: BEFORE, status: 409 }), { examples: 20 })
  t.same(named(findings), ['POST /orders 2000-01-01 response 422 UnknownReferencesAre422 [UnknownReferencesAre422.unknownAsNotFound]'])
  t.match(findings[0].text, /answered 409 \(HEAD's 422, as the converters set it\), a status 2000-01-01 does not document/)
})

test('the body a converter answers another status with is judged by that status\'s schema in the version, not by HEAD\'s', async (t) => {
  // The 404 with HEAD's 422 documented still (no instruction): its body is a NotFound, not an UnknownReference.
  t.same(named(await verify(await ordersApp(t, { status: 404 }), { examples: 20 })), [], 'converted to 404, documents unchanged: clean')
  t.same(named(await verify(await ordersApp(t, { status: 404, response: BEFORE }), { examples: 20 })), [], 'converted to 404, documents giving 404: clean')
  t.same(named(await verify(await ordersApp(t, { status: 404, response: { 201: Order, '4xx': NotFound } }), { examples: 20 })), [], 'a 4xx range documents it')
  // A status the version documents with another schema: the body the converter gives is judged by it.
  const wrongBody = await verify(await ordersApp(t, { status: 404, response: { 201: Order, 404: Type.Object({ error: Type.String() }) } }), { examples: 20 })
  // (HEAD's own 404 fails it too: a finding of its own.)
  t.same(named(wrongBody).sort(), [
    'POST /orders 2000-01-01 response 404/error UnknownReferencesAre422 [UnknownReferencesAre422.unknownAsNotFound]',
    'POST /orders 2000-01-01 response 422/error UnknownReferencesAre422 [UnknownReferencesAre422.unknownAsNotFound]'
  ])
  t.match(wrongBody.find((finding) => finding.part === 'response 422')?.text, /must have required property 'error'/)
  // HEAD's 422 kept, with documents still listing HEAD's 422: the body lacks its param (caught before too).
  const kept = await verify(await ordersApp(t, {}), { examples: 20 })
  t.same(named(kept), ['POST /orders 2000-01-01 response 422/param UnknownReferencesAre422 [UnknownReferencesAre422.unknownAsNotFound]'])
})

test('a status documented without a schema, and a success given one status by had({ statusCode }), are not judged', async (t) => {
  const described = { 201: Order, 404: { description: 'No such customer', content: { 'text/plain': {} } } as unknown as SchemaLike }
  t.same(named(await verify(await ordersApp(t, { status: 404, response: described }), { examples: 20 })), [], 'a 404 documented by its description')
  class CreatedWas200 extends VersionChange {
    description = 'A created order answers 201; it answered 200.'
    instructionsToMigrateToPreviousVersion = [endpoint('/orders', ['POST']).had({ statusCode: 200 })]
  }
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01', CreatedWas200), new Version('2000-01-01')), async (api) => {
    api.post('/orders', { schema: { body: OrderCreate, response: { 201: Order } } }, async (request, reply) => await reply.code(201).send({ id: 'o1', ...request.body }))
  })
  await app.ready()
  t.same(named(await verify(app, { examples: 20 })), [], 'the 201 answered 200 by the version')
})
