/**
 * `migrateResponseBody`: the response converters of routes, outside routing (webhook payloads, workers,
 * scheduled jobs). A HEAD body passes the by-schema converters of its schema from the latest version down
 * to the requested one, then gets that version's schema applied: unknown fields removed, defaults filled.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { copyJson, runSteps } from './converter-runtime'
import { ConverterPlanner } from './converter-steps'
import { UnknownVersionError, VersionerStructureError } from './errors'
import { isIsoDate, toIsoDate } from './iso-date'
import { SchemaGeneration } from './schema-generation'
import { plausiblyMatches } from './data-walker'
import { isSchemaObject, type SchemaObject } from './schema-utils'
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
  const box = { body: copyJson(options.latestBody) }
  const info = { body: box.body, statusCode: 200, headers: {}, raw: options.latestBody, setCookie () {}, deleteCookie () {} }
  const result = runSteps(steps, info, box, { method: undefined, reply: undefined })
  if (result !== undefined) {
    throw new VersionerStructureError('migrateResponseBody runs converters synchronously, but one of them returned a promise. ' +
      'Make the response converters of this schema synchronous.')
  }
  const form = engine.generation.formAt(schema, level)
  return conform(form, box.body, (ref) => engine.generation.resolveAnyId(ref))
}

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * `value` as the version's schema has it: fields the schema does not declare removed (unless it allows
 * them), defaults filled in (in properties, items, record values, `allOf` members and the union member the
 * value belongs to). Changes `value` in place and returns it (or the default, when it is undefined).
 */
function conform (schema: TSchema, value: unknown, resolveRef: (ref: string) => TSchema | undefined, depth = 0): unknown {
  const source = schema as SchemaObject
  if (depth > 64) return value
  if (typeof source.$ref === 'string') {
    const target = resolveRef(source.$ref)
    return target === undefined ? value : conform(target, value, resolveRef, depth + 1)
  }
  if (value === undefined) return 'default' in source ? structuredClone(source.default) : undefined
  for (const member of Array.isArray(source.allOf) ? source.allOf : []) {
    if (isSchemaObject(member)) conform(member as TSchema, value, resolveRef, depth + 1)
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = source[keyword]
    if (!Array.isArray(members)) continue
    const member = members.find((candidate) => isSchemaObject(candidate) && plausiblyMatches(candidate as TSchema, value))
    if (member !== undefined) return conform(member as TSchema, value, resolveRef, depth + 1)
  }
  if (Array.isArray(value)) {
    if (isSchemaObject(source.items)) value.forEach((item, index) => { value[index] = conform(source.items as TSchema, item, resolveRef, depth + 1) })
    return value
  }
  if (!isPlainObject(value)) return value
  const properties = isSchemaObject(source.properties) ? source.properties as Record<string, TSchema> : {}
  const patterns = isSchemaObject(source.patternProperties)
    ? Object.entries(source.patternProperties as Record<string, TSchema>).map(([pattern, sub]) => [new RegExp(pattern, 'u'), sub] as const)
    : []
  const extra = source.additionalProperties
  const declaresShape = isSchemaObject(source.properties) || patterns.length > 0 || extra !== undefined
  for (const key of Object.keys(value)) {
    if (key in properties) continue
    const pattern = patterns.find(([regex]) => regex.test(key))
    if (pattern !== undefined) value[key] = conform(pattern[1], value[key], resolveRef, depth + 1)
    else if (isSchemaObject(extra)) value[key] = conform(extra as TSchema, value[key], resolveRef, depth + 1)
    else if (declaresShape && extra !== true) delete value[key]
  }
  for (const [key, property] of Object.entries(properties)) {
    const conformed = conform(property, value[key], resolveRef, depth + 1)
    if (conformed !== undefined) value[key] = conformed
  }
  return value
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
