/**
 * Where a by-schema converter of one of several changes of a version finds its schema: in the body as the changes
 * run before it left it, not as the version's newer (responses) or older (requests) shape has it. A change renaming
 * the field that holds a schema moves it for the changes after it (decision 0246).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { Collector } from '../values/occurrences'
import { SchemaGeneration } from '../schemas/generation'
import type { GenerationStep } from '../describe/versions'
import { InvalidGenerationInstructionError } from '../core/errors'
import { ConverterTargets } from './converter-targets'

/**
 * The shapes between the changes of the versions that hold several: a generation that walks each such change as a step
 * of its own, so that its levels are the shapes the body has between them.
 * @example
 * ```ts
 * const between = new ChangeLevels(generation, steps)
 * between.collectorFor(Order, Item, { step: 1, index: 1, direction: 'response' }) // Item where the change listed first left it
 * ```
 */
export class ChangeLevels {
  private readonly targets: ConverterTargets
  /** The generation walked change by change: its levels are the version levels and the shapes between changes. */
  readonly generation: SchemaGeneration
  /** The steps of {@link generation}: a version holding several changes is a step per change (route timelines walk them too). */
  readonly steps: readonly GenerationStep[]
  /** The level of the walk by change that each version level is (index = version level). */
  private readonly levelOfVersion: number[] = []

  constructor (main: SchemaGeneration, steps: readonly GenerationStep[]) {
    const split: GenerationStep[] = []
    const levels = ['head']
    steps.forEach((step, index) => {
      this.levelOfVersion.push(split.length)
      const { changes, origin } = step
      if (changes.length < 2) split.push(step)
      else split.push(...changes.map((change) => ({ origin, changes: [change] })))
      // A level between two changes of a version is named after them (errors and generated $ids), the others as the bundle does.
      if (index < steps.length - 1) {
        for (let k = 0; k < changes.length - 1; k++) levels.push(`${origin} (between ${changes[k].name} and ${changes[k + 1].name})`)
        levels.push(main.levels[index + 1])
      }
    })
    this.steps = split
    this.generation = SchemaGeneration.ofSteps(main, split, levels)
    this.targets = new ConverterTargets(this.generation, split)
  }

  /**
   * The level of {@link generation} where change `index` (as listed) of the version at `step` meets a body: its newer
   * side for a response (after the changes listed before it), its older side for a request (after those listed after
   * it and itself undone).
   */
  levelOf (at: { step: number, index: number, direction: 'request' | 'response' }): number {
    return this.levelOfVersion[at.step] + (at.direction === 'request' ? at.index + 1 : at.index)
  }

  /**
   * A collector of `target`'s occurrences in data shaped like `root` where change `index` (as listed) of the version
   * at `step` meets it: after the changes listed before it for a response, after those listed after it and itself
   * undone for a request. Null if none occurs there; undefined when that shape cannot be built (a rule no body of it
   * can meet): the caller takes the version's.
   */
  collectorFor (root: TSchema, target: TSchema, at: { step: number, index: number, direction: 'request' | 'response' }): Collector | null | undefined {
    try {
      return this.targets.collectorFor(root, target, this.levelOf(at))
    } catch (error) {
      if (error instanceof InvalidGenerationInstructionError) return undefined
      throw error
    }
  }
}
