// `verify` on a number whose unit a version change changes (decision 0339): Unix time in seconds and milliseconds,
// ISO 8601 times, cents and currency units, stated in the fields' descriptions. A webhook's or response's field goes
// down and never comes back, so only its unit tells a wrong factor (`Date.parse` for seconds, `* 1000` where `/ 1000`
// was meant), a converter giving another quantity (`getSeconds()`), or one bound to another schema that leaves the
// value as it was. Correct conversions, and words the vocabulary does not read, give no finding.
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, schema, VersionChange, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { verify } from '../../tools'
import { appWith, summary, type Convert } from '../helpers/verify-apps'
import { convertible, misconverted, unitOf } from '../../lib/tools/unit-words'

const Invoice = Type.Object({ id: Type.String(), total: Type.Integer({ minimum: 0, description: 'In cents.' }) }, { $id: 'Invoice' })

/** An event `{ id, created, data: { object: Invoice } }` whose HEAD `created` is `created`, sent as the webhook `invoice.paid`. */
function eventOf (created: TSchema): TSchema {
  return Type.Object({ id: Type.String(), created, data: Type.Object({ object: Invoice }) }, { $id: 'InvoicePaidEvent' })
}

/** A ready app with `change` (2001-01-01) and the webhook `invoice.paid` carrying `event`. */
async function webhookApp (t: Parameters<typeof appWith>[0], event: TSchema, change: Parameters<typeof appWith>[1]): Promise<FastifyInstance> {
  return await appWith(t, change, () => {}, { beforeRoutes: (app) => { app.versioner.webhooks.add({ name: 'invoice.paid', body: event }) } })
}

/** The event's `created` given older versions as `older` (a type, or only a description), converted down by `convert` (bound to the event, or with `boundTo` another schema). */
async function eventTime (t: Parameters<typeof appWith>[0], head: TSchema, older: { type?: TSchema, description?: string }, convert: Convert, boundTo?: TSchema): Promise<FastifyInstance> {
  const event = eventOf(head)
  class EventTimes extends VersionChange {
    description = "An event's created changed unit."
    instructionsToMigrateToPreviousVersion = [schema(event).field('created').had(older)]

    @ConvertResponseToPreviousVersionFor(boundTo ?? event)
    createdDown (response: ResponseInfo) {
      response.body.created = convert(response.body.created)
    }
  }
  return await webhookApp(t, event, EventTimes)
}

const [ISO, SECONDS, MILLISECONDS] = [Type.String({ format: 'date-time' }), Type.Integer({ description: 'Unix time, in seconds.' }), Type.Integer({ description: 'Unix time, in milliseconds.' })]

/** The findings of a wrong unit only, on one line each. */
async function wrongUnits (app: FastifyInstance): Promise<string[]> {
  return summary(await verify(app, { examples: 20 })).filter((line) => line.includes('wrong unit'))
}

test('an ISO time given older subscribers as Date.parse (milliseconds where seconds were due) is found, naming the value, the unit and the fix', async (t) => {
  const findings = await verify(await eventTime(t, ISO, { type: SECONDS }, (created: string) => Date.parse(created)), { examples: 20 })
  t.same(summary(findings), ['webhook invoice.paid 2000-01-01 response wrong unit payload/created after EventTimes (2001-01-01) by EventTimes.createdDown'])
  const [finding] = findings
  const sent = finding.value as string
  const [ms, s] = [Date.parse(sent), Math.floor(Date.parse(sent) / 1000)]
  t.equal(finding.message, `'${sent}' (an ISO 8601 time in 2001-01-01) arrives in 2000-01-01 as ${ms}, where its schema says Unix time in seconds: ${s} was due`)
  t.equal(finding.fix, `Make EventTimes.createdDown write InvoicePaidEvent.created in Unix time in seconds ('${sent}' is ${s}); if its unit did not change, make its descriptions in both versions say the same unit.`)
  t.match(finding.text, `webhook invoice.paid (2000-01-01): payload/created: '${sent}' (an ISO 8601 time in 2001-01-01) arrives in 2000-01-01 as ${ms}`)
})

test('an ISO time given older subscribers as the seconds of its minute (getSeconds) is found', async (t) => {
  t.same(await wrongUnits(await eventTime(t, Type.String({ format: 'date-time', description: 'When the event happened: an ISO 8601 time, in UTC.' }), { type: SECONDS }, (created: string) => new Date(created).getSeconds())),
    ['webhook invoice.paid 2000-01-01 response wrong unit payload/created after EventTimes (2001-01-01) by EventTimes.createdDown'])
})

test('milliseconds given as seconds by a helper called the wrong way (times 1000) are found, the unit changed by a description alone', async (t) => {
  const findings = await verify(await eventTime(t, MILLISECONDS, { description: 'Unix time, in seconds.' }, (created: number) => created * 1000), { examples: 20 })
  t.same(summary(findings), ['webhook invoice.paid 2000-01-01 response wrong unit payload/created after EventTimes (2001-01-01) by EventTimes.createdDown'])
  t.match(findings[0].message, /^\d+ \(Unix time in milliseconds in 2001-01-01\) arrives in 2000-01-01 as \d+, where its schema says Unix time in seconds/)
  t.ok((findings[0].value as number) > Date.UTC(2025, 0, 1), 'the value is a time of 2025 in milliseconds, not one of 1970')
})

test('milliseconds left unconverted by a converter bound to the invoice the event carries are found (lost), saying it ran but left the value', async (t) => {
  const findings = await verify(await eventTime(t, MILLISECONDS, { description: 'Unix time, in seconds.' }, (created: number) => Math.floor(created / 1000), Invoice), { examples: 20 })
  const units = findings.filter((finding) => finding.pointer === '/created')
  t.same(summary(units as typeof findings), ['webhook invoice.paid 2000-01-01 response lost payload/created after EventTimes (2001-01-01) by EventTimes.createdDown'])
  t.match(units[0].message, /^the value at \/created in HEAD does not reach 2000-01-01: \d+ \(Unix time in milliseconds in 2001-01-01\) arrives unconverted, where the schema of 2000-01-01 says Unix time in seconds: \d+ was due$/)
  t.match(units[0].fix, 'EventTimes.createdDown ran but left it as it was (is it bound to the schema holding the field?)')
})

test('a unit changed with no converter at all is found (lost), with the converter to add', async (t) => {
  const event = eventOf(MILLISECONDS)
  class EventTimes extends VersionChange {
    description = "An event's created is in milliseconds."
    instructionsToMigrateToPreviousVersion = [schema(event).field('created').had({ description: 'Unix time, in seconds.' })]
  }
  const findings = await verify(await webhookApp(t, event, EventTimes), { examples: 20 })
  t.same(summary(findings), ['webhook invoice.paid 2000-01-01 response lost payload/created after EventTimes (2001-01-01) by '])
  t.match(findings[0].fix, 'Convert InvoicePaidEvent.created to Unix time in seconds in a response converter of EventTimes')
  t.match(findings[0].text, /first wrong after EventTimes \(2001-01-01\), no converter ran/)
})

/** A line whose HEAD `unitAmount` is a decimal string in currency units, older an integer in cents, converted by `up` and `down`; `POST /lines` answers what it takes. */
async function decimalAmounts (t: Parameters<typeof appWith>[0], up: Convert, down: Convert): Promise<FastifyInstance> {
  const Line = Type.Object({ description: Type.String(), unitAmount: Type.String({ pattern: '^[0-9]+([.][0-9]+)?$', description: 'In currency units, as a decimal string: sub-cent prices (0.0125 an API call) are exact.' }) }, { $id: 'Line' })
  class DecimalUnitAmounts extends VersionChange {
    description = "A line's unitAmount is a decimal string in currency units (it was an integer in cents)."
    instructionsToMigrateToPreviousVersion = [schema(Line).field('unitAmount').had({ type: Type.Integer({ minimum: 0, description: 'In cents.' }) })]

    @ConvertRequestToNextVersionFor(Line)
    centsToUnits (request: RequestInfo) {
      request.body.unitAmount = up(request.body.unitAmount)
    }

    @ConvertResponseToPreviousVersionFor(Line)
    unitsToCents (response: ResponseInfo) {
      response.body.unitAmount = down(response.body.unitAmount)
    }
  }
  return await appWith(t, DecimalUnitAmounts, (api) => {
    api.post('/lines', { schema: { body: Line, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'l1' }))
    api.get('/lines/:id', { schema: { response: { 200: Line } } }, async () => { throw new Error('not served in verify') })
  })
}

test('decimal amounts converted with a pair copied from a cents change (times 100 up, divided down) are found both ways', async (t) => {
  const findings = await verify(await decimalAmounts(t, (cents: number) => String(cents * 100), (units: string) => Math.round(Number(units) / 100)), { examples: 20 })
  const units = findings.filter((finding) => finding.kind === 'wrong unit')
  t.same(summary(units as typeof findings), [
    'POST /lines 2000-01-01 request wrong unit body/unitAmount after DecimalUnitAmounts (2001-01-01) by DecimalUnitAmounts.centsToUnits',
    'GET /lines/:id 2000-01-01 response wrong unit response 200/unitAmount after DecimalUnitAmounts (2001-01-01) by DecimalUnitAmounts.unitsToCents'
  ])
  t.match(units[0].message, /^\d+ \(cents \(the smallest currency unit\) in 2000-01-01\) arrives in 2001-01-01 as '\d+', where its schema says currency units: '[0-9.]+' was due$/)
})

test('the same amounts converted right (divided by 100 up, times 100 rounded down) give no finding', async (t) => {
  t.same(await wrongUnits(await decimalAmounts(t, (cents: number) => String(cents / 100), (units: string) => Math.round(Number(units) * 100))), [])
})

/** `POST /things` taking and answering `Thing`, whose `at` is `head` in HEAD and `older` before, converted by `up` and `down`. */
async function converted (t: Parameters<typeof appWith>[0], types: { head: TSchema, older: { type?: TSchema, description?: string } }, up: Convert, down: Convert): Promise<FastifyInstance> {
  const Thing = Type.Object({ id: Type.String(), at: types.head }, { $id: 'Thing' })
  class AtChanged extends VersionChange {
    description = 'at changed unit.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('at').had(types.older)]

    @ConvertRequestToNextVersionFor(Thing)
    atUp (request: RequestInfo) {
      request.body.at = up(request.body.at)
    }

    @ConvertResponseToPreviousVersionFor(Thing)
    atDown (response: ResponseInfo) {
      response.body.at = down(response.body.at)
    }
  }
  return await appWith(t, AtChanged, (api) => {
    api.post('/things', { schema: { body: Thing, response: { 200: Thing } } }, async (request) => request.body)
  })
}

test('a correct seconds and milliseconds change, both ways, gives no finding; the same with the factor inverted is found both ways', async (t) => {
  t.same(await wrongUnits(await converted(t, { head: MILLISECONDS, older: { description: 'Unix time, in seconds.' } }, (s: number) => s * 1000, (ms: number) => Math.floor(ms / 1000))), [])
  t.same(await wrongUnits(await converted(t, { head: MILLISECONDS, older: { description: 'Unix time, in seconds.' } }, (s: number) => Math.round(s / 1000), (ms: number) => ms * 1000)), [
    'POST /things 2000-01-01 request wrong unit body/at after AtChanged (2001-01-01) by AtChanged.atUp',
    'POST /things 2000-01-01 response wrong unit response 200/at after AtChanged (2001-01-01) by AtChanged.atDown'
  ])
})

test('a correct change between an ISO time and Unix seconds, both ways, gives no finding', async (t) => {
  t.same(await wrongUnits(await converted(t, { head: SECONDS, older: { type: ISO } }, (iso: string) => Math.floor(Date.parse(iso) / 1000), (s: number) => new Date(s * 1000).toISOString())), [])
  t.same(await wrongUnits(await converted(t, { head: ISO, older: { type: SECONDS } }, (s: number) => new Date(s * 1000).toISOString(), (iso: string) => Math.round(Date.parse(iso) / 1000))), [])
})

test('a correct change between currency units and cents, numbers both, gives no finding', async (t) => {
  const [cents, units] = [Type.Integer({ minimum: 0, description: 'In cents.' }), Type.Number({ minimum: 0, description: 'In currency units.' })]
  t.same(await wrongUnits(await converted(t, { head: cents, older: { type: units } }, (x: number) => Math.round(x * 100), (x: number) => x / 100)), [])
})

test('words the vocabulary does not read, or that name two units, are not checked', async (t) => {
  const wrong = (ms: number): number => ms * 1000
  const timestamp = Type.Integer({ description: 'A timestamp.' })
  t.same(await wrongUnits(await eventTime(t, timestamp, { description: 'Unix time, in seconds.' }, wrong)), [], 'a timestamp of no unit')
  t.same(await wrongUnits(await eventTime(t, MILLISECONDS, { description: 'Unix time in seconds or milliseconds.' }, wrong)), [], 'two units')
  t.same(await wrongUnits(await eventTime(t, Type.Integer({ description: 'The second attempt.' }), { description: 'Unix time, in seconds.' }, wrong)), [], "'second' is no unit")
})

test('the vocabulary: what it reads from descriptions and formats, and what converts to what', async (t) => {
  t.same(unitOf({ type: 'integer', description: 'Seconds since the Unix epoch.' }), { kind: 'time', name: 'seconds', unix: true })
  t.same(unitOf({ type: 'integer', description: 'Timeout in ms.' }), { kind: 'time', name: 'milliseconds', unix: false })
  t.same(unitOf({ type: 'integer', description: 'Unix time.' }), { kind: 'time', name: 'seconds', unix: true }, 'Unix time is counted in seconds')
  t.same(unitOf({ type: 'string', format: 'date' }), { kind: 'time', name: 'date', unix: true })
  t.same(unitOf({ type: 'integer', description: 'Amounts are integers in hundredths of the currency unit.' }), { kind: 'money', name: 'minor' })
  t.same(unitOf({ type: 'integer', description: 'In the smallest currency unit.' }), { kind: 'money', name: 'minor' })
  t.same(unitOf({ type: 'string', description: 'A decimal amount.' }), { kind: 'money', name: 'major' })
  t.equal(unitOf({ type: 'number', description: 'In cents, or in currency units for JPY.' }), undefined, 'both money units')
  t.equal(unitOf({ type: 'integer', description: 'Retries per second.' }), undefined)
  t.equal(unitOf({ type: 'integer', description: 'Duration in seconds, in cents.' }), undefined, 'a time and an amount')
  const [seconds, duration] = [unitOf({ type: 'integer', description: 'In seconds.' }), unitOf({ type: 'integer', description: 'Unix time in ms.' })]
  const iso = unitOf({ type: 'string', format: 'date-time' })
  if (seconds === undefined || duration === undefined || iso === undefined) return t.fail('units read')
  t.ok(convertible(seconds, duration))
  t.notOk(convertible(seconds, iso), 'a duration in seconds is no ISO time')
  t.equal(misconverted({ from: duration, to: iso, toNode: { type: 'string' } }, 978307207123, '2001-01-01T00:00:07.123Z'), undefined)
  t.same(misconverted({ from: iso, to: duration, toNode: { type: 'integer' } }, '2001-01-01T00:00:07.123Z', 7), { due: 978307207123 })
})
