/**
 * Deterministic example values for JSON Schemas (TypeBox schemas, or schemas as OpenAPI 3.1 documents write them):
 * the upgrade guide's examples (lib/docs/upgrade-guide.ts), `verify`'s strings where no sentinel fits
 * (lib/tools/example-generation.ts), and the document tests. It follows `$ref` to `#/components/schemas/…` of a
 * document (or through `resolveRef`: the `$id`s of an application's schemas), and prefers, in order: `const`, `enum`
 * (first member), `default`, `examples` (first), the first member of `anyOf` / `oneOf`, the members of `allOf`
 * merged, then the type: strings by their format (`stringExample`); numbers honour `minimum` / `maximum` (and the
 * exclusive ones) and `multipleOf`; arrays get `minItems` items (at least one, at most `maxItems`); objects get their
 * required properties (and the optional ones with `includeOptional`).
 * @module
 */

/** A JSON Schema node (loosely typed: documents are plain JSON). */
export type JsonSchema = Record<string, unknown>

/** A fixed, valid (version 4) UUID (the string example of `format: 'uuid'`). */
export const EXAMPLE_UUID = '3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f'

/**
 * A valid string of `schema` without a sentinel: for the formats uuid, date, date-time, time, email, uri,
 * hostname and ipv4, else `example` fitted to `minLength` / `maxLength`.
 * @example
 * ```ts
 * stringExample({ type: 'string', format: 'date' }) // '2000-01-01'
 * ```
 */
function stringExample (schema: JsonSchema): string {
  switch (schema.format) {
    case 'uuid': return EXAMPLE_UUID
    case 'date': return '2000-01-01'
    case 'date-time': return '2000-01-01T00:00:00.000Z'
    case 'time': return '12:00:00Z'
    case 'email': return 'someone@example.com'
    case 'uri':
    case 'url': return 'https://example.com/'
    case 'hostname': return 'example.com'
    case 'ipv4': return '192.0.2.1'
  }
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity
  let value = 'example'
  while (value.length < min) value += 'x'
  return value.slice(0, Math.max(min, Math.min(max, value.length)))
}

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

function numberExample (schema: JsonSchema, integer: boolean): number {
  const step = typeof schema.multipleOf === 'number' ? schema.multipleOf : integer ? 1 : 0.5
  let low = -Infinity
  if (typeof schema.minimum === 'number') low = schema.minimum
  if (typeof schema.exclusiveMinimum === 'number') low = Math.max(low, schema.exclusiveMinimum + (integer ? 1 : step))
  let high = Infinity
  if (typeof schema.maximum === 'number') high = schema.maximum
  if (typeof schema.exclusiveMaximum === 'number') high = Math.min(high, schema.exclusiveMaximum - (integer ? 1 : step))
  let value = Number.isFinite(low) ? Math.ceil(low / step) * step : Math.min(1, high)
  if (value > high) value = Math.floor(high / step) * step
  return integer ? Math.round(value) : value
}

/** A valid value for `schema` (see the module comment for the rules). */
export function exampleOf (schema: unknown, options: ExampleOptions = {}, property?: string, depth = 0): unknown {
  if (depth > 20) throw new Error('exampleOf: the schema is too deep (a required recursion?)')
  if (schema === true || schema === undefined) return 'example'
  if (typeof schema !== 'object' || schema === null) throw new Error(`exampleOf: not a schema: ${JSON.stringify(schema)}`)
  const node = schema as JsonSchema
  if (typeof node.$ref === 'string') return exampleOf(resolveRef(node.$ref, options.components, options.resolveRef), options, property, depth + 1)
  if ('const' in node) return node.const
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0]
  if ('default' in node) return node.default
  if (Array.isArray(node.examples) && node.examples.length > 0) return node.examples[0]
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members = node[key]
    if (Array.isArray(members) && members.length > 0) return exampleOf(members[0], options, property, depth + 1)
  }
  if (Array.isArray(node.allOf) && node.allOf.length > 0) {
    const parts = node.allOf.map((member) => exampleOf(member, options, property, depth + 1))
    const objects = parts.filter((part) => typeof part === 'object' && part !== null && !Array.isArray(part))
    const own = typeOf(node) === 'object' ? exampleOf({ ...node, allOf: undefined }, options, property, depth + 1) as object : {}
    return objects.length === parts.length ? Object.assign({}, ...objects, own) : parts[0]
  }
  switch (typeOf(node)) {
    case 'string':
      if (node.format === 'uuid' && property !== undefined && options.uuids?.[property] !== undefined) return options.uuids[property]
      return stringExample(node)
    case 'integer': return numberExample(node, true)
    case 'number': return numberExample(node, false)
    case 'boolean': return true
    case 'null': return null
    case 'array': {
      const min = typeof node.minItems === 'number' ? node.minItems : 0
      const max = typeof node.maxItems === 'number' ? node.maxItems : Infinity
      const count = Math.min(Math.max(min, 1), max)
      return Array.from({ length: count }, () => exampleOf(node.items, options, undefined, depth + 1))
    }
    case 'object': {
      const properties = (node.properties ?? {}) as Record<string, unknown>
      const required = new Set(Array.isArray(node.required) ? node.required as string[] : [])
      const value: Record<string, unknown> = {}
      for (const [name, sub] of Object.entries(properties)) {
        if (required.has(name) || options.includeOptional === true) value[name] = exampleOf(sub, options, name, depth + 1)
      }
      for (const name of required) if (!(name in value)) value[name] = 'example'
      return value
    }
    default: return 'example'
  }
}
