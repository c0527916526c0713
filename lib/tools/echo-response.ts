/**
 * The response a create or update route answers in `verify`'s round trips: where a route's response (at HEAD) holds
 * fields of its request body, the same name and JSON type at the same place (a field shared by identity, through
 * `extendSchema`, has the same name there), a handler that stores the request and echoes it answers with the
 * request's values at those fields, and its own everywhere else (an id, a status, a total). This module builds that
 * response from a HEAD request body and a generated HEAD response, and says which places it echoed.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { setOwn } from '../core/own-properties'
import { asNode, declaredChildren, jsonTypeOf, readingNode, type PathKey, type RefResolver } from './data-flow'
import { exampleOf, type JsonSchema } from '../values/examples'

/** The declared properties of an object node (`{}` for none). */
function propertiesOf (node: JsonSchema): Record<string, unknown> {
  return typeof node.properties === 'object' && node.properties !== null ? node.properties as Record<string, unknown> : {}
}

/**
 * True when a response schema holds every JSON type of a request schema: the same, or more (a field made nullable in
 * the response, `string` stored and answered where `string|null` is), a handler storing the value answering it as it is.
 */
function holdsTypes (request: unknown, response: unknown, resolveRef: RefResolver): boolean {
  const [sent, answered] = [jsonTypeOf(request, resolveRef), jsonTypeOf(response, resolveRef)]
  if (sent === answered) return true
  const types = new Set(answered.split('|'))
  return sent !== 'any' && !types.has('any') && sent.split('|').every((type) => types.has(type))
}

/** True when two schemas hold the same kind of value: the response every JSON type of the request, and for lists items alike. */
function alike (request: unknown, response: unknown, resolveRef: RefResolver): boolean {
  if (!holdsTypes(request, response, resolveRef)) return false
  const [left, right] = [asNode(request, resolveRef), asNode(response, resolveRef)]
  return left?.items === undefined || right?.items === undefined || Array.isArray(left.items) || Array.isArray(right.items) ||
    holdsTypes(left.items, right.items, resolveRef)
}

/**
 * True when a response schema holds a field of a request body schema: a property of the same name and JSON type.
 * @example
 * ```ts
 * sharesFields(CustomerInput, Customer, resolveRef) // true: givenName, email…
 * ```
 */
export function sharesFields (request: TSchema, response: TSchema, resolveRef: RefResolver): boolean {
  const [left, right] = [asNode(request, resolveRef), asNode(response, resolveRef)]
  if (left === undefined || right === undefined) return false
  const theirs = propertiesOf(right)
  return Object.entries(propertiesOf(left)).some(([key, sub]) => Object.hasOwn(theirs, key) && alike(sub, theirs[key], resolveRef))
}

/** A HEAD response built over a generated one, and the places (JSON of their paths) where it echoes the request. */
export interface EchoedResponse {
  readonly body: unknown
  readonly echoed: ReadonlySet<string>
}

/** One place of the echo: the request's value and schema there, the generated response's. */
interface Place {
  readonly request: unknown
  readonly requestSchema: unknown
  readonly response: unknown
  readonly responseSchema: unknown
  readonly path: readonly PathKey[]
}

/** True for an object that is no list. */
function isRecordValue (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The node the handler's answer at one place is read by, and the generated response's own fields there (a list's,
 * and a record's entries, are the request's): of a union, the member of what it stored beside the response's own
 * fields (an `id`); where the generated response is another member (a card's `id` beside a bank account, whose
 * member has a `bankId`), the member the stored value is with that member's own fields made up (`exampleOf`).
 */
function answeredMember (node: JsonSchema, request: object, response: unknown, resolveRef: RefResolver): { node: JsonSchema, generated: Record<string, unknown> } {
  const generated = isRecordValue(response) ? response : {}
  if (Array.isArray(request)) return { node: readingNode(node, request, resolveRef), generated }
  const read = readingNode(node, { ...generated, ...request }, resolveRef)
  const members = (node.anyOf ?? node.oneOf) as unknown[] | undefined
  if (read !== node || !Array.isArray(members) || 'properties' in node) return { node: read, generated }
  for (const member of members) {
    let own: unknown
    try {
      own = exampleOf(member, { resolveRef })
    } catch {
      continue // A member no example can be made of (a pattern beyond reach) answers nothing here.
    }
    if (isRecordValue(own) && readingNode(node, { ...own, ...request }, resolveRef) === asNode(member, resolveRef)) return { node: asNode(member, resolveRef) as JsonSchema, generated: own }
  }
  return { node, generated }
}

/** The value at one place of the echo (recording the places echoed below it). */
function echoAt (place: Place, resolveRef: RefResolver, echoed: Set<string>): unknown {
  const { request, response, path } = place
  const [left, right] = [asNode(place.requestSchema, resolveRef), asNode(place.responseSchema, resolveRef)]
  if (typeof request !== 'object' || request === null || left === undefined || right === undefined) return request
  const requestNode = readingNode(left, request, resolveRef)
  const { node: responseNode, generated } = answeredMember(right, request, response, resolveRef)
  const theirs = declaredChildren(responseNode, request)
  const schemaThere = (key: PathKey): unknown => theirs.find(([name]) => name === key)?.[1]
  const result = (Array.isArray(request) ? [] : {}) as Record<PathKey, unknown>
  if (!Array.isArray(request)) for (const key of Object.keys(propertiesOf(responseNode))) if (Object.hasOwn(generated, key)) setOwn(result, key, generated[key])
  for (const [key, sub] of declaredChildren(requestNode, request)) {
    const there = schemaThere(key)
    if (there === undefined || !alike(sub, there, resolveRef)) continue
    const child = [...path, key]
    echoed.add(JSON.stringify(child))
    const over = Array.isArray(response) ? response[Number(key) % Math.max(1, response.length)] : generated[key]
    setOwn(result, String(key), echoAt({ request: (request as Record<PathKey, unknown>)[key], requestSchema: sub, response: over, responseSchema: there, path: child }, resolveRef, echoed))
  }
  if (Array.isArray(request)) return result
  // A field the request left out: a handler storing the request has nothing for it, where the response may leave it
  // out, or `null` where the response requires it and holds `null` (a field made nullable: `familyName ?? null`).
  const required = new Set(Array.isArray(responseNode.required) ? responseNode.required as string[] : [])
  const [mine, answered] = [propertiesOf(requestNode), propertiesOf(responseNode)]
  for (const key of Object.keys(result)) {
    if (Object.hasOwn(request, key) || !Object.hasOwn(mine, key) || !alike(mine[key], answered[key], resolveRef)) continue
    if (!required.has(key)) delete result[key]
    else if (jsonTypeOf(answered[key], resolveRef).split('|').includes('null')) result[key] = null
  }
  return result
}

/**
 * The HEAD response a handler storing `request` (a HEAD body of `requestSchema`) and echoing it would answer, built
 * over `response` (a generated HEAD response of `responseSchema`): the request's values where the response holds its
 * fields, the generated ones elsewhere.
 * @example
 * ```ts
 * echoResponse({ request: { email: 'a@b.c' }, requestSchema: CustomerInput, response: { id: 'u1', email: 'x@y.z' }, responseSchema: Customer }, resolveRef)
 * // { body: { id: 'u1', email: 'a@b.c' }, echoed: Set { '["email"]' } }
 * ```
 */
export function echoResponse (place: Omit<Place, 'path'>, resolveRef: RefResolver): EchoedResponse {
  const echoed = new Set<string>()
  const body = echoAt({ ...place, path: [] }, resolveRef, echoed)
  return { body, echoed }
}
