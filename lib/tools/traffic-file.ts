/**
 * Reading recorded traffic: NDJSON, one exchange of the channel `fastify-versioner:exchange` or one webhook render of
 * the channel `fastify-versioner:webhook` a line (what `captureExchanges` publishes; a line with a `webhook` key is a
 * render). Each line is parsed by `JSON.parse` when it is JSON not nested too deep, else read
 * as the tools read JSON files (./json-text.ts: a syntax and depth pass naming the column), then checked for the exchange's shape; a line that is not one is a problem naming the
 * line and what is wrong. Blank lines separate nothing and are passed over.
 * @module
 */
import type { CapturedExchange } from '../serve/exchange-records'
import type { CapturedWebhook } from '../serve/webhook-capture'
import type { RefusedExchange } from '../serve/exchange-records'
import { parseJsonText } from './json-text'
import { trafficText } from './traffic-arguments'

/**
 * An exchange of a traffic file: `latest` is missing from files recorded before it was (then, the newest version now).
 * @example
 * ```ts
 * declare const line: TrafficLine
 * const exchange: RecordedExchange = line.exchange
 * console.log(exchange.version, exchange.latest ?? 'recorded before latest was', exchange.route.url)
 * ```
 */
export type RecordedExchange = Omit<CapturedExchange, 'latest'> & { readonly latest?: string }

/**
 * An exchange read from a traffic file, with its line (from 1).
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises'
 * const traffic = readTraffic(await readFile('traffic.ndjson', 'utf8'))
 * const first: TrafficLine | undefined = traffic.exchanges[0]
 * if (first !== undefined) console.log(`line ${first.line}: ${first.exchange.route.method} ${first.exchange.route.url}`)
 * ```
 */
export interface TrafficLine {
  readonly line: number
  readonly exchange: RecordedExchange
}

/**
 * A refused exchange of a traffic file (decision 0307): a line with a `refused` key; `latest` may be missing from lines
 * written by hand.
 * @example
 * ```ts
 * declare const traffic: Traffic
 * for (const { line, refusal } of traffic.refusals) console.log(`line ${line}: ${refusal.version} refused by ${refusal.refused.by} (${refusal.clientResponse.status})`)
 * ```
 */
export type RecordedRefusal = Omit<RefusedExchange, 'latest'> & { readonly latest?: string }

/**
 * A refused exchange read from a traffic file, with its line (from 1).
 * @example
 * ```ts
 * declare const traffic: Traffic
 * const first: RefusalLine | undefined = traffic.refusals[0]
 * if (first !== undefined) console.log(`line ${first.line}: ${first.refusal.refused.message}`)
 * ```
 */
export interface RefusalLine {
  readonly line: number
  readonly refusal: RecordedRefusal
}

/**
 * A webhook render of a traffic file (decision 0238): `latest` and `timestamp` may be missing from files written by hand.
 * @example
 * ```ts
 * declare const line: DeliveryLine
 * const render: RecordedWebhook = line.delivery
 * console.log(render.webhook.name, render.latest ?? 'written by hand')
 * ```
 */
export type RecordedWebhook = Omit<CapturedWebhook, 'latest' | 'timestamp'> & { readonly latest?: string, readonly timestamp?: number }

/**
 * A webhook render read from a traffic file, with its line (from 1).
 * @example
 * ```ts
 * declare const traffic: Traffic
 * const renders: readonly DeliveryLine[] = traffic.deliveries
 * for (const { line, delivery } of renders) console.log(`line ${line}: webhook ${delivery.webhook.name}`)
 * ```
 */
export interface DeliveryLine {
  readonly line: number
  readonly delivery: RecordedWebhook
}

/**
 * A line that is not an exchange: its number and what is wrong.
 * @example
 * ```ts
 * declare const traffic: Traffic
 * const problems: readonly TrafficProblem[] = traffic.problems
 * for (const { line, message } of problems) console.error(`traffic.ndjson:${line}: ${message}`)
 * ```
 */
export interface TrafficProblem {
  readonly line: number
  readonly message: string
}

/**
 * What a traffic file holds: its exchanges, its webhook renders, and its lines that are neither.
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises'
 * const traffic: Traffic = readTraffic(await readFile('traffic.ndjson', 'utf8'))
 * console.log(`${traffic.exchanges.length} exchanges, ${traffic.deliveries.length} webhook renders, ${traffic.problems.length} bad lines`)
 * ```
 */
export interface Traffic {
  readonly exchanges: readonly TrafficLine[]
  /** The refused exchanges (none in files recorded before they were). */
  readonly refusals: readonly RefusalLine[]
  readonly deliveries: readonly DeliveryLine[]
  readonly problems: readonly TrafficProblem[]
}

/** The codes of the versioner's own 500s: a converter failed, HEAD refused a migrated request, a version refused a converted response. */
const SERVER_FAILURES = ['FST_VERSIONER_UNCONVERTIBLE_RESPONSE', 'FST_VERSIONER_CONVERTER_FAILED', 'FST_VERSIONER_LATEST_REQUEST_VALIDATION']

/**
 * Why an exchange is not replayed when its recorded answer is one of the versioner's own 500s (older releases recorded
 * them: a server failure, not behaviour to keep), read from the `code` of the error body; `undefined` for any other.
 * @example
 * ```ts
 * const why = serverFailure(exchange) // "the recorded answer is the versioner's own 500 (FST_VERSIONER_CONVERTER_FAILED), …"
 * ```
 */
export function serverFailure (exchange: RecordedExchange): string | undefined {
  const code = (exchange.handlerResponse.body as { code?: unknown } | null | undefined)?.code
  if (exchange.handlerResponse.status !== 500 || !SERVER_FAILURES.includes(code as string)) return undefined
  return `the recorded answer is the versioner's own 500 (${String(code)}), a server failure and not behaviour to keep: remove it from the traffic file ` +
    '(captureExchanges no longer records such answers)'
}

/** How deep a recorded body may nest (deeper than any body Fastify's serializer writes). */
const MAX_DEPTH = 256

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** What is wrong with a recorded request or response (`status` true for responses), if anything. */
function recordProblem (name: string, value: unknown, status: boolean): string | undefined {
  if (!isObject(value)) return `${name} is not an object`
  if (!isObject(value.headers)) return `${name}.headers is not an object`
  if (status) return Number.isInteger(value.status) ? undefined : `${name}.status is not a whole number`
  if (value.params !== undefined && !isObject(value.params)) return `${name}.params is not an object`
  return isObject(value.query) ? undefined : `${name}.query is not an object`
}

/** What is wrong with a parsed line as an exchange, if anything. */
function exchangeProblem (value: unknown): string | undefined {
  if (!isObject(value)) return 'not an exchange (a JSON object with version, route, clientRequest, handlerRequest, handlerResponse, clientResponse)'
  if (typeof value.version !== 'string' || value.version === '') return 'its version is not a string'
  const route = value.route
  if (!isObject(route) || typeof route.method !== 'string' || typeof route.url !== 'string') return 'its route is not { method, url }'
  if (value.latest !== undefined && (typeof value.latest !== 'string' || value.latest === '')) return 'its latest is not a version string'
  if (value.headData !== undefined && value.headData !== true) return 'its headData is not true'
  const renders = value.renders
  const badRender = (item: unknown): boolean => !isObject(item) || typeof item.name !== 'string' || typeof item.method !== 'string' || !Number.isInteger(item.count) || (item.count as number) < 1
  if (renders !== undefined && (!Array.isArray(renders) || renders.some(badRender))) return 'its renders is not a list of { name, method, count }'
  return recordProblem('clientRequest', value.clientRequest, false) ?? recordProblem('handlerRequest', value.handlerRequest, false) ??
    recordProblem('handlerResponse', value.handlerResponse, true) ?? recordProblem('clientResponse', value.clientResponse, true)
}

/** What is wrong with a parsed line holding a `refused` key as a refused exchange, if anything. */
function refusalProblem (value: Record<string, unknown>): string | undefined {
  const { refused } = value
  if (typeof value.version !== 'string' || value.version === '') return 'its version is not a string'
  if (!isObject(value.route) || typeof value.route.method !== 'string' || typeof value.route.url !== 'string') return 'its route is not { method, url }'
  if (value.latest !== undefined && (typeof value.latest !== 'string' || value.latest === '')) return 'its latest is not a version string'
  if (!isObject(refused) || (refused.by !== 'validation' && refused.by !== 'converter') || !Number.isInteger(refused.status) || typeof refused.message !== 'string') {
    return "its refused is not { by: 'validation' | 'converter', status, message }"
  }
  return recordProblem('clientRequest', value.clientRequest, false) ?? recordProblem('refusedResponse', value.refusedResponse, true) ??
    recordProblem('clientResponse', value.clientResponse, true)
}

/** What is wrong with a parsed line holding a `webhook` key as a webhook render, if anything. */
function webhookProblem (value: Record<string, unknown>): string | undefined {
  const { webhook, deliveries } = value
  if (!isObject(webhook) || typeof webhook.name !== 'string' || webhook.name === '' || typeof webhook.method !== 'string') return 'its webhook is not { name, method }'
  if (value.latest !== undefined && (typeof value.latest !== 'string' || value.latest === '')) return 'its latest is not a version string'
  if (value.timestamp !== undefined && !Number.isInteger(value.timestamp)) return 'its timestamp is not a whole number'
  if (!('event' in value)) return 'it has no event'
  if (!Array.isArray(deliveries)) return 'its deliveries is not a list'
  const bad = deliveries.findIndex((delivery) => !isObject(delivery) || typeof delivery.version !== 'string' || delivery.version === '' || !('body' in delivery))
  return bad === -1 ? undefined : `its deliveries[${bad}] is not { version, body }`
}

/** How deep objects and arrays nest in a JSON text, read without parsing it (strings skipped); a bound for bad text. */
function nesting (text: string): number {
  let depth = 0
  let deepest = 0
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at)
    if (code === 0x22) {
      // A string: to its closing quote, past escapes.
      for (at++; at < text.length && text.charCodeAt(at) !== 0x22; at++) if (text.charCodeAt(at) === 0x5c) at++
    } else if (code === 0x7b || code === 0x5b) {
      if (++depth > deepest) deepest = depth
    } else if (code === 0x7d || code === 0x5d) {
      depth--
    }
  }
  return deepest
}

/**
 * A line parsed: by `JSON.parse` when it is JSON nesting at most {@link MAX_DEPTH} deep (the common case, fast), else
 * through ./json-text.ts, which says what is wrong and where.
 */
function parsedLine (source: string): ReturnType<typeof parseJsonText> {
  if (nesting(source) <= MAX_DEPTH) {
    try {
      return { ok: true, value: JSON.parse(source) as unknown }
    } catch {}
  }
  return parseJsonText(source, MAX_DEPTH)
}

/**
 * The exchanges (handled and refused) and webhook renders of a traffic file's text, and every line that is none of these (with its number and what
 * is wrong).
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises'
 * const { exchanges, deliveries, problems } = readTraffic(await readFile('exchanges.ndjson', 'utf8'))
 * for (const problem of problems) console.error(`line ${problem.line}: ${problem.message}`)
 * ```
 */
export function readTraffic (text: string): Traffic {
  const exchanges: TrafficLine[] = []
  const deliveries: DeliveryLine[] = []
  const refusals: RefusalLine[] = []
  const problems: TrafficProblem[] = []
  // A byte-order mark (an editor's or PowerShell's UTF-8) is no JSON.
  const lines = trafficText(text).replace(/^\uFEFF/, '').split('\n')
  for (let index = 0; index < lines.length; index++) {
    const source = lines[index].replace(/\r$/, '')
    if (source.trim() === '') continue
    const line = index + 1
    const parsed = parsedLine(source)
    if (!parsed.ok) {
      // Each line is a JSON text of its own: it is the line that ends early. The last one, unless a newline ends it, is
      // most likely a line cut off by a copy of a capture still writing it.
      const cutOff = index === lines.length - 1 ? '; the file\'s last line has no newline: cut off mid-write (a copy of a capture still writing?): copy the file again, or delete the line' : ''
      problems.push({ line, message: `not JSON at column ${parsed.place.column}: ${parsed.problem.replace(/^the file ends /, 'the line ends ')}${cutOff}` })
      continue
    }
    if (isObject(parsed.value) && 'webhook' in parsed.value) {
      const problem = webhookProblem(parsed.value)
      if (problem === undefined) deliveries.push({ line, delivery: parsed.value as unknown as RecordedWebhook })
      else problems.push({ line, message: `a webhook render, but ${problem}` })
      continue
    }
    if (isObject(parsed.value) && 'refused' in parsed.value) {
      const problem = refusalProblem(parsed.value)
      if (problem === undefined) refusals.push({ line, refusal: parsed.value as unknown as RecordedRefusal })
      else problems.push({ line, message: `a refused exchange, but ${problem}` })
      continue
    }
    const problem = exchangeProblem(parsed.value)
    if (problem === undefined) exchanges.push({ line, exchange: parsed.value as RecordedExchange })
    else problems.push({ line, message: problem })
  }
  return { exchanges, refusals, deliveries, problems }
}
