/**
 * What `verify` reports about full replaces (decision 0073): on every route whose body replaces what it stores (`PUT`,
 * or the route option `fullReplace`), each HEAD body field a version lacks that the route's `fullReplace: { keeps }`
 * does not list (a replace from that version clears it), and each listed field no version of the route lacks. On a
 * partial update (a `PATCH` route that is not a full replace), each top-level field a version lacks that its request
 * converters set in every request of it: each one overwrites the stored value.
 * @module
 */
import { lackedFieldsIn } from '../routes/full-replace'
import { isPartialUpdate, updateWatch, valuesAtPointer, type SetBy, type Watch } from './verify-updates'
import { headPart, type RequestPlan, type VersionBehaviour } from '../routes/version-plan'
import type { HeadRoute, VersionerState } from '../routes/versioner-state'
import type { GenerationStep } from '../describe/versions'
import type { VerifyFinding } from './verify-replay'
import { servedRequest } from './validation-in-force'
import type { Check } from '../core/strict-validator'
import type { TSchema } from '@sinclair/typebox'

/**
 * A finding of kind `'replace clears'`: `pointer` is a HEAD body field that a full replace from `version` (and
 * `versions`) clears, lacked since the version change named; or, with `changeVersion` empty, a field the route's
 * `fullReplace: { keeps }` lists that no version of the route lacks. Of kind `'update overwrites'`: a HEAD body field
 * `version` lacks that its request converters set in every partial update (`PATCH`) from it.
 * @example
 * ```ts
 * declare const findings: VerifyFindings // what verify returned
 * const cleared = findings.filter((finding): finding is ReplaceFinding => finding.kind === 'replace clears')
 * for (const finding of cleared) console.error(`${finding.route}: a replace from ${finding.version} clears ${finding.pointer}`)
 * ```
 */
export type ReplaceFinding = Omit<VerifyFinding, 'kind'> & { readonly kind: 'replace clears' | 'update overwrites' }

/** What a full replace from a version clears, and how to fix it. */
const CLEARS = 'a full replace from this version clears it (its clients cannot send it): keep its stored value (fieldsTheVersionLacks(request) ' +
  'lists it) and list it in the route option fullReplace: { keeps: [...] }, or declare fullReplace: false if the route does not replace what it stores, ' +
  'or declare the field derivedFrom(...) if the request converters set it from what the clients of this version send'

/** A field declared derived that none of a version's request examples set: a full replace from it clears the field. */
const NEVER_SET = 'is declared derivedFrom(...), so fieldsTheVersionLacks(request) does not list it, but the request converters of this version set ' +
  'it in none of the examples: a full replace from this version clears it. Make the converter set it from what the client sends, or declare it ' +
  'didntExist and keep its stored value (or, when a { schema, field } source holds it in more than one place, name the one the converter ' +
  'sets with through)'

/**
 * A kept field the version's request converters set from what its clients send (values that differ from one example
 * to the next; a constant is a placeholder the handler replaces with the stored value).
 */
const SET_BY_CONVERTERS = 'the route option fullReplace keeps this field, which this version lacks, but its request converters set it from what ' +
  'the clients send (its value differs from one request example to the next): keeping the stored value throws away what they sent (an old ' +
  'client could never change it). Declare the field derivedFrom(...) so that fieldsTheVersionLacks(request) no longer lists it, and remove it from keeps'

/** A kept field no version lacks. */
const STALE = 'the route option fullReplace keeps this field, which no version of the route lacks (a typo, or a field every version has now): remove it from keeps'

/** A finding at `at`, lacked since `step` or set by its `converters` (`undefined`: a kept field no version lacks). */
function finding (at: Pick<VerifyFinding, 'route' | 'version' | 'part' | 'pointer'>, step: GenerationStep | undefined, message: string, converters: readonly string[] = []): ReplaceFinding & { versions: string[] } {
  return {
    ...at,
    versions: [at.version],
    direction: 'request',
    // Every other message is a partial update's (./verify-updates.ts).
    kind: [CLEARS, NEVER_SET, SET_BY_CONVERTERS, STALE].includes(message) ? 'replace clears' : 'update overwrites',
    message,
    changeVersion: step?.origin ?? '',
    versionChanges: step?.changes.map((change) => change.name) ?? [],
    converters: [...converters],
    example: undefined,
    text: ''
  }
}

/** The body slot of each request plan of a behaviour: `''` for the short form, else its media type. */
function plansOf (behaviour: VersionBehaviour): Array<readonly [string, RequestPlan]> {
  return behaviour.bodyPlans === undefined ? [['', behaviour]] : [...behaviour.bodyPlans.entries()]
}

/**
 * The newest level (1 to `level`) whose form of the body lacks `pointer` (with `derived`, leaves it out as derived):
 * the step before it removed the field.
 */
function levelLacking (state: VersionerState, head: HeadRoute, slot: string, at: { level: number, pointer: string, derived: boolean }): number {
  const body = headPart(head, 'body', slot)
  for (let level = 1; level < at.level; level++) {
    const derived = new Set<string>()
    const lacked = lackedFieldsIn(body, level, state.generation, derived)()
    if (at.derived ? derived.has(at.pointer) : lacked.includes(at.pointer)) return level
  }
  return at.level
}

/** Findings by route, part and pointer: the versions where each shows are listed on it. */
class ReplaceFindings {
  private readonly byKey = new Map<string, ReplaceFinding & { versions: string[] }>()

  constructor (private readonly state: VersionerState) {}

  /** Notes every field `plan` (of `behaviour`, body slot `slot`) lacks that `head` does not keep. */
  add (head: HeadRoute, behaviour: VersionBehaviour, slot: string, plan: RequestPlan): void {
    for (const pointer of plan.lackedFields()) if (!head.fullReplace.keeps.has(pointer)) this.note({ head, behaviour, slot, pointer, derived: false })
  }

  /**
   * Notes the field at `pointer` of a version's body: lacked (`derived` false), or declared derived and set by no
   * request example; a field already noted for another version lists this one too.
   */
  note ({ head, behaviour, slot, pointer, derived, set = false, message, by }: { head: HeadRoute, behaviour: VersionBehaviour, slot: string, pointer: string, derived: boolean, set?: boolean, message?: string, by?: SetBy }): void {
    const route = `${behaviour.state.methods.join(',')} ${behaviour.state.path}`
    const part = slot === '' ? 'body' : `body ${slot}`
    const key = [route, part, pointer, derived, set, message].join('\n')
    const known = this.byKey.get(key)
    if (known !== undefined) {
      known.versions.push(behaviour.version)
      return
    }
    const step = by === undefined ? this.state.steps[levelLacking(this.state, head, slot, { level: behaviour.level, pointer, derived }) - 1] : this.state.steps[by.step]
    this.byKey.set(key, finding({ route, version: behaviour.version, part, pointer }, step, message ?? (derived ? NEVER_SET : set ? SET_BY_CONVERTERS : CLEARS), by?.converters))
  }

  /** Notes the fields `head`'s `fullReplace: { keeps }` lists that none of its versions lacks (`lacked`: those they lack), if it serves any. */
  addStale (head: HeadRoute, lacked: ReadonlySet<string>): void {
    const versions = head.registered.flatMap((registered) => registered.behaviours.versions())
    if (versions.length === 0) return
    for (const pointer of head.fullReplace.keeps) {
      if (lacked.has(pointer)) continue
      this.byKey.set([head.display, 'keeps', pointer].join('\n'), { ...finding({ route: head.display, version: versions[0], part: 'body', pointer }, undefined, STALE), versions })
    }
  }

  list (): ReplaceFinding[] {
    return [...this.byKey.values()].map((found) => {
      const more = found.versions.length > 1 ? `; also ${found.versions.slice(1).join(', ')}` : ''
      const where = found.changeVersion === '' ? 'every version' : `${found.version}${more}`
      const lacked = found.converters.length === 0 ? 'lacked since' : `set by ${found.converters.join(', ')} of`
      const since = found.changeVersion === '' ? '' : `; ${found.message === NEVER_SET ? 'declared in' : lacked} ${found.versionChanges.join(', ')} (${found.changeVersion})`
      return { ...found, text: `${found.route} (${where}): request ${found.part}${found.pointer}: ${found.message}${since}` }
    })
  }
}

/**
 * Every `replace clears` finding of an application: the HEAD body fields each version of a full-replace route lacks
 * and its `fullReplace: { keeps }` does not list, one finding per route, part and field (the versions where it shows
 * listed on it, the version change that added the field named), and the kept fields no version lacks.
 */
export function replaceFindings (state: VersionerState): ReplaceFinding[] {
  const findings = new ReplaceFindings(state)
  for (const head of state.headRoutes) {
    if (!head.fullReplace.replaces) continue
    const lacked = new Set<string>()
    for (const registered of head.registered) {
      for (const behaviour of registered.behaviours.values()) {
        for (const [slot, plan] of plansOf(behaviour)) {
          for (const pointer of plan.lackedFields()) lacked.add(pointer)
          findings.add(head, behaviour, slot, plan)
        }
      }
    }
    findings.addStale(head, lacked)
  }
  return findings.list()
}

/** What a run of `verify` shares to check the fields declared `derivedFrom`: see {@link DerivedFields}. */
export interface DerivedEnvironment {
  readonly derived?: DerivedFields
}

/**
 * The fields declared `derivedFrom` on full-replace routes (decision 0110), watched over each version's request
 * examples migrated up to HEAD: a field no example of a version set is a `replace clears` finding, one per route,
 * body and field (the versions where it shows listed on it). And the lacked fields the route keeps: one the examples
 * of a version set to values that differ is the converters' to set, and keeping it is a finding (decision 0118).
 */
export class DerivedFields {
  private readonly findings: ReplaceFindings

  /** `compile`: the application's Ajv setup, as `verify` validates (HEAD's validation fills defaults with it: ./validation-in-force.ts). */
  constructor (private readonly state: VersionerState, private readonly compile: (schema: TSchema) => Check) {
    this.findings = new ReplaceFindings(state)
  }

  /**
   * A watch over the request examples of `behaviour` with a body of slot `slot`, when its route is a full replace with
   * derived fields, or a partial update (a `PATCH` that is not a full replace) whose version lacks a field, or both.
   */
  watch (head: HeadRoute, behaviour: VersionBehaviour, slot: string | undefined): Watch | undefined {
    const derived = new Set<string>()
    const partial = isPartialUpdate(head)
    if ((!head.fullReplace.replaces && !partial) || slot === undefined) return undefined
    const lacked = lackedFieldsIn(headPart(head, 'body', slot), behaviour.level, this.state.generation, derived)()
    const served = servedRequest(head.validation, this.compile, { validate: [['body', headPart(head, 'body', slot) as TSchema]], cleaners: [] })
    const update = partial ? updateWatch(this.state.generation, { head, behaviour, slot, served }, lacked, (pointer, message, by) => { this.findings.note({ head, behaviour, slot, pointer, derived: false, message, by }) }) : undefined
    // A route of a PUT and a PATCH both replaces and updates: its examples are watched as both.
    const replace = head.fullReplace.replaces ? this.replaces({ head, behaviour, slot }, lacked, derived) : undefined
    if (update === undefined || replace === undefined) return update ?? replace
    return {
      saw: (body, sent, trail) => { update.saw(body, sent, trail); replace.saw(body, sent) },
      done: () => { update.done(); replace.done() }
    }
  }

  /** A watch over a full replace's request examples: the derived fields none sets, the kept fields the converters set. */
  private replaces ({ head, behaviour, slot }: { head: HeadRoute, behaviour: VersionBehaviour, slot: string }, lacked: readonly string[], derived: Set<string>): Watch | undefined {
    // The JSON text of each value the examples set at a kept field.
    const kept = new Map(lacked.filter((pointer) => head.fullReplace.keeps.has(pointer)).map((pointer) => [pointer, new Set<string>()]))
    if (derived.size === 0 && kept.size === 0) return undefined
    const at = valuesAtPointer
    let seen = 0
    return {
      saw: (body, sent) => {
        seen++
        for (const pointer of derived) if (at(body, pointer).length > 0) derived.delete(pointer)
        // A value the client sent there itself (a union member that has the field) is not the converters'.
        for (const [pointer, values] of kept) if (at(sent, pointer).length === 0) for (const value of at(body, pointer)) values.add(JSON.stringify(value))
      },
      done: () => {
        if (seen > 0) for (const pointer of derived) this.findings.note({ head, behaviour, slot, pointer, derived: true })
        for (const [pointer, values] of kept) if (values.size > 1) this.findings.note({ head, behaviour, slot, pointer, derived: false, set: true })
      }
    }
  }

  list (): ReplaceFinding[] {
    return this.findings.list()
  }
}
