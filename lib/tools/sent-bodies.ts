/**
 * A recorded request's body written back as its client sent it, in its recorded media type (decision 0303): JSON text
 * for a JSON media type (../routes/schema-forms.ts reads it, as serving does), url-encoded or multipart fields for a
 * form, the text itself for any other; or why it cannot be, when the record holds what the application's parser made
 * of the body rather than the body (a file part, a nested field, rows a CSV parser read, a body left to a stream).
 * @module
 */
import { isJsonMediaType, mediaTypeOf } from '../routes/schema-forms'

/** A body to send: its bytes as text, and the `Content-Type` to send them with (none: the recorded one). */
interface SentBody {
  readonly payload: string
  readonly contentType?: string
}

/** The fields of a form body as lists of text, or `undefined` when one is not text (a file, a nested field, a number). */
function textFields (body: unknown): Array<[string, string[]]> | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined
  const fields: Array<[string, string[]]> = []
  for (const [name, value] of Object.entries(body)) {
    const values: unknown[] = Array.isArray(value) ? value : [value]
    if (!values.every((item) => typeof item === 'string')) return undefined
    fields.push([name, values as string[]])
  }
  return fields
}

/** A multipart body of text fields, with a boundary none of them holds. */
function multipartOf (fields: ReadonlyArray<[string, string[]]>): SentBody {
  const text = fields.flat(2).join('\n')
  let boundary = 'fastify-versioner-replay'
  for (let count = 1; text.includes(boundary); count++) boundary = `fastify-versioner-replay-${count}`
  const quoted = (name: string): string => name.replace(/["\\]/g, '\\$&')
  const parts = fields.flatMap(([name, values]) => values.map((value) => `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`))
  return { payload: `${parts.join('')}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` }
}

/**
 * The body `body` recorded under the `Content-Type` `contentType` (and the recorded `Content-Length`), as its client
 * sent it; `undefined` when the request had none; `{ skipped }` with why when the record cannot give it back. A body
 * recorded without a `Content-Type` is sent as JSON.
 * @example
 * ```ts
 * bodyAsSent('application/x-www-form-urlencoded', { sku: 'pen', qty: '3' }) // { payload: 'sku=pen&qty=3' }
 * ```
 */
export function bodyAsSent (contentType: unknown, body: unknown, length?: unknown): SentBody | { skipped: string } | undefined {
  const media = mediaTypeOf(contentType)
  if (body === undefined) {
    // A body the handler reads itself (`request.file()`, a stream) is not recorded: sending none is another request.
    if (Number(length) > 0) return { skipped: `its body (${media ?? String(contentType)}) was read by the handler as a stream and not recorded` }
    return undefined
  }
  if (contentType === undefined) return { payload: JSON.stringify(body), contentType: 'application/json' }
  if (isJsonMediaType(contentType)) return { payload: JSON.stringify(body) }
  const form = media === 'application/x-www-form-urlencoded' || media === 'multipart/form-data'
  const fields = form ? textFields(body) : undefined
  if (media === 'application/x-www-form-urlencoded' && fields !== undefined) {
    return { payload: new URLSearchParams(fields.flatMap(([name, values]) => values.map((value): [string, string] => [name, value]))).toString() }
  }
  if (media === 'multipart/form-data' && fields !== undefined && !fields.some(([name]) => /[\r\n]/.test(name))) return multipartOf(fields)
  if (form) {
    return {
      skipped: `its ${media === 'multipart/form-data' ? 'multipart' : 'url-encoded'} body holds a field that is not text (a file, recorded without its name and ` +
        'media type; a nested field; a JSON part): it was recorded as the parser read it, not as its client sent it'
    }
  }
  if (typeof body === 'string') return { payload: body }
  return { skipped: `its body (${media ?? String(contentType)}) was recorded as the application's parser read it, not as its client sent it` }
}
