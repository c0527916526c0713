/**
 * Usage events of webhooks: the `diagnostics_channel` channel `fastify-versioner:webhook-rendered`, published by
 * `render` once per version a webhook was rendered in, naming the subscribers it was rendered for, when the whole
 * render succeeds (one that rejects publishes nothing). A sibling of
 * `fastify-versioner:served` (./usage-events.ts), whose subscribers read a request every event has: its fields
 * have the served event's names where they mean the same (`version`, `deprecated`, `sunset`). With no subscriber the
 * only cost is reading `hasSubscribers`, once per version rendered.
 * @module
 */
import diagnosticsChannel from 'node:diagnostics_channel'
import type { VersionBundle } from '../describe/versions'
import type { DeclaredWebhook } from '../routes/webhooks'

/** The channel (subscribe with `diagnostics_channel.subscribe('fastify-versioner:webhook-rendered', …)`). */
export const webhookRenderedChannel = diagnosticsChannel.channel('fastify-versioner:webhook-rendered')

/**
 * A subscriber a webhook was rendered for, in the event's version.
 * @example
 * ```ts
 * for (const { id, requested, fellForward } of event.subscribers) if (fellForward) log.warn({ id, requested }, 'pinned to a version no longer served')
 * ```
 */
export interface RenderedSubscriber {
  /** The subscriber's id. */
  readonly id: string
  /** Its pin as given (a `Date` as its ISO date). */
  readonly requested: string
  /** True when its pin names no version served (it fell forward to the oldest one served). */
  readonly fellForward: boolean
}

/**
 * The message of the channel `fastify-versioner:webhook-rendered`: one webhook rendered in one version.
 * @example
 * ```ts
 * import diagnosticsChannel from 'node:diagnostics_channel'
 * diagnosticsChannel.subscribe('fastify-versioner:webhook-rendered', (message) => {
 *   const { webhook, version, subscribers } = message as WebhookRenderedEvent
 *   rendered.inc({ version, webhook: webhook.name }, subscribers.length)
 * })
 * ```
 */
export interface WebhookRenderedEvent {
  /** The webhook as declared (its HEAD name and method). */
  readonly webhook: { readonly name: string, readonly method: string }
  /** The version the body was rendered in. */
  readonly version: string
  /** The subscribers it was rendered for in this version, in the order given. */
  readonly subscribers: readonly RenderedSubscriber[]
  /** True when the version has a deprecation date. */
  readonly deprecated: boolean
  /** The version's sunset date, if it has one. */
  readonly sunset: Date | undefined
  /** `webhook-id` of the rendered message. */
  readonly id: string
  /**
   * The API that rendered it, as the tools name it (its `apiName`, else from its prefix: `root` without one), so that
   * several APIs with the same versions can be told apart; `undefined` from the standalone `renderWebhook`.
   */
  readonly api: string | undefined
}

/** Publishes the event of one version (call only when `webhookRenderedChannel.hasSubscribers`). */
export function publishWebhookRendered (
  bundle: VersionBundle, webhook: DeclaredWebhook,
  rendered: { readonly id: string, readonly version: string, readonly subscribers: readonly RenderedSubscriber[], readonly api: string | undefined }
): void {
  const described = bundle.get(rendered.version)
  const event: WebhookRenderedEvent = {
    webhook: { name: webhook.name, method: webhook.method },
    version: rendered.version,
    subscribers: rendered.subscribers,
    deprecated: described?.deprecatedAt !== undefined,
    sunset: described?.sunsetAt,
    id: rendered.id,
    api: rendered.api
  }
  webhookRenderedChannel.publish(event)
}
