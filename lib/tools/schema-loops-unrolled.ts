/**
 * A saved and a current OpenAPI document made whole for `check` where schemas refer to each other in a loop (`File`
 * holds its `Folder`, a `Folder` its `File`s). `api-smart-diff` compares a `$ref` once and reuses the answer wherever
 * the same pair meets again; inside a loop it cuts the comparison where it re-enters a schema, and the cut answer for
 * `Folder`, found under `File`, lacks `File`'s own fields: a field removed from `File` went unseen at every place
 * rooted at `Folder`. Here each `$ref` to a schema of such a loop is written out inline at each place, down to where
 * the schema repeats on its own path (that `$ref` stays: what lies under it was compared above it). A schema referring
 * to itself alone is no such loop: the library's answer for it is whole.
 * @module
 */
import { setOwn } from '../core/own-properties'
import { pointerSegment } from '../core/json-schema'
import { own } from './document-places'

const COMPONENT = '#/components/schemas/'

/**
 * How many schemas are written out per document at most: past it the `$ref`s stay, as the diff library reads them
 * (a graph of loops can have more paths through it than any document has places).
 */
const MAX_WRITTEN_OUT = 5000

/** The document's schema components by their `$ref`. */
function componentsOf (document: unknown): Map<string, unknown> {
  const schemas = own(own(document, 'components'), 'schemas')
  const components = new Map<string, unknown>()
  if (typeof schemas !== 'object' || schemas === null) return components
  for (const [name, schema] of Object.entries(schemas)) components.set(`${COMPONENT}${pointerSegment(name)}`, schema)
  return components
}

/**
 * The component `$ref`s in `node` (not followed), added to `into`.
 * @example
 * ```ts
 * refsIn({ items: { $ref: '#/components/schemas/User' } }, new Set()) // Set { '#/components/schemas/User' }
 * ```
 */
export function refsIn (node: unknown, into: Set<string>): Set<string> {
  const stack = [node]
  while (stack.length > 0) {
    const next = stack.pop()
    if (typeof next !== 'object' || next === null) continue
    const ref = own(next, '$ref')
    if (typeof ref === 'string' && ref.startsWith(COMPONENT)) into.add(ref)
    stack.push(...Object.values(next))
  }
  return into
}

/** The `$ref`s of the schemas that reach another schema which reaches them back. */
function loopedRefs (components: ReadonlyMap<string, unknown>): Set<string> {
  const direct = new Map([...components].map(([ref, schema]) => [ref, refsIn(schema, new Set())]))
  const reach = (from: string): Set<string> => {
    const seen = new Set<string>()
    const stack = [...direct.get(from) ?? []]
    while (stack.length > 0) {
      const ref = stack.pop() as string
      if (seen.has(ref)) continue
      seen.add(ref)
      stack.push(...direct.get(ref) ?? [])
    }
    return seen
  }
  const reached = new Map([...direct.keys()].map((ref) => [ref, reach(ref)]))
  const looped = new Set<string>()
  for (const [ref, targets] of reached) {
    for (const target of targets) if (target !== ref && reached.get(target)?.has(ref) === true) looped.add(ref)
  }
  return looped
}

/** A place as a key: the keys of its path, each a string. */
function placeKey (path: ReadonlyArray<string | number>): string {
  return path.map(String).join('\u0000')
}

/**
 * A copy of `document` with the `$ref`s of `looped` written out outside its components; `repeats` gets the place of
 * each `$ref` left where its schema repeats on its path.
 */
function unrolled (document: unknown, looped: ReadonlySet<string>, repeats: Set<string>): unknown {
  const components = componentsOf(document)
  let budget = MAX_WRITTEN_OUT
  const copy = (node: unknown, onPath: ReadonlySet<string>, path: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((item, index) => copy(item, onPath, [...path, String(index)]))
    if (typeof node !== 'object' || node === null) return node
    const ref = own(node, '$ref')
    if (typeof ref === 'string' && looped.has(ref) && components.has(ref) && Object.keys(node).length === 1) {
      if (onPath.has(ref)) repeats.add(placeKey(path))
      else if (budget > 0) {
        budget--
        return copy(components.get(ref), new Set([...onPath, ref]), path)
      }
    }
    const result: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) setOwn(result, key, copy(value, onPath, [...path, key]))
    return result
  }
  const result: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(document as object)) setOwn(result, key, key === 'components' ? value : copy(value, new Set(), [key]))
  return result
}

/** Two documents made whole ({@link withSchemaLoopsUnrolled}), with the places where a loop's schema repeats. */
interface UnrolledDocuments {
  readonly documents: [unknown, unknown]
  /** The places ({@link placeKey}) where a `$ref` was left in either document: what a diff finds under them was found above. */
  readonly repeats: ReadonlySet<string>
}

/**
 * Copies of a saved and a current document with the schemas of loops written out at each place (the loops of
 * either document, on both sides, so that one place is written alike); documents without such loops as they are.
 * @example
 * ```ts
 * const { documents: [before, after], repeats } = withSchemaLoopsUnrolled(saved, current) // File → Folder → File…
 * ```
 */
export function withSchemaLoopsUnrolled (saved: unknown, current: unknown): UnrolledDocuments {
  const looped = new Set([...loopedRefs(componentsOf(saved)), ...loopedRefs(componentsOf(current))])
  const repeats = new Set<string>()
  if (looped.size === 0) return { documents: [saved, current], repeats }
  return { documents: [unrolled(saved, looped, repeats), unrolled(current, looped, repeats)], repeats }
}

/**
 * True when `path` lies under a place where a loop's schema repeats (a change inside it is reported where the schema
 * appears first); the place itself (the field holding the repeat removed, added or retyped) is not under it.
 */
export function underRepeat (path: ReadonlyArray<string | number>, repeats: ReadonlySet<string>): boolean {
  if (repeats.size === 0) return false
  for (let length = 1; length < path.length; length++) if (repeats.has(placeKey(path.slice(0, length)))) return true
  return false
}
