/**
 * The BullMQ delivery example (`examples/webhooks-bullmq`) on a real Redis: a redis-server of its own, on a free
 * port, in a temporary folder, saving nothing. Skipped, saying why, only where redis-server cannot be found
 * (.ci/run installs it with apt-get).
 */
import { test } from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import diagnosticsChannel from 'node:diagnostics_channel'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Static } from '@sinclair/typebox'
import { Queue } from 'bullmq'
import type { FastifyInstance } from 'fastify'
import { buildBillingApp, type Subscriber } from '../../examples/billing/app'
import { invoicePaidWebhook, type InvoicePaidEvent } from '../../examples/billing/schemas'
import { versions } from '../../examples/billing/versions'
import { startWebhookDelivery, type DeliveryLog } from '../../examples/webhooks-bullmq/delivery'
import { acceptedBy, payAndDeliver, startAudience } from '../../examples/webhooks-bullmq/demo'
import { startReceiver, type Accepted } from '../../examples/webhooks-bullmq/receiver'
import { renderWebhook, signWebhook, type WebhookRenderedEvent } from '../../plugin'
import { bodyChecker, documentOf } from '../helpers/openapi-documents'

const REDIS = process.env.REDIS_SERVER ?? 'redis-server'
const found = spawnSync(REDIS, ['--version'], { encoding: 'utf8' })
const skip = found.error === undefined ? false : `${REDIS} cannot be found here (${found.error.message}): the BullMQ example needs a real Redis; .ci/run installs redis-server with apt-get`

/** A free TCP port on 127.0.0.1. */
async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => { resolve() }))
  return port
}

/** Starts a redis-server of the test's own; stopped, and its folder removed, when the test ends. */
async function startRedis (t: { teardown: (fn: () => unknown) => void }): Promise<{ host: string, port: number, maxRetriesPerRequest: null }> {
  const dir = await mkdtemp(join(tmpdir(), 'versioner-redis-'))
  const port = await freePort()
  const server = spawn(REDIS, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(async () => {
    server.kill()
    await rm(dir, { recursive: true, force: true })
  })
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { reject(new Error(`redis-server did not start within 10 s:\n${output}`)) }, 10_000)
    server.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (/ready to accept connections/i.test(output)) { clearTimeout(timer); resolve() }
    })
    server.on('exit', (code) => { clearTimeout(timer); reject(new Error(`redis-server exited (${String(code)}):\n${output}`)) })
  })
  return { host: '127.0.0.1', port, maxRetriesPerRequest: null }
}

/** What is wrong with an accepted webhook's body against its version's document (`undefined` when nothing). */
function bodyProblem (app: FastifyInstance, accepted: Accepted): string | undefined {
  const document = documentOf(app, accepted.version)
  return bodyChecker(document, { closed: true })(document.webhooks['invoice.paid'].post.requestBody.content['application/json'].schema, accepted.body)
}

test('the application renders, BullMQ delivers with retries: every receiver verifies every signature, one accepts the third attempt', { skip }, async (t) => {
  const connection = await startRedis(t)
  const audience = await startAudience()
  t.teardown(() => audience.close())
  const documents = await buildBillingApp()
  t.teardown(() => documents.close())
  await documents.ready()
  const accepted = await payAndDeliver(connection, audience, { backoff: 50 })
  t.same(accepted.map(({ version }) => version), ['2023-10-16', '2024-09-30', '2025-03-31'], 'each in the version it is pinned to (the version header)')
  t.equal(new Set(accepted.map(({ id }) => id)).size, 1, 'one webhook-id: the event')
  t.match(accepted[0].body, { type: 'invoice.paid', data: { object: { total: 12.5, paymentMethod: { object: 'card' } } } }, '2023-10-16: decimals, object')
  t.match(accepted[2].body, { data: { object: { total: 1250, paymentMethod: { type: 'card' } } } }, '2025-03-31: cents, type')
  for (const delivered of accepted) t.equal(bodyProblem(documents, delivered), undefined, `${delivered.version}: the body matches its document`)
  const answers = audience.receivers.map((receiver) => receiver.attempts.map(({ verified, status }) => `${String(verified)} ${status}`))
  t.same(answers, [['true 204'], ['true 503', 'true 503', 'true 204'], ['true 204']], 'every attempt verified; ep_2024 answered 503 twice, then accepted')
})

test('a worker renders with renderWebhook from the queued event alone; the webhook-rendered event names each version', { skip }, async (t) => {
  const connection = await startRedis(t)
  const audience = await startAudience()
  t.teardown(() => audience.close())
  const rendered: WebhookRenderedEvent[] = []
  const listen = (message: unknown): void => { rendered.push(message as WebhookRenderedEvent) }
  diagnosticsChannel.subscribe('fastify-versioner:webhook-rendered', listen)
  t.teardown(() => diagnosticsChannel.unsubscribe('fastify-versioner:webhook-rendered', listen))
  const queues = startWebhookDelivery({ connection, subscribers: async () => audience.subscribers, backoff: 50 })
  t.teardown(() => queues.close())
  const invoice = { id: randomUUID(), customerId: randomUUID(), currency: 'usd', status: 'paid' as const, lines: [{ description: 'Seat', quantity: 2, unitAmount: 500 }], total: 1000 }
  await queues.publish({ id: 'evt_1', type: 'invoice.paid', created: 1_700_000_000, data: { object: invoice } })
  const accepted = await acceptedBy(audience.receivers, 30_000)
  t.same(accepted.map(({ id, version }) => [id, version]), [['evt_1', '2023-10-16'], ['evt_1', '2024-09-30'], ['evt_1', '2025-03-31']])
  t.match(accepted[0].body, { data: { object: { total: 10 } } }, 'rendered by the worker in 2023-10-16: decimals')
  t.same(rendered.map(({ version, subscribers }) => [version, subscribers.map(({ id }) => id)]).sort(),
    [['2023-10-16', ['ep_2023']], ['2024-09-30', ['ep_2024']], ['2025-03-31', ['ep_2025']]], 'one event per version rendered, naming its subscribers')
  t.same(audience.receivers[1].attempts.map(({ status }) => status), [503, 503, 204])
})

/** The log of a delivery: its warnings, and a promise of the first one matching `pattern`. */
function recordingLog (): { warnings: Array<{ fields: object, message: string }>, log: DeliveryLog, warned: (pattern: RegExp, ms: number) => Promise<string> } {
  const warnings: Array<{ fields: object, message: string }> = []
  const waiting: Array<{ pattern: RegExp, resolve: (message: string) => void }> = []
  const log: DeliveryLog = {
    warn: (fields, message) => {
      warnings.push({ fields, message })
      for (const { pattern, resolve } of waiting) if (pattern.test(message)) resolve(message)
    }
  }
  const warned = async (pattern: RegExp, ms: number): Promise<string> => {
    const found = warnings.find(({ message }) => pattern.test(message))
    if (found !== undefined) return found.message
    let timer: NodeJS.Timeout | undefined
    try {
      return await new Promise<string>((resolve, reject) => {
        waiting.push({ pattern, resolve })
        timer = setTimeout(() => { reject(new Error(`nothing logged matching ${String(pattern)} within ${ms} ms`)) }, ms)
      })
    } finally {
      clearTimeout(timer)
    }
  }
  return { warnings, log, warned }
}

/** An `invoice.paid` event, as HEAD builds it. */
function paidEvent (id: string): Static<typeof InvoicePaidEvent> {
  const invoice = { id: randomUUID(), customerId: randomUUID(), currency: 'usd', status: 'paid' as const, lines: [{ description: 'Seat', quantity: 2, unitAmount: 500 }], total: 1000 }
  return { id, type: 'invoice.paid', created: 1_700_000_000, data: { object: invoice } }
}

test('regression: ids BullMQ refuses as a job id (an event id holding ":", an integer-looking one) are queued; the same delivery twice is one job', { skip }, async (t) => {
  const connection = await startRedis(t)
  const audience = await startAudience()
  t.teardown(() => audience.close())
  // Subscriber ids a database may well hold: BullMQ refuses a custom job id that looks like an integer or holds ':'.
  const subscribers = audience.subscribers.map((subscriber, index) => ({ ...subscriber, id: ['ep:2023', '42', 'ep|2025'][index] }))
  const queues = startWebhookDelivery({ connection, subscribers: async () => subscribers, backoff: 50 })
  t.teardown(() => queues.close())
  const { deliveries } = await renderWebhook(versions, invoicePaidWebhook, paidEvent('evt:1'), { subscribers, id: 'evt:1' })
  for (const delivery of [...deliveries, ...deliveries]) await queues.enqueue(delivery)
  const accepted = await acceptedBy(audience.receivers, 30_000)
  t.same(accepted.map(({ id, version }) => [id, version]), [['evt:1', '2023-10-16'], ['evt:1', '2024-09-30'], ['evt:1', '2025-03-31']])
  t.same(audience.receivers.map((receiver) => receiver.attempts.map(({ status }) => status)), [[204], [503, 503, 204], [204]],
    'each delivery queued twice is one job: one attempt per receiver, the failing one retried as one job')
  await queues.publish(paidEvent('123'))
  await queues.publish(paidEvent('123'))
  const inspector = new Queue('webhook-events', { connection })
  t.teardown(() => inspector.close())
  const queued = await inspector.getJobs(['waiting', 'active', 'completed', 'failed'])
  t.same(queued.map((job) => job.data.event.id), ['123'], "an event whose id looks like an integer is queued (BullMQ refuses '123' as a job id), once")
})

test('regression: a delivery whose subscriber was deleted before its retry fails in BullMQ with the reason, logged, not completed silently', { skip }, async (t) => {
  const connection = await startRedis(t)
  const audience = await startAudience()
  t.teardown(() => audience.close())
  const failing = audience.receivers[1]
  // ep_2024 is deleted once its endpoint has answered the first attempt (503).
  const subscribers = async (): Promise<readonly Subscriber[]> => failing.attempts.length === 0 ? audience.subscribers : audience.subscribers.filter(({ id }) => id !== 'ep_2024')
  const { log, warned } = recordingLog()
  const queues = startWebhookDelivery({ connection, subscribers, backoff: 50, log })
  t.teardown(() => queues.close())
  await queues.publish(paidEvent('evt_deleted'))
  t.match(await warned(/dropped/, 10_000), /ep_2024.*no longer exists/, 'a log line says the delivery was dropped, and why')
  const inspector = new Queue('webhook-deliveries', { connection })
  t.teardown(() => inspector.close())
  const failed = await inspector.getJobs(['failed'])
  t.same(failed.map((job) => job.data.subscriberId), ['ep_2024'], 'its job failed, not completed')
  t.match(failed[0].failedReason, /subscriber ep_2024 no longer exists/, 'the reason is visible in BullMQ')
  t.equal(failed[0].attemptsMade, 2, 'no attempt after the drop')
  t.same(failing.attempts.map(({ status }) => status), [503], 'nothing sent to the deleted subscriber after its deletion')
})

test('regression: a delivery that waited in the queue past the receivers\' 5 minutes is signed for its first attempt, not sent stale', { skip }, async (t) => {
  const connection = await startRedis(t)
  const secret = `whsec_${randomBytes(32).toString('base64')}`
  const receiver = await startReceiver({ secret })
  t.teardown(() => receiver.close())
  const subscribers = [{ id: 'ep_late', version: '2025-03-31', secret, url: receiver.url }]
  const queues = startWebhookDelivery({ connection, subscribers: async () => subscribers, backoff: 50 })
  t.teardown(() => queues.close())
  const [rendered] = (await renderWebhook(versions, invoicePaidWebhook, paidEvent('evt_late'), { subscribers, id: 'evt_late' })).deliveries
  // As rendered ten minutes ago, then left in the queue (a backlog, the workers down for a deploy).
  const tenMinutesAgo = new Date(Date.now() - 10 * 60_000)
  await queues.enqueue({ ...rendered, headers: { ...rendered.headers, ...signWebhook(secret, { id: 'evt_late', body: rendered.body, timestamp: tenMinutesAgo }) } })
  await acceptedBy([receiver], 10_000)
  t.same(receiver.attempts.map(({ verified, status }) => `${String(verified)} ${status}`), ['true 204'], 'its first attempt verifies: signed when sent')
  t.ok(Number(receiver.attempts[0].timestamp) > tenMinutesAgo.getTime() / 1000 + 60, 'with the time of the attempt')
})

test('regression: retries back off exponentially up to maxBackoff, not without a cap', { skip }, async (t) => {
  const connection = await startRedis(t)
  const audience = await startAudience()
  t.teardown(() => audience.close())
  // Uncapped, the second receiver's first retry would wait a minute, its second two.
  const queues = startWebhookDelivery({ connection, subscribers: async () => audience.subscribers, backoff: 60_000, maxBackoff: 50 })
  t.teardown(() => queues.close())
  await queues.publish(paidEvent('evt_capped'))
  await acceptedBy(audience.receivers, 10_000)
  t.same(audience.receivers[1].attempts.map(({ status }) => status), [503, 503, 204])
})

test('regression: during a rolling deploy, a worker does not render an event another build queued (its HEAD is not the worker\'s: amounts 100 times off)', { skip }, async (t) => {
  const connection = await startRedis(t)
  const audience = await startAudience()
  t.teardown(() => audience.close())
  const queues = startWebhookDelivery({ connection, subscribers: async () => audience.subscribers, backoff: 50 })
  t.teardown(() => queues.close())
  // The build before 2025-03-31 (amounts in decimals) queued $10 as HEAD built it then: `total: 10`, which this build's
  // HEAD (cents) reads as 10 cents, and renders for 2023-10-16 as 0.1.
  const older = new Queue('webhook-events', { connection })
  t.teardown(() => older.close())
  const event = paidEvent('evt_old_build')
  await older.add(event.type, { event: { ...event, data: { object: { ...event.data.object, total: 10 } } }, head: '2024-09-30' }, { jobId: 'evt_old_build', attempts: 2, backoff: { type: 'fixed', delay: 50 } })
  let outcome: string | undefined
  while (outcome === undefined) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    const job = await older.getJob('evt_old_build')
    if (job?.finishedOn !== undefined) outcome = job.failedReason ?? 'completed: rendered'
  }
  t.match(outcome, /2024-09-30.*2025-03-31/, 'the job fails, naming the build that queued it and the worker\'s')
  t.same(audience.receivers.map((receiver) => receiver.attempts.length), [0, 0, 0], 'no subscriber got the event in a shape it does not have')
  await queues.publish(paidEvent('evt_this_build'))
  const accepted = await acceptedBy(audience.receivers, 30_000)
  t.same(accepted.map(({ id }) => id), ['evt_this_build', 'evt_this_build', 'evt_this_build'], 'an event this build queued is rendered')
})
