/**
 * A helper for applications' own test suites: one request, injected once for every version in which its route
 * exists, with the version in the header or the path as the application expects it. The answers come back by
 * version, so that one test can state every version's contract side by side.
 * @module
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { VersionerToolError } from '../core/errors'
import { toolFacts } from './export'
import FindMyWay, { type HTTPMethod, type HTTPVersion } from 'find-my-way'
import { LENIENT_ROUTER, namedVersion, routerOptionsOf, type RouterOptions } from '../serve/version-picking'
import type { ToolFacts } from '../core/symbols'
import type { VersionedRouteInfo } from '../routes/route-table'
import { versionedApis, versionerStateOf, type VersionedApi } from './versioned-apis'
import { releasedNow, type ReleaseSource } from '../serve/release-clock'

/**
 * The request to inject: the same for every version, or built for each version.
 * @example
 * ```ts
 * declare const app: FastifyInstance
 * const request: EveryVersionRequest = (version) => ({ method: 'GET', url: '/users/1', headers: { 'x-api-version': version } })
 * const answers = await injectEveryVersion(app, request)
 * ```
 */
export type EveryVersionRequest = InjectOptions & { url: string } | ((version: string) => InjectOptions & { url: string })

/**
 * Options of {@link injectEveryVersion}.
 * @example
 * ```ts
 * declare const app: FastifyInstance
 * const options: InjectEveryVersionOptions = { versions: ['2000-01-01', '2001-01-01'] }
 * const answers = await injectEveryVersion(app, { method: 'GET', url: '/users/1' }, options)
 * for (const [version, answer] of answers) console.log(version, answer.statusCode)
 * ```
 */
export interface InjectEveryVersionOptions {
  /**
   * Only these versions (default: every version in which the route exists): any value the API accepts (a plain date
   * of a named version, a date between versions), sent as given and answered under the version the API serves it as.
   */
  readonly versions?: readonly string[]
}

/** The route (as one version serves it) answering a request's method and path, if any. */
type RouteFinder = (method: string, path: string) => VersionedRouteInfo | undefined

/** The routers built during one call (by version's routes), with the application's router options. */
interface Finders { readonly options: RouterOptions, readonly built: Map<readonly VersionedRouteInfo[], RouteFinder> }

/**
 * A finder for one version's routes: find-my-way, Fastify's router, with the app's options, holding each route's path
 * in that version, so that catch-alls (`*`), regex and multi-parameter segments match as Fastify matches them, and the
 * most specific route wins. Built once per version.
 */
function routeFinder (routes: readonly VersionedRouteInfo[], options: RouterOptions): RouteFinder {
  const router = FindMyWay<HTTPVersion.V1>(options)
  for (const route of routes) {
    for (const method of route.methods.includes('GET') ? [...route.methods, 'HEAD'] : route.methods) {
      try {
        if (!router.hasRoute(method as HTTPMethod, route.path)) router.on(method as HTTPMethod, route.path, () => {}, route)
      } catch {
        // A method or path find-my-way does not take (Fastify registered it with options of its own): not found here.
      }
    }
  }
  return (method, path) => {
    const found = router.find(method as HTTPMethod, path)
    return found === null ? undefined : found.store as VersionedRouteInfo
  }
}

/** The route of `routes` (one version's) answering the request's method and URL, found by {@link routeFinder}. */
function answeringRoute (finders: Finders, routes: readonly VersionedRouteInfo[], injected: InjectOptions & { url: string }): VersionedRouteInfo | undefined {
  let finder = finders.built.get(routes)
  if (finder === undefined) finders.built.set(routes, finder = routeFinder(routes, finders.options))
  return finder(String(injected.method ?? 'GET').toUpperCase(), splitUrl(injected.url).path)
}

/**
 * The URL a request sent under a path version goes to: the version's segment (escaped) inserted where the route's URL has it,
 * after as many segments of the path as the route's prefix has (a prefix's segments hold no `/`, parameters included).
 * @example
 * ```ts
 * pathVersionUrl({ url: '/api/:version/users' } as VersionedRouteInfo, 'version', '/api/users?limit=2', 'v1') // '/api/v1/users?limit=2'
 * ```
 */
export function pathVersionUrl (route: VersionedRouteInfo, parameterName: string, url: string, version: string): string {
  const prefix = route.url.slice(0, route.url.indexOf(`/:${parameterName}`))
  const kept = prefix.split('/').length
  const { path, search } = splitUrl(url)
  const segments = path.split('/')
  return [...segments.slice(0, kept), encodeURIComponent(version), ...segments.slice(kept)].join('/') + search
}

/**
 * The versions `versions` name, as the API serves them (the one version reader's rules), each with the value to send:
 * every released version (sent as itself) when `versions` is not given (a preview version only when named). A value
 * the API does not serve is `FST_VERSIONER_TOOL`.
 */
function chosenVersions (app: FastifyInstance, facts: ToolFacts, versions: readonly string[] | undefined, caller: string): Map<string, string> {
  const bundle = app.versioner.versions
  // The application's release clock: a release whose `releasedAt` has not come is not served (its date waterfalls).
  const served = { versions: bundle, releases: (versionerStateOf(app).options as Partial<ReleaseSource>).releases }
  if (versions === undefined) return new Map(releasedNow(served).values.map((version) => [version, version]))
  const chosen = new Map<string, string>()
  for (const value of versions) {
    const picked = namedVersion(value, { ...served, format: facts.format })
    if (!picked.ok) {
      throw new VersionerToolError(`${caller}: '${String(value)}' is not a version this API serves (${picked.reason}); ` +
        `its versions: ${bundle.versionValues.join(', ')}.`)
    }
    if (!chosen.has(picked.version)) chosen.set(picked.version, value)
  }
  return chosen
}

function describeRequest (request: EveryVersionRequest): string {
  return typeof request === 'function' ? 'the request' : `${String(request.method ?? 'GET')} ${request.url}`
}

/**
 * The versioned API whose routes answer the request: the application's only one, else the one with a route for its
 * method and path in some version (`FST_VERSIONER_TOOL` when none or several do).
 */
function apiAnswering (app: FastifyInstance, request: EveryVersionRequest, finders: Finders, caller: string): VersionedApi {
  const apis = versionedApis(app)
  if (apis.length === 1) return apis[0]
  const answering = apis.filter(({ context }) => {
    const injected = typeof request === 'function' ? request(context.versioner.versions.versionValues[0]) : request
    return [...context.versioner.routes.values()].some((routes) => answeringRoute(finders, routes, injected) !== undefined)
  })
  if (answering.length === 1) return answering[0]
  throw new VersionerToolError(`${caller}: ${answering.length === 0 ? 'no versioned API' : 'several versioned APIs'} of the ` +
    `application (${apis.map((api) => api.name).join(', ')}) ${answering.length === 0 ? 'answers' : 'answer'} ${describeRequest(request)}` +
    `${answering.length === 0 ? ' in any version' : '; pass the context of the one you mean'}.`)
}

function splitUrl (url: string): { path: string, search: string } {
  const index = url.indexOf('?')
  return index === -1 ? { path: url, search: '' } : { path: url.slice(0, index), search: url.slice(index) }
}

/** One request as one version's route answers it: the version, its route there, and the request to inject for it. */
export interface VersionRequest {
  readonly version: string
  readonly route: VersionedRouteInfo
  readonly injected: InjectOptions & { url: string }
}

/**
 * `request` as every version in which a route answers its method and URL takes it (newest first): the version in
 * the version header, or in the path for path versions (`caller` names the helper in errors). No request is sent; a request built for each version is
 * built when its turn comes, so that it may read what the versions before it did.
 * @example
 * ```ts
 * const [newest] = requestsOfEveryVersion(app, { method: 'GET', url: '/users/1' })
 * await app.inject(newest.injected)
 * ```
 */
export function * requestsOfEveryVersion (
  app: FastifyInstance, request: EveryVersionRequest, options: InjectEveryVersionOptions = {}, caller = 'injectEveryVersion'
): Generator<VersionRequest> {
  // Matched as the app's router matches paths; a parameter over its length limit still finds the route (which answers 414).
  const finders: Finders = { options: { ...routerOptionsOf(app), allowUnsafeRegex: true, maxParamLength: LENIENT_ROUTER.maxParamLength }, built: new Map() }
  const { context } = apiAnswering(app, request, finders, caller)
  const facts = toolFacts(context)
  const chosen = chosenVersions(context, facts, options.versions, caller)
  for (const [version, routes] of context.versioner.routes) {
    const sent = chosen.get(version)
    if (sent === undefined) continue
    const injected = typeof request === 'function' ? request(version) : request
    const route = answeringRoute(finders, routes, injected)
    if (route === undefined) continue
    const url = facts.location === 'path' ? pathVersionUrl(route, facts.parameterName, injected.url, sent) : injected.url
    const headers = facts.location === 'header' ? { ...injected.headers, [facts.parameterName]: sent } : injected.headers
    yield { version, route, injected: { ...injected, url, headers } }
  }
}

/**
 * Injects `request` once for every version in which a route answers its method and URL, and returns the
 * answers by version (newest first). The version goes in the version header, or in the path for path
 * versions. The application must be ready; no port is opened.
 * @example
 * ```ts
 * import { test } from 'tap'
 * declare const app: FastifyInstance // the application, ready
 * test('POST /users in every version', async (t) => {
 *   const answers = await injectEveryVersion(app, (version) => ({
 *     method: 'POST',
 *     url: '/users',
 *     payload: version === '2000-01-01' ? { address: '1 Main St' } : { addresses: ['1 Main St'] }
 *   }))
 *   t.same([...answers.keys()], ['2002-01-01', '2001-01-01', '2000-01-01'])
 *   t.match(answers.get('2000-01-01')?.json(), { address: '1 Main St' })
 * })
 * ```
 */
export async function injectEveryVersion (
  app: FastifyInstance, request: EveryVersionRequest, options: InjectEveryVersionOptions = {}
): Promise<Map<string, LightMyRequestResponse>> {
  const answers = new Map<string, LightMyRequestResponse>()
  for (const { version, injected } of requestsOfEveryVersion(app, request, options)) answers.set(version, await app.inject(injected))
  if (answers.size === 0 && options.versions === undefined) {
    throw new VersionerToolError(`injectEveryVersion: no versioned route answers ${describeRequest(request)} in any version.`)
  }
  return answers
}
