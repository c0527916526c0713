/**
 * Catching what a call throws (not a test file): synchronously ({@link caught}), asynchronously
 * ({@link rejection}, e.g. `rejection(() => app.ready())`), and asserting a coded error ({@link throwsCoded}).
 */

/** An error as `@fastify/error` builds it. */
export type CodedError = Error & { code?: string, statusCode?: number }

/** The few assertions {@link throwsCoded} uses (a tap `Test` has them). */
export interface Asserts {
  fail: (message: string) => unknown
  equal: (found: unknown, wanted: unknown, message: string) => unknown
  match: (found: unknown, wanted: unknown, message: string) => unknown
}

/** Runs `fn` and returns what it threw (or `undefined` when it did not throw). */
export function caught (fn: () => unknown): CodedError | undefined {
  try {
    fn()
  } catch (error) {
    return error as CodedError
  }
  return undefined
}

/** Awaits `fn()` and returns what it threw or rejected with (`undefined` when it did neither). */
export async function rejection (fn: () => unknown): Promise<CodedError | undefined> {
  try {
    await fn()
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
