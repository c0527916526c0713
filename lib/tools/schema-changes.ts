/**
 * Changes inside a request or response schema, for `check` (`document-comparison.ts` finds where they are): fields
 * removed, renamed, added, made required or optional; types, enum members, other keywords, text. What a client
 * sends breaks when it narrows, what it receives when a guarantee goes away (decision 0041).
 * @module
 */
import { pointerSegment } from '../core/json-schema'
import { ACCEPTS_VERSION } from './comparable-documents'
import { additionalPropertiesChange } from './additional-properties'
import { allowedStill, nullableRetyped, wrappedMembers } from './finite-values'
import { defaultFilled, hasDefault } from './request-defaults'
export { hasDefault }
import { lengthsHeld } from './string-lengths'
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
  if (path[path.length - 2] === 'patternProperties' || (key === 'patternProperties' && keyword.length === 1)) {
    patternPropertiesChange(comparison, diff, { operation, where: `${place.place} ${pointer.replace(/\/[^/]*$/, '') || '/'}`, request, keyword, schemaPath: place.schemaPath })
    return
  }
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
  if (key === 'default' && keyword.length === 1 && request && defaultFilled(comparison, diff, [operation, where])) return
  if (!TEXT_KEYS.has(key) && key !== 'const' && key !== '$ref' && (allowedStill(comparison, diff, keyword, request) || lengthsHeld(comparison, diff, keyword, request))) {
    report(comparison, operation, where, `${keyword.join('/')} ${shownValue(diff.before)} → ${shownValue(diff.after)} (${stillWords(request)})`, false)
    return
  }
  if (key === '$ref') {
    report(comparison, operation, where, 'type changed', true)
    return
  }
  if ((key === 'type' || key === 'nullable') && nullableRetyped(comparison, diff, keyword, [operation, where])) return
  if (key === 'type' && keyword.length <= 2) {
    typeChange(comparison, diff, { operation, where, request, keyword, schemaPath: place.schemaPath, parameter: place.rest[0] === 'parameters' })
    return
  }
  if (key === 'additionalProperties' && keyword.length === 1 && additionalPropertiesChange(comparison, diff, request, [operation, where])) return
  const values = `${shownValue(diff.before)} → ${shownValue(diff.after)}`
  if ((keyword.length === 1 && key === 'nullable') || ASSERTIONS.has(key)) {
    report(comparison, operation, where, `${keyword.join('/')} ${values}`, assertionBreaks(diff, keyword, request))
    return
  }
  // A `const` (a request's `format`) removed widens, a response's `const` added narrows; the serializer writes a Date by
  // a response's `format` (`date`: the day only), so any change of that breaks.
  const widened = diff.action === 'remove' && request
  if (key === 'const') report(comparison, operation, where, `${key} ${values}`, diff.action === 'replace' || (diff.action === 'add') === request)
  else if (key === 'format') report(comparison, operation, where, `${key} ${values}${widened ? ' (widened: what it accepted, it accepts)' : ''}`, !widened)
  else if (key === 'multipleOf' && keyword.length === 1 && diff.action === 'replace') report(comparison, operation, where, `${key} ${values}`, multipleOfBreaks(diff, request))
  else if (TEXT_KEYS.has(key)) report(comparison, operation, where, `${key} ${actionWord(diff)} (text)`, false)
  else report(comparison, operation, where, `${keyword.join('/')} ${values}`, diff.type === 'breaking')
}

/** Why a change at a place of a few values is a note (decision 0247). */
const stillWords = (request: boolean): string => request ? 'what it took, it takes' : 'what it sends, it sent before'

/** JSON Schema assertions the diff library's OpenAPI rules do not judge by side (it calls every change of them harmless). */
const ASSERTIONS = new Set(['dependentRequired', 'dependentSchemas', 'if', 'then', 'else', 'not', 'prefixItems', 'contains', 'minContains', 'maxContains', 'unevaluatedProperties', 'unevaluatedItems'])

/**
 * Whether a change of `nullable` or of one of {@link ASSERTIONS} (`keyword`: its path, from the keyword) breaks, by
 * side (decisions 0106, 0194): `nullable: true` lets null through (Ajv and the serializer read it); another assertion
 * added narrows what the schema takes, removed widens it; so does a name added to or removed from a list of required
 * names inside one (`dependentRequired/a/1`, `then/required/1`; not under `if` or `not`, which turn it round); any
 * other change inside one, or replaced, may do both. A request breaks when it narrows, a response when it widens.
 */
function assertionBreaks (diff: RawDiff, keyword: JsonPath, request: boolean): boolean {
  const key = keyword[0]
  const listed = key === 'dependentRequired' || (keyword.at(-2) === 'required' && !keyword.includes('if') && !keyword.includes('not'))
  const sided = keyword.length === 1 || (listed && diff.action !== 'replace')
  const narrowed = key === 'nullable' ? diff.before === true && diff.after !== true : !sided || diff.action !== 'remove'
  const widened = key === 'nullable' ? diff.after === true && diff.before !== true : !sided || diff.action !== 'add'
  return request ? narrowed : widened
}

/**
 * Whether a `multipleOf` replaced breaks, by what the steps divide (decision 0195): a new step a whole multiple of the
 * old (`0.01` → `0.05`) narrows, one that divides it (`0.05` → `0.01`) widens, neither (`2` → `3`) does both.
 */
function multipleOfBreaks (diff: RawDiff, request: boolean): boolean {
  const { before, after } = diff
  if (typeof before !== 'number' || typeof after !== 'number' || before <= 0 || after <= 0) return true
  // Steps are decimals (0.3 / 0.1 is 2.9999999999999996): a ratio within a billionth of a whole number is one.
  const whole = (ratio: number): boolean => ratio >= 1 && Math.abs(ratio - Math.round(ratio)) <= 1e-9 * ratio
  return request ? !whole(before / after) : !whole(after / before)
}

/** Where a change inside a schema is, for {@link enumMemberChange}. */
interface SchemaSite {
  readonly operation: string
  readonly where: string
  readonly request: boolean
  /** The schema keyword path after the last data step (`enum/2`, `anyOf/1`, `const`). */
  readonly keyword: JsonPath
  readonly schemaPath: JsonPath
  /** True inside a parameter's schema (a query, path or header value: a string, or a list of strings). */
  readonly parameter?: boolean
}

/**
 * Reports a change of enum members by name (`enum member 'c' added`): of an `enum` list, or of a union of `const`
 * schemas (TypeBox's union of literals). A member replaced is one removed and one added; an `enum` where there was
 * none (or none any more) is a constraint added (or removed). False when the change is not one of these.
 */
function enumMemberChange (comparison: Comparison, diff: RawDiff, site: SchemaSite): boolean {
  const { operation, where, request, keyword, schemaPath } = site
  const key = keyword[0]
  const wrapped = wrappedMembers(comparison, diff, keyword)
  if (wrapped !== undefined && 'types' in wrapped) {
    // A list of types on one side, a union of bare types on the other: judged as one change of `type`.
    const [before, after] = wrapped.types
    if (allows(before, after) && allows(after, before)) return true
    typeChange(comparison, { ...diff, action: 'replace', path: diff.path.slice(0, diff.path.length - keyword.length), before, after }, { ...site, keyword: ['type'] })
    return true
  }
  if (wrapped !== undefined && 'open' in wrapped) {
    // One side a list of values, the other a union taking more: judged by what the place takes as a whole.
    const shown = (document: unknown): string => shownValue(at(document, wrapped.open))
    const still = allowedStill(comparison, diff, keyword, request)
    report(comparison, operation, where, `values ${shown(comparison.saved)} → ${shown(comparison.current)}${still ? ` (${stillWords(request)})` : ''}`, !still)
    return true
  }
  if (wrapped !== undefined) {
    // An `enum` on one side, a union of literals on the other: the members each side allows, whatever their order.
    for (const member of wrapped.removed) report(comparison, operation, where, `enum member ${shownValue(member)} removed`, request)
    for (const member of wrapped.added) report(comparison, operation, where, `enum member ${shownValue(member)} added`, !request)
    return true
  }
  const value = diff.action === 'remove' ? diff.before : diff.after
  const union = (key === 'anyOf' || key === 'oneOf') && keyword.length === 2 && isLiteralSchema(value)
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
  // A member's `const` dropped leaves it taking any value of the rest of its schema (`Type.String()`); one added narrows.
  if (unionConst && diff.action !== 'replace') {
    const removed = diff.action === 'remove'
    report(comparison, operation, where, `const ${shownValue(value)} ${removed ? 'removed from a union member (widened)' : 'added to a union member (narrowed)'}`, removed !== request)
    return true
  }
  const name = (member: unknown): string => shownValue(isLiteralSchema(member) ? literalOf(member) : member)
  // A member removed from a request (added to a response) that the place still takes (took): no client feels it.
  const still = (side: boolean): boolean => side && allowedStill(comparison, diff, keyword, request)
  const kind = (text: string, side: boolean): string => still(side) ? `${text} (${stillWords(request)})` : text
  if (diff.action !== 'add') report(comparison, operation, where, kind(`enum member ${name(diff.before)} removed`, request), request && !still(request))
  if (diff.action !== 'remove') report(comparison, operation, where, kind(`enum member ${name(diff.after)} added`, !request), !request && !still(!request))
  return true
}

/** The JSON types a `type` keyword allows (`undefined`: any), `integer` within `number`. */
function allows (type: unknown, other: unknown): boolean {
  if (type === undefined) return true
  if (other === undefined) return false
  const list = (value: unknown): unknown[] => Array.isArray(value) ? value : [value]
  const types = list(type)
  return list(other).every((one) => types.includes(one) || (one === 'integer' && types.includes('number')))
}

/**
 * True when every value a request `before` took now arrives as a string `after` accepts: one scalar (not an array of
 * repeated values, nor an object) sent as a parameter, which arrives as a string; or sent in a body and coerced to a
 * string, where the application's Ajv coerces types (Fastify's default). With `coerceTypes: false`, a body's `5` sent
 * for a field now `'string'` is refused; a body's `null` is coerced to `''` (a break).
 */
function takenAsString (comparison: Comparison, site: SchemaSite, before: unknown, after: unknown): boolean {
  // A body's null is coerced to '' (the client's null lost, unseen); a parameter's value is never null.
  const scalar = before !== undefined && allows(['string', 'number', 'boolean', ...(site.parameter === true ? ['null'] : [])], before)
  return scalar && allows(after, 'string') && (site.parameter === true || comparison.validation.coerceTypes)
}

/**
 * Reports a change of `type` (the whole keyword, or one entry of a list of types) by what it lets through: a request
 * may widen (`'integer'` → `'number'`, a type → a list holding it: what it accepted, it accepts), a response may
 * narrow (what it sends, the old client took); the reverse breaks.
 */
function typeChange (comparison: Comparison, diff: RawDiff, site: SchemaSite): void {
  const { operation, where, request, keyword } = site
  // The whole keyword on both sides (an entry of a list changed: the lists), as the diff's values when it gives them whole.
  const typePath = diff.path.slice(0, diff.path.length - keyword.length + 1)
  const before = keyword.length === 1 ? diff.before : at(comparison.saved, typePath)
  const after = keyword.length === 1 ? diff.after : at(comparison.current, typePath)
  const values = `type ${shownValue(before)} → ${shownValue(after)}`
  if (request && allows(after, before)) report(comparison, operation, where, `${values} (widened: what it accepted, it accepts)`, false)
  else if (request && takenAsString(comparison, site, before, after)) {
    report(comparison, operation, where, `${values} (widened: what it accepted ${site.parameter === true ? 'arrives as a string' : 'is coerced to a string (Ajv\'s coerceTypes)'}, which it accepts)`, false)
  } else if (!request && allows(before, after)) report(comparison, operation, where, `${values} (narrowed: what it sends, it sent before)`, false)
  else report(comparison, operation, where, values, true)
}

/**
 * Reports pattern properties removed, added or changed (`pattern property '^x-' removed`). One removed from a request
 * breaks where the object no longer takes the fields it matched (`additionalProperties` is `false`, dropping them, or a
 * schema they may fail); where it takes any field, they arrive as before. Other changes are classified by the library.
 */
function patternPropertiesChange (comparison: Comparison, diff: RawDiff, site: SchemaSite): void {
  const { operation, where, request, keyword } = site
  const whole = keyword.length === 1
  const objectPath = diff.path.slice(0, whole ? -1 : -2)
  const names = (value: unknown): string[] => whole ? (typeof value === 'object' && value !== null ? Object.keys(value) : []) : value === undefined ? [] : [String(diff.path[diff.path.length - 1])]
  const additional = (at(comparison.current, objectPath) as { additionalProperties?: unknown } | undefined)?.additionalProperties
  const removed = names(diff.before).filter((name) => !names(diff.after).includes(name))
  for (const name of removed) {
    // Ajv's removeAdditional 'all' drops every field no property or pattern declares, whatever additionalProperties says.
    const drops = request && ((additional !== undefined && additional !== true) || comparison.validation.removeAdditional === 'all')
    const breaking = request ? drops : diff.type === 'breaking'
    report(comparison, operation, where, `pattern property ${shownValue(name)} removed${request ? drops ? ': the fields it matched are no longer taken' : ': the fields it matched are still taken' : ''}`, breaking)
  }
  for (const name of names(diff.after).filter((name) => !names(diff.before).includes(name))) {
    report(comparison, operation, where, `pattern property ${shownValue(name)} added`, diff.type === 'breaking')
  }
  if (removed.length === 0 && names(diff.after).every((name) => names(diff.before).includes(name))) {
    report(comparison, operation, where, `pattern property changed: ${shownValue(diff.before)} → ${shownValue(diff.after)}`, diff.type === 'breaking')
  }
}

function isConstSchema (value: unknown): value is { const: unknown } {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, 'const')
}

/** True when `value` is a union member of one literal: `{ const }`, or `{ enum: [one] }` (how documents write literals under `content`). */
function isLiteralSchema (value: unknown): boolean {
  return isConstSchema(value) || (typeof value === 'object' && value !== null && Array.isArray((value as { enum?: unknown }).enum) && (value as { enum: unknown[] }).enum.length === 1)
}

/** The member a union member of one literal stands for. */
function literalOf (value: unknown): unknown {
  return isConstSchema(value) ? value.const : (value as { enum: unknown[] }).enum[0]
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
    const field = `${place.place} ${pointer}/${pointerSegment(name)}`
    if (becameRequired && place.side === 'request' && comparison.validation.useDefaults && hasDefault(at(comparison.current, [...parentPath, 'properties', name]))) {
      // Ajv's useDefaults (Fastify's default) fills the field a request omits before `required` is checked.
      report(comparison, operation, field, 'became required (its default fills it when omitted)', false)
      continue
    }
    report(comparison, operation, field, becameRequired ? 'became required' : 'became optional', place.side === 'request' ? becameRequired : !becameRequired)
  }
}
