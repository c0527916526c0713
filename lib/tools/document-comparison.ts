/**
 * Comparing one version's saved OpenAPI document with its current one, once `check` accepted both. The diff itself
 * is `api-smart-diff`'s (`$ref`s resolved, OpenAPI 3 rules; through `document-diff.ts`); this module names each
 * change as the operation, the place and the kind, pairs a removed field with an added field of the same schema
 * as a rename, and decides which side breaks: what a client sends (parameters, request bodies) breaks when it
 * narrows, what it receives (responses) when fields, statuses or guarantees go away.
 * @module
 */
import { isDeepStrictEqual } from 'node:util'
import { pointerSegment } from '../core/json-schema'
import { documentDiffs } from './document-diff'
import {
  actionWord, at, change, dataPointer, METHODS, placeOf, shownValue, TEXT_KEYS, withoutText,
  type DocumentChange, type JsonPath, type Place, type RawDiff
} from './document-places'

/** Removed fields paired with added fields of the same schema (same parent, same schema but for text). */
interface Renames {
  /** The removal of a renamed field, and the field's new name. */
  readonly renamed: Map<RawDiff, string>
  /** The names (old and new) of renamed fields, by parent schema path. */
  readonly names: Map<string, Set<string>>
  /** The additions that are the other half of a rename (not reported on their own). */
  readonly handled: Set<RawDiff>
}

/** One comparison in progress: what it compares, and the changes found so far (each text once). */
interface Comparison {
  readonly version: string
  readonly saved: unknown
  readonly current: unknown
  readonly renames: Renames
  readonly result: DocumentChange[]
}

function add (comparison: Comparison, operation: string, place: string, kind: string, breaking: boolean): void {
  const made = change(comparison.version, operation, place, kind, breaking)
  if (!comparison.result.some((known) => known.text === made.text)) comparison.result.push(made)
}

/** Compares two documents `assertComparable` accepted. */
export function compareComparable (version: string, saved: unknown, current: unknown): DocumentChange[] {
  const diffs = documentDiffs(saved, current)
  const comparison: Comparison = { version, saved, current, renames: pairRenames(diffs), result: [] }
  for (const diff of diffs) {
    if (comparison.renames.handled.has(diff)) continue
    const root = diff.path[0]
    if (root === 'paths' || root === 'webhooks') classify(comparison, diff)
  }
  return comparison.result
}

/** Pairs each removed property with an added property of the same parent and the same schema (text aside). */
function pairRenames (diffs: readonly RawDiff[]): Renames {
  const renames: Renames = { renamed: new Map(), names: new Map(), handled: new Set() }
  const parents = new Map(diffs.filter((diff) => diff.path[diff.path.length - 2] === 'properties').map((diff) => [diff, JSON.stringify(diff.path.slice(0, -2))]))
  const nameOf = (diff: RawDiff): string => String(diff.path[diff.path.length - 1])
  const added = [...parents.keys()].filter((diff) => diff.action === 'add')
  for (const [removed, parent] of parents) {
    if (removed.action !== 'remove') continue
    // The first addition of the same parent and schema not paired yet, in the diff's order.
    const match = added.find((candidate) => !renames.handled.has(candidate) && parents.get(candidate) === parent &&
      isDeepStrictEqual(withoutText(candidate.after), withoutText(removed.before)))
    if (match === undefined) continue
    renames.renamed.set(removed, nameOf(match))
    renames.handled.add(match)
    renames.names.set(parent, new Set([...renames.names.get(parent) ?? [], nameOf(removed), nameOf(match)]))
  }
  return renames
}

function operationName (root: string | number, method: string, path: string | number): string {
  return root === 'paths' ? `${method.toUpperCase()} ${String(path)}` : `webhook ${String(path)}`
}

/** Reports one difference under `paths` or `webhooks`. */
function classify (comparison: Comparison, diff: RawDiff): void {
  const path = diff.path
  const root = path[0]
  if (path.length === 2) {
    // A whole path item (or webhook) added or removed: one line per operation.
    const item = (diff.action === 'remove' ? diff.before : diff.after) as Record<string, unknown> | undefined
    const methods = Object.keys(item ?? {}).filter((key) => METHODS.has(key))
    for (const method of methods) endpointChange(comparison, diff, operationName(root, method, path[1]))
    return
  }
  const method = String(path[2])
  if (!METHODS.has(method)) {
    // Path-level parameters, summary…: classified by the library.
    add(comparison, root === 'paths' ? String(path[1]) : `webhook ${String(path[1])}`, path.slice(2).join('/'), `${diff.action} (${diff.type})`, diff.type === 'breaking')
    return
  }
  const operation = operationName(root, method, path[1])
  if (path.length === 3) {
    endpointChange(comparison, diff, operation)
    return
  }
  const place = placeOf(path.slice(3), comparison.current, comparison.saved, path.slice(0, 3))
  if (!classifyOperationPart(comparison, diff, operation, place)) classifySchemaChange(comparison, diff, operation, place)
}

function endpointChange (comparison: Comparison, diff: RawDiff, operation: string): void {
  if (diff.action === 'remove') add(comparison, operation, '', 'endpoint removed', true)
  else if (diff.action === 'add') add(comparison, operation, '', 'new endpoint', false)
}

/**
 * Reports a change of a whole parameter, response or request body, of whether one is required, of the
 * operation itself, or outside any schema. False when the change is inside a schema.
 */
function classifyOperationPart (comparison: Comparison, diff: RawDiff, operation: string, place: Place): boolean {
  const rest = place.rest
  const report = (kind: string, breaking: boolean, where = place.place): true => {
    add(comparison, operation, where, kind, breaking)
    return true
  }
  if (rest[0] === 'parameters' && rest.length === 2) {
    const parameter = (diff.action === 'remove' ? diff.before : diff.after) as { required?: boolean } | undefined
    if (diff.action === 'remove') return report('removed', true)
    if (diff.action === 'add') return report(parameter?.required === true ? 'new required parameter' : 'new optional parameter', parameter?.required === true)
    return report('changed', diff.type === 'breaking')
  }
  // `required` of a parameter (parameters/N/required) or of the request body (requestBody/required).
  const requiredAt = rest[0] === 'parameters' ? 3 : rest[0] === 'requestBody' ? 2 : 0
  if (rest.length === requiredAt && rest[requiredAt - 1] === 'required') return report(diff.after === true ? 'became required' : 'became optional', diff.after === true)
  if (rest[0] === 'responses' && rest.length === 2) {
    if (diff.action === 'remove') report('status removed', true)
    else if (diff.action === 'add') report('new status', false)
    return true
  }
  if (rest[0] === 'requestBody' && rest.length === 1) {
    const required = (diff.after as { required?: boolean } | undefined)?.required === true
    if (diff.action === 'remove') report('removed', true)
    else if (diff.action === 'add') report(required ? 'became required' : 'new optional body', required)
    return true
  }
  if (place.side === 'operation') {
    if (TEXT_KEYS.has(String(rest[0]))) return report(`${String(rest[0])} ${actionWord(diff)} (text)`, false, '')
    return report(`${diff.action} (${diff.type})`, diff.type === 'breaking', rest.join('/'))
  }
  if (place.schemaPath.length === 0) {
    // Media types, headers of responses, descriptions of a response or parameter.
    const key = String(rest[rest.length - 1])
    if (TEXT_KEYS.has(key)) return report(`${key} ${actionWord(diff)} (text)`, false)
    return report(`${diff.action} (${diff.type})`, diff.type === 'breaking',
      `${place.place} ${rest.slice(rest[0] === 'responses' || rest[0] === 'parameters' ? 2 : 1).join('/')}`.trim())
  }
  return false
}

/** Reports a change inside a request or response schema: fields, `required`, types, enum members, text. */
function classifySchemaChange (comparison: Comparison, diff: RawDiff, operation: string, place: Place): void {
  const path = diff.path
  const request = place.side === 'request'
  const { pointer, keyword } = dataPointer(place.schemaPath)
  const where = `${place.place} ${pointer === '' ? '/' : pointer}`
  const key = String(keyword[0] ?? '')
  if (path[path.length - 2] === 'properties') {
    if (diff.action === 'remove') {
      const to = comparison.renames.renamed.get(diff)
      add(comparison, operation, where, to === undefined ? 'removed' : `renamed to ${to}`, true)
    } else if (diff.action === 'add') {
      const parentSchema = at(comparison.current, path.slice(0, path.length - 2)) as { required?: unknown } | undefined
      const required = Array.isArray(parentSchema?.required) && parentSchema.required.includes(String(path[path.length - 1]))
      if (request) add(comparison, operation, where, required ? 'new required field' : 'new optional field', required)
      else add(comparison, operation, where, 'new field', false)
    }
    return
  }
  if (key === 'required' && keyword.length <= 2) {
    requiredChanges(comparison, diff, operation, place, { pointer, keyword })
    return
  }
  if (enumMemberChange(comparison, diff, { operation, where, request, keyword, schemaPath: place.schemaPath })) return
  if (key === '$ref') {
    add(comparison, operation, where, 'type changed', true)
    return
  }
  const values = `${shownValue(diff.before)} → ${shownValue(diff.after)}`
  if (key === 'type' || key === 'const' || key === 'format') add(comparison, operation, where, `${key} ${values}`, true)
  else if (TEXT_KEYS.has(key)) add(comparison, operation, where, `${key} ${actionWord(diff)} (text)`, false)
  else add(comparison, operation, where, `${keyword.join('/')} ${values}`, diff.type === 'breaking')
}

/** Where a change inside a schema is, for {@link enumMemberChange}. */
interface SchemaSite {
  readonly operation: string
  readonly where: string
  readonly request: boolean
  /** The schema keyword path after the last data step (`enum/2`, `anyOf/1`, `const`). */
  readonly keyword: JsonPath
  readonly schemaPath: JsonPath
}

/**
 * Reports a change of enum members by name (`enum member 'c' added`): of an `enum` list, or of a union of `const`
 * schemas (TypeBox's union of literals). A member replaced is one removed and one added; an `enum` where there was
 * none (or none any more) is a constraint added (or removed). False when the change is not one of these.
 */
function enumMemberChange (comparison: Comparison, diff: RawDiff, site: SchemaSite): boolean {
  const { operation, where, request, keyword, schemaPath } = site
  const key = keyword[0]
  const value = diff.action === 'remove' ? diff.before : diff.after
  const union = (key === 'anyOf' || key === 'oneOf') && keyword.length === 2 && isConstSchema(value)
  // A member's `const` replaced: `anyOf/1/const` (the data pointer stops before the union's index).
  const unionConst = key === 'const' && keyword.length === 1 && typeof schemaPath[schemaPath.length - 2] === 'number' &&
    ['anyOf', 'oneOf'].includes(String(schemaPath[schemaPath.length - 3]))
  if (!(key === 'enum' && keyword.length <= 2) && !union && !unionConst) return false
  const list = diff.path.slice(0, unionConst ? -2 : keyword.length === 1 ? undefined : -1)
  if (key === 'enum' && (at(comparison.saved, list) === undefined || at(comparison.current, list) === undefined)) {
    // The whole `enum` added (a request narrows) or removed (a response widens).
    const added = at(comparison.saved, list) === undefined
    const shown = (document: unknown): string => shownValue(at(document, list))
    add(comparison, operation, where, `enum ${shown(comparison.saved)} → ${shown(comparison.current)}`, added ? request : !request)
    return true
  }
  const name = (member: unknown): string => shownValue(isConstSchema(member) ? member.const : member)
  if (diff.action !== 'add') add(comparison, operation, where, `enum member ${name(diff.before)} removed`, request)
  if (diff.action !== 'remove') add(comparison, operation, where, `enum member ${name(diff.after)} added`, !request)
  return true
}

function isConstSchema (value: unknown): value is { const: unknown } {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, 'const')
}

/** Reports the fields a change of `required` made required or optional (renamed, added or removed ones aside). */
function requiredChanges (comparison: Comparison, diff: RawDiff, operation: string, place: Place, location: { pointer: string, keyword: JsonPath }): void {
  const { pointer, keyword } = location
  const parentPath = diff.path.slice(0, keyword.length === 2 ? -2 : -1)
  const names = comparison.renames.names.get(JSON.stringify(parentPath))
  // The names on each side: of the whole list (keyword `required`), or of the one entry changed (`required/N`).
  const listed = (value: unknown): unknown[] => keyword.length === 1 ? (Array.isArray(value) ? value : []) : typeof value === 'string' ? [value] : []
  const before = listed(diff.before)
  const after = listed(diff.after)
  const entries: Array<[string, boolean]> = []
  for (const name of after) if (!before.includes(name)) entries.push([String(name), true])
  for (const name of before) if (!after.includes(name)) entries.push([String(name), false])
  for (const [name, becameRequired] of entries) {
    // A field removed, renamed or added is reported once, as such.
    if (names?.has(name) === true) continue
    if (at(comparison.current, [...parentPath, 'properties', name]) === undefined && !becameRequired) continue
    if (at(comparison.saved, [...parentPath, 'properties', name]) === undefined && becameRequired) continue
    add(comparison, operation, `${place.place} ${pointer}/${pointerSegment(name)}`, becameRequired ? 'became required' : 'became optional',
      place.side === 'request' ? becameRequired : !becameRequired)
  }
}
