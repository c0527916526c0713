/**
 * The versioner's state of one request to a versioned route: one object, made when the request's version is
 * first picked, under the one request decoration the plugin declares (`decorateRequest`, so request objects keep
 * one shape). Every request of the application, versioned or not, pays for that one decoration alone.
 *
 * And what reads it outside the versioner's hooks: the version in the request's logs, `currentDependencySolver`
 * (which shape of data a hook sees) and `fieldsTheVersionLacks` (the HEAD body fields a request's version cannot
 * express, so that a full replace keeps their stored values:
 * [decision 0073](../../docs/decisions/0073-replace-keeps-what-old-clients-cannot-see.md)).
 *
 * The version in request logs: every log line of a versioned request, Fastify's own "incoming request" and
 * "request completed" included, carries `apiVersion` (the version served). Where the version is known when Fastify
 * creates the request's child logger (header or path versions, a string default, a custom picker run before
 * routing), it is one more binding of that child, made by a `childLoggerFactory`; otherwise (a custom picker or a
 * function default, run in the request hook) the hook replaces the request's logger by a child of it. With the
 * application's logger off, nothing is installed and nothing runs.
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
  /** The version's serializer refused its converted response: its answer is the versioner's 500 (its error converters still run). */
  responseRefused: boolean
  /** True once its success payload went through the response converters (an error clears it: its body is converted instead). */
  converted: boolean
  /** True once the success hook gave the reply its version's serializer (an error handler's body must not be written by it). */
  versionSerializer: boolean
  /** The deprecated fields the request carries (JSON pointers) and the `Link` they add, when it carries some. */
  fieldDeprecations: { readonly fields: readonly string[], readonly link: string | undefined } | null
  /** Served a version the request does not name (a custom picker's or a function default's, as an account's pin): private. */
  pinned: boolean
  /** How many of its holds on the bundle's version storage are left (its `close`, its `onSend`): see {@link holdStorage}. */
  storageHolds: number
}

type WithState = FastifyRequest & { [kRequestState]: RequestState | null }

/** The versioner's state of a request: `null` before its version is picked, and on unversioned routes. */
export function requestState (request: FastifyRequest): RequestState | null {
  return (request as WithState)[kRequestState] ?? null
}

/** Starts the state of a request whose version was just picked. */
export function startRequestState (request: FastifyRequest, picked: PickedVersion): RequestState {
  const state: RequestState = { picked, behaviour: null, migrated: false, converterFailed: false, responseRefused: false, converted: false, versionSerializer: false, fieldDeprecations: null, pinned: false, storageHolds: 0 }
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

/**
 * Installs, in `fastify`'s context (and so in the `versioned(...)` contexts registered after it), a child logger
 * factory that binds `apiVersion` for requests to versioned routes whose version `versionOf` knows before the
 * request hook. The factory in place before (the application's own, or Fastify's) makes the child. A factory that
 * replaces it on a versioned route (the route's `childLoggerFactory` option, a `setChildLoggerFactory` inside
 * `versioned(...)`) is wrapped the same way, by an `onRoute` hook.
 */
export function bindVersionInChildLoggers (fastify: FastifyInstance, versionOf: (raw: IncomingMessage) => string | undefined): void {
  const bound = new WeakSet<ChildLoggerFactory>()
  const bind = (previous: ChildLoggerFactory): ChildLoggerFactory => {
    const factory = function versionerChildLogger (this: FastifyInstance, logger, bindings, options, raw) {
      // `this` is the context the route was declared in: versioned routes are declared inside versioned(...).
      if (versionedScopeOf(this) !== undefined) {
        const version = versionOf(raw as IncomingMessage)
        if (version !== undefined) bindings.apiVersion = version
      }
      return previous.call(this, logger, bindings, options, raw)
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

/** Binds `apiVersion` into the logger of a request (and its reply) whose version was picked in the request hook. */
export function bindVersionInRequestLog (request: FastifyRequest, reply: FastifyReply, version: string): void {
  const log: FastifyBaseLogger = request.log.child({ apiVersion: version })
  request.log = log
  reply.log = log
}

/** The phase of a request: `'fastify'` before migration (versioned data), `'versioner'` after it (HEAD data). */
export type DependencySolver = 'fastify' | 'versioner'

/**
 * `'fastify'` while a versioned request still holds the data of its version (in `onRequest`, `preParsing`
 * and `preValidation` hooks), `'versioner'` once it holds HEAD data (after the versioner's migration: in
 * `preHandler` hooks and the handler). A header version the route serves exactly as HEAD (same schemas, no
 * converter: usually the newest) has no migration: its requests hold HEAD data from the start, and are
 * `'versioner'` in every hook (when the version is known before the request hook: not with a custom picker or a
 * function default).
 * Unversioned requests are always `'fastify'`. Use it to run a side effect on only one shape of the data.
 * @example
 * ```ts
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

/**
 * Throws when another copy of the package serves `request` (its state, or its route's mark, under that copy's keys):
 * this copy would answer as for an unversioned route ([] fields lacked: a full replace erasing them).
 */
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
 * The HEAD request body fields the request's version cannot express, as JSON pointers into the body the handler
 * reads (`/address/line2`; `*` stands for every item of a list and every value of a map): fields added since that
 * version, and HEAD's internal fields a `HeadVersion` change hides. A client of that version cannot send them, so a
 * handler that replaces a stored resource with the body keeps their stored values. A renamed or retyped field is not
 * listed: its converter carries the value. The answer is a frozen array computed once per route and version (the same
 * object for every request; nothing is computed on requests that do not call it): `[]` for versions that express
 * every HEAD field and for unversioned routes (and before the version is known: call it from `preHandler` hooks or
 * the handler). `verify` reports every full-replace route (`PUT`, or the route option `fullReplace`) whose versions
 * lack fields its `fullReplace: { keeps }` does not list.
 * @example
 * ```ts
 * api.put('/users/:id', { schema: { body: User }, fullReplace: { keeps: ['/nickname'] } }, async (request) => {
 *   const stored = users.get(request.params.id) ?? {}
 *   const user = { ...request.body }
 *   for (const pointer of fieldsTheVersionLacks(request)) {
 *     const key = pointer.slice(1) // top-level fields only here; docs/serving.md keeps nested ones
 *     if (key in stored) user[key] = stored[key]
 *   }
 *   users.set(request.params.id, user)
 *   return user
 * })
 * ```
 */
export function fieldsTheVersionLacks (request: FastifyRequest): readonly string[] {
  const behaviour = behaviourOf(request)
  if (behaviour === undefined) refuseIfAnotherCopy(request, 'fieldsTheVersionLacks')
  return behaviour === undefined ? NO_FIELDS : requestPlanOf(behaviour, request.headers['content-type']).lackedFields()
}

/**
 * Counts a request of the bundle's versions in `serving.inFlight` (its storage stays on while it runs, after its app
 * closed: ../versioner.ts) until its response closed and its `onSend` ran ({@link releaseStorage}), or only the first
 * when it is answered without `onSend` (hijacked, written on `reply.raw`, a `handlerTimeout` 503 sent while its request
 * converters ran). A request whose client left still runs in plain Fastify: it keeps its version till its `onSend`
 * (one whose client left before this hook is not counted: it may never reach `onSend` either).
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
 * Lets go of `holds` of the request's holds on the bundle's storage; the last one uncounts the request, and disables
 * the storage if no app serves the bundle and no request runs in it (`state` `null`: none of a request's).
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
 * Runs converters outside requests (`migrateResponseBody`, webhooks) in `version` of the bundle's storage, counted as a
 * request is until they settle: a worker serving nothing lets its storage go after each render, never during one, nor
 * while the render runs inside a version already (a request, a job's own `apiVersionStorage.run`).
 * @example
 * const body = runInVersion(bundle, '2000-01-01', () => runStepsToBody(steps, info, copied, at))
 */
export function runInVersion (bundle: VersionBundle, version: string, work: () => unknown): unknown {
  const internals = bundle[kBundleInternals]
  // Inside a request or a job's own run, the storage stays on for them: the render only nests its version.
  if (internals.customStorage || bundle.apiVersionStorage.getStore() !== undefined) return bundle.apiVersionStorage.run(version, work)
  internals.serving.inFlight++
  const settle = (): void => { internals.serving.inFlight--; releaseStorage(null, bundle, 0) }
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
