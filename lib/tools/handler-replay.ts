/**
 * `replay --handlers`: the recorded requests sent, in the file's order, to the handlers of a fresh application with
 * `inject()`, each as its client sent it (its version's path, path parameters, query string, headers and body), and
 * what the client gets now kept for ./handler-answers.ts to compare with what it received. An identifier the record's
 * earlier answers gave (a value in a body or a header) that a later request carries, whole or inside a longer string,
 * is sent as the value this application's answer gave at the same place (docs/decisions/0234-replay-through-the-handlers.md,
 * 0239-replay-maps-ids-inside-strings.md).
 * @module
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { rootOf } from '../core/application-root'
import { isRedacted } from './value-difference'
import type { RecordedExchange, RecordedRefusal } from './traffic-file'
import { IdsInStrings, strayId } from './ids-in-strings'
import { bodyAsSent } from './sent-bodies'
import { inOrderOf, madeAnew, playedSide, recordedSide } from './answer-order'

/**
 * Builds a fresh application, as the app module's export does: every call a new instance with a fresh state.
 * @example
 * ```ts
 * const build: AppBuilder = async () => await buildApp({ database: await freshTestDatabase() })
 * ```
 */
export type AppBuilder = () => FastifyInstance | Promise<FastifyInstance>

/** An exchange to send: its line, the exchange, and the URL of the route serving its version (none: not sent, and why). */
export interface HandlerExchange {
  readonly line: number
  readonly exchange: RecordedExchange | RecordedRefusal
  /** The route's URL in the exchange's version (`/invoices/:invoiceId`), or why the exchange is not sent. */
  readonly url: { readonly pattern: string } | { readonly skipped: string | undefined }
  /** False for an exchange only sent (for the state it makes): of another API, or one the converters' replay reported. */
  readonly judged: boolean
  /** The name of the API serving it (none: no route serves it now). */
  readonly api?: string
}

/** What a client got: the status, the headers, and the body (JSON parsed, else the text; `undefined` when empty). */
export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, unknown>>
  readonly body: unknown
}

/** One application's run: per exchange (by index), its answer (`undefined`: not sent), and the recorded strings its request carried unmapped. */
export interface Played {
  readonly answers: ReadonlyArray<Answer | undefined>
  readonly unmapped: ReadonlyArray<readonly string[]>
  /** Each recorded identifier, and the value this application gave in its place. */
  readonly ids: ReadonlyMap<string, string>
  /** Each identifier this application gave, and the recorded one it stands for. */
  readonly back: ReadonlyMap<string, string>
  /** The recorded identifiers found inside longer strings, and replaced with this application's. */
  readonly inside: IdsInStrings
  /** This application's identifiers found inside its strings, and replaced with the recorded ones. */
  readonly outside: IdsInStrings
  /** Per exchange (by index), whether a second of the clock turned while the two applications served it (./replay-noise.ts). */
  readonly turned: readonly boolean[]
}

/** An ISO 8601 date-time's start: a time the handlers read from the clock, left out by the clock rule, never mapped. */
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d/

/** Request headers not sent as recorded: the transport's, which `inject()` writes for the body it sends. */
const TRANSPORT = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'expect'])

/** Response headers never compared nor mapped: the transport's, and the time of the answer. */
export const VOLATILE_HEADERS = new Set([...TRANSPORT, 'date'])

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * `value` with each string the map holds replaced by its value, and each distinctive id a longer string holds by its
 * own (./ids-in-strings.ts); what of its strings is left unmapped pushed to `unmapped`.
 */
function substituted (value: unknown, map: ReadonlyMap<string, string>, inside: IdsInStrings, unmapped: string[]): unknown {
  if (typeof value === 'string') {
    const mapped = map.get(value)
    if (mapped !== undefined) return mapped
    const replaced = inside.replace(value)
    unmapped.push(replaced.rest)
    return replaced.text
  }
  if (Array.isArray(value)) return value.map((item) => substituted(item, map, inside, unmapped))
  // Object.fromEntries defines each key as an own property: a client's `__proto__` key stays data.
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituted(item, map, inside, unmapped)]))
  return value
}

/** One application's identifiers: recorded → its own, each looked for inside longer strings, and the same turned round. */
interface IdMap {
  readonly ids: Map<string, string>
  readonly inside: IdsInStrings
  readonly back: Map<string, string>
  readonly outside: IdsInStrings
}

/** An empty map of identifiers. */
function idMap (): IdMap {
  return { ids: new Map(), inside: new IdsInStrings(), back: new Map(), outside: new IdsInStrings() }
}

/** A place of an answer where all three hold a string: the recorded one, and each application's. */
type Candidate = readonly [string, string, string]

/**
 * Collects every place where all three hold a string and the two applications answered differently (a value the
 * handlers make anew: an id). A value both applications answer alike (a name that moved in a list, a currency
 * upper-cased) is data, not an identifier.
 */
function collectIds (recorded: unknown, live: readonly [unknown, unknown], into: Candidate[]): void {
  const [left, right] = live
  if (typeof recorded === 'string' && typeof left === 'string' && typeof right === 'string') {
    // A date-time is no identifier: two answers made in one millisecond share one, each app's its own.
    if (left === right || recorded === '' || isRedacted(recorded) || DATE_TIME.test(recorded)) return
    into.push([recorded, left, right])
  } else if (Array.isArray(recorded) && Array.isArray(left) && Array.isArray(right)) {
    for (let index = 0; index < recorded.length; index++) collectIds(recorded[index], [left[index], right[index]], into)
  } else if (isRecord(recorded) && isRecord(left) && isRecord(right)) {
    for (const key of Object.keys(recorded)) if (Object.hasOwn(left, key) && Object.hasOwn(right, key)) collectIds(recorded[key], [left[key], right[key]], into)
  }
}

/**
 * Learns the identifiers of an answer (the first seen wins): its body's strings, its headers', and each segment of a
 * `Location`. A string holding known ids whose two applications' values differ by those ids only (`/customers/<id>`)
 * is no identifier of its own: it is compared with the ids mapped, so the shortest are learned first.
 */
function learnAnswer (recorded: RecordedExchange['clientResponse'], live: readonly [Answer, Answer], maps: readonly [IdMap, IdMap]): void {
  const found: Candidate[] = []
  // Each item of a list paired with the same item (by the ids known so far, else by what it holds beside the strings
  // made anew), whatever order each answered it in.
  const [made, own] = madeAnew(recorded.body, [live[0].body, live[1].body])
  const [left, right] = maps.map((map, index) => inOrderOf(recorded.body, live[index].body, [recordedSide(map, made), playedSide(map, own[index])], () => true))
  collectIds(recorded.body, [left, right], found)
  for (const [name, value] of Object.entries(recorded.headers)) {
    const now = [live[0].headers[name], live[1].headers[name]] as const
    if (VOLATILE_HEADERS.has(name) || typeof value !== 'string' || typeof now[0] !== 'string' || typeof now[1] !== 'string') continue
    collectIds(value, now, found)
    if (name !== 'location' && name !== 'content-location') continue
    const [before, left, right] = [value, now[0], now[1]].map((text) => text.split(/[/?&=#]/))
    if (before.length === left.length && before.length === right.length) before.forEach((segment, index) => { collectIds(segment, [left[index], right[index]], found) })
  }
  for (const [recordedValue, ...values] of found.sort((one, other) => one[0].length - other[0].length)) {
    // An application's id stands for one recorded id: a list answered with another item first teaches nothing; nor
    // does a string holding a known id without its counterpart (a retried create answered with a second invoice's URL).
    if (maps[0].ids.has(recordedValue) || maps.some((map, index) => map.back.has(values[index]) || strayId(recordedValue, values[index], map))) continue
    const turned = maps.map((map, index) => map.outside.replace(values[index]).text)
    if (maps[0].inside.holds(recordedValue) && turned[0] === turned[1]) continue
    maps.forEach((map, index) => {
      map.ids.set(recordedValue, values[index])
      map.back.set(values[index], recordedValue)
      map.inside.add(recordedValue, values[index])
      map.outside.add(values[index], recordedValue)
    })
  }
}

/** The path of a route pattern with its parameters filled in; `undefined` when one is missing. */
function filledPath (pattern: string, params: Readonly<Record<string, unknown>>): string | undefined {
  let missing = false
  const path = pattern.replace(/:([A-Za-z0-9_]+)(\([^)]*\))?|\*/g, (whole, name: string | undefined) => {
    const value = params[name ?? '*']
    if (value === undefined) missing = true
    return value === undefined ? whole : name === undefined ? String(value) : encodeURIComponent(String(value))
  })
  return missing ? undefined : path
}

/** The request an exchange's client sent, its recorded identifiers mapped; `undefined` when its path cannot be made. */
function requestOf (exchange: HandlerExchange['exchange'], pattern: string, map: IdMap, unmapped: string[]): InjectOptions | undefined {
  const sent = exchange.clientRequest
  const mapped = (value: unknown): unknown => substituted(value, map.ids, map.inside, unmapped)
  const url = filledPath(pattern, mapped(sent.params ?? {}) as Record<string, unknown>)
  if (url === undefined) return undefined
  const headers = Object.fromEntries(Object.entries(sent.headers).filter(([name]) => !TRANSPORT.has(name)))
  // In its recorded media type, as its client wrote it (./sent-bodies.ts); an exchange whose body cannot be is not sent.
  const body = bodyAsSent(sent.headers['content-type'], mapped(sent.body), sent.headers['content-length'])
  if (body !== undefined && 'skipped' in body) return undefined
  if (body?.contentType !== undefined) headers['content-type'] = body.contentType
  return {
    method: exchange.route.method.split(',')[0] as InjectOptions['method'],
    url,
    query: mapped(sent.query) as Record<string, string>,
    headers: mapped(headers) as Record<string, string>,
    ...(body === undefined ? {} : { payload: body.payload })
  }
}

/** The body of an answer: its JSON parsed, else its text; `undefined` when empty. */
function bodyOf (text: string): unknown {
  if (text === '') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/** What watches the two applications (./handler-deliveries.ts): attached to each once ready, finished before they close. */
interface PlayObserver {
  attach: (root: FastifyInstance) => void
  finish: (played: readonly [Played, Played]) => Promise<void>
  /** Runs the sending of exchange `index` (its `inject`, started within), so that what its request does is told as its. */
  sending: <T>(index: number, work: () => Promise<T>) => Promise<T>
}

/** An application being played: its root, the identifiers it gave, its answers, and the unmapped strings of its requests. */
interface Player {
  readonly root: FastifyInstance
  readonly ids: IdMap
  readonly answers: Array<Answer | undefined>
  readonly unmapped: string[][]
}

/** `root.inject(request)` started at once (its promise form is a lazy chain, started where it is awaited, out of this context). */
async function injected (root: FastifyInstance, request: InjectOptions): Promise<LightMyRequestResponse> {
  return await new Promise((resolve, reject) => {
    root.inject(request, (error, response) => { if (response === undefined) reject(error ?? new Error('no response')); else resolve(response) })
  })
}

/** Sends one exchange to an application (within `observer.sending`); its answer, or `undefined` when its path cannot be made. */
async function send (player: Player, { exchange, url }: HandlerExchange, observer: PlayObserver | undefined): Promise<Answer | undefined> {
  const carried: string[] = []
  const request = 'pattern' in url ? requestOf(exchange, url.pattern, player.ids, carried) : undefined
  const index = player.unmapped.push(carried) - 1
  // In the exchange's context: the renders its request makes are its own (./handler-renders.ts).
  const inject = async (): Promise<LightMyRequestResponse> => await injected(player.root, request as InjectOptions)
  const response = request === undefined ? undefined : observer === undefined ? await inject() : await observer.sending(index, inject)
  const answer = response === undefined ? undefined : { status: response.statusCode, headers: response.headers as Record<string, unknown>, body: bodyOf(response.body) }
  player.answers.push(answer)
  return answer
}

/**
 * Sends the exchanges, in order, to two fresh applications `build` makes (closed after), each exchange to one then the
 * other, mapping identifiers as it goes. The second is first sent one request no route serves, so that what counts
 * requests (Fastify's request ids) differs between them and shows as what the handlers make anew. `observer` watches
 * both applications while they are open.
 * @example
 * ```ts
 * const [left, right] = await playOnTwo(buildApp, exchanges)
 * ```
 */
export async function playOnTwo (build: AppBuilder, exchanges: readonly HandlerExchange[], observer?: PlayObserver): Promise<[Played, Played]> {
  const players: Player[] = []
  try {
    for (let index = 0; index < 2; index++) {
      const root = rootOf(await build())
      players.push({ root, ids: idMap(), answers: [], unmapped: [] })
      await root.ready()
      observer?.attach(root)
    }
    const [left, right] = players
    await right.root.inject({ method: 'GET', url: '/.well-known/fastify-versioner-replay-warm-up' })
    const turned: boolean[] = []
    for (const item of exchanges) {
      const from = Date.now()
      const answers = [await send(left, item, observer), await send(right, item, observer)] as const
      turned.push(Math.floor(from / 1000) !== Math.floor(Date.now() / 1000))
      if (answers[0] !== undefined && answers[1] !== undefined) learnAnswer(item.exchange.clientResponse, [answers[0], answers[1]], [left.ids, right.ids])
    }
    const played = players.map(({ answers, unmapped, ids }): Played => ({ answers, unmapped, ids: ids.ids, back: ids.back, inside: ids.inside, outside: ids.outside, turned })) as [Played, Played]
    await observer?.finish(played)
    return played
  } finally {
    for (const player of players) await player.root.close()
  }
}
