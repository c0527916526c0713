/**
 * Loading an application for the command-line tools: `<app>` is a module whose default export (or export
 * named `build`) is a function returning, or resolving to, a Fastify instance with fastify-versioner
 * registered, or that instance itself. JavaScript modules (CommonJS or ESM) are imported by Node; TypeScript
 * modules through `tsx`, when the application's project has it installed.
 * @module
 */
import type { FastifyInstance } from 'fastify'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, extname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { VersionerToolError } from '../core/errors'
import { isFastify, rootOf, versionedApis } from './versioned-apis'

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx'])

/** The module's app: its default export, or its `build` export (CommonJS `module.exports` included). */
function appExport (module: Record<string, unknown>): unknown {
  let candidate = module.default ?? module.build
  // A CommonJS module imported from ESM: its exports object is the default export.
  if (typeof candidate === 'object' && candidate !== null && !isFastify(candidate)) {
    const inner = candidate as Record<string, unknown>
    candidate = inner.default ?? inner.build
  }
  return candidate
}

/** Imports a TypeScript module with the `tsx` the application's project (or the working folder) has installed. */
async function importTypeScript (file: string): Promise<Record<string, unknown>> {
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
  // tsx's entry (what `node --import tsx` runs) registers its loaders for import and require.
  await import(pathToFileURL(loader).href)
  return await import(pathToFileURL(file).href) as Record<string, unknown>
}

/**
 * Loads the application module at `path` and returns its Fastify instance, readied (no port is opened): the
 * application, or the context of one of its versioned APIs when the module exports that (close it with its root's
 * `close()`: the whole application).
 * @example
 * ```ts
 * const app = await loadApp('./dist/app.js')
 * const findings = await app.versioner.verify()
 * await app.close()
 * ```
 */
export async function loadApp (path: string): Promise<FastifyInstance> {
  const file = resolve(path)
  if (!existsSync(file)) throw new VersionerToolError(`The application module '${path}' does not exist (resolved to ${file}).`)
  let module: Record<string, unknown>
  try {
    module = TYPESCRIPT.has(extname(file)) ? await importTypeScript(file) : await import(pathToFileURL(file).href) as Record<string, unknown>
  } catch (error) {
    if (error instanceof VersionerToolError) throw error
    throw new VersionerToolError(`The application module '${path}' could not be loaded: ${(error as Error)?.stack ?? String(error)}`)
  }
  const exported = appExport(module)
  let app: unknown = exported
  if (typeof exported === 'function') {
    try {
      app = await (exported as () => unknown)()
    } catch (error) {
      throw new VersionerToolError(`The app function of '${path}' failed: ${(error as Error)?.stack ?? String(error)}`)
    }
  }
  if (!isFastify(app)) {
    throw new VersionerToolError(`'${path}' must default-export (or export as 'build') a function returning a Fastify instance, or the instance; ` +
      `its ${exported === undefined ? 'exports have neither' : 'export gave something else'}.`)
  }
  // The root readies the whole application (a context's own ready() after the root's fails inside avvio).
  await rootOf(app).ready()
  try {
    if (versionedApis(app).some((api) => typeof api.context.versioner.verify !== 'function')) {
      throw new VersionerToolError('does not register fastify-versioner, or a version of it without the tools (app.versioner.verify is missing).')
    }
    return app
  } catch (error) {
    await rootOf(app).close()
    throw new VersionerToolError(`The application of '${path}': ${(error as Error).message}`)
  }
}
