/**
 * Helpers for the HTTP tests of the response side: a fresh application with the versioner and one
 * `versioned(...)` plugin, and short `inject` calls that send a version header.
 */
import { request, type Agent, type IncomingHttpHeaders } from 'node:http'
import Fastify, { type FastifyInstance, type FastifyServerOptions, type InjectOptions, type LightMyRequestResponse } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { fastifyVersioner, versioned, type FastifyVersionerOptions, type VersionBundle } from '../../plugin'

/** What a test needs to close when it ends (a tap `Test` has it). */
export interface Teardown {
  teardown: (fn: () => unknown) => void
}

/** Options of {@link buildVersionedApp}. */
export interface BuildOptions {
  fastify?: FastifyServerOptions
  versioner?: Partial<FastifyVersionerOptions>
  /** Registered on the application before the versioner (e.g. `@fastify/cookie`). */
  before?: (app: FastifyInstance) => Promise<void> | void
}

/** A fresh application serving `routes` (HEAD routes) in every version of `versions`; closed at teardown. */
export async function buildVersionedApp (
  t: Teardown,
  versions: VersionBundle,
  routes: FastifyPluginAsyncTypebox,
  options: BuildOptions = {}
): Promise<FastifyInstance> {
  const app = Fastify(options.fastify)
  t.teardown(() => app.close())
  if (options.before !== undefined) await options.before(app)
  await app.register(fastifyVersioner, { versions, ...options.versioner })
  await app.register(versioned(routes))
  return app
}

/** Injects a request for `version` (sent in the `x-api-version` header). */
export function call (
  app: FastifyInstance,
  version: string,
  url: string,
  options: Omit<InjectOptions, 'url'> = {}
): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', ...options, url, headers: { ...options.headers, 'x-api-version': version } })
}

/** The parsed JSON body of a response. */
export function json (response: LightMyRequestResponse): unknown {
  return JSON.parse(response.body)
}

/** Resolves after `ms` milliseconds. */
export function sleep (ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** A GET over a real connection (keep-alive through `agent`), answering status and parsed JSON body. */
export function httpGet (
  port: number,
  path: string,
  agent: Agent,
  headers: Record<string, string> = {}
): Promise<{ status: number, body: unknown, headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent, headers }, (response) => {
      let data = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => { data += chunk })
      response.on('end', () => {
        try {
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(data), headers: response.headers })
        } catch (error) {
          reject(error)
        }
      })
    }).on('error', reject).end()
  })
}
