/**
 * Web `Response` payloads (Fastify 5 sends one a handler returns): Fastify sets the reply's status and headers from
 * it only after every `onSend` hook, undoing what the hooks set; a hook that must have the last word unwraps it.
 * @module
 */
import type { FastifyReply } from 'fastify'

/**
 * The body of a Web `Response` (a `ReadableStream`, or null) once its status and headers are the reply's, set as
 * Fastify would set them; any other payload as it is, and a `Response` whose body was read (Fastify answers it with
 * its own error).
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
