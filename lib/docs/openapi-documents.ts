/**
 * One OpenAPI 3.1 document per version (and one for unversioned routes), each built on first use by its own
 * `@fastify/swagger` registration from the routes registered.
 * @module
 */
import fastifySwagger, { formatParamUrl } from '@fastify/swagger'
import type { TSchema } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import type { DocsVersionOptions, ResolvedDocsOptions } from './options'
import {
  addErrorResponses, componentize, markDeprecatedParameters, moveOtherMethodOperations, operationsOf, pruneComponents, rootForDocs, tuplesAsPrefixItems, unwrapRoots
} from './openapi-schemas'
import { componentName } from '../schemas/component-names'
import { holdsRefBeside, prepareSchema } from '../routes/prepared-schemas'
import { attributesOf, routeSchemaIn, type RouteSchema, type VersionBehaviour } from '../routes/version-plan'
import type { RegisteredRoute, VersionerState } from '../routes/versioner-state'
import { kVersionedRoute } from '../core/symbols'
import type { Webhooks } from '../routes/webhooks'
import { isSchemaObject, type SchemaObject } from '../core/json-schema'
import { isIsoDate } from '../core/iso-date'
import { methodKeepingId, OperationIds } from './operation-ids'
import { headSchemas, VersionExamples } from './version-examples'
import type { MigrationEngine } from '../serve/migrate-response-body'
import { resolveVersion } from '../serve/version-picking'
import { inCanonicalOrder } from './document-order'
import { fastifyAjv } from '../core/strict-validator'
import { PARAMETER_RULES, parameterObjects, parameterRules } from './parameter-rules'
import { DOCUMENT_KEY, keepDocumentTransform } from './route-transforms'
import { describeLifecycle } from './version-lifecycle'
import { unversionedSchema } from './unversioned-schemas'

type Json = Record<string, unknown>

/** The key of the unversioned document. */
export const UNVERSIONED = 'unversioned'

/**
 * The document key a requested value names: `unversioned`, a preview in `previews` named exactly, or the release the
 * API serves the value as; else the value itself, so that the 404 names what was asked.
 */
export function documentKey (value: string, options: Pick<DocsVersionOptions, 'versions' | 'format'>, previews: readonly string[]): string {
  if (value === UNVERSIONED || previews.includes(value)) return value
  const picked = resolveVersion(value, options)
  return picked.ok ? picked.version : value
}

/** Marks an operation whose route sets no `operationId`: the index of its HEAD route, replaced by a generated id. */
const OPERATION_OF = 'x-fastify-versioner-operation-of'

interface SwaggerRouteInput {
  schema: RouteSchema | undefined
  url: string
  route: { config?: Record<symbol | string, unknown> }
}

/** The per-version documents of an application. */
export class OpenApiDocuments {
  /** Each document's `@fastify/swagger` decorator (it builds the document on first call, then keeps it), by key. */
  private readonly builders = new Map<string, () => Json>()
  private operationIds: OperationIds | undefined
  /** The changelog route's URL, when the unversioned document lists it (hidden from every other document). */
  private changelogAt: string | undefined
  private readonly examples: VersionExamples
  /** Whether the application's Ajv fills in a default a request leaves out (`useDefaults`, on in Fastify). */
  private defaultsFilled: boolean | undefined

  constructor (
    private readonly state: VersionerState,
    private readonly options: DocsVersionOptions,
    private readonly docs: ResolvedDocsOptions,
    private readonly setup: { readonly webhooks: Webhooks, readonly engine: MigrationEngine }
  ) {
    this.examples = new VersionExamples(setup.engine, () => headSchemas(state, setup.webhooks))
  }

  /** Registers one `@fastify/swagger` per document (before any route, so that they see every route). */
  async register (fastify: FastifyInstance): Promise<void> {
    if (this.docs.changelogUrl !== null && this.docs.includeChangelogUrlInSchema) this.changelogAt = `${fastify.prefix}${this.docs.changelogUrl}`
    // A route's own swaggerTransform, which @fastify/swagger runs instead of the transform below, runs after it.
    fastify.addHook('onRoute', (route) => keepDocumentTransform(route, (key, input) => this.transform(key, input as SwaggerRouteInput)))
    // The document keys: every version, newest first, then `unversioned`.
    for (const [index, key] of [...this.options.versions.versionValues, UNVERSIONED].entries()) {
      const decorator = `fastifyVersionerOpenApi${index}`
      await fastify.register(fastifySwagger, {
        decorator,
        hideUntagged: false,
        openapi: {
          ...this.docs.openapi,
          openapi: '3.1.0',
          info: { title: 'API', ...this.docs.openapi.info, version: key },
          [DOCUMENT_KEY]: key
        } as never,
        refResolver: {
          buildLocalReference: (json: Json, _baseUri: unknown, _fragment: unknown, index: number) =>
            typeof json.$id === 'string' ? componentName(json.$id, this.state.generation) : `def-${index}`
        },
        transform: ((input: SwaggerRouteInput) => this.transform(key, input)) as never,
        transformObject: (({ openapiObject }: { openapiObject: Json }) => this.finish(key, openapiObject)) as never
      })
      this.builders.set(key, (fastify as unknown as Record<string, () => Json>)[decorator])
    }
  }

  /** The document of a key (a version or `unversioned`), or `undefined` when there is none. */
  document (key: string): Json | undefined {
    const document = this.builders.get(key)?.()
    return document === undefined || (key === UNVERSIONED && Object.keys((document.paths ?? {}) as Json).length === 0) ? undefined : document
  }

  private transform (key: string, { schema, url, route }: SwaggerRouteInput): { schema?: RouteSchema, url?: string } {
    const hidden = { schema: { ...schema, hide: true } }
    const registered = route.config?.[kVersionedRoute] as RegisteredRoute | undefined
    if (key === UNVERSIONED) {
      if (registered !== undefined) return hidden
      if (url === this.changelogAt) return { schema: { ...schema, hide: false } }
      // Keywords beside a `$ref`, which `@fastify/swagger` drops, as the versions' documents write them (decision 0309).
      const documented = unversionedSchema(schema, url, (ref) => this.state.generation.resolveAnyId(ref))
      return documented === undefined ? {} : { schema: documented }
    }
    const behaviour = registered?.behaviours.get(key)
    if (registered === undefined || behaviour === undefined || behaviour.state.attributes.hide === true) return hidden
    return { schema: this.schemaFor(registered, behaviour, url), url }
  }

  /** The schema `@fastify/swagger` documents for a route in a version. */
  private schemaFor (registered: RegisteredRoute, behaviour: VersionBehaviour, url: string): RouteSchema {
    const { generation } = this.state
    const schema = parameterObjects(routeSchemaIn(registered.head, behaviour, generation, (form, part) => {
      const prepared = this.examples.at(form, behaviour.level)
      return part === 'body' || part === 'response' ? rootForDocs(prepared) : prepared
    }), (ref) => generation.resolveAnyId(ref))
    // Where @fastify/swagger writes `deprecated` (the version's lifecycle is not one of the route's attributes).
    if (this.versionDeprecated(behaviour.version)) schema.deprecated = true
    schema[OPERATION_OF] = this.state.headRoutes.indexOf(registered.head)
    // A rule on a parameter object as a whole, which `@fastify/swagger` drops, for `check` (decision 0198).
    const rules = parameterRules(schema, (ref) => generation.resolveAnyId(ref))
    if (rules !== undefined) schema[PARAMETER_RULES] = rules
    this.addVersionParameter(schema, behaviour.version, url)
    return schema
  }

  /** The version `apiVersionDefaultValue` names, unless it has a `releasedAt`: documents never depend on the clock. */
  private defaultVersion (): string | undefined {
    const value = this.options.defaultValue
    const picked = typeof value === 'string' ? resolveVersion(value, { versions: this.options.versions, format: this.options.format }) : undefined
    // A release named exactly was served at start-up (registration refuses one to come); a date reaching one moves at its instant.
    return picked?.ok === true && (picked.version === value || this.options.versions.get(picked.version)?.releasedAt === undefined) ? picked.version : undefined
  }

  /** True when a version has a deprecation date: each of its operations is deprecated. */
  private versionDeprecated (version: string): boolean {
    return this.options.versions.get(version)?.deprecatedAt !== undefined
  }

  private addVersionParameter (schema: RouteSchema, version: string, url: string): void {
    const { location, format, headerName, parameterName, apiVersionTitle, apiVersionDescription } = this.options
    const parameter: SchemaObject = { type: 'string', enum: [version] } as unknown as SchemaObject
    // A named version (`2025-06-01.dahlia`) is not an RFC 3339 full-date: only plain dates carry the format.
    if (format === 'date' && isIsoDate(version)) parameter.format = 'date'
    if (apiVersionTitle !== undefined) parameter.title = apiVersionTitle
    if (apiVersionDescription !== undefined) parameter.description = apiVersionDescription
    const part = location === 'header' ? 'headers' : 'params'
    const name = location === 'header' ? headerName : parameterName
    if (location === 'header') parameter.default = version
    const given = schema[part] as SchemaObject | undefined
    // `@fastify/swagger` reads a `$ref` alone, dropping properties beside it: read the shared schema it names instead.
    const shared = typeof given?.$ref === 'string' ? this.state.generation.resolveAnyId(given.$ref) as SchemaObject | undefined : undefined
    const { $id: _id, ...resolved } = shared ?? {}
    const existing = shared === undefined ? given : resolved as SchemaObject
    // Without a params schema, `@fastify/swagger` documents each of the URL's parameters as a string: so do the
    // params this adds, or the version's would be the only one.
    const inferred = location === 'path' && given === undefined
      ? Object.fromEntries([...formatParamUrl(url).matchAll(/\{([^{}]+)\}/g)].map(([, param]) => [param, { type: 'string' }]))
      : {}
    // The route's own declaration of the version header, in any case, gives way to this one (header names ignore case).
    const other = (key: string): boolean => location !== 'header' || key.toLowerCase() !== name.toLowerCase()
    const properties = { ...inferred, ...Object.fromEntries(Object.entries(isSchemaObject(existing?.properties) ? existing.properties : {}).filter(([key]) => other(key))), [name]: parameter }
    const required = (Array.isArray(existing?.required) ? existing?.required as string[] : []).filter(other)
    // A header is not a required parameter, so that a client generated for the version needs no version argument
    // on each call: such a client sends it from its default headers (see docs/generated-clients.md), and the server answers 400 without it.
    if (location === 'path') required.push(name)
    schema[part] = { ...existing, type: 'object', properties, required } as unknown as TSchema
  }

  /** Finishes a document built by `@fastify/swagger`. */
  private finish (key: string, built: Json): Json {
    const document = unwrapRoots(built)
    delete document[DOCUMENT_KEY]
    const components = (document.components ??= {}) as Json
    const schemas = (components.schemas ??= {}) as Record<string, unknown>
    const level = key === UNVERSIONED ? undefined : this.state.generation.levelOf(key)
    if (level !== undefined) this.addWebhooks(key, level, document, schemas)
    this.versionSharedComponents(level, schemas)
    const used = new Set(operationsOf(document).flatMap((operation) => Array.isArray(operation.tags) ? operation.tags as string[] : []))
    if (Array.isArray(document.tags)) {
      const tags = (document.tags as Array<{ name: string }>).filter((tag) => used.has(tag.name))
      if (tags.length > 0) document.tags = tags
      else delete document.tags
    }
    pruneComponents(document)
    if (level !== undefined) {
      this.examples.finish(document, level)
      this.nameOperations(document)
      addErrorResponses(document, this.options.location === 'header' ? this.options.headerName : undefined)
      const served = this.defaultVersion()
      // Which version a request naming none is served as, so that `check` sees it change (a function decides per request).
      if (served !== undefined) (document.info as Json)['x-api-version-default'] = served
    }
    const version = this.options.versions.get(key)
    if (version !== undefined) describeLifecycle(document.info as Json, version)
    this.defaultsFilled ??= Boolean(fastifyAjv({}, this.setup.engine.ajv).opts?.useDefaults)
    markDeprecatedParameters(document, this.defaultsFilled)
    moveOtherMethodOperations(document)
    return inCanonicalOrder(tuplesAsPrefixItems(document)) // OpenAPI 3.1's schemas are JSON Schema 2020-12's
  }

  /**
   * Gives each operation marked by {@link schemaFor} its id (one object per method: a route may have several): the
   * route's own, else a generated one.
   */
  private nameOperations (document: Json): void {
    this.operationIds ??= new OperationIds(this.state.headRoutes, this.setup.webhooks.list())
    for (const item of Object.values((document.paths ?? {}) as Record<string, Json>)) {
      const marked = Object.entries(item).filter(([, operation]) => isSchemaObject(operation) && typeof operation[OPERATION_OF] === 'number')
      const methodsOf = (index: unknown): string[] => marked.filter(([, operation]) => (operation as Json)[OPERATION_OF] === index).map(([method]) => method)
      for (const [method, operation] of marked) {
        const { [OPERATION_OF]: index, ...rest } = operation as Json
        const head = this.state.headRoutes[index as number]
        // A route with one method keeps its HEAD method's id in every version, whatever its method there; where a version
        // gives it several, one keeps it and the others are named by their own.
        const keeps = head.methods.length > 1 || methodKeepingId(head, methodsOf(index)) === method.toUpperCase()
        const { operationId: given, ...others } = rest
        item[method] = keeps && typeof given === 'string'
          ? rest
          : { operationId: this.operationIds.of(head, head.methods.length === 1 && keeps ? head.methods[0] : method), ...others }
      }
    }
  }

  /**
   * The application's shared schemas as components, `@fastify/swagger`'s HEAD forms replaced by the version's (in the
   * unversioned document, no `level`: HEAD's, where keywords beside a `$ref` are dropped there, decision 0309).
   */
  private versionSharedComponents (level: number | undefined, schemas: Record<string, unknown>): void {
    const { generation } = this.state
    // The unversioned document's (no level) are HEAD's, without examples, as `@fastify/swagger` writes them.
    // The unversioned document has no examples of its own (`@fastify/swagger` writes none).
    const prepare = (schema: TSchema): TSchema => level === undefined ? prepareSchema(schema, generation, 'docs') : this.examples.at(schema, level)
    for (const name of Object.keys(schemas)) {
      const head = generation.sharedSchema(name) === undefined ? undefined : generation.resolveRef(name)
      const form = head === undefined || level === undefined ? head as SchemaObject | undefined : generation.formAt(head, level) as SchemaObject
      if ((form !== head || (head !== undefined && holdsRefBeside(head))) && typeof form?.$id === 'string') componentize({ $ref: form.$id } as unknown as TSchema, schemas, generation, prepare)
    }
  }

  private addWebhooks (version: string, level: number, document: Json, schemas: Record<string, unknown>): void {
    const prepare = (schema: TSchema): TSchema => this.examples.at(schema, level)
    const webhooks: Record<string, Json> = {}
    for (const webhook of this.setup.webhooks.list()) {
      const state = webhook.timeline[level]
      if (state === undefined || !state.exists || state.attributes.hide === true) continue
      const form = this.state.generation.formAt(webhook.body, level)
      const { deprecated, hide: _hide, ...text } = attributesOf(state.attributes)
      const operation: Json = { ...text }
      // In a document, operations are deprecated when they or their version are (`false` is not written).
      if (deprecated === true || this.versionDeprecated(version)) operation.deprecated = true
      operation.requestBody = { required: true, content: { 'application/json': { schema: componentize(form, schemas, this.state.generation, prepare) } } }
      operation.responses = { 200: { description: 'Return a 2xx status to acknowledge the delivery.' } }
      const item = webhooks[state.path] ?? {}
      for (const method of state.methods) item[method.toLowerCase()] = operation
      webhooks[state.path] = item
    }
    if (Object.keys(webhooks).length > 0) document.webhooks = webhooks
  }
}
