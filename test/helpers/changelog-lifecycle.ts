/**
 * Helpers for the changelog, webhook and version-lifecycle tests (not a test file): fresh version change
 * classes (a class can be bound to one bundle only), a fresh application with HEAD routes, the changelog over
 * HTTP, the operations and webhooks of a document, a real OpenAPI validator, and a recorder of process
 * warnings.
 */
import SwaggerParser from '@apidevtools/swagger-parser'
import Fastify, { type FastifyInstance } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  fastifyVersioner, versioned, VersionChange, VersionChangeWithSideEffects, type Changelog, type ChangelogEntryData,
  type FastifyVersionerOptions, type Instruction, type VersionBundle, type VersionChangeClass
} from '../../plugin'

/** What a test needs to close things when it ends (a tap `Test` has it). */
export interface Teardown {
  teardown: (fn: () => unknown) => void
}

/** A document as JSON. */
export type Json = Record<string, any>

/** Options of {@link changeClass}. */
export interface ChangeOptions {
  /** The change's description (default `Test change <name>.`). */
  description?: string
  /** Extend `VersionChangeWithSideEffects` instead of `VersionChange`. */
  sideEffects?: boolean
}

/** A fresh version change class named `name` holding `instructions`. */
export function changeClass (name: string, instructions: Instruction[], options: ChangeOptions = {}): VersionChangeClass {
  const description = options.description ?? `Test change ${name}.`
  const holder = options.sideEffects === true
    ? {
        [name]: class extends VersionChangeWithSideEffects {
          description = description
          instructionsToMigrateToPreviousVersion = instructions
        }
      }
    : {
        [name]: class extends VersionChange {
          description = description
          instructionsToMigrateToPreviousVersion = instructions
        }
      }
  return holder[name]
}

/** Options of {@link appOf}. */
export interface AppOptions {
  versioner?: Partial<FastifyVersionerOptions>
  /** Called after the versioner is registered and before the HEAD routes (e.g. to declare webhooks). */
  before?: (app: FastifyInstance) => void
  /** Also register `GET /health`, an unversioned route. */
  health?: boolean
}

/** A fresh application serving `routes` (HEAD routes) in every version of `versions`; closed at teardown. */
export async function appOf (t: Teardown, versions: VersionBundle, routes: FastifyPluginAsyncTypebox, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions, ...options.versioner })
  options.before?.(app)
  await app.register(versioned(routes))
  if (options.health === true) app.get('/health', async () => ({ ok: true }))
  return app
}

/** `GET url` (default `/changelog`): its status and parsed body. */
export async function fetchChangelog (app: FastifyInstance, url = '/changelog'): Promise<{ statusCode: number, body: Changelog, contentType: string | undefined }> {
  const response = await app.inject({ method: 'GET', url })
  let body: Changelog
  try {
    body = JSON.parse(response.body) as Changelog
  } catch {
    body = { versions: [] }
  }
  const type = response.headers['content-type']
  return { statusCode: response.statusCode, body, contentType: typeof type === 'string' ? type : undefined }
}

/** The entries of every change of version `value`, one list per change (`undefined` when the version is not listed). */
export function entriesOf (changelog: Changelog, value: string): ChangelogEntryData[][] | undefined {
  return changelog.versions.find((version) => version.value === value)?.changes.map((change) => change.instructions)
}

/** The document of `key` (deep-cloned); throws when there is none. */
export function documentOf (app: FastifyInstance, key: string): Json {
  const document = app.versioner.openapi(key)
  if (document === undefined) throw new Error(`no document for ${key}`)
  return structuredClone(document) as Json
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/** Every operation of `section` (`paths` or `webhooks`) of a document, as `[key, METHOD, operation]`. */
export function operationsOf (document: Json, section: 'paths' | 'webhooks' = 'paths'): Array<[string, string, Json]> {
  const result: Array<[string, string, Json]> = []
  for (const [key, item] of Object.entries((document[section] ?? {}) as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (METHODS.includes(method)) result.push([key, method.toUpperCase(), operation])
    }
  }
  return result
}

/** The validator's complaint about a document, or `undefined` when it is a valid OpenAPI document. */
export async function validationError (document: unknown): Promise<string | undefined> {
  try {
    await SwaggerParser.validate(structuredClone(document) as never)
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

/** A process warning as `process.on('warning')` receives it. */
export type ProcessWarning = Error & { code?: string }

/** Records the process warnings emitted until the test ends. */
export function recordWarnings (t: Teardown): ProcessWarning[] {
  const warnings: ProcessWarning[] = []
  const onWarning = (warning: ProcessWarning): void => { warnings.push(warning) }
  process.on('warning', onWarning)
  t.teardown(() => { process.removeListener('warning', onWarning) })
  return warnings
}

/** Resolves after pending `process.emitWarning` events are delivered. */
export function settle (): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/** The error thrown by `fn` (`undefined` when it did not throw). */
export async function rejection (fn: () => unknown): Promise<(Error & { code?: string }) | undefined> {
  try {
    await fn()
  } catch (error) {
    return error as Error & { code?: string }
  }
  return undefined
}
