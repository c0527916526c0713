/**
 * Where data must arrive, for `verify`. A generated example carries a unique sentinel in every free string; this
 * module tells which of them must reach the other side of a migration (a field of the example's version that
 * has a counterpart, kept through renames, with the same JSON type on the other side: a renamed field's value
 * must reach its HEAD field, a HEAD field's value the old field), and which strings a body delivers (those under
 * fields its schema declares: what a handler reads, what the serializer sends). Fields an instruction declares
 * added or removed (`didntExist`, `existedAs`), and retyped ones, have no counterpart to reach.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { SchemaGeneration } from '../schemas/generation'
import { visibleFields } from '../schemas/object-fields'
import type { FieldState, SeedState } from '../schemas/seeds'
import type { SchemaObject } from '../core/json-schema'
import type { JsonSchema } from '../values/examples'
import { childrenOf } from '../values/shapes'

/** A sentinel that must arrive, and where it was in the example. */
export interface RequiredValue {
  readonly sentinel: string
  readonly pointer: string
}

/** Resolves a `$ref` of a schema (the application's `$id`s). */
export type RefResolver = (ref: string) => unknown

/** The schema node `schema` is, following `$ref`s; `undefined` when it names nothing. */
export function asNode (schema: unknown, resolveRef: RefResolver): JsonSchema | undefined {
  let node = schema
  for (let hops = 0; hops < 8 && typeof node === 'object' && node !== null && typeof (node as JsonSchema).$ref === 'string'; hops++) {
    node = resolveRef((node as JsonSchema).$ref as string)
  }
  return typeof node === 'object' && node !== null ? node as JsonSchema : undefined
}

/** A coarse JSON type of a schema: what a value of it is (`mixed` for unions of several). */
function jsonTypeOf (schema: unknown, resolveRef: RefResolver): string {
  const node = asNode(schema, resolveRef)
  if (node === undefined) return 'any'
  if (typeof node.type === 'string') return node.type === 'integer' ? 'number' : node.type
  if (Array.isArray(node.type)) return (node.type as string[]).filter((type) => type !== 'null').join('|')
  if ('const' in node) return typeof node.const
  if (Array.isArray(node.enum)) return [...new Set(node.enum.map((value) => typeof value))].join('|')
  const union = (node.anyOf ?? node.oneOf) as unknown[] | undefined
  if (Array.isArray(union)) return [...new Set(union.map((member) => jsonTypeOf(member, resolveRef)))].sort().join('|')
  if (typeof node.properties === 'object') return 'object'
  if (node.items !== undefined) return 'array'
  return 'any'
}

/**
 * The node a value is read by: for a union without properties of its own, the member the value belongs to, roughly
 * (an object member declaring most of its keys, else one of its type); else the node itself.
 */
function readingNode (node: JsonSchema, value: unknown, resolveRef: RefResolver): JsonSchema {
  const members = (node.anyOf ?? node.oneOf) as unknown[] | undefined
  if (!Array.isArray(members) || members.length === 0 || 'properties' in node) return node
  return asNode(memberFor(members, value, resolveRef), resolveRef) ?? node
}

function memberFor (members: readonly unknown[], value: unknown, resolveRef: RefResolver): unknown {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    let best: unknown
    let bestScore = -1
    for (const member of members) {
      const node = asNode(member, resolveRef)
      const properties = node?.properties
      if (typeof properties !== 'object' || properties === null) continue
      const score = Object.keys(value).filter((key) => Object.hasOwn(properties, key)).length
      if (score > bestScore) { best = member; bestScore = score }
    }
    if (best !== undefined) return best
  }
  const type = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value
  return members.find((member) => jsonTypeOf(member, resolveRef).split('|').includes(type)) ?? members[0]
}

/** The subschema for the value under `key` of an object node (a declared property, or a record value); `undefined` when undeclared. */
function propertySchema (node: JsonSchema, key: string): unknown {
  const properties = node.properties as Record<string, unknown> | undefined
  if (properties !== undefined && Object.hasOwn(properties, key)) return properties[key]
  for (const [regex, schema] of childrenOf(node as TSchema as SchemaObject).patterns) if (regex.test(key)) return schema
  return typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined
}

/** Pushes the items of an array, or the declared fields of an object, with their subschemas. */
function pushChildren (stack: Array<[unknown, unknown]>, node: JsonSchema, value: object): void {
  if (Array.isArray(value)) {
    const tuple = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : undefined
    value.forEach((item, index) => { stack.push([tuple !== undefined ? (tuple as unknown[])[index] : node.items, item]) })
    return
  }
  for (const key of Object.keys(value)) {
    const sub = propertySchema(node, key)
    if (sub !== undefined) stack.push([sub, (value as Record<string, unknown>)[key]])
  }
}

/**
 * The strings a body delivers under the fields `schema` declares (lower-cased): what a handler typed by the schema
 * reads, or what the serializer of a response sends. Walked with an explicit stack (deep bodies are fine).
 */
export function deliveredStrings (schema: unknown, data: unknown, resolveRef: RefResolver): string[] {
  const found: string[] = []
  const stack: Array<[unknown, unknown]> = [[schema, data]]
  while (stack.length > 0) {
    const [rawSchema, value] = stack.pop() as [unknown, unknown]
    const bare = asNode(rawSchema, resolveRef)
    if (typeof value === 'string') found.push(value.toLowerCase())
    if (bare === undefined || rawSchema === true) continue
    const node = readingNode(bare, value, resolveRef)
    if (Array.isArray(node.allOf)) for (const part of node.allOf as unknown[]) stack.push([part, value])
    if (typeof value === 'object' && value !== null) pushChildren(stack, node, value)
  }
  return found
}

/** True when a sentinel is among the delivered strings (contained in one: converters may join values). */
export function arrives (sentinel: string, delivered: readonly string[]): boolean {
  const wanted = sentinel.toLowerCase()
  return delivered.some((text) => text.includes(wanted))
}

/** Lineage of fields between two levels of the same HEAD schema. */
interface Lineage {
  readonly generation: SchemaGeneration
  readonly resolveRef: RefResolver
  /** The level the example is at. */
  readonly from: number
  /** The level its values must reach. */
  readonly to: number
}

function fieldsAt (lineage: Lineage, head: TSchema, level: number): Array<{ key: string, field: FieldState }> {
  const state = lineage.generation.stateAt(head, level)
  return state.kind === 'object' ? visibleFields(state, (parent): SeedState => lineage.generation.stateAt(parent, level)) : []
}

/**
 * The sentinels of an example (at level `from`, of the HEAD schema `headSchema`) that must reach level `to`:
 * those under fields that have a counterpart there (the same field, kept through renames) of the same JSON type,
 * all the way down.
 */
export function requiredValues (lineage: Lineage, headSchema: unknown, example: unknown, sentinels: ReadonlyMap<string, string>): RequiredValue[] {
  const required: RequiredValue[] = []
  if (sentinels.size === 0) return required
  const { generation, resolveRef } = lineage
  const stack: Array<[unknown, unknown]> = [[headSchema, example]]
  while (stack.length > 0) {
    const [schema, value] = stack.pop() as [unknown, unknown]
    if (typeof value === 'string') {
      const pointer = sentinels.get(value)
      if (pointer !== undefined) required.push({ sentinel: value, pointer })
      continue
    }
    const bare = asNode(schema, resolveRef)
    if (bare === undefined || typeof value !== 'object' || value === null) continue
    const node = readingNode(bare, value, resolveRef)
    const seed = Array.isArray(value) ? undefined : generation.seedOf(node as TSchema)
    if (seed === undefined || lineage.from === lineage.to) {
      pushChildren(stack, node, value)
      continue
    }
    const there = new Map(fieldsAt(lineage, seed.head, lineage.to).map(({ field }) => [field.id, field]))
    for (const { key, field } of fieldsAt(lineage, seed.head, lineage.from)) {
      if (!Object.hasOwn(value, key)) continue
      const counterpart = there.get(field.id)
      // Added or removed by an instruction, or retyped: nothing of it has to arrive as it is.
      if (counterpart === undefined || jsonTypeOf(counterpart.type, resolveRef) !== jsonTypeOf(field.type, resolveRef)) continue
      stack.push([field.type, (value as Record<string, unknown>)[key]])
    }
  }
  return required
}
