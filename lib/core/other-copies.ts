/**
 * Telling what another copy of this package made (a library depending on another version, a test runner loading it
 * again): its classes and keys have our names but are not ours, and the message must say why ours refuse them.
 * @module
 */
import { InvalidOptionError } from './errors'
import { describeValue } from './json-schema'

/** Ends a message about something another copy made. */
export const ANOTHER_COPY = 'of another copy of fastify-versioner: the application loads two copies of the package ' +
  '(`npm ls fastify-versioner` lists them). Install one: a package of yours that uses it (shared version changes, ' +
  'schemas, routes) lists fastify-versioner and @sinclair/typebox in its peerDependencies, not its dependencies; ' +
  'give every package one version range of it, then run `npm dedupe`. Where `npm ls` lists one copy, this process ' +
  'loaded it twice: a test runner\'s module registry (`jest.resetModules()`, `jest.isolateModules()`) loads the ' +
  'package again for the modules required after the reset; import the plugin, its tools and the modules that use ' +
  'them on the same side of the reset'

/**
 * True when `value` (a class, or an instance) is or extends a class named as `ours` that is not it.
 * @example
 * ```ts
 * if (ofAnotherCopy(cls, VersionChange)) message += ` It extends VersionChange ${ANOTHER_COPY}.`
 * ```
 */
export function ofAnotherCopy (value: unknown, ours: abstract new (...args: never[]) => unknown): boolean {
  let link: unknown = typeof value === 'object' && value !== null ? value.constructor : value
  for (; typeof link === 'function' && link !== ours; link = Object.getPrototypeOf(link)) {
    if (link.name === ours.name) return true
  }
  return false
}

/**
 * True when `keys` hold another copy's key for `ours`: a symbol with its description that is not it.
 * @example `hasKeyOfAnotherCopy(Object.getOwnPropertySymbols(instruction), kInstruction)`
 */
export function hasKeyOfAnotherCopy (keys: readonly unknown[], ours: symbol): boolean {
  return keys.some((key) => typeof key === 'symbol' && key !== ours && key.description === ours.description)
}

/**
 * The symbol keys of `value` and of its prototypes (a Fastify context inherits its parents' decorations).
 * @example `hasKeyOfAnotherCopy(inheritedSymbols(instance), kVersionedScope) // inside another copy's versioned(...)`
 */
export function inheritedSymbols (value: object): symbol[] {
  const keys: symbol[] = []
  for (let link: object | null = value; link !== null; link = Object.getPrototypeOf(link) as object | null) keys.push(...Object.getOwnPropertySymbols(link))
  return keys
}

/**
 * Throws `FST_VERSIONER_INVALID_OPTION` unless `value` is an instance of `ours`, saying so when another copy made it;
 * the message starts with `needs` (`… needs a VersionBundle; got …`).
 * @example `checkInstanceOf(bundle, VersionBundle, 'migrateResponseBody(bundle, …) needs')`
 */
export function checkInstanceOf<T> (value: unknown, ours: abstract new (...args: never[]) => T, needs: string): asserts value is T {
  if (value instanceof ours) return
  throw new InvalidOptionError(`${needs} a ${ours.name}; got ${ofAnotherCopy(value, ours) ? `a ${ours.name} ${ANOTHER_COPY}` : describeValue(value)}.`)
}
