/**
 * What a converter does to the data it is given, seen from outside (`mutate`): each run's effect is the difference
 * between its input before and after (a field added, changed or removed, at a JSON pointer with `*` for list items),
 * in the body, and for request converters in the query string and headers too. The effects seen over a run of
 * `verify` and the recorded traffic say which mutants a converter gets (./mutants.ts), and a mutant changes the
 * effect of each run of its converter as a team's mistake would (docs/decisions/0085-converter-mutation-score.md).
 * @module
 */
import { deepEqual, pointerSegment } from '../core/json-schema'
import { setOwn } from '../core/own-properties'
import type { ConverterDescriptor } from '../describe/version-change-reader'
import { copyJson } from '../serve/step-runner'

/** The parts of a converter's input its effects are read in. */
export type EffectPart = 'body' | 'query' | 'headers'

/** The input of a converter, as the parts its effects are read in (the info object's `body`, `queryParams`, `headers`). */
export type Parts = Partial<Record<EffectPart, unknown>>

/** One place a converter wrote, generalised over list items: its part and path (`*` for an item). */
export interface EffectPlace {
  readonly part: EffectPart
  readonly path: readonly string[]
}

/** What a converter was seen doing at one place, over every run. */
export interface PlaceEffect extends EffectPlace {
  /** It put a value there that was not there before (a new or renamed field). */
  added: boolean
  /** It changed a value that was there. */
  changed: boolean
  /**
   * Values it wrote there: a string, a number; the strings and booleans it changed values into (JSON text, up to one
   * more than {@link MAPPING_SIZE}), for a mapping swapped.
   */
  strings: boolean
  numbers: boolean
  readonly mappedTo: Set<string>
}

type Info = Record<string, unknown>

/** Past this many values mapped to at one place, a converter writes free values there, not members of a mapping. */
export const MAPPING_SIZE = 16

const PART_KEYS: Readonly<Record<EffectPart, string>> = { body: 'body', query: 'queryParams', headers: 'headers' }

/** The parts of an info object a converter's effects are read in: the body, and for requests the query string and headers. */
export function partsOf (converter: ConverterDescriptor): EffectPart[] {
  return converter.direction === 'request' ? ['body', 'query', 'headers'] : ['body']
}

/** A JSON copy of the parts of an info object. */
export function snapshotOf (info: Info, parts: readonly EffectPart[]): Parts {
  const snapshot: Parts = {}
  for (const part of parts) snapshot[part] = copyJson(info[PART_KEYS[part]])
  return snapshot
}

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

/** Each concrete place that differs between `before` and `after` (at the deepest place both hold objects), with what it held. */
function differences (before: unknown, after: unknown, path: string[], found: Array<{ path: string[], before: unknown, after: unknown }>): void {
  if (deepEqual(before, after)) return
  if (isRecord(before) && isRecord(after) && Array.isArray(before) === Array.isArray(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) differences(before[key], after[key], [...path, key], found)
    return
  }
  found.push({ path, before, after })
}

/** A concrete path with list indices as `*`. */
function generalised (path: readonly string[], root: unknown): string[] {
  const result: string[] = []
  let value = root
  for (const key of path) {
    result.push(Array.isArray(value) ? '*' : key)
    value = isRecord(value) ? value[key] : undefined
  }
  return result
}

/** The key of a place, for maps. */
export function placeKey (place: EffectPlace): string {
  return `${place.part}${place.path.map((key) => `/${pointerSegment(key)}`).join('')}`
}

/** Notes what one run of a converter did (`before` its parts, `info` after it ran) into `effects`, by place. */
export function noteEffects (effects: Map<string, PlaceEffect>, before: Parts, info: Info): void {
  for (const part of Object.keys(before) as EffectPart[]) {
    const after = copyJson(info[PART_KEYS[part]])
    const found: Array<{ path: string[], before: unknown, after: unknown }> = []
    differences(before[part], after, [], found)
    for (const change of found) {
      if (change.after === undefined) continue
      const place = { part, path: generalised(change.path, after) }
      const key = placeKey(place)
      let effect = effects.get(key)
      if (effect === undefined) effects.set(key, effect = { ...place, added: false, changed: false, strings: false, numbers: false, mappedTo: new Set() })
      if (change.before === undefined) effect.added = true
      else effect.changed = true
      if (typeof change.after === 'string') effect.strings = true
      if (typeof change.after === 'number') effect.numbers = true
      if (change.before !== undefined && (typeof change.after === 'string' || typeof change.after === 'boolean') && effect.mappedTo.size <= MAPPING_SIZE) {
        effect.mappedTo.add(JSON.stringify(change.after))
      }
    }
  }
}

/** The keys of `value` a path segment names: every key for `*`, else the one key if it has it. */
function keysNamed (value: Record<string, unknown>, segment: string): string[] {
  return segment === '*' ? Object.keys(value) : Object.hasOwn(value, segment) ? [segment] : []
}

/** The concrete places of `root` matching a generalised path (`*`: every item or key): holder, key, and the path. */
export function placesOf (root: unknown, path: readonly string[]): Array<{ holder: Record<string, unknown>, key: string, path: string[] }> {
  let places: Array<{ holder: Record<string, unknown>, key: string, path: string[] }> = [{ holder: { root }, key: 'root', path: [] }]
  for (const segment of path) {
    places = places.flatMap(({ holder, key, path: at }) => {
      const value = holder[key]
      return isRecord(value) ? keysNamed(value, segment).map((child) => ({ holder: value, key: child, path: [...at, child] })) : []
    })
  }
  return path.length === 0 ? [] : places
}

/** The value at a concrete path of `root`. */
export function valueOn (root: unknown, path: readonly string[]): unknown {
  let value = root
  for (const key of path) value = isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined
  return value
}

/** Sets or removes (`undefined`) a place's value. */
export function writePlace (holder: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) setOwn(holder, key, value)
  else if (Array.isArray(holder)) holder.splice(Number(key), 1)
  else delete holder[key]
}

/** The info object's part (`info.body`, `info.queryParams`, `info.headers`). */
export function partOf (info: Info, part: EffectPart): unknown {
  return info[PART_KEYS[part]]
}

/** Puts parts back into an info object (through its setters: a request's headers are written back from what it holds). */
export function restoreParts (info: Info, parts: Parts): void {
  for (const part of Object.keys(parts) as EffectPart[]) info[PART_KEYS[part]] = copyJson(parts[part])
}
