/**
 * Changes to a schema that allows a finite list of values (a `const`, an `enum`, a union of them), for `check`: a
 * request's `const` replaced by a `pattern` it matches narrows nothing an old client could send.
 * @module
 */
import { isDeepStrictEqual } from 'node:util'
import { at, report, shownValue, TEXT_KEYS, type Comparison, type JsonPath, type RawDiff } from './document-places'

/**
 * The values a schema allows when they are a finite list: its `const`, its `enum`, or the members of a union (`anyOf`,
 * `oneOf`) each of which is one of these; `undefined` when it allows more.
 */
function finiteValues (schema: unknown): readonly unknown[] | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined
  const { const: constant, enum: members, anyOf, oneOf } = schema as Record<string, unknown>
  if (Object.hasOwn(schema, 'const')) return Array.isArray(members) && !members.some((member) => Object.is(member, constant)) ? [] : [constant]
  if (Array.isArray(members)) return members
  const union = Array.isArray(anyOf) ? anyOf : oneOf
  if (!Array.isArray(union) || union.length === 0) return undefined
  const values: unknown[] = []
  for (const member of union) {
    const found = finiteValues(member)
    if (found === undefined) return undefined
    values.push(...found)
  }
  return values
}

/**
 * True when a change at one place of a schema (`keyword`: its path from the place's schema) changes nothing a client
 * can feel, because the place allows a finite list of values on one side, every one of which the other side allows
 * (decision 0247): a request whose saved schema took `'member'` only and now takes `^mem` (its old clients send what
 * it takes); a response that now sends `'a'` only where it sent `^a` (its old clients take what it sends). Judged with
 * Ajv on the other side's schema; a schema holding a `$ref` or a `format` (which the application's Ajv may define) is
 * not judged here.
 * @example
 * ```ts
 * if (request && allowedStill(comparison, diff, keyword, true)) report(comparison, operation, where, 'pattern … (what it took, it takes)', false)
 * ```
 */
export function allowedStill (comparison: Comparison, diff: RawDiff, keyword: JsonPath, request: boolean): boolean {
  // The place as a whole: a union member's change (`anyOf/1/pattern`) is judged by what the union takes.
  let end = diff.path.length - keyword.length
  while (end >= 2 && typeof diff.path[end - 1] === 'number' && ['anyOf', 'oneOf'].includes(String(diff.path[end - 2]))) end -= 2
  const schemaPath = diff.path.slice(0, end)
  const saved = at(comparison.saved, schemaPath)
  const current = at(comparison.current, schemaPath)
  const values = finiteValues(request ? saved : current)
  const other = request ? current : saved
  if (values === undefined || typeof other !== 'object' || other === null) return false
  const text = JSON.stringify(other)
  if (text.includes('"$ref"') || text.includes('"format"')) return false
  let check
  try {
    check = comparison.strictAjv().compile(other)
  } catch {
    return false
  }
  return values.every((value) => check(value))
}

/** A place the diff library compared as a union on one side only, as a whole: see {@link wrappedMembers}. */
type WrappedUnion = { removed: unknown[], added: unknown[] } | { open: JsonPath } | { types: [unknown, unknown] }

/**
 * The JSON types a schema allows when it says nothing else (text aside): its `type`, or a union (`anyOf`, `oneOf`) of
 * such schemas, as a `type` keyword's value (a list for several); `undefined` when it constrains more.
 */
function typesOf (schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return undefined
  const { type, anyOf, oneOf, nullable } = schema as Record<string, unknown>
  // `nullable` (OpenAPI 3.0's, which Ajv and the serializer read) beside a `type`: `null` is one more of its types.
  const keys = Object.keys(schema).filter((key) => !TEXT_KEYS.has(key) && !(key === 'nullable' && typeof nullable === 'boolean' && Object.hasOwn(schema, 'type')))
  if (keys.length === 1 && keys[0] === 'type' && (typeof type === 'string' || Array.isArray(type))) return nullable === true ? [...[type].flat(), 'null'] : type
  const union = keys.length === 1 ? (keys[0] === 'anyOf' ? anyOf : keys[0] === 'oneOf' ? oneOf : undefined) : undefined
  if (!Array.isArray(union) || union.length === 0) return undefined
  const types: unknown[] = []
  for (const member of union) {
    const found = typesOf(member)
    if (found === undefined) return undefined
    types.push(...(Array.isArray(found) ? found : [found]))
  }
  return types
}

/**
 * The members a place of a few values lost and gained, when the diff is of a union the diff library made: it compares a
 * schema with a union on one side only as that union's first member (`enum: ['a', 'b']` beside `anyOf: [{ const: 'a' },
 * { const: 'b' }]`, TypeBox's union of literals, as `anyOf/0/enum/1` removed and `anyOf/1` added), whose paths the
 * documents do not hold. Compared as sets (the order of members means nothing); `open` (the place's path) when one
 * side allows more than a list of values; `types` where each side allows values of a few types only (`type: ['string',
 * 'null']` beside `anyOf: [{ type: 'string' }, { type: 'null' }]`, TypeBox's `Type.Union([Type.String(), Type.Null()])`);
 * `undefined` when the diff is not of such a union, or a side is neither.
 * @example
 * ```ts
 * const members = wrappedMembers(comparison, diff, ['anyOf', 1]) // { removed: [], added: [] } for the same members
 * ```
 */
export function wrappedMembers (comparison: Comparison, diff: RawDiff, keyword: JsonPath): WrappedUnion | undefined {
  let end = diff.path.length - keyword.length
  while (end >= 2 && typeof diff.path[end - 1] === 'number' && ['anyOf', 'oneOf'].includes(String(diff.path[end - 2]))) end -= 2
  const union = diff.path[end]
  if (union !== 'anyOf' && union !== 'oneOf') return undefined
  const schemaPath = diff.path.slice(0, end)
  if (Array.isArray(at(comparison.saved, [...schemaPath, union])) && Array.isArray(at(comparison.current, [...schemaPath, union]))) return undefined
  const saved = finiteValues(at(comparison.saved, schemaPath))
  const current = finiteValues(at(comparison.current, schemaPath))
  if (saved === undefined && current === undefined) {
    const [before, after] = [typesOf(at(comparison.saved, schemaPath)), typesOf(at(comparison.current, schemaPath))]
    return before === undefined || after === undefined ? undefined : { types: [before, after] }
  }
  if (saved === undefined || current === undefined) return { open: schemaPath }
  const missing = (list: readonly unknown[], from: readonly unknown[]): unknown[] => list.filter((value) => !from.some((other) => isDeepStrictEqual(other, value)))
  return { removed: missing(saved, current), added: missing(current, saved) }
}

/**
 * Reports a change of `type` or `nullable` at a place (`keyword`: `type`, `type/1`, `nullable`) as a note and returns
 * true when the place takes the same JSON types on both sides, `null` said by `nullable: true` on one side and by a list
 * of types or a union with `{ type: 'null' }` on the other (`type: 'string', nullable: true` beside `type: ['string',
 * 'null']`, as a saved document written by hand or by an older tool has it); false otherwise.
 */
export function nullableRetyped (comparison: Comparison, diff: RawDiff, keyword: JsonPath, [operation, where]: [string, string]): boolean {
  if (keyword[0] !== 'type' && !(keyword.length === 1 && keyword[0] === 'nullable')) return false
  const nodes = [comparison.saved, comparison.current].map((document) => at(document, diff.path.slice(0, diff.path.length - keyword.length)))
  if (!nodes.some((node) => typeof node === 'object' && node !== null && Object.hasOwn(node, 'nullable'))) return false
  // The types alone (other keywords have their own changes): a union's members must say nothing else.
  const [before, after] = nodes.map((node) => {
    const { type, nullable } = (typeof node === 'object' && node !== null ? node : {}) as Record<string, unknown>
    const types = typesOf(type === undefined ? node : { type, ...(nullable === undefined ? {} : { nullable }) })
    return types === undefined ? undefined : new Set([types].flat())
  })
  if (before === undefined || after === undefined || before.size !== after.size || ![...before].every((type) => after.has(type))) return false
  report(comparison, operation, where, `${keyword.join('/')} ${shownValue(diff.before)} → ${shownValue(diff.after)} (the same types: ${shownValue([...after])})`, false)
  return true
}
