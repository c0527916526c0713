/**
 * The docs pages' routes: the version list, a version's Swagger UI or ReDoc page, and the upgrade guide
 * (`GET <docsUrl>/upgrade?from=A&to=B`).
 * @module
 */
import { Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { InvalidUpgradeRangeError } from '../core/request-errors'
import { toIsoDate } from '../core/iso-date'
import { resolveVersion } from '../serve/version-picking'
import { upgradePath, type DocsVersionOptions, type ResolvedDocsOptions } from './options'
import { documentKey, UNVERSIONED, type OpenApiDocuments } from './openapi-documents'
import { allowedPreviews } from '../serve/pick-version'
import { contextFormatter, whyRefused, type SchemaErrorFormatter } from '../serve/error-handling'
import { privateCacheControl } from '../serve/version-headers'
import { notFoundPage, redocPage, swaggerPage, upgradePage, versionListPage, type PageContext, type VersionEntry } from './pages'
import type { UpgradeGuides } from './upgrade-guide'
import { releasedNow } from '../serve/release-clock'
import { revalidated, sendText, sentText, type SentText } from './sent-texts'

/** The `?version=` and `?channel=` query of the documentation routes (TypeBox, for a TypeBox validator compiler too). */
export const VersionQuery = Type.Object({
  version: Type.Optional(Type.String({ description: 'An API version, or unversioned.' })),
  channel: Type.Optional(Type.Union([Type.Literal('release'), Type.Literal('preview')], {
    description: 'preview: list and show the preview versions the request may use too.'
  }))
})

/**
 * The `schemaErrorFormatter` of a documentation route: the application's message for a query the route's schema
 * refuses (a value given twice, an unknown channel), followed by what the route accepts.
 * @example
 * ```ts
 * fastify.get('/docs', { schemaErrorFormatter: queryErrors(fastify, () => 'Ask for ?version=<version> once.'), schema: { querystring: VersionQuery } }, handler)
 * ```
 */
export function queryErrors (fastify: FastifyInstance, accepted: () => string): SchemaErrorFormatter {
  return (errors, dataVar) => {
    const error = contextFormatter(fastify)(errors, dataVar)
    error.message = `${error.message}. ${accepted()}`
    return error
  }
}

/**
 * What a {@link VersionQuery} accepts: the versions served now (and `unversioned` when it has a document).
 * @example
 * ```ts
 * const accepted = versionQueryAccepted(options, documents)
 * accepted() // 'Ask for ?version=<version> once, one of 2001-01-01, 2000-01-01, unversioned; ?channel=…'
 * ```
 */
export function versionQueryAccepted (options: DocsVersionOptions, documents: OpenApiDocuments): () => string {
  return () => {
    const values = [...releasedNow(options).values, ...(documents.document(UNVERSIONED) === undefined ? [] : [UNVERSIONED])]
    return `Ask for ?version=<version> once, one of ${values.join(', ')}; ?channel=release or ?channel=preview at most once.`
  }
}

/**
 * Marks every answer asked with `?channel=preview` `Cache-Control: private`, whatever `access` says, so the header
 * tells nothing ([decision 0066](../../docs/decisions/0066-preview-answers-stay-private.md)).
 */
export function privateForPreviewChannel (request: FastifyRequest, reply: FastifyReply): boolean {
  if ((request.query as { channel?: unknown } | undefined)?.channel !== 'preview') return false
  reply.header('cache-control', privateCacheControl(reply.getHeader('cache-control') ?? 'no-cache'))
  return true
}

/** What a documentation request is shown: with `?channel=preview`, the previews whose `access` allows it; the releases served now. */
export async function askedVersions (request: FastifyRequest, reply: FastifyReply, options: DocsVersionOptions): Promise<{ previewChannel: boolean, previews: string[], released: readonly string[] }> {
  const previewChannel = privateForPreviewChannel(request, reply)
  return { previewChannel, previews: previewChannel ? await allowedPreviews(request, options) : [], released: releasedNow(options).values }
}

type Render = (context: PageContext, list: VersionEntry[], current: VersionEntry) => string

/** The context of a page asked with `?channel=preview` (its links keep it), else `context` itself. */
function askedContext (context: PageContext, previewChannel: boolean): PageContext {
  return previewChannel ? { ...context, channel: 'preview' } : context
}

/** Registers the docs page, its upgrade guide and the ReDoc page (those not turned off). */
export function registerPages (
  fastify: FastifyInstance,
  options: DocsVersionOptions,
  docs: ResolvedDocsOptions,
  documents: OpenApiDocuments,
  guides: UpgradeGuides
): void {
  const openapiUrl = docs.openapiUrl
  if (docs.assetsPrefix === null || openapiUrl === null) return
  // Links in pages start with the context's prefix (an API registered under `/a` links to `/a/openapi.json`).
  const link = <T extends string | null>(url: T): T => (url === null ? url : `${fastify.prefix}${url}`) as T
  // Read on the first page request (the unversioned document exists only once the application is ready).
  let unversioned: VersionEntry[] | undefined
  // The versions served now (a release whose releasedAt has not come is absent) and the previews the request may see;
  // the guide of every released version older than the newest release leads to it.
  const entries = (previews: readonly string[], released: readonly string[], latest = released[0]): VersionEntry[] => [
    ...options.versions.versions.filter((version) => released.includes(version.value) || previews.includes(version.value)).map((version) => ({
      key: version.value,
      label: version.value,
      ...(version.channel === 'preview' ? { preview: true } : {}),
      ...(version.deprecatedAt === undefined ? {} : { deprecatedAt: toIsoDate(version.deprecatedAt) }),
      ...(version.sunsetAt === undefined ? {} : { sunsetAt: toIsoDate(version.sunsetAt) }),
      ...(version.link === undefined ? {} : { link: version.link }),
      ...(version.brownouts.length === 0 ? {} : { brownouts: version.brownouts.map(({ start, end }) => ({ start: start.toISOString(), end: end.toISOString() })) }),
      ...(version.channel !== 'release' || version.value === latest ? {} : { upgradeTo: latest })
    })),
    ...(unversioned ??= documents.document(UNVERSIONED) === undefined ? [] : [{ key: UNVERSIONED, label: UNVERSIONED }])
  ]
  const context: PageContext = {
    title: docs.openapi.info?.title ?? 'API',
    openapiUrl: link(openapiUrl),
    docsUrl: link(docs.docsUrl),
    redocUrl: link(docs.redocUrl),
    faviconUrl: docs.swaggerFaviconUrl,
    stylesheetUrl: `${link(docs.assetsPrefix)}/docs.css`,
    upgradeUrl: docs.docsUrl === null ? null : link(upgradePath(docs.docsUrl))
  }
  // The list ('') and each version's page are rendered once while the same versions are served; a 404 page is not kept.
  const schemaErrorFormatter = queryErrors(fastify, versionQueryAccepted(options, documents))
  const route = (url: string, pageContext: PageContext, render: Render): void => {
    const rendered = new Map<string, SentText>()
    let renderedFor: readonly string[] | undefined
    fastify.get(url, { ...docs.uiHooks, schemaErrorFormatter, schema: { hide: true, querystring: VersionQuery } }, async (request, reply) => {
      const { previewChannel, previews, released } = await askedVersions(request, reply, options)
      if (released !== renderedFor) {
        rendered.clear()
        renderedFor = released
      }
      const requested = (request.query as { version?: string }).version ?? ''
      const key = requested === '' ? '' : documentKey(requested, options, previews)
      // A page asked with ?channel=preview links with it, whatever previews it lists.
      const cacheKey = previewChannel ? [key, 'channel=preview', ...previews].join('\n') : key
      const known = rendered.get(cacheKey)
      if (known !== undefined) return sendText(request, reply, known, HTML)
      const list = entries(previews, released)
      const asked = askedContext(pageContext, previewChannel)
      const current = list.find((entry) => entry.key === key)
      if (key !== '' && current === undefined) {
        return revalidated(reply).code(404).type(HTML).header('x-content-type-options', 'nosniff').send(notFoundPage(asked, key, list, whyRefused(key, options)))
      }
      const page = sentText(current === undefined ? versionListPage(asked, list) : render(asked, list, current))
      rendered.set(cacheKey, page)
      return sendText(request, reply, page, HTML)
    })
  }

  const swaggerUi = docs.swaggerUi
  if (docs.docsUrl !== null && swaggerUi !== null) {
    route(docs.docsUrl, context, (asked, list, current) => swaggerPage(asked, swaggerUi, list, current))
    registerUpgradeGuide(fastify, { url: upgradePath(docs.docsUrl), link: link(upgradePath(docs.docsUrl)), context }, options, guides, docs.uiHooks)
  }
  if (docs.redocUrl !== null) {
    const redocContext = { ...context, faviconUrl: docs.redocFaviconUrl }
    route(docs.redocUrl, redocContext, (asked, list, current) => redocPage(asked, docs.redocJsUrl, list, current))
  }
}

const HTML = 'text/html; charset=utf-8'

/** The upgrade guide's query. */
const UpgradeQuery = Type.Object({
  from: Type.Optional(Type.String({ description: 'The version a client uses now (the oldest version when left out).' })),
  to: Type.Optional(Type.String({ description: 'A newer version it upgrades to (the newest release when left out).' })),
  format: Type.Optional(Type.String({ description: '`json` for the data.' }))
})

/** What the upgrade guide's query accepts, while `offered` (newest first) are offered to the request. */
function rangeAccepted (offered: readonly string[]): string {
  return `Ask for ?from=<version>&to=<newer version> (add &format=json for the data), with two of the versions ${offered.join(', ')} (newest first).`
}

/**
 * The versions a guide request may name, newest first: those served now, and the previews it was allowed with
 * `?channel=preview` ([decision 0276](../../docs/decisions/0276-upgrade-guides-lead-to-allowed-previews.md)).
 */
function offeredVersions (options: DocsVersionOptions, released: readonly string[], previews: readonly string[]): readonly string[] {
  return previews.length === 0 ? released : options.versions.versions.map((version) => version.value).filter((value) => released.includes(value) || previews.includes(value))
}

/**
 * The two versions of a request (of `offered`, newest first), or the 400 saying what is accepted; one left out is
 * the oldest release (`from`) or the newest (`to`): `<docsUrl>/upgrade` alone is the guide of every change.
 */
function range (query: { from?: string, to?: string, format?: string }, options: DocsVersionOptions, versions: { offered: readonly string[], released: readonly string[] }): { from: string, to: string } {
  const { offered, released } = versions
  if (query.format !== undefined && query.format !== 'json') throw new InvalidUpgradeRangeError(`Unknown format '${query.format}': the only format is json. ${rangeAccepted(offered)}`)
  const pick = (name: 'from' | 'to'): string => {
    const value = query[name]
    if (value === undefined && released.length > 0) return name === 'to' ? released[0] : released[released.length - 1]
    const picked = resolveVersion(value, options)
    // A preview offered is named only by its whole value, as everywhere.
    if (!picked.ok && value !== undefined && offered.includes(value)) return value
    if (!picked.ok) {
      const why = value === undefined || value === '' ? undefined : whyRefused(value, options)
      throw new InvalidUpgradeRangeError(value === undefined || value === ''
        ? `Missing '${name}'. ${rangeAccepted(offered)}`
        : `'${name}' ${JSON.stringify(value)} is not a version this API serves${why === undefined ? '.' : `: ${why}`} ${rangeAccepted(offered)}`)
    }
    return picked.version
  }
  const from = pick('from')
  const to = pick('to')
  if (offered.indexOf(from) <= offered.indexOf(to)) {
    // A value served as another version (a plain date, one before a release to come) says which.
    const shown = (name: 'from' | 'to', version: string): string => query[name] === version
      ? `'${name}' (${version})`
      : query[name] === undefined ? `'${name}' (${version}, the ${name === 'to' ? 'newest release' : 'oldest version'} when left out)` : `'${name}' (${JSON.stringify(query[name])}, served as ${version})`
    throw new InvalidUpgradeRangeError(`${shown('from', from)} must be older than ${shown('to', to)}. ${rangeAccepted(offered)}`)
  }
  return { from, to }
}

/** How many upgrade guides (ranges) are kept built, the latest asked for. */
const KEPT_GUIDES = 16

/** Registers `GET <url>` (the docs page's URL + `/upgrade`). */
function registerUpgradeGuide (
  fastify: FastifyInstance,
  at: { readonly url: string, readonly link: string, readonly context: PageContext },
  options: DocsVersionOptions,
  guides: UpgradeGuides,
  hooks: ResolvedDocsOptions['uiHooks']
): void {
  // Each guide is built on its first request, with its page (which lists the versions served when it is built). The
  // latest ranges asked for are kept: clients can ask for any of n² ranges, megabytes each with a long history.
  const built = new Map<string, Promise<{ json: SentText, page: SentText }>>()
  let builtFor: readonly string[] | undefined
  const schemaErrorFormatter = queryErrors(fastify, () => rangeAccepted(releasedNow(options).values))
  fastify.get(at.url, { ...hooks, schemaErrorFormatter, schema: { hide: true, querystring: UpgradeQuery } }, async (request: FastifyRequest, reply: FastifyReply) => {
    const { previewChannel, previews, released } = await askedVersions(request, reply, options)
    const query = request.query as { from?: string, to?: string, format?: string }
    if (released !== builtFor) {
      built.clear()
      builtFor = released
    }
    const offered = offeredVersions(options, released, previews)
    const { from, to } = range(query, options, { offered, released })
    // The page lists the versions offered and links with the channel it was asked with.
    const key = [from, to, ...(previewChannel ? ['channel=preview', ...previews] : [])].join('\n')
    let known = built.get(key)
    built.delete(key)
    if (known === undefined) {
      known = guides.guide(from, to).then((guide) => ({
        json: sentText(JSON.stringify(guide)), page: sentText(upgradePage(askedContext(at.context, previewChannel), guide, offered, at.link))
      }))
      if (built.size >= KEPT_GUIDES) built.delete(built.keys().next().value as string)
    }
    built.set(key, known)
    const { json, page } = await known
    return query.format === 'json' ? sendText(request, reply, json, 'application/json; charset=utf-8') : sendText(request, reply, page, HTML)
  })
}
