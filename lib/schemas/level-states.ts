/**
 * Stage `lib/schemas/`: the walk of instructions from HEAD to the oldest version. Seeds every schema an instruction
 * or a converter names, applies the instructions level by level, and keeps each level's seed states and the seeds
 * its instructions changed (all instruction errors surface here).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { isSchemaLevelInstruction } from '../describe/instructions'
import { SchemaStates } from './apply-instructions'
import { SeedIndex, type Seed, type SeedState } from './seeds'
import { nameOf, type SchemaObject } from '../core/json-schema'
import type { GenerationStep } from '../describe/versions'

/** The seeds, and their states at every level (index = level; level 0 is HEAD). */
interface LevelStates {
  readonly index: SeedIndex
  readonly walker: SchemaStates
  readonly states: ReadonlyArray<ReadonlyMap<Seed, SeedState>>
  /** The seeds each level's instructions changed (index = level). */
  readonly changedAt: ReadonlyArray<ReadonlySet<Seed>>
}

/** Seeds the schemas the steps name and applies their instructions: HEAD changes give level 1, each version's the next. */
export function walkLevelStates (steps: readonly GenerationStep[]): LevelStates {
  const index = new SeedIndex()
  // Schemas named by converters are recognised the same way (through wrappers and by $id), after those named
  // by instructions: the first schema seen with an $id is the seed's HEAD schema.
  const converterSchemas: TSchema[] = []
  for (const { changes } of steps) {
    for (const change of changes) {
      for (const instruction of change.instructions) {
        if (isSchemaLevelInstruction(instruction)) index.add(instruction.schema, describeSeed(instruction.schema))
      }
      for (const converter of change.converters) {
        if (converter.target.kind === 'schema') converterSchemas.push(...converter.target.schemas)
      }
    }
  }
  for (const schema of converterSchemas) index.add(schema, describeSeed(schema))
  const walker = new SchemaStates(index)
  const states: Array<ReadonlyMap<Seed, SeedState>> = [new Map()]
  const changedAt: Array<Set<Seed>> = [new Set()]
  // HEAD changes give the latest version; each version's changes give the version before it.
  steps.forEach(({ changes, origin }, step) => {
    const changed = new Set<Seed>()
    for (const change of changes) {
      for (const instruction of change.instructions) {
        if (!isSchemaLevelInstruction(instruction)) continue
        walker.apply(instruction, { change: change.name, version: origin })
        changed.add(index.find(instruction.schema) as Seed)
      }
    }
    if (step < steps.length - 1) {
      states.push(walker.snapshot())
      changedAt.push(changed)
    }
  })
  return { index, walker, states, changedAt }
}

function describeSeed (schema: TSchema): string {
  return nameOf(schema) ?? (schema as SchemaObject).title as string | undefined ?? 'schema'
}
