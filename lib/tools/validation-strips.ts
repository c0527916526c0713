/**
 * A request value the application's own validation removes before any converter runs: Fastify's Ajv with
 * `removeAdditional` (its default `true`) tries a union's members in order and strips the fields the first closed
 * member does not declare, in every version and at HEAD alike. A loss `verify` finds there is told as the
 * validation's, with its fixes, not a converter's
 * ([decision 0286](../../docs/decisions/0286-verify-follows-the-status-a-version-answers.md), and 0284).
 * A string the validation rewrites in place (ajv-keywords' `transform: ['trim', 'toLowerCase']`) is what the
 * converters receive, and what must reach HEAD (decision 0317).
 * @module
 */
import { pointerOfPath, type PathKey } from './data-flow'
import type { GeneratedExample } from './example-generation'
import type { ReplayIssue } from './verify-finding'

/** `sent` with each string the validation rewrote taken as `served` holds it; each rewrite is pushed onto `rewritten`. */
function servedStrings (sent: unknown, served: unknown, rewritten: Array<[string, string]>): unknown {
  if (typeof sent === 'string' && typeof served === 'string' && sent !== served) {
    rewritten.push([sent, served])
    return served
  }
  if (typeof sent !== 'object' || sent === null || typeof served !== 'object' || served === null || Array.isArray(sent) !== Array.isArray(served)) return sent
  const taken = (key: string, value: unknown): unknown => Object.hasOwn(served, key) ? servedStrings(value, (served as Record<string, unknown>)[key], rewritten) : value
  if (Array.isArray(sent)) return sent.map((item, index) => taken(String(index), item))
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(sent)) Object.defineProperty(copy, key, { value: taken(key, value), enumerable: true, writable: true, configurable: true })
  return copy
}

/**
 * `data` as a validation that left `checked` (a copy of it, valid) hands it on: with each string it rewrote in place
 * (ajv-keywords' `transform`, as HEAD's validation does after the converters ran); `data` itself when it rewrote none.
 * @example `withServedStrings({ code: 'ab' }, { code: 'AB' }) // { code: 'AB' }`
 */
function withServedStrings (data: unknown, checked: unknown): unknown {
  const rewritten: Array<[string, string]> = []
  const value = servedStrings(data, checked, rewritten)
  return rewritten.length === 0 ? data : value
}

/**
 * A request's data reaching HEAD as HEAD's validation (which left `checked`) hands it to the handler, and where a
 * value is lost there: where HEAD's validation rewrote a string and no converter ran in the last step, a loss is
 * HEAD's validation's, with its fix.
 * @example `[data, where] = atHead(data, checked, where)`
 */
export function atHead<W extends { readonly converters: readonly string[], readonly fix?: string }> (data: unknown, checked: unknown, where: W): [unknown, W] {
  const served = withServedStrings(data, checked)
  if (served === data || where.converters.length > 0) return [served, where]
  return [served, {
    ...where,
    fix: 'HEAD\'s validation rewrites this string after the converters (a keyword of the application\'s Ajv in HEAD\'s schema, such as ' +
      'ajv-keywords\' transform) where the version\'s validation does not: give the version\'s schema the same rewrite, or store what ' +
      'the client sent elsewhere (docs/decisions/0317).'
  }]
}

/**
 * A request example as its converters receive it, where the application's validation (as served) rewrote strings in
 * place, as ajv-keywords' `transform` does before any converter runs, in every version and at HEAD alike: those
 * strings as served (what must reach HEAD), their sentinels as rewritten (upper- or lower-cased; none where cut). Fields it removed stay (told by
 * {@link toldAsStripped}); the example itself when nothing was rewritten.
 * @example `asServed({ value: { email: ' A@B.CO ' }, sentinels }, { email: 'a@b.co' }).value // { email: 'a@b.co' }`
 */
export function asServed (example: GeneratedExample, served: unknown): GeneratedExample {
  const rewritten: Array<[string, string]> = []
  const value = servedStrings(example.value, served, rewritten)
  if (rewritten.length === 0) return example
  // A sentinel a rewrite changed the case of is followed as rewritten; one it cut is followed no further.
  const followed = (sentinel: string): string | undefined => {
    const rewrite = rewritten.find(([sent, taken]) => sent.includes(sentinel) && !taken.includes(sentinel))
    return rewrite === undefined ? sentinel : [sentinel.toUpperCase(), sentinel.toLowerCase()].find((cased) => rewrite[1].includes(cased))
  }
  const sentinels = new Map<string, string>()
  for (const [sentinel, pointer] of example.sentinels) {
    const kept = followed(sentinel)
    if (kept !== undefined) sentinels.set(kept, pointer)
  }
  return { ...example, value, sentinels }
}

/** The places (JSON pointers, `*` for list items) of the fields `sent` holds that `served` lacks. */
function strippedPlaces (sent: unknown, served: unknown, path: PathKey[] = [], found = new Set<string>()): Set<string> {
  if (typeof sent !== 'object' || sent === null || typeof served !== 'object' || served === null) return found
  for (const [key, value] of Object.entries(sent)) {
    const at = [...path, Array.isArray(sent) ? Number(key) : key]
    if (!Object.hasOwn(served, key)) found.add(pointerOfPath(at))
    else strippedPlaces(value, (served as Record<string, unknown>)[key], at, found)
  }
  return found
}

/**
 * How a request example's findings are told where the application's validation (as served) removed fields of what
 * was sent: a lost value, or one a round trip does not bring back, at or under a removed field is the validation's.
 * @example
 * ```ts
 * const told = toldAsStripped({ customer: { name: 'A', registry: 'R1' } }, { customer: { name: 'A' } })
 * told(issue) // message: '… removed by the application's validation …', fix: 'Put the member …'
 * ```
 */
export function toldAsStripped (sent: unknown, served: unknown): (issue: ReplayIssue) => ReplayIssue {
  const stripped = strippedPlaces(sent, served)
  if (stripped.size === 0) return (issue) => issue
  return (issue) => {
    if (issue.kind !== 'lost' && issue.kind !== 'round trip') return issue
    const place = [...stripped].find((pointer) => issue.pointer === pointer || issue.pointer.startsWith(`${pointer}/`))
    if (place === undefined) return issue
    return {
      ...issue,
      message: `${issue.message.replace(/\.$/, '')}: the application's validation removed ${place} from the request as served, before any converter ran ` +
        '(Fastify\'s Ajv with removeAdditional tries a union\'s members in order and strips the fields the first closed member does not declare; ' +
        'HEAD\'s validation does the same with the same union)',
      fix: 'No converter can carry what validation removed: put the union member with the most fields first ' +
        'or set removeAdditional: false in the application\'s Ajv options (docs/decisions/0284).'
    }
  }
}
