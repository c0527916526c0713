// `replay` of recorded traffic whose redacted values the recording's version refuses (a length, a pattern): the
// stand-in gets a value that version's own schema accepts at its place, found by that version's field names and
// union members (a field renamed since, a member whose tag was renamed since), not HEAD's.
import { test } from 'tap'
import diagnosticsChannel from 'node:diagnostics_channel'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange,
  type CapturedExchange, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { readTraffic, replayTraffic } from '../../tools'
import { versionedApp } from '../helpers/apps'

const Card = Type.Object({ type: Type.Literal('card'), last4: Type.String({ pattern: '^[0-9]{4}$' }) }, { $id: 'Card' })
const Bank = Type.Object({ type: Type.Literal('bank_account'), iban: Type.String({ minLength: 15, maxLength: 34 }) }, { $id: 'Bank' })
const Payment = Type.Object({ amount: Type.Integer(), method: Type.Union([Card, Bank]) }, { $id: 'Payment' })

class BankAccountRenamed extends VersionChange {
  description = 'A bank account is tagged bank_account, its accountNumber is its iban.'
  instructionsToMigrateToPreviousVersion = [schema(Bank).field('type').had({ type: Type.Literal('bank') }), schema(Bank).field('iban').had({ name: 'accountNumber' })]

  @ConvertRequestToNextVersionFor(Bank)
  up (request: RequestInfo) {
    request.body.type = 'bank_account'
    request.body.iban = request.body.accountNumber
    delete request.body.accountNumber
  }

  @ConvertResponseToPreviousVersionFor(Bank)
  down (response: ResponseInfo) {
    response.body.type = 'bank'
    response.body.accountNumber = response.body.iban
    delete response.body.iban
  }
}

test('a redacted account number of an old bank account (renamed field, member tagged otherwise since) is replayed with a value of its version', async (t) => {
  const versions = new VersionBundle(new HeadVersion(), new Version('2001-01-01', BankAccountRenamed), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => {
    api.post('/payments', { schema: { body: Payment, response: { 201: Payment } } }, async (request, reply) => await reply.code(201).send(request.body))
  }, { versioner: { captureExchanges: { redact: { pointers: ['/method/accountNumber', '/method/iban'] } } } })
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record))
  const sent = await app.inject({ method: 'POST', url: '/payments', headers: { 'x-api-version': '2000-01-01' }, payload: { amount: 1999, method: { type: 'bank', accountNumber: 'GB82WEST12345698765432' } } })
  t.equal(sent.statusCode, 201, sent.body)
  t.same(sent.json(), { amount: 1999, method: { type: 'bank', accountNumber: 'GB82WEST12345698765432' } })
  t.equal(lines.length, 1)
  t.match(JSON.parse(lines[0]) as CapturedExchange, {
    clientRequest: { body: { method: { type: 'bank', accountNumber: '[redacted]' } } },
    handlerResponse: { body: { method: { type: 'bank_account', iban: '[redacted]' } } },
    clientResponse: { body: { method: { type: 'bank', accountNumber: '[redacted]' } } }
  }, 'the account number is recorded redacted, too short for the version\'s schema')
  const report = await replayTraffic(app, readTraffic(lines.join('\n')))
  t.same(report.findings.map((finding) => finding.text), [], 'no finding against the correct application')
  t.same(report.notReplayable, [], 'replayed: the request validated, the answer serialized')
  t.ok(report.redacted > 0, 'the account number is not compared')
})
