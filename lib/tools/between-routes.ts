/**
 * `types`: the routes a version's by-path converters meet where another change of the same version edits them too
 * (decision 0304). A by-path converter reads the request or response its siblings have converted already, as a
 * by-schema converter does (./between-changes.ts): its sides are the route at the levels of the walk by change, its
 * timeline walked change by change, its parts' forms at those levels. Printed in `Between` beside the schemas, by the
 * route's key, only where the route there is neither version's.
 * @module
 */
import type { TSchema } from '@sinclair/typebox'
import { formatParamUrl } from '@fastify/swagger'
import type { GenerationStep } from '../describe/versions'
import { pathConverterMatches } from '../routes/converter-targets'
import { readRouteForms, type RouteForms } from '../routes/schema-forms'
import { EndpointInstructionLog, routeTimeline, type RouteState } from '../routes/timeline'
import { isSuccessKey } from '../routes/version-plan'
import type { HeadRoute } from '../routes/versioner-state'
import { literal, printType, routeKey, type Json } from './type-printer'

/** What {@link routeAt} needs of a version's shapes between its changes (./between-changes.ts's `VersionLevels`). */
interface LevelShapes {
  partAt: (head: TSchema, level: number) => { json: Json, text: string }
  typeAt: (name: string, level: number) => string
  addRoute: (key: string, level: number, text: string) => string
}

/** A route as `Routes` prints it in one version: its request parts in order (`body?` where optional), its response statuses. */
export interface RouteOutline {
  readonly parts: readonly string[]
  readonly statuses: readonly string[]
}

/** A HEAD route one or more changes of a version convert by path (one method of it), at the levels of the walk by change. */
export interface ConvertedRoute {
  /** Its key in `Routes` ('METHOD /path'), in the version holding the changes. */
  readonly key: string
  /** The names of the changes whose by-path converters convert it. */
  readonly changes: ReadonlySet<string>
  /** Its state at each level of the walk by change. */
  readonly timeline: readonly RouteState[]
  /** Its schemas, with its responses at each level of the walk by change. */
  readonly forms: RouteForms
}

/** A HEAD route's timeline and forms at the levels of the walk by change (`steps`: an endpoint instruction of one change applies between). */
function splitRoute (head: HeadRoute, steps: readonly GenerationStep[]): Pick<ConvertedRoute, 'timeline' | 'forms'> {
  const { exists, attributes, prefix } = head.timeline[0]
  const operationId = typeof head.schema.operationId === 'string' ? head.schema.operationId : undefined
  const timeline = routeTimeline({ path: head.path, methods: head.methods, onlyExistsInOlderVersions: !exists, attributes, operationId, prefix, mayExistNowhere: true },
    new EndpointInstructionLog(steps))
  return { timeline, forms: readRouteForms(head.schema, timeline.map((at) => at.attributes.response), head.display) }
}

/**
 * The routes the by-path converters of the version at `step` (`version`: its `origin` and `changes`) convert, one
 * a method, from the HEAD routes `heads`; `steps` are the walk by change's.
 * @example
 * ```ts
 * const routes = convertedRoutes(state.headRoutes, changeLevels.steps, 1, state.steps[1])
 * ```
 */
export function convertedRoutes (heads: readonly HeadRoute[], steps: readonly GenerationStep[], step: number, version: GenerationStep): ConvertedRoute[] {
  const { origin, changes } = version
  const found: ConvertedRoute[] = []
  for (const head of heads) {
    // As the runtime matches them (../routes/converter-steps.ts): the route as the version holding the changes has it.
    const at = head.timeline[step]
    // Its URL there, as documents write it (a version in the path included).
    const url = head.registered.find((route) => route.behaviours.has(origin))?.url
    if (url === undefined) continue
    const byMethod = new Map<string, Set<string>>()
    for (const change of changes) {
      for (const { target } of change.converters) {
        if (target.kind !== 'path' || !pathConverterMatches(at, target)) continue
        for (const method of at.methods.filter((each) => target.methods.includes(each))) byMethod.set(method, (byMethod.get(method) ?? new Set()).add(change.name))
      }
    }
    if (byMethod.size === 0) continue
    const split = splitRoute(head, steps)
    for (const [method, names] of byMethod) found.push({ key: routeKey(method, formatParamUrl(url)), changes: names, ...split })
  }
  return found
}

/** The HEAD schema of a route's `part` (a request part, or a response status as documented) at `level`, if it has one. */
function headAt ({ forms, timeline }: ConvertedRoute, part: string, level: number): TSchema | undefined {
  if (part === 'params' || part === 'headers') return forms.parts[part]
  if (part === 'query') return forms.parts.querystring
  if (part === 'body') return forms.body.schemas['application/json'] ?? forms.body.schemas[''] ?? Object.values(forms.body.schemas)[0]
  if (part === 'cookies') return undefined
  const slots = forms.responses[level]
  const { statusCode } = timeline[level].attributes
  for (const [key, slot] of slots.byStatus) {
    if ((statusCode !== undefined && isSuccessKey(key) ? String(statusCode) : key) !== part.toLowerCase()) continue
    return slots.schemas[typeof slot === 'string' ? slot : slot.get('application/json') ?? [...slot.values()][0]]
  }
  return undefined
}

/**
 * The HEAD schemas of `route`'s parts from level `from` to level `to`: what its forms there are built from.
 * @example
 * ```ts
 * const heads = routeHeads(route, 3, 5)
 * ```
 */
export function routeHeads (route: ConvertedRoute, from: number, to: number): TSchema[] {
  const { parts, body, responses } = route.forms
  return [...Object.values(parts), ...Object.values(body.schemas), ...responses.slice(from, to + 1).flatMap((slots) => Object.values(slots.schemas))]
}

/**
 * The type of `route` at `level` of the walk by change: undefined where it is the route of its side's version
 * (`sides[0]`), the other version's route where it is that one, else its entry in `Between` (`shapes`), each part
 * a version's where it is that version's there. `outline` is the route as its side's version prints it.
 * @example
 * ```ts
 * routeAt(route, 4, shapes, [{ version: '2000-01-01', level: 5 }, { version: '2001-01-01', level: 3 }], outline)
 * // "Between['2001-01-01 (between Search and Rename)']['POST /teams']"
 * ```
 */
export function routeAt (route: ConvertedRoute, level: number, shapes: LevelShapes, sides: ReadonlyArray<{ version: string, level: number }>, outline: RouteOutline): string | undefined {
  const from = new Set<string>()
  const typeOf = (part: string, member: string, pad: string): string => {
    const here = headAt(route, part, level)
    for (const side of sides) {
      const there = headAt(route, part, side.level)
      if (here === undefined || (there !== undefined && shapes.partAt(here, level).text === shapes.partAt(there, side.level).text)) {
        from.add(side.version)
        return `Routes[${literal(side.version)}][${literal(route.key)}]${member}`
      }
    }
    from.add('')
    return printType(shapes.partAt(here as TSchema, level).json, (name) => shapes.typeAt(name, level), pad)
  }
  const lines = outline.parts.map((part) => `      ${part}: ${typeOf(part.replace(/\?$/, ''), `[${literal(part.replace(/\?$/, ''))}]`, '      ')}`)
  const statuses = outline.statuses.map((status) => {
    const key = /^\d+$/.test(status) ? status : literal(status)
    return `        ${key}: ${typeOf(status, `['responses'][${key}]`, '        ')}`
  })
  lines.push(`      responses: {\n${statuses.join('\n')}\n      }`)
  if (!from.has('') && from.size <= 1) return from.size === 0 || from.has(sides[0].version) ? undefined : `Routes[${literal([...from][0])}][${literal(route.key)}]`
  return shapes.addRoute(route.key, level, lines.join('\n'))
}
