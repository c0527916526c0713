/**
 * A refused exchange replayed through the converters (decision 0307): the request as its client sent it, through its
 * version's validation and request converters (./replay-exchange.ts `replayRequest`), must still be refused alike. By
 * the version's validation: the same part, instance path and keyword (Ajv's message text is not compared: it changes
 * with Ajv's release, options and the schema error formatter, where the keyword and the place say what was refused);
 * by a converter: the same status, code and message (the converter's own words). Accepted now, refused by the other, or
 * made a converter failure (a 500), it is a finding.
 * @module
 */
import type { Refusal } from '../serve/exchange-records'
import type { Replayed, Stopped } from './replay-exchange'
import { REDACTED } from '../values/redaction'
import type { RecordedRefusal } from './traffic-file'

/** What refused it, in words: `400 FST_ERR_VALIDATION (the version's schema: body/age minimum)`. */
export function refusalWords (refused: Omit<Refusal, 'message' | 'status'> & { readonly status?: number, readonly message?: string }): string {
  const head = [refused.status, refused.code].filter((item) => item !== undefined).join(' ')
  const why = refused.by === 'validation'
    ? `the version's schema: ${refused.part ?? ''}${refused.instancePath ?? ''} ${refused.keyword ?? ''}`.trimEnd()
    : `a converter: ${refused.message ?? ''}`
  return `${head === '' ? '' : `${head} `}(${why})`
}

/** A refusal replayed that differs from the one recorded: its kind and what the converters give now. */
interface RefusalChange {
  readonly kind: 'now accepted' | 'refused otherwise' | 'converter failed'
  readonly recorded: string
  readonly replayed: string
}

/** The facts compared of a refusal: by validation its place and keyword; by a converter its status, code and message. */
function comparedFacts (refusal: NonNullable<Stopped['refusal']>): string {
  return JSON.stringify(refusal.by === 'validation'
    ? [refusal.by, refusal.part, refusal.instancePath, refusal.keyword ?? null]
    : [refusal.by, refusal.status, refusal.code ?? null, refusal.message])
}

/**
 * How the request side of a refused exchange replays now (`result`, from `replayRequest`), against what was recorded:
 * a change, `undefined` when it is refused alike, or `'redacted'` when it differs while its request holds redacted
 * values (the stand-in may be what the version accepts or refuses now).
 * @example
 * ```ts
 * const change = refusalChange(refusal, await replayRequest(replayer, at, refusal)) // { kind: 'now accepted', … }
 * ```
 */
export function refusalChange (exchange: RecordedRefusal, result: Replayed | Stopped): RefusalChange | 'redacted' | undefined {
  const recorded = refusalWords(exchange.refused)
  let change: RefusalChange | undefined
  if (result.ok) change = { kind: 'now accepted', recorded, replayed: "the version's validation and request converters now let it through to the handler" }
  else if (result.kind !== 'refused' || result.refusal === undefined) change = { kind: 'converter failed', recorded, replayed: result.message }
  else if (comparedFacts(result.refusal) !== comparedFacts(exchange.refused)) change = { kind: 'refused otherwise', recorded, replayed: refusalWords(result.refusal) }
  if (change !== undefined && JSON.stringify(exchange.clientRequest).includes(REDACTED)) return 'redacted'
  return change
}
