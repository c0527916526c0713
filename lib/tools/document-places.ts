/**
 * Places in OpenAPI documents, for `check`: the change record and a comparison in progress, JSON paths and pointers
 * into a document (local `$ref`s followed, own keys only), where a change inside an operation is, text-only keywords.
 * @module
 */
import type { Diff as RawDiff } from 'api-smart-diff'
import { setOwn } from '../core/own-properties'
import { pointerKey, pointerSegment } from '../core/json-schema'
import type { AjvInstance } from '../core/strict-validator'
import { responseName } from './comparable-documents'
import { printable } from './terminal-text'
import { literal } from './type-printer'
import { TEXT_KEYS } from '../docs/parameter-rules'

/**
 * One difference between a saved document and the current one.
 * @example
 * ```ts
 * declare const app: FastifyInstance // the application, ready
 * const { breaks }: { breaks: DocumentChange[] } = await checkDocuments(app, 'openapi')
 * for (const change of breaks) console.error(`${change.version} ${change.operation} ${change.place}: ${change.text}`)
 * ```
 */
export interface DocumentChange {
  /** The version (or `'unversioned'`). */
  readonly version: string
  /** `POST /users`, `QUERY /search`, `webhook invoice.paid`, or `''` for the whole version. */
  readonly operation: string
  /** Where: `request body /address`, `response 200 /addresses/*`, `query parameter limit`, `payload /amount`, or `''`. */
  readonly place: string
  /**
   * What happened: `removed`, `renamed to <name>`, `type 'string' → 'integer'`, `became required`, `became optional`,
   * `enum member 'b' removed`, `minimum 1 → 100`, `status removed`, `endpoint removed`, `webhook removed`, `no longer
   * accepts '2000-01-01'` (the version parameter), `version removed`, `new status, not in 2000-01-01's saved document: …`
   * (breaks); `new version`, `new endpoint`, `new webhook`, `new optional field`, `new field`, `new header`, `enum member
   * 'c' added`, `summary changed (text)`… (notes). A keyword's values are shown on both sides, `(none)` where it is absent.
   */
  readonly kind: string
  /** True when clients of the version would break. */
  readonly breaking: boolean
  /** The change on one line: `2000-01-01 POST /users: request body /address: removed`. */
  readonly text: string
}

export type JsonPath = ReadonlyArray<string | number>

/** Removed fields (and parameters) paired with added ones of the same schema: renames. */
export interface Renames {
  /** The removal of a renamed field or parameter, and its new name. */
  readonly renamed: Map<RawDiff, string>
  /** The names (old and new) of renamed fields, by parent schema path. */
  readonly names: Map<string, Set<string>>
  /** The additions that are the other half of a rename (not reported on their own). */
  readonly handled: Set<RawDiff>
}

/**
 * How the application's Ajv validates a request (its `Fastify({ ajv })` over Fastify's defaults), where a verdict of
 * `check` depends on it.
 */
export interface RequestValidation {
  /**
   * `true` (Fastify's default) or `'failing'`: the fields `additionalProperties: false` does not take are dropped;
   * `'all'`: every field no property declares is dropped; `false`: such fields are refused (400).
   */
  readonly removeAdditional: boolean | 'all' | 'failing'
  /** Defaults fill the fields a request omits (Fastify's default): a required field with a default may be omitted. */
  readonly useDefaults: boolean
  /** Values are coerced to the schema's type (Fastify's default): a number sent for a string field is taken as a string. */
  readonly coerceTypes: boolean
}

/** One comparison in progress: what it compares (as `comparableDocuments` made them), and the changes found so far. */
export interface Comparison {
  readonly version: string
  readonly saved: unknown
  readonly current: unknown
  readonly renames: Renames
  readonly result: DocumentChange[]
  readonly validation: RequestValidation
  /** The application's Ajv as Fastify sets it up, nothing coerced, defaulted or removed (made on first use). */
  readonly strictAjv: () => AjvInstance
}

/**
 * Adds a change to a comparison's result, once (by its text).
 * @example
 * ```ts
 * report(comparison, 'GET /users', 'response 200 /name', 'removed', true)
 * ```
 */
export function report (comparison: Comparison, operation: string, place: string, kind: string, breaking: boolean): void {
  const made = change(comparison.version, operation, place, kind, breaking)
  if (!comparison.result.some((known) => known.text === made.text)) comparison.result.push(made)
}

/** One difference as `api-smart-diff` reports it. */
export type { RawDiff }

/** Keywords that only describe: a change to them is text. */
export { TEXT_KEYS }

export function change (version: string, operation: string, place: string, kind: string, breaking: boolean): DocumentChange {
  const where = [operation, place].filter((part) => part !== '').join(': ')
  // One printable line: names from the documents (paths, fields) cannot break it.
  return { version, operation, place, kind, breaking, text: printable(`${version}${where === '' ? '' : ` ${where}`}: ${kind}`) }
}

/**
 * The own property `key` of a JSON node, or `undefined`: a field named `constructor` or `toString` is one only
 * when the document has it, and a `__proto__` key (which `JSON.parse` makes an own property) is read as such.
 * @example `own({}, 'constructor') // undefined`
 */
export function own (node: unknown, key: string | number): unknown {
  return typeof node === 'object' && node !== null && Object.hasOwn(node, key) ? (node as Record<string | number, unknown>)[key] : undefined
}

/** The value at `path` in a document, following local `$ref`s on the way (as the diff's paths do), or `undefined`. */
export function at (document: unknown, path: JsonPath): unknown {
  let node = follow(document, document)
  // Past a missing or non-object node, `own` and `follow` give `undefined` to the end.
  for (const key of path) node = follow(document, own(node, key))
  return node
}

/** A node with its local `$ref` followed (a few hops at most). */
export function follow (document: unknown, node: unknown): unknown {
  for (let hops = 0; hops < 32 && typeof own(node, '$ref') === 'string'; hops++) {
    const ref = own(node, '$ref') as string
    if (!ref.startsWith('#/')) break
    let target: unknown = document
    for (const part of ref.slice(2).split('/')) target = own(target, pointerKey(part))
    node = target
  }
  return node
}

/**
 * A schema path (`properties/address/items/…`, a tuple's `items/1/…`) as a pointer into the data (`/address/*`,
 * `/point/1`), and the schema keyword the change is on (after the last data step), if any.
 */
export function dataPointer (schemaPath: JsonPath): { pointer: string, keyword: JsonPath } {
  let pointer = ''
  let index = 0
  while (index < schemaPath.length) {
    const key = schemaPath[index]
    const tuple = (key === 'items' || key === 'prefixItems') && typeof schemaPath[index + 1] === 'number' && index + 2 < schemaPath.length
    if ((key === 'properties' || key === 'patternProperties' || tuple) && index + 1 < schemaPath.length) {
      pointer += `/${pointerSegment(schemaPath[index + 1])}`
      index += 2
    } else if ((key === 'items' || key === 'additionalProperties') && index + 1 < schemaPath.length) {
      pointer += '/*'
      index += 1
    } else if ((key === 'allOf' || key === 'anyOf' || key === 'oneOf') && typeof schemaPath[index + 1] === 'number' && index + 2 < schemaPath.length) {
      index += 2
    } else {
      break
    }
  }
  return { pointer, keyword: schemaPath.slice(index) }
}

/** Where a change inside an operation is: request or response, the place, and the rest of the path. */
export interface Place {
  readonly side: 'request' | 'response' | 'operation'
  /** `request body`, `query parameter limit`, `response 200`, `response 200 header x-rate`, `payload`… */
  readonly place: string
  /** The path inside the schema of that place (empty for parameters and whole responses). */
  readonly schemaPath: JsonPath
  /** The path of the operation-level key (`parameters`, `responses`, `summary`…). */
  readonly rest: JsonPath
}

/**
 * The parameter at `index` of an operation as `api-smart-diff` numbers them (the operation's own parameters, then
 * its path item's), `$ref` followed.
 */
function parameterAt (document: unknown, operationPath: JsonPath, index: number): unknown {
  const own = at(document, [...operationPath, 'parameters'])
  const count = Array.isArray(own) ? own.length : 0
  return index < count ? at(document, [...operationPath, 'parameters', index]) : at(document, [...operationPath.slice(0, -1), 'parameters', index - count])
}

/** A parameter as a place names it: `query parameter limit`, `header parameter x-tenant` (`parameterName(p, 0)`). */
export function parameterName (parameter: unknown, index: string | number): string {
  const { in: location, name } = (typeof parameter === 'object' && parameter !== null ? parameter : {}) as { in?: unknown, name?: unknown }
  if (typeof name !== 'string') return `parameter ${index}`
  return `${typeof location === 'string' ? `${location} ` : ''}parameter ${name}`
}

/**
 * Where a change at `diff.path` is, in the operation at `operationPath` of the saved document (the diff's paths
 * are the saved document's: an added parameter's index is not, and the parameter is the diff's own value).
 */
export function placeOf (diff: RawDiff, saved: unknown, operationPath: JsonPath): Place {
  const rest = diff.path.slice(operationPath.length)
  const [first, second, third, fourth] = rest
  if (first === 'requestBody') {
    // A change to one media type's schema names it where the saved `content` map holds several.
    return { side: 'request', place: `request body${mediaName(at(saved, [...operationPath, ...rest.slice(0, 2)]), fourth === 'schema' ? third : undefined)}`, schemaPath: second === 'content' && fourth === 'schema' ? rest.slice(4) : [], rest }
  }
  if (first === 'parameters' && typeof second === 'number') {
    const whole = rest.length === 2 && diff.action !== 'replace'
    const parameter = whole ? (diff.action === 'add' ? diff.after : diff.before) : parameterAt(saved, operationPath, second)
    return { side: 'request', place: parameterName(parameter, second), schemaPath: third === 'schema' ? rest.slice(3) : [], rest }
  }
  if (first === 'responses' && second !== undefined) {
    const response = responseName(second)
    if (third === 'headers' && fourth !== undefined) {
      return { side: 'response', place: `${response} header ${String(fourth)}`, schemaPath: rest[4] === 'schema' ? rest.slice(5) : [], rest }
    }
    return { side: 'response', place: `${response}${mediaName(at(saved, [...operationPath, ...rest.slice(0, 3)]), rest[4] === 'schema' ? fourth : undefined)}`, schemaPath: third === 'content' && rest[4] === 'schema' ? rest.slice(5) : [], rest }
  }
  return { side: 'operation', place: '', schemaPath: [], rest }
}

/**
 * A value of a document as a change shows it: a string quoted (`'^a'`), a number, `BigInt` or boolean as it is, a list of
 * them in brackets, an object as JSON, `(none)` for no value; long values cut at 60 characters, and made printable.
 */
export function shownValue (value: unknown): string {
  if (value === undefined) return '(none)'
  const one = (item: unknown): string => typeof item === 'string' ? literal(item) : typeof item === 'bigint' ? String(item) : JSON.stringify(item) ?? String(item)
  const text = Array.isArray(value) ? `[${value.map(one).join(', ')}]` : one(value)
  return printable(text.length > 60 ? `${text.slice(0, 59)}…` : text)
}

/** `added`, `removed` or `changed`. */
export function actionWord (diff: RawDiff): string {
  return diff.action === 'add' ? 'added' : diff.action === 'remove' ? 'removed' : 'changed'
}

/** A copy of a schema without its text keywords, for comparing two schemas (keys defined as own properties). */
export function withoutText (schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutText)
  if (typeof schema !== 'object' || schema === null) return schema
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) if (!TEXT_KEYS.has(key)) setOwn(copy, key, withoutText(value))
  return copy
}

/**
 * The media type of a change to a schema under a `content` map as `check` names it: ` (text/csv)` where the map holds
 * several media types, else nothing (nor for a change outside a media type's schema: `media` undefined).
 * @example
 * ```ts
 * mediaName({ 'application/json': {}, 'text/csv': {} }, 'text/csv') // ' (text/csv)'
 * ```
 */
function mediaName (content: unknown, media: unknown): string {
  return media !== undefined && typeof content === 'object' && content !== null && Object.keys(content).length > 1 ? ` (${String(media)})` : ''
}
