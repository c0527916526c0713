/**
 * `verify`'s fields retyped alike. Where a version retypes several fields from the same schema to the same schema,
 * words included (an amount and a total both moved from decimals to cents), the fields change representation
 * together: a converter that changes the value of one must change the others'. An example in which, at one step,
 * such a field's value changed and another's (not `0`, not empty) arrived as it was shows a converter forgotten: an
 * old client reads that field in the newer representation, a value its own schema still accepts (3998 for 39.98).
 * Fields that keep their values through an alike retype are told apart by their schemas (say so in a description).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { deepEqual, type SchemaObject } from '../core/json-schema'
import type { SchemaGeneration } from '../schemas/generation'
import { keywordsOf } from '../schemas/object-fields'
import { fieldsAt, pointerOfPath, valueAt, type FollowedValue, type PathKey } from './data-flow'
import { shown } from './value-comparison'
import type { Expected } from './list-items'
import type { ReplayContext, ReplayIssue, Trail } from './verify-replay'

/** What replays of `verify` check the steps of an example with: {@link retypedAlikeIssues}' function, with units' (./verify-units.ts). */
export interface AlikeEnvironment {
  readonly alikeIssues: (example: ReplayedExample, part: string) => ReplayIssue[]
}

/** A field of an example retyped at a step (its keywords differ at both ends): its value before and after the step's converters, and its retype. */
export interface StepPlace {
  readonly from: readonly PathKey[]
  readonly before: unknown
  readonly after: unknown
  readonly name: string
  readonly head: TSchema
  readonly retype: NonNullable<StepRetype>
}

/** Fields retyped at one step from and to the same schemas (`retype`: the newer one, then the older one). */
interface AlikeGroup {
  readonly retype: readonly [SchemaObject, SchemaObject]
  readonly places: StepPlace[]
}

/** A replayed example whose replay reached its end: where it started, the bodies it had at each level, its values followed. */
export interface ReplayedExample {
  /** The level of the example: 0 for a HEAD response, the version's level for a request. */
  readonly level: number
  /** The level the replay reached at its end. */
  readonly end: number
  /** The example's body as it started. */
  readonly body: unknown
  readonly trail: Trail
  readonly expected: Expected
}

/** The field `id` of the seed of `head` at `level`: its schema's keywords and its name (`Invoice.total`). */
function fieldAt (generation: SchemaGeneration, field: NonNullable<FollowedValue['field']>, level: number): { keywords: SchemaObject, name: string } | undefined {
  const found = fieldsAt(generation, field.head, level).find((entry) => entry.field.id === field.id)
  return found === undefined ? undefined : { keywords: keywordsOf(found.field), name: `${generation.stateAt(field.head, level).name}.${found.key}` }
}

/** The places of the example's values at `level` by their place in the example (the example's own level: where they are). */
function placesAt (example: ReplayedExample, level: number): Map<string, FollowedValue> {
  return new Map(example.expected.followedTo(level).map((value) => [JSON.stringify(value.from), value]))
}

/** A value a conversion that forgot it would leave as it is, and that tells: a number but 0, a string but empty. */
function tells (value: unknown): boolean {
  return (typeof value === 'number' && value !== 0) || (typeof value === 'string' && value !== '')
}

/** A field's keywords and names at both ends of a step, when the step retypes it (its keywords differ). */
type StepRetype = { readonly newer: { keywords: SchemaObject, name: string }, readonly older: { keywords: SchemaObject, name: string } } | undefined

/** The retype of a followed field at the step between levels `newer` and `newer + 1`. */
export type RetypeAt = (field: NonNullable<FollowedValue['field']>, newer: number) => StepRetype

/** The fields of the example retyped at the step between levels `newer` and `newer + 1`, with their values at both ends. */
export function retypedPlaces (retypeAt: RetypeAt, example: ReplayedExample, newer: number): StepPlace[] {
  const older = newer + 1
  const bodyAt = (level: number): unknown => level === example.level ? example.body : example.trail.get(level)?.body
  const [atNewer, atOlder] = [placesAt(example, newer), placesAt(example, older)]
  const places: StepPlace[] = []
  for (const [key, value] of atNewer.size >= atOlder.size ? atNewer : atOlder) {
    const [here, there] = [atNewer.get(key), atOlder.get(key)]
    const field = here?.field ?? there?.field
    const retype = field === undefined ? undefined : retypeAt(field, newer)
    if (field === undefined || retype === undefined) continue
    const to = (level: number, place: FollowedValue | undefined): readonly PathKey[] => level === example.level ? value.from : place?.to ?? []
    places.push({ from: value.from, before: valueAt(bodyAt(newer), to(newer, here)), after: valueAt(bodyAt(older), to(older, there)), name: retype.newer.name, head: field.head, retype })
  }
  return places
}

/** The fields of the example retyped alike at the step between levels `newer` and `newer + 1`, grouped by retype. */
function alikeGroups (retypeAt: RetypeAt, example: ReplayedExample, newer: number): AlikeGroup[] {
  const groups: AlikeGroup[] = []
  for (const place of retypedPlaces(retypeAt, example, newer)) {
    const retype = [place.retype.newer.keywords, place.retype.older.keywords] as const
    const group = groups.find((candidate) => deepEqual(candidate.retype, retype))
    if (group === undefined) groups.push({ retype, places: [place] })
    else group.places.push(place)
  }
  return groups
}

/** How many fields the instructions of a step give another type. */
function retypesOf (step: ReplayContext['steps'][number]): number {
  return step.changes.reduce((count, change) => count + change.instructions.filter((instruction) => instruction.kind === 'field.had' && instruction.type !== undefined).length, 0)
}

/**
 * The issues of a replayed example (a HEAD response down to a version, or a request up to HEAD) in which a field
 * retyped alike with another kept its value at a step where the other's changed: one per such field, at the first
 * step where it shows. What depends on the levels only (how many fields a step retypes, a field's keywords at both
 * ends of a step) is found once for every example given to the function returned (one for a whole run).
 * @example
 * ```ts
 * const issuesOf = retypedAlikeIssues({ steps, generation })
 * issuesOf({ level: 0, end: 3, body: headInvoice, trail, expected }, 'response 200')
 * // [{ kind: 'lost', pointer: '/total', message: '3998 arrives as HEAD gave it, while …', … }]
 * ```
 */
export function retypedAlikeIssues (context: Pick<ReplayContext, 'steps'> & { generation: SchemaGeneration }): AlikeEnvironment['alikeIssues'] {
  const retypes = new Map<number, number>()
  const retypeAt = fieldRetypes(context.generation)
  const retypesAt = (newer: number): number => retypes.get(newer) ?? retypes.set(newer, retypesOf(context.steps[newer])).get(newer) as number
  return (example, part) => exampleIssues(context, { retypeAt, retypesAt }, example, part)
}

/** A followed field's retype at a step, found once per field and step for the function's life (a `verify` run). */
export function fieldRetypes (generation: SchemaGeneration): RetypeAt {
  const fields = new Map<TSchema, Map<string, StepRetype>>()
  return (field, newer) => {
    const known = fields.get(field.head) ?? fields.set(field.head, new Map()).get(field.head) as Map<string, StepRetype>
    const key = `${field.id}@${newer}`
    if (known.has(key)) return known.get(key)
    const [fieldNewer, fieldOlder] = [fieldAt(generation, field, newer), fieldAt(generation, field, newer + 1)]
    const found = fieldNewer === undefined || fieldOlder === undefined || deepEqual(fieldNewer.keywords, fieldOlder.keywords) ? undefined : { newer: fieldNewer, older: fieldOlder }
    known.set(key, found)
    return found
  }
}

/**
 * The version changes at fault for a field retyped at the step between levels `newer` and `newer + 1` (those whose
 * instructions name its seed `head`, else every change of the step), and the converters of theirs that ran there.
 */
export function retypingChanges (context: Pick<ReplayContext, 'steps'>, example: ReplayedExample, at: { newer: number, head: TSchema }): { names: string[], converters: string[] } {
  const step = context.steps[at.newer].changes
  const retyping = step.filter((change) => change.instructions.some((instruction) => 'schema' in instruction && instruction.schema === at.head))
  const names = (retyping.length === 0 ? step : retyping).map((change) => change.name)
  const ran = example.trail.get(example.level > example.end ? at.newer : at.newer + 1)?.converters ?? []
  return { names, converters: ran.filter((converter) => names.some((name) => converter.startsWith(`${name}.`))) }
}

/** The issues of {@link retypedAlikeIssues} of one example. */
function exampleIssues (context: Pick<ReplayContext, 'steps'>, levels: { retypeAt: RetypeAt, retypesAt: (newer: number) => number }, example: ReplayedExample, part: string): ReplayIssue[] {
  const up = example.level > example.end
  const issues: ReplayIssue[] = []
  const reported = new Set<string>()
  const [low, high] = up ? [example.end, example.level] : [example.level, example.end]
  // Step 0 holds HEAD's own changes, which have no converters; a step retyping fewer than two fields has none alike.
  for (let newer = Math.max(low, 1); newer < high; newer++) {
    if (levels.retypesAt(newer) < 2) continue
    for (const { places } of alikeGroups(levels.retypeAt, example, newer)) {
      const converted = places.filter((place) => place.after !== undefined && !deepEqual(place.before, place.after))
      // A field converted at one place is converted (a converter may leave some values as they are: null, 0).
      const fields = new Set(converted.map((place) => place.name))
      const changed = converted[0]
      if (changed === undefined) continue
      for (const kept of places.filter((place) => !fields.has(place.name) && tells(place.before) && deepEqual(place.before, place.after))) {
        const pointer = pointerOfPath(kept.from)
        if (reported.has(pointer)) continue
        reported.add(pointer)
        const { names, converters } = retypingChanges(context, example, { newer, head: kept.head })
        const [changes, side] = [names.join(', '), up ? 'request' : 'response']
        issues.push({
          kind: 'lost',
          part,
          pointer,
          value: kept.before,
          message: `${shown(kept.before)} arrives unconverted, while ${changed.name} (at ${pointerOfPath(changed.from)}), retyped from and to the same schemas by ` +
            `${changes}, is converted (${shown(changed.before)} to ${shown(changed.after)})`,
          fix: `Convert ${kept.name} in a ${side} converter of ${changes}, as ${changed.name} is converted; ` +
            'if its values mean the same in both versions, say so in its description (fields retyped to and from the same schemas are taken for one change of representation).',
          converters,
          changes: names,
          step: newer,
          reached: up ? newer : newer + 1
        })
      }
    }
  }
  return issues
}
