/**
 * Wires the plugin into an application: options, state, decorations (`app.versioner`,
 * `request.apiVersion`), the route constraint for shared paths, the `onRoute` observer, and the checks and
 * route table computed once when the application is ready.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { NotReadyError } from './core/errors'
import { migrateWith, type MigrateResponseBodyOptions } from './serve/migrate-response-body'
import { resolveOptions, type FastifyVersionerOptions, type ResolvedOptions } from './options'
import { pickVersion } from './serve/request-hook'
import { versionedRequest } from './serve/request-state'
import { createRouteObserver, VERSION_CONSTRAINT } from './serve/route-registration'
import { buildRouteTable, type VersionedRouteInfo } from './routes/route-table'
import { VersionedSchemas } from './schemas/generation'
import { kBehaviour, kConverted, kConverterFailed, kToolFacts, kMigrated, kPicked, kVersionedRoute, type ToolFacts } from './core/symbols'
import { checkComponentNames, checkUsage } from './routes/usage-checks'
import { checkMethods } from './routes/method-checks'
import { routeTimeline } from './routes/timeline'
import { Webhooks } from './routes/webhooks'
import { DOCS_OPTION_KEYS, resolveDocsOptions } from './docs/options'
import { changelogOnce, registerDocs } from './docs/routes'
import type { OpenApiDocuments } from './docs/openapi-documents'
import type { Changelog } from './docs/changelog'
import { resolveVersion } from './serve/version-picking'
import { VersionerState } from './versioner-state'
import { verifyMigrations, type VerifyFinding } from './tools/verify'
import { successorLinks } from './serve/lifecycle'
import type { VersionBundle } from './describe/versions'

/**
 * `app.versioner`: the versions, their schemas, routes and documents, webhooks, and response migration bound
 * to them.
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
  /**
   * `migrateResponseBody` bound to this application's versions and shared schemas: the body, or a promise of it
   * when a converter on the path is async.
   */
  migrateResponseBody: <T = unknown>(schema: TSchema, options: MigrateResponseBodyOptions) => T | Promise<T>
  /** Webhook payloads each version's document lists (declare them before `app.ready()`). */
  readonly webhooks: Webhooks
  /** The OpenAPI document of a version (or `'unversioned'`), after `app.ready()`; `undefined` when there is none. */
  openapi: (version: string) => Record<string, unknown> | undefined
  /** The changelog generated from the version changes (deprecated, as its endpoint), after `app.ready()`. */
  changelog: () => Changelog
  /**
   * Replays generated examples of every versioned route and version through its converters (requests up,
   * responses down) and returns what fails validation; an empty list when every version migrates cleanly.
   * After `app.ready()`.
   */
  verify: () => Promise<VerifyFinding[]>
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
export async function setupVersioner (fastify: FastifyInstance, options: FastifyVersionerOptions): Promise<void> {
  const resolved = resolveOptions(options, DOCS_OPTION_KEYS)
  const docsOptions = resolveDocsOptions(options)
  const state = new VersionerState(resolved)
  const documentUrl = docsOptions.openapiUrl === null ? null : `${fastify.prefix.replace(/\/$/, '')}${docsOptions.openapiUrl}`
  state.successorLinks = successorLinks(resolved.versions, documentUrl)
  const webhooks = new Webhooks()
  const changelog = changelogOnce(state, webhooks)
  const built: { documents?: OpenApiDocuments } = {}
  let routes: Map<string, VersionedRouteInfo[]> | undefined
  const decoration: VersionerDecoration = {
    webhooks,
    openapi: (version: string) => {
      if (!state.ready) throw new NotReadyError('app.versioner.openapi()')
      return built.documents?.document(fastify, version)
    },
    changelog: () => {
      if (!state.ready) throw new NotReadyError('app.versioner.changelog()')
      return changelog()
    },
    verify: () => verifyMigrations({ fastify, state }),
    versions: resolved.versions,
    schemas: new VersionedSchemas(state.generation),
    get routes () {
      if (routes === undefined) throw new NotReadyError('app.versioner.routes')
      return routes
    },
    migrateResponseBody: <T = unknown>(schema: TSchema, migration: MigrateResponseBodyOptions): T | Promise<T> =>
      migrateWith({ bundle: resolved.versions, generation: state.generation, planner: state.planner }, schema, migration) as T | Promise<T>
  }
  const facts: ToolFacts = { openapiUrl: docsOptions.openapiUrl, location: resolved.location, parameterName: resolved.parameterName }
  Object.defineProperty(decoration, kToolFacts, { value: facts })
  fastify.decorate('versioner', decoration)
  fastify.decorateRequest(kPicked, null)
  fastify.decorateRequest(kBehaviour, null)
  fastify.decorateRequest(kMigrated, false)
  fastify.decorateRequest(kConverterFailed, false)
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
  // The versioner's onRoute hook comes before @fastify/swagger's: the documents see the routes as versioned.
  fastify.addHook('onRoute', createRouteObserver(state) as never)
  fastify.addHook('onReady', function versionerOnReady (done) {
    try {
      checkMethods(state, fastify.supportedMethods)
      if (state.startupError !== undefined) throw state.startupError
      webhooks.seal()
      for (const webhook of webhooks.list()) {
        const { name: path, method, attributes } = webhook
        webhook.timeline = routeTimeline({ path, methods: [method], onlyExistsInOlderVersions: false, attributes, operationId: attributes.operationId },
          state.steps, state.log)
      }
      checkUsage(state, webhooks.list())
      checkComponentNames(state, webhooks.list())
      routes = buildRouteTable(state)
      state.ready = true
      done()
    } catch (error) {
      done(error as Error)
    }
  })
  built.documents = await registerDocs(fastify, state, resolved, docsOptions, webhooks, changelog)
}
