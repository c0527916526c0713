/**
 * Endpoint instructions applied to one HEAD route: whether it exists, its path, methods and attributes in every
 * version; what needs every route is logged in an {@link EndpointInstructionLog} and checked at ready.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { RouterGenerationError, RouterPathParamsModifiedError } from '../core/errors'
import type { HttpMethod } from '../core/http-methods'
import { isEndpointInstruction, type EndpointHadInstruction, type EndpointInstruction } from '../describe/instructions'
import { deepEqual, describeValue } from '../core/json-schema'
import type { GenerationStep } from '../describe/versions'

/**
 * Route attributes instructions can change (OpenAPI text, visibility, success status, response schemas).
 * @example
 * ```ts
 * declare const app: FastifyInstance // ready
 * const label = (path: string, attributes: RouteAttributes): string => `${path}${attributes.deprecated === true ? ' (deprecated)' : ''}`
 * for (const route of app.versioner.routes.get('2000-01-01') ?? []) console.log(label(route.path, route.attributes))
 * ```
 */
export interface RouteAttributes {
  readonly summary?: string
  readonly description?: string
  readonly tags?: readonly string[]
  readonly deprecated?: boolean
  readonly operationId?: string
  readonly hide?: boolean
  /** The status of a successful response, when a version changes it. */
  readonly statusCode?: number
  /** Response schemas (HEAD-level) replacing the route's, when a version changes them. */
  readonly response?: Readonly<Record<string, TSchema>>
}

/** A HEAD route in one version. */
export interface RouteState {
  readonly exists: boolean
  /** The full path (prefixes included, version segment excluded). */
  readonly path: string
  readonly methods: readonly HttpMethod[]
  readonly attributes: RouteAttributes
  /** The prefix of the route's `versioned(...)` context (`''` for webhooks), which paths may name it relative to. */
  readonly prefix: string
}

interface InstructionRecord {
  readonly instruction: EndpointInstruction
  readonly change: string
  readonly existing: Set<HttpMethod>
  readonly deleted: Set<HttpMethod>
  /** Deleted routes matched by `existed`, as `METHODS path`, to find ambiguous restores. */
  readonly restorable: string[]
  /** A route the instruction named before an earlier instruction of its change moved it (`by`) to `to`. */
  movedAway?: { readonly by: EndpointHadInstruction, readonly to: RouteState }
}

/** Which routes each endpoint instruction matched, across every route of the application. */
export class EndpointInstructionLog {
  private readonly records = new Map<EndpointInstruction, InstructionRecord>()

  /** Registers every endpoint instruction of `steps` (the steps timelines walk), so that one matching nothing is found. */
  constructor (readonly steps: readonly GenerationStep[]) {
    for (const step of steps) {
      for (const change of step.changes) {
        for (const instruction of change.instructions) {
          if (isEndpointInstruction(instruction)) {
            this.records.set(instruction, {
              instruction, change: change.name, existing: new Set(), deleted: new Set(), restorable: []
            })
          }
        }
      }
    }
  }

  /** Notes that `instruction` matched a route with `methods` that existed (or was deleted) at that point. */
  match (instruction: EndpointInstruction, methods: readonly HttpMethod[], existing: boolean, path: string): void {
    // Timelines walk the log's own steps: every instruction they match is registered.
    const record = this.records.get(instruction) as InstructionRecord
    for (const method of methods) (existing ? record.existing : record.deleted).add(method)
    if (existing) return
    const route = `${methods.join(',')} ${path}`
    if (instruction.kind === 'endpoint.existed' && record.restorable.includes(route)) throw ambiguousRestore(record, route)
    record.restorable.push(route)
  }

  /** Notes that `instruction` would have named a route had `by`, earlier in the same change, not moved it to `to`. */
  movedAway (instruction: EndpointInstruction, by: EndpointHadInstruction, to: RouteState): void {
    const record = this.records.get(instruction) as InstructionRecord
    record.movedAway ??= { by, to }
  }

  /**
   * Throws `RouterGenerationError` for the first instruction that did not apply to `routes` (`METHODS path`); with
   * `partial` (`partialApp`), one matching no route at all is skipped.
   */
  check (routes: readonly string[], partial = false): void {
    for (const record of this.records.values()) {
      const { existing, deleted } = record
      if (existing.size === 0 && deleted.size === 0) {
        // Moved by an earlier instruction: its route is registered, so a partial application is no excuse.
        if (record.movedAway !== undefined) throw movedAway(record, record.movedAway)
        if (partial) continue
        throw notRegistered(record, routes)
      }
      const message = mismatch(record)
      if (message !== undefined) throw new RouterGenerationError(message)
    }
  }
}

/** The error of an instruction that matches no route registered in the application. */
function notRegistered ({ instruction, change }: InstructionRecord, routes: readonly string[]): Error {
  const shown = routes.length > 30 ? [...routes.slice(0, 30), `… ${routes.length - 30} more`] : routes
  return new RouterGenerationError(`Endpoint "[${instruction.methods.join(', ')}] ${instruction.path}" named in "${change}" is not a route ` +
    'registered in this application (in any version). Instruction paths are the route\'s path relative to the prefix of its versioned(...) ' +
    'context, or its full path, with every one of its methods (and its HEAD operationId, if given). ' +
    `The versioned routes registered: ${shown.length === 0 ? 'none' : shown.join('; ')}. If this application registers only part of its ` +
    'routes with the full version bundle (a test), register the plugin with { partialApp: true }.')
}

/** The error of an instruction naming a route that an earlier instruction of its change had moved away (in order). */
function movedAway ({ instruction, change }: InstructionRecord, { by, to }: NonNullable<InstructionRecord['movedAway']>): Error {
  const named = (path: string, methods: readonly string[]): string => `endpoint('${path}', [${methods.join(', ')}])`
  return new RouterGenerationError(`Endpoint "[${instruction.methods.join(', ')}] ${instruction.path}" named in "${change}" names no route where ` +
    `it applies: instructions of one change apply in order, and an earlier one of "${change}", ${named(by.path, by.methods)}.had({ ` +
    `${Object.keys(by.attributes).join(', ')} }), had already made it "[${to.methods.join(', ')}] ${to.path}". Name it as the earlier ` +
    `instruction left it (${named(to.path, to.methods)}), or put this instruction before the one that moved it.`)
}

/** What is wrong with an instruction that matched some route, if anything. */
function mismatch ({ instruction, change, existing, deleted }: InstructionRecord): string | undefined {
  const endpointName = `"[${instruction.methods.join(', ')}] ${instruction.path}"`
  const missing = instruction.methods.filter((method) => !(instruction.kind === 'endpoint.existed' ? deleted : existing).has(method))
  if (missing.length === 0) return undefined
  const hint = ' (a route matches when its path is the same, every one of its methods is listed, and its HEAD operationId is the one given, if any)'
  if (instruction.kind === 'endpoint.didntExist') {
    return missing.every((method) => deleted.has(method))
      ? `Endpoint ${endpointName} you tried to delete in "${change}" was already deleted in a newer version. If two routes share ` +
        'this path and methods, name the one you mean with endpoint(path, methods, { operationId }).'
      : `Endpoint "[${missing.join(', ')}] ${instruction.path}" you tried to delete in "${change}" doesn't exist in a newer version${hint}.`
  }
  if (instruction.kind === 'endpoint.existed') {
    return existing.size > 0
      ? `Endpoint ${endpointName} you tried to restore in "${change}" already existed in a newer version. ` +
        'If two routes share this path and methods, name the one you mean with endpoint(path, methods, { operationId }).'
      : `Endpoint "[${missing.join(', ')}] ${instruction.path}" you tried to restore in "${change}" wasn't among the deleted routes${hint}.`
  }
  return `Endpoint "[${missing.join(', ')}] ${instruction.path}" you tried to change in "${change}" doesn't exist${hint}.`
}

/** The error of an `existed` instruction that could restore two routes with the same path and methods. */
function ambiguousRestore (record: InstructionRecord, route: string): Error {
  const { instruction, change } = record
  return new RouterGenerationError(`Endpoint "[${instruction.methods.join(', ')}] ${instruction.path}" you tried to restore in "${change}" has 2 ` +
    `applicable routes that could be restored (${route}). Name the one to restore with endpoint(path, methods, { operationId }).`)
}

/** Path parameter names of a Fastify path (`:id`, `:id(^\\d+)`, `*`). */
function pathParameters (path: string): string[] {
  const names = [...path.matchAll(/:([A-Za-z0-9_$]+)/g)].map((match) => match[1])
  if (path.includes('*')) names.push('*')
  return names.sort()
}

/** A path without its trailing slashes (`/` stays `/`): how instructions and by-path converters compare paths. */
function normalisePath (path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path
}

/** True when `path` names the route's path, in full or relative to its prefix (`/items` names `/api/items`). */
export function namesPath (state: Pick<RouteState, 'path' | 'prefix'>, path: string): boolean {
  const own = normalisePath(state.path)
  const named = normalisePath(path)
  if (own === named) return true
  const prefix = state.prefix.replace(/\/+$/, '')
  return prefix !== '' && own === normalisePath(`${prefix}${named === '/' ? '' : named}`)
}

/** A path an instruction gives (`had({ path })`) as the route's full path: relative ones go under the route's prefix. */
export function fullPath (state: Pick<RouteState, 'prefix'>, path: string): string {
  const prefix = state.prefix.replace(/\/+$/, '')
  return prefix === '' || path === prefix || path.startsWith(`${prefix}/`) ? path : `${prefix}${path}`
}

/** True when an endpoint instruction names the route at a level: its path, all its methods, its `operationId` if given. */
export function applies (state: RouteState, instruction: EndpointInstruction, operationId: string | undefined): boolean {
  return namesPath(state, instruction.path) && state.methods.every((method) => instruction.methods.includes(method)) &&
    (instruction.operationId === undefined || instruction.operationId === operationId)
}

function applyHad (state: RouteState, instruction: EndpointHadInstruction, change: string): RouteState {
  const display = `"[${state.methods.join(', ')}] ${state.path}"`
  const current: Record<string, unknown> = { ...state.attributes, path: state.path, methods: state.methods }
  for (const [name, value] of Object.entries(instruction.attributes)) {
    if (deepEqual(current[name], value)) {
      throw new RouterGenerationError(`Expected attribute "${name}" of endpoint ${display} to be different in "${change}", but it was the same ` +
        `(${describeValue(value)}). It means that your version change has no effect on the attribute and can be removed.`)
    }
  }
  const { path: given, methods, ...attributes } = instruction.attributes
  const path = given === undefined ? undefined : fullPath(state, given)
  if (path !== undefined) {
    const before = pathParameters(state.path)
    const after = pathParameters(path)
    if (!deepEqual(before, after)) {
      throw new RouterPathParamsModifiedError(`When altering the path of ${display} in "${change}", you have tried to change its path params ` +
        `from [${before.join(', ')}] to [${after.join(', ')}]. A route's path params cannot change, because its handler was written for them. ` +
        'Changing them is not a breaking change anyway; if you really need to, create a new route with the new params and delete the old one.')
    }
  }
  return {
    exists: true,
    prefix: state.prefix,
    path: path ?? state.path,
    methods: methods ?? state.methods,
    attributes: { ...state.attributes, ...attributes }
  }
}

/**
 * The route or webhook option `onlyExistsInOlderVersions`, read once: `true`, `false` or absent. Anything else (a
 * string from configuration, `1`) is refused, since reading it as false would serve the route in HEAD.
 * @example
 * readOnlyExistsInOlderVersions(route.onlyExistsInOlderVersions, 'GET /users') // false
 */
export function readOnlyExistsInOlderVersions (value: unknown, display: string): boolean {
  if (value === undefined || typeof value === 'boolean') return value === true
  throw new RouterGenerationError(`${display}: the option onlyExistsInOlderVersions is ${describeValue(value)}; it takes true or false.`)
}

/** The HEAD route facts a timeline starts from. */
interface HeadRouteFacts {
  readonly path: string
  readonly methods: readonly HttpMethod[]
  readonly onlyExistsInOlderVersions: boolean
  readonly attributes: RouteAttributes
  /** The HEAD route's `operationId`, which instructions can name. */
  readonly operationId?: string
  /** The prefix of its `versioned(...)` context (none for webhooks). */
  readonly prefix?: string
  /** True when a route marked `onlyExistsInOlderVersions` may exist in no version (the app built by `retire`). */
  readonly mayExistNowhere?: boolean
}

/** The state of a HEAD route at every level (0 = HEAD, 1 = latest), its matches noted in `log`. */
export function routeTimeline (head: HeadRouteFacts, log: EndpointInstructionLog): RouteState[] {
  const steps = log.steps
  let state: RouteState = {
    exists: !head.onlyExistsInOlderVersions, path: head.path, methods: head.methods, attributes: head.attributes, prefix: head.prefix ?? ''
  }
  const timeline: RouteState[] = [state]
  for (const [index, step] of steps.entries()) {
    if (index === steps.length - 1) break
    for (const change of step.changes) {
      // Instructions of a change apply in order: one naming the route as it was before an earlier one moved it names nothing.
      const start = state
      let mover: EndpointHadInstruction | undefined
      for (const instruction of change.instructions) {
        if (!isEndpointInstruction(instruction)) continue
        if (!applies(state, instruction, head.operationId)) {
          if (mover !== undefined && applies(start, instruction, head.operationId)) log.movedAway(instruction, mover, state)
          continue
        }
        log.match(instruction, state.methods, state.exists, state.path)
        if (instruction.kind === 'endpoint.had') {
          if (!state.exists) continue
          state = applyHad(state, instruction, change.name)
          if (instruction.attributes.path !== undefined || instruction.attributes.methods !== undefined) mover = instruction
        } else if (state.exists !== (instruction.kind === 'endpoint.existed')) {
          state = { ...state, exists: instruction.kind === 'endpoint.existed' }
        }
      }
    }
    timeline.push(state)
  }
  if (head.onlyExistsInOlderVersions && head.mayExistNowhere !== true && !timeline.some((level) => level.exists)) {
    throw new RouterGenerationError('Every route or webhook marked onlyExistsInOlderVersions must be restored with endpoint(...).existed in one of ' +
      `the older versions; otherwise delete it altogether. This one was never restored: [${head.methods.join(', ')}] ${head.path}.`)
  }
  return timeline
}
