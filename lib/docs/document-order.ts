/**
 * The canonical order of an OpenAPI document (paths, webhooks, methods and component names sorted; each schema's
 * `required` before its `properties`), so one application gives the same bytes in every process
 * ([decision 0083](../../docs/decisions/0083-documents-for-caches-and-fleets.md)) and on every TypeBox 0.34.x
 * ([decision 0183](../../docs/decisions/0183-documents-the-same-bytes-on-every-typebox-minor.md)).
 * @module
 */
import { setOwn } from '../core/own-properties'

/** The maps of a document keyed by names whose order comes from the order of registration, not from their meaning. */
const NAMED_MAPS = new Set(['paths', 'webhooks', 'components'])

/**
 * A copy of an object with its keys sorted (code unit order, as `Array.prototype.sort` compares strings), each value
 * mapped by `sortValues`; anything else (an array too) as it is. @example sortedKeys({ b: 1, a: 2 }) // { a: 2, b: 1 }
 */
export function sortedKeys (value: unknown, sortValues: (item: unknown) => unknown = (item) => item): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) setOwn(copy, key, sortValues((value as Record<string, unknown>)[key]))
  return copy
}

/**
 * A copy of a JSON value in which every object holding a list `required` and an object `properties` (a schema) has
 * `required` right before `properties`; every other key keeps its place. TypeBox wrote it after them up to 0.34.41
 * and writes it before from 0.34.42: either way, the same text.
 */
function requiredBeforeProperties (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(requiredBeforeProperties)
  if (typeof value !== 'object' || value === null) return value
  const object = value as Record<string, unknown>
  const moved = Array.isArray(object.required) && typeof object.properties === 'object' && object.properties !== null
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(object)) {
    if (moved && key === 'required') continue
    if (moved && key === 'properties') copy.required = requiredBeforeProperties(object.required)
    setOwn(copy, key, requiredBeforeProperties(object[key]))
  }
  return copy
}

/**
 * A document in canonical order (a copy; anything but an object as it is).
 * @example
 * ```ts
 * JSON.stringify(inCanonicalOrder(document)) // the same text whatever order the routes were registered in
 * ```
 */
export function inCanonicalOrder<T> (document: T): T {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return document
  const ordered: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(document)) {
    // paths and webhooks: each path (or webhook) item's methods sorted too; components: each section's names.
    setOwn(ordered, key, requiredBeforeProperties(NAMED_MAPS.has(key) ? sortedKeys(value, (item) => sortedKeys(item)) : value))
  }
  return ordered as T
}

function compareText (a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Routes (or webhooks) in the order of what names them (their path and methods), not of registration: for what
 * documents and pages list or number in turn (generated operation ids, the upgrade guide's operations).
 * @example
 * ```ts
 * for (const head of inNameOrder(state.headRoutes, (route) => `${route.path} ${route.methods.join(',')}`)) operationIds.of(head, head.methods[0])
 * ```
 */
export function inNameOrder<T> (items: readonly T[], nameOf: (item: T) => string): T[] {
  return [...items].sort((a, b) => compareText(nameOf(a), nameOf(b)))
}
