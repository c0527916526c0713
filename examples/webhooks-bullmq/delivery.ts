/**
 * Delivering the billing API's `invoice.paid` webhook through BullMQ, on Redis, two ways: the application renders it
 * (`app.versioner.webhooks.render`) and queues each subscriber's delivery (`enqueue`, its `deliver` option); or it
 * queues only the event (`publish`: one job, whatever the number of subscribers) and a worker renders it with
 * `renderWebhook` (the version bundle and the webhook's definition are all it needs, no application), queuing one
 * delivery each. A worker POSTs each delivery, and BullMQ retries a failed one with exponential backoff, signed again
 * for the new attempt (`signWebhook`): Standard Webhooks receivers refuse a timestamp older than a few minutes.
 */
import { Queue, Worker, type ConnectionOptions, type Job } from 'bullmq'
import type { Static } from '@sinclair/typebox'
import { renderWebhook, signWebhook, type WebhookDelivery } from '../../plugin'
import type { Subscriber } from '../billing/app'
import { invoicePaidWebhook, type InvoicePaidEvent } from '../billing/schemas'
import { versions } from '../billing/versions'

/** What delivery needs. */
export interface DeliveryOptions {
  /** The Redis server of the queues. */
  readonly connection: ConnectionOptions
  /** The subscribers of `invoice.paid`, with their secrets (your database: a secret is never put in a job). */
  readonly subscribers: () => Promise<readonly Subscriber[]>
  /** Attempts per delivery (default 8). */
  readonly attempts?: number
  /** The delay before the first retry, in ms, doubled at each retry (default 5000). */
  readonly backoff?: number
}

/** One delivery job: where to send what (the signature of its first attempt in `headers`). */
interface DeliveryJob {
  readonly subscriberId: string
  readonly url: string
  readonly body: string
  readonly headers: Record<string, string>
}

/** The queues and workers of webhook delivery. */
export interface DeliveryQueues {
  /** Queues one rendered delivery (the billing app's `deliver` option). */
  enqueue: (delivery: WebhookDelivery<Subscriber>) => Promise<void>
  /** Queues one `invoice.paid` event, as HEAD builds it: a worker renders it for every subscriber. */
  publish: (event: Static<typeof InvoicePaidEvent>) => Promise<void>
  close: () => Promise<void>
}

/** The job of one rendered delivery: its id makes a repeated render queue nothing twice. */
function deliveryJob ({ subscriber, body, headers }: WebhookDelivery<Subscriber>, retries: { attempts: number, backoff: number }) {
  return {
    name: invoicePaidWebhook.name,
    data: { subscriberId: subscriber.id, url: subscriber.url, body, headers: { ...headers } },
    opts: { jobId: `${headers['webhook-id']}.${subscriber.id}`, attempts: retries.attempts, backoff: { type: 'exponential', delay: retries.backoff } }
  }
}

/** Sends one delivery job: its first attempt as rendered, a retry signed again; a non-2xx answer fails the attempt. */
async function send (job: Job<DeliveryJob>, subscribers: DeliveryOptions['subscribers']): Promise<void> {
  const { subscriberId, url, body } = job.data
  let headers = job.data.headers
  if (job.attemptsMade > 0) {
    const subscriber = (await subscribers()).find((candidate) => candidate.id === subscriberId)
    if (subscriber === undefined) return
    headers = { ...headers, ...signWebhook(subscriber.secret, { id: headers['webhook-id'], body }) }
  }
  const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(15_000) })
  if (!response.ok) throw new Error(`${url} answered ${response.status}`)
}

/**
 * Starts the queues and workers of webhook delivery.
 * @example
 * ```ts
 * const queues = startWebhookDelivery({ connection: { host: '127.0.0.1', port: 6379 }, subscribers: () => db.subscribersOf('invoice.paid') })
 * const app = await buildBillingApp({ subscribers: await db.subscribersOf('invoice.paid'), deliver: queues.enqueue })
 * ```
 */
export function startWebhookDelivery (options: DeliveryOptions): DeliveryQueues {
  const { connection, attempts = 8, backoff = 5000 } = options
  const events = new Queue<{ event: Static<typeof InvoicePaidEvent> }>('webhook-events', { connection })
  const deliveries = new Queue<DeliveryJob>('webhook-deliveries', { connection })
  const renderer = new Worker<{ event: Static<typeof InvoicePaidEvent> }>('webhook-events', async (job) => {
    const { event } = job.data
    const rendered = await renderWebhook(versions, invoicePaidWebhook, event, { subscribers: await options.subscribers(), id: event.id })
    await deliveries.addBulk(rendered.deliveries.map((delivery) => deliveryJob(delivery, { attempts, backoff })))
  }, { connection })
  const sender = new Worker<DeliveryJob>('webhook-deliveries', async (job) => { await send(job, options.subscribers) }, { connection, concurrency: 10 })
  return {
    enqueue: async (delivery) => {
      const { name, data, opts } = deliveryJob(delivery, { attempts, backoff })
      await deliveries.add(name, data, opts)
    },
    publish: async (event) => { await events.add(event.type, { event }, { jobId: event.id }) },
    close: async () => {
      await Promise.all([renderer.close(), sender.close()])
      await Promise.all([events.close(), deliveries.close()])
    }
  }
}
