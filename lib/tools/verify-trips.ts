/**
 * `verify`'s round trips. Up and back, on a route whose response holds fields of its body: what a client of a version
 * sent, once up to HEAD and back down in the response a handler echoing it answers (./echo-response.ts), must come
 * back equal at those fields, every value followed (./value-comparison.ts), numbers and retyped fields included (a
 * converter that maps between two representations restores them). Down and back, on a route that returns the schema
 * it takes: what a client read, sent back up as it is, must give HEAD back every string it showed (a name joined for
 * an old version and split again on the wrong space). The version change at fault is the one nearest HEAD where what
 * went up and what came down differ.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { SchemaGeneration } from '../schemas/generation'
import type { RequestPart } from '../routes/version-plan'
import { copyJson } from '../serve/step-runner'
import { pointerOfPath, schemaAt, type FollowedValue, type Pairings, type PathKey, type RefResolver } from './data-flow'
import { followedWithMoves } from './moved-values'
import { inSentOrder, lostItems, type LostItems } from './round-trip-lists'
import { echoResponse, type EchoedResponse } from './echo-response'
import { arrives, deliveredStrings } from './sentinel-arrival'
import type { GeneratedExample } from './example-generation'
import { changedValue, shown } from './value-comparison'
import { asServed, toldAsStripped } from './validation-strips'
import { replayExample, type Replay, type ReplayContext, type Report, type Trail } from './verify-replay'
import type { Coverage } from './verify-coverage'

/** What the round trips need of `verify`'s run. */
export interface TripEnvironment extends ReplayContext {
  readonly generation: SchemaGeneration
  readonly resolveRef: RefResolver
  /** The fields paired between levels, computed once for the run. */
  readonly pairings: Pairings
  readonly report: Report
  replayed: number
}

/** A response replay's target: where its findings are, besides the replay itself. */
export type ResponseTarget = Omit<Replay, 'data' | 'required'> & { readonly route: string, readonly version: string, readonly part: string }

/** What a request of the route does, for a trip down and back up: its forms, how served, its converters, the name of its body part. */
export interface RequestSide {
  readonly formAt: Replay['formAt']
  readonly steps: Replay['steps']
  /** What serving does to the parts before the converters: validates them (a left-out field's `default` filled), cleans them. */
  readonly served: (data: Partial<Record<RequestPart, unknown>>) => void
  readonly part: string
}

/** What went up: the request body as the client sent it, its HEAD schema, and the bodies it had at each level. */
interface SentUp {
  readonly body: unknown
  readonly headSchema: TSchema
  readonly trail: Trail
}

/** The response a round trip comes back in: its replay, its HEAD schema, a generated HEAD response to build the echo over, the trips' coverage. */
interface EchoTarget {
  readonly target: ResponseTarget
  readonly headSchema: TSchema
  readonly over: unknown
  /** Keeps a refused echo: a route version none of whose echoes HEAD accepts is named as not verified. */
  readonly coverage: Coverage
}

/** One round trip: what went up, the response it comes back in, and HEAD's echo of it. */
interface Trip { readonly sent: SentUp, readonly echo: EchoTarget, readonly echoed: EchoedResponse, readonly head: unknown }

/**
 * What went up at `level` (`up`, a request body) compared with what came down at `level` (`down`, a response body):
 * the values that reached HEAD at a place the response echoes must come back equal at their place in the response
 * at `level`, and its lists with every item (./round-trip-lists.ts).
 */
function differenceAt (env: TripEnvironment, trip: Trip, level: number, up: unknown, down: unknown): ReturnType<typeof changedValue> | LostItems {
  const lineage = { generation: env.generation, resolveRef: env.resolveRef, pairings: env.pairings }
  const downward = followedWithMoves({ ...lineage, from: 0, to: level }, trip.echo.headSchema, trip.echoed.body)
  const upward = followedWithMoves({ ...lineage, from: level, to: 0 }, trip.sent.headSchema, up)
  const byPlace = new Map(downward.map((value) => [JSON.stringify(value.from), value]))
  const compared: FollowedValue[] = []
  for (const value of upward) {
    const place = JSON.stringify(value.to)
    const there = trip.echoed.echoed.has(place) ? byPlace.get(place) : undefined
    // Retyped on one side only: the version takes one type and answers another (a string sent, a number read back).
    if (there !== undefined && there.sameType === value.sameType) compared.push({ from: value.from, to: there.to, sameType: value.sameType })
  }
  const unique = (path: readonly PathKey[]): boolean => schemaAt(trip.sent.headSchema, trip.head, path, env.resolveRef)?.uniqueItems === true
  // A list short of items first: its items after the one lost are compared with others by place.
  return lostItems({ up: upward, down: downward, echoed: trip.echoed.echoed, sent: up, head: trip.echoed.body, returned: down, unique }) ??
    changedValue(compared, up, inSentOrder(compared, up, down))
}

/**
 * A request body that reached HEAD (`body`), answered as a handler storing and echoing it would (the same body, on a
 * route that returns the schema it takes; else the fields the response shares with it) and sent back down: every
 * value the client sent that comes back must come back equal. The version change at fault is the one nearest HEAD
 * where what went up and what came down differ.
 * @example
 * ```ts
 * await verifyRoundTrip(env, { target: responseTarget, headSchema: Transfer, over: generatedTransfer, coverage }, { body: sentBody, headSchema: TransferCreate, trail }, headBody)
 * ```
 */
export async function verifyRoundTrip (env: TripEnvironment, echo: EchoTarget, sent: SentUp, body: unknown): Promise<void> {
  const { target } = echo
  const echoed = echoResponse({ request: body, requestSchema: sent.headSchema, response: echo.over, responseSchema: echo.headSchema }, env.resolveRef)
  // A response HEAD would refuse (the echo breaks one of its rules) says nothing of the converters (none accepted: not verified).
  if (echoed.echoed.size === 0 || !echo.coverage.accepts(env.compile(target.formAt('body', 0)), echoed.body, `round trip of ${target.part}`)) return
  env.replayed++
  const down: Trail = new Map()
  const result = await replayExample(env, { ...target, data: { body: copyJson(echoed.body) }, required: new Map(), trail: down })
  // A response that fails going down is the response side's finding.
  if (result === undefined || !('body' in result)) return
  const trip = { sent, echo, echoed, head: body }
  const difference = differenceAt(env, trip, target.level, sent.body, result.body)
  if (difference === undefined) return
  let level = target.level
  for (let at = 1; at < target.level && level === target.level; at++) {
    if (differenceAt(env, trip, at, sent.trail.get(at)?.body, down.get(at)?.body) !== undefined) level = at
  }
  const converters = [...sent.trail.get(level - 1)?.converters ?? [], ...down.get(level)?.converters ?? []]
  const status = target.part.slice('response '.length)
  const [from, to] = [pointerOfPath(difference.at.from), pointerOfPath(difference.at.to)]
  env.report({ route: target.route, version: target.version, direction: 'response', example: sent.body }, {
    kind: 'round trip',
    part: target.part,
    pointer: from,
    message: 'list' in difference
      ? `the list sent at ${from} does not come back whole in the ${status} response${to === from ? '' : ` (at ${to})`}: ${shown(difference.list)} ${difference.became}`
      : `the value sent at ${from} does not come back in the ${status} response${to === from ? '' : ` (at ${to})`}: ${shown(difference.value)} ${difference.became}`,
    value: difference.value,
    ...(difference.fix === undefined ? {} : { fix: difference.fix }),
    converters: [...new Set(converters)],
    step: level - 1,
    reached: level
  })
}

/**
 * A HEAD response example as a version shows it (`body`), sent back up as a request of that version: every string
 * of the HEAD example the client saw must reach HEAD again.
 * @example
 * ```ts
 * await verifyTripBack(env, { target: responseTarget, request: requestSide, coverage }, headExample, versionBody)
 * ```
 */
export async function verifyTripBack (env: TripEnvironment, at: { target: ResponseTarget, request: RequestSide, coverage: Coverage }, example: GeneratedExample, body: unknown): Promise<void> {
  const { target, request } = at
  const delivered = deliveredStrings(target.formAt('body', target.level), body, env.resolveRef)
  const sentinels = [...example.sentinels].filter(([sentinel]) => arrives(sentinel, delivered)).map(([sentinel, pointer]) => ({ sentinel, pointer }))
  // A response the version's request schema refuses says nothing of the converters (none accepted: not verified).
  if (sentinels.length === 0 || !at.coverage.accepts(env.compile(request.formAt('body', target.level)), body, `trip back of ${target.part}`)) return
  const data = { body: copyJson(body) }
  request.served(data)
  env.replayed++
  // Back in HEAD, each string must be whole again, in its own field: as the version's validation left it (decision 0317).
  const served = asServed({ value: body, sentinels: new Map(sentinels.map(({ sentinel, pointer }) => [sentinel, pointer])) }, data.body)
  const whole = [...served.sentinels].map(([sentinel, pointer]) => ({ sentinel, pointer }))
  const required = new Map([['body' as const, { example: served.value, sentinels: whole, byWords: false, followedTo: () => [] }]])
  const result = await replayExample(env, { ...target, data, required, formAt: request.formAt, steps: request.steps, status: undefined, unexpressed: undefined })
  if (result === undefined || 'body' in result || result.kind !== 'lost') return
  env.report({ route: target.route, version: target.version, direction: 'request', example: body }, toldAsStripped(body, data.body)({
    ...result,
    kind: 'round trip',
    part: request.part,
    message: `the value at ${result.pointer} of a HEAD response, sent down to ${target.version} and back up, does not reach HEAD: ${result.message}`
  }))
}
