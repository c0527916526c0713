/**
 * The source of the script a function was compiled in, as the runtime runs it (the JavaScript a TypeScript loader
 * gave it, not the file on disk), for `verify`'s dictionary (./converter-literals.ts). Read through Node's inspector,
 * one session a read: the function's `[[FunctionLocation]]` names its script (the Runtime domain, no debugger needed),
 * and the script's source is read with `Debugger.getScriptSource` once per process, kept by script id (V8 never gives
 * an id twice). `Debugger.enable` is the expensive part (V8 collects all garbage, then reports every script the
 * process has loaded: 0.1–0.3 s in a process holding many apps), so the debugger is enabled only when a script has
 * not been read yet, and disabled before the session closes. A runtime without an inspector reads nothing (callers
 * still read the functions' own text).
 * @module
 */
import type { Session } from 'node:inspector'

/** A function whose script is read. */
type Compiled = (...args: never[]) => unknown

/** A protocol call, answered synchronously by an in-process session (`undefined` on an error). */
type Post = (method: string, params: object) => Record<string, unknown> | undefined

/** The most sources kept (the oldest read is dropped first): the scripts holding version changes, a few per app. */
const MAX_SOURCES = 256
const KEY = 'fastify-versioner.script-sources'
const PROBE = Symbol.for(KEY)

/** The sources read in this process, by script id, oldest first. */
const sources = new Map<string, string>()

/**
 * How often the debugger was enabled in this process (what the cache saves shows in it).
 * @example
 * ```ts
 * const before = debuggerEnables.count
 * scriptSources([change.prototype.up]) // a script read before: debuggerEnables.count is still `before`
 * ```
 */
export const debuggerEnables = { count: 0 }

/** The id of the script `fn` was compiled in, if the inspector says. */
function scriptIdOf (post: Post, fn: Compiled): string | undefined {
  const holder = globalThis as unknown as Record<symbol, unknown>
  holder[PROBE] = fn
  try {
    const object = post('Runtime.evaluate', { expression: `globalThis[Symbol.for('${KEY}')]` })?.result as { objectId?: string } | undefined
    const properties = object?.objectId === undefined ? undefined : post('Runtime.getProperties', { objectId: object.objectId, ownProperties: true })
    return (properties?.internalProperties as Array<{ name: string, value?: { value?: { scriptId?: string } } }> | undefined)
      ?.find((property) => property.name === '[[FunctionLocation]]')?.value?.value?.scriptId
  } finally {
    Reflect.deleteProperty(holder, PROBE)
  }
}

/** The sources of scripts `ids` not read yet, through the debugger (enabled once for them all), kept. */
function readSources (post: Post, ids: ReadonlySet<string>): void {
  if (ids.size === 0 || post('Debugger.enable', {}) === undefined) return
  debuggerEnables.count++
  try {
    for (const id of ids) {
      const source = post('Debugger.getScriptSource', { scriptId: id })?.scriptSource
      if (typeof source !== 'string') continue
      sources.set(id, source)
      if (sources.size > MAX_SOURCES) sources.delete(sources.keys().next().value as string)
    }
  } finally {
    post('Debugger.disable', {})
  }
}

/**
 * The source of the script each function was compiled in (`undefined` where the inspector cannot say), each script
 * read once per process.
 * @example
 * ```ts
 * const scripts = scriptSources([QuotaInThousandths.prototype.up])
 * scripts.get(QuotaInThousandths.prototype.up) // the module's JavaScript, with its tables and helpers
 * ```
 */
export function scriptSources<F extends Compiled> (functions: readonly F[]): Map<F, string | undefined> {
  const scripts = new Map<F, string | undefined>(functions.map((fn) => [fn, undefined]))
  let session: Session | undefined
  try {
    // Required here: a Node.js built without the inspector throws on loading it.
    const { Session: InspectorSession } = require('node:inspector') as typeof import('node:inspector')
    session = new InspectorSession()
    session.connect()
    const post: Post = (method, params) => {
      let result: Record<string, unknown> | undefined
      session?.post(method, params, (error, answer) => { if (error === null) result = answer as Record<string, unknown> })
      return result
    }
    const ids = new Map(functions.map((fn) => [fn, scriptIdOf(post, fn)]))
    readSources(post, new Set([...ids.values()].filter((id): id is string => id !== undefined && !sources.has(id))))
    for (const [fn, id] of ids) scripts.set(fn, id === undefined ? undefined : sources.get(id))
  } catch {
    // No inspector (a runtime without one), or its session failed: what was read.
  } finally {
    session?.disconnect()
  }
  return scripts
}
