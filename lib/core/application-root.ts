/**
 * The root of a Fastify application, and the versioned APIs recorded on it: each registration of the plugin (one
 * per API, in its own context) records its context on the root, where the tools (`fastify-versioner/tools`) find it.
 * @module
 */
import type { FastifyInstance } from 'fastify'
import { kVersionedApis } from './symbols'

/**
 * True for a Fastify instance (or a context of one).
 * @example
 * ```ts
 * isFastify(Fastify()) // true
 * ```
 */
export function isFastify (value: unknown): value is FastifyInstance {
  return typeof value === 'object' && value !== null && typeof (value as FastifyInstance).inject === 'function' &&
    typeof (value as FastifyInstance).ready === 'function'
}

/**
 * The root instance of the application a context belongs to: Fastify makes each context with `Object.create(parent)`,
 * so the root is the last Fastify instance of the prototype chain.
 * @example
 * ```ts
 * await rootOf(context).ready()
 * ```
 */
export function rootOf (instance: FastifyInstance): FastifyInstance {
  let current = instance
  for (let parent: unknown = Object.getPrototypeOf(current); isFastify(parent); parent = Object.getPrototypeOf(parent)) current = parent
  return current
}

/**
 * Records an API's context (where the plugin registers) on its application's root, for the tools' `versionedApis`.
 * @example
 * ```ts
 * recordVersionedApi(fastify) // in the plugin's registration
 * ```
 */
export function recordVersionedApi (context: FastifyInstance): void {
  const root = rootOf(context) as unknown as Record<symbol, FastifyInstance[]>
  if (root[kVersionedApis] === undefined) Object.defineProperty(root, kVersionedApis, { value: [] })
  root[kVersionedApis].push(context)
}

/**
 * Whether the plugin was registered anywhere in the application a context belongs to (in this context, a parent, or
 * an encapsulated context beside it), as recorded by {@link recordVersionedApi}.
 * @example
 * ```ts
 * if (!context.hasDecorator('versioner') && pluginRegisteredInApplication(context)) { ... } // a sibling context has it
 * ```
 */
export function pluginRegisteredInApplication (context: FastifyInstance): boolean {
  const recorded = (rootOf(context) as unknown as Record<symbol, FastifyInstance[] | undefined>)[kVersionedApis]
  return recorded !== undefined && recorded.length > 0
}

/**
 * The name of an API from its `apiName` option and its context's prefix: the option, else the prefix with `/` turned
 * into `-` (`root` without one). The tools' `--api` and the usage events name an API so.
 * @example
 * ```ts
 * apiNameFrom(undefined, '/partner/v') // 'partner-v'
 * ```
 */
export function apiNameFrom (apiName: string | undefined, contextPrefix: string): string {
  if (apiName !== undefined) return apiName
  const prefix = contextPrefix.replace(/^\/+|\/+$/g, '')
  return prefix === '' ? 'root' : prefix.replace(/\/+/g, '-').replace(/[\\:*?"<>|\0]/g, '_')
}
