/**
 * Reads and checks the `deprecated` keyword of request fields, parameters, headers and enum members (decision 0061).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { VersionerStructureError } from '../core/errors'
import { toIsoDate } from '../core/iso-date'
import { describeValue, isSchemaObject, type SchemaObject } from '../core/json-schema'
import { instantOf } from './release-dates'
import { everySubschema } from '../core/subschemas'

/** True for a URL that can stand inside `<…>` in a `Link` header (RFC 8288): a version's lifecycle page, a field deprecation's page. */
function isHeaderSafeUrl (value: unknown): value is string {
  // Printable ASCII only (so no spaces), and none of the characters a URL must escape.
  if (typeof value !== 'string' || value === '' || /[^\x21-\x7e]|["<>\\^`{|}]/.test(value)) return false
  return value.startsWith('/') || URL.canParse(value)
}

/**
 * The value of a field's `deprecated` keyword when it says more than `true`: the deprecation's date (the
 * `Deprecation` header, RFC 9745; `@0`, deprecated already, when not given), its sunset (`Sunset`, RFC 8594) and
 * its page (`Link: <…>; rel="deprecation"`; the version's document when not given). Dates are `Date`s or ISO 8601
 * strings: a date (midnight UTC) or a date-time with its time zone.
 * @example
 * ```ts
 * const Body = Type.Object({
 *   zip: Type.Optional(Type.String({ deprecated: { sunsetAt: '2027-01-01', link: 'https://example.com/zip' } }))
 * })
 * ```
 */
export interface FieldDeprecationOptions {
  deprecatedAt?: string | Date
  sunsetAt?: string | Date
  link?: string
}

const OPTIONS = ['deprecatedAt', 'sunsetAt', 'link']

/** What a deprecated schema node says: when it was deprecated, when it goes away, where it is documented. */
export interface FieldDeprecation {
  /** Seconds since the epoch, for `Deprecation: @…` (RFC 9745); 0 when no `deprecatedAt` is given. */
  readonly deprecatedAt: number
  readonly sunsetAt: Date | undefined
  readonly link: string | undefined
}

/** The dates and page of a deprecation (a version's lifecycle, a field's `deprecated`), checked; `display` and `prefix` name them in errors. */
export function readDeprecationDates (value: FieldDeprecationOptions, display: string, prefix: string):
{ deprecatedAt: Date | undefined, sunsetAt: Date | undefined, link: string | undefined } {
  const [deprecatedAt, sunsetAt] = (['deprecatedAt', 'sunsetAt'] as const).map((key) => {
    const given = value[key]
    // A string in local time would be another instant on each instance's time zone (its Sunset, its 410).
    const date = instantOf(given, `${display}: ${prefix}${key}`)
    if (given !== undefined && date === undefined) {
      throw new VersionerStructureError(`${display}: ${prefix}${key} must be a Date or a date string such as '2027-01-01'; got ${describeValue(given)}. ` +
        'A date-time needs its time zone (\'2027-01-01T09:00:00Z\'): the same instant on every instance.')
    }
    return date
  })
  if (value.link !== undefined && !isHeaderSafeUrl(value.link)) {
    throw new VersionerStructureError(`${display}: ${prefix}link must be an absolute URL or a path starting with '/', without ` +
      `spaces, quotes, '<' or '>' (it goes into a Link header); got ${describeValue(value.link)}.`)
  }
  if (deprecatedAt !== undefined && sunsetAt !== undefined && sunsetAt < deprecatedAt) {
    throw new VersionerStructureError(`${display}: ${prefix}sunsetAt must not be earlier than ${prefix}deprecatedAt (RFC 9745).`)
  }
  return { deprecatedAt, sunsetAt, link: value.link }
}

/** Checks the `deprecated` keyword of `keywords` (`display` naming them) and returns the deprecation it says, if any. */
export function readFieldDeprecation (keywords: unknown, display: string): FieldDeprecation | undefined {
  if (!isSchemaObject(keywords)) return undefined
  const value: unknown = keywords.deprecated
  if (value === undefined || value === false) return undefined
  if (value === true) return { deprecatedAt: 0, sunsetAt: undefined, link: undefined }
  const extra = isSchemaObject(value) ? Object.keys(value).filter((key) => !OPTIONS.includes(key)) : []
  if (!isSchemaObject(value) || extra.length > 0) {
    throw new VersionerStructureError(`${display}: 'deprecated' takes true, false or { deprecatedAt, sunsetAt, link }; got ${describeValue(value)}.`)
  }
  const { deprecatedAt, sunsetAt, link } = readDeprecationDates(value as FieldDeprecationOptions, display, 'deprecated.')
  return { deprecatedAt: deprecatedAt === undefined ? 0 : Math.floor(deprecatedAt.getTime() / 1000), sunsetAt, link }
}

/**
 * Checks every `deprecated` keyword of `schema` and of the schemas it nests (`where` names it in the error): those of
 * a response or webhook payload, which no request plan reads, when the route or webhook is declared.
 * @example
 * ```ts
 * checkDeprecations(UserResource, 'GET /users/:id: the response schema of 200') // throws on `deprecated: 'yes'`
 * ```
 */
export function checkDeprecations (schema: unknown, where: string): void {
  if (isSchemaObject(schema)) for (const node of everySubschema([schema as TSchema])) readFieldDeprecation(node, where)
}

/**
 * A schema node as documents show it: a `deprecated` object becomes `deprecated: true` with `x-deprecated-at`,
 * `x-sunset-at` and `x-deprecation-link`.
 */
export function documentedDeprecation (node: TSchema): TSchema {
  const value = (node as SchemaObject).deprecated
  if (value === undefined || value === false) return node
  const copy: SchemaObject = { ...node as SchemaObject, deprecated: true }
  if (isSchemaObject(value)) {
    // An object value is checked (a bad one threw when its instruction was written or its route planned).
    const deprecation = readFieldDeprecation(node, 'A schema') as FieldDeprecation
    if (value.deprecatedAt !== undefined) copy['x-deprecated-at'] = toIsoDate(new Date(deprecation.deprecatedAt * 1000))
    if (deprecation.sunsetAt !== undefined) copy['x-sunset-at'] = toIsoDate(deprecation.sunsetAt)
    if (deprecation.link !== undefined) copy['x-deprecation-link'] = deprecation.link
  }
  // `@fastify/swagger` drops every keyword beside a `$ref` (OpenAPI 3.0's rule): the deprecation stands beside an `allOf` of it.
  const { $ref, ...beside } = copy
  return (typeof $ref === 'string' ? { ...beside, allOf: [{ $ref }] } : copy) as TSchema
}
