/**
 * The version changes that shape a route in a version, for usage events (`ServedEvent.changes`,
 * [decision 0056](../../docs/decisions/0056-usage-per-change-and-retire.md)); computed once per route and version.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { VersionChangeDescriptor } from '../describe/version-change-reader'
import type { GenerationStep } from '../describe/versions'
import { isEndpointInstruction } from '../describe/instructions'
import type { SchemaGeneration } from '../schemas/generation'
import { routeSeeds } from './quiet-levels'
import { applies } from './timeline'
import { requestPlans, requestSchemas, type BehaviourRoute, type VersionBehaviour } from './version-plan'

/** What finding the changes needs: the steps from HEAD and the schema generation. */
interface ChangeSources {
  readonly steps: readonly GenerationStep[]
  readonly generation: SchemaGeneration
}

/** True when the route's request or response forms at `level` differ from those at `level - 1`. */
function formsDiffer (route: BehaviourRoute, level: number, generation: SchemaGeneration): boolean {
  for (const head of requestSchemas(route)) {
    if (generation.formAt(head, level) !== generation.formAt(head, level - 1)) return true
  }
  const before = route.forms.responses[level - 1].schemas
  const after = route.forms.responses[level].schemas
  if (before !== after) return true
  return Object.values(after).some((schema: TSchema) => generation.formAt(schema, level) !== generation.formAt(schema, level - 1))
}

/** True when an instruction of `change` names one of `seeds` (any seed when they are not known). */
function namesSeed (change: VersionChangeDescriptor, seeds: ReturnType<typeof routeSeeds>, generation: SchemaGeneration): boolean {
  return change.instructions.some((instruction) => {
    if (isEndpointInstruction(instruction)) return false
    if (seeds === undefined) return true
    const seed = generation.seedOf(instruction.schema)
    return seed !== undefined && seeds.has(seed)
  })
}

/** True when an endpoint instruction of `change` (in step `step`) names the route, whose state that step changed. */
function namesRoute (change: VersionChangeDescriptor, route: BehaviourRoute, step: number): boolean {
  const before = route.timeline[step]
  const after = route.timeline[step + 1]
  if (before === after) return false
  const operationId = typeof route.schema.operationId === 'string' ? route.schema.operationId : undefined
  return change.instructions.some((instruction) => isEndpointInstruction(instruction) && (applies(before, instruction, operationId) || applies(after, instruction, operationId)))
}

/** The version changes shaping `route` in the version of `behaviour`: HeadVersion's first, then each version's from the newest, in listed order. */
function changesIn (route: BehaviourRoute, behaviour: VersionBehaviour, sources: ChangeSources): readonly string[] {
  const { steps, generation } = sources
  const converted = new Set<VersionChangeDescriptor>()
  for (const plan of requestPlans(behaviour)) for (const step of plan.requestSteps) converted.add(step.converter.change)
  for (const list of behaviour.responseSteps.values()) for (const step of list) converted.add(step.converter.change)
  const names: string[] = []
  for (let step = 0; step < behaviour.level; step++) {
    const changes = steps[step].changes
    if (changes.length === 0) continue
    const formsChanged = formsDiffer(route, step + 1, generation)
    const seeds = formsChanged ? routeSeeds(route, step + 1, generation) : undefined
    for (const change of changes) {
      if (converted.has(change) || (formsChanged && namesSeed(change, seeds, generation)) || namesRoute(change, route, step)) names.push(change.name)
    }
  }
  return Object.freeze(names)
}

/**
 * The changes of each version of one route, each computed on first use and kept.
 * @example
 * const changes = routeChanges(head, state)
 * changes(behaviour) // ['HideInternalUserFields', 'MoveUserAddressesToTheirOwnEndpoint']
 */
export function routeChanges (route: BehaviourRoute, sources: ChangeSources): (behaviour: VersionBehaviour) => readonly string[] {
  let known: WeakMap<VersionBehaviour, readonly string[]> | undefined
  return (behaviour) => {
    known ??= new WeakMap()
    let names = known.get(behaviour)
    if (names === undefined) {
      names = changesIn(route, behaviour, sources)
      known.set(behaviour, names)
    }
    return names
  }
}
