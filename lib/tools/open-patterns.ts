/**
 * `verify`'s HEAD strings under a pattern that fixes how they start (`'^cus_'`, `'^addr_'`: an id's prefix and anything
 * after it; `'^cus_[0-9a-f-]+$'`: the prefix and what may follow), replayed to a version whose field holds another form
 * (a UUID). The shortest string such a
 * pattern takes is the bare prefix (`'addr_'`), which no real id is: a right converter stripping the prefix makes it
 * `''`, which the older version refuses as it refuses a wrong converter's value, and the finding would rest on that
 * value alone. Where the older version refuses HEAD's string, it is replayed as its shortest start that the pattern
 * takes followed by the older version's example of the field (`'addr_3f2c1d4e-…'`, `'cus_3f2c1d4e-…'`): a
 * converter stripping the prefix gives the older version its id, one stripping a character too few, or none, a value
 * it still refuses (decision 0311). Strings without a pattern, with a format, or that the older version takes, are
 * replayed as generated.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { Check } from '../core/strict-validator'
import { setOwn } from '../core/own-properties'
import { typeOf, type JsonSchema } from '../values/examples'
import { patternOf, stringExample, type FormatPatterns } from '../values/string-examples'
import { schemaAt, type PathKey, type RefResolver } from './data-flow'
import type { GeneratedExample } from './example-generation'

/** What completing starts needs: the application's `$ref`s, its formats, and strict validators. */
interface OpenPatternEnvironment {
  readonly resolveRef: RefResolver
  readonly formats?: FormatPatterns
  readonly compile: (schema: TSchema) => Check
}

/**
 * The string made of the shortest start of `text` and `tail` that `takes` accepts (`'addr_'` and a UUID for `'addr_q'`
 * under `'^addr_'`, `'cus_'` and a UUID for `'cus_0'` under `'^cus_[0-9a-f-]+$'`); `undefined` where none is.
 */
function completedWith (text: string, tail: string, takes: (text: string) => boolean): string | undefined {
  const chars = [...text]
  for (let end = 0; end <= chars.length; end++) {
    const made = chars.slice(0, end).join('') + tail
    if (takes(made)) return made
  }
  return undefined
}

/**
 * The string HEAD's `node` holds in place of `text` where the older version's `there` refuses `text`: its shortest
 * start followed by `there`'s example, where `node` takes that; `undefined` to keep `text`.
 * @example
 * ```ts
 * completedStart(env, { type: 'string', pattern: '^addr_' }, { type: 'string', format: 'uuid' }, 'addr_') // 'addr_3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f'
 * ```
 */
function completedStart (env: OpenPatternEnvironment, node: JsonSchema, there: JsonSchema | undefined, text: string): string | undefined {
  const pattern = node.format === undefined ? patternOf(node) : undefined
  if (pattern === undefined || there === undefined || there === node || typeOf(there) !== 'string' || env.compile(there as TSchema)(text)) return undefined
  const tail = stringExample(there, env.formats)
  if (tail === undefined) return undefined
  const [min, max] = [typeof node.minLength === 'number' ? node.minLength : 0, typeof node.maxLength === 'number' ? node.maxLength : Infinity]
  const takes = (candidate: string): boolean => [...candidate].length >= min && [...candidate].length <= max && pattern.test(candidate)
  const made = completedWith(text, tail, takes)
  return made !== text ? made : undefined
}

/**
 * The examples of the HEAD form `head` as they are replayed to a version whose form is `there`: each string under a
 * pattern that fixes only its start, which `there` refuses, completed ({@link completedStart}); an example with none
 * is itself.
 * @example
 * ```ts
 * examples.map(completedStarts(env, Address, AddressAt2000)) // { id: 'addr_' } → { id: 'addr_3f2c1d4e-…' }
 * ```
 */
export function completedStarts (env: OpenPatternEnvironment, head: TSchema, there: TSchema): (example: GeneratedExample) => GeneratedExample {
  if (head === there) return (example) => example
  const complete = (root: unknown): unknown => {
    const walk = (value: unknown, path: PathKey[]): unknown => {
      if (typeof value === 'string') {
        const node = path.length === 0 ? undefined : schemaAt(head, root, path, env.resolveRef)
        return (node === undefined ? undefined : completedStart(env, node, schemaAt(there, root, path, env.resolveRef), value)) ?? value
      }
      if (typeof value !== 'object' || value === null) return value
      if (Array.isArray(value)) {
        const items = value.map((item, index) => walk(item, [...path, index]))
        return items.every((item, index) => item === value[index]) ? value : items
      }
      let copy: Record<string, unknown> | undefined
      for (const [key, held] of Object.entries(value)) {
        const made = walk(held, [...path, key])
        if (made === held) continue
        copy ??= { ...value }
        setOwn(copy, key, made)
      }
      return copy ?? value
    }
    return walk(root, [])
  }
  return (example) => {
    const value = complete(example.value)
    if (value === example.value) return example
    return { ...example, value, ...(example.twin === undefined ? {} : { twin: { ...example.twin, value: complete(example.twin.value) } }) }
  }
}
