/**
 * Warnings for object schemas TypeBox built from a seed's fields (`Type.Partial`, `Pick`, `Omit`…), which the
 * seed's instructions cannot reach (decision 0162).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { processWarning } from '../core/warnings'
import { kExtendedSchema, kGenerated, kHeadSchema } from '../core/symbols'
import { VersionerStructureError } from '../core/errors'
import { ANOTHER_COPY, hasKeyOfAnotherCopy } from '../core/other-copies'
import { isOptional, isSchemaObject, kindOf, propertiesOf, type SchemaObject } from '../core/json-schema'
import { fieldsById } from './object-fields'
import { anchorOf, sameButModifiers, type EnumState, type Seed } from './seeds'
import type { SchemaStates } from './apply-instructions'
import { childSchemaInfo } from '../describe/extend-schema'

/**
 * Warns (`FSTVRS003`) when `schema`, an object schema no instruction names, holds fields of an object seed that the
 * seed's instructions change in a version (`levels[n]`).
 * @example
 * ```ts
 * warnOfDerivedSchema(Type.Partial(User), walk, ['head', '2001-01-01', '2000-01-01']) // FSTVRS003 when User's name was fullName
 * ```
 */
export function warnOfDerivedSchema (schema: TSchema, walk: SchemaStates, levels: readonly string[]): void {
  const { properties, $defs, $id } = schema as SchemaObject
  const kind = kindOf(schema)
  if (walk.lookedAtAsCopies.has(schema)) return
  walk.lookedAtAsCopies.add(schema)
  if (kind === 'Import' && isSchemaObject($defs)) {
    for (const member of Object.values($defs)) if (walk.index.find(member as TSchema) === undefined) warnOfDerivedSchema(member as TSchema, walk, levels)
  }
  // Forms this package generates, and children of extendSchema, share their fields on purpose.
  if (kind !== 'Object' || !isSchemaObject(properties) || kGenerated in schema || kHeadSchema in schema || childSchemaInfo(schema) !== undefined) return
  const keys = Object.keys(properties)
  for (const seed of walk.index.seeds) {
    const source = (seed.head as SchemaObject).properties
    if (warnOfRecordByEnum(keys, seed, walk, levels)) return
    if (!isSchemaObject(source) || isAncestor(schema, seed.head)) continue
    const common = keys.filter((key) => Object.hasOwn(source, key))
    // Two `Type.String()` are alike: a field tells a copy when it is the very object (`Type.Pick`) or shares its keywords'
    // objects (`items`, `anyOf`…); two alike but for their optionality, and no other field, tell `Type.Partial` / `Required`.
    // A named schema (`$id`: `Address`, `Type.Array(Address)`) is shared on purpose: it tells a copy only of an object
    // with no field the other lacks, or with all of its fields (`Type.Composite`), as a hand-written
    // `{ title, address: Address }` is neither.
    const whole = common.length === keys.length || common.length === Object.keys(source).length
    const strong = (key: string): boolean => (source[key] === properties[key] || anchorOf(source[key] as TSchema) !== undefined) &&
      (whole || !sharesNamedSchema(source[key] as TSchema))
    // The cheap tests first: this runs for every (object schema, seed) pair, and most pairs share no field or part at one.
    const someStrong = common.some(strong)
    if (!someStrong && !(common.length === keys.length && common.length > 1)) continue
    if (!common.every((key) => sameButModifiers(source[key] as TSchema, properties[key] as TSchema))) continue
    if (!someStrong) {
      const [sourceFields, copyFields] = [propertiesOf(seed.head), propertiesOf(schema)]
      if (common.filter((key) => isOptional(sourceFields[key]) !== isOptional(copyFields[key])).length < 2) continue
    }
    const head = fieldsById(seed.head, (schema) => walk.stateAt(schema, 0))
    const ids = [...head.values()].filter((visible) => common.includes(visible.key)).map((visible) => visible.field.id)
    for (let level = 1; level < levels.length; level++) {
      const fields = fieldsById(seed.head, (schema) => walk.stateAt(schema, level))
      const changed = ids.filter((id) => fields.get(id)?.field !== head.get(id)?.field).map((id) => head.get(id)?.key as string)
      if (changed.length === 0) continue
      const named = typeof $id === 'string' ? `'${$id}' ` : ''
      // The child, or a copy sharing its properties (`Type.Optional(child)`).
      if (hasKeyOfAnotherCopy([...Object.getOwnPropertySymbols(schema), ...Object.getOwnPropertySymbols(properties)], kExtendedSchema)) {
        throw new VersionerStructureError(`Schema ${named}{ ${keys.join(', ')} } holds fields of '${seed.display}' that its instructions change ` +
          `in version '${levels[level]}' (${changed.join(', ')}), but they cannot reach it: it was built by extendSchema ${ANOTHER_COPY}.`)
      }
      processWarning.FSTVRS003(`${named}{ ${keys.join(', ')} }`, seed.display, `'${levels[level]}' (${changed.join(', ')})`)
      return
    }
  }
}

/** True when `field` is a named schema (`$id`), a copy of one (`Type.Optional`) or one's wrapper (`Type.Array(Address)`). */
function sharesNamedSchema (field: TSchema): boolean {
  const anchor = anchorOf(field)
  return typeof (field as SchemaObject).$id === 'string' || (isSchemaObject(anchor) && typeof anchor.$id === 'string')
}

/** True when `schema` is the parent (or an older ancestor) of the `extendSchema` child `child`: it shares its fields by design. */
function isAncestor (schema: TSchema, child: TSchema): boolean {
  for (let parent = childSchemaInfo(child)?.parent; parent !== undefined; parent = childSchemaInfo(parent)?.parent) if (parent === schema) return true
  return false
}

/** Warns (`FSTVRS004`) when `keys` are the members of the enum `seed` (`Type.Record(E, V)`) and a version changes them. */
function warnOfRecordByEnum (keys: readonly string[], seed: Seed, walk: SchemaStates, levels: readonly string[]): boolean {
  const head = walk.stateAt(seed.head, 0)
  if (head.kind !== 'enum' || keys.length < 2 || keys.length !== head.members.length || !head.members.every((member) => keys.includes(String(member.value)))) return false
  for (let level = 1; level < levels.length; level++) {
    const state = walk.stateAt(seed.head, level) as EnumState
    const values = state.members.map((member) => String(member.value))
    if (values.length === keys.length && values.every((value) => keys.includes(value))) continue
    processWarning.FSTVRS004(`{ ${keys.join(', ')} }`, seed.display, `'${levels[level]}' (${values.join(', ')})`)
    return true
  }
  return false
}
