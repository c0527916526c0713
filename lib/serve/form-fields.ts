/**
 * Form bodies as converters see them (`RequestInfo.form`): the fields of an url-encoded or attached multipart body, and back.
 * @module
 */
import { isFormFile, type FormFields, type FormValue } from '../describe/converter-info'
import { setOwn } from '../core/own-properties'

interface MultipartPart {
  type: 'field' | 'file'
  fieldname?: string
  value?: unknown
  filename?: string
  mimetype?: string
  encoding?: string
  _buf?: Buffer
  toBuffer?: () => Promise<Buffer>
  fields?: Record<string, unknown>
}

/**
 * A part `@fastify/multipart` made (`attachFieldsToBody: true`), or this module wrote back: the fields it names hold
 * it, or the array it is read from (`within`, a field sent more than once). A field's parsed JSON value shaped like
 * one (`{ "type": "field" }` under `'keyValues'`) is not, JSON having no object found inside itself.
 */
function isPart (value: unknown, within?: unknown[]): value is MultipartPart {
  if (typeof value !== 'object' || value === null) return false
  const part = value as MultipartPart
  if ((part.type !== 'field' && part.type !== 'file') || typeof part.fieldname !== 'string' || typeof part.fields !== 'object' || part.fields === null) return false
  return Object.hasOwn(part.fields, part.fieldname) && part.fields[part.fieldname] === (within ?? part)
}

/**
 * A field's value as the body holds it: text, the number, flag or `null` the version's schema validated it into
 * (decision 0300), or a value parsed from the text (nested, or a multipart JSON field: decision 0302).
 */
function fieldText (value: unknown): FormValue {
  const kind = typeof value
  return kind === 'string' || kind === 'number' || kind === 'boolean' || kind === 'object' ? value as FormValue : String(value)
}

function partToValue (part: unknown, within?: unknown[]): FormValue {
  if (Buffer.isBuffer(part)) return { filename: '', mimetype: 'application/octet-stream', encoding: '7bit', data: part }
  if (!isPart(part, within)) return fieldText(part)
  if (part.type === 'field') return fieldText(part.value)
  return { filename: part.filename ?? '', mimetype: part.mimetype ?? 'application/octet-stream', encoding: part.encoding ?? '7bit', data: part._buf ?? Buffer.alloc(0) }
}

/** The form fields of a body, or `undefined` when it is not a form. */
export function readForm (kind: 'urlencoded' | 'multipart' | undefined, body: unknown): FormFields | undefined {
  if (kind === undefined || typeof body !== 'object' || body === null) return undefined
  const fields: FormFields = {}
  for (const [name, value] of Object.entries(body)) {
    if (kind === 'urlencoded') setOwn(fields, name, Array.isArray(value) ? value.map(fieldText) : fieldText(value))
    else setOwn(fields, name, Array.isArray(value) ? value.map((item) => partToValue(item, value)) : partToValue(value))
  }
  return fields
}

/**
 * A value as the body holds it: as a part of `fields` when the body holds parts. Text keeps the type and encoding of
 * the part it came from (`from`, a JSON string `application/json`), a parsed value is `application/json`.
 */
function valueToPart (name: string, value: FormValue, fields: Record<string, unknown> | undefined, from?: MultipartPart): unknown {
  if (!isFormFile(value)) {
    if (fields === undefined) return value
    const mimetype = typeof value !== 'string' ? 'application/json' : from?.mimetype ?? 'text/plain'
    return { type: 'field', fieldname: name, value, mimetype, encoding: from?.encoding ?? '7bit', fields }
  }
  if (fields === undefined) return value.data
  const data = value.data
  return {
    type: 'file',
    fieldname: name,
    filename: value.filename,
    mimetype: value.mimetype,
    encoding: value.encoding,
    fields,
    _buf: data,
    toBuffer: async () => data
  }
}

/** The body for form fields, in the shape the body had (`original`). */
export function writeForm (kind: 'urlencoded' | 'multipart', fields: FormFields, original: unknown): Record<string, unknown> {
  const parts = kind === 'multipart' && typeof original === 'object' && original !== null ? original as Record<string, unknown> : undefined
  const asParts = parts !== undefined && Object.values(parts).some((value) => Array.isArray(value) ? isPart(value[0], value) : isPart(value))
  const body: Record<string, unknown> = {}
  const partsOf = asParts ? body : undefined
  for (const [name, value] of Object.entries(fields)) {
    // An array is a field sent more than once, but for one part whose JSON value was an array: it stays one part.
    const was = asParts && Object.hasOwn(parts, name) ? parts[name] : undefined
    const repeated = Array.isArray(value) && !(isPart(was) && Array.isArray(was.value))
    const items = repeated ? value as FormValue[] : [value]
    const from = asParts ? cameFrom(was, items) : []
    const written = items.map((item, index) => valueToPart(name, item, partsOf, from[index]))
    setOwn(body, name, repeated ? written : written[0])
  }
  return body
}

/**
 * The field part each of `items` came from, of `was` (the part or parts the body held for the field): the one at its
 * place when it holds that very value, else one holding that value elsewhere, else, where there are as many values as
 * parts, the one at its place no other value came from (a text the converter changed there); none for a value it added.
 * A converter that reorders, drops, adds or changes values of a field sent more than once leaves each its own type.
 */
function cameFrom (was: unknown, items: readonly FormValue[]): Array<MultipartPart | undefined> {
  const within = Array.isArray(was) ? was : undefined
  const parts = (within ?? [was]).map((part) => isPart(part, within) && part.type === 'field' ? part : undefined)
  const taken = new Set<number>()
  const found: Array<number | undefined> = items.map((item, index) => {
    if (parts[index] === undefined || parts[index].value !== item) return undefined
    taken.add(index)
    return index
  })
  const holding = new Map<unknown, number[]>()
  for (let index = parts.length - 1; index >= 0; index--) {
    const part = parts[index]
    if (part === undefined || taken.has(index)) continue
    const indexes = holding.get(part.value)
    if (indexes === undefined) holding.set(part.value, [index])
    else indexes.push(index)
  }
  for (const [index, item] of items.entries()) {
    if (found[index] !== undefined) continue
    const at = holding.get(item)?.pop()
    if (at !== undefined) taken.add(found[index] = at)
  }
  return found.map((at, index) => {
    if (at === undefined && items.length === parts.length && parts[index] !== undefined && !taken.has(index)) taken.add(at = index)
    return at === undefined ? undefined : parts[at]
  })
}
