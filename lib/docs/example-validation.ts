/**
 * Validates example values against the schemas of one OpenAPI document, where they are: the document is given
 * to Ajv whole, and each schema is reached by its JSON pointer, so that its `#/components/schemas/...` references
 * resolve inside the document. Ajv 8 (draft-07, as Fastify validates) with `strict: false` (documents hold
 * OpenAPI keywords), no type coercion, no defaults and no removal (an example is never changed), and the formats
 * of `ajv-formats`. This package does not depend on Ajv itself: it uses the Ajv and `ajv-formats` that Fastify
 * brings with `@fastify/ajv-compiler`, the ones it validates requests with.
 * @module
 */
import { createRequire } from 'node:module'

interface AjvIssue {
  readonly instancePath: string
  readonly message?: string
  readonly params?: Record<string, unknown>
}

type AjvValidate = ((data: unknown) => boolean) & { errors?: AjvIssue[] | null }

interface AjvInstance {
  addSchema: (schema: object, key: string) => unknown
  compile: (schema: object) => AjvValidate
}

type AjvClass = new (options: Record<string, unknown>) => AjvInstance

interface AjvModules {
  readonly Ajv: AjvClass
  readonly addFormats: ((ajv: AjvInstance) => unknown) | undefined
}

/** Ajv and `ajv-formats` as `@fastify/ajv-compiler` (a dependency of Fastify) resolves them (Node keeps them once loaded). */
function ajvModules (): AjvModules {
  const fromFastify = createRequire(require.resolve('fastify'))
  const fromCompiler = createRequire(fromFastify.resolve('@fastify/ajv-compiler'))
  const defaultOf = <T>(loaded: unknown): T => ((loaded as { default?: T }).default ?? loaded) as T
  let addFormats: AjvModules['addFormats']
  try {
    addFormats = defaultOf(fromCompiler('ajv-formats'))
  } catch {
    // Without ajv-formats, `format` is not checked (strict: false lets Ajv ignore unknown formats).
    addFormats = undefined
  }
  return { Ajv: defaultOf(fromCompiler('ajv')), addFormats }
}

/** The key the document is added to Ajv under: its schemas are `<key>#<pointer>`. */
const DOCUMENT_KEY = 'fastify-versioner-document'

/** One line for a validation issue: where in the example (a JSON pointer, none for the root) and what is wrong. */
function describeIssue (issue: AjvIssue | undefined): string {
  if (issue === undefined) return 'does not match its schema'
  const extra = issue.params?.additionalProperty
  const message = `${issue.message ?? 'does not match its schema'}${typeof extra === 'string' ? ` (${extra})` : ''}`
  return issue.instancePath === '' ? message : `${issue.instancePath} ${message}`
}

/**
 * Checks values against the schemas of one document (compiling each schema once).
 * @example
 * ```ts
 * const validator = new DocumentValidator(document)
 * validator.check('/components/schemas/User', { name: 'Ada' }) // undefined, or "must have required property 'id'"
 * ```
 */
export class DocumentValidator {
  private readonly ajv: AjvInstance
  private readonly compiled = new Map<string, AjvValidate | string>()

  constructor (document: object) {
    const { Ajv, addFormats } = ajvModules()
    this.ajv = new Ajv({ strict: false, coerceTypes: false, useDefaults: false, removeAdditional: false, validateSchema: false, logger: false })
    addFormats?.(this.ajv)
    this.ajv.addSchema(document, DOCUMENT_KEY)
  }

  /** What is wrong with `value` for the schema at `schemaPointer`, or `undefined` when it matches. */
  check (schemaPointer: string, value: unknown): string | undefined {
    const validate = this.validatorAt(schemaPointer)
    if (typeof validate === 'string') return validate
    return validate(value) ? undefined : describeIssue(validate.errors?.[0])
  }

  private validatorAt (schemaPointer: string): AjvValidate | string {
    let validate = this.compiled.get(schemaPointer)
    if (validate === undefined) {
      const fragment = schemaPointer.split('/').map((segment) => encodeURIComponent(segment)).join('/')
      try {
        validate = this.ajv.compile({ $ref: `${DOCUMENT_KEY}#${fragment}` })
      } catch (error) {
        validate = `its schema cannot be compiled: ${(error as Error)?.message ?? String(error)}`
      }
      this.compiled.set(schemaPointer, validate)
    }
    return validate
  }
}
