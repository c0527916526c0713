/**
 * A request value the application's own validation removes before any converter runs: Fastify's Ajv with
 * `removeAdditional` (its default `true`) tries a union's members in order and strips the fields the first closed
 * member does not declare, in every version and at HEAD alike. A loss `verify` finds there is told as the
 * validation's, with its fixes, not a converter's
 * ([decision 0286](../../docs/decisions/0286-verify-follows-the-status-a-version-answers.md), and 0284).
 * @module
 */
import { pointerOfPath, type PathKey } from './data-flow'
import type { ReplayIssue } from './verify-finding'

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
