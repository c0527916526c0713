/**
 * Stage 3 of a request, migrating its response down to its version: successes in the `preSerialization` hook, error
 * bodies and JSON text in the `onSend` hook; streams and buffers only on by-path converters' `raw`, whose body may
 * replace them (decision 0243).
 * @module
 */
import type { FastifyReply, FastifyRequest, onSendHookHandler, preSerializationHookHandler } from 'fastify'
import { failureAfterWriteBack, runSteps } from './step-runner'
import { afterAwaiting, failResponse, pendingSuccess, sendSerialized } from './response-failures'
import { createChosenSerializerTest } from './own-serializers'
import { warnUndeclaredStatus } from './undeclared-statuses'
import { VersionedResponseInfo } from './converter-inputs'
import type { ConverterStep } from '../routes/converter-steps'
import { requestState, type RequestState } from './request-state'
import type { VersionBehaviour } from '../routes/version-plan'
import { isJsonMediaType, responseSlot, slotParts } from '../routes/schema-forms'
import { appendLink, privateCacheControl } from './version-headers'
import { processWarning } from '../core/warnings'
import { ConverterFailedError, UnconvertibleResponseError } from '../core/request-errors'
import { describeUnexpressible, unexpressibleValue } from '../routes/value-guards'
import { copyAsWritten, putBack, type Replaced } from '../values/written-values'
import { answerHeldNoneMatch, retagging } from './sent-entity-tags'

/** True when some of `steps` would convert the body of a response of `status` (asked only for streams and buffers). */
function needsBody (steps: readonly ConverterStep[], status: number): boolean {
  return steps.some((step) => step.converter.target.kind !== 'path' && (status < 300 ? step.errorsOnly !== true : step.converter.migrateHttpErrors))
}

/**
 * The serializer of a response of this version sent with `status`: slot `key`'s schema when the caller knows it, else
 * the schema Fastify would pick for `status` and the reply's media type, else plain JSON.
 */
export function serializerFor (reply: FastifyReply, behaviour: VersionBehaviour, status: number, key: string | undefined): (payload: unknown) => string {
  const finalKey = key ?? responseSlot(behaviour.responses, status, reply)
  const form = finalKey === undefined ? undefined : behaviour.responseForms.get(finalKey)
  return form === undefined ? JSON.stringify : reply.compileSerializationSchema(form, ...slotParts(finalKey as string)) as (payload: unknown) => string
}

/** Applies this version's success status, if it changed it, once converters ran; true when it did. */
function applyStatus (reply: FastifyReply, behaviour: VersionBehaviour, status: number): boolean {
  if (behaviour.statusCode === undefined || status >= 300 || reply.statusCode !== status) return false
  reply.code(behaviour.statusCode)
  return true
}

/**
 * The slot a converted body is serialized with when it is known without choosing it again: the steps' slot when the
 * version changed the status, or when it stayed and no converter wrote headers (a `content` map chooses by media type).
 */
function knownSlot (conversion: Conversion, changed: boolean, status: number, key: string | undefined): string | undefined {
  return changed || (conversion.reply.statusCode === status && conversion.keyHolds) ? key : undefined
}

/** The route-level `preSerialization` hook: converts successful object payloads. */
export function createSuccessHook (route: string): preSerializationHookHandler {
  const hasChosenSerializer = createChosenSerializerTest()
  return function versionerSuccessHook (request, reply, payload, done) {
    const state = requestState(request)
    const behaviour = state?.behaviour
    const status = reply.statusCode
    // Marked with nothing to convert too, so the send hook never reads the version's text as a handler's; FSTVRS006 if undeclared.
    if (state !== null && behaviour != null && status < 300) { state.converted = true; warnUndeclaredStatus(behaviour, reply, route, true) }
    if (state === null || behaviour === null || behaviour === undefined || !behaviour.successWork || status >= 300) {
      done(null, payload)
      return
    }
    const conversion: Conversion = { request, reply, state, behaviour, version: behaviour.version, route, keyHolds: true, chosen: hasChosenSerializer(reply) }
    if (!pendingSuccess(conversion, done)) convertBody(conversion, payload, payload, done)
  }
}

/**
 * Sends a converted body with this version's status: JSON text serialized with the version's schema for the final
 * status; a success object gets its serializer when the route's own may not fit, unless the application chose one.
 */
function finish (conversion: Conversion, status: number, key: string | undefined, body: unknown, done: HookDone): void {
  const { reply, state, behaviour, chosen } = conversion
  const changed = applyStatus(reply, behaviour, status)
  if (chosen === undefined) {
    const slot = knownSlot(conversion, changed, status, key)
    sendSerialized(conversion, () => serializerFor(reply, behaviour, reply.statusCode, slot)(body), done)
    return
  }
  // A serializer the application chose (`reply.serializer(fn)`, `app.setReplySerializer(fn)`) serializes the converted body, as it would HEAD's.
  if ((changed || reply.statusCode !== status || !conversion.keyHolds || (key !== undefined && behaviour.ownSuccessSerializers.has(key))) && !chosen) {
    reply.serializer(serializerFor(reply, behaviour, reply.statusCode, knownSlot(conversion, changed, status, key)))
    state.versionSerializer = true
  }
  done(null, body)
}

/**
 * The body of a Web `Response` (which Fastify applies only after every `onSend` hook, undoing what the hooks set) once
 * its status and headers are the reply's; any other payload (or a `Response` whose body was read) as it is.
 */
function unwrapWebResponse (reply: FastifyReply, payload: unknown): unknown {
  // Told as Fastify tells it: undici's own `Response` class is not the global one.
  if (typeof payload !== 'object' || payload === null || Object.prototype.toString.call(payload) !== '[object Response]') return payload
  const response = payload as Response
  if (response.bodyUsed) return payload
  reply.code(response.status)
  for (const [name, value] of response.headers) reply.header(name, value)
  return response.body
}

/** True for a JSON text payload (a string; never a buffer or stream) under no media type or one JSON by its type and subtype, as Fastify tells it. */
export function isJsonText (payload: unknown, reply: FastifyReply): payload is string {
  if (typeof payload !== 'string') return false
  const type = reply.getHeader('content-type')
  return type === undefined || isJsonMediaType(type)
}

/** Ends a stream (Node's or a Web one) a converter's body replaces, that no one else reads: its file or socket is let go. */
function release (payload: unknown): void {
  const stream = payload as { destroy?: () => void, cancel?: () => Promise<void>, locked?: boolean } | null | undefined
  if (typeof stream?.destroy === 'function') stream.destroy()
  else if (typeof stream?.cancel === 'function' && stream.locked !== true) stream.cancel().catch(() => {})
}

/** True, once logged, when by-path converters gave a body to a 204, which has none: the client would get none (decision 0245). */
function bodyOnNoContent (request: FastifyRequest, reply: FastifyReply, body: unknown, version: string, route: string): boolean {
  if (body === undefined || reply.statusCode !== 204) return false
  request.log.error({ route }, `A by-path response converter gave a body to a 204 response of API version ${version} to ${route}, which has ` +
    'no body; set the status the version answers with (response.statusCode = 200) with it. The request was answered 500.')
  return true
}

/** The payload for a body a converter set in place of a text payload: text as it is, anything else as JSON. */
const textOf = (body: unknown): string => typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body)

/**
 * The route-level `onSend` hook: converts JSON text payloads the `preSerialization` hook did not see (error bodies,
 * successes sent as JSON text); other payloads reach only by-path converters, on `raw`, which may set a body in their place.
 */
export function createSendHook (
  { route, linkOf }: { route: string, linkOf: (version: string) => string | undefined }, privateVersions: ReadonlySet<string> | undefined, earlyVersion: (request: FastifyRequest, reply: FastifyReply) => void
): onSendHookHandler {
  // FSTVRS001 once per (version, response slot) of this route: a warning per request would flood the logs.
  const warned = new Set<string>()
  const warnIfUnconverted = (behaviour: VersionBehaviour, status: number, reply: FastifyReply): void => {
    const key = responseSlot(behaviour.responses, status, reply)
    if (!needsBody(behaviour.responseSteps.get(key ?? '') ?? [], status)) return
    const once = `${behaviour.version}\n${key ?? ''}`
    if (!warned.has(once)) processWarning.FSTVRS001(String(status), behaviour.version)
    warned.add(once)
  }
  return function versionerSendHook (request, reply, sent, hookDone) {
    let state = requestState(request)
    const done = answerHeldNoneMatch(request, reply, state, hookDone)
    // An error sent before the request hook ran (an onRequest hook's `reply.code(401).send(...)`) is the version's, as a thrown one is.
    if (reply.statusCode >= 300 && (state?.behaviour ?? null) === null) { earlyVersion(request, reply); state = requestState(request) }
    const behaviour = state?.behaviour ?? null
    // A Web `Response`'s status and headers are the reply's before the version's status, headers and converters apply.
    const payload = behaviour === null ? sent : unwrapWebResponse(reply, sent)
    const status = reply.statusCode
    const link = behaviour === null ? undefined : linkOf(behaviour.version) // as it is now (./version-headers.ts)
    if (link !== undefined) reply.header('link', appendLink(reply.getHeader('link'), link))
    if (state?.fieldDeprecations?.link !== undefined) reply.header('link', appendLink(reply.getHeader('link'), state.fieldDeprecations.link))
    // A preview version's answer, or a pin's, stays out of shared caches, whatever Cache-Control the handler set (decisions 0066, 0119).
    if (behaviour !== null && (state?.pinned === true || privateVersions?.has(behaviour.version) === true)) {
      reply.header('cache-control', privateCacheControl(reply.getHeader('cache-control')))
    }
    // Done: a converted payload, a failed converter's error (decision 0326), a version with nothing to do for its status.
    const work = behaviour !== null && (status < 300 ? behaviour.textWork : behaviour.errorWork)
    if (state === null || behaviour === null || state.converted || (state.converterFailed && status >= 300) ||
      (!work && behaviour.rawSteps.length === 0 && behaviour.statusCode === undefined)) {
      done(null, payload)
      return
    }
    if (pendingSuccess({ request, reply, state, version: behaviour.version, route }, done)) return
    if (!isJsonText(payload, reply)) {
      if (payload !== null && payload !== undefined) warnIfUnconverted(behaviour, status, reply)
      // An empty, stream or buffer success is sent with the version's status too (after its by-path converters).
      if (behaviour.rawSteps.length === 0) {
        applyStatus(reply, behaviour, status)
        done(null, payload)
        return
      }
      // A text payload is the body of by-path converters; streams and buffers are on `raw` alone.
      const text = typeof payload === 'string' ? payload : undefined
      const info = new VersionedResponseInfo(reply, text, payload)
      const sent = afterAwaiting(reply, retagging(reply, payload, done))
      runSteps(behaviour.rawSteps, info, text, { method: request.method, reply, state }, (converterFailure, body) => {
        const failure = failureAfterWriteBack(info, converterFailure)
        if (failure !== undefined) {
          // The error answer takes the stream's place: no one reads it, so it is ended (a file's descriptor closed).
          if (text === undefined) release(payload)
          failResponse(reply, state, { request, version: behaviour.version, route }, sent, failure)
          return
        }
        applyStatus(reply, behaviour, status)
        const empty = payload === undefined
        if (body === (empty ? undefined : text)) {
          sent(null, payload)
          return
        }
        if (bodyOnNoContent(request, reply, body, behaviour.version, route)) {
          if (text === undefined) release(payload)
          failResponse(reply, state, { request, version: behaviour.version, route }, sent, new ConverterFailedError(behaviour.version))
          return
        }
        // A body a converter gives replaces the payload (decision 0243): an empty one's (`reply.code(204).send()`), a
        // stream's or a buffer's is an object as JSON in the version's schema, a text's as JSON; a string as it is.
        const json = text === undefined && typeof body !== 'string'
        if (text === undefined) release(payload)
        if (text === undefined && !reply.hasHeader('content-type')) reply.type(json ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8')
        const serialize = (): string => json ? serializerFor(reply, behaviour, reply.statusCode, undefined)(body) : textOf(body)
        sendSerialized({ request, reply, state, version: behaviour.version, route }, serialize, sent)
      })
      return
    }
    if (!work) return done(null, payload)
    let body: unknown
    try {
      body = JSON.parse(payload)
    } catch {
      // Not one JSON value (several NDJSON records, a truncated text): sent as it is, as a stream is, and said so.
      if (payload !== '') warnIfUnconverted(behaviour, status, reply)
      return done(null, payload)
    }
    convertBody({ request, reply, state, behaviour, version: behaviour.version, route, keyHolds: true }, body, payload, afterAwaiting(reply, retagging(reply, payload, done)))
  }
}

/** The `done` of Fastify's `preSerialization` and `onSend` hooks. */
type HookDone = (error: Error | null, payload?: unknown) => void

/** A body being converted: the request and reply, the version's behaviour (and its version, for failures), the HEAD route. */
interface Conversion {
  readonly request: FastifyRequest
  readonly reply: FastifyReply
  readonly state: RequestState
  readonly behaviour: VersionBehaviour
  readonly version: string
  readonly route: string
  /** False once converters wrote headers: the response's slot is then chosen again for its media type. */
  keyHolds: boolean
  /** For an object payload (none for JSON text): whether a serializer the application chose writes it, asked once (0334). */
  readonly chosen?: boolean
}

/** Runs the response converters of the reply's status on a JSON copy of `body`, writes headers back, then {@link finish}es. */
function convertBody (conversion: Conversion, body: unknown, raw: unknown, done: HookDone): void {
  const { request, reply, behaviour, route } = conversion
  const status = reply.statusCode
  const key = responseSlot(behaviour.responses, status, reply)
  const steps = behaviour.responseSteps.get(key ?? '') ?? NO_STEPS
  if (key === undefined) warnUndeclaredStatus(behaviour, reply, route, false)
  const cleaner = key === undefined ? undefined : behaviour.responseCleaners.get(key)
  // A serializer the application chose writes a Date (and reads a getter) by its own rules, not the schema's.
  const chosen = conversion.chosen === true
  // Should the version's serializer refuse the success, converted or not, the error handler asks HEAD's (0298); not a chosen one.
  if (conversion.chosen === false) { conversion.state.handlerSuccess = body; conversion.state.handlerSlot = key }
  if (steps.length === 0 && cleaner === undefined) return finishExpressible(conversion, status, key, body, done)
  const places = key === undefined ? undefined : behaviour.responseWritten.get(key)
  const replaced: Replaced[] = []
  let copied = copyAsWritten(places === undefined || chosen ? undefined : places, body, true, replaced)
  if (copied === body && typeof body === 'object' && body !== null) {
    // JSON cannot write it (a cycle through undeclared fields): not the handler's own object, but what HEAD writes of it.
    const form = key === undefined || chosen ? undefined : behaviour.responseHeadForms.get(key)
    try {
      copied = JSON.parse((form === undefined ? JSON.stringify : reply.compileSerializationSchema(form, ...slotParts(key as string)) as (data: unknown) => string)(body))
    } catch (error) {
      failResponse(reply, conversion.state, { request, version: behaviour.version, route }, done, error)
      return
    }
  }
  const info = new VersionedResponseInfo(reply, copied, raw)
  runSteps(steps, info, copied, { method: request.method, reply, state: conversion.state }, (converterFailure, converted) => {
    const failure = failureAfterWriteBack(info, converterFailure)
    if (failure !== undefined) {
      failResponse(reply, conversion.state, { request, version: behaviour.version, route }, done, failure)
      return
    }
    conversion.keyHolds = !info.wroteHeaders
    cleaner?.(converted)
    if (replaced.length > 0) putBack(replaced, copied, converted) // what no converter changed is written as HEAD writes it
    finishExpressible(conversion, status, key, converted, done)
  })
}

/**
 * Sends a converted body ({@link finish}), unless it holds a HEAD enum member the version cannot express: a logged
 * 500 `FST_VERSIONER_UNCONVERTIBLE_RESPONSE`, never a serializer's message or a value the client does not know.
 */
function finishExpressible (conversion: Conversion, status: number, key: string | undefined, body: unknown, done: HookDone): void {
  const { request, reply, behaviour, route } = conversion
  const guards = key === undefined || behaviour.responseGuards.size === 0 ? undefined : behaviour.responseGuards.get(key)
  const found = guards === undefined ? undefined : unexpressibleValue(guards, body)
  if (found === undefined) {
    finish(conversion, status, key, body, done)
    return
  }
  const { version } = behaviour // the request's logger carries `apiVersion` already (./request-state.ts)
  request.log.error({ route, versionChange: found.guard.removedBy.get(found.value)?.join(', '), schema: found.guard.schema, value: found.value }, describeUnexpressible(found, version))
  const error = new UnconvertibleResponseError(`A value of this response cannot be expressed in API version ${version}. This is a server error; it has been logged.`)
  failResponse(reply, conversion.state, { request, version, route }, done, error)
}

const NO_STEPS: readonly ConverterStep[] = []
