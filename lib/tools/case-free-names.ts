/**
 * The names HTTP compares in any case, written in lower case in both documents `check` diffs: header names (of
 * header parameters and response headers; Fastify lowers them) and media types (`Application/JSON` is
 * `application/json`; a media type's parameters, `; charset=utf-8`, are kept as written). `api-smart-diff` pairs
 * them as written, so a name written in another case read as one removed (a break) and another added.
 * @module
 */
import { setOwn } from '../core/own-properties'
import { operationMethod } from '../docs/openapi-schemas'
import { isObject } from './type-printer'
import { withStylesInForce } from './parameter-styles'

type Json = Record<string, unknown>

/** A copy of a map (`headers`, `content`) with each key given by `name`, or the value as it is when not an object. */
function renamedKeys (map: unknown, name: (key: string) => string): unknown {
  if (!isObject(map)) return map
  const copy: Json = {}
  for (const [key, value] of Object.entries(map)) setOwn(copy, name(key), value)
  return copy
}

/** A media type with its type and subtype in lower case, its parameters as written. */
const mediaType = (key: string): string => key.replace(/^[^;]*/, (essence) => essence.toLowerCase())

/** A request body or response (not a `$ref`) with its media types in lower case, and its headers' names. */
function withLowerNames (part: unknown): unknown {
  if (!isObject(part) || Object.hasOwn(part, '$ref')) return part
  const copy: Json = { ...part }
  if (Object.hasOwn(part, 'content')) copy.content = renamedKeys(part.content, mediaType)
  if (Object.hasOwn(part, 'headers')) copy.headers = renamedKeys(part.headers, (name) => name.toLowerCase())
  return copy
}

/**
 * An operation (or path item) with its header parameters' names, its response headers' names and its media types in
 * lower case, and its parameters with the `style` and `explode` in force (./parameter-styles.ts).
 * @example
 * ```ts
 * caseFreeOperation({ responses: { 200: { headers: { 'X-Request-Id': {} }, content: { 'Application/JSON': {} } } } })
 * // { responses: { 200: { headers: { 'x-request-id': {} }, content: { 'application/json': {} } } } }
 * ```
 */
export function caseFreeOperation (operation: Json): Json {
  const copy = { ...operation }
  if (Array.isArray(operation.parameters)) {
    copy.parameters = operation.parameters.map((parameter: unknown) => withStylesInForce(
      isObject(parameter) && parameter.in === 'header' && typeof parameter.name === 'string' ? { ...parameter, name: parameter.name.toLowerCase() } : parameter))
  }
  if (Object.hasOwn(operation, 'requestBody')) copy.requestBody = withLowerNames(operation.requestBody)
  if (isObject(operation.responses)) {
    const responses: Json = {}
    for (const [status, response] of Object.entries(operation.responses)) setOwn(responses, status, withLowerNames(response))
    copy.responses = responses
  }
  return copy
}

/**
 * A path item with its names in lower case ({@link caseFreeOperation}), in its parameters and its operations'.
 * @example
 * ```ts
 * const item = caseFreeItem(document.paths['/users'])
 * ```
 */
export function caseFreeItem (item: unknown): unknown {
  if (!isObject(item)) return item
  const copy = caseFreeOperation(item)
  for (const [key, operation] of Object.entries(item)) if (operationMethod(key) !== undefined && isObject(operation)) copy[key] = caseFreeOperation(operation)
  return copy
}
