/**
 * The plugin's own answers on every versioned operation of a version's document, as shared component
 * responses: 400 (the version is malformed, not served or missing, or the request is invalid for that
 * version) and 404 (the route does not exist in the version the request named). Their body is Fastify's error
 * body. A route that documents its own 400 or 404 (or `4XX`) keeps it.
 * @module
 */
import { operationsOf } from './openapi-schemas'

type Json = Record<string, unknown>

/** The component names, chosen not to clash with an application's own. */
const ERROR_SCHEMA = 'FastifyVersionerError'
const BAD_REQUEST_RESPONSE = 'FastifyVersionerBadRequest'
const NOT_FOUND_RESPONSE = 'FastifyVersionerNotFound'

/** Fastify's error body (its default error handler and not-found handler). */
const errorSchema = {
  type: 'object',
  description: "Fastify's error body.",
  properties: {
    statusCode: { type: 'integer' },
    code: { type: 'string', description: 'FST_VERSIONER_INVALID_API_VERSION, FST_VERSIONER_MISSING_API_VERSION, FST_ERR_VALIDATION… (absent on a 404).' },
    error: { type: 'string' },
    message: { type: 'string', description: 'What was wrong, and what is accepted.' }
  },
  required: ['statusCode', 'error', 'message']
}

function response (description: string): Json {
  return { description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_SCHEMA}` } } } }
}

/**
 * Adds the plugin's 400 and 404 to every operation under `paths` (a version's document lists its versioned
 * operations only there), with their components.
 */
export function addErrorResponses (document: Json, headerName: string | undefined): void {
  const operations = operationsOf({ paths: document.paths })
  if (operations.length === 0) return
  const where = headerName === undefined ? 'path segment' : `'${headerName}' header`
  const components = (document.components ??= {}) as Json
  const schemas = (components.schemas ??= {}) as Json
  const responses = (components.responses ??= {}) as Json
  schemas[ERROR_SCHEMA] = errorSchema
  responses[BAD_REQUEST_RESPONSE] = response(`Bad request: the API version in the ${where} is malformed, not served or missing ` +
    '(FST_VERSIONER_INVALID_API_VERSION, FST_VERSIONER_MISSING_API_VERSION), or the request is invalid for this version (FST_ERR_VALIDATION).')
  responses[NOT_FOUND_RESPONSE] = response('Not found: the route does not exist in the API version the request named (Fastify\'s not-found answer).')
  for (const operation of operations) {
    const own = (operation.responses ?? {}) as Json
    const documented = (status: string): boolean => status in own || '4XX' in own || '4xx' in own
    operation.responses = {
      ...own,
      ...(documented('400') ? {} : { 400: { $ref: `#/components/responses/${BAD_REQUEST_RESPONSE}` } }),
      ...(documented('404') ? {} : { 404: { $ref: `#/components/responses/${NOT_FOUND_RESPONSE}` } })
    }
  }
}
