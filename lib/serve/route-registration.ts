/**
 * Stage `lib/serve/`: serving requests in their version (registration, picking, hooks, converters).
 *
 * Serving HEAD routes in every version, from Fastify's `onRoute` hook. For each route registered inside
 * `versioned(...)`: apply the endpoint instructions (its path, methods and existence per version), then
 * register one Fastify route per distinct (path, methods) it has across versions; the user's own route
 * becomes the first of them. Each registered route carries the behaviour of every version it serves and
 * one route-level `preValidation` hook (plus `preSerialization` / `onSend` where some version converts
 * responses). A version with nothing to do passes the hooks without work. Two HEAD routes on one path in
 * different versions are told apart by a route constraint on the version (derived before routing, also with a
 * custom picker: ./pick-version.ts). What each group's route holds is prepared in ./route-preparation.ts.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { normaliseMethods, type HttpMethod } from '../core/http-methods'
import type { ServeOptions } from './serve-options'
import type { VersionSegments } from './version-picking'
import { routeTimeline, type RouteState } from '../routes/timeline'
import type { RoutingPicks } from './pick-version'
import { kVersionedRoute } from '../core/symbols'
import { attributesOf, type RouteSchema } from '../routes/version-plan'
import { readRouteForms } from '../routes/schema-forms'
import { readFullReplace } from '../routes/full-replace'
import { versionedScopeOf, type VersionedScope } from '../describe/versioned-scope'
import type { HeadRoute, RegisteredRoute, VersionerState } from '../routes/versioner-state'
import { applyTo, prepareGroup, type Group, type Prepared, type RouteContext } from './route-preparation'
import { createPreviewHooks } from './upgrade-preview'
import { createCaptureHooks } from './exchange-capture'

/**
 * The name of the route constraint that separates HEAD routes sharing a path. Fastify's router is shared by the
 * whole application, so each registration of the plugin (one per API) takes its own name: this one, then
 * `fastifyVersionerApiVersion2`, `…3`.
 */
export const VERSION_CONSTRAINT = 'fastifyVersionerApiVersion'

/** Route options as `onRoute` receives them. */
type ObservedRoute = RouteOptions & { routePath: string, path: string, prefix: string, onlyExistsInOlderVersions?: unknown, fullReplace?: unknown }

/**
 * The GET route just registered, whose HEAD twin (made by Fastify, with the same handler) comes next. A prefix's root
 * route (`routePath` `''`) with `prefixTrailingSlash` `'both'` has a second twin, at `/`: Fastify registers the
 * GET at the prefix with a slash from the same options (with the versioner's hooks, without `onRoute`), and then
 * its HEAD from a copy made before them.
 */
interface PendingGet {
  readonly instance: FastifyInstance
  readonly routePath: string
  readonly handler: unknown
  readonly slashTwin: boolean
  readonly apply: (options: Record<string, unknown>, keepUrl: boolean) => void
}

/** True when `route` is a HEAD twin of `get`: the twin at its path, or the twin at `/` of a prefix's root route. */
function isTwin (get: PendingGet | undefined, instance: FastifyInstance, route: ObservedRoute, methods: HttpMethod[]): get is PendingGet {
  return methods.length === 1 && methods[0] === 'HEAD' && get !== undefined && get.instance === instance && get.handler === route.handler &&
    (get.routePath === route.routePath || (get.slashTwin && route.routePath === '/'))
}

/** The URL of a registered route relative to the instance's prefix (as `instance.route` takes it). */
function relativeUrl (instance: FastifyInstance, prepared: Prepared): string {
  const url = prepared.registered.url
  const relative = url.startsWith(instance.prefix) ? url.slice(instance.prefix.length) : url
  return relative === '' ? '/' : relative
}

/** Creates the `onRoute` hook that turns HEAD routes into versioned ones. */
export function createRouteObserver (
  state: VersionerState, serveOptions: ServeOptions, segments: VersionSegments, routingPicks: RoutingPicks | undefined
): (this: FastifyInstance, route: ObservedRoute) => void {
  const preview = serveOptions.upgradePreview
  const previewHooks = preview === undefined ? undefined : createPreviewHooks(state, serveOptions, preview)
  const capture = serveOptions.captureExchanges
  const captureHooks = capture === undefined ? undefined : createCaptureHooks(serveOptions, capture)
  const context: RouteContext = { state, serveOptions, segments, routingPicks, previewHooks, captureHooks }
  let lastGet: PendingGet | undefined
  return function versionerOnRoute (this: FastifyInstance, route: ObservedRoute): void {
    // A route the versioner registered (a group's, or its HEAD twin) is served at its registered URL.
    const copied = (route.config as Record<symbol, RegisteredRoute | undefined> | undefined)?.[kVersionedRoute]
    if (copied !== undefined) {
      route.url = copied.url
      return
    }
    const scope = versionedScopeOf(this)
    if (scope === undefined) return
    const methods = normaliseMethods(route.method)
    if (isTwin(lastGet, this, route, methods)) {
      // The twin at `/` keeps its URL, as its GET does (registered from the same options after `onRoute`).
      const slash = lastGet.routePath !== route.routePath
      lastGet.apply(route as unknown as Record<string, unknown>, slash)
      lastGet = lastGet.slashTwin && !slash ? lastGet : undefined
      return
    }
    lastGet = undefined
    // An error here is the application's description of its versions: it surfaces from app.ready().
    if (state.startupError !== undefined) return
    try {
      lastGet = versionRoute(context, this, route, scope, methods)
    } catch (error) {
      state.startupError = error as Error
      // Keep the route out of the way (no request matches this version), so that the error above is the one reported.
      route.constraints = { ...route.constraints, [state.constraint]: '\u0000unusable' }
    }
  }
}

/** The HEAD route a route registered inside `versioned(...)` stands for, with its timeline across versions. */
function headRouteOf (context: RouteContext, instance: FastifyInstance, route: ObservedRoute, scope: VersionedScope, methods: HttpMethod[]): HeadRoute {
  const { state } = context
  state.generation.addSharedSchemas(Object.values(instance.getSchemas()) as TSchema[])
  const schema = (route.schema ?? {}) as RouteSchema
  const timeline = routeTimeline({
    path: route.url,
    methods,
    onlyExistsInOlderVersions: route.onlyExistsInOlderVersions === true,
    attributes: attributesOf(schema),
    operationId: typeof schema.operationId === 'string' ? schema.operationId : undefined,
    prefix: scope.prefix,
    mayExistNowhere: state.options.retiring
  }, state.log)
  const display = `${methods.join(',')} ${route.url}`
  const forms = readRouteForms(schema, timeline.map((at) => at.attributes.response), display)
  const fullReplace = readFullReplace(route.fullReplace, methods, display)
  return { display, path: route.url, methods, schema, forms, timeline, scope, fullReplace, registered: [] }
}

/** The levels of a HEAD route grouped by (path, methods): one Fastify route per group. */
function groupsOf (head: HeadRoute): Group[] {
  const groups = new Map<string, Group>()
  let last: { state: RouteState, group: Group } | undefined
  for (let level = 1; level < head.timeline.length; level++) {
    const at = head.timeline[level]
    if (!at.exists) continue
    // Most levels keep the state of the level before (the same object): its group.
    if (last?.state === at) {
      last.group.levels.push(level)
      continue
    }
    const key = `${at.methods.join(',')} ${at.path}`
    const group = groups.get(key) ?? { path: at.path, methods: at.methods, levels: [] }
    group.levels.push(level)
    groups.set(key, group)
    last = { state: at, group }
  }
  return groups.size === 0 ? [{ path: head.path, methods: head.methods, levels: [] }] : [...groups.values()]
}

/**
 * Versions one route: its first group takes over the user's route (and its HEAD twin, returned as pending), the
 * other groups are registered as routes of their own.
 */
function versionRoute (context: RouteContext, instance: FastifyInstance, route: ObservedRoute, scope: VersionedScope, methods: HttpMethod[]): PendingGet | undefined {
  const { state, serveOptions } = context
  const head = headRouteOf(context, instance, route, scope, methods)
  state.headRoutes.push(head)
  const { url: _url, path: _path, routePath: _routePath, prefix: _prefix, method: _method, ...rest } = route
  // Read before the first group's options are applied to the user's route (they replace these).
  const routeErrorHandler = route.errorHandler
  const userFormatter = route.schemaErrorFormatter
  const baseConstraints = route.constraints
  let pending: PendingGet | undefined
  groupsOf(head).forEach((group, index) => {
    const prepared = prepareGroup(context, head, group, { formatter: userFormatter, constraints: baseConstraints })
    head.registered.push(prepared.registered)
    const method = group.methods.length === 1 ? group.methods[0] : [...group.methods]
    if (index > 0) {
      const options: Record<string, unknown> = { ...rest, method, prefixTrailingSlash: 'no-slash', url: relativeUrl(instance, prepared) }
      applyTo(options, prepared, routeErrorHandler, serveOptions)
      instance.route(options as unknown as RouteOptions)
      return
    }
    const target = route as unknown as Record<string, unknown>
    target.url = prepared.registered.url
    target.method = method
    applyTo(target, prepared, routeErrorHandler, serveOptions)
    if (group.methods.includes('GET') && route.exposeHeadRoute !== false) {
      pending = {
        instance,
        routePath: route.routePath,
        handler: route.handler,
        slashTwin: route.routePath === '' && route.prefix !== '' && (route.prefixTrailingSlash ?? 'both') === 'both',
        apply: (twin, keepUrl) => {
          if (!keepUrl) twin.url = prepared.registered.url
          applyTo(twin, prepared, routeErrorHandler, serveOptions)
        }
      }
    }
  })
  return pending
}
