/**
 * Serializers the application chose, which Fastify keeps under private symbols (found by their descriptions): a
 * reply's own (`reply.serializer(fn)`) and its route's default (`app.setReplySerializer(fn)` in the route's context).
 * Fastify serializes with either instead of the response schema; a converted response does the same (decision 0116).
 * @module
 */
import type { FastifyReply } from 'fastify'

const REPLY_SERIALIZER = 'fastify.reply.serializer'
const ROUTE_CONTEXT = 'fastify.context'
const DEFAULT_SERIALIZER = 'fastify.replySerializerDefault'

/** The symbols found so far, and the last route context read with its answer (one per route: listing symbols costs 1.5 µs). */
interface Found {
  reply?: symbol
  context?: symbol
  serializerDefault?: symbol
  lastContext?: object
  lastAnswer?: boolean
}

/** The value of `object`'s own symbol described `description`, finding the symbol again when it is not `known`. */
function ownSymbol (object: object, known: symbol | undefined, description: string): { symbol?: symbol, value: unknown } {
  const fields = object as Record<symbol, unknown>
  const symbol = known !== undefined && Object.hasOwn(fields, known)
    ? known
    : Object.getOwnPropertySymbols(object).find((each) => each.description === description)
  return { symbol, value: symbol === undefined ? undefined : fields[symbol] }
}

/**
 * A test, for one route, of whether a reply will be serialized by a serializer the application chose (its own or its
 * route's default) rather than by the response schema.
 * @example
 * ```ts
 * const chosen = createChosenSerializerTest()
 * if (!chosen(reply)) reply.serializer(versionSerializer)
 * ```
 */
export function createChosenSerializerTest (): (reply: FastifyReply) => boolean {
  const found: Found = {}
  return function hasChosenSerializer (reply) {
    const own = ownSymbol(reply, found.reply, REPLY_SERIALIZER)
    found.reply = own.symbol
    if (own.value !== null && own.value !== undefined) return true
    const context = ownSymbol(reply.request, found.context, ROUTE_CONTEXT)
    found.context = context.symbol
    if (typeof context.value !== 'object' || context.value === null) return false
    if (context.value !== found.lastContext) {
      const serializer = ownSymbol(context.value, found.serializerDefault, DEFAULT_SERIALIZER)
      found.serializerDefault = serializer.symbol
      found.lastContext = context.value
      found.lastAnswer = typeof serializer.value === 'function'
    }
    return found.lastAnswer === true
  }
}
