/**
 * Refused exchanges (decision 0307): a request its version's schema refuses (a 400) or a request converter refuses
 * (a thrown 422) is published in a form of its own, `refused`, with no handler's copies, redacted as handled exchanges
 * are; an accepted request's exchange is unchanged; a route not found and a version's 404 are not recorded.
 */
import { test } from 'tap'
import diagnosticsChannel from 'node:diagnostics_channel'
import type { CapturedExchange, RefusedExchange } from '../../plugin'
import { refusingApp } from '../helpers/refusing-app'
import type { Teardown } from '../helpers/apps'

const CHANNEL = 'fastify-versioner:exchange'

function captured (t: Teardown): Array<CapturedExchange | RefusedExchange> {
  const seen: Array<CapturedExchange | RefusedExchange> = []
  const listener = (message: unknown): void => { seen.push(message as CapturedExchange) }
  diagnosticsChannel.subscribe(CHANNEL, listener)
  t.teardown(() => diagnosticsChannel.unsubscribe(CHANNEL, listener))
  return seen
}

const old = { 'x-api-version': '2000-01-01', authorization: 'Bearer secret-token' }

test('a validation 400 and a converter\'s 422 are recorded as refused exchanges, redacted; an accepted request as before', async (t) => {
  const app = await refusingApp({}, { captureExchanges: { redact: { headers: ['authorization'], pointers: ['/first'] } } })
  t.teardown(() => app.close())
  const seen = captured(t)
  const accepted = await app.inject({ method: 'POST', url: '/people', headers: old, payload: { first: 'Ada', last: 'Lovelace' } })
  t.equal(accepted.statusCode, 201)
  const invalid = await app.inject({ method: 'POST', url: '/people', headers: old, payload: { first: 'Grace', last: 'Hopper', age: -1 } })
  t.equal(invalid.statusCode, 400)
  const half = await app.inject({ method: 'POST', url: '/people', headers: old, payload: { first: 'Alan' } })
  t.equal(half.statusCode, 422)
  await app.inject({ method: 'POST', url: '/nowhere', headers: old, payload: {} })
  await app.inject({ method: 'POST', url: '/people', headers: { 'x-api-version': '1999-01-01' }, payload: {} })
  t.equal(seen.length, 3, 'the accepted exchange and two refusals; neither a route not found nor an unknown version')

  const [handled, byValidation, byConverter] = seen as [CapturedExchange, RefusedExchange, RefusedExchange]
  t.same(handled.handlerRequest.body, { name: '[redacted] Lovelace' }, 'an accepted request: its handled form, as before')
  t.notOk('refused' in handled)

  t.notOk('handlerRequest' in byValidation || 'handlerResponse' in byValidation, 'no handler saw it')
  t.same(byValidation.refused, { by: 'validation', status: 400, code: 'FST_ERR_VALIDATION', part: 'body', instancePath: '/age', keyword: 'minimum', message: 'body/age must be >= 0' })
  t.same(byValidation.clientRequest.body, { first: '[redacted]', last: 'Hopper', age: -1 })
  t.equal(byValidation.clientRequest.headers.authorization, '[redacted]')
  t.same([byValidation.version, byValidation.route], ['2000-01-01', { method: 'POST', url: '/people' }])
  t.same([byValidation.clientResponse.status, byValidation.clientResponse.body], [400, invalid.json()])
  t.same(byValidation.refusedResponse.body, invalid.json(), 'no error converter: the error handler\'s body as sent')

  t.same(byConverter.refused, { by: 'converter', status: 422, code: 'NAME_INCOMPLETE', message: 'last is required with first' })
  t.same(byConverter.clientRequest.body, { first: '[redacted]' })
  t.same([byConverter.clientResponse.status, byConverter.clientResponse.body], [422, half.json()])
  t.same(JSON.parse(JSON.stringify(seen)), seen, 'plain JSON data: one NDJSON line each')
})

test('refusals are sampled as exchanges are: none at sampleRate 0, none without a subscriber', async (t) => {
  const app = await refusingApp({}, { captureExchanges: { sampleRate: 0 } })
  t.teardown(() => app.close())
  const seen = captured(t)
  await app.inject({ method: 'POST', url: '/people', headers: old, payload: { first: 'Alan' } })
  t.equal(seen.length, 0)
  const off = await refusingApp()
  t.teardown(() => off.close())
  t.equal((await off.inject({ method: 'POST', url: '/people', headers: old, payload: { first: 'Alan' } })).statusCode, 422)
  t.equal(seen.length, 0)
})
