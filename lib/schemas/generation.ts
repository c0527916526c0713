/**
 * Stage `lib/schemas/`: the form of every HEAD schema in every version.
 *
 * `generateVersionedSchemas(bundle)`: the form of any HEAD schema in every version.
 *
 * The walk follows the spec: HEAD changes turn HEAD into the latest version, then each version's changes
 * give the version before it. Instructions edit immutable per-version states of the schemas they name
 * (seeds); all instruction errors surface during this walk. Versioned schemas are then built on demand:
 * a schema's form in a version is rebuilt only when something it depends on differs from the next newer
 * version, and otherwise is the very same object. A schema no instruction reaches, directly or through a
 * schema nested in it, is the HEAD object itself in every version.
 * @module
 */
import { Kind, type TSchema } from '@sinclair/typebox'
import { UnknownVersionError } from '../core/errors'
import { childSchemaInfo, objectSchema } from '../describe/extend-schema'
import { isSchemaLevelInstruction } from '../describe/instructions'
import { visibleFields, visibleValidators } from './object-fields'
import { SchemaStates } from './apply-instructions'
import { SeedIndex, type FieldState, type ObjectState, type Seed, type SeedState } from './seeds'
import { idSafe, isOptional, isReadonly, isSchemaObject, nameOf, refId, setModifiers, withRefId, type SchemaObject } from '../core/json-schema'
import { forEachSubschema, replaceSubschemas, subschemasOf, refersTo, rewriteSelfReferences } from '../core/subschemas'
import { kGenerated, kHeadSchema, kSchemaName } from '../core/symbols'
import { generationSteps, type VersionBundle } from '../describe/versions'

/** Options of {@link generateVersionedSchemas}. */
export interface GenerateVersionedSchemasOptions {
  /**
   * Shared schemas (with `$id`) that `$ref`s may point to, such as those given to `app.addSchema`: a `$ref`
   * to one that a version changes points to its versioned `$id` in that version.
   */
  sharedSchemas?: Iterable<TSchema>
}

type Plan =
  | { kind: 'identity' }
  | { kind: 'wrapper', base: TSchema }
  | { kind: 'state', head: TSchema }
  | { kind: 'ref', target: TSchema }
  | { kind: 'generic' }

interface FormRecord {
  readonly forms: TSchema[]
  inputs: readonly unknown[]
}

/** The engine behind {@link VersionedSchemas}: seeds, per-level states, and memoised per-level forms. */
export class SchemaGeneration {
  /** Level 0 is HEAD, level 1 the latest version, level n the n-th version from newest. */
  readonly levels: readonly string[]
  private readonly states: ReadonlyArray<ReadonlyMap<Seed, SeedState>>
  private readonly index = new SeedIndex()
  private readonly walker: SchemaStates
  private readonly shared = new Map<string, TSchema>()
  /** Every schema already given to {@link addSharedSchemas} (the plugin passes its application's schemas once per route). */
  private readonly sharedSeen = new WeakSet<object>()
  private readonly records = new WeakMap<object, FormRecord>()
  private readonly plans = new WeakMap<object, Plan>()
  private readonly inProgress = new Set<object>()
  private readonly builtById = new Map<string, TSchema>()

  constructor (bundle: VersionBundle, options: GenerateVersionedSchemasOptions = {}) {
    this.addSharedSchemas(options.sharedSchemas ?? [])
    const steps = generationSteps(bundle)
    // Schemas named by converters are recognised the same way (through wrappers and by $id), after those named
    // by instructions: the first schema seen with an $id is the seed's HEAD schema.
    const converterSchemas: TSchema[] = []
    for (const { changes } of steps) {
      for (const change of changes) {
        for (const instruction of change.instructions) {
          if (isSchemaLevelInstruction(instruction)) this.index.add(instruction.schema, describeSeed(instruction.schema))
        }
        for (const converter of change.converters) {
          if (converter.target.kind === 'schema') converterSchemas.push(...converter.target.schemas)
        }
      }
    }
    for (const schema of converterSchemas) this.index.add(schema, describeSeed(schema))
    this.walker = new SchemaStates(this.index)
    const states: Array<ReadonlyMap<Seed, SeedState>> = [new Map()]
    // HEAD changes give the latest version; each version's changes give the version before it.
    steps.forEach(({ changes, origin }, step) => {
      for (const change of changes) {
        for (const instruction of change.instructions) {
          if (isSchemaLevelInstruction(instruction)) this.walker.apply(instruction, { change: change.name, version: origin })
        }
      }
      if (step < steps.length - 1) states.push(this.walker.snapshot())
    })
    this.states = states
    this.levels = ['head', ...bundle.versionValues]
  }

  /** Adds shared schemas (with `$id`) that `$ref`s may point to. */
  addSharedSchemas (schemas: Iterable<TSchema>): void {
    for (const schema of schemas) {
      if (!isSchemaObject(schema) || this.sharedSeen.has(schema)) continue
      this.sharedSeen.add(schema)
      const id = nameOf(schema)
      if (id !== undefined && !this.shared.has(id)) this.shared.set(id, schema)
    }
  }

  /** The schema a `$ref` points to (`'Address'` or `'Address#'`): a named seed, or a shared schema. */
  resolveRef (ref: string): TSchema | undefined {
    const id = refId(ref)
    return this.index.findById(id)?.head ?? this.shared.get(id)
  }

  /** The schema a `$ref` names: a HEAD schema (seed or shared) or a generated one (`User__2000-01-01`). */
  resolveAnyId (ref: string): TSchema | undefined {
    return this.resolveRef(ref) ?? this.builtById.get(refId(ref))
  }

  /** Every generated schema with an `$id`, by `$id`. */
  generatedSchemas (): ReadonlyMap<string, TSchema> {
    return this.builtById
  }

  /** The canonical HEAD schema `schema` stands for (itself, or the seed it wraps or shares an `$id` with). */
  canonical (schema: TSchema): TSchema {
    return this.index.find(schema)?.head ?? schema
  }

  /** The level of a version value (1 for the latest); throws for a value the bundle does not hold. */
  levelOf (version: string): number {
    const level = this.levels.indexOf(version, 1)
    if (level === -1) {
      throw new UnknownVersionError(`Version '${version}' is not in the version bundle; its versions are ${this.levels.slice(1).join(', ')}.`)
    }
    return level
  }

  /** The form of `schema` at `level`. */
  formAt (schema: TSchema, level: number): TSchema {
    if (level === 0 || !isSchemaObject(schema)) return schema
    let record = this.records.get(schema)
    if (record === undefined) {
      if (this.inProgress.has(schema)) return schema
      this.inProgress.add(schema)
      try {
        record = { forms: [schema], inputs: this.inputsAt(schema, 0) }
      } finally {
        this.inProgress.delete(schema)
      }
      this.records.set(schema, record)
    }
    if (record.forms.length > level) return record.forms[level]
    // A schema met again while its own form is being built refers to itself ($ref): keep the reference.
    if (this.inProgress.has(schema)) return schema
    this.inProgress.add(schema)
    try {
      for (let current = record.forms.length; current <= level; current++) {
        const inputs = this.inputsAt(schema, current)
        const same = inputs.length === record.inputs.length && inputs.every((input, position) => input === record!.inputs[position])
        record.forms.push(same ? record.forms[current - 1] : this.build(schema, current, inputs))
        record.inputs = inputs
      }
    } finally {
      this.inProgress.delete(schema)
    }
    return record.forms[level]
  }

  private planOf (schema: TSchema): Plan {
    let plan = this.plans.get(schema)
    if (plan !== undefined) return plan
    const source = schema as SchemaObject
    const seed = this.index.find(schema)
    if (seed !== undefined) {
      plan = seed.head === schema ? { kind: 'state', head: schema } : { kind: 'wrapper', base: seed.head }
    } else if (childSchemaInfo(schema) !== undefined) {
      plan = { kind: 'state', head: schema }
    } else if (typeof source.$ref === 'string') {
      const target = this.resolveRef(source.$ref)
      if (target === undefined) return { kind: 'identity' }
      plan = { kind: 'ref', target }
    } else {
      let hasSubschemas = false
      forEachSubschema(schema, () => { hasSubschemas = true })
      plan = hasSubschemas ? { kind: 'generic' } : { kind: 'identity' }
    }
    this.plans.set(schema, plan)
    return plan
  }

  private stateAt (head: TSchema, level: number): SeedState {
    const seed = this.index.find(head)
    if (seed === undefined) return this.walker.initialOf(head)
    return this.states[level].get(seed) ?? this.walker.initialOf(seed.head)
  }

  /** Everything the form of `schema` at `level` depends on; equal inputs at two levels mean equal forms. */
  private inputsAt (schema: TSchema, level: number): readonly unknown[] {
    const plan = this.planOf(schema)
    switch (plan.kind) {
      case 'identity': return []
      case 'wrapper': return [this.formAt(plan.base, level)]
      case 'ref': return [this.formAt(plan.target, level)]
      case 'generic': return subschemasOf(schema).map((sub) => this.formAt(sub, level))
      case 'state': {
        const state = this.stateAt(plan.head, level)
        if (state.kind === 'enum') return [state]
        if (state.kind === 'plain') return [state, ...subschemasOf(state.body).map((sub) => this.formAt(sub, level))]
        return [
          state,
          state.parent === undefined ? undefined : this.formAt(state.parent, level),
          ...state.fields.map((field) => this.formAt(field.type, level)),
          ...subschemasOf(state.options).map((sub) => this.formAt(sub, level))
        ]
      }
    }
  }

  private build (schema: TSchema, level: number, inputs: readonly unknown[]): TSchema {
    const plan = this.planOf(schema)
    switch (plan.kind) {
      case 'identity': return schema
      case 'wrapper': {
        const base = inputs[0] as TSchema
        return base === plan.base ? schema : setModifiers(base, isOptional(schema), isReadonly(schema))
      }
      case 'ref': {
        const id = nameOf(inputs[0] as TSchema)
        const ref = (schema as SchemaObject).$ref as string
        if (id === undefined || id === refId(ref)) return schema
        return { ...(schema as SchemaObject), $ref: withRefId(ref, id) } as TSchema
      }
      case 'generic': {
        const rebuilt = replaceSubschemas(schema, inputs as TSchema[])
        const name = nameOf(schema)
        return rebuilt === schema || name === undefined ? rebuilt : this.named(rebuilt, schema, name, level)
      }
      case 'state': {
        const state = inputs[0] as SeedState
        const built = state.kind === 'object'
          ? this.buildObject(state, level)
          : state.kind === 'enum'
            ? (state.form === 'union'
                ? { ...state.template, anyOf: state.members.map((member) => member.schema ?? literalSchema(member.value)) }
                : { ...state.template, enum: state.members.map((member) => member.value) }) as TSchema
            : replaceSubschemas(state.body, subschemasOf(state.body).map((sub) => this.formAt(sub, level)))
        return state.name === undefined ? built : this.named(built, schema, state.name, level)
      }
    }
  }

  private buildObject (state: ObjectState, level: number): TSchema {
    const stateOf = (head: TSchema): SeedState => this.stateAt(head, level)
    const properties: Record<string, TSchema> = {}
    for (const { key, field } of visibleFields(state, stateOf)) properties[key] = this.fieldForm(field, level)
    const options = replaceSubschemas(state.options, subschemasOf(state.options).map((sub) => this.formAt(sub, level))) as SchemaObject
    // A validator about a field this version lacks would reject every request: it is not part of that version.
    const validators = visibleValidators(state, stateOf).filter((validator) => validator.fields.every((field) => Object.hasOwn(properties, field)))
    const allOf = [...(Array.isArray(options.allOf) ? options.allOf : []), ...validators.map((validator) => validator.fragment)]
    const { allOf: _allOf, ...rest } = options
    return objectSchema(properties, { ...(allOf.length > 0 ? { ...rest, allOf } : rest), [kGenerated]: true })
  }

  private fieldForm (field: FieldState, level: number): TSchema {
    const base = this.formAt(field.type, level)
    if (field.optional === undefined && field.unset.length === 0 && Object.keys(field.set).length === 0) return base
    const copy: SchemaObject = { ...(base as SchemaObject) }
    for (const keyword of field.unset) delete copy[keyword]
    Object.assign(copy, field.set)
    const id = nameOf(base)
    // Edited, a named schema is another schema: under the same $id as the schema itself (used elsewhere in the
    // version), one $id would name two schemas. A recursive one keeps it: its references to itself need it.
    if (id !== undefined && (field.unset.length > 0 || Object.keys(field.set).length > 0) && !refersTo(copy, id)) {
      delete copy.$id
      delete copy[kSchemaName]
      delete copy[kHeadSchema]
    }
    return setModifiers(copy as TSchema, field.optional ?? isOptional(base), isReadonly(base))
  }

  /** Gives a rebuilt schema its versioned `$id`, its names, and points its references to itself at the new id. */
  private named (built: TSchema, head: TSchema, name: string, level: number): TSchema {
    const headId = nameOf(head)
    const base = `${idSafe(name)}__${idSafe(this.levels[level])}`
    // Two schemas may reach the same name (one renamed onto another's): each generated schema keeps its own $id.
    let id = base
    for (let suffix = 2; this.builtById.has(id) && (this.builtById.get(id) as SchemaObject)[kHeadSchema] !== head; suffix++) id = `${base}_${suffix}`
    const named = { ...(built as SchemaObject), $id: id, [kSchemaName]: name, [kHeadSchema]: head } as TSchema
    const result = headId === undefined ? named : rewriteSelfReferences(named, headId, id)
    this.builtById.set(id, result)
    return result
  }
}

function literalSchema (value: unknown): TSchema {
  const type = value === null ? 'null' : typeof value
  return { [Kind]: 'Literal', const: value, type } as unknown as TSchema
}

function describeSeed (schema: TSchema): string {
  return nameOf(schema) ?? (schema as SchemaObject).title as string | undefined ?? 'schema'
}
