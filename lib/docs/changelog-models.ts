/**
 * What changelog entries say about schemas: the named schemas (components) an instruction affects in a
 * version, a field's schema as that version documents it, and schemas written with references to components.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { prepareSchema } from '../routes/prepared-schemas'
import { componentName } from '../schemas/component-names'
import { nameOf, type SchemaObject } from '../core/json-schema'
import { everySubschema, mapSchemaDeep } from '../core/subschemas'
import { childSchemaInfo } from '../describe/extend-schema'
import type { VersionerState } from '../routes/versioner-state'
import type { Webhooks } from '../routes/webhooks'
import { requestSchemas } from '../routes/version-plan'

/** The named schemas of an application (those reachable from its HEAD routes and webhooks) and what instructions on them affect. */
export class ChangelogModels {
  private readonly named = new Set<TSchema>()

  constructor (private readonly state: VersionerState, webhooks: Webhooks) {
    const roots = [
      ...state.headRoutes.flatMap((route) => [...requestSchemas(route), ...Object.values(route.forms.responses[0].schemas)]),
      ...webhooks.list().map((webhook) => webhook.body)
    ].filter((schema): schema is TSchema => schema !== undefined)
    for (const schema of everySubschema(roots)) if (nameOf(schema) !== undefined) this.named.add(schema)
  }

  /**
   * The names, at `level`, of the named schemas an instruction on `target` affects: the target, the schemas
   * derived from it (unless they declare the changed field themselves), and those containing it in that version.
   */
  affected (target: TSchema, level: number, field?: string, inherited = true): string[] {
    const { generation } = this.state
    const canonical = generation.canonical(target)
    const names = new Set<string>()
    const own = nameOf(generation.formAt(canonical, level))
    if (own !== undefined) names.add(componentName(own, generation))
    for (const schema of this.named) {
      const derived = inherited && this.isDescendant(schema, canonical) && (field === undefined || !this.overrides(schema, canonical, field))
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

  /** True when `schema` was made with `extendSchema` from `ancestor` (directly or not). */
  private isDescendant (schema: TSchema, ancestor: TSchema): boolean {
    for (let info = childSchemaInfo(schema); info !== undefined; info = childSchemaInfo(info.parent)) {
      if (this.state.generation.canonical(info.parent) === ancestor) return true
    }
    return false
  }

  /** True when `schema` (made with `extendSchema` from `ancestor`) declares `field` itself somewhere down its chain. */
  private overrides (schema: TSchema, ancestor: TSchema, field: string): boolean {
    for (let current = schema, info = childSchemaInfo(schema); info !== undefined; current = info.parent, info = childSchemaInfo(current)) {
      if (info.ownKeys.has(field)) return true
      if (this.state.generation.canonical(info.parent) === ancestor) return false
    }
    return false
  }
}
