/**
 * `fingerprint`: prints an API's bundle fingerprint (`app.versioner.fingerprint`, ../docs/fingerprint.ts) and, with a
 * folder of saved documents (`--against <dir>`, as `export` writes them), the fingerprint of those documents, failing
 * when the two differ. A deploy pipeline compares the value each instance reports with the build's, or the saved
 * documents' ([decision 0083](../../docs/decisions/0083-documents-for-caches-and-fleets.md)).
 * @module
 */
import type { FastifyInstance } from 'fastify'
import { readdir } from 'node:fs/promises'
import { commandArgument } from './terminal-text'
import { VersionerToolError } from '../core/errors'
import { fingerprintOf } from '../docs/fingerprint'
import { readSaved } from './check'
import { fileNameOf } from './export'

/**
 * The fingerprint of the documents saved in a folder, and the versions counted.
 * @example
 * ```ts
 * const saved: SavedFingerprint = await savedFingerprint('openapi', new Set())
 * console.log(saved.fingerprint, saved.documents) // [ '2000-01-01', '2001-01-01', 'unversioned' ]
 * ```
 */
export interface SavedFingerprint {
  readonly fingerprint: string
  /** The file names counted (`2001-01-01`, `unversioned`…), sorted. */
  readonly documents: readonly string[]
}

/**
 * The fingerprint of the documents saved in `dir` (`<version>.json` files, as `export` writes them), leaving out the
 * file names in `previews` (preview versions' documents, which the fingerprint does not cover). Each file is read and
 * checked as `check` reads it (`FST_VERSIONER_TOOL` for a file that is not an OpenAPI 3 document of its version).
 * @example
 * ```ts
 * declare const app: FastifyInstance // the application, ready
 * const { fingerprint } = await savedFingerprint('openapi', new Set())
 * if (fingerprint !== app.versioner.fingerprint) throw new Error('the saved documents are not what the app serves')
 * ```
 */
export async function savedFingerprint (dir: string, previews: ReadonlySet<string>): Promise<SavedFingerprint> {
  let names: string[]
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.json')).map((file) => file.slice(0, -'.json'.length)).sort()
  } catch (error) {
    throw new VersionerToolError(`The saved documents folder '${dir}' cannot be read: ${(error as Error).message}`)
  }
  const documents = names.filter((name) => !previews.has(name))
  if (documents.length === 0) throw new VersionerToolError(`The folder '${dir}' holds no saved documents of released versions (<version>.json files): run export first.`)
  const saved: Array<[string, unknown]> = []
  for (const name of documents) saved.push([name, await readSaved(dir, name)])
  return { fingerprint: fingerprintOf(saved), documents }
}

/**
 * Prints the fingerprint of the API `context` serves and, with `dir`, that of the documents saved there; returns 1
 * when they differ (or when documents are off), else 0. The advice names `given` (the folder the command line gave,
 * when `dir` is one API's folder in it).
 */
export async function printFingerprint (
  context: FastifyInstance, dir: string | undefined, io: { readonly out: (line: string) => void, readonly err: (line: string) => void }, given = dir
): Promise<number> {
  const served = context.versioner.fingerprint
  if (served === undefined) {
    throw new VersionerToolError('The application serves no OpenAPI documents (openapiUrl is null): the fingerprint is made of them. ' +
      'Leave openapiUrl on when building the app for the tools.')
  }
  io.out(`fingerprint: ${served}`)
  if (dir === undefined) return 0
  const bundle = context.versioner.versions
  const previews = new Set(bundle.versionValues.filter((value) => !bundle.releasedValues.includes(value)).map(fileNameOf))
  const saved = await savedFingerprint(dir, previews)
  io.out(`fingerprint of ${dir}: ${saved.fingerprint} (${saved.documents.join(', ')})`)
  if (saved.fingerprint === served) return 0
  io.err(`fingerprint: the documents saved in ${dir} are not what the application serves; run fastify-versioner check <app> --against ${commandArgument(given ?? '')} to see the differences.`)
  return 1
}
