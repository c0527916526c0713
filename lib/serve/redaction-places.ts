/**
 * The redaction pointers of `captureExchanges`, checked once the routes are known: a pointer no schema declares is
 * likely misspelt (its value would leak into every exchange), warned about with `FSTVRS002`.
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

/** The schemas of the data pointers apply to: every version of every versioned route's parts, and every webhook's body. */
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
 * Warns (`FSTVRS002`) about each redaction pointer that no schema of the versioned routes nor of `webhooks` declares.
 * @example `warnUndeclaredPointers(state, [['card', 'number']])`
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
