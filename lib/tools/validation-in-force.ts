/**
 * How the validator of an API's routes treats what `check` judges old requests by (fields `additionalProperties:
 * false` does not take, a required field's `default`, a body's `5` for a string): Fastify's Ajv options where Fastify's
 * Ajv validates, read; a validator compiler of the application's own (`setValidatorCompiler`, such as
 * `TypeBoxValidatorCompiler`, a schema controller's, a route's `validatorCompiler`), measured on three probes.
 * @module
 */
import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { appAjvSetup, fastifyAjv, type AppAjvSetup } from '../core/strict-validator'
import { fastifyPrivate } from '../core/application-root'
import { isThenable } from '../serve/step-runner'
import { validationFailure } from '../serve/head-validation'
import type { HeadRoute } from '../routes/versioner-state'
import { versionerStateOf } from './versioned-apis'

type Validate = ((data: unknown) => unknown) & { errors?: null }
type Compiler = (route: { schema: TSchema, method: string, url: string, httpPart: string }) => Validate

/** The part of Fastify's schema controller read here (private: `fastify.schemaController`). */
interface SchemaController {
  readonly validatorCompiler?: unknown
  readonly isCustomValidatorCompiler?: boolean
  readonly parent?: SchemaController
}

/** What `check` asks of a validator: Ajv's option names, as Fastify's Ajv would be set to answer alike. */
interface Measured { removeAdditional: boolean | 'all', useDefaults: boolean, coerceTypes: boolean }

/** The application's own validator compiler a route is validated by, or `undefined` where Fastify's Ajv validates it. */
function ownCompiler ({ context, compiler }: HeadRoute['validation']): Compiler | undefined {
  if (typeof compiler === 'function') return compiler as Compiler
  let controller = fastifyPrivate(context, 'fastify.schemaController') as SchemaController | undefined
  // A context's controller uses its own compiler, else its parent's.
  while (controller !== undefined && controller.validatorCompiler === undefined) controller = controller.parent
  const found = controller?.validatorCompiler
  return controller?.isCustomValidatorCompiler === true && typeof found === 'function' ? found as Compiler : undefined
}

/** The body a validator makes of `data` (a copy), or `undefined` when it refuses it or cannot say (it throws, or is async). */
function validated (compiler: Compiler, schema: TSchema, data: Record<string, unknown>): Record<string, unknown> | undefined {
  try {
    const validate = compiler({ schema, method: 'POST', url: '/', httpPart: 'body' })
    const copy = structuredClone(data)
    const outcome = validate(copy)
    if (isThenable(outcome) || validationFailure(validate, outcome) !== undefined) return undefined
    const value = typeof outcome === 'object' && outcome !== null && 'value' in outcome ? outcome.value : copy
    return typeof value === 'object' && value !== null ? value as Record<string, unknown> : undefined
  } catch {
    return undefined
  }
}

/** What a validator compiler does with the three probes (TypeBox schemas, which any JSON Schema validator reads too). */
function measure (compiler: Compiler): Measured {
  const closed = validated(compiler, Type.Object({ a: Type.String() }, { additionalProperties: false }), { a: 'x', b: 'y' })
  const open = validated(compiler, Type.Object({ a: Type.String() }), { a: 'x', b: 'y' })
  const defaulted = validated(compiler, Type.Object({ a: Type.String({ default: 'd' }) }), {})
  const coerced = validated(compiler, Type.Object({ a: Type.String() }), { a: 5 })
  return {
    removeAdditional: closed === undefined ? false : open !== undefined && !Object.hasOwn(open, 'b') ? 'all' : true,
    useDefaults: defaulted?.a === 'd',
    coerceTypes: coerced?.a === '5'
  }
}

/**
 * The Ajv setup `check` judges an API's old requests by: the application's (`Fastify({ ajv })`), or, where its
 * routes run a validator compiler of the application's own, Ajv options answering as that compiler does. Routes
 * validated differently are judged by what refuses most (nothing removed, defaulted or coerced where one does not).
 * @example `compareInto(result, version, saved, served, requestValidationSetup(context))`
 */
export function requestValidationSetup (context: FastifyInstance): AppAjvSetup {
  const setup = appAjvSetup(context)
  const compilers = new Set(versionerStateOf(context).headRoutes.map((head) => ownCompiler(head.validation)))
  if (compilers.size === 0 || (compilers.size === 1 && compilers.has(undefined))) return setup
  const options = fastifyAjv({}, setup).opts ?? {}
  const ajv: Measured = {
    removeAdditional: options.removeAdditional === 'all' ? 'all' : Boolean(options.removeAdditional),
    useDefaults: Boolean(options.useDefaults),
    coerceTypes: Boolean(options.coerceTypes)
  }
  const each = [...compilers].map((compiler) => compiler === undefined ? ajv : measure(compiler))
  const agreed = <K extends keyof Measured>(key: K): Measured[K] | false => each.every((one) => one[key] === each[0][key]) ? each[0][key] : false
  const measured = { removeAdditional: agreed('removeAdditional'), useDefaults: agreed('useDefaults'), coerceTypes: agreed('coerceTypes') }
  return { ...setup, customOptions: { ...setup.customOptions, ...measured } }
}
