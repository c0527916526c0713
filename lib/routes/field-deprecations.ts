/**
 * Where the deprecated parts of a route's requests sit in one version, found by a compiled place finder
 * (decision 0061); a version with none costs its requests nothing.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { readFieldDeprecation, type FieldDeprecation } from '../describe/field-deprecation'
import { compilePlaceFinder, type PlaceFinder } from '../values/occurrences'
import type { SchemaGeneration } from '../schemas/generation'

/** The request's property holding each request part whose deprecated parts are looked for, and its pointer (path parameters are the route's: deprecate the route). */
const PARTS = { body: ['body', '/body'], querystring: ['query', '/query'], headers: ['headers', '/headers'] } as const

/** The place finder of one request part: `property` is the request's property holding it, `prefix` its pointer. */
interface PartFinder {
  readonly part: 'body' | 'querystring' | 'headers'
  readonly property: 'body' | 'query' | 'headers'
  readonly prefix: string
  readonly find: PlaceFinder
  /** The part's schema in the version (the query string and headers are read as Fastify's validation coerces them with it). */
  readonly form: TSchema
}

/** The deprecated parts of a route's requests in one version: a finder per part holding some, and what each says. */
export interface FieldDeprecations {
  readonly parts: readonly PartFinder[]
  /** By deprecated schema node: its dates and link. */
  readonly details: ReadonlyMap<TSchema, FieldDeprecation>
}

/** The deprecated places of one request part's form: a finder, and what each deprecated node says. */
export interface FormDeprecations {
  readonly find: PlaceFinder
  readonly details: ReadonlyMap<TSchema, FieldDeprecation>
}

/**
 * The deprecated parts of a route's request `forms` at `at.level`, or `undefined` when none; a bad `x-` keyword is a
 * `VersionerStructureError`. `known` caches each form's finding (`null`: nothing), so a shared form is walked once.
 */
export function fieldDeprecationsOf (
  display: string, forms: ReadonlyArray<readonly [PartFinder['part'] | 'params', TSchema]>, at: { readonly level: number, readonly version: string },
  generation: SchemaGeneration, known: WeakMap<TSchema, FormDeprecations | null>
): FieldDeprecations | undefined {
  const details = new Map<TSchema, FieldDeprecation>()
  const parts: PartFinder[] = []
  for (const [part, form] of forms) {
    if (part === 'params') continue
    let found = known.get(form)
    if (found === undefined) known.set(form, found = formDeprecations(form, `${display}: the ${part} schema in version ${at.version}`, generation))
    if (found === null) continue
    const [property, prefix] = PARTS[part]
    parts.push({ part, property, prefix, find: found.find, form })
    for (const [node, deprecation] of found.details) details.set(node, deprecation)
  }
  return parts.length === 0 ? undefined : { parts, details }
}

/** The deprecated places of `form` (`where` naming it in errors), or `null` when it holds none. */
function formDeprecations (form: TSchema, where: string, generation: SchemaGeneration): FormDeprecations | null {
  const details = new Map<TSchema, FieldDeprecation>()
  const isTarget = (node: TSchema): boolean => {
    const deprecation = readFieldDeprecation(node, where)
    if (deprecation !== undefined) details.set(node, deprecation)
    return deprecation !== undefined
  }
  const find = compilePlaceFinder(form, { isTarget, resolveRef: (ref) => generation.resolveAnyId(ref) })
  return find === null ? null : { find, details }
}
