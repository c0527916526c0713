/**
 * The response side of a versioned route. Successful object payloads (HEAD data) pass the response
 * converters from the latest version down to the requested one in the route's `preSerialization` hook, and
 * are serialized with that version's schema (fields it lacks are stripped). Error responses (status ≥ 300,
 * thrown or returned) reach only converters declared with `migrateHttpErrors`, in the route's `onSend` hook,
 * which may also turn them into successes. Streams and buffers are never parsed: by-path converters see
 * them on `raw` and may change status and headers.
 * @module
 */
import type { FastifyReply, onSendHookHandler, preSerializationHookHandler } from 'fastify'
import { copyJson, failureError, failureOf, finishPendingRun, PendingRun, runSteps, type FailureContext } from './step-runner'
import { VersionedResponseInfo } from './converter-inputs'
import type { ConverterStep } from '../routes/converter-steps'
import { versionedRequest, type VersionedReply, type VersionedRequest } from './request-state'
import { kBehaviour, kConverted, kConverterFailed } from '../core/symbols'
import { statusKey, type VersionBehaviour } from '../routes/version-plan'
import { appendLink } from './lifecycle'
import { processWarning } from '../core/warnings'
import { UnconvertibleResponseError } from '../core/errors'
import { describeUnexpressible, unexpressibleValue } from '../routes/value-guards'

/** Whether a list of response steps has converters that need the body, for successes and for errors. */
interface BodyNeeds {
  readonly success: boolean
  readonly error: boolean
}

const bodyNeeds = new WeakMap<readonly ConverterStep[], BodyNeeds>()

/**
 * True when some of `steps` would convert the body of a response of `status` (by-schema converters; by-path
 * ones see raw payloads too). Computed once per step list.
 */
function needsBody (steps: readonly ConverterStep[], status: number): boolean {
  let needs = bodyNeeds.get(steps)
  if (needs === undefined) {
    const bySchema = steps.filter((step) => step.converter.target.kind !== 'path')
    needs = { success: bySchema.some((step) => step.errorsOnly !== true), error: bySchema.some((step) => step.converter.migrateHttpErrors) }
    bodyNeeds.set(steps, needs)
  }
  return status < 300 ? needs.success : needs.error
}

/**
 * The serializer of a response of this version: the schema of `key` when the version changed the success
 * status (the body is still the success body), else the schema of the final status, else plain JSON.
 */
function serializerFor (reply: FastifyReply, behaviour: VersionBehaviour, key: string | undefined): (payload: unknown) => string {
  const finalKey = key ?? statusKey(behaviour.responseForms, reply.statusCode)
  const form = finalKey === undefined ? undefined : behaviour.responseForms.get(finalKey)
  return form === undefined ? JSON.stringify : reply.compileSerializationSchema(form, String(reply.statusCode)) as (payload: unknown) => string
}

/**
 * Applies this version's success status, if it changed it, once converters ran. Returns the schema key the body
 * must be serialized with when that differs from the final status's own (`undefined` otherwise).
 */
function applyStatus (reply: FastifyReply, behaviour: VersionBehaviour, status: number, key: string | undefined): string | undefined {
  if (behaviour.statusCode !== undefined && status < 300 && reply.statusCode === status) {
    reply.code(behaviour.statusCode)
    return key
  }
  return undefined
}

/** The route-level `preSerialization` hook: converts successful object payloads. */
export function createSuccessHook (route: string): preSerializationHookHandler {
  return function versionerSuccessHook (fastifyRequest, fastifyReply, payload, done) {
    const request = versionedRequest(fastifyRequest)
    const reply = fastifyReply as VersionedReply
    const behaviour = request[kBehaviour]
    const status = reply.statusCode
    if (behaviour === null || !behaviour.successWork || status >= 300) {
      done(null, payload)
      return
    }
    reply[kConverted] = true
    convertBody(request, reply, behaviour, payload, payload, route, done, finishSuccess)
  }
}

/** Sends a converted success: with this version's status, and its serializer when the route's own does not fit. */
function finishSuccess (reply: VersionedReply, behaviour: VersionBehaviour, status: number, body: unknown,
  key: string | undefined, done: (error: Error | null, payload?: unknown) => void): void {
  const serializeAs = applyStatus(reply, behaviour, status, key)
  if (serializeAs !== undefined || reply.statusCode !== status || (key !== undefined && behaviour.ownSuccessSerializers.has(key))) {
    reply.serializer(serializerFor(reply, behaviour, serializeAs))
  }
  done(null, body)
}

/** Sends a converted JSON text payload, serialized with this version's schema for the final status. */
function finishText (reply: VersionedReply, behaviour: VersionBehaviour, status: number, body: unknown,
  key: string | undefined, done: (error: Error | null, payload?: unknown) => void): void {
  const serializeAs = applyStatus(reply, behaviour, status, key)
  done(null, serializerFor(reply, behaviour, serializeAs)(body))
}

/** True for a JSON text payload (a string; buffers and streams are never parsed). */
function isJsonText (payload: unknown, reply: FastifyReply): payload is string {
  if (typeof payload !== 'string') return false
  const type = reply.getHeader('content-type')
  return type === undefined || String(type).includes('json')
}

/** The payload for a body a converter set in place of a text payload: text as it is, anything else as JSON. */
function textOf (body: unknown): string {
  if (typeof body === 'string') return body
  return body === undefined ? '' : JSON.stringify(body)
}

/**
 * The route-level `onSend` hook: converts JSON text payloads the `preSerialization` hook did not see: error
 * bodies (thrown or returned), and successes a handler sent as JSON text. They are parsed, converted, and
 * serialized with the version's schema for the final status. Other text payloads are the body of by-path
 * converters (and on `raw`); streams and buffers are never parsed: by-path converters see them on `raw`, with
 * `body` undefined, and may change status and headers.
 */
export function createSendHook (route: string): onSendHookHandler {
  // FSTVRS001 once per (version, status key) of this route: a warning per request would flood the logs.
  const warned = new Set<string>()
  const warnIfUnconverted = (behaviour: VersionBehaviour, status: number): void => {
    const key = statusKey(behaviour.responseForms, status)
    if (!needsBody(behaviour.responseSteps.get(key ?? '') ?? [], status)) return
    const once = `${behaviour.version}\n${key ?? ''}`
    if (warned.has(once)) return
    warned.add(once)
    processWarning.FSTVRS001(String(status), behaviour.version)
  }
  return function versionerSendHook (fastifyRequest, fastifyReply, payload, done) {
    const request = versionedRequest(fastifyRequest)
    const reply = fastifyReply as VersionedReply
    const behaviour = request[kBehaviour]
    const status = reply.statusCode
    if (behaviour?.link !== undefined) reply.header('link', appendLink(reply.getHeader('link'), behaviour.link))
    // A payload the preSerialization hook converted is done, whatever status its converters gave it.
    if (behaviour === null || reply[kConverted] || request[kConverterFailed]) {
      done(null, payload)
      return
    }
    if (!isJsonText(payload, reply)) {
      if (payload !== null && payload !== undefined) warnIfUnconverted(behaviour, status)
      if (behaviour.rawSteps.length === 0) {
        done(null, payload)
        return
      }
      // A text payload is the body of by-path converters; streams and buffers stay on `raw` alone.
      const text = typeof payload === 'string' ? payload : undefined
      const info = new VersionedResponseInfo(reply, text, payload)
      const send = (body: unknown): void => { done(null, text === undefined || body === text ? payload : textOf(body)) }
      let result: unknown
      try {
        result = runSteps(behaviour.rawSteps, info, text, request.method, reply)
      } catch (failure) {
        failResponse(reply, { request, version: behaviour.version, route }, done, failureOf(failure))
        return
      }
      let sent: unknown = result
      finishRun(result, (body) => { info.writeBack(); sent = body }, () => { send(sent) }, (failure) => { failResponse(reply, { request, version: behaviour.version, route }, done, failure) })
      return
    }
    if (!(status < 300 ? behaviour.successWork : behaviour.errorWork)) {
      done(null, payload)
      return
    }
    let body: unknown
    try {
      body = JSON.parse(String(payload))
    } catch {
      done(null, payload)
      return
    }
    convertBody(request, reply, behaviour, body, payload, route, done, finishText)
  }
}

/**
 * What a response hook does when converters failed: the request is marked (its answer passes no converter
 * again) and answered with the failure's error (a logged `FST_VERSIONER_CONVERTER_FAILED` for a converter, or the
 * converter's own 4xx). The reply takes the error's status first: an error raised while an error response is sent
 * is answered by Fastify's fallback, with the reply's status, and the route's schema for the old status (HEAD's
 * error body) must never serialize it.
 */
function failResponse (reply: FastifyReply, context: FailureContext, done: (error: Error) => void, failure: unknown): void {
  (context.request as VersionedRequest)[kConverterFailed] = true
  const error = failureError(failure, context) as Error & { statusCode?: number }
  reply.code(error.statusCode ?? 500)
  done(error)
}

/**
 * Finishes a run of steps (see ./step-runner.ts): `write` gets the converted body, then `next` runs; a failure goes
 * to `fail`. Used off the hot path (raw payloads); converted bodies are finished inline.
 */
function finishRun (result: unknown, write: (body: unknown) => void, next: () => void, fail: (failure: unknown) => void): void {
  if (result instanceof PendingRun) {
    finishPendingRun(result, write, next, fail)
    return
  }
  try {
    write(result)
  } catch (error) {
    fail(failureOf(error))
    return
  }
  next()
}

/** How a hook sends a converted body (the success hook as an object, the send hook as text). */
type Finish = (reply: VersionedReply, behaviour: VersionBehaviour, status: number, body: unknown,
  key: string | undefined, done: (error: Error | null, payload?: unknown) => void) => void

/**
 * Runs the response converters of the reply's status on a JSON copy of `body` (the raw payload on `raw`), writes
 * changed headers back, then sends the converted body with `finish`, given the status key the steps were chosen
 * by. Synchronous converters allocate no closure here.
 */
function convertBody (
  request: VersionedRequest, reply: VersionedReply, behaviour: VersionBehaviour, body: unknown, raw: unknown, route: string,
  done: (error: Error | null, payload?: unknown) => void, finish: Finish
): void {
  const status = reply.statusCode
  const key = statusKey(behaviour.responseForms, status)
  const steps = behaviour.responseSteps.get(key ?? '') ?? NO_STEPS
  if (steps.length === 0) {
    finishExpressible(request, reply, { behaviour, status, key, route }, body, done, finish)
    return
  }
  const copied = copyJson(body)
  const info = new VersionedResponseInfo(reply, copied, raw)
  let result: unknown
  try {
    result = runSteps(steps, info, copied, request.method, reply)
  } catch (failure) {
    failResponse(reply, { request, version: behaviour.version, route }, done, failureOf(failure))
    return
  }
  if (result instanceof PendingRun) {
    let converted: unknown
    finishPendingRun(result, (settled) => { info.writeBack(); converted = settled }, () => { finishExpressible(request, reply, { behaviour, status, key, route }, converted, done, finish) },
      (failure) => { failResponse(reply, { request, version: behaviour.version, route }, done, failure) })
    return
  }
  try {
    info.writeBack()
  } catch (error) {
    failResponse(reply, { request, version: behaviour.version, route }, done, failureOf(error))
    return
  }
  finishExpressible(request, reply, { behaviour, status, key, route }, result, done, finish)
}

/** Where a converted body is sent: the version's behaviour, the status and status key the steps were chosen by, the route. */
interface Converted {
  readonly behaviour: VersionBehaviour
  readonly status: number
  readonly key: string | undefined
  readonly route: string
}

/**
 * Sends a converted body with `finish`, unless it holds a HEAD value the version cannot express (a HEAD enum member
 * no converter mapped: see ../routes/value-guards.ts): that is a logged 500 `FST_VERSIONER_UNCONVERTIBLE_RESPONSE`
 * naming the version, the version change, the enum and the value, never a serializer's message or a value the
 * client's version does not know.
 */
function finishExpressible (
  request: VersionedRequest, reply: VersionedReply, at: Converted, body: unknown, done: (error: Error | null, payload?: unknown) => void, finish: Finish
): void {
  const { behaviour, status, key, route } = at
  const guards = key === undefined || behaviour.responseGuards.size === 0 ? undefined : behaviour.responseGuards.get(key)
  const found = guards === undefined ? undefined : unexpressibleValue(guards, body)
  if (found === undefined) {
    finish(reply, behaviour, status, body, key, done)
    return
  }
  const version = behaviour.version
  request.log.error({
    apiVersion: version, route, versionChange: found.guard.removedBy.get(found.value)?.join(', '), schema: found.guard.schema, value: found.value
  }, describeUnexpressible(found, version))
  const error = new UnconvertibleResponseError(`A value of this response cannot be expressed in API version ${version}. This is a server error; it has been logged.`)
  failResponse(reply, { request, version, route }, done, error)
}

const NO_STEPS: readonly ConverterStep[] = []
