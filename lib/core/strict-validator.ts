/**
 * Validating data against JSON Schemas outside Fastify's request lifecycle (`verify`, `migrateResponseBody`, examples),
 * with the Ajv setup Fastify itself uses, without type coercion: a value of the wrong type fails.
 * @module
 */
import { createRequire } from 'node:module'
import type { TSchema } from '@sinclair/typebox'
import { mapSubschemas } from './subschemas'
import { fastifyPrivate } from './application-root'

/** One error of a validator. */
export interface ValidationIssue {
  readonly instancePath?: string
  /** The keyword that failed (`format`, `pattern`, `required`…). */
  readonly keyword?: string
  readonly message?: string
  readonly params?: Record<string, unknown>
}

/** A compiled validator. */
export type Check = ((data: unknown) => boolean) & { errors?: ValidationIssue[] | null }

/** What this package uses of an Ajv instance. */
export interface AjvInstance {
  addSchema: (schema: object, key?: string) => unknown
  getSchema: (id: string) => Check | undefined
  compile: (schema: object) => Check
  /** The formats it knows, by name: a RegExp, a function, `{ validate, type }`, or `true` (ignored). */
  readonly formats?: Readonly<Record<string, unknown>>
  /** The options it was created with (Fastify's defaults and the application's over them). */
  readonly opts?: Readonly<Record<string, unknown>>
}

/** An application's Ajv setup, as given to `Fastify({ ajv })`: its options and its plugins (formats, keywords). */
export interface AppAjvSetup {
  readonly customOptions?: Record<string, unknown>
  readonly plugins?: readonly unknown[]
}

type CompilerFactory = () => (schemas: object, options: AppAjvSetup & { onCreate: (ajv: AjvInstance) => void }) => unknown

/**
 * `@fastify/ajv-compiler`: the copy Fastify loads. In an application bundled into one file with nothing installed
 * beside it, `fastify` cannot be resolved: the copy bundled with it is the one the literal `require` below took in
 * (decision 0190).
 */
function ajvCompiler (): CompilerFactory {
  let fastify: string | undefined
  try {
    fastify = require.resolve('fastify')
  } catch {
    return require('@fastify/ajv-compiler') as CompilerFactory
  }
  return createRequire(fastify)('@fastify/ajv-compiler') as CompilerFactory
}

/**
 * A new Ajv set up as Fastify sets up its own (`@fastify/ajv-compiler`), with `options` over Fastify's defaults
 * (and `app`'s setup under them: the options and plugins of its `Fastify({ ajv })`).
 * @example `const ajv = fastifyAjv({ coerceTypes: false, useDefaults: false, removeAdditional: false })`
 */
export function fastifyAjv (options: Record<string, unknown>, app: AppAjvSetup = {}): AjvInstance {
  const AjvCompiler = ajvCompiler()
  let created: AjvInstance | undefined
  AjvCompiler()({}, { customOptions: { ...app.customOptions, ...options }, plugins: app.plugins ?? [], onCreate: (ajv) => { created = ajv } })
  if (created === undefined) throw new Error('@fastify/ajv-compiler did not create an Ajv instance')
  return created
}

/**
 * The Ajv setup an application was created with (`Fastify({ ajv: { customOptions, plugins } })`), read from the
 * options Fastify keeps on it; none when it cannot be read.
 * @example `const check = strictValidator((ref) => app.getSchema(ref), appAjvSetup(app))`
 */
export function appAjvSetup (app: object): AppAjvSetup {
  return (fastifyPrivate(app, 'fastify.options') as { ajv?: AppAjvSetup } | null | undefined)?.ajv ?? {}
}

/**
 * How an application's Ajv checks each string format: a RegExp for one declared as a pattern (by the application or a
 * plugin), a function for one checked by a function, `undefined` for one it ignores or does not know.
 * @example `formatPatterns(appAjvSetup(app))('sku') // /^[A-Z]{3}-\d+$/ for a format declared so`
 */
export function formatPatterns (app: AppAjvSetup = {}): (format: string) => RegExp | ((value: string) => boolean) | undefined {
  const formats = fastifyAjv({}, app).formats ?? {}
  return (format) => {
    const given = Object.hasOwn(formats, format) ? formats[format] : undefined
    const definition = typeof given === 'object' && given !== null && !(given instanceof RegExp) ? given as { type?: unknown, validate?: unknown } : undefined
    const validate = definition === undefined ? given : (definition.type ?? 'string') === 'string' ? definition.validate : undefined
    // Without `g` and `y`, whose `lastIndex` makes `test` answer by turns.
    if (validate instanceof RegExp) return new RegExp(validate.source, validate.flags.replace(/[gy]/g, ''))
    if (typeof validate !== 'function') return undefined
    return (value) => {
      try {
        // An asynchronous format's promise is no answer here.
        return (validate as (value: string) => unknown)(value) === true
      } catch {
        return false
      }
    }
  }
}

/**
 * A validator compiler: Fastify's Ajv setup (it fills defaults and removes extra fields: validate a copy) with the
 * application's, without type coercion (`scalars`: between scalar types only, never a lone value to a list). `resolveRef`
 * gives the schema a `$ref` names; validators are kept per schema object, shared by schemas of the same JSON.
 * @example `if (!strictValidator(resolveRef)(UserResource)(structuredClone(body))) reject()`
 */
export function strictValidator (resolveRef: (ref: string) => unknown, app: AppAjvSetup = {}, scalars = false): (schema: object) => Check {
  const ajv = fastifyAjv({ coerceTypes: scalars }, app)
  const compiled = new WeakMap<object, Check>()
  // Schemas written alike (a list of the same resource on many routes, in every version) share one validator.
  const byText = new Map<string, Check>()
  return (schema) => {
    let check = compiled.get(schema)
    if (check !== undefined) return check
    const id = (schema as { $id?: unknown }).$id
    const text = typeof id === 'string' ? undefined : JSON.stringify(schema)
    check = text === undefined ? undefined : byText.get(text)
    for (let attempt = 0; check === undefined; attempt++) {
      try {
        // Ajv compiles one schema per `$id`: a schema seen again under its `$id` is the one compiled.
        check = (typeof id === 'string' ? ajv.getSchema(id) : undefined) ?? ajv.compile(nestedIdsAsRefs(ajv, schema))
      } catch (error) {
        // A `$ref` to a schema Ajv does not know yet (the schema's own `$id`: a recursion, as `Type.Recursive` writes it): add it, and compile again.
        const missing = (error as { missingSchema?: unknown }).missingSchema
        const target = typeof missing === 'string' && attempt < 50 ? (missing === id ? schema : resolveRef(missing)) : undefined
        if (typeof target !== 'object' || target === null || ajv.getSchema(missing as string) !== undefined) throw error
        ajv.addSchema(nestedIdsAsRefs(ajv, { ...target, $id: missing as string }))
      }
    }
    compiled.set(schema, check)
    if (text !== undefined) byText.set(text, check)
    return check
  }
}

/**
 * `schema` with each nested schema that has an `$id` added to Ajv once and replaced by a `$ref` to it. Ajv refuses a
 * schema that declares one `$id` twice, as a schema holding a shared TypeBox schema twice does (a payload with two
 * addresses); Fastify never validates such a webhook payload, but `verify` does.
 */
function nestedIdsAsRefs (ajv: AjvInstance, schema: object): object {
  const visit = (node: TSchema): TSchema => {
    const rebuilt = mapSubschemas(node, visit)
    const id = (rebuilt as { $id?: unknown }).$id
    if (typeof id !== 'string') return rebuilt
    if (ajv.getSchema(id) === undefined) ajv.addSchema(rebuilt)
    return { $ref: id } as unknown as TSchema
  }
  return mapSubschemas(schema as TSchema, visit)
}
