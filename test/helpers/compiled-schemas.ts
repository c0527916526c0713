/**
 * Fastify's validator and serializer compilers, shared by the apps of one test process through a cache keyed by the
 * schema's JSON text: the mutation score starts about 400 apps of two example apps, and compiled the same schemas
 * (Ajv, fast-json-stringify) in each, which bought nothing its assertions read (docs/benchmarks.md, seventeenth session).
 *
 * Only what is a pure function of its inputs is shared, in an app with no shared schemas whose compiler options are
 * plain JSON, for a schema made of plain JSON values (no function, no `undefined`, no class instance: such a schema
 * is compiled by the app's own compiler, as Fastify does). A serializer, and a validator of a schema with no `$id` and
 * no `$ref`, is a function of the schema's text and the options. A validator of a schema holding an `$id` or a `$ref`
 * also depends on what the app's Ajv instance compiled before it (the `$id`s it keeps): it is shared only with an app
 * that compiled the same such schemas, in the same order, before it (a history, below). The rest goes to the app's
 * own compiler, unchanged. The compiled functions are Ajv's and fast-json-stringify's, for the same inputs: the ones
 * the app would have compiled itself.
 */
import { createHash } from 'node:crypto'
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
function sharing (own: Builder, cache: Map<string, unknown>, kind: string, references: boolean, histories?: Map<string, History>): Builder {
  return (externalSchemas, options) => {
    let compile: Compile | undefined
    const ownCompile = (route: RouteSchema): unknown => (compile ??= own(externalSchemas, options))(route)
    const externals = jsonText(externalSchemas, false)
    const prefix = externals !== '{}' ? undefined : options === undefined ? '' : jsonText(options, false)
    return (route) => {
      const text = prefix === undefined ? undefined : jsonText(route.schema, references)
      if (text === undefined) {
        if (prefix !== undefined && histories !== undefined) return throughHistory(historyOf(histories, prefix), route, ownCompile)
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
 * What one app's Ajv instance was asked to compile of the schemas holding an `$id` or a `$ref`, in order. Ajv keeps
 * each `$id` it compiles, and resolves a later `$ref` against them: the function compiled for such a schema is a pure
 * function of the app's options and of every such schema compiled before it in the same instance (their texts, and
 * which of them were the same object). Fastify's pool gives the contexts of one app that have no shared schemas one
 * instance (their options are the app's), so an app holds one history per options text.
 */
interface History {
  /** A digest of the options and of every schema asked so far: its text, and where the same object was first asked. */
  key: string
  readonly asked: RouteSchema[]
  readonly firstAsked: Map<unknown, number>
  /** How many of `asked` the app's own instance has compiled (the cache answered the rest). */
  done: number
  /** Set by a schema that is not plain JSON, or a compilation that threw: the app's own instance answers from then on. */
  own: boolean
}

/** The functions compiled for schemas holding an `$id` or a `$ref`, by the digest of their app's history up to them. */
const afterHistory = new Map<string, unknown>()

function digest (text: string): string {
  return createHash('sha256').update(text).digest('base64')
}

/** The history of the app's instance for the options `prefix` (`apps`: the app's histories). */
function historyOf (apps: Map<string, History>, prefix: string): History {
  let history = apps.get(prefix)
  if (history === undefined) apps.set(prefix, history = { key: digest(prefix), asked: [], firstAsked: new Map(), done: 0, own: false })
  return history
}

/**
 * Answers `route` (a schema holding an `$id` or a `$ref`, or one that is not plain JSON) from the cache when an app
 * with the same history compiled it. Else the app's own instance first compiles what the cache answered before, so
 * that it holds what it would hold had it compiled everything itself, then `route`.
 */
function throughHistory (history: History, route: RouteSchema, ownCompile: Compile): unknown {
  const text = history.own ? undefined : jsonText(route.schema, true)
  if (text !== undefined) {
    const first = history.firstAsked.get(route.schema) ?? history.asked.length
    if (first === history.asked.length) history.firstAsked.set(route.schema, first)
    history.key = digest(`${history.key}\0${first}\0${text}`)
    history.asked.push(route)
    const known = afterHistory.get(history.key)
    if (known !== undefined) {
      compiled.shared++
      return known
    }
  } else {
    history.own = true
  }
  try {
    for (; history.done < history.asked.length - (text === undefined ? 0 : 1); history.done++) {
      compiled.own++
      ownCompile(history.asked[history.done])
    }
    compiled.own++
    const done = ownCompile(route)
    if (text !== undefined) afterHistory.set(history.key, done)
    return done
  } catch (error) {
    history.own = true
    throw error
  } finally {
    history.done = history.asked.length
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
  factory.buildValidator = sharing(factory.buildValidator, validators, 'validator', false, new Map())
  factory.buildSerializer = sharing(factory.buildSerializer, serializers, 'serializer', true)
}
