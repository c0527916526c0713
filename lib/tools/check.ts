/**
 * `check`: compares each saved version's OpenAPI document with the one the application serves now
 * (`document-comparison.ts` compares one pair), and sorts the differences into breaks (a client of that version
 * would fail) and notes (what its clients can ignore); a saved version no longer served is a break. A document
 * it cannot compare (`document-checks.ts`) stops the check with `VersionerToolError`.
 * @module
 */
import type { FastifyInstance } from 'fastify'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { VersionerToolError } from '../core/errors'
import { fileNameOf, servedDocuments, type ChannelOptions } from './export'
import { change, type DocumentChange } from './document-places'
import { compareComparable, compareDocuments } from './document-comparison'
import { assertComparable } from './document-checks'
import { singleApi } from './versioned-apis'

export type { DocumentChange }
export { compareDocuments }

/** The result of a check: the breaks (a non-empty list fails the check) and the notes. */
export interface CheckResult {
  readonly breaks: DocumentChange[]
  readonly notes: DocumentChange[]
  /** The versions compared (saved ones the application still serves). */
  readonly compared: string[]
}

/**
 * Compares every version saved in `dir` (`<version>.json` files, as `export` writes them) with the documents the
 * readied application serves now (preview versions only with `{ channel: 'preview' }`).
 * @example
 * ```ts
 * const { breaks, notes } = await checkDocuments(app, 'openapi')
 * for (const line of breaks) console.error(line.text)
 * ```
 */
export async function checkDocuments (app: FastifyInstance, dir: string, options: ChannelOptions = {}): Promise<CheckResult> {
  let files: string[]
  try {
    files = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort()
  } catch (error) {
    throw new VersionerToolError(`The saved documents folder '${dir}' cannot be read: ${(error as Error).message}`)
  }
  if (files.length === 0) throw new VersionerToolError(`The folder '${dir}' holds no saved documents (<version>.json files): run export first.`)
  const served = new Map((await servedDocuments(app, options)).map((document) => [fileNameOf(document.version), document]))
  // Saved documents of preview versions are checked only with channel 'preview' (a preview may break).
  const bundle = singleApi(app, 'checkDocuments').context.versioner.versions
  const previews = new Set(options.channel === 'preview' ? [] : bundle.versionValues.filter((value) => !bundle.releasedValues.includes(value)).map(fileNameOf))
  const breaks: DocumentChange[] = []
  const notes: DocumentChange[] = []
  const compared: string[] = []
  const savedNames = new Set<string>()
  for (const file of files) {
    const name = file.slice(0, -'.json'.length)
    savedNames.add(name)
    if (previews.has(name)) {
      notes.push(change(name, '', '', 'preview version not checked (check with --channel preview)', false))
      continue
    }
    const saved = await readSaved(dir, file)
    const current = served.get(name)
    const version = current?.version ?? name
    if (current === undefined) {
      breaks.push(change(version, '', '', 'version removed', true))
      continue
    }
    const now: unknown = JSON.parse(current.body.toString('utf8'))
    assertComparable(now, { name: `The document the app serves now for version '${version}'`, saved: false, version })
    compared.push(version)
    for (const found of compareComparable(version, saved, now)) (found.breaking ? breaks : notes).push(found)
  }
  for (const [name, document] of served) if (!savedNames.has(name)) notes.push(change(document.version, '', '', 'new version', false))
  return { breaks, notes, compared }
}

/**
 * A saved `<version>.json`, parsed and checked: JSON, and an OpenAPI 3 document of the version its file name
 * says (`export` writes `fileNameOf(version)`).
 */
async function readSaved (dir: string, file: string): Promise<unknown> {
  const path = join(dir, file)
  const name = file.slice(0, -'.json'.length)
  let saved: unknown
  try {
    saved = JSON.parse(await readFile(path, 'utf8'))
  } catch (error) {
    throw new VersionerToolError(`The saved document '${path}' is not JSON: ${(error as Error).message}`)
  }
  assertComparable(saved, {
    name: `The saved document '${path}'`, saved: true, version: name, versionFrom: 'its file name says', isVersion: (version) => fileNameOf(version) === name
  })
  return saved
}
