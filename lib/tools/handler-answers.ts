/**
 * `replay --handlers`' verdicts: the answers two fresh applications gave the recorded requests (./handler-replay.ts)
 * compared with what each client received. A place where the two applications' answers differ holds what the handlers
 * make anew (an id, a token, a time): learned by route (from requests both served within one second of the clock:
 * ./replay-noise.ts), it is left out everywhere on the route, and so is a value both read from the clock during the replay. Where both agree and differ from the record, the exchange has a finding;
 * unless its request carried, unmapped, a value the handlers made (one the record shows at such a place): then a request
 * the traffic file does not hold made it, and the exchange is not replayed
 * (docs/decisions/0234-replay-through-the-handlers.md).
 * @module
 */
import { REDACTED } from '../values/redaction'
import { playOnTwo, VOLATILE_HEADERS, type Answer, type AppBuilder, type HandlerExchange, type Played } from './handler-replay'
import type { NotReplayed, ReplayFinding, ReplayReport } from './replay-report'
import type { RecordedExchange } from './traffic-file'
import { valueAt } from './replay-exchange'
import { shown } from './value-comparison'
import { differencesOf } from './value-difference'
import { clockRule, DeliveryObserver } from './handler-deliveries'
import { IdsInStrings, mappedForm, strayId } from './ids-in-strings'
import { bodyAsSent } from './sent-bodies'
import { inOrderOf, onlyTies, orderNames, playedSide, recordedSide, tiedIn } from './answer-order'
import type { DeliveryLine } from './traffic-file'
import type { Refusal } from '../serve/exchange-records'
import { refusalWords } from './replay-refusals'
import { Noise, valueHeldAt, type Answered } from './replay-noise'

/** What the answers showed: findings, exchanges not judged and why, how many were compared, and the places left out. */
interface AnswerVerdicts {
  readonly findings: ReplayFinding[]
  readonly notReplayable: NotReplayed[]
  compared: number
  volatile: number
}

/** The route of an exchange, as findings name it. */
function routeOf (item: HandlerExchange): string {
  return `${item.exchange.route.method} ${item.exchange.route.url}`
}

/** The compared headers of an answer: every one but the transport's and the time's, as text. */
function headersOf (answer: Pick<Answer, 'headers'>): Map<string, string> {
  const headers = new Map<string, string>()
  for (const [name, value] of Object.entries(answer.headers)) {
    if (!VOLATILE_HEADERS.has(name.toLowerCase()) && value !== undefined) headers.set(name.toLowerCase(), Array.isArray(value) ? value.join(', ') : String(value))
  }
  return headers
}

/** Where an answer holds a value: its status, its compared headers, its body's places (`body/…`). */
function answeredBy (answer: Answer): Answered {
  return (place) => place === 'status' || (place.startsWith('headers/') ? headersOf(answer).has(place.slice('headers/'.length)) : place.startsWith('body') && valueHeldAt(answer.body, place.slice('body'.length)))
}

/**
 * Learns, from two applications' answers, the places where the handlers make values anew, and the lists whose order
 * they do not decide (`body/…#order`: the same items in two orders, then compared item by item).
 */
function learnNoise (add: (place: string) => void, left: Answer, right: Answer, played: readonly [Played, Played]): void {
  if (left.status !== right.status) add('status')
  const other = inOrderOf(left.body, right.body, [playedSide(played[0]), playedSide(played[1])], (pointer) => { add(`body${pointer}#order`); return true })
  for (const difference of differencesOf(left.body, other, 1000)) add(`body${difference.pointer}`)
  const [first, second] = [headersOf(left), headersOf(right)]
  for (const name of new Set([...first.keys(), ...second.keys()])) if (first.get(name) !== second.get(name)) add(`headers/${name}`)
}

/** The recorded strings at places the handlers make anew (by route): what only a request of the record could have made. */
function madeValues (exchanges: readonly HandlerExchange[], noise: Noise): Set<string> {
  const made = new Set<string>()
  const walk = (route: string, value: unknown, pointer: string): void => {
    if (typeof value === 'string' && value !== '' && noise.has(route, `body${pointer}`)) made.add(value)
    else if (Array.isArray(value)) value.forEach((item, index) => { walk(route, item, `${pointer}/${index}`) })
    else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) walk(route, item, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`)
  }
  for (const item of exchanges) walk(routeOf(item), item.exchange.clientResponse.body, '')
  return made
}

/** A change an answer shows: its place, both values (for a list's order, its items' names in both orders). */
type Change = Pick<ReplayFinding, 'part' | 'pointer' | 'recorded' | 'replayed'> & { readonly order?: boolean, readonly tie?: string }

/** The first place where the record and both applications' answers tell a change: part, pointer, both values; and the places left out. */
function firstChange (item: HandlerExchange, left: Answer, right: Answer, context: { noise: Noise, from: number, to: number, played: readonly [Played, Played] }): {
  change?: Change, volatile: number
} {
  const route = routeOf(item)
  const recorded = item.exchange.clientResponse
  if (context.noise.has(route, 'status')) return { volatile: 1 }
  if (recorded.status !== left.status) return { change: { part: 'status', pointer: '', recorded: recorded.status, replayed: left.status }, volatile: 0 }
  // A 304 carries no body: the client kept its copy.
  if (recorded.status === 304) return { volatile: 0 }
  // A list both applications answer in one order, the record in another, is a change; otherwise compared item by item.
  let order: Pick<Change, 'pointer' | 'recorded' | 'replayed' | 'tie'> | undefined
  const body = inOrderOf(recorded.body, left.body, [recordedSide(context.played[0]), playedSide(context.played[0])], (pointer, moved, answered) => {
    const items = valueAt(recorded.body, pointer) as unknown[]
    if (order === undefined && !context.noise.has(route, `body${pointer}#order`) && !onlyTies(items, moved)) {
      const [before, now] = orderNames(items, moved, new Set(context.played[0].ids.keys()))
      order = { pointer, recorded: before, replayed: now, tie: tiedIn(items, answered) }
    }
    return true
  })
  if (order !== undefined) return { change: { part: 'body', ...order, order: true }, volatile: 0 }
  const second = inOrderOf(recorded.body, right.body, [recordedSide(context.played[1]), playedSide(context.played[1])], () => true)
  let volatile = 0
  // Ajv's words for a refusal by validation change with its release (decision 0307): where the record holds them, not compared.
  const ajvWords = 'refused' in item.exchange && item.exchange.refused.by === 'validation' ? item.exchange.refused.message : undefined
  for (const difference of differencesOf(recorded.body, body, 1000)) {
    if (ajvWords !== undefined && difference.recorded === ajvWords && typeof difference.replayed === 'string') {
      volatile++
      continue
    }
    // A time of the replay in another unit or form than recorded (seconds made milliseconds) is a change, noise or not.
    const rule = clockRule(difference.recorded, difference.replayed, context)
    const clock = rule === 'clock' && clockRule(difference.recorded, valueAt(second, difference.pointer), context) === 'clock'
    // An identifier whose counterpart the replay knows, alone or inside a string, must be that counterpart (another item's id, a second invoice, is a change).
    // A string holding ids (`/customers/<id>`) is compared with them mapped: a form the handlers changed is a change.
    const mapped = mappedForm(difference.recorded, [difference.replayed, valueAt(second, difference.pointer)], context.played)
    const moved = strayId(difference.recorded, difference.replayed, context.played[0]) || mapped === 'changed'
    if (!moved && rule !== 'changed' && (clock || mapped === 'same' || context.noise.has(route, `body${difference.pointer}`))) volatile++
    else return { change: { part: 'body', pointer: difference.pointer, recorded: difference.recorded, replayed: difference.replayed }, volatile }
  }
  const [now, other] = [headersOf(left), headersOf(right)]
  for (const [name, value] of headersOf(recorded)) {
    if (value.includes(REDACTED)) continue
    const mapped = now.get(name) === value ? undefined : mappedForm(value, [now.get(name), other.get(name)], context.played)
    if (mapped === 'changed' || (now.get(name) !== value && strayId(value, now.get(name), context.played[0]))) return { change: { part: 'headers', pointer: `/${name}`, recorded: value, replayed: now.get(name) }, volatile }
    if (mapped === 'same' || context.noise.has(route, `headers/${name}`)) volatile++
    else if (now.get(name) !== value) return { change: { part: 'headers', pointer: `/${name}`, recorded: value, replayed: now.get(name) }, volatile }
  }
  return { volatile }
}

/** An exchange not replayed because its redacted values changed the answer, and the strings of its data. */
interface Diverged {
  readonly line: number
  readonly values: ReadonlySet<string>
}

/** Every string of a value. */
function collectStrings (value: unknown, into: Set<string>): void {
  if (typeof value === 'string') into.add(value)
  else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) collectStrings(item, into)
}

/**
 * The strings of an exchange's data: its request's path parameters, query string and body, and (`answered`) the body
 * recorded in its answer; neither the empty string, a redacted value, nor its version.
 */
function dataOf (exchange: HandlerExchange['exchange'], answered: boolean): Set<string> {
  const found = new Set<string>()
  const { params, query, body } = exchange.clientRequest
  for (const part of [params, query, body, answered ? exchange.clientResponse.body : undefined]) collectStrings(part, found)
  for (const value of found) if (value === '' || value === exchange.version || value.includes(REDACTED)) found.delete(value)
  return found
}

/** The first earlier diverged exchange whose data the request of `exchange` carries (an id it answered, a name it sent), if any. */
function usedFrom (diverged: readonly Diverged[], exchange: HandlerExchange['exchange']): { line: number, value: string } | undefined {
  const sent = dataOf(exchange, false)
  for (const { line, values } of diverged) for (const value of sent) if (values.has(value)) return { line, value }
  return undefined
}

/** The finding on one line (`order`: a list's order changed, `tie` the field the replay tied; `refused`: what refused its request when recorded). */
function describe (finding: Omit<ReplayFinding, 'text'>, order: boolean, { tie, refused }: { tie?: string | undefined, refused?: Refusal | undefined }): string {
  const value = (held: unknown): string => held === undefined ? 'nothing' : shown(held)
  if (refused !== undefined && finding.part === 'status') {
    return `line ${finding.line}: ${finding.route} (${finding.version}): answer status: the client was refused ${refusalWords(refused)}, ` +
      `the handlers of a fresh application now answer ${value(finding.replayed)}${Number(finding.replayed) < 400 ? ': it is accepted now' : ''}.`
  }
  const start = `line ${finding.line}: ${finding.route} (${finding.version}): answer ${finding.part}${finding.pointer}: the client received `
  if (!order) return `${start}${value(finding.recorded)}, the handlers of a fresh application now answer ${value(finding.replayed)}.`
  const names = (held: unknown): string => (held as unknown[]).map(value).join(', ')
  // A field the replay gave two items alike (one tick of the clock) sorting both orders: what to do about it.
  const why = `; they gave some of these items one ${tie}, which sorts both orders and tells them apart in the record: if the handlers sort by ` +
    `${tie}, items alike there come in the store's order (made within one tick of the clock, here), which a second sort key settles`
  return `${start}its ${(finding.recorded as unknown[]).length} items in the order ${names(finding.recorded)}; the handlers of a fresh ` +
    `application, both alike, now answer them in the order ${names(finding.replayed)}${tie === undefined ? '' : why}.`
}

/**
 * Compares the answers of two fresh applications (`left`, `right`, played from `from` to `to`, in milliseconds) with
 * what each client received: the findings, and the exchanges not judged.
 * @example `const verdicts = judgeAnswers(exchanges, ...await playOnTwo(build, exchanges), { from, to })`
 */
function judgeAnswers (exchanges: readonly HandlerExchange[], left: Played, right: Played, window: { from: number, to: number }): AnswerVerdicts {
  const noise = new Noise()
  exchanges.forEach((item, index) => {
    const [one, other] = [left.answers[index], right.answers[index]]
    if (one !== undefined && other !== undefined) learnNoise(noise.pair(routeOf(item), left.turned[index], answeredBy(one)), one, other, [left, right])
  })
  const made = madeValues(exchanges, noise)
  // A value made anew carried inside a longer string (`customers/<id>`, `a,b`) is carried too.
  const madeInside = new IdsInStrings([...made].map((value) => [value, value] as const))
  const verdicts: AnswerVerdicts = { findings: [], notReplayable: [], compared: 0, volatile: 0 }
  // The exchanges whose redacted values the handlers answered otherwise: what they made or changed is not there now.
  const diverged: Diverged[] = []
  let used: { line: number, value: string } | undefined
  exchanges.forEach((item, index) => {
    const base = { line: item.line, route: routeOf(item), version: item.exchange.version }
    const [one, other] = [left.answers[index], right.answers[index]]
    if (!item.judged) return
    if (one === undefined || other === undefined) {
      if ('skipped' in item.url && item.url.skipped !== undefined) verdicts.notReplayable.push({ ...base, message: `answer: ${item.url.skipped}` })
      return
    }
    const { change, volatile } = firstChange(item, one, other, { noise, ...window, played: [left, right] })
    verdicts.volatile += volatile
    verdicts.compared++
    if (change === undefined) return
    const unmade = left.unmapped[index].some((value) => made.has(value) || madeInside.holds(value))
    if (unmade) {
      verdicts.compared--
      verdicts.notReplayable.push({
        ...base,
        message: 'answer: its request carries a value the handlers made (an id) for a request the traffic file ' +
        'does not hold (the replay starts from a fresh application: record from a fresh state, every request that makes what later ones use)'
      })
    } else if (JSON.stringify(item.exchange.clientRequest).includes(REDACTED)) {
      verdicts.compared--
      verdicts.notReplayable.push({ ...base, message: `answer: its request holds redacted values, sent as '${REDACTED}', and the handlers answer otherwise (${change.part}${change.pointer})` })
      diverged.push({ line: item.line, values: dataOf(item.exchange, true) })
    } else if ((used = usedFrom(diverged, item.exchange)) !== undefined) {
      verdicts.compared--
      verdicts.notReplayable.push({
        ...base,
        message: `answer: it uses what line ${used.line} made or sent (${shown(used.value)}), whose request held redacted values the handlers answered otherwise (${change.part}${change.pointer})`
      })
      diverged.push({ line: item.line, values: dataOf(item.exchange, true) })
    } else {
      const { order = false, tie, ...place } = change
      const finding = { ...base, direction: 'answer' as const, kind: 'differs' as const, ...place, versionChanges: [], converters: [] }
      verdicts.findings.push({ ...finding, text: describe(finding, order, { tie, refused: 'refused' in item.exchange ? item.exchange.refused : undefined }) })
    }
  })
  return verdicts
}

/**
 * Where the handlers are sent an exchange: the URL of the route serving its version, or why it is not sent (an
 * exchange recorded before captures held path parameters cannot be sent to a path that has them, nor one whose body
 * the record holds as the application's parser read it: ./sent-bodies.ts).
 * @example `handlerUrl(exchange, '/invoices/:invoiceId') // { pattern: '/invoices/:invoiceId' }`
 */
export function handlerUrl (exchange: Pick<RecordedExchange, 'clientRequest'>, served: string): HandlerExchange['url'] {
  const { headers, body } = exchange.clientRequest
  const sent = bodyAsSent(headers['content-type'], body, headers['content-length'])
  if (sent !== undefined && 'skipped' in sent) return { skipped: `not sent to the handlers: ${sent.skipped}` }
  if (exchange.clientRequest.params !== undefined || !/[:*]/.test(served)) return { pattern: served }
  return { skipped: 'recorded without its path parameters (by a release before they were recorded): record it again to send it to the handlers' }
}

/**
 * The converters' replay report with the handlers' verdicts added: the exchanges sent to two fresh applications
 * `build` makes, one after the other, and judged where the converters' replay reported nothing.
 * @example `const report = await withAnswers(await converterReport, buildApp, exchanges)`
 */
export async function withAnswers (
  report: ReplayReport, build: AppBuilder, sent: readonly HandlerExchange[], deliveries: { recorded: readonly DeliveryLine[], judged: ReadonlySet<number> } = { recorded: [], judged: new Set() }
): Promise<ReplayReport> {
  const reported = new Set([...report.findings, ...report.notReplayable].map((item) => item.line))
  const exchanges = sent.map((item) => reported.has(item.line) ? { ...item, judged: false } : item)
  // The renders whose converters' replay reported nothing are judged too (./handler-deliveries.ts).
  const observer = new DeliveryObserver(deliveries.recorded, new Set([...deliveries.judged].filter((line) => !reported.has(line))))
  const from = Date.now()
  const [left, right] = await playOnTwo(build, exchanges, observer)
  const window = { from, to: Date.now() }
  const verdicts = judgeAnswers(exchanges, left, right, window)
  const rendered = observer.judge([left, right], window)
  // What each request renders now, but where its answer needed state the replay lacks.
  const renders = observer.renderFindings(exchanges, new Set(verdicts.notReplayable.map((item) => item.line)))
  const byLine = (first: { line: number }, second: { line: number }): number => first.line - second.line
  return {
    ...report,
    findings: [...report.findings, ...verdicts.findings, ...renders, ...rendered.findings].sort(byLine),
    notReplayable: [...report.notReplayable, ...verdicts.notReplayable, ...rendered.notReplayable].sort(byLine),
    answers: { compared: verdicts.compared + rendered.compared, volatile: verdicts.volatile + rendered.volatile }
  }
}
