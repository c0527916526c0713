/**
 * Web `Response` payloads (Fastify 5 sends one a handler returns): Fastify sets the reply's status and headers from
 * it only after every `onSend` hook, undoing what the hooks set; a hook that must have the last word unwraps it.
 * @module
 */
import type { FastifyReply } from 'fastify'

/**
 * The body of a Web `Response` once its status and headers are set on the reply as Fastify would set them; any other
 * payload (or a `Response` whose body was read) as it is.
 * @example
 * ```ts
 * const payload = unwrapWebResponse(reply, sent) // new Response('a,b', { status: 201 }) → a stream; reply.statusCode 201
 * ```
 */
export function unwrapWebResponse (reply: FastifyReply, payload: unknown): unknown {
  // Told as Fastify tells it: undici's own `Response` class is not the global one.
  if (typeof payload !== 'object' || payload === null || Object.prototype.toString.call(payload) !== '[object Response]') return payload
  const response = payload as Response
  if (response.bodyUsed) return payload
  reply.code(response.status)
  for (const [name, value] of response.headers) reply.header(name, value)
  return response.body
}
