/**
 * The one application builder of the tests (not a test file): a fresh Fastify application with the versioner
 * registered and, optionally, HEAD routes inside `versioned(...)`; closed when the test ends.
 */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { fastifyVersioner, versioned, type FastifyVersionerOptions, type VersionBundle } from '../../plugin'

/** What a test needs to close things when it ends (a tap `Test` has it). */
export interface Teardown {
  teardown: (fn: () => unknown) => void
}

/** Options of {@link versionedApp}. */
export interface AppOptions {
  /** Options of `Fastify()`. */
  fastify?: FastifyServerOptions
  /** Options of the versioner besides `versions`. */
  versioner?: Partial<FastifyVersionerOptions>
  /** Called before the versioner is registered (e.g. to register `@fastify/cookie`). */
  beforeVersioner?: (app: FastifyInstance) => Promise<void> | void
  /** Called after the versioner is registered and before the HEAD routes (e.g. to declare webhooks). */
  beforeRoutes?: (app: FastifyInstance) => void
  /** The prefix the HEAD routes are registered under (none when omitted). */
  prefix?: string
  /** Also register `GET /health`, an unversioned route answering `{ ok: true }`. */
  health?: boolean
}

/** A fresh application serving `routes` (HEAD routes, none when omitted) in every version of `versions`; closed at teardown. */
export async function versionedApp (
  t: Teardown,
  versions: VersionBundle,
  routes?: FastifyPluginAsyncTypebox,
  options: AppOptions = {}
): Promise<FastifyInstance> {
  const app = Fastify(options.fastify)
  t.teardown(() => app.close())
  if (options.beforeVersioner !== undefined) await options.beforeVersioner(app)
  await app.register(fastifyVersioner, { versions, ...options.versioner })
  options.beforeRoutes?.(app)
  if (routes !== undefined && options.prefix === undefined) await app.register(versioned(routes))
  if (routes !== undefined && options.prefix !== undefined) await app.register(versioned(routes), { prefix: options.prefix })
  if (options.health === true) app.get('/health', async () => ({ ok: true }))
  return app
}
