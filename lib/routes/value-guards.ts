/**
 * Guards against HEAD values a version cannot express: an enum member the version lacks, which its serializer would
 * otherwise fail on or send as it is. Planned once per (schema, version); none where no enum is narrowed.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { RouterPathParamsModifiedError } from '../core/errors'
import { isEndpointInstruction } from '../describe/instructions'
import type { SchemaGeneration } from '../schemas/generation'
import type { Seed } from '../schemas/seeds'
import type { Collector, Holder, Occurrence } from '../values/occurrences'
import type { ConverterTargets } from './converter-targets'
import type { GenerationStep } from '../describe/versions'

/** Where a narrowed enum occurs in a version's data, and what it may hold there. */
export interface ValueGuard {
  readonly find: Collector
  readonly allowed: ReadonlySet<unknown>
  /** Each HEAD value the version lacks → the version change classes that removed it. */
  readonly removedBy: ReadonlyMap<unknown, readonly string[]>
  /** The enum's name, for messages. */
  readonly schema: string
}

/** A value a version cannot express, found in its data. */
interface Unexpressible {
  readonly guard: ValueGuard
  readonly value: unknown
  /** The key the value is under (a field name, an array index). */
  readonly key: PropertyKey
}

/** The values of an enum seed at a level (undefined when it is no enum). */
function valuesAt (generation: SchemaGeneration, seed: Seed, level: number): Set<unknown> | undefined {
  const state = generation.stateAt(seed.head, level)
  return state.kind === 'enum' ? new Set(state.members.map((member) => member.value)) : undefined
}

/** What planning guards needs: the schema generation, the steps, and collectors (the converter planner has them all). */
interface GuardPlanning { readonly generation: SchemaGeneration, readonly steps: readonly GenerationStep[], readonly targets: ConverterTargets }

/** The version change classes of the step giving `level` that hold an enum instruction on `head`'s seed. */
function changesRemoving (planning: GuardPlanning, head: TSchema, level: number): string[] {
  const step = planning.steps[level - 1]
  const seed = planning.generation.seedOf(head)
  const changes = step.changes.filter((change) => change.instructions.some((instruction) =>
    !isEndpointInstruction(instruction) && instruction.kind.startsWith('enum.') && planning.generation.seedOf(instruction.schema) === seed))
  return (changes.length > 0 ? changes : step.changes).map((change) => change.name)
}

/** The guards of data shaped like HEAD's `schema` at `level`: one per enum seed the level narrows that can occur in it. */
export function valueGuardsOf (planning: GuardPlanning, schema: TSchema, level: number): readonly ValueGuard[] {
  const { generation } = planning
  const changed = new Set<Seed>()
  for (let at = 1; at <= level; at++) for (const seed of generation.seedsChangedAt(at)) changed.add(seed)
  const guards: ValueGuard[] = []
  for (const seed of changed) {
    const head = valuesAt(generation, seed, 0)
    const allowed = valuesAt(generation, seed, level)
    if (head === undefined || allowed === undefined || [...head].every((value) => allowed.has(value))) continue
    const find = planning.targets.collectorFor(schema, seed.head, level)
    if (find === null) continue
    const removedBy = new Map<unknown, readonly string[]>()
    for (const value of head) {
      if (allowed.has(value)) continue
      // The changes of the first level (newest first) lacking the value removed it.
      let at = 1
      while (valuesAt(generation, seed, at)?.has(value) === true) at++
      removedBy.set(value, changesRemoving(planning, seed.head, at))
    }
    guards.push({ find, allowed, removedBy, schema: seed.display })
  }
  return guards.length === 0 ? NO_GUARDS : guards
}

/** The field names of an object schema, sorted (none for a schema without `properties`). */
function fieldNames (schema: TSchema): string {
  const properties = (schema as { properties?: object }).properties
  return Object.keys(properties ?? {}).sort().join(', ')
}

/**
 * Throws `RouterPathParamsModifiedError` naming the route when its `params` would fail every request of one of
 * `levels`: they accept a value HEAD's refuse (no converter can change a path parameter), or name other fields.
 */
export function checkPathParameters (planning: GuardPlanning, display: string, params: TSchema, levels: readonly number[]): void {
  const { generation } = planning
  for (const level of levels) {
    for (const seed of generation.seedsChangedAt(level)) {
      const head = valuesAt(generation, seed, 0)
      const value = head === undefined ? undefined : [...valuesAt(generation, seed, level) ?? []].find((member) => !head.has(member))
      if (value === undefined || planning.targets.collectorFor(params, seed.head, level) === null) continue
      throw new RouterPathParamsModifiedError(`${display}: in API version ${generation.levels[level]}, its path parameters accept ` +
        `${JSON.stringify(value)}, which HEAD's refuse (version change ${changesRemoving(planning, seed.head, level).join(', ')} renamed or removed it). No converter ` +
        'can change a path parameter: keep the value in HEAD\'s schema and map it in the handler, or serve it from a route of its own.')
    }
  }
  const head = fieldNames(params)
  const level = levels.find((at) => fieldNames(generation.formAt(params, at)) !== head)
  if (level === undefined) return
  let at = 1
  while (fieldNames(generation.formAt(params, at)) === head) at++
  throw new RouterPathParamsModifiedError(`${display}: in API version ${generation.levels[level]}, its path parameters are [${fieldNames(generation.formAt(params, level))}], ` +
    `where HEAD's are [${head}] (version change ${planning.steps[at - 1].changes.map((change) => change.name).join(', ')}). The router gives every version HEAD's names: keep the fields' names.`)
}

/** The first value of `body` its guards do not allow, if any. */
export function unexpressibleValue (guards: readonly ValueGuard[], body: unknown): Unexpressible | undefined {
  const root: Holder = { body }
  for (const guard of guards) {
    const found: Occurrence[] = []
    guard.find(root, 'body', found)
    for (const [holder, key] of found) {
      const value = holder[key]
      if (!guard.allowed.has(value)) return { guard, value, key }
    }
  }
  return undefined
}

/**
 * What is wrong with a value a version cannot express: where, which value, which version changes removed it (the
 * first sentence of {@link describeUnexpressible}; `verify` says it too).
 * @example
 * ```ts
 * unexpressibleReason(found, '2000-01-01') // 'The value "refunded" of OrderStatus (field \'status\') cannot be expressed in API version 2000-01-01: …'
 * ```
 */
export function unexpressibleReason (found: Unexpressible, version: string): string {
  const changes = found.guard.removedBy.get(found.value) ?? []
  const where = typeof found.key === 'number' ? `item ${found.key}` : `field '${String(found.key)}'`
  return `The value ${JSON.stringify(found.value)} of ${found.guard.schema} (${where}) cannot be expressed in API version ${version}: ` +
    `${changes.length > 0 ? `version change ${changes.join(', ')} removed it` : 'that version lacks it'} and no response converter mapped it ` +
    'to a value the version has.'
}

/** The message naming a value a version cannot express: where, which value, which version changes removed it, what to do. */
export function describeUnexpressible (found: Unexpressible, version: string): string {
  return `${unexpressibleReason(found, version)} Add a response converter that maps it, or run verify to see every such case.`
}

const NO_GUARDS: readonly ValueGuard[] = []
