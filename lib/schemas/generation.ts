/**
 * Stage `lib/schemas/`: the form of every HEAD schema in every version, built on demand; a form is rebuilt only
 * where something it depends on changed, otherwise it is the very same object (HEAD's, where nothing reaches it).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { UnknownVersionError } from '../core/errors'
import { childSchemaInfo } from '../describe/extend-schema'
import { SchemaStates } from './apply-instructions'
import { warnOfDerivedSchema } from './derived-schemas'
import { checkOneSchemaPerId, sameButModifiers, type Seed, type SeedState } from './seeds'
import { FormBuilder, pointedAt, type Plan } from './form-builder'
import { FormCycles } from './form-cycles'
import { isSchemaObject, nameOf, refId, type SchemaLike, type SchemaObject } from '../core/json-schema'
import { subschemasOf } from '../core/subschemas'
import { generationSteps, type GenerationStep, type VersionBundle } from '../describe/versions'

interface FormRecord {
  readonly forms: TSchema[]
  inputs: readonly unknown[]
  /** Every seed the schema's forms depend on so far (it only grows); null before its first form, or in a cycle. */
  deps: Set<Seed> | null
}

/** The seeds a form being computed depends on; `cyclic` when it met a schema still being built or an unresolved `$ref`. */
interface DependencyFrame {
  readonly deps: Set<Seed>
  cyclic: boolean
}

/** The engine behind {@link VersionedSchemas}: seeds, per-level states, and memoised per-level forms. */
export class SchemaGeneration {
  /** Level 0 is HEAD, level 1 the latest version, level n the n-th version from newest. */
  readonly levels: readonly string[]
  /** The seeds and their states at every level. */
  private readonly walk: SchemaStates
  private readonly shared = new Map<string, TSchema>()
  /** Every schema already given to {@link addSharedSchemas} (the plugin passes its application's schemas once per route). */
  private readonly sharedSeen = new WeakSet<object>()
  private readonly records = new WeakMap<object, FormRecord>()
  private readonly plans = new WeakMap<object, Plan>()
  private readonly inProgress = new Set<object>()
  /** The forms being built that meet themselves through other named schemas (./form-cycles.ts). */
  private readonly cycles = new FormCycles()
  /** One frame per form being computed, innermost last. */
  private readonly frames: DependencyFrame[] = []
  private readonly builder: FormBuilder
  /** The generated schemas made ready for Fastify (`dropIds`) and the documents (`keepIds`): ../routes/prepared-schemas.ts. */
  readonly prepared = { keepIds: new WeakMap<TSchema, TSchema>(), dropIds: new WeakMap<TSchema, TSchema>() }
  /** For a generation of other steps than the bundle's (see {@link ofSteps}): the generation it reads shared schemas from. */
  private readonly main: SchemaGeneration | undefined

  constructor (bundle: VersionBundle | { main: SchemaGeneration, steps: readonly GenerationStep[], levels: readonly string[] }, sharedSchemas: Iterable<SchemaLike> = []) {
    this.addSharedSchemas(sharedSchemas as Iterable<TSchema>)
    const within = 'main' in bundle ? bundle : undefined
    this.walk = new SchemaStates(within?.steps ?? generationSteps(bundle as VersionBundle))
    this.builder = new FormBuilder(this)
    this.levels = within?.levels ?? ['head', ...(bundle as VersionBundle).versionValues]
    this.main = within?.main
  }

  /**
   * A generation of the same bundle walked in other `steps` (each change of a version holding several one step:
   * ../routes/change-levels.ts), `levels` naming its levels; it reads shared schemas from `main`, and warns of nothing.
   * @example
   * ```ts
   * const byChange = SchemaGeneration.ofSteps(generation, [headStep, renameStep, retypeStep, oldestStep], ['head', '2001-01-01 (after Rename)', '2001-01-01'])
   * ```
   */
  static ofSteps (main: SchemaGeneration, steps: readonly GenerationStep[], levels: readonly string[]): SchemaGeneration {
    return new SchemaGeneration({ main, steps, levels })
  }

  /** Adds shared schemas (with `$id`) that `$ref`s may point to. */
  addSharedSchemas (schemas: Iterable<TSchema>): void {
    for (const schema of schemas) {
      if (!isSchemaObject(schema) || this.sharedSeen.has(schema)) continue
      this.sharedSeen.add(schema)
      const id = nameOf(schema)
      const known = id === undefined ? undefined : this.shared.get(id)
      // Two scopes may give addSchema different schemas with one $id: versions and documents would use one for both.
      if (known !== undefined) checkOneSchemaPerId(id as string, known, schema)
      if (id !== undefined && known === undefined) this.shared.set(id, schema)
    }
  }

  /** The schema a `$ref` points to (`'Address'` or `'Address#'`): a named seed, or a shared schema. */
  resolveRef (ref: string): TSchema | undefined {
    const id = refId(ref)
    return this.walk.index.findById(id)?.head ?? this.shared.get(id) ?? this.main?.sharedSchema(id)
  }

  /** The shared schema (one given to {@link addSharedSchemas}, such as the application's) with the `$id` `id`, if any. */
  sharedSchema (id: string): TSchema | undefined {
    return this.shared.get(id)
  }

  /** Every shared schema given to {@link addSharedSchemas} (the application's, seen from its versioned routes). */
  sharedSchemas (): Iterable<TSchema> { return this.shared.values() }

  /** The schema a `$ref` names: a HEAD schema (seed or shared) or a generated one (`User__2000-01-01`), or a pointer into one. */
  resolveAnyId (ref: string): TSchema | undefined {
    const [id, pointer] = ref.split('#')
    if (pointer?.startsWith('/') === true) return pointedAt(this.resolveAnyId(id) ?? {} as TSchema, pointer)
    return this.resolveRef(ref) ?? this.builder.builtById.get(refId(ref))
  }

  /** Every generated schema with an `$id`, by `$id`. */
  generatedSchemas (): ReadonlyMap<string, TSchema> {
    return this.builder.builtById
  }

  /** The canonical HEAD schema `schema` stands for (itself, or the seed it wraps or shares an `$id` with). */
  canonical (schema: TSchema): TSchema {
    return this.walk.index.find(schema)?.head ?? schema
  }

  /** The level of a version value (1 for the latest); throws for a value the bundle does not hold. */
  levelOf (version: string): number {
    const level = this.levels.indexOf(version, 1)
    if (level === -1) {
      throw new UnknownVersionError(`Version '${version}' is not in the version bundle; its versions are ${this.levels.slice(1).join(', ')}.`)
    }
    return level
  }

  /**
   * The form of `schema` at `level`, computed level by level from HEAD; a level that changed none of the seeds it
   * depends on keeps the form before it unlooked at.
   */
  formAt (schema: TSchema, level: number): TSchema {
    if (level === 0 || !isSchemaObject(schema) || this.isUnchanging(schema)) return schema
    let record = this.records.get(schema)
    if (record === undefined || record.forms.length <= level) {
      // A schema met again while its own form is being built refers to itself ($ref): its guess stands for it.
      if (this.inProgress.has(schema)) return this.metInsideItself(schema)
      this.inProgress.add(schema)
      try {
        if (record === undefined) {
          record = { forms: [schema], inputs: this.inputsAt(schema, 0), deps: null }
          this.records.set(schema, record)
        }
        for (let current = record.forms.length; current <= level; current++) this.cycles.build(schema, record, current, (built) => this.advance(schema, built, current))
      } finally {
        this.inProgress.delete(schema)
      }
    }
    const frame = this.frames.at(-1)
    if (frame !== undefined) {
      if (record.deps === null) frame.cyclic = true
      else for (const seed of record.deps) frame.deps.add(seed)
    }
    return record.forms[level]
  }

  /** The seeds the form of `schema` at `level` may hold or depend on (a superset), or undefined when not known (level 0, a cycle). */
  dependenciesAt (schema: TSchema, level: number): ReadonlySet<Seed> | undefined {
    if (level === 0) return undefined
    this.formAt(schema, level)
    if (!isSchemaObject(schema) || this.isUnchanging(schema)) return NO_SEEDS
    return this.records.get(schema)?.deps ?? undefined
  }

  /** The seeds the instructions that give `level` changed. */
  seedsChangedAt (level: number): ReadonlySet<Seed> {
    return this.walk.changedAt[level] ?? NO_SEEDS
  }

  /** True when the instructions that give `level` changed one of `seeds`. */
  changesAt (level: number, seeds: ReadonlySet<Seed>): boolean {
    return touches(this.walk.changedAt[level], seeds)
  }

  /** The seed `schema` stands for (itself, through `Optional`/`Readonly`, or by `$id`), if any. */
  seedOf (schema: TSchema): Seed | undefined {
    return this.walk.index.find(schema)
  }

  /** A schema met while its own form is being built (its guess: ./form-cycles.ts): the forms that contain it are compared at every level. */
  private metInsideItself (schema: TSchema): TSchema {
    const frame = this.frames.at(-1)
    if (frame !== undefined) frame.cyclic = true
    return this.cycles.metInside(schema)
  }

  /** Computes the form of `schema` at `level` (the record holds every level before it). */
  private advance (schema: TSchema, record: FormRecord, level: number): void {
    this.cycles.touch(record, level)
    const previous = record.forms[level - 1]
    if (record.deps !== null && !touches(this.walk.changedAt[level], record.deps)) {
      record.forms.push(previous)
      return
    }
    const frame: DependencyFrame = { deps: new Set(), cyclic: false }
    this.frames.push(frame)
    let inputs: readonly unknown[]
    try {
      inputs = this.inputsAt(schema, level)
    } finally {
      this.frames.pop()
    }
    const same = inputs.length === record.inputs.length && inputs.every((input, position) => input === record.inputs[position])
    record.forms.push(same ? previous : this.builder.build(schema, this.planOf(schema), level, inputs))
    record.inputs = inputs
    record.deps = frame.cyclic ? null : new Set([...(record.deps ?? []), ...frame.deps])
  }

  /** True when `schema` is its own form at every level: no seed, none held, no `$ref` (most field types). */
  private isUnchanging (schema: TSchema): boolean {
    // A `$ref` not resolved yet may be later (shared schemas are added route by route): never taken as unchanging.
    return this.planOf(schema).kind === 'identity' && typeof (schema as SchemaObject).$ref !== 'string'
  }

  private planOf (schema: TSchema): Plan {
    let plan = this.plans.get(schema)
    if (plan !== undefined) return plan
    const source = schema as SchemaObject
    const seed = this.walk.index.find(schema)
    const child = childSchemaInfo(schema)?.child
    if (seed === undefined && this.main === undefined) warnOfDerivedSchema(schema, this.walk, this.levels)
    if (seed !== undefined) {
      plan = seed.head === schema ? { kind: 'state', head: schema } : { kind: 'wrapper', base: seed.head }
    } else if (child !== undefined) {
      // A `Type.Optional` / `Type.Readonly` copy of a child is its form with the copy's modifiers.
      plan = child !== schema && sameButModifiers(child, schema) ? { kind: 'wrapper', base: child } : { kind: 'state', head: schema }
    } else if (typeof source.$ref === 'string') {
      const target = this.resolveRef(source.$ref.split('#')[0])
      if (target === undefined) return { kind: 'identity' }
      plan = { kind: 'ref', target }
    } else {
      // 'generic' while its subschemas are looked at: a cycle (without $ref) is taken as changing (conservative, rare).
      plan = { kind: 'generic' }
      this.plans.set(schema, plan)
      if (subschemasOf(schema).every((sub) => this.isUnchanging(sub))) plan = { kind: 'identity' }
    }
    this.plans.set(schema, plan)
    return plan
  }

  /** The state of the seed `head` stands for at `level` (its initial state for a schema that is no seed); noted as a dependency. */
  stateAt (head: TSchema, level: number): SeedState {
    const seed = this.walk.index.find(head)
    if (seed !== undefined) this.frames.at(-1)?.deps.add(seed)
    return this.walk.stateAt(head, level)
  }

  /**
   * The HEAD fields declared `derivedFrom` (by identity), each with the fields it is set from before it existed and the
   * field of their schema it is reached through (`through`, or the only one holding it), if known.
   */
  get derivations (): ReadonlyMap<number, ReadonlyMap<number, number | undefined>> {
    return this.walk.derivedFrom
  }

  /** Everything the form of `schema` at `level` depends on; equal inputs at two levels mean equal forms. */
  private inputsAt (schema: TSchema, level: number): readonly unknown[] {
    const plan = this.planOf(schema)
    switch (plan.kind) {
      case 'identity': {
        // An unresolved `$ref` (see isUnchanging): its inputs are compared at every level.
        const frame = this.frames.at(-1)
        if (frame !== undefined && typeof (schema as SchemaObject).$ref === 'string') frame.cyclic = true
        return []
      }
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
}

/** The seeds of a schema that depends on none. */
export const NO_SEEDS: ReadonlySet<Seed> = new Set()

/** True when a seed changed at a level is one a form depends on. */
function touches (changed: ReadonlySet<Seed>, deps: ReadonlySet<Seed>): boolean {
  for (const seed of changed) if (deps.has(seed)) return true
  return false
}
