/**
 * Stage `lib/routes/`: where the deprecated parts of a route's requests sit in one version (decision 0061).
 *
 * A request field, query parameter, header or enum member (a union member) whose schema in the version says
 * `deprecated: true` (../describe/field-deprecation.ts) is found, when a request carries it, by a place finder
 * compiled from the version's request schemas (../values/occurrences.ts), once per route and version, when the
 * behaviour is planned. A version whose request schemas hold no deprecated part has none: its requests pay nothing.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { readFieldDeprecation, type FieldDeprecation } from '../describe/field-deprecation'
import { compilePlaceFinder, type PlaceFinder } from '../values/occurrences'
import type { SchemaGeneration } from '../schemas/generation'
import { lowerCaseHeaders, prepareForFastify } from './prepared-schemas'

/** The request parts whose deprecated parts are looked for (path parameters are the route's: deprecate the route). */
const PARTS = [['body', 'body', '/body'], ['querystring', 'query', '/query'], ['headers', 'headers', '/headers']] as const

/** The place finder of one request part: `property` is the request's property holding it, `prefix` its pointer. */
interface PartFinder {
  readonly part: 'body' | 'querystring' | 'headers'
  readonly property: 'body' | 'query' | 'headers'
  readonly prefix: string
  readonly find: PlaceFinder
}

/** The deprecated parts of a route's requests in one version: a finder per part holding some, and what each says. */
export interface FieldDeprecations {
  readonly parts: readonly PartFinder[]
  /** By deprecated schema node: its dates and link. */
  readonly details: ReadonlyMap<TSchema, FieldDeprecation>
}

/**
 * The deprecated parts of the requests of a route (its HEAD schema, `display` naming it) at `level`, or
 * `undefined` when its request schemas there hold none. A bad `x-` keyword beside `deprecated: true` is a
 * `VersionerStructureError` naming the route, the part and the version.
 */
export function fieldDeprecationsOf (
  route: { readonly schema: Partial<Record<PartFinder['part'], TSchema>>, readonly display: string }, at: { readonly level: number, readonly version: string },
  generation: SchemaGeneration
): FieldDeprecations | undefined {
  const details = new Map<TSchema, FieldDeprecation>()
  const parts: PartFinder[] = []
  for (const [part, property, prefix] of PARTS) {
    const head = route.schema[part]
    if (head === undefined) continue
    const prepared = prepareForFastify(generation.formAt(head, at.level), generation)
    const form = part === 'headers' ? lowerCaseHeaders(prepared) : prepared
    const display = `${route.display}: the ${part} schema in version ${at.version}`
    const isTarget = (node: TSchema): boolean => {
      const deprecation = readFieldDeprecation(node, display)
      if (deprecation !== undefined) details.set(node, deprecation)
      return deprecation !== undefined
    }
    const find = compilePlaceFinder(form, { isTarget, resolveRef: (ref) => generation.resolveAnyId(ref) })
    if (find !== null) parts.push({ part, property, prefix, find })
  }
  return parts.length === 0 ? undefined : { parts, details }
}
