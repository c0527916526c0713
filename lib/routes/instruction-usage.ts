/**
 * The start-up check that every schema and enum instruction names a schema the application uses in some version (a
 * versioned route's request or response, a webhook's body) or says it uses outside routes, as converters must find
 * their routes (./usage-checks.ts). Otherwise old clients get HEAD's shape where the schema is served (decision 0180).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { InstructionDoesNotApplyToAnythingError } from '../core/errors'
import { deepEqual, describeSchema, isSchemaObject, kindOf, withoutAnnotations, type SchemaObject } from '../core/json-schema'
import { kHeadSchema } from '../core/symbols'
import { childSchemaInfo } from '../describe/extend-schema'
import { isEndpointInstruction, type EnumInstruction, type SchemaInstruction } from '../describe/instructions'
import type { VersionChangeDescriptor } from '../describe/version-change-reader'
import type { Seed } from '../schemas/seeds'
import { readRouteForms } from './schema-forms'
import { routeSchemas } from './version-plan'
import type { VersionerState } from './versioner-state'
import type { DeclaredWebhook } from './webhooks'

type Named = readonly [instruction: SchemaInstruction | EnumInstruction, change: VersionChangeDescriptor]

/** The seeds a node stands for: the HEAD schema it is (or a generated form is of) and that schema's `extendSchema` parents. */
function seedsAt (state: VersionerState, node: TSchema): Seed[] {
  const seeds: Seed[] = []
  for (let schema = ((node as SchemaObject)[kHeadSchema] ?? node) as TSchema | undefined; schema !== undefined; schema = childSchemaInfo(schema)?.parent) {
    const seed = state.generation.seedOf(schema)
    if (seed !== undefined) seeds.push(seed)
  }
  return seeds
}

/** The seeds of `wanted` that a form of `roots` holds at one of the first `levels` levels. */
function seedsHeld (state: VersionerState, roots: Iterable<TSchema>, wanted: ReadonlySet<Seed>, levels = state.generation.levels.length): Set<Seed> {
  const held = new Set<Seed>()
  const seen = new Set<TSchema>()
  for (const root of roots) {
    for (let level = 0; level < levels; level++) {
      const form = state.generation.formAt(root, level)
      if (seen.has(form)) continue
      seen.add(form)
      for (const node of state.planner.targets.reachableFrom(form)) for (const seed of seedsAt(state, node)) if (wanted.has(seed)) held.add(seed)
    }
    if (held.size === wanted.size) break
  }
  return held
}

/** A route registered outside `versioned(...)`, with its HEAD schemas. */
interface OutsideRoute {
  readonly display: string
  readonly schemas: readonly TSchema[]
}

/**
 * The seeds of `wanted` the application uses: held by a versioned route or a webhook in some version, named by a
 * by-schema converter declared `{ checkUsage: false }` (used outside routes), or held by a shared schema that no route
 * outside `versioned(...)` holds (`app.addSchema`: one a job sends).
 */
function usedSeeds (state: VersionerState, webhooks: readonly DeclaredWebhook[], wanted: ReadonlySet<Seed>, outside: readonly OutsideRoute[]): Set<Seed> {
  const used = seedsHeld(state, [...state.headRoutes.flatMap((route) => routeSchemas(route)), ...webhooks.map((webhook) => webhook.body)], wanted)
  const rest = (): Set<Seed> => new Set([...wanted].filter((seed) => !used.has(seed)))
  const unchecked = state.steps.flatMap((step) => step.changes.flatMap((change) => change.converters))
    .flatMap(({ target, checkUsage }) => target.kind === 'schema' && !checkUsage ? target.schemas : [])
  if (rest().size > 0) for (const seed of seedsHeld(state, unchecked, rest())) used.add(seed)
  if (rest().size === 0) return used
  const servedAsHead = seedsHeld(state, outside.flatMap((route) => route.schemas), rest(), 1)
  for (const seed of seedsHeld(state, state.generation.sharedSchemas(), rest())) if (!servedAsHead.has(seed)) used.add(seed)
  return used
}

/**
 * Throws `InstructionDoesNotApplyToAnythingError` for the first schema or enum instruction (newest version first) whose
 * schema the application does not use ({@link usedSeeds}). Not for a partial application, nor while retiring.
 */
export function checkInstructionUsage (state: VersionerState, webhooks: readonly DeclaredWebhook[]): void {
  const registered = state.unversionedRoutes.splice(0)
  if (state.options.partialApp === true || state.options.retiring === true) return
  const named: Named[] = state.steps.flatMap((step) => step.changes.flatMap((change) => change.instructions
    .filter((instruction) => !isEndpointInstruction(instruction))
    .map((instruction) => [instruction as SchemaInstruction | EnumInstruction, change] as const)))
  const seedOf = ([instruction]: Named): Seed | undefined => state.generation.seedOf(instruction.schema)
  const wanted = new Set(named.map(seedOf).filter((seed) => seed !== undefined))
  if (wanted.size === 0) return
  const outside = registered.map(({ display, schema }) => ({ display, schemas: schemasOf(schema, display) }))
  const used = usedSeeds(state, webhooks, wanted, outside)
  const unused = named.find((entry) => { const seed = seedOf(entry); return seed !== undefined && !used.has(seed) })
  if (unused === undefined) return
  const [instruction, change] = unused
  const schema = describeSchema(instruction.schema)
  throw new InstructionDoesNotApplyToAnythingError(`${instruction.display} in version change '${change.name}' (version '${change.version}'): ` +
    `no route registered inside versioned(...) and no webhook uses ${schema} in any version, so the instruction changes nothing: ` +
    'clients of older versions get HEAD\'s shape wherever it is served. ' +
    [...hints(state, instruction.schema, outside), `If ${schema} is sent only outside routes (a job calling migrateResponseBody), give it to ` +
      'app.addSchema, declare the webhook that sends it (app.versioner.webhooks.add) or name it in a converter declared { checkUsage: false }; ' +
      'otherwise remove the instruction.'].join(' '))
}

/** Where the routes hold `head` in another way than the instructions can reach: outside `versioned(...)`, or a copy. */
function hints (state: VersionerState, head: TSchema, outside: readonly OutsideRoute[]): string[] {
  const found: string[] = []
  const name = describeSchema(head)
  const seed = state.generation.seedOf(head)
  const routes = [
    ...outside.map(({ display, schemas }) => ({ display, schemas, unversioned: true })),
    ...state.headRoutes.map((route) => ({ display: route.display, schemas: routeSchemas(route), unversioned: false }))
  ]
  for (const { display, schemas, unversioned } of routes) {
    const nodes = schemas.flatMap((schema) => state.planner.targets.reachableFrom(schema))
    const where = unversioned ? ', and is registered outside versioned(...)' : ''
    const likeness = nodes.map((node) => node === head ? undefined : likenessTo(node, head)).find((found) => found !== undefined)
    if (unversioned && seed !== undefined && nodes.some((node) => seedsAt(state, node).includes(seed))) {
      found.push(`The route ${display} uses ${name}, but it is registered outside versioned(...) and serves HEAD's shape to every version: register it inside versioned(...).`)
    } else if (likeness?.copy !== undefined) {
      found.push(`The route ${display} uses an inline copy of ${name} (${likeness.copy}${where}): instructions reach only the schema they ` +
        `name and the schemas extendSchema builds from it, so use ${name} itself there${likeness.copy === FIELDS ? `, or extendSchema(${name}, { … }) for one with more fields` : ''}.`)
    } else if (likeness !== undefined) {
      found.push(`The route ${display} uses another schema titled '${likeness.title}'${where}: name that schema in the instruction, or use ${name} in the route.`)
    }
  }
  return found
}

/** The schemas of a route registered outside `versioned(...)`, as for a versioned one; none when they are not JSON Schema. */
function schemasOf (schema: Readonly<Record<string, unknown>>, display: string): TSchema[] {
  try {
    return routeSchemas({ forms: readRouteForms(schema, [undefined], display) })
  } catch {
    return []
  }
}

const FIELDS = 'a schema holding all its fields'

/**
 * How `node` is like `head`: a copy (an object holding all its fields: spread, `Type.Composite`, written again; another
 * schema equal to it but for annotations, modifiers and `$id`: an enum written again), or another schema with its title.
 */
function likenessTo (node: TSchema, head: TSchema): { copy: string, title?: undefined } | { copy?: undefined, title: string } | undefined {
  const source = head as SchemaObject
  const candidate = node as SchemaObject
  const fields = isSchemaObject(source.properties) ? Object.keys(source.properties) : []
  if (fields.length > 0 && kindOf(node) === kindOf(head) && isSchemaObject(candidate.properties) && fields.every((key) => Object.hasOwn(candidate.properties as object, key))) {
    return { copy: FIELDS }
  }
  if (fields.length === 0 && sameButAnnotations(source, candidate)) return { copy: 'a schema equal to it' }
  return typeof source.title === 'string' && candidate.title === source.title ? { title: source.title } : undefined
}

/** True when two schemas are equal but for annotations, modifiers and `$id`. */
function sameButAnnotations (a: TSchema, b: TSchema): boolean {
  const { $id: _a, ...left } = withoutAnnotations(a)
  const { $id: _b, ...right } = withoutAnnotations(b)
  return Object.keys(left).length > 0 && deepEqual(left, right, false)
}
