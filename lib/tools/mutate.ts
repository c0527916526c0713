/**
 * `mutate`: a mutation score for an application's converters. A first run of `verify`'s replays (every route version
 * and webhook) and of the recorded traffic, if given, notes what each converter does and where it runs
 * (./converter-effects.ts); each converter then gets its mutants (./mutants.ts), and each mutant is run through the
 * replays of the routes, webhooks and recorded exchanges where its converter ran, until one reports something the
 * first run did not (killed). A mutant that changed no result of its converter on any data seen is equivalent for
 * that data, and left out of the score (docs/decisions/0085-converter-mutation-score.md).
 * @module
 */
import type { FastifyInstance } from 'fastify'
import { appAjvSetup } from '../core/strict-validator'
import { replayValidators } from './validation-in-force'
import type { ConverterDescriptor } from '../describe/version-change-reader'
import type { VersionerState } from '../routes/versioner-state'
import type { PlaceEffect } from './converter-effects'
import { mutantRun, mutantsOf, observingRun, type Mutant, type MutantOperator, type MutantState } from './mutants'
import { replayTraffic, type ReplayFinding } from './replay-traffic'
import type { DeliveryLine, TrafficLine } from './traffic-file'
import type { Report } from './verify-replay'
import { inVersionOf } from './replay-infos'
import type { ConverterRun } from './converter-tracking'
import { verifyRoute, verifyWebhook } from './verify-targets'
import { stepChecks } from './verify-units'
import { converterLiterals } from './converter-literals'
import { selectApis, versionerStateOf } from './versioned-apis'
import { generationOptions } from './generation-options'
import { mutateTrafficOptions } from './traffic-arguments'

/**
 * Options of {@link mutateConverters}.
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises'
 * declare const app: FastifyInstance
 * const { exchanges, deliveries } = readTraffic(await readFile('traffic.ndjson', 'utf8'))
 * const options: MutateOptions = { traffic: exchanges, deliveries, examples: 50, seed: 7 }
 * const report = await mutateConverters(app, options)
 * ```
 */
export interface MutateOptions {
  /** Recorded exchanges (`readTraffic(...).exchanges`), replayed against each mutant too. */
  readonly traffic?: readonly TrafficLine[]
  /** Recorded webhook renders (`readTraffic(...).deliveries`), rendered again by each mutant too. */
  readonly deliveries?: readonly DeliveryLine[]
  /** verify's examples per route, version, direction and part for each mutant (default 20). */
  readonly examples?: number
  /** verify's seed (default 1). */
  readonly seed?: number
  /** The one API to mutate (its name or prefix), when the application has several. */
  readonly api?: string
}

/**
 * What became of one mutant.
 * @example
 * ```ts
 * declare const report: MutationReport
 * const survived: MutantVerdict[] = report.mutants.filter((mutant) => mutant.verdict === 'survived')
 * for (const mutant of survived) console.log(`${mutant.version} ${mutant.converter}: ${mutant.description} survived; test that converter`)
 * ```
 */
export interface MutantVerdict {
  /** `AmountsInCents.totalFromCents: number rounded at body/total`. */
  readonly description: string
  readonly versionChange: string
  /** The version holding the version change (`'head'` for `HeadVersion`). */
  readonly version: string
  /** `Class.method`. */
  readonly converter: string
  readonly operator: MutantOperator
  /** `killed` (by `verify` or `replay`: `killedBy`), `survived`, or `equivalent` (it changed no result on the data seen). */
  readonly verdict: 'killed' | 'survived' | 'equivalent'
  readonly killedBy?: 'verify' | 'replay'
  /** The first thing that killed it: verify's finding (route, direction, part and pointer) or replay's line. */
  readonly detail?: string
}

/**
 * What `mutate` found.
 * @example
 * ```ts
 * declare const app: FastifyInstance
 * const report: MutationReport = await mutateConverters(app)
 * console.log(`score ${report.score ?? 'n/a'} %: ${report.killed} killed, ${report.survived} survived, ${report.equivalent} equivalent`)
 * ```
 */
export interface MutationReport {
  /** Killed mutants among the non-equivalent ones, in percent; `undefined` when every mutant is equivalent. */
  readonly score: number | undefined
  readonly mutants: readonly MutantVerdict[]
  readonly killed: number
  readonly survived: number
  readonly equivalent: number
  /**
   * What verify and replay reported on the converters as they are: a mutant is killed only by a finding at another
   * place (route, version, side, part and pointer; for replay, line).
   */
  readonly baseline: { readonly verify: number, readonly replay: number }
  readonly milliseconds: number
}

/** Thrown from a report to stop a replay at the first new finding. */
class Killed {
  constructor (readonly detail: string) {}
}

/** Recorded exchanges of one route, version and status, or renders of one webhook. */
interface TrafficGroup {
  readonly exchanges: TrafficLine[]
  readonly deliveries: DeliveryLine[]
}

/** The replays of one API, by target: each route version and webhook of verify, and each group of recorded traffic. */
interface Targets {
  readonly verify: Array<(run: ConverterRun, report: Report) => Promise<void>>
  readonly traffic: TrafficGroup[]
}

function targetsOf (context: FastifyInstance, state: VersionerState, options: MutateOptions): Targets {
  const resolveRef = (ref: string): unknown => state.generation.resolveAnyId(ref) ?? context.getSchema(ref.replace(/#$/, ''))
  const base = {
    state,
    generation: state.generation,
    pairings: new Map(),
    examples: new Map(),
    resolveRef,
    ...replayValidators(resolveRef, appAjvSetup(context)),
    steps: state.steps,
    literalsOf: converterLiterals(state.options.versions.versions),
    alikeIssues: stepChecks({ steps: state.steps, generation: state.generation, resolveRef, versionAt: (level) => state.versionAt(level) }),
    ...generationOptions('mutateConverters', options, 20),
    inVersion: inVersionOf(state)
  }
  const verify: Targets['verify'] = []
  for (const head of state.headRoutes) {
    for (const registered of head.registered) {
      for (const behaviour of registered.behaviours.values()) verify.push((runConverter, report) => verifyRoute({ ...base, runConverter, report, replayed: 0 }, head, behaviour))
    }
  }
  for (const webhook of context.versioner.webhooks.list()) verify.push((runConverter, report) => verifyWebhook({ ...base, runConverter, report, replayed: 0 }, webhook))
  // Exchanges grouped by route, version and status, renders by webhook: a mutant replays the groups where its converter ran.
  const groups = new Map<string, TrafficGroup>()
  const groupOf = (key: string): TrafficGroup => groups.get(key) ?? groups.set(key, { exchanges: [], deliveries: [] }).get(key) as TrafficGroup
  for (const line of options.traffic ?? []) {
    const { route, version, handlerResponse } = line.exchange
    groupOf(`${route.method} ${route.url}\n${version}\n${handlerResponse.status}`).exchanges.push(line)
  }
  for (const line of options.deliveries ?? []) groupOf(`webhook ${line.delivery.webhook.name}`).deliveries.push(line)
  return { verify, traffic: [...groups.values()] }
}

/** The place of a replay finding (line, side, kind, part, pointer), to tell a mutant's findings from the first run's. */
function placeOf (finding: ReplayFinding): string {
  return [finding.line, finding.direction, finding.kind, finding.part, finding.pointer].join('\n')
}

/** The place of a verify finding, to tell a mutant's findings from the first run's. */
type Keyed = Parameters<Report>
function keyOf (...[target, issue]: Keyed): string {
  return [target.route, target.version, target.direction, issue.kind, issue.part, issue.pointer].join('\n')
}

/** Where each converter ran (verify targets by index, traffic groups by index), what it did, and the first run's findings. */
interface Discovery {
  readonly effects: Map<ConverterDescriptor, Map<string, PlaceEffect>>
  readonly verifyAt: Map<ConverterDescriptor, Set<number>>
  readonly trafficAt: Map<ConverterDescriptor, Set<number>>
  readonly verifyFindings: Set<string>
  readonly replayFindings: Set<string>
}

async function discover (app: FastifyInstance, targets: Targets, api: string | undefined): Promise<Discovery> {
  const found: Discovery = { effects: new Map(), verifyAt: new Map(), trafficAt: new Map(), verifyFindings: new Set(), replayFindings: new Set() }
  let at: { map: Map<ConverterDescriptor, Set<number>>, index: number } = { map: found.verifyAt, index: 0 }
  const run = observingRun(found.effects, (converter) => {
    let set = at.map.get(converter)
    if (set === undefined) at.map.set(converter, set = new Set())
    set.add(at.index)
  })
  for (let index = 0; index < targets.verify.length; index++) {
    at = { map: found.verifyAt, index }
    await targets.verify[index](run, (target, issue) => { found.verifyFindings.add(keyOf(target, issue)) })
  }
  for (let index = 0; index < targets.traffic.length; index++) {
    at = { map: found.trafficAt, index }
    const report = await replayTraffic(app, targets.traffic[index], { api }, run)
    for (const finding of report.findings) found.replayFindings.add(placeOf(finding))
  }
  return found
}

/** Runs one mutant through the replays where its converter ran: what killed it, if anything, and whether it changed anything. */
async function judge (app: FastifyInstance, mutant: Mutant, at: { targets: Targets, discovery: Discovery, api: string | undefined }): Promise<Pick<MutantVerdict, 'verdict' | 'killedBy' | 'detail'>> {
  const { targets, discovery } = at
  const state: MutantState = { changed: false }
  const run = mutantRun(mutant, state)
  for (const index of discovery.trafficAt.get(mutant.converter) ?? []) {
    const report = await replayTraffic(app, targets.traffic[index], { api: at.api }, run)
    const fresh = report.findings.find((finding) => !discovery.replayFindings.has(placeOf(finding)))
    if (fresh !== undefined) return { verdict: 'killed', killedBy: 'replay', detail: fresh.text }
  }
  const report: Report = (target, issue) => {
    if (!discovery.verifyFindings.has(keyOf(target, issue))) throw new Killed(`${target.route} (${target.version}) ${target.direction} ${issue.part}${issue.pointer}: ${issue.kind}`)
  }
  for (const index of discovery.verifyAt.get(mutant.converter) ?? []) {
    try {
      await targets.verify[index](run, report)
    } catch (error) {
      if (error instanceof Killed) return { verdict: 'killed', killedBy: 'verify', detail: error.detail }
      throw error
    }
  }
  return { verdict: state.changed ? 'survived' : 'equivalent' }
}

/**
 * Mutates the converters of a readied application and reports which mutants `verify` and the recorded traffic kill.
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises'
 * declare const app: FastifyInstance // the application, ready
 * const report = await mutateConverters(app, { traffic: readTraffic(await readFile('exchanges.ndjson', 'utf8')).exchanges })
 * console.log(`${report.score ?? 100} %`, report.mutants.filter((mutant) => mutant.verdict === 'survived'))
 * ```
 */
export async function mutateConverters (app: FastifyInstance, options: MutateOptions = {}): Promise<MutationReport> {
  mutateTrafficOptions(options)
  const started = performance.now()
  const verdicts: MutantVerdict[] = []
  const baseline = { verify: 0, replay: 0 }
  for (const api of selectApis(app, options.api)) {
    const state = versionerStateOf(api.context)
    const targets = targetsOf(api.context, state, options)
    const discovery = await discover(app, targets, api.name)
    baseline.verify += discovery.verifyFindings.size
    baseline.replay += discovery.replayFindings.size
    for (const [converter, effects] of discovery.effects) {
      for (const mutant of mutantsOf(converter, effects)) {
        const verdict = await judge(app, mutant, { targets, discovery, api: api.name })
        verdicts.push({
          description: mutant.description, versionChange: converter.change.name, version: converter.change.version, converter: converter.display, operator: mutant.operator, ...verdict
        })
      }
    }
  }
  const killed = verdicts.filter((verdict) => verdict.verdict === 'killed').length
  const survived = verdicts.filter((verdict) => verdict.verdict === 'survived').length
  return {
    score: killed + survived === 0 ? undefined : Math.floor(killed / (killed + survived) * 1000) / 10,
    mutants: verdicts,
    killed,
    survived,
    equivalent: verdicts.length - killed - survived,
    baseline,
    milliseconds: Math.round(performance.now() - started)
  }
}
