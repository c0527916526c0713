/**
 * `replay --handlers`: the recorded requests sent, in the file's order, to the handlers of a fresh application with
 * `inject()`, each as its client sent it (its version's path, path parameters, query string, headers and body), and
 * what the client gets now kept for ./handler-answers.ts to compare with what it received. An identifier the record's
 * earlier answers gave (a value in a body or a header) that a later request carries is sent as the value this
 * application's answer gave at the same place (docs/decisions/0234-replay-through-the-handlers.md).
 * @module
 */
import type { FastifyInstance, InjectOptions } from 'fastify'
import { rootOf } from '../core/application-root'
import { isRedacted } from '../values/redaction'
import type { RecordedExchange } from './traffic-file'

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
  readonly exchange: RecordedExchange
  /** The route's URL in the exchange's version (`/invoices/:invoiceId`), or why the exchange is not sent. */
  readonly url: { readonly pattern: string } | { readonly skipped: string | undefined }
  /** False for an exchange only sent (for the state it makes): of another API, or one the converters' replay reported. */
  readonly judged: boolean
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

/** `value` with each string the map holds replaced by its value; the strings it does not hold pushed to `unmapped`. */
function substituted (value: unknown, map: ReadonlyMap<string, string>, unmapped: string[]): unknown {
  if (typeof value === 'string') {
    const mapped = map.get(value)
    if (mapped === undefined) unmapped.push(value)
    return mapped ?? value
  }
  if (Array.isArray(value)) return value.map((item) => substituted(item, map, unmapped))
  // Object.fromEntries defines each key as an own property: a client's `__proto__` key stays data.
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituted(item, map, unmapped)]))
  return value
}

/**
 * Learns, at every place all three hold a string and the two applications answered differently (a value the handlers
 * make anew: an id), the recorded one as standing for each application's (the first seen wins). A value both
 * applications answer alike (a name that moved in a list, a currency upper-cased) is data, not an identifier.
 */
function learnIds (recorded: unknown, live: readonly [unknown, unknown], maps: readonly [Map<string, string>, Map<string, string>]): void {
  const [left, right] = live
  if (typeof recorded === 'string' && typeof left === 'string' && typeof right === 'string') {
    // A date-time is no identifier: two answers made in one millisecond share one, each app's its own.
    if (left === right || recorded === '' || isRedacted(recorded) || DATE_TIME.test(recorded)) return
    // An application's id stands for one recorded id: a list answered with another item first teaches nothing.
    if (maps[0].has(recorded) || maps.some((map, index) => [...map.values()].includes(live[index] as string))) return
    maps.forEach((map, index) => { map.set(recorded, live[index] as string) })
  } else if (Array.isArray(recorded) && Array.isArray(left) && Array.isArray(right)) {
    for (let index = 0; index < recorded.length; index++) learnIds(recorded[index], [left[index], right[index]], maps)
  } else if (isRecord(recorded) && isRecord(left) && isRecord(right)) {
    for (const key of Object.keys(recorded)) if (Object.hasOwn(left, key) && Object.hasOwn(right, key)) learnIds(recorded[key], [left[key], right[key]], maps)
  }
}

/** Learns the identifiers of an answer: its body's strings, its headers', and each segment of a `Location`. */
function learnAnswer (recorded: RecordedExchange['clientResponse'], live: readonly [Answer, Answer], maps: readonly [Map<string, string>, Map<string, string>]): void {
  learnIds(recorded.body, [live[0].body, live[1].body], maps)
  for (const [name, value] of Object.entries(recorded.headers)) {
    const now = [live[0].headers[name], live[1].headers[name]] as const
    if (VOLATILE_HEADERS.has(name) || typeof value !== 'string' || typeof now[0] !== 'string' || typeof now[1] !== 'string') continue
    learnIds(value, now, maps)
    if (name !== 'location' && name !== 'content-location') continue
    const [before, left, right] = [value, now[0], now[1]].map((text) => text.split(/[/?&=#]/))
    if (before.length === left.length && before.length === right.length) before.forEach((segment, index) => { learnIds(segment, [left[index], right[index]], maps) })
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
function requestOf (exchange: RecordedExchange, pattern: string, map: ReadonlyMap<string, string>, unmapped: string[]): InjectOptions | undefined {
  const sent = exchange.clientRequest
  const url = filledPath(pattern, substituted(sent.params ?? {}, map, unmapped) as Record<string, unknown>)
  if (url === undefined) return undefined
  const headers = Object.fromEntries(Object.entries(sent.headers).filter(([name]) => !TRANSPORT.has(name)))
  const json = typeof headers['content-type'] === 'string' && /json/i.test(headers['content-type'])
  if (sent.body !== undefined && !json) headers['content-type'] = 'application/json'
  return {
    method: exchange.route.method.split(',')[0] as InjectOptions['method'],
    url,
    query: substituted(sent.query, map, unmapped) as Record<string, string>,
    headers: substituted(headers, map, []) as Record<string, string>,
    ...(sent.body === undefined ? {} : { payload: JSON.stringify(substituted(sent.body, map, unmapped)) })
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
}

/** An application being played: its root, the identifiers it gave, its answers, and the unmapped strings of its requests. */
interface Player {
  readonly root: FastifyInstance
  readonly ids: Map<string, string>
  readonly answers: Array<Answer | undefined>
  readonly unmapped: string[][]
}

/** Sends one exchange to an application; its answer, or `undefined` when its path cannot be made. */
async function send (player: Player, { exchange, url }: HandlerExchange): Promise<Answer | undefined> {
  const carried: string[] = []
  const request = 'pattern' in url ? requestOf(exchange, url.pattern, player.ids, carried) : undefined
  player.unmapped.push(carried)
  const response = request === undefined ? undefined : await player.root.inject(request)
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
      players.push({ root, ids: new Map(), answers: [], unmapped: [] })
      await root.ready()
      observer?.attach(root)
    }
    const [left, right] = players
    await right.root.inject({ method: 'GET', url: '/.well-known/fastify-versioner-replay-warm-up' })
    for (const item of exchanges) {
      const answers = [await send(left, item), await send(right, item)] as const
      if (answers[0] !== undefined && answers[1] !== undefined) learnAnswer(item.exchange.clientResponse, [answers[0], answers[1]], [left.ids, right.ids])
    }
    const played: [Played, Played] = [{ answers: left.answers, unmapped: left.unmapped, ids: left.ids }, { answers: right.answers, unmapped: right.unmapped, ids: right.ids }]
    await observer?.finish(played)
    return played
  } finally {
    for (const player of players) await player.root.close()
  }
}
