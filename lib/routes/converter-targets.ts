/**
 * Where the schema of a by-schema converter can occur in a body at a level: told from seeds first, then collected.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { compileCollector, type Collector } from '../values/occurrences'
import { namesPath, type RouteState } from './timeline'
import type { SchemaGeneration } from '../schemas/generation'
import { sameButModifiers, type Seed } from '../schemas/seeds'
import { kindOf, nameOf, type SchemaObject } from '../core/json-schema'
import { everySubschema } from '../core/subschemas'
import type { ConverterTarget } from '../describe/converter-arguments'
import type { GenerationStep } from '../describe/versions'

/** True when a by-path converter names this route as it stands at a level. */
export function pathConverterMatches (state: RouteState, target: Extract<ConverterTarget, { kind: 'path' }>): boolean {
  return state.exists && namesPath(state, target.path) && state.methods.some((method) => target.methods.includes(method))
}

/** What the converters of one version change step name. */
interface StepTargets {
  readonly seeds: Set<Seed>
  readonly paths: Array<Extract<ConverterTarget, { kind: 'path' }>>
  unknown: boolean
}

/** Collectors, occurrence checks and per-step converter targets of one application, cached. */
export class ConverterTargets {
  private readonly collectors = new Map<TSchema, Map<TSchema, Collector | null>>()
  /** Every schema a body form can hold (subschemas and the schemas its `$ref`s name), by body form. */
  private readonly reachable = new WeakMap<TSchema, readonly TSchema[]>()
  private readonly stepTargets: Array<StepTargets | undefined> = []

  constructor (private readonly generation: SchemaGeneration, private readonly steps: readonly GenerationStep[]) {}

  /**
   * False when no converter of step `step` can apply to a route in `state` (undefined outside routes) whose schemas
   * depend on the seeds of `seedSets` only; true when unsure (a set undefined).
   */
  stepMayApply (step: number, state: RouteState | undefined, seedSets: ReadonlyArray<ReadonlySet<Seed> | undefined>): boolean {
    const targets = this.targetsOf(step)
    if (targets.unknown || (state !== undefined && targets.paths.some((target) => pathConverterMatches(state, target)))) return true
    if (targets.seeds.size === 0) return false
    for (const seeds of seedSets) {
      if (seeds === undefined) return true
      for (const seed of targets.seeds) if (seeds.has(seed)) return true
    }
    return false
  }

  /** The seeds the by-schema converters of a step name, its by-path converters, and whether a schema stands for no seed. */
  private targetsOf (step: number): StepTargets {
    let targets = this.stepTargets[step]
    if (targets !== undefined) return targets
    targets = { seeds: new Set(), paths: [], unknown: false }
    for (const change of this.steps[step].changes) {
      for (const { target } of change.converters) {
        if (target.kind === 'path') {
          targets.paths.push(target)
          continue
        }
        for (const schema of target.schemas) {
          const seed = this.generation.seedOf(schema)
          if (seed === undefined) targets.unknown = true
          else targets.seeds.add(seed)
        }
      }
    }
    this.stepTargets[step] = targets
    return targets
  }

  /** A collector of `target`'s occurrences in data shaped like `root`, both taken at `level`; null if none. */
  collectorFor (root: TSchema, target: TSchema, level: number): Collector | null {
    const rootForm = this.generation.formAt(root, level)
    const targetForm = this.generation.formAt(this.generation.canonical(target), level)
    let byTarget = this.collectors.get(rootForm)
    if (byTarget === undefined) {
      byTarget = new Map()
      this.collectors.set(rootForm, byTarget)
    }
    if (byTarget.has(targetForm)) return byTarget.get(targetForm) ?? null
    const isTarget = this.matcherOf(targetForm)
    // Most (body, converter) pairs never meet: tell so from the schemas the body can hold, without compiling a walk.
    const collector = this.reachableFrom(rootForm).some(isTarget)
      ? compileCollector(rootForm, { isTarget, resolveRef: (ref) => this.generation.resolveAnyId(ref) })
      : null
    byTarget.set(targetForm, collector)
    return collector
  }

  /** True when `target` can occur in data shaped like `root`, both taken at `level` (no collector is compiled). */
  occurs (root: TSchema, target: TSchema, level: number): boolean {
    return this.reachableFrom(this.generation.formAt(root, level)).some(this.formOf(target, level))
  }

  /** Tells the nodes that are `target`'s form at `level` (see {@link matcherOf}), in forms of that level. */
  formOf (target: TSchema, level: number): (node: TSchema) => boolean {
    return this.matcherOf(this.generation.formAt(this.generation.canonical(target), level))
  }

  /** Tells a node that is `targetForm`: the same object, the same `$id`, or the same schema but for modifiers. */
  private matcherOf (targetForm: TSchema): (node: TSchema) => boolean {
    const id = nameOf(targetForm)
    const wanted = targetForm as SchemaObject
    return (node: TSchema): boolean => {
      if (node === targetForm) return true
      const candidate = node as SchemaObject
      if (id !== undefined && candidate.$id === id) return true
      // A plain JSON copy (Fastify's of a schema given to `addSchema`) stands for the seed it equals, and so does a copy
      // TypeBox made inside a Type.Recursive (../schemas/seeds.ts).
      if (this.generation.canonical(node) === targetForm) return true
      // sameButModifiers needs every keyword equal: compare the telling ones before listing keys.
      return candidate.type === wanted.type && candidate.properties === wanted.properties && candidate.items === wanted.items &&
        kindOf(candidate) === kindOf(wanted) && sameButModifiers(node, targetForm)
    }
  }

  /**
   * Every schema data shaped like `root` can meet, depth first, `$ref`s resolved: a superset of what a collector
   * walks, so a target found nowhere here occurs nowhere.
   */
  reachableFrom (root: TSchema): readonly TSchema[] {
    const known = this.reachable.get(root)
    if (known !== undefined) return known
    const list = [...everySubschema([root], (ref) => this.generation.resolveAnyId(ref))]
    this.reachable.set(root, list)
    return list
  }
}
