/**
 * Serializers the application chose (`reply.serializer(fn)`, `app.setReplySerializer(fn)`), which Fastify keeps under
 * private symbols: a converted response is serialized by them too (decision 0116).
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

/** `object`'s own symbol described `description`: `known` while it still holds, else found again (or `undefined`). */
function ownSymbol (object: object, known: symbol | undefined, description: string): symbol | undefined {
  return known !== undefined && Object.hasOwn(object, known)
    ? known
    : Object.getOwnPropertySymbols(object).find((each) => each.description === description)
}

/**
 * A test, for one route, of whether a reply will be serialized by a serializer the application chose.
 * @example `if (!createChosenSerializerTest()(reply)) reply.serializer(versionSerializer)`
 */
export function createChosenSerializerTest (): (reply: FastifyReply) => boolean {
  const found: Found = {}
  return function hasChosenSerializer (reply) {
    found.reply = ownSymbol(reply, found.reply, REPLY_SERIALIZER)
    const own = found.reply === undefined ? null : (reply as unknown as Record<symbol, unknown>)[found.reply]
    if (own !== null && own !== undefined) return true
    found.context = ownSymbol(reply.request, found.context, ROUTE_CONTEXT)
    const context = found.context === undefined ? undefined : (reply.request as unknown as Record<symbol, unknown>)[found.context]
    if (typeof context !== 'object' || context === null) return false
    if (context !== found.lastContext) {
      found.serializerDefault = ownSymbol(context, found.serializerDefault, DEFAULT_SERIALIZER)
      found.lastContext = context
      found.lastAnswer = found.serializerDefault !== undefined && typeof (context as Record<symbol, unknown>)[found.serializerDefault] === 'function'
    }
    return found.lastAnswer === true
  }
}
