/**
 * The routes of every version, as served (`app.versioner.routes`), built when the application is ready.
 * @module
 */
import type { HttpMethod } from '../core/http-methods'
import type { RouteAttributes } from './timeline'
import { routeSchemaIn, type RouteSchema } from './version-plan'
import { prepareSchema } from './prepared-schemas'
import type { VersionerState } from './versioner-state'

/**
 * One route as a version serves it.
 * @example
 * ```ts
 * declare const app: FastifyInstance
 * await app.ready()
 * const routes: readonly VersionedRouteInfo[] = app.versioner.routes.get('2000-01-01') ?? []
 * for (const route of routes) console.log(route.methods.join(','), route.path, 'serves HEAD', route.headPath)
 * ```
 */
export interface VersionedRouteInfo {
  readonly methods: readonly HttpMethod[]
  /** The path in this version (prefixes included, without the version segment). */
  readonly path: string
  /** The URL registered with Fastify (with `/:<parameter>` for path versions). */
  readonly url: string
  /** The HEAD route's path. */
  readonly headPath: string
  /** This version's schema, as its document shows it: its request and response forms, attributes, HEAD's other fields. */
  readonly schema: RouteSchema
  /** OpenAPI attributes in this version (summary, tags, deprecated…). */
  readonly attributes: RouteAttributes
}

/** The routes each version serves, by version value (newest version first). */
export function buildRouteTable (state: VersionerState): Map<string, VersionedRouteInfo[]> {
  const table = new Map<string, VersionedRouteInfo[]>(state.options.versions.versionValues.map((version) => [version, []]))
  for (const head of state.headRoutes) {
    for (const registered of head.registered) {
      for (const behaviour of registered.behaviours.values()) {
        // As the version's document has it (success responses under the version's status, its attributes).
        const schema = routeSchemaIn(head, behaviour, state.generation, (form) => prepareSchema(form, state.generation, 'fastify'))
        table.get(behaviour.version)?.push({
          methods: registered.methods,
          path: behaviour.state.path,
          url: registered.url,
          headPath: head.path,
          schema,
          attributes: behaviour.state.attributes
        })
      }
    }
  }
  return table
}
