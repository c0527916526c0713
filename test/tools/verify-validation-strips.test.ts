// A union of closed members whose first member takes a subset of the second's fields: Fastify's Ajv, with its default
// `removeAdditional: true`, strips a business down to the person at HEAD as in every version (decision 0284). `verify`
// finds the loss, and says it is the application's validation, with its fixes, not a converter's (decision 0286).
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import { ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, VersionChange, type RequestInfo, type ResponseInfo } from '../../plugin'
import { verify } from '../../tools'
import { appWith } from '../helpers/verify-apps'

const Person = Type.Object({ name: Type.String(), note: Type.Optional(Type.String()) }, { additionalProperties: false })
const Business = Type.Object({ name: Type.String(), registry: Type.String(), note: Type.Optional(Type.String()) }, { additionalProperties: false })

class BusinessNoteRenamed extends VersionChange {
  description = 'A business\'s remark became note.'
  instructionsToMigrateToPreviousVersion = [schema(Business).field('note').had({ name: 'remark' })]

  @ConvertRequestToNextVersionFor(Business)
  up (request: RequestInfo) {
    if ('remark' in request.body) request.body.note = request.body.remark
    delete request.body.remark
  }

  @ConvertResponseToPreviousVersionFor(Business)
  down (response: ResponseInfo) {
    if ('note' in response.body) response.body.remark = response.body.note
    delete response.body.note
  }
}

const routes = (members: TSchema[]) => (api: FastifyInstance): void => {
  const Customer = Type.Object({ customer: Type.Union(members) })
  api.post('/customers', { schema: { body: Customer, response: { 200: Customer } } }, async (request) => request.body)
}

test('a field the app\'s validation strips from a union\'s value (removeAdditional) is told as the validation\'s, with its fixes, not a converter\'s', async (t) => {
  const findings = await verify(await appWith(t, BusinessNoteRenamed, routes([Person, Business])), { examples: 3 })
  t.same(findings.map((finding) => `${finding.kind} ${finding.part}${finding.pointer}`).sort(), ['lost body/customer/registry', 'round trip body/customer/registry'])
  for (const finding of findings) {
    t.match(finding.message, /the application's validation removed \/customer\/registry from the request as served, before any converter ran/, `${finding.kind}: what removed it`)
    t.match(finding.fix, /^No converter can carry what validation removed: put the union member with the most fields first or set removeAdditional: false/, `${finding.kind}: the fixes`)
    t.notMatch(finding.text, /Add a request converter|Make a request converter/, `${finding.kind}: no converter blamed`)
  }
  t.same(await verify(await appWith(t, BusinessNoteRenamed, routes([Business, Person])), { examples: 3 }), [], 'the member with more fields first: clean')
  t.same(await verify(await appWith(t, BusinessNoteRenamed, routes([Person, Business]), { fastify: { ajv: { customOptions: { removeAdditional: false } } } }), { examples: 3 }), [], 'removeAdditional: false: clean')
})
