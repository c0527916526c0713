/**
 * Validates examples in place in one OpenAPI document (given to Ajv whole, so component references resolve), with
 * Fastify's Ajv setup, `strict: false`, and nothing coerced, defaulted or removed.
 * @module
 */
import { fastifyAjv, type AjvInstance, type AppAjvSetup, type Check, type ValidationIssue } from '../core/strict-validator'
import { tuplesAsItemLists } from './openapi-schemas'
import { pointerKey } from '../core/json-schema'

/** The key the document is added to Ajv under: its schemas are `<key>#<pointer>`. */
const DOCUMENT_KEY = 'fastify-versioner-document'

/** One line for a validation issue: where in the example (a JSON pointer, none for the root) and what is wrong. */
function describeIssue (issue: ValidationIssue | undefined): string {
  if (issue === undefined) return 'does not match its schema'
  const extra = issue.params?.additionalProperty
  const message = `${issue.message ?? 'does not match its schema'}${typeof extra === 'string' ? ` (${extra})` : ''}`
  return issue.instancePath === '' ? message : `${issue.instancePath} ${message}`
}

/** A pointer into a document through tuples as `prefixItems` (and the `items` after them), in their draft-07 form. */
function draft07Pointer (document: unknown, pointer: string): string {
  let node = document
  const segments = pointer.split('/')
  return segments.map((segment, index) => {
    const step = typeof node === 'object' && node !== null ? node as Record<string, unknown> : undefined
    // Draft-07's form holds an `items` list where a tuple's `prefixItems` was, and its `additionalItems` where the
    // schema of the items after them was (`items`, not followed by a position of the list).
    const tuple = Array.isArray(step?.items) && !Array.isArray(step?.prefixItems)
    const rest = segment === 'items' && !/^\d+$/.test(segments[index + 1] ?? '')
    const moved = tuple && segment === 'prefixItems' ? 'items' : tuple && rest ? 'additionalItems' : segment
    node = step?.[pointerKey(moved)]
    return moved
  }).join('/')
}

/**
 * Checks values against the schemas of one document (compiling each schema once), with the Ajv setup of the
 * application serving it (`app`: its formats and keywords) when given.
 * @example
 * ```ts
 * const validator = new DocumentValidator(document, appAjvSetup(app))
 * validator.check('/components/schemas/User', { name: 'Ada' }) // undefined, or "must have required property 'id'"
 * ```
 */
export class DocumentValidator {
  private readonly ajv: AjvInstance
  private readonly document: Record<string, unknown>

  constructor (document: object, app: AppAjvSetup = {}) {
    this.ajv = fastifyAjv({ strict: false, coerceTypes: false, useDefaults: false, removeAdditional: false, validateSchema: false, logger: false }, app)
    // Fastify's Ajv reads draft-07, where a tuple is an `items` list.
    this.document = tuplesAsItemLists(document as Record<string, unknown>)
    this.ajv.addSchema(this.document, DOCUMENT_KEY)
  }

  /** What is wrong with `value` for the schema at `schemaPointer`, or `undefined` when it matches (Ajv keeps each compiled). */
  check (schemaPointer: string, value: unknown): string | undefined {
    const fragment = draft07Pointer(this.document, schemaPointer).split('/').map((segment) => encodeURIComponent(segment)).join('/')
    let validate: Check | undefined
    try {
      validate = this.ajv.getSchema(`${DOCUMENT_KEY}#${fragment}`)
    } catch (error) {
      return `its schema cannot be compiled: ${(error as Error)?.message ?? String(error)}`
    }
    if (validate === undefined) return `its schema cannot be compiled: nothing at ${schemaPointer}`
    return validate(value) ? undefined : describeIssue(validate.errors?.[0])
  }
}
