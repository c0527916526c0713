/**
 * The documents as `check` diffs them, and the names of what this module moves
 * ([decision 0071](../../docs/decisions/0071-check-covers-what-clients-consume.md)). Every operation a client
 * consumes goes under `paths`, the only place `api-smart-diff` reads operations: an operation of a method OpenAPI 3.1
 * lacks (a path item's `x-query` or `x-search`, or its `query` in an OpenAPI 3.2 document) becomes the one operation of
 * an item of its own, with the
 * path item's parameters; a webhook's payload, which its subscriber receives, becomes the one response of an
 * operation of its own (a webhook's parameters and acknowledgement responses are left out), and so does what an
 * operation's callback sends the client's URL (`POST /jobs callback jobDone`). And the version's own
 * parameter is compared by whether it accepts the version, not by the `enum`, `const` and `default` that name it
 * in each document.
 * @module
 */
import { pointerSegment } from '../core/json-schema'
import { setOwn } from '../core/own-properties'
import { DocumentValidator } from '../docs/example-validation'
import { operationMethod, tuplesAsItemLists } from '../docs/openapi-schemas'
import { isObject } from './type-printer'
import { caseFreeItem, caseFreeOperation } from './case-free-names'

/** Starts the keys this module adds (a control character, which no path or status of a document starts with). */
const ADDED = '\u0001'
const WEBHOOK_ITEM = `${ADDED}webhook `
const CALLBACK_ITEM = `${ADDED}callback `
/** The status key of a webhook's (or callback's) payload among the responses of its operation. */
const PAYLOAD = `${ADDED}payload`
/** The method an operation of a method the diff does not read (QUERY) is compared under, in its own item. */
const OWN_ITEM_METHOD = 'post'
/** The methods `api-smart-diff` reads in a path item (`METHODS.has('get')`). */
export const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])
/** The version parameter's schema, as compared: whether it accepts the version (`{ 'x-accepts-version': true }`). */
export const ACCEPTS_VERSION = 'x-accepts-version'

type Json = Record<string, unknown>

/** The own entries of a section of the document (`paths`, `webhooks`), none when it is not an object. */
const entriesOf = (value: unknown): Array<[string, unknown]> => isObject(value) ? Object.entries(value) : []

/** A copy of an object without some of its keys (own keys kept as own keys, `__proto__` included). */
function without (value: Json, keys: readonly string[]): Json {
  const copy: Json = {}
  for (const [key, item] of Object.entries(value)) if (!keys.includes(key)) setOwn(copy, key, item)
  return copy
}

/** A webhook's operation as its subscriber consumes it: its payload (the request body it is sent) as its response. */
function payloadOperation (operation: Json): Json {
  const compared = without(operation, ['requestBody', 'responses', 'parameters'])
  const body = operation.requestBody
  // A `$ref` to a request body is kept as it is: the diff resolves it, and a request body reads as a response.
  compared.responses = body === undefined ? {} : { [PAYLOAD]: isObject(body) && !Object.hasOwn(body, '$ref') ? without(body, ['required']) : body }
  return compared
}

/** A webhook's (or callback's) path item as compared: each operation's payload as its response. */
function payloadOperations (item: unknown): Json {
  const operations: Json = {}
  for (const [method, operation] of entriesOf(item)) if (METHODS.has(method) && isObject(operation)) operations[method] = caseFreeOperation(payloadOperation(operation))
  return operations
}

/**
 * A path item without its operations' `callbacks`, each callback's path item put in `paths` as an item of its own
 * (`POST /jobs callback jobDone`, with the expression of its URL where the callback has several), compared as a
 * webhook is: what the application sends the client's URL is its payload.
 */
function withCallbacksMoved (path: string, item: unknown, paths: Json): unknown {
  if (!isObject(item)) return item
  const copy = without(item, [])
  for (const [key, operation] of Object.entries(item)) {
    const method = operationMethod(key)
    if (method === undefined || !isObject(operation) || !Object.hasOwn(operation, 'callbacks')) continue
    copy[key] = without(operation, ['callbacks'])
    for (const [event, callback] of entriesOf(operation.callbacks)) {
      const expressions = entriesOf(callback)
      for (const [expression, target] of expressions) {
        setOwn(paths, `${CALLBACK_ITEM}${method} ${path} callback ${event}${expressions.length > 1 ? ` ${expression}` : ''}`, payloadOperations(target))
      }
    }
  }
  return copy
}

/** `in` and `name` of a parameter, or `undefined` for a `$ref` or something else. */
function parameterKey (parameter: unknown): string | undefined {
  return isObject(parameter) && typeof parameter.in === 'string' && typeof parameter.name === 'string' ? `${parameter.in} ${parameter.name}` : undefined
}

/** True when the schema of a parameter names `version`: in its `enum`, as its `const` or its `default`. */
function namesVersion (parameter: unknown, version: string): boolean {
  const schema = isObject(parameter) ? parameter.schema : undefined
  return isObject(schema) && ((Array.isArray(schema.enum) && schema.enum.includes(version)) || schema.const === version || schema.default === version)
}

/** Whether the schema at a pointer into the document accepts the version (an unreadable schema accepts nothing). */
type Acceptance = (pointer: string, schema: Json) => boolean

/**
 * An item or operation (`owner`, at `pointer`) with the version parameter's schema replaced by whether it accepts
 * the version: the `enum`, `const` and `default` naming the version differ by document, and what a client of the
 * version needs of the parameter is that it still accepts the version's value.
 */
function withVersionParameter (owner: Json, keys: ReadonlySet<string>, place: { pointer: string, accepts: Acceptance }): Json {
  const parameters = owner.parameters
  if (!Array.isArray(parameters) || !parameters.some((parameter) => keys.has(parameterKey(parameter) ?? ''))) return owner
  const copy = without(owner, [])
  copy.parameters = parameters.map((parameter: unknown, index) => {
    if (!keys.has(parameterKey(parameter) ?? '') || !isObject(parameter) || !isObject(parameter.schema)) return parameter
    return { ...parameter, schema: { [ACCEPTS_VERSION]: place.accepts(`${place.pointer}/parameters/${index}/schema`, parameter.schema) } }
  })
  return copy
}

/**
 * A path item whose operations state the credentials they ask for: the document's `security` where one states none
 * (a client meets the operation's own, else the document's). The item itself when the document states none.
 */
function withSecurity (item: unknown, security: unknown): unknown {
  if (!Array.isArray(security) || !isObject(item)) return item
  const copy = without(item, [])
  for (const [key, operation] of Object.entries(item)) {
    if (operationMethod(key) !== undefined && isObject(operation) && !Object.hasOwn(operation, 'security')) copy[key] = { ...operation, security }
  }
  return copy
}

/** The document's path items and operations under `paths`, QUERY (and other methods') operations and webhooks moved there. */
function comparablePaths (document: Json): Json {
  const paths: Json = {}
  for (const [path, original] of entriesOf(document.paths)) {
    const item = withCallbacksMoved(path, caseFreeItem(withSecurity(original, document.security)), paths)
    // `query` (OpenAPI 3.2's) or the plugin's `x-query`, `x-search` (decision 0052): methods the diff does not read.
    const others = isObject(item) ? Object.keys(item).filter((key) => !METHODS.has(key) && operationMethod(key) !== undefined) : []
    if (!isObject(item) || others.length === 0) {
      setOwn(paths, path, item)
      continue
    }
    setOwn(paths, path, without(item, others))
    for (const key of others.filter((other) => isObject(item[other]))) {
      setOwn(paths, `${ADDED}${operationMethod(key) as string} ${path}`, { ...(Object.hasOwn(item, 'parameters') ? { parameters: item.parameters } : {}), [OWN_ITEM_METHOD]: item[key] })
    }
  }
  for (const [name, item] of entriesOf(document.webhooks)) setOwn(paths, `${WEBHOOK_ITEM}${name}`, payloadOperations(item))
  return paths
}

/** The parameters (`in` and `name`) whose schema names the version somewhere in the document. */
function versionParameters (paths: Json, version: string): string[] {
  const found: string[] = []
  for (const [, item] of entriesOf(paths)) {
    for (const owner of [item, ...entriesOf(item).filter(([key]) => METHODS.has(key)).map(([, operation]) => operation)]) {
      const parameters = isObject(owner) && Array.isArray(owner.parameters) ? owner.parameters as unknown[] : []
      for (const parameter of parameters) if (namesVersion(parameter, version)) found.push(parameterKey(parameter) ?? '')
    }
  }
  return found
}

/**
 * Whether schemas of a document accept the version, by Fastify's Ajv (without coercion), each schema text
 * validated once (a `$ref` in it resolved in the document).
 */
function acceptance (document: Json, version: string): Acceptance {
  let validator: DocumentValidator | undefined
  const known = new Map<string, boolean>()
  return (pointer, schema) => {
    const text = JSON.stringify(schema)
    let accepts = known.get(text)
    if (accepts === undefined) {
      validator ??= new DocumentValidator(document)
      accepts = validator.check(pointer, version) === undefined
      known.set(text, accepts)
    }
    return accepts
  }
}

/**
 * A version's saved and current documents as `check` diffs them: QUERY operations and webhooks moved under
 * `paths`, in items whose keys start with a control character, and the version parameter (a parameter whose schema
 * names the version in either document) compared by whether it accepts the version. The documents are not changed.
 * @example
 * ```ts
 * const [before, after] = comparableDocuments('2000-01-01', saved, current)
 * const diffs = documentDiffs(before, after)
 * ```
 */
export function comparableDocuments (version: string, saved: Json, current: Json): [Json, Json] {
  // Tuples in one form (draft-07's, which Fastify's Ajv reads): a document saved before they were `prefixItems` is the same.
  const documents = [saved, current].map(tuplesAsItemLists).map((document) => ({ ...without(document, ['paths', 'webhooks']), paths: comparablePaths(document) }))
  const keys = new Set(documents.flatMap((document) => versionParameters(document.paths, version)))
  keys.delete('')
  const [before, after] = documents.map((document) => {
    const accepts = acceptance(document, version)
    const items: Json = {}
    for (const [key, item] of entriesOf(document.paths)) {
      if (!isObject(item)) {
        setOwn(items, key, item)
        continue
      }
      const pointer = `/paths/${pointerSegment(key)}`
      // A copy of the item (of the document, or made by comparablePaths), its operations' parameters changed.
      const changed = without(withVersionParameter(item, keys, { pointer, accepts }), [])
      for (const method of Object.keys(changed).filter((name) => METHODS.has(name))) {
        if (isObject(changed[method])) changed[method] = withVersionParameter(changed[method], keys, { pointer: `${pointer}/${method}`, accepts })
      }
      setOwn(items, key, changed)
    }
    return { ...document, paths: items }
  })
  return [before, after]
}

/**
 * What the key of an item of a comparable document holding a payload is: `'webhook'`, `'callback'`, else `undefined`.
 * @example
 * ```ts
 * const removed = `${payloadItem(diff.path[1]) ?? 'endpoint'} removed`
 * ```
 */
export function payloadItem (key: string | number): 'webhook' | 'callback' | undefined {
  const text = String(key)
  return text.startsWith(WEBHOOK_ITEM) ? 'webhook' : text.startsWith(CALLBACK_ITEM) ? 'callback' : undefined
}

/**
 * The operation of a path item's key and method, as `check` names it: `GET /users`, `QUERY /search`,
 * `webhook invoice.paid` (`webhook invoice.paid (PUT)` for one not delivered with POST), `POST /jobs callback jobDone`.
 * @example
 * ```ts
 * operationName(diff.path[1], String(diff.path[2])) // 'QUERY /search'
 * ```
 */
export function operationName (key: string | number, method: string): string {
  const text = String(key)
  // A webhook (a callback) is delivered with POST, but for the rare one declared with another method.
  const payload = payloadItem(text)
  if (payload !== undefined) {
    const name = payload === 'webhook' ? `webhook ${text.slice(WEBHOOK_ITEM.length)}` : text.slice(CALLBACK_ITEM.length)
    return `${name}${['post', ''].includes(method) ? '' : ` (${method.toUpperCase()})`}`
  }
  // An operation moved to an item of its own is named by its method and path there (`QUERY /search`).
  if (text.startsWith(ADDED)) return text.slice(ADDED.length)
  return `${method.toUpperCase()} ${text}`
}

/**
 * A path item's key as `check` names it, where no operation is meant: `/users`, `QUERY /search`, `webhook invoice.paid`.
 * @example
 * ```ts
 * itemName(diff.path[1]) // '/users/{userId}'
 * ```
 */
export function itemName (key: string | number): string {
  return String(key).startsWith(ADDED) ? operationName(key, '') : String(key)
}

/**
 * A response's status key as `check` names it: `response 200`, or `payload` for a webhook's payload.
 * @example
 * ```ts
 * responseName('200') // 'response 200'
 * ```
 */
export function responseName (status: string | number): string {
  return status === PAYLOAD ? 'payload' : `response ${String(status)}`
}
