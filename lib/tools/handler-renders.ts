/**
 * `replay --handlers` of the webhooks each exchange renders (decision 0177): each request is sent to a fresh application
 * inside an async context naming its exchange, so that a `webhooks.render()` call its handling makes (awaited or not,
 * in a hook or a timer it set) is told from one of a timer or a queue the application runs on its own. Only a call made
 * once its handler has started counts (Fastify's `tracing:fastify.request.handler:start`): a render of an application
 * hook running earlier (`onRequest`, `preParsing`, `preValidation`) is outside the window a recording counts, which
 * starts when the capture's first hook runs (decision 0199). An exchange recorded with `renders` (the webhooks
 * rendered while it was served, sampled or not) is a finding when both applications render a webhook more times for
 * it than it records: an event its subscribers never received.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import diagnosticsChannel from 'node:diagnostics_channel'
import type { HandlerExchange } from './handler-replay'
import type { ReplayFinding } from './replay-report'

/** The exchange a request is sent for, until its answer is in; `handled` once its handler has started. */
interface Sending {
  readonly index: number
  open: boolean
  handled: boolean
}

/** The exchange being sent, in the async context of its request (the replay's own process only). */
const sending = new AsyncLocalStorage<Sending>()

/** Fastify's channel published as a route's handler starts, in the async context of its request. */
const HANDLER_STARTS = 'tracing:fastify.request.handler:start'

/** Marks the exchange whose request's handler starts (none outside a replay's sending). */
function handlerStarts (): void {
  const store = sending.getStore()
  if (store !== undefined) store.handled = true
}

/**
 * Sends exchange `index`: `work` (an `inject` started within: its lazy promise form, started where it is awaited, would
 * lose the context) runs in its context; a render is its exchange's from its handler's start until the answer is in.
 * Fastify publishes the handler's start only while the channel has a subscriber: only while the replay sends.
 * @example
 * ```ts
 * const response = await whileSending(index, async () => await injected(root, request))
 * ```
 */
export async function whileSending<T> (index: number, work: () => Promise<T>): Promise<T> {
  const store: Sending = { index, open: true, handled: false }
  diagnosticsChannel.subscribe(HANDLER_STARTS, handlerStarts)
  try {
    return await sending.run(store, work)
  } finally {
    store.open = false
    diagnosticsChannel.unsubscribe(HANDLER_STARTS, handlerStarts)
  }
}

/**
 * The exchange whose request the current code serves, once its handler has started (by its index in the exchanges
 * sent), or `undefined` outside one (a hook before its handler, a timer or a queue of the application's own, a render
 * made after the answer was in).
 * @example `calls.push({ key, event, exchange: sentFor() })`
 */
export function sentFor (): number | undefined {
  const store = sending.getStore()
  return store?.open === true && store.handled ? store.index : undefined
}

/** A render call of a fresh application: its API's name, its webhook (`METHOD name`), its event, and the exchange it was made for. */
export interface RenderCall {
  readonly api: string
  readonly key: string
  readonly event: unknown
  readonly exchange: number | undefined
}

/** An event as JSON, cut after 200 characters. */
function eventText (event: unknown): string {
  const text = JSON.stringify(event) ?? 'undefined'
  return text.length > 200 ? `${text.slice(0, 199)}… (${text.length} characters)` : text
}

/** An exchange's calls of its API's webhooks (the API whose renders its record counts), by webhook. */
function callsOf (calls: readonly RenderCall[], index: number, api: string | undefined): Map<string, RenderCall[]> {
  const byKey = new Map<string, RenderCall[]>()
  for (const call of calls) {
    if (call.exchange !== index || call.api !== api) continue
    const list = byKey.get(call.key)
    if (list === undefined) byKey.set(call.key, [call])
    else list.push(call)
  }
  return byKey
}

/**
 * The findings of the renders each exchange's request makes now on both applications (`calls`), where its record says
 * what it rendered: a webhook rendered more times than recorded. `passed` are the lines whose answer was not judged
 * (state the replay lacks): what they render now is not judged either.
 * @example
 * ```ts
 * const findings = judgeRenders(exchanges, [leftCalls, rightCalls], new Set([12]))
 * ```
 */
export function judgeRenders (exchanges: readonly HandlerExchange[], calls: readonly [readonly RenderCall[], readonly RenderCall[]], passed: ReadonlySet<number>): ReplayFinding[] {
  const findings: ReplayFinding[] = []
  exchanges.forEach((item, index) => {
    const recorded = item.exchange.renders
    if (!item.judged || recorded === undefined || passed.has(item.line)) return
    const [left, right] = calls.map((list) => callsOf(list, index, item.api))
    for (const [key, made] of left) {
      const [method, ...name] = key.split(' ')
      const was = recorded.filter((render) => render.method.toUpperCase() === method && render.name === name.join(' ')).reduce((sum, render) => sum + render.count, 0)
      const now = Math.min(made.length, right.get(key)?.length ?? 0)
      if (now <= was) continue
      const route = `${item.exchange.route.method} ${item.exchange.route.url}`
      const webhook = name.join(' ')
      const pointer = `/${webhook.replace(/~/g, '~0').replace(/\//g, '~1')}`
      const text = `line ${item.line}: ${route} (${item.exchange.version}): answer webhooks${pointer}: the recording shows ${was} render(s) of webhook ${webhook} ` +
        `(${method}) while it was served, the handlers of a fresh application now render ${now}: its subscribers are sent an event that did not ` +
        `happen: ${eventText(made[was].event)}.`
      const base = { line: item.line, route, version: item.exchange.version, direction: 'answer' as const, kind: 'differs' as const }
      findings.push({ ...base, part: 'webhooks', pointer, recorded: was, replayed: now, versionChanges: [], converters: [], text })
    }
  })
  return findings
}
