/**
 * Generated `operationId`s for routes that set none, from the HEAD method and path, the same in every version and
 * unique across the application.
 * @module
 */
import type { HeadRoute } from '../routes/versioner-state'
import type { DeclaredWebhook } from '../routes/webhooks'
import { inNameOrder } from './document-order'

function capitalise (word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1)
}

/** The words of a path segment: `user-addresses` → `User`, `Addresses`; `:userId` → `By`, `UserId`. */
function segmentWords (segment: string): string[] {
  if (segment === '*') return ['Wildcard']
  // A segment may hold several parameters (`:from-:to`) and regular expressions (`:id(^\\d+)`).
  const words: string[] = []
  for (const part of segment.replace(/\([^)]*\)/g, '').split(/(?=:)/)) {
    const parameter = part.startsWith(':')
    const names = part.replace(/^:/, '').split(/[^A-Za-z0-9]+/).filter((name) => name !== '')
    if (parameter && names.length > 0) words.push('By')
    words.push(...names.map(capitalise))
  }
  return words
}

/** The id made from a method and a path, before clashes are numbered. */
function operationIdBase (method: string, path: string): string {
  const words = path.split('/').flatMap(segmentWords)
  return `${method.toLowerCase()}${words.length === 0 ? 'Root' : words.join('')}`
}

/**
 * The methods a HEAD route's operations are named for: every method it has in some version; a route of one method,
 * whose id names its operation whatever its method, that one first, and the others only where a version gives it several.
 */
function methodsOf (head: HeadRoute): string[] {
  const every = [...new Set([...head.methods, ...head.timeline.flatMap((state) => state?.exists === true ? state.methods : [])])].sort()
  if (head.methods.length > 1) return every
  const merged = head.timeline.some((state) => state?.exists === true && state.methods.length > 1)
  return merged ? [head.methods[0], ...every.filter((method) => method !== head.methods[0])] : [head.methods[0]]
}

/**
 * The method of a one-method HEAD route that keeps its id in a version giving it `methods` (its HEAD method, else the
 * first); the others are named by their own ([decision 0268](../../docs/decisions/0268-one-operation-id-per-operation.md)).
 * @example
 * methodKeepingId(putUsers, ['POST', 'PUT']) // 'PUT'
 */
export function methodKeepingId (head: HeadRoute, methods: readonly string[]): string {
  const upper = methods.map((method) => method.toUpperCase()).sort()
  return upper.includes(head.methods[0]) ? head.methods[0] : upper[0]
}

/** The operation ids of an application's versioned routes, generated once its routes are known. */
export class OperationIds {
  private readonly taken = new Set<string>()
  private readonly ids = new Map<HeadRoute, Map<string, string>>()

  constructor (heads: readonly HeadRoute[], webhooks: readonly DeclaredWebhook[]) {
    // Every id the user set, in any version, is kept free.
    for (const state of [...heads.flatMap((head) => head.timeline), ...webhooks.flatMap((webhook) => webhook.timeline)]) {
      if (typeof state?.attributes.operationId === 'string') this.taken.add(state.attributes.operationId)
    }
    for (const head of heads) {
      if (typeof head.schema.operationId === 'string') this.taken.add(head.schema.operationId)
    }
    // Numbered in the order of paths and methods, not of registration: the same ids whatever order routes register in.
    for (const head of inNameOrder(heads, (route) => `${route.path} ${route.methods.join(',')}`)) for (const method of methodsOf(head)) this.of(head, method)
  }

  /** The id of a HEAD route's operation for a method (a method the route has in some version only gets one on first use). */
  of (head: HeadRoute, method: string): string {
    const byMethod = this.ids.get(head) ?? new Map<string, string>()
    this.ids.set(head, byMethod)
    const known = byMethod.get(method.toUpperCase())
    if (known !== undefined) return known
    const base = operationIdBase(method, head.path)
    let id = base
    for (let count = 2; this.taken.has(id); count++) id = `${base}${count}`
    this.taken.add(id)
    byMethod.set(method.toUpperCase(), id)
    return id
  }
}
