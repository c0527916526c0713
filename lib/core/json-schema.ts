/**
 * Small helpers over JSON Schema objects, read by their keywords, TypeBox's marks a shortcut (decision 0191).
 * @module
 */
import { Kind, KindGuard, OptionalKind, ReadonlyKind, type Static, type TSchema } from '@sinclair/typebox'

/**
 * A schema the public functions take: TypeBox 0.34's or 1.x's, the latter known by its shape (decision 0201); a plain
 * JSON Schema object is read alike but needs a cast (`as unknown as TSchema`).
 * @example
 * ```ts
 * import { Type } from '@sinclair/typebox' // TypeBox 0.34
 * import Type1 from 'typebox' // TypeBox 1.x
 * const fromOld: SchemaLike = Type.Object({ id: Type.String() })
 * const fromNew: SchemaLike = Type1.Object({ id: Type1.String() })
 * ```
 */
export type SchemaLike = TSchema | TypeBox1Schema

/**
 * An object schema of either TypeBox line (0.34 or 1.x): what `extendSchema` and `withValidators` take.
 * @example
 * ```ts
 * const Base: ObjectSchemaLike = Type.Object({ name: Type.String() })
 * const UserResource = extendSchema(Base, { id: Type.String() })
 * ```
 */
export type ObjectSchemaLike = SchemaLike & { readonly type: 'object', readonly properties: object }

/**
 * A TypeBox 1.x schema, by what each of its types has at the type level: a `~kind` (`Type.Unsafe`: `~unsafe`).
 * @example
 * ```ts
 * import { Type } from 'typebox'
 * const User: TypeBox1Schema = Type.Object({ id: Type.String() })
 * ```
 */
export type TypeBox1Schema = { readonly '~kind': string } | { readonly '~unsafe': unknown }

/**
 * The TypeScript type of a value of schema `S`: 0.34's `Static<S>`; `unknown` for a 1.x schema.
 * @example
 * ```ts
 * const User = Type.Object({ id: Type.String() })
 * type UserBody = StaticOf<typeof User> // { id: string } for a 0.34 schema
 * ```
 */
export type StaticOf<S> = S extends TSchema ? Static<S> : unknown

/** A value of type `T`, frozen or not: readonly arrays and properties at any depth are accepted too. */
export type ReadonlyDeep<T> = T extends ReadonlyArray<infer Item>
  ? ReadonlyArray<ReadonlyDeep<Item>>
  : T extends object ? { readonly [Key in keyof T]: ReadonlyDeep<T[Key]> } : T

/** A JSON Schema object (TypeBox schemas are plain objects with a `Kind` symbol). */
export type SchemaObject = TSchema & Record<symbol, unknown>

/** True for anything that can be a JSON Schema: a non-null object that is not an array. */
export function isSchemaObject (value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The kind TypeBox gave `schema` (`'Object'`, `'Union'`…), from 0.34's `Kind` symbol or 1.x's `~kind`; `undefined` for
 * plain JSON Schema (a copy Fastify keeps of an `addSchema` schema included).
 * @example `kindOf(Type.String()) // 'String'; kindOf({ type: 'string' }) // undefined`
 */
export function kindOf (schema: unknown): string | undefined {
  if (!isSchemaObject(schema)) return undefined
  const kind = schema[Kind] ?? (schema as Record<string, unknown>)['~kind']
  return typeof kind === 'string' ? kind : undefined
}

/**
 * A short human name for a schema, for error messages: its `$id`, else its `title`, else its shape
 * (`Object { id, addresses }`, `Array<String>`, `Union`).
 */
export function describeSchema (schema: unknown): string {
  if (!isSchemaObject(schema)) return String(schema)
  if (typeof schema.$id === 'string') return schema.$id
  if (typeof schema.title === 'string') return schema.title
  const kind = kindOf(schema) ?? (typeof schema.type === 'string' ? schema.type : 'Schema')
  if (isSchemaObject(schema.properties)) {
    const keys = Object.keys(schema.properties)
    const shown = keys.slice(0, 4).join(', ') + (keys.length > 4 ? ', …' : '')
    return `${kind} { ${shown} }`
  }
  if (isSchemaObject(schema.items)) return `${kind}<${describeSchema(schema.items)}>`
  return kind
}

/** Formats a value for an error message: strings quoted, TypeBox schemas described, objects and lists shallowly. */
export function describeValue (value: unknown, depth = 0): string {
  if (typeof value === 'string') return `'${value}'`
  if (typeof value === 'function') {
    const isClass = /^class[\s{]/.test(Function.prototype.toString.call(value))
    return `${isClass ? 'class' : 'function'} ${value.name === '' ? '(anonymous)' : value.name}`
  }
  if (typeof value === 'bigint' || typeof value === 'symbol') return String(value)
  if (Array.isArray(value)) return depth > 1 ? '[…]' : `[${value.map((item) => describeValue(item, depth + 1)).join(', ')}]`
  if (isSchemaObject(value)) {
    if (kindOf(value) !== undefined) return describeSchema(value)
    if (depth > 1) return '{…}'
    const entries = Object.entries(value).map(([key, item]) => `${key}: ${describeValue(item, depth + 1)}`)
    return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`
  }
  return String(value)
}

/** True when TypeBox marked `schema` optional (`Type.Optional`): 0.34's symbol or 1.x's `~optional` key. */
export function isOptional (schema: unknown): boolean {
  return isSchemaObject(schema) && (KindGuard.IsOptional(schema) || (schema as Record<string, unknown>)['~optional'] === true)
}

/** True when TypeBox marked `schema` readonly (`Type.Readonly`): 0.34's symbol or 1.x's `~readonly` key. */
export function isReadonly (schema: unknown): boolean {
  return isSchemaObject(schema) && (KindGuard.IsReadonly(schema) || (schema as Record<string, unknown>)['~readonly'] === true)
}

/**
 * The properties of an object schema, each marked optional as its `required` list says (JSON Schema's own word).
 * @example `isOptional(propertiesOf({ type: 'object', properties: { a: { type: 'string' } } }).a) // true`
 */
export function propertiesOf (object: TSchema): Record<string, TSchema> {
  const { properties, required } = object as SchemaObject
  if (!isSchemaObject(properties)) return {}
  const listed = new Set(Array.isArray(required) ? required : [])
  return Object.fromEntries(Object.entries(properties as Record<string, TSchema>)
    .map(([key, property]) => [key, setModifiers(property, !listed.has(key), isReadonly(property))]))
}

/**
 * A shallow copy of `schema` with exactly the given modifiers, as TypeBox 0.34's symbols (a TypeBox 1.x mark
 * becomes one); `schema` itself when nothing changes.
 */
export function setModifiers<T extends TSchema> (schema: T, optional: boolean, readonly: boolean): T {
  const symbols = KindGuard.IsOptional(schema) === optional && KindGuard.IsReadonly(schema) === readonly
  if (symbols && isOptional(schema) === optional && isReadonly(schema) === readonly) return schema
  // The copy says it with 0.34's symbols, which copies keep; TypeBox 1.x's non-enumerable marks are left behind.
  const copy: SchemaObject = { ...(schema as SchemaObject) }
  if (optional) copy[OptionalKind] = 'Optional'
  else delete copy[OptionalKind]
  if (readonly) copy[ReadonlyKind] = 'Readonly'
  else delete copy[ReadonlyKind]
  return copy as T
}

/** Keywords that describe a schema rather than constrain it. */
export const ANNOTATIONS = ['title', 'description', 'examples', 'example', '$comment', 'deprecated', 'readOnly', 'writeOnly']

/**
 * What a schema validates: a copy without its modifiers and its own annotations (those of its subschemas stay).
 * @example
 * ```ts
 * deepEqual(withoutAnnotations(Type.String({ description: 'a' })), withoutAnnotations(Type.String())) // true
 * ```
 */
export function withoutAnnotations (schema: TSchema): SchemaObject {
  const copy: SchemaObject = { ...(setModifiers(schema, false, false) as SchemaObject) }
  for (const keyword of ANNOTATIONS) delete copy[keyword]
  return copy
}

/**
 * Structural equality of JSON values and schemas (string keys and, unless `symbols` is false, TypeBox's Kind and
 * modifier symbols, which a copy Fastify made of a schema given to `addSchema` lacks).
 */
export function deepEqual (a: unknown, b: unknown, symbols = true): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b)
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, index) => deepEqual(item, b[index], symbols))
  }
  const left = a as Record<string | symbol, unknown>
  const right = b as Record<string | symbol, unknown>
  for (const symbol of symbols ? [Kind, OptionalKind, ReadonlyKind] : []) {
    if (left[symbol] !== right[symbol]) return false
  }
  const leftKeys = Object.keys(left).filter((key) => left[key] !== undefined)
  const rightKeys = Object.keys(right).filter((key) => right[key] !== undefined)
  if (leftKeys.length !== rightKeys.length) return false
  return leftKeys.every((key) => Object.prototype.hasOwnProperty.call(right, key) && deepEqual(left[key], right[key], symbols))
}

/** Makes a string safe to use inside a JSON Schema `$id` (a URI reference). */
export function idSafe (value: string): string {
  return value.replace(/[^A-Za-z0-9_.-]/g, '_')
}

/** The `$id` a `$ref` names (`'Address#'` names `'Address'`). */
export function refId (ref: string): string {
  return ref.endsWith('#') ? ref.slice(0, -1) : ref
}

/** `ref` pointed at the schema `id` instead, keeping its form (`'Address#'` → `'Address__2000-01-01#'`). */
export function withRefId (ref: string, id: string): string {
  return ref.endsWith('#') ? `${id}#` : id
}

/**
 * A JSON pointer segment (RFC 6901) naming `key`: `~` and `/` escaped.
 * @example `pointerSegment('/users/{id}') // '~1users~1{id}'`
 */
export function pointerSegment (key: PropertyKey): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1')
}

/** The key a JSON pointer segment names: `~1` and `~0` unescaped (the reverse of {@link pointerSegment}). */
export function pointerKey (segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~')
}

/** The name (`$id`) of a schema, if it has one. */
export function nameOf (schema: TSchema): string | undefined {
  const id = (schema as SchemaObject).$id
  return typeof id === 'string' ? id : undefined
}
