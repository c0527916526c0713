/**
 * The versioned APIs of an application: each registration of the plugin (one per API, in its own context) records
 * its context on the application's root instance, and the tools (`export`, `check`, `verify`, `injectEveryVersion`)
 * find them from the root or from any context inside one API. An API is named by its `apiName` option, else by its
 * prefix (`/public` → `public`, `/v1/partner` → `v1-partner`, no prefix → `root`).
 * @module
 */
import type { FastifyInstance } from 'fastify'
import { VersionerToolError } from '../core/errors'
import { kToolFacts, kVersionerState, type ToolFacts } from '../core/symbols'
import { apiNameFrom, recordedApis } from '../core/application-root'
import { ANOTHER_COPY, hasKeyOfAnotherCopy, inheritedSymbols } from '../core/other-copies'
import type { VersionerState } from '../routes/versioner-state'

/** One versioned API of an application. */
export interface VersionedApi {
  /** Its `apiName` option, else its prefix as a name (`public`, `v1-partner`, `root`). */
  readonly name: string
  /** The prefix of the context the plugin was registered in (`''` at the root). */
  readonly prefix: string
  /** That context: `context.versioner` is the API's, and its routes are the API's. */
  readonly context: FastifyInstance
}

/**
 * The plugin state of one API's context, which the tools read (`verify`, `retire`); `FST_VERSIONER_TOOL` when
 * `app.versioner` is no plugin's, or another copy's of the package (its state is that copy's own).
 * @example
 * ```ts
 * const state = versionerStateOf(api.context)
 * ```
 */
export function versionerStateOf (context: FastifyInstance): VersionerState {
  const state = (context.versioner as unknown as Record<symbol, VersionerState | undefined> | undefined)?.[kVersionerState]
  if (state !== undefined) return state
  const decoration: unknown = context.versioner
  if (typeof decoration === 'object' && decoration !== null && hasKeyOfAnotherCopy(inheritedSymbols(decoration), kVersionerState)) {
    throw new VersionerToolError(`app.versioner holds the state ${ANOTHER_COPY}.`)
  }
  throw new VersionerToolError('app.versioner holds no state these tools can read: the application does not register fastify-versioner, or a ' +
    'version of it without the tools, or another copy of the package than the tools\' (run the tools of the copy the application imports).')
}

/**
 * Every versioned API of an application, in registration order: all of them from the root (or any context holding
 * several), the one API a context belongs to from inside it. Throws `FST_VERSIONER_TOOL` when there is none, or
 * when two have the same name (give each an `apiName`).
 * @example
 * ```ts
 * for (const api of versionedApis(app)) console.log(api.name, api.prefix, api.context.versioner.versions.versionValues)
 * ```
 */
export function versionedApis (app: FastifyInstance): VersionedApi[] {
  const recorded = recordedApis(app)
  const own = (app as { versioner?: unknown }).versioner
  const contexts = own === undefined
    // A context holding APIs: those registered in it or below it.
    ? recorded.filter((context) => context === app || Object.prototype.isPrototypeOf.call(app, context))
    // Inside one API: that API (an application whose copy of the package records nothing: the context itself).
    : recorded.filter((context) => context.versioner === own).slice(0, 1)
  if (contexts.length === 0 && own !== undefined) contexts.push(app)
  if (contexts.length === 0) {
    throw new VersionerToolError('The application does not register fastify-versioner, or a version of it without the tools (no versioned ' +
      'API was found in this Fastify instance or its contexts). Register the plugin, or point the tool at the application that does.')
  }
  const apis = contexts.map((context) => {
    const facts = (context.versioner as unknown as Record<symbol, ToolFacts | undefined>)[kToolFacts]
    return { name: apiNameFrom(facts?.apiName, context.prefix), prefix: context.prefix, context }
  })
  const names = apis.map((api) => api.name)
  const clash = names.find((name, index) => names.indexOf(name) !== index)
  if (clash !== undefined) {
    throw new VersionerToolError(`Two versioned APIs of the application are both named '${clash}' (their prefixes: ` +
      `${apis.filter((api) => api.name === clash).map((api) => `'${api.prefix}'`).join(', ')}). Give each its own apiName option.`)
  }
  return apis
}

/**
 * The APIs a tool works on: every API, or the one named `name` (its name or its prefix). An unknown name is
 * `FST_VERSIONER_TOOL` listing the names.
 * @example
 * ```ts
 * const [partner] = selectApis(app, 'partner')
 * ```
 */
export function selectApis (app: FastifyInstance, name?: string): VersionedApi[] {
  const apis = versionedApis(app)
  if (name === undefined) return apis
  const chosen = apis.filter((api) => api.name === name || (api.prefix !== '' && api.prefix === name))
  if (chosen.length === 0) {
    throw new VersionerToolError(`The application has no versioned API named '${name}'; its APIs: ` +
      `${apis.map((api) => `${api.name} (prefix '${api.prefix}')`).join(', ')}.`)
  }
  return chosen
}

/**
 * The one API `app` stands for, for tools that work on one API (`exportDocuments`, `checkDocuments`,
 * `servedDocuments`): `FST_VERSIONER_TOOL` naming them when it holds several.
 */
export function singleApi (app: FastifyInstance, tool: string): VersionedApi {
  const apis = versionedApis(app)
  if (apis.length === 1) return apis[0]
  throw new VersionerToolError(`${tool}: the application holds ${apis.length} versioned APIs (${apis.map((api) => api.name).join(', ')}); ` +
    'pass one API\'s context, or run the command, which handles each (fastify-versioner … --api <name> picks one).')
}
