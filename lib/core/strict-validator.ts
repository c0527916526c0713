/**
 * A strict validator of data against JSON Schemas, for checks outside Fastify's request lifecycle (`verify`,
 * `migrateResponseBody`): Fastify's own Ajv setup (`@fastify/ajv-compiler`, with its formats, defaults and removal
 * of extra fields where a schema closes an object) without type coercion, so that a value of the wrong type fails
 * rather than being coerced into place. Loaded through Fastify (a peer dependency) on first use.
 * @module
 */
import { createRequire } from 'node:module'

/** One error of a validator. */
export interface ValidationIssue {
  readonly instancePath?: string
  readonly message?: string
  readonly params?: Record<string, unknown>
}

/** A compiled validator. */
export type Check = ((data: unknown) => boolean) & { errors?: ValidationIssue[] | null }

interface AjvLike {
  addSchema: (schema: object) => unknown
  getSchema: (id: string) => unknown
}

type Compile = (route: { schema: object, method: string, url: string, httpPart?: string }) => Check

/**
 * A validator compiler; `resolveRef` gives the schema an `$id` (or `$ref`) names, added to Ajv when a schema being
 * compiled refers to it. Compiled validators are kept per schema object.
 * @example
 * ```ts
 * const check = strictValidator((ref) => app.getSchema(ref))(UserResource)
 * if (!check(body)) console.log(check.errors)
 * ```
 */
export function strictValidator (resolveRef: (ref: string) => unknown): (schema: object) => Check {
  const fromFastify = createRequire(require.resolve('fastify'))
  const AjvCompiler = fromFastify('@fastify/ajv-compiler') as () => (schemas: object, options: object) => Compile
  let ajv: AjvLike | undefined
  const compile = AjvCompiler()({}, { customOptions: { coerceTypes: false }, onCreate: (instance: AjvLike) => { ajv = instance } })
  const compiled = new WeakMap<object, Check>()
  return (schema) => {
    let check = compiled.get(schema)
    if (check !== undefined) return check
    for (let attempt = 0; ; attempt++) {
      try {
        check = compile({ schema, method: 'POST', url: '/', httpPart: 'body' })
        break
      } catch (error) {
        // A `$ref` to a schema Ajv does not know yet: add it, and compile again.
        const missing = (error as { missingSchema?: unknown }).missingSchema
        const target = typeof missing === 'string' && attempt < 50 ? resolveRef(missing) : undefined
        if (ajv === undefined || typeof target !== 'object' || target === null || ajv.getSchema(missing as string) !== undefined) throw error
        ajv.addSchema({ ...target, $id: missing as string })
      }
    }
    compiled.set(schema, check)
    return check
  }
}
