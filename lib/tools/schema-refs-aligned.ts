/**
 * A saved and a current OpenAPI document made comparable for `check` where they write one schema two ways: a `$ref`
 * and the schema inline, a deprecated reference wrapped in `allOf`, the members of a union of references (which the
 * diff library pairs by fewest differences), an object written as an `allOf` of objects (`Type.Intersect`) and the
 * same fields in one object, and a `$ref` beside other keywords.
 * @module
 */
import { setOwn } from '../core/own-properties'
import { follow, own, TEXT_KEYS } from './document-places'
import { refsIn } from './schema-loops-unrolled'

/** A `$ref` to a schema component standing alone: how the plugin writes a schema with an `$id` where it is used. */
function isSchemaRef (node: unknown): boolean {
  const ref = own(node, '$ref')
  return typeof ref === 'string' && ref.startsWith('#/components/schemas/') && Object.keys(node as object).length === 1
}

/** An `allOf` holding a schema `$ref` alone, beside annotations: how the documents write a deprecated reference. */
function isWrappedRef (node: unknown): boolean {
  const allOf = own(node, 'allOf')
  return Array.isArray(allOf) && allOf.length === 1 && isSchemaRef(allOf[0]) && Object.keys(node as object).every((key) => key === 'allOf' || TEXT_KEYS.has(key) || key.startsWith('x-'))
}

/** A wrapped reference ({@link isWrappedRef}) as the schema it refers to, with its annotations. */
function unwrapped (document: unknown, node: Record<string, unknown>): unknown {
  const { allOf, ...annotations } = node
  const target = follow(document, (allOf as unknown[])[0])
  return typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...target, ...annotations } : node
}

/** True when a schema refers, through any number of `$ref`s, to `ref` (a schema of a loop, written out elsewhere). */
function reachesBack (document: unknown, schema: unknown, ref: string): boolean {
  const seen = refsIn(schema, new Set())
  for (const next of seen) {
    if (next === ref) return true
    refsIn(follow(document, { $ref: next }), seen)
  }
  return false
}

/**
 * A schema `$ref` beside other keywords (OpenAPI 3.1's schemas allow it), or an `allOf` of it alone beside keywords
 * other than text (how the plugin documents `Type.Ref(Name, { maxLength: 20 })`), as the schema it refers to with
 * them, where that schema does not refer back to itself and none of them but text is one of its own (else as it is).
 * `api-smart-diff` makes the first an `allOf` it never resolves: a description beside it removed the schema's fields
 * (a false red), a `maxLength` beside it was a note; and it reads either facing the other form (or the `$ref` alone,
 * as documents saved before wrote it) as the schema's `type` removed.
 */
function siblingsMerged (document: unknown, node: unknown): unknown {
  const allOf = own(node, 'allOf')
  const wrapped = own(node, '$ref') === undefined && Array.isArray(allOf) && allOf.length === 1 && isSchemaRef(allOf[0]) && !isWrappedRef(node)
  const ref = wrapped ? own(allOf[0], '$ref') : own(node, '$ref')
  if (typeof ref !== 'string' || !ref.startsWith('#/components/schemas/') || isSchemaRef(node)) return node
  const target = follow(document, { $ref: ref })
  if (typeof target !== 'object' || target === null || Array.isArray(target) || reachesBack(document, target, ref)) return node
  const merged: Record<string, unknown> = { ...target }
  for (const [key, value] of Object.entries(node as object)) {
    if (key === (wrapped ? 'allOf' : '$ref')) continue
    if (Object.hasOwn(target, key) && !TEXT_KEYS.has(key)) return node
    setOwn(merged, key, value)
  }
  return merged
}

/**
 * A union (`anyOf`, `oneOf`) holding a schema `$ref`. `api-smart-diff` pairs the members of two unions by how few
 * differences each pair has, and two different `$ref`s differ by one (the `$ref` itself): a member whose schema
 * changed in two ways (a field deprecated with a sunset) is paired with another member and read as its type
 * changed. With its members inline, a pair of different schemas differs by their fields. Beside annotations
 * (`{ deprecated, anyOf: [$ref, $ref] }`, a deprecated union of schemas with an `$id`), the library moves the
 * annotations into each member, and a member `{ allOf: [{ deprecated }, $ref] }` facing `$ref` reads the same way.
 */
function isRefUnion (node: unknown): boolean {
  const members = own(node, 'anyOf') ?? own(node, 'oneOf')
  return Array.isArray(members) && members.some(isSchemaRef)
}

/** A copy of a union with its schema `$ref` members inline (for {@link isRefUnion}); anything else as it is. */
function membersInline (document: unknown, node: unknown): unknown {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return node
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    const union = (key === 'anyOf' || key === 'oneOf') && Array.isArray(value)
    setOwn(copy, key, union ? value.map((member: unknown) => isSchemaRef(member) ? follow(document, member) ?? member : member) : value)
  }
  return copy
}

/** The keys an object member of an `allOf` may hold for {@link mergedObjects} to merge it (text and `x-` aside). */
const MERGED_KEYS = new Set(['type', 'properties', 'required'])

/**
 * An object schema written as an `allOf` of object schemas (each inline or a schema `$ref`, as `Type.Intersect`
 * writes them), as the one object holding their fields: the same data, validated and serialized alike. `undefined`
 * where that is not so: a member holding any other keyword (`additionalProperties` in one member refuses the others'
 * fields), a field two members declare, or anything but `allOf` and text beside it.
 */
function mergedObjects (document: unknown, node: unknown, depth = 0): Record<string, unknown> | undefined {
  const schema = isSchemaRef(node) ? follow(document, node) : node
  const allOf = own(schema, 'allOf')
  if (!Array.isArray(allOf) || allOf.length === 0 || depth > 8) return undefined
  const merged: Record<string, unknown> = { type: 'object' }
  const properties: Record<string, unknown> = {}
  const required = new Set<string>()
  for (const [key, value] of Object.entries(schema as object)) {
    if (key === 'type' ? value !== 'object' : key !== 'allOf' && !TEXT_KEYS.has(key) && !key.startsWith('x-')) return undefined
    if (key !== 'allOf') setOwn(merged, key, value)
  }
  for (const each of allOf) {
    const member = mergedObjects(document, each, depth + 1) ?? (isSchemaRef(each) ? follow(document, each) : each)
    if (typeof member !== 'object' || member === null || own(member, 'type') !== 'object') return undefined
    if (Object.keys(member).some((key) => !MERGED_KEYS.has(key) && !TEXT_KEYS.has(key) && !key.startsWith('x-'))) return undefined
    for (const [name, field] of Object.entries(own(member, 'properties') ?? {})) {
      if (Object.hasOwn(properties, name)) return undefined
      setOwn(properties, name, field)
    }
    for (const name of own(member, 'required') as unknown[] | undefined ?? []) required.add(String(name))
  }
  merged.properties = properties
  if (required.size > 0) merged.required = [...required]
  return merged
}

/** How deep {@link withSchemaRefsAligned} walks (`check` refuses documents nested deeper than 256 levels). */
const MAX_ALIGNED_DEPTH = 1024

/**
 * Two nodes at the same place of the two documents, where one side's schema `$ref` facing a schema written inline
 * on the other is replaced by the schema it refers to, down both trees (fresh copies where anything changed).
 */
function aligned (before: unknown, after: unknown, documents: readonly [unknown, unknown], depth: number): [unknown, unknown] {
  [before, after] = [siblingsMerged(documents[0], before), siblingsMerged(documents[1], after)]
  // A reference deprecated since (or no longer) is written `{ deprecated, allOf: [$ref] }`: facing another form, inline.
  if (isWrappedRef(before) && !isWrappedRef(after)) before = unwrapped(documents[0], before as Record<string, unknown>)
  else if (isWrappedRef(after) && !isWrappedRef(before)) after = unwrapped(documents[1], after as Record<string, unknown>)
  if (isRefUnion(before) || isRefUnion(after)) [before, after] = [membersInline(documents[0], before), membersInline(documents[1], after)]
  // An intersection of objects facing one object (or another form), merged: the diff reads `allOf` as the type gone.
  const [mergedBefore, mergedAfter] = [mergedObjects(documents[0], before), mergedObjects(documents[1], after)]
  if (mergedBefore !== undefined && mergedAfter === undefined) before = mergedBefore
  else if (mergedAfter !== undefined && mergedBefore === undefined) after = mergedAfter
  if (isSchemaRef(before) !== isSchemaRef(after)) {
    // The target stays a `$ref` when it cannot be followed, and the diff says so.
    if (isSchemaRef(before)) before = follow(documents[0], before) ?? before
    else after = follow(documents[1], after) ?? after
  }
  const bothArrays = Array.isArray(before) && Array.isArray(after)
  const bothObjects = !Array.isArray(before) && !Array.isArray(after) && typeof before === 'object' && before !== null && typeof after === 'object' && after !== null
  if (depth > MAX_ALIGNED_DEPTH || (!bothArrays && !bothObjects)) return [before, after]
  if (bothArrays) {
    const [first, second] = [[...before as unknown[]], [...after as unknown[]]]
    for (let index = 0; index < Math.min(first.length, second.length); index++) [first[index], second[index]] = aligned(first[index], second[index], documents, depth + 1)
    return [first, second]
  }
  const [first, second]: Array<Record<string, unknown>> = [{}, {}]
  for (const [key, value] of Object.entries(before as object)) setOwn(first, key, value)
  for (const [key, value] of Object.entries(after as object)) setOwn(second, key, value)
  for (const key of Object.keys(first)) {
    if (Object.hasOwn(second, key)) {
      const [one, other] = aligned(first[key], second[key], documents, depth + 1)
      setOwn(first, key, one)
      setOwn(second, key, other)
    }
  }
  return [first, second]
}

/**
 * Copies of a saved and a current OpenAPI document where a schema written as a `$ref` in one and inline in the other,
 * at the same place, is inline in both. A schema with an `$id` is written as a `$ref` to its component, one without
 * inline, and `api-smart-diff` resolves `$ref`s only when both sides have one: it reads a `$ref` against the same
 * schema inline as its type and fields changed. Where both sides have a `$ref` (recursive schemas among them), they
 * stay, for the diff to resolve. The documents are not changed.
 * @example
 * ```ts
 * const [before, after] = withSchemaRefsAligned(saved, current)
 * ```
 */
export function withSchemaRefsAligned (saved: unknown, current: unknown): [unknown, unknown] {
  return aligned(saved, current, [saved, current], 0)
}
