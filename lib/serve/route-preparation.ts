/**
 * Start-up: preparing the Fastify route of one group of versions of a HEAD route (sharing a path and methods): its
 * behaviours, hooks, error handler, native serializers and route constraint.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { HttpMethod } from '../core/http-methods'
import type { ServeOptions } from './serve-options'
import type { RouterOptions, VersionSegments } from './version-picking'
import { RouterGenerationError } from '../core/errors'
import { kVersionedRoute } from '../core/symbols'
import { createRequestHook } from './migrate-request'
import { createSendHook, createSuccessHook } from './migrate-response'
import { createEarlyVersion } from './version-headers'
import type { RoutingPicks } from './pick-version'
import { createMigrationErrorHandler } from './error-handling'
import type { onSendHookHandler, preSerializationHookHandler, preValidationHookHandler } from 'fastify'
import { buildBehaviour, hasWork, isSuccessKey, requestPlans, type RouteSchema } from '../routes/version-plan'
import { rebuildResponses } from '../routes/schema-forms'
import { quietLevel, routeSeeds } from '../routes/quiet-levels'
import { VersionBehaviours } from '../routes/version-behaviours'
import { routeChanges } from '../routes/route-changes'
import { prepareSchema } from '../routes/prepared-schemas'
import type { HeadRoute, NodeClaim, RegisteredRoute, VersionerState } from '../routes/versioner-state'
import { attachedMigrationFailure } from './head-validation'
import { checkPathParameters } from '../routes/value-guards'
import { applies } from '../routes/timeline'
import { isEndpointInstruction } from '../describe/instructions'

type Hook = (...args: never[]) => unknown

/** What preparing routes needs: the plugin's state and options, where path versions sit, and picking before routing. */
export interface RouteContext {
  readonly state: VersionerState
  readonly serveOptions: ServeOptions
  readonly segments: VersionSegments
  readonly routingPicks: RoutingPicks | undefined
  /** The upgrade preview's hooks, when the option is on (added to every versioned route). */
  readonly previewHooks: AroundHooks | undefined
  /** The capture hooks, when the option is on (added to routes where some version has work; with `everyVersion`, to all). */
  readonly captureHooks?: AroundHooks
  /** The application's router options: which URLs are one route node. */
  readonly routerOptions: RouterOptions
  /** `@fastify/response-validation` was registered before the plugin (its hook then checks HEAD's bodies). */
  readonly validatedBefore: boolean
}

/** The levels of a HEAD route (ascending: its newest version first) that share a path and methods: one Fastify route. */
export interface Group {
  readonly path: string
  readonly methods: readonly HttpMethod[]
  readonly levels: number[]
}

/**
 * The hooks an opt-in feature (the upgrade preview, the capture) adds around the versioner's own on a route: those
 * before them run before the versioner's, those after them after; of two features, the first listed is outermost.
 */
export interface AroundHooks {
  readonly beforeRequest?: preValidationHookHandler
  readonly afterRequest?: preValidationHookHandler
  readonly beforeSuccess?: preSerializationHookHandler
  readonly beforeSend?: onSendHookHandler
  readonly afterSend?: onSendHookHandler
}

/** A group ready to register: its route, schema, hooks and constraints. */
export interface Prepared {
  readonly registered: RegisteredRoute
  readonly schema: RouteSchema
  readonly hooks: { preValidation: Hook, preSerialization?: Hook, onSend?: Hook, around: readonly AroundHooks[] }
  readonly errorHandler: ReturnType<typeof createMigrationErrorHandler>
  readonly constraints: Record<string, unknown> | undefined
}

function toList<T> (value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? [...value] : [value]
}

/**
 * The URL a group's path is registered at: with path versions, `/:version` follows the versioned prefix (and is
 * recorded). A route parameter of the same name would be read as the version: a start-up error.
 */
function registeredUrl (context: RouteContext, head: HeadRoute, group: Group): string {
  const { serveOptions: options, segments } = context
  const { path } = group
  if (options.location !== 'path') return path
  const segment = `/:${options.parameterName}`
  if (new RegExp(`${segment.slice(1)}(?![A-Za-z0-9_])`).test(path)) {
    throw new RouterGenerationError(`The route ${head.display} has a path parameter ${segment.slice(1)}, the name of the version's own path parameter ` +
      `(apiVersionLocation 'path', apiVersionParameterName '${options.headerName}'): the version would be read from the wrong segment. ` +
      'Rename the route\'s parameter, or give apiVersionParameterName another name.')
  }
  const prefix = head.scope.prefix.replace(/\/$/, '')
  const rest = path.startsWith(prefix) ? path.slice(prefix.length) : path
  // A catch-all Fastify joined to the prefix (`/api*`, as @fastify/cors registers) catches all inside the segment.
  const url = `${prefix}${segment}${rest === '/' ? '' : rest.startsWith('*') ? `/${rest}` : rest}`
  segments.add(group.methods, url)
  return url
}

/** A group's behaviours, the response schemas its route serializes with natively, and its versions known to have nothing to do. */
interface GroupBehaviours {
  readonly behaviours: VersionBehaviours
  /** By slot: the newest version's form of a success, HEAD's of an error or of `default` (which the send hook converts). */
  readonly nativeResponse: Record<string, TSchema>
  /** The same in the form the route gave its responses, for Fastify. */
  readonly nativeMap: Record<string, unknown>
  /** The newest version and the versions after it that do exactly what it does, when it has no work (newest first). */
  readonly idle: readonly string[]
}

/**
 * The behaviours of a group's versions, each built on first use but the newest one's (registration needs to know if it
 * has work). When it has none, the versions after it that certainly do the same (../routes/quiet-levels.ts) are idle.
 */
function groupBehaviours (context: RouteContext, head: HeadRoute, group: Group): GroupBehaviours {
  const { state } = context
  const newest = group.levels.length > 0 ? group.levels[0] : 0
  const params = head.forms.parts.params
  if (params !== undefined) checkPathParameters(state.planner, head.display, params, group.levels)
  const nativeResponse: Record<string, TSchema> = {}
  for (const [slot, schema] of Object.entries(head.forms.responses[newest].schemas)) {
    nativeResponse[slot] = isSuccessKey(slot) ? prepareSchema(state.generation.formAt(schema, newest), state.generation, 'fastify') : schema
  }
  const behaviours = new VersionBehaviours(new Map(group.levels.map((level) => [state.versionAt(level), level])),
    (level, version) => buildBehaviour(head, { level, version }, nativeResponse, state.planner))
  const idle: string[] = []
  const first = group.levels.length > 0 ? behaviours.get(state.versionAt(newest)) : undefined
  if (first !== undefined && !hasWork(first)) {
    idle.push(first.version)
    const seeds = routeSeeds(head, newest, state.generation)
    for (let index = 1; index < group.levels.length; index++) {
      const level = group.levels[index]
      if (level !== group.levels[index - 1] + 1 || !quietLevel(head, level, seeds, state.planner)) break
      const version = state.versionAt(level)
      idle.push(version)
    }
  }
  return { behaviours, nativeResponse, nativeMap: rebuildResponses(head.forms.responses[newest], (slot) => nativeResponse[slot]), idle }
}

/** Prepares the route of one group of a HEAD route (`user`: what the route was declared with, read before it is replaced). */
export function prepareGroup (context: RouteContext, head: HeadRoute, group: Group, user: { errorHandler: unknown, formatter: unknown, constraints: unknown }): Prepared {
  const { state, serveOptions } = context
  const url = registeredUrl(context, head, group)
  const { behaviours, nativeResponse, nativeMap, idle } = groupBehaviours(context, head, group)
  const versions = behaviours.versions()
  // With path versions the request holds the version's segment among its params until the request hook removes it.
  const headData = new Set(serveOptions.location === 'header' ? idle : [])
  const registered: RegisteredRoute = { head, url, methods: group.methods, behaviours, headData, nativeResponse, display: `${group.methods.join(',')} ${url}` }
  // The versions that are not idle are planned on their first request: they may need either response hook.
  const planned = idle.length < versions.length
  const earlyVersion = createEarlyVersion(behaviours, serveOptions)
  const hooks: Prepared['hooks'] = {
    preValidation: createRequestHook({ behaviours, head, changes: routeChanges(head, state) }, serveOptions, user.formatter as never, state) as Hook,
    around: [context.previewHooks, planned || serveOptions.captureExchanges?.everyVersion === true ? context.captureHooks : undefined]
      .filter((around) => around !== undefined)
  }
  // The send hook also re-appends the `Link` of deprecated fields (idle versions share the newest one's), and keeps a
  // preview version's answers private whatever the handler set.
  const newest = idle.length > 0 ? behaviours.get(idle[0]) : undefined
  const fieldLinks = newest !== undefined && requestPlans(newest).some((plan) => plan.deprecations !== undefined)
  const previews = versions.filter((version) => serveOptions.versions.get(version)?.channel === 'preview')
  const linkOf = (version: string): string | undefined => serveOptions.lifecycleHeaders?.(version)?.link
  // JSON text is HEAD's: the newest version serializes it again when its schema is not HEAD's (decision 0251).
  const textWork = newest?.textWork === true
  if (planned || textWork) hooks.preSerialization = createSuccessHook(head.display) as Hook
  if (planned || textWork || fieldLinks || previews.length > 0 || serveOptions.asyncPicking || idle.some((version) => linkOf(version) !== undefined)) {
    hooks.onSend = createSendHook({ route: head.display, linkOf }, previews.length === 0 ? undefined : new Set(previews), earlyVersion) as Hook
  }
  const schema: RouteSchema = { ...head.schema }
  if (Object.keys(nativeMap).length > 0) schema.response = nativeMap
  const constraints = claimNodes(context, { group, url, head }, versions, user.constraints)
  return { registered, schema, hooks, constraints, errorHandler: createMigrationErrorHandler(registered, user.errorHandler as never, earlyVersion) }
}

/** A route's own constraints (`host`, Fastify's `version`…), each value as text. */
function ownConstraints (constraints: unknown): Map<string, string> {
  const own = new Map<string, string>()
  if (typeof constraints !== 'object' || constraints === null) return own
  for (const [name, value] of Object.entries(constraints)) own.set(name, value instanceof RegExp ? String(value) : JSON.stringify(value))
  return own
}

function sameConstraints (a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  return a.size === b.size && [...a].every(([name, value]) => b.get(name) === value)
}

/**
 * How a route stands to another HEAD route's claim on its node: `'apart'` when the router tells them apart by their
 * own constraints, `'shared'` when the version constraint must, else the versions in which they cannot be told apart.
 */
function standing (own: ReadonlyMap<string, string>, versions: readonly string[], claim: NodeClaim): 'apart' | 'shared' | string[] {
  for (const [name, value] of own) if (claim.constraints.has(name) && claim.constraints.get(name) !== value) return 'apart'
  const overlap = versions.filter((version) => claim.versions.has(version))
  if (overlap.length === 0) return 'shared'
  const sameVersions = overlap.length === versions.length && overlap.length === claim.versions.size
  return sameVersions && !sameConstraints(own, claim.constraints) ? 'apart' : overlap
}

/**
 * The router node of a URL: find-my-way tells parameters apart by place, not name, and, as the application's router
 * options say, ignores case, a trailing slash and doubled slashes.
 */
function routerNode (url: string, options: RouterOptions): string {
  let node = url.replace(/:[A-Za-z0-9_]+/g, ':')
  if (options.ignoreDuplicateSlashes === true) node = node.replace(/\/{2,}/g, '/')
  if (options.ignoreTrailingSlash === true && node.length > 1) node = node.replace(/\/$/, '')
  return options.caseSensitive === false ? node.toLowerCase() : node
}

/** A HEAD route as the error of two routes on one node names it: with the version change that moved it to the group's path and methods. */
function arrival (state: VersionerState, head: HeadRoute, group: Group): string {
  const { timeline } = head
  // A route serving no version (every level deleted) claims no version: no error names it.
  if (group.levels.length === 0) return head.display
  const here = timeline[group.levels[0]]
  // The group's first level is a version's; the route may have stood there since HEAD.
  let level = group.levels[0]
  while (level > 0 && timeline[level - 1].exists && timeline[level - 1].path === here.path && timeline[level - 1].methods.join() === here.methods.join()) level--
  if (level === 0) return `${head.display} (at its HEAD path and methods)`
  // Step level - 1's changes turn level - 1 into level: the one whose endpoint instruction names the route there moved it.
  const before = timeline[level - 1]
  const operationId = typeof head.schema.operationId === 'string' ? head.schema.operationId : undefined
  const change = state.steps[level - 1].changes.find((candidate) => candidate.instructions.some((instruction) =>
    isEndpointInstruction(instruction) && applies(before, instruction, operationId)))
  const at = `${group.methods.join(',')} ${here.path}`
  return `${head.display} (at ${at} from ${state.versionAt(level)} on${change === undefined ? '' : `, by "${change.name}"`})`
}

/**
 * Claims the route nodes of a group for its versions; when another HEAD route already serves a node (and the
 * router cannot tell them apart by their own constraints), constrains the route to the versions it serves.
 */
function claimNodes (
  context: RouteContext, at: { group: Group, url: string, head: HeadRoute }, versions: string[], base: unknown
): Record<string, unknown> | undefined {
  const { state, routingPicks } = context
  const { group, url, head } = at
  const own = ownConstraints(base)
  const owner = arrival(context.state, head, group)
  let shared = false
  for (const method of group.methods) {
    const key = `${method} ${routerNode(url, context.routerOptions)}`
    const claims = state.nodes.get(key) ?? []
    state.nodes.set(key, claims)
    for (const claim of claims) {
      const stands = standing(own, versions, claim)
      if (stands === 'apart') continue
      if (stands !== 'shared') {
        const other = claim.owners.get(stands[0]) ?? 'another HEAD route'
        throw new RouterGenerationError(`Two routes answer [${method}] ${url} in version(s) ${stands.join(', ')}: ${owner} and ${other}. ` +
          'Check the endpoint instructions: a route restored with endpoint(...).existed, or renamed with .had({ path }), ' +
          'must not land on a path and method another route still serves in that version; to act on only one of two routes sharing a ' +
          'path and methods, name it with endpoint(path, methods, { operationId }).')
      }
      shared = true
    }
    const mine = claims.find((claim) => sameConstraints(claim.constraints, own))
    const claim = mine ?? { constraints: own, versions: new Set<string>(), owners: new Map<string, string>() }
    if (mine === undefined) claims.push(claim)
    for (const version of versions) {
      claim.versions.add(version)
      claim.owners.set(version, owner)
    }
  }
  if (!shared) return undefined
  // A custom picker runs before routing at this node (see ./pick-version.ts).
  for (const method of group.methods) routingPicks?.add(method, url)
  // A route serving no version at a shared node still needs a value no request can match.
  const value = versions.length > 0 ? versions.join('\n') : '\u0000none'
  return { ...(base as Record<string, unknown> | undefined), [state.constraint]: value }
}

/** Adds the versioner's hooks, schema, config, error handler and constraints to route options (in place). */
export function applyTo (options: Record<string, unknown>, prepared: Prepared): void {
  options.schema = prepared.schema
  options.config = { ...(options.config as object | undefined), [kVersionedRoute]: prepared.registered }
  const { around } = prepared.hooks
  const outward = [...around].reverse()
  const own = (hook: Hook | undefined): Hook[] => hook === undefined ? [] : [hook]
  const aroundHooks = (name: keyof AroundHooks, order = around): Hook[] => order.flatMap((hooks) => own(hooks[name] as Hook | undefined))
  options.preValidation = [...toList(options.preValidation as Hook[] | Hook | undefined), ...aroundHooks('beforeRequest'), prepared.hooks.preValidation,
    ...aroundHooks('afterRequest', outward)]
  const serialization = [...aroundHooks('beforeSuccess'), ...own(prepared.hooks.preSerialization)]
  if (serialization.length > 0) options.preSerialization = [...toList(options.preSerialization as Hook[] | Hook | undefined), ...serialization]
  const send = [...aroundHooks('beforeSend'), ...own(prepared.hooks.onSend), ...aroundHooks('afterSend', outward)]
  if (send.length > 0) options.onSend = [...send, ...toList(options.onSend as Hook[] | Hook | undefined)]
  if (options.attachValidation === true) options.preHandler = [attachedMigrationFailure, ...toList(options.preHandler as Hook[] | Hook | undefined)]
  options.errorHandler = prepared.errorHandler
  if (prepared.constraints !== undefined) options.constraints = prepared.constraints
}
