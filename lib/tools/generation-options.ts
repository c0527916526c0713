/**
 * The `examples` and `seed` options of `verify` and `mutateConverters`, checked: a count that is not a whole number of 1
 * or more (0, NaN from an unset environment variable, -1) generated no example, or a few, and the tool reported a
 * clean run; a seed that is not a whole number replayed whatever fast-check made of it.
 * @module
 */
import { VersionerToolError } from '../core/errors'

/** How many examples to generate, and from which seed. */
export interface GenerationOptions {
  readonly count: number
  readonly seed: number
}

/** A value as a message shows it: a string quoted. */
function shown (value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : String(value)
}

/**
 * The count and seed of `tool`'s options (`count` when no `examples` is given, seed 1 when none is), or
 * `FST_VERSIONER_TOOL` naming the option that is not a whole number (examples: 1 or more).
 * @example
 * ```ts
 * const { count, seed } = generationOptions('verify', { examples: 50 }, 200) // { count: 50, seed: 1 }
 * generationOptions('verify', { examples: Number(process.env.EXAMPLES) }, 200) // throws when EXAMPLES is unset (NaN)
 * ```
 */
export function generationOptions (tool: string, options: { readonly examples?: number, readonly seed?: number }, count: number): GenerationOptions {
  const { examples, seed } = options
  if (examples !== undefined && !(Number.isSafeInteger(examples) && examples >= 1)) {
    throw new VersionerToolError(`The examples option of ${tool} must be a whole number of 1 or more (examples per route, version, direction and part); got ${shown(examples)}.`)
  }
  if (seed !== undefined && !Number.isSafeInteger(seed)) throw new VersionerToolError(`The seed option of ${tool} must be a whole number; got ${shown(seed)}.`)
  return { count: examples ?? count, seed: seed ?? 1 }
}
