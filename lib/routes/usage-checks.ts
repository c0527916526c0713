/**
 * Checks that need every route, run when the application becomes ready: instructions and converters found their
 * routes and schemas, methods are routed, component names and `$ref`s are sound.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { pathConverterMatches } from './converter-targets'
import {
  InvalidGenerationInstructionError, LintingError, RouteByPathConverterDoesNotApplyToAnythingError,
  RouteRequestBySchemaConverterDoesNotApplyToAnythingError, RouteResponseBySchemaConverterDoesNotApplyToAnythingError, VersionerStructureError
} from '../core/errors'
import { describeSchema, isSchemaObject, nameOf, pointerKey, type SchemaObject } from '../core/json-schema'
import { everySubschema, resolverWithin } from '../core/subschemas'
import { kHeadSchema } from '../core/symbols'
import { childSchemaInfo } from '../describe/extend-schema'
import { decoratorName } from '../describe/hand-called-decorators'
import { isEndpointInstruction } from '../describe/instructions'
import type { ConverterDescriptor } from '../describe/version-change-reader'
import { componentName, validComponentName } from '../schemas/component-names'
import type { Seed } from '../schemas/seeds'
import { seedsOf } from './quiet-levels'
import type { RouteState } from './timeline'
import { routeSchemas } from './version-plan'
import type { VersionerState } from './versioner-state'
import type { DeclaredWebhook } from './webhooks'

/** True when `schema` can occur in data shaped like one of `roots`, at `level` (the forms converters of a step meet). */
function occurs (state: VersionerState, roots: readonly (TSchema | undefined)[], schema: TSchema, level = 0): boolean {
  return roots.some((root) => root !== undefined && state.planner.targets.occurs(root, schema, level))
}

/** The names of the `extendSchema` children of `parent` (at any depth) that `roots` hold: converters on it miss them. */
function childrenIn (state: VersionerState, roots: readonly TSchema[], parent: TSchema): string[] {
  const found = new Set<string>()
  for (const node of roots.flatMap((root) => state.planner.targets.reachableFrom(root))) {
    for (let info = childSchemaInfo(node); info !== undefined; info = childSchemaInfo(info.parent)) {
      if (info.parent === parent) found.add(describeSchema(node))
    }
  }
  return [...found]
}

/** Throws the first problem found, as a `RouterGenerationError` subclass naming the converter or instruction. */
export function checkUsage (state: VersionerState, webhooks: readonly DeclaredWebhook[] = []): void {
  const partial = state.options.partialApp === true
  state.log.check(state.headRoutes.map((route) => route.display), partial)
  // Every response schema of each route (in some version), listed once for the whole check.
  const responsesOf = new Map(state.headRoutes.map((route) => [route, [...new Set(route.forms.responses.flatMap((slots) => Object.values(slots.schemas)))]]))
  for (let level = 1; level < state.steps.length; level++) {
    for (const change of state.steps[level].changes) {
      // The path each converter method named each route and method by: two spellings of one route run it twice.
      const named = new Map<string, string>()
      for (const converter of change.converters) {
        const target = converter.target
        const direction = converter.direction === 'request' ? 'Request' : 'Response'
        if (target.kind === 'path') {
          const found = new Set<string>()
          for (const route of state.headRoutes) {
            const at = route.timeline[level]
            if (!pathConverterMatches(at, target)) continue
            for (const method of at.methods) {
              found.add(method)
              if (target.methods.includes(method)) refuseSecondSpelling(named, converter, `${method} ${at.path}`, target.path, change.version)
            }
          }
          const missing = target.methods.filter((method) => !found.has(method))
          // A partial application may lack the route altogether.
          if (missing.length > 0 && !(partial && found.size === 0)) {
            throw new RouteByPathConverterDoesNotApplyToAnythingError(`${direction} by path converter "${converter.display}" failed to find ` +
              `routes with the following methods: [${missing.join(', ')}] at ${target.path} in version '${change.version}'. Check the path and ` +
              'methods: the path must include all path parameters and be the path the route has in the version this version change belongs to.')
          }
          continue
        }
        if (!converter.checkUsage || partial) continue
        // Where the converter meets its schemas: a response as this version's newer neighbour has it, a request as this
        // version has it (lib/routes/converter-steps.ts), not HEAD's: a schema an older field brought back counts.
        const bodyLevel = converter.direction === 'request' ? level + 1 : level
        const unused = target.schemas.filter((schema) => !state.headRoutes.some((route) => {
          const present = route.timeline[level].exists || route.timeline[level + 1]?.exists === true
          return present && occurs(state, converter.direction === 'request' ? Object.values(route.forms.body.schemas) : responsesOf.get(route) ?? [], schema, bodyLevel)
        }) && !(converter.direction === 'response' && webhooks.some((webhook) => occurs(state, [webhook.body], schema, bodyLevel))))
        if (unused.length === 0) continue
        const roots = converter.direction === 'request'
          ? state.headRoutes.flatMap((route) => Object.values(route.forms.body.schemas))
          : [...state.headRoutes.flatMap((route) => responsesOf.get(route) ?? []), ...webhooks.map((webhook) => webhook.body)]
        const text = (schema: TSchema): string | undefined => converter.direction === 'request' ? textPartOf(state, schema) : undefined
        const message = unusedSchemasMessage(converter.display, converter.direction, target.schemas, unused.map((schema) => [schema, childrenIn(state, roots, schema), text(schema)]))
        throw converter.direction === 'request'
          ? new RouteRequestBySchemaConverterDoesNotApplyToAnythingError(message)
          : new RouteResponseBySchemaConverterDoesNotApplyToAnythingError(message)
      }
    }
  }
}

/** Records that `converter` names `route` by `path`; throws when it named it by another path too (it would run twice). */
function refuseSecondSpelling (named: Map<string, string>, converter: ConverterDescriptor, route: string, path: string, version: string): void {
  const key = `${converter.direction} ${converter.isStatic ? 'static ' : ''}${String(converter.methodName)} ${route}`
  const first = named.get(key)
  if (first === undefined) {
    named.set(key, path)
  } else if (first !== path) {
    throw new VersionerStructureError(`Converter "${converter.display}" names ${route} twice ('${first}' and '${path}') in version ` +
      `'${version}': it would run twice on each occurrence. Keep one of the two decorators.`)
  }
}

/** Where a route's query string or headers schema holds `schema`: what to say instead of `checkUsage: false`. */
function textPartOf (state: VersionerState, schema: TSchema): string | undefined {
  const parts = ['querystring', 'headers'] as const
  const [route, part] = state.headRoutes.flatMap((each) => parts.filter((name) => occurs(state, [each.forms.parts[name]], schema)).map((name) => [each, name] as const))[0] ?? []
  if (route === undefined) return undefined
  return `${describeSchema(schema)} is the ${part} schema of ${route.display}: by-schema request converters run on bodies only. Convert it with a by-path ` +
    `converter, @ConvertRequestToNextVersionFor('${route.path}', ['${route.methods[0]}']), which reads and changes request.${part === 'querystring' ? 'queryParams' : 'headers'}.`
}

/** The message of a by-schema converter whose schemas `unused` no route uses, with what to do instead. */
function unusedSchemasMessage (
  display: string, direction: 'request' | 'response', schemas: readonly TSchema[], unused: ReadonlyArray<readonly [TSchema, string[], string?]>
): string {
  const part = direction === 'request' ? 'body' : 'response'
  const named = [...schemas.map(describeSchema), ...unused.flatMap(([, children]) => children)].join(', ')
  const hints = unused.filter(([, children]) => children.length > 0).map(([schema, children]) => `${describeSchema(schema)} is the parent ` +
    `(extendSchema) of ${children.join(', ')}, which the routes use: converters on a parent do not run on its children, so name them in the ` +
    `decorator too (@${decoratorName(direction)}(${named})).`)
  for (const [, children, textPart] of unused) if (children.length === 0 && textPart !== undefined) hints.push(textPart)
  const unchecked = hints.length === unused.length
    ? []
    : ['This means that you are trying to apply this converter to non-existing endpoint(s). If this is intentional (a schema used only in ' +
        'webhooks or jobs), declare it with { checkUsage: false }.']
  return `${direction === 'request' ? 'Request' : 'Response'} by ${part} schema converter "${display}" failed to find routes with the following ` +
    `${part} schemas: [${unused.map(([schema]) => describeSchema(schema)).join(', ')}] (converting ${schemas.map(describeSchema).join(', ')}). ` +
    [...hints, ...unchecked].join(' ')
}

/** Throws `InvalidGenerationInstructionError` naming the first field instruction holding a `$ref` to nothing. */
export function checkInstructionReferences (state: VersionerState): void {
  if (state.options.partialApp === true) return
  for (const change of state.steps.flatMap((step) => step.changes)) {
    for (const instruction of change.instructions) {
      if (instruction.kind !== 'field.had' && instruction.kind !== 'field.existedAs') continue
      for (const root of [instruction.type, ...Object.values(instruction.keywords)].filter(isSchemaObject) as TSchema[]) {
        const resolve = resolverWithin([root], (ref) => state.generation.resolveAnyId(ref))
        for (const node of everySubschema([root])) {
          const ref = (node as SchemaObject).$ref
          if (typeof ref !== 'string' || ref.startsWith('#')) continue
          const [id, pointer = ''] = ref.split('#')
          let target: unknown = resolve(id)
          for (const segment of pointer.split('/').slice(1)) target = isSchemaObject(target) ? target[pointerKey(segment)] : undefined
          if (target !== undefined) continue
          throw new InvalidGenerationInstructionError(`${instruction.display} in version change '${change.name}' (version '${change.version}'): ` +
            `its $ref '${ref}' names no schema of the application, or points inside one at nothing. Register the schema it names (app.addSchema) or fix the $ref.`)
        }
      }
    }
  }
}

/** Throws `LintingError` naming the first method named that `supported` (`fastify.supportedMethods`) lacks. */
export function checkMethods (state: VersionerState, supported: readonly string[]): void {
  const routable = new Set(supported)
  const unsupported = (methods: readonly string[] | undefined): string[] => (methods ?? []).filter((method) => !routable.has(method))
  const fail = (methods: string[], where: string): never => {
    throw new LintingError(`${methods.join(', ')} (in ${where}; this application routes ${[...routable].sort().join(', ')}, ` +
      'add others with fastify.addHttpMethod before the application is ready)')
  }
  for (const step of state.steps) {
    for (const change of step.changes) {
      for (const instruction of change.instructions) {
        if (!isEndpointInstruction(instruction)) continue
        const missing = [...unsupported(instruction.methods), ...unsupported(instruction.kind === 'endpoint.had' ? instruction.attributes.methods : undefined)]
        if (missing.length > 0) fail(missing, `${instruction.display} of version change '${change.name}'`)
      }
      for (const converter of change.converters) {
        if (converter.target.kind !== 'path') continue
        const missing = unsupported(converter.target.methods)
        if (missing.length > 0) fail(missing, `converter ${converter.display}`)
      }
    }
  }
}

type NamePair = readonly [name: string, origin: string]

/** One route or webhook, as last looked at: its forms, the names they hold, and the seeds they depend on. */
interface Member {
  readonly timeline: readonly RouteState[]
  /** The HEAD schemas it documents at a level (none where it does not exist). */
  readonly schemasAt: (level: number) => TSchema[]
  forms: TSchema[]
  names: NamePair[]
  seeds: ReadonlySet<Seed> | undefined
}

/** The component names a form holds, each with the HEAD name of its schema. */
function namesIn (state: VersionerState, form: TSchema): NamePair[] {
  const found: NamePair[] = []
  for (const node of state.planner.targets.reachableFrom(form)) {
    const source = node as SchemaObject
    if (typeof source.$id !== 'string') continue
    const head = source[kHeadSchema] as TSchema | undefined
    found.push([componentName(source.$id, state.generation), head === undefined ? source.$id : nameOf(head) ?? source.$id])
  }
  return found
}

function membersOf (state: VersionerState, webhooks: readonly DeclaredWebhook[]): Member[] {
  const blank = { forms: [], names: [], seeds: undefined }
  return [
    ...state.headRoutes.map((route): Member => ({
      ...blank,
      timeline: route.timeline,
      schemasAt: (level) => route.timeline[level].exists ? routeSchemas(route, level) : []
    })),
    ...webhooks.map((webhook): Member => ({ ...blank, timeline: webhook.timeline, schemasAt: (level) => webhook.timeline[level].exists ? [webhook.body] : [] }))
  ]
}

/**
 * Throws when two different schemas would have one OpenAPI component name in some version (a rename onto another's
 * name, or `a/b` and `a~b`). Versions are walked newest first; a route no version change touches is not walked again.
 */
export function checkComponentNames (state: VersionerState, webhooks: readonly DeclaredWebhook[] = []): void {
  const { generation } = state
  // Per name: the HEAD names going by it, with how many forms hold each.
  const origins = new Map<string, Map<string, number>>()
  const count = (names: readonly NamePair[], change: 1 | -1, touched: Set<string>): void => {
    for (const [name, origin] of names) {
      let byOrigin = origins.get(name)
      if (byOrigin === undefined) origins.set(name, byOrigin = new Map())
      const held = (byOrigin.get(origin) ?? 0) + change
      if (held === 0) byOrigin.delete(origin)
      else byOrigin.set(origin, held)
      touched.add(name)
    }
  }
  const members = membersOf(state, webhooks)
  for (let level = 1; level < state.steps.length; level++) {
    const touched = new Set<string>()
    for (const member of members) {
      const quiet = member.seeds !== undefined && member.timeline[level] === member.timeline[level - 1] && !generation.changesAt(level, member.seeds)
      if (level > 1 && quiet) continue
      const schemas = member.schemasAt(level)
      const forms = schemas.map((schema) => generation.formAt(schema, level))
      member.seeds = seedsOf(generation, schemas, level)
      if (forms.length === member.forms.length && forms.every((form, index) => form === member.forms[index])) continue
      count(member.names, -1, touched)
      member.forms = forms
      member.names = forms.flatMap((form) => namesIn(state, form))
      count(member.names, 1, touched)
    }
    for (const name of touched) {
      const byOrigin = origins.get(name)
      if (byOrigin !== undefined && byOrigin.size > 1) {
        const [first, second] = byOrigin.keys()
        throw nameClash(state, level, name, first, second)
      }
    }
  }
}

function nameClash (state: VersionerState, level: number, name: string, first: string, second: string): Error {
  const renames = state.steps.flatMap((step) => step.changes.flatMap((change) => change.instructions
    .filter((instruction) => instruction.kind === 'schema.had' && instruction.name === name)
    .map((instruction) => `${instruction.display} in "${change.name}"`)))
  // Names made valid component names (`a/b` and `a~b` are both `a_b`): an $id to change, not an instruction.
  const cleaned = [first, second].filter((origin) => validComponentName(origin) !== origin)
  const why = renames.length > 0
    ? `, because of ${renames.join(' and ')}`
    : cleaned.length > 0 ? ` (a component name holds only letters, digits, '.', '_' and '-': the other characters of ${cleaned.map((origin) => `'${origin}'`).join(' and ')} become '_')` : ''
  return new InvalidGenerationInstructionError(`In version '${state.versionAt(level)}', two different schemas would both be named '${name}' ` +
    `(the schemas named '${first}' and '${second}' in HEAD)${why}. ` +
    `A version documents each name once: ${renames.length === 0 && cleaned.length > 0 ? 'give one of them another $id' : 'rename the schema to a name no other schema of that version has'}.`)
}
