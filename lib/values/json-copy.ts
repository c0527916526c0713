/**
 * The JSON copy of a value, by one walk (a `__proto__` key stays data), so that converters never change a handler's
 * object; a response's copy follows its serializer (decision 0137).
 * @module
 */

/** Left out of an object (`null` in an array), as JSON leaves out `undefined`, functions and symbols. */
const OMITTED = Symbol('omitted')

/** The walk met something JSON treats in a way it does not: copy through the text instead. */
const UNUSUAL = Symbol('unusual')

/** Nesting the walk copies itself; deeper data (or a cycle) goes through the text. */
export const MAX_DEPTH = 64

/**
 * Values the copy takes instead of the JSON of `holder[key]`, by holder (or, with {@link CopyOptions.places}, the
 * holder's place) and key (./written-values.ts).
 */
export type Rewrites = ReadonlyMap<object | number, ReadonlyMap<string, unknown>>

/** Thrown by a copy with {@link CopyOptions.once} that meets one of its keyed objects a second time. */
export const SHARED = Symbol('shared')

/** A value the copy holds in place of a handler's (its `toJSON`'s text, a Buffer's, a rewrite): the copy's holder and key, what it holds, the handler's value. */
export type Replaced = readonly [holder: Record<string, unknown>, key: string, written: unknown, original: unknown]

/** How a response's copy departs from JSON's rules, to give what Fastify's serializer writes. */
interface CopyOptions {
  /** Values to take instead of the JSON of some properties (kept by the walk only). */
  readonly rewrites?: Rewrites
  /**
   * Copy as themselves what the serializer writes or refuses its own way (a `BigInt`, `NaN`, `±Infinity`, an invalid
   * `Date`, an `undefined` item); a record's `kept` is set when the copy holds one.
   */
  readonly serializer?: true | { kept: boolean }
  /** Fields to copy beside an object's own, by object (or place): what the serializer reads through a class's getters (./written-values.ts). */
  readonly inherited?: ReadonlyMap<object | number, readonly string[]>
  /**
   * The places the keys of `rewrites` and `inherited` number: by place, its children's by key (./occurrences.ts), the
   * body's own place 0; `below`, filled by the copy, gives each of its objects its children's: for a body holding one
   * of their objects at two places, which its schemas may write apart.
   */
  readonly places?: { readonly children: ReadonlyArray<ReadonlyMap<string, number> | undefined>, readonly below: Map<object, ReadonlyMap<string, number> | undefined> }
  /** The objects `rewrites` and `inherited` key (without `places`) met so far: one met again throws {@link SHARED}. */
  readonly once?: Set<object>
  /**
   * Set (from `false`) when the copy holds the fields of a class instance or of an object without a prototype, or a
   * `toJSON`'s value, a `BigInt` or a number not an integer: the serializer may read more of it than JSON does, or
   * write it otherwise where the schema says a string, number, integer or boolean (./written-values.ts).
   */
  instance?: boolean
  /** Copy a `BigInt` as its number: what a JSON reader (Ajv's checks) reads of the digits the serializer writes. */
  readonly bigIntsRead?: true
  /** Noted here: each value below the root the copy holds in place of a handler's (a `toJSON`'s, a rewrite's). */
  readonly replaced?: Replaced[]
}

/**
 * The JSON copy of `value`; primitives as they are. `options` departs from JSON's rules as Fastify's serializer does.
 * @example `copyJson({ at: new Date(0), skip: undefined }) // { at: '1970-01-01T00:00:00.000Z' }`
 */
export function copyJson (value: unknown, options: CopyOptions = {}): unknown {
  if (typeof value !== 'object' || value === null) return value
  let copied: unknown
  try {
    copied = copyProperty(value, '', 0, options)
  } catch (error) {
    if (error === SHARED) throw error
    copied = UNUSUAL
  }
  if (copied === OMITTED) return undefined
  return copied === UNUSUAL ? copyThroughText(value) : copied
}

/** The copy through JSON text; a value JSON cannot write is kept as it is. */
function copyThroughText (value: unknown): unknown {
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch {
    return value
  }
  return text === undefined ? undefined : JSON.parse(text)
}

/** A property's value as JSON writes it: `toJSON(key)` first (noted, for `holder`, the copy's object), then the value itself. */
function copyProperty (value: unknown, key: string, depth: number, options: CopyOptions, holder?: Record<string, unknown>): unknown {
  if (((typeof value === 'object' && value !== null) || typeof value === 'function') && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    // The serializer writes no `toJSON`: at a number place a Date is its milliseconds (./written-values.ts).
    if (options.instance === false) options.instance = true
    if (options.serializer !== undefined && value instanceof Date && Number.isNaN(value.getTime())) return kept(options, new Date(Number.NaN))
    // What `toJSON` gives is not at the value's place: no rewrite of the value applies to it.
    const written = copyValue((value as { toJSON: (key: string) => unknown }).toJSON(key), depth, options, -1)
    // An object (an ORM document's fields) is data converters change in place: only a Buffer's is the handler's again.
    if (holder !== undefined && (typeof written !== 'object' || written === null || ArrayBuffer.isView(value))) options.replaced?.push([holder, key, written, value])
    return written
  }
  const { places } = options
  return copyValue(value, depth, options, places === undefined ? -1 : holder === undefined ? 0 : (places.below.get(holder)?.get(key) ?? -1))
}

/** A value JSON writes as it is (no `toJSON`), at `place` (with {@link CopyOptions.places}; -1: none numbered). */
function copyValue (value: unknown, depth: number, options: CopyOptions, place: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      // A fraction may be at an integer place, which the serializer truncates (./written-values.ts).
      if (options.instance === false && !Number.isInteger(value)) options.instance = true
      // -0 is written as 0.
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : options.serializer !== undefined ? kept(options, value) : null
    case 'object':
      return value === null ? null : copyObject(value, depth, options, place)
    case 'bigint':
      if (options.instance === false) options.instance = true
      return options.bigIntsRead === true ? Number(value) : options.serializer !== undefined ? kept(options, value) : UNUSUAL
    default:
      return OMITTED
  }
}

/** `value`, kept for the serializer: noted on the options' record, if any. */
function kept<T> (options: CopyOptions, value: T): T {
  if (typeof options.serializer === 'object') options.serializer.kept = true
  return value
}

function copyObject (value: object, depth: number, options: CopyOptions, place: number): unknown {
  if (depth >= MAX_DEPTH) return UNUSUAL
  const { places } = options
  const id = places === undefined ? value : place
  const rewritten = options.rewrites?.get(id)
  const inherited = options.inherited?.get(id)
  if (options.once !== undefined && (rewritten !== undefined || inherited !== undefined)) {
    // Met at a second place, where its schema may write it otherwise: the caller copies again by place.
    if (options.once.has(value)) throw SHARED
    options.once.add(value)
  }
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length)
    const holder = copy as unknown as Record<string, unknown>
    if (places !== undefined && place >= 0) places.below.set(copy, places.children[place])
    for (let index = 0; index < value.length; index++) {
      const key = String(index)
      const item = rewritten?.has(key) === true ? rewrite(rewritten.get(key), holder, key, value[index], options) : copyProperty(value[index], key, depth + 1, options, holder)
      if (item === UNUSUAL) return UNUSUAL
      copy[index] = item !== OMITTED ? item : options.serializer !== undefined && value[index] === undefined ? kept(options, undefined) : null
    }
    return copy
  }
  const prototype: unknown = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype) {
    if (prototype !== null && (value instanceof Number || value instanceof String || value instanceof Boolean || value instanceof BigInt)) return UNUSUAL
    if (options.instance === false) options.instance = true
  }
  const copy: Record<string, unknown> = {}
  if (places !== undefined && place >= 0) places.below.set(copy, places.children[place])
  const keys = inherited === undefined ? Object.keys(value) : [...Object.keys(value), ...inherited]
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]
    const source = (value as Record<string, unknown>)[key]
    const item = rewritten?.has(key) === true ? rewrite(rewritten.get(key), copy, key, source, options) : copyProperty(source, key, depth + 1, options, copy)
    if (item === UNUSUAL) return UNUSUAL
    if (item === OMITTED) continue
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true })
    else copy[key] = item
  }
  return copy
}

/** `written`, the rewrite of `holder[key]` (the handler's `original`), noted as a value the copy replaced. */
function rewrite (written: unknown, holder: Record<string, unknown>, key: string, original: unknown, options: CopyOptions): unknown {
  options.replaced?.push([holder, key, written, original])
  return written
}
