/**
 * What `replaceFromEveryVersion` reads of a version's replace route: its body schema (through `$ref`s, `allOf`,
 * unions and the JSON media type), the optional fields a client may leave out, and whether the route declares it
 * replaces what it stores ([decision 0141](../../docs/decisions/0141-replaces-proven-through-the-handler.md)).
 * @module
 */
import type { FastifyInstance } from 'fastify'
import type { TSchema } from '@sinclair/typebox'
import { isSchemaObject, type SchemaObject } from '../core/json-schema'
import { childrenOf, MAX_WALK_DEPTH, type ResolveRef } from '../values/shapes'
import { visibleFields } from '../schemas/object-fields'
import { versionedApis, versionerStateOf } from './versioned-apis'
import type { VersionRequest } from './every-version'

/**
 * Finds a schema by `$ref`: a versioned API's generated schemas, then the schemas added to its context.
 * @example
 * ```ts
 * const customer = schemaResolver(app)('Customer')
 * ```
 */
export function schemaResolver (app: FastifyInstance): ResolveRef {
  const apis = versionedApis(app)
  return (ref) => {
    const id = ref.replace(/#$/, '')
    for (const { context } of apis) {
      const found = versionerStateOf(context).generation.resolveAnyId(id) ?? context.getSchema(id) as TSchema | undefined
      if (found !== undefined) return found
    }
    return undefined
  }
}

/**
 * The schema of a version's replace body: the JSON one of a route that gives `content` by media type.
 * @example
 * ```ts
 * const example = exampleOf(bodySchema(request), { includeOptional: true })
 * ```
 */
export function bodySchema (request: VersionRequest): unknown {
  const body = request.route.schema.body
  if (!isSchemaObject(body) || !isSchemaObject(body.content)) return body
  const json = Object.entries(body.content).find(([type]) => /\bjson\b/i.test(type))?.[1]
  return isSchemaObject(json) ? json.schema : undefined
}

/**
 * The optional top-level fields of a version's replace body, with their default when they have one: the fields its
 * object, `$ref`, `allOf` and union members declare and none requires. A `readOnly` field is no client's to clear.
 * @example
 * ```ts
 * for (const [name, field] of optionalFields(request, schemaResolver(app))) if ('default' in field) console.log(name, field.default)
 * ```
 */
export function optionalFields (request: VersionRequest, resolveRef: ResolveRef): Map<string, { default?: unknown }> {
  const declared = new Map<string, unknown>()
  const required = new Set<unknown>()
  const visit = (node: unknown, depth: number): void => {
    if (!isSchemaObject(node) || depth > MAX_WALK_DEPTH) return
    if (typeof node.$ref === 'string') return visit(resolveRef(node.$ref), depth + 1)
    const children = childrenOf(node)
    for (const [name, schema] of children.properties) if (!declared.has(name)) declared.set(name, schema)
    if (Array.isArray(node.required)) for (const name of node.required) required.add(name)
    for (const member of [...children.allOf, ...children.unions.flat()]) visit(member, depth + 1)
  }
  visit(bodySchema(request), 0)
  const fields = new Map<string, { default?: unknown }>()
  for (const [name, schema] of declared) {
    const field = isSchemaObject(schema) && typeof schema.$ref === 'string' ? resolveRef(schema.$ref) as SchemaObject | undefined : schema as SchemaObject
    if (required.has(name) || field?.readOnly === true) continue
    fields.set(name, field !== undefined && Object.hasOwn(field, 'default') ? { default: field.default } : {})
  }
  return fields
}

/**
 * False for a route declared `fullReplace: false` (a partial update: leaving a field out keeps it), a `POST` not declared one,
 * or the `PATCH` of a route with other methods too.
 * @example
 * ```ts
 * if (declaresReplace(app, request)) await clearsOptionalFields(run, version, sent, found)
 * ```
 */
export function declaresReplace (app: FastifyInstance, request: VersionRequest): boolean {
  const method = String(request.injected.method).toUpperCase()
  for (const { context } of versionedApis(app)) {
    const head = versionerStateOf(context).headRoutes.find((route) => route.path === request.route.headPath && route.methods.some((each) => each === method))
    if (head !== undefined) return head.fullReplace.methods.has(method)
  }
  return true
}

/**
 * The top-level fields of a version's replace body that are no HEAD field (removed since, `existedAs`; or one removed
 * and added again, a field of the same name that is another): the handler stores none of them, so no replace clears
 * them, whatever a response converter fills them with. Matched by identity, which survives renames.
 * @example
 * ```ts
 * if (formerFields(app, request).has('code')) continue // the version's code is made by a response converter
 * ```
 */
export function formerFields (app: FastifyInstance, request: VersionRequest): ReadonlySet<string> {
  const method = String(request.injected.method).toUpperCase()
  for (const { context } of versionedApis(app)) {
    const { headRoutes, generation } = versionerStateOf(context)
    const head = headRoutes.find((route) => route.path === request.route.headPath && route.methods.some((each) => each === method))
    if (head === undefined) continue
    const schemas = head.forms.body.schemas
    const body = schemas[''] ?? Object.entries(schemas).find(([type]) => /\bjson\b/i.test(type))?.[1]
    if (body === undefined || generation.seedOf(body) === undefined) return new Set()
    const level = generation.levelOf(request.version)
    const [now, then] = [generation.stateAt(body, level), generation.stateAt(body, 0)]
    if (now.kind !== 'object' || then.kind !== 'object') return new Set()
    const heads = new Set(visibleFields(then, (schema) => generation.stateAt(schema, 0)).map(({ field }) => field.id))
    return new Set(visibleFields(now, (schema) => generation.stateAt(schema, level)).filter(({ field }) => !heads.has(field.id)).map(({ key }) => key))
  }
  return new Set()
}
