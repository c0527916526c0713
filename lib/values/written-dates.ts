/**
 * A `Date` where a response schema says `format: 'date'` or `'time'`: Fastify's serializer (fast-json-stringify)
 * writes its local date (`2024-03-05`) or time (`10:20:30`), where `JSON.stringify` writes the instant. The JSON copy
 * converters get (./json-copy.ts) takes these strings at those places, so that an old client gets the date HEAD
 * writes, and its converters see it.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { compileCollector, type Collector, type Occurrence } from './occurrences'
import type { ResolveRef } from './shapes'
import type { Rewrites } from './json-copy'

/** The formats the serializer writes a `Date` by, other than the instant (`date-time`, as JSON does). */
const FORMATS = ['date', 'time'] as const

/** By format, the collector of its string places in a body; empty when the body has none. */
export type DatePlaces = ReadonlyArray<readonly [format: (typeof FORMATS)[number], Collector]>

/**
 * The `format: 'date'` and `'time'` string places of data shaped by `root`.
 * @example
 * ```ts
 * datePlacesOf(Type.Object({ dueOn: Type.String({ format: 'date' }) }), () => undefined) // [['date', collector]]
 * ```
 */
export function datePlacesOf (root: TSchema, resolveRef: ResolveRef): DatePlaces {
  const places: Array<DatePlaces[number]> = []
  for (const format of FORMATS) {
    const isTarget = (node: TSchema): boolean => node.format === format && (node.type === 'string' || (Array.isArray(node.type) && node.type.includes('string')))
    const collector = compileCollector(root, { isTarget, resolveRef })
    if (collector !== null) places.push([format, collector])
  }
  return places
}

/**
 * The strings the serializer writes for the valid `Date`s of `body` at `places`, by holder and key, for `copyJson`.
 * @example
 * ```ts
 * copyJson(body, { rewrites: writtenDates(places, body) }) // { dueOn: '2024-03-05' }
 * ```
 */
export function writtenDates (places: DatePlaces, body: unknown): Rewrites | undefined {
  let rewrites: Map<object, Map<string, unknown>> | undefined
  const found: Occurrence[] = []
  for (const [format, collect] of places) {
    found.length = 0
    collect({ '': body }, '', found)
    for (const [holder, key] of found) {
      const date = holder[key]
      if (!(date instanceof Date) || Number.isNaN(date.getTime())) continue
      // fast-json-stringify's own arithmetic: the server's local date or time.
      const local = new Date(date.getTime() - date.getTimezoneOffset() * 60000).toISOString()
      rewrites ??= new Map()
      let keys = rewrites.get(holder)
      if (keys === undefined) rewrites.set(holder, keys = new Map())
      keys.set(String(key), format === 'date' ? local.slice(0, 10) : local.slice(11, 19))
    }
  }
  return rewrites
}
