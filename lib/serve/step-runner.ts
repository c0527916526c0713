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

/** The value boxed under `body`, so that converters can replace it (the holder of a body's root occurrence). */
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

/** A failure as something that is not nullish: no failure can pass for success. */
export function failureOf (error: unknown): unknown {
  return error ?? new Error(`A converter run failed with ${String(error)}.`)
}

/**
 * Finishes a run of steps that went asynchronous: once it settles, `write` gets the converted body, then `next`
 * runs. A rejection, or what `write` throws, goes to `fail` instead (as something not nullish); nothing is left as
 * an unhandled rejection. (Runs that stay synchronous are finished inline by their callers, with no closures.)
 */
export function finishPendingRun (run: PendingRun, write: (body: unknown) => void, next: () => void, fail: (failure: unknown) => void): void {
  run.body.then((body) => {
    try {
      write(body)
    } catch (error) {
      fail(failureOf(error))
      return
    }
    next()
  }, (error: unknown) => { fail(failureOf(error)) })
}

/** Where a run of converters happened, for the log entry of a failure. */
export interface FailureContext {
  readonly request: FastifyRequest
  readonly version: string
  /** `METHOD url` of the HEAD route. */
  readonly route: string
}

/**
 * A client error a converter threw to refuse what it cannot migrate: an `Error` whose `statusCode` (or `status`,
 * as Fastify reads it) is in 400–499, such as "kind 'legacy' is no longer supported" (422).
 */
export function clientErrorOf (thrown: unknown): Error | undefined {
  if (!(thrown instanceof Error)) return undefined
  const { statusCode, status } = thrown as Error & { statusCode?: unknown, status?: unknown }
  const code = statusCode ?? status
  return typeof code === 'number' && code >= 400 && code <= 499 ? thrown : undefined
}

/**
 * The error a request is answered with when its converters failed. A client error a converter threw (see
 * {@link clientErrorOf}) is answered as it is, as Fastify answers it from a handler. Any other failure of a
 * converter is logged (version, route, version change class, converter method, what it threw) and becomes
 * {@link ConverterFailedError}, a 500 for this request alone. Other failures (an Error thrown while writing data
 * back) are passed on as they are.
 */
export function failureError (failure: unknown, context: FailureContext): Error {
  if (!(failure instanceof ConverterFailure)) {
    return failure instanceof Error ? failure : new Error(`Converting a request of API version ${context.version} failed with ${String(failure)}.`)
  }
  const thrown = failure.thrown
  const refusal = clientErrorOf(thrown)
  if (refusal !== undefined) return refusal
  const converter = failure.step.converter
  const error = new ConverterFailedError(context.version)
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

/**
 * A run of steps that went asynchronous (a converter returned a promise): `body` settles with the converted body,
 * or rejects with the failure. Runs that stay synchronous return the body itself, and allocate nothing of
 * their own.
 */
export class PendingRun {
  constructor (readonly body: Promise<unknown>) {}
}

/** For responses: the reply, whose status decides which steps run (read before each step). */
type StatusSource = { readonly statusCode: number } | undefined

/**
 * Whether a step runs: by-path converters of multi-method routes only for their methods; for responses, steps
 * not declared with `migrateHttpErrors` only for statuses < 300, and error-only steps only for statuses ≥ 300.
 */
function shouldRun (step: ConverterStep, method: string | undefined, reply: StatusSource): boolean {
  if (step.methods !== undefined && method !== undefined && !step.methods.has(method)) return false
  if (reply === undefined) return true
  return reply.statusCode < 300 ? step.errorsOnly !== true : step.converter.migrateHttpErrors
}

/** Where a run of steps stands when a converter returned a promise: what is left to do once it settles. */
interface Resume {
  readonly steps: readonly ConverterStep[]
  readonly info: { body: unknown }
  readonly root: BodyBox
  readonly method: string | undefined
  readonly reply: StatusSource
}

/**
 * Runs `steps` on `body`: each step on every occurrence of its schema (or on the whole body), with `info.body`
 * set to that occurrence and written back afterwards. Returns the converted body, or a {@link PendingRun} when
 * a converter returned a promise (the steps after it run once it settles). A converter's failure is thrown (or
 * rejected) as a {@link ConverterFailure}. `method` is the request's (by-path converters of multi-method routes);
 * `reply` is given for responses.
 */
export function runSteps (
  steps: readonly ConverterStep[], info: { body: unknown }, body: unknown, method: string | undefined, reply: StatusSource
): unknown {
  // The holder of the body for by-schema steps (an occurrence may be the body itself), made on first use.
  let root: BodyBox | undefined
  for (let index = 0; index < steps.length; index++) {
    const step = steps[index]
    if (!shouldRun(step, method, reply)) continue
    const findOccurrences = step.findOccurrences
    if (findOccurrences === undefined) {
      // The whole body: no occurrence list to build.
      info.body = body
      const result = runConverter(step, info)
      if (isThenable(result)) {
        const resume: Resume = { steps, info, root: root ?? { body }, method, reply }
        return new PendingRun(Promise.resolve(result).then(() => {
          resume.root.body = info.body
          return resumeFrom(resume, index + 1, undefined, 0)
        }))
      }
      body = info.body
      continue
    }
    root ??= { body }
    root.body = body
    const found: Occurrence[] = []
    findOccurrences(root as unknown as Holder, ROOT_KEY, found)
    for (let position = 0; position < found.length; position++) {
      const [container, key] = found[position]
      info.body = container[key]
      const result = runConverter(step, info)
      if (isThenable(result)) {
        const resume: Resume = { steps, info, root, method, reply }
        return new PendingRun(Promise.resolve(result).then(() => {
          setOwn(container, key, info.body)
          return resumeFrom(resume, index, found, position + 1)
        }))
      }
      setOwn(container, key, info.body)
    }
    body = root.body
  }
  return body
}

/** The rest of a run after a converter's promise settled: from step `stepIndex` (within its `occurrences`, if given). */
async function resumeFrom (run: Resume, stepIndex: number, occurrences: readonly Occurrence[] | undefined, occurrenceIndex: number): Promise<unknown> {
  const { steps, info, root, method, reply } = run
  for (let index = stepIndex; index < steps.length; index++) {
    const step = steps[index]
    if (occurrences === undefined && !shouldRun(step, method, reply)) continue
    if (step.findOccurrences === undefined) {
      info.body = root.body
      await runConverter(step, info)
      root.body = info.body
      continue
    }
    let list = occurrences
    let start = occurrenceIndex
    if (list === undefined) {
      const found: Occurrence[] = []
      step.findOccurrences(root as unknown as Holder, ROOT_KEY, found)
      list = found
      start = 0
    }
    for (let position = start; position < list.length; position++) {
      const [container, key] = list[position]
      info.body = container[key]
      await runConverter(step, info)
      setOwn(container, key, info.body)
    }
    occurrences = undefined
  }
  return root.body
}

/**
 * Runs steps as {@link runSteps} does, for callers that can wait: the converted body, or a promise of it when a
 * converter returned one.
 */
export function runStepsToBody (
  steps: readonly ConverterStep[], info: { body: unknown }, body: unknown, method: string | undefined, reply: StatusSource
): unknown {
  const result = runSteps(steps, info, body, method, reply)
  return result instanceof PendingRun ? result.body : result
}
