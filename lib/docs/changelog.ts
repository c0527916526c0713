/**
 * The changelog (deprecated in the spec, still served): every version's changes, newest first, with entries
 * generated from their instructions as that version stands; and its response schema and types.
 * @module
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import {
  isEndpointInstruction, type EndpointHadInstruction, type EndpointInstruction, type EnumInstruction, type FieldHadInstruction, type Instruction,
  type SchemaHadInstruction, type SchemaInstruction
} from '../describe/instructions'
import { copyJson } from '../values/json-copy'
import { applies, fullPath } from '../routes/timeline'
import { isSuccessKey, routeSchemas } from '../routes/version-plan'
import { prepareSchema } from '../routes/prepared-schemas'
import { nameOf, type SchemaObject } from '../core/json-schema'
import { everySubschema, mapSchemaDeep } from '../core/subschemas'
import { childSchemaInfo } from '../describe/extend-schema'
import { componentName } from '../schemas/component-names'
import type { VersionerState } from '../routes/versioner-state'
import type { Webhooks } from '../routes/webhooks'

const Value = Type.Unknown()

/** One entry of a version change in the changelog. */
const ChangelogEntry = Type.Object({
  type: Type.Union([
    Type.Literal('endpoint.added'), Type.Literal('endpoint.removed'), Type.Literal('endpoint.changed'),
    Type.Literal('schema.renamed'), Type.Literal('schema.attributes.changed'), Type.Literal('schema.field.added'), Type.Literal('schema.field.removed'),
    Type.Literal('schema.field.attributes.changed'), Type.Literal('schema.validator.added'), Type.Literal('schema.validator.removed'),
    Type.Literal('enum.members.added'), Type.Literal('enum.members.removed')
  ]),
  path: Type.Optional(Type.String()),
  methods: Type.Optional(Type.Array(Type.String())),
  models: Type.Optional(Type.Array(Type.String())),
  previousName: Type.Optional(Type.String()),
  field: Type.Optional(Type.String()),
  schema: Type.Optional(Value),
  validator: Type.Optional(Type.String()),
  members: Type.Optional(Type.Array(Value)),
  changes: Type.Optional(Type.Array(Type.Object({
    name: Type.String(),
    status: Type.Optional(Type.Union([Type.Literal('added'), Type.Literal('changed'), Type.Literal('removed')])),
    previousValue: Type.Optional(Value),
    newValue: Type.Optional(Value)
  })))
})

/** The changelog resource. */
export const ChangelogResource = Type.Object({
  versions: Type.Array(Type.Object({
    value: Type.String(),
    changes: Type.Array(Type.Object({
      description: Type.String(),
      sideEffects: Type.Boolean(),
      instructions: Type.Array(ChangelogEntry)
    }))
  }))
}, { $id: 'FastifyVersionerChangelog' })

/**
 * An entry of the changelog.
 * @example
 * ```ts
 * declare const changelog: Changelog // app.versioner.changelog()
 * const entries: ChangelogEntryData[] = changelog.versions.flatMap((version) => version.changes.flatMap((change) => change.instructions))
 * ```
 */
export type ChangelogEntryData = Static<typeof ChangelogEntry>

/**
 * The changelog.
 * @example
 * ```ts
 * declare const app: FastifyInstance // the application, ready
 * const changelog: Changelog = app.versioner.changelog()
 * for (const { value, changes } of changelog.versions) console.log(value, changes.map((change) => change.description))
 * ```
 */
export type Changelog = Static<typeof ChangelogResource>

/** The changelog of an application, built on first use (once its routes are known). */
export function changelogOnce (state: VersionerState, webhooks: Webhooks): () => Changelog {
  let built: Changelog | undefined
  return () => (built ??= buildChangelog(state, webhooks))
}

function buildChangelog (state: VersionerState, webhooks: Webhooks): Changelog {
  const entries = new ChangelogEntries(state, webhooks, new ChangelogModels(state, webhooks))
  // Level 1 is the newest version; the oldest version has no changes (nothing is older). Preview versions are left out.
  const bundle = state.options.versions
  const versions = bundle.versionValues.slice(0, -1).flatMap((value, index) => {
    const level = index + 1
    if (!bundle.releasedValues.includes(value)) return []
    return {
      value,
      changes: state.steps[level].changes.map((change) => ({
        description: change.description,
        sideEffects: change.hasSideEffects,
        instructions: change.instructions.map((instruction) => entries.of(instruction, level))
      }))
    }
  })
  return { versions }
}

type Changes = NonNullable<ChangelogEntryData['changes']>

/** Builds the entries of an application's instructions. */
class ChangelogEntries {
  constructor (
    private readonly state: VersionerState,
    private readonly webhooks: Webhooks,
    private readonly models: ChangelogModels
  ) {}

  /** The entry of an instruction of the version at `level`, without undefined values. */
  of (instruction: Instruction, level: number): ChangelogEntryData {
    const entry = isEndpointInstruction(instruction)
      ? this.endpointEntry(instruction, level)
      : instruction.kind.startsWith('enum.')
        ? this.enumEntry(instruction as EnumInstruction, level)
        : this.schemaEntry(instruction as SchemaInstruction, level)
    return copyJson(entry) as ChangelogEntryData
  }

  private schemaEntry (instruction: SchemaInstruction, level: number): ChangelogEntryData {
    const field = 'field' in instruction ? instruction.field : undefined
    const models = this.models.affected(instruction.schema, level, field, instruction.kind !== 'schema.had')
    switch (instruction.kind) {
      case 'schema.had': return this.schemaHadEntry(instruction, models, level)
      case 'field.didntExist': {
        const schema = this.models.referenced(this.models.fieldAt(instruction.schema, instruction.field, level))
        return { type: 'schema.field.added', models, field: instruction.field, schema }
      }
      case 'field.existedAs': return { type: 'schema.field.removed', models, field: instruction.field }
      case 'validator.existed': return { type: 'schema.validator.removed', models, validator: instruction.validator.name }
      case 'validator.didntExist': return { type: 'schema.validator.added', models, validator: instruction.validatorName }
      case 'field.didntHave': {
        const current = this.models.fieldAt(instruction.schema, instruction.field, level)
        const changes = instruction.keywords.map((name) => ({ name, status: 'added' as const, newValue: current?.[name] }))
        return { type: 'schema.field.attributes.changed', models, field: instruction.field, changes }
      }
      case 'field.had':
        return { type: 'schema.field.attributes.changed', models, field: instruction.field, changes: this.fieldChanges(instruction, level) }
    }
  }

  /**
   * `schema(S).had({...})`: `schema.renamed` when only the name changed, else `schema.attributes.changed` with each
   * attribute's values before and now (examples: only before; the document shows its own).
   */
  private schemaHadEntry (instruction: SchemaHadInstruction, models: string[], level: number): ChangelogEntryData {
    const annotations = Object.entries(instruction.annotations)
    if (annotations.length === 0) return { type: 'schema.renamed', models, previousName: instruction.name }
    const { generation } = this.state
    const form = generation.formAt(generation.canonical(instruction.schema), level) as SchemaObject
    const changes: Changes = []
    const id = nameOf(form)
    if (instruction.name !== undefined) {
      changes.push({ name: 'name', status: 'changed', previousValue: instruction.name, newValue: id === undefined ? undefined : componentName(id, generation) })
    }
    for (const [name, previousValue] of annotations) {
      const current = form[name]
      const status = current === undefined ? 'removed' as const : 'changed' as const
      changes.push({ name, status, previousValue, newValue: name === 'examples' ? undefined : current })
    }
    return { type: 'schema.attributes.changed', models, ...(instruction.name === undefined ? {} : { previousName: instruction.name }), changes }
  }

  /** What `field(...).had(...)` changed: the name, type, optionality and keywords, previous and current. */
  private fieldChanges (instruction: FieldHadInstruction, level: number): Changes {
    const current = this.models.fieldAt(instruction.schema, instruction.field, level)
    const changes: Changes = []
    if (instruction.name !== undefined) changes.push({ name: 'name', status: 'changed', previousValue: instruction.name, newValue: instruction.field })
    if (instruction.type !== undefined) changes.push({ name: 'type', status: 'changed', previousValue: instruction.type, newValue: current })
    if (instruction.optional !== undefined) changes.push({ name: 'optional', status: 'changed', previousValue: instruction.optional, newValue: !instruction.optional })
    for (const [name, previousValue] of Object.entries(instruction.keywords)) {
      const newValue = current?.[name]
      changes.push({ name, status: newValue === undefined ? 'removed' : 'changed', previousValue, newValue })
    }
    return changes
  }

  private endpointEntry (instruction: EndpointInstruction, level: number): ChangelogEntryData {
    const base = { path: instruction.path, methods: [...instruction.methods] }
    if (instruction.kind === 'endpoint.didntExist') return { type: 'endpoint.added', ...base }
    if (instruction.kind === 'endpoint.existed') return { type: 'endpoint.removed', ...base }
    // The route the instruction changed, matched as the route timelines match it (by the HEAD operationId too).
    // A status no newer instruction set is the one HEAD answers: the route's only success status, when it has one.
    const headStatus = (response: unknown): number | undefined => {
      const keys = Object.keys(response ?? {}).filter(isSuccessKey)
      return keys.length === 1 && /^\d{3}$/.test(keys[0]) ? Number(keys[0]) : undefined
    }
    const candidates = [
      ...this.state.headRoutes.map((head) => [head.timeline[level], typeof head.schema.operationId === 'string' ? head.schema.operationId : undefined, headStatus(head.schema.response)] as const),
      ...this.webhooks.list().map((webhook) => [webhook.timeline[level], webhook.attributes.operationId, undefined] as const)
    ]
    const found = candidates.find(([at, operationId]) => at?.exists === true && applies(at, instruction, operationId))
    const route = found?.[0]
    const changes = Object.entries((instruction as EndpointHadInstruction).attributes).map(([name, previousValue]) => {
      const attribute = route === undefined ? undefined : (route.attributes as Record<string, unknown>)[name] ?? (name === 'statusCode' ? found?.[2] : undefined)
      const current = route === undefined ? undefined : name === 'path' ? route.path : name === 'methods' ? route.methods : attribute
      // A path as the route's clients call it, as `newValue` is (had({ path }) may give it relative to the prefix).
      const previous = name === 'path' && route !== undefined && typeof previousValue === 'string' ? fullPath(route, previousValue) : previousValue
      return { name, status: current === undefined ? 'removed' as const : 'changed' as const, previousValue: previous, newValue: current }
    })
    return { type: 'endpoint.changed', ...base, changes }
  }

  private enumEntry (instruction: EnumInstruction, level: number): ChangelogEntryData {
    const models = this.models.affected(instruction.schema, level)
    if (instruction.kind === 'enum.didntHave') return { type: 'enum.members.added', models, members: [...instruction.members] }
    const state = this.state.generation.stateAt(instruction.schema, level)
    const values = state.kind === 'enum' ? state.members.map((member) => member.value) : []
    return {
      type: 'enum.members.removed',
      models,
      members: Object.entries(instruction.members).map(([name, previousValue]) => {
        const current = values.find((value) => String(value) === name)
        return current === undefined ? { name, status: 'removed', previousValue } : { name, status: 'changed', previousValue, newValue: current }
      })
    }
  }
}

/** The named schemas of an application (those reachable from its HEAD routes and webhooks) and what instructions on them affect. */
class ChangelogModels {
  private readonly named = new Set<TSchema>()

  constructor (private readonly state: VersionerState, webhooks: Webhooks) {
    const roots = [...state.headRoutes.flatMap((route) => routeSchemas(route, 0)), ...webhooks.list().map((webhook) => webhook.body)]
    for (const schema of everySubschema(roots)) if (nameOf(schema) !== undefined) this.named.add(schema)
  }

  /** The names at `level` of the named schemas an instruction on `target` affects: it, its children, its holders. */
  affected (target: TSchema, level: number, field?: string, inherited = true): string[] {
    const { generation } = this.state
    const canonical = generation.canonical(target)
    const names = new Set<string>()
    const own = nameOf(generation.formAt(canonical, level))
    if (own !== undefined) names.add(componentName(own, generation))
    for (const schema of this.named) {
      const derived = inherited && this.inherits(schema, canonical, field)
      if (derived || (schema !== canonical && this.state.planner.targets.collectorFor(schema, canonical, level) !== null)) {
        const id = nameOf(generation.formAt(schema, level))
        if (id !== undefined) names.add(componentName(id, generation))
      }
    }
    return [...names]
  }

  /** A schema for the changelog: named subschemas become references to their components. */
  referenced (schema: SchemaObject | undefined): unknown {
    if (schema === undefined) return undefined
    return mapSchemaDeep(schema as TSchema, (node) =>
      typeof node.$id === 'string' ? { $ref: `#/components/schemas/${componentName(node.$id, this.state.generation)}` } as unknown as TSchema : node)
  }

  /** A field of a schema as a version documents it. */
  fieldAt (target: TSchema, field: string, level: number): SchemaObject | undefined {
    const { generation } = this.state
    const form = prepareSchema(generation.formAt(generation.canonical(target), level), generation, 'docs') as SchemaObject
    const properties = form.properties as Record<string, SchemaObject> | undefined
    return properties?.[field]
  }

  /**
   * True when `schema` was made with `extendSchema` from `ancestor` (directly or not) and, for a `field`, no schema of
   * the chain down to `ancestor` declares that field itself.
   */
  private inherits (schema: TSchema, ancestor: TSchema, field: string | undefined): boolean {
    for (let info = childSchemaInfo(schema); info !== undefined; info = childSchemaInfo(info.parent)) {
      if (field !== undefined && info.ownKeys.has(field)) return false
      if (this.state.generation.canonical(info.parent) === ancestor) return true
    }
    return false
  }
}
