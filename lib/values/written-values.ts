/**
 * What Fastify's serializer writes of a response that `JSON.stringify` does not (a `Date` of `format: 'date'`, a
 * getter field), so that the converters' JSON copy holds it (decision 0137).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { compileCollector, type Collector, type Holder, type Occurrence } from './occurrences'
import { PlaceTree } from './place-tree'
import { readsInherited } from './union-matchers'
import type { ResolveRef } from './shapes'
import { copyJson, MAX_DEPTH, SHARED, type Replaced, type Rewrites } from './json-copy'
import { isSchemaObject } from '../core/json-schema'
import { REFUSED, scalarWritten } from './scalar-writes'

export type { Replaced } from './json-copy'

/** Where the serializer writes a body other than JSON does (the collector is `null` where a body has none). */
export interface WrittenPlaces {
  /**
   * The collector of the places the serializer may write a class instance otherwise than JSON: objects with declared
   * properties (an instance may hold some behind getters), strings, numbers and booleans (it writes the instance
   * itself there, by its `toString` or `valueOf`, or refuses it), and strings of format `date` or `time` (a `Date` as
   * a calendar date or a time of day: {@link dateFormatOf}).
   */
  readonly instances: Collector | null
}

/** The types the serializer writes a value as one of, rather than as an object or an array. */
const SCALARS: ReadonlySet<unknown> = new Set(['string', 'number', 'integer', 'boolean'])

/** True for a schema node of scalar types only (`null` beside them): the serializer writes an object there by its own rules. */
function isScalar (node: TSchema): boolean {
  const types: unknown[] = Array.isArray(node.type) ? node.type : [node.type]
  return types.some((type) => SCALARS.has(type)) && types.every((type) => type === 'null' || SCALARS.has(type))
}

/**
 * The format a string place writes a `Date` by other than the instant (`date-time`, as JSON does): `date` or `time`.
 * @example `dateFormatOf(Type.String({ format: 'date' })) // 'date'`
 */
export function dateFormatOf (node: TSchema): 'date' | 'time' | undefined {
  const string = node.type === 'string' || (Array.isArray(node.type) && node.type.includes('string'))
  return string && (node.format === 'date' || node.format === 'time') ? node.format : undefined
}

/** True for a node declaring properties (a class instance may hold some behind getters). */
function declares (node: TSchema): boolean {
  return isSchemaObject(node.properties) && Object.keys(node.properties).length > 0
}

/**
 * The places of data shaped by `root` where the serializer writes other than JSON.
 * @example
 * ```ts
 * writtenPlacesOf(Type.Object({ dueOn: Type.String({ format: 'date' }) }), () => undefined).instances // a collector
 * ```
 */
export function writtenPlacesOf (root: TSchema, resolveRef: ResolveRef): WrittenPlaces {
  // As deep as the copy goes by itself (deeper data goes through the text, where nothing written here applies): a
  // handler's data holding itself is not walked forever.
  const isTarget = (node: TSchema): boolean => declares(node) || isScalar(node) || dateFormatOf(node) !== undefined
  return { instances: compileCollector(root, { isTarget, resolveRef, deepest: MAX_DEPTH }) }
}

/**
 * The JSON copy of `body` holding what the serializer writes at `places` (none: JSON's copy); `replaced` notes the
 * values it holds in place of the handler's ({@link putBack}).
 * @example `copyAsWritten(places, { dueOn: new Date('2024-03-05T10:20:30Z') }) // { dueOn: '2024-03-05' }`
 */
export function copyAsWritten (places: WrittenPlaces | undefined, body: unknown, serializer?: true | { kept: boolean }, replaced?: Replaced[]): unknown {
  if (places === undefined) return copyJson(body, { serializer, replaced })
  try {
    return copyByPlaces(places, body, serializer, replaced)
  } catch (error) {
    if (error !== SHARED) throw error
    // One object at two places its schemas may write apart (a Date's holder under `date` and `date-time`): by place.
    if (replaced !== undefined) replaced.length = 0
    return copyByPlaces(places, body, serializer, replaced, new PlaceTree())
  }
}

/**
 * {@link copyAsWritten}: its rewrites and inherited fields keyed by object (throwing {@link SHARED} where the copy
 * meets one at a second place), or by place in `tree`.
 */
function copyByPlaces (places: WrittenPlaces, body: unknown, serializer: true | { kept: boolean } | undefined, replaced: Replaced[] | undefined, tree?: PlaceTree): unknown {
  // By place, where each of the copy's objects is; by object, those met (only where something is keyed by one).
  const placed = tree === undefined ? undefined : { children: tree.children, below: new Map() }
  if (places.instances === null) return copyJson(body, { serializer, replaced, places: placed })
  const options = { serializer, replaced, instance: false, places: placed }
  const copy = copyJson(body, options)
  const found = options.instance ? instancesWritten(places.instances, body, tree) : undefined
  if (found === undefined) return copy
  if (replaced !== undefined) replaced.length = 0
  return copyJson(body, { rewrites: found.rewrites, serializer, inherited: found.inherited, replaced, places: placed, once: tree === undefined ? new Set() : undefined })
}

/** The occurrences `collect` finds in `root['']` (into `found`), and with `tree` the place of each there. */
function collectKeyed (collect: Collector, root: Holder, found: Occurrence[], tree: PlaceTree | undefined): number[] | undefined {
  found.length = 0
  if (tree === undefined) {
    collect(root, '', found)
    return undefined
  }
  const places: number[] = []
  collect.placed(root, '', tree, found, places)
  return places
}

/**
 * Gives the serializer the handler's own value (a `Date`, a `Decimal`, a `Buffer`) wherever the converted copy still
 * holds what {@link copyAsWritten} wrote in its place, so that a value no converter changed is written as HEAD writes
 * it (decision 0285); a field of the copy's root is looked for in `converted`, should a converter have replaced the root.
 * In a list a converter reordered in place (`reverse()`, `sort()`, `splice`), each is put back where it now sits.
 * @example `putBack(replaced, copied, converted)`
 */
export function putBack (replaced: readonly Replaced[], root: unknown, converted: unknown): void {
  const newRoot = converted !== root && isSchemaObject(converted) ? converted : undefined
  // By list, the values no longer at their index: what each was written as, and the handler's values written so (and
  // how many of them were put back: a cursor, as `shift()` would copy the rest each time).
  let moved: Map<unknown[], Map<unknown, { originals: unknown[], next: number }>> | undefined
  for (const [copyHolder, key, written, original] of replaced) {
    const holder = copyHolder === root && newRoot !== undefined ? newRoot : copyHolder
    if (Object.prototype.hasOwnProperty.call(holder, key) && holder[key] === written) {
      if (key === '__proto__') Object.defineProperty(holder, key, { value: original, enumerable: true, writable: true, configurable: true })
      else holder[key] = original
    } else if (Array.isArray(holder)) {
      let values = (moved ??= new Map()).get(holder)
      if (values === undefined) moved.set(holder, values = new Map())
      const same = values.get(written)
      if (same === undefined) values.set(written, { originals: [original], next: 0 })
      else same.originals.push(original)
    }
  }
  for (const [list, values] of moved ?? []) {
    for (let index = 0; index < list.length; index++) {
      const same = values.get(list[index])
      if (same !== undefined && same.next < same.originals.length) list[index] = same.originals[same.next++]
    }
  }
}

/**
 * The text the serializer writes for a valid `date` in `format`: fast-json-stringify's own arithmetic, the server's local date or time.
 * @example `writtenAs('date', new Date(2000, 0, 2)) // '2000-01-02'`
 */
export function writtenAs (format: 'date' | 'time', date: Date): string {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60000).toISOString()
  return format === 'date' ? local.slice(0, 10) : local.slice(11, 19)
}

/** What {@link writtenAtScalar} gives for a value the copy holds as the serializer writes it. */
const NOT_REWRITTEN = Symbol('not rewritten')

/**
 * What the copy holds for `value` at the scalar place `node`: what the serializer writes there where JSON writes it
 * otherwise (a `Date` under a number, an instance's text, 1.5 under an integer), so that a converter moving it moves
 * HEAD's value (decision 0321); an instance or a list HEAD refuses as JSON's copy (the handler's put back, HEAD's 500).
 */
function writtenAtScalar (node: TSchema, value: unknown, key: PropertyKey): unknown {
  const head = scalarWritten(node, value)
  if (head === REFUSED) {
    const object = typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON !== 'function'
    return object && (Array.isArray(value) || Object.getPrototypeOf(value) !== Object.prototype) ? copyJson(value) : NOT_REWRITTEN
  }
  // A Date left as it is (under `date` or `time`: instancesWritten's); a value JSON writes alike stays.
  if (head instanceof Date) return NOT_REWRITTEN
  const json = typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function'
    ? (value as { toJSON: (key: string) => unknown }).toJSON(String(key))
    : value
  return head === json || (typeof head === 'number' && head === 0 && json === 0) ? NOT_REWRITTEN : head
}

/**
 * Where the serializer writes `body`'s class instances (without `toJSON`, which it writes instead) otherwise than JSON:
 * the declared fields each holds through its prototype, the text of a valid `Date` at a `date` or `time` place, and the
 * JSON copy of each (or of an array) at a string, number or boolean place, noted so that the handler's is put back for
 * the serializer ({@link putBack}).
 */
function instancesWritten (instances: Collector, body: unknown, tree: PlaceTree | undefined): { inherited?: Map<object | number, string[]>, rewrites?: Rewrites } | undefined {
  let inherited: Map<object | number, string[]> | undefined
  let rewrites: Map<object | number, Map<string, unknown>> | undefined
  let scalars = false
  const found: Occurrence[] = []
  const root = { '': body }
  const at = collectKeyed(instances, root, found, tree)
  for (let index = 0; index < found.length; index++) {
    const [holder, key, node] = found[index]
    const value = holder[key]
    if (declares(node)) {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { toJSON?: unknown }).toJSON === 'function') continue
      const names = Object.keys(node.properties as object).filter((name) => !Object.prototype.propertyIsEnumerable.call(value, name) && readsInherited(value, name))
      if (names.length > 0) (inherited ??= new Map()).set(at === undefined ? value : at[index], names)
      continue
    }
    if (holder === root) continue
    const format = dateFormatOf(node)
    const written = format !== undefined && value instanceof Date
      ? (Number.isNaN(value.getTime()) ? NOT_REWRITTEN : writtenAs(format, value))
      : isScalar(node) ? writtenAtScalar(node, value, key) : NOT_REWRITTEN
    if (written === NOT_REWRITTEN) continue
    rewrites ??= new Map()
    const id = at === undefined ? holder : (tree as PlaceTree).parents[at[index]]
    let keys = rewrites.get(id)
    if (keys === undefined) rewrites.set(id, keys = new Map())
    keys.set(String(key), written)
    scalars = true
  }
  return inherited === undefined && !scalars ? undefined : { inherited, rewrites }
}
