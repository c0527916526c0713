/**
 * Stage `lib/serve/`: serving requests in their version (registration, picking, hooks, converters).
 *
 * Serving HEAD routes in every version, from Fastify's `onRoute` hook: each route inside `versioned(...)` becomes one
 * Fastify route per distinct (path, methods) it has across versions (the user's own route the first), carrying every
 * version's behaviour and the versioner's route hooks; HEAD routes sharing a path are told apart by a route constraint.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { normaliseMethods, type HttpMethod } from '../core/http-methods'
import type { ServeOptions } from './serve-options'
import { routerOptionsOf, type VersionSegments } from './version-picking'
import { readOnlyExistsInOlderVersions, routeTimeline, type RouteState } from '../routes/timeline'
import type { RoutingPicks } from './pick-version'
import { kGivenHooks, kVersionedRoute, kVersionedScope } from '../core/symbols'
import { ANOTHER_COPY, hasKeyOfAnotherCopy, inheritedSymbols } from '../core/other-copies'
import { InvalidOptionError } from '../core/errors'
import { attributesOf, type RouteSchema } from '../routes/version-plan'
import { readRouteForms } from '../routes/schema-forms'
import { readFullReplace } from '../routes/full-replace'
import { versionedScopeOf, type VersionedScope } from '../describe/versioned-scope'
import type { HeadRoute, RegisteredRoute, VersionerState } from '../routes/versioner-state'
import { applyTo, prepareGroup, type Group, type Prepared, type RouteContext } from './route-preparation'
import { createPreviewHooks } from './upgrade-preview'
import { createCaptureHooks } from './exchange-capture'

/** The route constraint separating HEAD routes that share a path: one name per registration (the router is shared). */
export const VERSION_CONSTRAINT = 'fastifyVersionerApiVersion'

/** Route options as `onRoute` receives them. */
type ObservedRoute = RouteOptions & { routePath: string, path: string, prefix: string, onlyExistsInOlderVersions?: unknown, fullReplace?: unknown }

/**
 * The GET route just registered, whose HEAD twin Fastify makes next (from the options as the route was declared: a
 * plugin's `onRoute` hook before this one, @fastify/websocket's, may have replaced the GET's handler since). The root
 * route of a prefixed context (`get('/')`) has two: Fastify also registers the GET at the prefix with a trailing
 * slash, with the same options and no `onRoute`, and makes that one's twin too.
 */
interface PendingGet {
  readonly instance: FastifyInstance
  /** The route paths of the twins still to come. */
  readonly routePaths: readonly string[]
  readonly apply: (options: Record<string, unknown>) => void
}

/** Fastify's route hooks, which other plugins' `onRoute` hooks add to. */
const ROUTE_HOOKS = ['onRequest', 'preParsing', 'preValidation', 'preHandler', 'preSerialization', 'onSend', 'onResponse', 'onError', 'onTimeout', 'onRequestAbort'] as const

/**
 * The hook lists and handler a group's route was registered with, by the registration of the plugin that registered
 * it; `slash` for the copy at the trailing slash of a prefix's root route, served at its group's URL with a slash.
 */
interface GivenHooks {
  readonly owner: VersionerState
  readonly hooks: ReadonlyMap<string, readonly unknown[]>
  readonly handler: unknown
  readonly slash: boolean
}

/** Gives route options their own copy of each hook list and returns the lists, for {@link restoreHooks}. */
function ownHooks (options: Record<string, unknown>): Map<string, readonly unknown[]> {
  const hooks = new Map<string, readonly unknown[]>()
  for (const name of ROUTE_HOOKS) {
    const value = options[name]
    if (value === undefined) continue
    const list = Array.isArray(value) ? [...value as unknown[]] : [value]
    hooks.set(name, list)
    options[name] = [...list]
  }
  return hooks
}

/**
 * Gives a group's route the hooks it was registered with again: the `onRoute` hooks of plugins registered before the
 * versioner added theirs to the user's route, which the group's route copies, and added them again to it.
 */
function restoreHooks (route: Record<string, unknown>, given: GivenHooks['hooks']): void {
  for (const name of ROUTE_HOOKS) {
    const list = given.get(name)
    if (list === undefined) delete route[name]
    else route[name] = [...list]
  }
}

/** A URL relative to the instance's prefix (as `instance.route` takes it). */
function relativeUrl (instance: FastifyInstance, url: string): string {
  const relative = url.startsWith(instance.prefix) ? url.slice(instance.prefix.length) : url
  return relative === '' ? '/' : relative
}

/** The plugin whose `onRoute` hook adds a `preSerialization` hook checking bodies against the route's response schemas. */
const RESPONSE_VALIDATION = '@fastify/response-validation'

/** Creates the `onRoute` hook that turns HEAD routes into versioned ones, when the plugin is registered in `app`. */
export function createRouteObserver (
  state: VersionerState, serveOptions: ServeOptions, segments: VersionSegments, routingPicks: RoutingPicks | undefined, app: FastifyInstance
): (this: FastifyInstance, route: ObservedRoute) => void {
  const routerOptions = routerOptionsOf(app)
  // Registered before the plugin, @fastify/response-validation's hook checks what handlers return.
  const validatedBefore = app.hasPlugin(RESPONSE_VALIDATION)
  const preview = serveOptions.upgradePreview
  const previewHooks = preview === undefined ? undefined : createPreviewHooks(state, serveOptions, preview)
  const capture = serveOptions.captureExchanges
  const captureHooks = capture === undefined ? undefined : createCaptureHooks(serveOptions, capture)
  const context: RouteContext = { state, serveOptions, segments, routingPicks, previewHooks, captureHooks, routerOptions, validatedBefore }
  let lastGet: PendingGet | undefined
  // Each route kept out of the way has a constraint value of its own: two alike would be duplicates to Fastify.
  let unusable = 0
  return function versionerOnRoute (this: FastifyInstance, route: ObservedRoute): void {
    // A route the versioner registered (a group's, or its HEAD twin) is served at its registered URL.
    const copied = (route.config as Record<symbol, RegisteredRoute | undefined> | undefined)?.[kVersionedRoute]
    if (copied !== undefined) {
      const given = (route as unknown as Record<symbol, GivenHooks | undefined>)[kGivenHooks]
      route.url = given?.owner === state && given.slash ? `${copied.url}/` : copied.url
      if (given?.owner === state) {
        restoreHooks(route as unknown as Record<string, unknown>, given.hooks)
        // Wrapped already on the user's route by those plugins (@fastify/otel's handler span): once, not twice.
        route.handler = given.handler as typeof route.handler
      }
      return
    }
    const scope = versionedScopeOf(this)
    if (scope === undefined) {
      // Another copy's versioned(...) marks its context with its own key: its routes would be served unversioned.
      if (state.startupError === undefined && hasKeyOfAnotherCopy(inheritedSymbols(this), kVersionedScope)) {
        state.startupError = new InvalidOptionError(`Route ${normaliseMethods(route.method).join(', ')} ${route.url} is registered inside ` +
          `versioned(...) ${ANOTHER_COPY}.`)
      }
      // Fastify's HEAD twin of a GET route is not listed again.
      const display = `${normaliseMethods(route.method).join(',')} ${route.url}`
      const twin = display === `HEAD ${route.url}` && state.unversionedRoutes.at(-1)?.display === `GET ${route.url}`
      if (!state.ready && !twin && typeof route.schema === 'object' && route.schema !== null) {
        state.unversionedRoutes.push({ display, schema: route.schema as Record<string, unknown> })
      }
      return
    }
    const methods = normaliseMethods(route.method)
    if (methods.length === 1 && methods[0] === 'HEAD' && lastGet !== undefined && lastGet.instance === this &&
      lastGet.routePaths.includes(route.routePath)) {
      lastGet.apply(route as unknown as Record<string, unknown>)
      const index = lastGet.routePaths.indexOf(route.routePath)
      const next = lastGet.routePaths.filter((_path, at) => at !== index)
      lastGet = next.length === 0 ? undefined : { ...lastGet, routePaths: next }
      return
    }
    lastGet = undefined
    // An error here is the application's description of its versions: it surfaces from app.ready(). The routes after
    // it are kept out of the way too (no request matches this version), so that Fastify's duplicate route error (two
    // HEAD routes at one path, told apart only by versions) does not take its place.
    if (state.startupError === undefined) {
      try {
        lastGet = versionRoute(context, this, route, scope, methods)
        return
      } catch (error) {
        state.startupError = error as Error
      }
    }
    route.constraints = { ...route.constraints, [state.constraint]: `\u0000unusable ${unusable++}` }
  }
}

/**
 * Refuses `@fastify/response-validation` registered after the plugin (or inside `versioned(...)`) on a route some
 * version converts the success of: its hook runs after the versioner's and checks each older version's converted body
 * against the newest version's schemas, a 500 for every older client (decision 0319).
 */
function refuseValidationAfter (route: string): never {
  throw new InvalidOptionError(`${RESPONSE_VALIDATION} is registered after fastifyVersioner (or inside versioned(...)): on ${route} it would ` +
    'check each older version\'s converted response against the newest version\'s schemas, a 500 for every older client. Register it ' +
    'before fastifyVersioner (it then checks what handlers return against HEAD\'s schemas), or give the route responseValidation: false.')
}

/** The HEAD route a route registered inside `versioned(...)` stands for, with its timeline across versions. */
function headRouteOf (context: RouteContext, instance: FastifyInstance, route: ObservedRoute, scope: VersionedScope, methods: HttpMethod[]): HeadRoute {
  const { state } = context
  state.generation.addSharedSchemas(Object.values(instance.getSchemas()) as TSchema[])
  const schema = (route.schema ?? {}) as RouteSchema
  const display = `${methods.join(',')} ${route.url}`
  const timeline = routeTimeline({
    path: route.url,
    methods,
    onlyExistsInOlderVersions: readOnlyExistsInOlderVersions(route.onlyExistsInOlderVersions, display),
    attributes: attributesOf(schema),
    operationId: typeof schema.operationId === 'string' ? schema.operationId : undefined,
    prefix: scope.prefix,
    mayExistNowhere: state.options.retiring
  }, state.log)
  const forms = readRouteForms(schema, timeline.map((at) => at.attributes.response), display)
  const fullReplace = readFullReplace(route.fullReplace, methods, display)
  return { display, path: route.url, methods, schema, forms, timeline, scope, fullReplace, attachValidation: route.attachValidation === true, validation: { context: instance, compiler: route.validatorCompiler }, registered: [] }
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
  // @fastify/response-validation registered after the plugin adds its hook after the versioner's success hook.
  const validatedAfter = !context.validatedBefore && head.schema.response !== undefined &&
    (route as { responseValidation?: unknown }).responseValidation !== false && instance.hasPlugin(RESPONSE_VALIDATION)
  const { url: _url, path: _path, routePath: _routePath, prefix: _prefix, method: _method, ...rest } = route
  // Read before the first group's options are applied to the user's route (they replace these).
  const user = { errorHandler: route.errorHandler, formatter: route.schemaErrorFormatter, constraints: route.constraints }
  let pending: PendingGet | undefined
  // A prefix's root route (`get('/')`) Fastify also serves at the prefix with a slash, from the same options.
  const slashToo = route.routePath === '' && route.prefix !== '' && (route.prefixTrailingSlash ?? 'both') === 'both'
  // Registers a copy of the route for a group (`slash`: at its URL with a slash), with hooks of its own.
  const registerCopy = (prepared: Prepared, options: Record<string | symbol, unknown>, slash: boolean): void => {
    applyTo(options, prepared)
    options[kGivenHooks] = { owner: state, hooks: ownHooks(options), handler: options.handler, slash } satisfies GivenHooks
    instance.route(options as unknown as RouteOptions)
  }
  groupsOf(head).forEach((group, index) => {
    const prepared = prepareGroup(context, head, group, user)
    if (validatedAfter && prepared.hooks.preSerialization !== undefined) refuseValidationAfter(head.display)
    head.registered.push(prepared.registered)
    const method = group.methods.length === 1 ? group.methods[0] : [...group.methods]
    if (index > 0) {
      // Given the group's path, as the user's route is given its own: Fastify keeps it as `routeOptions.url` (metrics
      // label routes with it), and the onRoute hook above moves the route to its registered URL (`/:version` segment).
      registerCopy(prepared, { ...rest, method, prefixTrailingSlash: 'no-slash', url: relativeUrl(instance, group.path) }, false)
      return
    }
    // With path versions Fastify's copy at the slash is outside the version segment (it names no version): the route
    // answers at its slash inside the segment too, unless the router ignores trailing slashes.
    // (A prefix written with its slash, `/orders/`, already ends the route's URL with it.)
    // Given the route's path (the prefix's `''`, or `/`), which Fastify keeps as its `routeOptions.url`, as its copy's.
    // Without a prefix, the root route (`get('/')`) is served at the segment (`/2001-01-01`) and at its slash too.
    const bareRoot = route.prefix === '' && route.routePath === '/'
    if ((slashToo || bareRoot) && serveOptions.location === 'path' && context.routerOptions.ignoreTrailingSlash !== true && !route.prefix.endsWith('/')) {
      registerCopy(prepared, { ...rest, method, url: route.routePath }, true)
    }
    const target = route as unknown as Record<string, unknown>
    target.url = prepared.registered.url
    target.method = method
    applyTo(target, prepared)
    // Fastify makes the twin unless the route or the application (`exposeHeadRoutes`) says otherwise.
    const exposed = route.exposeHeadRoute ?? (instance.initialConfig as { exposeHeadRoutes?: boolean }).exposeHeadRoutes
    if (group.methods.includes('GET') && exposed !== false) {
      // Read now: Fastify changes these options when it registers the GET with a trailing slash.
      const routePath = route.routePath
      pending = {
        instance,
        // Under a prefix written with its slash (`/orders/`), Fastify makes the second twin at the first one's path.
        routePaths: slashToo ? ['', route.prefix.endsWith('/') ? '' : '/'] : [routePath],
        apply: (twin) => {
          // The trailing-slash twin stays where Fastify puts it, beside the GET it was made for.
          if (twin.routePath === routePath) twin.url = prepared.registered.url
          applyTo(twin, prepared)
        }
      }
    }
  })
  return pending
}
