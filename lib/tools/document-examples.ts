/**
 * `invalidExamples`: the examples of one OpenAPI 3.1 document that fail the schema they illustrate. Every
 * `examples` entry and `example` of every schema node (components, and the schemas of paths' parameters, request
 * bodies and responses, and of webhooks), and the examples of parameters, headers and media types, are validated
 * against their schema inside the document (`$ref`s to `#/components/schemas/...` resolved there), with the Ajv
 * Fastify brings (strict: false, no coercion, ajv-formats).
 * @module
 */
import { VersionerToolError } from '../core/errors'
import { walkDocument } from '../docs/example-sites'
import { DocumentValidator } from '../docs/example-validation'

/**
 * An example that fails its schema: where it is in the document, and what the validator said.
 * @example
 * ```ts
 * const found: InvalidExample = { pointer: '/components/schemas/User/examples/0', message: "must have required property 'name'" }
 * ```
 */
export interface InvalidExample {
  /** JSON pointer of the example value in the document: `/components/schemas/User/examples/0`. */
  readonly pointer: string
  /** The validator's message, with the place inside the example when it is not the whole value: `/name must be string`. */
  readonly message: string
}

/**
 * The examples of an OpenAPI 3.1 document that do not validate against their schema; an empty list when all do.
 * @example
 * ```ts
 * const document = app.versioner.openapi('2000-01-01')
 * for (const { pointer, message } of invalidExamples(document)) console.log(`${pointer}: ${message}`)
 * ```
 */
export function invalidExamples (document: unknown): InvalidExample[] {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new VersionerToolError(`invalidExamples() takes an OpenAPI document (an object); got ${document === null ? 'null' : typeof document}.`)
  }
  const { sites } = walkDocument(document as Record<string, unknown>)
  if (sites.length === 0) return []
  const validator = new DocumentValidator(document)
  const found: InvalidExample[] = []
  for (const site of sites) {
    const message = validator.check(site.schemaPointer, site.value)
    if (message !== undefined) found.push({ pointer: site.pointer, message })
  }
  return found
}
