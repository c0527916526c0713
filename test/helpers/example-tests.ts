/**
 * The tests a team's own suite runs on each example app, which run its handlers, as `docs/testing.md` shows them: a
 * resource stored, then `replaceFromEveryVersion` on it; an event caused, then each webhook delivery the app sent
 * read with `readWebhookDelivery`. The mutation score runs them after `check` and `verify`.
 */
import type { FastifyInstance } from 'fastify'
import { readWebhookDelivery, replaceFromEveryVersion, type SentWebhook } from '../../tools'

/** A request by the newest version; its JSON answer, or `undefined` when it is not a success. */
async function newest (app: FastifyInstance, method: 'POST', url: string, payload: object): Promise<Record<string, unknown> | undefined> {
  const answer = await app.inject({ method, url, headers: { 'x-api-version': app.versioner.versions.versionValues[0] }, payload })
  return answer.statusCode < 300 ? answer.json() : undefined
}

/** The billing customer's replace test: a customer stored by the newest version, replaced from every version. */
async function replaceTest (app: FastifyInstance): Promise<string[]> {
  const customer = await newest(app, 'POST', '/customers', { givenName: 'Ada', email: 'ada@example.com' })
  if (customer === undefined) return []
  const findings = await replaceFromEveryVersion(app, { url: `/customers/${String(customer.id)}` }).catch(() => [])
  return findings.map((finding) => `replace: ${finding.version}: ${finding.message}`)
}

/** The billing webhook test: an invoice paid by the newest version, and each `invoice.paid` delivery read as its subscriber does. */
async function webhookTest (app: FastifyInstance, sent: readonly SentWebhook[], secret: string): Promise<string[]> {
  const customer = await newest(app, 'POST', '/customers', { givenName: 'Ada', email: 'ada@example.com' })
  const invoice = customer === undefined
    ? undefined
    : await newest(app, 'POST', '/invoices', { customerId: customer.id, currency: 'usd', lines: [{ description: 'Seat', quantity: 1, unitAmount: 1999 }] })
  if (invoice === undefined) return []
  const before = sent.length
  if (await newest(app, 'POST', `/invoices/${String(invoice.id)}/pay`, { paymentMethod: { type: 'card', brand: 'visa', last4: '4242' } }) === undefined) return []
  return sent.slice(before).flatMap((delivery) => readWebhookDelivery(app, delivery, { name: 'invoice.paid', secret }).map((finding) => `webhook: ${finding.message}`))
}

/**
 * What the example's own tests find (each a line): none for the users app, which replaces nothing and sends no
 * webhook. `sent` collects what the app's delivery function was given; `secret` is its subscriber's. A fixture the
 * app no longer takes (a field renamed in HEAD) fails the team's test on the fixture, not on a finding: it gives none here.
 */
export async function exampleTestFindings (app: FastifyInstance, example: 'users' | 'billing', sent: readonly SentWebhook[], secret: string): Promise<string[]> {
  if (example !== 'billing') return []
  return [...await replaceTest(app), ...await webhookTest(app, sent, secret)]
}
