/**
 * Stage `lib/serve/`: what a request part's validator answered. Fastify takes a validator compiler's function to
 * answer `true` or `false` (Ajv, with its `errors`), `{ error }` or `{ value }` (a custom compiler's, as
 * `TypeBoxValidatorCompiler`), or a promise (an `$async` schema); the versioner reads it the same way.
 * @module
 */
import type { FastifySchemaValidationError } from 'fastify'

/**
 * What a request part's validator answered, read as Fastify reads it: `false` (its `errors`), a custom compiler's
 * `{ error }` (`TypeBoxValidatorCompiler`'s), or `undefined` when the part is valid.
 * @example
 * const failure = validationFailure(check, check(request.body)) // undefined, or what validationError formats
 */
export function validationFailure (check: { errors?: FastifySchemaValidationError[] | null }, outcome: unknown): FastifySchemaValidationError[] | Error | undefined {
  const failure = outcome === false ? check.errors ?? [] : (outcome as { error?: unknown } | null | undefined)?.error
  return failure === undefined || failure === null || failure === false ? undefined : failure as FastifySchemaValidationError[] | Error
}
