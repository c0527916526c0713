/**
 * What retiring a version (and every older one) removes from an API, read from its plugin state: the `Version`
 * entries, the version changes that only shape retired versions and their converters, the HEAD routes no remaining
 * version serves, and the HEAD fields and enum members kept only for retired versions
 * ([decision 0056](../../docs/decisions/0056-usage-per-change-and-retire.md)).
 *
 * A HEAD field is kept only for retired versions when every remaining version lacks it (instructions hide it, by
 * the field's identity, which renames keep), no converter of a remaining change can read its schema, and either a
 * retired version has it or a removed converter can read its schema. A HEAD enum member is when every remaining
 * version lacks it, no converter of a remaining change can read its schema, and a retired version has it. A converter can read a schema when it targets it (or a schema
 * holding it) by schema, or runs on a route whose schemas hold it.
 * @module
 */
import { Version, VersionBundle, type VersionBundleOptions, type VersionLifecycle } from '../describe/versions'
import { kBundleInternals } from '../core/symbols'
import type { VersionChangeDescriptor } from '../describe/version-change-reader'
import type { Instruction } from '../describe/instructions'
import { deepEqual } from '../core/json-schema'
import { VersionerToolError } from '../core/errors'
import { routeSeeds } from '../routes/quiet-levels'
import type { Seed } from '../schemas/seeds'
import type { VersionerState } from '../routes/versioner-state'
import { requestPlans } from '../routes/version-plan'
import type { RouteState } from '../routes/timeline'
import type { DeclaredWebhook } from '../routes/webhooks'

/** A version change retiring removes, and the version holding it. */
interface RemovedChange {
  readonly name: string
  readonly holder: string
}

/** What retiring `version` and every older version removes. */
export interface RetirementPlan {
  /** The version named, and the older ones: the `Version` entries removed, newest first. */
  readonly retired: readonly Version[]
  /** The versions that remain, newest first. */
  readonly remaining: readonly string[]
  readonly changes: readonly RemovedChange[]
  /** `Change.method` of each removed converter. */
  readonly converters: readonly string[]
  /** HEAD routes some retired version serves and no remaining one does (`METHODS path`, marked when `onlyExistsInOlderVersions`). */
  readonly routes: readonly string[]
  /** Webhooks some retired version has and no remaining one does (`name (METHOD)`, marked when `onlyExistsInOlderVersions`). */
  readonly webhooks: readonly string[]
  /** `Schema.field` of HEAD fields kept only for retired versions. */
  readonly fields: readonly string[]
  /** `Enum member` of HEAD enum members kept only for retired versions. */
  readonly members: readonly string[]
  /** The fields listed that no version has (kept for a removed converter, or for a version not yet released). */
  readonly headOnly: readonly string[]
  /** For a route, webhook, field or member listed, the kept changes (`HeadVersion`'s) whose instructions name it: deleted with it. */
  readonly namedBy: Readonly<Record<string, readonly string[]>>
}

/** The seeds the converters of `changes` can read (`undefined`: any, when a route's seeds are not known). */
function readSeeds (state: VersionerState, changes: ReadonlySet<VersionChangeDescriptor>): Set<Seed> | undefined {
  const { generation } = state
  const seeds = new Set<Seed>()
  for (const change of changes) {
    for (const converter of change.converters) {
      if (converter.target.kind !== 'schema') continue
      for (const schema of converter.target.schemas) {
        const seed = generation.seedOf(schema)
        if (seed !== undefined) seeds.add(seed)
        for (const held of generation.dependenciesAt(schema, 1) ?? []) seeds.add(held)
      }
    }
  }
  for (const head of state.headRoutes) {
    for (const registered of head.registered) {
      for (const behaviour of registered.behaviours.values()) {
        const steps = [...requestPlans(behaviour).flatMap((plan) => plan.requestSteps), ...[...behaviour.responseSteps.values()].flat()]
        if (!steps.some((step) => changes.has(step.converter.change))) continue
        const held = routeSeeds(head, behaviour.level, generation)
        if (held === undefined) return undefined
        for (const seed of held) seeds.add(seed)
      }
    }
  }
  return seeds
}

/** A change as the plan names it: `Name (HeadVersion)`, `Name (Version('2001-01-01'))`. */
function changeDisplay (change: VersionChangeDescriptor): string {
  return `${change.name} (${change.version === 'head' ? 'HeadVersion' : `Version('${change.version}')`})`
}

/** The kept changes with an endpoint instruction naming `path` and one of `methods` (a route's or webhook's name). */
function endpointNamers (kept: ReadonlySet<VersionChangeDescriptor>, path: string, methods: readonly string[]): string[] {
  return [...kept].filter((change) => change.instructions.some((instruction) => instruction.kind.startsWith('endpoint.') &&
    'path' in instruction && instruction.path === path && instruction.methods.some((method) => methods.includes(method)))).map(changeDisplay)
}

/** The levels from `from` to `to` (inclusive). */
function range (from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index)
}

/** HEAD fields and enum members kept only for retired versions (levels `oldestKept + 1` and older). */
function keptOnlyForRetired (state: VersionerState, oldestKept: number, removed: ReadonlySet<VersionChangeDescriptor>): Pick<RetirementPlan, 'fields' | 'members' | 'headOnly' | 'namedBy'> {
  const { generation } = state
  const remainingLevels = range(1, oldestKept)
  const retiredLevels = range(oldestKept + 1, generation.levels.length - 1)
  const kept = new Set(state.steps.slice(0, oldestKept).flatMap((step) => step.changes))
  const readByRemaining = readSeeds(state, kept)
  const readByRemoved = readSeeds(state, removed)
  const fields: string[] = []
  const members: string[] = []
  const headOnly: string[] = []
  const namedBy: Record<string, string[]> = {}
  // The kept changes whose instructions name what is listed: a start-up error (the field is gone) once it is deleted.
  const name = (display: string, seed: Seed, names: (instruction: Instruction) => boolean): void => {
    const changes = [...kept].filter((change) => change.instructions.some((instruction) =>
      'schema' in instruction && generation.seedOf(instruction.schema) === seed && names(instruction)))
    if (changes.length > 0) namedBy[display] = changes.map(changeDisplay)
  }
  // Every seed an instruction names: those the instructions giving each level changed.
  for (const seed of new Set([...remainingLevels, ...retiredLevels].flatMap((level) => [...generation.seedsChangedAt(level)]))) {
    const head = generation.stateAt(seed.head, 0)
    if (head.kind === 'object') {
      if (readByRemaining === undefined || readByRemaining.has(seed)) continue
      const has = (level: number, id: number): boolean => {
        const at = generation.stateAt(seed.head, level)
        return at.kind === 'object' && at.fields.some((field) => field.id === id)
      }
      for (const field of head.fields) {
        if (remainingLevels.some((level) => has(level, field.id))) continue
        const inRetired = retiredLevels.some((level) => has(level, field.id))
        if (!inRetired && readByRemoved !== undefined && !readByRemoved.has(seed)) continue
        const display = `${seed.display === 'schema' ? `{ ${head.fields.map(({ key }) => key).join(', ')} }` : seed.display}.${field.key}`
        fields.push(display)
        if (!inRetired) headOnly.push(display)
        name(display, seed, (instruction) => 'field' in instruction && instruction.field === field.key)
      }
    } else if (head.kind === 'enum') {
      // A converter of a remaining change may write a member no remaining version shows (an old flag made HEAD's member).
      if (readByRemaining === undefined || readByRemaining.has(seed)) continue
      const has = (level: number, value: unknown): boolean => {
        const at = generation.stateAt(seed.head, level)
        return at.kind === 'enum' && at.members.some((member) => deepEqual(member.value, value))
      }
      for (const { value } of head.members) {
        if (remainingLevels.some((level) => has(level, value)) || !retiredLevels.some((level) => has(level, value))) continue
        const display = `${seed.display === 'schema' ? head.members.map((member) => JSON.stringify(member.value)).join(' | ') : seed.display} ${JSON.stringify(value)}`
        members.push(display)
        name(display, seed, (instruction) => (instruction.kind === 'enum.didntHave' && instruction.members.includes(String(value))) ||
          (instruction.kind === 'enum.had' && Object.hasOwn(instruction.members, String(value))))
      }
    }
  }
  return { fields, members, headOnly, namedBy }
}

/**
 * What retiring `version` and every older version of the API removes. `FST_VERSIONER_TOOL` when the API has no such
 * version, or when it is the newest (an API keeps at least one version).
 */
export function retirementPlan (state: VersionerState, version: string, webhooks: readonly DeclaredWebhook[] = []): RetirementPlan {
  const bundle = state.options.versions
  const values = bundle.versionValues
  const index = values.indexOf(version)
  if (index === -1) throw new VersionerToolError(`--version '${version}' is not a version of this API; its versions (newest first): ${values.join(', ')}.`)
  // Preview versions come first: retiring the newest release (or a preview, and every release older than it) would
  // leave the API's clients no version they can use.
  const newestRelease = values.indexOf(bundle.releasedValues[0])
  if (index === 0 || index <= newestRelease) {
    const what = index < newestRelease ? 'a preview version, newer than every release' : `the newest ${index === 0 ? '' : 'released '}version`
    throw new VersionerToolError(`--version '${version}' is ${what}: retiring it would leave no ${index === 0 ? '' : 'released '}version (an API keeps at least one). ` +
      `Name an older one: ${values.slice(Math.max(index, newestRelease) + 1).join(', ') || 'there is none'}.`)
  }
  // A release still to come is not served before its instant: the newest release served now stays too.
  const next = bundle.versions.slice(0, index).reverse().find((kept) => kept.channel === 'release')
  if (next?.releasedAt !== undefined && next.releasedAt.getTime() > Date.now()) {
    throw new VersionerToolError(`--version '${version}' is the newest version served now: ${next.value} is served from its releasedAt ` +
      `(${next.releasedAt.toISOString()}). Retire ${version} after that instant, or name an older one: ${values.slice(index + 1).join(', ') || 'there is none'}.`)
  }
  // Step `index` holds the changes of the oldest remaining version: they only describe the versions retired.
  const removedSteps = state.steps.slice(index)
  const removed = new Set(removedSteps.flatMap((step) => step.changes))
  const changes = removedSteps.flatMap((step) => step.changes.map((change) => ({ name: change.name, holder: step.origin })))
  const converters = [...removed].flatMap((change) => change.converters.map((converter) => converter.display))
  // A route or webhook some retired version has and no remaining one does, marked when HEAD lacks it; with the kept
  // changes whose endpoint instructions name it (HeadVersion's hiding it), deleted with it.
  const kept = new Set(state.steps.slice(0, index).flatMap((step) => step.changes))
  const endpointsNamedBy: Record<string, string[]> = {}
  const retiredOnly = (timeline: readonly RouteState[], display: string, [path, methods]: [string, readonly string[]]): string[] => {
    const served = (level: number): boolean => timeline[level]?.exists === true
    if (range(1, index).some(served) || !range(index + 1, values.length).some(served)) return []
    const listed = `${display}${timeline[0].exists ? '' : ' (onlyExistsInOlderVersions)'}`
    const namers = endpointNamers(kept, path, methods)
    if (namers.length > 0) endpointsNamedBy[listed] = namers
    return [listed]
  }
  const routes = state.headRoutes.flatMap((head) => retiredOnly(head.timeline, head.display, [head.path, head.methods]))
  const hooks = webhooks.flatMap((webhook) => retiredOnly(webhook.timeline, `${webhook.name} (${webhook.method})`, [webhook.name, [webhook.method]]))
  const held = keptOnlyForRetired(state, index, removed)
  return {
    retired: bundle.versions.slice(index),
    remaining: values.slice(0, index),
    changes,
    converters,
    routes,
    webhooks: hooks,
    ...held,
    namedBy: { ...endpointsNamedBy, ...held.namedBy }
  }
}

/**
 * The bundle without `version` and every older version: the same `HeadVersion` and newer `Version` entries, the
 * oldest one kept without its changes (they described the version before it), its lifecycle kept.
 * @example
 * bundleWithout(versions, '2000-01-01').versionValues // ['2002-01-01', '2001-01-01']
 */
export function bundleWithout (bundle: VersionBundle, version: string): VersionBundle {
  const index = bundle.versionValues.indexOf(version)
  if (index < 1) throw new RangeError(`bundleWithout: '${version}' is not a version of the bundle older than its newest`)
  const kept = bundle.versions.slice(0, index)
  const oldest = kept[kept.length - 1]
  const { deprecatedAt, sunsetAt, link, afterSunset, channel, access, releasedAt, brownouts } = oldest
  const lifecycle: VersionLifecycle = { deprecatedAt, sunsetAt, link, afterSunset, channel, access, releasedAt, brownouts }
  const options: VersionBundleOptions[] = bundle[kBundleInternals].customStorage ? [{ apiVersionStorage: bundle.apiVersionStorage }] : []
  return new VersionBundle(bundle.headVersion, ...kept.slice(0, -1), new Version(oldest.value, lifecycle), ...options)
}
