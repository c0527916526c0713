/**
 * What a converter decorator's arguments declare: the schemas whose routes it converts, or a path and methods, and
 * its options; each checked, a mistake named (`FST_VERSIONER_STRUCTURE`).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { VersionerStructureError } from '../core/errors'
import { normaliseMethods, type HttpMethod } from '../core/http-methods'
import { describeValue, isSchemaObject, kindOf, nameOf, refId } from '../core/json-schema'
import { decoratorName } from './hand-called-decorators'

/**
 * Options of a by-schema request converter.
 * @example
 * ```ts
 * const InvoiceCreate = Type.Object({ amount: Type.Number() }, { $id: 'InvoiceCreate' })
 * const options: RequestConverterOptions = { checkUsage: false } // the billing routes are not in every deployment
 * class AmountInCents extends VersionChange {
 *   description = 'Invoice amounts are in cents.'
 *   instructionsToMigrateToPreviousVersion = []
 *
 *   @ ConvertRequestToNextVersionFor(InvoiceCreate, options)
 *   toCents (request: RequestInfo) { request.body.amount = Math.round(request.body.amount * 100) }
 * }
 * ```
 */
export interface RequestConverterOptions {
  /** Fail at start-up when no route's request uses the schema(s) (default `true`). */
  checkUsage?: boolean
}

/**
 * Options of a by-schema response converter.
 * @example
 * ```ts
 * const ErrorBody = Type.Object({ code: Type.String() }, { $id: 'ErrorBody' })
 * const options: ResponseConverterOptions = { migrateHttpErrors: true } // ErrorBody is only in 4xx responses
 * class UpperCaseErrorCodes extends VersionChange {
 *   description = 'Error codes are upper case.'
 *   instructionsToMigrateToPreviousVersion = []
 *
 *   @ ConvertResponseToPreviousVersionFor(ErrorBody, options)
 *   lowerCase (response: ResponseInfo) { response.body.code = response.body.code.toLowerCase() }
 * }
 * ```
 */
export interface ResponseConverterOptions {
  /** Fail at start-up when no route's response uses the schema(s) (default `true`). */
  checkUsage?: boolean
  /** Also run on error responses (status ≥ 300), thrown or returned (default `false`). */
  migrateHttpErrors?: boolean
}

/**
 * Options of a by-path response converter.
 * @example
 * ```ts
 * const options: ResponsePathConverterOptions = { migrateHttpErrors: true } // the 404 is what changed
 * class UnknownUserIsNotFound extends VersionChange {
 *   description = 'An unknown user is 404, not 401.'
 *   instructionsToMigrateToPreviousVersion = []
 *
 *   @ ConvertResponseToPreviousVersionFor('/users/:id', ['GET'], options)
 *   wasUnauthorized (response: ResponseInfo) { if (response.statusCode === 404) response.statusCode = 401 }
 * }
 * ```
 */
export interface ResponsePathConverterOptions {
  /** Also run on error responses (status ≥ 300), thrown or returned (default `false`). */
  migrateHttpErrors?: boolean
}

/** What a converter applies to: routes using schemas, or one route by its (HEAD) path and methods. */
export type ConverterTarget =
  | { readonly kind: 'schema', readonly schemas: readonly TSchema[] }
  | { readonly kind: 'path', readonly path: string, readonly methods: readonly HttpMethod[] }

/** What a decorator's arguments declare: the converter, without the method it decorates. */
export interface ConverterDeclaration {
  readonly direction: 'request' | 'response'
  readonly target: ConverterTarget
  readonly checkUsage: boolean
  readonly migrateHttpErrors: boolean
}

const SCHEMA_KEYWORDS = ['type', 'properties', 'items', 'anyOf', 'allOf', 'oneOf', 'enum', 'const', '$ref', '$id', 'not',
  'patternProperties', 'additionalProperties', 'prefixItems', 'required', 'format', 'pattern']

/** True for a TypeBox schema or an object with at least one JSON Schema keyword. */
function looksLikeSchema (value: unknown): boolean {
  return isSchemaObject(value) && (kindOf(value) !== undefined || SCHEMA_KEYWORDS.some((keyword) => keyword in value))
}

function isMethods (value: unknown): boolean {
  return typeof value === 'string' || (Array.isArray(value) && value.every((item) => typeof item === 'string'))
}

function readOptions (options: Record<string, unknown>, allowed: readonly string[], display: string): Record<string, boolean> {
  for (const [key, value] of Object.entries(options)) {
    if (!allowed.includes(key)) {
      throw new VersionerStructureError(`${display}: option '${key}' does not apply here; allowed: ${allowed.join(', ') || 'none'}.`)
    }
    if (typeof value !== 'boolean') throw new VersionerStructureError(`${display}: option '${key}' must be true or false.`)
  }
  return options as Record<string, boolean>
}

/** Reads a converter decorator's arguments (`FST_VERSIONER_STRUCTURE` naming what is wrong). */
export function parseDeclaration (direction: 'request' | 'response', args: unknown[]): ConverterDeclaration {
  const display = `@${decoratorName(direction)}(${args.map((arg) => describeValue(arg)).join(', ')})`
  const last = args[args.length - 1]
  const hasOptions = args.length > 1 && isSchemaObject(last) && !looksLikeSchema(last)
  const given = hasOptions ? args.slice(0, -1) : args
  const [first, ...rest] = given
  let target: ConverterTarget
  if (typeof first === 'string') {
    if (!first.startsWith('/')) throw new VersionerStructureError(`${display}: a path must start with '/'.`)
    if (rest.length === 0 || !isMethods(rest[0])) {
      throw new VersionerStructureError(`${display}: if a path is given as the first argument, methods must be given as the second ` +
        "(a method name such as 'PUT', or a list of them).")
    }
    const methods = normaliseMethods(rest[0])
    if (rest.length > 1) throw new VersionerStructureError(`${display}: if a path is given as the first argument, no schemas can be added.`)
    target = { kind: 'path', path: first, methods: Object.freeze(methods) }
  } else {
    const schemas = given
    if (schemas.length === 0) throw new VersionerStructureError(`${display}: give the schema(s) whose routes it converts, or a path and methods.`)
    for (const schema of schemas) {
      if (!looksLikeSchema(schema)) {
        throw new VersionerStructureError(`${display}: if a schema is given as the first argument, all other arguments must be schemas ` +
          `(and an options object last); got ${describeValue(schema)}.`)
      }
    }
    const keys = (schemas as TSchema[]).map(schemaKey)
    const twice = schemas.find((_schema, index) => keys.indexOf(keys[index]) !== index)
    if (twice !== undefined) throw new VersionerStructureError(`${display}: the converter is declared twice for ${describeValue(twice)}: it would run twice on each occurrence.`)
    target = { kind: 'schema', schemas: Object.freeze(schemas as TSchema[]) }
  }
  // By path, a converter applies to one route: there is no usage to check.
  const allowed = [...(target.kind === 'schema' ? ['checkUsage'] : []), ...(direction === 'response' ? ['migrateHttpErrors'] : [])]
  const options = readOptions(hasOptions ? last as Record<string, unknown> : {}, allowed, display)
  return { direction, target: Object.freeze(target), checkUsage: options.checkUsage ?? true, migrateHttpErrors: options.migrateHttpErrors ?? false }
}

/** A schema's identity to converters, which find it by its `$id` (any object with that `$id`), else the object. */
export function schemaKey (schema: TSchema): unknown {
  const id = nameOf(schema)
  return id === undefined ? schema : `$id ${refId(id)}`
}
