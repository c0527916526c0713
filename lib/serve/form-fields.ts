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
 * the part it came from (`was`, a JSON string `application/json`), a parsed value is `application/json`.
 */
function valueToPart (name: string, value: FormValue, fields: Record<string, unknown> | undefined, was?: unknown, within?: unknown[]): unknown {
  if (!isFormFile(value)) {
    if (fields === undefined) return value
    const from = isPart(was, within) && was.type === 'field' ? was : undefined
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
    setOwn(body, name, repeated
      ? (value as FormValue[]).map((item, index) => Array.isArray(was) ? valueToPart(name, item, partsOf, was[index], was) : valueToPart(name, item, partsOf))
      : valueToPart(name, value, partsOf, was))
  }
  return body
}
