/**
 * Stage 2 of a request, migrating it in the route's `preValidation` hook: version headers (or a 400/404/410), the
 * version's validation, its lacking fields removed, and the request converters up to HEAD.
 * @module
 */
import type { FastifyReply, FastifyRequest, FastifySchemaValidationError, preValidationHookHandler } from 'fastify'
import { InvalidApiVersionError, MissingApiVersionError } from '../core/request-errors'
import { clientErrorOf, failureAfterWriteBack, failureError, isThenable, runSteps } from './step-runner'
import type { ConverterStep } from '../routes/converter-steps'
import { VersionedRequestInfo } from './converter-inputs'
import type { ServeOptions } from './serve-options'
import { bindVersionInRequestLog, holdStorage, type RequestState } from './request-state'
import { createVersionHeaders, privateCacheControl, sendFieldDeprecations, type VersionHeaders } from './version-headers'
import { kBundleInternals } from '../core/symbols'
import { requestPlanOf, type RequestPart, type RequestPlan, type VersionBehaviour } from '../routes/version-plan'
import type { VersionBehaviours } from '../routes/version-behaviours'
import { contextFormatter, pickingErrorMessage, validationError, type SchemaErrorFormatter } from './error-handling'
import { PART_PROPERTY, validationFailure } from './head-validation'
import { pickerFailure, pickVersion } from './pick-version'
import { changedSinceRouting } from './routed-version'
import type { HeadRoute, VersionerState } from '../routes/versioner-state'
import { publishServed, servedChannel, type HeadRouteOf, type ServedRouteFacts } from './usage-events'
import { brownoutOf, createGoneCheck } from './gone-versions'
import { holdNoneMatch } from './sent-entity-tags'

/** What the request hook of one registered route needs. */
interface RequestHookRoute extends ServedRouteFacts {
  readonly behaviours: Pick<VersionBehaviours, 'get' | 'has'>
  /** The HEAD route: its versioned scope, its method and path for usage events, and its `METHOD url` for logs. */
  readonly head: HeadRouteOf & Pick<HeadRoute, 'scope' | 'display'>
}

/** The request side of one registered route: what its `preValidation` hook does once the version is picked. */
class RequestMigration {
  // The child logger of a request already has `apiVersion` when the request named it on arrival (./request-state.ts);
  // else the version is bound here: a custom picker's or a function default's, a preview's (its access is asked here),
  // or one an `onRequest` hook named since.
  /** True when the application logs: the request's logger names the version served. */
  private readonly logsVersion: boolean
  private readonly setVersionHeaders: VersionHeaders
  private readonly answerIfGone: ReturnType<typeof createGoneCheck>
  private readonly storesVersion: boolean
  /** The bundle's own storage: a request run in it keeps it on till answered (./request-state.ts `holdStorage`). */
  private readonly holdsStorage: boolean

  /** `formatter`: the route's own schema error formatter, else its context's (fixed per route), found on the first failed validation. */
  constructor (
    private readonly route: RequestHookRoute, private readonly options: ServeOptions, private formatter: SchemaErrorFormatter | undefined,
    versioner: Pick<VersionerState, 'storesVersion' | 'logsVersion'>
  ) {
    this.logsVersion = versioner.logsVersion
    this.setVersionHeaders = createVersionHeaders(options)
    this.answerIfGone = createGoneCheck(options, this.setVersionHeaders)
    this.storesVersion = versioner.storesVersion
    this.holdsStorage = versioner.storesVersion && !options.versions[kBundleInternals].customStorage
  }

  /** Serves a request in the version picked: headers, 400/404/410, validation against the version, converters. */
  proceed (request: FastifyRequest, reply: FastifyReply, state: RequestState, done: (error?: Error) => void): void {
    const { options, route } = this
    const picked = state.picked
    if (!picked.ok) {
      if (this.logsVersion) bindVersionInRequestLog(request, reply, undefined)
      // A custom picker or a function default may have picked a value the request does not name (a pin).
      const named = !options.asyncPicking || options.picker.requested(request) === picked.requested
      const message = pickingErrorMessage(picked, options, route.head.scope.prefix, named)
      done(picked.reason === 'missing' ? new MissingApiVersionError(message) : new InvalidApiVersionError(message))
      return
    }
    const version = picked.version
    if (this.logsVersion) bindVersionInRequestLog(request, reply, version)
    // A pin depends on what no `Vary` names (an account): no shared cache may store its answer, a 404 or 410 included (decision 0119).
    if (options.asyncPicking && options.picker.requested(request) !== picked.requested) {
      state.pinned = true
      reply.header('cache-control', privateCacheControl(reply.getHeader('cache-control')))
    }
    const gone = this.answerIfGone?.(reply, version)
    if (gone !== undefined) {
      // A request in a brownout publishes its served event, marked with the window; one gone after the sunset, none.
      const brownout = servedChannel.hasSubscribers ? brownoutOf(gone) : undefined
      if (brownout !== undefined) publishServed(request, { version, behaviour: route.behaviours.get(version), brownout }, route, options)
      return
    }
    this.setVersionHeaders(reply, version)
    const behaviour = route.behaviours.get(version)
    if (behaviour === undefined) {
      const changed = changedSinceRouting(request.raw, () => options.picker.requested(request), version, `${request.method} ${request.routeOptions.url ?? request.url}`)
      if (changed !== undefined) done(changed)
      else reply.callNotFound()
      return
    }
    // A body declared by media type (`content`) is planned per media type, as Fastify validates it (read from the
    // Content-Type header: request.mediaType is Fastify 5.9's).
    const plan = requestPlanOf(behaviour, request.headers['content-type'])
    state.behaviour = behaviour
    holdNoneMatch(request, reply, state)
    if (plan.deprecations !== undefined) sendFieldDeprecations(request, reply, plan.deprecations, state, options)
    if (servedChannel.hasSubscribers) publishServed(request, { version, behaviour }, route, options)
    if (options.location === 'path') delete (request.params as Record<string, unknown>)[options.parameterName]
    if (!this.storesVersion) {
      this.migrate(request, state, plan, done)
      return
    }
    // Everything from here (validation, converters, preHandler hooks, the handler, the response) runs within `run`,
    // so it sees the version; nothing outside the request does (no enterWith on a shared connection context).
    if (this.holdsStorage) holdStorage(state, reply, options.versions)
    options.versions.apiVersionStorage.run(version, this.migrate, request, state, plan, done)
  }

  /** Validates the request against its version, then converts it ({@link proceed} may run it in the version storage). */
  private readonly migrate = (request: FastifyRequest, state: RequestState, plan: RequestPlan, done: (error?: Error) => void): void => {
    const invalid = this.validate(request, plan, 0)
    if (!isThenable(invalid)) {
      this.afterValidation(request, state, plan, invalid, done)
      return
    }
    invalid.then((error) => {
      try {
        this.afterValidation(request, state, plan, error, done)
      } catch (failure) {
        done(failure as Error)
      }
    }, done)
  }

  /** Answers (or attaches) the version's validation error, else removes fields the version lacks and runs the converters. */
  private afterValidation (request: FastifyRequest, state: RequestState, plan: RequestPlan, invalid: Error | undefined, done: (error?: Error) => void): void {
    if (invalid !== undefined) {
      if (request.routeOptions.attachValidation !== true) {
        state.refusal = invalid
        done(invalid)
        return
      }
      // `attachValidation`: the handler answers the version's error, about the data the client sent (decision 0104).
      attachValidationError(request, invalid)
      done()
      return
    }
    const cleaners = plan.cleaners
    for (let index = 0; index < cleaners.length; index++) {
      const [part, clean] = cleaners[index]
      const data = request[PART_PROPERTY[part]]
      if (data !== undefined && data !== null) clean(data)
    }
    const steps = plan.requestSteps
    if (steps.length === 0) {
      this.finish(state, done)
      return
    }
    this.convert(request, state, steps, done)
  }

  /** Validates the request against the version's schemas from the part at `from` on: its 400, or a promise of it for `$async`. */
  private validate (request: FastifyRequest, plan: RequestPlan, from: number): Error | undefined | Promise<Error | undefined> {
    const validate = plan.validate
    for (let index = from; index < validate.length; index++) {
      const [part, schema] = validate[index]
      const check = request.compileValidationSchema(schema, part)
      // Read as Fastify reads it: `false`, or a custom validator compiler's `{ error }` or `{ value }`
      // (`TypeBoxValidatorCompiler`'s), whose value replaces the part.
      const data: unknown = request[PART_PROPERTY[part]]
      // Fastify validates a missing part (a request without a body) as null.
      const outcome: unknown = check(data === undefined ? null : data)
      // An async validator resolves with the data (never read as `{ value }`) or `false`, or rejects: as Fastify reads it.
      if (isThenable(outcome)) {
        return Promise.resolve(outcome).then(
          (result) => result === false ? this.invalid(request, check.errors ?? [], part) : this.validate(request, plan, index + 1),
          (error: unknown) => this.invalid(request, error instanceof Error ? error : check.errors ?? [], part))
      }
      const failure = validationFailure(check, outcome)
      if (failure !== undefined) return this.invalid(request, failure, part)
      if (typeof outcome === 'object' && outcome !== null && 'value' in outcome) {
        (request as unknown as Record<string, unknown>)[PART_PROPERTY[part]] = outcome.value
      }
    }
    return undefined
  }

  /** Fastify's validation error for a failure against the version's schema of `part`. */
  private invalid (request: FastifyRequest, failure: FastifySchemaValidationError[] | Error, part: RequestPart): Error {
    this.formatter ??= contextFormatter(request.server)
    return validationError(failure, part, this.formatter)
  }

  /** Runs the request converters, writes what they changed back into the request, then finishes. */
  private convert (request: FastifyRequest, state: RequestState, steps: readonly ConverterStep[], done: (error?: Error) => void): void {
    const info = new VersionedRequestInfo(request)
    const version = (state.behaviour as VersionBehaviour).version
    runSteps(steps, info, info.body, { method: request.method, reply: undefined, state }, (converterFailure, body) => {
      const failure = failureAfterWriteBack(info, converterFailure, body)
      if (failure === undefined) {
        this.finish(state, done)
        return
      }
      state.converterFailed = true
      const error = failureError(failure, { request, version, route: this.route.head.display })
      if (clientErrorOf(error) !== undefined) state.refusal = error
      done(error)
    })
  }

  private finish (state: RequestState, done: (error?: Error) => void): void {
    state.migrated = true
    done()
  }
}

/**
 * Gives an `attachValidation` route's handler the version's error as `request.validationError`; Fastify's HEAD
 * validation next would replace it with one about fields the client never sent, so its result is ignored.
 */
function attachValidationError (request: FastifyRequest, error: Error): void {
  Object.defineProperty(request, 'validationError', { get: () => error, set: () => {}, enumerable: true, configurable: true })
}

/** The route-level `preValidation` hook of a versioned route: picks the version, then migrates the request. */
export function createRequestHook (
  route: RequestHookRoute, options: ServeOptions, routeFormatter: SchemaErrorFormatter | undefined, versioner: Pick<VersionerState, 'storesVersion' | 'logsVersion'>
): preValidationHookHandler {
  const migration = new RequestMigration(route, options, routeFormatter, versioner)
  const proceed = (request: FastifyRequest, reply: FastifyReply, state: RequestState, done: (error?: Error) => void): void => {
    try {
      migration.proceed(request, reply, state, done)
    } catch (error) {
      done(error as Error)
    }
  }
  return function versionerRequestHook (request, reply, done) {
    let picked: RequestState | Promise<RequestState>
    try {
      picked = pickVersion(request, options)
    } catch (failure) {
      done(pickerFailure(failure))
      return
    }
    if (isThenable(picked)) picked.then((state) => { proceed(request, reply, state, done) }, (failure: unknown) => { done(pickerFailure(failure)) })
    else proceed(request, reply, picked, done)
  }
}
