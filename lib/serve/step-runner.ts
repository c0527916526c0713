/**
 * The step runner: runs planned converter steps over every occurrence of their schema in a body, in one loop shaped
 * like Fastify's hook runner (a converter's promise suspends it where it stopped); a synchronous run ends at once.
 * @module
 */
import type { ConverterStep } from '../routes/converter-steps'
import type { FastifyRequest } from 'fastify'
import type { Holder, Occurrence } from '../values/occurrences'
import { ConverterFailedError } from '../core/request-errors'
import { setOwn } from '../core/own-properties'
import { inspect } from 'node:util'

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
 * A converter run's failure, else the failure of writing what the converters changed back with `info.writeBack`:
 * what it threw, never nullish, so that no failure can pass for success.
 */
export function failureAfterWriteBack (info: { writeBack: (body: unknown) => void }, converterFailure: unknown, body?: unknown): unknown {
  if (converterFailure !== undefined) return converterFailure
  try {
    info.writeBack(body)
  } catch (error) {
    return error ?? new Error(`A converter run failed with ${String(error)}.`)
  }
  return undefined
}

/** Where a run of converters happened, for the log entry of a failure. */
export interface FailureContext {
  readonly request: FastifyRequest
  readonly version: string
  /** `METHOD url` of the HEAD route. */
  readonly route: string
}

/** A client error a converter threw to refuse what it cannot migrate: an `Error` whose `statusCode` (or `status`) is 4xx. */
export function clientErrorOf (thrown: unknown): Error | undefined {
  if (!isError(thrown)) return undefined
  const { statusCode, status } = thrown as Error & { statusCode?: unknown, status?: unknown }
  const code = statusCode ?? status
  return typeof code === 'number' && code >= 400 && code <= 499 ? thrown : undefined
}

/**
 * The error a request is answered with when its converters failed: a converter's client error as it is; any other
 * converter failure logged and made {@link ConverterFailedError}; other failures (writing back) as they are.
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
  const isThrownError = isError(thrown)
  // The request's logger carries `apiVersion` already (./request-state.ts).
  context.request.log.error({
    err: isThrownError ? thrown : undefined,
    thrown: isThrownError ? undefined : describeThrown(thrown),
    route: context.route,
    versionChange: converter.change.name,
    converter: converter.display
  }, `Converter ${converter.display} (version change ${converter.change.name}) failed on ${context.route} for API version ` +
    `${context.version}; the request was answered 500.`)
  return error
}

/**
 * `value instanceof Error`, false for a value whose prototype cannot be read (a revoked proxy, on which `instanceof` throws).
 * @example `isError(thrown) ? thrown.message : 'not an Error'`
 */
export function isError (value: unknown): value is Error {
  try {
    return value instanceof Error
  } catch {
    return false
  }
}

function describeThrown (value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (value === undefined) return 'undefined'
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    // A cycle, a BigInt, a getter or proxy that throws: inspect reads none of them through their traps or getters.
    return inspect(value, { depth: 2, breakLength: Infinity })
  }
}

/** Where a run happens: the request's method (by-path converters of multi-method routes) and, for responses, the reply (its status chooses the steps). */
interface RunAt {
  readonly method: string | undefined
  readonly reply: { readonly statusCode: number } | undefined
  /** The request's state, when a request runs: `converting` while a converter's promise is pending (decision 0158). */
  readonly state?: { converting: boolean }
}

/** Whether a step runs: by-path steps only for their methods; response steps by status and `migrateHttpErrors`. */
function shouldRun (step: ConverterStep, at: RunAt): boolean {
  if (step.methods !== undefined && at.method !== undefined && !step.methods.has(at.method)) return false
  if (at.reply === undefined) return true
  return at.reply.statusCode < 300 ? step.errorsOnly !== true : step.converter.migrateHttpErrors
}

/**
 * Removes the fields a request converter left `undefined`, which would reach a merging handler as `fullName: undefined`
 * and erase the stored value. `keys`: the object's optional fields, looked up without listing its keys (which costs
 * most once a converter's `delete` made it a dictionary); every key when they are not known.
 * @example `dropUndefined(request.query, undefined) // { q: undefined, limit: '5' } becomes { limit: '5' }`
 */
export function dropUndefined (body: unknown, keys: readonly string[] | undefined): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return
  const object = body as Record<string, unknown>
  try {
    if (keys === undefined) {
      for (const key of Object.keys(object)) if (object[key] === undefined) delete object[key]
      return
    }
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index]
      if (object[key] === undefined && Object.hasOwn(object, key)) delete object[key]
    }
  } catch {
    // A getter or proxy that throws: writing the body back reports it (./migrate-request.ts).
  }
}

/**
 * True when `value` is `body` or an object or array inside it (by identity). Breadth first: what a converter returns
 * sits a fixed number of levels below its occurrence (`return (request.body.tags = [...])`), so each occurrence costs
 * the levels above it, never the whole subtree, which the client orders (depth first, every occurrence of a recursive
 * schema walked all the data below it: quadratic in the depth).
 */
function holds (body: unknown, value: object): boolean {
  if (body === value) return true
  const seen = new Set<unknown>()
  const queue: unknown[] = [body]
  for (let index = 0; index < queue.length; index++) {
    const node = queue[index]
    if (typeof node !== 'object' || node === null || seen.has(node)) continue
    seen.add(node)
    for (const child of Object.values(node)) {
      if (child === value) return true
      if (typeof child === 'object' && child !== null) queue.push(child)
    }
  }
  return false
}

/**
 * The failure of a converter that returned an object other than its info or its body (or one inside it): a new body
 * the run would ignore, serving the unconverted body as if converted (decision 0204).
 */
function ignoredReturn (step: ConverterStep, info: { body: unknown }, value: unknown): Error | undefined {
  if (typeof value !== 'object' || value === null || value === info || holds(info.body, value)) return undefined
  const part = step.converter.direction
  return new Error(`${step.converter.display} returned an object, which is ignored: a converter changes ${part}.body in place ` +
    `(or assigns ${part}.body) and returns nothing.`)
}

/** How a run ends: with a failure (a {@link ConverterFailure}), or with the converted body (`failure` undefined). Must not throw. */
type StepsDone = (failure: ConverterFailure | undefined, body: unknown) => void

/**
 * Runs `steps` on `body`: each step on every occurrence of its schema (or the whole body), with `info.body` set to it
 * and written back (`setOwn`: client data never reaches a prototype). `done` gets the converted body or the first
 * failure; synchronously when no converter was async.
 */
export function runSteps (steps: readonly ConverterStep[], info: { body: unknown }, body: unknown, at: RunAt, done: StepsDone): void {
  const root: Holder = { [ROOT_KEY]: body }
  let index = 0
  let position = 0
  let found: Occurrence[] | undefined
  next()

  function next (): void {
    for (; index < steps.length; index++, position = 0) {
      const step = steps[index]
      if (position === 0) {
        if (!shouldRun(step, at)) continue
        found = undefined
        if (step.findOccurrences !== undefined) step.findOccurrences(root, ROOT_KEY, found = [])
      }
      // The whole body, or each occurrence of the step's schema (innermost first).
      for (const count = found === undefined ? 1 : found.length; position < count;) {
        const holder = found === undefined ? root : found[position][0]
        const key = found === undefined ? ROOT_KEY : found[position][1]
        info.body = holder[key]
        position++
        let result: unknown
        try {
          result = step.converter.run(info)
        } catch (error) {
          done(new ConverterFailure(step, error), undefined)
          return
        }
        if (isThenable(result)) {
          if (at.state !== undefined) at.state.converting = true
          result.then((value) => {
            if (at.state !== undefined) at.state.converting = false
            try {
              const ignored = ignoredReturn(step, info, value)
              if (ignored !== undefined) return done(new ConverterFailure(step, ignored), undefined)
              if (at.reply === undefined) dropUndefined(info.body, step.optionalKeys)
              setOwn(holder, key, info.body)
              next()
            } catch (error) {
              // A write into a holder a converter froze (here, or a later step's, reported against this step): a
              // failure, not an unhandled rejection that ends the process.
              done(new ConverterFailure(step, error), undefined)
            }
          }, (error: unknown) => {
            if (at.state !== undefined) at.state.converting = false
            done(new ConverterFailure(step, error), undefined)
          })
          return
        }
        const ignored = ignoredReturn(step, info, result)
        if (ignored !== undefined) return done(new ConverterFailure(step, ignored), undefined)
        if (at.reply === undefined) dropUndefined(info.body, step.optionalKeys)
        // The root holder's one key is the runner's own (a plain assignment costs a tenth of setOwn's check); an
        // occurrence's key comes from client data.
        if (holder === root) root[ROOT_KEY] = info.body
        else setOwn(holder, key, info.body)
      }
    }
    done(undefined, root[ROOT_KEY])
  }
}

/** Runs steps as {@link runSteps} does, for callers that can wait: the body, or a promise of it; a failure is thrown. */
export function runStepsToBody (steps: readonly ConverterStep[], info: { body: unknown }, body: unknown, at: RunAt): unknown {
  let ended: { failure: ConverterFailure | undefined, body: unknown } | undefined
  let settle: ((end: { failure: ConverterFailure | undefined, body: unknown }) => void) | undefined
  runSteps(steps, info, body, at, (failure, converted) => {
    ended = { failure, body: converted }
    settle?.(ended)
  })
  if (ended !== undefined) {
    if (ended.failure !== undefined) throw ended.failure
    return ended.body
  }
  return new Promise((resolve, reject) => {
    settle = (end) => { if (end.failure !== undefined) reject(end.failure); else resolve(end.body) }
  })
}
