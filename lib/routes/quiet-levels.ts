/**
 * Telling, without planning it, that a route does in one version what it does in the version after it, so an idle
 * version is known at registration (../serve/route-preparation.ts).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { Seed } from '../schemas/seeds'
import type { SchemaGeneration } from '../schemas/generation'
import type { ConverterPlanner } from './converter-steps'
import { routeSchemas, type BehaviourRoute } from './version-plan'

/** Every seed `schemas` may hold or depend on at `level` (a superset), or undefined when one is not known. */
export function seedsOf (generation: SchemaGeneration, schemas: ReadonlyArray<TSchema | undefined>, level: number): ReadonlySet<Seed> | undefined {
  const seeds = new Set<Seed>()
  for (const schema of schemas) {
    if (schema === undefined) continue
    const dependencies = generation.dependenciesAt(schema, level)
    if (dependencies === undefined) return undefined
    for (const seed of dependencies) seeds.add(seed)
  }
  return seeds
}

/** Every seed the route's request parts and responses may hold or depend on at `level`, or undefined when unknown. */
export function routeSeeds (route: BehaviourRoute, level: number, generation: SchemaGeneration): ReadonlySet<Seed> | undefined {
  return seedsOf(generation, routeSchemas(route, level), level)
}

/**
 * True when the route certainly does at `level` (2 or more) what it does at `level - 1`: the same route state, no
 * instruction of `level` changes a seed of `seeds` ({@link routeSeeds} at `level - 1`), and no converter can apply.
 */
export function quietLevel (route: BehaviourRoute, level: number, seeds: ReadonlySet<Seed> | undefined, planner: ConverterPlanner): boolean {
  return seeds !== undefined && route.timeline[level] === route.timeline[level - 1] && !planner.generation.changesAt(level, seeds) &&
    !planner.targets.stepMayApply(level - 1, route.timeline[level - 1], [seeds])
}
