/**
 * The BullMQ delivery example (`examples/webhooks-bullmq`) on a real Redis: a redis-server of its own, on a free
 * port, in a temporary folder, saving nothing. Skipped, saying why, only where redis-server cannot be found
 * (.ci/run installs it with apt-get).
 */
import { test } from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import diagnosticsChannel from 'node:diagnostics_channel'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildBillingApp } from '../../examples/billing/app'
import { startWebhookDelivery } from '../../examples/webhooks-bullmq/delivery'
import { acceptedBy, payAndDeliver, startAudience } from '../../examples/webhooks-bullmq/demo'
import type { Accepted } from '../../examples/webhooks-bullmq/receiver'
import type { WebhookRenderedEvent } from '../../plugin'
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
