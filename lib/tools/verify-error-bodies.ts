/**
 * `verify`'s check of the error bodies an old client reads (decision 0215): for each versioned route and released
 * version whose request has a schema, one request that fails validation, made from the version's own schema
 * (`invalidRequest`), is sent through `app.inject` (no port). An answer of 400 must match the 400 response the version's
 * document gives the operation (its own, or the plugin's generic one): an error handler writing another shape is a
 * finding. A 422 whose body names what the request got wrong reached validation (decision 0174): a status the document
 * does not give is a finding, else its body is checked as a 400's. Any other status (a hook's 401, a not-found 404, a
 * 415) never reached validation and is none, unless a 500 saying a converter failed (a `migrateHttpErrors` one).
 * @module
 */
import type { FastifyInstance, InjectOptions } from 'fastify'
import { mediaTypeOf } from '../routes/schema-forms'
import type { RouteSchema } from '../routes/version-plan'
import type { VersionedRouteInfo } from '../routes/route-table'
import type { VersionerState } from '../routes/versioner-state'
import { DocumentValidator } from '../docs/example-validation'
import { operationKeysOf, operationMethod, PLUGIN_ERROR_RESPONSES } from '../docs/openapi-schemas'
import { pointerKey, pointerSegment } from '../core/json-schema'
import { appAjvSetup } from '../core/strict-validator'
import { ConverterFailedError } from '../core/request-errors'
import { releasedNow, type ReleaseSource } from '../serve/release-clock'
import { toolFacts } from './export'
import { pathVersionUrl } from './every-version'
import type { VerifyFinding } from './verify-replay'

/**
 * An error body a version's clients read that its document does not describe (`'error body'`).
 * @example
 * ```ts
 * declare const findings: VerifyFindings // what verify returned
 * const undescribed = findings.filter((finding): finding is ErrorBodyFinding => finding.kind === 'error body')
 * ```
 */
export type ErrorBodyFinding = Omit<VerifyFinding, 'kind'> & { readonly kind: 'error body' }

type Json = Record<string, unknown>

/** One invalid request: what to inject (without the version), why it fails validation, in words, and the word validation's complaint names. */
interface InvalidRequest {
  readonly injected: InjectOptions & { url: string, method: string }
  readonly why: string
  /** The field or parameter refused, or the type expected (`object`): what an answer from validation names. */
  readonly named: string
}

/** Formats Fastify's Ajv (ajv-formats) refuses `'x'` for. */
const FORMATS_REFUSING_X = new Set(['uuid', 'date', 'date-time', 'time', 'email', 'uri', 'ipv4', 'ipv6', 'duration'])

const FIX = 'Clients of this version read the 400 its document describes: document the error shape the application sends, in each version ' +
  '(the route\'s own 400 response), or make its error handler send what the documents say; if the shape changed for clients that read the old ' +
  'one, that needs a version change (a response converter with migrateHttpErrors giving older versions their shape).'

const FIX_STATUS = 'Clients of this version read the status its document describes, and one that checks for 400 breaks: keep answering 400 to ' +
  'requests that fail validation, or document 422 in each version\'s responses (the route\'s own 422 response) and make it a version change ' +
  '(a response converter with migrateHttpErrors giving older versions their 400).'

const FIX_FAILED = 'A client of this version is answered 500 for its own mistake (one retrying server errors retries it): fix the response converters ' +
  'declared with migrateHttpErrors, of the version changes up to this version, so that they take the error the request is refused with (the server\'s log names the converter).'

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The JSON body schema of a route's `body` (the short form, or its `application/json` entry). */
function jsonBody (body: unknown): Json | undefined {
  if (!isObject(body)) return undefined
  if (!isObject(body.content)) return body
  const json = body.content['application/json']
  return isObject(json) && isObject(json.schema) ? json.schema : undefined
}

/** A required property without a default (Ajv would fill a default in): leaving it out fails validation. */
function requiredWithoutDefault (schema: Json): string | undefined {
  const properties = isObject(schema.properties) ? schema.properties : {}
  const required = Array.isArray(schema.required) ? schema.required as unknown[] : []
  return required.find((name): name is string => typeof name === 'string' && !(isObject(properties[name]) && 'default' in properties[name]))
}

/** A property a text value `'x'` fails (a number, an integer, a boolean, or a string of a format refusing it), if any. */
function refusingText (schema: Json): string | undefined {
  const properties = isObject(schema.properties) ? schema.properties : {}
  return Object.keys(properties).find((name) => {
    const property = properties[name]
    if (!isObject(property)) return false
    return ['integer', 'number', 'boolean'].includes(property.type as string) ||
      (property.type === 'string' && FORMATS_REFUSING_X.has(property.format as string))
  })
}

/** Values of path parameters that their formats accept, so that the part chosen is the one validation refuses. */
const VALID_TEXT: Readonly<Record<string, string>> = { uuid: '00000000-0000-4000-8000-000000000000', date: '2000-01-01', 'date-time': '2000-01-01T00:00:00Z' }

/** The path with each parameter filled (a value its format accepts, else `1`; `x` at `invalid`), and a wildcard with `x`. */
function filledPath (path: string, params: Json | undefined, invalid?: string): string {
  const properties = isObject(params?.properties) ? params.properties : {}
  const valid = (name: string): string => {
    const property = properties[name]
    return (isObject(property) && typeof property.format === 'string' ? VALID_TEXT[property.format] : undefined) ?? '1'
  }
  return path.replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, (_match, name: string) => name === invalid ? 'x' : valid(name)).replace(/\*$/, 'x')
}

/**
 * The first invalid request that can be made for a route of `schema`, by part: the body (a required field left out,
 * else the other JSON type), the query string and the headers (a required one left out, else `x` for one that is no
 * text), the path parameters (`x` for one that is no text); none when none can.
 */
function invalidRequest (method: string, path: string, schema: RouteSchema, versionHeader?: string): InvalidRequest | undefined {
  const params = schema.params as Json | undefined
  const request = { method, url: filledPath(path, params) }
  const body = method === 'GET' || method === 'HEAD' ? undefined : jsonBody(schema.body)
  if (body !== undefined) {
    const missing = requiredWithoutDefault(body)
    if (missing !== undefined) return { injected: { ...request, payload: {} }, why: `with the body {}: the required field '${missing}' left out`, named: missing }
    if (body.type === 'object') return { injected: { ...request, payload: [] }, why: 'with the body []: a list where an object is expected', named: 'object' }
    if (body.type === 'array') return { injected: { ...request, payload: {} }, why: 'with the body {}: an object where a list is expected', named: 'array' }
  }
  const query = schema.querystring as Json | undefined
  if (query !== undefined) {
    const missing = requiredWithoutDefault(query)
    if (missing !== undefined) return { injected: request, why: `without the required query parameter '${missing}'`, named: missing }
    const text = refusingText(query)
    if (text !== undefined) return { injected: { ...request, url: `${request.url}?${encodeURIComponent(text)}=x` }, why: `with ${text}=x in the query string`, named: text }
  }
  const headers = schema.headers as Json | undefined
  if (headers !== undefined) {
    // `app.inject` always sends `host` and `user-agent`: leaving them out is not possible.
    const sent = new Set(['host', 'user-agent', versionHeader])
    const others = { ...headers, required: (Array.isArray(headers.required) ? headers.required as string[] : []).filter((name) => !sent.has(name.toLowerCase())) }
    const missing = requiredWithoutDefault(others)
    if (missing !== undefined) return { injected: request, why: `without the required header '${missing}'`, named: missing }
    const text = refusingText(headers)
    if (text !== undefined && !sent.has(text.toLowerCase())) return { injected: { ...request, headers: { [text]: 'x' } }, why: `with the header ${text}: x`, named: text }
  }
  const text = params === undefined ? undefined : refusingText(params)
  return text === undefined ? undefined : { injected: { ...request, url: filledPath(path, params, text) }, why: `with the path parameter ${text} x`, named: text }
}

/** The document's form of a Fastify path (`:id` → `{id}`). */
function documentPath (path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, '{$1}')
}

/** What is at a local `$ref` (`#/components/responses/X`) of the document. */
function atPointer (document: Json, pointer: string): unknown {
  let node: unknown = document
  for (const segment of pointer.split('/').slice(1).map(pointerKey)) node = isObject(node) ? node[segment] : undefined
  return node
}

/** The responses the version's document gives an operation, and their JSON pointer; `undefined` when it gives none. */
function documentedResponses (document: Json, path: string, method: string): { pointer: string, responses: Json } | undefined {
  const paths = isObject(document.paths) ? document.paths : {}
  const key = documentPath(path)
  const item = paths[key]
  if (!isObject(item)) return undefined
  const operationKey = operationKeysOf(item).find((candidate) => operationMethod(candidate) === method)
  const responses = operationKey === undefined ? undefined : (item[operationKey] as Json).responses
  return isObject(responses) ? { pointer: `/paths/${pointerSegment(key)}/${operationKey as string}/responses`, responses } : undefined
}

/**
 * The JSON pointer of the schema of the response `status` of an operation's responses (its own, else a `4XX`), for
 * the media type answered (else JSON, else the first); `null` when the document gives no such response, `undefined`
 * when it describes no body for it.
 */
function documentedBody (document: Json, operation: { pointer: string, responses: Json }, status: number, mediaType: string): string | null | undefined {
  const code = [String(status), '4XX', '4xx'].find((candidate) => candidate in operation.responses)
  if (code === undefined) return null
  let pointer = `${operation.pointer}/${code}`
  let response = operation.responses[code]
  if (isObject(response) && typeof response.$ref === 'string' && response.$ref.startsWith('#/')) {
    pointer = response.$ref.slice(1)
    response = atPointer(document, pointer)
  }
  const content = isObject(response) && isObject(response.content) ? response.content : {}
  const type = [mediaType, 'application/json', ...Object.keys(content)].find((candidate) => isObject(content[candidate]) && isObject((content[candidate] as Json).schema))
  return type === undefined ? undefined : `${pointer}/content/${pointerSegment(type)}/schema`
}

/**
 * Whether an answer's body comes from validation: it carries Fastify's validation code, or names what the request got
 * wrong (the field or parameter, as a word of its own, or the type expected) as validation's complaint does.
 */
function fromValidation (body: string, named: string): boolean {
  if (body.includes(VALIDATION_CODE)) return true
  return /^[\w$-]+$/.test(named) ? body.split(/[^\w$-]+/).includes(named) : body.includes(named)
}

/** A body shown short (JSON, at most 200 characters). */
function shortly (body: string): string {
  return body.length > 200 ? `${body.slice(0, 200)}…` : body
}

/**
 * Sends one invalid request per versioned route and released version of the API (`fastify`, its context) and
 * returns the 400s whose bodies the version's document refuses, and the 422s from validation it does not document (or
 * whose bodies it refuses), one finding per route and complaint (the versions where it shows listed on it).
 * @example
 * ```ts
 * for (const finding of await errorBodyFindings(context, state)) console.log(finding.text)
 * ```
 */
export async function errorBodyFindings (fastify: FastifyInstance, state: VersionerState): Promise<ErrorBodyFinding[]> {
  const facts = toolFacts(fastify)
  const released = new Set(releasedNow({ versions: fastify.versioner.versions, releases: (state.options as Partial<ReleaseSource>).releases }).values)
  const found = new Map<string, ErrorBodyFinding & { versions: string[] }>()
  const ajv = appAjvSetup(fastify)
  // A route with attachValidation runs its handler on an invalid request, as for a client's: none is sent to it.
  const handlesInvalid = new Set(state.headRoutes.filter((head) => head.attachValidation).flatMap((head) => head.registered.map((registered) => `${registered.methods.join(',')} ${registered.url}`)))
  for (const [version, routes] of fastify.versioner.routes) {
    if (!released.has(version)) continue
    const document = fastify.versioner.openapi(version) as Json | undefined
    if (document === undefined) continue
    const validator = new DocumentValidator(document, ajv)
    for (const route of routes) {
      if (handlesInvalid.has(`${route.methods.join(',')} ${route.url}`)) continue
      const answered = await errorBody({ fastify, facts, document, validator }, route, version)
      if (answered === undefined) continue
      const [key, finding] = answered
      const known = found.get(key)
      if (known === undefined) found.set(key, finding)
      else known.versions.push(version)
    }
  }
  return [...found.values()].map((finding) => ({ ...finding, text: textOf(finding) }))
}

/** What one route of one version answers its invalid request, as a finding when the document refuses the 400's body. */
async function errorBody (
  { fastify, facts, document, validator }: { fastify: FastifyInstance, facts: ReturnType<typeof toolFacts>, document: Json, validator: DocumentValidator },
  route: VersionedRouteInfo,
  version: string
): Promise<[key: string, finding: ErrorBodyFinding & { versions: string[] }] | undefined> {
  const method = route.methods[0]
  const versionHeader = facts.location === 'header' ? facts.parameterName.toLowerCase() : undefined
  const invalid = invalidRequest(method, route.path, route.schema, versionHeader)
  if (invalid === undefined) return undefined
  const { injected } = invalid
  const url = facts.location === 'path' ? pathVersionUrl(route, facts.parameterName, injected.url, version) : injected.url
  const headers = facts.location === 'header' ? { ...injected.headers, [facts.parameterName]: version } : injected.headers
  const answer = await fastify.inject({ ...injected, url, ...(headers === undefined ? {} : { headers }) } as InjectOptions)
  const status = answer.statusCode
  // A converter failed on the error the request is refused with (a `migrateHttpErrors` one): the version answers 500.
  const failed = status === 500 && answer.body.includes(`"code":"${new ConverterFailedError('').code}"`)
  // Another status than 400 reached validation only as a 422 whose body names what was refused (decision 0174).
  if (!failed && status !== 400 && !(status === 422 && fromValidation(answer.body, invalid.named))) return undefined
  const mediaType = mediaTypeOf(answer.headers['content-type']) ?? ''
  // The document's path is the registered URL's (with the version's parameter for path versions).
  const operation = documentedResponses(document, route.url, method)
  const pointer = failed ? null : operation === undefined ? undefined : documentedBody(document, operation, status, mediaType)
  if (pointer === undefined || (pointer === null && status === 400)) return undefined
  let body: unknown
  try {
    body = JSON.parse(answer.body)
  } catch {
    body = answer.body
  }
  const complaint = pointer === null ? undefined : validator.check(pointer, body) ?? codeComplaint(pointer, status, body)
  if (pointer !== null && complaint === undefined) return undefined
  const sent = `a request that fails validation (${method} ${url} ${invalid.why}) is answered ${status} with ${shortly(answer.body)}`
  // One finding per route, invalid request and complaint: the versions where it shows are listed on it.
  return [`${method} ${route.path}\n${invalid.why}\n${status} ${complaint ?? ''}`, {
    route: `${method} ${route.path}`,
    version,
    versions: [version],
    direction: 'response',
    kind: 'error body',
    part: `response ${status}`,
    pointer: '',
    message: failed
      ? `${sent}: a converter on the way to the version failed on the error the request is refused with`
      : complaint === undefined
        ? `${sent}, a status its document does not give the operation (its responses: ${Object.keys(operation?.responses ?? {}).join(', ')})`
        : `${sent}, which the ${status} response of its document refuses: ${complaint}`,
    value: body,
    fix: failed ? FIX_FAILED : complaint === undefined ? FIX_STATUS : FIX,
    changeVersion: '',
    versionChanges: [],
    converters: [],
    example: { ...injected, url, ...(headers === undefined ? {} : { headers }) },
    text: ''
  }]
}

/** The code of Fastify's validation error, which the plugin's generic 400 names for a request invalid for the version. */
const VALIDATION_CODE = 'FST_ERR_VALIDATION'

/**
 * For a 400 of validation documented by the plugin's generic 400 (`PLUGIN_ERROR_RESPONSES[0]`, whose description
 * says a request invalid for the version answers FST_ERR_VALIDATION), the complaint when its body has another code.
 */
function codeComplaint (pointer: string, status: number, body: unknown): string | undefined {
  if (status !== 400 || !pointer.startsWith(`/components/responses/${PLUGIN_ERROR_RESPONSES[0]}/`) || !isObject(body) || body.code === VALIDATION_CODE) return undefined
  return `its code is ${body.code === undefined ? 'absent' : JSON.stringify(body.code)}, where that response says a request invalid for this version answers ${VALIDATION_CODE}`
}

/** The finding on one line: the route, its versions, what was sent and answered, the complaint, and the fix. */
function textOf (finding: ErrorBodyFinding): string {
  const more = finding.versions.length > 1 ? `; also ${finding.versions.slice(1).join(', ')}` : ''
  return `${finding.route} (${finding.version}${more}): ${finding.message}. ${finding.fix}`
}
