/**
 * Helpers for the request-side plugin tests (request migration, converter matching, endpoint instructions,
 * forms): version headers, a log capture and multipart bodies built by hand.
 */
import { Writable } from 'node:stream'

/** The `x-api-version` header for `version`, merged with other headers. */
export function v (version: string, headers: Record<string, string> = {}): Record<string, string> {
  return { 'x-api-version': version, ...headers }
}

/** One parsed pino log line. */
export type LogEntry = Record<string, any>

/** A stream for `Fastify({ logger: { level, stream } })` that keeps every log line, parsed. */
export function captureLogs (): { stream: Writable, entries: LogEntry[] } {
  const entries: LogEntry[] = []
  let pending = ''
  const stream = new Writable({
    write (chunk: Buffer, _encoding, callback) {
      pending += chunk.toString()
      const lines = pending.split('\n')
      pending = lines.pop() ?? ''
      for (const line of lines) if (line.trim() !== '') entries.push(JSON.parse(line) as LogEntry)
      callback()
    }
  })
  return { stream, entries }
}

/** A field or a file of a multipart body. */
export type MultipartPart =
  | { name: string, value: string, contentType?: string }
  | { name: string, filename: string, contentType: string, data: Buffer | string }

/** A `multipart/form-data` payload and its content type, for `app.inject()`. */
export function multipart (parts: readonly MultipartPart[]): { payload: Buffer, headers: Record<string, string> } {
  const boundary = '----fastify-versioner-test-boundary'
  const chunks: Buffer[] = []
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`))
    if ('filename' in part) {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\n` +
        `Content-Type: ${part.contentType}\r\n\r\n`))
      chunks.push(Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data))
    } else {
      const type = part.contentType === undefined ? '' : `Content-Type: ${part.contentType}\r\n`
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${part.name}"\r\n${type}\r\n${part.value}`))
    }
    chunks.push(Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}
