/**
 * `migrateResponseBody`: the response converters of routes outside routing (webhooks, workers, jobs), then the
 * version's schema applied (unknown fields removed, defaults filled).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { ReadonlyDeep, SchemaLike, StaticOf } from '../core/json-schema'
import type { FastifyServerOptions } from 'fastify'
import { ConverterFailure, copyJson, runStepsToBody } from './step-runner'
import { ConverterPlanner, type PlannedRoute } from '../routes/converter-steps'
import { InvalidOptionError, UnknownVersionError } from '../core/errors'
import { ConverterFailedError, UnconvertibleResponseError } from '../core/request-errors'
import { formatPatterns, strictValidator, type AppAjvSetup, type Check } from '../core/strict-validator'
import type { FormatPatterns } from '../values/string-examples'
import { describeUnexpressible, unexpressibleValue } from '../routes/value-guards'
import { prepareSchema } from '../routes/prepared-schemas'
import { storesVersion } from '../routes/versioner-state'
import { runInVersion } from './request-state'
import { isMonth, versionDateOf } from '../core/iso-date'
import { kBundleInternals } from '../core/symbols'
import { SchemaGeneration } from '../schemas/generation'
import { applyShape, walkRules, type WalkRules } from '../values/shape-walk'
import { namedVersion, type PickedVersion } from './version-picking'
import type { ReleaseClock } from './release-clock'
import { generationSteps, VersionBundle } from '../describe/versions'
import { checkInstanceOf } from '../core/other-copies'
import { copyAsWritten } from '../values/written-values'

/** What `migrateResponseBody` works with, and keeps between calls: schema generation, the planner, walk rules, validators. */
export class MigrationEngine {
  /** The shape walk of bodies migrated to a version: every closed schema, defaults filled, `$ref`s followed. */
  readonly rules: WalkRules
  private check: ((schema: object) => Check) | undefined
  private formatRules: FormatPatterns | undefined
  /** The strings fast-check made of the schemas' patterns, for the upgrade guide's examples (`exampleOf`'s `samples`). */
  readonly samples = new Map<string, readonly string[]>()
  /** Whether converters read the version (a `VersionChangeWithSideEffects`): they run in the target's, as on routes. */
  readonly storesVersion: boolean

  /** The application's Ajv setup, so that its schemas compile here as in Fastify. */
  constructor (readonly bundle: VersionBundle, readonly generation: SchemaGeneration, readonly planner: ConverterPlanner, readonly ajv: AppAjvSetup = {}) {
    this.rules = walkRules({ removeFrom: 'closed', fillDefaults: true, resolveRef: (ref) => generation.resolveAnyId(ref) })
    this.storesVersion = storesVersion(bundle)
  }

  /** The JSON copy of a HEAD body of `schema`, with what a route's serializer writes of it beyond JSON (dates, getters: decision 0137). */
  copyOf (schema: TSchema, body: unknown): unknown {
    return copyAsWritten(this.planner.writtenPlaces(schema), body)
  }

  /** The strict validator of a version's form (see ../core/strict-validator.ts). */
  validatorOf (form: TSchema): Check {
    this.check ??= strictValidator((ref) => this.generation.resolveAnyId(ref), this.ajv)
    return this.check(prepareSchema(form, this.generation, 'fastify'))
  }

  /** How the application's Ajv checks string formats, for the examples made of its schemas (read once). */
  get formats (): FormatPatterns {
    this.formatRules ??= formatPatterns(this.ajv)
    return this.formatRules
  }
}

/**
 * The engine of the standalone functions (`migrateResponseBody`, `renderWebhook`), kept with the (immutable) bundle:
 * one per `ajv` option object, sharing the bundle's schema generation.
 */
export function engineFor (bundle: VersionBundle, ajv?: FastifyServerOptions['ajv']): MigrationEngine {
  const standalone = bundle[kBundleInternals].standalone
  if (standalone.engine === undefined) {
    const generation = new SchemaGeneration(bundle)
    standalone.engine = new MigrationEngine(bundle, generation, new ConverterPlanner(generation, generationSteps(bundle)))
  }
  const base = standalone.engine as MigrationEngine
  if (ajv === undefined) return base
  const engines = (standalone.engines ??= new WeakMap<object, MigrationEngine>()) as WeakMap<object, MigrationEngine>
  let engine = engines.get(ajv)
  if (engine === undefined) engines.set(ajv, engine = new MigrationEngine(bundle, base.generation, base.planner, ajv as AppAjvSetup))
  return engine
}

/** The option of the standalone functions: the `ajv` option the application gives `Fastify({ ajv })`. */
export interface StandaloneAjv {
  /** The application's Ajv setup (its formats, keywords, options), so that schemas compile as they do in it (default: Fastify's). */
  readonly ajv?: FastifyServerOptions['ajv']
}

/**
 * What to migrate, and to which version.
 * @example
 * ```ts
 * const UserResource = Type.Object({ id: Type.String() }, { $id: 'UserResource' })
 * const options: MigrateResponseBodyOptions<typeof UserResource> = { latestBody: { id: 'u1' }, version: '2000-01-01' }
 * ```
 */
export interface MigrateResponseBodyOptions<S extends SchemaLike = TSchema> {
  /** The body as HEAD code produces it (typed only for a TypeBox 0.34 schema). */
  latestBody: ReadonlyDeep<StaticOf<S>>
  /** The version to produce it for; an ISO date between versions gives the closest older version (a `Date`: see `versionDateOf`). */
  version: string | Date
}

/** The version a value names outside requests, as requests are picked, among `releases`' current stretch when given. */
export function pickedTarget (bundle: VersionBundle, value: string, releases?: ReleaseClock): PickedVersion {
  return namedVersion(value, { versions: bundle, releases, format: bundle.valuesAreDates ? 'date' : bundle.releasedValues.every(isMonth) ? 'month' : 'string' })
}

/** The version a migration targets: exact, or for dates the closest older one (as requests are picked). */
function targetVersion (bundle: VersionBundle, version: string | Date): string {
  const value = version instanceof Date ? versionDateOf(version) : version
  const picked = pickedTarget(bundle, value)
  if (picked.ok) return picked.version
  if (picked.reason === 'too-old') {
    throw new UnknownVersionError(`You tried to migrate to version '${value}', which is earlier than the oldest version ` +
      `'${bundle.versionValues[bundle.versionValues.length - 1]}'.`)
  }
  throw new UnknownVersionError(`Version '${String(value)}' is not in the version bundle; its versions are ${bundle.versionValues.join(', ')}.`)
}

/**
 * A route whose by-path converters also apply (the upgrade guide's examples): the HEAD route and the request method,
 * and the response's slot (`200`), whose schema a version may have other than HEAD's (`had({ response })`).
 */
interface MigratedOn {
  readonly route: PlannedRoute
  readonly method: string
  readonly slot?: string
  /**
   * The status HEAD answers with (200 when omitted): an error one (≥ 300) reaches only `migrateHttpErrors` converters,
   * a success schema's on the whole body too, as when served (../routes/version-plan.ts).
   */
  readonly status?: number
}

/** A body migrated for a route's response, and the status the version answers it with (a converter may change it). */
interface MigratedAnswer {
  readonly body: unknown
  readonly status: number
}

/**
 * Migrates `latestBody` with an engine: synchronously, or as a promise when a converter on the path returns one;
 * with `on`, that route's by-path converters run too.
 */
export function migrateWith (engine: MigrationEngine, schema: TSchema, options: MigrateResponseBodyOptions, on?: MigratedOn): unknown {
  const answer = migrateAnswerWith(engine, schema, options, on)
  return answer instanceof Promise ? answer.then((migrated) => migrated.body) : answer.body
}

/**
 * {@link migrateWith}, with the status the version answers: an error response of a route (`on.status` ≥ 300) through
 * the converters serving runs on it, checked against the version's schema of its slot.
 * @example
 * ```ts
 * const on = { route, method: 'GET', slot: '404', status: 404 }
 * const { body, status } = await migrateAnswerWith(engine, NotFound, { latestBody: { code: 'not_found', message: 'No such user' }, version: '2000-01-01' }, on)
 * ```
 */
export function migrateAnswerWith (engine: MigrationEngine, schema: TSchema, options: MigrateResponseBodyOptions, on?: MigratedOn): MigratedAnswer | Promise<MigratedAnswer> {
  const version = targetVersion(engine.bundle, options.version)
  const level = engine.generation.levelOf(version)
  const sent = on?.status ?? 200
  // An error's steps also hold the converters of the route's success schemas declared with migrateHttpErrors.
  const responses = sent >= 300 ? on?.route.forms?.responses[level]?.schemas : undefined
  const steps = engine.planner.responseSteps(on?.route, schema, level, responses, on?.slot)
  const copied = engine.copyOf(schema, options.latestBody)
  if (copied === options.latestBody && typeof copied === 'object' && copied !== null) {
    // What JSON cannot write is kept as it is by copyJson: the shape walk would change the caller's own object.
    throw new InvalidOptionError('migrateResponseBody\'s latestBody is not JSON data: JSON cannot write it (a BigInt, a cycle); give it as JSON would send it.')
  }
  const info = { body: copied, statusCode: sent, headers: {}, raw: options.latestBody, setCookie () {}, deleteCookie () {} }
  const unwrap = (failure: unknown): never => {
    // What the converter threw, when it is an Error; anything else becomes a coded error naming the converter.
    if (!(failure instanceof ConverterFailure)) throw failure
    if (failure.thrown instanceof Error) throw failure.thrown
    throw new ConverterFailedError(`${version} (converter ${failure.step.converter.display} threw ${String(failure.thrown)})`)
  }
  let result: unknown
  try {
    // An error's status chooses its steps as the reply's does when served; a body given alone runs every step.
    const run = (): unknown => runStepsToBody(steps, info, copied, { method: on?.method, reply: sent >= 300 ? info : undefined })
    result = engine.storesVersion ? runInVersion(engine.bundle, version, run) : run()
  } catch (failure) {
    return unwrap(failure)
  }
  const form = engine.generation.formAt(schema, level)
  const finish = (body: unknown): MigratedAnswer => {
    // A body given alone has no status: one a converter made an error is refused, never given as the version's (decision 0244).
    if (sent < 300 && info.statusCode >= 300) {
      throw new UnconvertibleResponseError(`migrateResponseBody: a converter set the status ${info.statusCode} for API version ${version}: that version ` +
        'answers this body with an error, which a body given alone (a webhook) cannot say; it is not sent to that version as if it were a success.')
    }
    const shaped = checked(engine, { schema, form, level, version, latestBody: options.latestBody }, applyShape(form, engine.rules, body))
    return { body: shaped, status: info.statusCode }
  }
  return result instanceof Promise ? result.then(finish, unwrap) : finish(result)
}

/**
 * A migrated body, once sure to be one the version can take: else `FST_VERSIONER_UNCONVERTIBLE_RESPONSE` naming what
 * it cannot express, rather than a wrong body reaching an old subscriber.
 */
function checked (engine: MigrationEngine, at: { schema: TSchema, form: TSchema, level: number, version: string, latestBody: unknown }, body: unknown): unknown {
  const found = unexpressibleValue(engine.planner.guardsOf(at.schema, at.level), body)
  if (found !== undefined) throw new UnconvertibleResponseError(`migrateResponseBody: ${describeUnexpressible(found, at.version)}`)
  const check = engine.validatorOf(at.form)
  if (check(copyJson(body))) return body
  const issue = check.errors?.[0]
  // A body HEAD's own schema refuses (a value whose JSON is not the type it says) is the caller's, not a version change's.
  const head = engine.validatorOf(engine.generation.formAt(at.schema, 0))
  if (!head(engine.copyOf(at.schema, at.latestBody))) {
    throw new UnconvertibleResponseError(`migrateResponseBody: the body given is not one HEAD's schema accepts: at '${head.errors?.[0]?.instancePath ?? ''}', ` +
      `${head.errors?.[0]?.message ?? 'it does not match'}. Give it as JSON data HEAD's schema accepts; the versions' bodies are made from it.`)
  }
  throw new UnconvertibleResponseError(`migrateResponseBody: the body migrated to API version ${at.version} does not match that version's schema ` +
    `at '${issue?.instancePath ?? ''}': ${issue?.message ?? 'does not match'}. A version change between HEAD and ${at.version} lacks a ` +
    'response converter for this schema, or one produces a wrong value: run verify to find it.')
}

/**
 * Migrates a HEAD body to a version outside routing through the routes' response converters, with the version's schema
 * applied: a promise when a converter on the path is async, the body otherwise. Give it the application's `ajv` option
 * when its schemas use formats or keywords of its own.
 * @example
 * ```ts
 * declare const versions: VersionBundle, subscriber: { url: string, apiVersion: string }
 * declare function deliverWebhook (url: string, payload: unknown): Promise<void>
 * const UserResource = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) }, { $id: 'UserResource' })
 * const user: Static<typeof UserResource> = { id: 'usr_1', addresses: ['1 Main St'] }
 * const payload = await migrateResponseBody(versions, UserResource, { latestBody: user, version: subscriber.apiVersion })
 * await deliverWebhook(subscriber.url, payload)
 * // typed: migrateResponseBody<typeof UserResource, Schemas['2000-01-01']['UserResource']>(versions, UserResource, …)
 * ```
 */
export function migrateResponseBody<S extends SchemaLike, Body = unknown> (
  bundle: VersionBundle, schema: S, options: MigrateResponseBodyOptions<S> & StandaloneAjv
): Body | Promise<Body> {
  checkInstanceOf(bundle, VersionBundle, 'migrateResponseBody(bundle, …) needs')
  // A worker's JavaScript forgetting the options: the coded error, not a TypeError reading `ajv`.
  if (typeof options !== 'object' || options === null) throw new InvalidOptionError('migrateResponseBody(bundle, schema, options) needs options { latestBody, version }.')
  return migrateWith(engineFor(bundle, options.ajv), schema as TSchema, options as MigrateResponseBodyOptions) as Body | Promise<Body>
}
