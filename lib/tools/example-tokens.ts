/**
 * The tokens of a sampled example (./example-generation.ts) and how they become values: fast-check samples tokens
 * for free strings, boundary numbers, chosen enum members and lists sending their last item twice, and
 * {@link materialize} replaces them once the example is sampled (sentinels counted in the order met, a boundary
 * number or its twin's neighbour, the member chosen recorded as covered).
 * @module
 */
import { pointerSegment } from '../core/json-schema'
import { setOwn } from '../core/own-properties'
import type { JsonSchema } from '../values/examples'
import type { FormatPatterns } from '../values/string-examples'
import { leafExample, patternedText, type Boundary } from './boundary-values'
import { sentinelFor } from './boundary-strings'

/**
 * The keys of the tokens: a free string, a boundary number, an enum choice, a list whose last item is sent twice.
 * @example
 * ```ts
 * const token = { [kLeaf]: { type: 'string' }, boundary: 'spaces' } // a free string, at a boundary
 * ```
 */
export const kLeaf = Symbol('fastify-versioner.leaf')
/** @see kLeaf @example `{ [kNumber]: true, value: 19.99, twin: 19.98 }` */
export const kNumber = Symbol('fastify-versioner.number')
/** @see kLeaf @example `{ [kChoice]: enumNode, value: 'red' }` */
export const kChoice = Symbol('fastify-versioner.choice')
/** @see kLeaf @example `{ [kRepeat]: [bareToken, leafToken] }` */
export const kRepeat = Symbol('fastify-versioner.repeat')
/** A free string of the example, replaced by a sentinel once the example is sampled (at a boundary, for a boundary example). */
export interface Leaf { readonly [kLeaf]: JsonSchema, readonly boundary?: Boundary }
/** A number (or flag) of a boundary example, with the neighbour (the other flag) its twin holds instead. */
export interface BoundaryNumber { readonly [kNumber]: true, readonly value: number | boolean, readonly twin: number | boolean }
/** An enum or `const` value chosen by fast-check, kept as a token so that `verify` knows which members it covered. */
export interface Choice { readonly [kChoice]: JsonSchema, readonly value: unknown }
/** The items of a list of the `items` boundary whose last item, once plain (a string, number or flag), is sent twice. */
interface Repeat { readonly [kRepeat]: unknown[] }

/** What materializing records: the sentinels, the enum members covered, the places of boundary numbers (with `twin`, their neighbours are taken). */
export interface Materialized {
  readonly sentinels: Map<string, string>
  readonly covered: Map<JsonSchema, Set<string>>
  readonly numbers: Set<string>
  readonly twin: boolean
  readonly formats: FormatPatterns | undefined
  readonly leaves: Map<JsonSchema, unknown>
}

/**
 * Replaces the tokens of a sampled value by values: sentinels for free strings (recorded), chosen members, boundary
 * numbers, a list's last plain item sent twice.
 * @example
 * ```ts
 * materialize({ tags: { [kRepeat]: [{ [kLeaf]: { type: 'string' } }] } }, made) // { tags: ['zq000001', 'zq000001'] }
 * ```
 */
export function materialize (sampled: unknown, { sentinels, covered, numbers, twin, formats, leaves }: Materialized): unknown {
  let count = 0
  const walk = (value: unknown, pointer: string, path: ReadonlyArray<string | number>): unknown => {
    if (typeof value !== 'object' || value === null) return value
    if (kNumber in value) {
      const number = value as BoundaryNumber
      if (number.twin !== number.value) numbers.add(JSON.stringify(path))
      return twin ? number.twin : number.value
    }
    if (kLeaf in value) {
      const node = (value as Leaf)[kLeaf]
      const { boundary } = value as Leaf
      const sentinel = sentinelFor(node, ++count, boundary, formats)
      if (sentinel === undefined) return (boundary === undefined ? undefined : patternedText(node, boundary, leafExample(node, formats, leaves))) ?? leafExample(node, formats, leaves)
      // An empty or blank string is no sentinel: nothing tells where it arrives.
      if (sentinel.trim() !== '') sentinels.set(sentinel, pointer)
      return sentinel
    }
    if (kChoice in value) {
      const choice = value as Choice
      covered.set(choice[kChoice], (covered.get(choice[kChoice]) ?? new Set()).add(JSON.stringify(choice.value)))
      return choice.value
    }
    if (kRepeat in value) {
      const list = walk((value as Repeat)[kRepeat], pointer, path) as unknown[]
      const last = list[list.length - 1]
      if (typeof last === 'object') return list
      if (numbers.has(JSON.stringify([...path, list.length - 1]))) numbers.add(JSON.stringify([...path, list.length]))
      return [...list, last]
    }
    if (Array.isArray(value)) return value.map((item, index) => walk(item, `${pointer}/*`, [...path, index]))
    const copy: Record<string, unknown> = {}
    for (const key of Object.keys(value)) setOwn(copy, key, walk((value as Record<string, unknown>)[key], `${pointer}/${pointerSegment(key)}`, [...path, key]))
    return copy
  }
  return walk(sampled, '', [])
}
