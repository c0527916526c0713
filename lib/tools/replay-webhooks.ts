/**
 * `replay` of the webhook renders of a traffic file (decision 0238): each recorded HEAD event rendered again, through
 * the converters of the application as it is now, for each recorded version (from the version that was the newest
 * when it was recorded, as exchanges are: decision 0111), and compared with the body its subscribers received. A
 * finding names the line, the webhook, the version, the version change at fault and the first JSON pointer that
 * differs; a place holding a redacted value is not compared.
 * @module
 */
import type { FastifyInstance } from 'fastify'
import type { TSchema } from '@sinclair/typebox'
import { deepEqual } from '../core/json-schema'
import type { GenerationStep } from '../describe/versions'
import { describeUnexpressible, unexpressibleValue } from '../routes/value-guards'
import type { VersionerState } from '../routes/versioner-state'
import type { DeclaredWebhook } from '../routes/webhooks'
import { copyJson } from '../serve/step-runner'
import { pointerSegments, REDACTED } from '../values/redaction'
import { applyShape, walkRules, type WalkRules } from '../values/shape-walk'
import type { ConverterRun } from './converter-tracking'
import { indicesOf, runStages, valueAt, type ExchangeReplayer, type Replayed, type Stopped } from './replay-exchange'
import type { NotReplayed, ReplayFinding, ReplayTrafficOptions } from './replay-report'
import { SECOND_STAND_IN, stopsAlike } from './redacted-stand-ins'
import type { DeliveryLine, RecordedWebhook } from './traffic-file'
import { shown } from './value-comparison'
import { compareRecorded, madeFromRedacted } from './value-difference'
import { selectApis, versionerStateOf } from './versioned-apis'

/** The version changes at fault for a difference at `part` `pointer`, and their converters that ran. */
export function atFault (steps: readonly GenerationStep[], side: Replayed, part: string, pointer: string): Pick<ReplayFinding, 'versionChanges' | 'converters'> & { origin: string } {
  const segments = pointerSegments(pointer)
  const valueIn = (data: Readonly<Record<string, unknown>>): unknown => valueAt(data[part], pointer)
  let previous = valueIn(side.start)
  let last: Replayed['stages'][number] | undefined
  for (const stage of side.stages) {
    const value = valueIn(stage.data)
    if (!deepEqual(value, previous)) last = stage
    previous = value
  }
  if (last !== undefined) {
    const step = steps[last.index]
    const named = step.changes.filter((change) => last.converters.some((converter) => converter.startsWith(`${change.name}.`)))
    return { versionChanges: (named.length > 0 ? named : step.changes).map((change) => change.name), converters: last.converters, origin: step.origin }
  }
  // No converter changed the place: the changes on the way whose instructions name its field, else all of them.
  const field = segments.filter((key) => !/^\d+$/.test(key)).at(-1)
  const onTheWay = side.stages.map((stage) => steps[stage.index])
  const naming = onTheWay.flatMap((step) => step.changes).filter((change) => change.instructions.some((instruction) =>
    field !== undefined && 'field' in instruction && (instruction.field === field || ('name' in instruction && instruction.name === field))))
  const changes = [...new Set(naming.length > 0 ? naming : onTheWay.flatMap((step) => step.changes))]
  return { versionChanges: changes.map((change) => change.name), converters: [], origin: [...new Set(changes.map((change) => change.version))].join(', ') }
}

/** A declared webhook of one API, with what replaying its renders needs. */
interface WebhookEntry {
  readonly webhook: DeclaredWebhook
  readonly state: VersionerState
  readonly replayer: ExchangeReplayer
  readonly rules: WalkRules
  /** True for a webhook of the API picked (`options.api`), or of any when none is. */
  readonly own: boolean
}

/** The declared webhooks of the application's APIs, by `METHOD name`. */
function webhookIndex (app: FastifyInstance, options: ReplayTrafficOptions, runConverter: ConverterRun | undefined): Map<string, WebhookEntry> {
  const own = new Set(selectApis(app, options.api).map((api) => api.context))
  const index = new Map<string, WebhookEntry>()
  for (const api of selectApis(app)) {
    const state = versionerStateOf(api.context)
    const resolveRef = (ref: string): unknown => state.generation.resolveAnyId(ref) ?? api.context.getSchema(ref.replace(/#$/, ''))
    const storage = state.storesVersion ? state.options.versions : undefined
    const replayer: ExchangeReplayer = { context: api.context, steps: state.steps, runConverter, validators: new Map<TSchema, never>(), serializers: new Map<TSchema, never>(), storage, resolveRef }
    const rules = walkRules({ removeFrom: 'closed', fillDefaults: true, resolveRef: (ref) => state.generation.resolveAnyId(ref) })
    for (const webhook of api.context.versioner.webhooks.list()) {
      index.set(`${webhook.method} ${webhook.name}`, { webhook, state, replayer, rules, own: own.has(api.context) })
    }
  }
  return index
}

/** The level of a version in an API (1: the newest), or `undefined` when it has none of that value. */
function levelIn (state: VersionerState, version: string): number | undefined {
  const index = state.options.versions.versionValues.indexOf(version)
  return index === -1 ? undefined : index + 1
}

/** A HEAD event rendered for the version at `level`, from `newest` down, as a render migrates it: the body (JSON), or where it stopped. */
async function rendered (entry: WebhookEntry, event: unknown, at: { version: string, level: number, newest: number }): Promise<Replayed | Stopped> {
  const { webhook, state, replayer } = entry
  const { version, level, newest } = at
  const start = { body: copyJson(event) }
  const info = { body: copyJson(event), statusCode: 200, headers: {}, raw: event, setCookie () {}, deleteCookie () {} }
  const steps = state.planner.responseSteps(undefined, webhook.body, level)
  const run = { steps, indices: indicesOf(level, newest, false), info, at: { method: undefined, reply: undefined } }
  const stages = await runStages(replayer, run, version, () => ({ body: copyJson(info.body) }), false)
  if (!Array.isArray(stages)) return stages
  const found = unexpressibleValue(state.planner.guardsOf(webhook.body, level), info.body)
  if (found !== undefined) return { ok: false, kind: 'unexpressible', message: describeUnexpressible(found, version), index: undefined, converters: [] }
  const body = JSON.parse(JSON.stringify(applyShape(state.generation.formAt(webhook.body, level), entry.rules, info.body)) ?? 'null') as unknown
  return { ok: true, parts: { body }, start, stages }
}

/**
 * What replaying the renders found: findings, what was not replayed, how many bodies (one per render and version) were
 * replayed or left to other APIs, and how many places were redacted.
 */
interface DeliveryVerdicts {
  readonly findings: ReplayFinding[]
  readonly notReplayable: NotReplayed[]
  replayed: number
  otherApis: number
  redacted: number
  /** The lines of the renders of the API picked (for the handlers' replay). */
  readonly judged: Set<number>
}

/** The finding on one line. */
function describe (finding: Omit<ReplayFinding, 'text'>, origin: string): string {
  const where = `line ${finding.line}: ${finding.route} (${finding.version}): delivery`
  const changes = finding.versionChanges.length === 0 ? '' : `${finding.versionChanges.join(', ')}${origin === '' ? '' : ` (${origin})`}`
  const by = finding.converters.length === 0
    ? changes === '' ? '' : `; no converter changed it on the way (${changes})`
    : `; changed last by ${changes}, converter${finding.converters.length === 1 ? '' : 's'} ${finding.converters.join(', ')}`
  if (finding.kind !== 'differs') return `${where}: ${finding.kind}: ${String(finding.replayed)}${by}.`
  const value = (held: unknown): string => held === undefined ? 'nothing' : shown(held)
  return `${where} ${finding.part}${finding.pointer}: the subscribers received ${value(finding.recorded)}, the converters now give ${value(finding.replayed)}${by}.`
}

/** Replays one version's body of a render: its finding, if any (what is not replayed pushed to `verdicts`). */
async function replayBody (entry: WebhookEntry, delivery: RecordedWebhook, at: { level: number, newest: number, recorded: unknown, base: Pick<ReplayFinding, 'line' | 'version' | 'route'> }, verdicts: DeliveryVerdicts): Promise<Omit<ReplayFinding, 'text'> & { origin: string } | undefined> {
  const { state } = entry
  const { base } = at
  const result = await rendered(entry, delivery.event, { version: at.base.version, level: at.level, newest: at.newest })
  const redacted = JSON.stringify(delivery.event).includes(REDACTED)
  if (!result.ok) {
    const again = async (event: unknown): Promise<Awaited<ReturnType<typeof rendered>>> => await rendered(entry, event, { version: at.base.version, level: at.level, newest: at.newest })
    if (redacted && result.unexcused !== true && !(await stopsAlike(result, again, delivery.event))) {
      verdicts.notReplayable.push({ ...base, message: `delivery: ${result.message} (its event holds redacted values)` })
      return undefined
    }
    const step = result.index === undefined ? undefined : state.steps[result.index]
    const changes = step === undefined ? [] : step.changes.filter((change) => result.converters.some((name) => name.startsWith(`${change.name}.`)))
    return { ...base, direction: 'delivery', kind: result.kind, part: '', pointer: '', replayed: result.message, versionChanges: changes.map((change) => change.name), converters: result.converters, origin: step?.origin ?? '' }
  }
  let compared = compareRecorded(at.recorded, result.parts.body)
  if (compared.difference !== undefined && redacted) {
    // Rendered again with other stand-ins: what changes with them was made from a redacted value, and is not compared.
    const again = await rendered(entry, JSON.parse(JSON.stringify(delivery.event).replaceAll(REDACTED, SECOND_STAND_IN)), { version: at.base.version, level: at.level, newest: at.newest })
    if (again.ok) compared = compareRecorded(at.recorded, madeFromRedacted(result.parts.body, again.parts.body))
  }
  verdicts.redacted += compared.redacted
  const { difference } = compared
  if (difference === undefined) return undefined
  return { ...base, direction: 'delivery', kind: 'differs', part: 'body', pointer: difference.pointer, recorded: difference.recorded, replayed: difference.replayed, ...atFault(state.steps, result, 'body', difference.pointer) }
}

/**
 * Replays the webhook renders of a traffic file through the converters of a readied application: each recorded
 * version's body rendered again from the recorded event (`runConverter`: how converters run, as for exchanges).
 * @example
 * ```ts
 * const { findings } = await replayDeliveries(app, readTraffic(text).deliveries)
 * ```
 */
export async function replayDeliveries (
  app: FastifyInstance, deliveries: readonly DeliveryLine[], options: ReplayTrafficOptions = {}, runConverter?: ConverterRun
): Promise<DeliveryVerdicts> {
  const verdicts: DeliveryVerdicts = { findings: [], notReplayable: [], replayed: 0, otherApis: 0, redacted: 0, judged: new Set() }
  if (deliveries.length === 0) return verdicts
  const index = webhookIndex(app, options, runConverter)
  const push = (finding: Omit<ReplayFinding, 'text'> & { origin: string }): void => {
    const { origin, ...rest } = finding
    verdicts.findings.push({ ...rest, text: describe(rest, origin) })
  }
  for (const { line, delivery } of deliveries) {
    const { name, method } = delivery.webhook
    const route = `webhook ${name}`
    const entry = index.get(`${method.toUpperCase()} ${name}`)
    if (entry !== undefined && !entry.own) {
      verdicts.otherApis++
      continue
    }
    verdicts.replayed += delivery.deliveries.length
    verdicts.judged.add(line)
    if (entry === undefined) {
      const message = `the application declares no webhook '${name}' (${method}): its subscribers are no longer sent it`
      for (const { version } of delivery.deliveries) push({ line, route, version, direction: 'delivery', kind: 'unknown route', part: '', pointer: '', replayed: message, versionChanges: [], converters: [], origin: '' })
      continue
    }
    const newest = delivery.latest === undefined ? 1 : levelIn(entry.state, delivery.latest)
    for (const { version, body } of delivery.deliveries) {
      const base = { line, route, version }
      const level = levelIn(entry.state, version)
      if (newest === undefined || level === undefined) {
        const missing = newest === undefined ? `recorded when ${String(delivery.latest)} was the newest version` : `rendered for version ${version}`
        verdicts.notReplayable.push({ ...base, message: `delivery: ${missing}, which the application no longer has (retired? then remove the line from the traffic file)` })
        continue
      }
      if (entry.webhook.timeline[level]?.exists !== true) {
        push({ ...base, direction: 'delivery', kind: 'unknown route', part: '', pointer: '', replayed: `webhook '${name}' no longer exists in version ${version}: its subscribers are no longer sent it`, versionChanges: [], converters: [], origin: '' })
        continue
      }
      const finding = await replayBody(entry, delivery, { level, newest: Math.min(newest, level), recorded: body, base }, verdicts)
      if (finding !== undefined) push(finding)
    }
  }
  return verdicts
}
