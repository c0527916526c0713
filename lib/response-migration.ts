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
import { copyJson, runSteps, VersionedResponseInfo, type BodyBox, type StepFilter } from './converter-runtime'
import { versionedRequest, type VersionedReply } from './request-state'
import { kBehaviour, kConverted } from './symbols'
import { statusKey, type VersionBehaviour } from './version-behaviour'
import { appendLink } from './lifecycle'
import { processWarning } from './warnings'

function isThenable (value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function'
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
export function createSuccessHook (): preSerializationHookHandler {
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
    convertBody(request, reply, behaviour, payload, payload, done, (body, key) => {
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

/**
 * The route-level `onSend` hook: converts JSON text payloads the `preSerialization` hook did not see: error
 * bodies (thrown or returned), and successes a handler sent as JSON text. They are parsed, converted, and
 * serialized with the version's schema for the final status. Streams and buffers are never parsed: by-path
 * converters see them on `raw`, with `body` undefined, and may change status and headers.
 */
export function createSendHook (): onSendHookHandler {
  return function versionerSendHook (fastifyRequest, fastifyReply, payload, done) {
    const request = versionedRequest(fastifyRequest)
    const reply = fastifyReply as VersionedReply
    const behaviour = request[kBehaviour]
    const status = reply.statusCode
    if (behaviour?.link !== undefined) reply.header('link', appendLink(reply.getHeader('link'), behaviour.link))
    if (behaviour === null || (status < 300 && reply[kConverted])) {
      done(null, payload)
      return
    }
    if (!isJsonText(payload, reply)) {
      const key = statusKey(behaviour.responseForms, status)
      const bodySteps = (behaviour.responseSteps.get(key ?? '') ?? []).filter((step) => step.collect !== undefined && (status < 300 || step.converter.migrateHttpErrors))
      if (bodySteps.length > 0 && payload !== null && payload !== undefined) processWarning.FSTVRS001(String(status), behaviour.version)
      if (behaviour.rawSteps.length === 0) {
        done(null, payload)
        return
      }
      const info = new VersionedResponseInfo(reply, undefined, payload)
      settle(() => runSteps(behaviour.rawSteps, info, { body: undefined }, runnable(request, reply)), () => {
        info.writeBack()
        done(null, payload)
      }, done)
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
    convertBody(request, reply, behaviour, body, payload, done, (converted, key) => {
      const serializeAs = applyStatus(reply, behaviour, status, key)
      done(null, serializerFor(reply, behaviour, serializeAs)(converted))
    })
  }
}

/**
 * Runs the response converters of the reply's status on `body` (the raw payload on `raw`), writes changed
 * headers back, then calls `complete` with the converted body and the status key the steps were chosen by.
 */
function convertBody (
  request: FastifyRequest, reply: FastifyReply, behaviour: VersionBehaviour, body: unknown, raw: unknown,
  fail: (error: Error) => void, complete: (body: unknown, key: string | undefined) => void
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

/** Runs steps, then `complete` (now, or when their promise settles); any error goes to `fail`. */
function settle (run: () => void | Promise<void>, complete: () => void, fail: (error: Error) => void): void {
  let result: void | Promise<void>
  try {
    result = run()
  } catch (error) {
    fail(error as Error)
    return
  }
  if (isThenable(result)) {
    result.then(() => {
      try {
        complete()
      } catch (error) {
        fail(error as Error)
      }
    }, fail)
    return
  }
  try {
    complete()
  } catch (error) {
    fail(error as Error)
  }
}
