/**
 * `types`: one TypeScript module with the types of every version of a readied application, written from the
 * documents it serves (so the types are what clients of each version see): the version ids, every named schema,
 * every route's request parts and responses, every webhook, and each version change's two versions, with
 * `Conversion` / `RouteConversion` to type converters by the versions they move between (by the shapes between the
 * changes of a version where two edit one schema or route: ./between-changes.ts). Same application, same bytes.
 * @module
 */
import type { FastifyInstance } from 'fastify'
import { VersionerToolError } from '../core/errors'
import { UNVERSIONED } from '../docs/openapi-documents'
import { isJsonMediaType } from '../routes/schema-forms'
import { operationKeysOf, operationMethod } from '../docs/openapi-schemas'
import { servedDocuments, toolVersions, type ChannelOptions } from './export'
import { follow } from './document-places'
import { betweenChanges } from './between-changes'
import { movedRoutes, type RouteOutline } from './between-routes'
import { versionerStateOf } from './versioned-apis'
import { docComment, isObject, literal, printType, propertyKey, routeKey, type Json, type JsonObject } from './type-printer'

const PARAMETER_PARTS: Readonly<Record<string, string>> = { path: 'params', query: 'query', header: 'headers', cookie: 'cookies' }

/**
 * The schema of a request body or response: its JSON media types' (`application/json`, `application/vnd.acme+json`:
 * JSON as serving reads it), several as their union (decision 0303); else its first media type's.
 */
function contentSchema (document: JsonObject, holder: Json | undefined): Json | undefined {
  const content = follow(document, holder)
  if (!isObject(content) || !isObject(content.content)) return undefined
  const types = Object.entries(content.content).filter((entry): entry is [string, JsonObject] => isObject(entry[1]))
  const json = types.filter(([media]) => isJsonMediaType(media))
  const schemas = (json.length > 0 ? json : types.slice(0, 1)).map(([, entry]) => entry.schema ?? true)
  return schemas.length > 1 ? { anyOf: schemas } : schemas[0]
}

/** Prints one version's named schemas, routes and webhooks, each member of the `Schemas`, `Routes`, `Webhooks` interfaces. */
class VersionTypes {
  constructor (private readonly version: string, private readonly document: JsonObject) {}

  private type (schema: Json | undefined, pad: string): string {
    const version = literal(this.version)
    return printType(schema, (name) => `Schemas[${version}][${literal(name)}]`, pad)
  }

  schemas (): string {
    const components = isObject(this.document.components) && isObject(this.document.components.schemas) ? this.document.components.schemas : {}
    return Object.entries(components)
      .map(([name, schema]) => `${docComment(schema, '    ')}    ${propertyKey(name)}: ${this.type(schema, '    ')}`).join('\n')
  }

  /** One line per operation of the `paths` or `webhooks` object: `print` gets its method, name and path item. */
  private eachOperation (items: Json | undefined, print: (method: string, name: string, operation: JsonObject, item: JsonObject) => string): string {
    const entries: string[] = []
    for (const [name, item] of Object.entries(isObject(items) ? items : {})) {
      if (!isObject(item)) continue
      // A QUERY route's operation is under `x-query` (OpenAPI 3.1 has no `query`), a SEARCH route's under `x-search`.
      for (const key of operationKeysOf(item)) if (isObject(item[key])) entries.push(print(operationMethod(key) as string, name, item[key] as JsonObject, item))
    }
    return entries.join('\n')
  }

  routes (): string {
    return this.eachOperation(this.document.paths, (method, path, operation, item) => {
      const route = routeKey(method, path)
      const shared = Array.isArray(item.parameters) ? item.parameters : []
      return `${docComment({ description: operation.summary ?? null, deprecated: operation.deprecated ?? false }, '    ')}` +
        `    ${literal(route)}: ${this.operation(operation, shared)}`
    })
  }

  private operation (operation: JsonObject, shared: Json[]): string {
    const pad = '      '
    const { parts, statuses } = this.parts(operation, shared)
    const lines = parts.map(([part, type]) => `${pad}${part}: ${type}`)
    lines.push(`${pad}responses: {\n${statuses.map(([status, type]) => `${pad}  ${/^\d+$/.test(status) ? status : literal(status)}: ${type}`).join('\n')}\n${pad}}`)
    return `{\n${lines.join('\n')}\n    }`
  }

  /** An operation's request parts (`body?` where it is optional) and responses by status, each with its printed type. */
  private parts (operation: JsonObject, shared: Json[]): { parts: Array<[string, string]>, statuses: Array<[string, string]> } {
    const pad = '      '
    const parts: Array<[string, string]> = []
    const parameters = [...shared, ...(Array.isArray(operation.parameters) ? operation.parameters : [])]
      .map((parameter) => follow(this.document, parameter)).filter(isObject)
    for (const [location, part] of Object.entries(PARAMETER_PARTS)) {
      const own = parameters.filter((parameter) => parameter.in === location && typeof parameter.name === 'string')
      if (own.length === 0) continue
      const fields = own.map((parameter) => `${docComment(parameter, `${pad}  `)}${pad}  ${propertyKey(String(parameter.name))}` +
        `${parameter.required === true ? '' : '?'}: ${this.type(parameter.schema, `${pad}  `)}`)
      parts.push([part, `{\n${fields.join('\n')}\n${pad}}`])
    }
    const body = follow(this.document, operation.requestBody)
    if (isObject(body)) parts.push([`body${body.required === true ? '' : '?'}`, this.type(contentSchema(this.document, body), pad)])
    const responses = isObject(operation.responses) ? operation.responses : {}
    const statuses = Object.entries(responses).map(([status, response]): [string, string] => {
      const schema = contentSchema(this.document, response)
      return [status, schema === undefined ? 'undefined' : this.type(schema, `${pad}  `)]
    })
    return { parts, statuses }
  }

  /** The parts and response statuses of route `key` ('METHOD /path'), as {@link routes} prints it; undefined where the version has none. */
  outline (key: string): RouteOutline | undefined {
    let found: RouteOutline | undefined
    this.eachOperation(this.document.paths, (method, path, operation, item) => {
      if (routeKey(method, path) === key) {
        const { parts, statuses } = this.parts(operation, Array.isArray(item.parameters) ? item.parameters : [])
        found = { parts: parts.map(([part]) => part), statuses: statuses.map(([status]) => status) }
      }
      return ''
    })
    return found
  }

  webhooks (): string {
    return this.eachOperation(this.document.webhooks, (method, name, operation) =>
      `    ${literal(`${method} ${name}`)}: ${this.type(contentSchema(this.document, operation.requestBody), '    ')}`)
  }
}

/** `Changes`: each version change class by name, with the version before it and the version it gives. */
function changesOf (app: FastifyInstance, values: readonly string[]): string {
  const bundle = app.versioner.versions
  // HEAD's changes give values[0]; each version's give it from the one after it. Without preview versions
  // (`values` the released ones), their changes are left out.
  const holders = [{ value: 'HEAD', changes: bundle.headVersion.changes }, ...bundle.versions.filter((version) => values.includes(version.value))]
  const entries = holders.flatMap((holder, index) => values[index] === undefined ? [] : holder.changes.map((change) => [change.name, values[index], holder.value]))
  const seen = new Set<string>()
  for (const [name] of entries) {
    if (seen.has(name)) throw new VersionerToolError(`types: two version changes are named '${name}'; rename one (the types name changes by class name).`)
    seen.add(name)
  }
  return entries.map(([name, older, newer]) => `  ${propertyKey(name)}: { older: ${literal(older)}, newer: ${literal(newer)} }`).join('\n')
}

const HELPERS = (sided: boolean, moved: boolean): string => `/** The version changes between two documented versions (not HEAD's own, whose newer side is HEAD: use its TypeBox types). */
export type DocumentedChange = { [C in keyof Changes]: Changes[C]['newer'] extends Version ? C : never }[keyof Changes]

type Older<C extends DocumentedChange> = Changes[C]['older']
type Newer<C extends DocumentedChange> = Extract<Changes[C]['newer'], Version>

/**
 * A named schema as the two versions of a version change have it: type a request converter with
 * \`RequestInfo<Conversion<C, Name>['older'], Conversion<C, Name>['newer']>\` and a response converter with
 * \`ResponseInfo<Conversion<C, Name>['newer'], Conversion<C, Name>['older']>\`.${sided ? SIDED_NOTE : ''}
 */
export type Conversion<C extends DocumentedChange, Name extends keyof Schemas[Older<C>] & keyof Schemas[Newer<C>]> = {
${sided ? SIDED : PLAIN}
}

${routeNote(sided, moved)}
export type RouteConversion<C extends DocumentedChange, Route extends ${moved ? 'keyof Routes[Newer<C>] & (keyof Routes[Older<C>] | MovedFrom<C>)' : 'keyof Routes[Older<C>] & keyof Routes[Newer<C>]'}> = {
${(sided ? ROUTE_SIDED : ROUTE_PLAIN).replace('[Older<C>][Route]', moved ? '[Older<C>][OlderRoute<C, Route>]' : '$&')}
}
${moved ? MOVED : ''}`

/**
 * `MovedRoutes` (by version, the routes it has under another key than the version before: that key), or '' where
 * no version moves one.
 */
function movedBlock (moved: Array<[string, Array<[string, string]>]>): string {
  if (moved.length === 0) return ''
  const versions = moved.map(([version, keys]) => `  ${literal(version)}: {\n${keys.map(([key, older]) => `    ${literal(key)}: ${literal(older)}`).join('\n')}\n  }`)
  return '/** The routes a version has under another key than the version before (`endpoint(...).had({ path })`): by key, the key before. */\n' +
    `export interface MovedRoutes {\n${versions.join('\n')}\n}\n`
}

/** The types naming a moved route on the older side of `RouteConversion` (by the key it has there). */
const MOVED = `
/** The routes change \`C\`'s newer version moved, by their key there. */
type MovedFrom<C extends DocumentedChange> = Newer<C> extends keyof MovedRoutes ? keyof MovedRoutes[Newer<C>] : never

/** Route \`Route\` of change \`C\`'s newer version by its key in the older version. */
type OlderRoute<C extends DocumentedChange, Route> = Extract<Newer<C> extends keyof MovedRoutes
  ? Route extends keyof MovedRoutes[Newer<C>] ? MovedRoutes[Newer<C>][Route] : Route
  : Route, keyof Routes[Older<C>]>
`

/** RouteConversion's comment: where a version holds changes that edit one route, and where a version moves one. */
function routeNote (sided: boolean, moved: boolean): string {
  const note = sided ? ROUTE_SIDED_NOTE : '/** A route as the two versions of a version change have it (request parts and responses). */'
  if (!moved) return note
  return `${sided ? note.slice(0, -4) : `/**\n * ${note.slice(4, -3)}\n`} * \`Route\` is its key in the newer version (the path a by-path converter names): a route that version moved is the\n` +
    ' * older version\'s under its key there (`MovedRoutes`).\n */'
}

/** RouteConversion's sides: the versions'. */
const ROUTE_PLAIN = `  older: Routes[Older<C>][Route]
  newer: Routes[Newer<C>][Route]`

/** RouteConversion's comment where a version holds changes that edit one schema or route. */
const ROUTE_SIDED_NOTE = `/**
 * A route as the two versions of a version change have it (request parts and responses). Where another change of its
 * version converts the route first, a side is the route between them (\`ChangeSides\`).
 */`

/** RouteConversion's sides where a version holds changes that edit one schema or route: the route between them, as `ChangeSides` names it. */
const ROUTE_SIDED = `  older: Side<C, 'older', Route, Routes[Older<C>][Route]>
  newer: Side<C, 'newer', Route, Routes[Newer<C>][Route]>`

/** Conversion's sides: the versions'. */
const PLAIN = `  older: Schemas[Older<C>][Name]
  newer: Schemas[Newer<C>][Name]`

/** Conversion's comment where a version holds changes that edit one schema. */
const SIDED_NOTE = `
 * Where another change of its version edits the schema first, a side is the shape between them (\`ChangeSides\`).`

/** Conversion's sides where a version holds changes that edit one schema: the shape between them, as `ChangeSides` names it. */
const SIDED = `  older: Side<C, 'older', Name, Schemas[Older<C>][Name]>
  newer: Side<C, 'newer', Name, Schemas[Newer<C>][Name]>`

/** The type \`Side\` of a module holding \`ChangeSides\`. */
const SIDE = `/** \`Name\` on one side of change \`C\`: the shape \`ChangeSides\` gives it there, else its version's (\`Otherwise\`). */
type Side<C, S extends string, Name, Otherwise> =
  C extends keyof ChangeSides ? S extends keyof ChangeSides[C] ? Name extends keyof ChangeSides[C][S] ? ChangeSides[C][S][Name] : Otherwise : Otherwise : Otherwise
`

function block (name: string, comment: string, members: Array<[string, string]>): string {
  const body = members.map(([version, text]) => `  ${literal(version)}: {${text === '' ? '' : `\n${text}\n  `}}`).join('\n')
  return `/** ${comment} */\nexport interface ${name} {\n${body}\n}\n`
}

/**
 * The TypeScript module of a readied application's released versions (see the module comment; with
 * `{ channel: 'preview' }`, its preview versions too): the same bytes for the same application.
 * @example
 * ```ts
 * import { writeFile } from 'node:fs/promises'
 * declare const app: FastifyInstance // the application, ready
 * await writeFile('api-types.ts', await typesModule(app))
 * ```
 */
export async function typesModule (app: FastifyInstance, options: ChannelOptions = {}): Promise<string> {
  const values = toolVersions(app, options)
  const documents = new Map<string, VersionTypes>()
  for (const { version, body } of await servedDocuments(app, options)) {
    if (version !== UNVERSIONED) documents.set(version, new VersionTypes(version, JSON.parse(body.toString('utf8')) as JsonObject))
  }
  const sided = betweenChanges(app, values, (version, route) => documents.get(version)?.outline(route))
  const moved = movedBlock(movedRoutes(versionerStateOf(app).headRoutes, values, (version, route) => documents.get(version)?.outline(route) !== undefined))
  const each = (print: (types: VersionTypes) => string): Array<[string, string]> =>
    values.map((version) => [version, documents.get(version) === undefined ? '' : print(documents.get(version) as VersionTypes)])
  return [
    '// Generated by `fastify-versioner types`: the types of every version of this API, from the documents it serves.',
    '// Do not edit. Regenerate with `fastify-versioner types <app> --out <file>`; `fastify-versioner check <app> --types',
    '// <file>` exits 1 when this file is stale.',
    '',
    '/** The API versions, newest first. */',
    `export type Version = ${values.map((value) => literal(value)).join(' | ')}`,
    '',
    block('Schemas', 'Every named schema (OpenAPI component) of every version.', each((types) => types.schemas())),
    block('Routes', "Every route of every version, by 'METHOD /path': its request parts and its responses by status.", each((types) => types.routes())),
    block('Webhooks', "Every webhook of every version, by 'METHOD name': the body sent to subscribers.", each((types) => types.webhooks())),
    "/** Each version change, by class name: the version before it and the version it gives ('HEAD' for HeadVersion's). */",
    `export interface Changes {\n${changesOf(app, values)}\n}`,
    '',
    ...(sided === '' ? [] : [sided]),
    ...(moved === '' ? [] : [moved]),
    HELPERS(sided !== '', moved !== ''),
    ...(sided === '' ? [] : [SIDE])
  ].join('\n')
}
