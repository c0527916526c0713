/**
 * `verify`: proves, on generated data, that every version of every versioned route and webhook migrates without
 * breaking its clients. Hundreds of examples per route, version and direction (./example-generation.ts: fast-check,
 * deterministic by seed, optional fields present and absent, every enum member) are replayed through the
 * converters as serving does (./verify-replay.ts): a request example of a version, validated as served first (its
 * defaults filled where the route's validator fills them: ./validation-in-force.ts), goes up to HEAD, a HEAD response
 * or webhook payload down to the version. After each version change the data must match the schema of the
 * version it reached, validated strictly (no type coercion), and every value that has somewhere to go must get
 * there (./data-flow.ts): a renamed field's value must reach its HEAD field, a HEAD field's value the old field.
 * Values sit on the boundaries where converters lose data first (./boundary-values.ts), none followed to the other
 * side may be dropped (./value-comparison.ts), a number and its twin's may not arrive as one (./verify-twins.ts), and
 * the alike items of a list arrive alike (./list-items.ts). A request field an old version declares with `existedAs`,
 * (body, query string or headers) which HEAD has no counterpart for, must reach HEAD or be taken out by a converter (./former-fields.ts). Where a route's response holds fields of its body, an
 * example must also come back from HEAD equal to what went up, in the response a handler echoing it would answer
 * (./echo-response.ts), and where it returns the schema it takes, a response sent back up must give HEAD its strings
 * back (./verify-trips.ts). One schema carried by several routes and webhooks must arrive alike through each (./verify-carriers.ts). One request per route and version that fails validation is sent through the application,
 * and a 400 its version's document does not describe is a finding (./verify-error-bodies.ts), as is a converter handing
 * one object to two bodies (./shared-objects.ts). Each finding names the route or webhook, the version, the direction, the version change at fault, the converters that ran there (or none), the JSON pointer and the value, says what went wrong and what to add or fix.
 * @module
 */
import type { FastifyInstance } from 'fastify'
import { NotReadyError } from '../core/errors'
import { shown } from './value-comparison'
import type { GenerationStep } from '../describe/versions'
import type { HeadRoute, VersionerState } from '../routes/versioner-state'
import { verifyRoute, verifyWebhook } from './verify-targets'
import { uncompilableRoute, uncompilableWebhook } from './verify-forms'
import type { ReplayIssue, Report, VerifyFinding as ReplayFinding } from './verify-replay'
import { inVersionOf } from './replay-infos'
import { pointerKey } from '../core/json-schema'
import { appAjvSetup } from '../core/strict-validator'
import { replayValidators } from './validation-in-force'
import type { UnverifiedPart } from './verify-coverage'
import { invalidExamples } from './export'
import { DerivedFields, replaceFindings, type ReplaceFinding } from './verify-replace'
import { stepChecks } from './verify-units'
import { singleApi, versionerStateOf } from './versioned-apis'
import { errorBodyFindings, type ErrorBodyFinding } from './verify-error-bodies'
import { converterLiterals } from './converter-literals'
import { carrierFindings, type CarrierFinding } from './verify-carriers'
import { HandedOut } from './shared-objects'
import { generationOptions } from './generation-options'

/**
 * One problem `verify` found: a replay's (./verify-replay.ts), a full replace's or partial update's (`'replace clears'`,
 * `'update overwrites'`, ./verify-replace.ts), an error body a version's document does not describe (`'error body'`,
 * ./verify-error-bodies.ts), or a schema two carriers convert differently (`'converted unalike'`, ./verify-carriers.ts).
 * @example
 * ```ts
 * declare const app: FastifyInstance // the application, ready
 * const onRoute = (findings: readonly VerifyFinding[], route: string): VerifyFinding[] => findings.filter((finding) => finding.route === route)
 * for (const finding of onRoute(await verify(app), 'POST /users')) console.error(finding.text)
 * ```
 */
export type VerifyFinding = ReplayFinding | ReplaceFinding | ErrorBodyFinding | CarrierFinding

/**
 * Options of `verify`.
 * @example
 * ```ts
 * declare const app: FastifyInstance // the application, ready
 * const options: VerifyOptions = { examples: 50, seed: 7 } // fewer examples, another seed
 * const findings = await verify(app, options)
 * ```
 */
export interface VerifyOptions {
  /** Examples generated per route, version, direction and part (default 200). */
  examples?: number
  /** The seed of the generation (default 1): the same seed replays the same examples. */
  seed?: number
}

/** What to add or fix, by the kind of finding, where no replay said it; `reached` as for {@link describe}. */
function fixOf (finding: Omit<VerifyFinding, 'text' | 'fix'>, reached: string): string {
  const ran = finding.converters.length === 0 ? undefined : finding.converters.join(', ')
  const side = finding.direction === 'request' ? 'request' : 'response'
  const changes = finding.versionChanges.join(', ')
  switch (finding.kind) {
    case 'converter failed': return `Fix ${ran ?? `the converters of ${changes}`}: it throws on the example.`
    case 'round trip': return finding.direction === 'request'
      ? `Make ${ran ?? `a request converter of ${changes}`} give back to HEAD what the response converters gave the version, so that a client sending back what it read changes nothing.`
      : `Make the request and response converters of ${changes} (${ran ?? 'none ran'}) inverse: what one changes the other restores.`
    case 'lost': return ran === undefined
      ? `Add a ${side} converter to ${changes} that moves the value to its counterpart, or declare the field removed if it is meant to go.`
      : `Make ${ran} carry the value to its counterpart unchanged, or declare the field removed if it is meant to go.`
    default: return finding.direction === 'request' && finding.part === 'params'
      // No converter changes a path parameter (the router matched it): the version must accept only what HEAD takes.
      ? `Path parameters cannot be converted: change the instructions of ${changes} so that ${finding.part}${finding.pointer} in this version accepts only what the schema of ${reached} accepts (the same type, and its constraints).`
      : `${ran === undefined ? `Add a ${side} converter to ${changes}` : `Fix ${ran}`} so that ${finding.part}${finding.pointer} matches the schema of ${reached}.`
  }
}

/** The value of an invalid finding, when it is a single value (not the object lacking a property): ` (the value 'x')`. */
function valueOf (finding: Omit<VerifyFinding, 'text'>): string {
  return typeof finding.value === 'object' || finding.value === undefined ? '' : ` (the value ${shown(finding.value)})`
}

/**
 * The finding on one line; `reached` is the version whose schema the data failed (`HEAD` included), `worded` true
 * when its message says what is wrong in the API's words (a HEAD enum member a version lacks).
 */
function describe (finding: Omit<VerifyFinding, 'text'>, { reached, worded }: { reached: string, worded: boolean }): string {
  const side = finding.direction === 'request' ? `request ${finding.part}` : finding.part
  const fails = reached === 'HEAD' ? 'fails HEAD validation' : `fails the schema of ${reached}`
  const what = ['lost', 'round trip', 'uncompilable', 'converted twice', 'shared object', 'wrong unit'].includes(finding.kind) || worded
    ? `${side}${finding.pointer}: ${finding.message.replace(/\.$/, '')}`
    : finding.kind === 'converter failed'
      ? `a converter failed: ${finding.message}`
      : finding.direction === 'request'
        ? `request ${finding.part}${finding.pointer} migrated up from ${finding.version} ${fails}: ${finding.message}${valueOf(finding)}`
        : `${finding.part}${finding.pointer} migrated down from HEAD ${fails}: ${finding.message}${valueOf(finding)}`
  const by = finding.converters.length === 0 ? 'no converter ran' : `converters ${finding.converters.join(', ')}`
  const changes = finding.versionChanges.length === 0 ? 'no version change' : finding.versionChanges.join(', ')
  const more = finding.versions.length > 1 ? `; also ${finding.versions.slice(1).join(', ')}` : ''
  return `${finding.route} (${finding.version}${more}): ${what}; first wrong after ${changes} (${finding.changeVersion}), ${by}. ${finding.fix ?? ''}`
}

/**
 * The version changes at fault for an issue, and the converters of theirs that ran: the changes an issue names (an
 * enum member's), else those of the step whose instructions name the field at its pointer (renamed, retyped, added
 * or removed there) when some but not all do, else every change of the step.
 */
function atFault (step: GenerationStep, issue: ReplayIssue): Pick<VerifyFinding, 'versionChanges' | 'converters'> {
  if (issue.changes !== undefined) return { versionChanges: issue.changes, converters: issue.converters }
  const field = issue.pointer.split('/').slice(1).map(pointerKey).filter((key) => key !== '*').at(-1)
  const same = (name: unknown): boolean => typeof name === 'string' && field !== undefined &&
    (issue.part === 'headers' ? name.toLowerCase() === field.toLowerCase() : name === field)
  const naming = step.changes.filter((change) => change.instructions.some((instruction) =>
    'field' in instruction && (same(instruction.field) || ('name' in instruction && same(instruction.name)))))
  if (naming.length === 0 || naming.length === step.changes.length) return { versionChanges: step.changes.map((change) => change.name), converters: issue.converters }
  return {
    versionChanges: naming.map((change) => change.name),
    converters: issue.converters.filter((converter) => naming.some((change) => converter.startsWith(`${change.name}.`)))
  }
}

/**
 * Collects findings, one per (route, direction, kind, part, pointer, change): the versions where it shows are listed on
 * it. Each shows the first example that shows it, unless that example's value is `''` and a later one of the same
 * version shows the same fault (the same fix) on a non-empty string: `'' arrives as '\n'` says less than
 * `'1 Main St' arrives as '1 Main St\n'`.
 */
class Findings {
  /** Each finding with the version whose schema the data failed (`HEAD` included). */
  private readonly byKey = new Map<string, Omit<VerifyFinding, 'text' | 'versions'> & { versions: string[], reached: string, worded: boolean }>()

  constructor (private readonly steps: readonly GenerationStep[], private readonly versionAt: (level: number) => string) {}

  readonly report: Report = (target, issue) => {
    const step = this.steps[issue.step]
    const key = [target.route, target.direction, issue.kind, issue.part, issue.pointer, step.origin].join('\n')
    const known = this.byKey.get(key)
    const clearer = known !== undefined && known.value === '' && known.version === target.version && typeof issue.value === 'string' && issue.value !== '' && issue.fix !== undefined && issue.fix === known.fix
    if (known !== undefined && !clearer) {
      if (!known.versions.includes(target.version)) known.versions.push(target.version)
      return
    }
    const finding = {
      route: target.route,
      version: target.version,
      versions: known?.versions ?? [target.version],
      direction: target.direction,
      kind: issue.kind,
      part: issue.part,
      pointer: issue.pointer,
      message: issue.message,
      value: issue.value,
      changeVersion: step.origin,
      ...atFault(step, issue),
      example: target.example,
      reached: issue.reached === 0 ? 'HEAD' : this.versionAt(issue.reached)
    }
    this.byKey.set(key, { ...finding, fix: issue.fix ?? fixOf(finding, finding.reached), worded: issue.changes !== undefined })
  }

  list (): VerifyFinding[] {
    return [...this.byKey.values()].map(({ reached, worded, ...finding }) => ({ ...finding, text: describe(finding, { reached, worded }) }))
  }
}

/**
 * A part `verify` could not check (no generated example passed its schema), in the versions where it could not.
 * @example
 * ```ts
 * declare const findings: VerifyFindings // what verify returned
 * for (const note of findings.unverified) console.warn(note.text) // a part no generated example reached
 * ```
 */
export type UnverifiedNote = Omit<UnverifiedPart, 'version'> & {
  /** Every version where it could not (newest first). */
  readonly versions: readonly string[]
  /** The note on one line: the route, versions, direction and part, and the reason. */
  readonly text: string
}

/** Collects the parts not verified, one per route, direction, part and reason: the versions are listed on it. */
class Unverified {
  private readonly byKey = new Map<string, Omit<UnverifiedPart, 'version'> & { versions: string[] }>()

  readonly add = ({ version, ...part }: UnverifiedPart): void => {
    const key = [part.route, part.direction, part.part, part.reason].join('\n')
    const known = this.byKey.get(key)
    if (known === undefined) this.byKey.set(key, { ...part, versions: [version] })
    else if (!known.versions.includes(version)) known.versions.push(version)
  }

  list (): UnverifiedNote[] {
    return [...this.byKey.values()].map((part) => ({
      ...part,
      text: `${part.route} (${part.versions.join(', ')}): ${part.direction === 'request' ? 'request ' : ''}${part.part} not verified: ${part.reason}.`
    }))
  }
}

/**
 * What `verify` answers: the findings (none when every version migrates cleanly), how many examples it replayed, and
 * the parts it could not check.
 * @example
 * ```ts
 * declare const app: FastifyInstance // the application, ready
 * const findings: VerifyFindings = await verify(app)
 * console.log(`${findings.length} findings in ${findings.replayed} examples; ${findings.unverified.length} parts unverified`)
 * ```
 */
export type VerifyFindings = VerifyFinding[] & {
  /** The number of generated examples replayed (requests, responses, payloads and round trips). */
  readonly replayed: number
  /** The route (or webhook) parts no generated example passed the schema of: nothing of them was replayed. */
  readonly unverified: readonly UnverifiedNote[]
}

/**
 * Replays generated examples (200 per route, version, direction and part by default, deterministic by `seed`) of
 * every versioned route and webhook of the API through its converters (requests up, responses down) and returns what
 * fails: data that does not match the schema of the version it reached, values that do not arrive, round trips that
 * do not come back, converters that throw, 400s for an invalid request (one per route and version, sent through
 * `app.inject`: the hooks before validation run) whose body the version's document refuses; and (`unverified`) the
 * parts it could not check, no generated example passing
 * their schema. An empty list and no `unverified` part when every version migrates cleanly. After `app.ready()`;
 * `app` is the application with one versioned API, or one API's context (`FST_VERSIONER_TOOL` on a root holding
 * several: the command runs each).
 * @example
 * ```ts
 * import { verify } from 'fastify-versioner/tools'
 * declare const app: FastifyInstance // the application, with the plugin registered
 * await app.ready()
 * const findings = await verify(app, { examples: 500, seed: 7 })
 * ```
 */
export async function verify (app: FastifyInstance, options: VerifyOptions = {}): Promise<VerifyFindings> {
  const { context: fastify } = singleApi(app, 'verify')
  const state = versionerStateOf(fastify)
  if (!state.ready) throw new NotReadyError('verify(app)')
  const resolveRef = Object.assign((ref: string): unknown => state.generation.resolveAnyId(ref) ?? fastify.getSchema(ref.replace(/#$/, '')), { unionMatchers: new WeakMap() })
  const findings = new Findings(state.steps, (level) => state.versionAt(level))
  const unverified = new Unverified()
  const validators = replayValidators(resolveRef, appAjvSetup(fastify))
  const derived = new DerivedFields(state, validators.compile)
  const env = { derived, state, generation: state.generation, pairings: new Map(), examples: new Map(), resolveRef, ...validators, unverified: unverified.add, steps: state.steps, literalsOf: converterLiterals(state.options.versions.versions), alikeIssues: stepChecks({ steps: state.steps, generation: state.generation, resolveRef, versionAt: (level) => state.versionAt(level) }), ...generationOptions('verify', options, 200), report: findings.report, replayed: 0, inVersion: inVersionOf(state), handedOut: new HandedOut() }
  for (const head of state.headRoutes as readonly HeadRoute[]) {
    for (const registered of head.registered) {
      for (const behaviour of registered.behaviours.values()) if (!uncompilableRoute(env, head, behaviour)) await verifyRoute(env, head, behaviour)
    }
  }
  const webhooks = fastify.versioner.webhooks.list().filter((webhook) => !uncompilableWebhook(env, webhook))
  for (const webhook of webhooks) await verifyWebhook(env, webhook)
  const list = [...findings.list(), ...await carrierFindings(env, webhooks), ...replaceFindings(state), ...derived.list(), ...exampleFindings(fastify, state), ...await errorBodyFindings(fastify, state)]
  return Object.defineProperties(list, { replayed: { value: env.replayed }, unverified: { value: unverified.list() } }) as VerifyFindings
}

/** Every example of every version's OpenAPI document that fails its own schema (see ./export.ts). */
function exampleFindings (fastify: FastifyInstance, state: VersionerState): VerifyFinding[] {
  const found: VerifyFinding[] = []
  for (const version of state.options.versions.versionValues) {
    const document = fastify.versioner.openapi(version)
    if (document === undefined) continue
    for (const { pointer, message } of invalidExamples(document, { ajv: appAjvSetup(fastify) })) {
      found.push({
        route: 'document',
        version,
        versions: [version],
        direction: 'response',
        kind: 'invalid example',
        part: 'document',
        pointer,
        message,
        value: undefined,
        fix: 'Give the schema its examples in that version with schema(S).had({ examples }), or a response converter that migrates them.',
        changeVersion: '',
        versionChanges: [],
        converters: [],
        example: undefined,
        text: `document (${version}): the example at ${pointer} fails its schema: ${message}; give the schema its examples in that version ` +
          'with schema(S).had({ examples }), or a response converter that migrates them'
      })
    }
  }
  return found
}
