/**
 * Options of the per-version documents and docs pages.
 * @module
 */
import type { onRequestHookHandler, preHandlerHookHandler } from 'fastify'
import { InvalidOptionError } from '../core/errors'
import { describeValue } from '../core/json-schema'
import type { ServeOptions } from '../serve/serve-options'

/** What the documents and their routes need from the plugin options: where the version travels, and its parameter's words. */
export interface DocsVersionOptions extends Pick<ServeOptions, 'versions' | 'releases' | 'location' | 'format' | 'parameterName' | 'headerName' | 'defaultValue'> {
  readonly apiVersionTitle: string | undefined
  readonly apiVersionDescription: string | undefined
}

/**
 * The OpenAPI fields given to `@fastify/swagger` for every document (`info.version` is set per version).
 * @example
 * ```ts
 * const openapi: OpenApiBase = { info: { title: 'Users API' }, servers: [{ url: 'https://api.example.com' }] }
 * const options: DocsOptions = { openapi }
 * ```
 */
export interface OpenApiBase {
  info?: { title?: string, description?: string, termsOfService?: string, contact?: Record<string, unknown>, license?: Record<string, unknown>, [key: string]: unknown }
  servers?: Array<{ url: string, description?: string, variables?: Record<string, unknown> }>
  tags?: Array<{ name: string, description?: string, externalDocs?: Record<string, unknown> }>
  components?: { securitySchemes?: Record<string, unknown>, [key: string]: unknown }
  security?: Array<Record<string, string[]>>
  externalDocs?: { url: string, description?: string }
  [extension: `x-${string}`]: unknown
}

/**
 * Hooks run before every documentation route ({@link DocsOptions.uiHooks}), one function or an array each.
 * @example
 * ```ts
 * const uiHooks: DocsHooks = {
 *   onRequest: async (request, reply) => { if (request.headers.authorization === undefined) await reply.code(401).send() }
 * }
 * ```
 */
export interface DocsHooks {
  onRequest?: onRequestHookHandler | onRequestHookHandler[]
  preHandler?: preHandlerHookHandler | preHandlerHookHandler[]
}

/**
 * Options of the documents and docs pages (part of the plugin's options).
 * @example
 * ```ts
 * declare const app: FastifyInstance, versions: VersionBundle
 * const docs: DocsOptions = { openapi: { info: { title: 'Users API' } }, docsUrl: '/reference' }
 * await app.register(fastifyVersioner, { versions, ...docs })
 * ```
 */
export interface DocsOptions {
  /** The OpenAPI base object (`info`, `servers`, `tags`, `components.securitySchemes`…). */
  openapi?: OpenApiBase
  /** Where each version's OpenAPI document is served (`?version=V` or the version header); `null` turns it off. */
  openapiUrl?: string | null
  /** The docs page (version list; `?version=V`: Swagger UI with a version switcher); `null` turns it off. */
  docsUrl?: string | null
  /** The ReDoc page (`?version=V`); `null` turns it off. */
  redocUrl?: string | null
  /** Swagger UI's `swagger-ui-bundle.js` (the standalone preset is read next to it). Default: served locally. */
  swaggerJsUrl?: string
  /** Swagger UI's CSS. Default: served locally. */
  swaggerCssUrl?: string
  /** The docs pages' favicon. Default: served locally. */
  swaggerFaviconUrl?: string
  /** ReDoc's standalone bundle. Default: the copy of ReDoc shipped with the package, served locally. */
  redocJsUrl?: string
  /** The ReDoc page's favicon. Default: the docs favicon. */
  redocFaviconUrl?: string
  /** The changelog endpoint (deprecated, still served); `null` turns it off. */
  changelogUrl?: string | null
  /** Whether the changelog endpoint appears in the unversioned document (default `true`). */
  includeChangelogUrlInSchema?: boolean
  /**
   * Swagger UI settings, given to `SwaggerUIBundle` (as `@fastify/swagger-ui`'s `uiConfig`): JSON values only,
   * e.g. `{ docExpansion: 'none', persistAuthorization: true, tryItOutEnabled: true }`. The plugin sets
   * `urls`, `urls.primaryName` and `dom_id` itself.
   */
  uiConfig?: Record<string, unknown>
  /** Swagger UI's OAuth2 settings, given to `ui.initOAuth()` (`clientId`, `scopes`, `usePkceWithAuthorizationCodeGrant`…). */
  initOAuth?: Record<string, unknown>
  /**
   * Hooks run before every documentation route: the documents, the docs and ReDoc pages, their assets, the
   * OAuth2 redirect page and the changelog, e.g. an `onRequest` that answers 401 without a login.
   */
  uiHooks?: DocsHooks
}

/** The option names of {@link DocsOptions}. */
export const DOCS_OPTION_KEYS: ReadonlySet<string> = new Set(['openapi', 'openapiUrl', 'docsUrl', 'redocUrl', 'swaggerJsUrl', 'swaggerCssUrl',
  'swaggerFaviconUrl', 'redocJsUrl', 'redocFaviconUrl', 'changelogUrl', 'includeChangelogUrlInSchema', 'uiConfig', 'initOAuth', 'uiHooks'])

/** The Swagger UI settings the plugin sets itself (a `uiConfig` naming one is a start-up error). */
const RESERVED_UI_CONFIG = ['url', 'urls', 'urls.primaryName', 'dom_id', 'domNode', 'spec', 'configUrl', 'presets', 'plugins']

/** Documents and pages options after defaults and checks. */
export interface ResolvedDocsOptions {
  readonly openapi: OpenApiBase
  readonly openapiUrl: string | null
  readonly docsUrl: string | null
  readonly redocUrl: string | null
  /** Where the locally served assets live (`<docs or redoc URL>/assets`). */
  readonly assetsPrefix: string | null
  /** Swagger UI's page, or `null` without the docs page. */
  readonly swaggerUi: SwaggerAssets | null
  readonly swaggerFaviconUrl: string | null
  readonly redocJsUrl: string
  /** Whether the shipped ReDoc bundle is served (no `redocJsUrl`). */
  readonly redocLocal: boolean
  readonly redocFaviconUrl: string | null
  readonly changelogUrl: string | null
  readonly includeChangelogUrlInSchema: boolean
  readonly uiHooks: DocsHooks
}

function url (name: string, value: unknown, fallback: string | null): string | null {
  if (value === undefined) return fallback
  if (value === null) return null
  if (typeof value !== 'string' || !value.startsWith('/')) {
    throw new InvalidOptionError(`Option '${name}' must be a path starting with '/' or null; got ${describeValue(value)}.`)
  }
  return value.length > 1 ? value.replace(/\/+$/, '') : value
}

/** The URL of the upgrade guide under the docs page's. */
export function upgradePath (docsUrl: string): string {
  return `${docsUrl.replace(/\/$/, '')}/upgrade`
}

/**
 * Refuses two documentation routes on one path (Fastify's duplicate-route error names no option): `routes` are the
 * option naming each route and its path (`null`: not served).
 */
function distinctRoutes (routes: ReadonlyArray<readonly [option: string, path: string | null]>): void {
  const taken = new Map<string, string>()
  for (const [option, path] of routes) {
    if (path === null) continue
    const other = taken.get(path)
    if (other !== undefined) {
      throw new InvalidOptionError(`Options ${other} and ${option} both serve GET ${path}: give each documentation route a path of its own, or null to serve none.`)
    }
    taken.set(path, option)
  }
}

function asset (name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || value === '') throw new InvalidOptionError(`Option '${name}' must be a URL string; got ${describeValue(value)}.`)
  return value
}

function isPlainObject (value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/** The path of the first value JSON cannot carry (a function, `undefined`, a symbol, a class instance…). */
function notJson (value: unknown, path: string): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path
  // An array's holes are visited too (as `undefined`).
  const entries = Array.isArray(value) ? [...value.entries()] : isPlainObject(value) ? Object.entries(value) : undefined
  if (entries === undefined) return path
  for (const [key, item] of entries) {
    const found = notJson(item, typeof key === 'number' ? `${path}[${key}]` : `${path}.${key}`)
    if (found !== undefined) return found
  }
  return undefined
}

function jsonObject (name: string, value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return undefined
  if (!isPlainObject(value)) throw new InvalidOptionError(`Option '${name}' must be a plain object of JSON values; got ${describeValue(value)}.`)
  const found = notJson(value, name)
  if (found !== undefined) {
    throw new InvalidOptionError(`Option '${name}' must hold JSON values only (it is sent to the browser); '${found}' is not one.`)
  }
  return value
}

function uiConfig (value: unknown): Record<string, unknown> {
  const config = jsonObject('uiConfig', value) ?? {}
  const reserved = RESERVED_UI_CONFIG.filter((key) => Object.hasOwn(config, key))
  if (reserved.length > 0) {
    throw new InvalidOptionError(`Option 'uiConfig' must not set ${reserved.map((key) => `'${key}'`).join(', ')}: the plugin sets ` +
      `${RESERVED_UI_CONFIG.join(', ')} itself (one document per version, with a version switcher).`)
  }
  return config
}

function uiHooks (value: unknown): DocsHooks {
  if (value === undefined) return {}
  if (!isPlainObject(value)) throw new InvalidOptionError(`Option 'uiHooks' must be an object { onRequest, preHandler }; got ${describeValue(value)}.`)
  for (const [key, hook] of Object.entries(value)) {
    if (key !== 'onRequest' && key !== 'preHandler') {
      throw new InvalidOptionError(`Option 'uiHooks' accepts onRequest and preHandler; got '${key}'.`)
    }
    const hooks: unknown[] = Array.isArray(hook) ? hook : [hook]
    if (hooks.length === 0 || hooks.some((item) => typeof item !== 'function')) {
      throw new InvalidOptionError(`Option 'uiHooks': ${key} must be a hook function or an array of them; got ${describeValue(hook)}.`)
    }
  }
  return value
}

/** What a Swagger UI page loads and starts Swagger UI with. */
export type SwaggerAssets = ReturnType<typeof swaggerUi>

/** Swagger UI's page: its files (given, or under `assets`) and settings; the preset is read beside a given bundle. */
function swaggerUi (options: DocsOptions, assets: string) {
  const js = asset('swaggerJsUrl', options.swaggerJsUrl) ?? `${assets}/swagger-ui-bundle.js`
  const bundle = /swagger-ui-bundle\.js(\?.*)?$/
  return {
    js,
    preset: bundle.test(js) ? js.replace(bundle, 'swagger-ui-standalone-preset.js$1') : `${assets}/swagger-ui-standalone-preset.js`,
    css: asset('swaggerCssUrl', options.swaggerCssUrl) ?? `${assets}/swagger-ui.css`,
    initializer: `${assets}/swagger-initializer.js`,
    oauth2RedirectUrl: `${assets}/oauth2-redirect.html`,
    uiConfig: uiConfig(options.uiConfig),
    initOAuth: jsonObject('initOAuth', options.initOAuth)
  }
}

/**
 * Checks the documents' options and fills in defaults: route URLs are relative to the plugin's context; asset URLs
 * are links, so they start with its `prefix`.
 */
export function resolveDocsOptions (options: DocsOptions, prefix: string): ResolvedDocsOptions {
  if (options.openapi !== undefined && (typeof options.openapi !== 'object' || options.openapi === null)) {
    throw new InvalidOptionError(`Option 'openapi' must be an object (info, servers, tags, components…); got ${describeValue(options.openapi)}.`)
  }
  // Every document's info, and the pages' title: written as text into each page.
  const info: unknown = options.openapi?.info
  if (info !== undefined && (!isPlainObject(info) || (info.title !== undefined && typeof info.title !== 'string'))) {
    throw new InvalidOptionError(`Option 'openapi.info' must be an object whose title is a string (the documents' and pages' title); got ${describeValue(isPlainObject(info) ? info.title : info)}.`)
  }
  const openapiUrl = url('openapiUrl', options.openapiUrl, '/openapi.json')
  // The pages read the documents: without documents, there are no pages.
  const docsUrl = openapiUrl === null ? null : url('docsUrl', options.docsUrl, '/docs')
  const redocUrl = openapiUrl === null ? null : url('redocUrl', options.redocUrl, '/redoc')
  const pagesUrl = docsUrl ?? redocUrl
  const assetsPrefix = pagesUrl === null ? null : `${pagesUrl === '/' ? '' : pagesUrl}/assets`
  const assetsLink = `${prefix}${assetsPrefix ?? ''}`
  const local = (file: string): string | null => assetsPrefix === null ? null : `${assetsLink}/${file}`
  // Checked even without the docs page.
  const swagger = swaggerUi(options, assetsLink)
  const redocJsUrl = asset('redocJsUrl', options.redocJsUrl)
  if (options.includeChangelogUrlInSchema !== undefined && typeof options.includeChangelogUrlInSchema !== 'boolean') {
    throw new InvalidOptionError(`Option 'includeChangelogUrlInSchema' must be true or false; got ${describeValue(options.includeChangelogUrlInSchema)}.`)
  }
  const swaggerFaviconUrl = asset('swaggerFaviconUrl', options.swaggerFaviconUrl) ?? local('favicon-32x32.png')
  const changelogUrl = url('changelogUrl', options.changelogUrl, '/changelog')
  distinctRoutes([['\'openapiUrl\'', openapiUrl], ['\'docsUrl\'', docsUrl], ['\'redocUrl\'', redocUrl], ['\'changelogUrl\'', changelogUrl],
    ['\'docsUrl\' (its upgrade guide)', docsUrl === null ? null : upgradePath(docsUrl)]])
  return {
    openapi: options.openapi ?? {},
    openapiUrl,
    docsUrl,
    redocUrl,
    assetsPrefix,
    swaggerUi: docsUrl === null ? null : swagger,
    swaggerFaviconUrl,
    redocJsUrl: redocJsUrl ?? local('redoc.standalone.js') ?? '',
    redocLocal: redocJsUrl === undefined && redocUrl !== null,
    redocFaviconUrl: asset('redocFaviconUrl', options.redocFaviconUrl) ?? swaggerFaviconUrl,
    changelogUrl,
    includeChangelogUrlInSchema: options.includeChangelogUrlInSchema ?? true,
    uiHooks: uiHooks(options.uiHooks)
  }
}
