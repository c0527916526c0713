/**
 * A route's body and responses in every form Fastify accepts, read into slots of one schema each and given back in
 * that form with a version's schemas ([decision 0063](../../docs/decisions/0063-every-schema-form-versioned.md)).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { RouterGenerationError } from '../core/errors'
import { isSchemaObject, type SchemaObject } from '../core/json-schema'
import { checkDeprecations } from '../describe/field-deprecation'

/** A route's body or responses read into slots, with the form they were given in. */
export interface SchemaSlots {
  /**
   * Each schema by slot key. A body's: `''` for the short form (every content type), else its media type in the
   * `content` form. A response's: its status key in lower case (`200`, `2xx`, `default`), followed by a space and the
   * media type in the `content` form (`200 application/json`).
   */
  readonly schemas: Readonly<Record<string, TSchema>>
  /** A response map's slot keys by status key: one (a schema), or one per media type (the `content` form). */
  readonly byStatus: ReadonlyMap<string, string | ReadonlyMap<string, string>>
  /** The body or response map as given (fluent schemas as their JSON Schema). */
  readonly given: unknown
}

/** No body, no responses: one object. */
const NONE: SchemaSlots = Object.freeze({ schemas: Object.freeze({}), byStatus: new Map(), given: undefined })

/** Fluent schemas (`fluent-json-schema`): Fastify takes their JSON Schema from `valueOf()`, and so does the versioner. */
const kFluentSchema = Symbol.for('fluent-schema-object')

/** A schema as the versioner reads it (a fluent schema's JSON Schema); any other non-plain object (Joi, zod) throws. */
function readableSchema (value: unknown, where: string): unknown {
  if (!isSchemaObject(value)) return value
  const fluent = value as SchemaObject & { valueOf: () => unknown }
  if (fluent.isFluentSchema === true || fluent.isFluentJSONSchema === true || fluent[kFluentSchema as unknown as string] === true) return fluent.valueOf()
  const prototype = Object.getPrototypeOf(value) as object | null
  if (prototype === Object.prototype || prototype === null) return value
  throw new RouterGenerationError(`${where} is a ${prototype.constructor?.name ?? 'custom'} object, not a JSON Schema: the versioner cannot ` +
    'give it each version\'s shape. Declare the schemas of a route inside versioned(...) as JSON Schema (TypeBox), or register the route outside versioned(...).')
}

/** The `content` map of a body or response, when it is in that form (as Fastify tells it: a truthy `content`). */
function contentOf (value: unknown): Record<string, unknown> | undefined {
  if (!isSchemaObject(value) || !value.content) return undefined
  return isSchemaObject(value.content) ? value.content : {}
}

/** The schema of a `content` entry, if any; a media type Fastify never matches is a `RouterGenerationError`. */
function entrySchema (entry: unknown, where: string, media: string): TSchema | undefined {
  if (media !== mediaTypeOf(media)) {
    throw new RouterGenerationError(`${where} is declared for a media type Fastify never matches: it compares ` +
      `a request's and a reply's media type in lower case, without parameters. Write '${mediaTypeOf(media) ?? media.toLowerCase()}'.`)
  }
  if (!isSchemaObject(entry) || entry.schema === undefined) return undefined
  return readableSchema(entry.schema, where) as TSchema
}

/**
 * Reads a route's body schema: the short form is slot `''`; the `content` form has a slot per media type.
 * @example
 * readBody({ content: { 'application/json': { schema: User } } }, 'POST /users').schemas // { 'application/json': User }
 */
function readBody (given: unknown, display: string): SchemaSlots {
  if (given === undefined) return NONE
  const body = readableSchema(given, `${display}: the body schema`)
  const content = contentOf(body)
  const schemas: Record<string, TSchema> = {}
  if (content === undefined) schemas[''] = body as TSchema
  for (const [media, entry] of Object.entries(content ?? {})) {
    const schema = entrySchema(entry, `${display}: the body schema of ${media}`, media)
    if (schema !== undefined) schemas[media] = schema
  }
  return { schemas, byStatus: NONE.byStatus, given: body }
}

/** A short-form response's schema without the `headers` written beside it, which describe the response, not its body. */
function withoutHeaders (value: unknown): unknown {
  if (!isSchemaObject(value) || !Object.hasOwn(value, 'headers')) return value
  const { headers: _headers, ...schema } = value
  return schema
}

/**
 * Reads a route's response map: a slot per status key (lower case), or per key and media type for a `content` map;
 * `description` and `headers` beside a schema stay out of the slot's schema.
 * @example
 * readResponses({ 200: User, default: Problem }, 'GET /users/:id').byStatus // Map { '200' => '200', 'default' => 'default' }
 */
function readResponses (given: unknown, display: string): SchemaSlots {
  if (!isSchemaObject(given)) return NONE
  const schemas: Record<string, TSchema> = {}
  const byStatus = new Map<string, string | ReadonlyMap<string, string>>()
  const read: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(given)) {
    const status = key.toLowerCase()
    const response = readableSchema(value, `${display}: the response schema of ${key}`)
    read[key] = response
    const content = contentOf(response)
    if (content === undefined) {
      // Anything but a schema (a `$ref` string) is Fastify's own error.
      if (!isSchemaObject(response) && typeof response !== 'boolean') continue
      schemas[status] = withoutHeaders(response) as TSchema
      checkDeprecations(schemas[status], `${display}: the response schema of ${key}`)
      byStatus.set(status, status)
      continue
    }
    const media = new Map<string, string>()
    for (const [type, entry] of Object.entries(content)) {
      const schema = entrySchema(entry, `${display}: the response schema of ${key} for ${type}`, type)
      if (schema === undefined) continue
      checkDeprecations(schema, `${display}: the response schema of ${key} for ${type}`)
      media.set(type, `${status} ${type}`)
      schemas[`${status} ${type}`] = schema
    }
    byStatus.set(status, media)
  }
  return { schemas, byStatus, given: read }
}

/** How a version replaces the schema of each slot (`slot` its key, `schema` HEAD's). */
type SlotReplacer = (slot: string, schema: TSchema) => TSchema

/** A `content` map with the schema of each entry that has a slot (`slotOf(media type)`) replaced by `replace`; itself when none changed. */
function rebuildContent (content: Record<string, unknown>, slotOf: (media: string) => string | undefined, slots: SchemaSlots, replace: SlotReplacer): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined
  for (const [media, entry] of Object.entries(content)) {
    const slot = slotOf(media)
    if (slot === undefined || !isSchemaObject(entry)) continue
    const schema = replace(slot, slots.schemas[slot])
    if (schema === entry.schema) continue
    copy ??= { ...content }
    copy[media] = { ...entry, schema }
  }
  return copy ?? content
}

/** The body in the form it was given, each slot's schema replaced by `replace`. */
export function rebuildBody (slots: SchemaSlots, replace: SlotReplacer): unknown {
  const content = contentOf(slots.given)
  if (content === undefined) return slots.schemas[''] === undefined ? slots.given : replace('', slots.schemas[''])
  const rebuilt = rebuildContent(content, (media) => media in slots.schemas ? media : undefined, slots, replace)
  return rebuilt === content ? slots.given : { ...(slots.given as object), content: rebuilt }
}

/**
 * The response map in the form it was given, each slot's schema replaced by `replace`, each under `keyOf(key)`; a
 * replaced short-form schema keeps the `headers` and `description` beside it.
 */
export function rebuildResponses (slots: SchemaSlots, replace: SlotReplacer, keyOf: (key: string) => string = (key) => key): Record<string, unknown> {
  const result: Record<string, unknown> = {}
  if (!isSchemaObject(slots.given)) return result
  for (const [key, response] of Object.entries(slots.given)) {
    const status = key.toLowerCase()
    const content = contentOf(response)
    let rebuilt: unknown = response
    if (content !== undefined) {
      const media = slots.byStatus.get(status) as ReadonlyMap<string, string>
      const replaced = rebuildContent(content, (type) => media.get(type), slots, replace)
      if (replaced !== content) rebuilt = { ...(response as object), content: replaced }
    } else if (status in slots.schemas) {
      const schema = slots.schemas[status]
      const form = replace(status, schema)
      if (form !== schema) rebuilt = withResponseFields(form, response as SchemaObject)
    }
    const target = keyOf(key)
    result[target] = target in result ? bothResponses(result[target], rebuilt) : rebuilt
  }
  return result
}

/**
 * One status answering the bodies of two (a version whose every success has the status `had({ statusCode })` gives
 * it): each media type's schema is either one's ([decision 0267](../../docs/decisions/0267-one-status-for-two-successes.md)).
 */
function bothResponses (first: unknown, second: unknown): unknown {
  const firstContent = contentOf(first)
  const secondContent = contentOf(second)
  if (firstContent === undefined && secondContent === undefined) return { anyOf: [first, second] }
  const content: Record<string, unknown> = { ...(firstContent ?? { 'application/json': { schema: first } }) }
  for (const [media, entry] of Object.entries(secondContent ?? { 'application/json': { schema: second } })) {
    const known = content[media]
    content[media] = isSchemaObject(known) && isSchemaObject(entry) ? { ...known, schema: { anyOf: [known.schema, entry.schema] } } : entry
  }
  const described = firstContent !== undefined ? first : secondContent !== undefined ? second : {}
  return { ...(described as object), content }
}

/** A version's schema of a short-form response, with the `headers` and `description` HEAD wrote beside its schema. */
function withResponseFields (form: TSchema, given: SchemaObject): TSchema {
  if (!isSchemaObject(form)) return form
  const extra: Record<string, unknown> = {}
  if (Object.hasOwn(given, 'headers')) extra.headers = given.headers
  if (typeof given.description === 'string' && form.description === undefined) extra.description = given.description
  return Object.keys(extra).length === 0 ? form : { ...form, ...extra } as TSchema
}

/** A media type's characters (RFC 9110 tokens), as Fastify checks them. */
const MEDIA_TYPE = /^[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+$/

/**
 * The media type of a `Content-Type` value, in lower case and without parameters, as Fastify reads it; `undefined`
 * when it is not one.
 * @example
 * mediaTypeOf('Application/JSON; charset=utf-8') // 'application/json'
 */
export function mediaTypeOf (contentType: unknown): string | undefined {
  if (typeof contentType !== 'string') return undefined
  const end = contentType.indexOf(';')
  const media = (end === -1 ? contentType : contentType.slice(0, end)).trim().toLowerCase()
  return MEDIA_TYPE.test(media) ? media : undefined
}

/**
 * True for a `Content-Type` (or a `content` map's key) whose media type is JSON text, as Fastify tells it when it
 * serializes: its type and subtype hold `json` (`application/json`, `application/vnd.acme+json`); a parameter never
 * makes it so (`text/csv; profile="a.json"` is text).
 * @example
 * isJsonMediaType('application/problem+json; charset=utf-8') // true
 */
export function isJsonMediaType (contentType: unknown): boolean {
  return mediaTypeOf(contentType)?.includes('json') === true
}

const URLENCODED = /^\s*application\/x-www-form-urlencoded\s*(?:;|$)/i
const MULTIPART = /^\s*multipart\/form-data\s*(?:;|$)/i

/**
 * The kind of form a content type announces, if any. Two anchored tests, which allocate nothing: a multipart boundary
 * differs per request, so no lookup by content type would do.
 */
export function formKind (contentType: string | undefined): 'urlencoded' | 'multipart' | undefined {
  if (contentType === undefined) return undefined
  return URLENCODED.test(contentType) ? 'urlencoded' : MULTIPART.test(contentType) ? 'multipart' : undefined
}

/**
 * The slot Fastify serializes a response with: the status key (exact, `Nxx`, `default`), then in a `content` map the
 * reply's media type, then the map's wildcard entry; `undefined` when none.
 */
export function responseSlot (slots: SchemaSlots, status: number, reply: { getHeader: (name: string) => unknown }): string | undefined {
  const byStatus = slots.byStatus
  const exact = String(status)
  const found = byStatus.get(exact) ?? byStatus.get(`${exact[0]}xx`) ?? byStatus.get('default')
  if (found === undefined || typeof found === 'string') return found
  const media = mediaTypeOf(reply.getHeader('content-type'))
  return media === undefined ? undefined : found.get(media) ?? found.get('*/*')
}

/**
 * The status key and media type of a response slot, as Fastify gives them to a serializer compiler (`httpStatus`,
 * `contentType`: the media type only for a `content` map's slot).
 * @example
 * slotParts('2xx application/json') // ['2xx', 'application/json']
 */
export function slotParts (slot: string): [string, string | undefined] {
  const space = slot.indexOf(' ')
  return space === -1 ? [slot, undefined] : [slot.slice(0, space), slot.slice(space + 1)]
}

/** True for the slot of a success response (`1xx`-`2xx`) or of `default`, which Fastify uses for every status without its own. */
export function answersSuccess (slot: string): boolean {
  return /^(?:[12]|default)/.test(slot)
}

/** The request parts other than the body, whose schemas have one form. */
type PlainPart = 'params' | 'querystring' | 'headers'

/** A HEAD route's schemas as plans read them: read once, at registration. */
export interface RouteForms {
  /** The schema of each request part but the body (the query string given as `querystring` or `query`). */
  readonly parts: Readonly<Partial<Record<PlainPart, TSchema>>>
  readonly body: SchemaSlots
  /** The responses at each level (index = level): HEAD's, or those an endpoint instruction gave. */
  readonly responses: readonly SchemaSlots[]
}

/**
 * Reads a HEAD route's schema and each level's response map (`responsesAt`, `undefined` for HEAD's) into slots; a
 * form the versioner cannot read is a `RouterGenerationError`.
 * @example
 * const forms = readRouteForms(route.schema, timeline.map((state) => state.attributes.response), 'GET /users/:id')
 */
export function readRouteForms (given: Readonly<Record<string, unknown>>, responsesAt: ReadonlyArray<unknown>, display: string): RouteForms {
  const parts: Partial<Record<PlainPart, TSchema>> = {}
  for (const [part, key] of [['params', 'params'], ['querystring', given.querystring === undefined ? 'query' : 'querystring'], ['headers', 'headers']] as const) {
    if (given[key] !== undefined) parts[part] = readableSchema(given[key], `${display}: the ${key} schema`) as TSchema
  }
  const head = readResponses(given.response, display)
  const read = new Map<unknown, SchemaSlots>([[undefined, head], [given.response, head]])
  const responses = responsesAt.map((map) => {
    let slots = read.get(map)
    if (slots === undefined) read.set(map, slots = readResponses(map, display))
    return slots
  })
  return { parts, body: readBody(given.body, display), responses }
}
