/**
 * The root of a Fastify application, the versioned APIs each registration of the plugin records on it for the tools,
 * and what Fastify keeps under its private symbols.
 * @module
 */
import type { FastifyInstance } from 'fastify'
import { kVersionedApis } from './symbols'

/**
 * True for a Fastify instance (or a context of one).
 * @example `isFastify(Fastify()) // true`
 */
export function isFastify (value: unknown): value is FastifyInstance {
  return typeof value === 'object' && value !== null && typeof (value as FastifyInstance).inject === 'function' &&
    typeof (value as FastifyInstance).ready === 'function'
}

/**
 * The root instance of a context's application: the last Fastify instance of its prototype chain.
 * @example `await rootOf(context).ready()`
 */
export function rootOf (instance: FastifyInstance): FastifyInstance {
  let current = instance
  for (let parent: unknown = Object.getPrototypeOf(current); isFastify(parent); parent = Object.getPrototypeOf(parent)) current = parent
  return current
}

/**
 * Records an API's context (where the plugin registers) on its application's root, for the tools' `versionedApis`.
 * @example `recordVersionedApi(fastify) // in the plugin's registration`
 */
export function recordVersionedApi (context: FastifyInstance): void {
  const root = rootOf(context) as unknown as Record<symbol, FastifyInstance[]>
  if (root[kVersionedApis] === undefined) Object.defineProperty(root, kVersionedApis, { value: [] })
  root[kVersionedApis].push(context)
}

/**
 * The contexts where the plugin registered in a context's application, in registration order, as
 * {@link recordVersionedApi} recorded them.
 * @example `for (const api of recordedApis(app)) console.log(api.prefix)`
 */
export function recordedApis (context: FastifyInstance): readonly FastifyInstance[] {
  return (rootOf(context) as unknown as Record<symbol, FastifyInstance[] | undefined>)[kVersionedApis] ?? []
}

/**
 * Whether the plugin was registered anywhere in a context's application, as {@link recordVersionedApi} recorded it.
 * @example
 * ```ts
 * if (!context.hasDecorator('versioner') && pluginRegisteredInApplication(context)) { ... } // a sibling context has it
 * ```
 */
export function pluginRegisteredInApplication (context: FastifyInstance): boolean {
  return recordedApis(context).length > 0
}

/**
 * The name of an API: its `apiName` option, else its prefix with `/` turned into `-` (`root` without one).
 * @example `apiNameFrom(undefined, '/partner/v') // 'partner-v'`
 */
export function apiNameFrom (apiName: string | undefined, contextPrefix: string): string {
  if (apiName !== undefined) return apiName
  const prefix = contextPrefix.replace(/^\/+|\/+$/g, '')
  return prefix === '' ? 'root' : prefix.replace(/\/+/g, '-').replace(/[\\:*?"<>|\0]/g, '_')
}

/**
 * The value Fastify keeps on `instance` (or the nearest parent context having it) under its private symbol described
 * `description`, or `undefined`.
 * @example `const formatter = fastifyPrivate(app, 'fastify.schemaErrorFormatter')`
 */
export function fastifyPrivate (instance: object, description: string): unknown {
  for (let scope: object | null = instance; scope !== null; scope = Object.getPrototypeOf(scope) as object | null) {
    const key = Object.getOwnPropertySymbols(scope).find((symbol) => symbol.description === description)
    if (key !== undefined) return (scope as Record<symbol, unknown>)[key]
  }
  return undefined
}
