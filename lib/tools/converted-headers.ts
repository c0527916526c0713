/**
 * The response headers a replay compares (./replay-exchange.ts): those the converters set, changed or removed, but the
 * ones hooks running after them change.
 * @module
 */
import { deepEqual } from '../core/json-schema'
import { setOwn } from '../core/own-properties'
import { copyJson } from '../serve/step-runner'

/**
 * Response headers that hooks running after the converters change (the cookie plugin's `Set-Cookie`, the versioner's
 * `Link` and `Cache-Control`, `Vary` that compression and CORS plugins extend, `Content-Length`): what the client
 * received of them is not the converters' alone, so they are not compared.
 */
const CHANGED_AFTER_CONVERTERS = new Set(['set-cookie', 'link', 'cache-control', 'vary', 'content-length'])

/** A JSON copy of headers with lower-case names (as the reply stores them), without the removed ones. */
export function lowerCased (headers: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined) setOwn(copy, name.toLowerCase(), copyJson(value))
  return copy
}

/**
 * The response headers the converters set, changed or removed (`undefined`), by lower-case name, from the handler's
 * (`returned`), but those {@link CHANGED_AFTER_CONVERTERS}: what the client must have received of each.
 */
export function convertedHeaders (returned: Record<string, unknown>, now: unknown): Record<string, unknown> {
  const after = lowerCased(now)
  const changed: Record<string, unknown> = {}
  for (const name of new Set([...Object.keys(returned), ...Object.keys(after)])) {
    if (!CHANGED_AFTER_CONVERTERS.has(name) && !deepEqual(returned[name], after[name])) setOwn(changed, name, after[name])
  }
  return changed
}
