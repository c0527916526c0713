/**
 * What `captureExchanges` publishes on `fastify-versioner:exchange` (./exchange-capture.ts records it): a handled
 * exchange, or a refused one (decision 0307: a request its version's validation or a request converter refused with a
 * 4xx once its version was picked, in a form of its own, `refused`, with no handler's request or response, so that
 * `replay` proves an old client is still refused alike); the facts of a refusal, and the redaction of both forms.
 * @module
 */
import type { ServedRoute } from './usage-events'
import type { RenderCount } from './webhook-capture'
import { redact, type Redaction } from '../values/redaction'

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

/** The records an exchange holds, handled or refused, and the parts of a record that hold data (not its status and headers). */
const RECORDS = ['clientRequest', 'handlerRequest', 'handlerResponse', 'refusedResponse', 'clientResponse'] as const
const DATA = ['body', 'query', 'params'] as const

/**
 * An exchange, handled or refused, redacted (every record, and a refusal's message): named headers and pointers, and
 * their values wherever else they stand. Its records' headers are redacted in place (they are the capture's copies).
 */
export function redacted<E extends CapturedExchange | RefusedExchange> (exchange: E, redaction: Redaction): E {
  if (redaction.headers.size === 0 && redaction.pointers.length === 0) return exchange
  const all = exchange as Partial<Record<typeof RECORDS[number], Partial<RecordedRequest & RecordedResponse>>> & { refused?: Refusal }
  const records = RECORDS.filter((name) => all[name] !== undefined)
  const data = records.flatMap((name) => DATA.filter((part) => part in (all[name] as object)).map((part) => ({ name, part, value: all[name]?.[part] })))
  const message = all.refused === undefined ? [] : [{ value: { message: all.refused.message } as unknown }]
  const headers = records.map((name) => (all[name] as RecordedRequest).headers)
  if (!redact({ headers, data: [...data, ...message] }, redaction)) return exchange
  const copy: Record<string, unknown> = { ...exchange }
  for (const { name, part, value } of data) copy[name] = { ...(copy[name] as object), [part]: value }
  if (all.refused !== undefined) copy.refused = { ...all.refused, message: (message[0].value as { message: string }).message }
  return copy as E
}
