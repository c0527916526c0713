/**
 * The step runner: runs planned converter steps over every occurrence of their schema in a body. Steps run
 * synchronously; a converter returning a promise makes the rest of the run asynchronous.
 * @module
 */
import type { ConverterStep } from '../routes/converter-steps'
import type { FastifyRequest } from 'fastify'
import type { Holder, Occurrence } from '../values/occurrences'
import { ConverterFailedError } from '../core/errors'
import { setOwn } from '../core/own-properties'

/** The value boxed under `body`, so that converters can replace it. */
export interface BodyBox {
  body: unknown
}

// The data converters see: a JSON copy of the body (see ../values/json-copy.ts).
export { copyJson } from '../values/json-copy'

const ROOT_KEY = 'body'

/** True for a promise, or anything with a `then` method. */
export function isThenable (value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function'
}

/** What a converter threw or rejected with, and which converter: the failure of one step. */
export class ConverterFailure {
  constructor (readonly step: ConverterStep, readonly thrown: unknown) {}
}

/**
 * Runs steps with `run`, then `complete` (at once, or when the promise `run` returned resolves). Anything
 * thrown by either, or a rejection, whatever its value (`null`, `undefined`, a string, a {@link ConverterFailure}),
 * goes to `fail` as something that is not nullish: nothing is left as an unhandled rejection, and no failure
 * can pass for success.
 */
export function settle (run: () => void | PromiseLike<void>, complete: () => void, fail: (failure: unknown) => void): void {
  let result: void | PromiseLike<void>
  try {
    result = run()
  } catch (error) {
    failWith(fail, error)
    return
  }
  if (isThenable(result)) {
    result.then(() => { completeOrFail(complete, fail) }, (error: unknown) => { failWith(fail, error) })
    return
  }
  completeOrFail(complete, fail)
}

function failWith (fail: (failure: unknown) => void, error: unknown): void {
  fail(error ?? new Error(`A converter run failed with ${String(error)}.`))
}

function completeOrFail (complete: () => void, fail: (failure: unknown) => void): void {
  try {
    complete()
  } catch (error) {
    failWith(fail, error)
  }
}

/** Where a run of converters happened, for the log entry of a failure. */
export interface FailureContext {
  readonly request: FastifyRequest
  readonly version: string
  /** `METHOD url` of the HEAD route. */
  readonly route: string
}

/**
 * The error a request is answered with when its converters failed: a converter's failure is logged (version,
 * route, version change class, converter method, what it threw) and becomes {@link ConverterFailedError}, a 500
 * for this request alone. Other failures (an Error thrown while writing data back) are passed on as they are.
 */
export function failureError (failure: unknown, context: FailureContext): Error {
  if (!(failure instanceof ConverterFailure)) {
    return failure instanceof Error ? failure : new Error(`Converting a request of API version ${context.version} failed with ${String(failure)}.`)
  }
  const converter = failure.step.converter
  const error = new ConverterFailedError(context.version)
  const thrown = failure.thrown
  context.request.log.error({
    err: thrown instanceof Error ? thrown : undefined,
    thrown: thrown instanceof Error ? undefined : describeThrown(thrown),
    apiVersion: context.version,
    route: context.route,
    versionChange: converter.change.name,
    converter: converter.display
  }, `Converter ${converter.display} (version change ${converter.change.name}) failed on ${context.route} for API version ` +
    `${context.version}; the request was answered 500.`)
  return error
}

function describeThrown (value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (value === undefined) return 'undefined'
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}

/**
 * Runs one converter: what it throws, or rejects with, becomes a {@link ConverterFailure} naming it. Returns a
 * promise only if the converter did.
 */
function runConverter (step: ConverterStep, info: { body: unknown }): unknown {
  let result: unknown
  try {
    result = step.converter.run(info)
  } catch (error) {
    throw new ConverterFailure(step, error)
  }
  if (!isThenable(result)) return result
  return Promise.resolve(result).then(undefined, (error: unknown) => { throw new ConverterFailure(step, error) })
}

/** Who a run of steps is for: the request method (by-path converters of multi-method routes), and for responses the reply. */
export interface StepFilter {
  readonly method: string | undefined
  /** For responses: steps not declared with `migrateHttpErrors` skip statuses ≥ 300 (read before each step). */
  readonly reply: { readonly statusCode: number } | undefined
}

function shouldRun (step: ConverterStep, filter: StepFilter): boolean {
  if (step.methods !== undefined && filter.method !== undefined && !step.methods.has(filter.method)) return false
  if (filter.reply === undefined) return true
  return filter.reply.statusCode < 300 ? step.errorsOnly !== true : step.converter.migrateHttpErrors
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
      const result = runConverter(step, info)
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
      const result = runConverter(step, info)
      if (isThenable(result)) {
        const current = list
        return Promise.resolve(result).then(() => {
          setOwn(container, key, info.body)
          return runFrom(steps, info, box, filter, index, current, position + 1)
        })
      }
      setOwn(container, key, info.body)
    }
    occurrences = undefined
  }
}
