/**
 * `replay --handlers` of the webhooks each exchange renders (decisions 0177, 0211): each request is sent to a fresh
 * application inside an async context naming its exchange, so that a `webhooks.render()` call its handling makes
 * (awaited or not, in a hook or a timer it set) is told from one of a timer or a queue the application runs on its own.
 * A call counts over the window a recording counts: from the moment the versioner picks the request's version (it
 * publishes `fastify-versioner:served` right after the capture's first hook), so a `preHandler` hook's render counts
 * and an `onRequest`, `preParsing` or application `preValidation` hook's does not, until its reply is written (an
 * `onResponse` hook's render does not count). An exchange recorded with `renders` (the webhooks rendered while it was
 * served, sampled or not) is a finding when both applications render a webhook more times for it than it records: an
 * event its subscribers never received.
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import diagnosticsChannel from 'node:diagnostics_channel'
import type { FastifyReply } from 'fastify'
import type { HandlerExchange } from './handler-replay'
import type { ReplayFinding } from './replay-report'

/** The exchange a request is sent for, until its answer is in; `served` once its version is picked, `reply` once its handler started. */
interface Sending {
  readonly index: number
  open: boolean
  served: boolean
  reply?: FastifyReply
}

/** The exchange being sent, in the async context of its request (the replay's own process only). */
const sending = new AsyncLocalStorage<Sending>()

/** The versioner's channel published as it picks a request's version (right after the capture's first hook), in its async context. */
const SERVED = 'fastify-versioner:served'

/** Fastify's channel published as a route's handler starts (with its reply), in the async context of its request. */
const HANDLER_STARTS = 'tracing:fastify.request.handler:start'

/** Opens the window of the exchange whose request's version is picked (none outside a replay's sending). */
function served (): void {
  const store = sending.getStore()
  if (store !== undefined) store.served = true
}

/** Notes the reply of the exchange whose request's handler starts, to close its window once the reply is written. */
function handlerStarts (message: unknown): void {
  const store = sending.getStore()
  if (store !== undefined) store.reply = (message as { reply: FastifyReply }).reply
}

/**
 * Sends exchange `index`: `work` (an `inject` started within: its lazy promise form, started where it is awaited, would
 * lose the context) runs in its context; a render is its exchange's from its version's picking until its reply is
 * written (the answer in, where no handler ran). The versioner and Fastify publish on those channels only while they
 * have a subscriber: only while the replay sends.
 * @example
 * ```ts
 * const response = await whileSending(index, async () => await injected(root, request))
 * ```
 */
export async function whileSending<T> (index: number, work: () => Promise<T>): Promise<T> {
  const store: Sending = { index, open: true, served: false }
  diagnosticsChannel.subscribe(SERVED, served)
  diagnosticsChannel.subscribe(HANDLER_STARTS, handlerStarts)
  try {
    return await sending.run(store, work)
  } finally {
    store.open = false
    diagnosticsChannel.unsubscribe(SERVED, served)
    diagnosticsChannel.unsubscribe(HANDLER_STARTS, handlerStarts)
  }
}

/**
 * The exchange whose request the current code serves, within its window (by its index in the exchanges sent), or
 * `undefined` outside one (a hook before its version is picked, a timer or a queue of the application's own, a render
 * made once its reply was written).
 * @example `calls.push({ key, event, exchange: sentFor() })`
 */
export function sentFor (): number | undefined {
  const store = sending.getStore()
  return store?.open === true && store.served && store.reply?.raw.writableEnded !== true ? store.index : undefined
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
    const recorded = 'renders' in item.exchange ? item.exchange.renders : undefined
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
