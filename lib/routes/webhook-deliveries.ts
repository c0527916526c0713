/**
 * What rendering a webhook takes and gives: subscribers pinned to versions, and for each one the body in its
 * version with the headers to send (rendered by ../serve/webhook-render.ts).
 * @module
 */
import type { HttpMethod } from '../core/http-methods'

/**
 * A subscriber of a webhook: your id of its endpoint, the version it is pinned to, its signing secret. Other fields
 * (its URL…) come back untouched with its delivery.
 * @example
 * ```ts
 * const subscriber: WebhookSubscriber & { url: string } = { id: 'ep_1', url: 'https://example.com/hooks', version: '2024-04-10', secret: 'whsec_…' }
 * ```
 */
export interface WebhookSubscriber {
  /** Your id of the subscriber's endpoint: named in errors, skips and the rendered event. */
  readonly id: string
  /**
   * The version it is pinned to: a version value, or a date (the closest older version, as requests are served; a
   * release whose `releasedAt` has not come is not one), read trimmed. A version gone after its sunset falls forward to
   * the closest newer one served; a retired or unknown value to the oldest one served, or, when it starts with a date
   * (`2027-01-01.preview`, a `Date`'s JSON text), to the version of that date (decision 0080). A `Date` at local midnight
   * (a `DATE` column read by node-postgres) is its local date, any other its UTC date (decision 0248).
   */
  readonly version: string | Date
  /** `whsec_` and the base64 of 24 to 64 random bytes; several while one rotates (each one signs). */
  readonly secret: string | readonly string[]
}

/**
 * What to render.
 * @example
 * ```ts
 * declare const subscribers: WebhookSubscriber[], event: { id: string } // your subscribers; the event, with your id
 * const options: RenderWebhookOptions<WebhookSubscriber> = { subscribers, id: event.id, timestamp: new Date() }
 * ```
 */
export interface RenderWebhookOptions<S extends WebhookSubscriber = WebhookSubscriber> {
  /** Who receives it, each in its own version. */
  readonly subscribers: readonly S[]
  /** `webhook-id`: the message's id, the same for every subscriber and every retry (default `msg_` and a random UUID). */
  readonly id?: string
  /** `webhook-timestamp` (in seconds), and the instant whose sunsets and releases (`releasedAt`) count (default now). */
  readonly timestamp?: Date
  /** The header naming the version the body is in (default: the application's version header; `x-api-version` standalone). */
  readonly versionHeader?: string
  /** Which of two webhooks declared with one name (`app.versioner.webhooks.render` only). */
  readonly method?: HttpMethod | Lowercase<HttpMethod>
}

/**
 * One subscriber's delivery: the exact body text and the headers to send it with.
 * @example
 * ```ts
 * declare const delivery: WebhookDelivery<WebhookSubscriber & { url: string }> // one of render()'s deliveries
 * await fetch(delivery.subscriber.url, { method: 'POST', body: delivery.body, headers: delivery.headers })
 * ```
 */
export interface WebhookDelivery<S extends WebhookSubscriber = WebhookSubscriber> {
  /** The subscriber, as given. */
  readonly subscriber: S
  /** The version the body is in (the version header says it too). */
  readonly version: string
  /** The subscriber's pin as given (a `Date` as its ISO date). */
  readonly requested: string
  /** True when the pin names no version served at the timestamp (retired, gone after its sunset, unknown): `version` is the one it fell forward to. */
  readonly fellForward: boolean
  /** The JSON text to send, byte for byte: the signatures cover this exact text. */
  readonly body: string
  /** `content-type`, `webhook-id`, `webhook-timestamp`, `webhook-signature` and the version header (lower case). */
  readonly headers: Readonly<Record<string, string>>
}

/**
 * A subscriber not sent the webhook: its version does not have it (an endpoint instruction says it did not exist, or it
 * was removed in a newer version: `onlyExistsInOlderVersions`).
 * @example
 * ```ts
 * declare const app: FastifyInstance, rendered: RenderedWebhook // what webhooks.render() returned
 * for (const { subscriber, reason } of rendered.skipped) app.log.info({ subscriber: subscriber.id }, reason)
 * ```
 */
export interface SkippedSubscriber<S extends WebhookSubscriber = WebhookSubscriber> {
  readonly subscriber: S
  /** The version it would have received. */
  readonly version: string
  readonly reason: string
}

/**
 * A subscriber not sent the webhook because its version could not be rendered: a converter on the way to that version
 * threw or rejected, or made a body the version's schema refuses (the application's renderer logs it at error level);
 * or because its own secret is malformed (`FST_VERSIONER_INVALID_WEBHOOK_SECRET`, logged too).
 * The other versions' subscribers still get theirs. Render again for these subscribers, with the same `id`, once the
 * converter is fixed.
 * @example
 * ```ts
 * declare const app: FastifyInstance, subscribers: WebhookSubscriber[], event: { id: string }
 * declare function retryLater (job: { event: { id: string }, subscribers: WebhookSubscriber[] }): Promise<void> // your queue
 * const { deliveries, failed } = await app.versioner.webhooks.render('invoice.paid', event, { subscribers, id: event.id })
 * if (failed.length > 0) await retryLater({ event, subscribers: failed.map(({ subscriber }) => subscriber) })
 * ```
 */
export interface FailedSubscriber<S extends WebhookSubscriber = WebhookSubscriber> {
  readonly subscriber: S
  /** The version it was to receive. */
  readonly version: string
  /** The subscriber's pin as given (a `Date` as its ISO date). */
  readonly requested: string
  /** True when the pin fell forward to `version`. */
  readonly fellForward: boolean
  /** What the migration threw: the converter's own `Error`, or `FST_VERSIONER_CONVERTER_FAILED` / `FST_VERSIONER_UNCONVERTIBLE_RESPONSE`; or `FST_VERSIONER_INVALID_WEBHOOK_SECRET`. */
  readonly error: Error
}

/**
 * A webhook rendered for its subscribers.
 * @example
 * ```ts
 * declare const app: FastifyInstance, subscribers: WebhookSubscriber[], event: { id: string }
 * const { id, deliveries, skipped } = await app.versioner.webhooks.render('invoice.paid', event, { subscribers })
 * ```
 */
export interface RenderedWebhook<S extends WebhookSubscriber = WebhookSubscriber> {
  /** `webhook-id`. */
  readonly id: string
  /** `webhook-timestamp`, in seconds since the epoch. */
  readonly timestamp: number
  /** One per subscriber whose version has the webhook and was rendered, in the order given. */
  readonly deliveries: ReadonlyArray<WebhookDelivery<S>>
  /** Those whose version lacks the webhook, in the order given. */
  readonly skipped: ReadonlyArray<SkippedSubscriber<S>>
  /** Those whose version could not be rendered (a converter failed), or whose secret is malformed, in the order given. */
  readonly failed: ReadonlyArray<FailedSubscriber<S>>
}
