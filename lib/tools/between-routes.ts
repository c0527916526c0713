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
import type { HttpMethod } from '../core/http-methods'
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
  /** Its key in the version before (another where a change moves it: `endpoint(...).had({ path })`), if that version has it. */
  readonly olderKey: string | undefined
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
 * The keys of method `method` of a HEAD route in version `newer` and in version `older` ('METHOD /path', from the URL
 * documents write: a version in the path included), each undefined where that version has no such route. A route
 * whose methods a version changes (`had({ methods })`) pairs them by position.
 */
function keysOf (head: HeadRoute, method: string, newer: string, older: string): { key?: string, olderKey?: string } {
  const [here, there] = [newer, older].map((version) => head.registered.find((route) => route.behaviours.has(version)))
  if (here === undefined) return {}
  const key = routeKey(method, formatParamUrl(here.url))
  if (there === undefined) return { key }
  const olderMethod = there.methods.includes(method as HttpMethod) || there.methods.length !== here.methods.length
    ? method
    : there.methods[here.methods.indexOf(method as HttpMethod)]
  return { key, olderKey: there.methods.includes(olderMethod as HttpMethod) ? routeKey(olderMethod, formatParamUrl(there.url)) : undefined }
}

/**
 * The routes each version of `values` (newest first) has under another key than the version before it
 * (`endpoint(...).had({ path })`, `had({ methods })`): by version, key → its key in the version before. `has` tells
 * whether a version's `Routes` holds a key (a route its document hides is none).
 * @example
 * ```ts
 * movedRoutes(state.headRoutes, ['2001-01-01', '2000-01-01'], has) // [['2001-01-01', [['POST /organizations', 'POST /teams']]]]
 * ```
 */
export function movedRoutes (heads: readonly HeadRoute[], values: readonly string[], has: (version: string, key: string) => boolean): Array<[string, Array<[string, string]>]> {
  const found: Array<[string, Array<[string, string]>]> = []
  values.forEach((newer, index) => {
    const older = values[index + 1]
    const moved: Array<[string, string]> = []
    for (const head of older === undefined ? [] : heads) {
      for (const method of head.registered.find((route) => route.behaviours.has(newer))?.methods ?? []) {
        const { key, olderKey } = keysOf(head, method, newer, older)
        if (key !== undefined && olderKey !== undefined && key !== olderKey && has(newer, key) && has(older, olderKey)) moved.push([key, olderKey])
      }
    }
    if (moved.length > 0) found.push([newer, moved])
  })
  return found
}

/**
 * The routes the by-path converters of the version at `step` (`version`: its `origin` and `changes`; `older`, the
 * version before it) convert, one a method, from the HEAD routes `heads`; `steps` are the walk by change's.
 * @example
 * ```ts
 * const routes = convertedRoutes(state.headRoutes, changeLevels.steps, 1, state.steps[1], '2000-01-01')
 * ```
 */
export function convertedRoutes (heads: readonly HeadRoute[], steps: readonly GenerationStep[], step: number, version: GenerationStep, older: string): ConvertedRoute[] {
  const { origin, changes } = version
  const found: ConvertedRoute[] = []
  for (const head of heads) {
    // As the runtime matches them (../routes/converter-steps.ts): the route as the version holding the changes has it.
    const at = head.timeline[step]
    if (!head.registered.some((route) => route.behaviours.has(origin))) continue
    const byMethod = new Map<string, Set<string>>()
    for (const change of changes) {
      for (const { target } of change.converters) {
        if (target.kind !== 'path' || !pathConverterMatches(at, target)) continue
        for (const method of at.methods.filter((each) => target.methods.includes(each))) byMethod.set(method, (byMethod.get(method) ?? new Set()).add(change.name))
      }
    }
    if (byMethod.size === 0) continue
    const split = splitRoute(head, steps)
    for (const [method, names] of byMethod) {
      const { key, olderKey } = keysOf(head, method, origin, older)
      found.push({ key: key as string, olderKey, changes: names, ...split })
    }
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
 * a version's where it is that version's there (by the route's `key` in that version). `outline` is the route as its
 * side's version prints it.
 * @example
 * ```ts
 * routeAt(route, 4, shapes, [{ version: '2000-01-01', level: 5, key: 'POST /teams' }, { version: '2001-01-01', level: 3, key: 'POST /teams' }], outline)
 * // "Between['2001-01-01 (between Search and Rename)']['POST /teams']"
 * ```
 */
export function routeAt (route: ConvertedRoute, level: number, shapes: LevelShapes, sides: ReadonlyArray<{ version: string, level: number, key: string }>, outline: RouteOutline): string | undefined {
  const from = new Set<string>()
  const typeOf = (part: string, member: string, pad: string): string => {
    const here = headAt(route, part, level)
    for (const side of sides) {
      const there = headAt(route, part, side.level)
      if (here === undefined || (there !== undefined && shapes.partAt(here, level).text === shapes.partAt(there, side.level).text)) {
        from.add(side.version)
        return `Routes[${literal(side.version)}][${literal(side.key)}]${member}`
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
  const only = sides.find((side) => from.has(side.version))
  if (!from.has('') && from.size <= 1) return only === undefined || only === sides[0] ? undefined : `Routes[${literal(only.version)}][${literal(only.key)}]`
  return shapes.addRoute(route.key, level, lines.join('\n'))
}
