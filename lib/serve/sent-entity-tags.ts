/**
 * The entity tag of what the send hook sends (decision 0188): the tag of a body it converts is the tag of the bytes
 * sent, and `If-None-Match` is held back from the application's `onSend` hooks (which run before it, on HEAD's bytes,
 * `@fastify/etag`'s among them) to be compared with the tag of the bytes the version sends.
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { noneMatchFails, strongEntityTag } from '../core/entity-tags'
import type { RequestState } from './request-state'

/** The `done` of an `onSend` hook. */
type SendDone = (error: Error | null, payload?: unknown) => void

/**
 * The `done` of an `onSend` hook that may send other bytes than `sent`: an entity tag the reply holds now (an earlier
 * `onSend` hook's, such as `@fastify/etag`'s, or the handler's) names `sent`, so once the text sent differs it is made
 * the strong tag of that text (weak stays weak); a failure drops it, for the error answer to get its own. A tag set
 * meanwhile stays (decision 0188).
 * @example `convert(payload, retagging(reply, payload, done))`
 */
export function retagging (reply: FastifyReply, sent: unknown, done: SendDone): SendDone {
  const tag = reply.getHeader('etag')
  if (tag === undefined) return done
  return function retagged (error, payload) {
    if (reply.getHeader('etag') === tag && error !== null) reply.removeHeader('etag')
    else if (reply.getHeader('etag') === tag && typeof payload === 'string' && payload !== sent) {
      const own = strongEntityTag(payload)
      reply.header('etag', String(tag).startsWith('W/') ? `W/${own}` : own)
    }
    done(error, payload)
  }
}

/**
 * Once the request's version is known: when it carries `If-None-Match` and its send hook may convert (JSON text, error
 * bodies, by-path converters), `reply.send` takes the header out of the request before the `onSend` hooks run, and
 * the route's error handler (`now`, after the `onError` hooks) for an error; the handler and every earlier hook read it
 * as sent (decision 0282). Nothing else per request: a header read.
 * @example `state.behaviour = behaviour; holdNoneMatch(request, reply, state)`
 */
export function holdNoneMatch (request: FastifyRequest, reply: FastifyReply, state: RequestState, now = false): void {
  if (request.headers['if-none-match'] === undefined) return
  const behaviour = state.behaviour
  if (behaviour === null || !(behaviour.textWork || behaviour.errorWork || behaviour.rawSteps.length > 0)) return
  if (state.noneMatch === undefined) {
    state.noneMatch = null
    const send = reply.send
    // An error goes to the onError hooks first, which read the header; the error handler takes it out.
    reply.send = function heldSend (this: FastifyReply, payload?: unknown) {
      if (!(payload instanceof Error)) takeOut(request, state)
      return send.call(this, payload)
    }
  }
  if (now) takeOut(request, state)
}

/** Takes a request's `If-None-Match` out of it, into its state. */
function takeOut (request: FastifyRequest, state: RequestState): void {
  const headers = request.raw.headers
  const value = headers['if-none-match']
  if (value === undefined) return
  state.noneMatch = value
  delete headers['if-none-match']
}

/**
 * At the send hook's start: a held `If-None-Match` is put back, and the hook's `done` answers it once the hook is done,
 * with the tag the reply then holds (of the bytes sent: `@fastify/etag`'s of a payload sent as it came, else the
 * plugin's): a GET or HEAD naming it, answered 2xx, is a 304 with no body (RFC 9110 §13.1.2, §13.2.1).
 * @example `done = answerHeldNoneMatch(request, reply, state, done)`
 */
export function answerHeldNoneMatch (request: FastifyRequest, reply: FastifyReply, state: RequestState | null, done: SendDone): SendDone {
  const held = state?.noneMatch
  if (held === undefined || held === null) return done
  request.raw.headers['if-none-match'] = held
  ;(state as RequestState).noneMatch = null
  return function answered (error, payload) {
    const tag = reply.getHeader('etag')
    const status = reply.statusCode
    if (error === null && tag !== undefined && status >= 200 && status < 300 && (request.method === 'GET' || request.method === 'HEAD') &&
      noneMatchFails(held, String(tag).replace(/^W\//, ''))) {
      reply.code(304)
      done(null, '')
      return
    }
    done(error, payload)
  }
}
