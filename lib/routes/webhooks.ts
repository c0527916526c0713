/**
 * Webhooks: payloads the application sends to its subscribers, declared on `app.versioner.webhooks`. Each
 * version's OpenAPI document lists them under `webhooks` (OpenAPI 3.1), with schema and endpoint
 * instructions applied (`endpoint('user.created', ['POST']).didntExist` removes one from older versions);
 * `migrateResponseBody` produces the payload for a subscriber on an older version.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { VersionerStructureError } from '../core/errors'
import { normaliseMethods, type HttpMethod } from '../core/http-methods'
import type { RouteAttributes, RouteState } from './timeline'
import { describeValue, isSchemaObject } from '../core/json-schema'
import { attributesOf } from './version-plan'

/** A webhook declaration. */
export interface WebhookDefinition {
  /** The webhook's name: its key under `webhooks` in the documents (e.g. `'user.created'`). */
  name: string
  /** The HTTP method of the delivery (default `'POST'`). */
  method?: HttpMethod | Lowercase<HttpMethod>
  /** The HEAD schema of the payload. */
  body: TSchema
  summary?: string
  description?: string
  tags?: string[]
  operationId?: string
  deprecated?: boolean
}

/** A declared webhook with its state in every version (computed when the application is ready). */
export interface DeclaredWebhook {
  readonly name: string
  readonly method: HttpMethod
  readonly body: TSchema
  readonly attributes: RouteAttributes
  timeline: readonly RouteState[]
}

/**
 * Declares webhooks (before `app.ready()`).
 * @example
 * ```ts
 * app.versioner.webhooks.add({ name: 'user.created', body: UserResource, summary: 'A user was created' })
 * // later, for a subscriber pinned to an older version:
 * const payload = app.versioner.migrateResponseBody(UserResource, { latestBody: user, version: subscriber.version })
 * ```
 */
export class Webhooks {
  private readonly declared: DeclaredWebhook[] = []
  private sealed = false

  /** Declares a webhook. */
  add (definition: WebhookDefinition): this {
    if (this.sealed) {
      throw new VersionerStructureError('webhooks.add() must be called before app.ready(): the documents are built from the webhooks declared by then' +
        `${isSchemaObject(definition) && typeof definition.name === 'string' ? ` (got '${definition.name}' too late)` : ''}.`)
    }
    if (!isSchemaObject(definition) || typeof definition.name !== 'string' || definition.name === '') {
      throw new VersionerStructureError(`webhooks.add({ name, body }) needs a name; got ${describeValue(definition)}.`)
    }
    if (!isSchemaObject(definition.body)) {
      throw new VersionerStructureError(`webhooks.add({ name: '${definition.name}', body }) needs body: a TypeBox schema.`)
    }
    const [method] = normaliseMethods(definition.method ?? 'POST')
    if (this.declared.some((webhook) => webhook.name === definition.name && webhook.method === method)) {
      throw new VersionerStructureError(`Webhook '${definition.name}' (${method}) is declared twice.`)
    }
    this.declared.push({ name: definition.name, method, body: definition.body, attributes: attributesOf(definition), timeline: [] })
    return this
  }

  /** The declared webhooks. */
  list (): readonly DeclaredWebhook[] {
    return this.declared
  }

  /** @internal Stops declarations (at ready). */
  seal (): void {
    this.sealed = true
  }
}
