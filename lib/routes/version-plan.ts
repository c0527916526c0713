/**
 * Stage `lib/routes/`: what a route does in one version (parts validated by hand, converters, response schemas),
 * planned once per route and version; a request only looks its version up.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { ConverterPlanner, ConverterStep, PlannedRoute } from './converter-steps'
import { compileShapeWalk, type ShapeWalk } from '../values/shape-walk'
import { lackedHeadersWalk } from '../values/shapes'
import type { WrittenPlaces } from '../values/written-values'
import type { RouteAttributes, RouteState } from './timeline'
import type { SchemaGeneration } from '../schemas/generation'
import type { ValueGuard } from './value-guards'
import { lowerCaseHeaders, prepareSchema, selfContained } from './prepared-schemas'
import { fieldDeprecationsOf, type FieldDeprecations } from './field-deprecations'
import { lackedFieldsIn } from './full-replace'
import { answersSuccess, mediaTypeOf, rebuildBody, rebuildResponses, type RouteForms, type SchemaSlots } from './schema-forms'

/** The request parts Fastify validates. */
export type RequestPart = 'body' | 'querystring' | 'params' | 'headers'

/** The request parts, in the order Fastify validates them. */
export const REQUEST_PARTS: readonly RequestPart[] = ['params', 'body', 'querystring', 'headers']

/**
 * A route's schema as Fastify takes it (the body and responses in any of Fastify's forms: ./schema-forms.ts).
 * @example
 * ```ts
 * declare const app: FastifyInstance // ready
 * const takesBody = (schema: RouteSchema): boolean => schema.body !== undefined
 * const writes = (app.versioner.routes.get('2000-01-01') ?? []).filter((route) => takesBody(route.schema))
 * ```
 */
export interface RouteSchema {
  body?: unknown
  querystring?: TSchema
  params?: TSchema
  headers?: TSchema
  response?: Record<string, unknown>
  [keyword: string]: unknown
}

/** What a version does with a request (for a body declared by media type, with a body of one media type). */
export interface RequestPlan {
  /** The schema of each request part in this version, ready for Fastify (headers by lower-case names, as Fastify validates them). */
  readonly requestForms: ReadonlyArray<readonly [RequestPart, TSchema]>
  /** Request parts checked by hand against this version's schemas, before conversion (a HEAD-validation failure on one of them is a migration bug: 500). */
  readonly validate: ReadonlyArray<readonly [RequestPart, TSchema]>
  /** Remove fields this version's (rebuilt) schemas lack from the body and query string, before converters. */
  readonly cleaners: ReadonlyArray<readonly [RequestPart, ShapeWalk]>
  readonly requestSteps: readonly ConverterStep[]
  /** Where deprecated fields sit in this version's requests; `undefined` (nothing to check) when nowhere. */
  readonly deprecations: FieldDeprecations | undefined
  /**
   * The HEAD body fields this version cannot express (./full-replace.ts), found on the first call; given a request's
   * HEAD body, those its union members lack where two object members lack different ones.
   */
  readonly lackedFields: (body?: { readonly value: unknown }) => readonly string[]
}

/** One version of one route. */
export interface VersionBehaviour extends RequestPlan {
  readonly version: string
  readonly level: number
  /** For a body declared by media type, the plan of each; the behaviour's own serves other media types. */
  readonly bodyPlans: ReadonlyMap<string, RequestPlan> | undefined
  /** The route's response slots in this version (which schema answers which status and media type). */
  readonly responses: SchemaSlots
  /** Response converter steps by response slot (`''` for responses without a schema). */
  readonly responseSteps: ReadonlyMap<string, readonly ConverterStep[]>
  /** This version's response schemas by slot (ready for Fastify). */
  readonly responseForms: ReadonlyMap<string, TSchema>
  /** By slot, the walk removing the fields of HEAD its open objects lack from a converted response (none for most slots). */
  readonly responseCleaners: ReadonlyMap<string, ShapeWalk>
  /** By slot, where HEAD's serializer writes other than JSON (a `Date` as a date or a time, a getter's field), for the copy converters get. */
  readonly responseWritten: ReadonlyMap<string, WrittenPlaces>
  /** By slot, HEAD's schema (ready for Fastify): a body JSON cannot write (a cycle) is copied as its serializer writes it. */
  readonly responseHeadForms: ReadonlyMap<string, TSchema>
  /** By slot, where a converted response may hold a HEAD value this version cannot express (./value-guards.ts). */
  readonly responseGuards: ReadonlyMap<string, readonly ValueGuard[]>
  /** Slots answering successes (`default` too) whose schema differs from the one the route serializes with natively. */
  readonly ownSuccessSerializers: ReadonlySet<string>
  /** The status of a successful response in this version, when an instruction changed it. */
  readonly statusCode: number | undefined
  /** True when successful object payloads need the preSerialization hook. */
  readonly successWork: boolean
  /** True when successful JSON text needs the onSend hook: `successWork`, or a success schema other than HEAD's (decision 0251). */
  readonly textWork: boolean
  /** True when a declared success has by-schema converters or a schema other than HEAD's: an undeclared status is warned of (decision 0252). */
  readonly declaredSuccessWork: boolean
  /** The undeclared success statuses warned of in this version (FSTVRS006, once each). */
  readonly undeclaredStatuses: Set<number>
  /** True when error responses need the onSend hook (converters with migrateHttpErrors, or other schemas). */
  readonly errorWork: boolean
  /** By-path response converters, which also see streamed or raw payloads. */
  readonly rawSteps: readonly ConverterStep[]
  /** The route in this version (path, methods, attributes). */
  readonly state: RouteState
}

/** True for a response status key (or slot) of a success (`1xx`-`2xx`). */
export function isSuccessKey (key: string): boolean {
  return /^[12]/.test(key)
}

/** The request plan of a request whose `Content-Type` is `contentType`: by its media type, as Fastify validates the body. */
export function requestPlanOf (behaviour: VersionBehaviour, contentType: unknown): RequestPlan {
  if (behaviour.bodyPlans === undefined) return behaviour
  const media = mediaTypeOf(contentType)
  return media === undefined ? behaviour : behaviour.bodyPlans.get(media) ?? behaviour
}

/** Every request plan of a behaviour: its own, then one per body media type. */
export function requestPlans (behaviour: VersionBehaviour): RequestPlan[] {
  return behaviour.bodyPlans === undefined ? [behaviour] : [behaviour, ...behaviour.bodyPlans.values()]
}

/** The HEAD facts of a route that behaviours are built from. */
export interface BehaviourRoute extends PlannedRoute {
  readonly schema: RouteSchema
  /** Its schemas read into slots (./schema-forms.ts). */
  readonly forms: RouteForms
  /** `METHOD url`, for error messages. */
  readonly display: string
}

/** Every HEAD schema of a route's request: its parts', and its body's for every media type. */
export function requestSchemas (route: Pick<BehaviourRoute, 'forms'>): TSchema[] {
  return [...Object.values(route.forms.parts), ...Object.values(route.forms.body.schemas)]
}

/** Every HEAD schema of a route: its request's, and its responses' at `level` (at every level without one). */
export function routeSchemas (route: Pick<BehaviourRoute, 'forms'>, level?: number): TSchema[] {
  const responses = level === undefined ? new Set(route.forms.responses) : [route.forms.responses[level]]
  return [...requestSchemas(route), ...[...responses].flatMap((slots) => Object.values(slots.schemas))]
}

/** The HEAD schema of a request part: for the body, the one of slot `body` (`''`, or a media type). */
export function headPart (route: BehaviourRoute, part: RequestPart, body: string | undefined): TSchema | undefined {
  return part === 'body' ? body === undefined ? undefined : route.forms.body.schemas[body] : route.forms.parts[part]
}

/** True when a request plan has work: something to validate or convert. */
function planHasWork (plan: RequestPlan): boolean {
  return plan.validate.length > 0 || plan.requestSteps.length > 0
}

/**
 * True when a behaviour has something to validate, convert or serialize differently. Every version older than one
 * with work has work too: plans only grow with age.
 */
export function hasWork (behaviour: Omit<VersionBehaviour, 'version'>): boolean {
  return planHasWork(behaviour) || [...behaviour.bodyPlans?.values() ?? []].some(planHasWork) || behaviour.successWork || behaviour.errorWork ||
    behaviour.rawSteps.length > 0
}

/** Where a behaviour is built: its level and version. */
interface At { readonly level: number, readonly version: string }

/** The request plan of `route` at `at.level` for a body of slot `body` (`undefined`: no body schema). */
function buildRequestPlan (route: BehaviourRoute, at: At, body: string | undefined, planner: ConverterPlanner): RequestPlan {
  const { level } = at
  const generation = planner.generation
  const requestSteps = planner.requestSteps(route, headPart(route, 'body', body), level)
  const requestForms: Array<readonly [RequestPart, TSchema]> = []
  const validate: Array<readonly [RequestPart, TSchema]> = []
  const cleaners: Array<readonly [RequestPart, ShapeWalk]> = []
  for (const part of REQUEST_PARTS) {
    const head = headPart(route, part, body)
    if (head === undefined) continue
    const form = generation.formAt(head, level)
    const prepared = selfContained(prepareSchema(form, generation, 'fastify'))
    // Fastify validates headers by lower-case names: so does the versioner.
    requestForms.push([part, part === 'headers' ? lowerCaseHeaders(prepared) : prepared])
    // Converters read the request, so with converters every part is checked before them.
    if (form === head && requestSteps.length === 0) continue
    validate.push(requestForms[requestForms.length - 1])
    const cleaner = part === 'headers'
      ? lackedHeadersWalk(head, form, planner.requestRules.resolveRef)
      : part === 'body' || part === 'querystring' ? compileShapeWalk(prepared, planner.requestRules) : null
    if (cleaner !== null) cleaners.push([part, cleaner])
  }
  const deprecations = fieldDeprecationsOf(route.display, requestForms, at, generation, planner.deprecations)
  let lacked: ((body?: { readonly value: unknown }) => readonly string[]) | undefined
  const lackedFields = (sent?: { readonly value: unknown }): readonly string[] => (lacked ??= lackedFieldsIn(headPart(route, 'body', body), level, generation))(sent)
  return { requestForms, validate, cleaners, requestSteps, deprecations, lackedFields }
}

/** The response side of a behaviour (see {@link VersionBehaviour}). */
type ResponsePlan = Pick<VersionBehaviour, 'responses' | 'responseSteps' | 'responseForms' | 'responseCleaners' | 'responseWritten' | 'responseHeadForms' | 'responseGuards' | 'ownSuccessSerializers' | 'errorWork' | 'rawSteps'>

/**
 * The response side of `route` at `level`, slot by slot: success slots go through the success hook, error slots
 * reach `migrateHttpErrors` converters only, and `default` is both (../serve/step-runner.ts).
 */
function buildResponsePlan (route: BehaviourRoute, level: number, native: Readonly<Record<string, TSchema>>, planner: ConverterPlanner): ResponsePlan {
  const generation = planner.generation
  const responses = route.forms.responses[level]
  const responseForms = new Map<string, TSchema>()
  const responseSteps = new Map<string, readonly ConverterStep[]>()
  const ownSuccessSerializers = new Set<string>()
  const responseGuards = new Map<string, readonly ValueGuard[]>()
  const responseCleaners = new Map<string, ShapeWalk>()
  const responseWritten = new Map<string, WrittenPlaces>()
  const responseHeadForms = new Map<string, TSchema>()
  let errorWork = false
  for (const [slot, schema] of Object.entries(responses.schemas)) {
    const prepared = prepareSchema(generation.formAt(schema, level), generation, 'fastify')
    // Fastify caches a serializer by schema: a form two slots share is copied, each compiled with its status and media type.
    const form = [...responseForms.values()].includes(prepared) ? { ...prepared } as TSchema : prepared
    responseForms.set(slot, form)
    const cleaner = compileShapeWalk(form, planner.responseRules)
    if (cleaner !== null) responseCleaners.set(slot, cleaner)
    responseWritten.set(slot, planner.writtenPlaces(schema))
    responseHeadForms.set(slot, prepareSchema(schema, generation, 'fastify'))
    const errors = !isSuccessKey(slot)
    const steps = planner.responseSteps(route, schema, level, errors ? responses.schemas : undefined, slot)
    responseSteps.set(slot, steps)
    const guards = planner.guardsOf(schema, level)
    if (guards.length > 0) responseGuards.set(slot, guards)
    if (answersSuccess(slot) && (native[slot] !== prepared || guards.length > 0)) ownSuccessSerializers.add(slot)
    if (errors && (native[slot] !== prepared || guards.length > 0 || cleaner !== null || steps.some((step) => step.converter.migrateHttpErrors))) errorWork = true
  }
  const withoutSchema = planner.responseSteps(route, undefined, level, responses.schemas)
  responseSteps.set('', withoutSchema)
  if (withoutSchema.some((step) => step.converter.migrateHttpErrors)) errorWork = true
  // Streams and buffers reach by-path converters only.
  const rawSteps = withoutSchema.filter((step) => step.findOccurrences === undefined && step.converter.target.kind === 'path')
  return { responses, responseSteps, responseForms, responseCleaners, responseWritten, responseHeadForms, responseGuards, ownSuccessSerializers, errorWork, rawSteps }
}

/** Builds the behaviour of `route` at `at.level`; `native` is the response map the route serializes with, by slot. */
export function buildBehaviour (route: BehaviourRoute, at: At, native: Readonly<Record<string, TSchema>>, planner: ConverterPlanner): VersionBehaviour {
  const { level, version } = at
  const body = route.forms.body.schemas
  const short = '' in body
  const own = buildRequestPlan(route, at, short ? '' : undefined, planner)
  const bodyPlans = !short && Object.keys(body).length > 0 ? new Map(Object.keys(body).map((media) => [media, buildRequestPlan(route, at, media, planner)])) : undefined
  const response = buildResponsePlan(route, level, native, planner)
  const state = route.timeline[level]
  const statusCode = state.attributes.statusCode
  const successWork = statusCode !== undefined || response.ownSuccessSerializers.size > 0 || [...response.responseCleaners.keys()].some(answersSuccess) ||
    [...response.responseSteps.entries()].some(([slot, steps]) => (slot === '' || answersSuccess(slot)) && steps.some((step) => step.errorsOnly !== true))
  // JSON text is HEAD's: a version whose success schema is not HEAD's (a HeadVersion hides a field) serializes it again.
  const successes = [...response.responseForms].filter(([slot]) => answersSuccess(slot))
  const otherForm = successes.some(([slot, form]) => !sameSchema(form, response.responseHeadForms.get(slot)))
  const textWork = successWork || otherForm
  const declaredSuccessWork = otherForm || successes.some(([slot]) => response.responseSteps.get(slot)?.some((step) => step.converter.target.kind !== 'path') === true)
  return { version, level, ...own, bodyPlans, ...response, statusCode, successWork, textWork, declaredSuccessWork, undeclaredStatuses: new Set(), state }
}

/** True when two prepared schemas are one, or write alike. */
function sameSchema (a: TSchema, b: TSchema | undefined): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b)
}

/** The route attributes a route schema (or a webhook declaration) can hold: OpenAPI fields `@fastify/swagger` reads. */
const SCHEMA_ATTRIBUTES = ['summary', 'description', 'tags', 'deprecated', 'operationId', 'hide'] as const

/** The route attributes of HEAD, read from a route schema or a webhook declaration (OpenAPI fields used by @fastify/swagger). */
export function attributesOf (source: object): RouteAttributes {
  const attributes: Record<string, unknown> = {}
  for (const key of SCHEMA_ATTRIBUTES) {
    const value = (source as Record<string, unknown>)[key]
    if (value !== undefined) attributes[key] = value
  }
  return attributes as RouteAttributes
}

/** The keys of a HEAD route schema a version rebuilds: request parts, responses and attributes. */
const REBUILT_KEYS: ReadonlySet<string> = new Set<string>([...REQUEST_PARTS, 'query', 'response', ...SCHEMA_ATTRIBUTES])

/**
 * A HEAD route's schema in the version of `behaviour`, as documents show it: HEAD's other fields, the version's
 * attributes and forms (each through `prepare`), successes under the version's status code. HEAD's is not changed.
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
  const { level, statusCode } = behaviour
  for (const [part, head] of Object.entries(route.forms.parts)) schema[part] = prepare(generation.formAt(head, level), part as RequestPart)
  if (route.schema.body !== undefined) schema.body = rebuildBody(route.forms.body, (_slot, head) => prepare(generation.formAt(head, level), 'body'))
  const response = rebuildResponses(route.forms.responses[level], (_slot, head) => prepare(generation.formAt(head, level), 'response'),
    (key) => statusCode !== undefined && isSuccessKey(key) ? String(statusCode) : key)
  if (Object.keys(response).length > 0) schema.response = response
  return schema
}
