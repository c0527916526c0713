/**
 * A copy of plain JSON data that no walk of it can tell from the original but by identity, for `verify` to keep the
 * data a replay had at a level while converters go on changing it (./verify-replay.ts).
 * @module
 */

/** Nesting copied; deeper data (or a cycle) is not plain. */
const MAX_DEPTH = 64

/** What {@link copyOf} gives for data that is not plain. */
const NOT_PLAIN = Symbol('not plain')

/**
 * The copy of `value` when it is plain JSON data: strings, booleans, `null`, finite numbers but `-0`; arrays without
 * holes or other properties; objects of `Object.prototype` (or none) whose every own property is an enumerable data
 * property with a string key. `undefined` for anything else (a `Date`, `NaN`, an `undefined` property, an accessor,
 * an instance of a class, a proxy that throws…), which only the original tells exactly.
 * @example
 * ```ts
 * plainCopy({ tags: ['a'] }) // { copy: { tags: ['a'] } }
 * plainCopy({ at: new Date(0) }) // undefined
 * ```
 */
export function plainCopy (value: unknown): { copy: unknown } | undefined {
  let copy: unknown
  try {
    copy = copyOf(value, 0)
  } catch {
    // A proxy whose traps throw (or one revoked) is not plain either.
    return undefined
  }
  return copy === NOT_PLAIN ? undefined : { copy }
}

function copyOf (value: unknown, depth: number): unknown {
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return value
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0) ? value : NOT_PLAIN
  if (typeof value !== 'object' || depth >= MAX_DEPTH) return NOT_PLAIN
  const prototype: unknown = Object.getPrototypeOf(value)
  const keys = Object.keys(value)
  // A symbol key, or one not enumerable (an array's `length` is its one).
  if (Reflect.ownKeys(value).length !== keys.length + (Array.isArray(value) ? 1 : 0)) return NOT_PLAIN
  if (Array.isArray(value)) {
    if (prototype !== Array.prototype || keys.length !== value.length) return NOT_PLAIN
    const copy: unknown[] = new Array(value.length)
    for (let index = 0; index < value.length; index++) {
      const item = 'value' in (Object.getOwnPropertyDescriptor(value, index) as PropertyDescriptor) ? copyOf(value[index], depth + 1) : NOT_PLAIN
      if (item === NOT_PLAIN) return NOT_PLAIN
      copy[index] = item
    }
    return copy
  }
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN
  const copy = Object.create(prototype as object | null) as Record<string, unknown>
  for (const key of keys) {
    const property = Object.getOwnPropertyDescriptor(value, key) as PropertyDescriptor
    const item = 'value' in property ? copyOf(property.value, depth + 1) : NOT_PLAIN
    if (item === NOT_PLAIN) return NOT_PLAIN
    // `__proto__` stays data, as JSON.parse makes it.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true })
    else copy[key] = item
  }
  return copy
}
