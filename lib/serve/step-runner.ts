/**
 * The step runner: runs planned converter steps over every occurrence of their schema in a body. Steps run
 * synchronously; a converter returning a promise makes the rest of the run asynchronous.
 * @module
 */
import type { ConverterStep } from '../routes/converter-steps'
import type { Holder, Occurrence } from '../values/occurrences'

/** The value boxed under `body`, so that converters can replace it. */
export interface BodyBox {
  body: unknown
}

/**
 * A copy of JSON-like data (plain objects and arrays are copied, anything else is kept): response converters
 * work on it, so that a handler's returned object (a cached or stored one) is never changed.
 */
export function copyJson (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyJson)
  if (typeof value !== 'object' || value === null) return value
  const prototype = Object.getPrototypeOf(value) as unknown
  if (prototype !== Object.prototype && prototype !== null) return value
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(value)) copy[key] = copyJson((value as Record<string, unknown>)[key])
  return copy
}

const ROOT_KEY = 'body'

/** True for a promise, or anything with a `then` method. */
export function isThenable (value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function'
}

/**
 * Runs steps with `run`, then `complete` (at once, or when the promise `run` returned resolves). An error
 * thrown by either, or a rejection, goes to `fail`: nothing is left as an unhandled rejection.
 */
export function settle (run: () => void | PromiseLike<void>, complete: () => void, fail: (error: Error) => void): void {
  let result: void | PromiseLike<void>
  try {
    result = run()
  } catch (error) {
    fail(error as Error)
    return
  }
  if (isThenable(result)) {
    result.then(() => { completeOrFail(complete, fail) }, fail)
    return
  }
  completeOrFail(complete, fail)
}

function completeOrFail (complete: () => void, fail: (error: Error) => void): void {
  try {
    complete()
  } catch (error) {
    fail(error as Error)
  }
}

/** Who a run of steps is for: the request method (by-path converters of multi-method routes), and for responses the reply. */
export interface StepFilter {
  readonly method: string | undefined
  /** For responses: steps not declared with `migrateHttpErrors` skip statuses ≥ 300 (read before each step). */
  readonly reply: { readonly statusCode: number } | undefined
}

function shouldRun (step: ConverterStep, filter: StepFilter): boolean {
  if (step.methods !== undefined && filter.method !== undefined && !step.methods.has(filter.method)) return false
  return filter.reply === undefined || filter.reply.statusCode < 300 || step.converter.migrateHttpErrors
}

/**
 * Runs `steps` on `box.body`: each step on every occurrence of its schema (or on the whole body), with
 * `info.body` set to that occurrence and written back afterwards. Returns a promise only if a converter did.
 */
export function runSteps (steps: readonly ConverterStep[], info: { body: unknown }, box: BodyBox, filter: StepFilter): void | Promise<void> {
  return runFrom(steps, info, box, filter, 0, undefined, 0)
}

function runFrom (
  steps: readonly ConverterStep[], info: { body: unknown }, box: BodyBox, filter: StepFilter,
  stepIndex: number, occurrences: readonly Occurrence[] | undefined, occurrenceIndex: number
): void | Promise<void> {
  for (let index = stepIndex; index < steps.length; index++) {
    const step = steps[index]
    if (occurrences === undefined && !shouldRun(step, filter)) continue
    if (step.collect === undefined) {
      // The whole body: no occurrence list to build.
      info.body = box.body
      const result = step.converter.run(info)
      if (isThenable(result)) {
        return Promise.resolve(result).then(() => {
          box.body = info.body
          return runFrom(steps, info, box, filter, index + 1, undefined, 0)
        })
      }
      box.body = info.body
      continue
    }
    let list = occurrences
    let start = occurrenceIndex
    if (list === undefined) {
      const found: Occurrence[] = []
      step.collect(box as unknown as Holder, ROOT_KEY, found)
      list = found
      start = 0
    }
    for (let position = start; position < list.length; position++) {
      const [container, key] = list[position]
      info.body = container[key]
      const result = step.converter.run(info)
      if (isThenable(result)) {
        const current = list
        return Promise.resolve(result).then(() => {
          container[key] = info.body
          return runFrom(steps, info, box, filter, index, current, position + 1)
        })
      }
      container[key] = info.body
    }
    occurrences = undefined
  }
}
