/**
 * `migrateResponseBody`: the response converters of routes, outside routing (webhook payloads, workers,
 * scheduled jobs). A HEAD body passes the by-schema converters of its schema from the latest version down
 * to the requested one, then gets that version's schema applied: unknown fields removed, defaults filled.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { runSteps } from './converter-runtime'
import { ConverterPlanner } from './converter-steps'
import { UnknownVersionError, VersionerStructureError } from './errors'
import { isIsoDate, toIsoDate } from './iso-date'
import { SchemaGeneration } from './schema-generation'
import { generationSteps, type VersionBundle } from './versions'

/** What `migrateResponseBody` needs of a bundle (the plugin passes its application's own). */
export interface MigrationEngine {
  readonly bundle: VersionBundle
  readonly generation: SchemaGeneration
  readonly planner: ConverterPlanner
}

// One engine per bundle object for the standalone function (a bundle is immutable once built).
const engines = new WeakMap<VersionBundle, MigrationEngine>()

function engineFor (bundle: VersionBundle): MigrationEngine {
  let engine = engines.get(bundle)
  if (engine === undefined) {
    const generation = new SchemaGeneration(bundle)
    engine = { bundle, generation, planner: new ConverterPlanner(generation, generationSteps(bundle)) }
    engines.set(bundle, engine)
  }
  return engine
}

/** What to migrate, and to which version. */
export interface MigrateResponseBodyOptions {
  /** The body as the latest (HEAD) code produces it. */
  latestBody: unknown
  /** The version to produce it for; an ISO date between versions gives the closest older version. */
  version: string | Date
}

/** The version a migration targets: exact, or for dates the closest older one. */
function targetVersion (bundle: VersionBundle, version: string | Date): string {
  const value = version instanceof Date ? toIsoDate(version) : version
  if (bundle.versionValues.includes(value)) return value
  if (typeof value === 'string' && isIsoDate(value) && bundle.valuesAreDates) {
    const served = bundle.versionValues.find((candidate) => candidate <= value)
    if (served !== undefined) return served
    throw new UnknownVersionError(`You tried to migrate to version '${value}', which is earlier than the oldest version ` +
      `'${bundle.versionValues[bundle.versionValues.length - 1]}'.`)
  }
  throw new UnknownVersionError(`Version '${String(value)}' is not in the version bundle; its versions are ${bundle.versionValues.join(', ')}.`)
}

/** Migrates `latestBody` with an engine (the plugin's, or the bundle's own). */
export function migrateWith (engine: MigrationEngine, schema: TSchema, options: MigrateResponseBodyOptions): unknown {
  const version = targetVersion(engine.bundle, options.version)
  const level = engine.generation.levelOf(version)
  const steps = engine.planner.responseSteps(undefined, schema, level)
  const box = { body: structuredClone(options.latestBody) }
  const info = { body: box.body, statusCode: 200, headers: {}, raw: options.latestBody, setCookie () {}, deleteCookie () {} }
  const result = runSteps(steps, info, box, () => true)
  if (result !== undefined) {
    throw new VersionerStructureError('migrateResponseBody runs converters synchronously, but one of them returned a promise. ' +
      'Make the response converters of this schema synchronous.')
  }
  const form = engine.generation.formAt(schema, level)
  try {
    return Value.Default(form, Value.Clean(form, box.body))
  } catch {
    // Not a TypeBox schema (plain JSON Schema): return the converted body as it is.
    return box.body
  }
}

/**
 * Migrates a HEAD body to a version outside routing, through the same response converters as routes,
 * returning the body of that version with its schema's defaults applied and unknown fields removed.
 * @example
 * ```ts
 * const payload = migrateResponseBody(versions, UserResource, { latestBody: user, version: subscriber.apiVersion })
 * await deliverWebhook(subscriber.url, payload)
 * ```
 */
export function migrateResponseBody<T = unknown> (bundle: VersionBundle, schema: TSchema, options: MigrateResponseBodyOptions): T {
  return migrateWith(engineFor(bundle), schema, options) as T
}
