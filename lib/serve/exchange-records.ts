/**
 * What `captureExchanges` publishes on `fastify-versioner:exchange` (./exchange-capture.ts records it): a handled
 * exchange, or a refused one (decision 0307: a request its version's validation or a request converter refused with a
 * 4xx once its version was picked, in a form of its own, `refused`, with no handler's request or response, so that
 * `replay` proves an old client is still refused alike); the facts of a refusal, and the redaction of both forms.
 * @module
 */
import type { ServedRoute } from './usage-events'
import type { RenderCount } from './webhook-capture'
import { redact, type RedactedParts, type Redaction } from '../values/redaction'

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

/**
 * What refused a request, as the request hook handed it to the error handler: by `validation` (the version's schema:
 * its part, and the instance path and keyword of its first error) or by a request `converter` (its 4xx error's code and
 * message). `message` is the error's message (for validation, the text Ajv and the schema error formatter wrote).
 * @example
 * ```ts
 * const refusal: Refusal = { by: 'validation', status: 400, code: 'FST_ERR_VALIDATION', part: 'body', instancePath: '', keyword: 'required', message: "body must have required property 'name'" }
 * ```
 */
export interface Refusal {
  readonly by: 'validation' | 'converter'
  readonly status: number
  readonly code?: string
  readonly part?: string
  readonly instancePath?: string
  readonly keyword?: string
  readonly message: string
}

/**
 * A refused exchange of the channel `fastify-versioner:exchange`: told from a handled one by `refused` (and by having
 * neither `handlerRequest` nor `handlerResponse`: no handler saw it).
 * @example
 * ```ts
 * import diagnosticsChannel from 'node:diagnostics_channel'
 * diagnosticsChannel.subscribe('fastify-versioner:exchange', (message) => {
 *   if ('refused' in (message as object)) {
 *     const { version, refused, clientResponse } = message as RefusedExchange
 *     console.log(version, refused.by, clientResponse.status)
 *   }
 * })
 * ```
 */
export interface RefusedExchange {
  /** The version that refused it. */
  readonly version: string
  /** The newest version of the application when it was recorded. */
  readonly latest: string
  /** The HEAD route (as registered in `versioned(...)`). */
  readonly route: ServedRoute
  /** The request as the client sent it (after the application's own earlier hooks). */
  readonly clientRequest: RecordedRequest
  /** What refused it. */
  readonly refused: Refusal
  /** The error as the error handler answered it, before the version's error converters (`migrateHttpErrors`). */
  readonly refusedResponse: RecordedResponse
  /** The response as the client received it. */
  readonly clientResponse: RecordedResponse
}

/** The facts of a refusal error (`converter`: thrown by a request converter, else the version's validation). */
export function refusalOf (error: Error, converter: boolean): Refusal {
  const { statusCode, status, code, validation, validationContext } = error as Error & Record<string, unknown>
  const first = Array.isArray(validation) ? validation[0] as { instancePath?: unknown, keyword?: unknown } | undefined : undefined
  const facts = {
    by: converter ? 'converter' as const : 'validation' as const,
    status: typeof statusCode === 'number' ? statusCode : typeof status === 'number' ? status : 400,
    ...(typeof code === 'string' ? { code } : {}),
    message: error.message
  }
  if (converter) return facts
  return {
    ...facts,
    ...(typeof validationContext === 'string' ? { part: validationContext } : {}),
    ...(typeof first?.instancePath === 'string' ? { instancePath: first.instancePath } : {}),
    ...(typeof first?.keyword === 'string' ? { keyword: first.keyword } : {})
  }
}

/** The refused exchange redacted as handled ones are (./exchange-capture.ts): named headers and pointers, and their values elsewhere. */
export function redactedRefusal (exchange: RefusedExchange, redaction: Redaction): RefusedExchange {
  if (redaction.headers.size === 0 && redaction.pointers.length === 0) return exchange
  const { clientRequest, refusedResponse, clientResponse, refused } = exchange
  const data = [
    { value: clientRequest.body }, { value: clientRequest.query }, { value: clientRequest.params },
    { value: refusedResponse.body }, { value: clientResponse.body }, { value: { message: refused.message } }
  ]
  const headers = [clientRequest.headers, refusedResponse.headers, clientResponse.headers]
  if (!redact({ headers, data }, redaction)) return exchange
  return {
    ...exchange,
    clientRequest: { ...clientRequest, body: data[0].value, query: data[1].value as Record<string, unknown>, params: data[2].value as Record<string, unknown> },
    refusedResponse: { ...refusedResponse, body: data[3].value },
    clientResponse: { ...clientResponse, body: data[4].value },
    refused: { ...refused, message: (data[5].value as { message: string }).message }
  }
}

/** A handled exchange redacted (every copy): named headers and pointers, and their values wherever else they stand. */
export function redacted (exchange: CapturedExchange, redaction: Redaction): CapturedExchange {
  if (redaction.headers.size === 0 && redaction.pointers.length === 0) return exchange
  const { clientRequest, handlerRequest, handlerResponse, clientResponse } = exchange
  const records = [clientRequest, handlerRequest, handlerResponse, clientResponse]
  const data = [
    { value: clientRequest.body }, { value: clientRequest.query }, { value: handlerRequest.body }, { value: handlerRequest.query },
    { value: handlerResponse.body }, { value: clientResponse.body }, { value: clientRequest.params }, { value: handlerRequest.params }
  ]
  const parts: RedactedParts = { headers: records.map((record) => record.headers), data }
  if (!redact(parts, redaction)) return exchange
  return {
    ...exchange,
    clientRequest: { ...clientRequest, body: data[0].value, params: data[6].value as Record<string, unknown>, query: data[1].value as Record<string, unknown> },
    handlerRequest: { ...handlerRequest, body: data[2].value, params: data[7].value as Record<string, unknown>, query: data[3].value as Record<string, unknown> },
    handlerResponse: { ...handlerResponse, body: data[4].value },
    clientResponse: { ...clientResponse, body: data[5].value }
  }
}
