/**
 * The traffic given to `readTraffic`, `replayTraffic` and `mutateConverters`, checked: from JavaScript, a file read
 * without its encoding (a Buffer), the file's text where `readTraffic`'s answer belongs, or that answer where its
 * `exchanges` belong failed inside the tool with a bare TypeError (`traffic.exchanges is not iterable`).
 * @module
 */
import { VersionerToolError } from '../core/errors'

/** What a value is, as a message names it. */
function kind (value: unknown): string {
  if (typeof value === 'string') return 'a string (the file\'s text?)'
  if (value instanceof Uint8Array) return 'bytes (a Buffer: the file read without its encoding?)'
  if (Array.isArray(value)) return 'an array'
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`
}

/**
 * `readTraffic`'s text, or `FST_VERSIONER_TOOL` saying how to read it.
 * @example
 * ```ts
 * trafficText(await readFile('exchanges.ndjson', 'utf8')) // the text
 * trafficText(await readFile('exchanges.ndjson')) // throws: a Buffer, read it with 'utf8'
 * ```
 */
export function trafficText (text: unknown): string {
  if (typeof text === 'string') return text
  throw new VersionerToolError(`readTraffic takes the traffic file's text, readTraffic(await readFile(file, 'utf8')); got ${kind(text)}.`)
}

/**
 * Throws `FST_VERSIONER_TOOL` unless `traffic` is what `readTraffic` returns (an object with a list of `exchanges`), as
 * `replayTraffic` takes it.
 * @example
 * ```ts
 * replayTrafficArgument(readTraffic(text)) // passes
 * replayTrafficArgument(text) // throws: replayTraffic(app, readTraffic(text))
 * ```
 */
export function replayTrafficArgument (traffic: unknown): void {
  if (typeof traffic === 'object' && traffic !== null && Array.isArray((traffic as { exchanges?: unknown }).exchanges)) return
  throw new VersionerToolError(`replayTraffic takes what readTraffic returns, replayTraffic(app, readTraffic(text)); got ${kind(traffic)}.`)
}

/**
 * Throws `FST_VERSIONER_TOOL` unless `mutateConverters`' `traffic` and `deliveries` options are absent or lists (what
 * `readTraffic`'s `exchanges` and `deliveries` are).
 * @example
 * ```ts
 * const { exchanges, deliveries } = readTraffic(text)
 * mutateTrafficOptions({ traffic: exchanges, deliveries }) // passes
 * mutateTrafficOptions({ traffic: readTraffic(text) }) // throws: give its exchanges
 * ```
 */
export function mutateTrafficOptions (options: { readonly traffic?: unknown, readonly deliveries?: unknown }): void {
  for (const [option, field] of [['traffic', 'exchanges'], ['deliveries', 'deliveries']] as const) {
    const value = options[option]
    if (value === undefined || Array.isArray(value)) continue
    throw new VersionerToolError(`The ${option} option of mutateConverters takes readTraffic(text).${field} (a list); got ${kind(value)}.`)
  }
}
