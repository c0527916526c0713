/**
 * Writing keys that come from client data: `__proto__`, `constructor` and `prototype` are defined as own data
 * properties, never assigned (assigning `__proto__` would replace the object's prototype).
 * @module
 */

const UNSAFE_KEYS = new Set<PropertyKey>(['__proto__', 'constructor', 'prototype'])

/** Sets `target[key]` to `value` as an own, enumerable, writable property, whatever the key. */
export function setOwn (target: Record<PropertyKey, unknown>, key: PropertyKey, value: unknown): void {
  if (UNSAFE_KEYS.has(key)) Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}
