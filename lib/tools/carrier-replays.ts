/**
 * The replays of `verify`'s carriers comparison (./verify-carriers.ts), shared between versions. A response's replay
 * down to a version passes the versions above it step by step, the data checked against each one's form; so where a
 * carrier (the same route, response slot and status, or webhook) runs the same converters at each of those steps and
 * checks the same forms in an older version, its replay of the same HEAD value down to the older version holds, level
 * by level, what the replay down to the newer one would (its body at each level, the converters that ran, and the
 * first level where a check stopped it). One replay to the oldest such version serves them all, where each version
 * replayed the value again from HEAD. Not shared where a version change reads the version it runs in
 * (`VersionChangeWithSideEffects`: a replay runs in its version), nor when the replay throws (each version's replay
 * is then run alone, and its own outcome kept).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { ConverterStep } from '../routes/converter-steps'
import { copyJson } from '../serve/step-runner'
import { convertersByChange } from './converter-tracking'
import { replayExample, type Trail } from './verify-replay'
import type { VerifyEnvironment } from './verify-targets'
import type { ResponseTarget } from './verify-trips'

/** A route's response slot or a webhook's payload in one version, replayed as `verify` replays it. */
export interface Carrier {
  /** `GET /invoices/:id`, `webhook invoice.paid`. */
  readonly name: string
  readonly target: ResponseTarget
  /** Its HEAD schema's form at HEAD. */
  readonly head: TSchema
}

/** One carrier's replay of one example: the body at each level it reached. */
export interface Carried {
  readonly carrier: Carrier
  readonly trail: Trail
}

/** A replay's outcome: its trail, and the level where a check stopped it (`Infinity` when none did). */
interface Outcome {
  readonly trail: Trail
  readonly stoppedAt: number
}

/** True when two lists hold the same converter steps, in order. */
function sameSteps (one: readonly ConverterStep[], other: readonly ConverterStep[]): boolean {
  return one.length === other.length && one.every((step, index) => step === other[index])
}

/**
 * True when `older`'s replay holds, down to `newer`'s level, what `newer`'s would: the same carrier, HEAD form and
 * status, the same converters at every step above that level, and the same form at every level to it.
 */
function holds (env: VerifyEnvironment, older: Carrier, newer: Carrier): boolean {
  const [one, other] = [older.target, newer.target]
  if (older.name !== newer.name || one.part !== other.part || one.status !== other.status || one.method !== other.method ||
    one.mediaType !== other.mediaType || older.head !== newer.head || one.level < other.level) return false
  const [stepsOfOne, stepsOfOther] = [convertersByChange(one.steps), convertersByChange(other.steps)]
  for (let index = 0; index < other.level; index++) {
    // What a replay runs at the step (./converter-tracking.ts tracked); the first (HEAD's own changes) runs none.
    const ran = (candidates: readonly ConverterStep[]): ConverterStep[] => candidates.filter((candidate) => env.steps[index].changes.includes(candidate.converter.change))
    if (index >= 1 && !sameSteps(ran(stepsOfOne(env.steps[index])), ran(stepsOfOther(env.steps[index])))) return false
    if (one.formAt('body', index + 1) !== other.formAt('body', index + 1)) return false
  }
  return true
}

/**
 * The carriers' replays of one run of the comparison: each (carrier, seed, example) replayed once down to the oldest
 * version whose carrier holds the newer ones' replays.
 * @example
 * ```ts
 * const replays = new CarrierReplays(env, levels.map((level) => carriersAt(env, webhooks, level)))
 * const carried = await replays.replayed(carrier, body, { seed, example: 0 })
 * ```
 */
export class CarrierReplays {
  /** The carrier whose replay each carrier reads. */
  private readonly deepest = new Map<Carrier, Carrier>()
  private readonly outcomes = new Map<Carrier, Map<TSchema, Map<number, Promise<Outcome | undefined>>>>()

  /** `carriers`: every version's carriers, newest first. */
  constructor (private readonly env: VerifyEnvironment, carriers: ReadonlyArray<readonly Carrier[]>) {
    const byName = new Map<string, Carrier[]>()
    for (const carrier of carriers.flat()) {
      const key = `${carrier.name}\n${carrier.target.part}\n${String(carrier.target.status)}`
      byName.set(key, [...byName.get(key) ?? [], carrier])
    }
    for (const same of byName.values()) {
      for (const carrier of same) {
        const older = env.inVersion === undefined ? same.filter((other) => holds(env, other, carrier)) : []
        this.deepest.set(carrier, older.reduce((best, other) => other.target.level > best.target.level ? other : best, carrier))
      }
    }
  }

  /**
   * The replay of `body` (`example` of `seed`, in place) through `carrier`: `undefined` when the body does not fit
   * the carrier, or another rule's issue stops it.
   */
  async replayed (carrier: Carrier, body: unknown, key: { seed: TSchema, example: number }): Promise<Carried | undefined> {
    if (body === undefined || !this.env.compile(carrier.head)(copyJson(body))) return undefined
    const deepest = this.deepest.get(carrier) ?? carrier
    let bySeed = this.outcomes.get(deepest)
    if (bySeed === undefined) this.outcomes.set(deepest, bySeed = new Map())
    let byExample = bySeed.get(key.seed)
    if (byExample === undefined) bySeed.set(key.seed, byExample = new Map())
    let outcome = byExample.get(key.example)
    if (outcome === undefined) byExample.set(key.example, outcome = this.outcome(deepest, body))
    const shared = deepest === carrier ? await outcome : await outcome ?? await this.outcome(carrier, body)
    return shared === undefined || shared.stoppedAt <= carrier.target.level ? undefined : { carrier, trail: shared.trail }
  }

  /** One replay down to the carrier's version: `undefined` when it throws. */
  private async outcome (carrier: Carrier, body: unknown): Promise<Outcome | undefined> {
    const trail: Trail = new Map()
    try {
      const result = await replayExample(this.env, { ...carrier.target, data: { body }, required: new Map(), trail })
      return { trail, stoppedAt: result === undefined ? 0 : 'body' in result ? Infinity : result.reached }
    } catch {
      // A schema of the version that does not compile is reported (or noted) by verify's first look at it.
      return undefined
    }
  }
}
