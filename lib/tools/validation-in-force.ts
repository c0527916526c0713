/**
 * How the validator of an API's routes treats what `check` judges old requests by (fields `additionalProperties:
 * false` does not take, a required field's `default`, a body's `5` for a string): Fastify's Ajv options where Fastify's
 * Ajv validates, read; a validator compiler of the application's own (`setValidatorCompiler`, such as
 * `TypeBoxValidatorCompiler`, a schema controller's, a route's `validatorCompiler`), measured on three probes.
 * @module
 */
import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { appAjvSetup, fastifyAjv, formatPatterns, strictValidator, type AppAjvSetup, type Check } from '../core/strict-validator'
import { isThenable } from '../serve/step-runner'
import { validationFailure } from '../serve/head-validation'
import { ownValidatorCompiler, type HeadRoute } from '../routes/versioner-state'
import type { RequestPart, RequestPlan } from '../routes/version-plan'
import { versionerStateOf } from './versioned-apis'

type Validate = ((data: unknown) => unknown) & { errors?: null }
type Compiler = (route: { schema: TSchema, method: string, url: string, httpPart: string }) => Validate
const ownCompiler = (validation: HeadRoute['validation']): Compiler | undefined => ownValidatorCompiler(validation) as Compiler | undefined

/** What `check` asks of a validator: Ajv's option names, as Fastify's Ajv would be set to answer alike. */
interface Measured { removeAdditional: boolean | 'all', useDefaults: boolean, coerceTypes: boolean }

/** What a validator makes of `data` (a copy), or `undefined` when it refuses it or cannot say (it throws, or is async). */
function validatedBy (validate: () => Validate, data: Record<string, unknown>): Record<string, unknown> | undefined {
  try {
    const check = validate()
    const copy = structuredClone(data)
    const outcome = check(copy)
    if (isThenable(outcome) || validationFailure(check, outcome) !== undefined) return undefined
    const value = typeof outcome === 'object' && outcome !== null && 'value' in outcome ? outcome.value : copy
    return typeof value === 'object' && value !== null ? value as Record<string, unknown> : undefined
  } catch {
    return undefined
  }
}

/** The body a validator compiler's validator of `schema` makes of `data`, as {@link validatedBy}. */
const validated = (compiler: Compiler, schema: TSchema, data: Record<string, unknown>): Record<string, unknown> | undefined =>
  validatedBy(() => compiler({ schema, method: 'POST', url: '/', httpPart: 'body' }), data)

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

/**
 * A request's parts as serving hands them to its converters (decision 0157): each part the plan validates replaced by
 * a copy validated as served, by the route's own validator compiler or, where Fastify's Ajv validates it, by `ajv`
 * (the application's Ajv setup), so that a left-out field's `default` is filled and a field a closed object does not
 * take removed where that validator does so (the part left as it is where it refuses it or cannot say: it throws, or
 * is async); then the fields the version lacks removed (its cleaners). In place.
 * @example `servedRequest(head.validation, env.compile, plan)(data) // data.body.role: 'member'`
 */
export function servedRequest (validation: HeadRoute['validation'], ajv: (schema: TSchema) => Check, plan: Pick<RequestPlan, 'validate' | 'cleaners'>): (data: Partial<Record<RequestPart, unknown>>) => void {
  const own = ownCompiler(validation)
  const compiled = new Map<TSchema, Validate>()
  const validatorOf = (schema: TSchema, httpPart: RequestPart): Validate => {
    let check = compiled.get(schema)
    if (check === undefined) compiled.set(schema, check = own === undefined ? ajv(schema) as unknown as Validate : own({ schema, method: 'POST', url: '/', httpPart }))
    return check
  }
  const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null
  return (data) => {
    for (const [part, schema] of plan.validate) {
      const sent = data[part]
      if (isObject(sent)) data[part] = validatedBy(() => validatorOf(schema, part), sent) ?? sent
    }
    for (const [part, clean] of plan.cleaners) {
      const sent = data[part]
      if (isObject(sent)) clean(sent)
    }
  }
}

/**
 * The validators `verify` and `mutate` replay with, from an application's `$ref`s and Ajv setup: `compile`, strict (no
 * type coercion); `compileText`, for what a request's query string and headers carry, text Fastify coerces: a scalar
 * coerced as the application's Ajv coerces it (`'5'` for an integer), a lone value never made a list (none where the
 * application turned coercion off, `coerceTypes: false`: `'5'` is refused); and how the Ajv checks each `formats`.
 * @example `const { compile, compileText } = replayValidators(resolveRef, appAjvSetup(app)); (compileText ?? compile)(Page)`
 */
export function replayValidators (resolveRef: (ref: string) => unknown, app: AppAjvSetup): {
  compile: (schema: object) => Check, compileText: ((schema: object) => Check) | undefined, formats: ReturnType<typeof formatPatterns>
} {
  return {
    compile: strictValidator(resolveRef, app),
    compileText: app.customOptions?.coerceTypes === false ? undefined : strictValidator(resolveRef, app, true),
    formats: formatPatterns(app)
  }
}
