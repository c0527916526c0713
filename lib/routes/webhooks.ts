/**
 * Webhooks declared on `app.versioner.webhooks`, versioned like routes and rendered per subscriber version
 * ([decision 0080](../../docs/decisions/0080-webhooks-per-subscriber-version.md)).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { NotReadyError, UnknownWebhookError, VersionerStructureError } from '../core/errors'
import { normaliseMethods, type HttpMethod } from '../core/http-methods'
import { readOnlyExistsInOlderVersions, routeTimeline, type EndpointInstructionLog, type RouteAttributes, type RouteState } from './timeline'
import { describeValue, isSchemaObject, type ReadonlyDeep, type SchemaLike, type StaticOf } from '../core/json-schema'
import { checkDeprecations } from '../describe/field-deprecation'
import { attributesOf } from './version-plan'
import type { RenderedWebhook, RenderWebhookOptions, WebhookSubscriber } from './webhook-deliveries'

/**
 * A webhook declaration: what `webhooks.add()` takes, and what `renderWebhook` takes in a worker without the
 * application (share one object between them).
 * @example
 * ```ts
 * const InvoicePaidEvent = Type.Object({ invoiceId: Type.String(), amount: Type.Integer() }, { $id: 'InvoicePaidEvent' })
 * export const InvoicePaid: WebhookDefinition<typeof InvoicePaidEvent> = { name: 'invoice.paid', body: InvoicePaidEvent }
 * ```
 */
export interface WebhookDefinition<S extends SchemaLike = TSchema> {
  /** The webhook's name: its key under `webhooks` in the documents (e.g. `'user.created'`). */
  name: string
  /** The HTTP method of the delivery (default `'POST'`). */
  method?: HttpMethod | Lowercase<HttpMethod>
  /** The HEAD schema of the payload. */
  body: S
  summary?: string
  description?: string
  tags?: string[]
  operationId?: string
  deprecated?: boolean
  /**
   * Absent from HEAD and the latest version until an older version's `endpoint(name, [method]).existed` restores it
   * (a webhook since removed), as the route option of that name.
   */
  onlyExistsInOlderVersions?: boolean
}

/**
 * A declared webhook with its state in every version (computed when the application is ready).
 * @example
 * ```ts
 * declare const app: FastifyInstance // ready, with webhooks declared
 * const described = (webhook: DeclaredWebhook): string => `${webhook.method} ${webhook.name}${webhook.attributes.deprecated === true ? ' (deprecated)' : ''}`
 * for (const webhook of app.versioner.webhooks.list()) console.log(described(webhook))
 * ```
 */
export interface DeclaredWebhook {
  readonly name: string
  readonly method: HttpMethod
  readonly body: TSchema
  readonly attributes: RouteAttributes
  readonly onlyExistsInOlderVersions: boolean
  timeline: readonly RouteState[]
}

/** Renders a declared webhook (set by the plugin: ../serve/webhook-render.ts). */
export type WebhookRenderer = <S extends WebhookSubscriber>(webhook: DeclaredWebhook, body: unknown, options: RenderWebhookOptions<S>) => Promise<RenderedWebhook<S>>

/**
 * A webhook definition, checked (`FST_VERSIONER_STRUCTURE` naming what is wrong), with its method upper-cased; its
 * timeline is computed from the version changes by {@link webhookTimeline}.
 * @example
 * ```ts
 * const webhook = declaredWebhook({ name: 'user.created', body: UserResource })
 * ```
 */
export function declaredWebhook (definition: WebhookDefinition<SchemaLike>): DeclaredWebhook {
  if (!isSchemaObject(definition) || typeof definition.name !== 'string' || definition.name === '') {
    throw new VersionerStructureError(`webhooks.add({ name, body }) needs a name; got ${describeValue(definition)}.`)
  }
  // Endpoint instructions read a name starting with '/' as a route path, and refuse one with whitespace.
  if (definition.name.startsWith('/') || /\s/.test(definition.name)) {
    throw new VersionerStructureError(`webhooks.add({ name: ${JSON.stringify(definition.name)} }): a webhook name must not start with '/' (that names a route ` +
      "in endpoint(...) instructions) nor hold whitespace (no instruction could name it); name it as an event ('invoice.paid', 'billing/invoice.paid').")
  }
  if (!isSchemaObject(definition.body)) {
    throw new VersionerStructureError(`webhooks.add({ name: '${definition.name}', body }) needs body: a TypeBox schema.`)
  }
  checkDeprecations(definition.body, `webhook ${definition.name}`)
  const [method] = normaliseMethods(definition.method ?? 'POST')
  const { name, body, onlyExistsInOlderVersions } = definition
  return { name, method, body, attributes: attributesOf(definition), onlyExistsInOlderVersions: readOnlyExistsInOlderVersions(onlyExistsInOlderVersions, `webhook ${name}`), timeline: [] }
}

/**
 * A webhook in every version: whether it exists, its name and attributes, as endpoint instructions naming it make them
 * (`mayExistNowhere`: the app built by `retire`, as for routes).
 * @example
 * ```ts
 * webhook.timeline = webhookTimeline(webhook, state.log)
 * ```
 */
export function webhookTimeline (webhook: DeclaredWebhook, log: EndpointInstructionLog, mayExistNowhere?: boolean): RouteState[] {
  const { name: path, method, attributes, onlyExistsInOlderVersions } = webhook
  const timeline = routeTimeline({ path, methods: [method], onlyExistsInOlderVersions, attributes, operationId: attributes.operationId, mayExistNowhere }, log)
  // A delivery is sent with one method: a version documenting others would be promised what it is not sent.
  const level = timeline.findIndex((state) => state.exists && (state.methods.length !== 1 || state.methods[0] !== method))
  if (level === -1) return timeline
  const origin = log.steps[level - 1].origin
  throw new VersionerStructureError(`Webhook '${path}' (${method}) has the methods ${timeline[level].methods.join(', ')} in ` +
    `${origin === 'HeadVersion' ? 'the latest version' : `the version before ${origin}`} (an endpoint instruction's had({ methods })): its ` +
    'deliveries are sent with its one method in every version, which its documents must name: remove that instruction.')
}

/**
 * Throws `FST_VERSIONER_STRUCTURE` when two webhooks have one name and method in a version (one renamed by
 * `had({ path })` onto the other): that version's document could list only one. `levels` names each level's version.
 * @example
 * ```ts
 * checkWebhookNames(webhooks.list(), state.generation.levels)
 * ```
 */
export function checkWebhookNames (webhooks: readonly DeclaredWebhook[], levels: readonly string[]): void {
  const seen = new Map<string, DeclaredWebhook>()
  for (const webhook of webhooks) {
    for (const [level, state] of webhook.timeline.entries()) {
      if (!state.exists) continue
      const key = `${level} ${state.methods.join()} ${state.path}`
      const other = seen.get(key)
      if (other !== undefined) {
        throw new VersionerStructureError(`Webhooks '${other.name}' and '${webhook.name}' are both '${state.path}' (${state.methods.join(', ')}) in version ` +
          `${levels[level]}: its document can list only one. Check the endpoint instructions renaming them with had({ path }).`)
      }
      seen.set(key, webhook)
    }
  }
}

/**
 * Declares webhooks (before `app.ready()`), and renders them for subscribers (after).
 * @example
 * ```ts
 * declare const app: FastifyInstance, subscribers: WebhookSubscriber[]
 * const UserResource = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'UserResource' })
 * const user: Static<typeof UserResource> = { id: 'usr_1', fullName: 'Ada Lovelace' }
 * app.versioner.webhooks.add({ name: 'user.created', body: UserResource, summary: 'A user was created' })
 * // after ready: each subscriber's body in its version, with the Standard Webhooks headers
 * const { deliveries } = await app.versioner.webhooks.render('user.created', user, { subscribers })
 * ```
 */
export class Webhooks {
  private readonly declared: DeclaredWebhook[] = []
  private sealed = false

  /** @internal The plugin gives its renderer; a `Webhooks` made by hand declares but cannot render. */
  constructor (private readonly renderer?: WebhookRenderer) {}

  /** Declares a webhook. */
  add (definition: WebhookDefinition<SchemaLike>): this {
    if (this.sealed) {
      throw new VersionerStructureError('webhooks.add() must be called before app.ready(): the documents are built from the webhooks declared by then' +
        `${isSchemaObject(definition) && typeof definition.name === 'string' ? ` (got '${definition.name}' too late)` : ''}.`)
    }
    const webhook = declaredWebhook(definition)
    if (this.declared.some((other) => other.name === webhook.name && other.method === webhook.method)) {
      throw new VersionerStructureError(`Webhook '${webhook.name}' (${webhook.method}) is declared twice.`)
    }
    this.declared.push(webhook)
    return this
  }

  /** The declared webhooks. */
  list (): readonly DeclaredWebhook[] {
    return this.declared
  }

  /**
   * Renders the webhook `name` for each subscriber (after `app.ready()`): the body, given as HEAD builds it, in the
   * version the subscriber is pinned to (converters run once per version), as the exact text to send, with the
   * Standard Webhooks headers signed with the subscriber's secret and the version header. `options.method` picks
   * one of two webhooks declared with one name. Given the definition passed to `add()` rather than its name, the body is
   * type-checked against its HEAD schema (and the definition's method picks the webhook).
   * @example
   * ```ts
   * const { deliveries } = await app.versioner.webhooks.render(InvoicePaid, event, { subscribers })
   * for (const { subscriber, body, headers } of deliveries) await fetch(subscriber.url, { method: 'POST', body, headers })
   * ```
   */
  async render<B extends SchemaLike, S extends WebhookSubscriber> (
    webhook: WebhookDefinition<B>, latestBody: ReadonlyDeep<StaticOf<B>>, options: RenderWebhookOptions<S>
  ): Promise<RenderedWebhook<S>>
  async render<S extends WebhookSubscriber> (name: string, latestBody: unknown, options: RenderWebhookOptions<S>): Promise<RenderedWebhook<S>>
  async render<S extends WebhookSubscriber> (
    webhook: string | WebhookDefinition<SchemaLike>, latestBody: unknown, options: RenderWebhookOptions<S>
  ): Promise<RenderedWebhook<S>> {
    if (!this.sealed || this.renderer === undefined) throw new NotReadyError('app.versioner.webhooks.render()')
    return await this.renderer(this.declaredAs(webhook, options?.method), latestBody, options)
  }

  /**
   * @internal The webhook a render names: by name (and `method`), or by the definition given to `add()` (its method,
   * `POST` by default, unless `method` is given), whose body schema must be the one declared (its type is what the caller's body was checked against).
   */
  declaredAs (webhook: string | WebhookDefinition<SchemaLike>, method: HttpMethod | Lowercase<HttpMethod> | undefined): DeclaredWebhook {
    if (typeof webhook === 'string' || !isSchemaObject(webhook)) return this.named(webhook as string, method)
    const declared = this.named(webhook.name, method ?? webhook.method ?? 'POST')
    if (declared.body !== webhook.body) {
      throw new UnknownWebhookError(`Webhook '${declared.name}' is declared with another body schema than the definition given to render(): ` +
        'give render() the definition given to webhooks.add() (or its name).')
    }
    return declared
  }

  /** @internal The webhook declared as `name` (and `method`): `FST_VERSIONER_UNKNOWN_WEBHOOK` when none, or several and no method. */
  named (name: string, given: HttpMethod | Lowercase<HttpMethod> | undefined): DeclaredWebhook {
    const method = given === undefined ? undefined : normaliseMethods(given)[0]
    const named = this.declared.filter((webhook) => webhook.name === name && (method === undefined || webhook.method === method))
    if (named.length !== 1) {
      const declared = this.declared.map((webhook) => `'${webhook.name}' (${webhook.method})`).join(', ')
      throw new UnknownWebhookError(named.length === 0
        ? `No webhook '${String(name)}'${method === undefined ? '' : ` (${method})`} is declared; declared with webhooks.add(): ${declared === '' ? 'none' : declared}.`
        : `Webhook '${name}' is declared with several methods (${named.map((webhook) => webhook.method).join(', ')}): pass { method } to pick one.`)
    }
    return named[0]
  }

  /** @internal Stops declarations (at ready). */
  seal (): void {
    this.sealed = true
  }
}
