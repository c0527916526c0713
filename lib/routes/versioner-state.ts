/**
 * The plugin's per-application state: bundle, generated schemas, converter planner, HEAD routes and route nodes.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { ConverterPlanner } from './converter-steps'
import type { HttpMethod } from '../core/http-methods'
import { EndpointInstructionLog, type RouteState } from './timeline'
import { SchemaGeneration } from '../schemas/generation'
import type { RouteSchema } from './version-plan'
import type { RouteForms } from './schema-forms'
import type { FullReplace } from './full-replace'
import type { VersionBehaviours } from './version-behaviours'
import type { VersionedScope } from '../describe/versioned-scope'
import { generationSteps, type GenerationStep, type VersionBundle } from '../describe/versions'
import { kBundleInternals } from '../core/symbols'
import { fastifyPrivate } from '../core/application-root'

/** What the state needs from the plugin options. */
interface StateOptions {
  readonly versions: VersionBundle
  /** The `partialApp` option: instructions and converters naming routes this application does not register are skipped. */
  readonly partialApp?: boolean
  /** Built by `fastify-versioner retire` without the oldest versions: a route no remaining version serves is not an error. */
  readonly retiring?: boolean
}

/** A HEAD route registered inside `versioned(...)`. */
export interface HeadRoute {
  /** `METHODS url`, for messages and logs. */
  readonly display: string
  readonly path: string
  readonly methods: readonly HttpMethod[]
  readonly schema: RouteSchema
  /** Its schemas read into slots (./schema-forms.ts). */
  readonly forms: RouteForms
  readonly timeline: readonly RouteState[]
  readonly scope: VersionedScope
  /** Whether the route replaces what it stores (its `fullReplace` option, ./full-replace.ts). */
  readonly fullReplace: FullReplace
  /** Its `attachValidation` route option: its handler runs on a request that fails validation (`verify` sends it none). */
  readonly attachValidation: boolean
  /** The context that registered it and its own `validatorCompiler` option: which validator the tools judge requests by. */
  readonly validation: { readonly context: FastifyInstance, readonly compiler: unknown }
  /** The routes registered for it: one per distinct (path, methods) it has across versions. */
  readonly registered: RegisteredRoute[]
}

/** A validator compiler (Fastify's signature). */
type ValidatorCompiler = (route: { schema: TSchema, method: string, url: string, httpPart: string }) => unknown

/** The part of Fastify's schema controller read here (private: `fastify.schemaController`). */
interface SchemaController {
  readonly validatorCompiler?: unknown
  readonly isCustomValidatorCompiler?: boolean
  readonly parent?: SchemaController
}

/** The application's own validator compiler a route is validated by, or `undefined` where Fastify's Ajv validates it. */
export function ownValidatorCompiler ({ context, compiler }: HeadRoute['validation']): ValidatorCompiler | undefined {
  if (typeof compiler === 'function') return compiler as ValidatorCompiler
  let controller = fastifyPrivate(context, 'fastify.schemaController') as SchemaController | undefined
  // A context's controller uses its own compiler, else its parent's.
  while (controller !== undefined && controller.validatorCompiler === undefined) controller = controller.parent
  const found = controller?.validatorCompiler
  return controller?.isCustomValidatorCompiler === true && typeof found === 'function' ? found as ValidatorCompiler : undefined
}

/** One route registered with Fastify for a HEAD route: the versions it serves at one path and methods. */
export interface RegisteredRoute {
  readonly head: HeadRoute
  readonly url: string
  readonly methods: readonly HttpMethod[]
  readonly behaviours: VersionBehaviours
  /** The versions idle on the route, whose requests hold HEAD data from the start (`currentDependencySolver`). */
  readonly headData: ReadonlySet<string>
  /** The response schemas Fastify serializes with natively, by slot. */
  readonly nativeResponse: Readonly<Record<string, TSchema>>
  /** The route display for logs. */
  readonly display: string
}

/** A HEAD route's claim on a route node: its own constraints (`host`…, each value as text), the versions it serves there. */
export interface NodeClaim {
  readonly constraints: ReadonlyMap<string, string>
  readonly versions: Set<string>
  /** Which HEAD route serves each version there, and how it came there (for the error of two routes on one node). */
  readonly owners: Map<string, string>
}

/** The plugin's state for one application. */
export class VersionerState {
  readonly steps: readonly GenerationStep[]
  readonly generation: SchemaGeneration
  readonly planner: ConverterPlanner
  readonly log: EndpointInstructionLog
  readonly headRoutes: HeadRoute[] = []
  /** The routes registered outside `versioned(...)` with a schema, until `ready()`: where an unused instruction's schema may be. */
  readonly unversionedRoutes: Array<{ readonly display: string, readonly schema: Readonly<Record<string, unknown>> }> = []
  /** `METHOD url` → the HEAD routes' claims there, to detect and separate routes sharing a node. */
  readonly nodes = new Map<string, NodeClaim[]>()
  /**
   * Whether requests run inside `apiVersionStorage.run(version, …)`: only when something reads it, since it turns on
   * async hooks for the whole process, a cost on every request.
   */
  readonly storesVersion: boolean
  /** Whether request logs carry `apiVersion` (the application's logger is on). */
  logsVersion = false
  ready = false
  /** The first error met while registering routes, thrown when the application becomes ready. */
  startupError: Error | undefined

  /** @param constraint the name of this registration's route constraint (see `VERSION_CONSTRAINT`) */
  constructor (readonly options: StateOptions, readonly constraint: string) {
    const bundle = options.versions
    this.steps = generationSteps(bundle)
    this.generation = new SchemaGeneration(bundle)
    this.planner = new ConverterPlanner(this.generation, this.steps)
    this.log = new EndpointInstructionLog(this.steps)
    this.storesVersion = storesVersion(bundle)
  }

  /** The version value of a level (level 1 is the latest). */
  versionAt (level: number): string {
    return this.generation.levels[level]
  }
}

/**
 * Whether converters and handlers run inside the bundle's `apiVersionStorage`: only when something reads it (a
 * `VersionChangeWithSideEffects`, or a storage the application passed).
 * @example
 * if (storesVersion(bundle)) bundle.apiVersionStorage.run(version, convert)
 */
export function storesVersion (bundle: VersionBundle): boolean {
  return bundle[kBundleInternals].customStorage || generationSteps(bundle).slice(1).some((step) => step.changes.some((change) => change.hasSideEffects))
}
