/**
 * Entity tags (RFC 9110 §8.8.3): a strong tag made from a representation's bytes, and the `If-None-Match` condition
 * (§13.1.2), which compares tags weakly (`W/"x"` matches `"x"`), takes a list, and `*` for any representation; the
 * tag of a body an `onSend` hook sends in place of another (decision 0188).
 * @module
 */
import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * The strong entity tag of some bytes: their SHA-256 (base64url), quoted; the same in every process.
 * @example `reply.header('etag', strongEntityTag(text)) // "n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg"`
 */
export function strongEntityTag (bytes: string | Buffer): string {
  return `"${createHash('sha256').update(bytes).digest('base64url')}"`
}

/** An entity tag in a list: optionally weak, its opaque part quoted (the characters RFC 9110 allows inside). */
const LISTED_TAG = /(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*")/g

/**
 * True when an `If-None-Match` header matches strong tag `tag`: `*`, or a listed tag of the same opaque part, weak or not.
 * @example `noneMatchFails('W/"a", "b"', '"a"') // true`
 */
export function noneMatchFails (header: string | string[] | undefined, tag: string): boolean {
  if (header === undefined) return false
  const value = Array.isArray(header) ? header.join(', ') : header
  if (value.trim() === '*') return true
  for (const match of value.matchAll(LISTED_TAG)) if (match[1] === tag) return true
  return false
}

/**
 * The `done` of an `onSend` hook that may send other bytes than `sent`: an entity tag the reply holds now (an earlier
 * `onSend` hook's, such as `@fastify/etag`'s, or the handler's) names `sent`, so once the text sent differs it is made
 * the strong tag of that text (weak stays weak), and a GET or HEAD whose `If-None-Match` names it is answered 304; a
 * failure drops it, for the error answer to get its own. A tag set meanwhile stays (decision 0188).
 * @example `convert(payload, retagging(request, reply, payload, done))`
 */
export function retagging (request: FastifyRequest, reply: FastifyReply, sent: unknown, done: SendDone): SendDone {
  const tag = reply.getHeader('etag')
  if (tag === undefined) return done
  return function retagged (error, payload) {
    if (reply.getHeader('etag') === tag && error !== null) reply.removeHeader('etag')
    else if (reply.getHeader('etag') === tag && typeof payload === 'string' && payload !== sent) {
      const own = strongEntityTag(payload)
      reply.header('etag', String(tag).startsWith('W/') ? `W/${own}` : own)
      const status = reply.statusCode
      if (status >= 200 && status < 300 && (request.method === 'GET' || request.method === 'HEAD') && noneMatchFails(request.headers['if-none-match'], own)) {
        reply.code(304)
        done(null, '')
        return
      }
    }
    done(error, payload)
  }
}

/** The `done` of an `onSend` hook. */
type SendDone = (error: Error | null, payload?: unknown) => void
