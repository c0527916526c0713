/**
 * Stage `lib/docs/`: the per-version OpenAPI documents, docs pages and changelog.
 *
 * The routes the plugin adds for documentation: `GET /openapi.json` (a version's document, by `?version=`
 * or the version header; the latest version's without either), `GET /docs` (the version list, or Swagger UI for `?version=`), `GET /redoc`, the
 * locally served assets, and `GET /changelog`. All are unversioned and hidden from the documents, except the
 * changelog when `includeChangelogUrlInSchema` is set.
 * @module
 */
import fastifySwaggerUi from '@fastify/swagger-ui'
import { createReadStream } from 'node:fs'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { buildChangelog, ChangelogResource, type Changelog } from './changelog'
import type { DocsVersionOptions, ResolvedDocsOptions } from './options'
import { notFoundPage, redocPage, swaggerPage, versionListPage, type PageContext, type VersionEntry } from './pages'
import { OpenApiVersionNotFoundError } from '../core/errors'
import { toIsoDate } from '../core/iso-date'
import { OpenApiDocuments, UNVERSIONED } from './openapi-documents'
import { processWarning } from '../core/warnings'
import type { VersionerState } from '../routes/versioner-state'
import type { Webhooks } from '../routes/webhooks'
import { readRequestedVersion } from '../serve/version-picking'

const VersionQuery = {
  type: 'object',
  properties: { version: { type: 'string', description: 'An API version, or unversioned.' } }
} as const

/** Registers the documents and the documentation routes; returns the documents (or `undefined` when off). */
export async function registerDocs (
  fastify: FastifyInstance,
  state: VersionerState,
  options: DocsVersionOptions,
  docs: ResolvedDocsOptions,
  webhooks: Webhooks,
  changelog: () => Changelog
): Promise<OpenApiDocuments | undefined> {
  const documents = docs.openapiUrl === null ? undefined : new OpenApiDocuments(state, options, docs, webhooks)
  // The documents' @fastify/swagger instances must be registered before any route they should see.
  await documents?.register(fastify)
  if (docs.changelogUrl !== null) {
    fastify.get(docs.changelogUrl, {
      schema: {
        hide: !docs.includeChangelogUrlInSchema,
        deprecated: true,
        summary: 'The changes of every API version (deprecated)',
        description: 'Deprecated: generated from the version changes; maintain and publish your own changelog instead. Still served.',
        response: { 200: ChangelogResource }
      }
    }, async () => {
      processWarning.emit('FSTVRSDEP002')
      return changelog()
    })
  }
  if (documents === undefined || docs.openapiUrl === null) return undefined
  const openapiUrl = docs.openapiUrl

  // `?version=`, else the version header (the answer then depends on it: `Vary`), else the latest version.
  const requestedKey = (request: FastifyRequest, reply: FastifyReply): string => {
    const query = request.query as { version?: string }
    if (typeof query.version === 'string' && query.version !== '') return query.version
    if (options.location !== 'header') return options.versions.versionValues[0]
    const vary = reply.getHeader('vary')
    reply.header('vary', vary === undefined || vary === '' ? options.parameterName : `${String(vary)}, ${options.parameterName}`)
    return readRequestedVersion(request, options) ?? options.versions.versionValues[0]
  }

  // A document does not change once built: each is serialized once (unknown keys are not remembered).
  const texts = new Map<string, string>()
  const documentText = (key: string): string | undefined => {
    let text = texts.get(key)
    if (text === undefined) {
      const document = documents.document(fastify, key)
      if (document === undefined) return undefined
      text = JSON.stringify(document)
      texts.set(key, text)
    }
    return text
  }

  fastify.get(openapiUrl, { schema: { hide: true, querystring: VersionQuery } }, async (request, reply) => {
    const key = requestedKey(request, reply)
    const text = documentText(key)
    if (text === undefined) {
      const available = [...options.versions.versionValues, ...(documents.document(fastify, UNVERSIONED) === undefined ? [] : [UNVERSIONED])]
      throw new OpenApiVersionNotFoundError(`No OpenAPI document for version '${key}'. ` +
        `Ask for one of: ${available.join(', ')} (as ?version=<version>${options.location === 'header' ? ` or the '${options.headerName}' header` : ''}).`)
    }
    return reply.type('application/json; charset=utf-8').send(text)
  })

  let entryList: VersionEntry[] | undefined
  // Read on the first page request (the unversioned document exists only once the application is ready).
  const entries = (): VersionEntry[] => (entryList ??= [
    ...options.versions.versions.map((version) => ({
      key: version.value,
      label: version.value,
      ...(version.deprecatedAt === undefined ? {} : { deprecatedAt: toIsoDate(version.deprecatedAt) }),
      ...(version.sunsetAt === undefined ? {} : { sunsetAt: toIsoDate(version.sunsetAt) }),
      ...(version.link === undefined ? {} : { link: version.link })
    })),
    ...(documents.document(fastify, UNVERSIONED) === undefined ? [] : [{ key: UNVERSIONED, label: UNVERSIONED }])
  ])
  const context: PageContext = {
    title: docs.openapi.info?.title ?? 'API',
    openapiUrl,
    docsUrl: docs.docsUrl,
    redocUrl: docs.redocUrl,
    faviconUrl: docs.swaggerFaviconUrl
  }
  const html = (reply: FastifyReply, status: number, body: string): FastifyReply =>
    reply.code(status).type('text/html; charset=utf-8').header('x-content-type-options', 'nosniff').send(body)
  const page = (pageContext: PageContext, render: (list: VersionEntry[], current: VersionEntry) => string) => {
    // The pages of the list ('') and of each version, rendered once; a page for an unknown version is not remembered.
    const rendered = new Map<string, string>()
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const key = (request.query as { version?: string }).version ?? ''
      const known = rendered.get(key)
      if (known !== undefined) return html(reply, 200, known)
      const list = entries()
      const current = list.find((entry) => entry.key === key)
      if (key !== '' && current === undefined) return html(reply, 404, notFoundPage(pageContext, key, list))
      const body = current === undefined ? versionListPage(pageContext, list) : render(list, current)
      rendered.set(key, body)
      return html(reply, 200, body)
    }
  }

  if (docs.docsUrl !== null && docs.swaggerJsUrl !== null && docs.swaggerPresetUrl !== null && docs.swaggerCssUrl !== null) {
    const assets = { js: docs.swaggerJsUrl, preset: docs.swaggerPresetUrl, css: docs.swaggerCssUrl }
    fastify.get(docs.docsUrl, { schema: { hide: true, querystring: VersionQuery } }, page(context, (list, current) => swaggerPage(context, assets, list, current)))
  }
  if (docs.redocUrl !== null) {
    const redocUrl = docs.redocUrl
    const redocContext = { ...context, faviconUrl: docs.redocFaviconUrl }
    fastify.get(redocUrl, { schema: { hide: true, querystring: VersionQuery } },
      page(redocContext, (list, current) => redocPage(redocContext, docs.redocJsUrl, list, current)))
    const file = docs.redocJsFile
    if (file !== undefined) {
      fastify.get(`${redocUrl === '/' ? '' : redocUrl}/redoc.standalone.js`, { schema: { hide: true } }, async (_request, reply) =>
        reply.type('application/javascript; charset=utf-8').header('cache-control', 'public, max-age=86400').send(createReadStream(file)))
    }
  }
  if (docs.swaggerAssetsPrefix !== null) {
    const prefix = docs.swaggerAssetsPrefix
    const latest = options.versions.versionValues[0]
    // Swagger UI's own assets, served locally; its own page and /json route read the latest document.
    await fastify.register(async function fastifyVersionerSwaggerUi (child) {
      if (!child.hasDecorator('swagger')) child.decorate('swagger', () => documents.document(fastify, latest) as never)
      await child.register(fastifySwaggerUi, {
        routePrefix: prefix,
        uiConfig: {
          urls: options.versions.versionValues.map((version) => ({ url: `${openapiUrl}?version=${encodeURIComponent(version)}`, name: version })),
          'urls.primaryName': latest
        } as never
      })
    })
  }
  return documents
}

/** Builds the changelog once, on first use. */
export function changelogOnce (state: VersionerState, webhooks: Webhooks): () => Changelog {
  let built: Changelog | undefined
  return () => {
    built ??= buildChangelog(state, webhooks)
    return built
  }
}
