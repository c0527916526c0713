/**
 * The changelog (deprecated in the spec, still served): every version's changes, newest first, with their
 * descriptions, side-effect flag and typed entries generated from their instructions, naming the affected
 * OpenAPI schemas as they are in that version.
 * @module
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import type { EndpointHadInstruction, EndpointInstruction, EnumInstruction, Instruction, SchemaInstruction } from '../describe/instructions'
import { componentName, prepareForDocs } from './openapi-schemas'
import { applies } from '../routes/timeline'
import { nameOf } from '../schemas/seeds'
import { isSchemaObject, type SchemaObject } from '../core/json-schema'
import { forEachSubschema } from '../core/subschemas'
import { childSchemaInfo } from '../describe/extend-schema'
import type { VersionerState } from '../versioner-state'
import type { Webhooks } from '../routes/webhooks'

const Value = Type.Unknown()

/** One entry of a version change in the changelog. */
export const ChangelogEntry = Type.Object({
  type: Type.Union([
    Type.Literal('endpoint.added'), Type.Literal('endpoint.removed'), Type.Literal('endpoint.changed'),
    Type.Literal('schema.renamed'), Type.Literal('schema.field.added'), Type.Literal('schema.field.removed'),
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

/** An entry of the changelog. */
export type ChangelogEntryData = Static<typeof ChangelogEntry>

/** The changelog. */
export type Changelog = Static<typeof ChangelogResource>

function json (value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value)) as unknown
}

/** Builds the changelog of an application (once its routes are known). */
export function buildChangelog (state: VersionerState, webhooks: Webhooks): Changelog {
  const { generation } = state
  const roots = [
    ...state.headRoutes.flatMap((route) => [route.schema.body, route.schema.querystring, route.schema.params, route.schema.headers,
      ...Object.values(route.schema.response ?? {})]),
    ...webhooks.list().map((webhook) => webhook.body)
  ].filter((schema): schema is TSchema => schema !== undefined)
  const named = new Set<TSchema>()
  const collectNamed = (schema: TSchema, seen: Set<TSchema>): void => {
    if (seen.has(schema)) return
    seen.add(schema)
    if (nameOf(schema) !== undefined) named.add(schema)
    forEachSubschema(schema, (sub) => collectNamed(sub, seen))
  }
  const seen = new Set<TSchema>()
  for (const root of roots) collectNamed(root, seen)

  const isDescendant = (schema: TSchema, ancestor: TSchema): boolean => {
    for (let info = childSchemaInfo(schema); info !== undefined; info = childSchemaInfo(info.parent)) {
      if (generation.canonical(info.parent) === ancestor) return true
    }
    return false
  }
  /** True when `schema` (made with `extendSchema` from `ancestor`) declares `field` itself somewhere down its chain. */
  const overrides = (schema: TSchema, ancestor: TSchema, field: string): boolean => {
    for (let current = schema, info = childSchemaInfo(schema); info !== undefined; current = info.parent, info = childSchemaInfo(current)) {
      if (info.ownKeys.has(field)) return true
      if (generation.canonical(info.parent) === ancestor) return false
    }
    return false
  }
  /**
   * The names, at `level`, of the named schemas an instruction on `target` affects: the target, the schemas
   * derived from it (unless they declare the changed field themselves), and those containing it in that version.
   */
  const models = (target: TSchema, level: number, field?: string, inherited = true): string[] => {
    const canonical = generation.canonical(target)
    const names = new Set<string>()
    const own = nameOf(generation.formAt(canonical, level))
    if (own !== undefined) names.add(componentName(own, generation))
    for (const schema of named) {
      const derived = inherited && isDescendant(schema, canonical) && (field === undefined || !overrides(schema, canonical, field))
      if (derived || (schema !== canonical && state.planner.collectorFor(schema, canonical, level) !== null)) {
        const id = nameOf(generation.formAt(schema, level))
        if (id !== undefined) names.add(componentName(id, generation))
      }
    }
    return [...names]
  }
  /** A schema for the changelog: named subschemas become references to their components. */
  const referenced = (schema: unknown): unknown => {
    const visit = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(visit)
      if (!isSchemaObject(node)) return node
      if (typeof node.$id === 'string') return { $ref: `#/components/schemas/${componentName(node.$id, generation)}` }
      const result: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(node)) result[key] = visit(value)
      return result
    }
    return visit(json(schema))
  }
  const fieldAt = (target: TSchema, field: string, level: number): SchemaObject | undefined => {
    const form = prepareForDocs(generation.formAt(generation.canonical(target), level), generation) as SchemaObject
    const properties = form.properties as Record<string, SchemaObject> | undefined
    return properties?.[field]
  }

  const entry = (instruction: Instruction, level: number): ChangelogEntryData => {
    if (instruction.kind.startsWith('endpoint.')) return endpointEntry(instruction as EndpointInstruction, level)
    if (instruction.kind.startsWith('enum.')) return enumEntry(instruction as EnumInstruction, level)
    const schemaInstruction = instruction as SchemaInstruction
    const field = 'field' in schemaInstruction ? schemaInstruction.field : undefined
    const affected = models(schemaInstruction.schema, level, field, schemaInstruction.kind !== 'schema.had')
    switch (schemaInstruction.kind) {
      case 'schema.had': return { type: 'schema.renamed', models: affected, previousName: schemaInstruction.name }
      case 'field.didntExist':
        return { type: 'schema.field.added', models: affected, field: schemaInstruction.field, schema: referenced(fieldAt(schemaInstruction.schema, schemaInstruction.field, level)) }
      case 'field.existedAs': return { type: 'schema.field.removed', models: affected, field: schemaInstruction.field }
      case 'validator.existed': return { type: 'schema.validator.removed', models: affected, validator: schemaInstruction.validator.name }
      case 'validator.didntExist': return { type: 'schema.validator.added', models: affected, validator: schemaInstruction.validatorName }
      case 'field.didntHave': {
        const current = fieldAt(schemaInstruction.schema, schemaInstruction.field, level)
        return {
          type: 'schema.field.attributes.changed',
          models: affected,
          field: schemaInstruction.field,
          changes: schemaInstruction.keywords.map((name) => ({ name, status: 'added' as const, newValue: json(current?.[name]) }))
        }
      }
      case 'field.had': {
        const current = fieldAt(schemaInstruction.schema, schemaInstruction.field, level)
        const changes: NonNullable<ChangelogEntryData['changes']> = []
        if (schemaInstruction.name !== undefined) changes.push({ name: 'name', status: 'changed', previousValue: schemaInstruction.name, newValue: schemaInstruction.field })
        if (schemaInstruction.type !== undefined) changes.push({ name: 'type', status: 'changed', previousValue: json(schemaInstruction.type), newValue: json(current) })
        if (schemaInstruction.optional !== undefined) changes.push({ name: 'optional', status: 'changed', previousValue: schemaInstruction.optional, newValue: !schemaInstruction.optional })
        for (const [name, previousValue] of Object.entries(schemaInstruction.keywords)) {
          const newValue = current?.[name]
          changes.push({ name, status: newValue === undefined ? 'removed' : 'changed', previousValue: json(previousValue), newValue: json(newValue) })
        }
        return { type: 'schema.field.attributes.changed', models: affected, field: schemaInstruction.field, changes }
      }
    }
  }

  const endpointEntry = (instruction: EndpointInstruction, level: number): ChangelogEntryData => {
    const base = { path: instruction.path, methods: [...instruction.methods] }
    if (instruction.kind === 'endpoint.didntExist') return { type: 'endpoint.added', ...base }
    if (instruction.kind === 'endpoint.existed') return { type: 'endpoint.removed', ...base }
    // The route the instruction changed, matched as the route timelines match it (by the HEAD operationId too).
    const candidates = [
      ...state.headRoutes.map((head) => [head.timeline[level], typeof head.schema.operationId === 'string' ? head.schema.operationId : undefined] as const),
      ...webhooks.list().map((webhook) => [webhook.timeline[level], webhook.attributes.operationId] as const)
    ]
    const route = candidates.find(([at, operationId]) => at?.exists === true && applies(at, instruction, operationId))?.[0]
    const changes = Object.entries((instruction as EndpointHadInstruction).attributes).map(([name, previousValue]) => {
      const current = route === undefined ? undefined : name === 'path' ? route.path : name === 'methods' ? route.methods : (route.attributes as Record<string, unknown>)[name]
      return { name, status: current === undefined ? 'removed' as const : 'changed' as const, previousValue: json(previousValue), newValue: json(current) }
    })
    return { type: 'endpoint.changed', ...base, changes }
  }

  const enumEntry = (instruction: EnumInstruction, level: number): ChangelogEntryData => {
    const affected = models(instruction.schema, level)
    if (instruction.kind === 'enum.didntHave') return { type: 'enum.members.added', models: affected, members: [...instruction.members] }
    const form = generation.formAt(generation.canonical(instruction.schema), level) as SchemaObject
    const values = Array.isArray(form.anyOf)
      ? (form.anyOf as SchemaObject[]).map((member) => isSchemaObject(member) ? member.const : undefined)
      : Array.isArray(form.enum) ? form.enum as unknown[] : []
    return {
      type: 'enum.members.removed',
      models: affected,
      members: Object.entries(instruction.members).map(([name, previousValue]) => {
        const current = values.find((value) => String(value) === name)
        return current === undefined ? { name, status: 'removed', previousValue } : { name, status: 'changed', previousValue, newValue: current }
      })
    }
  }

  /** Drops the keys whose value is undefined (as JSON would). */
  const clean = (entry: ChangelogEntryData): ChangelogEntryData => json(entry) as ChangelogEntryData

  const versions = state.options.versions.versionValues.slice(0, -1).map((value, index) => {
    const level = index + 1
    return {
      value,
      changes: state.steps[level].changes.map((change) => ({
        description: change.description,
        sideEffects: change.hasSideEffects,
        instructions: change.instructions.map((instruction) => clean(entry(instruction, level)))
      }))
    }
  })
  return { versions }
}
