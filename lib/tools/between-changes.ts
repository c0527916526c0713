/**
 * `types`: the named schemas a version change's converters meet where another change of the same version edits them
 * too (decision 0297). A request's converters run from the change listed last, a response's from the change listed
 * first, so a converter reads a body its sibling has converted already: its sides are the shapes between the changes,
 * at the levels the runtime plans by (../routes/change-levels.ts), not its two versions. Printed as `Between` (those
 * shapes, by the runtime's name of their level) and `ChangeSides` (the sides that differ from the versions'), only
 * where one does: a version whose changes edit different schemas prints what it printed before.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { componentize, tuplesAsPrefixItems } from '../docs/openapi-schemas'
import { prepareSchema } from '../routes/prepared-schemas'
import type { SchemaGeneration } from '../schemas/generation'
import { componentName } from '../schemas/component-names'
import { isSchemaObject } from '../core/json-schema'
import { versionerStateOf } from './versioned-apis'
import { docComment, isObject, literal, printType, propertyKey, type Json, type JsonObject } from './type-printer'

const COMPONENT = '#/components/schemas/'

/** The `$ref`ed component names of a schema, in order of appearance. */
function refsOf (value: Json, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsOf(item, into)
  else if (isObject(value)) {
    if (typeof value.$ref === 'string' && value.$ref.startsWith(COMPONENT)) into.push(value.$ref.slice(COMPONENT.length))
    for (const item of Object.values(value)) refsOf(item, into)
  }
  return into
}

/** The components `name` holds, itself first, as text: equal text, the same type. */
function closureText (components: JsonObject, name: string): string {
  const seen = [name]
  for (let at = 0; at < seen.length; at++) for (const ref of refsOf(components[seen[at]] ?? null)) if (!seen.includes(ref)) seen.push(ref)
  return JSON.stringify(seen.map((each) => [each, components[each] ?? null]))
}

/** The shapes of one version holding several changes: its named converter targets at each of its levels, as document components. */
class VersionLevels {
  /** The components at each level of the walk by change, by level. */
  private readonly components = new Map<number, JsonObject>()
  /** The components printed in `Between`, by level: name → printed type. */
  readonly printed = new Map<number, Map<string, string>>()

  constructor (private readonly generation: SchemaGeneration, private readonly targets: readonly TSchema[],
    readonly version: { newer: string, older: string, newerLevel: number, olderLevel: number }) {}

  /** The component name of `target` at `level`, or undefined when it has none there (no `$id`: no named schema). */
  nameAt (target: TSchema, level: number): string | undefined {
    const form = this.generation.formAt(target, level)
    return isSchemaObject(form) && typeof form.$id === 'string' ? componentName(form.$id, this.generation) : undefined
  }

  private componentsAt (level: number): JsonObject {
    let components = this.components.get(level)
    if (components !== undefined) return components
    components = {}
    const prepare = (schema: TSchema): TSchema => prepareSchema(schema, this.generation, 'docs')
    for (const target of this.targets) {
      const form = this.generation.formAt(target, level)
      if (isSchemaObject(form) && typeof form.$id === 'string') componentize({ $ref: form.$id } as unknown as TSchema, components, this.generation, prepare)
    }
    components = (tuplesAsPrefixItems({ components: { schemas: components } }).components as JsonObject).schemas as JsonObject
    this.components.set(level, components)
    return components
  }

  /** The type of component `name` at `level`: a version's where it has that type there, else its shape in `Between`. */
  typeAt (name: string, level: number): string {
    const { newer, older, newerLevel, olderLevel } = this.version
    const here = closureText(this.componentsAt(level), name)
    if (here === closureText(this.componentsAt(newerLevel), name)) return `Schemas[${literal(newer)}][${literal(name)}]`
    if (here === closureText(this.componentsAt(olderLevel), name)) return `Schemas[${literal(older)}][${literal(name)}]`
    let printed = this.printed.get(level)
    if (printed === undefined) this.printed.set(level, printed = new Map())
    if (!printed.has(name)) {
      printed.set(name, '')
      const schema = this.componentsAt(level)[name]
      printed.set(name, `${docComment(schema, '    ')}    ${propertyKey(name)}: ${printType(schema, (ref) => this.typeAt(ref, level), '    ')}`)
    }
    return `Between[${literal(this.generation.levels[level])}][${literal(name)}]`
  }
}

/**
 * The `Between` and `ChangeSides` interfaces of an application's released versions (`values`), or '' when every
 * converter's sides are its versions' (the module is then what it was before decision 0297).
 * @example
 * ```ts
 * const text = betweenChanges(app, ['2001-01-01', '2000-01-01'])
 * ```
 */
export function betweenChanges (app: FastifyInstance, values: readonly string[]): string {
  const state = versionerStateOf(app)
  const levels = state.planner.changeLevels()
  const { generation } = levels
  const main = state.generation
  const sides = new Map<string, Array<[string, string]>>()
  const between = new Map<string, string[]>()
  // Step 0 is HeadVersion's (its newer side is HEAD, typed by TypeBox); the oldest version's changes have no older side.
  state.steps.forEach(({ changes, origin }, step) => {
    const older = main.levels[step + 1]
    if (step === 0 || changes.length < 2 || older === undefined || values.indexOf(older) !== values.indexOf(origin) + 1 || !values.includes(origin)) return
    const targets = [...new Set(changes.flatMap((change) => change.converters.flatMap(({ target }) => target.kind === 'schema' ? target.schemas : [])))]
      .map((schema) => generation.canonical(schema))
    const newerLevel = levels.levelOf({ step, index: 0, direction: 'response' })
    const olderLevel = levels.levelOf({ step, index: changes.length - 1, direction: 'request' })
    const shapes = new VersionLevels(generation, targets, { newer: origin, older, newerLevel, olderLevel })
    for (const [index, change] of changes.entries()) {
      const own = new Set(change.converters.flatMap(({ target }) => target.kind === 'schema' ? target.schemas.map((schema) => generation.canonical(schema)) : []))
      for (const [direction, side, versionLevel] of [['response', 'newer', newerLevel], ['request', 'older', olderLevel]] as const) {
        const level = levels.levelOf({ step, index, direction })
        if (level === versionLevel) continue
        const lines: string[] = []
        for (const target of own) {
          const name = shapes.nameAt(target, level)
          const type = name === undefined ? undefined : shapes.typeAt(name, level)
          if (name !== undefined && type !== `Schemas[${literal(side === 'newer' ? origin : older)}][${literal(name)}]`) lines.push(`      ${propertyKey(name)}: ${type as string}`)
        }
        if (lines.length > 0) sides.set(change.name, [...sides.get(change.name) ?? [], [side, lines.join('\n')]])
      }
    }
    for (const [level, printed] of shapes.printed) between.set(generation.levels[level], [...printed.values()])
  })
  if (sides.size === 0) return ''
  const levelBlocks = [...between].map(([level, lines]) => `  ${literal(level)}: {\n${lines.join('\n')}\n  }`)
  const sideBlocks = [...sides].map(([change, each]) => `  ${propertyKey(change)}: {\n${each.map(([side, lines]) => `    ${side}: {\n${lines}\n    }`).join('\n')}\n  }`)
  return [
    '/**',
    ' * The named schemas between two changes of one version that both edit them, by the version and the changes: what',
    " * the first change's converters leave for the second's (request converters run from the change listed last,",
    ' * response converters from the one listed first).',
    ' */',
    `export interface Between {\n${levelBlocks.join('\n')}\n}`,
    '',
    "/** The sides of a version change's converters that are not its versions' shapes: named schemas another change of its version edits first. */",
    `export interface ChangeSides {\n${sideBlocks.join('\n')}\n}`,
    ''
  ].join('\n')
}
