/**
 * Traffic for the example apps: clients of every version calling every route with varied data, recorded with the
 * `captureExchanges` option as NDJSON (one exchange, or one webhook render, a line), what `fastify-versioner replay` reads. Tests and the
 * replay benchmark use it; `node --import tsx examples/traffic.ts billing exchanges.ndjson` writes a file.
 *
 * How the clients were chosen: from each app's routes, and what an integration written against each version does with
 * them over a month, not from any list of mistakes. A billing client creates a customer and bills it two or three
 * times (a subscription, a one-off charge, sometimes a retry of a create with its idempotency key), pays some invoices
 * and leaves others open, then lists the customer's invoices: all of them, by status, and a first page. A users client
 * stores a user with the two or three addresses it was given, in the order it was given them, and an upgraded one
 * lists them. Each version's clients also make the mistakes real clients make, which the API refuses with a 400: a
 * typo in an e-mail, a required field left out (or sent under its old name after an upgrade), a value out of range
 * (an empty list of lines, a quantity of 0, a limit of 500, a decimal amount where cents are integers, a blank address).
 * The tests read lines and counts from what is recorded, never from this file's layout.
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
/** Addresses as users give them: in no particular order. */
const ADDRESSES = ['221B Baker St', '4 Long Avenue, Apartment 12', '10 Downing St', '3 Łódź Rd', 'Flat 2, 1 Main St']
const BILLING_VERSIONS = ['2023-10-16', '2024-04-10', '2024-09-30', '2025-03-31']

/** A request its version refuses, as a client of `version` gets one wrong (`customerId`: a customer it made). */
type Mistake = (version: string, customerId: string | undefined, round: number) => InjectOptions & { version: string }

/** The billing clients' mistakes: each version's clients make one a round, a different one each round. */
const BILLING_MISTAKES: Mistake[] = [
  // A comma for the dot of an e-mail address.
  (version, _customerId, round) => ({
    version,
    method: 'POST',
    url: '/customers',
    payload: version < '2024-04-10' ? { name: 'Ada Lovelace', email: `client${round}@example,com` } : { givenName: 'Ada', familyName: 'Lovelace', email: `client${round}@example,com` }
  }),
  // An invoice whose lines the client's cart left empty.
  (version, customerId) => ({ version, method: 'POST', url: '/invoices', payload: { customerId, currency: 'usd', lines: [] } }),
  // A line of no items.
  (version, customerId) => ({ version, method: 'POST', url: '/invoices', payload: { customerId, currency: 'usd', lines: [{ description: 'seat', quantity: 0, unitAmount: version >= '2024-09-30' ? 1500 : 15 }] } }),
  // Every invoice at once: a limit above the maximum.
  (version, customerId) => ({ version, method: 'QUERY', url: '/invoices/search', payload: { customerId, limit: 500 } }),
  // The old single name sent to a version that splits it (an upgrade half done), or no e-mail at all.
  (version, _customerId, round) => ({
    version,
    method: 'POST',
    url: '/customers',
    payload: version < '2024-04-10' ? { name: 'Grace Hopper' } : { name: 'Grace Hopper', email: `client${round}@example.com` }
  }),
  // Amounts as decimals (in cents since 2024-09-30), or a status the API does not have.
  (version, customerId) => version >= '2024-09-30'
    ? { version, method: 'POST', url: '/invoices', payload: { customerId, currency: 'usd', lines: [{ description: 'seat', quantity: 1, unitAmount: 15.5 }] } }
    : { version, method: 'QUERY', url: '/invoices/search', payload: { customerId, status: 'pending' } }
]

/** One round of the billing API's clients: every version creates, reads, replaces, invoices, pays and searches. */
async function billingRound (app: FastifyInstance, round: number): Promise<void> {
  for (const [index, version] of BILLING_VERSIONS.entries()) {
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
    const keyed = round % 2 === 0 ? { [key]: `key-${round}-${version}` } : {}
    const invoice = { customerId, currency: 'usd', lines }
    const invoiceId = await call(app, { version, method: 'POST', url: '/invoices', headers: keyed, payload: invoice })
    // A client whose first create timed out sends it again with the same key: the same invoice.
    if (round % 4 === 0) await call(app, { version, method: 'POST', url: '/invoices', headers: keyed, payload: invoice })
    const kind = round % 2 === 0 ? { brand: 'visa', last4: '4242' } : { bankName: 'Bank of Łódź', last4: '6789' }
    const paymentMethod = { [cents ? 'type' : 'object']: round % 2 === 0 ? 'card' : 'bank_account', ...kind }
    if (round % 3 !== 2) await call(app, { version, method: 'POST', url: `/invoices/${String(invoiceId)}/pay`, payload: { paymentMethod } })
    else if (version === '2025-03-31') await call(app, { version, method: 'POST', url: `/invoices/${String(invoiceId)}/mark-uncollectible` })
    // Every version reads the invoice, whatever became of it (an old client sees an uncollectible one as open).
    for (const reader of BILLING_VERSIONS) await call(app, { version: reader, method: 'GET', url: `/invoices/${String(invoiceId)}` })
    // The same customer billed again: a one-off setup fee, left open, and (every other customer) next month's plan, paid.
    const setupFee = [{ description: 'setup fee', quantity: 1, unitAmount: cents ? 4900 : 49 }]
    await call(app, { version, method: 'POST', url: '/invoices', payload: { customerId, currency: 'usd', lines: setupFee } })
    if ((round + index) % 2 === 0) {
      const plan = [{ description: 'plan, next month', quantity: 1 + (round % 4), unitAmount: cents ? 1999 : 19.99 }]
      const planId = await call(app, { version, method: 'POST', url: '/invoices', payload: { customerId, currency: 'usd', lines: plan } })
      await call(app, { version, method: 'POST', url: `/invoices/${String(planId)}/pay`, payload: { paymentMethod } })
    }
    const status = round % 3 === 2 ? 'open' : 'paid'
    const search = version >= '2025-03-31' ? { customerId, statuses: [status, 'uncollectible'] } : { customerId, status, limit: 5 }
    await call(app, { version, method: 'QUERY', url: '/invoices/search', payload: search })
    // The customer's invoices: all of them, the open ones, and a first page of two.
    await call(app, { version, method: 'QUERY', url: '/invoices/search', payload: { customerId } })
    await call(app, { version, method: 'QUERY', url: '/invoices/search', payload: version >= '2025-03-31' ? { customerId, statuses: ['open'] } : { customerId, status: 'open' } })
    await call(app, { version, method: 'QUERY', url: '/invoices/search', payload: { customerId, limit: 2 } })
    await call(app, { version, method: 'GET', url: '/invoices/00000000-0000-4000-8000-000000000000' })
    await call(app, BILLING_MISTAKES[(round + index) % BILLING_MISTAKES.length](version, customerId, round))
  }
}

/** One round of the users API's clients: each version creates a user its way, reads it back, and gets one request wrong. */
async function usersRound (app: FastifyInstance, round: number): Promise<void> {
  // The two or three addresses a user gave, in the order given.
  const addresses = Array.from({ length: 2 + (round % 2) }, (_, index) => `${ADDRESSES[(round + index * 2) % ADDRESSES.length]} #${round}`)
  const created = [
    await call(app, { version: '2000-01-01', method: 'POST', url: '/users', payload: { address: addresses[0] } }),
    await call(app, { version: '2001-01-01', method: 'POST', url: '/users', payload: { addresses } }),
    await call(app, { version: '2002-01-01', method: 'POST', url: '/users', payload: { defaultAddress: addresses.at(-1) } })
  ]
  for (const userId of created) {
    for (const version of ['2000-01-01', '2001-01-01']) await call(app, { version, method: 'GET', url: `/users/${String(userId)}` })
    // A client upgraded to 2002-01-01 lists the addresses of every user, those older clients made too.
    await call(app, { version: '2002-01-01', method: 'GET', url: `/users/${String(userId)}/addresses` })
  }
  await call(app, { version: '2000-01-01', method: 'GET', url: '/users/00000000-0000-4000-8000-000000000000' })
  // Refused: an old client's blank address, a form sent with no address at all, an upgraded client still sending addresses.
  const mistakes = [
    { version: '2000-01-01', payload: { address: '' } },
    { version: '2001-01-01', payload: { addresses: [] } },
    { version: '2002-01-01', payload: { addresses } }
  ]
  const mistake = mistakes[round % mistakes.length]
  await call(app, { method: 'POST', url: '/users', ...mistake })
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
