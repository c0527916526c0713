// readWebhookDelivery: a delivery the application sent, read as its subscriber reads it (signature, version, payload).
import { test } from 'tap'
import { signWebhook, VersionBundle, Version } from '../../plugin'
import { Type } from '@sinclair/typebox'
import { readWebhookDelivery, type SentWebhook } from '../../tools'
import { event, newSecret, webhookApp } from '../helpers/webhook-apps'
import { versionedApp } from '../helpers/apps'

test('a delivery as rendered, for each version: nothing to refuse or misread', async (t) => {
  const app = await webhookApp(t)
  const secret = newSecret()
  const subscribers = ['2002-01-01', '2001-01-01', '2000-01-01'].map((version) => ({ id: version, version, secret }))
  const { deliveries } = await app.versioner.webhooks.render('invoice.paid', event, { subscribers, id: 'evt_1' })
  t.equal(deliveries.length, 3)
  for (const delivery of deliveries) t.same(readWebhookDelivery(app, delivery, { name: 'invoice.paid', secret }), [], delivery.subscriber.version)
  t.same(readWebhookDelivery(app, deliveries[2], { name: 'invoice.paid', secret: [newSecret(), secret] }), [], 'one of rotated secrets signed it')
})

test("HEAD's body sent with an old version's rendered headers: the signature is not the body's, and the body is not that version's payload", async (t) => {
  const app = await webhookApp(t)
  const secret = newSecret()
  const { deliveries } = await app.versioner.webhooks.render('invoice.paid', event, { subscribers: [{ id: 's', version: '2000-01-01', secret }], id: 'evt_1' })
  const asHeadBuildsIt: SentWebhook = { body: JSON.stringify(event), headers: deliveries[0].headers }
  const findings = readWebhookDelivery(app, asHeadBuildsIt, { name: 'invoice.paid', secret })
  t.same(findings.map((finding) => finding.kind), ['signature', 'body'])
  t.match(findings[0].message, /no webhook-signature of the delivery is the one of its body by the secret: its subscriber refuses it/)
  t.match(findings[1].message, /the body is not the 'invoice\.paid' payload of 2000-01-01 \(\/data .*\): its subscriber reads fields it does not have/)
  const resigned: SentWebhook = { body: asHeadBuildsIt.body, headers: { ...deliveries[0].headers, ...signWebhook(secret, { id: 'evt_1', body: asHeadBuildsIt.body }) } }
  t.same(readWebhookDelivery(app, resigned, { name: 'invoice.paid', secret }).map((finding) => finding.kind), ['body'], 're-signed: the body alone is wrong')
})

test('a delivery without its version header, or naming a version that lacks the webhook, or with a body that is not JSON', async (t) => {
  const app = await webhookApp(t)
  const secret = newSecret()
  const { deliveries } = await app.versioner.webhooks.render('invoice.paid', event, { subscribers: [{ id: 's', version: '2002-01-01', secret }], id: 'evt_1' })
  const { 'x-api-version': version, ...withoutVersion } = deliveries[0].headers as Record<string, string>
  t.equal(version, '2002-01-01')
  t.match(readWebhookDelivery(app, { body: deliveries[0].body, headers: withoutVersion }, { name: 'invoice.paid', secret }),
    [{ kind: 'version', message: /the x-api-version header is missing: the subscriber cannot tell which version the body is in/ }])
  const refunded = await app.versioner.webhooks.render('invoice.refunded', { id: 'in_1' }, { subscribers: [{ id: 's', version: '2002-01-01', secret }], id: 'evt_2' })
  const olderHeader = { ...refunded.deliveries[0].headers, 'X-API-Version': '2001-01-01' } as Record<string, string>
  delete olderHeader['x-api-version']
  t.match(readWebhookDelivery(app, { body: refunded.deliveries[0].body, headers: olderHeader }, { name: 'invoice.refunded', secret }),
    [{ kind: 'version', message: /is '2001-01-01'.*That version has no webhook 'invoice\.refunded'/ }], 'the header found whatever its case')
  const text = 'not json'
  t.match(readWebhookDelivery(app, { body: text, headers: { ...deliveries[0].headers, ...signWebhook(secret, { id: 'evt_1', body: text }) } }, { name: 'invoice.paid', secret }),
    [{ kind: 'body', message: 'the body is not JSON (not json).' }])
})

test('an unknown webhook, an app not ready, a malformed secret: coded errors', async (t) => {
  const app = await webhookApp(t)
  const sent: SentWebhook = { body: '{}', headers: {} }
  t.throws(() => readWebhookDelivery(app, sent, { name: 'invoice.lost', secret: newSecret() }),
    { code: 'FST_VERSIONER_UNKNOWN_WEBHOOK', message: "readWebhookDelivery: No webhook 'invoice.lost' is declared; declared with webhooks.add(): 'invoice.paid' (POST), 'invoice.refunded' (POST)." })
  t.throws(() => readWebhookDelivery(app, { body: '{}', headers: { 'webhook-id': 'a', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' } }, { name: 'invoice.paid', secret: 'nope' }),
    { code: 'FST_VERSIONER_INVALID_WEBHOOK_SECRET' })
  const early = await versionedApp(t, new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')), async () => {})
  t.throws(() => readWebhookDelivery(early, sent, { name: 'x', secret: newSecret() }), { code: 'FST_VERSIONER_NOT_READY' })
})

test('regression: deliveries rendered with their own versionHeader were all found without a version header', async (t) => {
  const app = await webhookApp(t)
  const secret = newSecret()
  const { deliveries } = await app.versioner.webhooks.render('invoice.paid', event, { subscribers: [{ id: 's', version: '2000-01-01', secret }], id: 'evt_1', versionHeader: 'Stripe-Version' })
  t.same(readWebhookDelivery(app, deliveries[0], { name: 'invoice.paid', secret, versionHeader: 'Stripe-Version' }), [])
  t.match(readWebhookDelivery(app, deliveries[0], { name: 'invoice.paid', secret }), [{ kind: 'version', message: /the x-api-version header is missing/ }],
    'the application\'s header, by default')
})

test('regression: of two webhooks declared with one name, the first was read whatever the delivery was', async (t) => {
  const app = await versionedApp(t, new VersionBundle(new Version('2001-01-01'), new Version('2000-01-01')), async () => {}, {
    beforeRoutes: (instance) => {
      instance.versioner.webhooks.add({ name: 'customer', method: 'POST', body: Type.Object({ id: Type.String(), name: Type.String() }) })
        .add({ name: 'customer', method: 'DELETE', body: Type.Object({ id: Type.String(), deletedAt: Type.Integer() }) })
    }
  })
  await app.ready()
  const secret = newSecret()
  const { deliveries } = await app.versioner.webhooks.render('customer', { id: 'c1', deletedAt: 1 }, { subscribers: [{ id: 's', version: '2000-01-01', secret }], method: 'delete' })
  t.same(readWebhookDelivery(app, deliveries[0], { name: 'customer', method: 'delete', secret }), [])
  t.throws(() => readWebhookDelivery(app, deliveries[0], { name: 'customer', secret }),
    { code: 'FST_VERSIONER_UNKNOWN_WEBHOOK', message: "readWebhookDelivery: Webhook 'customer' is declared with several methods (POST, DELETE): pass { method } to pick one." })
})
