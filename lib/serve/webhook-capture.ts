/**
 * Captured webhook renders (option `captureExchanges`, decision 0238): the HEAD event and each version's body, redacted,
 * published on `fastify-versioner:webhook` for `replay`. No signature, secret nor subscriber leaves the process.
 * @module
 */
import diagnosticsChannel from 'node:diagnostics_channel'
import { copyJson } from '../values/json-copy'
import { redact } from '../values/redaction'
import type { ResolvedCaptureExchanges } from './serve-options'

/**
 * One version's body of a captured render: the version, and the body as its subscribers received it (parsed JSON).
 * @example
 * ```ts
 * declare const message: CapturedWebhook
 * const bodies: readonly CapturedBody[] = message.deliveries
 * for (const { version, body } of bodies) console.log(version, JSON.stringify(body)) // each version's payload, as sent
 * ```
 */
export interface CapturedBody {
  readonly version: string
  readonly body: unknown
}

/**
 * The message of the channel `fastify-versioner:webhook`: one `webhooks.render()` call, plain JSON data (one a line,
 * in the traffic file beside the exchanges).
 * @example
 * ```ts
 * import diagnosticsChannel from 'node:diagnostics_channel'
 * diagnosticsChannel.subscribe('fastify-versioner:webhook', (message) => {
 *   const { webhook, deliveries } = message as CapturedWebhook
 *   console.log(webhook.name, deliveries.map((delivery) => delivery.version))
 * })
 * ```
 */
export interface CapturedWebhook {
  /** The webhook rendered: its HEAD name and its method. */
  readonly webhook: { readonly name: string, readonly method: string }
  /** The newest version of the application when it was rendered: the event is HEAD data of that release. */
  readonly latest: string
  /** `webhook-timestamp` of the render, in seconds since the epoch. */
  readonly timestamp: number
  /** The event as the handler gave it to `render` (HEAD data, as the webhook's serializer writes it: what the converters got). */
  readonly event: unknown
  /** One per version rendered for at least one subscriber (several subscribers of one version get one body). */
  readonly deliveries: readonly CapturedBody[]
}

/** The channel (subscribe with `diagnostics_channel.subscribe('fastify-versioner:webhook', …)`). */
const webhookChannel = diagnosticsChannel.channel('fastify-versioner:webhook')

/** What a render gives the capture: the webhook, its event, its timestamp and each version's body as JSON text. */
interface RenderedForCapture {
  readonly webhook: { readonly name: string, readonly method: string }
  readonly event: unknown
  readonly timestamp: number
  readonly texts: ReadonlyArray<readonly [version: string, body: string]>
}

/** The capture of an application's renders: each call counted when it starts, each render published (when sampled and subscribed to). */
export interface WebhookCapture {
  readonly count: (webhook: { readonly name: string, readonly method: string }) => void
  readonly publish: (rendered: RenderedForCapture) => void
}

/**
 * A webhook rendered while an exchange was served: its name and method, and how many times (`CapturedExchange.renders`).
 * @example
 * ```ts
 * declare const exchange: CapturedExchange
 * const renders: readonly RenderCount[] = exchange.renders ?? []
 * for (const { name, method, count } of renders) console.log(`${method} ${name} rendered ${count} time(s) while serving it`)
 * ```
 */
export interface RenderCount {
  readonly name: string
  readonly method: string
  readonly count: number
}

/**
 * The API's render counts now (its `webhooks.render()` calls since it started, per webhook, counted whether the render
 * is then sampled, has a subscriber or fails: decision 0177), to give {@link rendersSince} when the exchange is published.
 * @example `found.renders = renderCountsNow(capture)`
 */
export function renderCountsNow (capture: ResolvedCaptureExchanges): ReadonlyMap<string, number> {
  const counts = new Map<string, number>()
  for (const [key, { count }] of capture.renderCalls) counts.set(key, count)
  return counts
}

/**
 * The webhooks the API rendered since `counts` were taken ({@link renderCountsNow}), and how many times each: those of
 * the exchange's request, and any other render of the API made meanwhile (a concurrent request's, a timer's).
 * @example `const renders = rendersSince(capture, found.renders)`
 */
export function rendersSince (capture: ResolvedCaptureExchanges, counts: ReadonlyMap<string, number>): RenderCount[] {
  const since: RenderCount[] = []
  for (const [key, { name, method, count }] of capture.renderCalls) {
    const made = count - (counts.get(key) ?? 0)
    if (made > 0) since.push({ name, method, count: made })
  }
  return since
}

/**
 * The capture of an application's renders: `undefined` when the option is off (a render then checks one property).
 * @example `const capture = createWebhookCapture(resolved.captureExchanges, resolved.versions.versionValues[0])`
 */
export function createWebhookCapture (capture: ResolvedCaptureExchanges | undefined, latest: string): WebhookCapture | undefined {
  if (capture === undefined) return undefined
  const { sampleRate, redaction, renderCalls } = capture
  const count = (webhook: { readonly name: string, readonly method: string }): void => {
    const key = `${webhook.method} ${webhook.name}`
    const counted = renderCalls.get(key)
    renderCalls.set(key, { name: webhook.name, method: webhook.method, count: (counted?.count ?? 0) + 1 })
  }
  const publish = (rendered: RenderedForCapture): void => {
    if (!webhookChannel.hasSubscribers || rendered.texts.length === 0 || (sampleRate < 1 && Math.random() >= sampleRate)) return
    const data = [{ value: copyJson(rendered.event) }, ...rendered.texts.map(([, text]) => ({ value: JSON.parse(text) as unknown }))]
    // Pointers apply to the event and the bodies (no header is recorded); each value found is removed wherever it stands.
    redact({ headers: [], data }, redaction)
    const message: CapturedWebhook = {
      webhook: { name: rendered.webhook.name, method: rendered.webhook.method },
      latest,
      timestamp: rendered.timestamp,
      event: data[0].value,
      deliveries: rendered.texts.map(([version], index) => ({ version, body: data[index + 1].value }))
    }
    webhookChannel.publish(message)
  }
  return { count, publish }
}
