/**
 * Stage `lib/routes/`: what each route does in each version, computed at registration.
 *
 * What a versioned route does for one version: which request parts it validates by hand against that
 * version's schemas, which converters run, and which schemas serialize its responses. Computed once per
 * (route, version) at start-up; a request only looks its version up.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { ConverterPlanner, ConverterStep, PlannedRoute } from './converter-steps'
import { compileShapeWalk, type ShapeWalk } from '../values/shape-walk'
import type { RouteAttributes, RouteState } from './timeline'
import type { SchemaGeneration } from '../schemas/generation'
import { isSchemaObject } from '../core/json-schema'
import { valueGuardsOf, type ValueGuard } from './value-guards'
import { lowerCaseHeaders, prepareSchema } from './prepared-schemas'
import { fieldDeprecationsOf, type FieldDeprecations } from './field-deprecations'

/** The request parts Fastify validates. */
export type RequestPart = 'body' | 'querystring' | 'params' | 'headers'

/** The request parts, in the order Fastify validates them. */
export const REQUEST_PARTS: readonly RequestPart[] = ['params', 'body', 'querystring', 'headers']

/** A route's schema as Fastify takes it. */
export interface RouteSchema {
  body?: TSchema
  querystring?: TSchema
  params?: TSchema
  headers?: TSchema
  response?: Record<string, TSchema>
  [keyword: string]: unknown
}

/** One version of one route. */
export interface VersionBehaviour {
  readonly version: string
  readonly level: number
  /** The schema of each request part in this version, ready for Fastify (headers by lower-case names, as Fastify validates them). */
  readonly requestForms: ReadonlyArray<readonly [RequestPart, TSchema]>
  /** Request parts checked by hand against this version's schemas, before conversion (a HEAD-validation failure on one of them is a migration bug: 500). */
  readonly validate: ReadonlyArray<readonly [RequestPart, TSchema]>
  /** Remove fields this version's (rebuilt) schemas lack from the body and query string, before converters. */
  readonly cleaners: ReadonlyArray<readonly [RequestPart, ShapeWalk]>
  readonly requestSteps: readonly ConverterStep[]
  /** Response converter steps by response status key (`''` for statuses without a schema). */
  readonly responseSteps: ReadonlyMap<string, readonly ConverterStep[]>
  /** This version's response schemas by status key (ready for Fastify). */
  readonly responseForms: ReadonlyMap<string, TSchema>
  /** By status key, where a converted response may hold a HEAD value this version cannot express (./value-guards.ts). */
  readonly responseGuards: ReadonlyMap<string, readonly ValueGuard[]>
  /** Success status keys whose schema differs from the one the route serializes with natively. */
  readonly ownSuccessSerializers: ReadonlySet<string>
  /** The status of a successful response in this version, when an instruction changed it. */
  readonly statusCode: number | undefined
  /** True when successful object payloads need the preSerialization hook. */
  readonly successWork: boolean
  /** True when error responses need the onSend hook (converters with migrateHttpErrors, or other schemas). */
  readonly errorWork: boolean
  /** By-path response converters, which also see streamed or raw payloads. */
  readonly rawSteps: readonly ConverterStep[]
  /** The route in this version (path, methods, attributes). */
  readonly state: RouteState
  /** The version's lifecycle `Link` (deprecation or sunset page), merged into the response's `Link` header. */
  readonly link: string | undefined
  /** Where deprecated fields sit in this version's requests; `undefined` (nothing to check) when nowhere. */
  readonly deprecations: FieldDeprecations | undefined
}

/** True for a response status key of a success (`1xx`-`2xx`). */
export function isSuccessKey (key: string): boolean {
  return /^[12]/.test(key)
}

/** The response schema key Fastify uses for a status: the exact code, then `Nxx`, then `default`. */
export function statusKey (keys: ReadonlyMap<string, unknown>, status: number): string | undefined {
  const exact = String(status)
  if (keys.has(exact)) return exact
  const range = `${exact[0]}xx`
  return keys.has(range) ? range : keys.has('default') ? 'default' : undefined
}

/** The HEAD facts of a route that behaviours are built from. */
export interface BehaviourRoute extends PlannedRoute {
  readonly schema: RouteSchema
  /** `METHOD url`, for error messages. */
  readonly display: string
}

/** The response schemas (HEAD-level) a route has in a version. */
export function responseMapAt (route: BehaviourRoute, level: number): Readonly<Record<string, TSchema>> {
  const override = route.timeline[level].attributes.response
  const map = override ?? route.schema.response
  return isSchemaObject(map) ? map as Record<string, TSchema> : NO_RESPONSES
}

/** The response map of a route without one (one object: behaviours compare maps by identity). */
const NO_RESPONSES: Readonly<Record<string, TSchema>> = Object.freeze({})

/**
 * True when a behaviour has work of its own, whatever its `Link`: something to validate, convert or serialize
 * differently. Within a route, every version older than one with work has work too (plans only grow with age,
 * and a schema's form never returns to an earlier one).
 */
export function hasWork (behaviour: Omit<VersionBehaviour, 'link' | 'version' | 'deprecations'>): boolean {
  return behaviour.validate.length > 0 || behaviour.requestSteps.length > 0 || behaviour.successWork || behaviour.errorWork ||
    behaviour.rawSteps.length > 0
}

/** Builds the behaviour of `route` in the version at `at.level`; `native` is the response map the route serializes with. */
export function buildBehaviour (
  route: BehaviourRoute,
  at: { readonly level: number, readonly version: string, readonly link: string | undefined },
  native: Readonly<Record<string, TSchema>>,
  planner: ConverterPlanner
): VersionBehaviour {
  const { level, version, link } = at
  const generation = planner.generation
  const requestSteps = planner.requestSteps(route, level)
  const requestForms: Array<readonly [RequestPart, TSchema]> = []
  const validate: Array<readonly [RequestPart, TSchema]> = []
  const cleaners: Array<readonly [RequestPart, ShapeWalk]> = []
  for (const part of REQUEST_PARTS) {
    const head = route.schema[part]
    if (head === undefined) continue
    const form = generation.formAt(head, level)
    const prepared = prepareSchema(form, generation, 'fastify')
    // Fastify validates headers by lower-case names: so does the versioner.
    requestForms.push([part, part === 'headers' ? lowerCaseHeaders(prepared) : prepared])
    // Converters read the request, so with converters every part is checked before them.
    if (form === head && requestSteps.length === 0) continue
    validate.push(requestForms[requestForms.length - 1])
    const cleaner = part === 'body' || part === 'querystring' ? compileShapeWalk(prepared, planner.requestRules) : null
    if (cleaner !== null) cleaners.push([part, cleaner])
  }
  const responses = responseMapAt(route, level)
  const responseForms = new Map<string, TSchema>()
  const responseSteps = new Map<string, readonly ConverterStep[]>()
  const ownSuccessSerializers = new Set<string>()
  const responseGuards = new Map<string, readonly ValueGuard[]>()
  let errorWork = false
  for (const [key, schema] of Object.entries(responses)) {
    const form = prepareSchema(generation.formAt(schema, level), generation, 'fastify')
    responseForms.set(key, form)
    const steps = planner.responseSteps(route, schema, level, isSuccessKey(key) ? undefined : responses)
    responseSteps.set(key, steps)
    const guards = valueGuardsOf(planner, schema, level)
    if (guards.length > 0) responseGuards.set(key, guards)
    if (isSuccessKey(key)) {
      if (native[key] !== form || guards.length > 0) ownSuccessSerializers.add(key)
    } else if (native[key] !== form || guards.length > 0 || steps.some((step) => step.converter.migrateHttpErrors)) {
      errorWork = true
    }
  }
  const withoutSchema = planner.responseSteps(route, undefined, level, responses)
  responseSteps.set('', withoutSchema)
  if (withoutSchema.some((step) => step.converter.migrateHttpErrors)) errorWork = true
  const state = route.timeline[level]
  const statusCode = state.attributes.statusCode
  const successWork = statusCode !== undefined || ownSuccessSerializers.size > 0 ||
    [...responseSteps.entries()].some(([key, steps]) => (key === '' || isSuccessKey(key)) && steps.some((step) => step.errorsOnly !== true))
  // Streams and buffers reach by-path converters only.
  const rawSteps = withoutSchema.filter((step) => step.findOccurrences === undefined && step.converter.target.kind === 'path')
  return {
    version,
    level,
    requestForms,
    validate,
    cleaners,
    requestSteps,
    responseSteps,
    responseForms,
    responseGuards,
    ownSuccessSerializers,
    statusCode,
    successWork,
    errorWork,
    rawSteps,
    state,
    link,
    deprecations: fieldDeprecationsOf(route.display, requestForms, at, generation)
  }
}

/** The route attributes a route schema (or a webhook declaration) can hold: OpenAPI fields `@fastify/swagger` reads. */
const SCHEMA_ATTRIBUTES = ['summary', 'description', 'tags', 'deprecated', 'operationId', 'hide'] as const

/** The route attributes of HEAD, read from a route schema or a webhook declaration (OpenAPI fields used by @fastify/swagger). */
export function attributesOf (source: object | undefined): RouteAttributes {
  if (source === undefined) return {}
  const attributes: Record<string, unknown> = {}
  for (const key of SCHEMA_ATTRIBUTES) {
    const value = (source as Record<string, unknown>)[key]
    if (value !== undefined) attributes[key] = value
  }
  return attributes as RouteAttributes
}

/** The keys of a HEAD route schema a version rebuilds: request parts, responses and attributes. */
const REBUILT_KEYS: ReadonlySet<string> = new Set<string>([...REQUEST_PARTS, 'response', ...SCHEMA_ATTRIBUTES])

/**
 * A HEAD route's schema in the version of `behaviour`, as the documents and `app.versioner.routes` show it:
 * the HEAD schema's other fields (`security`, `externalDocs`, `x-*`…), the version's attributes, and the
 * version's forms of the request parts and responses, each passed through `prepare`; the success responses
 * are under the version's status code when an instruction changed it. The HEAD schema is not changed.
 */
export function routeSchemaIn (
  route: BehaviourRoute,
  behaviour: VersionBehaviour,
  generation: SchemaGeneration,
  prepare: (form: TSchema, part: RequestPart | 'response') => TSchema
): RouteSchema {
  const schema: RouteSchema = {}
  for (const [key, value] of Object.entries(route.schema)) if (!REBUILT_KEYS.has(key)) schema[key] = value
  Object.assign(schema, attributesOf(behaviour.state.attributes))
  for (const part of REQUEST_PARTS) {
    const head = route.schema[part]
    if (head !== undefined) schema[part] = prepare(generation.formAt(head, behaviour.level), part)
  }
  const response: Record<string, TSchema> = {}
  for (const [status, head] of Object.entries(responseMapAt(route, behaviour.level))) {
    const key = behaviour.statusCode !== undefined && isSuccessKey(status) ? String(behaviour.statusCode) : status
    response[key] = prepare(generation.formAt(head, behaviour.level), 'response')
  }
  if (Object.keys(response).length > 0) schema.response = response
  return schema
}
