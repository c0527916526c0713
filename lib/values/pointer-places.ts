/**
 * Whether a schema declares the place a JSON pointer names (a misspelt redaction pointer declares none), read
 * through {@link childrenOf} as the walks over data read schemas.
 * @module
 */
import { isSchemaObject, type SchemaObject } from '../core/json-schema'
import { childrenOf, MAX_WALK_DEPTH, type ResolveRef } from './shapes'

/** Keywords that say what a value is; a schema with none of them (`{}`) accepts anything, at any depth. */
const DESCRIBING = ['type', 'properties', 'patternProperties', 'additionalProperties', 'items', 'prefixItems', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', 'not']

/**
 * True when `schema` declares the place `segments` name (`*`: every item or key): a field its keywords name or its
 * `additionalProperties` accept, an item, through `$ref`s and union and intersection members (one it cannot resolve,
 * or a schema accepting anything, may hold any place).
 * @example
 * ```ts
 * declaresPlace(Type.Object({ card: Type.Object({ number: Type.String() }) }), ['card', 'number'], undefined) // true
 * declaresPlace(Type.Object({ card: Type.Object({ number: Type.String() }) }), ['Card', 'number'], undefined) // false
 * ```
 */
export function declaresPlace (schema: unknown, segments: readonly string[], resolveRef: ResolveRef | undefined, depth = 0): boolean {
  if (segments.length === 0 || schema === true || depth > MAX_WALK_DEPTH) return true
  if (!isSchemaObject(schema)) return false
  const source = schema as SchemaObject
  if (typeof source.$ref === 'string') {
    const target = resolveRef?.(source.$ref)
    return target === undefined || declaresPlace(target, segments, resolveRef, depth + 1)
  }
  if (!DESCRIBING.some((keyword) => keyword in source)) return true
  const children = childrenOf(source)
  if ([...children.allOf, ...children.unions.flat()].some((member) => declaresPlace(member, segments, resolveRef, depth + 1))) return true
  const [segment, ...rest] = segments
  const inside = (sub: unknown): boolean => declaresPlace(sub, rest, resolveRef, depth + 1)
  const extra = source.additionalProperties
  // An object or array schema that lists no fields or items (`{ type: 'object' }`) holds any.
  const lists = 'properties' in source || 'patternProperties' in source || 'additionalProperties' in source || 'items' in source || 'prefixItems' in source
  if (!lists && [source.type].flat().some((type) => type === 'object' || type === 'array')) return true
  const fields: unknown[] = [
    ...(segment === '*' ? children.properties.map(([, sub]) => sub) : children.properties.filter(([name]) => name === segment).map(([, sub]) => sub)),
    ...children.patterns.filter(([regex]) => segment === '*' || regex.test(segment)).map(([, sub]) => sub),
    ...(extra === true || isSchemaObject(extra) ? [extra] : [])
  ]
  // A property declared with a value that is not a schema object (`true`) holds anything.
  if (segment !== '*' && children.named.has(segment) && !children.properties.some(([name]) => name === segment)) return true
  if (fields.some(inside)) return true
  if (segment !== '*' && !/^(0|[1-9]\d*)$/.test(segment)) return false
  const position = segment === '*' ? undefined : Number(segment)
  const items: unknown[] = [
    ...children.tuple.filter(([index]) => position === undefined || index === position).map(([, sub]) => sub),
    ...(children.items !== undefined && (position === undefined || position >= children.itemsFrom) ? [children.items] : []),
    ...(source.items === true ? [true] : [])
  ]
  return items.some(inside)
}
