/**
 * What `verify` reports about full replaces (decision 0073): on every route whose body replaces what it stores (`PUT`,
 * or the route option `fullReplace`), each HEAD body field a version lacks that the route's `fullReplace: { keeps }`
 * does not list (a replace from that version clears it), and each listed field no version of the route lacks.
 * @module
 */
import { lackedFieldsOf } from '../routes/full-replace'
import { headPart, type RequestPlan, type VersionBehaviour } from '../routes/version-plan'
import type { HeadRoute, VersionerState } from '../routes/versioner-state'
import type { GenerationStep } from '../describe/versions'
import type { VerifyFinding } from './verify-replay'

/**
 * A finding of kind `'replace clears'`: `pointer` is a HEAD body field that a full replace from `version` (and
 * `versions`) clears, lacked since the version change named; or, with `changeVersion` empty, a field the route's
 * `fullReplace: { keeps }` lists that no version of the route lacks.
 */
export type ReplaceFinding = Omit<VerifyFinding, 'kind'> & { readonly kind: 'replace clears' }

/** What a full replace from a version clears, and how to fix it. */
const CLEARS = 'a full replace from this version clears it (its clients cannot send it): keep its stored value (fieldsTheVersionLacks(request) ' +
  'lists it) and list it in the route option fullReplace: { keeps: [...] }, or declare fullReplace: false if the route does not replace what it stores, ' +
  'or declare the field derivedFrom(...) if the request converters set it from what the clients of this version send'

/** A kept field no version lacks. */
const STALE = 'the route option fullReplace keeps this field, which no version of the route lacks (a typo, or a field every version has now): remove it from keeps'

/** A finding at `at`, lacked since `step` (`undefined`: a kept field no version lacks). */
function finding (at: Pick<VerifyFinding, 'route' | 'version' | 'part' | 'pointer'>, step: GenerationStep | undefined, message: string): ReplaceFinding & { versions: string[] } {
  return {
    ...at,
    versions: [at.version],
    direction: 'request',
    kind: 'replace clears',
    message,
    changeVersion: step?.origin ?? '',
    versionChanges: step?.changes.map((change) => change.name) ?? [],
    converters: [],
    example: undefined,
    text: ''
  }
}

/** The body slot of each request plan of a behaviour: `''` for the short form, else its media type. */
function plansOf (behaviour: VersionBehaviour): Array<readonly [string, RequestPlan]> {
  return behaviour.bodyPlans === undefined ? [['', behaviour]] : [...behaviour.bodyPlans.entries()]
}

/** The newest level (1 to `level`) whose form of the body lacks `pointer`: the step before it removed the field. */
function levelLacking (state: VersionerState, head: HeadRoute, slot: string, at: { level: number, pointer: string }): number {
  const body = headPart(head, 'body', slot)
  for (let level = 1; level < at.level; level++) if (lackedFieldsOf(body, level, state.generation).includes(at.pointer)) return level
  return at.level
}

/** Findings by route, part and pointer: the versions where each shows are listed on it. */
class ReplaceFindings {
  private readonly byKey = new Map<string, ReplaceFinding & { versions: string[] }>()

  constructor (private readonly state: VersionerState) {}

  /** Notes every field `plan` (of `behaviour`, body slot `slot`) lacks that `head` does not keep. */
  add (head: HeadRoute, behaviour: VersionBehaviour, slot: string, plan: RequestPlan): void {
    const route = `${behaviour.state.methods.join(',')} ${behaviour.state.path}`
    const part = slot === '' ? 'body' : `body ${slot}`
    for (const pointer of plan.lackedFields) {
      if (head.fullReplace.keeps.has(pointer)) continue
      const key = [route, part, pointer].join('\n')
      const known = this.byKey.get(key)
      if (known !== undefined) {
        known.versions.push(behaviour.version)
        continue
      }
      const step = this.state.steps[levelLacking(this.state, head, slot, { level: behaviour.level, pointer }) - 1]
      this.byKey.set(key, finding({ route, version: behaviour.version, part, pointer }, step, CLEARS))
    }
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
      const since = found.changeVersion === '' ? '' : `; lacked since ${found.versionChanges.join(', ')} (${found.changeVersion})`
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
          for (const pointer of plan.lackedFields) lacked.add(pointer)
          findings.add(head, behaviour, slot, plan)
        }
      }
    }
    findings.addStale(head, lacked)
  }
  return findings.list()
}
