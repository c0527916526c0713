/**
 * One payment of the billing API, its `invoice.paid` webhook delivered through BullMQ to three local receivers, each
 * pinned to another version; the one pinned to 2024-09-30 fails twice before it accepts.
 */
import { randomBytes } from 'node:crypto'
import type { ConnectionOptions } from 'bullmq'
import { buildBillingApp, type Subscriber } from '../billing/app'
import { startWebhookDelivery, type DeliveryQueues } from './delivery'
import { startReceiver, type Accepted, type Receiver } from './receiver'

/** Who receives the webhook: the receivers and their subscriptions. */
export interface Audience {
  readonly receivers: readonly Receiver[]
  readonly subscribers: readonly Subscriber[]
  close: () => Promise<void>
}

/** Three receivers, pinned to 2023-10-16, 2024-09-30 (failing twice first) and 2025-03-31, each with its own secret. */
export async function startAudience (): Promise<Audience> {
  const pins = [['ep_2023', '2023-10-16', 0], ['ep_2024', '2024-09-30', 2], ['ep_2025', '2025-03-31', 0]] as const
  const subscribers: Subscriber[] = []
  const receivers: Receiver[] = []
  for (const [id, version, failFirst] of pins) {
    const secret = `whsec_${randomBytes(32).toString('base64')}`
    const receiver = await startReceiver({ secret, failFirst })
    receivers.push(receiver)
    subscribers.push({ id, version, secret, url: receiver.url })
  }
  return { receivers, subscribers, close: async () => { await Promise.all(receivers.map((receiver) => receiver.close())) } }
}

/** Waits for every receiver to accept one webhook, at most `ms` milliseconds. */
export async function acceptedBy (receivers: readonly Receiver[], ms: number): Promise<Accepted[]> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => { reject(new Error(`not every receiver accepted the webhook within ${ms} ms`)) }, ms) })
  try {
    return await Promise.race([Promise.all(receivers.map((receiver) => receiver.accepted)), late])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Pays an invoice of a billing app whose `deliver` option queues each rendered delivery; resolves once every
 * receiver accepted its webhook.
 * @example
 * ```ts
 * const accepted = await payAndDeliver({ host: '127.0.0.1', port: 6379 }, await startAudience())
 * ```
 */
export async function payAndDeliver (connection: ConnectionOptions, audience: Audience, options: { backoff?: number, timeout?: number } = {}): Promise<Accepted[]> {
  const queues: DeliveryQueues = startWebhookDelivery({ connection, subscribers: async () => audience.subscribers, backoff: options.backoff })
  const app = await buildBillingApp({ subscribers: audience.subscribers, deliver: queues.enqueue })
  try {
    const send = async (url: string, payload: object): Promise<{ id: string }> =>
      (await app.inject({ method: 'POST', url, payload, headers: { 'x-api-version': '2025-03-31' } })).json()
    const customer = await send('/customers', { givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.com' })
    const invoice = await send('/invoices', { customerId: customer.id, currency: 'usd', lines: [{ description: 'Seat', quantity: 1, unitAmount: 1250 }] })
    await send(`/invoices/${invoice.id}/pay`, { paymentMethod: { type: 'card', brand: 'visa', last4: '4242' } })
    return await acceptedBy(audience.receivers, options.timeout ?? 30_000)
  } finally {
    await app.close()
    await queues.close()
  }
}
