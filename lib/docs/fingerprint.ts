/**
 * The bundle fingerprint: one SHA-256 over the released versions' documents in canonical form (keys sorted,
 * `servers` left out) ([decision 0083](../../docs/decisions/0083-documents-for-caches-and-fleets.md)).
 * @module
 */
import { createHash } from 'node:crypto'
import { NotReadyError } from '../core/errors'
import type { VersionerState } from '../routes/versioner-state'
import { UNVERSIONED, type OpenApiDocuments } from './openapi-documents'
import { inNameOrder, sortedKeys } from './document-order'

/** A value with every object's keys sorted (arrays keep their order: it is meaningful in JSON Schema). */
function canonical (value: unknown): unknown {
  return Array.isArray(value) ? value.map(canonical) : sortedKeys(value, canonical)
}

/** The key of a document in the fingerprint: the version it says it is (`info.version`), else `fallback`. */
function keyOf (document: unknown, fallback: string): string {
  const info = (document as { info?: { version?: unknown } } | null)?.info
  return typeof info?.version === 'string' ? info.version : fallback
}

/**
 * The fingerprint of a set of OpenAPI documents (objects; `name` names one without `info.version`): 64 hex digits,
 * the same whatever the order of the set and of each document's keys, and whatever their `servers`.
 * @example
 * ```ts
 * fingerprintOf([['2001-01-01', documentA], ['2000-01-01', documentB]]) // 'b0c4…'
 * ```
 */
export function fingerprintOf (documents: Iterable<readonly [name: string, document: unknown]>): string {
  const entries = [...documents].map(([name, document]): [string, unknown] => {
    if (typeof document !== 'object' || document === null) return [name, document]
    const { servers: _servers, ...rest } = document as Record<string, unknown>
    return [keyOf(document, name), canonical(rest)]
  })
  return createHash('sha256').update(JSON.stringify(inNameOrder(entries, ([key]) => key))).digest('hex')
}

/**
 * The fingerprint of what an application serves ({@link fingerprintOf} of its released documents and unversioned
 * one), computed on first use once it is ready (`FST_VERSIONER_NOT_READY` before); `undefined` without documents.
 * @example
 * ```ts
 * const fingerprint = fingerprintOnce(state, () => documents)
 * await app.ready()
 * fingerprint() // 'b0c4…', the same on every instance of the same build
 * ```
 */
export function fingerprintOnce (state: VersionerState, documentsOf: () => OpenApiDocuments | undefined): () => string | undefined {
  let fingerprint: string | undefined
  return () => {
    if (!state.ready) throw new NotReadyError('app.versioner.fingerprint')
    const documents = documentsOf()
    if (documents === undefined) return undefined
    fingerprint ??= fingerprintOf([...state.options.versions.releasedValues, UNVERSIONED].flatMap((key): Array<[string, unknown]> => {
      const document = documents.document(key)
      return document === undefined ? [] : [[key, document]]
    }))
    return fingerprint
  }
}
