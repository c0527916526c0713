/**
 * What `check` compares: only an OpenAPI 3.x document (`"openapi": "3.…"`, `paths` an object, `webhooks` and
 * `components` objects when present) of the version it is compared as. Anything else (`null`, `{}`, Swagger 2.0,
 * `paths: null`, another version's document…), which would compare as "no breaking change" and so turn the CI check
 * off, is refused with a `VersionerToolError` naming the document, what is wrong and what to do; so is one nested
 * deeper than `MAX_DOCUMENT_DEPTH` (measured before any diff, which would take minutes).
 * @module
 */
import { VersionerToolError } from '../core/errors'
import { fileNameOf } from './export'

/** Where a document comes from, for the error messages. */
interface DocumentSource {
  /** The document, as a sentence starts: `The saved document 'openapi/2000-01-01.json'`. */
  readonly name: string
  /** True for a saved snapshot (to restore), false for the document the application serves now (to fix there). */
  readonly saved: boolean
  /** The version the document must say it is (its `info.version`); with `fileName`, that version's file name (`fileNameOf`). */
  readonly version: string
  /** True when `version` comes from a saved document's file name (the message says so). */
  readonly fileName?: true
}

/**
 * The deepest nesting of objects and arrays `check` compares (the document itself is level 1). Real documents stay far
 * below it: a response schema is at level 9 (under `paths`, path, method, `responses`, status, `content`, media type),
 * each nested object field adds 2 (`properties`, the field) and each union or array 2 at most, so 256 leaves room for
 * over 100 nested objects, where real APIs rarely pass 20 (and Fastify's serializer refuses response schemas nested
 * over 100 deep). Past it, `api-smart-diff`'s time grows faster than the square of the depth (about a second at 256
 * levels, a minute at 2,000), and the recursive copies of `document-diff.ts` would meet the stack's limit.
 */
const MAX_DOCUMENT_DEPTH = 256

/**
 * How deep objects and arrays nest in a JSON value (0 for a scalar, 1 for `{}` or `[]`), in one pass without recursion.
 * In a value built in code, an object met twice counts where it is met first, so that a cycle ends the walk.
 */
function documentDepth (value: unknown): number {
  let deepest = 0
  const seen = new WeakSet<object>()
  const stack: Array<{ node: unknown, depth: number }> = [{ node: value, depth: 1 }]
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { node, depth } = top
    if (typeof node !== 'object' || node === null || seen.has(node)) continue
    seen.add(node)
    if (depth > deepest) deepest = depth
    for (const child of Array.isArray(node) ? node as unknown[] : Object.values(node)) stack.push({ node: child, depth: depth + 1 })
  }
  return deepest
}

/** What to do about a saved document `check` refuses. */
export const SAVED_FIX = 'Restore it from version control, or run export again on the code that released that version.'
const CURRENT_FIX = 'The tools compare the OpenAPI 3 documents fastify-versioner serves: check what builds or changes this one.'
const DEEP_CURRENT_FIX = 'Give deeply nested schemas an $id, so that the document refers to them as components.'

/** What a JSON value is, for a message: `null`, `an array`, `a string`… */
function kindOf (value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/** A field of the document as the message shows it: `"paths": null`, `"openapi": "2.0"`, `no "paths" field`. */
function shown (field: string, value: unknown): string {
  if (value === undefined) return `no "${field}" field`
  const text = JSON.stringify(value)
  return `"${field}": ${text.length > 40 ? `${text.slice(0, 40)}…` : text}`
}

/** What is wrong with the document's outline, or `undefined` when check can compare it. */
function outlineProblem (document: unknown, source: DocumentSource): string | undefined {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    return `is not an OpenAPI document: it holds ${kindOf(document)}, where export writes an object`
  }
  const field = (name: string): unknown => Object.hasOwn(document, name) ? (document as Record<string, unknown>)[name] : undefined
  const openapi = field('openapi')
  if (openapi === undefined && field('swagger') !== undefined) {
    return `is a Swagger 2.0 document (${shown('swagger', field('swagger'))}); check compares OpenAPI 3 documents, as export writes them`
  }
  if (typeof openapi !== 'string' || !/^3\.\d+\.\d+/.test(openapi)) {
    return `has ${shown('openapi', openapi)}; check compares OpenAPI 3 documents ("openapi": "3.x.y"), as export writes them`
  }
  const paths = field('paths')
  if (kindOf(paths) !== 'an object') return `has ${shown('paths', paths)}, where every OpenAPI document export writes has an object of paths`
  for (const name of ['webhooks', 'components']) {
    const value = field(name)
    if (value !== undefined && kindOf(value) !== 'an object') return `has ${shown(name, value)}, which must be an object when present`
  }
  const info = field('info')
  const version = kindOf(info) === 'an object' && Object.hasOwn(info as object, 'version') ? (info as { version: unknown }).version : undefined
  if (typeof version !== 'string') return `has no info.version (${shown('info', info)}), where export writes the version`
  if ((source.fileName === true ? fileNameOf(version) : version) !== source.version) {
    return `is the document of version '${version}' (its info.version), not of '${source.version}'${source.fileName === true ? ' as its file name says' : ''}`
  }
  return undefined
}

/**
 * Throws `VersionerToolError` when `check` cannot compare the document as the version `source` names: its
 * message names the document, what is wrong with it, and what to do.
 */
export function assertComparable (document: unknown, source: DocumentSource): void {
  const problem = outlineProblem(document, source)
  if (problem !== undefined) throw new VersionerToolError(`${source.name} ${problem}. ${source.saved ? SAVED_FIX : CURRENT_FIX}`)
  const depth = documentDepth(document)
  if (depth > MAX_DOCUMENT_DEPTH) {
    throw new VersionerToolError(`${source.name} nests objects and arrays ${depth} levels deep, where check compares at most ${MAX_DOCUMENT_DEPTH} ` +
      `(comparing deeper documents takes minutes, and no real API nests so deep). ${source.saved ? SAVED_FIX : DEEP_CURRENT_FIX}`)
  }
}
