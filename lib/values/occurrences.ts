/**
 * Finding the occurrences of a schema inside data: a by-schema converter runs once per occurrence of its
 * schema in a body, wherever the body's schema nests it (the root, a property, array items, tuple items,
 * record values, a union member the data belongs to, an `allOf` member, a `$ref`). A collector is compiled
 * once per (body schema, target) from the schema and then walks only the data where the target can be.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { isSchemaObject, type SchemaObject } from '../core/json-schema'

/** An object or array holding a value under a key; converters may replace the value. */
export type Holder = Record<PropertyKey, unknown>

/** An occurrence of the target: the value `holder[key]`. */
export type Occurrence = readonly [holder: Holder, key: PropertyKey]

/** Appends the occurrences of the target inside `holder[key]` to `out`, innermost first. */
export type Collector = ((holder: Holder, key: PropertyKey, out: Occurrence[]) => void) & {
  /** Set when the only occurrence is the value itself (the schema is the target, nothing nested). */
  readonly onlySelf?: true
}

/** What a collector looks for, and how it resolves `$ref`s. */
export interface CollectorTarget {
  /** True for a schema node that is the target (its data is an occurrence). */
  isTarget: (node: TSchema) => boolean
  /** The schema a `$ref` names. */
  resolveRef: (id: string) => TSchema | undefined
}

const PENDING = Symbol('pending')

/** Tells whether a value plausibly belongs to one union member (compiled once per member schema). */
export type Matcher = (value: unknown) => boolean

const matchers = new WeakMap<TSchema, Matcher>()

/**
 * True when `value` plausibly belongs to the union member `schema`: its type, `const`, `enum`, required
 * properties and `const` discriminators agree. Extra properties are allowed (HEAD data carries fields
 * older versions lack).
 */
export function plausiblyMatches (schema: TSchema, value: unknown): boolean {
  return compileMatcher(schema)(value)
}

/** The matcher of {@link plausiblyMatches} for `schema`, compiled on first use and cached per schema. */
export function compileMatcher (schema: TSchema): Matcher {
  let matcher = matchers.get(schema)
  if (matcher === undefined) {
    matcher = buildMatcher(schema as SchemaObject)
    matchers.set(schema, matcher)
  }
  return matcher
}

function buildMatcher (source: SchemaObject): Matcher {
  if ('const' in source) {
    const expected = source.const
    return (value) => value === expected
  }
  if (Array.isArray(source.enum)) {
    const allowed: unknown[] = source.enum
    return (value) => allowed.includes(value)
  }
  if (Array.isArray(source.anyOf) || Array.isArray(source.oneOf)) {
    const members = ((Array.isArray(source.anyOf) ? source.anyOf : source.oneOf) as unknown[]).filter(isSchemaObject).map((member) => compileMatcher(member as TSchema))
    return (value) => members.some((member) => member(value))
  }
  const types = Array.isArray(source.type) ? source.type as string[] : typeof source.type === 'string' ? [source.type] : undefined
  // A `required` that is not a list of strings matches no object (as before compilation).
  const required = Array.isArray(source.required) ? source.required as unknown[] : []
  const discriminators = isSchemaObject(source.properties)
    ? Object.entries(source.properties).filter(([, property]) => isSchemaObject(property) && 'const' in property)
      .map(([key, property]) => [key, (property as SchemaObject).const] as const)
    : []
  return (value) => {
    if (types !== undefined && !types.some((type) => typeMatches(type, value))) return false
    if (!isSchemaObject(value)) return true
    for (const key of required) if (typeof key !== 'string' || !(key in value)) return false
    for (const [key, expected] of discriminators) if (key in value && value[key] !== expected) return false
    return true
  }
}

function typeMatches (type: string, value: unknown): boolean {
  switch (type) {
    case 'object': return isSchemaObject(value)
    case 'array': return Array.isArray(value)
    case 'null': return value === null
    case 'integer': return Number.isInteger(value)
    case 'number': return typeof value === 'number'
    case 'string': return typeof value === 'string'
    case 'boolean': return typeof value === 'boolean'
    default: return true
  }
}

/**
 * A compiled schema node: `expand` lists, in order, the walks its data needs (nested values, and members
 * applying to the same value), and `self` says whether the value itself is an occurrence.
 */
interface Walk {
  readonly expand: (holder: Holder, key: PropertyKey, next: Task[]) => void
  readonly self: boolean
}

/** A walk to run on `holder[key]`, or (`walk` null) the occurrence `holder[key]` to record. */
type Task = readonly [walk: Walk | null, holder: Holder, key: PropertyKey]

/**
 * Runs `root` on `holder[key]` with an explicit stack (no recursion: data as deep as the JSON parser accepts
 * is walked), recording occurrences innermost first, nested ones in schema order.
 */
function walkData (root: Walk, holder: Holder, key: PropertyKey, out: Occurrence[]): void {
  const stack: Task[] = [[root, holder, key]]
  const next: Task[] = []
  while (stack.length > 0) {
    const [walk, at, name] = stack.pop() as Task
    if (walk === null) {
      out.push([at, name])
      continue
    }
    if (walk.self) stack.push([null, at, name])
    next.length = 0
    walk.expand(at, name, next)
    for (let index = next.length - 1; index >= 0; index--) stack.push(next[index])
  }
}

/**
 * Compiles a collector of the target's occurrences inside data shaped by `root`, or `null` when the target
 * cannot occur there. Collectors of the same (root, target) are cached by the caller.
 */
export function compileCollector (root: TSchema, target: CollectorTarget): Collector | null {
  const memo = new Map<TSchema, Walk | null | typeof PENDING>()
  // Nodes that are the target and hold nothing to walk.
  const leaves = new Set<Walk>()

  const build = (node: TSchema): Walk | null => {
    const known = memo.get(node)
    if (known === PENDING) {
      // A schema containing itself (through $ref): look it up when the data is walked.
      return {
        self: false,
        expand: (holder, key, next) => {
          const walk = memo.get(node)
          if (typeof walk === 'object' && walk !== null) next.push([walk, holder, key])
        }
      }
    }
    if (known !== undefined) return known
    memo.set(node, PENDING)
    const walk = compileNode(node)
    memo.set(node, walk)
    return walk
  }

  const compileNode = (node: TSchema): Walk | null => {
    const source = node as SchemaObject
    const parts: Array<Walk['expand']> = []
    if (typeof source.$ref === 'string') {
      const referenced = target.resolveRef(source.$ref)
      const inner = referenced === undefined ? null : build(referenced)
      if (inner !== null) parts.push((holder, key, next) => { next.push([inner, holder, key]) })
    }
    if (isSchemaObject(source.properties)) {
      for (const [property, schema] of Object.entries(source.properties)) {
        const inner = isSchemaObject(schema) ? build(schema as TSchema) : null
        if (inner === null) continue
        parts.push((holder, key, next) => {
          const value = holder[key]
          if (isSchemaObject(value) && Object.hasOwn(value, property) && value[property] !== undefined) next.push([inner, value, property])
        })
      }
    }
    const named = isSchemaObject(source.properties) ? new Set(Object.keys(source.properties)) : new Set<string>()
    const patterns = isSchemaObject(source.patternProperties) ? Object.entries(source.patternProperties) : []
    for (const [pattern, schema] of patterns) {
      const inner = isSchemaObject(schema) ? build(schema as TSchema) : null
      if (inner === null) continue
      const regex = new RegExp(pattern, 'u')
      parts.push((holder, key, next) => {
        const value = holder[key]
        if (!isSchemaObject(value)) return
        for (const name of Object.keys(value)) if (!named.has(name) && regex.test(name)) next.push([inner, value, name])
      })
    }
    if (isSchemaObject(source.additionalProperties)) {
      const inner = build(source.additionalProperties as TSchema)
      const regexes = patterns.map(([pattern]) => new RegExp(pattern, 'u'))
      if (inner !== null) {
        parts.push((holder, key, next) => {
          const value = holder[key]
          if (!isSchemaObject(value)) return
          for (const name of Object.keys(value)) {
            if (!named.has(name) && !regexes.some((regex) => regex.test(name))) next.push([inner, value, name])
          }
        })
      }
    }
    const tuple = Array.isArray(source.prefixItems) ? source.prefixItems : Array.isArray(source.items) ? source.items : undefined
    if (tuple !== undefined) {
      tuple.forEach((schema, index) => {
        const inner = isSchemaObject(schema) ? build(schema as TSchema) : null
        if (inner === null) return
        parts.push((holder, key, next) => {
          const value = holder[key]
          if (Array.isArray(value) && index < value.length) next.push([inner, value as unknown as Holder, index])
        })
      })
    }
    if (isSchemaObject(source.items)) {
      const inner = build(source.items as TSchema)
      const from = Array.isArray(source.prefixItems) ? source.prefixItems.length : 0
      if (inner !== null) {
        parts.push((holder, key, next) => {
          const value = holder[key]
          if (!Array.isArray(value)) return
          for (let index = from; index < value.length; index++) next.push([inner, value as unknown as Holder, index])
        })
      }
    }
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const members = source[keyword]
      if (!Array.isArray(members)) continue
      const candidates = members
        .filter(isSchemaObject)
        .map((member) => ({ matches: compileMatcher(member as TSchema), inner: build(member as TSchema) }))
      if (!candidates.some((candidate) => candidate.inner !== null)) continue
      parts.push((holder, key, next) => {
        const value = holder[key]
        const chosen = candidates.find((candidate) => candidate.matches(value))
        if (chosen?.inner != null) next.push([chosen.inner, holder, key])
      })
    }
    if (Array.isArray(source.allOf)) {
      for (const member of source.allOf) {
        const inner = isSchemaObject(member) ? build(member as TSchema) : null
        if (inner !== null) parts.push((holder, key, next) => { next.push([inner, holder, key]) })
      }
    }
    const self = target.isTarget(node)
    if (parts.length === 0 && !self) return null
    if (parts.length === 0) {
      const leaf: Walk = { self, expand: () => {} }
      leaves.add(leaf)
      return leaf
    }
    return {
      self,
      expand: parts.length === 1
        ? parts[0]
        : (holder, key, next) => { for (const part of parts) part(holder, key, next) }
    }
  }

  const walk = build(root)
  if (walk === null) return null
  if (leaves.has(walk)) {
    return Object.assign((holder: Holder, key: PropertyKey, out: Occurrence[]) => { out.push([holder, key]) }, { onlySelf: true as const })
  }
  return (holder, key, out) => { walkData(walk, holder, key, out) }
}
