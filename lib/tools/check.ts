/**
 * `check`: compares each saved version's OpenAPI document with the one the application serves now
 * (`document-comparison.ts` compares one pair), and sorts the differences into breaks (a client of that version
 * would fail) and notes (what its clients can ignore); a saved version no longer served is a break, and so are a
 * deprecation new to a saved version that the next version lifts and a released version's end announced while an
 * older one's is not (`deprecations-lifted.ts`).
 * It compares only an OpenAPI 3 document of the version it is compared as (`document-outline.ts` refuses the rest).
 * @module
 */
import type { FastifyInstance } from 'fastify'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { VersionerToolError } from '../core/errors'
import type { AppAjvSetup } from '../core/strict-validator'
import { requestValidationSetup } from './validation-in-force'
import { fileNameOf, refuseUnportableFileNames, servedDocuments, toolFacts, type ChannelOptions, type ServedDocument } from './export'
import { METHODS, operationName } from './comparable-documents'
import { UNVERSIONED } from '../docs/openapi-documents'
import { change, type DocumentChange } from './document-places'
import { compareComparable } from './document-comparison'
import { parseJsonText } from './json-text'
import { singleApi } from './versioned-apis'
import { withSlashTwinsAligned } from './slash-twins'
import { componentNameNotes } from './named-components'
import { endsOutOfOrderBreaks, liftedDeprecationBreaks } from './deprecations-lifted'
import { assertComparable, SAVED_FIX } from './document-outline'

export type { DocumentChange }

/**
 * The result of a check: the breaks (a non-empty list fails the check) and the notes.
 * @example
 * ```ts
 * declare const app: FastifyInstance // the application, ready
 * const result: CheckResult = await checkDocuments(app, 'openapi')
 * if (result.breaks.length > 0) process.exitCode = 1 // a client of one of result.compared would fail
 * ```
 */
export interface CheckResult {
  readonly breaks: DocumentChange[]
  readonly notes: DocumentChange[]
  /** The versions compared (saved ones the application still serves). */
  readonly compared: string[]
}

/**
 * How `compareDocuments` judges requests.
 * @example
 * ```ts
 * declare const saved: unknown, current: unknown // version 2000-01-01's document as saved, and as served now
 * const options: CompareOptions = { ajv: { customOptions: { removeAdditional: 'all' } } } // as given to Fastify({ ajv })
 * const breaks = compareDocuments('2000-01-01', saved, current, options).filter((change) => change.breaking)
 * ```
 */
export interface CompareOptions {
  /**
   * The application's Ajv setup, as given to `Fastify({ ajv })` (Fastify's defaults without it): what happens to a
   * field `additionalProperties: false` no longer takes (`removeAdditional`), whether a default fills a required field
   * (`useDefaults`), whether a value is coerced to a field's new type (`coerceTypes`). `checkDocuments` reads the app's.
   */
  readonly ajv?: AppAjvSetup
}

/**
 * Compares one version's saved document with its current one. Throws `FST_VERSIONER_TOOL` when either is not an
 * OpenAPI 3 document of that version.
 * @example
 * ```ts
 * declare const savedDocument: unknown, currentDocument: unknown // the version's document as saved, and as served now
 * const breaks = compareDocuments('2000-01-01', savedDocument, currentDocument, { ajv: { customOptions: { removeAdditional: false } } }).filter((change) => change.breaking)
 * ```
 */
export function compareDocuments (version: string, saved: unknown, current: unknown, options: CompareOptions = {}): DocumentChange[] {
  assertComparable(saved, { name: `The saved document of version '${version}'`, saved: true, version })
  assertComparable(current, { name: `The current document of version '${version}'`, saved: false, version })
  return compareComparable(version, saved, current, options.ajv)
}

/**
 * Compares every version saved in `dir` (`<version>.json` files, as `export` writes them) with the documents the
 * readied application serves now (preview versions only with `{ channel: 'preview' }`).
 * @example
 * ```ts
 * declare const app: FastifyInstance // the application, ready
 * const { breaks, notes } = await checkDocuments(app, 'openapi')
 * for (const line of breaks) console.error(line.text)
 * ```
 */
export async function checkDocuments (app: FastifyInstance, dir: string, options: ChannelOptions = {}): Promise<CheckResult> {
  let names: string[]
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort().map((file) => file.slice(0, -'.json'.length))
  } catch (error) {
    throw new VersionerToolError(`The saved documents folder '${dir}' cannot be read: ${(error as Error).message}`)
  }
  if (names.length === 0) throw new VersionerToolError(`The folder '${dir}' holds no saved documents (<version>.json files): run export first.`)
  const documents = await servedDocuments(app, options)
  // Two versions sharing a file on macOS or Windows would compare one's snapshot as the other's.
  refuseUnportableFileNames(documents.map((document) => document.version))
  const served = new Map(documents.map((document) => [fileNameOf(document.version), document]))
  // Saved documents of preview versions are checked only with channel 'preview' (a preview may break).
  const api = singleApi(app, 'checkDocuments').context
  const [bundle, validation] = [api.versioner.versions, requestValidationSetup(api)]
  const previews = new Set(bundle.versionValues.filter((value) => !bundle.releasedValues.includes(value)).map(fileNameOf))
  const result: CheckResult = { breaks: [], notes: [], compared: [] }
  const { breaks, notes } = result
  for (const name of names) {
    const saved = await readSaved(dir, name)
    const savedPreview = (saved as { info?: Json }).info?.['x-channel'] === 'preview'
    // A released version made a preview again: its clients are served only as its `access` allows (any channel).
    if (previews.has(name) && !savedPreview) breaks.push(change(name, '', '', 'released version made a preview: served only to requests its access allows', true))
    if (previews.has(name) && options.channel !== 'preview') { notes.push(change(name, '', '', 'preview version not checked (check with --channel preview)', false)); continue }
    const [current, version] = [served.get(name), served.get(name)?.version ?? name]
    if (current === undefined) {
      // A preview promoted or withdrawn since: its saved document says it was one (decision 0275).
      if (options.channel !== 'preview' && savedPreview) {
        notes.push(change(version, '', '', 'preview version no longer served (promoted or withdrawn), not checked', false))
      } else breaks.push(change(version, '', '', 'version removed', true))
      continue
    }
    const now: unknown = JSON.parse(current.body.toString('utf8'))
    assertComparable(now, { name: `The document the app serves now for version '${version}'`, saved: false, version })
    const rest = version === UNVERSIONED ? compareMovedIntoDefault(result, saved as Json, served, validation) : saved
    compareInto(result, version, rest, withSlashTwinsAligned(notes, version, rest, now, api), validation)
    notes.push(...componentNameNotes(version, rest, now))
  }
  for (const [name, document] of served) if (!names.includes(name)) notes.push(change(document.version, '', '', 'new version', false))
  liftedDeprecationBreaks(result, bundle.versionValues, served, validation)
  endsOutOfOrderBreaks(result, bundle.releasedValues, served)
  packageChangelogChangesAsNotes(result, toolFacts(app).changelogPath)
  return result
}

/**
 * The changelog endpoint's response schema is the package's, not the app's: a change inside it comes with a
 * fastify-versioner release (a new entry type), so it is a note. Its removal (the app's `changelogUrl`) still breaks.
 */
function packageChangelogChangesAsNotes (result: CheckResult, path: string | null | undefined): void {
  // Undefined: an app registered with an older copy of the package, whose facts lack the path.
  if (typeof path !== 'string') return
  const operation = operationName(path, 'get')
  const kept = result.breaks.filter((found) => found.version !== UNVERSIONED || found.operation !== operation || found.place === '')
  for (const found of result.breaks.filter((found) => !kept.includes(found))) {
    result.notes.push(change(found.version, found.operation, found.place, `${found.kind} (the package's changelog endpoint, changed by a fastify-versioner release: see its CHANGELOG)`, false))
  }
  result.breaks.splice(0, result.breaks.length, ...kept)
}

type Json = Record<string, unknown>

/**
 * An unversioned route moved into `versioned(...)` is still served to requests naming no version, as the default version
 * (`x-api-version-default`): each saved unversioned operation the app no longer serves unversioned, but serves at the same
 * path and method in that version's document, is compared with that version's operation (a note says where it went).
 * Returns the saved unversioned document without them, to compare with the current one as usual.
 */
function compareMovedIntoDefault (result: CheckResult, saved: Json, served: Map<string, ServedDocument>, ajv: AppAjvSetup): Json {
  const document = (name: string): Json | undefined => served.has(name) ? JSON.parse((served.get(name) as ServedDocument).body.toString('utf8')) as Json : undefined
  const unversioned = document(UNVERSIONED)
  const defaults = [...served.keys()].map((name) => ((document(name)?.info ?? {}) as Json)['x-api-version-default'])
  const defaultValue = defaults.find((value): value is string => typeof value === 'string')
  const versioned = defaultValue === undefined ? undefined : document(fileNameOf(defaultValue))
  if (unversioned === undefined || versioned === undefined) return saved
  const rest: Json = { ...saved, paths: { ...saved.paths as Json } }
  for (const [path, item] of Object.entries(saved.paths as Json)) {
    if (typeof item !== 'object' || item === null) continue
    for (const [method, operation] of Object.entries(item)) {
      const there = ((versioned.paths as Json)[path] as Json | undefined)?.[method]
      if (!METHODS.has(method) || ((unversioned.paths as Json)[path] as Json | undefined)?.[method] !== undefined || there === undefined) continue
      const { [method]: _moved, ...others } = (rest.paths as Json)[path] as Json
      ;(rest.paths as Json)[path] = others
      const name = operationName(path, method)
      result.notes.push(change(UNVERSIONED, name, '', `moved into the versioned API; requests naming no version are served it as ${defaultValue}`, false))
      const before = { ...saved, paths: { [path]: { [method]: operation } } }
      for (const found of compareComparable(UNVERSIONED, before, { ...versioned, info: saved.info, paths: { [path]: { [method]: there } } }, ajv)) {
        (found.breaking ? result.breaks : result.notes).push(found)
      }
    }
  }
  return rest
}

/**
 * Compares one version's documents (both comparable), judging requests as the app's Ajv (`ajv`, its `Fastify({ ajv })`)
 * does, adding it to `result.compared` and its changes to the breaks or notes.
 */
export function compareInto (result: CheckResult, version: string, saved: unknown, current: unknown, ajv: AppAjvSetup): void {
  result.compared.push(version)
  for (const found of compareComparable(version, saved, current, ajv)) (found.breaking ? result.breaks : result.notes).push(found)
}

/**
 * A saved `<name>.json`, parsed and checked: JSON (one line, or pretty-printed as `export` writes it now, with any line
 * endings and a byte order mark or none; a file that is not JSON is named with the line and column where it stops
 * being JSON), and an OpenAPI 3 document of the version its file name says (`export` writes `fileNameOf(version)`).
 */
export async function readSaved (dir: string, name: string): Promise<unknown> {
  const path = join(dir, `${name}.json`)
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new VersionerToolError(`The saved document '${path}' cannot be read: ${(error as Error).message}`)
  }
  // Any depth here: assertComparable measures it, with its own message. A byte order mark (a Windows editor's) is no part of the JSON.
  const parsed = parseJsonText(text.replace(/^\uFEFF/, ''), Number.POSITIVE_INFINITY)
  if (!parsed.ok) {
    throw new VersionerToolError(`The saved document '${path}' is not JSON: at line ${parsed.place.line}, column ${parsed.place.column}, ${parsed.problem}. ${SAVED_FIX}`)
  }
  assertComparable(parsed.value, { name: `The saved document '${path}'`, saved: true, version: name, fileName: true })
  return parsed.value
}
