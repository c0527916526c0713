/**
 * Stage `lib/routes/`: the start-up check that no version documents two different schemas under one component
 * name (a schema renamed with `schema(S).had({ name })` onto the name of another schema that version documents, or
 * two `$id`s that become one valid component name, such as `a/b` and `a~b`).
 *
 * It walks the versions newest first and keeps, per name, the HEAD names of the schemas that go by it. A route (or
 * webhook) whose schemas depend on no seed a version's instructions change, and whose state is the same, documents
 * the same forms as in the version after it and is not looked at again; a form's schemas are walked once, by the
 * walk that tells where converter schemas occur (./converter-targets.ts).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { InvalidGenerationInstructionError } from '../core/errors'
import { nameOf, type SchemaObject } from '../core/json-schema'
import { componentName, validComponentName } from '../schemas/component-names'
import type { Seed } from '../schemas/seeds'
import { kHeadSchema } from '../core/symbols'
import type { RouteState } from './timeline'
import { requestSchemas, responseMapAt } from './version-plan'
import { seedsOf } from './quiet-levels'
import type { VersionerState } from './versioner-state'
import type { DeclaredWebhook } from './webhooks'

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
      schemasAt: (level) => route.timeline[level]?.exists !== true
        ? []
        : [...requestSchemas(route), ...Object.values(responseMapAt(route, level))]
    })),
    ...webhooks.map((webhook): Member => ({ ...blank, timeline: webhook.timeline, schemasAt: (level) => webhook.timeline[level]?.exists === true ? [webhook.body] : [] }))
  ]
}

/**
 * Throws when, in some version, two different schemas would have the same OpenAPI component name (a schema
 * renamed with `schema(S).had({ name })` onto the name of another schema that version documents).
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
