/**
 * Checks that need every route, run when the application becomes ready: every endpoint instruction
 * matched a route, every by-path converter finds its route in the version its change belongs to, and every
 * by-schema converter (unless `checkUsage: false`) names a schema some route uses; and every method named by an
 * endpoint instruction or a by-path converter is one the application routes (the second step of the method
 * check of `lib/core/http-methods.ts`).
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { pathConverterMatches } from './converter-targets'
import {
  LintingError, RouteByPathConverterDoesNotApplyToAnythingError, RouteRequestBySchemaConverterDoesNotApplyToAnythingError,
  RouteResponseBySchemaConverterDoesNotApplyToAnythingError
} from '../core/errors'
import { describeSchema } from '../core/json-schema'
import { isEndpointInstruction } from '../describe/instructions'
import type { HeadRoute, VersionerState } from './versioner-state'
import type { DeclaredWebhook } from './webhooks'

/** Every response schema a route has in some version. */
function responseSchemas (route: HeadRoute): TSchema[] {
  return [...new Set(route.forms.responses.flatMap((slots) => Object.values(slots.schemas)))]
}

function occurs (state: VersionerState, roots: readonly (TSchema | undefined)[], schema: TSchema): boolean {
  return roots.some((root) => root !== undefined && state.planner.targets.occurs(root, schema, 0))
}

/** Throws the first problem found, as a `RouterGenerationError` subclass naming the converter or instruction. */
export function checkUsage (state: VersionerState, webhooks: readonly DeclaredWebhook[] = []): void {
  const partial = state.options.partialApp === true
  state.log.check(state.headRoutes.map((route) => route.display), partial)
  // Every response schema of each route, listed once for the whole check.
  const responsesOf = new Map(state.headRoutes.map((route) => [route, responseSchemas(route)]))
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
          // A partial application may lack the route altogether.
          if (missing.length > 0 && !(partial && found.size === 0)) {
            throw new RouteByPathConverterDoesNotApplyToAnythingError(`${direction} by path converter "${converter.display}" failed to find ` +
              `routes with the following methods: [${missing.join(', ')}] at ${target.path} in version '${change.version}'. Check the path and ` +
              'methods: the path must include all path parameters and be the path the route has in the version this version change belongs to.')
          }
          continue
        }
        if (!converter.checkUsage || partial) continue
        const unused = target.schemas.filter((schema) => !state.headRoutes.some((route) => {
          const present = route.timeline[level]?.exists === true || route.timeline[level + 1]?.exists === true
          return present && occurs(state, converter.direction === 'request' ? Object.values(route.forms.body.schemas) : responsesOf.get(route) ?? [], schema)
        }) && !(converter.direction === 'response' && webhooks.some((webhook) => occurs(state, [webhook.body], schema))))
        if (unused.length === 0) continue
        const names = unused.map(describeSchema).join(', ')
        const message = `${direction} by ${converter.direction === 'request' ? 'body' : 'response'} schema converter "${converter.display}" ` +
          `failed to find routes with the following ${converter.direction === 'request' ? 'body' : 'response'} schemas: [${names}] ` +
          `(converting ${target.schemas.map(describeSchema).join(', ')}). This means that you are trying to apply this converter to non-existing endpoint(s). ` +
          'If this is intentional (a schema used only in webhooks or jobs), declare it with { checkUsage: false }.'
        throw converter.direction === 'request'
          ? new RouteRequestBySchemaConverterDoesNotApplyToAnythingError(message)
          : new RouteResponseBySchemaConverterDoesNotApplyToAnythingError(message)
      }
    }
  }
}

/**
 * Throws `LintingError` naming the first method this application does not route (`fastify.supportedMethods`:
 * Fastify's own list, with `QUERY` and methods added with `fastify.addHttpMethod`), and where it is named.
 */
export function checkMethods (state: VersionerState, supported: readonly string[]): void {
  const routable = new Set(supported)
  const unsupported = (methods: readonly string[] | undefined): string[] => (methods ?? []).filter((method) => !routable.has(method))
  const fail = (methods: string[], where: string): never => {
    throw new LintingError(`${methods.join(', ')} (in ${where}; this application routes ${[...routable].sort().join(', ')}, ` +
      'add others with fastify.addHttpMethod before the application is ready)')
  }
  for (const step of state.steps) {
    for (const change of step.changes) {
      for (const instruction of change.instructions) {
        if (!isEndpointInstruction(instruction)) continue
        const missing = [...unsupported(instruction.methods), ...unsupported(instruction.kind === 'endpoint.had' ? instruction.attributes.methods : undefined)]
        if (missing.length > 0) fail(missing, `${instruction.display} of version change '${change.name}'`)
      }
      for (const converter of change.converters) {
        if (converter.target.kind !== 'path') continue
        const missing = unsupported(converter.target.methods)
        if (missing.length > 0) fail(missing, `converter ${converter.display}`)
      }
    }
  }
}
