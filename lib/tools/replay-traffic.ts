/**
 * `replay`: recorded traffic (exchanges `captureExchanges` published, one a line) replayed through the converters of
 * the application as it is now, with no handler and no database (./replay-exchange.ts). Each recorded request
 * migrated to HEAD must equal what the handler received then, and each recorded HEAD response migrated to the
 * recorded version must equal what the client received then. A finding names the line, the version, the route, the
 * version change whose converters last changed the place (or those on the way, when none did) and the first JSON
 * pointer that differs. A place holding a redacted value is not compared (docs/decisions/0084-captured-exchanges.md).
 * @module
 */
import type { FastifyInstance } from 'fastify'
import type { TSchema } from '@sinclair/typebox'
import { NotReadyError } from '../core/errors'
import { appAjvSetup, formatPatterns } from '../core/strict-validator'
import type { GenerationStep } from '../describe/versions'
import type { HeadRoute } from '../routes/versioner-state'
import { REDACTED } from '../values/redaction'
import { replayRequest, replayResponse, type ExchangeReplayer, type Replayed, type ReplayedAt, type Stopped } from './replay-exchange'
import { atFault, replayDeliveries } from './replay-webhooks'
import { serverFailure, type RecordedExchange, type RecordedRefusal, type Traffic } from './traffic-file'
import { refusalChange } from './replay-refusals'
import { compareRecorded, madeFromRedacted } from './value-difference'
import { SECOND_STAND_IN, stopsAlike } from './redacted-stand-ins'
import { shown } from './value-comparison'
import type { ConverterRun } from './converter-tracking'
import { selectApis, versionerStateOf } from './versioned-apis'
import type { NotReplayed, ReplayFinding, ReplayReport, ReplayTrafficOptions } from './replay-report'
import { handlerUrl, withAnswers } from './handler-answers'
import type { HandlerExchange } from './handler-replay'
import { replayTrafficArgument } from './traffic-arguments'

export type { NotReplayed, ReplayFinding, ReplayReport, ReplayTrafficOptions } from './replay-report'

/** A HEAD route of one API, how its exchanges are replayed, and the level of each of its API's versions. */
interface RouteEntry {
  /** The name of the API serving it. */
  readonly api: string
  readonly head: HeadRoute
  readonly replayer: ExchangeReplayer
  readonly levelOf: (version: string) => number | undefined
}

/**
 * The HEAD routes of the application by `METHOD url`, each with its API's replayer; `own` the picked APIs' contexts;
 * `moved(version, key)`, the route whose `METHOD url` was `key` in `version` (HEAD's then, for traffic an older
 * release recorded while it was the newest version).
 */
function routeIndex (app: FastifyInstance, options: ReplayTrafficOptions, runConverter: ConverterRun | undefined): {
  routes: Map<string, RouteEntry>, own: Set<FastifyInstance>, moved: (version: string, key: string) => RouteEntry | undefined
} {
  const routes = new Map<string, RouteEntry>()
  const own = new Set(selectApis(app, options.api).map((api) => api.context))
  const formats = formatPatterns(appAjvSetup(app))
  for (const api of selectApis(app)) {
    const state = versionerStateOf(api.context)
    // Before ready(), no route is known yet: every exchange would pass as not found elsewhere, a silent pass.
    if (!state.ready) throw new NotReadyError('replayTraffic(app)')
    const storage = state.storesVersion ? state.options.versions : undefined
    const resolveRef = (ref: string): unknown => state.generation.resolveAnyId(ref) ?? api.context.getSchema(ref.replace(/#$/, ''))
    const replayer: ExchangeReplayer = { context: api.context, steps: state.steps, runConverter, validators: new Map<TSchema, never>(), serializers: new Map<TSchema, never>(), storage, resolveRef, formats }
    const levels = new Map(state.options.versions.versionValues.map((version, index) => [version, index + 1]))
    const levelOf = (version: string): number | undefined => levels.get(version)
    for (const head of state.headRoutes) for (const method of head.methods) routes.set(`${method} ${head.path}`, { api: api.name, head, replayer, levelOf })
  }
  // By version, the routes by the `METHOD url` each had in it (computed for the versions asked).
  const byVersion = new Map<string, Map<string, RouteEntry>>()
  const moved = (version: string, key: string): RouteEntry | undefined => {
    let found = byVersion.get(version)
    if (found === undefined) {
      byVersion.set(version, found = new Map())
      for (const entry of new Set(routes.values())) {
        const then = entry.head.timeline[entry.levelOf(version) ?? 0]
        if (then?.exists === true) for (const method of then.methods) found.set(`${method} ${then.path}`, entry)
      }
    }
    return found.get(key)
  }
  return { routes, own, moved }
}

/** The finding of a side that differs from what was recorded, if it does (redacted places passed over, counted in `count`). */
function differenceOf (
  steps: readonly GenerationStep[], side: Replayed, recorded: Readonly<Record<string, unknown>>, count: { redacted: number }
): Omit<Pending, 'line' | 'version' | 'route' | 'direction'> | undefined {
  for (const part of Object.keys(side.parts)) {
    const { difference, redacted } = compareRecorded(recorded[part], side.parts[part])
    count.redacted += redacted
    if (difference === undefined) continue
    return { kind: 'differs', part, pointer: difference.pointer, recorded: difference.recorded, replayed: difference.replayed, ...atFault(steps, side, part, difference.pointer) }
  }
  return undefined
}

/** The finding on one line. */
function describe (finding: Omit<ReplayFinding, 'text'>, origin: string): string {
  const where = `line ${finding.line}: ${finding.route} (${finding.version}): ${finding.direction}`
  const who = finding.direction === 'request' ? 'the handler received' : 'the client received'
  const changes = finding.versionChanges.length === 0 ? '' : `${finding.versionChanges.join(', ')}${origin === '' ? '' : ` (${origin})`}`
  const by = finding.converters.length === 0
    ? changes === '' ? '' : `; no converter changed it on the way (${changes})`
    : `; changed last by ${changes}, converter${finding.converters.length === 1 ? '' : 's'} ${finding.converters.join(', ')}`
  if (finding.kind === 'now accepted' || finding.kind === 'refused otherwise') {
    return `${where}: ${finding.kind}: the client was refused ${String(finding.recorded)}; ${finding.kind === 'now accepted' ? String(finding.replayed) : `now refused ${String(finding.replayed)}`}.`
  }
  if (finding.kind === 'converter failed' && typeof finding.recorded === 'string') return `${where}: ${finding.kind}: the client was refused ${finding.recorded}; now ${String(finding.replayed)}.`
  if (finding.kind !== 'differs') return `${where}${finding.part === '' ? '' : ` ${finding.part}`}: ${finding.kind}: ${String(finding.replayed)}${by}.`
  const recorded = finding.recorded === undefined ? 'nothing' : shown(finding.recorded)
  const replayed = finding.replayed === undefined ? 'nothing' : shown(finding.replayed)
  return `${where} ${finding.part}${finding.pointer}: ${who} ${recorded}, the converters now give ${replayed}${by}.`
}

/**
 * True when what the converters of one side read holds a redacted value (their replay may stop on it): the request as
 * sent, or the response as returned (response converters see nothing of the request, such as its redacted `Authorization`).
 */
function holdsRedacted (exchange: RecordedExchange, direction: ReplayFinding['direction']): boolean {
  return JSON.stringify(direction === 'request' ? exchange.clientRequest : exchange.handlerResponse).includes(REDACTED)
}

/**
 * Where an exchange stands: its route entry and behaviour, or why it cannot be replayed. Its route is the one that
 * had its path in the version that was the newest when it was recorded (a later release may have moved it), else the
 * HEAD route at its path.
 */
function locate (index: ReturnType<typeof routeIndex>, exchange: Pick<RecordedExchange, 'route' | 'latest' | 'version'>): { entry: RouteEntry, at: Omit<ReplayedAt, 'newest'>, served: string } | string {
  const method = exchange.route.method.split(',')[0]
  const key = `${method} ${exchange.route.url}`
  const entry = (exchange.latest === undefined ? undefined : index.moved(exchange.latest, key)) ?? index.routes.get(key)
  if (entry === undefined) return `the application has no route ${exchange.route.method} ${exchange.route.url}`
  const served = entry.head.registered.find((route) => route.behaviours.has(exchange.version))
  const behaviour = served?.behaviours.get(exchange.version)
  if (served === undefined || behaviour === undefined) {
    const retired = entry.levelOf(exchange.version) === undefined ? ', which the application does not have (retired? then remove its exchanges from the traffic file)' : ''
    return `${entry.head.display} is not served in version ${exchange.version}${retired}`
  }
  return { entry, at: { behaviour, method, url: entry.head.registered[0]?.url ?? entry.head.path }, served: served.url }
}

/**
 * Replays recorded exchanges (`readTraffic` of a traffic file) through the converters of a readied application:
 * findings (none when every exchange migrates as recorded), and what was not compared. `runConverter` is how
 * converters run (`mutate` runs its mutants through it; the converters themselves by default).
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises'
 * declare const app: FastifyInstance // the application, ready
 * const report = await replayTraffic(app, readTraffic(await readFile('exchanges.ndjson', 'utf8')))
 * for (const finding of report.findings) console.error(finding.text)
 * ```
 */
export async function replayTraffic (
  app: FastifyInstance, traffic: Pick<Traffic, 'exchanges'> & Partial<Pick<Traffic, 'deliveries' | 'refusals'>>, options: ReplayTrafficOptions = {}, runConverter?: ConverterRun
): Promise<ReplayReport> {
  replayTrafficArgument(traffic)
  const index = routeIndex(app, options, runConverter)
  const { own } = index
  const findings: ReplayFinding[] = []
  const notReplayable: NotReplayed[] = []
  const count = { redacted: 0, replayed: 0, otherApis: 0 }
  // Every exchange is sent to the handlers (those of other APIs too: they make state); those of the picked APIs judged.
  const sent: HandlerExchange[] = []
  const byLine = (first: { line: number }, second: { line: number }): number => first.line - second.line
  // Refused exchanges (decision 0307) among the others, in the file's order: the handlers are sent them in it.
  const lines = [...traffic.exchanges, ...(traffic.refusals ?? []).map(({ line, refusal }) => ({ line, exchange: refusal }))].sort(byLine)
  for (const { line, exchange } of lines) {
    const found = locate(index, exchange)
    const base = { line, version: exchange.version, route: `${exchange.route.method} ${exchange.route.url}` }
    const url = typeof found === 'string' ? { skipped: undefined } : handlerUrl(exchange, found.served)
    sent.push({ line, exchange, url, judged: typeof found !== 'string' && own.has(found.entry.replayer.context), api: typeof found === 'string' ? undefined : found.entry.api })
    if (typeof found !== 'string' && !own.has(found.entry.replayer.context)) {
      count.otherApis++
      continue
    }
    count.replayed++
    // Recorded by an older release: its data is that release's HEAD, the newest version's then (1: now's).
    const newest = typeof found === 'string' || exchange.latest === undefined ? 1 : found.entry.levelOf(exchange.latest)
    const skipped = newest === undefined
      ? `recorded when ${String(exchange.latest)} was the newest version, which the application no longer has`
      : 'refused' in exchange ? unreplayedRefusal(exchange) : serverFailure(exchange)
    if (newest === undefined || skipped !== undefined) {
      notReplayable.push({ ...base, message: String(skipped) })
      continue
    }
    const finding = typeof found === 'string'
      ? { ...base, direction: 'request' as const, kind: 'unknown route' as const, part: '', pointer: '', replayed: found, versionChanges: [], converters: [], origin: '' }
      : await replayEither({ ...found, at: { ...found.at, newest: Math.min(newest, found.at.behaviour.level) }, exchange, base, count, notReplayable })
    if (finding === undefined) continue
    const { origin, ...rest } = finding
    findings.push({ ...rest, text: describe(rest, origin) })
  }
  const webhooks = await replayDeliveries(app, traffic.deliveries ?? [], options, runConverter)
  const report = {
    findings: [...findings, ...webhooks.findings].sort(byLine),
    replayed: count.replayed,
    deliveries: webhooks.replayed,
    otherApis: count.otherApis + webhooks.otherApis,
    redacted: count.redacted + webhooks.redacted,
    notReplayable: [...notReplayable, ...webhooks.notReplayable].sort(byLine)
  }
  if (options.handlers === undefined) return report
  return await withAnswers(report, options.handlers, sent, { recorded: traffic.deliveries ?? [], judged: webhooks.judged })
}

type Pending = Omit<ReplayFinding, 'text'> & { origin: string }

/**
 * True when validation, had it not stopped at a redacted value, could have made `recorded` of `replayed`: a default
 * filled, an additional property removed, a scalar coerced (`'20'` to 20), a scalar put in a list. Any other
 * difference (999 made 1000) is the converters', and a finding.
 */
function leftUndone (recorded: unknown, replayed: unknown): boolean {
  if (recorded === undefined || replayed === undefined) return true
  const scalar = (value: unknown): boolean => value === null || ['string', 'number', 'boolean'].includes(typeof value)
  if (Array.isArray(recorded) && recorded.length === 1 && scalar(replayed)) return leftUndone(recorded[0], replayed)
  return scalar(recorded) && scalar(replayed) && String(recorded ?? '') === String(replayed ?? '')
}

/** Why a refused exchange is not replayed by the converters, if it is not: one refused for its path parameters. */
function unreplayedRefusal (exchange: RecordedRefusal): string | undefined {
  if (exchange.refused.part !== 'params') return undefined
  return 'refused for its path parameters, which the converters\' replay does not validate (`replay --handlers` sends it)'
}

type Run = Parameters<typeof replayOne>[0]

/**
 * Replays one located exchange: a handled one by {@link replayOne}; a refused one's request must be refused alike
 * (./replay-refusals.ts), and the error its version's validation made is then taken down by the error converters as
 * the client received it (a converter's refusal is sent as it is, as served).
 */
async function replayEither (run: Omit<Run, 'exchange'> & { exchange: RecordedExchange | RecordedRefusal }): Promise<Pending | undefined> {
  const { exchange, base } = run
  if (!('refused' in exchange)) return await replayOne({ ...run, exchange })
  const change = refusalChange(exchange, await replayRequest(run.entry.replayer, run.at, exchange))
  if (change === 'redacted') {
    run.notReplayable.push({ ...base, message: 'request: refused otherwise now, but its request holds redacted values (the stand-in may be what decides)' })
    return undefined
  }
  if (change !== undefined) {
    return { ...base, direction: 'request', kind: change.kind, part: '', pointer: '', recorded: change.recorded, replayed: change.replayed, versionChanges: [], converters: [], origin: '' }
  }
  if (exchange.refused.by === 'converter') return undefined
  const handled = { ...exchange, handlerRequest: exchange.clientRequest, handlerResponse: exchange.refusedResponse }
  return await replayOne({ ...run, exchange: handled, responseOnly: true })
}

/** Replays one located exchange, request then response (`responseOnly`: the response): its first finding, if any. */
async function replayOne (run: {
  entry: RouteEntry,
  at: ReplayedAt,
  exchange: RecordedExchange,
  base: Pick<ReplayFinding, 'line' | 'version' | 'route'>,
  count: { redacted: number },
  notReplayable: NotReplayed[]
  responseOnly?: true
}): Promise<Pending | undefined> {
  const { entry: { replayer }, at, exchange, base } = run
  const both = [
    { direction: 'request' as const, replay: replayRequest, recorded: exchange.handlerRequest as unknown as Record<string, unknown> },
    { direction: 'response' as const, replay: replayResponse, recorded: exchange.clientResponse as unknown as Record<string, unknown> }
  ]
  const sides = run.responseOnly === true ? both.slice(1) : both
  for (const side of sides) {
    // A 304 (Not Modified, an ETag plugin's answer to a cached client) carries no body: the client kept its copy.
    if (side.direction === 'response' && exchange.clientResponse.status === 304) continue
    const result: Replayed | Stopped = await side.replay(replayer, at, exchange)
    if (!result.ok) {
      if (holdsRedacted(exchange, side.direction) && result.unexcused !== true && !(await stopsAlike(result, async (other) => await side.replay(replayer, at, other), exchange))) {
        run.notReplayable.push({ ...base, message: `${side.direction}: ${result.message} (it holds redacted values)` })
        return undefined
      }
      const step = result.index === undefined ? undefined : replayer.steps[result.index]
      const changes = step === undefined ? [] : step.changes.filter((change) => result.converters.some((name) => name.startsWith(`${change.name}.`)))
      return { ...base, direction: side.direction, kind: result.kind, part: '', pointer: '', replayed: result.message, versionChanges: changes.map((change) => change.name), converters: result.converters, origin: step?.origin ?? '' }
    }
    const counted = { redacted: 0 }
    // Of the response headers, those the converters changed are compared: what the client received of them.
    const received = (side.recorded.headers ?? {}) as Record<string, unknown>
    const recorded = side.direction === 'request' ? side.recorded : { ...side.recorded, headers: Object.fromEntries(Object.keys(result.parts.headers ?? {}).map((name) => [name, received[name]])) }
    let difference = differenceOf(replayer.steps, result, recorded, counted)
    if (difference !== undefined && holdsRedacted(exchange, side.direction)) {
      // Replayed again with other stand-ins: what changes with them was made from a redacted value, and is not compared.
      const again = await side.replay(replayer, at, JSON.parse(JSON.stringify(exchange).replaceAll(REDACTED, SECOND_STAND_IN)) as RecordedExchange)
      counted.redacted = 0
      if (again.ok) difference = differenceOf(replayer.steps, { ...result, parts: madeFromRedacted(result.parts, again.parts) as Replayed['parts'] }, recorded, counted)
    }
    run.count.redacted += counted.redacted
    if (difference !== undefined && result.cutShort !== undefined && leftUndone(difference.recorded, difference.replayed)) {
      run.notReplayable.push({ ...base, message: `${side.direction}: the version's schema stopped at a redacted value (${result.cutShort}), so what it coerces or fills after it is unknown` })
      return undefined
    }
    if (difference !== undefined) return { ...base, direction: side.direction, ...difference }
  }
  return undefined
}
