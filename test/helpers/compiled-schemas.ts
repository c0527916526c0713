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
import { subscribe } from 'node:diagnostics_channel'
import { createRequire } from 'node:module'
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
  if (sharedApps.has(app)) return
  const { kSchemaController } = require('fastify/lib/symbols') as { kSchemaController: symbol }
  const controller = (app as unknown as Record<symbol, SchemaController | undefined>)[kSchemaController]
  const factory = controller?.compilersFactory
  if (typeof factory?.buildValidator !== 'function' || typeof factory.buildSerializer !== 'function') {
    throw new Error('Fastify\'s schema controller has no compilersFactory: update test/helpers/compiled-schemas.ts')
  }
  sharedApps.add(app)
  // Compilers the app was given (`schemaController.compilersFactory`) are its own: only Fastify's defaults are shared.
  if (controller?.isCustomValidatorCompiler !== true) factory.buildValidator = sharing(factory.buildValidator, validators, 'validator', false, new Map())
  if (controller?.isCustomSerializerCompiler !== true) factory.buildSerializer = sharing(factory.buildSerializer, serializers, 'serializer', true)
}

/** The root instance's schema controller, as far as the harness reads it. */
interface SchemaController { compilersFactory?: Partial<CompilersFactory>, isCustomValidatorCompiler?: boolean, isCustomSerializerCompiler?: boolean }

/** The apps whose compilers are shared already (`shareCompiledSchemas` is idempotent). */
const sharedApps = new WeakSet<object>()

/** Set once every app of the process shares its compilers (`shareEveryAppsCompilers`). */
let everyApp = false

/**
 * Makes every app this process creates from now on share its compilers, as `shareCompiledSchemas` does for one app,
 * and the tools' Ajv instances their compilations (`shareToolCompilers`): for the folders whose tests start hundreds
 * of small apps on the same schemas (decision 0293, amending 0240). Fastify announces each new instance on the
 * `fastify.initialization` channel, before its routes are added; an instance of another copy of Fastify (the oldest
 * peers' copies, say) has no schema controller under this copy's symbol and is left as it is. Idempotent.
 */
export function shareEveryAppsCompilers (): void {
  if (everyApp) return
  everyApp = true
  shareToolCompilers()
  const { kSchemaController } = require('fastify/lib/symbols') as { kSchemaController: symbol }
  subscribe('fastify.initialization', (message) => {
    const app = (message as { fastify?: FastifyInstance }).fastify
    if (app !== undefined && (app as unknown as Record<symbol, unknown>)[kSchemaController] !== undefined) shareCompiledSchemas(app)
  })
}

/** What the tools use of an Ajv instance (lib/core/strict-validator.ts's `fastifyAjv`), and what it returns of itself. */
type AjvMethod = (...args: unknown[]) => unknown
type AjvInstance = Record<string | symbol, unknown>

/** What an Ajv instance of the tools answered, by the digest of its calls up to it: a value, or what it threw. */
const toolAnswers = new Map<string, { readonly threw: boolean, readonly value: unknown }>()
/** The calls whose answer depends on what the instance was asked before (every call but a compile of a schema with no `$id` and no `$ref`). */
const ANSWERED = new Set(['compile', 'addSchema', 'getSchema'])
/** An answer that was the instance itself (`addSchema` returns it). */
const ITSELF = Symbol('the instance')
/** How many calls of the tools' instances the cache answered, and how many they made (for the lab notes). */
export const toolCalls = { shared: 0, own: 0, left: 0 }

/**
 * An Ajv instance the tools made (`real`, created with the options `options`), whose `compile`, `addSchema` and
 * `getSchema` are answered from `toolAnswers` when an instance made with the same options was asked the same calls,
 * in the same order, the same objects where they were the same (a history, as above). The answers the cache gave are
 * calls `real` has not made: at the first call the cache does not hold, `real` makes them first, then that call, so
 * that it holds what it would hold had it made every call itself; its answer then serves later instances. A compile
 * of a schema with no `$id` and no `$ref` depends on the options alone, and is answered by its text. Any other use of
 * the instance (a property other than its options and formats, another method), or an argument that is not plain
 * JSON, brings `real` up to date and leaves the instance to itself from then on.
 */
function sharedToolAjv (real: AjvInstance, options: string): AjvInstance {
  const history = { key: digest(`ajv\0${options}`), firstAsked: new Map<unknown, number>(), count: 0, own: false }
  const unmade: Array<() => unknown> = []
  const catchUp = (): void => {
    for (const call of unmade.splice(0)) {
      try {
        call()
      } catch {}
    }
  }
  const made = (value: unknown): unknown => value === real ? proxy : value
  const answer = (key: string, call: () => unknown): unknown => {
    const known = toolAnswers.get(key)
    if (known !== undefined) {
      unmade.push(call)
      toolCalls.shared++
      if (known.threw) throw known.value
      return known.value === ITSELF ? proxy : known.value
    }
    catchUp()
    toolCalls.own++
    try {
      const value = call()
      toolAnswers.set(key, { threw: false, value: value === real ? ITSELF : value })
      return made(value)
    } catch (error) {
      toolAnswers.set(key, { threw: true, value: error })
      throw error
    }
  }
  const method = (name: string): AjvMethod => (...args) => {
    const call = (): unknown => (real[name] as AjvMethod).apply(real, args)
    if (history.own) return made(call())
    const texts = args.map((arg) => arg === undefined ? 'undefined' : jsonText(arg, true))
    if (texts.includes(undefined)) {
      history.own = true
      catchUp()
      return made(call())
    }
    const alone = name === 'compile' && args.length === 1 ? jsonText(args[0], false) : undefined
    if (alone !== undefined) return answer(digest(`ajv\0${options}\0compile\0${alone}`), call)
    const places = args.map((arg) => {
      if (typeof arg !== 'object' || arg === null) return -1
      const first = history.firstAsked.get(arg) ?? history.count
      if (first === history.count) history.firstAsked.set(arg, first)
      return first
    })
    history.key = digest(`${history.key}\0${name}\0${places.join(',')}\0${texts.join('\0')}`)
    history.count++
    return answer(history.key, call)
  }
  const proxy: AjvInstance = new Proxy(real, {
    get (target, property) {
      if (typeof property === 'string' && ANSWERED.has(property)) return method(property)
      if (property === 'opts' || property === 'formats') return target[property]
      if (!history.own) {
        history.own = true
        toolCalls.left++
        catchUp()
      }
      const value = target[property]
      return typeof value === 'function' ? (...args: unknown[]) => made((value as AjvMethod).apply(target, args)) : value
    }
  })
  return proxy
}

/** Set once the tools' Ajv instances are shared (`shareToolCompilers`). */
let toolsShared = false

/**
 * Makes the Ajv instances the tools create in this process (`verify`'s validators, `check`'s, the documents' examples:
 * lib/core/strict-validator.ts's `fastifyAjv`, through `@fastify/ajv-compiler`) answer their compilations from one
 * cache, as the apps' own compilers do above: each mistake's `verify` compiled the same forms again in a new instance.
 * Only an instance created with plain JSON options, no plugins and no shared schemas is shared; Fastify's own
 * compilers are not reached (it took `@fastify/ajv-compiler` in when it loaded). Idempotent.
 */
export function shareToolCompilers (): void {
  if (toolsShared) return
  const path = createRequire(require.resolve('fastify')).resolve('@fastify/ajv-compiler')
  require(path)
  const module = require.cache[path]
  const original = module?.exports as ((options?: unknown) => (externalSchemas: unknown, options: Record<string, unknown>) => unknown) | undefined
  if (module === undefined || typeof original !== 'function') throw new Error('@fastify/ajv-compiler exports no factory: update test/helpers/compiled-schemas.ts')
  const factory = Object.assign((factoryOptions?: unknown) => {
    const build = original(factoryOptions)
    return (externalSchemas: unknown, options: Record<string, unknown>) => {
      const onCreate = options.onCreate as ((ajv: unknown) => void) | undefined
      const plugins = options.plugins as unknown[] | undefined
      const text = jsonText(options.customOptions ?? {}, false)
      const plain = typeof onCreate === 'function' && options.mode === undefined && (plugins ?? []).length === 0 && jsonText(externalSchemas, false) === '{}' && text !== undefined
      if (!plain) return build(externalSchemas, options)
      return build(externalSchemas, { ...options, onCreate: (ajv: AjvInstance) => onCreate(sharedToolAjv(ajv, text)) })
    }
  }, original)
  module.exports = factory
  toolsShared = true
}
