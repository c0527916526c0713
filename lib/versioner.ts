/**
 * Wires the plugin into an application: options, state, decorations (`app.versioner`,
 * `request.apiVersion`), the route constraint for shared paths, the `onRoute` observer, and the checks and
 * route table computed once when the application is ready.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { NotReadyError } from './errors'
import { migrateWith, type MigrateResponseBodyOptions } from './migrate-response-body'
import { resolveOptions, type FastifyVersionerOptions, type ResolvedOptions } from './options'
import { pickVersion } from './request-migration'
import { versionedRequest } from './request-state'
import { createRouteObserver, VERSION_CONSTRAINT } from './route-registration'
import { buildRouteTable, type VersionedRouteInfo } from './route-table'
import { VersionedSchemas } from './schema-generation'
import { kBehaviour, kConverted, kMigrated, kPicked, kVersionedRoute } from './symbols'
import { checkUsage } from './usage-checks'
import { resolveVersion } from './version-picking'
import { VersionerState } from './versioner-state'
import type { VersionBundle } from './versions'

/**
 * `app.versioner`: the versions, their schemas and routes, and response migration bound to them.
 * @example
 * ```ts
 * await app.ready()
 * app.versioner.routes.get('2000-01-01')        // the routes of 2000-01-01
 * app.versioner.migrateResponseBody(UserResource, { latestBody: user, version: '2000-01-01' })
 * ```
 */
export interface VersionerDecoration {
  /** The version bundle. */
  readonly versions: VersionBundle
  /** The schemas of every version (`schemas.get('2000-01-01').get(HeadSchema)`). */
  readonly schemas: VersionedSchemas
  /** The routes of every version, by version (available after `app.ready()`). */
  readonly routes: ReadonlyMap<string, readonly VersionedRouteInfo[]>
  /** `migrateResponseBody` bound to this application's versions and shared schemas. */
  migrateResponseBody: <T = unknown>(schema: TSchema, options: MigrateResponseBodyOptions) => T
}

function versionFromRawRequest (request: IncomingMessage, options: ResolvedOptions): string | undefined {
  const { location, parameterName, versions, format, defaultValue } = options
  let value: string | undefined
  if (location === 'header') {
    const header = request.headers[parameterName]
    value = Array.isArray(header) ? header[0] : header
    if ((value === undefined || value === '') && typeof defaultValue === 'string') value = defaultValue
  } else {
    const path = (request.url ?? '').split('?')[0]
    value = path.split('/').find((segment) => segment !== '' && resolveVersion(segment, versions, format).ok)
  }
  const picked = resolveVersion(value, versions, format)
  return picked.ok ? picked.version : undefined
}

/** Registers everything the plugin adds to `fastify`. */
export function setupVersioner (fastify: FastifyInstance, options: FastifyVersionerOptions): void {
  const resolved = resolveOptions(options)
  const state = new VersionerState(resolved)
  let routes: Map<string, VersionedRouteInfo[]> | undefined
  const decoration: VersionerDecoration = {
    versions: resolved.versions,
    schemas: new VersionedSchemas(state.generation),
    get routes () {
      if (routes === undefined) throw new NotReadyError('app.versioner.routes')
      return routes
    },
    migrateResponseBody: <T = unknown>(schema: TSchema, migration: MigrateResponseBodyOptions): T =>
      migrateWith({ bundle: resolved.versions, generation: state.generation, planner: state.planner }, schema, migration) as T
  }
  fastify.decorate('versioner', decoration)
  fastify.decorateRequest(kPicked, null)
  fastify.decorateRequest(kBehaviour, null)
  fastify.decorateRequest(kMigrated, false)
  fastify.decorateReply(kConverted, false)
  fastify.decorateRequest('apiVersion', {
    getter (this: FastifyRequest): string | undefined {
      const request = versionedRequest(this)
      const picked = request[kPicked]
      if (picked !== null) return picked.ok ? picked.version : undefined
      const config = this.routeOptions.config as unknown as Record<symbol, unknown> | undefined
      if (config?.[kVersionedRoute] === undefined || resolved.asyncPicking) return undefined
      const early = pickVersion(this, resolved)
      return !(early instanceof Promise) && early.ok ? early.version : undefined
    }
  })
  fastify.addConstraintStrategy({
    name: VERSION_CONSTRAINT,
    mustMatchWhenDerived: false,
    storage () {
      const handlers = new Map<string, unknown>()
      return {
        get: (version: string) => handlers.get(version) ?? null,
        set: (versions: string, store: unknown) => { for (const version of versions.split('\n')) handlers.set(version, store) }
      }
    },
    deriveConstraint: (request: IncomingMessage) => versionFromRawRequest(request, resolved)
  } as Parameters<FastifyInstance['addConstraintStrategy']>[0])
  fastify.addHook('onRoute', createRouteObserver(state) as never)
  fastify.addHook('onReady', function versionerOnReady (done) {
    try {
      checkUsage(state)
      routes = buildRouteTable(state)
      state.ready = true
      done()
    } catch (error) {
      done(error as Error)
    }
  })
}
