/**
 * Mutants of converters (`mutate`), made from what each converter was seen doing (./converter-effects.ts): the
 * converter skipped, and at each place it wrote a field dropped, a value it changed reverted, a string truncated, a
 * number rounded, a mapping swapped (a value it mapped to given another value it maps to). A mutant runs its
 * converter, then changes what that run wrote; it notes whether it changed anything at all, so that a mutant no body
 * showed (equivalent, for the data seen) is told from one the tools missed.
 * @module
 */
import { deepEqual } from '../core/json-schema'
import type { ConverterDescriptor } from '../describe/version-change-reader'
import { isThenable } from '../serve/step-runner'
import { copyJson } from '../values/json-copy'
import {
  MAPPING_SIZE, noteEffects, partOf, partsOf, placeKey, placesOf, restoreParts, snapshotOf, valueOn, writePlace, type EffectPart, type EffectPlace, type Parts, type PlaceEffect
} from './converter-effects'
import type { ConverterRun } from './converter-tracking'

/**
 * How a mutant changes what its converter does.
 * @example
 * ```ts
 * declare const report: MutationReport
 * const operator: MutantOperator = 'field dropped'
 * const survivors = report.mutants.filter((mutant) => mutant.operator === operator && mutant.verdict === 'survived')
 * ```
 */
export type MutantOperator = 'skipped' | 'field dropped' | 'value reverted' | 'string truncated' | 'number rounded' | 'mapping swapped'

/** One mutant: a converter, an operator and the place it applies to (none for `skipped`). */
export interface Mutant {
  readonly converter: ConverterDescriptor
  readonly operator: MutantOperator
  readonly place: EffectPlace | undefined
  /** For `mapping swapped`: the values the converter maps to there (JSON text), each given the next one's place. */
  readonly mappedTo: readonly string[]
  /** `AmountsInCents.totalFromCents: number rounded at body/total`. */
  readonly description: string
}

/** The mutants of one converter, from what it was seen doing at each place. */
export function mutantsOf (converter: ConverterDescriptor, effects: ReadonlyMap<string, PlaceEffect>): Mutant[] {
  const make = (operator: MutantOperator, place?: EffectPlace, mappedTo: readonly string[] = []): Mutant => ({
    converter, operator, place, mappedTo, description: `${converter.display}: ${operator}${place === undefined ? '' : ` at ${placeKey(place)}`}`
  })
  const mutants = [make('skipped')]
  for (const effect of effects.values()) {
    const place = { part: effect.part, path: effect.path }
    if (effect.path.length > 0 && effect.path[effect.path.length - 1] !== '*') mutants.push(make('field dropped', place))
    if (effect.changed) mutants.push(make('value reverted', place))
    if (effect.strings) mutants.push(make('string truncated', place))
    if (effect.numbers) mutants.push(make('number rounded', place))
    if (effect.mappedTo.size >= 2 && effect.mappedTo.size <= MAPPING_SIZE) mutants.push(make('mapping swapped', place, [...effect.mappedTo].sort()))
  }
  return mutants
}

/** The value a mutant puts in place of `now` (what its converter wrote, where it held `was`); `now` itself when it does not apply. */
function mutatedValue (mutant: Mutant, now: unknown, was: unknown): unknown {
  switch (mutant.operator) {
    case 'field dropped': return undefined
    case 'value reverted': return was === undefined ? now : copyJson(was)
    case 'string truncated': return typeof now === 'string' ? now.slice(0, Math.floor(now.length / 2)) : now
    case 'number rounded': return typeof now === 'number' ? Math.round(now) : now
    case 'mapping swapped': {
      const at = mutant.mappedTo.indexOf(JSON.stringify(now))
      return at === -1 || was === undefined ? now : JSON.parse(mutant.mappedTo[(at + 1) % mutant.mappedTo.length]) as unknown
    }
    default: return now
  }
}

/** Changes what one run of the converter wrote at the mutant's place (`before`: its parts before the run); true when something changed. */
function mutateRun (mutant: Mutant, before: Parts, info: Record<string, unknown>): boolean {
  const place = mutant.place as EffectPlace
  let changed = false
  for (const { holder, key, path } of placesOf(partOf(info, place.part), place.path).reverse()) {
    const now = holder[key]
    const was = valueOn(before[place.part], path)
    if (deepEqual(now, was)) continue
    const next = mutatedValue(mutant, now, was)
    if (next !== undefined && deepEqual(next, now)) continue
    writePlace(holder, key, next)
    changed = true
  }
  return changed
}

/** What a mutant run found: whether the mutant changed any converter's result. */
export interface MutantState {
  changed: boolean
}

/**
 * How converters run with `mutant` in place: every other converter as it is; its converter run, then what it wrote
 * changed (for `skipped`, its parts put back as they were). `state.changed` is set when a run's result changed.
 */
export function mutantRun (mutant: Mutant, state: MutantState): ConverterRun {
  return (converter, arg) => {
    if (converter !== mutant.converter) return converter.run(arg)
    const info = arg as Record<string, unknown>
    const before = snapshotOf(info, partsOf(converter))
    const status = info.statusCode
    const finish = (): void => {
      if (mutant.operator !== 'skipped') {
        if (mutateRun(mutant, before, info)) state.changed = true
        return
      }
      const after = snapshotOf(info, Object.keys(before) as EffectPart[])
      if (!deepEqual(after, before) || info.statusCode !== status) state.changed = true
      restoreParts(info, before)
      if (status !== undefined) info.statusCode = status
    }
    const result = converter.run(arg)
    if (isThenable(result)) return Promise.resolve(result).then(finish)
    finish()
    return result
  }
}

/** A converter run that notes, per converter, what each of its runs does (`onRun` is told which converter ran). */
export function observingRun (effects: Map<ConverterDescriptor, Map<string, PlaceEffect>>, onRun: (converter: ConverterDescriptor) => void): ConverterRun {
  return (converter, arg) => {
    onRun(converter)
    const info = arg as Record<string, unknown>
    const before = snapshotOf(info, partsOf(converter))
    let found = effects.get(converter)
    if (found === undefined) effects.set(converter, found = new Map())
    const into = found
    const result = converter.run(arg)
    if (isThenable(result)) return Promise.resolve(result).then(() => { noteEffects(into, before, info) })
    noteEffects(into, before, info)
    return result
  }
}
