/**
 * Checks that need every route, run when the application becomes ready: every endpoint instruction
 * matched a route, every by-path converter finds its route in the version its change belongs to, and every
 * by-schema converter (unless `checkUsage: false`) names a schema some route uses.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { describeTarget } from '../describe/converter-decorators'
import { pathConverterMatches } from './converter-targets'
import {
  InvalidGenerationInstructionError, RouteByPathConverterDoesNotApplyToAnythingError, RouteRequestBySchemaConverterDoesNotApplyToAnythingError,
  RouteResponseBySchemaConverterDoesNotApplyToAnythingError
} from '../core/errors'
import { describeSchema, nameOf, type SchemaObject } from '../core/json-schema'
import { componentName } from '../schemas/component-names'
import { forEachSubschema } from '../core/subschemas'
import { kHeadSchema } from '../core/symbols'
import { responseMapAt } from './version-plan'
import type { HeadRoute, VersionerState } from './versioner-state'
import type { DeclaredWebhook } from './webhooks'

const responseLists = new WeakMap<HeadRoute, TSchema[]>()

/** Every response schema a route has in some version (one list per route). */
function responseSchemas (route: HeadRoute): TSchema[] {
  let list = responseLists.get(route)
  if (list === undefined) {
    const schemas = new Set<TSchema>(Object.values(route.schema.response ?? {}))
    for (const state of route.timeline) for (const schema of Object.values(state.attributes.response ?? {})) schemas.add(schema)
    list = [...schemas]
    responseLists.set(route, list)
  }
  return list
}

function occurs (state: VersionerState, roots: readonly (TSchema | undefined)[], schema: TSchema): boolean {
  return roots.some((root) => root !== undefined && state.planner.occurs(root, schema, 0))
}

/** Throws the first problem found, as a `RouterGenerationError` subclass naming the converter or instruction. */
export function checkUsage (state: VersionerState, webhooks: readonly DeclaredWebhook[] = []): void {
  state.log.check()
  for (let level = 1; level < state.steps.length; level++) {
    for (const change of state.steps[level].changes) {
      for (const converter of change.converters) {
        const target = converter.target
        const direction = converter.direction === 'request' ? 'Request' : 'Response'
        if (target.kind === 'path') {
          const found = new Set<string>()
          for (const route of state.headRoutes) {
            const at = route.timeline[level]
            if (pathConverterMatches(at, target)) for (const method of at.methods) found.add(method)
          }
          const missing = target.methods.filter((method) => !found.has(method))
          if (missing.length > 0) {
            throw new RouteByPathConverterDoesNotApplyToAnythingError(`${direction} by path converter "${converter.display}" failed to find ` +
              `routes with the following methods: [${missing.join(', ')}] at ${target.path} in version '${change.version}'. Check the path and ` +
              'methods: the path must include all path parameters and be the path the route has in the version this version change belongs to.')
          }
          continue
        }
        if (!converter.checkUsage) continue
        const unused = target.schemas.filter((schema) => !state.headRoutes.some((route) => {
          const present = route.timeline[level]?.exists === true || route.timeline[level + 1]?.exists === true
          return present && occurs(state, converter.direction === 'request' ? [route.body] : responseSchemas(route), schema)
        }) && !(converter.direction === 'response' && webhooks.some((webhook) => occurs(state, [webhook.body], schema))))
        if (unused.length === 0) continue
        const names = unused.map(describeSchema).join(', ')
        const message = `${direction} by ${converter.direction === 'request' ? 'body' : 'response'} schema converter "${converter.display}" ` +
          `failed to find routes with the following ${converter.direction === 'request' ? 'body' : 'response'} schemas: [${names}] ` +
          `(converting ${describeTarget(target)}). This means that you are trying to apply this converter to non-existing endpoint(s). ` +
          'If this is intentional (a schema used only in webhooks or jobs), declare it with { checkUsage: false }.'
        throw converter.direction === 'request'
          ? new RouteRequestBySchemaConverterDoesNotApplyToAnythingError(message)
          : new RouteResponseBySchemaConverterDoesNotApplyToAnythingError(message)
      }
    }
  }
}

/**
 * Throws when, in some version, two different schemas would have the same OpenAPI component name (a schema
 * renamed with `schema(S).had({ name })` onto the name of another schema that version documents).
 */
export function checkComponentNames (state: VersionerState, webhooks: readonly DeclaredWebhook[] = []): void {
  const { generation } = state
  // A form is the same object in every version it does not change in: its names are listed once.
  const namesIn = new WeakMap<TSchema, ReadonlyArray<readonly [string, string]>>()
  const listNames = (root: TSchema): ReadonlyArray<readonly [string, string]> => {
    const known = namesIn.get(root)
    if (known !== undefined) return known
    const found: Array<readonly [string, string]> = []
    const seen = new Set<TSchema>()
    const visit = (node: TSchema): void => {
      if (seen.has(node)) return
      seen.add(node)
      const source = node as SchemaObject
      if (typeof source.$id === 'string') {
        const head = source[kHeadSchema] as TSchema | undefined
        found.push([componentName(source.$id, generation), head === undefined ? source.$id : nameOf(head) ?? source.$id])
      }
      if (typeof source.$ref === 'string') {
        const target = generation.resolveAnyId(source.$ref)
        if (target !== undefined) visit(target)
      }
      forEachSubschema(node, visit)
    }
    visit(root)
    namesIn.set(root, found)
    return found
  }
  for (let level = 1; level < state.steps.length; level++) {
    const names = new Map<string, string>()
    const check = (form: TSchema): void => {
      for (const [name, origin] of listNames(form)) {
        const known = names.get(name)
        if (known !== undefined && known !== origin) throw nameClash(state, level, name, known, origin)
        names.set(name, origin)
      }
    }
    for (const route of state.headRoutes) {
      if (route.timeline[level]?.exists !== true) continue
      for (const part of [route.schema.body, route.schema.querystring, route.schema.params, route.schema.headers]) {
        if (part !== undefined) check(generation.formAt(part, level))
      }
      for (const response of Object.values(responseMapAt(route, level))) check(generation.formAt(response, level))
    }
    for (const webhook of webhooks) {
      if (webhook.timeline[level]?.exists === true) check(generation.formAt(webhook.body, level))
    }
  }
}

function nameClash (state: VersionerState, level: number, name: string, first: string, second: string): Error {
  const renames = state.steps.flatMap((step) => step.changes.flatMap((change) => change.instructions
    .filter((instruction) => instruction.kind === 'schema.had' && instruction.name === name)
    .map((instruction) => `${instruction.display} in "${change.name}"`)))
  return new InvalidGenerationInstructionError(`In version '${state.versionAt(level)}', two different schemas would both be named '${name}' ` +
    `(the schemas named '${first}' and '${second}' in HEAD)${renames.length > 0 ? `, because of ${renames.join(' and ')}` : ''}. ` +
    'A version documents each name once: rename the schema to a name no other schema of that version has.')
}
