/**
 * Serving HEAD routes in every version, from Fastify's `onRoute` hook. For each route registered inside
 * `versioned(...)`: apply the endpoint instructions (its path, methods and existence per version), then
 * register one Fastify route per distinct (path, methods) it has across versions; the user's own route
 * becomes the first of them. Each registered route carries the behaviour of every version it serves and
 * one route-level `preValidation` hook (plus `preSerialization` / `onSend` where some version converts
 * responses). Routes that do nothing in a version cost nothing there. Two HEAD routes on one path in
 * different versions are told apart by a route constraint on the version.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { RouterGenerationError } from '../core/errors'
import { normaliseMethods, type HttpMethod } from '../core/http-methods'
import type { ResolvedOptions } from '../options'
import { createMigrationErrorHandler, createRequestHook } from './request-hook'
import { createSendHook, createSuccessHook } from './response-hooks'
import { lifecycleLink } from './lifecycle'
import { routeTimeline } from '../routes/timeline'
import { createPassthroughErrorHandler, createPassthroughHandler, passthroughPossible } from './passthrough'
import { kPassthroughRoute, kRegisteredUrl, kVersionedRoute } from '../core/symbols'
import {
  attributesOf, buildBehaviour, isSuccessKey, prepareForFastify, responseMapAt, type RouteSchema, type VersionBehaviour
} from '../routes/version-plan'
import { versionedScopeOf, type VersionedScope } from '../describe/versioned-scope'
import type { HeadRoute, RegisteredRoute, VersionerState } from '../versioner-state'

/** The name of the route constraint that separates HEAD routes sharing a path. */
export const VERSION_CONSTRAINT = 'fastifyVersionerApiVersion'

/** Route options as `onRoute` receives them. */
type ObservedRoute = RouteOptions & { routePath: string, path: string, prefix: string, onlyExistsInOlderVersions?: unknown }

type Hook = (...args: never[]) => unknown

function toList<T> (value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? [...value] : [value]
}

/** The URL a version's path is registered at: with path versions, `/:version` follows the versioned prefix. */
function registeredUrl (state: VersionerState, scope: VersionedScope, path: string): string {
  if (state.options.location !== 'path') return path
  const segment = `/:${state.options.parameterName}`
  const prefix = scope.prefix.replace(/\/$/, '')
  const rest = path.startsWith(prefix) ? path.slice(prefix.length) : path
  return `${prefix}${segment}${rest === '/' ? '' : rest}`
}

interface Group {
  readonly path: string
  readonly methods: readonly HttpMethod[]
  readonly levels: number[]
}

interface Prepared {
  readonly registered: RegisteredRoute
  readonly schema: RouteSchema
  readonly hooks: { preValidation: Hook, preSerialization?: Hook, onSend?: Hook }
  readonly constraints: Record<string, unknown> | undefined
  /** The versions served without hooks, by a second route (see ./passthrough.ts), with its constraints. */
  readonly passthrough: { readonly versions: readonly string[], readonly constraints: Record<string, unknown> } | undefined
}

/** Adds the versioner's hooks, schema, config, error handler and constraints to route options (in place). */
function applyTo (options: Record<string, unknown>, prepared: Prepared, routeErrorHandler: unknown, versionerOptions: ResolvedOptions): void {
  options.schema = prepared.schema
  options.config = { ...(options.config as object | undefined), [kVersionedRoute]: prepared.registered, [kRegisteredUrl]: prepared.registered.url }
  options.preValidation = [...toList(options.preValidation as Hook[] | Hook | undefined), prepared.hooks.preValidation]
  if (prepared.hooks.preSerialization !== undefined) {
    options.preSerialization = [...toList(options.preSerialization as Hook[] | Hook | undefined), prepared.hooks.preSerialization]
  }
  if (prepared.hooks.onSend !== undefined) options.onSend = [prepared.hooks.onSend, ...toList(options.onSend as Hook[] | Hook | undefined)]
  options.errorHandler = createMigrationErrorHandler({
    behaviours: prepared.registered.behaviours,
    scope: prepared.registered.head.scope,
    display: prepared.registered.head.display,
    head: prepared.registered.head
  }, routeErrorHandler as never, versionerOptions)
  if (prepared.constraints !== undefined) options.constraints = prepared.constraints
}

/** The URL of a registered route relative to the instance's prefix (as `instance.route` takes it). */
function relativeUrl (instance: FastifyInstance, prepared: Prepared): string {
  const url = prepared.registered.url
  const relative = url.startsWith(instance.prefix) ? url.slice(instance.prefix.length) : url
  return relative === '' ? '/' : relative
}

/** Creates the `onRoute` hook that turns HEAD routes into versioned ones. */
export function createRouteObserver (state: VersionerState): (this: FastifyInstance, route: ObservedRoute) => void {
  /** The GET route just registered, whose HEAD twin (made by Fastify, with the same handler) comes next. */
  let lastGet: { instance: FastifyInstance, routePath: string, handler: unknown, apply: (options: Record<string, unknown>) => void } | undefined

  const prepare = (head: HeadRoute, group: Group, scope: VersionedScope, userFormatter: unknown, baseConstraints: unknown): Prepared => {
    const url = registeredUrl(state, scope, group.path)
    const newest = group.levels.length > 0 ? Math.min(...group.levels) : 0
    const headResponses = responseMapAt(head, newest)
    const nativeResponse: Record<string, TSchema> = {}
    for (const [key, schema] of Object.entries(headResponses)) {
      nativeResponse[key] = isSuccessKey(key) ? prepareForFastify(state.generation.formAt(schema, newest), state.generation) : schema
    }
    const behaviours = new Map<string, VersionBehaviour>()
    for (const level of group.levels) {
      const version = state.versionAt(level)
      const described = state.options.versions.get(version)
      const links = [described === undefined ? undefined : lifecycleLink(described), state.successorLinks.get(version)].filter((item) => item !== undefined)
      const link = links.length === 0 ? undefined : links.join(', ')
      behaviours.set(version, buildBehaviour(head, level, version, nativeResponse, state.generation, state.planner, link))
    }
    const display = `${group.methods.join(',')} ${url}`
    const registered: RegisteredRoute = { head, url, methods: group.methods, behaviours, nativeResponse, display }
    const all = [...behaviours.values()]
    const hooks: Prepared['hooks'] = {
      preValidation: createRequestHook({ behaviours, scope, display: head.display, head }, state.options, userFormatter as never, state.storesVersion) as Hook
    }
    if (all.some((behaviour) => behaviour.successWork)) hooks.preSerialization = createSuccessHook(head.display) as Hook
    if (all.some((behaviour) => behaviour.successWork || behaviour.errorWork || behaviour.rawSteps.length > 0 || behaviour.link !== undefined)) {
      hooks.onSend = createSendHook(head.display) as Hook
    }
    const schema: RouteSchema = { ...head.schema }
    if (Object.keys(nativeResponse).length > 0) schema.response = nativeResponse
    const versions = [...behaviours.keys()]
    const passthroughVersions = passthroughPossible(state.options, state.storesVersion)
      // Versions that may be gone (afterSunset: 'gone') need the request hook's check.
      ? all.filter((behaviour) => behaviour.passthrough && state.options.versions.get(behaviour.version)?.afterSunset !== 'gone').map((behaviour) => behaviour.version)
      : []
    const hooked = versions.filter((version) => !passthroughVersions.includes(version))
    const constraints = nodeConstraints(group, url, versions, hooked, baseConstraints, head)
    const passthrough = passthroughVersions.length === 0
      ? undefined
      : { versions: passthroughVersions, constraints: { ...(baseConstraints as Record<string, unknown> | undefined), [VERSION_CONSTRAINT]: passthroughVersions.join('\n') } }
    return { registered, schema, hooks, constraints, passthrough }
  }

  /**
   * Claims the route nodes of a group for its versions; when another HEAD route already serves a node, constrains
   * the route to the versions it serves with hooks (`hooked`: the others have their passthrough route).
   */
  const nodeConstraints = (
    group: Group, url: string, versions: string[], hooked: string[], base: unknown, head: HeadRoute
  ): Record<string, unknown> | undefined => {
    let shared = false
    for (const method of group.methods) {
      const key = `${method} ${url}`
      const served = state.nodes.get(key)
      if (served === undefined) {
        state.nodes.set(key, new Set(versions))
        continue
      }
      shared = true
      const overlap = versions.filter((version) => served.has(version))
      if (overlap.length > 0) {
        throw new RouterGenerationError(`Two routes answer [${method}] ${url} in version(s) ${overlap.join(', ')}: ${head.display} and another ` +
          'HEAD route. Check the endpoint instructions: a route restored with endpoint(...).existed, or renamed with .had({ path }), ' +
          'must not land on a path and method another route still serves in that version; to act on only one of two routes sharing a ' +
          'path and methods, name it with endpoint(path, methods, { operationId }).')
      }
      for (const version of versions) served.add(version)
    }
    if (!shared) return undefined
    if (state.options.asyncPicking) {
      throw new RouterGenerationError(`[${group.methods.join(', ')}] ${url} is served by two HEAD routes in different versions (${head.display} and ` +
        'another one). Fastify then picks the route before the request exists, from the version header or path segment (or a string ' +
        'apiVersionDefaultValue): a function apiVersionDefaultValue or a custom versionPicker cannot choose between them. Give the routes ' +
        'different paths, or pick versions from the header or path only.')
    }
    // A route serving no version at a shared node still needs a value no request can match.
    const value = hooked.length > 0 ? hooked.join('\n') : '\u0000none'
    return { ...(base as Record<string, unknown> | undefined), [VERSION_CONSTRAINT]: value }
  }

  return function versionerOnRoute (this: FastifyInstance, route: ObservedRoute): void {
    const config = route.config as Record<symbol, unknown> | undefined
    const copyUrl = config?.[kRegisteredUrl]
    if (typeof copyUrl === 'string') {
      route.url = copyUrl
      return
    }
    const scope = versionedScopeOf(this)
    if (scope === undefined) return
    const methods = normaliseMethods(route.method)
    if (methods.length === 1 && methods[0] === 'HEAD' && lastGet !== undefined && lastGet.instance === this &&
      lastGet.routePath === route.routePath && lastGet.handler === route.handler) {
      lastGet.apply(route as unknown as Record<string, unknown>)
      lastGet = undefined
      return
    }
    lastGet = undefined
    // An error here is the application's description of its versions: it surfaces from app.ready().
    if (state.startupError !== undefined) return
    try {
      versionRoute.call(this, route, scope, methods)
    } catch (error) {
      state.startupError = error as Error
      // Keep the route out of the way (no request matches this version), so that the error above is the one reported.
      route.constraints = { ...route.constraints, [VERSION_CONSTRAINT]: '\u0000unusable' }
    }
  }

  function versionRoute (this: FastifyInstance, route: ObservedRoute, scope: VersionedScope, methods: HttpMethod[]): void {
    state.generation.addSharedSchemas(Object.values(this.getSchemas()) as TSchema[])
    const schema = (route.schema ?? {}) as RouteSchema
    const timeline = routeTimeline({
      path: route.url,
      methods,
      onlyExistsInOlderVersions: route.onlyExistsInOlderVersions === true,
      attributes: attributesOf(schema),
      operationId: typeof schema.operationId === 'string' ? schema.operationId : undefined
    }, state.steps, state.log)
    const head: HeadRoute = {
      display: `${methods.join(',')} ${route.url}`,
      path: route.url,
      methods,
      schema,
      timeline,
      body: schema.body,
      scope,
      registered: []
    }
    state.headRoutes.push(head)
    const groups = new Map<string, Group>()
    for (let level = 1; level < timeline.length; level++) {
      const at = timeline[level]
      if (!at.exists) continue
      const key = `${at.methods.join(',')} ${at.path}`
      const group = groups.get(key) ?? { path: at.path, methods: at.methods, levels: [] }
      group.levels.push(level)
      groups.set(key, group)
    }
    if (groups.size === 0) groups.set('', { path: route.url, methods, levels: [] })

    const { url: _url, path: _path, routePath: _routePath, prefix: _prefix, method: _method, ...rest } = route
    const userFormatter = route.schemaErrorFormatter
    const routeErrorHandler = route.errorHandler
    const baseConstraints = route.constraints
    let first = true
    const passthroughs: Prepared[] = []
    for (const group of groups.values()) {
      const prepared = prepare(head, group, scope, userFormatter, baseConstraints)
      head.registered.push(prepared.registered)
      if (prepared.passthrough !== undefined) passthroughs.push(prepared)
      const method = group.methods.length === 1 ? group.methods[0] : [...group.methods]
      if (first) {
        first = false
        const target = route as unknown as Record<string, unknown>
        target.url = prepared.registered.url
        target.method = method
        applyTo(target, prepared, routeErrorHandler, state.options)
        if (group.methods.includes('GET') && route.exposeHeadRoute !== false) {
          lastGet = {
            instance: this,
            routePath: route.routePath,
            handler: route.handler,
            apply: (twin) => {
              twin.url = prepared.registered.url
              applyTo(twin, prepared, routeErrorHandler, state.options)
            }
          }
        }
        continue
      }
      const options: Record<string, unknown> = { ...rest, method, prefixTrailingSlash: 'no-slash', url: relativeUrl(this, prepared) }
      applyTo(options, prepared, routeErrorHandler, state.options)
      this.route(options as unknown as RouteOptions)
    }
    // Registered after the hooked routes: at a node, the route with more constraints (or the later one) wins.
    for (const prepared of passthroughs) {
      const options: Record<string, unknown> = {
        ...rest,
        method: prepared.registered.methods.length === 1 ? prepared.registered.methods[0] : [...prepared.registered.methods],
        prefixTrailingSlash: 'no-slash',
        url: relativeUrl(this, prepared),
        schema: prepared.schema,
        config: {
          ...(rest.config as object | undefined),
          [kVersionedRoute]: prepared.registered,
          [kRegisteredUrl]: prepared.registered.url,
          [kPassthroughRoute]: true
        },
        handler: createPassthroughHandler(rest.handler as never, state.options, scope.prefix, head),
        errorHandler: createPassthroughErrorHandler(routeErrorHandler as never, state.options, head),
        constraints: prepared.passthrough?.constraints
      }
      this.route(options as unknown as RouteOptions)
    }
  }
}
