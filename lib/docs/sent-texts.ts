/**
 * Documents, pages and assets sent with a strong `ETag`, 304 on a match and `Cache-Control: public, no-cache`
 * ([decision 0083](../../docs/decisions/0083-documents-for-caches-and-fleets.md)).
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { noneMatchFails, strongEntityTag } from '../core/entity-tags'

/**
 * A text as it is sent, with the entity tag of its bytes (computed once, with the text).
 * @example
 * ```ts
 * const page = sentText(versionListPage(context, entries)) // { text, etag: '"…"' }
 * ```
 */
export interface SentText {
  readonly text: string
  readonly etag: string
}

/** A text and its entity tag. */
export function sentText (text: string): SentText {
  return { text, etag: strongEntityTag(text) }
}

/**
 * Sends `sent` as `type` with its `ETag` and `Cache-Control: public, no-cache` unless set, or a 304 when `If-None-Match`
 * matches; a text that is a function (a file's stream) is called only for a 200.
 * @example
 * ```ts
 * return sendText(request, reply, sentText(JSON.stringify(document)), 'application/json; charset=utf-8')
 * ```
 */
export function sendText (request: FastifyRequest, reply: FastifyReply, sent: SentText | { readonly text: () => unknown, readonly etag: string }, type: string): FastifyReply {
  reply.header('etag', sent.etag).header('x-content-type-options', 'nosniff')
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'public, no-cache')
  if (noneMatchFails(request.headers['if-none-match'], sent.etag)) return reply.code(304).send()
  return reply.code(200).type(type).send(typeof sent.text === 'function' ? sent.text() : sent.text)
}

/** Marks a 404 for an unserved version `Cache-Control: no-cache` unless set: a cache must not keep it past a release. */
export function revalidated (reply: FastifyReply): FastifyReply {
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-cache')
  return reply
}
