/**
 * Traffic for the example apps: clients of every version calling every route with varied data, recorded with the
 * `captureExchanges` option as NDJSON (one exchange, or one webhook render, a line), what `fastify-versioner replay` reads. Tests and the
 * replay benchmark use it; `node --import tsx examples/traffic.ts billing exchanges.ndjson` writes a file.
 */
import diagnosticsChannel from 'node:diagnostics_channel'
import { writeFile } from 'node:fs/promises'
import type { FastifyInstance, InjectOptions } from 'fastify'
import type { CaptureExchangesOptions } from '../plugin'
import { buildApp } from './users/app'
import { buildBillingApp, type Subscriber } from './billing/app'

/** The example apps. */
export type ExampleName = 'users' | 'billing'

/** A client's call: the request, and the id of the answer when there is one. */
type Call = (app: FastifyInstance, request: InjectOptions & { version: string }) => Promise<string | undefined>

const call: Call = async (app, { version, headers, ...request }) => {
  const response = await app.inject({ ...request, headers: { 'x-api-version': version, ...headers } })
  const id = (JSON.parse(response.body || 'null') as { id?: unknown } | null)?.id
  return typeof id === 'string' ? id : undefined
}

const NAMES = ['Ada King Lovelace', 'Cher', 'Grace Hopper', 'Łukasz Żółć', 'Mary Jane Watson', 'Alan Turing']
const MEMOS = [undefined, '', 'vip', 'net 30 days']
const ADDRESSES = ['1 Main St', '2 Side St', '3 Łódź Rd', '4 Long Avenue, Apartment 12']

/** One round of the billing API's clients: every version creates, reads, replaces, invoices, pays and searches. */
async function billingRound (app: FastifyInstance, round: number): Promise<void> {
  const versions = ['2023-10-16', '2024-04-10', '2024-09-30', '2025-03-31']
  for (const [index, version] of versions.entries()) {
    const name = NAMES[(round + index) % NAMES.length]
    const memo = MEMOS[(round + index) % MEMOS.length]
    const [givenName, ...family] = name.split(' ')
    const customer = version < '2024-04-10'
      ? { name, email: `client${round}@example.com`, description: memo }
      : { givenName, familyName: family.length === 0 ? undefined : family.join(' '), email: `client${round}@example.com`, memo }
    const customerId = await call(app, { version, method: 'POST', url: '/customers', payload: customer })
    await call(app, { version, method: 'GET', url: `/customers/${String(customerId)}` })
    if (version >= '2024-04-10') await call(app, { version, method: 'PUT', url: `/customers/${String(customerId)}`, payload: { ...customer, memo: 'replaced' } })
    const cents = version >= '2024-09-30'
    const amounts = [1999, 500, 1250 + round]
    const lines = amounts.slice(0, 1 + (round % 3)).map((amount, line) => ({ description: `item ${line}`, quantity: 1 + line, unitAmount: cents ? amount : amount / 100 }))
    const key = version >= '2025-03-31' ? 'idempotency-key' : 'x-idempotency-key'
    const invoiceId = await call(app, { version, method: 'POST', url: '/invoices', headers: round % 2 === 0 ? { [key]: `key-${round}-${version}` } : {}, payload: { customerId, currency: 'usd', lines } })
    const kind = round % 2 === 0 ? { brand: 'visa', last4: '4242' } : { bankName: 'Bank of Łódź', last4: '6789' }
    const paymentMethod = { [cents ? 'type' : 'object']: round % 2 === 0 ? 'card' : 'bank_account', ...kind }
    if (round % 3 !== 2) await call(app, { version, method: 'POST', url: `/invoices/${String(invoiceId)}/pay`, payload: { paymentMethod } })
    else if (version === '2025-03-31') await call(app, { version, method: 'POST', url: `/invoices/${String(invoiceId)}/mark-uncollectible` })
    // Every version reads the invoice, whatever became of it (an old client sees an uncollectible one as open).
    for (const reader of versions) await call(app, { version: reader, method: 'GET', url: `/invoices/${String(invoiceId)}` })
    const status = round % 3 === 2 ? 'open' : 'paid'
    const search = version >= '2025-03-31' ? { customerId, statuses: [status, 'uncollectible'] } : { customerId, status, limit: 5 }
    await call(app, { version, method: 'QUERY', url: '/invoices/search', payload: search })
    await call(app, { version, method: 'GET', url: '/invoices/00000000-0000-4000-8000-000000000000' })
  }
}

/** One round of the users API's clients: each version creates a user its way and reads it back. */
async function usersRound (app: FastifyInstance, round: number): Promise<void> {
  const addresses = ADDRESSES.slice(0, 1 + (round % ADDRESSES.length)).map((address) => `${address} #${round}`)
  const created = [
    await call(app, { version: '2000-01-01', method: 'POST', url: '/users', payload: { address: addresses[0] } }),
    await call(app, { version: '2001-01-01', method: 'POST', url: '/users', payload: { addresses } }),
    await call(app, { version: '2002-01-01', method: 'POST', url: '/users', payload: { defaultAddress: addresses.at(-1) } })
  ]
  for (const userId of created) {
    for (const version of ['2000-01-01', '2001-01-01']) await call(app, { version, method: 'GET', url: `/users/${String(userId)}` })
  }
  await call(app, { version: '2000-01-01', method: 'GET', url: '/users/00000000-0000-4000-8000-000000000000' })
}

/** The billing example's webhook subscribers, as production has them: one pinned to each of its versions. */
const SUBSCRIBERS: Subscriber[] = ['2023-10-16', '2024-04-10', '2024-09-30', '2025-03-31']
  .map((version) => ({ id: `ep_${version}`, url: 'https://subscriber.test/hooks', version, secret: `whsec_${'A'.repeat(32)}` }))

/** What else to record. */
export interface RecordOptions {
  /**
   * Give the billing app a webhook subscriber pinned to each of its versions (deliveries are not sent), so that its
   * `invoice.paid` renders are recorded too, one line each (default `false`: no subscriber, no render).
   */
  readonly subscribers?: boolean
}

/**
 * The exchanges of `rounds` rounds of an example app's clients, as NDJSON lines (one exchange, or one webhook render,
 * each), captured with `captureExchanges` (`capture`: its options; every exchange by default).
 * @example
 * ```ts
 * const lines = await recordTraffic('billing', 10, {}, { subscribers: true })
 * ```
 */
export async function recordTraffic (name: ExampleName, rounds: number, capture: CaptureExchangesOptions = {}, recording: RecordOptions = {}): Promise<string[]> {
  const options = { versioner: { captureExchanges: capture } }
  const webhooks = recording.subscribers === true ? { subscribers: SUBSCRIBERS, deliver: async () => {} } : {}
  const app = name === 'users' ? await buildApp(options) : await buildBillingApp({ ...options, ...webhooks })
  const lines: string[] = []
  const record = (message: unknown): void => { lines.push(JSON.stringify(message)) }
  diagnosticsChannel.subscribe('fastify-versioner:exchange', record)
  diagnosticsChannel.subscribe('fastify-versioner:webhook', record)
  try {
    for (let round = 0; round < rounds; round++) await (name === 'users' ? usersRound : billingRound)(app, round)
  } finally {
    diagnosticsChannel.unsubscribe('fastify-versioner:exchange', record)
    diagnosticsChannel.unsubscribe('fastify-versioner:webhook', record)
    await app.close()
  }
  return lines
}

if (require.main === module) {
  const [name = 'billing', file = 'exchanges.ndjson', rounds = '20'] = process.argv.slice(2)
  recordTraffic(name as ExampleName, Number(rounds))
    .then(async (lines) => { await writeFile(file, `${lines.join('\n')}\n`); console.log(`wrote ${lines.length} exchanges to ${file}`) })
    .catch((error: unknown) => { console.error(error); process.exit(1) })
}
