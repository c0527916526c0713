import { test } from 'tap'
import { randomBytes } from 'node:crypto'
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import { endpoint, fastifyVersioner, generateVersionedSchemas, migrateResponseBody, renderWebhook, schema, Version, VersionBundle, VersionChange, type RenderWebhookOptions, type WebhookSubscriber } from '../../plugin'
import { caught, rejection, type CodedError } from '../helpers/errors'
import { anotherCopy } from '../helpers/another-copy'
import { calls, event, invoicePaid, invoiceRefunded, invoiceVersions, newSecret, receiverProblem, Refunded, webhookApp } from '../helpers/webhook-apps'

const DAY = 86_400_000

const Thing = Type.Object({ id: Type.String(), at: Type.String(), extra: Type.Unknown() })

/** `at` was added in 2001-01-01. */
class AtAdded extends VersionChange {
  description = 'Things have at.'
  instructionsToMigrateToPreviousVersion = [schema(Thing).field('at').didntExist]
}

test('a pin the bundle no longer serves falls forward to the oldest version served, and the version header says which', async (t) => {
  const app = await webhookApp(t)
  const secret = newSecret()
  const pins: Array<[string | Date, string]> = [['1999-01-01', 'older than the oldest version (retired)'], ['latest', 'no version value'], [new Date('1990-05-01'), 'an old Date']]
  for (const [version, what] of pins) {
    const { deliveries: [delivery] } = await app.versioner.webhooks.render('invoice.paid', event, { subscribers: [{ id: 'ep_old', version, secret }] })
    t.match(delivery, { version: '2000-01-01', fellForward: true, requested: version instanceof Date ? '1990-05-01' : version }, `${what}: 2000-01-01`)
    t.equal(delivery.headers['x-api-version'], '2000-01-01', `${what}: the header names the version sent`)
    t.equal(receiverProblem(app, delivery, [secret]), undefined, `${what}: the body is 2000-01-01's, signed`)
  }
  const served = await app.versioner.webhooks.render('invoice.paid', event, { subscribers: [{ id: 'ep', version: '2000-01-01', secret }] })
  t.equal(served.deliveries[0].fellForward, false, 'a served pin does not fall forward')
})

test('a version gone after its sunset falls forward from then on: the timestamp, or the now option, is the instant', async (t) => {
  const sunset = new Date(Date.now() - DAY)
  const secret = newSecret()
  const subscribers = [{ id: 'ep_1', version: '2000-01-01', secret }]
  const app = await webhookApp(t, invoiceVersions({ sunsetOf2000: sunset }))
  const after = await app.versioner.webhooks.render('invoice.paid', event, { subscribers })
  t.match(after.deliveries[0], { version: '2001-01-01', requested: '2000-01-01', fellForward: true })
  t.equal(after.deliveries[0].headers['x-api-version'], '2001-01-01', 'the header names the version sent')
  t.equal(receiverProblem(app, after.deliveries[0], [secret]), undefined, "2001-01-01's body, signed")
  const before = await app.versioner.webhooks.render('invoice.paid', event, { subscribers, timestamp: new Date(sunset.getTime() - DAY) })
  t.match(before.deliveries[0], { version: '2000-01-01', fellForward: false }, 'rendered for an instant before the sunset')
  const clocked = await webhookApp(t, invoiceVersions({ sunsetOf2000: sunset }), { now: () => sunset.getTime() - 1000 })
  const early = await clocked.versioner.webhooks.render('invoice.paid', event, { subscribers })
  t.match(early, { timestamp: Math.floor((sunset.getTime() - 1000) / 1000), deliveries: [{ version: '2000-01-01' }] }, 'the now option is the clock')
})

test('a pin in a scheduled brownout is rendered in its version, not fallen forward: the 410 is for requests only', async (t) => {
  const inside = Date.parse('2026-04-07T14:30:00Z')
  const versions = new VersionBundle(new Version('2002-01-01'), new Version('2001-01-01'), new Version('2000-01-01', {
    deprecatedAt: '2025-06-01', sunsetAt: '2026-06-01', afterSunset: 'gone', brownouts: [{ start: '2026-04-07T14:00:00Z', end: '2026-04-07T15:00:00Z' }]
  }))
  const app = await webhookApp(t, versions, { now: () => inside })
  t.equal((await app.inject({ url: '/ping', headers: { 'x-api-version': '2000-01-01' } })).statusCode, 410, 'a request inside the window is answered 410')
  const secret = newSecret()
  const subscribers = [{ id: 'ep_old', version: '2000-01-01', secret }]
  const clocked = await app.versioner.webhooks.render('invoice.paid', event, { subscribers })
  t.match(clocked.deliveries[0], { version: '2000-01-01', fellForward: false }, 'by the now clock, inside the window')
  t.equal(clocked.deliveries[0].headers['x-api-version'], '2000-01-01')
  t.equal(clocked.deliveries[0].body, JSON.stringify(await app.versioner.migrateResponseBody(invoicePaid.body, { latestBody: event, version: '2000-01-01' })), "2000-01-01's body")
  const stamped = await renderWebhook(versions, invoicePaid, event, { subscribers, timestamp: new Date(inside) })
  t.match(stamped.deliveries[0], { version: '2000-01-01', fellForward: false }, 'renderWebhook, a timestamp inside the window')
  const after = await app.versioner.webhooks.render('invoice.paid', event, { subscribers, timestamp: new Date('2026-06-02T00:00:00Z') })
  t.match(after.deliveries[0], { version: '2001-01-01', fellForward: true }, 'after the sunset it falls forward')
})

test('regression: a middle version gone after its sunset fell back to an older version; it falls forward to the closest newer one', async (t) => {
  const gone = { sunsetAt: new Date(Date.now() - DAY), afterSunset: 'gone' as const }
  const versions = new VersionBundle(new Version('2003-01-01'), new Version('2002-01-01'), new Version('2001-01-01', gone), new Version('2000-01-01'))
  const body = Type.Object({ id: Type.String() })
  const subscribers = [{ id: 'ep_gone', version: '2001-01-01', secret: newSecret() }, { id: 'ep_old', version: '1999-01-01', secret: newSecret() }]
  const { deliveries } = await renderWebhook(versions, { name: 'thing.done', body }, { id: 'x' }, { subscribers })
  t.match(deliveries[0], { version: '2002-01-01', requested: '2001-01-01', fellForward: true }, 'the closest newer version served, not 2000-01-01')
  t.match(deliveries[1], { version: '2000-01-01', requested: '1999-01-01', fellForward: true }, 'a retired pin: the oldest served, as before')
})

test('string versions: a value the bundle lacks falls forward too', async (t) => {
  const versions = new VersionBundle(new Version('beta'), new Version('alpha'))
  const body = Type.Object({ id: Type.String() })
  const { deliveries } = await renderWebhook(versions, { name: 'thing.done', body }, { id: 'x' }, { subscribers: [{ id: 'ep_1', version: 'zeta', secret: newSecret() }] })
  t.match(deliveries[0], { version: 'alpha', requested: 'zeta', fellForward: true })
})

test('regression: a subscriber pinned to a preview promoted to its date (or dropped) is sent that date\'s version, not the oldest one', async (t) => {
  const body = Type.Object({ id: Type.String() })
  const subscribers = [{ id: 'ep_beta', version: '2002-01-01.preview', secret: newSecret() }, { id: 'ep_old', version: '1999-01-01.preview', secret: newSecret() }]
  const promoted = new VersionBundle(new Version('2002-01-01'), new Version('2001-01-01'), new Version('2000-01-01'))
  const after = await renderWebhook(promoted, { name: 'thing.done', body }, { id: 'x' }, { subscribers })
  t.match(after.deliveries[0], { version: '2002-01-01', requested: '2002-01-01.preview', fellForward: true }, 'promoted: the release it became')
  t.match(after.deliveries[1], { version: '2000-01-01', requested: '1999-01-01.preview', fellForward: true }, 'a date older than every version: the oldest, as before')
  const dropped = new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01'))
  const without = await renderWebhook(dropped, { name: 'thing.done', body }, { id: 'x' }, { subscribers: [subscribers[0]] })
  t.match(without.deliveries[0], { version: '2001-01-01', fellForward: true }, 'dropped: the newest release before its date, as a request for that date')
})

test('a subscriber pinned to a preview named by a word (unstable) has no date to read once it is promoted: the oldest version, as documented', async (t) => {
  const body = Type.Object({ id: Type.String() })
  const promoted = new VersionBundle(new Version('2002-01-01'), new Version('2001-01-01'), new Version('2000-01-01'))
  const { deliveries } = await renderWebhook(promoted, { name: 'thing.done', body }, { id: 'x' }, { subscribers: [{ id: 'ep_beta', version: 'unstable', secret: newSecret() }] })
  t.match(deliveries[0], { version: '2000-01-01', requested: 'unstable', fellForward: true }, 'docs/release-channels.md: move the pins before promoting')
})

test('regression: a stored pin with whitespace, or a Date stored as its JSON text, was sent the oldest version\'s body', async (t) => {
  const versions = new VersionBundle(new Version('2002-01-01'), new Version('2001-01-01', AtAdded), new Version('2000-01-01'))
  const definition = { name: 'thing.done', body: Thing }
  const pins = ['2002-01-01 ', ' 2002-01-01\n', JSON.parse(JSON.stringify(new Date('2002-03-04T10:00:00Z'))) as string]
  const subscribers = pins.map((version, index) => ({ id: `ep_${index}`, version, secret: newSecret() }))
  const { deliveries } = await renderWebhook(versions, definition, { id: 'x', at: 'now', extra: null }, { subscribers })
  t.same(deliveries.map(({ version, requested, fellForward }) => ({ version, requested, fellForward })), [
    { version: '2002-01-01', requested: '2002-01-01 ', fellForward: false },
    { version: '2002-01-01', requested: ' 2002-01-01\n', fellForward: false },
    { version: '2002-01-01', requested: '2002-03-04T10:00:00.000Z', fellForward: true }
  ], 'the version a request sending that value (or that date) is served, not 2000-01-01')
  t.same(deliveries.map(({ body }) => JSON.parse(body)), pins.map(() => ({ id: 'x', at: 'now', extra: null })), 'the body of 2002-01-01, with at')
})

test('a release whose releasedAt has not come is not rendered: a pin resolves at the timestamp as a request would', async (t) => {
  const releasedAt = new Date(Date.now() + DAY)
  const versions = new VersionBundle(new Version('2002-01-01', { releasedAt }), new Version('2001-01-01'))
  const definition = { name: 'thing.done', body: Type.Object({ id: Type.String() }) }
  const subscribers = [{ id: 'ep_exact', version: '2002-01-01', secret: newSecret() }, { id: 'ep_date', version: new Date('2002-06-01'), secret: newSecret() }]
  const before = await renderWebhook(versions, definition, { id: 'x' }, { subscribers })
  t.same(before.deliveries.map(({ version, fellForward }) => [version, fellForward]), [['2001-01-01', false], ['2001-01-01', false]],
    'before its release, 2002-01-01 is not sent: both pins waterfall to the newest release served')
  t.same(before.deliveries.map(({ headers }) => headers['x-api-version']), ['2001-01-01', '2001-01-01'])
  const after = await renderWebhook(versions, definition, { id: 'x' }, { subscribers, timestamp: new Date(releasedAt.getTime() + 1000) })
  t.same(after.deliveries.map(({ version }) => version), ['2002-01-01', '2002-01-01'], 'rendered for an instant after its release')
})

test('regression: a webhook given other methods in an older version (had({ methods })) was documented so, and sent with its one method', async (t) => {
  class NowPost extends VersionChange {
    description = 'invoice.paid was a PUT.'
    instructionsToMigrateToPreviousVersion = [endpoint('invoice.paid', ['POST']).had({ methods: ['PUT'] })]
  }
  const versions = new VersionBundle(new Version('2001-01-01', NowPost), new Version('2000-01-01'))
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions })
  app.versioner.webhooks.add(invoicePaid)
  const error = await rejection(() => app.ready())
  t.equal(error?.code, 'FST_VERSIONER_STRUCTURE', 'refused at start-up: no delivery says which method its version documents')
  t.match(error?.message, /Webhook 'invoice\.paid' \(POST\) has the methods PUT in the version before 2001-01-01/)
  const subscribers = [{ id: 'ep_1', version: '2000-01-01', secret: newSecret() }]
  const standalone = await rejection(() => renderWebhook(versions, invoicePaid, event, { subscribers }))
  t.equal(standalone?.code, 'FST_VERSIONER_STRUCTURE', 'and in a worker')
})

test('regression: a webhook renamed in an older version onto another webhook\'s name was accepted; that version\'s document showed only one of them', async (t) => {
  class WasSettled extends VersionChange {
    description = 'invoice.paid was invoice.settled.'
    instructionsToMigrateToPreviousVersion = [endpoint('invoice.paid', ['POST']).had({ path: 'invoice.settled' })]
  }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', WasSettled), new Version('2000-01-01')) })
  app.versioner.webhooks.add(invoicePaid).add({ name: 'invoice.settled', body: Refunded })
  const error = await rejection(() => app.ready())
  t.equal(error?.code, 'FST_VERSIONER_STRUCTURE')
  t.match(error?.message, /Webhooks 'invoice\.paid' and 'invoice\.settled' are both 'invoice\.settled' \(POST\) in version 2000-01-01/)
})

test('render names no declared webhook: FST_VERSIONER_UNKNOWN_WEBHOOK, listing those declared; one name with two methods needs { method }', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: invoiceVersions() })
  const webhooks = app.versioner.webhooks
  webhooks.add(invoicePaid).add({ ...invoicePaid, method: 'PUT' }).add(invoiceRefunded)
  const subscribers = [{ id: 'ep_1', version: '2001-01-01', secret: newSecret() }]
  const early = await rejection(() => webhooks.render('invoice.paid', event, { subscribers }))
  t.equal(early?.code, 'FST_VERSIONER_NOT_READY', 'before ready')
  await app.ready()
  const unknown = await rejection(() => webhooks.render('invoice.payed', event, { subscribers }))
  t.equal(unknown?.code, 'FST_VERSIONER_UNKNOWN_WEBHOOK')
  t.match(unknown?.message, "No webhook 'invoice.payed' is declared; declared with webhooks.add(): 'invoice.paid' (POST), 'invoice.paid' (PUT), 'invoice.refunded' (POST).")
  const ambiguous = await rejection(() => webhooks.render('invoice.paid', event, { subscribers }))
  t.equal(ambiguous?.code, 'FST_VERSIONER_UNKNOWN_WEBHOOK')
  t.match(ambiguous?.message, /several methods \(POST, PUT\): pass \{ method \}/)
  const put = await webhooks.render('invoice.paid', event, { subscribers, method: 'put' })
  t.equal(put.deliveries.length, 1, '{ method } picks one')
  t.equal((await rejection(() => webhooks.render('invoice.paid', event, { subscribers, method: 'DELETE' })))?.code, 'FST_VERSIONER_UNKNOWN_WEBHOOK')
})

test('render by the definition given to add(): its method picks the webhook; another body schema under its name is refused', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: invoiceVersions() })
  const putPaid = { ...invoicePaid, method: 'PUT' as const }
  app.versioner.webhooks.add(invoicePaid).add(putPaid).add(invoiceRefunded)
  await app.ready()
  const subscribers = [{ id: 'ep_1', version: '2000-01-01', secret: newSecret() }]
  const byName = await app.versioner.webhooks.render('invoice.paid', event, { subscribers, method: 'POST', id: 'msg_1', timestamp: new Date(0) })
  const byDefinition = await app.versioner.webhooks.render(invoicePaid, event, { subscribers, id: 'msg_1', timestamp: new Date(0) })
  t.same(byDefinition, byName, 'the same deliveries as by name and method')
  const put = await app.versioner.webhooks.render(putPaid, event, { subscribers })
  t.equal(put.deliveries.length, 1, "the definition's method picks one of two webhooks of one name")
  const other = { name: 'invoice.paid', body: Type.Object({ type: Type.String(), data: Type.Unknown() }) }
  const refused = await rejection(() => app.versioner.webhooks.render(other, { type: 'invoice.paid', data: {} }, { subscribers, method: 'POST' }))
  t.equal(refused?.code, 'FST_VERSIONER_UNKNOWN_WEBHOOK')
  t.match(refused?.message, "Webhook 'invoice.paid' is declared with another body schema than the definition given to render()")
})

test('a body the HEAD schema refuses: FST_VERSIONER_INVALID_WEBHOOK_BODY naming the place, before any converter runs', async (t) => {
  const app = await webhookApp(t)
  calls.clear()
  const subscribers = [{ id: 'ep_1', version: '2000-01-01', secret: newSecret() }]
  const error = await rejection(() => app.versioner.webhooks.render('invoice.paid', { ...event, data: { ...event.data, amount: '12.50' } }, { subscribers }))
  t.equal(error?.code, 'FST_VERSIONER_INVALID_WEBHOOK_BODY')
  t.match(error?.message, "webhook 'invoice.paid' is not one its HEAD schema accepts: at '/data/amount', must be integer")
  t.equal(calls.size, 0, 'no converter ran')
  const worker = await rejection(() => renderWebhook(invoiceVersions(), invoicePaid, { type: 'invoice.paid' } as never, { subscribers }))
  t.equal(worker?.code, 'FST_VERSIONER_INVALID_WEBHOOK_BODY', 'renderWebhook too')
})

test('regression: a body JSON cannot write (a BigInt, a cycle) is FST_VERSIONER_INVALID_WEBHOOK_BODY; it was changed in place by one version and blamed on the next one\'s converters', async (t) => {
  const versions = new VersionBundle(new Version('2001-01-01', AtAdded), new Version('2000-01-01'))
  const definition = { name: 'thing.done', body: Thing }
  const subscribers = [{ id: 'ep_old', version: '2000-01-01', secret: newSecret() }, { id: 'ep_new', version: '2001-01-01', secret: newSecret() }]
  const cycle: Record<string, unknown> = { id: 'c', at: 'now', extra: {} }
  ;(cycle.extra as Record<string, unknown>).self = cycle
  for (const [body, what] of [[{ id: 'b', at: 'now', extra: { count: 10n } }, 'a BigInt'], [cycle, 'a cycle']] as const) {
    const error = await rejection(() => renderWebhook(versions, definition, body as never, { subscribers }))
    t.equal(error?.code, 'FST_VERSIONER_INVALID_WEBHOOK_BODY', what)
    t.match(error?.message, "webhook 'thing.done' is not JSON data: JSON cannot write it (a BigInt, a cycle)", what)
    t.equal(body.at, 'now', `${what}: the caller's body is unchanged`)
  }
  const error = caught(() => migrateResponseBody(versions, definition.body, { latestBody: { id: 'b', at: 'now', extra: 10n } as never, version: '2000-01-01' }))
  t.equal(error?.code, 'FST_VERSIONER_INVALID_OPTION', 'migrateResponseBody too')
})

test('regression: a body JSON writes as nothing (undefined, a function) was delivered as no text, signed over the text \'undefined\', by a webhook whose HEAD schema takes any value', async (t) => {
  const versions = new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01'))
  const subscribers = [{ id: 'ep_1', version: '2000-01-01', secret: newSecret() }]
  for (const [body, schemaName] of [[Type.Unknown(), 'Type.Unknown()'], [Type.Any(), 'Type.Any()']] as const) {
    const definition = { name: 'event.forwarded', body }
    for (const [value, what] of [[undefined, 'undefined'], [() => 'x', 'a function'], [Symbol('x'), 'a symbol']] as const) {
      const error = await rejection(() => renderWebhook(versions, definition, value as never, { subscribers }))
      t.equal(error?.code, 'FST_VERSIONER_INVALID_WEBHOOK_BODY', `${schemaName}: ${what}`)
      t.match(error?.message, "webhook 'event.forwarded' is not JSON data: JSON cannot write it (a BigInt, a cycle) or writes it as nothing", what)
    }
    const { deliveries } = await renderWebhook(versions, definition, null, { subscribers })
    t.equal(deliveries[0].body, 'null', 'null is JSON data: sent as the text null')
  }
})

test('regression: a malformed secret failed the render for every subscriber; it fails its own (FST_VERSIONER_INVALID_WEBHOOK_SECRET in failed, never the secret)', async (t) => {
  const app = await webhookApp(t)
  const bad: Array<[unknown, RegExp]> = [
    ['hunter2', /The secret of subscriber 'ep_bad' does not start with 'whsec_'/],
    ['whsec_not base64!', /is not base64 after 'whsec_'/],
    [`whsec_${randomBytes(16).toString('base64')}`, /holds 16 bytes/],
    [`whsec_${randomBytes(65).toString('base64')}`, /holds 65 bytes/],
    [[], /is an empty list/],
    [42, /is number, not a string/],
    [[newSecret(), 'hunter2'], /Secret 2 of 2 of subscriber 'ep_bad'/]
  ]
  for (const [secret, message] of bad) {
    calls.clear()
    const subscribers = [{ id: 'ep_1', version: '2000-01-01', secret: newSecret() }, { id: 'ep_bad', version: '2000-01-01', secret } as unknown as WebhookSubscriber]
    const { deliveries, failed } = await app.versioner.webhooks.render('invoice.paid', event, { subscribers })
    t.same(deliveries.map(({ subscriber }) => subscriber.id), ['ep_1'], `${JSON.stringify(secret)?.slice(0, 20)}: the other subscriber gets its delivery`)
    t.equal(receiverProblem(app, deliveries[0], [subscribers[0].secret as string]), undefined, 'signed with its own secret')
    t.match(failed, [{ subscriber: { id: 'ep_bad' }, version: '2000-01-01', requested: '2000-01-01', fellForward: false }], 'the malformed one is failed')
    const error = failed[0]?.error as CodedError | undefined
    t.equal(error?.code, 'FST_VERSIONER_INVALID_WEBHOOK_SECRET')
    t.match(error?.message, message)
    t.match(error?.message, /'whsec_' and the base64 of 24 to 64 random bytes/, 'the message says what is accepted')
    if (typeof secret === 'string') t.notOk(error?.message.includes(secret), 'the message does not hold the secret')
  }
  const invalid = await rejection(() => app.versioner.webhooks.render('invoice.paid', { nope: true }, { subscribers: [{ id: 'ep_bad', version: '2000-01-01', secret: 'hunter2' }] }))
  t.equal(invalid?.code, 'FST_VERSIONER_INVALID_WEBHOOK_BODY', 'a body the HEAD schema refuses still fails the whole render')
})

test('options render cannot use: FST_VERSIONER_INVALID_OPTION naming the subscriber or option', async (t) => {
  const app = await webhookApp(t)
  const secret = newSecret()
  const bad: Array<[unknown, RegExp]> = [
    [undefined, /needs subscribers: a list of \{ id, version, secret \}/],
    [{ subscribers: 'ep_1' }, /needs subscribers/],
    [{ subscribers: [{ version: '2000-01-01', secret }] }, /Subscriber #1 \(no id\) needs an id/],
    [{ subscribers: [{ id: 'ep_1', secret }] }, /Subscriber 'ep_1' has version undefined/],
    [{ subscribers: [{ id: 'ep_1', version: new Date('nope'), secret }] }, /Subscriber 'ep_1' has version/],
    [{ subscribers: [{ id: 'ep_1', version: '', secret }] }, /Subscriber 'ep_1' has version/],
    [{ subscribers: [{ id: 'ep_1', version: ' \n', secret }] }, /Subscriber 'ep_1' has version/],
    [{ subscribers: [], id: 'a.b' }, /id \(webhook-id\) must be a non-empty string without '\.'/],
    [{ subscribers: [], id: 'evt_1 ' }, /id \(webhook-id\) must be .*no space at either end/],
    [{ subscribers: [], id: ' evt_1' }, /id \(webhook-id\) must be .*printable ASCII/],
    [{ subscribers: [], id: 'evt_\u20ac' }, /id \(webhook-id\) must be .*printable ASCII/],
    [{ subscribers: [], id: 'evt\r\n1' }, /id \(webhook-id\) must be .*printable ASCII/],
    [{ subscribers: [{ id: 'ep_1', version: '2000-01-01', secret }, { id: 'ep_2', version: '2000-01-01', secret }, { id: 'ep_1', version: '2001-01-01', secret }] },
      /Subscribers #1 and #3 have the same id 'ep_1'/],
    [{ subscribers: [], timestamp: 1700000000 }, /timestamp must be a valid Date/],
    [{ subscribers: [], versionHeader: 'webhook-id' }, /versionHeader must be a header name other than/],
    [{ subscribers: [], versionHeader: 'x version' }, /versionHeader must be a header name/]
  ]
  for (const [options, message] of bad) {
    const error = await rejection(() => app.versioner.webhooks.render('invoice.paid', event, options as RenderWebhookOptions))
    t.equal(error?.code, 'FST_VERSIONER_INVALID_OPTION', String(message))
    t.match(error?.message, message)
  }
  const none = await app.versioner.webhooks.render('invoice.paid', event, { subscribers: [] })
  t.same([none.deliveries, none.skipped], [[], []], 'no subscriber: nothing to send')
  // A worker's JavaScript forgetting the options was a TypeError (reading 'ajv').
  const worker = await rejection(() => renderWebhook(invoiceVersions(), invoicePaid, event, undefined as unknown as RenderWebhookOptions))
  t.equal(worker?.code, 'FST_VERSIONER_INVALID_OPTION', 'renderWebhook without options')
  t.match(worker?.message, /needs subscribers: a list of \{ id, version, secret \}/)
})

test('regression: a worker\'s standalone functions given a bundle of another copy of the package, or no bundle, threw a TypeError (reading \'standalone\'); it is FST_VERSIONER_INVALID_OPTION saying so', async (t) => {
  // A worker imports renderWebhook from its own copy; the bundle comes from a shared package with a copy of its own.
  const other = anotherCopy()
  const foreign = new other.VersionBundle(new other.Version('2001-01-01'), new other.Version('2000-01-01'))
  const Invoice = Type.Object({ id: Type.String() })
  const calls: Array<[string, (bundle: VersionBundle) => unknown]> = [
    ['migrateResponseBody', (bundle) => migrateResponseBody(bundle, Invoice, { latestBody: { id: 'in_1' }, version: '2000-01-01' })],
    ['renderWebhook', (bundle) => renderWebhook(bundle, { name: 'invoice.paid', body: Invoice }, { id: 'in_1' }, { subscribers: [] })],
    ['generateVersionedSchemas', (bundle) => generateVersionedSchemas(bundle)]
  ]
  for (const [name, call] of calls) {
    const error = await rejection(() => call(foreign as unknown as VersionBundle))
    t.equal(error?.code, 'FST_VERSIONER_INVALID_OPTION', name)
    t.match(error?.message, new RegExp(`^${name}\\(bundle, …\\) needs a VersionBundle; got a VersionBundle of another copy of fastify-versioner: .*peerDependencies`), name)
    const none = await rejection(() => call(undefined as unknown as VersionBundle))
    t.equal(none?.code, 'FST_VERSIONER_INVALID_OPTION', `${name}: no bundle`)
    t.match(none?.message, new RegExp(`^${name}\\(bundle, …\\) needs a VersionBundle; got undefined\\.`), `${name}: no bundle`)
  }
})
