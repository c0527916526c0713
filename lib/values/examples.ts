/**
 * Deterministic example values for JSON Schemas (the upgrade guide, `verify`, document tests); with `toward`, one
 * holding a given value at a given node.
 * @module
 */
import { isSchemaObject, pointerSegment } from '../core/json-schema'
import { setOwn } from '../core/own-properties'
import { everySubschema, resolverWithin } from '../core/subschemas'
import type { TSchema } from '@sinclair/typebox'
import { noStringReason, patternOf, stringExample, type FormatPatterns } from './string-examples'
import { compileCollector, type Holder, type Occurrence } from './occurrences'
import { typeMatches } from './union-matchers'
import { numberExample, showingNumber } from './number-examples'

/** A JSON Schema node (loosely typed: documents are plain JSON). */
export type JsonSchema = Record<string, unknown>

export { EXAMPLE_UUID } from './string-examples'

/** Options of {@link exampleOf}. */
interface ExampleOptions {
  /** The document's `components.schemas`, for `$ref: '#/components/schemas/<name>'`. */
  components?: Record<string, unknown>
  /** Also fill optional object properties (default: required ones only). */
  includeOptional?: boolean
  /** Values to use for string properties with `format: 'uuid'`, by property name (e.g. ids of created records). */
  uuids?: Record<string, string>
  /** Resolves a `$ref` that is not `#/components/schemas/…` (an `$id`); `undefined` when it names nothing. */
  resolveRef?: (ref: string) => unknown
  /** The regular expressions of the string formats an application declares as one (`verify`: its Ajv's). */
  formats?: FormatPatterns
  /** fast-check's strings of each pattern, kept between calls (making them costs milliseconds). */
  samples?: Map<string, readonly string[]>
  /**
   * Builds the example toward one value of one schema node: where `isTarget` holds, the value is `value`;
   * `exampleOf` throws when the example holds no such place.
   */
  toward?: { readonly isTarget: (node: object) => boolean, readonly value: unknown }
  /**
   * The numbers the example generates (those of no `examples`, `default`, `const` or `enum`) to make show what a
   * converter does to them, by JSON pointer: not 0 and not round (1234, 12.34), within the schema's keywords.
   */
  showing?: ReadonlySet<string>
  /** Called with the JSON pointer and value of each number the example generates (those `showing` can name). */
  onNumber?: (pointer: string, value: number) => void
}

const COMPONENTS = '#/components/schemas/'

/** Resolves a `$ref` to a component of the document (throws when it points anywhere else or to nothing). */
function resolveRef (ref: string, components: Record<string, unknown> = {}, other?: (ref: string) => unknown): JsonSchema {
  if (!ref.startsWith(COMPONENTS)) {
    const found = other?.(ref)
    if (typeof found === 'object' && found !== null) return found as JsonSchema
    throw new Error(`exampleOf: unsupported $ref '${ref}'`)
  }
  const name = decodeURIComponent(ref.slice(COMPONENTS.length))
  const target = components[name]
  if (typeof target !== 'object' || target === null) throw new Error(`exampleOf: $ref '${ref}' names no component`)
  return target as JsonSchema
}

/** The type of a schema's values: its `type` (the first besides `null` of a list), or what its keywords imply. */
export function typeOf (schema: JsonSchema): string | undefined {
  const type = schema.type
  if (typeof type === 'string') return type
  if (Array.isArray(type)) return (type as string[]).find((item) => item !== 'null') ?? type[0] as string | undefined
  if (typeof schema.properties === 'object' || Array.isArray(schema.required)) return 'object'
  if (schema.items !== undefined) return 'array'
  return undefined
}

/** A plain string's `variant`th form (a number at its end, within `maxLength`); one of a pattern or a format as it is. */
function variedString (schema: JsonSchema, text: string, variant: number): string {
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity
  const suffix = String(variant)
  if (variant === 0 || schema.pattern !== undefined || schema.format !== undefined || suffix.length > max) return text
  return [...text].slice(0, max - suffix.length).join('') + suffix
}

/**
 * The example of an array's next item; with `unique` (`uniqueItems`), one equal to none before it (the next variants
 * tried), else an error: an example holding an item twice is refused by the schema it illustrates.
 */
function itemExample (build: Build, before: readonly unknown[], schema: unknown, unique: boolean, depth: number): unknown {
  const outer = build.variant
  const texts = new Set(unique ? before.map((item) => JSON.stringify(item)) : [])
  try {
    for (let variant = before.length; variant <= before.length * 2 + 2; variant++) {
      if (unique) build.variant = variant
      const value = exampleAt(build, schema, undefined, depth + 1)
      if (!texts.has(JSON.stringify(value))) return value
    }
  } finally {
    build.variant = outer
  }
  throw cannot(build, 'no item differs from those before it, as uniqueItems requires')
}

/** One example being built: its options, where it is, whether the `toward` value was placed, what each node can hold. */
interface Build {
  readonly options: ExampleOptions
  /** Resolves a `$ref`: to a schema with that `$id` inside the root, a component of the document, or through `options.resolveRef`. */
  readonly resolve: (ref: string) => JsonSchema
  /** The JSON pointer segments of the value being built (for errors). */
  readonly path: string[]
  placed: boolean
  /** The nodes being built (a recursion: an optional property of one is left out). */
  readonly open: Set<object>
  readonly holds: Map<object, boolean>
  /** Which of its items `uniqueItems` has the value be (0: the first example; others differ where they can). */
  variant: number
}

/** The error of an example that cannot be made, saying where. */
function cannot (build: Build, message: string): Error {
  const pointer = build.path.map((segment) => `/${segment}`).join('')
  return new Error(`exampleOf: ${message} ${pointer === '' ? 'at the root' : `at '${pointer}'`}`)
}

/**
 * A valid value for `schema` (`property`: the name it is for, for `options.uuids`). Throws when it cannot make one
 * (no value matches, a pattern it cannot match, a required recursion, a `toward` value with no place).
 * @example
 * ```ts
 * exampleOf({ type: 'object', properties: { id: { type: 'string', format: 'uuid' } }, required: ['id'] }) // { id: EXAMPLE_UUID }
 * ```
 */
export function exampleOf (schema: unknown, options: ExampleOptions = {}, property?: string): unknown {
  const within = resolverWithin(isSchemaObject(schema) ? [schema] : [], (ref) => options.resolveRef?.(ref))
  const resolve = (ref: string): JsonSchema => resolveRef(ref, options.components, within)
  const build: Build = { options, resolve, path: [], placed: false, open: new Set(), holds: new Map(), variant: 0 }
  const value = exampleAt(build, schema, property, 0)
  if (options.toward !== undefined && !build.placed) throw cannot(build, `the schema has no place for the value ${JSON.stringify(options.toward.value)}`)
  return value
}

/** True when data of `schema` can hold a node `toward` aims at (through subschemas and `$ref`s). */
function canHold (build: Build, schema: unknown): boolean {
  const target = build.options.toward
  if (target === undefined || !isSchemaObject(schema)) return false
  const known = build.holds.get(schema)
  if (known !== undefined) return known
  const found = reaches(build, schema, target.isTarget)
  build.holds.set(schema, found)
  return found
}

/** True when `schema`, or a schema its data can hold (through subschemas and `$ref`s), is one `wanted` tells. */
function reaches (build: Build, schema: unknown, wanted: (node: object) => boolean): boolean {
  if (!isSchemaObject(schema)) return false
  const resolve = (ref: string): TSchema | undefined => {
    try {
      return build.resolve(ref) as TSchema
    } catch {
      // A reference to nothing holds nothing.
      return undefined
    }
  }
  return [...everySubschema([schema], resolve)].some(wanted)
}

/** True when `value` has the type `node` says (the `examples` or `default` of a field whose type an instruction changed may not). */
function fitsType (node: JsonSchema, value: unknown): boolean {
  const type = typeOf(node)
  return type === undefined || (typeMatches(type, value) && (type !== 'string' || (patternOf(node)?.test(value as string) ?? true)))
}

/** True for a schema that no value matches: `false`, or one saying `not: {}` (an enum whose every member was removed). */
function acceptsNothing (node: unknown): boolean {
  return node === false || (isSchemaObject(node) && (node.not === true || (isSchemaObject(node.not) && Object.keys(node.not).length === 0)))
}

function exampleAt (build: Build, schema: unknown, property: string | undefined, depth: number): unknown {
  if (depth > 20) throw cannot(build, 'the schema is too deep (a required recursion?)')
  if (schema === true || schema === undefined) return 'example'
  if (acceptsNothing(schema)) throw cannot(build, 'no value is valid')
  if (typeof schema !== 'object' || schema === null) throw cannot(build, `not a schema: ${JSON.stringify(schema)}`)
  const { options } = build
  const node = schema as JsonSchema
  if (options.toward?.isTarget(node) === true) {
    build.placed = true
    return options.toward.value
  }
  if (typeof node.$ref === 'string') return exampleAt(build, build.resolve(node.$ref), property, depth + 1)
  if ('const' in node) return node.const
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[build.variant % node.enum.length]
  const given = build.variant > 0 ? [] : 'default' in node ? [node.default] : Array.isArray(node.examples) ? node.examples.slice(0, 1) : []
  if (given.length > 0 && fitsType(node, given[0])) {
    if (!canHold(build, node) || build.placed) return given[0]
    const placed = placeInto(build, node, given[0])
    if (placed !== undefined) return placed.value
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members = node[key]
    if (Array.isArray(members) && members.length > 0) {
      return exampleAt(build, members.find((member) => canHold(build, member)) ?? members[build.variant % members.length], property, depth + 1)
    }
  }
  const opened = !build.open.has(node)
  if (opened) build.open.add(node)
  try {
    return typedExample(build, node, property, depth)
  } finally {
    if (opened) build.open.delete(node)
  }
}

/** A copy of `given` (an example of `node`) with the `toward` value wherever the target occurs in it; `undefined` when it occurs nowhere. */
function placeInto (build: Build, node: JsonSchema, given: unknown): { value: unknown } | undefined {
  const toward = build.options.toward as NonNullable<ExampleOptions['toward']>
  const collector = compileCollector(node as TSchema, { isTarget: toward.isTarget, resolveRef: (ref) => build.resolve(ref) as TSchema })
  const holder: Holder = { value: structuredClone(given) }
  const found: Occurrence[] = []
  collector?.(holder, 'value', found)
  if (found.length === 0) return undefined
  for (const [at, key] of found) at[key] = toward.value
  build.placed = true
  return { value: holder.value }
}

/** The example of a node by its `allOf` and type. */
function typedExample (build: Build, node: JsonSchema, property: string | undefined, depth: number): unknown {
  const { options } = build
  if (Array.isArray(node.allOf) && node.allOf.length > 0) {
    const parts = node.allOf.map((member) => exampleAt(build, member, property, depth + 1))
    const objects = parts.filter((part) => typeof part === 'object' && part !== null && !Array.isArray(part))
    const own = typeOf(node) === 'object' ? typedExample(build, { ...node, allOf: undefined }, property, depth + 1) as object : {}
    return objects.length === parts.length ? Object.assign({}, ...objects, own) : parts[0]
  }
  switch (typeOf(node)) {
    case 'string':
      if (node.format === 'uuid' && property !== undefined && options.uuids?.[property] !== undefined) return options.uuids[property]
      return variedString(node, stringExample(node, options.formats, options.samples) ?? fail(cannot(build, noStringReason(node, options.formats))), build.variant)
    case 'integer':
    case 'number': return generatedNumber(build, node, typeOf(node) === 'integer')
    case 'boolean': return build.variant % 2 === 0
    case 'null': return null
    case 'array': {
      // A tuple's positions (`prefixItems`, or `items` as a list) by their schemas, then the items after them.
      const tuple: unknown[] = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : []
      const rest = Array.isArray(node.items) ? node.additionalItems : node.items
      const min = typeof node.minItems === 'number' ? node.minItems : 0
      const max = typeof node.maxItems === 'number' ? node.maxItems : Infinity
      const count = Math.min(Math.max(min, tuple.length, 1), max)
      const itemAt = (index: number): unknown => index < tuple.length ? tuple[index] : rest
      const items: unknown[] = []
      for (let index = 0; index < count; index++) items.push(within(build, String(index), () => itemExample(build, items, itemAt(index), node.uniqueItems === true, depth)))
      return items
    }
    case 'object': return objectExample(build, node, depth)
    default: return 'example'
  }
}

/** An object's required properties, and its optional ones with `includeOptional` or toward a value (not those recursing into an object being built). */
function objectExample (build: Build, node: JsonSchema, depth: number): Record<string, unknown> {
  const properties = (node.properties ?? {}) as Record<string, unknown>
  const required = new Set(Array.isArray(node.required) ? node.required as string[] : [])
  const value: Record<string, unknown> = {}
  for (const [name, sub] of Object.entries(properties)) {
    const wanted = required.has(name) || ((build.options.includeOptional === true || (!build.placed && canHold(build, sub))) && !recurses(build, sub))
    if (wanted) setOwn(value, name, within(build, pointerSegment(name), () => exampleAt(build, sub, name, depth + 1)))
  }
  for (const name of required) if (!Object.hasOwn(value, name)) setOwn(value, name, 'example')
  return value
}

/** A number the example generates: one showing a conversion where `showing` names its place, else the plain one. */
function generatedNumber (build: Build, node: JsonSchema, integer: boolean): number {
  const pointer = build.path.map((segment) => `/${segment}`).join('')
  const showing = build.variant === 0 && build.options.showing?.has(pointer) === true ? showingNumber(node, integer) : undefined
  const value = showing ?? numberExample(node, integer, build.variant)
  build.options.onNumber?.(pointer, value)
  return value
}

function fail (error: Error): never {
  throw error
}

/** `make()`, with the pointer of the value it makes one segment deeper. */
function within<T> (build: Build, segment: string, make: () => T): T {
  build.path.push(segment)
  try {
    return make()
  } finally {
    build.path.pop()
  }
}

/** True when data of `schema` can hold a schema being built (a recursion): an optional property of it is left out. */
function recurses (build: Build, schema: unknown): boolean {
  // By `$id` too: TypeBox's modifiers copy a schema, and its `$ref`s then name the first copy.
  const ids = new Set<unknown>([...build.open].map((node) => (node as JsonSchema).$id).filter((id) => typeof id === 'string'))
  return reaches(build, schema, (node) => build.open.has(node) || ids.has((node as JsonSchema).$id))
}
