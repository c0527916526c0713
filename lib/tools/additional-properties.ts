/**
 * What a change of an object's own `additionalProperties` does to a version's clients, for `check`
 * (`schema-changes.ts` finds it), where the diff library misjudges it: by what the application's Ajv does with a
 * request's undeclared fields (decision 0095), and by what Fastify's serializer writes of a response (decision 0250).
 * @module
 */
import { report, shownValue, type Comparison, type RawDiff } from './document-places'

/**
 * Reports a change of `additionalProperties` (the keyword itself, on an object of a request or a response) and returns
 * true, or returns false to leave it to the diff library: a response's absent ↔ `true`, or from `true`, `false` or a
 * schema to another value (a break).
 * @example
 * ```ts
 * if (additionalPropertiesChange(comparison, diff, true, ['POST /users', 'request body /'])) return
 * ```
 */
export function additionalPropertiesChange (comparison: Comparison, diff: RawDiff, request: boolean, at: [operation: string, where: string]): boolean {
  if (!request || diff.after !== false) return additionalChange(comparison, diff, request, at)
  closedObject(comparison, diff, at[0], at[1])
  return true
}

/**
 * Reports a request object's `additionalProperties` become `false`, by what the application's Ajv does with the fields
 * it no longer takes: `removeAdditional` `true` (Fastify's default) or `'failing'` drops them (a record's fields lost,
 * undeclared ones never the version's); `false` refuses them (400); `'all'` dropped every undeclared field already.
 */
function closedObject (comparison: Comparison, diff: RawDiff, operation: string, where: string): void {
  const record = typeof diff.before === 'object' && diff.before !== null
  const { removeAdditional } = comparison.validation
  const values = `additionalProperties ${shownValue(diff.before)} → false`
  if (removeAdditional === 'all') {
    report(comparison, operation, where, `${values}: fields no property declares were dropped already (Ajv's removeAdditional: 'all')`, false)
  } else if (removeAdditional === false) {
    report(comparison, operation, where, `${values}: ${record ? 'the fields it took' : 'undeclared fields'} are refused (400: Ajv's removeAdditional is off)`, true)
  } else {
    report(comparison, operation, where, `${values}: ${record ? 'the fields it took are dropped' : 'undeclared fields are dropped'} (refused where Ajv's removeAdditional is off)`, record)
  }
}

/**
 * `additionalProperties` changed where the library misjudges the side (else false; decision 0250): a response's from
 * absent to `false` or a schema (the serializer wrote declared fields only) is a note; a request's to a schema breaks
 * (an undeclared field it refuses is refused, 400) unless removeAdditional drops or refused such fields; else widens.
 */
function additionalChange (comparison: Comparison, diff: RawDiff, request: boolean, [operation, where]: [string, string]): boolean {
  const { before, after } = diff
  const isSchema = typeof after === 'object' && after !== null
  if (!request && !(before === undefined && (after === false || isSchema))) return false
  const { removeAdditional } = comparison.validation
  const breaking = request && isSchema && typeof removeAdditional === 'boolean' && !(before === false && !removeAdditional)
  const how = request ? (breaking ? ': undeclared fields it refuses are refused (400)' : ' (widened)') : ' (the serializer wrote declared fields only)'
  report(comparison, operation, where, `additionalProperties ${shownValue(before)} → ${shownValue(after)}${how}`, breaking)
  return true
}
