/**
 * The redaction pointers of `captureExchanges`, checked once the routes are known: a pointer that names a place no
 * schema of a versioned route declares, in any version (request bodies and query strings, responses), is most likely
 * misspelt, and a misspelt pointer would let the value it was meant to hide into every recorded exchange. Each one is
 * warned about (`FSTVRS002`) when the application is ready; it still redacts wherever a body holds that place.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { isSchemaObject, pointerSegment } from '../core/json-schema'
import { resolverWithin } from '../core/subschemas'
import { processWarning } from '../core/warnings'
import { requestPlans } from '../routes/version-plan'
import type { VersionerState } from '../routes/versioner-state'
import type { DeclaredWebhook } from '../routes/webhooks'
import { declaresPlace } from '../values/pointer-places'

/**
 * The schemas of the data pointers apply to, in every version of every versioned route (bodies, query strings,
 * responses) and of every webhook (its body: captured deliveries are redacted too).
 */
function dataSchemas (state: VersionerState, webhooks: readonly DeclaredWebhook[]): TSchema[] {
  const schemas: TSchema[] = []
  for (const webhook of webhooks) {
    webhook.timeline.forEach((version, level) => { if (version.exists) schemas.push(state.generation.formAt(webhook.body, level)) })
  }
  for (const head of state.headRoutes) {
    for (const registered of head.registered) {
      for (const behaviour of registered.behaviours.values()) {
        for (const plan of requestPlans(behaviour)) {
          for (const [part, schema] of plan.requestForms) if (part === 'body' || part === 'querystring') schemas.push(schema)
        }
        schemas.push(...behaviour.responseForms.values())
      }
    }
  }
  return schemas
}

/**
 * Warns (`FSTVRS002`) about each redaction pointer (as segments) that no schema of `state`'s versioned routes nor of
 * `webhooks` declares; nothing when no versioned route has a schema to compare with.
 * @example
 * ```ts
 * warnUndeclaredPointers(state, [['card', 'number']])
 * ```
 */
export function warnUndeclaredPointers (state: VersionerState, pointers: ReadonlyArray<readonly string[]>, webhooks: readonly DeclaredWebhook[] = []): void {
  if (pointers.length === 0) return
  const schemas = dataSchemas(state, webhooks)
  if (schemas.length === 0) return
  const resolveRef = resolverWithin(schemas, () => undefined)
  for (const segments of pointers) {
    if (schemas.some((schema) => isSchemaObject(schema) && declaresPlace(schema, segments, resolveRef))) continue
    processWarning.FSTVRS002(`/${segments.map(pointerSegment).join('/')}`)
  }
}
