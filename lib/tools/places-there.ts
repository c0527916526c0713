/**
 * Where a value's fields go in a schema, for `verify`'s data flow (./data-flow.ts): the subschema of a key, whether
 * a schema of the other level has a place for it at all, and the formats that tell a field retyped.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { SchemaObject } from '../core/json-schema'
import type { JsonSchema } from '../values/examples'
import { childrenOf } from '../values/shapes'

/**
 * The subschema for the value under `key` of an object node (a declared property, or a record value); `undefined`
 * when undeclared.
 * @example
 * ```ts
 * propertySchema({ properties: { id: { type: 'string' } } }, 'id') // { type: 'string' }
 * ```
 */
export function propertySchema (node: JsonSchema, key: string): unknown {
  const properties = node.properties as Record<string, unknown> | undefined
  if (properties !== undefined && Object.hasOwn(properties, key)) return properties[key]
  for (const [regex, schema] of childrenOf(node as TSchema as SchemaObject).patterns) if (regex.test(key)) return schema
  return typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined
}

/**
 * The schema of the place `key` of a value of `there` (the schema at the other level, `undefined` when unknown):
 * `null` when `there` is objects (itself or every member of its union) none of which declares `key`, so that a
 * field of a union member the other level lacks (a payment method added in HEAD) has nowhere to go. `nodeOf` gives
 * the node a schema is, following `$ref`s.
 * @example
 * ```ts
 * placeThere(Type.Union([Card, Bank]), 'provider', (schema) => schema as JsonSchema) // null
 * ```
 */
export function placeThere (there: unknown, key: string | number, nodeOf: (schema: unknown) => JsonSchema | undefined): unknown {
  const node = nodeOf(there)
  if (node === undefined) return undefined
  if (typeof key === 'number') return Array.isArray(node.items) ? undefined : node.items
  const members = ((node.anyOf ?? node.oneOf) as unknown[] | undefined) ?? [node]
  for (const member of members) {
    const memberNode = nodeOf(member)
    if (memberNode === undefined || typeof memberNode.properties !== 'object') return undefined
    const sub = propertySchema(memberNode, key)
    if (sub !== undefined) return sub
  }
  return null
}

/**
 * The string formats of a schema (its own, or its union members'), sorted and joined with `|`: a field whose formats
 * differ between levels (a `date-time` an old version shows as a `date`) changes representation, so its value is
 * converted, not carried as it is. `nodeOf` gives the node a schema is, following `$ref`s.
 * @example
 * ```ts
 * formatsOf(Type.Union([Type.String({ format: 'date' }), Type.Null()]), (schema) => schema as JsonSchema) // 'date'
 * ```
 */
export function formatsOf (schema: unknown, nodeOf: (schema: unknown) => JsonSchema | undefined): string {
  const node = nodeOf(schema)
  if (node === undefined) return ''
  const members = (node.anyOf ?? node.oneOf) as unknown[] | undefined
  const formats = [typeof node.format === 'string' ? node.format : '', ...(Array.isArray(members) ? members.map((member) => formatsOf(member, nodeOf)) : [])]
  return [...new Set(formats.filter((format) => format !== ''))].sort().join('|')
}

/**
 * How two fields' JSON types (as `jsonTypeOf` writes them, `null|string`) compare: `alike` when they are the same
 * but for `null`, and `nullOnly` when `null` is all that differs (a field nullable in HEAD, optional or required in an
 * old version): its other values are carried as they are, and `null` may stand for a value or be left out.
 * @example
 * ```ts
 * typesBesideNull('null|string', 'string') // { alike: true, nullOnly: true }
 * typesBesideNull('null', 'string') // { alike: false, nullOnly: false }
 * ```
 */
export function typesBesideNull (here: string, there: string): { alike: boolean, nullOnly: boolean } {
  const [left, right] = [here, there].map((types) => types.split('|'))
  const [leftValues, rightValues] = [left, right].map((types) => types.filter((type) => type !== 'null').join('|'))
  const alike = leftValues !== '' && leftValues === rightValues
  return { alike, nullOnly: alike && left.includes('null') !== right.includes('null') }
}

/** True when a JSON value holds something: a string, number or boolean somewhere in it. */
function holdsValue (value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return value !== null && value !== undefined
  return Object.values(value).some(holdsValue)
}

/**
 * The fields an object schema of the other level (`there`) declares, when a value `held` would keep none of them as
 * it is: it holds values, under keys none of which `there` declares (HEAD's `{ data: { name } }` for an old version's
 * `{ name }`), so that left unconverted (a wrapper left on) it arrives holding nothing the version reads. `{}` otherwise.
 * @example
 * ```ts
 * fieldsThereOnly(Type.Object({ name: Type.String() }), { data: { name: 'Ada' } }, (schema) => schema as JsonSchema) // { fieldsThere: ['name'] }
 * ```
 */
export function fieldsThereOnly (there: unknown, held: unknown, nodeOf: (schema: unknown) => JsonSchema | undefined): { fieldsThere?: readonly string[] } {
  const node = there === undefined || there === null ? undefined : nodeOf(there)
  const properties = node?.properties
  if (node === undefined || typeof properties !== 'object' || properties === null || node.anyOf !== undefined || node.oneOf !== undefined) return {}
  if (typeof held !== 'object' || held === null || Array.isArray(held) || !holdsValue(held)) return {}
  const fieldsThere = Object.keys(properties)
  return fieldsThere.length > 0 && Object.keys(held).every((key) => propertySchema(node, key) === undefined) ? { fieldsThere } : {}
}

/**
 * True when `value` is a number out of the range `node` (a field's schema at the other level) gives it: below its
 * `minimum`, above its `maximum`, or at an exclusive bound.
 * @example
 * ```ts
 * outOfRange({ type: 'integer', minimum: 0 }, -500) // true
 * ```
 */
export function outOfRange (node: JsonSchema | undefined, value: unknown): boolean {
  if (node === undefined || typeof value !== 'number') return false
  const bound = (keyword: string): number | undefined => typeof node[keyword] === 'number' ? node[keyword] as number : undefined
  const [minimum, maximum, below, above] = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].map(bound)
  return value < (minimum ?? -Infinity) || value > (maximum ?? Infinity) || value <= (below ?? -Infinity) || value >= (above ?? Infinity)
}
