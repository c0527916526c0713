/**
 * `lib/` root: wiring the stages together (see ARCHITECTURE.md): options, state, decorations, the route constraint,
 * the `onRoute` observer, and what is computed once when the application is ready.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { SchemaLike } from './core/json-schema'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { NotReadyError, VersionerAlreadyRegisteredError } from './core/errors'
import { MigrationEngine, migrateWith, type MigrateResponseBodyOptions } from './serve/migrate-response-body'
import { resolveOptions, type FastifyVersionerOptions, type ResolvedOptions } from './options'
import { pickedWithoutWaiting, RoutingPicks, versionPickedBeforeRouting } from './serve/pick-version'
import { noteRoutedVersion } from './serve/routed-version'
import { bindVersionInChildLoggers, loggerEnabled, registeredRouteOf, releaseStorage, requestState } from './serve/request-state'
import { createRouteObserver, VERSION_CONSTRAINT } from './serve/route-registration'
import { buildRouteTable, type VersionedRouteInfo } from './routes/route-table'
import { VersionedSchemas } from './schemas/versioned-schemas'
import { kBundleInternals, kRequestState, kToolFacts, kVersionerState, type ToolFacts } from './core/symbols'
import { checkComponentNames, checkMethods, checkUsage } from './routes/usage-checks'
import { checkRelativeReferences } from './routes/relative-refs'
import { checkInstructionUsage } from './routes/instruction-usage'
import { checkWebhookNames, Webhooks, webhookTimeline } from './routes/webhooks'
import { createWebhookRenderer } from './serve/webhook-render'
import { createWebhookCapture } from './serve/webhook-capture'
import { resolveDocsOptions, type ResolvedDocsOptions } from './docs/options'
import { registerDocs } from './docs/routes'
import type { OpenApiDocuments } from './docs/openapi-documents'
import { changelogOnce, type Changelog } from './docs/changelog'
import { fingerprintOnce } from './docs/fingerprint'
import { checkVersionSegmentLength, namedVersion, readRequestedVersion, resolveVersion, VersionSegments } from './serve/version-picking'
import { releasedNow } from './serve/release-clock'
import { kPreview } from './serve/upgrade-preview'
import { kCapture } from './serve/exchange-capture'
import { appAjvSetup } from './core/strict-validator'
import { checkFieldInstructions } from './routes/instruction-keywords'
import { copyJson } from './values/json-copy'
import { warnUndeclaredPointers } from './serve/redaction-places'
import { VersionerState } from './routes/versioner-state'
import { apiNameFrom, recordedApis, recordVersionedApi } from './core/application-root'
import { checkSharedStorage, type ServedBundle } from './describe/shared-storage'
import type { VersionBundle } from './describe/versions'
import { retirements } from './describe/retirement'

/**
 * `app.versioner`: the versions, their schemas, routes and documents, webhooks, and response migration bound
 * to them.
 * @example
 * ```ts
 * declare const app: FastifyInstance
 * const UserResource = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) }, { $id: 'UserResource' })
 * const user: Static<typeof UserResource> = { id: 'u1', addresses: ['1 Main St'] }
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
  migrateResponseBody: <S extends SchemaLike, Body = unknown>(schema: S, options: MigrateResponseBodyOptions<S>) => Body | Promise<Body>
  /** Webhook payloads each version's document lists (declare them before `app.ready()`). */
  readonly webhooks: Webhooks
  /** The OpenAPI document of a version (or `'unversioned'`) by its exact value, after `app.ready()`; `undefined` when there is none. */
  openapi: (version: string) => Record<string, unknown> | undefined
  /** The changelog generated from the version changes (deprecated, as its endpoint), after `app.ready()`. */
  changelog: () => Changelog
  /**
   * The bundle fingerprint, after `app.ready()`: one hash of the documents, the same on every instance serving the same
   * bundle; `undefined` when documents are off (docs/documents-and-pages.md).
   */
  readonly fingerprint: string | undefined
}

/**
 * The version a request names before routing: for the route constraint, a preview named exactly routes as the preview
 * (its request hook asks its access); for the log (`released`), only a released version.
 */
function versionFromRawRequest (
  request: IncomingMessage, options: ResolvedOptions, segments: VersionSegments, released = false, named = readRequestedVersion(request, options, segments)
): string | undefined {
  const { defaultValue } = options
  const requested = named ?? (typeof defaultValue === 'string' ? defaultValue : undefined)
  const picked = released ? resolveVersion(requested, options) : namedVersion(requested, options)
  return picked.ok ? picked.version : undefined
}

/** The name of a new registration's route constraint: the router is shared by the whole application. */
function constraintName (fastify: FastifyInstance): string {
  let name = VERSION_CONSTRAINT
  for (let index = 2; fastify.hasConstraintStrategy(name); index++) name = `${VERSION_CONSTRAINT}${index}`
  return name
}

/** Logs once at start-up (`info`) what this registration serves: its versions, where the version goes, its documents. */
function logServedVersions (fastify: FastifyInstance, options: ResolvedOptions, docs: ResolvedDocsOptions): void {
  const prefix = fastify.prefix
  const documents = docs.openapiUrl === null ? null : `${prefix}${docs.openapiUrl}`
  const pages = documents === null || docs.docsUrl === null ? null : `${prefix}${docs.docsUrl}`
  const where = options.location === 'header'
    ? `the '${options.headerName}' header`
    : 'the path segment after the versioned(...) prefix'
  const versions = releasedNow(options).values
  const pending = options.versions.releasedValues.filter((value) => !versions.includes(value))
  const previews = options.versions.versionValues.filter((value) => !options.versions.releasedValues.includes(value))
  const soon = pending.map((value) => `${value} from ${options.versions.get(value)?.releasedAt?.toISOString() ?? ''}`)
  fastify.log.info({
    apiVersions: versions, ...(pending.length === 0 ? {} : { pendingVersions: pending }), ...(previews.length === 0 ? {} : { previewVersions: previews }), docsUrl: pages, openapiUrl: documents
  }, `fastify-versioner: serving API versions ${versions.join(', ')} (newest first; clients send the version in ${where})` +
    (pending.length === 0 ? '' : `; releasing ${soon.join(', ')}`) + (previews.length === 0 ? '' : `; preview versions ${previews.join(', ')} (only when named and allowed)`) +
    (pages === null ? '' : `; docs at ${pages}`) + (documents === null ? '' : `; OpenAPI documents at ${documents}?version=<version>`))
}

/** The request and reply decorations: the versioner's per-request state, and `request.apiVersion`. */
function decorateRequests (fastify: FastifyInstance, resolved: ResolvedOptions): void {
  // One decoration: every request of the application sets it in Fastify's constructor (./serve/request-state.ts).
  fastify.decorateRequest(kRequestState, null)
  if (resolved.upgradePreview !== undefined) fastify.decorateRequest(kPreview, null)
  if (resolved.captureExchanges !== undefined) fastify.decorateRequest(kCapture, null)
  fastify.decorateRequest('apiVersion', {
    getter (this: FastifyRequest): string | undefined {
      const picked = requestState(this)?.picked ?? (registeredRouteOf(this) === undefined ? undefined : pickedWithoutWaiting(this, resolved))
      return picked?.ok === true ? picked.version : undefined
    }
  })
}

/**
 * The route constraint on the version, which tells apart the routes serving one path in different versions: derived
 * before routing with a custom picker; otherwise lazily (find-my-way derives every request's constraints, so the
 * "derived" value is the raw request, read only by the storage of a node the constraint separates).
 */
function addVersionConstraint (
  fastify: FastifyInstance, name: string, resolved: ResolvedOptions, segments: VersionSegments, routingPicks: RoutingPicks | undefined
): void {
  // The route constraint routes path versions by a path parameter, which Fastify's maxParamLength must hold.
  checkVersionSegmentLength(fastify, resolved)
  const deriveConstraint = routingPicks === undefined
    ? (request: IncomingMessage) => request
    : (request: IncomingMessage, _context: unknown, done: (error: Error | null, value?: string) => void) => { routingPicks.derive(request, done) }
  fastify.addConstraintStrategy({
    name,
    mustMatchWhenDerived: false,
    storage () {
      const handlers = new Map<string, unknown>()
      return {
        // A string: a route's constraint value (at registration) or a version derived before routing; else a raw request.
        get: (value: string | IncomingMessage) => {
          if (typeof value === 'string') return handlers.get(value) ?? null
          // Routed before the application's hooks: one that names another version since is told (./serve/routed-version.ts).
          const named = readRequestedVersion(value, resolved, segments)
          noteRoutedVersion(value, named)
          const version = versionFromRawRequest(value, resolved, segments, false, named)
          return version === undefined ? null : handlers.get(version) ?? null
        },
        set: (versions: string, store: unknown) => { for (const version of versions.split('\n')) handlers.set(version, store) }
      }
    },
    deriveConstraint
  } as Parameters<FastifyInstance['addConstraintStrategy']>[0])
}

/**
 * The bundles the application's APIs registered before this one serve, with their names: two sharing one version storage
 * must agree on where each change they hold stands (`isApplied` reads only the version value).
 */
function otherApis (fastify: FastifyInstance): ServedBundle[] {
  return recordedApis(fastify).map((context) => ({
    bundle: context.versioner.versions,
    api: apiNameFrom((context.versioner as unknown as Record<symbol, ToolFacts | undefined>)[kToolFacts]?.apiName, context.prefix)
  }))
}

/** Registers everything the plugin adds to `fastify`. */
export async function setupVersioner (fastify: FastifyInstance, options: FastifyVersionerOptions): Promise<void> {
  if (fastify.hasDecorator('versioner')) {
    throw new VersionerAlreadyRegisteredError('fastifyVersioner is already registered in this Fastify context or a parent of it. ' +
      'One registration serves one versioned API; to serve several, register the plugin and its versioned(...) routes once in ' +
      'each API\'s own context: app.register(async (api) => { await api.register(fastifyVersioner, { versions }); ' +
      'await api.register(versioned(routes)) }, { prefix: \'/a\' }).')
  }
  const docsOptions = resolveDocsOptions(options, fastify.prefix)
  const documentUrl = docsOptions.openapiUrl === null ? null : `${fastify.prefix.replace(/\/$/, '')}${docsOptions.openapiUrl}`
  // `fastify-versioner retire` builds the application again without its oldest versions (./describe/retirement.ts).
  const cut = retirements.getStore()?.(options.versions, { apiName: options.apiName, prefix: fastify.prefix })
  const resolved = resolveOptions(cut === undefined ? options : { ...options, versions: cut }, documentUrl, fastify.prefix)
  const state = new VersionerState({ ...resolved, retiring: cut !== undefined }, constraintName(fastify))
  const segments = new VersionSegments()
  const engine = new MigrationEngine(resolved.versions, state.generation, state.planner, appAjvSetup(fastify))
  const capture = createWebhookCapture(resolved.captureExchanges, resolved.versions.versionValues[0])
  const webhooks = new Webhooks(createWebhookRenderer(engine, { now: resolved.now, versionHeader: resolved.headerName, api: resolved.apiName, log: fastify.log, capture }))
  const changelog = changelogOnce(state, webhooks)
  const built: { documents?: OpenApiDocuments } = {}
  let routes: Map<string, VersionedRouteInfo[]> | undefined
  const fingerprint = fingerprintOnce(state, () => built.documents)
  const decoration: VersionerDecoration = {
    webhooks,
    openapi: (version: string) => {
      if (!state.ready) throw new NotReadyError('app.versioner.openapi()')
      // Copies: the documents and the changelog are built once and served to every request.
      return copyJson(built.documents?.document(version)) as Record<string, unknown> | undefined
    },
    changelog: () => {
      if (!state.ready) throw new NotReadyError('app.versioner.changelog()')
      return copyJson(changelog()) as Changelog
    },
    versions: resolved.versions,
    schemas: new VersionedSchemas(state.generation),
    get fingerprint () { return fingerprint() },
    get routes () {
      if (!state.ready) throw new NotReadyError('app.versioner.routes')
      // Built on first use: ready() does not pay for a table most applications never read.
      routes ??= buildRouteTable(state)
      return routes
    },
    migrateResponseBody: <S extends SchemaLike, Body = unknown>(schema: S, migration: MigrateResponseBodyOptions<S>): Body | Promise<Body> =>
      migrateWith(engine, schema as TSchema, migration as MigrateResponseBodyOptions) as Body | Promise<Body>
  }
  const changelogPath = docsOptions.changelogUrl !== null && docsOptions.includeChangelogUrlInSchema ? `${fastify.prefix}${docsOptions.changelogUrl}` : null
  const facts: ToolFacts = {
    openapiUrl: docsOptions.openapiUrl, location: resolved.location, parameterName: resolved.parameterName, headerName: resolved.headerName, format: resolved.format, apiName: resolved.apiName, defaultValue: typeof resolved.defaultValue === 'string' ? resolved.defaultValue : undefined, changelogPath
  }
  checkSharedStorage({ bundle: resolved.versions, api: resolved.apiName }, otherApis(fastify))
  Object.defineProperty(decoration, kToolFacts, { value: facts })
  Object.defineProperty(decoration, kVersionerState, { value: state })
  fastify.decorate('versioner', decoration)
  releaseStorageOnClose(fastify, state)
  recordVersionedApi(fastify)
  decorateRequests(fastify, resolved)
  const routingPicks = resolved.asyncPicking ? new RoutingPicks(resolved, fastify) : undefined
  addVersionConstraint(fastify, state.constraint, resolved, segments, routingPicks)
  state.logsVersion = loggerEnabled(fastify)
  if (state.logsVersion) {
    bindVersionInChildLoggers(fastify, routingPicks === undefined
      ? (request) => versionFromRawRequest(request, resolved, segments, true)
      : (request) => versionPickedBeforeRouting(request, resolved))
  }
  // The versioner's onRoute hook comes before @fastify/swagger's: the documents see the routes as versioned.
  fastify.addHook('onRoute', createRouteObserver(state, resolved, segments, routingPicks, fastify) as never)
  fastify.addHook('onReady', function versionerOnReady (done) {
    try {
      checkMethods(state, fastify.supportedMethods)
      if (state.startupError !== undefined) throw state.startupError
      webhooks.seal()
      for (const webhook of webhooks.list()) webhook.timeline = webhookTimeline(webhook, state.log, state.options.retiring)
      checkWebhookNames(webhooks.list(), state.generation.levels)
      for (const check of [checkRelativeReferences, checkUsage, checkInstructionUsage, checkComponentNames]) check(state, webhooks.list())
      checkFieldInstructions(state, appAjvSetup(fastify))
      if (resolved.captureExchanges !== undefined) warnUndeclaredPointers(state, resolved.captureExchanges.redaction.pointers, webhooks.list())
      state.ready = true
      logServedVersions(fastify, resolved, docsOptions)
      done()
    } catch (error) {
      done(error as Error)
    }
  })
  built.documents = await registerDocs(fastify, state, { options: resolved, docs: docsOptions, webhooks, changelog, engine })
}

/**
 * A bundle's version storage, once run, stays in Node's list of storages (visited by every async operation) until
 * disabled: by the last application serving the bundle when it closes, or by its last running request (decision 0139).
 */
function releaseStorageOnClose (fastify: FastifyInstance, state: VersionerState): void {
  const bundle = state.options.versions
  const internals = bundle[kBundleInternals]
  if (!state.storesVersion || internals.customStorage) return
  internals.serving.apps++
  fastify.addHook('onSend', (request, _reply, payload, done) => {
    const stored = requestState(request)
    if (stored !== null) releaseStorage(stored, bundle, 1)
    done(null, payload)
  })
  fastify.addHook('onClose', (_instance, done) => {
    internals.serving.apps--
    releaseStorage(null, bundle, 0)
    done()
  })
}
