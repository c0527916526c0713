/**
 * Fastify's validator and serializer compilers, shared by the apps of one test process through a cache keyed by the
 * schema's JSON text: the mutation score starts about 400 apps of two example apps, and compiled the same schemas
 * (Ajv, fast-json-stringify) in each, which bought nothing its assertions read (docs/benchmarks.md, seventeenth session).
 *
 * Only what is a pure function of its JSON text is shared: a schema with no `$id` and no `$ref` (nothing to resolve
 * against the app's shared schemas), made of plain JSON values (no function, no `undefined`, no class instance: such
 * a schema is compiled by the app's own compiler, as Fastify does), compiled with options given as plain JSON, in an
 * app with no shared schemas. The rest goes to the app's own compiler, unchanged. The compiled functions are Ajv's and
 * fast-json-stringify's, for the same schema text and options: the ones the app would have compiled itself.
 */
import type { FastifyInstance } from 'fastify'

/** What Fastify hands a compiler: the route's schema (and more, which the default compilers do not read). */
interface RouteSchema { readonly schema: unknown }
type Compile = (route: RouteSchema) => unknown
type Builder = (externalSchemas: unknown, options: unknown) => Compile

/** Fastify's factories of compilers, on the root instance's schema controller (shared by its plugins' contexts). */
interface CompilersFactory { buildValidator: Builder, buildSerializer: Builder }

const validators = new Map<string, unknown>()
const serializers = new Map<string, unknown>()
/** How many compilations the cache answered, and how many it handed to the app's compiler (for the lab notes). */
export const compiled = { shared: 0, own: 0 }

/**
 * The JSON text of a value made only of plain JSON values; `undefined` for anything else, and (unless `references`) for
 * a value holding `$id` or `$ref` keys.
 */
function jsonText (value: unknown, references: boolean): string | undefined {
  try {
    return JSON.stringify(value, function (this: Record<string, unknown>, key: string, replaced: unknown) {
      const raw = this[key]
      if ((!references && (key === '$id' || key === '$ref')) || raw !== replaced) throw new Error('not plain')
      if (raw === undefined || typeof raw === 'function' || typeof raw === 'symbol' || typeof raw === 'bigint') throw new Error('not plain')
      if (typeof raw === 'number' && !Number.isFinite(raw)) throw new Error('not plain')
      if (raw !== null && typeof raw === 'object' && ![Object.prototype, Array.prototype].includes(Object.getPrototypeOf(raw))) throw new Error('not plain')
      return raw
    })
  } catch {
    return undefined
  }
}

/** A builder whose compilers answer from `cache` what is a pure function of the schema's text, else compile as `own`'s. */
function sharing (own: Builder, cache: Map<string, unknown>, kind: string, references: boolean): Builder {
  return (externalSchemas, options) => {
    let compile: Compile | undefined
    const ownCompile = (route: RouteSchema): unknown => (compile ??= own(externalSchemas, options))(route)
    const externals = jsonText(externalSchemas, false)
    const prefix = externals !== '{}' ? undefined : options === undefined ? '' : jsonText(options, false)
    return (route) => {
      const text = prefix === undefined ? undefined : jsonText(route.schema, references)
      if (text === undefined) {
        compiled.own++
        return ownCompile(route)
      }
      const key = `${kind}\0${prefix}\0${text}`
      let done = cache.get(key)
      if (done === undefined) {
        compiled.own++
        cache.set(key, done = ownCompile(route))
      } else {
        compiled.shared++
      }
      return done
    }
  }
}

/**
 * Makes `app` (built, not yet ready: Fastify compiles its routes' schemas when it gets ready) compile its schemas
 * through the shared cache. Throws when Fastify's schema controller is not where it was (a Fastify upgrade).
 * @example
 * ```ts
 * const app = await buildApp()
 * shareCompiledSchemas(app)
 * await app.ready()
 * ```
 */
export function shareCompiledSchemas (app: FastifyInstance): void {
  const { kSchemaController } = require('fastify/lib/symbols') as { kSchemaController: symbol }
  const controller = (app as unknown as Record<symbol, { compilersFactory?: Partial<CompilersFactory>, isCustomValidatorCompiler?: boolean } | undefined>)[kSchemaController]
  const factory = controller?.compilersFactory
  if (typeof factory?.buildValidator !== 'function' || typeof factory.buildSerializer !== 'function') {
    throw new Error('Fastify\'s schema controller has no compilersFactory: update test/helpers/compiled-schemas.ts')
  }
  factory.buildValidator = sharing(factory.buildValidator, validators, 'validator', false)
  factory.buildSerializer = sharing(factory.buildSerializer, serializers, 'serializer', true)
}
