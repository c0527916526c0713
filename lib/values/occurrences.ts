/**
 * Stage `lib/values/`: walking request and response data against a version's schemas.
 *
 * The occurrences of a schema inside data, wherever the body's schema nests it (a by-schema converter runs once per
 * occurrence), by a collector compiled once per (body schema, target) that walks only where the target can be.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { isSchemaObject, pointerSegment, type SchemaObject } from '../core/json-schema'
import { compileMembers, readsInherited } from './union-matchers'
import { childrenOf, type Children } from './shapes'
import { resolverWithin } from '../core/subschemas'
import { PlaceTree } from './place-tree'

/** An object or array holding a value under a key; converters may replace the value. */
export type Holder = Record<PropertyKey, unknown>

/** An occurrence of the target: the value `holder[key]`, and the target's schema node there. */
export type Occurrence = readonly [holder: Holder, key: PropertyKey, node: TSchema]

/** Appends the occurrences of the target inside `holder[key]` to `out`, innermost first. */
export type Collector = ((holder: Holder, key: PropertyKey, out: Occurrence[]) => void) & {
  /** Set when the only occurrence is the value itself (the schema is the target, nothing nested). */
  readonly onlySelf?: true
  /**
   * Appends them to `out` (in no set order), and to `places` the place of each in `tree` (`holder[key]` its place 0):
   * for data holding one object at two places, which an object cannot tell apart.
   */
  readonly placed: (holder: Holder, key: PropertyKey, tree: PlaceTree, out: Occurrence[], places: number[]) => void
}

/** A step's text: the key itself, or (for a pointer) `*` for any item and the key escaped. */
const KEY_STEP = (_holder: Holder, key: PropertyKey): string => String(key)
const POINTER_STEP = (holder: Holder, key: PropertyKey): string => Array.isArray(holder) ? '*' : pointerSegment(key)

/**
 * Runs `root` on `holder[key]` (place 0 of `tree`) as {@link walkData} does, numbering the places it walks by `step`;
 * `visit` gets each occurrence and its place, and stops the walk by returning false.
 */
function walkPlaces (root: Walk, [holder, key, deepest]: readonly [Holder, PropertyKey, number], tree: PlaceTree, step: typeof KEY_STEP, visit: (place: number, holder: Holder, key: PropertyKey, node: TSchema) => boolean): void {
  const stack: Array<readonly [walk: Walk, holder: Holder, key: PropertyKey, place: number, depth: number]> = [[root, holder, key, 0, 0]]
  const next: Task[] = []
  while (stack.length > 0) {
    const [walk, at, name, place, depth] = stack.pop() as (typeof stack)[number]
    if (walk.self && !visit(place, at, name, walk.node)) return
    next.length = 0
    walk.expand(at, name, next)
    for (let index = next.length - 1; index >= 0; index--) {
      const [inner, child, below] = next[index]
      // A member, `$ref` or `allOf` part walks the same value; a property or an item one level down.
      const same = child === at && below === name
      if (inner !== null && (same || depth < deepest)) stack.push([inner, child, below, same ? place : tree.child(place, step(child, below)), same ? depth : depth + 1])
    }
  }
}

/** What a collector looks for, and how it resolves `$ref`s. */
interface CollectorTarget {
  /** True for a schema node that is the target (its data is an occurrence). */
  isTarget: (node: TSchema) => boolean
  /** The schema a `$ref` names. */
  resolveRef: (id: string) => TSchema | undefined
  /** How many levels below the walked value the walk goes (data holding itself is walked that far); none: all. */
  readonly deepest?: number
}

const PENDING = Symbol('pending')

/**
 * A compiled schema node: `expand` lists, in order, the walks its data needs (nested values, and members
 * applying to the same value), and `self` says whether the value itself is an occurrence.
 */
interface Walk {
  readonly expand: (holder: Holder, key: PropertyKey, next: Task[]) => void
  readonly self: boolean
  /** The schema node compiled (the target itself when `self`). */
  readonly node: TSchema
  /** Set on a target node that holds nothing to walk. */
  readonly leaf?: true
}

/** A walk to run on `holder[key]`, or (`walk` null) the occurrence `holder[key]` of `node` to record. */
type Task = readonly [walk: Walk | null, holder: Holder, key: PropertyKey, node?: TSchema]

/**
 * Runs `root` on `holder[key]` with an explicit stack (no recursion: data as deep as the JSON parser accepts
 * is walked, or `deepest` levels), recording occurrences innermost first, nested ones in schema order.
 */
function walkData (root: Walk, holder: Holder, key: PropertyKey, out: Occurrence[], deepest: number): void {
  const stack: Task[] = [[root, holder, key]]
  // How deep below `holder[key]` each task's value lies.
  const depths: number[] = [0]
  const next: Task[] = []
  while (stack.length > 0) {
    const [walk, at, name, node] = stack.pop() as Task
    const depth = depths.pop() as number
    if (walk === null) {
      out.push([at, name, node as TSchema])
      continue
    }
    if (walk.self) {
      stack.push([null, at, name, walk.node])
      depths.push(depth)
    }
    next.length = 0
    walk.expand(at, name, next)
    for (let index = next.length - 1; index >= 0; index--) {
      const inner = next[index][1] === at && next[index][2] === name ? depth : depth + 1
      if (inner > deepest) continue
      stack.push(next[index])
      depths.push(inner)
    }
  }
}

/**
 * Compiles a collector of the target's occurrences inside data shaped by `root`, or `null` when the target
 * cannot occur there. Collectors of the same (root, target) are cached by the caller.
 */
export function compileCollector (root: TSchema, target: CollectorTarget): Collector | null {
  const compiler = new CollectorCompiler(root, target)
  const walk = compiler.build(root)
  if (walk === null) return null
  const deepest = target.deepest ?? Infinity
  const collector = (holder: Holder, key: PropertyKey, out: Occurrence[]): void => { walkData(walk, holder, key, out, deepest) }
  const placed: Collector['placed'] = (holder, key, tree, out, places) => {
    walkPlaces(walk, [holder, key, deepest], tree, KEY_STEP, (place, at, name, node) => out.push([at, name, node]) > 0 && places.push(place) > 0)
  }
  return Object.assign(collector, walk.leaf === true ? { onlySelf: true as const, placed } : { placed })
}

/**
 * The places where the target occurs in a value, as JSON pointers from the value (RFC 6901, with array
 * items as `*`: one place whatever the index), each once, outer before inner, with the target's nodes there (more
 * than one where a field and the union member its value belongs to are both targets); the first {@link MAX_PLACES} only.
 */
export type PlaceFinder = (value: unknown) => ReadonlyArray<readonly [place: string, nodes: readonly TSchema[]]>

/**
 * The places a {@link PlaceFinder} reports at most, in one value. Data as deep as a request body may be (tens of
 * thousands of levels of a `Type.Recursive`) holds as many places, each a pointer as long as its depth: all of
 * them were a quadratic amount of text (2.5 GB for a body of 500 kB on Node.js 26).
 * @example `compilePlaceFinder(root, target)?.(body).length <= MAX_PLACES // true`
 */
export const MAX_PLACES = 100

/**
 * Compiles a {@link PlaceFinder} of the target inside data shaped by `root`, or `null` when the target cannot
 * occur there. It walks the data as a collector does (explicit stack, only where the target can be).
 */
export function compilePlaceFinder (root: TSchema, target: CollectorTarget): PlaceFinder | null {
  const walk = new CollectorCompiler(root, target).build(root)
  return walk === null ? null : (value) => findPlaces(walk, value)
}

/**
 * The walk of a place finder, by numbered places ({@link PlaceTree}: telling a place seen before compares numbers, never
 * pointers as long as the data is deep); the pointers of the places found are written last, each from its parent's.
 */
function findPlaces (root: Walk, value: unknown): Array<readonly [string, TSchema[]]> {
  const tree = new PlaceTree()
  const found = new Map<number, TSchema[]>()
  walkPlaces(root, [{ '': value }, '', Infinity], tree, POINTER_STEP, (place, _holder, _key, node) => {
    const nodes = found.get(place)
    if (nodes === undefined) found.set(place, [node])
    else if (!nodes.includes(node)) nodes.push(node)
    return found.size < MAX_PLACES
  })
  const { parents, steps } = tree
  const pointers = new Map<number, string>([[0, '']])
  const pointerOf = (place: number): string => {
    const chain: number[] = []
    for (let at = place; !pointers.has(at); at = parents[at]) chain.push(at)
    for (let index = chain.length - 1; index >= 0; index--) {
      pointers.set(chain[index], `${pointers.get(parents[chain[index]]) as string}/${steps[chain[index]]}`)
    }
    return pointers.get(place) as string
  }
  return [...found].map(([place, nodes]) => [pointerOf(place), nodes] as const)
}

type Expand = Walk['expand']

/** Walks the same value as the schema of `inner`. */
const sameValue = (inner: Walk): Expand => (holder, key, next) => { next.push([inner, holder, key]) }

/** Compiles the walks of one collector: one per schema node, shared where a node is reached twice. */
class CollectorCompiler {
  private readonly memo = new Map<TSchema, Walk | null | typeof PENDING>()
  /** The target's resolver, after the schemas with an `$id` inside the root (a `Type.Recursive` names its own). */
  private readonly resolveRef: CollectorTarget['resolveRef']

  constructor (root: TSchema, private readonly target: CollectorTarget) {
    this.resolveRef = resolverWithin([root], target.resolveRef)
  }

  build (node: TSchema): Walk | null {
    const known = this.memo.get(node)
    if (known === PENDING) {
      // A schema containing itself (through $ref): look it up when the data is walked.
      const memo = this.memo
      return {
        self: false,
        node,
        expand: (holder, key, next) => {
          const walk = memo.get(node)
          if (typeof walk === 'object' && walk !== null) next.push([walk, holder, key])
        }
      }
    }
    if (known !== undefined) return known
    this.memo.set(node, PENDING)
    const walk = this.compileNode(node)
    this.memo.set(node, walk)
    return walk
  }

  /** The part `make` gives for the data of `schema` (when it is a schema), if the target can occur there. */
  private part (schema: unknown, make: (inner: Walk) => Expand): Expand[] {
    const inner = isSchemaObject(schema) ? this.build(schema as TSchema) : null
    return inner === null ? [] : [make(inner)]
  }

  private compileNode (node: TSchema): Walk | null {
    const children = childrenOf(node as SchemaObject)
    // A `$ref` and the members of an `allOf`: the data is walked as each schema.
    const referenced = typeof node.$ref === 'string' ? this.resolveRef(node.$ref) : undefined
    const parts: Expand[] = [
      ...this.part(referenced, sameValue), ...this.objectParts(children), ...this.arrayParts(children),
      ...children.unions.flatMap((members) => this.unionParts(members)), ...children.allOf.flatMap((member) => this.part(member, sameValue))
    ]
    const self = this.target.isTarget(node)
    if (parts.length === 0 && !self) return null
    if (parts.length === 0) return { self, node, expand: () => {}, leaf: true }
    return {
      self,
      node,
      expand: parts.length === 1
        ? parts[0]
        : (holder, key, next) => { for (const part of parts) part(holder, key, next) }
    }
  }

  /** The values of an object: its `properties`, then the other fields by `patternProperties` and `additionalProperties`. */
  private objectParts ({ properties, named, patterns, additional }: Children): Expand[] {
    const regexes = patterns.map(([regex]) => regex)
    return [
      ...properties.flatMap(([property, schema]) => this.part(schema, (inner) => (holder, key, next) => {
        const value = holder[key]
        if (isSchemaObject(value) && (Object.hasOwn(value, property) || readsInherited(value, property)) && value[property] !== undefined) next.push([inner, value, property])
      })),
      ...patterns.flatMap(([regex, schema]) => this.part(schema, (inner) => (holder, key, next) => {
        const value = holder[key]
        if (!isSchemaObject(value)) return
        for (const name of Object.keys(value)) if (!named.has(name) && regex.test(name)) next.push([inner, value, name])
      })),
      ...this.part(additional, (inner) => (holder, key, next) => {
        const value = holder[key]
        if (!isSchemaObject(value)) return
        for (const name of Object.keys(value)) {
          if (!named.has(name) && !regexes.some((regex) => regex.test(name))) next.push([inner, value, name])
        }
      })
    ]
  }

  /** Array items: tuple positions, then the items after them. */
  private arrayParts ({ tuple, items, itemsFrom }: Children): Expand[] {
    return [
      ...tuple.flatMap(([index, schema]) => this.part(schema, (inner) => (holder, key, next) => {
        const value = holder[key]
        if (Array.isArray(value) && index < value.length) next.push([inner, value as unknown as Holder, index])
      })),
      ...this.part(items, (inner) => (holder, key, next) => {
        const value = holder[key]
        if (!Array.isArray(value)) return
        for (let index = itemsFrom; index < value.length; index++) next.push([inner, value as unknown as Holder, index])
      })
    ]
  }

  /** A union (`anyOf` or `oneOf`): the data is walked as the first member it plausibly belongs to. */
  private unionParts (members: readonly TSchema[]): Expand[] {
    const matchers = compileMembers(members, this.resolveRef)
    const candidates = members.map((member, index) => ({ matches: matchers[index], inner: this.build(member) }))
    if (!candidates.some((candidate) => candidate.inner !== null)) return []
    return [(holder, key, next) => {
      const value = holder[key]
      const chosen = candidates.find((candidate) => candidate.matches(value))
      if (chosen?.inner != null) next.push([chosen.inner, holder, key])
    }]
  }
}
