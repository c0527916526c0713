/**
 * The walk of instructions from HEAD to the oldest version, applied to the seeds' states level by level; an
 * instruction that cannot apply fails here, naming the version change, schema and field.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { InvalidGenerationInstructionError } from '../core/errors'
import {
  isEndpointInstruction, type EnumInstruction, type FieldDidntExistInstruction, type FieldExistedAsInstruction,
  type SchemaHadInstruction, type SchemaInstruction
} from '../describe/instructions'
import type { SchemaAnnotations } from '../describe/instruction-attributes'
import type { GenerationStep } from '../describe/versions'
import { editField, removeKeywords, visibleFields, visibleValidators } from './object-fields'
import { annotationOf, initialState, newFieldId, SeedIndex, type EnumState, type FieldState, type ObjectState, type Seed, type SeedState } from './seeds'
import { deepEqual, describeSchema, describeValue, isSchemaObject, kindOf, refId, type SchemaObject } from '../core/json-schema'

/** Keywords holding values, not schemas: a walk for the schemas a schema holds skips them. */
const VALUE_KEYWORDS = new Set(['const', 'default', 'enum', 'examples'])

/** The seeds, and their states at every level (index = level; level 0 is HEAD). */
export class SchemaStates {
  readonly index = new SeedIndex()
  /** The states of the seeds that differ from their initial state, by level. */
  readonly states: Array<ReadonlyMap<Seed, SeedState>> = [new Map()]
  /** The seeds each level's instructions changed (index = level). */
  readonly changedAt: Array<ReadonlySet<Seed>> = [new Set()]
  /**
   * The HEAD fields declared `derivedFrom`, with the fields they are set from (by identity), each with the field of its
   * schema the derived one must be reached through (`through`, decision 0263; else the only one holding it), if known.
   */
  readonly derivedFrom = new Map<number, ReadonlyMap<number, number | undefined>>()
  /** The `derivedFrom` fields the change being applied removed, with their identities. */
  private readonly derivedInChange: Array<[FieldDidntExistInstruction, number]> = []
  /** The states while the walk goes on. */
  private readonly working = new Map<Seed, SeedState>()
  private readonly initial = new WeakMap<object, SeedState>()
  /** The schemas looked at as copies of a seed's fields (./derived-schemas.ts), each warned of once. */
  readonly lookedAtAsCopies = new WeakSet<object>()

  /** Seeds the schemas the steps name and applies their instructions: HEAD changes give level 1, each version's the next. */
  constructor (steps: readonly GenerationStep[]) {
    const changes = steps.flatMap((step) => step.changes)
    for (const change of changes) {
      for (const instruction of change.instructions) {
        if (isEndpointInstruction(instruction)) continue
        this.index.add(instruction.schema)
        // A `derivedFrom` source of a schema holding this one (decision 0259).
        if (instruction.kind === 'field.didntExist') for (const source of instruction.derivedFrom ?? []) if (typeof source !== 'string') this.index.add(source.schema as TSchema)
      }
    }
    // Schemas named by converters are recognised the same way (through wrappers and by $id), after those named
    // by instructions: the first schema seen with an $id is the seed's HEAD schema.
    for (const { target } of changes.flatMap((change) => change.converters)) {
      if (target.kind === 'schema') for (const schema of target.schemas) this.index.add(schema)
    }
    steps.forEach(({ changes, origin }, step) => {
      const changed = new Set<Seed>()
      for (const change of changes) {
        for (const instruction of change.instructions) {
          if (isEndpointInstruction(instruction)) continue
          this.apply(instruction, change.name, origin)
          changed.add(this.index.find(instruction.schema) as Seed)
        }
        // Checked once the change's every instruction applied (a rename giving a source its old name may come later).
        for (const [instruction, id] of this.derivedInChange.splice(0)) this.addDerivation(instruction, id, change.name, origin)
      }
      if (step < steps.length - 1) {
        this.states.push(new Map(this.working))
        this.changedAt.push(changed)
      }
    })
  }

  /** The state at `level` of the seed `schema` stands for (its initial state for a schema that is no seed). */
  stateAt (schema: TSchema, level: number): SeedState {
    const seed = this.index.find(schema)
    return seed === undefined ? this.initialOf(schema) : this.states[level].get(seed) ?? this.initialOf(seed.head)
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

  /** Applies one schema or enum instruction (its schema is seeded) of the version change `change`, in `version`. */
  private apply (instruction: SchemaInstruction | EnumInstruction, change: string, version: string): void {
    const seed = this.index.find(instruction.schema) as Seed
    const state = this.stateOf(seed.head)
    const fail = (message: string): never => {
      throw new InvalidGenerationInstructionError(`${instruction.display} in version change '${change}' ` +
        `(version '${version}'): ${message}`)
    }
    const schemaName = `'${state.name ?? seed.display}'`
    // Enum instructions need an enum, field and validator ones an object schema; schema(S).had(...) any schema.
    const isEnum = instruction.kind === 'enum.had' || instruction.kind === 'enum.didntHave'
    if (instruction.kind !== 'schema.had' && state.kind !== (isEnum ? 'enum' : 'object')) {
      const { $ref: imported } = seed.head as SchemaObject
      if (kindOf(seed.head) === 'Import') {
        fail(`'${String(imported)}' is a Type.Module import (a $ref to '${String(imported)}' in its module's $defs), which instructions cannot ` +
          `edit: declare it outside Type.Module (Type.Object or Type.Union, with an $id; share it with Type.Ref('${String(imported)}') and app.addSchema).`)
      }
      fail(isEnum
        ? `${schemaName} is not an enum (a union of literals, or a schema with an 'enum' keyword).`
        : `${schemaName} is not an object schema, so it has no fields or validators.`)
    }
    this.working.set(seed, instruction.kind === 'schema.had'
      ? this.applySchemaHad(seed, state, instruction, schemaName, fail)
      : isEnum ? this.applyEnum(state as EnumState, instruction, schemaName, fail) : this.applyObject(state as ObjectState, instruction, schemaName, fail))
  }

  /** `schema(S).had({ name, examples, description, title })`: each attribute must differ from what the schema has. */
  private applySchemaHad (seed: Seed, state: SeedState, instruction: SchemaHadInstruction, schemaName: string, fail: (message: string) => never): SeedState {
    const { name } = instruction
    if (name !== undefined) {
      if (state.name === undefined) {
        fail(`${schemaName} has no $id, so it has no name to change. Give it an $id: it is its OpenAPI component name.`)
      }
      if (state.name === name) fail(`${schemaName} already has the name '${name}'.`)
      const holder = this.index.seeds.find((other) => other !== seed && this.stateOf(other.head).name === name)
      if (holder !== undefined) {
        fail(`another schema is already named '${name}' in this version (${holder.display}); two schemas cannot share a name.`)
      }
    }
    for (const [key, value] of Object.entries(instruction.annotations)) {
      if (deepEqual(annotationOf(state, key as keyof SchemaAnnotations), value)) fail(`${schemaName} already has the ${key} ${describeValue(value)}.`)
    }
    return { ...state, name: name ?? state.name, annotations: { ...state.annotations, ...instruction.annotations } }
  }

  private applyObject (state: ObjectState, instruction: Exclude<SchemaInstruction, { kind: 'schema.had' }>,
    schemaName: string, fail: (message: string) => never): ObjectState {
    // The fields visible in the state (inherited ones included), by key, in order.
    const visible = new Map(visibleFields(state, (head) => this.stateOf(head)).map((field) => [field.key, field]))
    const fieldList = (): string => visible.size === 0 ? 'it has no fields' : `its fields are ${[...visible.keys()].join(', ')}`
    switch (instruction.kind) {
      case 'validator.existed':
      case 'validator.didntExist': {
        const name = instruction.kind === 'validator.existed' ? instruction.validator.name : instruction.validatorName
        const visibleHas = visibleValidators(state, (head) => this.stateOf(head)).some((validator) => validator.name === name)
        if (instruction.kind === 'validator.existed') {
          if (visibleHas) fail(`${schemaName} already has a validator named '${name}'.`)
          return { ...state, validators: [...state.validators, instruction.validator] }
        }
        const own = state.validators.find((validator) => validator.name === name)
        if (own === undefined) {
          fail(visibleHas ? `the validator '${name}' is inherited; remove it from the parent schema instead.` : `${schemaName} has no validator named '${name}'.`)
        }
        return { ...state, validators: state.validators.filter((validator) => validator !== own) }
      }
      case 'field.existedAs': {
        if (visible.has(instruction.field)) fail(`${schemaName} already has a field '${instruction.field}'.`)
        return { ...state, fields: [...state.fields, this.newField(instruction)] }
      }
      case 'field.didntExist': {
        const found = visible.get(instruction.field)
        if (found === undefined) fail(`${schemaName} has no field '${instruction.field}' (${fieldList()}).`)
        const owner = found.owner
        if (owner !== undefined) {
          fail(owner === state.parent
            ? `the field '${instruction.field}' is inherited from the parent schema '${describeSchema(owner)}' (extendSchema); apply the instruction to the parent.`
            : `the field '${instruction.field}' is inherited from '${describeSchema(owner)}', an ancestor of the parent schema ` +
              `'${describeSchema(state.parent as TSchema)}' (extendSchema); apply the instruction to '${describeSchema(owner)}'.`)
        }
        if (instruction.derivedFrom !== undefined) this.derivedInChange.push([instruction, found.field.id])
        // Validators about the field stay: each version's form leaves out those about fields it lacks (buildObject).
        return { ...state, fields: state.fields.filter((field) => field.id !== found.field.id) }
      }
      case 'field.had':
      case 'field.didntHave': {
        const found = visible.get(instruction.field)
        if (found === undefined) fail(`${schemaName} has no field '${instruction.field}' (${fieldList()}).`)
        const keys = new Set(visible.keys())
        const edited = instruction.kind === 'field.had'
          ? editField(found.field, instruction, keys, schemaName, fail)
          : removeKeywords(found.field, instruction, fail)
        if (found.owner !== undefined) {
          // Kept as an override of the parent's field, replayed over it in every older version.
          const overrides = new Map(state.overrides)
          overrides.set(found.field.id, [...(state.overrides.get(found.field.id) ?? []), instruction])
          return { ...state, overrides }
        }
        // An own field overriding a parent's shows under the parent field's name, which it keeps unless renamed here.
        return { ...state, fields: state.fields.map((field) => field.id !== found.field.id ? field : edited.key === found.key ? { ...edited, key: field.key } : edited) }
      }
    }
  }

  /**
   * Records a `derivedFrom` field: each source must be a field of the schema in the previous version, or of the schema
   * a `{ schema, field }` source names (one holding it: decision 0259).
   */
  private addDerivation (instruction: FieldDidntExistInstruction, id: number, change: string, version: string): void {
    const sources = new Map<number, number | undefined>()
    for (const named of instruction.derivedFrom ?? []) {
      const [schema, name] = typeof named === 'string' ? [instruction.schema, named] : [named.schema as TSchema, named.field]
      const seed = this.index.find(schema) as Seed
      const state = this.stateOf(seed.head)
      const visible = new Map(state.kind === 'object' ? visibleFields(state, (head) => this.stateOf(head)).map(({ key, field }) => [key, field.id]) : [])
      const source = visible.get(name)
      if (source === undefined) {
        throw new InvalidGenerationInstructionError(`${instruction.display} in version change '${change}' (version '${version}'): ` +
          `'${name}' is not a field of '${state.name ?? seed.display}' in the previous version ` +
          `(${visible.size === 0 ? 'it has no fields' : `its fields are ${[...visible.keys()].join(', ')}`}); name the fields its request converter reads.`)
      }
      const target = this.index.find(instruction.schema) as Seed
      if (seed !== target && !this.holds(seed, target)) {
        const held = this.fieldsHolding(target, seed)
        const targetName = `'${this.stateOf(target.head).name ?? target.display}'`
        throw new InvalidGenerationInstructionError(`${instruction.display} in version change '${change}' (version '${version}'): ` +
          `'${state.name ?? seed.display}' does not hold ${targetName} in the previous version; a source is a field of ${targetName} or of a schema ` +
          `holding it. A field moved out of a nested object names the field of ${targetName} that held it` +
          `${held.length === 0 ? '' : ` (derivedFrom(${held.map(describeValue).join(', ')}))`}; one moved between two objects, the field of the schema holding both.`)
      }
      const through = typeof named === 'string' || named.through === undefined ? undefined : visibleFields(state as ObjectState, (head) => this.stateOf(head)).find(({ key }) => key === named.through)
      if (typeof named !== 'string' && named.through !== undefined && (through === undefined || !this.reaches(through.field.type, target, new Set()))) {
        const held = this.fieldsHolding(seed, target)
        throw new InvalidGenerationInstructionError(`${instruction.display} in version change '${change}' (version '${version}'): ` +
          `through '${named.through}' is not a field of '${state.name ?? seed.display}' holding '${this.stateOf(target.head).name ?? target.display}' ` +
          `in the previous version (those holding it are ${held.join(', ')}).`)
      }
      // Without `through`, the one field of the source's schema holding the target, if only one does (a move, followed by verify).
      const holding = through !== undefined || seed === target ? [] : visibleFields(state as ObjectState, (head) => this.stateOf(head)).filter(({ field }) => this.reaches(field.type, target, new Set()))
      sources.set(source, through?.field.id ?? (holding.length === 1 ? holding[0].field.id : undefined))
    }
    this.derivedFrom.set(id, sources)
  }

  /** The fields of `holder` in the previous version whose values hold `target` at any depth (decision 0260). */
  private fieldsHolding (holder: Seed, target: Seed): string[] {
    const state = this.stateOf(holder.head)
    if (state.kind !== 'object') return []
    return visibleFields(state, (head) => this.stateOf(head)).filter(({ field }) => this.reaches(field.type, target, new Set())).map(({ key }) => key)
  }

  /** True when `holder`'s fields in the previous version hold `target` at any depth: through items, maps, unions, `$ref`. */
  private holds (holder: Seed, target: Seed): boolean {
    return this.fieldsHolding(holder, target).length > 0
  }

  /**
   * True when `node` is `target`, or holds it (seeds by their current fields), or may: a `$ref` to a schema no
   * instruction or converter names (the application's, not known yet) is taken to hold it.
   */
  private reaches (node: unknown, target: Seed, seen: Set<unknown>): boolean {
    if (!isSchemaObject(node) || seen.has(node) || seen.size > 10_000) return false
    seen.add(node)
    const seed = typeof node.$ref === 'string' ? this.index.findById(refId(node.$ref)) : this.index.find(node as TSchema)
    if (seed === target || (seed === undefined && typeof node.$ref === 'string' && !node.$ref.startsWith('#'))) return true
    const state = seed === undefined ? undefined : this.stateOf(seed.head)
    if (state?.kind === 'object') return visibleFields(state, (head) => this.stateOf(head)).some(({ field }) => this.reaches(field.type, target, seen))
    if (seed !== undefined && seed.head !== node) return this.reaches(seed.head, target, seen)
    return Object.entries(node).some(([key, value]) => !VALUE_KEYWORDS.has(key) && (Array.isArray(value) ? value.some((item) => this.reaches(item, target, seen)) : this.reaches(value, target, seen)))
  }

  private newField (instruction: FieldExistedAsInstruction): FieldState {
    const optional = instruction.optional ?? ('default' in instruction.keywords ? true : undefined)
    return { id: newFieldId(), key: instruction.field, type: instruction.type, optional, set: { ...instruction.keywords }, unset: [] }
  }

  private applyEnum (state: EnumState, instruction: EnumInstruction, schemaName: string, fail: (message: string) => never): EnumState {
    let members = [...state.members]
    if (instruction.kind === 'enum.had') {
      for (const [name, value] of Object.entries(instruction.members)) {
        if (members.some((member) => deepEqual(member.value, value))) {
          fail(`${schemaName} already has a member with the value ${describeValue(value)}.`)
        }
        const index = members.findIndex((member) => String(member.value) === name)
        if (index === -1) members.push({ value, schema: undefined })
        else members[index] = { value, schema: undefined, head: members[index].head }
      }
    } else {
      for (const name of instruction.members) {
        const index = members.findIndex((member) => String(member.value) === name)
        if (index === -1) {
          fail(`${schemaName} has no member '${name}' (${members.length === 0 ? 'it has none left' : `its members are ${members.map((member) => String(member.value)).join(', ')}`}).`)
        }
        members = members.filter((_, position) => position !== index)
      }
    }
    return { ...state, members }
  }
}
