/**
 * Which converters a request or response of a version goes through, in order: requests up to the latest version,
 * responses down from it; within a version, its changes as listed (the last first for a request) and each change's
 * converters as declared.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { Collector } from '../values/occurrences'
import { writtenPlacesOf, type WrittenPlaces } from '../values/written-values'
import { requestRules, walkRules, type WalkRules } from '../values/shape-walk'
import type { RouteState } from './timeline'
import { NO_SEEDS, type SchemaGeneration } from '../schemas/generation'
import type { ConverterDescriptor } from '../describe/version-change-reader'
import { ConverterTargets, pathConverterMatches } from './converter-targets'
import { ChangeLevels } from './change-levels'
import type { GenerationStep } from '../describe/versions'
import { answersSuccess } from './schema-forms'
import { valueGuardsOf, type ValueGuard } from './value-guards'
import { isSchemaObject, type SchemaObject } from '../core/json-schema'
import type { FormDeprecations } from './field-deprecations'

/** One converter to run on a request or response, and where in the body. */
export interface ConverterStep {
  readonly converter: ConverterDescriptor
  /** Finds the occurrences of the converter's schema; `undefined` runs it once on the whole body. */
  readonly findOccurrences: Collector | undefined
  /** For a route with several methods: the request methods this converter is for. */
  readonly methods: ReadonlySet<string> | undefined
  /** A `migrateHttpErrors` converter of a schema the route's successes hold: the whole error body, statuses ≥ 300. */
  readonly errorsOnly?: true
  /**
   * Requests: the optional keys the runner removes when the converter left them `undefined`; absent (every key looked
   * at) where no form lists its keys, and for a by-path converter.
   */
  readonly optionalKeys?: readonly string[]
}

/** What the planner needs of a HEAD route. */
export interface PlannedRoute {
  /** The route at every level. */
  readonly timeline: readonly RouteState[]
  /** Its responses at every level (an endpoint instruction may give a version others): where a response step finds schemas. */
  readonly forms?: { readonly responses: ReadonlyArray<{ readonly schemas: Readonly<Record<string, TSchema>> }> }
}

const NO_STEPS: readonly ConverterStep[] = []

/** What converters are planned for: the route's state in the version (none for `migrateResponseBody`), the body, and for errors the route's success bodies. */
interface ConvertedRoute {
  readonly state: RouteState | undefined
  readonly body: TSchema | undefined
  readonly successBodies?: readonly TSchema[]
}

/**
 * Plans converter steps for routes and bodies: one step's converters for one (route, body) are computed once and
 * shared by every version that passes it, so start-up grows with routes × versions, not versions².
 */
export class ConverterPlanner {
  /** Where converter targets occur. */
  readonly targets: ConverterTargets
  /**
   * The plans by level (index = level; HEAD has none) by route, then by `'request'` or the response slot, then by
   * the response map an error response plan is for, then by body.
   */
  private readonly plans = new Map<PlannedRoute | undefined, Map<string, Map<unknown, Map<TSchema | undefined, Array<readonly ConverterStep[]>>>>>()
  /** Where HEAD's serializer writes a body of each HEAD schema other than JSON does: one a schema, for every route and version. */
  private readonly written = new Map<TSchema, WrittenPlaces>()
  /** What each request part form holds of deprecated fields (./field-deprecations.ts): one walk a form, for every route and version. */
  readonly deprecations = new WeakMap<TSchema, FormDeprecations | null>()
  /** The guards of each HEAD schema at each level (./value-guards.ts): one list a schema and level, for every route. */
  private readonly guards = new Map<TSchema, Map<number, readonly ValueGuard[]>>()

  /** The shapes between the changes of a version holding several, made on first need. */
  private between: ChangeLevels | undefined

  /** The shape walk's rules for requests of older versions, with the walks compiled under them. */
  readonly requestRules: WalkRules
  /** The shape walk's rules for converted responses of older versions: only the fields of HEAD an open object lacks go. */
  readonly responseRules: WalkRules
  constructor (readonly generation: SchemaGeneration, readonly steps: readonly GenerationStep[]) {
    this.targets = new ConverterTargets(generation, steps)
    this.requestRules = requestRules((ref) => generation.resolveAnyId(ref))
    this.responseRules = walkRules({ removeFrom: 'lacked', fillDefaults: false, resolveRef: this.requestRules.resolveRef })
  }

  /** Request converters of the version at `level` for a body of HEAD schema `body`, up to the latest. Shared: never change it. */
  requestSteps (route: PlannedRoute, body: TSchema | undefined, level: number): readonly ConverterStep[] {
    return this.stepsOf('request', route, body, level)
  }

  /**
   * Response converters from the latest down to the version at `level`. Shared: never change it. `responses` (by slot)
   * is given for error responses (`migrateHttpErrors` converters of a success schema run on them); `slot` finds the
   * schema the response has at each step's level (`had({ response })` may give older versions another).
   */
  responseSteps (route: PlannedRoute | undefined, body: TSchema | undefined, level: number, responses?: Readonly<Record<string, TSchema>>, slot?: string): readonly ConverterStep[] {
    return this.stepsOf('response', route, body, level, { responses, slot })
  }

  /** Where data of the HEAD schema `schema` at `level` may hold a HEAD value the version cannot express; shared. */
  guardsOf (schema: TSchema, level: number): readonly ValueGuard[] {
    let byLevel = this.guards.get(schema)
    if (byLevel === undefined) this.guards.set(schema, byLevel = new Map())
    let guards = byLevel.get(level)
    if (guards === undefined) byLevel.set(level, guards = valueGuardsOf(this, schema, level))
    return guards
  }

  /** Where HEAD's serializer writes a body of the HEAD schema `schema` other than JSON does (../values/written-values.ts); shared. */
  writtenPlaces (schema: TSchema): WrittenPlaces {
    let places = this.written.get(schema)
    if (places === undefined) this.written.set(schema, places = writtenPlacesOf(schema, (ref) => this.generation.resolveAnyId(ref)))
    return places
  }

  /** The plan at `level`, built level by level from the plan of the level before it and its own step. */
  private stepsOf (direction: 'request' | 'response', route: PlannedRoute | undefined, body: TSchema | undefined, level: number,
    { responses, slot }: { responses?: Readonly<Record<string, TSchema>>, slot?: string } = {}): readonly ConverterStep[] {
    let byKind = this.plans.get(route)
    if (byKind === undefined) this.plans.set(route, byKind = new Map())
    // One chain of plans per slot too: two slots holding one schema at this level may hold others at a newer one.
    const kind = direction === 'request' ? direction : `response ${slot ?? ''}`
    let bySlot = byKind.get(kind)
    if (bySlot === undefined) byKind.set(kind, bySlot = new Map())
    let byBody = bySlot.get(responses)
    if (byBody === undefined) bySlot.set(responses, byBody = new Map())
    let plans = byBody.get(body)
    if (plans === undefined) byBody.set(body, plans = [NO_STEPS])
    const successBodies = responses === undefined ? undefined : Object.keys(responses).filter(answersSuccess).map((key) => responses[key])
    for (let known = plans.length; known <= level; known++) {
      const step = known - 1
      // Schemas are found in the body as it stands before the step's converters: older for a request, newer for a response
      // (the schema the route's response has at that level, for a slot).
      const bodyThen = slot === undefined ? body : route?.forms?.responses[step]?.schemas[slot] ?? body
      const at = { state: route?.timeline[step], body: bodyThen, successBodies }
      const own = step < 1 ? NO_STEPS : this.addConverters(direction, at, step, direction === 'request' ? step + 1 : step)
      const before = plans[known - 1]
      plans[known] = own.length === 0 ? before : direction === 'request' ? [...own, ...before] : [...before, ...own]
    }
    return plans[level]
  }

  /** The converters of the version at `step` that apply, finding schemas in the body as at `bodyLevel`. */
  private addConverters (direction: 'request' | 'response', at: ConvertedRoute, step: number, bodyLevel: number): ConverterStep[] {
    const { state, body, successBodies } = at
    const result: ConverterStep[] = []
    // Most steps name nothing the body (or, for errors, a success body) can hold: told by seeds, before any walk.
    const seedSets = [body, ...successBodies ?? []].map((schema) => schema === undefined ? NO_SEEDS : this.generation.dependenciesAt(schema, bodyLevel))
    if (!this.targets.stepMayApply(step, state, seedSets)) return result
    // A version's changes are listed newest first (each one's instructions read the schemas the ones before it left):
    // a request passes them from the last listed to the first, a response from the first to the last.
    const listed = this.steps[step].changes
    const changes = direction === 'request' ? [...listed].reverse() : listed
    for (const change of changes) {
      // With several changes, each one's converters find schemas where the changes run before them left them (decision 0246).
      const between = listed.length < 2 ? undefined : { step, index: listed.indexOf(change), direction }
      for (const converter of change.converters) {
        if (converter.direction !== direction) continue
        const target = converter.target
        if (target.kind === 'path') {
          if (state === undefined || !pathConverterMatches(state, target)) continue
          const covers = state.methods.every((method) => target.methods.includes(method))
          // Fastify's HEAD twin of a GET is served as the GET: its requests pass the GET's converters too.
          const twin = target.methods.includes('GET') && !state.methods.includes('HEAD') ? ['HEAD'] : []
          result.push({ converter, findOccurrences: undefined, methods: covers ? undefined : new Set([...target.methods, ...twin]) })
          continue
        }
        let found = false
        for (const schema of body === undefined ? [] : target.schemas) {
          const there = between === undefined ? undefined : this.changeLevels().collectorFor(body as TSchema, schema, between)
          const collector = there === undefined ? this.targets.collectorFor(body as TSchema, schema, bodyLevel) : there
          if (collector === null) continue
          found = true
          // A body that is the schema itself needs no walk: the step runs on the whole body.
          result.push({ converter, findOccurrences: collector.onlySelf === true ? undefined : collector, methods: undefined, ...this.keysLeftOut(direction, schema, step) })
        }
        if (!found && converter.migrateHttpErrors && successBodies !== undefined &&
          target.schemas.some((schema) => successBodies.some((success) => this.targets.collectorFor(success, schema, bodyLevel) !== null))) {
          // An error of a route whose successes hold the schema passes through the converter, as a whole.
          result.push({ converter, findOccurrences: undefined, methods: undefined, errorsOnly: true })
        }
      }
    }
    return result
  }

  /** The shapes between the changes of a version (./change-levels.ts); the `types` tool types converters by them. */
  changeLevels (): ChangeLevels {
    this.between ??= new ChangeLevels(this.generation, this.steps)
    return this.between
  }

  /** For a request step on objects of `schema`, {@link ConverterStep.optionalKeys}; none for a response. */
  private keysLeftOut (direction: 'request' | 'response', schema: TSchema, level: number): { optionalKeys?: readonly string[] } {
    if (direction === 'response') return {}
    const after = optionalKeysOf(this.generation.formAt(schema, level))
    const head = optionalKeysOf(schema)
    if (after === undefined || head === undefined) return {}
    return { optionalKeys: [...new Set([...after, ...head])] }
  }
}

/** The optional properties of an object schema that lists its keys; undefined for any other (a union, a record). */
function optionalKeysOf (form: TSchema): string[] | undefined {
  const { type, properties, required, patternProperties, additionalProperties } = form as SchemaObject
  if (type !== 'object' || !isSchemaObject(properties) || patternProperties !== undefined || isSchemaObject(additionalProperties)) return undefined
  const listed = new Set(Array.isArray(required) ? required : [])
  return Object.keys(properties).filter((key) => !listed.has(key))
}
