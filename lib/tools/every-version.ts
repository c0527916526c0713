/**
 * A helper for applications' own test suites: one request, injected once for every version in which its route
 * exists, with the version in the header or the path as the application expects it. The answers come back by
 * version, so that one test can state every version's contract side by side.
 * @module
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { VersionerToolError } from '../core/errors'
import { toolFacts } from './export'
import { namedVersion } from '../serve/version-picking'
import type { ToolFacts } from '../core/symbols'
import type { VersionedRouteInfo } from '../routes/route-table'
import { versionedApis, type VersionedApi } from './versioned-apis'

/** The request to inject: the same for every version, or built for each version. */
export type EveryVersionRequest = InjectOptions & { url: string } | ((version: string) => InjectOptions & { url: string })

/** Options of {@link injectEveryVersion}. */
export interface InjectEveryVersionOptions {
  /**
   * Only these versions (default: every version in which the route exists): any value the API accepts (a plain date
   * of a named version, a date between versions), sent as given and answered under the version the API serves it as.
   */
  readonly versions?: readonly string[]
}

function escapeRegExp (text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** A matcher for a Fastify path (`/users/:userId`, `/files/*`): the parameter values of a matching path, or null. */
function pathMatcher (path: string): (candidate: string) => Map<string, string> | null {
  const names: string[] = []
  const source = path.split('/').map((segment) => {
    if (segment === '*') {
      names.push('*')
      return '(.*)'
    }
    return segment.replace(/:([A-Za-z0-9_-]+)(\([^)]*\))?|([^:]+)/g, (whole, name: string | undefined, pattern: string | undefined, text: string | undefined) => {
      if (name === undefined) return escapeRegExp(text ?? whole)
      names.push(name)
      return pattern ?? '([^/]+)'
    })
  }).join('/')
  const regex = new RegExp(`^${source}/?$`)
  return (candidate) => {
    const match = regex.exec(candidate)
    if (match === null) return null
    return new Map(names.map((name, index) => [name, match[index + 1]]))
  }
}

/**
 * The versions `versions` name, as the API serves them (the one version reader's rules), each with the value to send:
 * every released version (sent as itself) when `versions` is not given (a preview version only when named). A value
 * the API does not serve is `FST_VERSIONER_TOOL`.
 */
function chosenVersions (app: FastifyInstance, facts: ToolFacts, versions: readonly string[] | undefined): Map<string, string> {
  const bundle = app.versioner.versions
  if (versions === undefined) return new Map(bundle.releasedValues.map((version) => [version, version]))
  const chosen = new Map<string, string>()
  for (const value of versions) {
    const picked = namedVersion(value, { versions: bundle, format: facts.format })
    if (!picked.ok) {
      throw new VersionerToolError(`injectEveryVersion: '${String(value)}' is not a version this API serves (${picked.reason}); ` +
        `its versions: ${bundle.versionValues.join(', ')}.`)
    }
    if (!chosen.has(picked.version)) chosen.set(picked.version, value)
  }
  return chosen
}

/** True when a route (as one version serves it) answers the request's method and path. */
function routeAnswers (route: VersionedRouteInfo, injected: InjectOptions & { url: string }): boolean {
  const method = String(injected.method ?? 'GET').toUpperCase()
  if (!route.methods.includes(method as never) && !(method === 'HEAD' && route.methods.includes('GET'))) return false
  return pathMatcher(route.path)(splitUrl(injected.url).path) !== null
}

function describeRequest (request: EveryVersionRequest): string {
  return typeof request === 'function' ? 'the request' : `${String(request.method ?? 'GET')} ${request.url}`
}

/**
 * The versioned API whose routes answer the request: the application's only one, else the one with a route for its
 * method and path in some version (`FST_VERSIONER_TOOL` when none or several do).
 */
function apiAnswering (app: FastifyInstance, request: EveryVersionRequest): VersionedApi {
  const apis = versionedApis(app)
  if (apis.length === 1) return apis[0]
  const answering = apis.filter(({ context }) => {
    const injected = typeof request === 'function' ? request(context.versioner.versions.versionValues[0]) : request
    return [...context.versioner.routes.values()].some((routes) => routes.some((route) => routeAnswers(route, injected)))
  })
  if (answering.length === 1) return answering[0]
  throw new VersionerToolError(`injectEveryVersion: ${answering.length === 0 ? 'no versioned API' : 'several versioned APIs'} of the ` +
    `application (${apis.map((api) => api.name).join(', ')}) ${answering.length === 0 ? 'answers' : 'answer'} ${describeRequest(request)}` +
    `${answering.length === 0 ? ' in any version' : '; pass the context of the one you mean'}.`)
}

function splitUrl (url: string): { path: string, search: string } {
  const index = url.indexOf('?')
  return index === -1 ? { path: url, search: '' } : { path: url.slice(0, index), search: url.slice(index) }
}

/**
 * Injects `request` once for every version in which a route answers its method and URL, and returns the
 * answers by version (newest first). The version goes in the version header, or in the path for path
 * versions. The application must be ready; no port is opened.
 * @example
 * ```ts
 * const answers = await injectEveryVersion(app, (version) => ({
 *   method: 'POST',
 *   url: '/users',
 *   payload: version === '2000-01-01' ? { address: '1 Main St' } : { addresses: ['1 Main St'] }
 * }))
 * t.same([...answers.keys()], ['2002-01-01', '2001-01-01', '2000-01-01'])
 * t.match(answers.get('2000-01-01')?.json(), { address: '1 Main St' })
 * ```
 */
export async function injectEveryVersion (
  app: FastifyInstance, request: EveryVersionRequest, options: InjectEveryVersionOptions = {}
): Promise<Map<string, LightMyRequestResponse>> {
  const { context } = apiAnswering(app, request)
  const facts = toolFacts(context)
  const routesByVersion = context.versioner.routes
  const chosen = chosenVersions(context, facts, options.versions)
  const answers = new Map<string, LightMyRequestResponse>()
  for (const [version, routes] of routesByVersion) {
    const sent = chosen.get(version)
    if (sent === undefined) continue
    const injected = typeof request === 'function' ? request(version) : request
    const { path, search } = splitUrl(injected.url)
    const route = routes.find((candidate) => routeAnswers(candidate, injected))
    if (route === undefined) continue
    let url = injected.url
    if (facts.location === 'path') {
      const params = pathMatcher(route.path)(path) as Map<string, string>
      params.set(facts.parameterName, sent)
      url = route.url.split('/').map((segment) => {
        if (segment === '*') return params.get('*') ?? ''
        return segment.replace(/:([A-Za-z0-9_-]+)(\([^)]*\))?/g, (whole, name: string) => params.get(name) ?? whole)
      }).join('/') + search
    }
    const headers = facts.location === 'header' ? { ...injected.headers, [facts.parameterName]: sent } : injected.headers
    answers.set(version, await app.inject({ ...injected, url, headers }))
  }
  if (answers.size === 0 && options.versions === undefined) {
    throw new VersionerToolError(`injectEveryVersion: no versioned route answers ${describeRequest(request)} in any version.`)
  }
  return answers
}
