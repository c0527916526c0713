/**
 * The type of what `verify` finds, and of what one replay reports (./verify-replay.ts), a lost value told by direction.
 * @module
 */

/** One problem `verify` found: where, in which version and direction, and which version change is at fault. */
export interface VerifyFinding {
  /** The route as the version serves it (`POST /users`), or `webhook <name>`. */
  readonly route: string
  /** The newest version where the problem shows. */
  readonly version: string
  /** Every version where it shows (newest first). */
  readonly versions: readonly string[]
  /** `'request'`: a request of `version` migrated up to HEAD; `'response'`: a HEAD response (or webhook payload) migrated down to it. */
  readonly direction: 'request' | 'response'
  /**
   * `'invalid'`: the migrated data fails the version's schema; `'lost'`: a value that should arrive (a renamed field's, a list's
   * items) does not, or a field an old version declares (`existedAs`) is in no example; `'round trip'`: a value sent up does not
   * come back; `'converter failed'`: a converter threw; `'invalid example'`: a document's example fails its own schema (`route` is
   * `document`, `pointer` its place); `'uncompilable'`: the part's schema in that version does not compile with the app's Ajv, so
   * every request of the version would answer 500 (not replayed); `'converted twice'`: two converters of one version change wrote
   * one place (./converted-twice.ts); `'shared object'`: a converter gave two bodies one object (./shared-objects.ts);
   * `'default filled'`: HEAD's validation gives a request of the version a default of a field it lacks (./new-field-defaults.ts);
   * `'wrong unit'`: a value whose unit a version change changes arrived in another (./verify-units.ts; unconverted, it is `'lost'`).
   */
  readonly kind: 'invalid' | 'lost' | 'round trip' | 'converter failed' | 'invalid example' | 'uncompilable' | 'converted twice' | 'shared object' | 'default filled' | 'wrong unit'
  /** The request part (`body`, `querystring`, `params`, `headers`), `response <status>`, or `converter`. */
  readonly part: string
  /** A JSON pointer into that part (`*` for array items): where the data stopped matching, or where the lost value was. */
  readonly pointer: string
  /** What went wrong. */
  readonly message: string
  /** The value that was lost, changed or refused (the generated one); absent when no one value is at fault. */
  readonly value?: unknown
  /** What to add or fix, in one sentence (every finding of a replay has one). */
  readonly fix?: string
  /** The version holding the change at fault (`'HeadVersion'` for HEAD changes). */
  readonly changeVersion: string
  /** The version change classes of that version. */
  readonly versionChanges: readonly string[]
  /** The converters of that version that ran on the example (`Class.method`); empty when none did. */
  readonly converters: readonly string[]
  /** The generated example that showed it (the request part, or the HEAD body). */
  readonly example: unknown
  /** The whole finding on one line. */
  readonly text: string
}

/** Where a finding was made. */
export type Target = Pick<VerifyFinding, 'route' | 'version' | 'direction' | 'example'>

/** Where findings go: the target, and the issue a replay found there. */
export type Report = (target: Target, issue: ReplayIssue) => void

/** What a replay reports: the kind of problem, where, the converters of the step at fault that ran, and that step. */
export type ReplayIssue = Pick<VerifyFinding, 'kind' | 'part' | 'pointer' | 'message' | 'converters'> & Partial<Pick<VerifyFinding, 'value' | 'fix'>> & {
  /** Index of the generation step at fault (`steps[index]`). */
  readonly step: number
  /** The level whose schema the data reached when it went wrong (0 is HEAD). */
  readonly reached: number
  /** The version changes at fault, when not every change of the step is (the one that removed an enum member). */
  readonly changes?: readonly string[]
  /** The message says all (a name a converter reads where the request no longer has it): not prefixed with where a lost value went. */
  readonly whole?: true
}

/** A lost value's issue told by direction: where it was sent (`from`) and where it does not arrive (`to`). */
export function lostMessage (issue: ReplayIssue, from: string, to: string): ReplayIssue {
  return issue.kind === 'lost' && issue.whole !== true ? { ...issue, message: `the value at ${issue.pointer} in ${from} does not reach ${to}: ${issue.message}` } : issue
}
