/**
 * What a full replace from an old version clears, and the route option `fullReplace` ([decision 0073](../../docs/decisions/0073-replace-keeps-what-old-clients-cannot-see.md)).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { RouterGenerationError } from '../core/errors'
import { childSchemaInfo } from '../describe/extend-schema'
import { describeValue, isSchemaObject, pointerSegment, type SchemaObject } from '../core/json-schema'
import type { HttpMethod } from '../core/http-methods'
import { visibleFields } from '../schemas/object-fields'
import type { SchemaGeneration } from '../schemas/generation'
import type { ObjectState } from '../schemas/seeds'
import { childrenOf, MAX_WALK_DEPTH } from '../values/shapes'

/** No field: the answer of every version that expresses every HEAD body field, and of unversioned routes. */
export const NO_FIELDS: readonly string[] = Object.freeze([])

/** A route's `fullReplace` option, read: whether its body replaces what it stores, and the fields its handler keeps. */
export interface FullReplace {
  /** True when a request of some method of the route replaces (those of {@link FullReplace.methods}). */
  readonly replaces: boolean
  /** The methods whose requests replace: a `PATCH` of a route with other methods too is a partial update (decision 0182). */
  readonly methods: ReadonlySet<string>
  /** The HEAD body fields (JSON pointers) whose stored values the handler keeps when an old version lacks them. */
  readonly keeps: ReadonlySet<string>
}

/** True for a JSON pointer (RFC 6901): empty, or segments each after a `/`, `~` only escaping (`~0`, `~1`). */
function isPointer (value: unknown): value is string {
  return typeof value === 'string' && /^(?:\/(?:[^~/]|~[01])*)*$/.test(value)
}

/**
 * Reads the route option `fullReplace`: a `PUT` replaces unless `false`; `true` or `{ keeps: [...] }` makes every
 * method replace but the `PATCH` of a route with other methods. Anything else is a `RouterGenerationError`.
 * @example
 * readFullReplace(undefined, ['PUT', 'PATCH'], 'PATCH,PUT /users/:id') // { replaces: true, methods: Set { 'PUT' }, keeps: Set {} }
 * readFullReplace({ keeps: ['/nickname'] }, ['POST'], 'POST /users') // { replaces: true, methods: Set { 'POST' }, keeps: Set { '/nickname' } }
 */
export function readFullReplace (value: unknown, methods: readonly HttpMethod[], display: string): FullReplace {
  const keeps = value === undefined || typeof value === 'boolean' ? [] : isSchemaObject(value) && Object.keys(value).length === 1 ? value.keeps : undefined
  if (!Array.isArray(keeps) || !keeps.every(isPointer)) {
    throw new RouterGenerationError(`${display}: the route option fullReplace is ${describeValue(value)}; it takes true, false, or ` +
      "{ keeps: [...] } listing the HEAD body fields the handler keeps as JSON pointers ('/nickname', '/address/line2', '/items/*/note').")
  }
  const replacing = value === false ? [] : value === undefined ? methods.filter((method) => method === 'PUT') : methods.length > 1 ? methods.filter((method) => method !== 'PATCH') : methods
  return Object.freeze({ replaces: replacing.length > 0, methods: new Set(replacing), keeps: new Set(keeps) })
}

/**
 * The HEAD body fields the version at `level` cannot express, as JSON pointers (`*` for items and map values): added
 * since or hidden, at any depth, in any union member; a renamed, retyped or `derivedFrom` field is expressed
 * (decision 0073). Fields left out as derived are added to `derived` when given (for `verify`).
 * @example
 * lackedFieldsOf(UserUpdate, generation.levelOf('2000-01-01'), generation) // ['/nickname', '/address/line2']
 */
export function lackedFieldsOf (head: TSchema | undefined, level: number, generation: SchemaGeneration, derived?: Set<string>): readonly string[] {
  if (head === undefined || generation.formAt(head, level) === head) return NO_FIELDS
  const found = new Set<string>()
  const onPath = new Set<TSchema>()
  const walk = (node: TSchema, pointer: string): void => {
    // Nothing in a schema whose form is HEAD's own changed; a schema met inside itself was walked already.
    if (!isSchemaObject(node) || onPath.has(node) || onPath.size > MAX_WALK_DEPTH || generation.formAt(node, level) === node) return
    onPath.add(node)
    const source = node as SchemaObject
    const target = typeof source.$ref === 'string' ? generation.resolveRef(source.$ref) : undefined
    if (target !== undefined) walk(target, pointer)
    else walkChildren(node, pointer)
    onPath.delete(node)
  }
  const walkChildren = (node: TSchema, pointer: string): void => {
    const children = childrenOf(node as SchemaObject)
    // A seed, or a schema made by `extendSchema`, is built from its fields' states (../schemas/form-builder.ts).
    const state = generation.seedOf(node) === undefined && childSchemaInfo(node) === undefined ? undefined : generation.stateAt(node, level)
    if (state?.kind === 'object') walkFields(node, state, pointer)
    else for (const [key, child] of children.properties) walk(child, `${pointer}/${pointerSegment(key)}`)
    for (const [, child] of children.patterns) walk(child as TSchema, `${pointer}/*`)
    for (const child of [children.additional, children.items, ...children.tuple.map(([, schema]) => schema)]) if (child !== undefined) walk(child, `${pointer}/*`)
    for (const member of [...children.unions.flat(), ...children.allOf]) walk(member, pointer)
  }
  // The fields of the seeds holding the one walked (its own last), each with the field it is walked through, for
  // `derivedFrom` sources of a holder (decisions 0259, 0263).
  const holders: Array<{ fields: ReadonlyMap<number, unknown>, through?: number }> = []
  // The fields of a seed by identity (kept through renames): HEAD's that the version has none of are lacked.
  const walkFields = (node: TSchema, state: ObjectState, pointer: string): void => {
    const there = new Map(visibleFields(state, (schema) => generation.stateAt(schema, level)).map(({ field }) => [field.id, field]))
    const holder: { fields: ReadonlyMap<number, unknown>, through?: number } = { fields: there }
    holders.push(holder)
    for (const { key, field } of visibleFields(generation.stateAt(node, 0) as ObjectState, (schema) => generation.stateAt(schema, 0))) {
      const place = `${pointer}/${pointerSegment(key)}`
      const at = there.get(field.id)
      if (at === undefined) {
        // A field declared `derivedFrom` is set by the converters while the version holds one of its sources.
        const sources = generation.derivationOf(field.id)
        const set = sources !== undefined && [...sources].some(([source, through]) =>
          holders.some(({ fields, through: walked }) => fields.has(source) && (through === undefined || through === walked)))
        if (set) derived?.add(place)
        else found.add(place)
      } else if (at.type === field.type) {
        holder.through = field.id
        walk(field.type, place)
        holder.through = undefined
      }
    }
    holders.pop()
  }
  walk(head, '')
  return found.size === 0 ? NO_FIELDS : Object.freeze([...found])
}
