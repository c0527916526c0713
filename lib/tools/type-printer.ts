/**
 * TypeScript types from JSON Schema (OpenAPI 3.1 document schemas): the printer behind `fastify-versioner types`.
 * One type expression per schema, deterministic (the schema's own key order), with descriptions and `deprecated`
 * kept as JSDoc. Component references become references to the generated module's own types.
 * @module
 */
import { VersionerToolError } from '../core/errors'
import { pointerKey } from '../core/json-schema'

/** A JSON value as a document holds it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
export type JsonObject = { [key: string]: Json }

/** How a printed schema refers to a component (`#/components/schemas/<name>`). */
type ComponentReference = (name: string) => string

/** Nesting this deep is refused: the documents the tools read are the plugin's own, never this deep. */
const MAX_DEPTH = 256

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** A JSON value as a TypeScript literal (type), strings single-quoted as the project's style has them. */
export function literal (value: unknown): string {
  if (typeof value !== 'string') return JSON.stringify(value)
  return `'${JSON.stringify(value).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`
}

/** A property name as TypeScript writes it: bare when it is an identifier, quoted otherwise. */
export function propertyKey (name: string): string {
  return IDENTIFIER.test(name) ? name : literal(name)
}

/** A route's key in `Routes`: its method and its document path as Fastify writes it (`GET /users/:id`, `GET /files/*`). */
export function routeKey (method: string, path: string): string {
  return `${method} ${path.replace(/\{([^}]+)\}/g, (_, name: string) => name === '*' ? '*' : `:${name}`)}`
}

/** True for a JSON object (not an array). */
export function isObject (value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The JSDoc comment of a schema's `description` and `deprecated`, or '' (lines indented by `pad`). */
export function docComment (schema: Json | undefined, pad: string): string {
  if (!isObject(schema)) return ''
  const lines: string[] = []
  if (typeof schema.description === 'string' && schema.description.trim() !== '') {
    // Any line ending ends a line: a '\r' kept in one would read as another file to check --types (CRLF as LF).
    lines.push(...schema.description.trim().split(/\r\n|\r|\n/).map((line) => line.replace(/\*\//g, '*\\/')))
  }
  if (schema.deprecated === true) lines.push('@deprecated')
  if (lines.length === 0) return ''
  if (lines.length === 1) return `${pad}/** ${lines[0]} */\n`
  return `${pad}/**\n${lines.map((line) => `${pad} * ${line}`).join('\n')}\n${pad} */\n`
}

/**
 * True for a pattern every key matches, as TypeBox's `Type.Record(Type.String(), T)` writes it (`^(.*)$`, 1.x `^.*$`).
 * `.` leaves out line breaks: a key holding one is typed by the pattern too (decision 0255).
 */
function everyKey (pattern: string): boolean {
  const body = pattern.replace(/^\^/, '').replace(/\$$/, '').replace(/^\((.*)\)$/, '$1')
  return pattern === '' || ['.*', '[\\s\\S]*', '[^]*'].includes(body)
}

/** Parenthesises a union or intersection where it is an operand (an array item). */
function operand (type: string): string {
  return /^[\w$.'"[\]<>, ]+$/.test(type) && !type.includes(' | ') ? type : `(${type})`
}

function union (types: string[]): string {
  const unique = [...new Set(types)]
  if (unique.includes('unknown')) return 'unknown'
  return unique.length === 0 ? 'never' : unique.join(' | ')
}

class Printer {
  constructor (private readonly reference: ComponentReference) {}

  print (schema: Json | undefined, depth: number, pad: string): string {
    if (depth > MAX_DEPTH) throw new VersionerToolError(`types: a schema nests more than ${MAX_DEPTH} levels.`)
    if (schema === true || schema === undefined) return 'unknown'
    if (schema === false) return 'never'
    if (!isObject(schema)) return 'unknown'
    // No value matches `not: {}` (an enum whose every member a version removed).
    if (isObject(schema.not) && Object.keys(schema.not).length === 0) return 'never'
    if (typeof schema.$ref === 'string') return this.ref(schema.$ref)
    if ('const' in schema) return literal(schema.const)
    if (Array.isArray(schema.enum)) return union(schema.enum.map(literal))
    const parts: string[] = []
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const members = schema[keyword]
      if (Array.isArray(members)) parts.push(union(members.map((member) => this.print(member, depth + 1, pad))))
    }
    if (Array.isArray(schema.allOf)) parts.push(...schema.allOf.map((member) => operand(this.print(member, depth + 1, pad))))
    const own = this.ownType(schema, depth, pad)
    // A bare `type: 'object'` beside members (Type.Intersect's) says nothing they do not, and its index signature
    // would let any field be read.
    if (own !== undefined && !(parts.length > 0 && own === 'Record<string, unknown>')) parts.push(own)
    if (parts.length === 0) return 'unknown'
    return parts.length === 1 ? parts[0] : parts.map(operand).join(' & ')
  }

  private ref (ref: string): string {
    const prefix = '#/components/schemas/'
    if (!ref.startsWith(prefix)) return 'unknown'
    return this.reference(pointerKey(decodeURIComponent(ref.slice(prefix.length))))
  }

  /** The type of the schema's `type` keyword (one name or several), or undefined when it has none. */
  private ownType (schema: JsonObject, depth: number, pad: string): string | undefined {
    const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : undefined
    if (types === undefined) {
      if (isObject(schema.properties) || schema.additionalProperties !== undefined) return this.object(schema, depth, pad)
      if (schema.items !== undefined || schema.prefixItems !== undefined) return this.array(schema, depth, pad)
      return undefined
    }
    return union(types.map((type) => this.typeNamed(String(type), schema, depth, pad)))
  }

  private typeNamed (type: string, schema: JsonObject, depth: number, pad: string): string {
    switch (type) {
      case 'string': return 'string'
      case 'number': case 'integer': return 'number'
      case 'boolean': return 'boolean'
      case 'null': return 'null'
      case 'array': return this.array(schema, depth, pad)
      case 'object': return this.object(schema, depth, pad)
      default: return 'unknown'
    }
  }

  /**
   * `Array<T>`, or a tuple: `prefixItems` (2020-12) or an `items` array (draft-07, as TypeBox's `Type.Tuple` writes
   * it), members past `minItems` optional, and a rest of what `items` / `additionalItems` admit unless `false`.
   */
  private array (schema: JsonObject, depth: number, pad: string): string {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined
    if (prefix === undefined) return `Array<${this.print(schema.items, depth + 1, pad)}>`
    const after = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems
    const least = typeof schema.minItems === 'number' ? schema.minItems : 0
    const items = prefix.map((item, index) => index < least ? this.print(item, depth + 1, pad) : `${operand(this.print(item, depth + 1, pad))}?`)
    const rest = after === false ? [] : [`...Array<${this.print(after, depth + 1, pad)}>`]
    return `[${[...items, ...rest].join(', ')}]`
  }

  private object (schema: JsonObject, depth: number, pad: string): string {
    const inner = `${pad}  `
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : [])
    const lines: string[] = []
    const named: string[] = []
    const properties = isObject(schema.properties) ? schema.properties : {}
    for (const [name, property] of Object.entries(properties)) {
      const optional = required.has(name) ? '' : '?'
      const type = this.print(property, depth + 1, inner)
      named.push(type, ...(optional === '' ? [] : ['undefined']))
      lines.push(`${docComment(property, inner)}${inner}${propertyKey(name)}${optional}: ${type}`)
    }
    const extra = schema.additionalProperties
    const patternsBy = isObject(schema.patternProperties) ? schema.patternProperties : {}
    const patterns = Object.values(patternsBy)
    if (isObject(extra) || patterns.length > 0) {
      // Other keys hold what a pattern or `additionalProperties` admits (anything, unless it is a schema or false, or
      // a pattern takes every key); an index signature must admit the named properties' types too (and undefined, for
      // an optional one).
      const closed = isObject(extra) || extra === false || Object.keys(patternsBy).some(everyKey)
      const others = closed ? [...patterns, ...(isObject(extra) ? [extra] : [])] : [true]
      lines.push(`${inner}[key: string]: ${union([...others.map((other) => this.print(other, depth + 1, inner)), ...named])}`)
    }
    if (lines.length === 0) return extra === false ? 'Record<string, never>' : 'Record<string, unknown>'
    return `{\n${lines.join('\n')}\n${pad}}`
  }
}

/**
 * The TypeScript type of a JSON Schema, its lines indented from `pad`; `reference` names a component's type.
 * @example
 * ```ts
 * printType({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }, (name) => name, '')
 * // '{\n  id: string\n}'
 * ```
 */
export function printType (schema: unknown, reference: ComponentReference, pad: string): string {
  return new Printer(reference).print(schema as Json, 0, pad)
}
