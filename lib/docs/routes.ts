/**
 * Stage `lib/docs/`: the per-version OpenAPI documents, docs pages and changelog, on unversioned routes that run
 * the `uiHooks`.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { registerAssets } from './assets'
import { ChangelogResource, type Changelog } from './changelog'
import type { DocsVersionOptions, ResolvedDocsOptions } from './options'
import { askedVersions, privateForPreviewChannel, queryErrors, registerPages, versionQueryAccepted, VersionQuery } from './page-routes'
import { InvalidOptionError } from '../core/errors'
import { OpenApiVersionNotFoundError } from '../core/request-errors'
import { documentKey, OpenApiDocuments, UNVERSIONED } from './openapi-documents'
import { processWarning } from '../core/warnings'
import type { VersionerState } from '../routes/versioner-state'
import type { Webhooks } from '../routes/webhooks'
import { readRequestedVersion } from '../serve/version-picking'
import { whyRefused } from '../serve/error-handling'
import { addVary } from '../serve/version-headers'
import type { MigrationEngine } from '../serve/migrate-response-body'
import { UpgradeGuides } from './upgrade-guide'
import { releasedNow } from '../serve/release-clock'
import { revalidated, sendText, sentText, type SentText } from './sent-texts'
import { copyJson } from '../values/json-copy'

/** Registers the documents and the documentation routes; returns the documents (or `undefined` when off). */
export async function registerDocs (
  fastify: FastifyInstance,
  state: VersionerState,
  setup: {
    readonly options: DocsVersionOptions,
    readonly docs: ResolvedDocsOptions,
    readonly webhooks: Webhooks,
    readonly changelog: () => Changelog,
    /** The application's migration engine: the documents' examples and the upgrade guides migrate with it. */
    readonly engine: MigrationEngine
  }
): Promise<OpenApiDocuments | undefined> {
  const { options, docs, webhooks, changelog, engine } = setup
  // An application adopting the plugin may serve its own docs there already: Fastify's duplicate error names no option.
  for (const option of ['openapiUrl', 'docsUrl', 'redocUrl', 'changelogUrl'] as const) {
    const url = docs[option] === null ? null : `${fastify.prefix}${docs[option]}`
    if (url !== null && fastify.hasRoute({ method: 'GET', url })) {
      throw new InvalidOptionError(`GET ${url} is already a route of the application (its own docs page or document?): ` +
        `give fastifyVersioner's '${option}' option another path, or null to serve none.`)
    }
  }
  const documents = docs.openapiUrl === null ? undefined : new OpenApiDocuments(state, options, docs, { webhooks, engine })
  // The documents' @fastify/swagger instances must be registered before any route they should see.
  await documents?.register(fastify)
  if (docs.changelogUrl !== null) registerChangelog(fastify, docs, options, changelog)
  if (documents === undefined || docs.openapiUrl === null) return undefined
  registerDocumentRoute(fastify, options, documents, docs.openapiUrl, docs.uiHooks)
  const guides = new UpgradeGuides(state, () => webhooks.list(), engine)
  registerPages(fastify, options, docs, documents, guides)
  registerAssets(fastify, docs)
  return documents
}

/** `GET /changelog` (deprecated, still served): the versions served now. */
function registerChangelog (fastify: FastifyInstance, docs: ResolvedDocsOptions, options: DocsVersionOptions, changelog: () => Changelog): void {
  fastify.get(docs.changelogUrl as string, {
    ...docs.uiHooks,
    schema: {
      // Out of every other @fastify/swagger's document (the application's own): the unversioned one shows it again.
      hide: true,
      deprecated: true,
      summary: 'The changes of every API version (deprecated)',
      description: 'Deprecated: generated from the version changes; maintain and publish your own changelog instead. Still served.',
      response: { 200: ChangelogResource }
    }
  }, async (request, reply) => {
    processWarning.FSTVRSDEP002()
    privateForPreviewChannel(request, reply)
    const released = releasedNow(options).values
    const { versions } = changelog()
    // A copy: the application's preSerialization hooks may change the payload, and the changelog is built once.
    return copyJson({ versions: versions.filter((version) => released.includes(version.value)) })
  })
}

/** `GET /openapi.json`: a version's document, by `?version=` or the version header. */
function registerDocumentRoute (
  fastify: FastifyInstance,
  options: DocsVersionOptions,
  documents: OpenApiDocuments,
  openapiUrl: string,
  hooks: ResolvedDocsOptions['uiHooks']
): void {
  // `?version=`, else the version header (the answer then depends on it: `Vary`), else the newest release; each
  // value answered with the document of the version the API serves it as (a preview only with `?channel=preview`).
  const requestedKey = (request: FastifyRequest, reply: FastifyReply, previews: readonly string[], newest: string): string => {
    const query = request.query as { version?: string }
    if (typeof query.version === 'string' && query.version !== '') return documentKey(query.version, options, previews)
    if (options.location !== 'header') return newest
    addVary(reply, options.parameterName)
    return documentKey(readRequestedVersion(request, options) ?? newest, options, previews)
  }

  // A document does not change once built: each is serialized once, with its ETag (unknown keys are not remembered).
  const texts = new Map<string, SentText>()
  const documentText = (key: string): SentText | undefined => {
    let text = texts.get(key)
    if (text === undefined) {
      const document = documents.document(key)
      if (document === undefined) return undefined
      text = sentText(JSON.stringify(document))
      texts.set(key, text)
    }
    return text
  }

  const schemaErrorFormatter = queryErrors(fastify, versionQueryAccepted(options, documents))
  fastify.get(openapiUrl, { ...hooks, schemaErrorFormatter, schema: { hide: true, querystring: VersionQuery } }, async (request, reply) => {
    const { previews, released } = await askedVersions(request, reply, options)
    const key = requestedKey(request, reply, previews, released[0])
    // A preview's document only for a request that asked for it (and that its access allows), a release's once
    // released: else as unknown.
    const text = released.includes(key) || previews.includes(key) || key === UNVERSIONED ? documentText(key) : undefined
    if (text === undefined) {
      revalidated(reply)
      const available = [...released, ...previews, ...(documents.document(UNVERSIONED) === undefined ? [] : [UNVERSIONED])]
      const why = whyRefused(key, options)
      throw new OpenApiVersionNotFoundError(`No OpenAPI document for version '${key}'${why === undefined ? '.' : `: ${why}`} ` +
        `Ask for one of: ${available.join(', ')} (as ?version=<version>${options.location === 'header' ? ` or the '${options.headerName}' header` : ''}).`)
    }
    return sendText(request, reply, text, 'application/json; charset=utf-8')
  })
}
