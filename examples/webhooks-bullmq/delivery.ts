/**
 * Delivering the billing API's `invoice.paid` webhook through BullMQ, on Redis, two ways: the application renders it
 * (`app.versioner.webhooks.render`) and queues each subscriber's delivery (`enqueue`, its `deliver` option); or it
 * queues only the event (`publish`: one job, whatever the number of subscribers) and a worker renders it with
 * `renderWebhook` (the version bundle and the webhook's definition are all it needs, no application), queuing one
 * delivery each. A worker POSTs each delivery, signed for each attempt (`signWebhook`): Standard Webhooks receivers
 * refuse a timestamp older than a few minutes, and a job can wait longer than that in a queue. BullMQ retries a failed
 * attempt with exponential backoff, capped; a delivery whose subscriber was deleted meanwhile fails with the reason.
 */
import { Queue, UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq'
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
  /** The longest delay between two attempts, in ms (default 3600000: an hour). */
  readonly maxBackoff?: number
  /** Where a dropped delivery is reported (default `console`; a pino or Fastify logger fits). */
  readonly log?: DeliveryLog
}

/** The logger of delivery: `warn(fields, message)`, as pino's (never given a secret). */
export interface DeliveryLog {
  warn: (fields: object, message: string) => void
}

const consoleLog: DeliveryLog = { warn: (fields, message) => { console.warn(message, fields) } }

/** The backoff type of delivery jobs: BullMQ's exponential one has no cap. */
const CAPPED = 'capped-exponential'

/** One delivery job: where to send what, as rendered (its signature is made again for each attempt). */
interface DeliveryJob {
  readonly subscriberId: string
  readonly url: string
  readonly body: string
  readonly headers: Record<string, string>
}

/** The newest version of this build: the version its HEAD bodies are in (a release to come included). */
const HEAD = versions.versionValues[0]

/** An event job: the event as HEAD built it, and the newest version of the build that queued it. */
interface EventJob {
  readonly event: Static<typeof InvoicePaidEvent>
  readonly head: string
}

/** The queues and workers of webhook delivery. */
export interface DeliveryQueues {
  /** Queues one rendered delivery (the billing app's `deliver` option). */
  enqueue: (delivery: WebhookDelivery<Subscriber>) => Promise<void>
  /** Queues one `invoice.paid` event, as HEAD builds it: a worker renders it for every subscriber. */
  publish: (event: Static<typeof InvoicePaidEvent>) => Promise<void>
  close: () => Promise<void>
}

/**
 * A BullMQ job id of `parts`, one for each list of parts: BullMQ refuses an id that looks like an integer or holds
 * `:`, so each part has its `%`, `:` and `|` escaped (`%25`, `%3A`, `%7C`) and the parts are joined with `|`.
 */
function jobIdOf (...parts: readonly string[]): string {
  return parts.map((part) => part.replace(/[%:|]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)).join('|')
}

/** The job of one rendered delivery: its id (the event's and the subscriber's) makes a repeated render queue nothing twice. */
function deliveryJob ({ subscriber, body, headers }: WebhookDelivery<Subscriber>, retries: { attempts: number, backoff: number }) {
  return {
    name: invoicePaidWebhook.name,
    data: { subscriberId: subscriber.id, url: subscriber.url, body, headers: { ...headers } },
    opts: { jobId: jobIdOf(headers['webhook-id'], subscriber.id), attempts: retries.attempts, backoff: { type: CAPPED, delay: retries.backoff } }
  }
}

/**
 * Sends one delivery job, the body byte for byte as rendered, signed for this attempt with the subscriber's secret as
 * it is now; a non-2xx answer fails the attempt. A subscriber deleted meanwhile fails the job for good, logged.
 */
async function send (job: Job<DeliveryJob>, options: Pick<DeliveryOptions, 'subscribers'> & { log: DeliveryLog }): Promise<void> {
  const { subscriberId, url, body, headers } = job.data
  const id = headers['webhook-id']
  const subscriber = (await options.subscribers()).find((candidate) => candidate.id === subscriberId)
  if (subscriber === undefined) {
    const reason = `subscriber ${subscriberId} no longer exists`
    options.log.warn({ jobId: job.id, webhookId: id, subscriberId, attemptsMade: job.attemptsMade }, `webhook delivery dropped: ${reason}`)
    throw new UnrecoverableError(`${reason}: delivery of ${id} dropped`)
  }
  const signed = { ...headers, ...signWebhook(subscriber.secret, { id, body }) }
  const response = await fetch(url, { method: 'POST', headers: signed, body, signal: AbortSignal.timeout(15_000) })
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
  const { connection, attempts = 8, backoff = 5000, maxBackoff = 3_600_000, log = consoleLog } = options
  const events = new Queue<EventJob>('webhook-events', { connection })
  const deliveries = new Queue<DeliveryJob>('webhook-deliveries', { connection })
  const renderer = new Worker<EventJob>('webhook-events', async (job) => {
    const { event, head } = job.data
    // During a rolling deploy, another build's worker reads this HEAD body as its own HEAD (decimals as cents): fail
    // the attempt, so that a worker of the build that queued it renders it (or the job fails, saying why).
    if (head !== HEAD) throw new Error(`Event ${event.id} was queued by the build whose newest version is ${String(head)}; this worker's is ${HEAD}: left to a worker of that build`)
    const rendered = await renderWebhook(versions, invoicePaidWebhook, event, { subscribers: await options.subscribers(), id: event.id })
    await deliveries.addBulk(rendered.deliveries.map((delivery) => deliveryJob(delivery, { attempts, backoff })))
    // A version whose converter failed: fail the job, so that BullMQ renders the event again (those queued already are
    // not queued twice: their job ids are the event's and the subscriber's).
    if (rendered.failed.length > 0) {
      throw new Error(`Rendering failed for ${rendered.failed.map(({ subscriber, version }) => `${subscriber.id} (${version})`).join(', ')}: ${rendered.failed[0].error.message}`)
    }
  }, { connection })
  const sender = new Worker<DeliveryJob>('webhook-deliveries', async (job) => { await send(job, { subscribers: options.subscribers, log }) }, {
    connection,
    concurrency: 10,
    settings: { backoffStrategy: (attemptsMade: number) => Math.min(backoff * 2 ** (attemptsMade - 1), maxBackoff) }
  })
  return {
    enqueue: async (delivery) => {
      const { name, data, opts } = deliveryJob(delivery, { attempts, backoff })
      await deliveries.add(name, data, opts)
    },
    publish: async (event) => { await events.add(event.type, { event, head: HEAD }, { jobId: jobIdOf(event.type, event.id), attempts, backoff: { type: 'exponential', delay: backoff } }) },
    close: async () => {
      await Promise.all([renderer.close(), sender.close()])
      await Promise.all([events.close(), deliveries.close()])
    }
  }
}
