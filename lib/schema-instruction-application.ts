/**
 * Applies schema and enum instructions to the states of seeds, version by version. Each instruction that
 * cannot apply to the schema as it stands in that version fails here, with an error naming the version
 * change, the schema and the field.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { InvalidGenerationInstructionError } from './errors'
import type { EnumInstruction, EnumValue, FieldDidntHaveInstruction, FieldExistedAsInstruction, FieldHadInstruction, SchemaInstruction } from './instructions'
import type { NamedValidator } from './named-validators'
import { initialState, isEnumSchema, isObjectSchema, withoutModifiers, type EnumState, type FieldState, type ObjectState, type Seed, type SeedIndex, type SeedState } from './schema-seeds'
import { deepEqual, describeValue, isOptional, type SchemaObject } from './schema-utils'

/** Keywords that describe a field rather than constrain it: kept when an instruction changes its type. */
const ANNOTATIONS = ['title', 'description', 'examples', 'example', '$comment', 'deprecated', 'readOnly', 'writeOnly']

/** Where an instruction comes from, for messages. */
export interface InstructionOrigin {
  readonly change: string
  readonly version: string
}

/** A field as visible in an object schema, with where it comes from. */
interface VisibleField {
  readonly field: FieldState
  readonly inherited: boolean
}

function keywordsOf (field: FieldState): SchemaObject {
  const result: SchemaObject = { ...(withoutModifiers(field.type) as SchemaObject) }
  for (const keyword of field.unset) delete result[keyword]
  return Object.assign(result, field.set)
}

function optionalOf (field: FieldState): boolean {
  return field.optional ?? isOptional(field.type)
}

function typeSignature (schema: SchemaObject): SchemaObject {
  const copy: SchemaObject = { ...(withoutModifiers(schema) as SchemaObject) }
  for (const keyword of ANNOTATIONS) delete copy[keyword]
  return copy
}

function memberName (value: EnumValue): string {
  return String(value)
}

/** The working states of all seeds while the versions are walked from HEAD to the oldest. */
export class SchemaStates {
  private readonly working = new Map<Seed, SeedState>()
  private readonly initial = new WeakMap<object, SeedState>()

  constructor (private readonly index: SeedIndex) {}

  /** The current states of all seeds that differ from their initial state. */
  snapshot (): Map<Seed, SeedState> {
    return new Map(this.working)
  }

  /** The initial state of a HEAD schema (cached). */
  initialOf (head: TSchema): SeedState {
    let state = this.initial.get(head)
    if (state === undefined) {
      state = initialState(head)
      this.initial.set(head, state)
    }
    return state
  }

  /** The current state of the schema `head` stands for (a seed's working state, or a schema's initial one). */
  stateOf (head: TSchema): SeedState {
    const seed = this.index.find(head)
    if (seed === undefined) return this.initialOf(head)
    return this.working.get(seed) ?? this.initialOf(seed.head)
  }

  /** Applies one schema or enum instruction. */
  apply (instruction: SchemaInstruction | EnumInstruction, origin: InstructionOrigin): void {
    const seed = this.index.find(instruction.schema)
    /* c8 ignore next */
    if (seed === undefined) throw new Error('fastify-versioner: instruction target was not seeded')
    const state = this.working.get(seed) ?? this.initialOf(seed.head)
    const fail = (message: string): never => {
      throw new InvalidGenerationInstructionError(`${instruction.display} in version change '${origin.change}' ` +
        `(version '${origin.version}'): ${message}`)
    }
    const schemaName = `'${state.name ?? seed.display}'`
    if (instruction.kind === 'schema.had') {
      if (state.name === undefined) {
        fail(`${schemaName} has no $id, so it has no name to change. Give it an $id: it is its OpenAPI component name.`)
      }
      if (state.name === instruction.name) fail(`${schemaName} already has the name '${instruction.name}'.`)
      this.working.set(seed, { ...state, name: instruction.name })
      return
    }
    if (instruction.kind === 'enum.had' || instruction.kind === 'enum.didntHave') {
      if (state.kind !== 'enum' || !isEnumSchema(seed.head)) {
        fail(`${schemaName} is not an enum (a union of literals, or a schema with an 'enum' keyword).`)
      }
      this.working.set(seed, this.applyEnum(state as EnumState, instruction, schemaName, fail))
      return
    }
    if (state.kind !== 'object' || !isObjectSchema(seed.head)) {
      fail(`${schemaName} is not an object schema, so it has no fields or validators.`)
    }
    this.working.set(seed, this.applyObject(state as ObjectState, instruction, schemaName, fail))
  }

  /** The fields visible in an object schema state (inherited ones included), by key, in order. */
  visibleFields (state: ObjectState): Map<string, VisibleField> {
    const result = new Map<string, VisibleField>()
    if (state.parent !== undefined) {
      const parent = this.stateOf(state.parent)
      if (parent.kind === 'object') {
        for (const [key, visible] of this.visibleFields(parent)) {
          if (!state.hidden.includes(key)) result.set(key, { field: visible.field, inherited: true })
        }
      }
    }
    for (const field of state.fields) result.set(field.key, { field, inherited: false })
    return result
  }

  private visibleValidators (state: ObjectState): NamedValidator[] {
    const parent = state.parent === undefined ? undefined : this.stateOf(state.parent)
    const inherited = parent?.kind === 'object' ? this.visibleValidators(parent) : []
    return [...inherited, ...state.validators]
  }

  private applyObject (state: ObjectState, instruction: Exclude<SchemaInstruction, { kind: 'schema.had' }>,
    schemaName: string, fail: (message: string) => never): ObjectState {
    const visible = this.visibleFields(state)
    const fieldList = (): string => visible.size === 0 ? 'it has no fields' : `its fields are ${[...visible.keys()].join(', ')}`
    switch (instruction.kind) {
      case 'validator.existed': {
        if (this.visibleValidators(state).some((validator) => validator.name === instruction.validator.name)) {
          fail(`${schemaName} already has a validator named '${instruction.validator.name}'.`)
        }
        return { ...state, validators: [...state.validators, instruction.validator] }
      }
      case 'validator.didntExist': {
        const own = state.validators.find((validator) => validator.name === instruction.validatorName)
        if (own === undefined) {
          const inherited = this.visibleValidators(state).some((validator) => validator.name === instruction.validatorName)
          fail(inherited
            ? `the validator '${instruction.validatorName}' is inherited; remove it from the parent schema instead.`
            : `${schemaName} has no validator named '${instruction.validatorName}'.`)
        }
        return { ...state, validators: state.validators.filter((validator) => validator !== own) }
      }
      case 'field.existedAs': {
        if (visible.has(instruction.field)) fail(`${schemaName} already has a field '${instruction.field}'.`)
        return { ...state, fields: [...state.fields, this.newField(instruction)], hidden: state.hidden.filter((key) => key !== instruction.field) }
      }
      case 'field.didntExist': {
        const found = visible.get(instruction.field)
        if (found === undefined) fail(`${schemaName} has no field '${instruction.field}' (${fieldList()}).`)
        if (found.inherited) {
          fail(`the field '${instruction.field}' is inherited from a parent schema (extendSchema); apply the instruction to the parent.`)
        }
        return {
          ...state,
          fields: state.fields.filter((field) => field.key !== instruction.field),
          // A validator about a field that does not exist would reject every request: it goes with the field.
          validators: state.validators.filter((validator) => !validator.fields.includes(instruction.field))
        }
      }
      case 'field.had':
      case 'field.didntHave': {
        const found = visible.get(instruction.field)
        if (found === undefined) fail(`${schemaName} has no field '${instruction.field}' (${fieldList()}).`)
        const edited = instruction.kind === 'field.had'
          ? this.editField(found.field, instruction, visible, schemaName, fail)
          : this.removeKeywords(found.field, instruction, fail)
        const fields = found.inherited
          ? [...state.fields, edited]
          : state.fields.map((field) => field.key === instruction.field ? edited : field)
        const renamedInherited = found.inherited && edited.key !== instruction.field
        return { ...state, fields, hidden: renamedInherited ? [...state.hidden, instruction.field] : state.hidden }
      }
    }
  }

  private newField (instruction: FieldExistedAsInstruction): FieldState {
    const optional = instruction.optional ?? ('default' in instruction.keywords ? true : undefined)
    return { key: instruction.field, type: instruction.type, optional, set: { ...instruction.keywords }, unset: [] }
  }

  private editField (field: FieldState, instruction: FieldHadInstruction, visible: Map<string, VisibleField>,
    schemaName: string, fail: (message: string) => never): FieldState {
    let next: FieldState = field
    if (instruction.type !== undefined) {
      const current = keywordsOf(field)
      if (deepEqual(typeSignature(instruction.type as SchemaObject), typeSignature(current))) {
        fail(`the field '${instruction.field}' of ${schemaName} already has type ${describeValue(instruction.type)}.`)
      }
      const carried: Record<string, unknown> = {}
      for (const keyword of ANNOTATIONS) {
        if (keyword in current && !(keyword in instruction.type) && !(keyword in instruction.keywords)) carried[keyword] = current[keyword]
      }
      next = { key: field.key, type: instruction.type, optional: optionalOf(field), set: carried, unset: [] }
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
      if (visible.has(instruction.name)) fail(`${schemaName} already has a field '${instruction.name}'; a field cannot be renamed onto it.`)
      next = { ...next, key: instruction.name }
    }
    return next
  }

  private removeKeywords (field: FieldState, instruction: FieldDidntHaveInstruction, fail: (message: string) => never): FieldState {
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

  private applyEnum (state: EnumState, instruction: EnumInstruction, schemaName: string, fail: (message: string) => never): EnumState {
    let members = [...state.members]
    if (instruction.kind === 'enum.had') {
      for (const [name, value] of Object.entries(instruction.members)) {
        if (members.some((member) => deepEqual(member.value, value))) {
          fail(`${schemaName} already has a member with the value ${describeValue(value)}.`)
        }
        const index = members.findIndex((member) => memberName(member.value) === name)
        if (index === -1) members.push({ value, schema: undefined })
        else members[index] = { value, schema: undefined }
      }
    } else {
      for (const name of instruction.members) {
        const index = members.findIndex((member) => memberName(member.value) === name)
        if (index === -1) {
          fail(`${schemaName} has no member '${name}' (its members are ${members.map((member) => memberName(member.value)).join(', ')}).`)
        }
        members = members.filter((_, position) => position !== index)
      }
    }
    return { ...state, members }
  }
}
