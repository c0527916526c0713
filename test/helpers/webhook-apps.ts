/**
 * A versioned API with one webhook, `invoice.paid`, whose body changed twice (amounts in cents since 2001-01-01, a
 * list of tags since 2002-01-01), and a counter of its converters' calls: what the render tests share.
 */
import { randomBytes } from 'node:crypto'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { Webhook } from 'standardwebhooks'
import {
  ConvertResponseToPreviousVersionFor, endpoint, schema, Version, VersionBundle, VersionChange, type FastifyVersionerOptions, type ResponseInfo,
  type WebhookDefinition, type WebhookDelivery
} from '../../plugin'
import { versionedApp, type Teardown } from './apps'
import { bodyChecker, documentOf } from './openapi-documents'

export const Invoice = Type.Object({ id: Type.String(), amount: Type.Integer(), tags: Type.Array(Type.String()) }, { $id: 'Invoice' })
export const InvoicePaid = Type.Object({ type: Type.Literal('invoice.paid'), data: Invoice })
export const Refunded = Type.Object({ id: Type.String() })

/** How many times each converter ran, by name. */
export const calls = new Map<string, number>()
const count = (name: string): void => { calls.set(name, (calls.get(name) ?? 0) + 1) }

class TagsList extends VersionChange {
  description = 'An invoice has tags instead of one tag.'
  instructionsToMigrateToPreviousVersion = [schema(Invoice).field('tags').had({ name: 'tag', type: Type.String() }), endpoint('invoice.refunded', ['POST']).didntExist]

  @ConvertResponseToPreviousVersionFor(Invoice)
  toOneTag (response: ResponseInfo) {
    count('toOneTag')
    response.body.tag = response.body.tags.join(',')
    delete response.body.tags
  }
}

class AmountsInCents extends VersionChange {
  description = 'Amounts are integers of cents.'
  instructionsToMigrateToPreviousVersion = [schema(Invoice).field('amount').had({ type: Type.Number() })]

  @ConvertResponseToPreviousVersionFor(Invoice)
  async toDecimals (response: ResponseInfo) {
    count('toDecimals')
    await Promise.resolve()
    response.body.amount = response.body.amount / 100
  }
}

/** A fresh bundle (each test its own). */
export function invoiceVersions (options: { sunsetOf2000?: Date } = {}): VersionBundle {
  const sunset = options.sunsetOf2000 === undefined ? {} : { sunsetAt: options.sunsetOf2000, afterSunset: 'gone' as const }
  return new VersionBundle(new Version('2002-01-01', TagsList), new Version('2001-01-01', AmountsInCents), new Version('2000-01-01', sunset))
}

/** The definition both the app and a worker use. */
export const invoicePaid: WebhookDefinition<typeof InvoicePaid> = { name: 'invoice.paid', body: InvoicePaid, summary: 'An invoice was paid' }
export const invoiceRefunded: WebhookDefinition<typeof Refunded> = { name: 'invoice.refunded', body: Refunded }

/** The body HEAD builds. */
export const event = { type: 'invoice.paid' as const, data: { id: 'in_1', amount: 1250, tags: ['a', 'b'] } }

/** A ready app declaring `invoice.paid` and `invoice.refunded` (added in 2002-01-01). */
export async function webhookApp (t: Teardown, versions = invoiceVersions(), versioner: Partial<FastifyVersionerOptions> = {}): Promise<FastifyInstance> {
  const app = await versionedApp(t, versions, async (api) => { api.get('/ping', async () => ({ ok: true })) }, {
    versioner,
    beforeRoutes: (instance) => { instance.versioner.webhooks.add(invoicePaid).add(invoiceRefunded) }
  })
  await app.ready()
  return app
}

/** A new Standard Webhooks secret. */
export function newSecret (bytes = 24): string {
  return `whsec_${randomBytes(bytes).toString('base64')}`
}

/**
 * What a receiver finds wrong with a delivery, `undefined` when nothing: each secret must verify its signature with
 * the `standardwebhooks` package, and the body must match the webhook's schema in the version's document.
 */
export function receiverProblem (app: FastifyInstance, delivery: WebhookDelivery, secrets: readonly string[], name = 'invoice.paid'): string | undefined {
  for (const secret of secrets) {
    try {
      new Webhook(secret).verify(delivery.body, delivery.headers)
    } catch (error) {
      return `${delivery.subscriber.id}: ${(error as Error).message}`
    }
  }
  const document = documentOf(app, delivery.headers['x-api-version'])
  const schema = document.webhooks[name].post.requestBody.content['application/json'].schema
  return bodyChecker(document, { closed: true })(schema, JSON.parse(delivery.body))
}
