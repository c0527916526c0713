/**
 * Where `verify`'s example generation (./example-generation.ts) stops generating optional parts: past
 * {@link MAX_DEPTH} levels deep, on a schema its data can hold again (a recursion, through `$ref`s or a copy with its
 * `$id`), so that a recursive schema's examples end. A schema that does not recurse is generated whole, however deep:
 * a field six nullable objects deep (each object and each union member a level) is replayed like any other.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { everySubschema, subschemasOf } from '../core/subschemas'
import type { JsonSchema } from '../values/examples'
import { asNode, type RefResolver } from './data-flow'

/** The depth (properties, list items and union members) past which a recursion's optional parts are left out. */
const MAX_DEPTH = 12

/**
 * A test telling whether a node met `depth` deep (0 is the example's root) is past the depth of a recursion: its
 * optional fields, record entries and lists that may be empty are left out there. Whether a node recurses is found
 * once per node, and only past {@link MAX_DEPTH}.
 * @example `const tooDeep = recursionCut(resolveRef); if (!required && tooDeep(node, depth)) continue`
 */
export function recursionCut (resolveRef: RefResolver): (node: JsonSchema, depth: number) => boolean {
  const recursive = new Map<JsonSchema, boolean>()
  const resolve = (ref: string): TSchema | undefined => asNode({ $ref: ref }, resolveRef) as TSchema | undefined
  return (node, depth) => {
    if (depth <= MAX_DEPTH) return false
    let known = recursive.get(node)
    if (known === undefined) {
      const within = everySubschema(subschemasOf(node as TSchema), resolve)
      known = within.has(node as TSchema) || (typeof node.$id === 'string' && [...within].some((sub) => (sub as JsonSchema).$id === node.$id))
      recursive.set(node, known)
    }
    return known
  }
}
