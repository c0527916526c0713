/**
 * The start-up check that every `$ref` of a versioned route or webhook names its schema's `$id` in full: the versioner
 * finds a `$ref`'s schema by its exact `$id`, and gives a schema it rebuilds another `$id`, against which a `$ref`
 * relative to the old one no longer resolves.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { VersionerStructureError } from '../core/errors'
import { isSchemaObject, type SchemaObject } from '../core/json-schema'
import { subschemasOf } from '../core/subschemas'
import { routeSchemas } from './version-plan'
import type { VersionerState } from './versioner-state'
import type { DeclaredWebhook } from './webhooks'

/** `reference` resolved against the absolute base URI `base`, as Ajv resolves it; undefined without one, or for no URI. */
function resolvedAgainst (reference: string, base: string | undefined): string | undefined {
  try {
    return new URL(reference, base).href
  } catch {
    return undefined
  }
}

/**
 * Throws `FST_VERSIONER_STRUCTURE` naming the first `$ref` of a versioned route's (or webhook's) schemas, or of the
 * schemas they reach, that names no schema as written but one relative to its schema's absolute
 * `$id` (`{ $ref: 'address.json' }` inside `https://example.com/user.json`).
 * @example
 * ```ts
 * checkRelativeReferences(state, webhooks.list()) // throws: … write the $ref in full: 'https://example.com/address.json'
 * ```
 */
export function checkRelativeReferences (state: VersionerState, webhooks: readonly DeclaredWebhook[] = []): void {
  const resolve = (ref: string): TSchema | undefined => state.generation.resolveAnyId(ref)
  const seen = new Set<object>()
  const visit = (node: TSchema, base: string | undefined, where: string): void => {
    if (!isSchemaObject(node) || seen.has(node)) return
    seen.add(node)
    const { $id, $ref } = node as SchemaObject
    const here = typeof $id === 'string' ? resolvedAgainst($id, base) : base
    if (typeof $ref === 'string' && !$ref.startsWith('#')) {
      const target = resolve($ref)
      if (target !== undefined) visit(target, undefined, where)
      const full = target === undefined ? resolvedAgainst($ref, here) : undefined
      if (full !== undefined && full !== $ref && resolve(full) !== undefined) {
        throw new VersionerStructureError(`${where}: the $ref '${$ref}' is relative to the $id '${String(here)}' of the schema holding it. ` +
          'fastify-versioner finds the schema a $ref names by its exact $id, and gives a schema an older version changes another $id, ' +
          `so that version would miss the schema or not resolve it: write the $ref in full, '${full}'.`)
      }
    }
    for (const sub of subschemasOf(node)) visit(sub, here, where)
  }
  for (const route of state.headRoutes) for (const schema of routeSchemas(route)) visit(schema, undefined, route.display)
  for (const webhook of webhooks) visit(webhook.body, undefined, `The webhook '${webhook.name}'`)
}
