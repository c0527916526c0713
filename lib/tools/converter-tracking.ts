/**
 * The converters a replay runs at one level (`verify`, `replay`, `mutate`): those of a route's (or webhook's)
 * converter steps that belong to the version changes of one generation step, each run noted as it runs.
 * @module
 */
import type { GenerationStep } from '../describe/versions'
import type { ConverterStep } from '../routes/converter-steps'
import type { ConverterDescriptor } from '../describe/version-change-reader'

/** How a replay runs one converter on its argument: the converter itself, unless a tool wraps it (`mutate`'s mutants). */
export type ConverterRun = (converter: ConverterDescriptor, info: unknown) => unknown

/**
 * The steps of `steps` that belong to one generation step's version changes, tracking which ran, each run with `run`
 * when given.
 * @example
 * ```ts
 * const ran: string[] = []
 * await runStepsToBody(tracked(route.requestSteps, generationSteps[2], ran), info, info.body, at) // ran: ['AddressAsList.up']
 * ```
 */
export function tracked (steps: readonly ConverterStep[], step: GenerationStep, ran: string[], run?: ConverterRun): ConverterStep[] {
  return steps.filter((candidate) => step.changes.includes(candidate.converter.change)).map((planned) => ({
    ...planned,
    converter: {
      ...planned.converter,
      run: (arg: unknown) => { ran.push(planned.converter.display); return run === undefined ? planned.converter.run(arg) : run(planned.converter, arg) }
    }
  }))
}

/**
 * The steps of `steps` a generation step may hold, found without a walk of them all: for a step of one version change,
 * that change's steps in their order (a replay through many versions looks at each step once, not once per level);
 * every step for a step of several (for {@link tracked} to pick from, in their order).
 * @example
 * ```ts
 * const candidates = convertersByChange(route.requestSteps)
 * tracked(candidates(generationSteps[2]), generationSteps[2], ran) // as tracked(route.requestSteps, generationSteps[2], ran)
 * ```
 */
export function convertersByChange (steps: readonly ConverterStep[]): (step: GenerationStep) => readonly ConverterStep[] {
  const byChange = new Map<unknown, ConverterStep[]>()
  for (const candidate of steps) {
    const mine = byChange.get(candidate.converter.change)
    if (mine === undefined) byChange.set(candidate.converter.change, [candidate])
    else mine.push(candidate)
  }
  return (step) => step.changes.length === 1 ? byChange.get(step.changes[0]) ?? [] : steps
}
