/**
 * `migrateResponseBody`: the response converters of routes, outside routing (webhook payloads, workers,
 * scheduled jobs). A HEAD body passes the by-schema converters of its schema from the latest version down
 * to the requested one, then gets that version's schema applied: unknown fields removed, defaults filled.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { ConverterFailure, copyJson, runStepsToBody } from './step-runner'
import { ConverterPlanner } from '../routes/converter-steps'
import { ConverterFailedError, UnknownVersionError } from '../core/errors'
import { toIsoDate } from '../core/iso-date'
import { SchemaGeneration } from '../schemas/generation'
import { plausiblyMatches } from '../values/occurrences'
import { isSchemaObject, type SchemaObject } from '../core/json-schema'
import { resolveVersion } from './version-picking'
import { generationSteps, type VersionBundle } from '../describe/versions'
import { setOwn } from '../core/own-properties'

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

/** The version a migration targets: exact, or for dates the closest older one (as requests are picked). */
function targetVersion (bundle: VersionBundle, version: string | Date): string {
  const value = version instanceof Date ? toIsoDate(version) : version
  const picked = resolveVersion(value, bundle, bundle.valuesAreDates ? 'date' : 'string')
  if (picked.ok) return picked.version
  if (picked.reason === 'too-old') {
    throw new UnknownVersionError(`You tried to migrate to version '${value}', which is earlier than the oldest version ` +
      `'${bundle.versionValues[bundle.versionValues.length - 1]}'.`)
  }
  throw new UnknownVersionError(`Version '${String(value)}' is not in the version bundle; its versions are ${bundle.versionValues.join(', ')}.`)
}

/**
 * Migrates `latestBody` with an engine (the plugin's, or the bundle's own): synchronously, or as a promise when
 * a converter on the path returns one (the converters after it run once it settles, as on routes).
 */
export function migrateWith (engine: MigrationEngine, schema: TSchema, options: MigrateResponseBodyOptions): unknown {
  const version = targetVersion(engine.bundle, options.version)
  const level = engine.generation.levelOf(version)
  const steps = engine.planner.responseSteps(undefined, schema, level)
  const copied = copyJson(options.latestBody)
  const info = { body: copied, statusCode: 200, headers: {}, raw: options.latestBody, setCookie () {}, deleteCookie () {} }
  const unwrap = (failure: unknown): never => {
    // What the converter threw, when it is an Error; anything else becomes a coded error naming the converter.
    if (!(failure instanceof ConverterFailure)) throw failure
    if (failure.thrown instanceof Error) throw failure.thrown
    throw new ConverterFailedError(`${version} (converter ${failure.step.converter.display} threw ${String(failure.thrown)})`)
  }
  let result: unknown
  try {
    result = runStepsToBody(steps, info, copied, undefined, undefined)
  } catch (failure) {
    return unwrap(failure)
  }
  const form = engine.generation.formAt(schema, level)
  const finish = (body: unknown): unknown => conform(form, body, (ref) => engine.generation.resolveAnyId(ref))
  return result instanceof Promise ? result.then(finish, unwrap) : finish(result)
}

type ResolveRef = (ref: string) => TSchema | undefined

/** The fields one level of data may have: those of a schema and of its `allOf` (and union) members. */
interface Shape {
  readonly keys: Set<string>
  readonly patterns: RegExp[]
  /** Some part accepts any other field. */
  open: boolean
  /** Some part says which fields there are (`properties`, `patternProperties` or `additionalProperties`). */
  declares: boolean
}

function addToShape (schema: TSchema, shape: Shape, resolveRef: ResolveRef, depth: number): void {
  const source = schema as SchemaObject
  if (depth > 64) {
    shape.open = true
    return
  }
  if (typeof source.$ref === 'string') {
    const target = resolveRef(source.$ref)
    if (target === undefined) shape.open = true
    else addToShape(target, shape, resolveRef, depth + 1)
    return
  }
  if (isSchemaObject(source.properties)) for (const key of Object.keys(source.properties)) shape.keys.add(key)
  for (const [regex] of patternsOf(source)) shape.patterns.push(regex)
  const extra = source.additionalProperties
  if (isSchemaObject(source.properties) || isSchemaObject(source.patternProperties) || extra !== undefined) shape.declares = true
  if (extra === true || isSchemaObject(extra)) shape.open = true
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const members = source[keyword]
    if (Array.isArray(members)) for (const member of members) if (isSchemaObject(member)) addToShape(member as TSchema, shape, resolveRef, depth + 1)
  }
}

function shapeOf (schemas: readonly TSchema[], resolveRef: ResolveRef): Shape {
  const shape: Shape = { keys: new Set(), patterns: [], open: false, declares: false }
  for (const schema of schemas) addToShape(schema, shape, resolveRef, 0)
  return shape
}

/** Removes the fields of `value` its shape does not have (when it says which fields there are and is closed). */
function removeUndeclared (value: unknown, shape: Shape): void {
  if (!isSchemaObject(value) || !shape.declares || shape.open) return
  for (const key of Object.keys(value)) {
    if (!shape.keys.has(key) && !shape.patterns.some((regex) => regex.test(key))) delete value[key]
  }
}

const compiledPatterns = new WeakMap<object, ReadonlyArray<readonly [RegExp, TSchema]>>()

/** The `patternProperties` of a schema, compiled once per schema. */
function patternsOf (source: SchemaObject): ReadonlyArray<readonly [RegExp, TSchema]> {
  if (!isSchemaObject(source.patternProperties)) return []
  let patterns = compiledPatterns.get(source)
  if (patterns === undefined) {
    patterns = Object.entries(source.patternProperties as Record<string, TSchema>).map(([pattern, sub]) => [new RegExp(pattern, 'u'), sub] as const)
    compiledPatterns.set(source, patterns)
  }
  return patterns
}

/**
 * `value` as the version's schema has it: fields the schema does not declare removed (unless it allows
 * them), defaults filled in (in properties, items, record values, `allOf` members and the union member the
 * value belongs to). Changes `value` in place and returns it (or the default, when it is undefined).
 * `keepFields` is set for the schemas that describe a value together with others (`allOf` members): which
 * fields it may have is decided by the schema holding them all.
 */
function conform (schema: TSchema, value: unknown, resolveRef: ResolveRef, depth = 0, keepFields = false): unknown {
  const source = schema as SchemaObject
  if (depth > 64) return value
  if (typeof source.$ref === 'string') {
    const target = resolveRef(source.$ref)
    return target === undefined ? value : conform(target, value, resolveRef, depth + 1, keepFields)
  }
  if (value === undefined) return 'default' in source ? structuredClone(source.default) : undefined
  const allOf = Array.isArray(source.allOf) ? source.allOf.filter(isSchemaObject) as TSchema[] : []
  if (allOf.length > 0 && !keepFields) removeUndeclared(value, shapeOf([schema], resolveRef))
  for (const member of allOf) conform(member, value, resolveRef, depth + 1, true)
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = source[keyword]
    if (Array.isArray(members)) return conformToUnion(members, value, resolveRef, depth, keepFields || allOf.length > 0)
  }
  if (Array.isArray(value)) {
    if (isSchemaObject(source.items)) value.forEach((item, index) => { value[index] = conform(source.items as TSchema, item, resolveRef, depth + 1) })
    return value
  }
  if (!isSchemaObject(value)) return value
  conformFields(source, value, resolveRef, depth, keepFields || allOf.length > 0)
  return value
}

/**
 * A value of a union: conformed to the member it belongs to when exactly one plausibly matches; when several
 * do, only the fields none of them declares are removed.
 */
function conformToUnion (members: unknown[], value: unknown, resolveRef: ResolveRef, depth: number, keepFields: boolean): unknown {
  const plausible = members.filter((candidate): candidate is TSchema => isSchemaObject(candidate) && plausiblyMatches(candidate as TSchema, value))
  if (plausible.length === 1) return conform(plausible[0], value, resolveRef, depth + 1, keepFields)
  if (plausible.length > 1 && !keepFields) removeUndeclared(value, shapeOf(plausible, resolveRef))
  return value
}

/** Conforms the fields of an object: undeclared ones removed (unless `keepFields`), each declared one conformed. */
function conformFields (source: SchemaObject, value: Record<string, unknown>, resolveRef: ResolveRef, depth: number, keepFields: boolean): void {
  const properties = isSchemaObject(source.properties) ? source.properties as Record<string, TSchema> : {}
  const patterns = patternsOf(source)
  const extra = source.additionalProperties
  const declaresShape = isSchemaObject(source.properties) || patterns.length > 0 || extra !== undefined
  for (const key of Object.keys(value)) {
    if (Object.hasOwn(properties, key)) continue
    const pattern = patterns.find(([regex]) => regex.test(key))
    if (pattern !== undefined) setOwn(value, key, conform(pattern[1], value[key], resolveRef, depth + 1))
    else if (isSchemaObject(extra)) setOwn(value, key, conform(extra as TSchema, value[key], resolveRef, depth + 1))
    else if (declaresShape && extra !== true && !keepFields) delete value[key]
  }
  for (const [key, property] of Object.entries(properties)) {
    const conformed = conform(property, value[key], resolveRef, depth + 1)
    if (conformed !== undefined) value[key] = conformed
  }
}

/**
 * Migrates a HEAD body to a version outside routing, through the same response converters as routes,
 * returning the body of that version with its schema's defaults applied and unknown fields removed. The result
 * is a promise when a converter on the path is async (returns a promise), the body itself otherwise: `await`
 * it unless every converter of the schema is synchronous.
 * @example
 * ```ts
 * const payload = await migrateResponseBody(versions, UserResource, { latestBody: user, version: subscriber.apiVersion })
 * await deliverWebhook(subscriber.url, payload)
 * ```
 */
export function migrateResponseBody<T = unknown> (bundle: VersionBundle, schema: TSchema, options: MigrateResponseBodyOptions): T | Promise<T> {
  return migrateWith(engineFor(bundle), schema, options) as T | Promise<T>
}
