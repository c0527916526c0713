/**
 * `replay --handlers` of the version each subscriber is rendered in (decision 0290): a subscriber's pinned version does
 * not depend on the request whose handling renders a webhook. A subscriber a fresh application's handlers render, for
 * the requests of two versions, each in its request's version (`request.apiVersion` passed to `render` for the pin),
 * is a finding on the first such render whose recording delivered the event in another version than its request's. A
 * recording names no subscriber (the capture keeps none), so the subscribers are those of the fresh application, told
 * apart by their ids; a subscriber pinned to one version all along (re-pinned since the recording, added or removed)
 * is no finding.
 * @module
 */
import type { HandlerExchange } from './handler-replay'
import type { ReplayFinding } from './replay-report'
import type { DeliveryLine } from './traffic-file'

/** A render call of a fresh application, with the version each subscriber it was given was rendered in. */
export interface PinnedCall {
  readonly api: string
  readonly key: string
  readonly exchange: number | undefined
  /** Each subscriber given (its id) and the version it was rendered in (failed ones too), once the call returned. */
  readonly pins: ReadonlyArray<{ readonly id: string, readonly version: string }>
}

/** A subscriber rendered in its request's version: the call, its exchange's index, and that version. */
interface InRequestVersion {
  readonly call: PinnedCall
  readonly exchange: number
  readonly version: string
}

/** Per `api key id`, the calls of one application that render the subscriber in the version of the request that made them. */
function followingRequests (exchanges: readonly HandlerExchange[], calls: readonly PinnedCall[]): Map<string, InRequestVersion[]> {
  const bySubscriber = new Map<string, InRequestVersion[]>()
  for (const call of calls) {
    if (call.exchange === undefined) continue
    const requested = exchanges[call.exchange]?.exchange.version
    for (const { id, version } of call.pins) {
      if (version !== requested) continue
      const list = bySubscriber.get(`${call.api} ${call.key} ${id}`) ?? []
      list.push({ call, exchange: call.exchange, version })
      bySubscriber.set(`${call.api} ${call.key} ${id}`, list)
    }
  }
  return bySubscriber
}

/**
 * The findings of the subscribers both applications render in the version of each request that renders them, for
 * requests of two versions or more: on the first render (`lines`: each call's recorded render, judged) of a version
 * other than the subscriber's first, whose recording delivered the event in a version other than its request's.
 * @example
 * ```ts
 * const findings = judgePins(exchanges, [leftCalls, rightCalls], lineOf, recorded)
 * ```
 */
export function judgePins (
  exchanges: readonly HandlerExchange[], calls: readonly [readonly PinnedCall[], readonly PinnedCall[]],
  lineOf: ReadonlyMap<PinnedCall, number>, recorded: readonly DeliveryLine[]
): ReplayFinding[] {
  const findings: ReplayFinding[] = []
  const byLine = new Map(recorded.map((item) => [item.line, item.delivery]))
  const [left, right] = calls.map((list) => followingRequests(exchanges, list))
  for (const [subscriber, renders] of left) {
    const versions = (list: readonly InRequestVersion[] | undefined): Set<string> => new Set(list?.map((render) => render.version))
    if (versions(renders).size < 2 || versions(right.get(subscriber)).size < 2) continue
    const [first] = renders
    const found = renders.find((render) => {
      const line = lineOf.get(render.call)
      const delivery = line === undefined ? undefined : byLine.get(line)
      return render.version !== first.version && delivery !== undefined && delivery.deliveries.some((one) => one.version !== render.version)
    })
    if (found === undefined) continue
    const line = lineOf.get(found.call) as number
    const delivery = byLine.get(line) as DeliveryLine['delivery']
    const id = subscriber.split(' ').at(-1) as string
    const request = exchanges[found.exchange]
    const other = exchanges[first.exchange]
    const route = `webhook ${delivery.webhook.name}`
    const recordedIn = [...new Set(delivery.deliveries.map((one) => one.version))]
    const text = `line ${line}: ${route} (${found.version}): delivery to subscriber '${id}': rendered in ${found.version}, the version of the request ` +
      `that rendered it (line ${request.line}: ${request.exchange.route.method} ${request.exchange.route.url} (${request.exchange.version})), and in ` +
      `${first.version} for the request of line ${other.line} (${other.exchange.version}); the recording delivered this event in ` +
      `${recordedIn.join(', ')}: a subscriber is rendered in its pinned version, whichever request renders the event (check the version the ` +
      'handler passes to render for each subscriber: its own, not request.apiVersion).'
    findings.push({ line, route, version: found.version, direction: 'delivery', kind: 'differs', part: 'subscribers', pointer: `/${id.replace(/~/g, '~0').replace(/\//g, '~1')}`, recorded: first.version, replayed: found.version, versionChanges: [], converters: [], text })
  }
  return findings
}
