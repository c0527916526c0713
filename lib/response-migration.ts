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
import { runSteps, VersionedResponseInfo, type BodyBox } from './converter-runtime'
import type { ConverterStep } from './converter-steps'
import { versionedRequest, type VersionedReply } from './request-state'
import { kBehaviour, kConverted } from './symbols'
import { statusKey, type VersionBehaviour } from './version-behaviour'
import { processWarning } from './warnings'

function isThenable (value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function'
}

function runnable (request: FastifyRequest, reply: FastifyReply): (step: ConverterStep) => boolean {
  const method = request.method
  return (step) => (step.methods === undefined || step.methods.has(method)) && (reply.statusCode < 300 || step.converter.migrateHttpErrors)
}

/** Sets the serializer of the final status: this version's schema for it, or plain JSON when it has none. */
function serializeWith (reply: FastifyReply, behaviour: VersionBehaviour): void {
  const status = reply.statusCode
  const key = statusKey(behaviour.responseForms, status)
  const form = key === undefined ? undefined : behaviour.responseForms.get(key)
  if (form !== undefined) reply.serializer(reply.compileSerializationSchema(form, String(status)))
  else reply.serializer(JSON.stringify)
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
    const key = statusKey(behaviour.responseForms, status)
    const steps = behaviour.responseSteps.get(key ?? '') ?? []
    const finish = (body: unknown): void => {
      if (behaviour.statusCode !== undefined && reply.statusCode === status) reply.code(behaviour.statusCode)
      if (reply.statusCode !== status || (key !== undefined && behaviour.ownSuccessSerializers.has(key))) serializeWith(reply, behaviour)
      done(null, body)
    }
    if (steps.length === 0) {
      finish(payload)
      return
    }
    const info = new VersionedResponseInfo(reply, payload, payload)
    const box: BodyBox = { body: payload }
    settle(() => runSteps(steps, info, box, runnable(request, reply)), () => {
      info.writeBack()
      finish(box.body)
    }, done)
  }
}

function isJsonText (payload: unknown, reply: FastifyReply): payload is string | Buffer {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return false
  const type = reply.getHeader('content-type')
  return type === undefined || String(type).includes('json')
}

/**
 * The route-level `onSend` hook: converts JSON text payloads the `preSerialization` hook did not see: error
 * bodies (thrown or returned), and successes a handler sent as text. They are parsed, converted, and
 * serialized with the version's schema for the final status. By-path converters also see raw success
 * payloads (streams, buffers, other text) on `raw`, with `body` undefined, to change status and headers.
 */
export function createSendHook (): onSendHookHandler {
  return function versionerSendHook (fastifyRequest, fastifyReply, payload, done) {
    const request = versionedRequest(fastifyRequest)
    const reply = fastifyReply as VersionedReply
    const behaviour = request[kBehaviour]
    const status = reply.statusCode
    if (behaviour === null || (status < 300 && reply[kConverted])) {
      done(null, payload)
      return
    }
    if (!isJsonText(payload, reply)) {
      if (status < 300 && behaviour.rawSteps.length > 0) {
        const info = new VersionedResponseInfo(reply, undefined, payload)
        settle(() => runSteps(behaviour.rawSteps, info, { body: undefined }, runnable(request, reply)), () => {
          info.writeBack()
          done(null, payload)
        }, done)
        return
      }
      if (status >= 300 && behaviour.errorWork && payload !== null && payload !== undefined) {
        processWarning.FSTVRS001(String(status), behaviour.version)
      }
      done(null, payload)
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
    const key = statusKey(behaviour.responseForms, status)
    const steps = behaviour.responseSteps.get(key ?? '') ?? []
    const info = new VersionedResponseInfo(reply, body, payload)
    const box: BodyBox = { body }
    settle(() => runSteps(steps, info, box, runnable(request, reply)), () => {
      info.writeBack()
      if (status < 300 && behaviour.statusCode !== undefined && reply.statusCode === status) reply.code(behaviour.statusCode)
      const finalStatus = reply.statusCode
      const finalKey = statusKey(behaviour.responseForms, finalStatus)
      const form = finalKey === undefined ? undefined : behaviour.responseForms.get(finalKey)
      done(null, form === undefined ? JSON.stringify(box.body) : reply.serializeInput(box.body as Record<string, unknown>, form, String(finalStatus)))
    }, done)
  }
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
