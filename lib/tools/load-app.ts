/**
 * Loading an application for the command-line tools: `<app>` is a module whose default export (or export
 * named `build`) is a function returning, or resolving to, a Fastify instance with fastify-versioner
 * registered, or that instance itself. JavaScript modules (CommonJS or ESM) are imported by Node; TypeScript
 * modules through `tsx`, when the application's project has it installed.
 * @module
 */
import type { FastifyInstance } from 'fastify'
import { existsSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, extname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { types } from 'node:util'
import { VersionerToolError } from '../core/errors'
import type { CommandOutput } from './api-commands'
import { describeThrown } from './terminal-text'
import { isFastify, rootOf } from '../core/application-root'
import { versionedApis, versionerStateOf } from './versioned-apis'

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx'])

/** The module's app: its default export, or its `build` export (CommonJS `module.exports` included). */
function appExport (module: Record<string, unknown>): unknown {
  let candidate = module.default ?? module.build
  // A CommonJS module imported from ESM: its exports object is the default export.
  if (typeof candidate === 'object' && candidate !== null && !isFastify(candidate) && !types.isPromise(candidate)) {
    const inner = candidate as Record<string, unknown>
    candidate = inner.default ?? inner.build
  }
  return candidate
}

/**
 * What the application threw while loading or starting, and (unless it is one of this package's errors, which say how
 * to fix them) what to do about it.
 */
function failure (thrown: unknown): string {
  const { code, syscall } = (thrown ?? {}) as { code?: unknown, syscall?: unknown }
  // A module that starts its server when loaded (app.listen() at its end) fails here when the port is taken (the
  // developer's own server running): no matter of the environment, and its stack is Node's own frames.
  if (syscall === 'listen') {
    return `${describeThrown(thrown).split('\n')[0]}\nThe application listens on a port as its module loads or its app function runs; the ` +
      'commands need the app built, never listening. Call listen() in the file that starts the server (or only when the module ' +
      'is the one run: require.main === module in CommonJS), and export the function that builds the app.'
  }
  // Node's own loading errors (a syntax error, a module not found) say what is wrong with the code, not its environment.
  const own = typeof code === 'string' && /^(FST_VERSIONER_|ERR_|MODULE_NOT_FOUND$)/.test(code)
  if (own || thrown instanceof SyntaxError) return describeThrown(thrown)
  return `${describeThrown(thrown)}\nThe command loads the module and builds the app as your server's start does, without listening: ` +
    'run it with the environment variables and services (a database) that start needs, or make the module build the app without them.'
}

/** The tsconfig.json nearest to a module (in its folder or the closest folder above), if any. */
function nearestTsconfig (file: string): string | undefined {
  for (let folder = dirname(file); ; folder = dirname(folder)) {
    if (existsSync(join(folder, 'tsconfig.json'))) return join(folder, 'tsconfig.json')
    if (dirname(folder) === folder) return undefined
  }
}

/**
 * How to import a module: Node's `import`, or for a TypeScript module the `tsx` the application's project (or the
 * working folder) has installed, registered first (a `.cts` module is then required).
 */
function importerFor (file: string): (file: string) => Promise<Record<string, unknown>> {
  const plain = async (target: string): Promise<Record<string, unknown>> => await import(pathToFileURL(target).href) as Record<string, unknown>
  if (!TYPESCRIPT.has(extname(file))) return plain
  let loader: string | undefined
  for (const base of [dirname(file), process.cwd()]) {
    try {
      loader = createRequire(join(base, 'noop.js')).resolve('tsx')
      break
    } catch {}
  }
  if (loader === undefined) {
    throw new VersionerToolError(`'${file}' is a TypeScript module, and tsx is not installed to load it. ` +
      'Install it in your project (npm install --save-dev tsx), or point the command at the compiled JavaScript.')
  }
  const tsx = loader
  return async (target) => {
    // tsx's entry (what `node --import tsx` runs) registers its loaders for import and require, with the options of
    // the tsconfig.json it is given, else the working folder's: given the module's own (its path aliases), unless set.
    const tsconfig = process.env.TSX_TSCONFIG_PATH === undefined ? nearestTsconfig(target) : undefined
    if (tsconfig !== undefined) process.env.TSX_TSCONFIG_PATH = tsconfig
    try {
      await import(pathToFileURL(tsx).href)
    } finally {
      if (tsconfig !== undefined) delete process.env.TSX_TSCONFIG_PATH
    }
    // A .cts module is CommonJS: required (its exports object is its default export, as an import of CommonJS gives
    // it). Imported, Node 20 runs it through the ESM loader's CommonJS bridge, which fails on a require cycle of a
    // dependency (Ajv's): "Cannot read properties of undefined (reading 'exports')".
    if (extname(target) === '.cts') return { default: createRequire(target)(target) as unknown }
    return await plain(target)
  }
}

/**
 * The app a module's export gives: what its app function returns, what its promise resolves to, or the export itself
 * (boxed: an async function returning a Fastify instance, a thenable, would ready it).
 */
async function appOf (exported: unknown, path: string): Promise<{ readonly app: unknown }> {
  // `export default build()`: a promise of the app (a promise only: a Fastify instance is a thenable that readies it).
  const promise = types.isPromise(exported)
  if (typeof exported !== 'function' && !promise) return { app: exported }
  try {
    return { app: typeof exported === 'function' ? await (exported as () => unknown)() : await exported }
  } catch (error) {
    const parameters = typeof exported === 'function' ? exported.length : 0
    if (parameters >= 2) {
      throw new VersionerToolError(`The export of '${path}' takes ${parameters} parameters, as a Fastify plugin does (fastify-cli's app.js), and ` +
        `failed when called without them: ${describeThrown(error)}\nExport a function that builds the app instead: one that creates a ` +
        'Fastify instance, registers the plugin on it and returns it.')
    }
    // A plugin of one parameter (`async function (fastify)`) reads a property of the instance it was not given.
    if (parameters === 1 && error instanceof TypeError && /of undefined/.test(error.message)) {
      throw new VersionerToolError(`The app function of '${path}' failed: ${describeThrown(error)}\nIf it is a Fastify plugin (its ` +
        'parameter the Fastify instance), export a function that builds the app instead: one that creates a Fastify instance, ' +
        'registers the plugin on it and returns it.')
    }
    throw new VersionerToolError(`The app ${promise ? 'promise' : 'function'} of '${path}' failed: ${failure(error)}`)
  }
}

/** The app export of the module at `path` (imported once: Node caches it), and its other exports' names. */
async function moduleExport (path: string): Promise<{ exported: unknown, names: string[] }> {
  const file = resolve(path)
  if (!existsSync(file)) throw new VersionerToolError(`The application module '${path}' does not exist (resolved to ${file}).`)
  if (statSync(file).isDirectory()) throw new VersionerToolError(`The application module '${path}' is a folder: name the module file that exports the app (such as dist/app.js).`)
  try {
    const loaded = await importerFor(file)(file)
    return { exported: appExport(loaded), names: Object.keys(loaded).filter((name) => name !== 'default' && name !== 'module.exports') }
  } catch (error) {
    throw new VersionerToolError(`The application module '${path}' could not be loaded: ${failure(error)}`)
  }
}

/**
 * A builder of fresh applications from the module at `path` (what `replay --handlers` sends recorded requests to): each
 * call runs its app function again. A module exporting an instance, or a promise of one, has no fresh one to give.
 * @example
 * ```ts
 * const build = await appBuilder('./dist/app.js')
 * const report = await replayTraffic(app, traffic, { handlers: build })
 * ```
 */
export async function appBuilder (path: string): Promise<() => Promise<FastifyInstance>> {
  const { exported } = await moduleExport(path)
  if (typeof exported !== 'function') {
    throw new VersionerToolError(`'${path}' exports an application, not a function building one: replay --handlers sends the recorded requests to fresh ` +
      'applications (each with a fresh state), so export a function that builds the app, as a test builds one.')
  }
  return async () => {
    const { app } = await appOf(exported, path)
    if (!isFastify(app)) throw new VersionerToolError(`The app function of '${path}' returned something other than a Fastify instance.`)
    return app
  }
}

/**
 * Loads the application module at `path` and returns its Fastify instance, readied (no port is opened): the
 * application, or the context of one of its versioned APIs when the module exports that (close it with its root's
 * `close()`: the whole application).
 * @example
 * ```ts
 * const app = await loadApp('./dist/app.js')
 * const findings = await verify(app)
 * await app.close()
 * ```
 */
export async function loadApp (path: string): Promise<FastifyInstance> {
  const { exported, names } = await moduleExport(path)
  const { app } = await appOf(exported, path)
  if (!isFastify(app)) {
    const others = exported === undefined && names.length > 0 ? ` (its named exports: ${names.slice(0, 10).join(', ')})` : ''
    throw new VersionerToolError(`'${path}' must default-export (or export as 'build') a function returning a Fastify instance, or the instance; ` +
      `its ${exported === undefined ? 'exports have neither' : 'export gave something else'}${others}.`)
  }
  // The root readies the whole application (a context's own ready() after the root's fails inside avvio).
  try {
    await rootOf(app).ready()
  } catch (error) {
    await closeWithinLimit(app).catch(() => false)
    throw new VersionerToolError(`The application of '${path}' failed to start (ready()): ${failure(error)}`)
  }
  try {
    for (const api of versionedApis(app)) versionerStateOf(api.context)
    return app
  } catch (error) {
    await closeWithinLimit(app).catch(() => false)
    throw new VersionerToolError(`The application of '${path}': ${(error as Error).message}`)
  }
}

/** How long closing an application may take before the command stops without it. */
const CLOSE_LIMIT_SECONDS = 10

/**
 * Closes the whole application; false when that did not finish within the limit (an `onClose` hook that never
 * settles). The limit's timer keeps the process alive meanwhile: without it, a hook's pending promise let Node exit
 * with the command's work done and its exit code never set (0 for a finding).
 */
async function closeWithinLimit (app: FastifyInstance): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), CLOSE_LIMIT_SECONDS * 1000) })
  try {
    return await Promise.race([rootOf(app).close().then(() => true), late])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Closes an application {@link loadApp} loaded (its root: the whole application); returns 0, or 1 after saying so
 * when one of its `onClose` hooks fails, whatever it throws, or does not settle within 10 s.
 * @example
 * ```ts
 * code = Math.max(code, await closeApp(app, 'dist/app.js', { out: console.log, err: console.error }))
 * ```
 */
export async function closeApp (app: FastifyInstance, path: string, io: CommandOutput): Promise<number> {
  try {
    if (await closeWithinLimit(app)) return 0
    io.err(`fastify-versioner: closing the application of '${path}' did not finish in ${CLOSE_LIMIT_SECONDS} s (an onClose hook that never ` +
      'settles); the command stops without it.')
    return 1
  } catch (error) {
    io.err(`fastify-versioner: closing the application of '${path}' failed: ${describeThrown(error)}`)
    return 1
  }
}
