/**
 * Changes inside a request or response schema, for `check` (`document-comparison.ts` finds where they are): fields
 * removed, renamed, added, made required or optional; types, enum members, other keywords, text. What a client
 * sends breaks when it narrows, what it receives when a guarantee goes away (decision 0041).
 * @module
 */
import { pointerSegment } from '../core/json-schema'
import { ACCEPTS_VERSION } from './comparable-documents'
import {
  actionWord, at, dataPointer, report, shownValue, TEXT_KEYS,
  type Comparison, type JsonPath, type Place, type RawDiff
} from './document-places'

/**
 * Reports a change inside a request or response schema: fields, `required`, types, enum members, text.
 * @example
 * ```ts
 * classifySchemaChange(comparison, diff, 'POST /users', placeOf(diff, comparison.saved, diff.path.slice(0, 3)))
 * ```
 */
export function classifySchemaChange (comparison: Comparison, diff: RawDiff, operation: string, place: Place): void {
  const path = diff.path
  const request = place.side === 'request'
  const { pointer, keyword } = dataPointer(place.schemaPath)
  const where = `${place.place} ${pointer === '' ? '/' : pointer}`
  const key = String(keyword[0] ?? '')
  if (path[path.length - 2] === 'properties') {
    if (diff.action === 'remove') {
      const to = comparison.renames.renamed.get(diff)
      report(comparison, operation, where, to === undefined ? 'removed' : `renamed to ${to}`, true)
    } else if (diff.action === 'add') {
      const parentSchema = at(comparison.current, path.slice(0, path.length - 2)) as { required?: unknown } | undefined
      const required = Array.isArray(parentSchema?.required) && parentSchema.required.includes(String(path[path.length - 1]))
      if (request) report(comparison, operation, where, required ? 'new required field' : 'new optional field', required)
      else report(comparison, operation, where, 'new field', false)
    }
    return
  }
  if (key === ACCEPTS_VERSION && keyword.length === 1) {
    // The version parameter: its `enum`, `const` and `default` name the version, in each document (comparableDocuments).
    const accepts = diff.after === true
    report(comparison, operation, place.place, `${accepts ? 'accepts' : 'no longer accepts'} ${shownValue(comparison.version)}`, request && !accepts)
    return
  }
  if (key === 'required' && keyword.length <= 2) {
    requiredChanges(comparison, diff, operation, place, { pointer, keyword })
    return
  }
  if (enumMemberChange(comparison, diff, { operation, where, request, keyword, schemaPath: place.schemaPath })) return
  if (key === '$ref') {
    report(comparison, operation, where, 'type changed', true)
    return
  }
  const values = `${shownValue(diff.before)} → ${shownValue(diff.after)}`
  if (key === 'type' || key === 'const' || key === 'format') report(comparison, operation, where, `${key} ${values}`, true)
  else if (TEXT_KEYS.has(key)) report(comparison, operation, where, `${key} ${actionWord(diff)} (text)`, false)
  else report(comparison, operation, where, `${keyword.join('/')} ${values}`, diff.type === 'breaking')
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
    report(comparison, operation, where, `enum ${shown(comparison.saved)} → ${shown(comparison.current)}`, added ? request : !request)
    return true
  }
  const name = (member: unknown): string => shownValue(isConstSchema(member) ? member.const : member)
  if (diff.action !== 'add') report(comparison, operation, where, `enum member ${name(diff.before)} removed`, request)
  if (diff.action !== 'remove') report(comparison, operation, where, `enum member ${name(diff.after)} added`, !request)
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
    report(comparison, operation, `${place.place} ${pointer}/${pointerSegment(name)}`, becameRequired ? 'became required' : 'became optional',
      place.side === 'request' ? becameRequired : !becameRequired)
  }
}
