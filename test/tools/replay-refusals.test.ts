// Refused exchanges replayed (decision 0307): recorded from the correct application, an old client's invalid request
// (a 400) and its impossible one (`first` without `last`, a converter's 422) must be refused alike. A converter that
// no longer refuses is found by the converters' replay and by the handlers'; an error handler renaming the validation
// code by the handlers'; the correct application gives no finding; files without refused exchanges read as before.
import { test } from 'tap'
import diagnosticsChannel from 'node:diagnostics_channel'
import { readTraffic, replayTraffic } from '../../tools'
import { refusingApp, type RefusingMistakes } from '../helpers/refusing-app'

const old = { 'x-api-version': '2000-01-01' }

/** The traffic of an old client, recorded from the correct application: NDJSON. */
async function recorded (): Promise<string> {
  const lines: string[] = []
  const listener = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', listener)
  const app = await refusingApp({}, { captureExchanges: {} })
  try {
    for (const payload of [{ first: 'Ada', last: 'Lovelace' }, { first: 'Grace', last: 'Hopper', age: -1 }, { first: 'Alan' }, { last: 'Turing' }]) {
      await app.inject({ method: 'POST', url: '/people', headers: old, payload })
    }
  } finally {
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', listener)
    await app.close()
  }
  return lines.join('\n')
}

async function replayed (text: string, mistakes: RefusingMistakes, handlers: boolean): Promise<string[]> {
  const app = await refusingApp(mistakes)
  await app.ready()
  try {
    const report = await replayTraffic(app, readTraffic(text), handlers ? { handlers: async () => await refusingApp(mistakes) } : {})
    return [...report.findings.map((finding) => finding.text), ...report.notReplayable.map((item) => `not replayed: ${item.message}`)]
  } finally {
    await app.close()
  }
}

test('refused exchanges: the correct application is clean, a converter that no longer refuses and a renamed code are found', async (t) => {
  const text = await recorded()
  const traffic = readTraffic(text)
  t.same([traffic.exchanges.length, traffic.refusals.length, traffic.problems.length], [1, 3, 0])
  t.same(traffic.refusals.map(({ refusal }) => [refusal.refused.by, refusal.clientResponse.status]), [['validation', 400], ['converter', 422], ['validation', 400]])

  t.same(await replayed(text, {}, false), [], 'correct: no finding by the converters')
  t.same(await replayed(text, {}, true), [], 'correct: no finding by the handlers')

  const lets = await replayed(text, { lets: true }, false)
  t.equal(lets.length, 1)
  t.match(lets[0], /^line 3: POST \/people \(2000-01-01\): request: now accepted: the client was refused 422 NAME_INCOMPLETE \(a converter: last is required with first\); the version's validation and request converters now let it through/)
  const letsHandlers = await replayed(text, { lets: true }, true)
  t.same(letsHandlers, lets, 'the handlers do not judge a line the converters reported')

  const renamed = await replayed(text, { renamedCode: true }, false)
  t.same(renamed, [], 'the converters see no error handler')
  const renamedHandlers = await replayed(text, { renamedCode: true }, true)
  t.match(renamedHandlers, [
    /^line 2: POST \/people \(2000-01-01\): answer body\/code: the client received 'FST_ERR_VALIDATION', the handlers of a fresh application now answer 'invalid_request'/,
    /^line 3: .* answer body\/error: the client received 'Unprocessable Entity', the handlers of a fresh application now answer 'Bad Request'/,
    /^line 4: .* answer body\/code: /
  ])
  t.equal(renamedHandlers.length, 3)
})

test('Ajv\'s words are not compared: a refusal with another message but the same place and keyword is clean', async (t) => {
  const text = (await recorded()).replaceAll('body/age must be >= 0', 'body/age doit être >= 0')
  t.same(await replayed(text, {}, false), [])
  t.same(await replayed(text, {}, true), [])
  const moved = (await recorded()).replace('"instancePath":"/age"', '"instancePath":"/years"')
  t.match(await replayed(moved, {}, false), [/^line 2: .*refused otherwise: the client was refused 400 FST_ERR_VALIDATION \(the version's schema: body\/years minimum\); now refused \(the version's schema: body\/age minimum\)/])
})
