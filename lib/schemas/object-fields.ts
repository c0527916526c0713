/**
 * The fields of an object schema in a version, and how field instructions edit them; an instruction on an
 * inherited field (`extendSchema`) is an override by field identity, so older changes to the parent still reach it.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { FieldDidntHaveInstruction, FieldHadInstruction } from '../describe/instructions'
import type { NamedValidator } from '../describe/named-validators'
import { sameButModifiers, type FieldEdit, type FieldState, type ObjectState, type SeedState } from './seeds'
import { ANNOTATIONS, deepEqual, describeValue, isOptional, setModifiers, withoutAnnotations, type SchemaObject } from '../core/json-schema'

/** A field as visible in an object schema. */
interface VisibleField {
  readonly key: string
  readonly field: FieldState
  /** The ancestor (through `extendSchema`) that declares an inherited field; `undefined` for an own field. */
  readonly owner: TSchema | undefined
}

/** Reports why an edit cannot apply; a lenient replay passes a function that ignores it. */
export type Fail = (message: string) => void

/** The field's keywords as they stand: a copy of `schema` (by default its type, without modifiers) with the instructions' edits. */
export function keywordsOf (field: FieldState, schema: TSchema = setModifiers(field.type, false, false)): SchemaObject {
  const result: SchemaObject = { ...(schema as SchemaObject) }
  for (const keyword of field.unset) delete result[keyword]
  return Object.assign(result, field.set)
}

/** Whether the field is optional as it stands. */
function optionalOf (field: FieldState): boolean {
  return field.optional ?? isOptional(field.type)
}

/** `had({...})` applied to a field; `visibleKeys` are the other fields' names (for renames). */
export function editField (field: FieldState, instruction: FieldHadInstruction, visibleKeys: ReadonlySet<string>, schemaName: string, fail: Fail): FieldState {
  let next: FieldState = field
  if (instruction.type !== undefined) {
    const current = keywordsOf(field)
    // What it validates, whichever TypeBox (or none) wrote either: a spread copy holds no TypeBox 1.x kind. The same
    // type marked `Type.Optional` makes a required field optional: a change.
    if (deepEqual(withoutAnnotations(instruction.type), withoutAnnotations(current as TSchema), false) && !(isOptional(instruction.type) && !optionalOf(field))) {
      fail(`the field '${instruction.field}' of ${schemaName} already has type ${describeValue(instruction.type)}.`)
    }
    const carried: Record<string, unknown> = {}
    // Annotations describe the field rather than constrain it: kept when an instruction changes its type.
    for (const keyword of ANNOTATIONS) {
      if (keyword in current && !(keyword in instruction.type) && !(keyword in instruction.keywords)) carried[keyword] = current[keyword]
    }
    // Another type, the same field: its identity and HEAD name stay (a child's override of it finds it by that name). A
    // type marked `Type.Optional` says the field was optional, as it does in `existedAs`; otherwise it keeps its optionality.
    next = { ...field, type: instruction.type, optional: isOptional(instruction.type) || optionalOf(field), set: carried, unset: [] }
  }
  const keywords = Object.entries(instruction.keywords)
  if (keywords.length > 0) {
    const current = keywordsOf(next)
    const set = { ...next.set }
    for (const [keyword, value] of keywords) {
      if (keyword in current && deepEqual(current[keyword], value)) {
        fail(`the keyword '${keyword}' of field '${instruction.field}' of ${schemaName} already is ${describeValue(value)}.`)
      }
      set[keyword] = value
    }
    next = { ...next, set, unset: next.unset.filter((keyword) => !(keyword in instruction.keywords)) }
    // A field with a default can be omitted by clients: it was optional.
    if ('default' in instruction.keywords && instruction.optional === undefined && !optionalOf(next)) next = { ...next, optional: true }
  }
  if (instruction.optional !== undefined) {
    if (optionalOf(next) === instruction.optional && instruction.type === undefined && keywords.length === 0) {
      fail(`the field '${instruction.field}' of ${schemaName} already is ${instruction.optional ? 'optional' : 'required'}.`)
    }
    next = { ...next, optional: instruction.optional }
  }
  if (instruction.name !== undefined) {
    if (instruction.name === field.key) fail(`the field '${instruction.field}' of ${schemaName} already has the name '${instruction.name}'.`)
    else if (visibleKeys.has(instruction.name)) fail(`${schemaName} already has a field '${instruction.name}'; a field cannot be renamed onto it.`)
    next = { ...next, key: instruction.name }
  }
  return next
}

/** `didntHave(...keywords)` applied to a field. */
export function removeKeywords (field: FieldState, instruction: FieldDidntHaveInstruction, fail: Fail): FieldState {
  const current = keywordsOf(field)
  const set = { ...field.set }
  for (const keyword of instruction.keywords) {
    if (!(keyword in current)) fail(`the field '${instruction.field}' already lacks the keyword '${keyword}'.`)
    delete set[keyword]
  }
  const unset = [...new Set([...field.unset, ...instruction.keywords])]
  // Without a default, a client must send the field: it was required.
  const optional = instruction.keywords.includes('default') && optionalOf(field) ? false : field.optional
  return { ...field, set, unset, optional }
}

/** An edit applied without checks (replaying a child's override over its parent's field in another version). */
function replayEdit (field: FieldState, edit: FieldEdit, visibleKeys: ReadonlySet<string>): FieldState {
  const ignore: Fail = () => {}
  return edit.kind === 'field.had' ? editField(field, edit, visibleKeys, '', ignore) : removeKeywords(field, edit, ignore)
}

/** True when `shadow` only changes the optionality of the parent's `field`, which this version changed: it follows it. */
function followsParent (shadow: FieldState, field: FieldState, headType: TSchema | undefined): boolean {
  const edited = field.type !== headType || Object.keys(field.set).length > 0 || field.unset.length > 0
  const unchanged = Object.keys(shadow.set).length === 0 && shadow.unset.length === 0 && shadow.optional === undefined
  return edited && unchanged && headType !== undefined && sameButModifiers(shadow.type, headType)
}

/**
 * The fields of an object schema state, in order: the parent's (`stateOf` gives its state), with this schema's
 * overrides replayed in their place, then its own.
 */
export function visibleFields (state: ObjectState, stateOf: (head: TSchema) => SeedState): VisibleField[] {
  const result: VisibleField[] = []
  // An own field declared in HEAD overrides the parent's field of its HEAD name; else an own field hides the parent's of its name.
  const overriding = new Map(state.fields.flatMap((field) => field.headKey === undefined ? [] : [[field.headKey, field] as const]))
  const own = new Map(state.fields.map((field) => [field.key, field]))
  const placed = new Set<FieldState>()
  if (state.parent !== undefined) {
    const parent = stateOf(state.parent)
    if (parent.kind === 'object') {
      const inherited = visibleFields(parent, stateOf)
      // The parent's fields in HEAD.
      const headProperties = (state.parent as SchemaObject).properties as Record<string, TSchema>
      const keys = new Set(inherited.map((visible) => visible.key))
      for (const visible of inherited) {
        // The overrides first: an own field shadows the parent's field, and follows its renames.
        let field = visible.field
        for (const edit of state.overrides.get(field.id) ?? []) field = replayEdit(field, edit, keys)
        const shadow = (field.headKey === undefined ? undefined : overriding.get(field.headKey)) ?? own.get(field.key)
        if (shadow !== undefined) {
          const key = shadow.key === shadow.headKey ? field.key : shadow.key
          const headType = shadow.headKey !== undefined && Object.hasOwn(headProperties, shadow.headKey) ? headProperties[shadow.headKey] : undefined
          const shown = followsParent(shadow, field, headType) ? { ...field, id: shadow.id, optional: isOptional(shadow.type) } : shadow
          result.push({ key, field: shown.key === key ? shown : { ...shown, key }, owner: undefined })
          placed.add(shadow)
          continue
        }
        result.push({ key: field.key, field, owner: visible.owner ?? state.parent })
      }
      // An own field overriding one the parent lacks in this version is lacked too.
      for (const field of state.fields) if (field.headKey !== undefined && Object.hasOwn(headProperties, field.headKey)) placed.add(field)
    }
  }
  for (const field of state.fields) if (!placed.has(field)) result.push({ key: field.key, field, owner: undefined })
  return result
}

/**
 * The fields of the object schema `head` in a version, by field identity (kept through renames); none for another
 * schema. `stateOf` gives a schema's state in that version.
 * @example
 * ```ts
 * fieldsById(User, (schema) => generation.stateAt(schema, 1)).get(id)?.key // the name the field has in the latest version
 * ```
 */
export function fieldsById (head: TSchema, stateOf: (head: TSchema) => SeedState): Map<number, VisibleField> {
  const state = stateOf(head)
  return new Map(state.kind === 'object' ? visibleFields(state, stateOf).map((visible) => [visible.field.id, visible]) : [])
}

/** The named validators of an object schema state: its parent's, then its own. */
export function visibleValidators (state: ObjectState, stateOf: (head: TSchema) => SeedState): NamedValidator[] {
  const parent = state.parent === undefined ? undefined : stateOf(state.parent)
  return [...(parent?.kind === 'object' ? visibleValidators(parent, stateOf) : []), ...state.validators]
}
