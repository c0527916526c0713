/**
 * The unversioned document's schemas of routes registered outside `versioned(...)` (decision 0309): `@fastify/swagger`
 * drops every keyword beside a `$ref`, so such keywords are written there as every version's document writes them.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { documentedRef, holdsRefBeside } from '../routes/prepared-schemas'
import { readRouteForms, rebuildBody, rebuildResponses, type RouteForms } from '../routes/schema-forms'
import type { RouteSchema } from '../routes/version-plan'
import { mapSchemaDeep } from '../core/subschemas'
import { parameterObjects } from './parameter-rules'

/**
 * The schema the unversioned document shows for an unversioned route: each part holding a `$ref` with keywords beside
 * it written as the versions' documents write it (`{ maxLength: 20, allOf: [{ $ref }] }`, a querystring, headers or
 * params object as one object, `resolve` reading the shared schema a part names); undefined where no part holds one,
 * or where the plugin cannot read the schema, so that `@fastify/swagger` documents the route as it does alone.
 * @example
 * ```ts
 * const schema = unversionedSchema(route.schema, 'POST /auth/token', (ref) => generation.resolveAnyId(ref))
 * ```
 */
export function unversionedSchema (schema: RouteSchema | undefined, display: string, resolve: (ref: string) => TSchema | undefined): RouteSchema | undefined {
  if (schema === undefined) return undefined
  let forms: RouteForms
  try {
    forms = readRouteForms(schema, [schema.response], display)
  } catch {
    return undefined
  }
  const { parts, body, responses } = forms
  if (![...Object.values(parts), ...Object.values(body.schemas), ...Object.values(responses[0].schemas)].some(holdsRefBeside)) return undefined
  const written = (head: TSchema): TSchema => holdsRefBeside(head) ? mapSchemaDeep(head, documentedRef) : head
  const objects: RouteSchema = {}
  for (const [part, head] of Object.entries(parts)) {
    // The query string given as `query` stays under that key.
    if (holdsRefBeside(head)) objects[part === 'querystring' && schema.querystring === undefined ? 'query' : part] = written(head)
  }
  const result: RouteSchema = { ...schema, ...parameterObjects(objects, resolve) }
  if (schema.body !== undefined) result.body = rebuildBody(body, (_slot, head) => written(head))
  if (schema.response !== undefined) result.response = rebuildResponses(responses[0], (_slot, head) => written(head))
  return result
}
