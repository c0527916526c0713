/**
 * What `verify` could not check: a route or webhook version, direction and part for which no generated example
 * passed the version's own schema (a format the application checks with a function, a pattern fast-check cannot
 * read, a keyword the generator does not know), so that nothing of it was replayed. `verify` names each one, and
 * why (the field and the keyword or format no example satisfied), instead of calling it clean. Also what a
 * converter's throw in a replay is: a refusal of the example (nothing to check), or a failure.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { Check } from '../core/strict-validator'
import type { FormatPatterns } from '../values/string-examples'
import { clientErrorOf, ConverterFailure, copyJson } from '../serve/step-runner'
import type { ReplayIssue } from './verify-finding'

/** A route (or webhook) version, direction and part of which no generated example passed the version's own schema. */
export interface UnverifiedPart {
  /** The route as the version serves it (`POST /users`), or `webhook <name>`. */
  readonly route: string
  readonly version: string
  readonly direction: 'request' | 'response'
  /** The request part (`body`, `querystring`, `headers`, `params`), `response <status>`, or `payload`. */
  readonly part: string
  /** What the examples failed (the first error of the first example) and what to do, in one sentence. */
  readonly reason: string
}

/** A request converter's refusal of an example with a client error: the converter (`''` when unknown), the status, the message. */
export interface Refusal {
  readonly converter: string
  readonly status?: number
  readonly message: string
}

/** The refusal a request replay's failure is when a converter threw a client error (4xx: serving answers it as it is), else `undefined`. */
export function refusalOf (failure: unknown): Refusal | undefined {
  const thrown = failure instanceof ConverterFailure ? failure.thrown : failure
  const error = clientErrorOf(thrown) as Error & { statusCode?: number, status?: number } | undefined
  return error === undefined ? undefined : { converter: failure instanceof ConverterFailure ? failure.step.converter.display : '', status: error.statusCode ?? error.status, message: error.message }
}

/** The issue of a converter that failed (a {@link ConverterFailure}, or what a run threw) at the step and level `where` names. */
export function converterFailed (failure: unknown, where: Omit<ReplayIssue, 'kind' | 'part' | 'pointer' | 'message'>): ReplayIssue {
  const error = failure instanceof ConverterFailure ? failure.thrown : failure
  return { kind: 'converter failed', part: 'converter', pointer: '', message: error instanceof Error ? `${error.name}: ${error.message}` : `threw ${String(error)}`, ...where }
}

/** What the coverage of a run needs: the strict validators, the formats the generator knows, where parts not verified go. */
export interface CoverageEnvironment {
  readonly compile: (schema: TSchema) => Check
  readonly formats?: FormatPatterns
  readonly unverified?: (part: UnverifiedPart) => void
}

/** What to do about a keyword no generated example satisfied. */
function remedyOf (env: CoverageEnvironment, keyword: string | undefined, format: unknown): string {
  const example = 'give that field an example its schema accepts (its `examples`, or `had({ examples })` in a version change)'
  if (keyword === 'format' && typeof format === 'string') {
    return !(env.formats?.(format) instanceof RegExp)
      ? `the format "${format}" is checked by a function, which no string can be made from: ${example}`
      : `no string could be made to match the regular expression of the format "${format}" and the field's other rules: ${example}`
  }
  if (keyword === 'pattern') return `no string could be made to match the pattern: ${example}`
  return `the example generator does not make data that "${keyword ?? 'this rule'}" accepts`
}

/**
 * The examples of one route (or webhook) version and direction: which pass the version's own schema (only those are
 * replayed), and, when none did, the part reported as not verified with the first refusal's reason.
 * @example
 * ```ts
 * const coverage = new Coverage(env, { route: 'POST /orders', version: '2024-01-01', direction: 'request' })
 * for (const example of examples) if (coverage.accepts(env.compile(form), example.value, 'body')) replay(example)
 * coverage.done()
 * ```
 */
export class Coverage {
  private accepted = false
  private refused: UnverifiedPart | undefined
  /** Whether an accepted example was replayed to the end, and the first a request converter refused with a client error. */
  private replayed = false
  private firstRefusal: UnverifiedPart | undefined

  constructor (private readonly env: CoverageEnvironment, private readonly where: Pick<UnverifiedPart, 'route' | 'version' | 'direction'>) {}

  /** True when `check` accepts (a copy of) `data`, an example of `part`; otherwise the first refusal is kept. */
  accepts (check: Check, data: unknown, part: string): boolean {
    if (check(copyJson(data))) return (this.accepted = true)
    if (this.refused === undefined) {
      const issue = check.errors?.[0]
      const at = `${part}${(issue?.instancePath ?? '').replace(/\/\d+(?=\/|$)/g, '/*')}`
      const reason = `no generated example passes the schema of ${this.where.direction === 'request' ? this.where.version : 'HEAD'} (${at} ${issue?.message ?? 'does not match'}): ` +
        remedyOf(this.env, issue?.keyword, issue?.params?.format)
      this.refused = { ...this.where, part, reason }
    }
    return false
  }

  /**
   * An accepted example of `part` that request converter `refusal.converter` refused with a client error: nothing of it
   * was checked. Only a 400 or 422 says the request itself is refused; another (a lookup's 404, a 409) depends on state.
   */
  refusedBy (part: string, refusal: Refusal): void {
    if (refusal.status !== 400 && refusal.status !== 422) return
    this.firstRefusal ??= {
      ...this.where,
      part,
      reason: `every example the schema of ${this.where.version} accepts was refused by ${refusal.converter === '' ? 'a converter' : refusal.converter} with a ${refusal.status} (${refusal.message}): ` +
        'make it take the requests the version\'s schema accepts, or compare what it takes with strings in its own text (examples are made of them)'
    }
  }

  /** An accepted example was replayed to the end (no converter refused it). */
  through (): void {
    this.replayed = true
  }

  /** Reports the part as not verified when examples were generated and none was accepted, or a converter refused every one accepted. */
  done (): void {
    if (!this.accepted && this.refused !== undefined) this.env.unverified?.(this.refused)
    else if (!this.replayed && this.firstRefusal !== undefined) this.env.unverified?.(this.firstRefusal)
  }
}
