/**
 * A response whose converters failed, or whose send failed once they awaited, answered without throwing (out of an
 * async converter's continuation a throw would be an unhandled rejection and leave the request unanswered).
 * @module
 */
import type { FastifyReply } from 'fastify'
import { ConverterFailedError, UnconvertibleResponseError } from '../core/request-errors'
import type { RequestState } from './request-state'
import { failureError, isError, type FailureContext } from './step-runner'

/**
 * What a response hook does when converters failed: the request is marked (its answer passes no converter again) and
 * answered with the failure's error. The reply takes the error's status first: Fastify's fallback answers an error
 * raised while sending with the reply's status, whose old schema must never serialize it.
 * @example `if (failure !== undefined) failResponse(reply, state, { request, version, route }, done, failure)`
 */
export function failResponse (reply: FastifyReply, state: RequestState, context: FailureContext, done: (error: Error) => void, failure: unknown): void {
  state.converterFailed = true
  const error = failureError(failure, context) as Error & { statusCode?: number }
  reply.code(error.statusCode ?? 500)
  done(error)
}

/** Where a converted body is serialized: the request, its reply and state, the version and the HEAD route. */
interface Serializing extends FailureContext {
  readonly reply: FastifyReply
  readonly state: RequestState
}

/**
 * True, once answered with a logged 500, when a success an error handler sent (a stale copy for `handlerTimeout`'s
 * 503) needs converters while one is still pending: it may be the one that never settles, or wait on what that one
 * waits on, and unconverted the success is HEAD's (decision 0327).
 * @example `if (pendingSuccess({ request, reply, state, version, route }, done)) return`
 */
export function pendingSuccess (at: Serializing, done: (error: Error) => void): boolean {
  if (!at.state.converterFailed || !at.state.converting) return false
  at.request.log.error({ route: at.route }, `A success was sent to a request of API version ${at.version} to ${at.route} while one of its ` +
    'converters was still pending (after handlerTimeout): it cannot be converted, so it is answered 500.')
  failResponse(at.reply, at.state, at, done, new ConverterFailedError(at.version))
  return true
}

/**
 * Sends what `serialize` makes of a converted body, or, when it throws (the converters left a body the version's
 * schema rejects), logs it and answers the 500 `FST_VERSIONER_UNCONVERTIBLE_RESPONSE`.
 * @example `sendSerialized({ request, reply, state, version, route }, () => serializer(body), done)`
 */
export function sendSerialized (at: Serializing, serialize: () => string, done: (error: Error | null, payload?: string) => void): void {
  let text: string
  try {
    text = serialize()
  } catch (error) {
    const { request, version, route } = at
    // The request's logger carries `apiVersion` already (./request-state.ts).
    request.log.error({ err: error, route }, `A response of API version ${version} to ${route} does not fit the version's schema once its ` +
      'converters ran: a response converter produces data the schema rejects.')
    const unfit = new UnconvertibleResponseError(`A response of this route cannot be expressed in API version ${version}. This is a server error; it has been logged.`)
    failResponse(at.reply, at.state, at, done, unfit)
    return
  }
  done(null, text)
}

/**
 * The `done` of an `onSend` hook, for converters that may await. Fastify's send can throw out of it, out of reach of
 * its hook runner once a converter awaited: `writeHead` refusing a header (a character outside Latin-1), a payload
 * no step can send. Unanswered, the request would hang: it is answered with that error, a logged 500, as Fastify
 * answers it when no converter awaited. Answered meanwhile (`handlerTimeout`'s 503: `ERR_HTTP_HEADERS_SENT`), it is
 * only logged.
 * @example `convertBody(conversion, body, payload, afterAwaiting(reply, done))`
 */
export function afterAwaiting<Payload> (reply: FastifyReply, done: (error: Error | null, payload?: Payload) => void): (error: Error | null, payload?: Payload) => void {
  return (error, payload) => {
    try {
      done(error, payload)
    } catch (thrown) {
      if (reply.sent || reply.raw.headersSent) {
        reply.log.error({ err: thrown }, 'fastify-versioner: the response could not be sent once its converters ran (answered meanwhile: handlerTimeout?)')
        return
      }
      reply.log.error({ err: thrown }, 'fastify-versioner: the response could not be sent once its converters ran; it is answered 500')
      reply.code(500)
      sendFailure(reply, done, isError(thrown) ? thrown : new Error(`Sending the response failed with ${String(thrown)}.`))
    }
  }
}

/** Hands a send's failure to Fastify's error handling; what that throws in turn (never expected) is logged. */
function sendFailure (reply: FastifyReply, done: (error: Error) => void, error: Error): void {
  try {
    done(error)
  } catch (thrown) {
    reply.log.error({ err: thrown }, 'fastify-versioner: the error answer of a response that could not be sent failed too')
  }
}
