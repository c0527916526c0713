/**
 * Helpers for the structure tests: fresh version change classes (a class can be bound to one bundle only,
 * ever) and an assertion that a function throws a coded error whose message matches.
 */
import { VersionChange, VersionChangeWithSideEffects, type VersionChangeClass } from '../../plugin'

/** The few assertions the helpers use (a tap `Test` has them). */
export interface Asserts {
  fail: (message: string) => unknown
  equal: (found: unknown, wanted: unknown, message: string) => unknown
  match: (found: unknown, wanted: unknown, message: string) => unknown
}

/** An error with the `code` that `@fastify/error` sets. */
export type CodedError = Error & { code?: string }

/** Runs `fn` and returns what it threw (or `undefined` when it did not throw). */
export function caught (fn: () => unknown): CodedError | undefined {
  try {
    fn()
  } catch (error) {
    return error as CodedError
  }
  return undefined
}

/**
 * Asserts that `fn` throws an error with `code` whose message matches every pattern; returns the error
 * (or an empty error when nothing was thrown, after failing the test).
 */
export function throwsCoded (t: Asserts, fn: () => unknown, code: string, ...patterns: Array<RegExp | string>): CodedError {
  const error = caught(fn)
  if (error === undefined) {
    t.fail(`expected an error ${code}, nothing was thrown`)
    return new Error('(nothing thrown)')
  }
  t.equal(error.code, code, `error code is ${code}`)
  for (const pattern of patterns) t.match(error.message, pattern, `message matches ${String(pattern)}`)
  return error
}

/** Asserts a `FST_VERSIONER_STRUCTURE` error whose message matches every pattern. */
export function throwsStructure (t: Asserts, fn: () => unknown, ...patterns: Array<RegExp | string>): CodedError {
  return throwsCoded(t, fn, 'FST_VERSIONER_STRUCTURE', ...patterns)
}

/** A fresh, valid version change class named `name`, without instructions or converters. */
export function makeChange (name: string): VersionChangeClass {
  const holder = {
    [name]: class extends VersionChange {
      description = `The change ${name}.`
      instructionsToMigrateToPreviousVersion = []
    }
  }
  return holder[name]
}

/** A side-effect version change class (with `isApplied`). */
export type SideEffectChangeClass = VersionChangeClass & { readonly isApplied: boolean, readonly name: string }

/** A fresh, valid `VersionChangeWithSideEffects` class named `name`. */
export function makeSideEffectChange (name: string): SideEffectChangeClass {
  const holder = {
    [name]: class extends VersionChangeWithSideEffects {
      description = `The side effect ${name}.`
      instructionsToMigrateToPreviousVersion = []
    }
  }
  return holder[name]
}
