/**
 * `verify`'s units. Where a version change gives a field another unit, stated in words on both sides (Unix time in
 * seconds and milliseconds, an ISO 8601 time, cents and currency units: ./unit-words.ts), the value a converter
 * writes must be the value it was given expressed in the other unit, one way: a webhook's or a response's field
 * goes down and never comes back, and a request's goes up, so no round trip tells a wrong factor, nor a converter
 * bound to another schema that leaves the value as it was (decision
 * [0339](../../docs/decisions/0339-verify-checks-a-numbers-unit.md)).
 * @module
 */
import type { SchemaGeneration } from '../schemas/generation'
import type { JsonSchema } from '../values/examples'
import { deepEqual } from '../core/json-schema'
import { asNode, pointerOfPath, type RefResolver } from './data-flow'
import { shown } from './value-comparison'
import { convertible, misconverted, unitOf, unitWords, type Unit } from './unit-words'
import { fieldRetypes, retypedAlikeIssues, retypedPlaces, retypingChanges, type AlikeEnvironment, type ReplayedExample, type RetypeAt, type StepPlace } from './verify-retyped-alike'
import type { ReplayContext, ReplayIssue } from './verify-replay'

/** What the unit check needs of a `verify` run. */
interface UnitContext extends Pick<ReplayContext, 'steps'> {
  readonly generation: SchemaGeneration
  readonly resolveRef: RefResolver
  /** The version value of a level (level 1 is the latest). */
  readonly versionAt: (level: number) => string
}

/** A field's unit and node at one end of a step. */
interface Side { readonly unit: Unit, readonly node: JsonSchema }

/** The node a field's keywords are: `$ref`s followed, a nullable union's one other member (with the field's own `description`). */
function fieldNode (keywords: unknown, resolveRef: RefResolver): JsonSchema | undefined {
  const node = asNode(keywords, resolveRef)
  const members = (node?.anyOf ?? node?.oneOf) as unknown[] | undefined
  if (node === undefined || !Array.isArray(members)) return node
  const others = members.map((member) => asNode(member, resolveRef)).filter((member) => member !== undefined && member.type !== 'null')
  return others.length === 1 ? { ...others[0], ...(typeof node.description === 'string' ? { description: node.description } : {}) } : undefined
}

/** Whether a step's instructions change a field's keywords (its type, description or format), so that a unit may change there. */
function retypesFields (step: ReplayContext['steps'][number]): boolean {
  return step.changes.some((change) => change.instructions.some((instruction) => instruction.kind === 'field.had'
    ? instruction.type !== undefined || Object.keys(instruction.keywords).length > 0
    : instruction.kind === 'field.didntHave'))
}

/**
 * The issues of a replayed example (a HEAD response or webhook payload down to a version, or a request up to HEAD)
 * in which a field whose unit a step changes arrives in the wrong unit (`'wrong unit'`), or unconverted (`'lost'`, as a
 * field retyped alike is told): one per field, at the first step where it shows. The units of a field at a step, and whether a step retypes any, are found once for every example given to
 * the function returned (one for a whole run).
 * @example
 * ```ts
 * const issuesOf = unitIssues({ steps, generation, resolveRef, versionAt })
 * issuesOf({ level: 0, end: 1, body: headEvent, trail, expected }, 'payload')
 * // [{ kind: 'lost', pointer: '/created', message: '1748736000101 (Unix time in milliseconds in 2001-01-01) arrives unconverted, …', … }]
 * ```
 */
function unitIssues (context: UnitContext): (example: ReplayedExample, part: string) => ReplayIssue[] {
  const retypeAt = fieldRetypes(context.generation)
  const steps = new Map<number, boolean>()
  const units = new Map<StepPlace['retype'], readonly [Side, Side] | undefined>()
  const unitsOf = (place: StepPlace): readonly [Side, Side] | undefined => {
    if (units.has(place.retype)) return units.get(place.retype)
    const [newer, older] = [place.retype.newer, place.retype.older].map(({ keywords }) => {
      const node = fieldNode(keywords, context.resolveRef)
      const unit = node === undefined ? undefined : unitOf(node)
      return unit === undefined || node === undefined ? undefined : { unit, node }
    })
    const found = newer !== undefined && older !== undefined && convertible(newer.unit, older.unit) ? [newer, older] as const : undefined
    units.set(place.retype, found)
    return found
  }
  const retypesAt = (newer: number): boolean => steps.get(newer) ?? steps.set(newer, retypesFields(context.steps[newer])).get(newer) as boolean
  return (example, part) => exampleIssues(context, { retypeAt, retypesAt, unitsOf }, example, part)
}

/**
 * The checks of the steps of a replayed example that `verify` and `mutate` run: fields retyped alike
 * (./verify-retyped-alike.ts) and units ({@link unitIssues}), a field found by the first not told again by the second.
 * @example
 * ```ts
 * const env = { alikeIssues: stepChecks({ steps: state.steps, generation: state.generation, resolveRef, versionAt: (level) => state.versionAt(level) }) }
 * ```
 */
export function stepChecks (context: UnitContext): AlikeEnvironment['alikeIssues'] {
  const [alike, units] = [retypedAlikeIssues(context), unitIssues(context)]
  return (example, part) => {
    // One mistake, one finding: a field found unconverted beside one retyped alike is not told again as a wrong unit.
    const found = alike(example, part)
    const told = new Set(found.map((issue) => `${issue.step} ${issue.pointer}`))
    return [...found, ...units(example, part).filter((issue) => !told.has(`${issue.step} ${issue.pointer}`))]
  }
}

/** The issues of {@link unitIssues} of one example. */
function exampleIssues (context: UnitContext, levels: { retypeAt: RetypeAt, retypesAt: (newer: number) => boolean, unitsOf: (place: StepPlace) => readonly [Side, Side] | undefined }, example: ReplayedExample, part: string): ReplayIssue[] {
  const up = example.level > example.end
  const issues: ReplayIssue[] = []
  const reported = new Set<string>()
  const [low, high] = up ? [example.end, example.level] : [example.level, example.end]
  // Step 0 holds HEAD's own changes, which have no converters.
  for (let newer = Math.max(low, 1); newer < high; newer++) {
    if (!levels.retypesAt(newer)) continue
    for (const place of retypedPlaces(levels.retypeAt, example, newer)) {
      const sides = levels.unitsOf(place)
      const pointer = pointerOfPath(place.from)
      if (sides === undefined || reported.has(pointer)) continue
      // A request goes up from the older side, a response down from the newer one.
      const [from, to] = up ? [sides[1], sides[0]] : sides
      const [value, converted] = up ? [place.after, place.before] : [place.before, place.after]
      const wrong = misconverted({ from: from.unit, to: to.unit, toNode: to.node }, value, converted)
      if (wrong === undefined) continue
      reported.add(pointer)
      const { names, converters } = retypingChanges(context, example, { newer, head: place.head })
      const [fromVersion, toVersion] = up ? [context.versionAt(newer + 1), context.versionAt(newer)] : [context.versionAt(newer), context.versionAt(newer + 1)]
      const unconverted = deepEqual(value, converted)
      const [unit, due, side] = [unitWords(to.unit), `${shown(value)} is ${shown(wrong.due)}`, up ? 'request' : 'response']
      issues.push({
        // Unconverted, the value is lost as fields retyped alike tell it (one finding where both do); else it is in a wrong unit.
        kind: unconverted ? 'lost' : 'wrong unit',
        part,
        pointer,
        value,
        message: `${shown(value)} (${unitWords(from.unit)} in ${fromVersion}) arrives ${unconverted ? 'unconverted' : `in ${toVersion} as ${shown(converted)}`}, ` +
          `where ${unconverted ? `the schema of ${toVersion}` : 'its schema'} says ${unit}: ${shown(wrong.due)} was due`,
        fix: (converters.length === 0
          ? `Convert ${place.name} to ${unit} in a ${side} converter of ${names.join(', ')} (${due})`
          : unconverted
            ? `Convert ${place.name} to ${unit} (${due}): ${converters.join(', ')} ran but left it as it was (is it bound to the schema holding the field?)`
            : `Make ${converters.join(', ')} write ${place.name} in ${unit} (${due})`) +
          '; if its unit did not change, make its descriptions in both versions say the same unit.',
        converters,
        changes: names,
        step: newer,
        reached: up ? newer : newer + 1
      })
    }
  }
  return issues
}
