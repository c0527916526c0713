/**
 * The response side of a versioned route. Successful object payloads (HEAD data) pass the response
 * converters from the latest version down to the requested one in the route's `preSerialization` hook, and
 * are serialized with that version's schema (fields it lacks are stripped). Error responses (status ≥ 300,
 * thrown or returned) reach only converters declared with `migrateHttpErrors`, in the route's `onSend` hook,
 * which may also turn them into successes. Streams and buffers are never parsed: by-path converters see
 * them on `raw` and may change status and headers.
 * @module
 */
import type { FastifyReply, FastifyRequest, onSendHookHandler, preSerializationHookHandler } from 'fastify'
import { copyJson, failureError, runSteps, settle, VersionedResponseInfo, type BodyBox, type StepFilter } from './converter-runtime'
import type { ConverterStep } from '../routes/converter-steps'
import { versionedRequest, type VersionedReply, type VersionedRequest } from './request-state'
import { kBehaviour, kConverted, kConverterFailed } from '../core/symbols'
import { statusKey, type VersionBehaviour } from '../routes/version-plan'
import { appendLink } from './lifecycle'
import { processWarning } from '../core/warnings'

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

function runnable (request: FastifyRequest, reply: FastifyReply): StepFilter {
  return { method: request.method, reply }
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
    convertBody(request, reply, behaviour, payload, payload, failWith(request, behaviour, route, done), (body, key) => {
      const serializeAs = applyStatus(reply, behaviour, status, key)
      if (serializeAs !== undefined || reply.statusCode !== status || (key !== undefined && behaviour.ownSuccessSerializers.has(key))) {
        reply.serializer(serializerFor(reply, behaviour, serializeAs))
      }
      done(null, body)
    })
  }
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
      const box: BodyBox = { body: text }
      settle(() => runSteps(behaviour.rawSteps, info, box, runnable(request, reply)), () => {
        info.writeBack()
        done(null, text === undefined || box.body === text ? payload : textOf(box.body))
      }, failWith(request, behaviour, route, done))
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
    convertBody(request, reply, behaviour, body, payload, failWith(request, behaviour, route, done), (converted, key) => {
      const serializeAs = applyStatus(reply, behaviour, status, key)
      done(null, serializerFor(reply, behaviour, serializeAs)(converted))
    })
  }
}

/**
 * What a response hook does when converters failed: the request is marked (its 500 passes no converter
 * again) and answered with the failure's error (a logged `FST_VERSIONER_CONVERTER_FAILED` for a converter).
 */
function failWith (request: VersionedRequest, behaviour: VersionBehaviour, route: string, done: (error: Error) => void): (failure: unknown) => void {
  return (failure) => {
    request[kConverterFailed] = true
    done(failureError(failure, { request, version: behaviour.version, route }))
  }
}

/**
 * Runs the response converters of the reply's status on `body` (the raw payload on `raw`), writes changed
 * headers back, then calls `complete` with the converted body and the status key the steps were chosen by.
 */
function convertBody (
  request: FastifyRequest, reply: FastifyReply, behaviour: VersionBehaviour, body: unknown, raw: unknown,
  fail: (failure: unknown) => void, complete: (body: unknown, key: string | undefined) => void
): void {
  const key = statusKey(behaviour.responseForms, reply.statusCode)
  const steps = behaviour.responseSteps.get(key ?? '') ?? []
  if (steps.length === 0) {
    complete(body, key)
    return
  }
  const copied = copyJson(body)
  const info = new VersionedResponseInfo(reply, copied, raw)
  const box: BodyBox = { body: copied }
  settle(() => runSteps(steps, info, box, runnable(request, reply)), () => {
    info.writeBack()
    complete(box.body, key)
  }, fail)
}
