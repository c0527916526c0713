/**
 * `verify`'s round trips, on a route that returns the schema it takes. Up and back: what a client of a version sent,
 * once up to HEAD and back down in the response, must come back equal, every value followed (./value-comparison.ts),
 * numbers and retyped fields included (a converter that maps between two representations restores them). Down and
 * back: what a client read, sent back up as it is, must give HEAD back every string it showed (a name joined for an
 * old version and split again on the wrong space). The version change at fault is the one nearest HEAD where what
 * went up and what came down differ.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { SchemaGeneration } from '../schemas/generation'
import type { RequestPart } from '../routes/version-plan'
import type { ShapeWalk } from '../values/shape-walk'
import { copyJson } from '../serve/step-runner'
import { followedValues, pointerOfPath, type Pairings, type RefResolver } from './data-flow'
import { arrives, deliveredStrings } from './sentinel-arrival'
import type { GeneratedExample } from './example-generation'
import { changedValue, shown } from './value-comparison'
import { replayExample, type Replay, type ReplayContext, type Report, type Trail } from './verify-replay'

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

/** What a request of the route does, for a trip down and back up: its forms, converters and cleaners, the name of its body part. */
export interface RequestSide {
  readonly formAt: Replay['formAt']
  readonly steps: Replay['steps']
  readonly cleaners: ReadonlyArray<readonly [RequestPart, ShapeWalk]>
  readonly part: string
}

/** What went up: the request body as the client sent it, its HEAD schema, and the bodies it had at each level. */
interface SentUp {
  readonly body: unknown
  readonly headSchema: TSchema
  readonly trail: Trail
}

/** The level nearest HEAD where what went up (`up`) and what came down (`down`) differ; `level` when none shows it. */
function faultLevel (env: TripEnvironment, sent: SentUp, down: Trail, level: number): number {
  for (let at = 1; at < level; at++) {
    const up = sent.trail.get(at)?.body
    const followed = followedValues({ generation: env.generation, resolveRef: env.resolveRef, pairings: env.pairings, from: at, to: 0 }, sent.headSchema, up, true)
    if (changedValue(followed, up, down.get(at)?.body) !== undefined) return at
  }
  return level
}

/**
 * The HEAD body a request example arrived with, sent back down as the response it returns: every value the client
 * sent (that HEAD keeps) must come back equal.
 * @example
 * ```ts
 * await verifyRoundTrip(env, responseTarget, { body: sentBody, headSchema: Payment, trail }, headBody)
 * ```
 */
export async function verifyRoundTrip (env: TripEnvironment, target: ResponseTarget, sent: SentUp, body: unknown): Promise<void> {
  env.replayed++
  const down: Trail = new Map()
  const result = await replayExample(env, { ...target, data: { body }, required: new Map(), trail: down })
  // A response that fails going down is the response side's finding.
  if (result === undefined || !('body' in result)) return
  const lineage = { generation: env.generation, resolveRef: env.resolveRef, pairings: env.pairings, from: target.level, to: 0 }
  const difference = changedValue(followedValues(lineage, sent.headSchema, sent.body, true), sent.body, result.body)
  if (difference === undefined) return
  const level = faultLevel(env, sent, down, target.level)
  const converters = [...sent.trail.get(level - 1)?.converters ?? [], ...down.get(level)?.converters ?? []]
  env.report({ route: target.route, version: target.version, direction: 'response', example: sent.body }, {
    kind: 'round trip',
    part: target.part,
    pointer: pointerOfPath(difference.at.from),
    message: `the value sent at ${pointerOfPath(difference.at.from)} does not come back in the ${target.part.slice('response '.length)} response: ${shown(difference.value)} ${difference.became}`,
    value: difference.value,
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
 * await verifyTripBack(env, { target: responseTarget, request: requestSide }, headExample, versionBody)
 * ```
 */
export async function verifyTripBack (env: TripEnvironment, at: { target: ResponseTarget, request: RequestSide }, example: GeneratedExample, body: unknown): Promise<void> {
  const { target, request } = at
  const delivered = deliveredStrings(target.formAt('body', target.level), body, env.resolveRef)
  const sentinels = [...example.sentinels].filter(([sentinel]) => arrives(sentinel, delivered)).map(([sentinel, pointer]) => ({ sentinel, pointer }))
  if (sentinels.length === 0 || !env.compile(request.formAt('body', target.level))(copyJson(body))) return
  const data = { body: copyJson(body) }
  for (const [part, clean] of request.cleaners) if (part === 'body' && typeof data.body === 'object' && data.body !== null) clean(data.body)
  env.replayed++
  // Back in HEAD, each string must be whole again, in its own field.
  const required = new Map([['body' as const, { example: body, sentinels, byWords: false, followedTo: () => [] }]])
  const result = await replayExample(env, { ...target, data, required, formAt: request.formAt, steps: request.steps, status: undefined, unexpressed: undefined })
  if (result === undefined || 'body' in result || result.kind !== 'lost') return
  env.report({ route: target.route, version: target.version, direction: 'request', example: body }, {
    ...result,
    kind: 'round trip',
    part: request.part,
    message: `the value at ${result.pointer} of a HEAD response, sent down to ${target.version} and back up, does not reach HEAD: ${result.message}`
  })
}
