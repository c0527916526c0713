/**
 * What fastify-versioner adds to Fastify's types: `app.versioner`, `request.apiVersion`, and the route
 * options `onlyExistsInOlderVersions` and `fullReplace`.
 * @module
 */
import type { ContextConfigDefault, FastifyBaseLogger, FastifySchema as FastifyRouteSchema, FastifyTypeProvider, FastifyTypeProviderDefault, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerBase, RawServerDefault, RouteGenericInterface } from 'fastify'
import type { VersionerDecoration } from './versioner'

declare module 'fastify' {
  interface FastifyInstance {
    /** The versions, their schemas and routes, and response migration (fastify-versioner). */
    versioner: VersionerDecoration
  }

  interface FastifyRequest {
    /** The version a versioned request is served as (after waterfalling); `undefined` for unversioned routes. */
    readonly apiVersion: string | undefined
  }

  /* eslint-disable @typescript-eslint/no-unused-vars -- an augmentation repeats the interface's type parameters */
  interface RouteShorthandOptions<
    RawServer extends RawServerBase = RawServerDefault,
    RawRequest extends RawRequestDefaultExpression<RawServer> = RawRequestDefaultExpression<RawServer>,
    RawReply extends RawReplyDefaultExpression<RawServer> = RawReplyDefaultExpression<RawServer>,
    RouteGeneric extends RouteGenericInterface = RouteGenericInterface,
    ContextConfig = ContextConfigDefault,
    SchemaCompiler extends FastifyRouteSchema = FastifyRouteSchema,
    TypeProvider extends FastifyTypeProvider = FastifyTypeProviderDefault,
    Logger extends FastifyBaseLogger = FastifyBaseLogger
  > {
    /**
     * A versioned route that exists only in older versions: absent from HEAD and the latest version until an
     * older version's `endpoint(path, methods).existed` restores it (fastify-versioner).
     */
    onlyExistsInOlderVersions?: boolean
    /**
     * Whether the route's body replaces the whole stored resource (a `PUT` unless `false`; another route if `true`);
     * `{ keeps: [...] }` lists the HEAD fields whose stored values its handler keeps (fastify-versioner).
     * @example
     * ```ts
     * api.put('/users/:id', { schema: { body: User }, fullReplace: { keeps: ['/nickname', '/address/line2'] } }, handler)
     * ```
     */
    fullReplace?: boolean | { readonly keeps: readonly string[] }
  }
  /* eslint-enable @typescript-eslint/no-unused-vars */
}

export {}
