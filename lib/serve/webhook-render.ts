/**
 * Rendering a webhook for its subscribers: each pin resolved to a served version, the body migrated once per version,
 * its JSON text signed per subscriber (Standard Webhooks; decision 0080).
 * @module
 */
import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { InvalidOptionError, InvalidWebhookBodyError } from '../core/errors'
import { ConverterFailedError } from '../core/request-errors'
import { versionDateOf } from '../core/iso-date'
import { describeValue, isSchemaObject, type SchemaLike, type ReadonlyDeep, type StaticOf } from '../core/json-schema'
import { checkedWebhookId, webhookKeys, webhookSignature } from '../core/webhook-signatures'
import { generationSteps, VersionBundle } from '../describe/versions'
import { checkInstanceOf } from '../core/other-copies'
import { EndpointInstructionLog } from '../routes/timeline'
import type { FailedSubscriber, RenderedWebhook, RenderWebhookOptions, SkippedSubscriber, WebhookDelivery, WebhookSubscriber } from '../routes/webhook-deliveries'
import { declaredWebhook, webhookTimeline, type DeclaredWebhook, type WebhookDefinition, type WebhookRenderer } from '../routes/webhooks'
import { kBundleInternals } from '../core/symbols'
import { createGoneTest } from './gone-versions'
import { releasedNow, startReleaseClock } from './release-clock'
import { engineFor, migrateWith, pickedTarget, type MigrationEngine, type StandaloneAjv } from './migrate-response-body'
import { publishWebhookRendered, webhookRenderedChannel, type RenderedSubscriber } from './usage-events'
import type { WebhookCapture } from './webhook-capture'

/** What rendering needs besides the webhook: the migration engine, the clock, the default version header. */
interface RenderContext {
  readonly engine: MigrationEngine
  /** The current time in milliseconds: the timestamp when none is given. */
  readonly now: () => number
  readonly versionHeader: string
  /** The API's name, for the `webhook-rendered` events (none for the standalone `renderWebhook`). */
  readonly api?: string
  /** Where a version that could not be rendered is logged (the application's logger; none for `renderWebhook`). */
  readonly log?: Pick<FastifyBaseLogger, 'error'>
  /** The capture of renders (option `captureExchanges`: ./webhook-capture.ts); none when it is off. */
  readonly capture?: WebhookCapture
}

/** A token of RFC 9110: what a header name is made of. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** The headers a delivery always has, which the version header cannot be. */
const OWN_HEADERS = new Set(['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'])

/** The render options, checked: `FST_VERSIONER_INVALID_OPTION` naming the option and what is accepted. */
function checkedOptions<S extends WebhookSubscriber> (options: RenderWebhookOptions<S>, context: RenderContext): { id: string, instant: number, header: string } {
  if (!isSchemaObject(options) || !Array.isArray(options.subscribers)) {
    throw new InvalidOptionError(`render(name, latestBody, { subscribers, id?, timestamp? }) needs subscribers: a list of { id, version, secret }; got ${describeValue(options?.subscribers ?? options)}.`)
  }
  const { timestamp, versionHeader = context.versionHeader } = options
  const id = checkedWebhookId(options.id === undefined ? `msg_${randomUUID()}` : options.id, 'render')
  if (timestamp !== undefined && (!(timestamp instanceof Date) || Number.isNaN(timestamp.getTime()))) {
    throw new InvalidOptionError(`render's timestamp must be a valid Date; got ${describeValue(timestamp)}.`)
  }
  if (typeof versionHeader !== 'string' || !HEADER_NAME.test(versionHeader) || OWN_HEADERS.has(versionHeader.toLowerCase())) {
    throw new InvalidOptionError(`render's versionHeader must be a header name other than ${[...OWN_HEADERS].join(', ')}; got ${describeValue(versionHeader)}.`)
  }
  return { id, instant: timestamp?.getTime() ?? context.now(), header: versionHeader.toLowerCase() }
}

/**
 * The JSON copy of `latestBody`, which every version is rendered from: throws `FST_VERSIONER_INVALID_WEBHOOK_BODY`
 * unless it is JSON data the webhook's HEAD schema accepts.
 */
function headEvent (engine: MigrationEngine, webhook: DeclaredWebhook, latestBody: unknown): unknown {
  let check: ReturnType<MigrationEngine['validatorOf']>
  try {
    check = engine.validatorOf(webhook.body)
  } catch (error) {
    // A format or keyword of the application's own, unknown to Fastify's default Ajv setup (a worker's renderWebhook).
    throw new InvalidOptionError(`The HEAD schema of webhook '${webhook.name}' does not compile with this Ajv setup: ${(error as Error).message}. ` +
      'Outside the application, give renderWebhook (and migrateResponseBody) the ajv option the application gives Fastify({ ajv }).')
  }
  const copy = engine.copyOf(webhook.body, latestBody)
  // The copy keeps what JSON cannot write as it is: the migrations would change the caller's object, then fail. A body
  // JSON writes as nothing (`undefined`, a function) would be sent as no text, signed as the text 'undefined'.
  if (copy === undefined || ['function', 'symbol', 'bigint'].includes(typeof copy) || (copy === latestBody && typeof copy === 'object' && copy !== null)) {
    throw new InvalidWebhookBodyError(`The body given to render webhook '${webhook.name}' is not JSON data: JSON cannot write it (a BigInt, a cycle) ` +
      'or writes it as nothing (undefined, a function). Give the body as JSON would send it.')
  }
  if (check(copy)) return copy
  const issue = check.errors?.[0]
  throw new InvalidWebhookBodyError(`The body given to render webhook '${webhook.name}' is not one its HEAD schema accepts: at ` +
    `'${issue?.instancePath ?? ''}', ${issue?.message ?? 'it does not match'}. Give the body as HEAD builds it; the versions' bodies are made from it.`)
}

/** Where a subscriber's pin leads: the version it gets, and whether it fell forward. */
interface Pin {
  readonly version: string
  readonly requested: string
  readonly fellForward: boolean
}

/**
 * Resolves pins at an instant, each distinct pin once: a served version as requests are picked then, else the closest
 * newer version served, else the oldest served (decision 0080). A brownout window is not read: only the sunset moves a
 * pin (decision 0314).
 */
function pinResolver (bundle: VersionBundle, instant: number): (subscriber: WebhookSubscriber, index: number) => Pin {
  const releases = startReleaseClock(bundle, () => instant)
  const goneProblemOf = createGoneTest({ versions: bundle, now: () => instant })
  const served = (version: string): boolean => goneProblemOf?.(version) === undefined
  const released = releasedNow({ versions: bundle, releases }).values
  const oldest = [...released].reverse().find(served) ?? released[0]
  const pins = new Map<string, Pin>()
  return (subscriber, index) => {
    const { version } = subscriber
    const valid = version instanceof Date ? !Number.isNaN(version.getTime()) : typeof version === 'string' && version.trim() !== ''
    if (!valid) {
      throw new InvalidOptionError(`Subscriber ${nameOf(subscriber, index)} has version ${describeValue(version)}; a subscriber's version is a version value or a valid Date.`)
    }
    const requested = version instanceof Date ? versionDateOf(version) : version
    let pin = pins.get(requested)
    if (pin === undefined) {
      // Read as a header is (trimmed). A value no version has whose date (or month) names one, such as a preview's once
      // promoted or a Date stored as its JSON text (`2002-03-04T10:00:00.000Z`): that date's version.
      const value = requested.trim()
      const dated = /^(\d{4}-\d{2}(?:-\d{2})?)[.T]/.exec(value)?.[1]
      let picked = pickedTarget(bundle, value, releases)
      const byDate = !picked.ok && dated !== undefined
      if (byDate) picked = pickedTarget(bundle, dated, releases)
      // A version gone while older ones are still served falls forward to the closest newer one served.
      const forward = picked.ok ? released.slice(0, released.indexOf(picked.version)).reverse().find(served) ?? oldest : oldest
      pin = picked.ok && served(picked.version)
        ? { version: picked.version, requested, fellForward: byDate }
        : { version: forward, requested, fellForward: true }
      pins.set(requested, pin)
    }
    return pin
  }
}

/** A subscriber in messages: `'ep_1'` (its id), or its place in the list when it has none. */
function nameOf (subscriber: WebhookSubscriber, index: number): string {
  return typeof subscriber?.id === 'string' && subscriber.id !== '' ? `'${subscriber.id}'` : `#${index + 1} (no id)`
}

/** A subscriber, resolved: its pin and signing keys, and its place in the list. */
interface Resolved<S extends WebhookSubscriber> {
  readonly subscriber: S
  readonly index: number
  readonly pin: Pin
  /** Its signing keys, or what is wrong with its secret (that subscriber fails alone: decision 0168). */
  readonly keys: readonly Buffer[] | Error
}

/** Each subscriber checked (id, version, secret) and resolved, before anything is migrated; grouped by version. */
function resolveSubscribers<S extends WebhookSubscriber> (bundle: VersionBundle, subscribers: readonly S[], instant: number): Map<string, Array<Resolved<S>>> {
  const pinOf = pinResolver(bundle, instant)
  const byVersion = new Map<string, Array<Resolved<S>>>()
  const places = new Map<string, number>()
  subscribers.forEach((subscriber, index) => {
    if (!isSchemaObject(subscriber) || typeof subscriber.id !== 'string' || subscriber.id === '') {
      throw new InvalidOptionError(`Subscriber ${nameOf(subscriber, index)} needs an id: a non-empty string; a subscriber is { id, version, secret }.`)
    }
    const first = places.get(subscriber.id)
    if (first !== undefined) {
      throw new InvalidOptionError(`Subscribers #${first + 1} and #${index + 1} have the same id '${subscriber.id}'; each subscriber's id names one endpoint ` +
        '(its delivery, its skip and the rendered event name it): list each endpoint once.')
    }
    places.set(subscriber.id, index)
    const pin = pinOf(subscriber, index)
    let keys: readonly Buffer[] | Error
    try {
      keys = webhookKeys(subscriber.secret, () => `subscriber ${nameOf(subscriber, index)}`)
    } catch (error) {
      keys = error as Error
    }
    let group = byVersion.get(pin.version)
    if (group === undefined) byVersion.set(pin.version, group = [])
    group.push({ subscriber, index, pin, keys })
  })
  return byVersion
}

/** Renders `webhook` for the subscribers of `options` (see {@link RenderedWebhook}). */
async function render<S extends WebhookSubscriber> (
  context: RenderContext, webhook: DeclaredWebhook, latestBody: unknown, options: RenderWebhookOptions<S>
): Promise<RenderedWebhook<S>> {
  const { engine } = context
  // Counted before anything is checked, as `replay --handlers` notes a call (decision 0177).
  context.capture?.count(webhook)
  const { id, instant, header } = checkedOptions(options, context)
  // Read once, when render is called: a caller changing its object before the render settles changes no version's body.
  const event = headEvent(engine, webhook, latestBody)
  const timestamp = Math.floor(instant / 1000)
  const byVersion = resolveSubscribers(engine.bundle, options.subscribers, instant)
  const deliveries: Array<WebhookDelivery<S> | undefined> = []
  const skipped: Array<SkippedSubscriber<S> | undefined> = []
  const failed: Array<FailedSubscriber<S> | undefined> = []
  const renderedIn: Array<[string, Array<Resolved<S>>, string]> = []
  for (const [version, group] of byVersion) {
    const level = engine.generation.levelOf(version)
    if (webhook.timeline[level]?.exists !== true) {
      // No newer version has it: it was removed (onlyExistsInOlderVersions) in the version after the newest older one having it.
      const since = webhook.timeline.slice(1, level).some((state) => state.exists) ? -1 : webhook.timeline.findIndex((state, at) => at > level && state.exists)
      const reason = `Webhook '${webhook.name}' (${webhook.method}) does not exist in version ${version}: ` +
        `${since === -1 ? 'an endpoint instruction says it did not' : `it was removed in version ${engine.generation.levels[since - 1]}`}.`
      for (const { subscriber, index } of group) skipped[index] = { subscriber, version, reason }
      continue
    }
    let body: string
    try {
      body = JSON.stringify(await migrateWith(engine, webhook.body, { latestBody: event as ReadonlyDeep<unknown>, version }))
    } catch (thrown) {
      // One version's converter failing fails that version's subscribers only (decision 0103).
      const error = thrown instanceof Error ? thrown : new ConverterFailedError(`${version} (rendering webhook '${webhook.name}' threw ${String(thrown)})`)
      for (const { subscriber, index, pin } of group) failed[index] = { subscriber, version, requested: pin.requested, fellForward: pin.fellForward, error }
      context.log?.error({ err: error, webhook: webhook.name, apiVersion: version, subscribers: group.map(({ subscriber }) => subscriber.id) },
        `Webhook '${webhook.name}' could not be rendered in version ${version}: its ${group.length} subscriber(s) are in the render's failed list.`)
      continue
    }
    const content = `${id}.${timestamp}.${body}`
    const shared = { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(timestamp), [header]: version }
    for (const { subscriber, index, pin, keys } of group) {
      if (keys instanceof Error) {
        failed[index] = { subscriber, version, requested: pin.requested, fellForward: pin.fellForward, error: keys }
        context.log?.error({ err: keys, webhook: webhook.name, subscriber: subscriber.id }, `Webhook '${webhook.name}' was not signed for subscriber '${subscriber.id}': it is in the render's failed list.`)
        continue
      }
      const headers = { ...shared, 'webhook-signature': webhookSignature(keys, content) }
      deliveries[index] = { subscriber, version, requested: pin.requested, fellForward: pin.fellForward, body, headers }
    }
    const sent = group.filter(({ keys }) => !(keys instanceof Error))
    if (sent.length > 0) renderedIn.push([version, sent, body])
  }
  // Published once every version is rendered, for the versions rendered: a render that rejects rendered nothing for anyone.
  if (webhookRenderedChannel.hasSubscribers) {
    for (const [version, group] of renderedIn) {
      const rendered: RenderedSubscriber[] = group.map(({ subscriber, pin }) => ({ id: subscriber.id, requested: pin.requested, fellForward: pin.fellForward }))
      publishWebhookRendered(engine.bundle, webhook, { id, version, subscribers: rendered, api: context.api })
    }
  }
  context.capture?.publish({ webhook, event, timestamp, texts: renderedIn.map(([version, , body]) => [version, body] as const) })
  return {
    id,
    timestamp,
    deliveries: deliveries.filter((delivery) => delivery !== undefined),
    skipped: skipped.filter((skip) => skip !== undefined),
    failed: failed.filter((failure) => failure !== undefined)
  }
}

/**
 * The renderer of an application's `webhooks.render()`.
 * @example
 * ```ts
 * const webhooks = new Webhooks(createWebhookRenderer(engine, { now: resolved.now, versionHeader: resolved.headerName }))
 * ```
 */
export function createWebhookRenderer (engine: MigrationEngine, context: Omit<RenderContext, 'engine'>): WebhookRenderer {
  return async (webhook, latestBody, options) => await render({ engine, ...context }, webhook, latestBody, options)
}

/** The webhook of a definition in a bundle's versions, kept with the bundle (per definition object). */
function standaloneWebhook (bundle: VersionBundle, definition: WebhookDefinition<SchemaLike>): DeclaredWebhook {
  const standalone = bundle[kBundleInternals].standalone
  const webhooks = (standalone.webhooks ??= new WeakMap<WebhookDefinition<SchemaLike>, DeclaredWebhook>()) as WeakMap<WebhookDefinition<SchemaLike>, DeclaredWebhook>
  let webhook = webhooks.get(definition)
  if (webhook === undefined) {
    webhook = declaredWebhook(definition)
    webhook.timeline = webhookTimeline(webhook, new EndpointInstructionLog(generationSteps(bundle)))
    webhooks.set(definition, webhook)
  }
  return webhook
}

/**
 * `webhooks.render()` for a worker without the application: renders `latestBody` for each subscriber, in its version,
 * signed; the body's by-schema response converters run, routes' by-path ones do not. Give it the application's `ajv`
 * option when the body's schemas use formats of its own.
 * @example
 * ```ts
 * const InvoicePaidEvent = Type.Object({ invoiceId: Type.String() }, { $id: 'InvoicePaidEvent' })
 * const InvoicePaid: WebhookDefinition<typeof InvoicePaidEvent> = { name: 'invoice.paid', body: InvoicePaidEvent }
 * declare const versions: VersionBundle, subscribers: Array<WebhookSubscriber & { url: string }>, event: Static<typeof InvoicePaidEvent>
 * declare const queue: { add: (name: string, job: object) => Promise<unknown> } // your job queue (BullMQ…)
 * const { deliveries } = await renderWebhook(versions, InvoicePaid, event, { subscribers })
 * for (const { subscriber, body, headers } of deliveries) await queue.add('deliver', { url: subscriber.url, body, headers })
 * ```
 */
export async function renderWebhook<B extends SchemaLike, S extends WebhookSubscriber> (
  bundle: VersionBundle, webhook: WebhookDefinition<B>, latestBody: ReadonlyDeep<StaticOf<B>>, options: RenderWebhookOptions<S> & StandaloneAjv
): Promise<RenderedWebhook<S>> {
  checkInstanceOf(bundle, VersionBundle, 'renderWebhook(bundle, …) needs')
  return await render({ engine: engineFor(bundle, options?.ajv), now: Date.now, versionHeader: 'x-api-version' }, standaloneWebhook(bundle, webhook), latestBody, options)
}
