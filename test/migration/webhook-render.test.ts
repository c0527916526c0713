import { test } from 'tap'
import diagnosticsChannel from 'node:diagnostics_channel'
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import {
  ConvertResponseToPreviousVersionFor, endpoint, fastifyVersioner, HeadVersion, migrateResponseBody, renderWebhook, schema, signWebhook, Version, versioned, VersionBundle,
  VersionChange, type CapturedWebhook, type ResponseInfo, type WebhookRenderedEvent, type WebhookSubscriber
} from '../../plugin'
import { rejection } from '../helpers/errors'
import { captureLogs } from '../helpers/request-pipeline'
import { changeClass, nameWasTitleInResponses, taxedPrices } from '../helpers/version-changes'
import { versionedApp } from '../helpers/apps'
import { calls, event, invoicePaid, invoiceRefunded, invoiceVersions, newSecret, receiverProblem, webhookApp } from '../helpers/webhook-apps'

const VERSIONS = ['2002-01-01', '2001-01-01', '2000-01-01']

/** `count` subscribers spread over the versions, each with its own secret. */
function subscribers (count: number): Array<WebhookSubscriber & { secret: string }> {
  return Array.from({ length: count }, (_, index) => ({ id: `ep_${index}`, version: VERSIONS[index % VERSIONS.length], secret: newSecret() }))
}

test('render: each subscriber gets its version\'s body, the Standard Webhooks headers and the version header; every signature verifies', async (t) => {
  const app = await webhookApp(t)
  const list = subscribers(9)
  const rendered = await app.versioner.webhooks.render('invoice.paid', event, { subscribers: list, id: 'msg_1' })
  t.equal(rendered.id, 'msg_1')
  t.ok(Math.abs(rendered.timestamp - Date.now() / 1000) < 5, 'the timestamp is now, in seconds')
  t.same(rendered.skipped, [])
  t.same(rendered.deliveries.map((delivery) => delivery.subscriber), list, 'one delivery per subscriber, in the order given, the subscriber as given')
  const bodies: Record<string, unknown> = {
    '2002-01-01': { type: 'invoice.paid', data: { id: 'in_1', amount: 1250, tags: ['a', 'b'] } },
    '2001-01-01': { type: 'invoice.paid', data: { id: 'in_1', amount: 1250, tag: 'a,b' } },
    '2000-01-01': { type: 'invoice.paid', data: { id: 'in_1', amount: 12.5, tag: 'a,b' } }
  }
  for (const delivery of rendered.deliveries) {
    const { subscriber, version, body, headers } = delivery
    t.equal(version, subscriber.version)
    t.same(JSON.parse(body), bodies[version], `${subscriber.id}: the body of ${version}`)
    t.equal(body, JSON.stringify(await app.versioner.migrateResponseBody(invoicePaid.body, { latestBody: event, version })), 'what migrateResponseBody gives')
    t.same(Object.keys(headers).sort(), ['content-type', 'webhook-id', 'webhook-signature', 'webhook-timestamp', 'x-api-version'])
    t.match(headers, { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'webhook-timestamp': String(rendered.timestamp), 'x-api-version': version })
    t.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/, 'one signature')
    t.equal(receiverProblem(app, delivery, [subscriber.secret as string]), undefined, `${subscriber.id}: verified with standardwebhooks, and the body matches ${version}'s document`)
  }
  const [first, , , second] = rendered.deliveries
  t.equal(first.body, second.body, 'subscribers of one version share the body')
  t.not(first.headers['webhook-signature'], second.headers['webhook-signature'], 'each is signed with its own secret')
  t.ok(receiverProblem(app, first, [second.subscriber.secret as string]), "another subscriber's secret does not verify it")
})

test('render runs the converters once per distinct version, not once per subscriber', async (t) => {
  const app = await webhookApp(t)
  calls.clear()
  await app.versioner.webhooks.render('invoice.paid', event, { subscribers: subscribers(30) })
  t.same(Object.fromEntries(calls), { toOneTag: 2, toDecimals: 1 }, 'toOneTag for 2001-01-01 and 2000-01-01, toDecimals for 2000-01-01')
})

test('while a secret rotates, every secret signs: a receiver holding either verifies', async (t) => {
  const app = await webhookApp(t)
  const [old, next] = [newSecret(), newSecret(64)]
  const { deliveries: [delivery] } = await app.versioner.webhooks.render('invoice.paid', event, { subscribers: [{ id: 'ep_1', version: '2001-01-01', secret: [old, next] }] })
  t.equal(delivery.headers['webhook-signature'].split(' ').length, 2, 'two signatures, separated by a space')
  t.equal(receiverProblem(app, delivery, [old]), undefined, 'the old secret verifies')
  t.equal(receiverProblem(app, delivery, [next]), undefined, 'the new secret verifies')
})

test('signWebhook signs a retry: the same id and body, a timestamp of its own, which receivers verify', async (t) => {
  const app = await webhookApp(t)
  const secret = newSecret()
  const stale = new Date(Date.now() - 10 * 60_000)
  const { deliveries: [first] } = await app.versioner.webhooks.render('invoice.paid', event, { subscribers: [{ id: 'ep_1', version: '2001-01-01', secret }], timestamp: stale })
  t.match(receiverProblem(app, first, [secret]), /timestamp too old/, 'ten minutes later, the first attempt\'s headers are refused')
  const retry = { ...first, headers: { ...first.headers, ...signWebhook(secret, { id: first.headers['webhook-id'], body: first.body }) } }
  t.equal(retry.headers['webhook-id'], first.headers['webhook-id'], 'the same webhook-id: receivers deduplicate on it')
  t.ok(Number(retry.headers['webhook-timestamp']) > Number(first.headers['webhook-timestamp']), 'a timestamp of the attempt')
  t.equal(receiverProblem(app, retry, [secret]), undefined, 're-signed, it verifies')
  const at = new Date(stale.getTime() + 1000)
  t.equal(signWebhook([secret, newSecret()], { id: 'msg_1', body: '{}', timestamp: at })['webhook-signature'].split(' ').length, 2, 'one signature per secret')
  const badSecret = await rejection(() => signWebhook('hunter2', { id: 'msg_1', body: '{}' }))
  t.equal(badSecret?.code, 'FST_VERSIONER_INVALID_WEBHOOK_SECRET')
  t.match(badSecret?.message, /^The secret of signWebhook does not start with 'whsec_'/, 'names the function once, never the secret')
  t.notMatch(badSecret?.message, /hunter2/)
  t.equal((await rejection(() => signWebhook(secret, { id: 'msg.1', body: '{}' })))?.code, 'FST_VERSIONER_INVALID_OPTION')
  for (const id of ['msg_1 ', ' msg_1', 'msg_\u20ac']) {
    t.equal((await rejection(() => signWebhook(secret, { id, body: '{}' })))?.code, 'FST_VERSIONER_INVALID_OPTION', `${JSON.stringify(id)}: a header would not carry it as signed`)
  }
  t.equal((await rejection(() => signWebhook(secret, { id: 'msg_1', body: {} as never })))?.code, 'FST_VERSIONER_INVALID_OPTION')
  t.equal((await rejection(() => signWebhook(secret, { id: 'msg_1', body: '{}', timestamp: new Date(NaN) })))?.code, 'FST_VERSIONER_INVALID_OPTION')
})

test('a date pin waterfalls as requests do; the options id, timestamp and versionHeader are used', async (t) => {
  const app = await webhookApp(t)
  const timestamp = new Date()
  const secret = newSecret()
  const { deliveries: [delivery], timestamp: seconds } = await app.versioner.webhooks.render('invoice.paid', event,
    { subscribers: [{ id: 'ep_1', version: new Date('2001-06-01T12:00:00Z'), secret }], id: 'evt_42', timestamp, versionHeader: 'Stripe-Version' })
  t.equal(seconds, Math.floor(timestamp.getTime() / 1000))
  t.match(delivery, { version: '2001-01-01', requested: '2001-06-01', fellForward: false })
  t.match(delivery.headers, { 'webhook-id': 'evt_42', 'stripe-version': '2001-01-01' })
  t.notOk('x-api-version' in delivery.headers)
})

test('regression: a pin read from a DATE column (a Date at local midnight, as node-postgres gives it) is that date on a server east of UTC (it was the day before: the older version)', async (t) => {
  const app = await webhookApp(t)
  const zone = process.env.TZ
  t.teardown(() => { if (zone === undefined) delete process.env.TZ; else process.env.TZ = zone })
  for (const tz of ['UTC', 'Asia/Tokyo', 'America/Adak']) {
    process.env.TZ = tz
    const { deliveries: [delivery] } = await app.versioner.webhooks.render('invoice.paid', event, { subscribers: [{ id: 'ep_1', version: new Date(2001, 0, 1), secret: newSecret() }] })
    t.match(delivery, { version: '2001-01-01', requested: '2001-01-01' }, tz)
    const body = await app.versioner.migrateResponseBody(invoicePaid.body, { latestBody: event, version: new Date(2001, 0, 1) })
    t.same(body, await app.versioner.migrateResponseBody(invoicePaid.body, { latestBody: event, version: '2001-01-01' }), `${tz}: migrateResponseBody too`)
    t.same(body, JSON.parse(delivery.body), `${tz}: what the subscriber gets`)
  }
})

test('a subscriber of a version without the webhook is skipped, saying why', async (t) => {
  const app = await webhookApp(t)
  const list = subscribers(3)
  const { deliveries, skipped } = await app.versioner.webhooks.render('invoice.refunded', { id: 'in_1' }, { subscribers: list })
  t.same(deliveries.map((delivery) => delivery.subscriber.id), ['ep_0'], 'only 2002-01-01 has invoice.refunded')
  t.same(skipped.map(({ subscriber, version }) => [subscriber.id, version]), [['ep_1', '2001-01-01'], ['ep_2', '2000-01-01']])
  t.match(skipped[0].reason, /'invoice\.refunded' \(POST\) does not exist in version 2001-01-01/)
  t.equal(receiverProblem(app, deliveries[0], [list[0].secret], 'invoice.refunded'), undefined)
})

test('a webhook removed (onlyExistsInOlderVersions) is sent only to subscribers of the versions before its removal', async (t) => {
  const Finalized = Type.Object({ id: Type.String(), amount: Type.Integer() })
  const finalized = { name: 'invoice.finalized', body: Finalized, onlyExistsInOlderVersions: true }
  const Removal = changeClass('RemoveInvoiceFinalized', [endpoint('invoice.finalized', ['POST']).existed])
  const versions = new VersionBundle(new Version('2002-01-01'), new Version('2001-01-01', Removal), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => { api.get('/ping', async () => ({ ok: true })) }, {
    beforeRoutes: (instance) => { instance.versioner.webhooks.add(finalized) }
  })
  await app.ready()
  const list = subscribers(3)
  const options = { subscribers: list, id: 'msg_1', timestamp: new Date() }
  const rendered = await app.versioner.webhooks.render('invoice.finalized', { id: 'in_1', amount: 1250 }, options)
  t.same(rendered.deliveries.map(({ subscriber, version }) => [subscriber.id, version]), [['ep_2', '2000-01-01']], 'only 2000-01-01 has it')
  t.same(JSON.parse(rendered.deliveries[0].body), { id: 'in_1', amount: 1250 }, 'the body HEAD builds, in 2000-01-01')
  t.equal(receiverProblem(app, rendered.deliveries[0], [list[2].secret], 'invoice.finalized'), undefined)
  t.same(rendered.skipped.map(({ subscriber, version }) => [subscriber.id, version]), [['ep_0', '2002-01-01'], ['ep_1', '2001-01-01']],
    'the versions since its removal skip it, as a version without the webhook does')
  t.match(rendered.skipped[0].reason, /'invoice\.finalized' \(POST\) does not exist in version 2002-01-01: it was removed in version 2001-01-01/)
  t.equal((await rejection(() => app.versioner.webhooks.render('invoice.finalized', { id: 'in_1' }, options)))?.code, 'FST_VERSIONER_INVALID_WEBHOOK_BODY',
    'the body is still checked against the HEAD schema')
  t.same(await renderWebhook(versions, finalized, { id: 'in_1', amount: 1250 }, options), rendered, 'renderWebhook in a worker: the same')
  t.equal((await rejection(() => renderWebhook(new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')), finalized, { id: 'in_1', amount: 1 }, options)))?.code,
    'FST_VERSIONER_ROUTER_GENERATION', 'renderWebhook with a bundle that never restores it: the start-up error of the app')
})

test('renderWebhook: the same deliveries in a worker, from the bundle and the definition alone', async (t) => {
  const versions = invoiceVersions()
  const app = await webhookApp(t, versions)
  const list = subscribers(6)
  const options = { subscribers: list, id: 'msg_1', timestamp: new Date() }
  const inApp = await app.versioner.webhooks.render('invoice.paid', event, options)
  const inWorker = await renderWebhook(versions, invoicePaid, event, options)
  t.same(inWorker, inApp, 'bodies, headers and signatures are the same')
  const other = await renderWebhook(invoiceVersions(), invoicePaid, event, options)
  t.same(other, inApp, 'with a bundle the application never saw')
  const refunded = await renderWebhook(versions, invoiceRefunded, { id: 'in_1' }, { subscribers: list })
  t.same(refunded.skipped.map(({ subscriber }) => subscriber.id), ['ep_1', 'ep_2', 'ep_4', 'ep_5'], "the definition's endpoint instructions apply")
})

test('the webhook-rendered event names each version rendered and its subscribers; nothing without a subscriber', async (t) => {
  const app = await webhookApp(t)
  const events: WebhookRenderedEvent[] = []
  const listen = (message: unknown): void => { events.push(message as WebhookRenderedEvent) }
  diagnosticsChannel.subscribe('fastify-versioner:webhook-rendered', listen)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:webhook-rendered', listen))
  const list = [...subscribers(4), { id: 'ep_gone', version: '1999-01-01', secret: newSecret() }]
  await app.versioner.webhooks.render('invoice.paid', event, { subscribers: list, id: 'msg_1' })
  t.same(events.map(({ webhook, version, subscribers, id }) => ({ webhook, version, ids: subscribers.map((subscriber) => subscriber.id), id })), [
    { webhook: { name: 'invoice.paid', method: 'POST' }, version: '2002-01-01', ids: ['ep_0', 'ep_3'], id: 'msg_1' },
    { webhook: { name: 'invoice.paid', method: 'POST' }, version: '2001-01-01', ids: ['ep_1'], id: 'msg_1' },
    { webhook: { name: 'invoice.paid', method: 'POST' }, version: '2000-01-01', ids: ['ep_2', 'ep_gone'], id: 'msg_1' }
  ])
  t.same(events[2].subscribers[1], { id: 'ep_gone', requested: '1999-01-01', fellForward: true })
  t.match(events[2], { deprecated: false, sunset: undefined })
  diagnosticsChannel.unsubscribe('fastify-versioner:webhook-rendered', listen)
  await app.versioner.webhooks.render('invoice.paid', event, { subscribers: list })
  t.equal(events.length, 3, 'no event once unsubscribed')
})

const Balance = Type.Object({ cents: Type.Integer() }, { $id: 'Balance' })

class BalancesInDollars extends VersionChange {
  description = 'Balances are integers of cents.'
  instructionsToMigrateToPreviousVersion = [schema(Balance).field('cents').had({ name: 'dollars', type: Type.Number() })]

  @ConvertResponseToPreviousVersionFor(Balance)
  toDollars (response: ResponseInfo) {
    if (response.body.cents < 0) throw new Error('a negative balance has no dollars form')
    response.body.dollars = response.body.cents / 100
    delete response.body.cents
  }
}

test('a converter failing in one version fails that version\'s subscribers only: the others get theirs, failed lists them (decision 0103)', async (t) => {
  const events: WebhookRenderedEvent[] = []
  const listen = (message: unknown): void => { events.push(message as WebhookRenderedEvent) }
  diagnosticsChannel.subscribe('fastify-versioner:webhook-rendered', listen)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:webhook-rendered', listen))
  const versions = new VersionBundle(new Version('2001-01-01', BalancesInDollars), new Version('2000-01-01'))
  const definition = { name: 'balance.changed', body: Balance }
  const subscribers = [
    { id: 'ep_old', version: '1999-01-01', secret: newSecret() }, { id: 'ep_new', version: '2001-01-01', secret: newSecret() },
    { id: 'ep_old2', version: '2000-01-01', secret: newSecret() }
  ]
  const rendered = await renderWebhook(versions, definition, { cents: -5 }, { subscribers, id: 'evt_1' })
  t.same(rendered.deliveries.map(({ subscriber, body }) => [subscriber.id, body]), [['ep_new', '{"cents":-5}']], '2001-01-01 is rendered')
  t.same(rendered.failed.map(({ subscriber, version, requested, fellForward }) => [subscriber.id, version, requested, fellForward]),
    [['ep_old', '2000-01-01', '1999-01-01', true], ['ep_old2', '2000-01-01', '2000-01-01', false]], 'both 2000-01-01 subscribers failed, in the order given')
  t.match(rendered.failed[0].error.message, /a negative balance has no dollars form/, 'with what the converter threw')
  t.equal(rendered.failed[0].error, rendered.failed[1].error, 'rendered once for the version')
  t.same(rendered.skipped, [])
  t.same(events.map(({ version, subscribers }) => [version, subscribers.map(({ id }) => id)]), [['2001-01-01', ['ep_new']]],
    'usage counts the version rendered only')
  const again = await renderWebhook(versions, definition, { cents: 5 }, { subscribers: rendered.failed.map(({ subscriber }) => subscriber), id: rendered.id })
  t.same(again.deliveries.map(({ subscriber, body }) => [subscriber.id, body]), [['ep_old', '{"dollars":0.05}'], ['ep_old2', '{"dollars":0.05}']],
    'rendered again for the failed subscribers, once the value converts')
  t.same(again.failed, [])
})

class BalancesAsText extends VersionChange {
  description = 'Balances were strings.'
  instructionsToMigrateToPreviousVersion = [schema(Balance).field('cents').had({ type: Type.String() })]

  @ConvertResponseToPreviousVersionFor(Balance)
  async toText (response: ResponseInfo) {
    await Promise.resolve()
    if (response.body.cents === 0) throw 'zero' // eslint-disable-line no-throw-literal
    // A wrong value for the version: a number where it has a string.
    if (response.body.cents < 0) return
    response.body.cents = String(response.body.cents)
  }
}

test('in the application: a rejecting converter, a thrown non-Error or a body the version refuses is logged at error level, naming the webhook and version', async (t) => {
  const logs = captureLogs()
  const app = Fastify({ logger: { level: 'error', stream: logs.stream } })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', BalancesAsText), new Version('2000-01-01')) })
  app.versioner.webhooks.add({ name: 'balance.changed', body: Balance })
  await app.ready()
  const subscribers = [{ id: 'ep_new', version: '2001-01-01', secret: newSecret() }, { id: 'ep_old', version: '2000-01-01', secret: newSecret() }]
  const fine = await app.versioner.webhooks.render('balance.changed', { cents: 5 }, { subscribers })
  t.same(fine.deliveries.map(({ body }) => body), ['{"cents":5}', '{"cents":"5"}'])
  t.same(fine.failed, [])
  t.same(logs.entries, [], 'nothing logged when every version renders')
  const wrong = await app.versioner.webhooks.render('balance.changed', { cents: -5 }, { subscribers })
  t.same(wrong.deliveries.map(({ subscriber }) => subscriber.id), ['ep_new'])
  t.equal((wrong.failed[0]?.error as Error & { code?: string }).code, 'FST_VERSIONER_UNCONVERTIBLE_RESPONSE', 'a body the version refuses')
  const zero = await app.versioner.webhooks.render('balance.changed', { cents: 0 }, { subscribers })
  t.equal((zero.failed[0]?.error as Error & { code?: string }).code, 'FST_VERSIONER_CONVERTER_FAILED', 'a thrown string')
  t.match(zero.failed[0]?.error.message, /converter BalancesAsText\.toText threw zero/)
  t.equal(logs.entries.length, 2, 'one entry per failed version and render')
  t.match(logs.entries[1], { level: 50, webhook: 'balance.changed', apiVersion: '2000-01-01', subscribers: ['ep_old'], err: { code: 'FST_VERSIONER_CONVERTER_FAILED' } })
  t.match(logs.entries[1].msg, /Webhook 'balance\.changed' could not be rendered in version 2000-01-01/)
  const unsigned = await app.versioner.webhooks.render('balance.changed', { cents: 5 }, { subscribers: [subscribers[0], { id: 'ep_bad', version: '2001-01-01', secret: 'hunter2' }] })
  t.same([unsigned.deliveries.length, unsigned.failed.map(({ subscriber }) => subscriber.id)], [1, ['ep_bad']], 'a malformed secret fails its subscriber only (decision 0168)')
  t.match(logs.entries[2], { level: 50, webhook: 'balance.changed', subscriber: 'ep_bad', err: { code: 'FST_VERSIONER_INVALID_WEBHOOK_SECRET' } }, 'and is logged')
  t.notOk(JSON.stringify(logs.entries[2]).includes('hunter2'), 'never the secret')
})

/** An item whose sku has a format of the application's own, and a change in which its name was its title (fresh classes per call). */
function skuItems () {
  const Item = Type.Object({ sku: Type.String({ format: 'sku' }), name: Type.String() }, { $id: 'Item' })
  const NameWasTitle = nameWasTitleInResponses(Item)
  return { Item, NameWasTitle }
}

test('regression: an app declaring a format of its own (Fastify({ ajv })) renders webhooks and migrates bodies with it, not "unknown format"', async (t) => {
  const { Item, NameWasTitle } = skuItems()
  const app = Fastify({ ajv: { customOptions: { formats: { sku: /^[A-Z]{3}-\d+$/ } } } })
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameWasTitle), new Version('2000-01-01')) })
  app.versioner.webhooks.add({ name: 'item.created', body: Item })
  await app.register(versioned(async (api) => { api.get('/items', { schema: { response: { 200: Item } } }, async () => ({ sku: 'ABC-1', name: 'Pen' })) }))
  await app.ready()
  const rendered = await app.versioner.webhooks.render('item.created', { sku: 'ABC-1', name: 'Pen' }, { subscribers: [{ id: 'ep', version: '2000-01-01', secret: newSecret() }] })
  t.same(JSON.parse(rendered.deliveries[0].body), { sku: 'ABC-1', title: 'Pen' }, 'rendered with the app\'s format')
  t.same(await app.versioner.migrateResponseBody(Item, { latestBody: { sku: 'ABC-1', name: 'Pen' }, version: '2000-01-01' }), { sku: 'ABC-1', title: 'Pen' })
  await t.rejects(Promise.resolve().then(() => app.versioner.migrateResponseBody(Item, { latestBody: { sku: 'abc', name: 'Pen' }, version: '2000-01-01' })),
    'a value the format refuses is still refused')
})

test('in a worker: renderWebhook and migrateResponseBody take the application\'s ajv option, so its formats are known there too', async (t) => {
  const { Item, NameWasTitle } = skuItems()
  const versions = new VersionBundle(new Version('2001-01-01', NameWasTitle), new Version('2000-01-01'))
  // The object the application gives Fastify({ ajv }), shared with the worker.
  const ajv = { customOptions: { formats: { sku: /^[A-Z]{3}-\d+$/ } } }
  const definition = { name: 'item.created', body: Item }
  const subscribers = [{ id: 'ep', version: '2000-01-01', secret: newSecret() }]
  const rendered = await renderWebhook(versions, definition, { sku: 'ABC-1', name: 'Pen' }, { subscribers, ajv })
  t.same(rendered.failed, [], 'no "unknown format" failure')
  t.same(JSON.parse(rendered.deliveries[0].body), { sku: 'ABC-1', title: 'Pen' })
  t.same(await migrateResponseBody(versions, Item, { latestBody: { sku: 'ABC-1', name: 'Pen' }, version: '2000-01-01', ajv }), { sku: 'ABC-1', title: 'Pen' })
  await t.rejects(renderWebhook(versions, definition, { sku: 'abc', name: 'Pen' }, { subscribers, ajv }), /at '\/sku', must match format "sku"/,
    'a value the format refuses is still refused')
  const withoutAjv = await rejection(() => renderWebhook(versions, definition, { sku: 'ABC-1', name: 'Pen' }, { subscribers }))
  t.equal(withoutAjv?.code, 'FST_VERSIONER_INVALID_OPTION', 'without it, Fastify\'s defaults do not know the format: a coded error saying what to pass')
  t.match(withoutAjv?.message, /^The HEAD schema of webhook 'item\.created' does not compile with this Ajv setup: unknown format "sku" .*give renderWebhook \(and migrateResponseBody\) the ajv option/)
})

test('regression: webhooks run each version\'s converters in that version (isApplied), in the app and in a worker', async (t) => {
  const { Price, versions } = taxedPrices(async () => await new Promise((resolve) => setImmediate(resolve)))
  const priceChanged = { name: 'price.changed', body: Price }
  const list = VERSIONS.map((version) => ({ id: version, version, secret: newSecret() }))
  const wanted = { '2002-01-01': { amount: 12, display: '12' }, '2001-01-01': { amount: 12 }, '2000-01-01': { amount: 10 } }
  const bodies = (rendered: { deliveries: ReadonlyArray<{ version: string, body: string }> }): unknown =>
    Object.fromEntries(rendered.deliveries.map(({ version, body }) => [version, JSON.parse(body)]))
  // Two renders at once: each reads its versions while the other runs.
  const inWorker = await Promise.all([0, 1].map(async () => await renderWebhook(versions, priceChanged, { amount: 12, display: '12' }, { subscribers: list })))
  t.same(inWorker.map(bodies), [wanted, wanted], 'renderWebhook: 2000-01-01 gets its price without tax')

  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions })
  app.versioner.webhooks.add(priceChanged)
  await app.register(versioned(async (api) => { api.get('/ping', async () => ({ ok: true })) }))
  await app.ready()
  t.same(bodies(await app.versioner.webhooks.render('price.changed', { amount: 12, display: '12' }, { subscribers: list })), wanted, 'app.versioner.webhooks.render')
})

test('regression: the event is read when render is called: changing it before the render settles changed the older versions\' bodies and the captured event', async (t) => {
  const app = await webhookApp(t, invoiceVersions(), { captureExchanges: {} })
  const captured: CapturedWebhook[] = []
  const listen = (message: unknown): void => { captured.push(message as CapturedWebhook) }
  diagnosticsChannel.subscribe('fastify-versioner:webhook', listen)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:webhook', listen))
  // One object reused for two events, the renders awaited together (a loop building one event after another).
  const invoice = { type: 'invoice.paid' as const, data: { id: 'in_1', amount: 1250, tags: ['a', 'b'] } }
  const list = subscribers(3)
  const first = app.versioner.webhooks.render('invoice.paid', invoice, { subscribers: list })
  Object.assign(invoice.data, { id: 'in_2', amount: 990 })
  const second = app.versioner.webhooks.render('invoice.paid', invoice, { subscribers: list })
  for (const [rendered, id, amount] of [[await first, 'in_1', 1250], [await second, 'in_2', 990]] as const) {
    const given = { type: 'invoice.paid' as const, data: { id, amount, tags: ['a', 'b'] } }
    for (const { version, body } of rendered.deliveries) {
      t.equal(body, JSON.stringify(await app.versioner.migrateResponseBody(invoicePaid.body, { latestBody: given, version })), `${id}: ${version}'s body is made of the event as given`)
    }
  }
  t.same(captured.map((message) => message.event), [event, { ...event, data: { ...event.data, id: 'in_2', amount: 990 } }], 'each render\'s event as given')
})

test('regression: a render a handler starts and leaves running, its app closed before its converter ends, still renders each version in that version', async (t) => {
  let release = (): void => {}
  const gate = new Promise<void>((resolve) => { release = resolve })
  const { Price, versions } = taxedPrices(async () => await gate)
  // The oldest first: its converter is the one waiting when the app closes.
  const list = [...VERSIONS].reverse().map((version) => ({ id: version, version, secret: newSecret() }))
  let pending: Promise<{ deliveries: ReadonlyArray<{ version: string, body: string }> }> | undefined
  const app = Fastify()
  await app.register(fastifyVersioner, { versions })
  app.versioner.webhooks.add({ name: 'price.changed', body: Price })
  await app.register(versioned(async (api) => {
    api.post('/prices', async () => {
      // Rendered and queued after the answer (not awaited): a graceful shutdown closes the app meanwhile.
      pending = app.versioner.webhooks.render('price.changed', { amount: 12, display: '12' }, { subscribers: list })
      return { ok: true }
    })
  }))
  t.equal((await app.inject({ method: 'POST', url: '/prices', headers: { 'x-api-version': '2002-01-01' } })).statusCode, 200)
  await app.close()
  release()
  const rendered = await (pending as NonNullable<typeof pending>)
  t.same(Object.fromEntries(rendered.deliveries.map(({ version, body }) => [version, JSON.parse(body)])),
    { '2002-01-01': { amount: 12, display: '12' }, '2001-01-01': { amount: 12 }, '2000-01-01': { amount: 10 } }, '2000-01-01 gets its price without tax')
})
