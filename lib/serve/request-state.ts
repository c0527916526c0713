/**
 * The versioner's state of one request, under the plugin's one request decoration, and what reads it outside the
 * hooks: the version in logs (decision 0021), `currentDependencySolver`, `fieldsTheVersionLacks` (decision 0073).
 * @module
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { kBundleInternals, kRequestState, kVersionedRoute } from '../core/symbols'
import type { VersionBundle } from '../describe/versions'
import { versionedScopeOf } from '../describe/versioned-scope'
import { NO_FIELDS } from '../routes/full-replace'
import { requestPlanOf, type VersionBehaviour } from '../routes/version-plan'
import type { RegisteredRoute } from '../routes/versioner-state'
import type { PickedVersion } from './version-picking'
import { ANOTHER_COPY, hasKeyOfAnotherCopy } from '../core/other-copies'
import { InvalidOptionError } from '../core/errors'

/** What the versioner knows of a request once its version is picked. */
export interface RequestState {
  /** The version picked for it (or why none can serve it). */
  readonly picked: PickedVersion
  /** The behaviour of the version it is served as, once the request hook found it. */
  behaviour: VersionBehaviour | null
  /** True once the request holds HEAD data (after migration). */
  migrated: boolean
  /** A converter of this request failed: its 500 is not converted again. */
  converterFailed: boolean
  /**
   * The error the request hook refused it with after its version was picked (its version's validation, a request
   * converter's 4xx): set only then, never on a request served, for `captureExchanges` (decision 0307).
   */
  refusal?: Error
  /** A converter's promise is pending: an answer sent meanwhile (handlerTimeout's 503) passes no converter (decision 0158). */
  converting: boolean
  /** The version's serializer refused its converted response: its answer is the versioner's 500 (its error converters still run). */
  responseRefused: boolean
  /** True once its success payload went through the response converters (an error clears it: its body is converted instead). */
  converted: boolean
  /** True once the success hook gave the reply its version's serializer (an error handler's body must not be written by it). */
  versionSerializer: boolean
  /** The handler's success payload the success hook converted, and its slot: what HEAD's serializer would have written (./error-handling.ts). */
  handlerSuccess: unknown
  handlerSlot: string | undefined
  /** The deprecated fields the request carries (JSON pointers) and the `Link` they add, when it carries some. */
  fieldDeprecations: { readonly fields: readonly string[], readonly link: string | undefined } | null
  /** Served a version the request does not name (a custom picker's or a function default's, as an account's pin): private. */
  pinned: boolean
  /** How many of its holds on the bundle's version storage are left (its `close`, its `onSend`): see {@link holdStorage}. */
  storageHolds: number
  /** Its `If-None-Match` while held back from the application's `onSend` hooks; `null` once `reply.send` holds it (./sent-entity-tags.ts). */
  noneMatch: string | null | undefined
  /**
   * Picked before the request hook (`request.apiVersion` read in an `onRequest` hook), from the request as it was then:
   * picked again when a hook changed what it names since, till the request hook picks it (./pick-version.ts).
   */
  early: boolean
}

type WithState = FastifyRequest & { [kRequestState]: RequestState | null }

/** The versioner's state of a request: `null` before its version is picked, and on unversioned routes. */
export function requestState (request: FastifyRequest): RequestState | null {
  return (request as WithState)[kRequestState] ?? null
}

/** Starts the state of a request whose version was just picked. */
export function startRequestState (request: FastifyRequest, picked: PickedVersion, early = false): RequestState {
  const state: RequestState = { picked, behaviour: null, migrated: false, converterFailed: false, converting: false, responseRefused: false, converted: false, versionSerializer: false, handlerSuccess: undefined, handlerSlot: undefined, fieldDeprecations: null, pinned: false, storageHolds: 0, noneMatch: undefined, early }
  ;(request as WithState)[kRequestState] = state
  return state
}

/** The versioned route answering a request, from its route config (`undefined` on unversioned routes). */
export function registeredRouteOf (request: FastifyRequest): RegisteredRoute | undefined {
  return (request.routeOptions.config as unknown as Record<symbol, RegisteredRoute | undefined> | undefined)?.[kVersionedRoute]
}

/** True when the application logs (Fastify's logger is off when its children are the logger itself). */
export function loggerEnabled (fastify: FastifyInstance): boolean {
  return fastify.log.child({}) !== fastify.log
}

type ChildLoggerFactory = FastifyInstance['childLoggerFactory']

/** How a versioned request's logger was made, kept on its raw request: to make it again for another version. */
interface RequestLogger {
  /** The bindings it was made with (`apiVersion`: the version the request named on arrival, if any). */
  readonly bindings: Record<string, unknown>
  /** The logger made. */
  readonly made: FastifyBaseLogger
  /** Makes it again with other bindings (the factory in place, with its context, parent logger and options). */
  readonly remake: (bindings: Record<string, unknown>) => FastifyBaseLogger
}

const kRequestLogger = Symbol('fastify-versioner.request-logger')
type LoggedRaw = IncomingMessage & { [kRequestLogger]?: RequestLogger }

/**
 * Installs in `fastify`'s context a child logger factory, wrapping the one in place, that binds `apiVersion` for
 * versioned requests whose version `versionOf` knows before the request hook; an `onRoute` hook wraps a route's own.
 */
export function bindVersionInChildLoggers (fastify: FastifyInstance, versionOf: (raw: IncomingMessage) => string | undefined): void {
  const bound = new WeakSet<ChildLoggerFactory>()
  const bind = (previous: ChildLoggerFactory): ChildLoggerFactory => {
    const factory = function versionerChildLogger (this: FastifyInstance, logger, bindings, options, raw) {
      // `this` is the context the route was declared in: versioned routes are declared inside versioned(...).
      if (versionedScopeOf(this) === undefined) return previous.call(this, logger, bindings, options, raw)
      const version = versionOf(raw as IncomingMessage)
      if (version !== undefined) bindings.apiVersion = version
      const made = previous.call(this, logger, bindings, options, raw)
      // The innermost of several registrations' factories keeps it: remade through it, no outer one binds again.
      const logged = raw as LoggedRaw
      if (logged[kRequestLogger] === undefined) {
        const context = this
        logged[kRequestLogger] = { bindings, made, remake: (again) => previous.call(context, logger, again, options, raw) }
      }
      return made
    } as ChildLoggerFactory
    bound.add(factory)
    return factory
  }
  fastify.setChildLoggerFactory(bind(fastify.childLoggerFactory))
  fastify.addHook('onRoute', function versionerRouteLogger (this: FastifyInstance, route) {
    const factory = route.childLoggerFactory ?? this.childLoggerFactory
    if (versionedScopeOf(this) !== undefined && !bound.has(factory)) route.childLoggerFactory = bind(factory)
  })
}

/**
 * Binds `apiVersion` into the logger of a request (and its reply) picked in the request hook, unless its logger holds
 * that version already: one the request named on arrival. A version a hook named since (an `onRequest` hook setting the
 * version header) replaces the one bound, in a logger made again, so that every line names it once; `undefined` (no
 * version can serve the request) removes it.
 */
export function bindVersionInRequestLog (request: FastifyRequest, reply: FastifyReply, version: string | undefined): void {
  const record = (request.raw as LoggedRaw)[kRequestLogger]
  const named = record?.bindings.apiVersion
  if (named === version) return
  let log: FastifyBaseLogger
  if (named !== undefined && record !== undefined && request.log === record.made) {
    const { apiVersion: _named, ...others } = record.bindings
    log = record.remake(version === undefined ? others : { ...others, apiVersion: version })
  } else if (version !== undefined) {
    log = request.log.child({ apiVersion: version })
  } else {
    return
  }
  request.log = log
  reply.log = log
}

/**
 * The phase of a request: `'fastify'` before migration (versioned data), `'versioner'` after it (HEAD data).
 * @example
 * ```ts
 * declare const request: FastifyRequest
 * const phase: DependencySolver = currentDependencySolver(request) // 'versioner' in the handler of a versioned route
 * ```
 */
export type DependencySolver = 'fastify' | 'versioner'

/**
 * `'fastify'` while a versioned request holds its version's data (`onRequest` to `preValidation`), `'versioner'` once
 * it holds HEAD data (`preHandler` and the handler, or every hook for a version served as HEAD); unversioned requests
 * are always `'fastify'`. See docs/serving.md.
 * @example
 * ```ts
 * declare const app: FastifyInstance
 * app.addHook('preHandler', async (request) => {
 *   if (currentDependencySolver(request) === 'versioner') request.log.info({ body: request.body }, 'as the handler reads it')
 * })
 * ```
 */
export function currentDependencySolver (request: FastifyRequest): DependencySolver {
  if (requestState(request)?.migrated === true) return 'versioner'
  const registered = registeredRouteOf(request)
  if (registered === undefined) refuseIfAnotherCopy(request, 'currentDependencySolver')
  if (registered === undefined || registered.headData.size === 0) return 'fastify'
  const version = request.apiVersion
  return version !== undefined && registered.headData.has(version) ? 'versioner' : 'fastify'
}

/** Throws when another copy of the package serves `request`: this copy would answer as for an unversioned route. */
function refuseIfAnotherCopy (request: FastifyRequest, call: string): void {
  const config = request.routeOptions.config as object | undefined
  if (hasKeyOfAnotherCopy(Object.getOwnPropertySymbols(request), kRequestState) ||
    (config !== undefined && hasKeyOfAnotherCopy(Object.getOwnPropertySymbols(config), kVersionedRoute))) {
    throw new InvalidOptionError(`${call}(request) was given a request served by ${ANOTHER_COPY.replace(/^of /, '')}.`)
  }
}

/** The behaviour serving a request: the request hook's, or, before it ran, the one of the version known already. */
function behaviourOf (request: FastifyRequest): VersionBehaviour | undefined {
  const known = requestState(request)?.behaviour
  if (known !== null && known !== undefined) return known
  const registered = registeredRouteOf(request)
  const version = registered === undefined ? undefined : request.apiVersion
  return version === undefined ? undefined : registered?.behaviours.get(version)
}

/**
 * The HEAD body fields the request's version cannot express, as JSON pointers (`*` for every item), so that a full
 * replace keeps their stored values (decision 0073); a frozen array per route and version, `[]` where none is lacked.
 * Where two object members of a union lack different fields, those of the member the body's value is, with its
 * indexes and keys in place of `*` (decision 0274).
 * @example
 * ```ts
 * declare const app: FastifyInstance
 * const User = Type.Object({ fullName: Type.String(), nickname: Type.Optional(Type.String()) }, { $id: 'User' })
 * const users = new Map<string, Record<string, unknown>>()
 * await app.register(versioned(async (api) => {
 *   const schema = { params: Type.Object({ id: Type.String() }), body: User }
 *   api.put('/users/:id', { schema, fullReplace: { keeps: ['/nickname'] } }, async (request) => {
 *     const stored = users.get(request.params.id) ?? {}
 *     const user: Record<string, unknown> = { ...request.body }
 *     for (const pointer of fieldsTheVersionLacks(request)) {
 *       const key = pointer.slice(1) // top-level fields only here; docs/serving.md keeps nested ones
 *       if (Object.hasOwn(stored, key)) user[key] = stored[key]
 *     }
 *     users.set(request.params.id, user)
 *     return user
 *   })
 * }))
 * ```
 */
export function fieldsTheVersionLacks (request: FastifyRequest): readonly string[] {
  const behaviour = behaviourOf(request)
  if (behaviour === undefined) refuseIfAnotherCopy(request, 'fieldsTheVersionLacks')
  if (behaviour === undefined) return NO_FIELDS
  // The body is HEAD's once migrated: where union members lack different fields, it tells which member it is.
  return requestPlanOf(behaviour, request.headers['content-type']).lackedFields(requestState(request)?.migrated === true ? { value: request.body } : undefined)
}

/**
 * Counts a request in `serving.inFlight` until its response closed and its `onSend` ran, or only the first when it is
 * answered without `onSend` (decision 0139).
 * @example
 * holdStorage(state, reply, bundle) // in the request hook, before the request runs in the storage
 */
export function holdStorage (state: RequestState, reply: FastifyReply, bundle: VersionBundle): void {
  // A response closed already (its client left during an earlier hook) emits no `close` again: not counted.
  const raw = reply.raw as { destroyed?: boolean, stream?: { destroyed: boolean } }
  if (raw.destroyed === true || raw.stream?.destroyed === true) return
  state.storageHolds = 2
  bundle[kBundleInternals].serving.inFlight++
  // Closed sent, or after writing on `reply.raw` (no `onSend` will come); else its client left or its stream failed.
  reply.raw.once('close', () => { releaseStorage(state, bundle, reply.sent || reply.raw.headersSent ? 2 : 1) })
}

/**
 * Lets go of `holds` of the request's holds on the storage (`state` `null`: none); the storage is disabled when no
 * app serves the bundle and no request runs in it.
 * @example
 * releaseStorage(requestState(request), bundle, 1) // its onSend ran
 */
export function releaseStorage (state: RequestState | null, bundle: VersionBundle, holds: number): void {
  const serving = bundle[kBundleInternals].serving
  if (state !== null) {
    if (state.storageHolds === 0) return
    state.storageHolds = Math.max(0, state.storageHolds - holds)
    if (state.storageHolds > 0) return
    serving.inFlight--
  }
  if (serving.apps === 0 && serving.inFlight === 0) bundle.apiVersionStorage.disable()
}

/**
 * Runs converters outside requests (`migrateResponseBody`, webhooks) in `version` of the bundle's storage, counted as
 * a request until they settle.
 * @example
 * const body = runInVersion(bundle, '2000-01-01', () => runStepsToBody(steps, info, copied, at))
 */
export function runInVersion (bundle: VersionBundle, version: string, work: () => unknown): unknown {
  const internals = bundle[kBundleInternals]
  const { serving } = internals
  // Inside a job's own run (nothing of the plugin's holds the storage), the storage stays on for the job: the render
  // only nests its version. Inside a request it is counted too: started there and not awaited, it may outlive the
  // request and its app's close(), which would disable the storage under its converters.
  const nestedInJob = bundle.apiVersionStorage.getStore() !== undefined && serving.apps === 0 && serving.inFlight === 0
  if (internals.customStorage || nestedInJob) return bundle.apiVersionStorage.run(version, work)
  serving.inFlight++
  const settle = (): void => { serving.inFlight--; releaseStorage(null, bundle, 0) }
  let result: unknown
  try {
    result = bundle.apiVersionStorage.run(version, work)
  } catch (error) {
    settle()
    throw error
  }
  if (result instanceof Promise) return result.finally(settle)
  settle()
  return result
}
