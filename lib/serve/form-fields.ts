/**
 * Form bodies as converters see them (`RequestInfo.form`): the fields of an url-encoded or attached multipart body, and back.
 * @module
 */
import type { FormFields, FormFile, FormValue } from '../describe/converter-info'
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
}

function isPart (value: unknown): value is MultipartPart {
  return typeof value === 'object' && value !== null && ((value as MultipartPart).type === 'field' || (value as MultipartPart).type === 'file')
}

/**
 * A multipart part's value: a file's `FormFile`, a field's value as the body holds it (its text, or the number, flag or
 * `null` the version's schema validated it into: decision 0300; a JSON field's object).
 */
function partToValue (part: unknown): FormValue {
  if (Buffer.isBuffer(part)) return { filename: '', mimetype: 'application/octet-stream', encoding: '7bit', data: part }
  if (!isPart(part)) return part as FormValue
  if (part.type === 'field') return part.value as FormValue
  return { filename: part.filename ?? '', mimetype: part.mimetype ?? 'application/octet-stream', encoding: part.encoding ?? '7bit', data: part._buf ?? Buffer.alloc(0) }
}

function isFile (value: FormValue): value is FormFile {
  // A converter may have set a field to null; an object field (nested, or JSON) holds no file's buffer.
  return typeof value === 'object' && value !== null && Buffer.isBuffer(value.data)
}

/** The form fields of a body, or `undefined` when it is not a form. */
export function readForm (kind: 'urlencoded' | 'multipart' | undefined, body: unknown): FormFields | undefined {
  if (kind === undefined || typeof body !== 'object' || body === null) return undefined
  const fields: FormFields = {}
  for (const [name, value] of Object.entries(body)) {
    // Url-encoded values as the body holds them, as a JSON body's: text, or what the version's schema validated it into (decision 0300).
    if (kind === 'urlencoded') setOwn(fields, name, Array.isArray(value) ? [...value] as FormValue[] : value as FormValue)
    else setOwn(fields, name, Array.isArray(value) ? value.map(partToValue) : partToValue(value))
  }
  return fields
}

function valueToPart (name: string, value: FormValue, asParts: boolean): unknown {
  if (!isFile(value)) {
    const mimetype = typeof value === 'object' && value !== null ? 'application/json' : 'text/plain'
    return asParts ? { type: 'field', fieldname: name, value, mimetype, encoding: '7bit' } : value
  }
  if (!asParts) return value.data
  const data = value.data
  return {
    type: 'file',
    fieldname: name,
    filename: value.filename,
    mimetype: value.mimetype,
    encoding: value.encoding,
    _buf: data,
    toBuffer: async () => data
  }
}

/** The body for form fields, in the shape the body had (`original`). */
export function writeForm (kind: 'urlencoded' | 'multipart', fields: FormFields, original: unknown): Record<string, unknown> {
  const asParts = kind === 'multipart' && typeof original === 'object' && original !== null &&
    Object.values(original).some((value) => isPart(Array.isArray(value) ? value[0] : value))
  const body: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(fields)) {
    setOwn(body, name, Array.isArray(value) ? value.map((item) => valueToPart(name, item, asParts)) : valueToPart(name, value, asParts))
  }
  return body
}
