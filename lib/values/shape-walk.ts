/**
 * The one shape walk, compiled per (rules, schema): data given its version's shape (undeclared fields removed,
 * defaults filled), for requests of older versions and bodies migrated outside routing ({@link WalkRules}).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { compileMembers, type Matcher } from './union-matchers'
import { isSchemaObject, type SchemaObject } from '../core/json-schema'
import { setOwn } from '../core/own-properties'
import {
  addToShape, childrenOf, emptyShape, isPureUnion, MAX_WALK_DEPTH, removeLacked, removeUndeclared,
  type Children, type ResolveRef, type Shape
} from './shapes'

/** What one kind of walk does, and the walks compiled under it (make one with {@link walkRules} per kind and owner). */
export interface WalkRules {
  /**
   * Which object schemas lose the fields they do not declare: those a version rebuilt, or every closed one; or none
   * (`lacked`). Under every rule, a rebuilt object that accepts other fields loses the fields of HEAD it lacks.
   */
  readonly removeFrom: 'rebuilt' | 'closed' | 'lacked'
  /** Missing fields get their schema's `default`. */
  readonly fillDefaults: boolean
  /** Follows `$ref`s; without it, a `$ref` is left open (its data keeps every field). */
  readonly resolveRef?: ResolveRef
  /** The walks compiled under these rules, by schema. */
  readonly compiled: CompiledWalks
}

/** The walks compiled under one rules object. */
interface CompiledWalks {
  readonly full: WeakMap<TSchema, ShapeWalk | null>
  readonly nested: WeakMap<TSchema, ShapeWalk | null>
  readonly shapes: WeakMap<TSchema, Shape>
}

/**
 * Rules of a walk, with their own compiled walks.
 * @example `const rules = walkRules({ removeFrom: 'closed', fillDefaults: true, resolveRef })`
 */
export function walkRules (rules: Omit<WalkRules, 'compiled'>): WalkRules {
  return { ...rules, compiled: { full: new WeakMap(), nested: new WeakMap(), shapes: new WeakMap() } }
}

/**
 * The rules of requests of older versions: rebuilt schemas only, no defaults (Ajv fills them); `$ref`s are followed
 * with `resolveRef` (a version's schema may refer to a generated one it holds, such as a `Type.Recursive`'s form).
 */
export function requestRules (resolveRef: ResolveRef): WalkRules {
  return walkRules({ removeFrom: 'rebuilt', fillDefaults: false, resolveRef })
}

/** Makes data (an object or array, changed in place) have its schema's shape; `depth` is how deep it lies. */
export type ShapeWalk = (data: unknown, depth?: number) => void

/**
 * The walk of data of `schema` under `rules`, or `null` when the walk would change nothing.
 * @example `compileShapeWalk(form, requestRules(resolveRef))?.(request.body)`
 */
export function compileShapeWalk (schema: TSchema, rules: WalkRules): ShapeWalk | null {
  return new WalkCompiler(rules).walkOf(schema, true)
}

/**
 * `value` given the shape of `schema` under `rules`: changed in place and returned, or the schema's
 * `default` (a copy) when `value` is undefined and the rules fill defaults.
 * @example
 * ```ts
 * const payload = applyShape(form, walkRules({ removeFrom: 'closed', fillDefaults: true, resolveRef }), body)
 * ```
 */
export function applyShape (schema: TSchema, rules: WalkRules, value: unknown): unknown {
  const compiler = new WalkCompiler(rules)
  if (value === undefined) return rules.fillDefaults ? compiler.defaultOf(schema) : undefined
  compiler.walkOf(schema, true)?.(value)
  return value
}

/** Compiles walks for one rules object (the caches are the rules object's). */
class WalkCompiler {
  /** The schemas being compiled: a `$ref` to one of them is compiled on first use. */
  private readonly compiling = new Set<TSchema>()

  constructor (private readonly rules: WalkRules) {}

  /**
   * `full`: the walk of data `schema` describes alone; otherwise (an `allOf` member, a union member) only the walks of
   * its values: which fields the object may have is decided where every schema describing it is known.
   */
  walkOf (schema: TSchema, full: boolean): ShapeWalk | null {
    const cache = full ? this.rules.compiled.full : this.rules.compiled.nested
    if (cache.has(schema)) return cache.get(schema) ?? null
    // A schema reached again while it is compiled (a cycle of objects) adds nothing the first visit lacks.
    cache.set(schema, null)
    this.compiling.add(schema)
    const walk = this.build(schema as SchemaObject, full)
    this.compiling.delete(schema)
    cache.set(schema, walk)
    return walk
  }

  /** The schema's `default` (a fresh copy), following `$ref`s. */
  defaultOf (schema: TSchema, depth = 0): unknown {
    const source = schema as SchemaObject
    if (typeof source.$ref === 'string' && depth <= MAX_WALK_DEPTH) {
      const target = this.rules.resolveRef?.(source.$ref)
      return target === undefined ? undefined : this.defaultOf(target, depth + 1)
    }
    return 'default' in source ? structuredClone(source.default) : undefined
  }

  private shapeOf (schema: TSchema): Shape {
    let shape = this.rules.compiled.shapes.get(schema)
    if (shape === undefined) {
      shape = emptyShape()
      addToShape(schema as SchemaObject, shape, this.rules.resolveRef)
      this.rules.compiled.shapes.set(schema, shape)
    }
    return shape
  }

  /** True when fields outside `shapes` can be removed: each says which fields there are and accepts no others. */
  private removable (shapes: readonly Shape[]): boolean {
    if (this.rules.removeFrom === 'lacked' || (this.rules.removeFrom === 'rebuilt' && !shapes.some((shape) => shape.generated))) return false
    return shapes.every((shape) => shape.declares && !shape.open)
  }

  private build (source: SchemaObject, full: boolean): ShapeWalk | null {
    if (typeof source.$ref === 'string') return this.refWalk(source.$ref, full)
    const children = childrenOf(source)
    const parts: ShapeWalk[] = []
    const shape = full && !isPureUnion(source) ? this.shapeOf(source as TSchema) : undefined
    const own = shape === undefined ? [] : [shape]
    if (own.length > 0 && this.removable(own)) parts.push((data) => { removeUndeclared(data, own) })
    else if (shape !== undefined && shape.lacks.size > 0) parts.push((data) => { removeLacked(data, shape) })
    parts.push(...this.valueWalks(children))
    for (const member of children.allOf) {
      const inner = this.walkOf(member, false)
      if (inner !== null) parts.push(inner)
    }
    for (const members of children.unions) {
      const inner = this.unionWalk(members, full && isPureUnion(source))
      if (inner !== null) parts.push(inner)
    }
    if (parts.length === 0) return null
    if (parts.length === 1) return parts[0]
    return (data, depth) => { for (const part of parts) part(data, depth) }
  }

  /**
   * A `$ref` is walked as the schema it names: none when that one needs none; compiled on first use when it is being
   * compiled (schemas may refer to themselves).
   */
  private refWalk (ref: string, full: boolean): ShapeWalk | null {
    const target = this.rules.resolveRef?.(ref)
    if (target === undefined) return null
    let inner: ShapeWalk | null | undefined = this.compiling.has(target) ? undefined : this.walkOf(target, full)
    if (inner === null) return null
    return (data, depth = 0) => {
      if (depth > MAX_WALK_DEPTH) return
      inner ??= this.walkOf(target, full)
      inner?.(data, depth + 1)
    }
  }

  /** The walks of an object's property values (defaults included), record values and array items. */
  private valueWalks (children: Children): ShapeWalk[] {
    const parts: ShapeWalk[] = []
    for (const [key, property] of children.properties) {
      const inner = this.walkOf(property, true)
      if (this.rules.fillDefaults && this.defaultOf(property) !== undefined) {
        // Own fields only: `data.__proto__` or `data.constructor` are never the data's own fields.
        parts.push((data) => {
          if (isSchemaObject(data) && (!Object.hasOwn(data, key) || data[key] === undefined)) setOwn(data, key, this.defaultOf(property))
        })
      }
      if (inner !== null) parts.push((data, depth = 0) => { if (isSchemaObject(data) && Object.hasOwn(data, key)) inner(data[key], depth + 1) })
    }
    const records = this.recordWalk(children)
    if (records !== null) parts.push(records)
    // Tuple positions (`prefixItems`, or TypeBox's `items` list) by their schemas, then the items after them.
    for (const [index, schema] of children.tuple) {
      const position = this.walkOf(schema, true)
      if (position !== null) parts.push((data, depth = 0) => { if (Array.isArray(data) && index < data.length) position(data[index], depth + 1) })
    }
    const inner = children.items === undefined ? null : this.walkOf(children.items, true)
    const from = children.itemsFrom
    if (inner !== null) parts.push((data, depth = 0) => { if (Array.isArray(data)) for (let index = from; index < data.length; index++) inner(data[index], depth + 1) })
    return parts
  }

  /** The walk of the fields an object holds beyond its `properties`: `patternProperties` and `additionalProperties` values. */
  private recordWalk ({ named, patterns: declared, additional }: Children): ShapeWalk | null {
    // A boolean subschema (`true`) accepts its values as they are: nothing to walk.
    const patterns = declared.map(([regex, sub]) => [regex, isSchemaObject(sub) ? this.walkOf(sub as TSchema, true) : null] as const)
    const extra = additional === undefined ? null : this.walkOf(additional, true)
    if (extra === null && patterns.every(([, inner]) => inner === null)) return null
    return (data, depth = 0) => {
      if (!isSchemaObject(data)) return
      for (const key of Object.keys(data)) {
        if (named.has(key)) continue
        let inner = extra
        for (const [regex, walk] of patterns) {
          if (!regex.test(key)) continue
          inner = walk
          break
        }
        inner?.(data[key], depth + 1)
      }
    }
  }

  /**
   * The walk of a union: with the member the data belongs to, when exactly one plausibly matches. When several
   * do, and the union alone describes the data (`full`), only the fields none of them declares are removed.
   */
  private unionWalk (members: readonly TSchema[], full: boolean): ShapeWalk | null {
    const matchers = compileMembers(members, this.rules.resolveRef)
    const candidates: Candidate[] = members.map((member, index) => ({
      matches: matchers[index],
      walk: this.walkOf(member, full),
      shape: this.shapeOf(member)
    }))
    const filters = full && candidates.some((candidate) => this.removable([candidate.shape]))
    if (!filters && candidates.every((candidate) => candidate.walk === null)) return null
    return (data, depth) => {
      // No list is made unless several members match (the rare case).
      let chosen: Candidate | undefined
      let several: Candidate[] | undefined
      for (const candidate of candidates) {
        if (!candidate.matches(data)) continue
        if (chosen === undefined) chosen = candidate
        else (several ??= [chosen]).push(candidate)
      }
      if (several === undefined) chosen?.walk?.(data, depth)
      else if (filters) {
        const shapes = several.map((candidate) => candidate.shape)
        if (this.removable(shapes)) removeUndeclared(data, shapes)
      }
    }
  }
}

/** A union member, with what it takes to tell whether data belongs to it and to walk that data. */
interface Candidate {
  readonly matches: Matcher
  readonly walk: ShapeWalk | null
  readonly shape: Shape
}
