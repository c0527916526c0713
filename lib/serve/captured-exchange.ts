/**
 * The message of the channel `fastify-versioner:exchange` (./exchange-capture.ts publishes it): one exchange of an old
 * version, the request and response as the client and as the handler saw them, plain JSON data.
 * @module
 */
import type { ServedRoute } from './usage-events'
import type { RenderCount } from './webhook-capture'

/**
 * A request as recorded: its body (absent without one), path parameters, query string and headers.
 * @example
 * ```ts
 * import diagnosticsChannel from 'node:diagnostics_channel'
 * const tenantOf = (request: RecordedRequest): unknown => request.headers['x-tenant-id'] // as the client sent it
 * diagnosticsChannel.subscribe('fastify-versioner:exchange', (message) => console.log(tenantOf((message as CapturedExchange).clientRequest)))
 * ```
 */
export interface RecordedRequest {
  readonly body?: unknown
  /** The path parameters (`{ customerId: '…' }`); absent from exchanges recorded before they were. */
  readonly params?: Record<string, unknown>
  readonly query: Record<string, unknown>
  readonly headers: Record<string, unknown>
}

/**
 * A response as recorded: its status, headers and body (JSON data; absent without one).
 * @example
 * ```ts
 * import diagnosticsChannel from 'node:diagnostics_channel'
 * const failed = (response: RecordedResponse): boolean => response.status >= 500
 * diagnosticsChannel.subscribe('fastify-versioner:exchange', (message) => {
 *   const { version, clientResponse } = message as CapturedExchange
 *   if (failed(clientResponse)) console.error(`a ${clientResponse.status} served to a client of ${version}`)
 * })
 * ```
 */
export interface RecordedResponse {
  readonly status: number
  readonly headers: Record<string, unknown>
  readonly body?: unknown
}

/**
 * The message of the channel `fastify-versioner:exchange`: one exchange, plain JSON data (one a line, for `replay`).
 * @example
 * ```ts
 * import diagnosticsChannel from 'node:diagnostics_channel'
 * diagnosticsChannel.subscribe('fastify-versioner:exchange', (message) => {
 *   const { version, route, clientResponse } = message as CapturedExchange
 *   console.log(version, route.method, route.url, clientResponse.status)
 * })
 * ```
 */
export interface CapturedExchange {
  /** The version that served it. */
  readonly version: string
  /** The newest version of the application when it was recorded: `replay` converts between `version` and this one. */
  readonly latest: string
  /** The HEAD route (as registered in `versioned(...)`): the method answering the request, the HEAD path. */
  readonly route: ServedRoute
  /** The request as the client sent it (after the application's own earlier hooks). */
  readonly clientRequest: RecordedRequest
  /** The request as the handler received it: migrated to HEAD, before Fastify's validation. */
  readonly handlerRequest: RecordedRequest
  /** The response as the handler returned it (HEAD data), before the response converters. */
  readonly handlerResponse: RecordedResponse
  /** The response as the client received it: converted and serialized in its version. */
  readonly clientResponse: RecordedResponse
  /** `true` when the version served HEAD data on the route (`everyVersion`). */
  readonly headData?: true
  /**
   * The webhooks rendered while it was served (from its validation to its answer), sampled or not: its handler's, and
   * any other of the process made meanwhile. Absent from exchanges recorded before it was (decision 0177).
   */
  readonly renders?: readonly RenderCount[]
}
