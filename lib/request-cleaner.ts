/**
 * Removing, from a request of an older version, the fields its schema does not have. JSON Schema objects
 * accept extra properties by default, so a client could otherwise send a field of HEAD (an internal one, or
 * one added since its version) and have it reach the handler. Only object schemas that a version rebuilt
 * (whose own fields differ from HEAD's) are cleaned; unchanged schemas behave as in plain Fastify.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { plausiblyMatches } from './data-walker'
import { isSchemaObject, type SchemaObject } from './schema-utils'
import { kGenerated } from './symbols'

/** Removes undeclared fields from request data, in place. */
export type Cleaner = (data: unknown) => void

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const cache = new WeakMap<TSchema, Cleaner | null>()

/** A cleaner for data of `schema`, or `null` when no rebuilt object schema is reachable in it. */
export function compileCleaner (schema: TSchema): Cleaner | null {
  if (cache.has(schema)) return cache.get(schema) ?? null
  cache.set(schema, null)
  const source = schema as SchemaObject
  const parts: Cleaner[] = []
  if (source[kGenerated] === true && isSchemaObject(source.properties) && source.additionalProperties !== true && !isSchemaObject(source.additionalProperties)) {
    const declared = new Set(Object.keys(source.properties))
    const patterns = isSchemaObject(source.patternProperties) ? Object.keys(source.patternProperties).map((pattern) => new RegExp(pattern, 'u')) : []
    parts.push((data) => {
      if (!isPlainObject(data)) return
      for (const key of Object.keys(data)) {
        if (!declared.has(key) && !patterns.some((pattern) => pattern.test(key))) delete data[key]
      }
    })
  }
  if (isSchemaObject(source.properties)) {
    for (const [key, property] of Object.entries(source.properties)) {
      const inner = isSchemaObject(property) ? compileCleaner(property as TSchema) : null
      if (inner !== null) parts.push((data) => { if (isPlainObject(data) && data[key] !== undefined) inner(data[key]) })
    }
  }
  if (isSchemaObject(source.items)) {
    const inner = compileCleaner(source.items as TSchema)
    if (inner !== null) parts.push((data) => { if (Array.isArray(data)) data.forEach(inner) })
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = source[keyword]
    if (!Array.isArray(members)) continue
    const candidates = members.filter(isSchemaObject).map((member) => ({ member: member as TSchema, inner: compileCleaner(member as TSchema) }))
    if (!candidates.some((candidate) => candidate.inner !== null)) continue
    parts.push((data) => { candidates.find((candidate) => plausiblyMatches(candidate.member, data))?.inner?.(data) })
  }
  if (Array.isArray(source.allOf)) {
    for (const member of source.allOf) {
      const inner = isSchemaObject(member) ? compileCleaner(member as TSchema) : null
      if (inner !== null) parts.push(inner)
    }
  }
  const cleaner: Cleaner | null = parts.length === 0 ? null : (data) => { for (const part of parts) part(data) }
  cache.set(schema, cleaner)
  return cleaner
}
