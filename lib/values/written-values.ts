/**
 * What Fastify's serializer writes of a response that `JSON.stringify` does not (a `Date` of `format: 'date'`, a
 * getter field), so that the converters' JSON copy holds it (decision 0137).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { compileCollector, type Collector, type Occurrence } from './occurrences'
import { readsInherited } from './union-matchers'
import type { ResolveRef } from './shapes'
import { copyJson, type Replaced, type Rewrites } from './json-copy'

export type { Replaced } from './json-copy'
import { isSchemaObject } from '../core/json-schema'

/** The formats the serializer writes a `Date` by, other than the instant (`date-time`, as JSON does). */
const FORMATS = ['date', 'time'] as const

/** Where the serializer writes a body other than JSON does (the collectors are `null` where a body has none). */
export interface WrittenPlaces {
  /** By format, the collector of its string places. */
  readonly dates: ReadonlyArray<readonly [format: (typeof FORMATS)[number], Collector]>
  /** The collector of the objects with declared properties (a class instance may hold some behind getters). */
  readonly objects: Collector | null
}

/**
 * The places of data shaped by `root` where the serializer writes other than JSON.
 * @example
 * ```ts
 * writtenPlacesOf(Type.Object({ dueOn: Type.String({ format: 'date' }) }), () => undefined).dates // [['date', collector]]
 * ```
 */
export function writtenPlacesOf (root: TSchema, resolveRef: ResolveRef): WrittenPlaces {
  const dates: Array<WrittenPlaces['dates'][number]> = []
  for (const format of FORMATS) {
    const isTarget = (node: TSchema): boolean => node.format === format && (node.type === 'string' || (Array.isArray(node.type) && node.type.includes('string')))
    const collector = compileCollector(root, { isTarget, resolveRef })
    if (collector !== null) dates.push([format, collector])
  }
  const declares = (node: TSchema): boolean => isSchemaObject(node.properties) && Object.keys(node.properties).length > 0
  return { dates, objects: compileCollector(root, { isTarget: declares, resolveRef }) }
}

/**
 * The JSON copy of `body` holding what the serializer writes at `places` (none: JSON's copy); `replaced` notes the
 * values it holds in place of the handler's ({@link putBack}).
 * @example `copyAsWritten(places, { dueOn: new Date('2024-03-05T10:20:30Z') }) // { dueOn: '2024-03-05' }`
 */
export function copyAsWritten (places: WrittenPlaces | undefined, body: unknown, serializer?: true | { kept: boolean }, replaced?: Replaced[]): unknown {
  const rewrites = places === undefined || places.dates.length === 0 ? undefined : writtenDates(places.dates, body)
  if (places?.objects == null) return copyJson(body, { rewrites, serializer, replaced })
  const met = { instance: false }
  const copy = copyJson(body, { rewrites, serializer, met, replaced })
  const inherited = met.instance ? inheritedFields(places.objects, body) : undefined
  if (inherited === undefined) return copy
  if (replaced !== undefined) replaced.length = 0
  return copyJson(body, { rewrites, serializer, inherited, replaced })
}

/**
 * Gives the serializer the handler's own value (a `Date`, a `Decimal`, a `Buffer`) wherever the converted copy still
 * holds what {@link copyAsWritten} wrote in its place, so that a value no converter changed is written as HEAD writes
 * it (decision 0285); a field of the copy's root is looked for in `converted`, should a converter have replaced the root.
 * @example `putBack(replaced, copied, converted)`
 */
export function putBack (replaced: readonly Replaced[], root: unknown, converted: unknown): void {
  const newRoot = converted !== root && isSchemaObject(converted) ? converted : undefined
  for (const [copyHolder, key, written, original] of replaced) {
    const holder = copyHolder === root && newRoot !== undefined ? newRoot : copyHolder
    if (!Object.prototype.hasOwnProperty.call(holder, key) || holder[key] !== written) continue
    if (key === '__proto__') Object.defineProperty(holder, key, { value: original, enumerable: true, writable: true, configurable: true })
    else holder[key] = original
  }
}

/** The strings the serializer writes for the valid `Date`s of `body` at `places`, by holder and key. */
function writtenDates (places: WrittenPlaces['dates'], body: unknown): Rewrites | undefined {
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

/** The declared fields each class instance of `body` (without `toJSON`, which the serializer writes instead) holds through its prototype. */
function inheritedFields (objects: Collector, body: unknown): Map<object, string[]> | undefined {
  let inherited: Map<object, string[]> | undefined
  const found: Occurrence[] = []
  objects({ '': body }, '', found)
  for (const [holder, key, node] of found) {
    const value = holder[key]
    if (!isSchemaObject(value) || typeof value.toJSON === 'function') continue
    const names = Object.keys(node.properties as object).filter((name) => !Object.prototype.propertyIsEnumerable.call(value, name) && readsInherited(value, name))
    if (names.length > 0) (inherited ??= new Map()).set(value, names)
  }
  return inherited
}
