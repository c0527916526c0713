/**
 * Usage events on `diagnostics_channel` (`fastify-versioner:served`, `fastify-versioner:webhook-rendered`), costing
 * one `hasSubscribers` read without a subscriber (docs/running-many-versions.md).
 * @module
 */
import diagnosticsChannel from 'node:diagnostics_channel'
import type { FastifyRequest } from 'fastify'
import type { ServeOptions } from './serve-options'
import { requestState } from './request-state'
import type { Brownout } from '../describe/release-dates'
import type { VersionBundle } from '../describe/versions'
import { NO_FIELDS } from '../routes/full-replace'
import type { DeclaredWebhook } from '../routes/webhooks'
import type { VersionBehaviour } from '../routes/version-plan'

/** The channel (subscribe with `diagnostics_channel.subscribe('fastify-versioner:served', …)`). */
export const servedChannel = diagnosticsChannel.channel('fastify-versioner:served')

/**
 * The HEAD route a request is served by: its method (the one answering the request) and URL.
 * @example
 * ```ts
 * declare const event: ServedEvent // a message of the channel fastify-versioner:served
 * const route: ServedRoute = event.route
 * console.log(`${route.method} ${route.url}`) // GET /users/:id
 * ```
 */
export interface ServedRoute {
  readonly method: string
  readonly url: string
}

/**
 * The message of the `diagnostics_channel` channel `fastify-versioner:served`, published once per versioned request.
 * @example
 * ```ts
 * import diagnosticsChannel from 'node:diagnostics_channel'
 * import { Counter } from 'prom-client'
 * const served = new Counter({ name: 'api_requests_by_version', help: 'Requests by version', labelNames: ['version', 'route', 'explicit'] })
 * const byChange = new Counter({ name: 'api_requests_by_change', help: 'Requests by version change', labelNames: ['version', 'change'] })
 * diagnosticsChannel.subscribe('fastify-versioner:served', (message) => {
 *   const { version, requested, route, changes } = message as ServedEvent
 *   served.inc({ version, route: `${route.method} ${route.url}`, explicit: String(requested !== undefined) })
 *   for (const change of changes) byChange.inc({ version, change })
 * })
 * ```
 */
export interface ServedEvent {
  /** The request. */
  readonly request: FastifyRequest
  /** The version serving the request (after waterfalling, a default or a pinning picker). */
  readonly version: string
  /** What the client sent (header value or path segment) as it sent it; `undefined` when it sent none. */
  readonly requested: string | undefined
  /** The HEAD route (as registered in `versioned(...)`) answering the request. */
  readonly route: ServedRoute
  /** True when the version has a deprecation date (its responses carry `Deprecation`). */
  readonly deprecated: boolean
  /** The version's sunset date, if it has one. */
  readonly sunset: Date | undefined
  /** The deprecated fields the request carries, as JSON pointers (`/body/address`, array items as `*`), each once. */
  readonly deprecatedFields: readonly string[]
  /** The version change classes (by name) whose converters or instructions shape this route in this version. */
  readonly changes: readonly string[]
  /** What the `clientId` option returned for the request (an account or API key id); `undefined` without the option. */
  readonly client: string | undefined
  /** The scheduled brownout that answered the request 410; `undefined` for every other request. */
  readonly brownout: Brownout | undefined
  /** The API serving the request, as the tools name it (its `apiName`, else from its prefix: `root` without one). */
  readonly api: string
}

/** The HEAD route of a registered route, as events name it. */
export interface HeadRouteOf {
  readonly methods: readonly string[]
  readonly path: string
}

/** The route a served event is published for: its HEAD route, and the version changes shaping it in a version (../routes/route-changes.ts). */
export interface ServedRouteFacts {
  readonly head: HeadRouteOf
  readonly changes: (behaviour: VersionBehaviour) => readonly string[]
}

/**
 * The HEAD route answering `request`, as events name it: the HEAD route's method answering it (GET for its automatic
 * HEAD twin) and its URL.
 * @example `servedRoute(request, registered.head) // { method: 'GET', url: '/users/:id' }`
 */
export function servedRoute (request: FastifyRequest, head: HeadRouteOf): ServedRoute {
  const method = request.method === 'HEAD' && !head.methods.includes('HEAD') && head.methods.includes('GET') ? 'GET' : request.method
  return { method: head.methods.includes(method) ? method : head.methods.join(','), url: head.path }
}

/** The client of a request, by the `clientId` option (a failing or non-string answer: logged, `undefined`). */
function clientOf (request: FastifyRequest, clientId: NonNullable<ServeOptions['clientId']>): string | undefined {
  try {
    const client = clientId(request)
    return typeof client === 'string' ? client : undefined
  } catch (error) {
    request.log.error({ err: error }, 'fastify-versioner: the clientId option threw; the served event has no client')
    return undefined
  }
}

/**
 * Publishes the event of a request served `version` (call only when `servedChannel.hasSubscribers`): its behaviour
 * (none for a brownout's 410 where the route does not exist), and the brownout that answered it.
 */
export function publishServed (
  request: FastifyRequest, served: { version: string, behaviour: VersionBehaviour | undefined, brownout?: Brownout }, route: ServedRouteFacts, options: ServeOptions
): void {
  const { version, behaviour } = served
  const described = options.versions.get(version)
  const event: ServedEvent = {
    request,
    version,
    requested: options.picker.requested(request),
    route: servedRoute(request, route.head),
    deprecated: described?.deprecatedAt !== undefined,
    // A copy (as in the webhook event): the version's own Date serves every request.
    sunset: copyDate(described?.sunsetAt),
    deprecatedFields: requestState(request)?.fieldDeprecations?.fields ?? NO_FIELDS,
    changes: behaviour === undefined ? [] : route.changes(behaviour),
    client: options.clientId === undefined ? undefined : clientOf(request, options.clientId),
    brownout: served.brownout,
    api: options.apiName
  }
  servedChannel.publish(event)
}

/** The channel (subscribe with `diagnostics_channel.subscribe('fastify-versioner:webhook-rendered', …)`). */
export const webhookRenderedChannel = diagnosticsChannel.channel('fastify-versioner:webhook-rendered')

/**
 * A subscriber a webhook was rendered for, in the event's version.
 * @example
 * ```ts
 * declare const event: WebhookRenderedEvent, app: FastifyInstance
 * for (const { id, requested, fellForward } of event.subscribers) if (fellForward) app.log.warn({ id, requested }, 'pinned to a version no longer served')
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
 * import { Counter } from 'prom-client'
 * const rendered = new Counter({ name: 'webhooks_rendered', help: 'Webhook deliveries by version', labelNames: ['version', 'webhook'] })
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
  /** The API that rendered it, as the tools name it; `undefined` from the standalone `renderWebhook`. */
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
    sunset: copyDate(described?.sunsetAt),
    id: rendered.id,
    api: rendered.api
  }
  webhookRenderedChannel.publish(event)
}

/** A copy of a date, for a subscriber that may change it in place. */
function copyDate (date: Date | undefined): Date | undefined {
  return date === undefined ? undefined : new Date(date.getTime())
}
