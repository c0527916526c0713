/**
 * The builder `endpoint(path, methods)`: whether a route existed in the previous version, and its attributes there.
 * @module
 */
import { VersionerStructureError } from '../core/errors'
import { normaliseMethods, type HttpMethod } from '../core/http-methods'
import { checkNotEmpty, makeInstruction, type EndpointExistenceInstruction, type EndpointHadInstruction } from './instructions'
import { ENDPOINT_ATTRIBUTES, type EndpointHadAttributes } from './instruction-attributes'
import { describeValue, isSchemaObject } from '../core/json-schema'

/** Options of `endpoint(path, methods, options)`. */
interface EndpointOptions {
  /**
   * Only the HEAD route whose schema has this `operationId`: tells apart two routes that share a path and
   * methods in different versions (a route replaced by another one).
   */
  operationId?: string
}

/**
 * Instructions about one route (or the routes of several methods on one path).
 * @example
 * ```ts
 * const users: EndpointInstructionBuilder = endpoint('/users/:id', ['GET', 'PUT'])
 * const instructions = [users.had({ path: '/accounts/:id' }), endpoint('/users/:id/addresses', 'GET').didntExist]
 * ```
 */
export interface EndpointInstructionBuilder {
  /** The route existed in the previous version (it was deleted since, or is marked `onlyExistsInOlderVersions`). */
  readonly existed: EndpointExistenceInstruction
  /** The route did not exist in the previous version (it was added since). */
  readonly didntExist: EndpointExistenceInstruction
  /** The route had these attributes in the previous version. */
  had: (attributes: EndpointHadAttributes) => EndpointHadInstruction
}

const allowed = new Set<string>(ENDPOINT_ATTRIBUTES)

function checkPath (path: unknown, what: string): asserts path is string {
  if (typeof path !== 'string' || path === '' || /\s/.test(path)) {
    throw new VersionerStructureError(`${what} must be a route path starting with '/' (or a webhook name); got ${describeValue(path)}.`)
  }
}

function checkAttributes (attributes: EndpointHadAttributes, display: string, path: string): EndpointHadInstruction['attributes'] {
  checkNotEmpty(attributes, `${display}: had() needs at least one attribute (${ENDPOINT_ATTRIBUTES.join(', ')}).`)
  const unknown = Object.keys(attributes).filter((key) => !allowed.has(key))
  if (unknown.length > 0) {
    throw new VersionerStructureError(`${display}: unknown endpoint attribute(s) ${unknown.join(', ')}; ` +
      `an endpoint can have ${ENDPOINT_ATTRIBUTES.join(', ')}.`)
  }
  const result: Record<string, unknown> = { ...attributes }
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) throw new VersionerStructureError(`${display}: attribute '${key}' is undefined.`)
  }
  if (attributes.path !== undefined) {
    checkPath(attributes.path, `${display}: path`)
    // A route keeps a route path: without its leading '/', it would be registered at a URL no request reaches.
    if (path.startsWith('/') && !attributes.path.startsWith('/')) {
      throw new VersionerStructureError(`${display}: path must start with '/' like the route path '${path}' it replaces; ` +
        `got ${describeValue(attributes.path)}.`)
    }
  }
  if (attributes.methods !== undefined) result.methods = normaliseMethods(attributes.methods)
  if (attributes.statusCode !== undefined &&
    (!Number.isInteger(attributes.statusCode) || attributes.statusCode < 100 || attributes.statusCode > 599)) {
    throw new VersionerStructureError(`${display}: statusCode must be an integer from 100 to 599.`)
  }
  for (const key of ['summary', 'description', 'operationId'] as const) {
    if (attributes[key] !== undefined && typeof attributes[key] !== 'string') {
      throw new VersionerStructureError(`${display}: ${key} must be a string.`)
    }
  }
  for (const key of ['deprecated', 'hide'] as const) {
    if (attributes[key] !== undefined && typeof attributes[key] !== 'boolean') {
      throw new VersionerStructureError(`${display}: ${key} must be true or false.`)
    }
  }
  if (attributes.tags !== undefined && (!Array.isArray(attributes.tags) || attributes.tags.some((tag) => typeof tag !== 'string'))) {
    throw new VersionerStructureError(`${display}: tags must be a list of strings.`)
  }
  if (attributes.response !== undefined) {
    if (!isSchemaObject(attributes.response)) throw new VersionerStructureError(`${display}: response must map status codes to schemas.`)
    for (const [status, schema] of Object.entries(attributes.response)) {
      if (!/^([1-5]\d\d|[1-5]xx|default)$/.test(status)) {
        throw new VersionerStructureError(`${display}: response key '${status}' is not a status code (like 200, 4xx or default).`)
      }
      if (!isSchemaObject(schema)) throw new VersionerStructureError(`${display}: response[${status}] must be a schema.`)
    }
  }
  return Object.freeze(result) as EndpointHadInstruction['attributes']
}

/**
 * Starts an instruction about the route(s) at `path` with `methods` (HEAD path and methods as they stand in
 * the version the change belongs to), or about a webhook when `path` is a webhook's name (no leading `/`).
 * Methods are checked at once: a misspelled one throws `LintingError`.
 * @example
 * ```ts
 * endpoint('/users/:id/addresses', ['GET']).didntExist       // added in this version
 * endpoint('/users/:id/legacy', ['GET']).existed              // removed in this version
 * endpoint('/users', ['POST']).had({ path: '/accounts', statusCode: 200 })
 * endpoint('/items', ['GET'], { operationId: 'listItemsLegacy' }).existed // one of two routes on one path
 * ```
 */
export function endpoint (
  path: string,
  methods: HttpMethod | Lowercase<HttpMethod> | ReadonlyArray<HttpMethod | Lowercase<HttpMethod>>,
  options: EndpointOptions = {}
): EndpointInstructionBuilder {
  checkPath(path, 'endpoint(path, methods): path')
  const normalised = normaliseMethods(methods)
  if (!isSchemaObject(options) || Object.keys(options).some((key) => key !== 'operationId') ||
    (options.operationId !== undefined && (typeof options.operationId !== 'string' || options.operationId === ''))) {
    throw new VersionerStructureError(`endpoint('${path}', …, options): options take only { operationId: string }; got ${describeValue(options)}.`)
  }
  const operationId = options.operationId
  const base = `endpoint('${path}', [${normalised.join(', ')}]${operationId === undefined ? '' : `, { operationId: '${operationId}' }`})`
  const existence = (kind: EndpointExistenceInstruction['kind'], suffix: string): EndpointExistenceInstruction =>
    makeInstruction<EndpointExistenceInstruction>({ kind, display: `${base}.${suffix}`, path, methods: normalised, operationId })
  return {
    get existed () { return existence('endpoint.existed', 'existed') },
    get didntExist () { return existence('endpoint.didntExist', 'didntExist') },
    had (attributes: EndpointHadAttributes): EndpointHadInstruction {
      const display = `${base}.had(${describeValue(attributes)})`
      return makeInstruction<EndpointHadInstruction>({
        kind: 'endpoint.had', display, path, methods: normalised, operationId, attributes: checkAttributes(attributes, display, path)
      })
    }
  }
}
