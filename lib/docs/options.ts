/**
 * Options of the per-version documents and docs pages: URLs (each can be turned off with `null`), asset
 * addresses, the OpenAPI base object, and the deprecated changelog endpoint.
 * @module
 */
import { createRequire } from 'node:module'
import { InvalidOptionError } from '../core/errors'
import { describeValue } from '../core/json-schema'
import type { ServeOptions } from '../serve/serve-options'

/** What the documents and their routes need from the plugin options: where the version travels, and its parameter's words. */
export interface DocsVersionOptions extends Pick<ServeOptions, 'versions' | 'location' | 'format' | 'parameterName' | 'headerName'> {
  readonly apiVersionTitle: string | undefined
  readonly apiVersionDescription: string | undefined
}

/** The OpenAPI fields given to `@fastify/swagger` for every document (`info.version` is set per version). */
export interface OpenApiBase {
  info?: { title?: string, description?: string, termsOfService?: string, contact?: Record<string, unknown>, license?: Record<string, unknown>, [key: string]: unknown }
  servers?: Array<{ url: string, description?: string, variables?: Record<string, unknown> }>
  tags?: Array<{ name: string, description?: string, externalDocs?: Record<string, unknown> }>
  components?: { securitySchemes?: Record<string, unknown>, [key: string]: unknown }
  security?: Array<Record<string, string[]>>
  externalDocs?: { url: string, description?: string }
  [extension: `x-${string}`]: unknown
}

/** Options of the documents and docs pages (part of the plugin's options). */
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
  /** ReDoc's standalone bundle. Default: served locally when the `redoc` package is installed, else its CDN. */
  redocJsUrl?: string
  /** The ReDoc page's favicon. Default: the docs favicon. */
  redocFaviconUrl?: string
  /** The changelog endpoint (deprecated, still served); `null` turns it off. */
  changelogUrl?: string | null
  /** Whether the changelog endpoint appears in the unversioned document (default `true`). */
  includeChangelogUrlInSchema?: boolean
}

/** The option names of {@link DocsOptions}. */
export const DOCS_OPTION_KEYS: ReadonlySet<string> = new Set(['openapi', 'openapiUrl', 'docsUrl', 'redocUrl', 'swaggerJsUrl', 'swaggerCssUrl',
  'swaggerFaviconUrl', 'redocJsUrl', 'redocFaviconUrl', 'changelogUrl', 'includeChangelogUrlInSchema'])

/** ReDoc's standalone bundle on its CDN, used when the `redoc` package is not installed. */
export const REDOC_CDN = 'https://cdn.redoc.ly/redoc/v2.5.1/bundles/redoc.standalone.js'

/** Documents and pages options after defaults and checks. */
export interface ResolvedDocsOptions {
  readonly openapi: OpenApiBase
  readonly openapiUrl: string | null
  readonly docsUrl: string | null
  readonly redocUrl: string | null
  /** Where the locally served Swagger UI assets live (under the docs URL). */
  readonly swaggerAssetsPrefix: string | null
  readonly swaggerJsUrl: string | null
  readonly swaggerPresetUrl: string | null
  readonly swaggerCssUrl: string | null
  readonly swaggerFaviconUrl: string | null
  readonly redocJsUrl: string
  /** The local file of ReDoc's bundle, when served locally. */
  readonly redocJsFile: string | undefined
  readonly redocFaviconUrl: string | null
  readonly changelogUrl: string | null
  readonly includeChangelogUrlInSchema: boolean
}

function url (name: string, value: unknown, fallback: string | null): string | null {
  if (value === undefined) return fallback
  if (value === null) return null
  if (typeof value !== 'string' || !value.startsWith('/')) {
    throw new InvalidOptionError(`Option '${name}' must be a path starting with '/' or null; got ${describeValue(value)}.`)
  }
  return value.length > 1 ? value.replace(/\/+$/, '') : value
}

function asset (name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || value === '') throw new InvalidOptionError(`Option '${name}' must be a URL string; got ${describeValue(value)}.`)
  return value
}

function localRedoc (): string | undefined {
  try {
    return createRequire(__filename).resolve('redoc/bundles/redoc.standalone.js')
  } catch {
    return undefined
  }
}

/**
 * Swagger UI's standalone preset (its topbar holds the version switcher): next to a `swagger-ui-bundle.js`,
 * else the locally served one.
 */
function presetUrl (bundle: string | null, local: string | null): string | null {
  if (bundle === null) return null
  return /swagger-ui-bundle\.js(\?.*)?$/.test(bundle) ? bundle.replace(/swagger-ui-bundle\.js(\?.*)?$/, 'swagger-ui-standalone-preset.js$1') : local
}

/** Checks the documents' options and fills in defaults. */
export function resolveDocsOptions (options: DocsOptions): ResolvedDocsOptions {
  if (options.openapi !== undefined && (typeof options.openapi !== 'object' || options.openapi === null)) {
    throw new InvalidOptionError(`Option 'openapi' must be an object (info, servers, tags, components…); got ${describeValue(options.openapi)}.`)
  }
  const openapiUrl = url('openapiUrl', options.openapiUrl, '/openapi.json')
  // The pages read the documents: without documents, there are no pages.
  const docsUrl = openapiUrl === null ? null : url('docsUrl', options.docsUrl, '/docs')
  const redocUrl = openapiUrl === null ? null : url('redocUrl', options.redocUrl, '/redoc')
  const prefix = docsUrl ?? redocUrl
  const swaggerAssetsPrefix = prefix === null ? null : `${prefix === '/' ? '' : prefix}/swagger-ui`
  const local = (file: string): string | null => swaggerAssetsPrefix === null ? null : `${swaggerAssetsPrefix}/static/${file}`
  const swaggerJsUrl = asset('swaggerJsUrl', options.swaggerJsUrl) ?? local('swagger-ui-bundle.js')
  const redocFile = asset('redocJsUrl', options.redocJsUrl) === undefined ? localRedoc() : undefined
  const redocBase = redocUrl === null ? '' : redocUrl === '/' ? '' : redocUrl
  if (options.includeChangelogUrlInSchema !== undefined && typeof options.includeChangelogUrlInSchema !== 'boolean') {
    throw new InvalidOptionError(`Option 'includeChangelogUrlInSchema' must be true or false; got ${describeValue(options.includeChangelogUrlInSchema)}.`)
  }
  return {
    openapi: options.openapi ?? {},
    openapiUrl,
    docsUrl,
    redocUrl,
    swaggerAssetsPrefix,
    swaggerJsUrl,
    swaggerPresetUrl: presetUrl(swaggerJsUrl, local('swagger-ui-standalone-preset.js')),
    swaggerCssUrl: asset('swaggerCssUrl', options.swaggerCssUrl) ?? local('swagger-ui.css'),
    swaggerFaviconUrl: asset('swaggerFaviconUrl', options.swaggerFaviconUrl) ?? local('favicon-32x32.png'),
    redocJsUrl: asset('redocJsUrl', options.redocJsUrl) ?? (redocFile === undefined ? REDOC_CDN : `${redocBase}/redoc.standalone.js`),
    redocJsFile: redocFile,
    redocFaviconUrl: asset('redocFaviconUrl', options.redocFaviconUrl) ?? asset('swaggerFaviconUrl', options.swaggerFaviconUrl) ?? local('favicon-32x32.png'),
    changelogUrl: url('changelogUrl', options.changelogUrl, '/changelog'),
    includeChangelogUrlInSchema: options.includeChangelogUrlInSchema ?? true
  }
}
