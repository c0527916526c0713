/**
 * Enums a version narrows: the HEAD members a version's enum lacks (`enumeration(E).didntHave(...)`, or a member
 * renamed with `had`). A HEAD value of such a member cannot be expressed in that version unless a response converter
 * maps it: the runtime checks converted responses for them (see ../routes/value-guards.ts) and `verify` generates them.
 * @module
 */
import type { SchemaGeneration } from './generation'
import type { Seed } from './seeds'

/** An enum seed narrowed at a level: the values the level allows, and the level where each HEAD value went missing. */
interface NarrowedEnum {
  readonly seed: Seed
  readonly allowed: ReadonlySet<unknown>
  /** HEAD value → the first level (newest first) that lacks it. */
  readonly removedAt: ReadonlyMap<unknown, number>
}

function valuesAt (generation: SchemaGeneration, seed: Seed, level: number): Set<unknown> | undefined {
  const state = generation.stateAt(seed.head, level)
  return state.kind === 'enum' ? new Set(state.members.map((member) => member.value)) : undefined
}

/** The enum seeds whose form at `level` lacks values HEAD has. */
export function narrowedEnums (generation: SchemaGeneration, level: number): NarrowedEnum[] {
  const changed = new Set<Seed>()
  for (let at = 1; at <= level; at++) for (const seed of generation.seedsChangedAt(at)) changed.add(seed)
  const result: NarrowedEnum[] = []
  for (const seed of changed) {
    const head = valuesAt(generation, seed, 0)
    const allowed = valuesAt(generation, seed, level)
    if (head === undefined || allowed === undefined || [...head].every((value) => allowed.has(value))) continue
    const removedAt = new Map<unknown, number>()
    for (let at = 1; at <= level; at++) {
      const values = valuesAt(generation, seed, at) as Set<unknown>
      for (const value of head) if (!values.has(value) && !removedAt.has(value)) removedAt.set(value, at)
    }
    result.push({ seed, allowed, removedAt })
  }
  return result
}
