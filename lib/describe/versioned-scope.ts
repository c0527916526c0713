/**
 * `versioned(plugin)`: marks a Fastify plugin's routes, nested plugins' included, as HEAD routes.
 * @module
 */
import type { FastifyPluginAsyncTypebox, FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox'
import type {
  FastifyInstance, FastifyPluginAsync, FastifyPluginCallback, FastifyPluginOptions, FastifyTypeProvider, RawServerDefault
} from 'fastify'
import { pluginRegisteredInApplication } from '../core/application-root'
import { InvalidOptionError } from '../core/errors'
import { kVersionedScope } from '../core/symbols'

/** A context created by `versioned(...)`. */
export interface VersionedScope {
  /** The prefix `versioned(...)` was registered with (path versions go right after it). */
  readonly prefix: string
}

/** The versioned scope of a Fastify context, if it is inside `versioned(...)`. */
export function versionedScopeOf (instance: FastifyInstance): VersionedScope | undefined {
  return (instance as unknown as Record<symbol, VersionedScope | undefined>)[kVersionedScope]
}

/**
 * Wraps a Fastify plugin: every route it registers (directly, in nested plugins, under any prefix) is a
 * HEAD route, written against the HEAD schemas and served in every version. Register `fastifyVersioner`
 * first. Handlers are typed from their TypeBox 0.34 schemas (`@fastify/type-provider-typebox` 5) unless the plugin
 * is typed with another type provider: a plugin typed with the TypeBox 1.x line's provider (`FastifyPluginAsyncTypebox`
 * of `@fastify/type-provider-typebox` 6) keeps it, so its handlers are typed from 1.x schemas. `versioned` may be
 * registered several times, with different prefixes.
 * @example
 * ```ts
 * declare const app: FastifyInstance, versions: VersionBundle
 * const UserCreateRequest = Type.Object({ addresses: Type.Array(Type.String()) }, { $id: 'UserCreateRequest' })
 * const UserResource = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) }, { $id: 'UserResource' })
 * await app.register(fastifyVersioner, { versions })
 * await app.register(versioned(async (api) => {
 *   api.post('/users', { schema: { body: UserCreateRequest, response: { 200: UserResource } } },
 *     async (request) => ({ id: 'u1', addresses: request.body.addresses }))
 * }), { prefix: '/api' })
 * ```
 */
export function versioned<Options extends FastifyPluginOptions = Record<never, never>> (
  plugin: FastifyPluginAsyncTypebox<Options>
): FastifyPluginAsync<Options>
export function versioned<Options extends FastifyPluginOptions = Record<never, never>> (
  plugin: FastifyPluginCallbackTypebox<Options>
): FastifyPluginAsync<Options>
export function versioned<Options extends FastifyPluginOptions, Provider extends FastifyTypeProvider> (
  plugin: FastifyPluginAsync<Options, RawServerDefault, Provider>
): FastifyPluginAsync<Options>
export function versioned<Options extends FastifyPluginOptions, Provider extends FastifyTypeProvider> (
  plugin: FastifyPluginCallback<Options, RawServerDefault, Provider>
): FastifyPluginAsync<Options>
export function versioned<Options extends FastifyPluginOptions = Record<never, never>> (
  plugin: FastifyPluginAsyncTypebox<Options> | FastifyPluginCallbackTypebox<Options>
): FastifyPluginAsync<Options> {
  if (typeof plugin !== 'function') {
    throw new InvalidOptionError(`versioned(plugin) needs a Fastify plugin function; got ${typeof plugin}.`)
  }
  const wrapper: FastifyPluginAsync<Options> = async function (instance, options) {
    if (!instance.hasDecorator('versioner') && pluginRegisteredInApplication(instance)) {
      throw new InvalidOptionError('versioned(...) cannot see fastifyVersioner: it is registered in another, encapsulated context ' +
        '(a plugin not wrapped with fastify-plugin, such as a file of plugins/ loaded by @fastify/autoload). Wrap that ' +
        'plugin with fastify-plugin, so that fastifyVersioner reaches the contexts registered after it, or register ' +
        'versioned(...) inside that plugin.')
    }
    if (!instance.hasDecorator('versioner')) {
      throw new InvalidOptionError('versioned(...) was registered before fastifyVersioner. Register fastifyVersioner first ' +
        '(await app.register(fastifyVersioner, { versions })), then the versioned routes.')
    }
    // fastify-plugin marks the function it wraps: versioned(...) would then mark the enclosing context, prefix dropped.
    if ((wrapper as unknown as Record<symbol, unknown>)[Symbol.for('skip-override')] === true) {
      throw new InvalidOptionError(`${wrapper.name} is wrapped with fastify-plugin, so it would version the context it is registered in ` +
        '(every route registered there after it, its prefix ignored). Register versioned(...) itself, and wrap the routes inside it if ' +
        'they must share hooks or decorators with it: versioned(fp(routes)).')
    }
    if (versionedScopeOf(instance) === undefined) {
      const scope: VersionedScope = Object.freeze({ prefix: instance.prefix })
      instance.decorate(kVersionedScope, scope)
    }
    const { prefix: _prefix, ...rest } = (options ?? {}) as FastifyPluginOptions
    await instance.register(plugin as unknown as FastifyPluginCallback<FastifyPluginOptions>, rest)
  }
  Object.defineProperty(wrapper, 'name', { value: `versioned(${plugin.name === '' ? 'anonymous' : plugin.name})` })
  return wrapper
}
