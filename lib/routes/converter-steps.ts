/**
 * Which converters a request or response of a version goes through, in order: request converters from the
 * requested version up to the latest, response converters from the latest down to the requested version;
 * within a version, its changes in the order listed and each change's converters in declaration order.
 * A by-schema converter applies wherever its schema occurs in the body (as the version before the step
 * lays the body out); a by-path converter applies to the HEAD route whose path and methods it names as
 * they are in the version holding the change.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { Collector } from '../values/occurrences'
import { requestRules } from '../values/shape-walk'
import type { RouteState } from './timeline'
import { NO_SEEDS, type SchemaGeneration } from '../schemas/generation'
import type { ConverterDescriptor } from '../describe/version-change-reader'
import { ConverterTargets, pathConverterMatches } from './converter-targets'
import type { GenerationStep } from '../describe/versions'

/** One converter to run on a request or response, and where in the body. */
export interface ConverterStep {
  readonly converter: ConverterDescriptor
  /** Finds the occurrences of the converter's schema; `undefined` runs it once on the whole body. */
  readonly findOccurrences: Collector | undefined
  /** For a route with several methods: the request methods this converter is for. */
  readonly methods: ReadonlySet<string> | undefined
  /**
   * Set for a by-schema converter declared with `migrateHttpErrors` run on the error responses of a route
   * whose successes hold its schema: it gets the whole error body, and runs for statuses ≥ 300 only.
   */
  readonly errorsOnly?: true
}

/** What the planner needs of a HEAD route. */
export interface PlannedRoute {
  /** The route at every level. */
  readonly timeline: readonly RouteState[]
  /** The HEAD body schema, if any. */
  readonly body: TSchema | undefined
}

/**
 * Per (route, body): the converters each version change step adds (computed once), and the plan of each level
 * (built from the level before it, sharing its list when the step adds nothing).
 */
interface StepLists {
  readonly byStep: Map<TSchema | undefined, Array<readonly ConverterStep[] | undefined>>
  readonly plans: Map<TSchema | undefined, Array<readonly ConverterStep[]>>
}

/** The plans by level of one body (level 0, HEAD, has none). */
function plansOf (lists: StepLists, body: TSchema | undefined): Array<readonly ConverterStep[]> {
  let plans = lists.plans.get(body)
  if (plans === undefined) {
    plans = [NO_STEPS]
    lists.plans.set(body, plans)
  }
  return plans
}

const NO_STEPS: readonly ConverterStep[] = []

/** What converters are planned for: the route's state in the version (none for `migrateResponseBody`), the body, and for errors the route's success bodies. */
interface ConvertedRoute {
  readonly state: RouteState | undefined
  readonly body: TSchema | undefined
  readonly successBodies?: readonly TSchema[]
}

/**
 * Plans converter steps for routes and bodies. Start-up cost grows with routes × versions, not with routes ×
 * versions²: the converters of one step for one (route, body) are computed once and shared by the plans of every
 * version that passes that step, and a collector is compiled only when its target can occur in the body at all.
 */
export class ConverterPlanner {
  /** Where converter targets occur. */
  readonly targets: ConverterTargets
  private readonly requestLists = new WeakMap<PlannedRoute, StepLists>()
  private readonly responseLists = new Map<PlannedRoute | undefined, Map<readonly TSchema[] | undefined, StepLists>>()

  /** The shape walk's rules for requests of older versions, with the walks compiled under them. */
  readonly requestRules = requestRules()
  /** The success schemas of each response map (one list per map: error-response plans are kept per list). */
  private readonly successLists = new WeakMap<object, readonly TSchema[]>()

  constructor (readonly generation: SchemaGeneration, readonly steps: readonly GenerationStep[]) {
    this.targets = new ConverterTargets(generation, steps)
  }

  /** A collector of `target`'s occurrences in data shaped like `root`, both taken at `level`; null if none. */
  collectorFor (root: TSchema, target: TSchema, level: number): Collector | null {
    return this.targets.collectorFor(root, target, level)
  }

  /** The success schemas (status `1xx`–`2xx`) of a response map, one list per map. */
  successBodiesOf (responses: Readonly<Record<string, TSchema>>): readonly TSchema[] {
    let list = this.successLists.get(responses)
    if (list === undefined) {
      list = Object.entries(responses).filter(([key]) => /^[12]/.test(key)).map(([, schema]) => schema)
      this.successLists.set(responses, list)
    }
    return list
  }

  /** True when `target` can occur in data shaped like `root`, both taken at `level` (no collector is compiled). */
  occurs (root: TSchema, target: TSchema, level: number): boolean {
    return this.targets.occurs(root, target, level)
  }

  /**
   * Request converters for a request of the version at `level`, from that version up to the latest: the plan of the
   * version before it with that version's own step in front (the same list when the step adds none). Shared: never
   * change a returned list.
   */
  requestSteps (route: PlannedRoute, level: number): readonly ConverterStep[] {
    let lists = this.requestLists.get(route)
    if (lists === undefined) {
      lists = { byStep: new Map(), plans: new Map() }
      this.requestLists.set(route, lists)
    }
    const plans = plansOf(lists, route.body)
    for (let known = plans.length; known <= level; known++) {
      const step = known - 1
      const own = step < 1 ? NO_STEPS : this.stepList(lists, route.body, step, () => this.addConverters('request', { state: route.timeline[step], body: route.body }, step, step + 1))
      plans[known] = own.length === 0 ? plans[known - 1] ?? NO_STEPS : [...own, ...plans[known - 1]]
    }
    return plans[level]
  }

  /**
   * Response converters for a response of the version at `level`, from the latest down to that version: the plan of
   * the version before it followed by that version's own step (the same list when the step adds none). Shared: never
   * change a returned list. `successBodies` is given for the error responses of a route (its success schemas; pass
   * the same list for the same response map, plans are kept per list):
   * by-schema converters declared with `migrateHttpErrors` whose schema they hold then run on the whole error body.
   */
  responseSteps (route: PlannedRoute | undefined, body: TSchema | undefined, level: number, successBodies?: readonly TSchema[]): readonly ConverterStep[] {
    let byRoute = this.responseLists.get(route)
    if (byRoute === undefined) {
      byRoute = new Map()
      this.responseLists.set(route, byRoute)
    }
    // Error responses are planned per list of success bodies (callers pass one list per response map).
    let lists = byRoute.get(successBodies)
    if (lists === undefined) {
      lists = { byStep: new Map(), plans: new Map() }
      byRoute.set(successBodies, lists)
    }
    const plans = plansOf(lists, body)
    for (let known = plans.length; known <= level; known++) {
      const step = known - 1
      const own = step < 1
        ? NO_STEPS
        : this.stepList(lists, body, step, () => this.addConverters('response', { state: route?.timeline[step], body, successBodies }, step, step))
      plans[known] = own.length === 0 ? plans[known - 1] ?? NO_STEPS : [...plans[known - 1], ...own]
    }
    return plans[level]
  }

  /** The converters of one step for one body, computed by `plan` the first time. */
  private stepList (lists: StepLists, body: TSchema | undefined, step: number, plan: () => ConverterStep[]): readonly ConverterStep[] {
    let byStep = lists.byStep.get(body)
    if (byStep === undefined) {
      byStep = []
      lists.byStep.set(body, byStep)
    }
    let list = byStep[step]
    if (list === undefined) {
      const planned = plan()
      list = planned.length === 0 ? NO_STEPS : planned
      byStep[step] = list
    }
    return list
  }

  /** The converters of the version at `step` that apply, finding schemas in the body as at `bodyLevel`. */
  private addConverters (direction: 'request' | 'response', at: ConvertedRoute, step: number, bodyLevel: number): ConverterStep[] {
    const { state, body, successBodies } = at
    const result: ConverterStep[] = []
    // Most steps name nothing the body (or, for errors, a success body) can hold: told by seeds, before any walk.
    const seedSets = [body, ...successBodies ?? []].map((schema) => schema === undefined ? NO_SEEDS : this.generation.dependenciesAt(schema, bodyLevel))
    if (!this.targets.stepMayApply(step, state, seedSets)) return result
    for (const change of this.steps[step].changes) {
      for (const converter of change.converters) {
        if (converter.direction !== direction) continue
        const target = converter.target
        if (target.kind === 'path') {
          if (state === undefined || !pathConverterMatches(state, target)) continue
          const covers = state.methods.every((method) => target.methods.includes(method))
          result.push({ converter, findOccurrences: undefined, methods: covers ? undefined : new Set(target.methods) })
          continue
        }
        let found = false
        for (const schema of body === undefined ? [] : target.schemas) {
          const collector = this.collectorFor(body as TSchema, schema, bodyLevel)
          if (collector === null) continue
          found = true
          // A body that is the schema itself needs no walk: the step runs on the whole body.
          result.push({ converter, findOccurrences: collector.onlySelf === true ? undefined : collector, methods: undefined })
        }
        if (!found && converter.migrateHttpErrors && successBodies !== undefined &&
          target.schemas.some((schema) => successBodies.some((success) => this.collectorFor(success, schema, bodyLevel) !== null))) {
          // An error of a route whose successes hold the schema passes through the converter, as a whole.
          result.push({ converter, findOccurrences: undefined, methods: undefined, errorsOnly: true })
        }
      }
    }
    return result
  }
}
