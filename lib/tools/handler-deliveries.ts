/**
 * `replay --handlers` of the webhook renders of a traffic file (decision 0238): each `webhooks.render()` call of the two
 * fresh applications is observed (its webhook and event, in order), paired with the recorded renders of that webhook
 * in order (a recorded render whose event holds an identifier the replay mapped is paired with the next call whose
 * event holds its counterpart), rendered again on that application for each recorded version and compared with the
 * recorded body, by the rules of the exchanges' answers: identifiers mapped, the places the two applications render
 * differently left out (./replay-noise.ts), and times read from the clock during the replay left out only in the unit and form recorded.
 * @module
 */
import type { FastifyInstance } from 'fastify'
import type { HttpMethod } from '../core/http-methods'
import type { RenderedWebhook, RenderWebhookOptions, WebhookSubscriber } from '../routes/webhook-deliveries'
import type { DeclaredWebhook, WebhookDefinition } from '../routes/webhooks'
import type { SchemaLike } from '../core/json-schema'
import { copyJson } from '../values/json-copy'
import type { HandlerExchange, Played } from './handler-replay'
import type { NotReplayed, ReplayFinding } from './replay-report'
import type { DeliveryLine } from './traffic-file'
import { valueAt } from './replay-exchange'
import { shown } from './value-comparison'
import { differencesOf } from './value-difference'
import { selectApis } from './versioned-apis'
import { mappedForm, strayId } from './ids-in-strings'
import { judgeRenders, sentFor, whileSending, type RenderCall } from './handler-renders'
import { judgePins, type PinnedCall } from './handler-pins'
import { Noise, valueHeldAt } from './replay-noise'

/** What the clock rule reads: the replay's start and end, in milliseconds. */
interface ReplayWindow {
  readonly from: number
  readonly to: number
}

/** A Unix time below this is in seconds (10^11 seconds is the year 5138; 10^11 milliseconds is 1973), below 1000 times it in milliseconds. */
const SECONDS_BELOW = 1e11

/** The form of a time: Unix time in seconds, milliseconds or microseconds, an ISO 8601 date-time or date (`undefined`: no time). */
type TimeForm = 'seconds' | 'milliseconds' | 'microseconds' | 'date-time' | 'date' | undefined

/** The form of a recorded value, were it a time. */
function recordedForm (value: unknown): TimeForm {
  if (typeof value === 'number') return Math.abs(value) < SECONDS_BELOW ? 'seconds' : Math.abs(value) < SECONDS_BELOW * 1000 ? 'milliseconds' : 'microseconds'
  if (typeof value !== 'string') return undefined
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value) ? 'date-time' : /^\d{4}-\d\d-\d\d$/.test(value) ? 'date' : undefined
}

/** An hour, in milliseconds. */
const HOUR = 3_600_000

/** True when `day` (`'2026-12-01'`) is the date of some time zone (UTC−12 to UTC+14) at some instant of the window. */
function dayWithin (day: string, window: ReplayWindow): boolean {
  const start = Date.parse(day)
  return start <= window.to + 14 * HOUR && start + 24 * HOUR > window.from - 12 * HOUR
}

/**
 * The clock rule: `'clock'` when `replayed` is a time read from the clock during the replay in the form and unit
 * `recorded` has (Unix time in seconds for a recorded number in seconds, in milliseconds for one in milliseconds, an
 * ISO 8601 date-time for a recorded one, a date, the day somewhere on Earth, for a recorded date: decision 0322; any,
 * where nothing of these was recorded); `'changed'` when it is such a time
 * in another form or unit than recorded (seconds made milliseconds, milliseconds multiplied by 1000 again into
 * microseconds: a change, whatever else differs there);
 * `undefined` when it is no time of the replay.
 * @example
 * ```ts
 * clockRule(1700000000, Math.floor(Date.now() / 1000), window) // 'clock'
 * clockRule(1700000000, Date.now(), window) // 'changed': the unit changed
 * ```
 */
export function clockRule (recorded: unknown, replayed: unknown, window: ReplayWindow): 'clock' | 'changed' | undefined {
  const within = (time: number): boolean => time >= window.from - 1000 && time <= window.to + 1000
  let form: TimeForm
  if (typeof replayed === 'number') form = within(replayed * 1000) ? 'seconds' : within(replayed) ? 'milliseconds' : within(replayed / 1000) ? 'microseconds' : undefined
  else if (recordedForm(replayed) === 'date-time' && within(Date.parse(replayed as string))) form = 'date-time'
  else if (recordedForm(replayed) === 'date' && dayWithin(replayed as string, window)) form = 'date'
  if (form === undefined) return undefined
  const was = recordedForm(recorded)
  return was === undefined || was === form ? 'clock' : 'changed'
}

/** A `webhooks.render()` call of a fresh application: its webhook, its event (a JSON copy), the exchange it was made for, and its API's renderer. */
interface ObservedRender extends RenderCall, PinnedCall {
  readonly pins: Array<{ id: string, version: string }>
  readonly render: <S extends WebhookSubscriber>(name: string, event: unknown, options: RenderWebhookOptions<S>) => Promise<{ deliveries: ReadonlyArray<{ version: string, body: string }>, skipped: readonly unknown[], failed: ReadonlyArray<{ error: Error }> }>
}

/** A subscriber the replay renders for (its secret signs nothing anyone reads). */
const REPLAY_SECRET = `whsec_${Buffer.alloc(24, 1).toString('base64')}`

/** Every string of a value. */
function stringsOf (value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') into.add(value)
  else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) stringsOf(item, into)
  return into
}

/** Observes the render calls of an application's APIs (its `webhooks.render`, replaced on the fresh instance). */
function observeRenders (root: FastifyInstance): ObservedRender[] {
  const calls: ObservedRender[] = []
  for (const { context, name: api } of selectApis(root)) {
    const webhooks = context.versioner.webhooks
    // Rendered by name or by its definition (the body typed by it), as the application calls it.
    const render = webhooks.render.bind(webhooks) as <S extends WebhookSubscriber>(
      webhook: string | WebhookDefinition<SchemaLike>, event: unknown, options: RenderWebhookOptions<S>) => Promise<RenderedWebhook<S>>
    const observed: typeof render = async (webhook, event, options) => {
      let declared: DeclaredWebhook | undefined
      try {
        declared = webhooks.declaredAs(webhook, options?.method)
      } catch {}
      // A webhook not declared is no render (the call throws; a recorded exchange counts renders of declared ones).
      const call: ObservedRender | undefined = declared === undefined
        ? undefined
        : { api, key: `${declared.method} ${declared.name}`, event: copyJson(event), exchange: sentFor(), render, pins: [] }
      if (call !== undefined) calls.push(call)
      const result = await render(webhook, event, options)
      // The version each subscriber given was rendered in (./handler-pins.ts).
      for (const { subscriber, version } of [...result.deliveries, ...result.failed]) call?.pins.push({ id: subscriber.id, version })
      return result
    }
    Object.defineProperty(webhooks, 'render', { value: observed, configurable: true, writable: true })
  }
  return calls
}

/** Pairs the recorded renders with an application's calls, per webhook in order; a recorded one holding a mapped identifier with a call holding its counterpart. */
function paired (recorded: readonly DeliveryLine[], calls: readonly ObservedRender[], ids: ReadonlyMap<string, string>): Map<number, ObservedRender> {
  const pairs = new Map<number, ObservedRender>()
  const cursors = new Map<string, number>()
  for (const { line, delivery } of recorded) {
    const key = `${delivery.webhook.method.toUpperCase()} ${delivery.webhook.name}`
    const known = [...stringsOf(delivery.event)].flatMap((value) => ids.has(value) ? [ids.get(value) as string] : [])
    let at = cursors.get(key) ?? 0
    const holds = (call: ObservedRender): boolean => { const strings = stringsOf(call.event); return known.every((value) => strings.has(value)) }
    while (at < calls.length && (calls[at].key !== key || !holds(calls[at]))) at++
    if (at === calls.length) continue
    pairs.set(line, calls[at])
    cursors.set(key, at + 1)
  }
  return pairs
}

/** One recorded body rendered again: on each application, the body it renders for the version, or why not. */
interface Rerendered {
  readonly line: number
  readonly route: string
  readonly version: string
  readonly recorded: unknown
  readonly bodies: ReadonlyArray<{ body: unknown } | { failed: string }>
  /** Whether a second of the clock turned while the two applications made the event (or it is not known when they did). */
  readonly turned: boolean
}

/** Renders a paired call's event for `version` on its application (at the recorded instant, when it is known). */
async function renderFor (call: ObservedRender, name: string, version: string, at: { method: string, timestamp: number | undefined }): Promise<{ body: unknown } | { failed: string }> {
  try {
    const subscribers = [{ id: 'replay', version, secret: REPLAY_SECRET }]
    const timestamp = at.timestamp === undefined ? undefined : new Date(at.timestamp * 1000)
    const result = await call.render(name, call.event, { subscribers, method: at.method as HttpMethod, timestamp })
    const delivery = result.deliveries.find((one) => one.version === version)
    if (delivery !== undefined) return { body: JSON.parse(delivery.body) as unknown }
    return { failed: result.failed[0]?.error.message ?? `it is not sent in version ${version} now` }
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) }
  }
}

/** What the renders showed: findings, renders not judged and why, bodies compared, and the places left out. */
interface DeliveryAnswers {
  readonly findings: ReplayFinding[]
  readonly notReplayable: NotReplayed[]
  compared: number
  volatile: number
}

/**
 * Observes the renders of the two fresh applications (`attach` each, once ready), renders the paired events for the
 * recorded versions (`finish`, while they are open), and judges them (`judge`).
 * @example
 * ```ts
 * const observer = new DeliveryObserver(traffic.deliveries, judged)
 * ```
 */
export class DeliveryObserver {
  private readonly calls: ObservedRender[][] = []
  private readonly rendered: Rerendered[] = []
  private readonly unpaired: NotReplayed[] = []
  /** Each application's calls paired with a judged recorded render: its line. */
  private readonly lines = new Map<PinnedCall, number>()

  /** `recorded`: every render of the traffic file, in order; `judged`: the lines to judge. */
  constructor (private readonly recorded: readonly DeliveryLine[], private readonly judged: ReadonlySet<number>) {}

  async sending<T> (index: number, work: () => Promise<T>): Promise<T> {
    return await whileSending(index, work)
  }

  attach (root: FastifyInstance): void {
    this.calls.push(observeRenders(root))
  }

  async finish (played: readonly [Played, Played]): Promise<void> {
    const pairs = this.calls.map((calls, index) => paired(this.recorded, calls, played[index].ids))
    for (const { line, delivery } of this.recorded) {
      if (!this.judged.has(line)) continue
      const route = `webhook ${delivery.webhook.name}`
      const calls = pairs.map((pair) => pair.get(line))
      for (const call of calls) if (call !== undefined) this.lines.set(call, line)
      for (const { version, body } of delivery.deliveries) {
        if (calls.some((call) => call === undefined)) {
          const message = 'delivery: no request the replay sent rendered it (its request is not in the traffic file, or the ' +
            'handlers no longer render it: check that the recorded requests of the webhook are in the file)'
          this.unpaired.push({ line, route, version, message })
          continue
        }
        const at = { method: delivery.webhook.method.toUpperCase(), timestamp: delivery.timestamp }
        const bodies = []
        for (const call of calls as ObservedRender[]) bodies.push(await renderFor(call, delivery.webhook.name, version, at))
        const exchange = calls[0]?.exchange
        const turned = exchange === undefined || exchange !== calls[1]?.exchange || played[0].turned[exchange]
        this.rendered.push({ line, route, version, recorded: body, bodies, turned })
      }
    }
  }

  /** The renders each exchange's request makes now, judged where its record says what it rendered (./handler-renders.ts). */
  renderFindings (exchanges: readonly HandlerExchange[], passed: ReadonlySet<number>): ReplayFinding[] {
    if (this.calls.length !== 2) return []
    const calls = [this.calls[0], this.calls[1]] as const
    return [...judgeRenders(exchanges, calls, passed), ...judgePins(exchanges, calls, this.lines, this.recorded)]
  }

  /** The verdicts: `played`, the two applications' runs (their identifiers: recorded → their own); `window`, when the replay ran. */
  judge (played: readonly [Played, Played], window: ReplayWindow): DeliveryAnswers {
    const verdicts: DeliveryAnswers = { findings: [], notReplayable: [...this.unpaired], compared: 0, volatile: 0 }
    const noise = new Noise()
    for (const { route, version, bodies: [left, right], turned } of this.rendered) {
      if (!('body' in left) || !('body' in right)) continue
      const add = noise.pair(`${route} ${version}`, turned, (place) => valueHeldAt(left.body, place))
      for (const difference of differencesOf(left.body, right.body, 1000)) add(difference.pointer)
    }
    for (const { line, route, version, recorded, bodies: [left, right] } of this.rendered) {
      const base = { line, route, version, direction: 'delivery' as const, versionChanges: [], converters: [] }
      verdicts.compared++
      if (!('body' in left)) {
        const text = `line ${line}: ${route} (${version}): delivery: the event a fresh application's handlers render cannot be rendered: ${left.failed}.`
        verdicts.findings.push({ ...base, kind: 'converter failed', part: '', pointer: '', replayed: left.failed, text })
        continue
      }
      const isNoise = (pointer: string): boolean => noise.has(`${route} ${version}`, pointer)
      for (const difference of differencesOf(recorded, left.body, 1000)) {
        // A field the record does not have is added to every version's events, as the policy allows (a list item is not).
        if (difference.recorded === undefined && !/\/\d+$/.test(difference.pointer)) continue
        const other = 'body' in right ? valueAt(right.body, difference.pointer) : undefined
        const rule = clockRule(difference.recorded, difference.replayed, window)
        const clock = rule === 'clock' && clockRule(difference.recorded, other, window) === 'clock'
        // A string holding ids (`/invoices/<id>`) is compared with them mapped: a form the handlers changed is a change.
        const mapped = mappedForm(difference.recorded, [difference.replayed, other], played)
        const moved = strayId(difference.recorded, difference.replayed, played[0]) || mapped === 'changed'
        if (!moved && rule !== 'changed' && (clock || mapped === 'same' || isNoise(difference.pointer))) {
          verdicts.volatile++
          continue
        }
        const value = (held: unknown): string => held === undefined ? 'nothing' : shown(held)
        const text = `line ${line}: ${route} (${version}): delivery body${difference.pointer}: the subscribers received ${value(difference.recorded)}, ` +
          `the handlers of a fresh application now render ${value(difference.replayed)}.`
        verdicts.findings.push({ ...base, kind: 'differs', part: 'body', pointer: difference.pointer, recorded: difference.recorded, replayed: difference.replayed, text })
        break
      }
    }
    return verdicts
  }
}
