/**
 * `export`: each version's OpenAPI document exactly as the application serves it (`GET /openapi.json?version=V`,
 * through `app.inject`, without opening a port), written to `<dir>/<version>.json`, plus `unversioned.json`
 * when the application has unversioned routes; refused when a document holds an example that fails its schema.
 *
 * `invalidExamples`: the examples of one OpenAPI 3.1 document that fail the schema they illustrate. Every
 * `examples` entry and `example` of every schema node (components, and the schemas of paths' parameters, request
 * bodies and responses, and of webhooks), and the examples of parameters, headers and media types, are validated
 * against their schema inside the document (`$ref`s to `#/components/schemas/...` resolved there), with the Ajv
 * Fastify brings (strict: false, no coercion, ajv-formats) and the application's setup (its formats, keywords).
 * @module
 */
import type { FastifyInstance } from 'fastify'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { VersionerToolError } from '../core/errors'
import { appAjvSetup, type AppAjvSetup } from '../core/strict-validator'
import { kToolFacts, type ToolFacts } from '../core/symbols'
import { walkDocument } from '../docs/example-sites'
import { DocumentValidator } from '../docs/example-validation'
import { UNVERSIONED } from '../docs/openapi-documents'
import { singleApi } from './versioned-apis'
import { inCanonicalOrder } from '../docs/document-order'

/**
 * Which versions the tools work on: the released ones (default), or the preview versions too.
 * @example
 * ```ts
 * declare const app: FastifyInstance // the application, ready
 * const options: ChannelOptions = { channel: 'preview' } // --channel preview
 * await exportDocuments(app, 'openapi', options)
 * ```
 */
export interface ChannelOptions {
  /** `'preview'`: the preview versions too (`--channel preview`); `'release'` (default): released versions only. */
  readonly channel?: 'release' | 'preview'
}

/** The versions of an API the tools work on (newest first): its released versions, or with `channel: 'preview'` all. */
export function toolVersions (context: FastifyInstance, options: ChannelOptions = {}): readonly string[] {
  const versions = context.versioner.versions
  return options.channel === 'preview' ? versions.versionValues : versions.releasedValues
}

/**
 * One served document.
 * @example
 * ```ts
 * declare const app: FastifyInstance // the application, ready
 * const [newest]: ServedDocument[] = await servedDocuments(app)
 * console.log(newest.version, newest.body.length)
 * ```
 */
export interface ServedDocument {
  /** A version, or `'unversioned'`. */
  readonly version: string
  /** The bytes `GET /openapi.json?version=<version>` answers with. */
  readonly body: Buffer
}

/** What the tools need of an API's options (set by the plugin on `app.versioner`); `app` is a context inside the API. */
export function toolFacts (app: FastifyInstance): ToolFacts {
  const facts = (app.versioner as unknown as Record<symbol, ToolFacts | undefined> | undefined)?.[kToolFacts]
  if (facts === undefined) throw new VersionerToolError('app.versioner was not set up by fastify-versioner (a mock, or a version of the package without the tools).')
  return facts
}

/** The URL an API's documents are served at (its prefix included); throws when it turned them off (`openapiUrl: null`). */
function documentUrl (context: FastifyInstance): string {
  const url = toolFacts(context).openapiUrl
  if (typeof url !== 'string') {
    throw new VersionerToolError('The application serves no OpenAPI documents (openapiUrl is null): the tools read them from there. ' +
      'Leave openapiUrl on when building the app for the tools.')
  }
  return `${context.prefix.replace(/\/$/, '')}${url}`
}

/** The version a document says it is (`info.version`). */
function documentVersion (body: string): unknown {
  return (JSON.parse(body) as { info?: { version?: unknown } }).info?.version
}

/**
 * Every document the readied application serves: each released version's (one whose `releasedAt` has not come, as
 * it will be served; with `channel: 'preview'`, each preview version's too), then the unversioned one when there are
 * unversioned routes. `app`
 * is an application with one versioned API, or a context of one API (`FST_VERSIONER_TOOL` when it holds several).
 * @example
 * ```ts
 * declare const app: FastifyInstance // the application, ready
 * for (const { version, body } of await servedDocuments(app)) console.log(version, body.length)
 * ```
 */
export async function servedDocuments (app: FastifyInstance, options: ChannelOptions = {}): Promise<ServedDocument[]> {
  const { context } = singleApi(app, 'servedDocuments')
  const url = documentUrl(context)
  const documents: ServedDocument[] = []
  const released = context.versioner.versions.releasedValues
  for (const version of [...toolVersions(context, options), UNVERSIONED]) {
    if (version !== UNVERSIONED && !released.includes(version)) {
      // A preview's document as its route sends it to a request its access allows (the tools ask for none).
      const document = context.versioner.openapi(version)
      if (document !== undefined) documents.push({ version, body: Buffer.from(JSON.stringify(document)) })
      continue
    }
    const response = await context.inject({ method: 'GET', url, query: { version } })
    // A release whose releasedAt has not come is not served yet (a 404, or a date's older version it waterfalls to).
    if (response.statusCode === 404 || (version !== UNVERSIONED && response.statusCode === 200 && documentVersion(response.body) !== version)) {
      // Its document as it will be served.
      const pending = version === UNVERSIONED ? undefined : context.versioner.openapi(version)
      if (pending !== undefined) documents.push({ version, body: Buffer.from(JSON.stringify(pending)) })
      continue
    }
    if (response.statusCode !== 200) {
      throw new VersionerToolError(`GET ${url}?version=${version} answered ${response.statusCode}: ${response.body.slice(0, 500)}`)
    }
    documents.push({ version, body: response.rawPayload })
  }
  return documents
}

/**
 * Throws when a document holds an example that fails its schema, naming each: its version, JSON pointer and the
 * validator's message.
 */
function refuseInvalidExamples (documents: readonly ServedDocument[], ajv: AppAjvSetup): void {
  const found = documents.flatMap(({ version, body }) =>
    invalidExamples(JSON.parse(body.toString('utf8')), { ajv }).map(({ pointer, message }) => `${version} ${pointer}: ${message}`))
  if (found.length === 0) return
  throw new VersionerToolError(`${found.length} example(s) in the documents fail their schema, so no document was written ` +
    `(fix the example, or say how the version had it with schema(S).had({ examples })):\n${found.join('\n')}`)
}

/**
 * Writes `<dir>/<version>.json` for every document the readied application serves (preview versions with
 * `{ channel: 'preview' }`); returns the files written.
 * Refuses (`FST_VERSIONER_TOOL`, nothing written) when `dir` is not a non-empty path, when a document holds an example
 * that fails its schema, or when two versions' files collide on some system (`refuseUnportableFileNames`).
 * @example
 * ```ts
 * declare const app: FastifyInstance // the application, ready
 * await exportDocuments(app, 'openapi')   // openapi/2001-01-01.json, openapi/2000-01-01.json, openapi/unversioned.json
 * ```
 */
export async function exportDocuments (app: FastifyInstance, dir: string, options: ChannelOptions = {}): Promise<string[]> {
  if (typeof dir !== 'string' || dir === '') {
    // '' was mkdir's bare ENOENT, with no code; undefined (an unset variable) Node's ERR_INVALID_ARG_TYPE
    throw new VersionerToolError('exportDocuments takes the folder to write the documents to as its second argument, a non-empty path ' +
      `(exportDocuments(app, 'openapi')); got ${typeof dir === 'string' ? "''" : String(dir)}.`)
  }
  const documents = await servedDocuments(app, options)
  refuseUnportableFileNames(documents.map((document) => document.version))
  refuseInvalidExamples(documents, appAjvSetup(singleApi(app, 'exportDocuments').context))
  await mkdir(dir, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST' && error.code !== 'ENOTDIR') throw error
    throw new VersionerToolError(`exportDocuments writes the documents into a folder; '${dir}' is a file, or a path through one: name a folder (exportDocuments(app, 'openapi')).`)
  })
  const files: string[] = []
  for (const { version, body } of documents) {
    const file = join(dir, `${fileNameOf(version)}.json`)
    await writeFile(file, snapshotText(JSON.parse(body.toString('utf8'))))
    files.push(file)
  }
  return files
}

/**
 * A document as `export` writes it: two-space indented JSON, one property per line, with a final newline, so that a
 * change to a schema changes a few lines of the file, in canonical order (../docs/document-order.ts: paths, webhooks,
 * the methods of each path item and the components of each section sorted; everything else in the document's own
 * order, deterministic for the same code). `check` reads this form and the one-line form alike.
 * @example
 * ```ts
 * await writeFile('openapi/2000-01-01.json', snapshotText(app.versioner.openapi('2000-01-01')))
 * ```
 */
export function snapshotText (document: unknown): string {
  return `${JSON.stringify(inCanonicalOrder(document), null, 2)}\n`
}

/** The file name of a version: the version itself, with characters a file name cannot hold on any system replaced (control characters: Windows). */
export function fileNameOf (version: string): string {
  // eslint-disable-next-line no-control-regex
  return version.replace(/[/\\:*?"<>|\u0000-\u001f]/g, '_')
}

/** Names Windows keeps for devices, with or without an extension (`CON`, `nul.json`, `COM1`, `LPT²`…), in any case. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i

/**
 * Throws `FST_VERSIONER_TOOL` when the files of `versions` (`fileNameOf(version)`.json, `'unversioned'` among them
 * when written) cannot live side by side in a checkout on every system: two names differing only by case (`V1`,
 * `v1`), which one file holds on macOS and Windows, or a name Windows keeps for a device (`CON`, `nul`, `COM1`…).
 * The application serves them well: only its snapshot folder cannot hold them, so export and check refuse.
 * @example
 * ```ts
 * refuseUnportableFileNames(['V1', 'v1']) // throws: 'V1' and 'v1' would both be saved as v1.json…
 * ```
 */
export function refuseUnportableFileNames (versions: readonly string[]): void {
  const byFolded = new Map<string, string>()
  for (const version of versions) {
    const file = `${fileNameOf(version)}.json`
    if (WINDOWS_DEVICE.test(file)) {
      throw new VersionerToolError(`Version '${version}' would be saved as ${file}, a name Windows keeps for a device (CON, PRN, AUX, NUL, COM0-9, ` +
        'LPT0-9, with any extension): a checkout on Windows cannot hold it. Give the version another value (the app serves it well; only its snapshot cannot be saved).')
    }
    const other = byFolded.get(file.toLowerCase())
    if (other !== undefined) {
      throw new VersionerToolError(`Versions '${other}' and '${version}' would both be saved as ${file.toLowerCase()} on a case-insensitive file system ` +
        '(macOS, Windows), one overwriting the other. Give them values that differ by more than case (the app serves both well; only their snapshots collide).')
    }
    byFolded.set(file.toLowerCase(), version)
  }
}

/**
 * An example that fails its schema: where it is in the document, and what the validator said.
 * @example
 * ```ts
 * const found: InvalidExample = { pointer: '/components/schemas/User/examples/0', message: "must have required property 'name'" }
 * ```
 */
export interface InvalidExample {
  /** JSON pointer of the example value in the document: `/components/schemas/User/examples/0`. */
  readonly pointer: string
  /** The validator's message, with the place inside the example when it is not the whole value: `/name must be string`. */
  readonly message: string
}

/**
 * Options of {@link invalidExamples}.
 * @example
 * ```ts
 * declare const document: unknown // an OpenAPI 3.1 document
 * const options: InvalidExamplesOptions = { ajv: { customOptions: { formats: { sku: /^[A-Z]{3}-\d+$/ } } } } // the app's Fastify({ ajv })
 * const invalid = invalidExamples(document, options)
 * ```
 */
export interface InvalidExamplesOptions {
  /**
   * The Ajv setup of the application the document is of, as given to `Fastify({ ajv })`: the formats (and keywords)
   * it declares are checked as its routes check them. Without it, a format Ajv does not know is not checked.
   */
  readonly ajv?: AppAjvSetup
}

/**
 * The examples of an OpenAPI 3.1 document that do not validate against their schema; an empty list when all do.
 * @example
 * ```ts
 * declare const app: FastifyInstance // the application, ready
 * const document = app.versioner.openapi('2000-01-01')
 * for (const { pointer, message } of invalidExamples(document, { ajv: { customOptions: { formats: { sku: /^[A-Z]{3}-\d+$/ } } } })) console.log(`${pointer}: ${message}`)
 * ```
 */
export function invalidExamples (document: unknown, options: InvalidExamplesOptions = {}): InvalidExample[] {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new VersionerToolError(`invalidExamples() takes an OpenAPI document (an object); got ${document === null ? 'null' : typeof document}.`)
  }
  const sites = walkDocument(document as Record<string, unknown>)
  if (sites.length === 0) return []
  const validator = new DocumentValidator(document, options.ajv)
  const found: InvalidExample[] = []
  for (const site of sites) {
    const message = validator.check(site.schemaPointer, site.value)
    if (message !== undefined) found.push({ pointer: site.pointer, message })
  }
  return found
}
