/**
 * `verify`'s carriers: one schema carried by several routes' responses and webhooks' payloads is converted alike. In
 * each version, the same HEAD value of a schema (a seed: a schema an instruction or converter names), put in place of
 * every occurrence of it in an example of each carrier, is replayed down to the version through that carrier's
 * converters (./verify-replay.ts), and what arrives at the schema's place must be equal in every carrier: a
 * by-path converter on the invoice routes that leaves the `invoice.paid` webhook's invoice in cents (1999 for 19.99)
 * is a finding, where each replay alone is valid and nothing round-trips
 * ([decision 0230](../../docs/decisions/0230-verify-compares-a-schema-across-its-carriers.md)). A carrier's replay down to an old
 * version also serves the newer versions it passes, where it runs the same converters there (./carrier-replays.ts).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { pointerKey, pointerSegment } from '../core/json-schema'
import { setOwn } from '../core/own-properties'
import { everySubschema } from '../core/subschemas'
import type { HeadRoute } from '../routes/versioner-state'
import type { DeclaredWebhook } from '../routes/webhooks'
import { copyJson } from '../serve/step-runner'
import { compileCollector, type Collector, type Holder, type Occurrence } from '../values/occurrences'
import { declaresPlace } from '../values/pointer-places'
import { differencesOf, type Difference } from './value-difference'
import { shown } from './value-comparison'
import { unexpressedIn } from './unexpressed-values'
import type { VerifyFinding } from './verify-replay'
import { CarrierReplays, type Carried, type Carrier } from './carrier-replays'
import { examplesOf, responseTarget, type VerifyEnvironment } from './verify-targets'

/**
 * A schema converted unalike by two carriers in a version (`'converted unalike'`), named on the carrier that differs.
 * @example
 * ```ts
 * declare const findings: VerifyFindings // what verify returned
 * const unalike = findings.filter((finding): finding is CarrierFinding => finding.kind === 'converted unalike')
 * for (const finding of unalike) console.error(`${finding.route} converts ${finding.pointer} unlike the others in ${finding.version}`)
 * ```
 */
export type CarrierFinding = Omit<VerifyFinding, 'kind'> & { readonly kind: 'converted unalike' }

/** The carriers of one version: each route's response slots (one status each) and each webhook the version has. */
function carriersAt (env: VerifyEnvironment, webhooks: readonly DeclaredWebhook[], level: number): Carrier[] {
  const carriers: Carrier[] = []
  for (const head of env.state.headRoutes as readonly HeadRoute[]) {
    for (const registered of head.registered) {
      for (const behaviour of registered.behaviours.values()) {
        if (behaviour.level !== level) continue
        const route = `${behaviour.state.methods.join(',')} ${behaviour.state.path}`
        for (const slot of Object.keys(head.forms.responses[level].schemas)) {
          const [target] = responseTarget(env, { head, behaviour, route }, slot)
          if (target !== undefined) carriers.push({ name: route, target, head: target.formAt('body', 0) })
        }
      }
    }
  }
  for (const webhook of webhooks) {
    if (webhook.timeline[level]?.exists !== true) continue
    const formAt = (_part: unknown, at: number): TSchema => env.state.generation.formAt(webhook.body, at)
    const steps = env.state.planner.responseSteps(undefined, webhook.body, level)
    const target = { route: `webhook ${webhook.name}`, version: env.state.versionAt(level), level, part: 'payload', status: 200, method: undefined, steps, formAt, unexpressed: unexpressedIn(env.state, webhook.body) }
    carriers.push({ name: target.route, target, head: webhook.body })
  }
  return carriers
}

/** The seeds a carrier's HEAD schema holds (their HEAD objects), read once per schema. */
function seedsOf (env: VerifyEnvironment, head: TSchema, cache: Map<TSchema, Set<TSchema>>): Set<TSchema> {
  let found = cache.get(head)
  if (found === undefined) {
    found = new Set()
    for (const sub of everySubschema([head], env.resolveRef as (ref: string) => TSchema | undefined)) {
      const seed = env.state.generation.seedOf(sub)?.head
      if (seed !== undefined) found.add(seed)
    }
    cache.set(head, found)
  }
  return found
}

/** The JSON pointer of the object `target` inside `data` (by identity; list items as `*`), if there. */
function pointerTo (data: unknown, target: unknown, at = ''): string | undefined {
  if (data === target) return at
  if (typeof data !== 'object' || data === null) return undefined
  for (const [key, value] of Object.entries(data)) {
    const found = pointerTo(value, target, `${at}/${Array.isArray(data) ? '*' : pointerSegment(key)}`)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * The outermost occurrence of a seed in `data` (found by `collect`), with its place: the one with the shortest place
 * (one inside another has a longer one), the first in the data of those.
 */
function outermost (collect: Collector, data: unknown): { place: string, value: unknown } | undefined {
  const root: Holder = { '': data }
  const found: Occurrence[] = []
  collect(root, '', found)
  let best: { place: string, value: unknown } | undefined
  for (const [at, key] of found) {
    const holder = at === root ? undefined : pointerTo(data, at)
    const place = at === root ? '' : holder === undefined ? undefined : `${holder}/${Array.isArray(at) ? '*' : pointerSegment(key)}`
    if (place !== undefined && (best === undefined || place.length < best.place.length)) best = { place, value: at[key] }
  }
  return best
}

/**
 * Compares one seed's value across the carriers holding it, in every version (one comparison a seed for a whole run:
 * what it compiles and reads serves every version).
 */
class SeedComparison {
  /** The collectors of the seed: in each carrier's HEAD schema (by HEAD schema), and in each form at a level (by level, then form). */
  private readonly collectors = new Map<TSchema, Collector | null>()
  private readonly finders = new Map<number, Map<TSchema, Collector | null>>()
  /** The examples of each carrier's HEAD schema holding the seed somewhere; the seed's outermost value in each carried body, by level. */
  private readonly fitting = new Map<TSchema, unknown[]>()
  private readonly values = new WeakMap<Carried, Map<number, { place: string, value: unknown } | undefined>>()

  constructor (private readonly env: VerifyEnvironment, private readonly seed: TSchema) {}

  /** The examples of `head` holding the seed somewhere (a list with an item, an optional field present). */
  envelopes (head: TSchema): unknown[] {
    let found = this.fitting.get(head)
    if (found === undefined) {
      const collect = this.collectorIn(head)
      found = examplesOf(this.env, head).map((example) => example.value).filter((envelope) => this.occurrences(collect, envelope).length > 0)
      this.fitting.set(head, found)
    }
    return found
  }

  /** A copy of `envelope` (an example of `head`) with every occurrence of the seed replaced by a copy of `value`. */
  placed (head: TSchema, envelope: unknown, value: unknown): unknown {
    const holder: Holder = { '': copyJson(envelope) }
    const found = this.occurrences(this.collectorIn(head), holder[''], holder)
    if (found.length === 0) return undefined
    // Innermost first: an outer occurrence placed last holds the value whole.
    for (const [at, key] of found) setOwn(at, key, copyJson(value))
    return holder['']
  }

  /** The seed's first outermost value in a carrier's body at `level` (of the carrier's form there), with its place. */
  valueIn (carried: Carried, level: number): { place: string, value: unknown } | undefined {
    const known = this.values.get(carried) ?? new Map<number, { place: string, value: unknown } | undefined>()
    this.values.set(carried, known)
    if (known.has(level)) return known.get(level)
    const body = carried.trail.get(level)?.body
    const form = carried.carrier.target.formAt('body', level)
    const byForm = this.finders.get(level) ?? new Map<TSchema, Collector | null>()
    this.finders.set(level, byForm)
    if (!byForm.has(form)) byForm.set(form, compileCollector(form, { isTarget: (node) => this.isSeed(node, level), resolveRef: this.env.resolveRef as (ref: string) => TSchema | undefined }))
    const find = byForm.get(form)
    const value = find === null || find === undefined || body === undefined ? undefined : outermost(find, body)
    known.set(level, value)
    return value
  }

  /** The first difference between two values of the seed at `level`, at a place its form there declares (a serializer drops others). */
  difference (one: unknown, other: unknown, level: number): Difference | undefined {
    const form = this.env.state.generation.formAt(this.seed, level)
    return differencesOf(one, other).find(({ pointer }) => declaresPlace(form, pointer.split('/').slice(1).map(pointerKey), this.env.resolveRef as (ref: string) => TSchema | undefined))
  }

  /** The seed's collector in a carrier's HEAD schema. */
  private collectorIn (head: TSchema): Collector | null | undefined {
    if (!this.collectors.has(head)) this.collectors.set(head, compileCollector(head, { isTarget: (node) => this.isSeed(node, 0), resolveRef: this.env.resolveRef as (ref: string) => TSchema | undefined }))
    return this.collectors.get(head)
  }

  /** The occurrences of the seed `collect` finds in `data` (held by `holder`), innermost first. */
  private occurrences (collect: Collector | null | undefined, data: unknown, holder: Holder = { '': data }): Occurrence[] {
    const found: Occurrence[] = []
    collect?.(holder, '', found)
    return found
  }

  private isSeed (node: TSchema, level: number): boolean {
    return node === this.env.state.generation.formAt(this.seed, level) || this.env.state.generation.seedOf(node)?.head === this.seed
  }
}

/** Collects the findings, one per (seed, carrier, reference carrier, change): the versions where it shows are listed on it. */
class UnalikeFindings {
  readonly byKey = new Map<string, CarrierFinding & { versions: string[] }>()

  add (key: string, version: string, make: () => CarrierFinding): void {
    const known = this.byKey.get(key)
    if (known === undefined) this.byKey.set(key, { ...make(), versions: [version] })
    else if (!known.versions.includes(version)) known.versions.push(version)
  }
}

/** Names what two carriers made of one HEAD value: the first level (going down) where they differ, and the finding. */
function unalike (env: VerifyEnvironment, comparison: SeedComparison, pair: { reference: Carried, other: Carried, seedName: string, example: unknown }, level: number): CarrierFinding | undefined {
  const { reference, other, seedName } = pair
  for (let at = 1; at <= level; at++) {
    const [one, two] = [comparison.valueIn(reference, at), comparison.valueIn(other, at)]
    if (one === undefined || two === undefined) return undefined
    const difference = comparison.difference(one.value, two.value, at)
    if (difference === undefined) continue
    const step = env.steps[at - 1]
    const converters = [...new Set([...reference.trail.get(at)?.converters ?? [], ...other.trail.get(at)?.converters ?? []])]
    const changes = step.changes.map((change) => change.name)
    const [fromReference, fromOther] = [difference.recorded, difference.replayed].map((value) => value === undefined ? 'nothing' : shown(value))
    const carrierOf = (carried: Carried): string => `${carried.carrier.name} (${carried.carrier.target.part})`
    const message = `${seedName} is converted unalike: through ${carrierOf(reference)} ${difference.pointer === '' ? 'it' : difference.pointer} arrives as ${fromReference}, ` +
      `through ${carrierOf(other)} as ${fromOther}; the same HEAD ${seedName} must arrive alike through every route and webhook carrying it`
    const fix = `Convert ${seedName} by schema (@ConvertResponseToPreviousVersionFor(${seedName})) so that every route and webhook carrying it is converted alike, ` +
      `or give ${carrierOf(other)} the same conversion as ${carrierOf(reference)} in ${changes.join(', ')}; a route whose old response really differed needs its own schema in that version (endpoint(path, methods).had({ response })), not a by-path converter on a shared one.`
    const version = other.carrier.target.version
    const pointer = `${two.place}${difference.pointer}`
    const by = converters.length === 0 ? 'no converter ran' : `converters ${converters.join(', ')}`
    return {
      route: other.carrier.name,
      version,
      versions: [version],
      direction: 'response',
      kind: 'converted unalike',
      part: other.carrier.target.part,
      pointer,
      message,
      value: difference.replayed,
      fix,
      changeVersion: step.origin,
      versionChanges: changes,
      converters,
      example: pair.example,
      text: `${other.carrier.name} (${version}): ${other.carrier.target.part}${pointer}: ${message}; first different after ${changes.join(', ')} (${step.origin}), ${by}. ${fix}`
    }
  }
  return undefined
}

/** The carriers grouped by what they made of one HEAD value at the version's level: the largest group (the first, on a tie) is the reference. */
function groupsOf (comparison: SeedComparison, all: readonly Carried[], level: number): Carried[][] {
  const groups: Carried[][] = []
  for (const carried of all) {
    const value = comparison.valueIn(carried, level)
    if (value === undefined) continue
    const group = groups.find((each) => comparison.difference((comparison.valueIn(each[0], level) as { value: unknown }).value, value.value, level) === undefined)
    if (group === undefined) groups.push([carried])
    else group.push(carried)
  }
  return groups.sort((one, two) => two.length - one.length)
}

/**
 * In every version, each seed two or more carriers hold (where one of them has converters to run): the same HEAD
 * values of it, put in each carrier's examples, replayed down; a carrier where it arrives otherwise than in the most
 * carriers is a finding, at the first version change where the two differ.
 * @example
 * ```ts
 * const findings = await carrierFindings(env, fastify.versioner.webhooks.list())
 * ```
 */
export async function carrierFindings (env: VerifyEnvironment, webhooks: readonly DeclaredWebhook[]): Promise<CarrierFinding[]> {
  const findings = new UnalikeFindings()
  const seedCache = new Map<TSchema, Set<TSchema>>()
  const comparisons = new Map<TSchema, SeedComparison>()
  const byLevel = env.state.steps.map((_step, index) => carriersAt(env, webhooks, index + 1))
  const replays = new CarrierReplays(env, byLevel)
  for (let level = 1; level <= env.state.steps.length; level++) {
    const carriers = byLevel[level - 1]
    if (carriers.every((carrier) => carrier.target.steps.length === 0)) continue
    const bySeed = new Map<TSchema, Carrier[]>()
    for (const carrier of carriers) for (const seed of seedsOf(env, carrier.head, seedCache)) bySeed.set(seed, [...bySeed.get(seed) ?? [], carrier])
    for (const [seed, holding] of bySeed) {
      if (holding.length < 2 || holding.every((carrier) => carrier.target.steps.length === 0)) continue
      const comparison = comparisons.get(seed) ?? new SeedComparison(env, seed)
      comparisons.set(seed, comparison)
      const seedName = env.state.generation.seedOf(seed)?.display ?? 'the schema'
      const seedExamples = examplesOf(env, seed)
      const envelopes = holding.map((carrier) => comparison.envelopes(carrier.head))
      for (const [count, example] of seedExamples.entries()) {
        const all: Carried[] = []
        for (const [index, carrier] of holding.entries()) {
          const fitting = envelopes[index]
          const body = fitting.length === 0 ? undefined : comparison.placed(carrier.head, fitting[count % fitting.length], example.value)
          const carried = await replays.replayed(carrier, body, { seed, example: count })
          if (carried !== undefined) all.push(carried)
        }
        const [reference, ...others] = groupsOf(comparison, all, level)
        for (const other of others.flat()) {
          const finding = unalike(env, comparison, { reference: reference[0], other, seedName, example: example.value }, level)
          if (finding !== undefined) findings.add([seedName, other.carrier.name, other.carrier.target.part, reference[0].carrier.name, finding.changeVersion].join('\n'), finding.version, () => finding)
        }
        if (others.length > 0) break
      }
    }
  }
  return [...findings.byKey.values()].map((finding) => ({ ...finding, text: finding.versions.length > 1 ? finding.text.replace(`(${finding.version})`, `(${finding.version}; also ${finding.versions.slice(1).join(', ')})`) : finding.text }))
}
