/**
 * A route's own `config.swaggerTransform` (a function, or `false`), which `@fastify/swagger` runs instead of an
 * instance's `transform`: in the documents of this plugin, it runs after the version's transform, on the version's form.
 * @module
 */
import type { RouteOptions } from 'fastify'

/** Marks the OpenAPI object each document of this plugin is built in, with its key (removed once built). */
export const DOCUMENT_KEY = 'x-fastify-versioner-document'

/** What `@fastify/swagger` gives a transform, and what a transform gives back. */
interface TransformInput { schema: unknown, url: string, route: unknown, openapiObject: Record<string, unknown> }
type Transform = (input: TransformInput) => { schema?: unknown, url?: string }

/**
 * Replaces a route's own `swaggerTransform` (in a copy of its `config`) by one that, in a document of this plugin
 * (marked with {@link DOCUMENT_KEY}), runs `documented` and then the route's own (`false`: none) on what it shows,
 * and elsewhere (an application's own `@fastify/swagger`) the route's own alone.
 */
export function keepDocumentTransform (route: RouteOptions, documented: (key: string, input: TransformInput) => ReturnType<Transform>): void {
  const config = route.config as Record<string, unknown> | undefined
  if (config === undefined || config.swaggerTransform === undefined) return
  const given = config.swaggerTransform
  const own = typeof given === 'function' ? given as Transform : undefined
  const swaggerTransform = (input: TransformInput): ReturnType<Transform> => {
    const key = input.openapiObject[DOCUMENT_KEY]
    if (typeof key !== 'string') return own === undefined ? {} : own(input)
    const shown = documented(key, input)
    // A route hidden from the document stays hidden.
    if (own === undefined || (shown.schema as { hide?: unknown } | undefined)?.hide === true) return shown
    const result = own({ ...input, ...shown } as TransformInput)
    return { schema: result.schema ?? shown.schema, url: result.url ?? shown.url }
  }
  route.config = { ...config, swaggerTransform } as never
}
