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
import { convertedRoutes, routeAt, routeHeads, type RouteOutline } from './between-routes'
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

/** A schema with the components it holds, as text: equal text, the same type. */
function closureText (components: JsonObject, root: Json): string {
  const seen: string[] = []
  const add = (value: Json): void => { for (const ref of refsOf(value)) if (!seen.includes(ref)) seen.push(ref) }
  add(root)
  for (let at = 0; at < seen.length; at++) add(components[seen[at]] ?? null)
  return JSON.stringify([root, seen.map((each) => [each, components[each] ?? null])])
}

/** A reference to component `name`. */
const ref = (name: string): Json => ({ $ref: `${COMPONENT}${name}` })

/**
 * The shapes of one version holding several changes: its named converter targets and the parts of its by-path
 * converters' routes at each of its levels, as document components.
 */
class VersionLevels {
  /** The components at each level of the walk by change, by level. */
  private readonly components = new Map<number, JsonObject>()
  /** The components and routes printed in `Between`, by level: name or route key → printed type. */
  readonly printed = new Map<number, Map<string, string>>()

  constructor (private readonly generation: SchemaGeneration, private readonly targets: readonly TSchema[],
    readonly version: { newer: string, older: string, newerLevel: number, olderLevel: number }) {}

  /** The component name of `target` at `level`, or undefined when it has none there (no `$id`: no named schema). */
  nameAt (target: TSchema, level: number): string | undefined {
    const form = this.generation.formAt(target, level)
    return isSchemaObject(form) && typeof form.$id === 'string' ? componentName(form.$id, this.generation) : undefined
  }

  private readonly prepare = (schema: TSchema): TSchema => prepareSchema(schema, this.generation, 'docs')

  /** The components every target (a converter's schema, a route part's HEAD schema) holds at `level`. */
  private componentsAt (level: number): JsonObject {
    let components = this.components.get(level)
    if (components !== undefined) return components
    components = {}
    for (const target of this.targets) {
      const form = this.generation.formAt(target, level)
      componentize(isSchemaObject(form) && typeof form.$id === 'string' ? { $ref: form.$id } as unknown as TSchema : form, components, this.generation, this.prepare)
    }
    components = (tuplesAsPrefixItems({ components: { schemas: components } }).components as JsonObject).schemas as JsonObject
    this.components.set(level, components)
    return components
  }

  /** The type of component `name` at `level`: a version's where it has that type there, else its shape in `Between`. */
  typeAt (name: string, level: number): string {
    const { newer, older, newerLevel, olderLevel } = this.version
    const here = closureText(this.componentsAt(level), ref(name))
    if (here === closureText(this.componentsAt(newerLevel), ref(name))) return `Schemas[${literal(newer)}][${literal(name)}]`
    if (here === closureText(this.componentsAt(olderLevel), ref(name))) return `Schemas[${literal(older)}][${literal(name)}]`
    let printed = this.printed.get(level)
    if (printed === undefined) this.printed.set(level, printed = new Map())
    if (!printed.has(name)) {
      printed.set(name, '')
      const schema = this.componentsAt(level)[name]
      printed.set(name, `${docComment(schema, '    ')}    ${propertyKey(name)}: ${printType(schema, (ref) => this.typeAt(ref, level), '    ')}`)
    }
    return `Between[${literal(this.generation.levels[level])}][${literal(name)}]`
  }

  /** A route part's form (HEAD schema `head` at `level`) as documents write it, and its text with the components it holds. */
  partAt (head: TSchema, level: number): { json: Json, text: string } {
    const form = componentize(this.generation.formAt(head, level), {}, this.generation, this.prepare)
    const json = tuplesAsPrefixItems({ schema: form } as JsonObject).schema as Json
    return { json, text: closureText(this.componentsAt(level), json) }
  }

  /** Adds route `key` at `level` to `Between` (`text`, its members printed); its type there. */
  addRoute (key: string, level: number, text: string): string {
    let printed = this.printed.get(level)
    if (printed === undefined) this.printed.set(level, printed = new Map())
    printed.set(key, `    ${propertyKey(key)}: {\n${text}\n    }`)
    return `Between[${literal(this.generation.levels[level])}][${literal(key)}]`
  }
}

/**
 * The `Between` and `ChangeSides` interfaces of an application's released versions (`values`), or '' when every
 * converter's sides are its versions' (the module is then what it was before decision 0297). `outline` gives a route
 * as a version's `Routes` prints it (by-path converters' sides, decision 0304).
 * @example
 * ```ts
 * const text = betweenChanges(app, ['2001-01-01', '2000-01-01'], () => undefined)
 * ```
 */
export function betweenChanges (app: FastifyInstance, values: readonly string[], outline: (version: string, route: string) => RouteOutline | undefined): string {
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
    const newerLevel = levels.levelOf({ step, index: 0, direction: 'response' })
    const olderLevel = levels.levelOf({ step, index: changes.length - 1, direction: 'request' })
    // The routes by-path converters convert, where both versions have them (under its key in each: a change may move it).
    const routes = convertedRoutes(state.headRoutes, levels.steps, step, state.steps[step], older)
      .filter((route) => outline(origin, route.key) !== undefined && route.olderKey !== undefined && outline(older, route.olderKey) !== undefined)
    const targets = [...new Set(changes.flatMap((change) => change.converters.flatMap(({ target }) => target.kind === 'schema' ? target.schemas : [])))]
      .map((schema) => generation.canonical(schema))
    const shapes = new VersionLevels(generation, [...targets, ...routes.flatMap((route) => routeHeads(route, newerLevel, olderLevel))], { newer: origin, older, newerLevel, olderLevel })
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
        for (const route of routes.filter((each) => each.changes.has(change.name))) {
          const versions = [{ version: origin, level: newerLevel, key: route.key }, { version: older, level: olderLevel, key: route.olderKey as string }]
          if (side === 'older') versions.reverse()
          const type = routeAt(route, level, shapes, versions, outline(versions[0].version, versions[0].key) as RouteOutline)
          if (type !== undefined) lines.push(`      ${propertyKey(route.key)}: ${type}`)
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
    ' * The named schemas (and routes by-path converters convert) between two changes of one version that both edit them,',
    " * by the version and the changes: what the first change's converters leave for the second's (request converters run",
    ' * from the change listed last, response converters from the one listed first).',
    ' */',
    `export interface Between {\n${levelBlocks.join('\n')}\n}`,
    '',
    "/** The sides of a version change's converters that are not its versions' shapes: named schemas or routes another change of its version edits first. */",
    `export interface ChangeSides {\n${sideBlocks.join('\n')}\n}`,
    ''
  ].join('\n')
}
