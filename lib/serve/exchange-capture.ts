/**
 * Captured exchanges of old versions (option `captureExchanges`; decisions 0084, 0237), recorded by five route hooks
 * and published on `fastify-versioner:exchange` for `replay`.
 * @module
 */
import diagnosticsChannel from 'node:diagnostics_channel'
import type { FastifyReply, FastifyRequest, onSendHookHandler, preSerializationHookHandler, preValidationHookHandler } from 'fastify'
import { InvalidOptionError } from '../core/errors'
import { describeValue } from '../core/json-schema'
import { hasWork } from '../routes/version-plan'
import type { RegisteredRoute } from '../routes/versioner-state'
import { copyJson } from '../values/json-copy'
import { pointerSegments, type Redaction } from '../values/redaction'
import { currentDependencySolver, registeredRouteOf, requestState } from './request-state'
import { isJsonText } from './migrate-response'
import { copyAsWritten, type Replaced } from '../values/written-values'
import { createChosenSerializerTest } from './own-serializers'
import { responseSlot } from '../routes/schema-forms'
import type { ResolvedCaptureExchanges, ServeOptions } from './serve-options'
import { servedRoute } from './usage-events'
import type { AroundHooks } from './route-preparation'
import { renderCountsNow, rendersSince } from './webhook-capture'
import { redacted, refusalOf, type CapturedExchange, type RecordedRequest, type RecordedResponse } from './exchange-records'

/**
 * The `captureExchanges` option.
 * @example
 * ```ts
 * declare const app: FastifyInstance, versions: VersionBundle
 * await app.register(fastifyVersioner, { versions, captureExchanges: { sampleRate: 0.01, redact: { headers: ['authorization'], pointers: ['/card/number'] } } })
 * ```
 */
export interface CaptureExchangesOptions {
  /** The share of the exchanges recorded that are published, from 0 to 1 (default 1: every one). */
  sampleRate?: number
  /** Also records the exchanges of versions serving HEAD data on the route, marked `headData` (default `false`). */
  everyVersion?: boolean
  /**
   * Header names (any case) and JSON pointers into bodies and query strings (`*` for every item or key) that never
   * leave the process; each value found there is also removed wherever else it stands in the exchange.
   */
  redact?: { headers?: readonly string[], pointers?: readonly string[] }
}

/** The channel (subscribe with `diagnostics_channel.subscribe('fastify-versioner:exchange', …)`). */
const exchangeChannel = diagnosticsChannel.channel('fastify-versioner:exchange')

/** What a request's capture holds so far. */
interface Capture {
  readonly clientRequest: RecordedRequest
  /** The render counts when it started (./webhook-capture.ts). */
  readonly renders: ReadonlyMap<string, number>
  version?: string
  headData?: true
  handlerRequest?: RecordedRequest
  handlerResponse?: RecordedResponse
  /** A refused request's error as the error handler answered it (its form: ./exchange-records.ts). */
  refusedResponse?: RecordedResponse
}

/** The request property holding a request's capture (decorated only when the option is on). */
export const kCapture = Symbol('fastify-versioner.capture')

type CaptureRequest = FastifyRequest & { [kCapture]: Capture | null }

/** Checks the option: `{ sampleRate?, redact? }`. */
export function captureExchangesOption (value: unknown): ResolvedCaptureExchanges | undefined {
  if (value === undefined) return undefined
  const shape = 'an object { sampleRate?: number from 0 to 1, everyVersion?: boolean, redact?: { headers?: string[], pointers?: string[] } }'
  if (typeof value !== 'object' || value === null) throw new InvalidOptionError(`Option 'captureExchanges' must be ${shape}; got ${describeValue(value)}.`)
  const { sampleRate = 1, everyVersion = false, redact: given = {}, ...rest } = value as CaptureExchangesOptions
  const unknown = Object.keys(rest)
  if (unknown.length > 0) throw new InvalidOptionError(`Option 'captureExchanges' has unknown key(s) ${unknown.join(', ')}; it must be ${shape}.`)
  if (typeof sampleRate !== 'number' || !(sampleRate >= 0 && sampleRate <= 1)) {
    throw new InvalidOptionError(`Option 'captureExchanges.sampleRate' must be a number from 0 to 1 (0.01 publishes one exchange in a hundred); got ${describeValue(sampleRate)}.`)
  }
  if (typeof everyVersion !== 'boolean') throw new InvalidOptionError(`Option 'captureExchanges.everyVersion' must be true or false; got ${describeValue(everyVersion)}.`)
  const redactShape = `Option 'captureExchanges.redact' must be { headers?: string[], pointers?: string[] }; got ${describeValue(given)}.`
  if (typeof given !== 'object' || given === null) throw new InvalidOptionError(redactShape)
  const { headers = [], pointers = [], ...other } = given
  if (Object.keys(other).length > 0 || !Array.isArray(headers) || !Array.isArray(pointers)) throw new InvalidOptionError(redactShape)
  const badHeader = headers.find((name) => typeof name !== 'string' || name === '')
  if (badHeader !== undefined) throw new InvalidOptionError(`Option 'captureExchanges.redact.headers' must list header names; got ${describeValue(badHeader)}.`)
  const badPointer = pointers.find((pointer) => typeof pointer !== 'string' || !pointer.startsWith('/'))
  if (badPointer !== undefined) {
    throw new InvalidOptionError(`Option 'captureExchanges.redact.pointers' must list JSON pointers starting with '/' ('/card/number', '/lines/*/memo'); got ${describeValue(badPointer)}.`)
  }
  const redaction = { headers: new Set(headers.map((name) => name.toLowerCase())), pointers: pointers.map(pointerSegments) }
  return { sampleRate, everyVersion, redaction, renderCalls: new Map() }
}

/**
 * True for data a record can hold as it is: `undefined`, a JSON primitive, a plain object or an array (not a buffer or
 * a stream). A form's fields as `@fastify/formbody` parses them (fast-querystring's) are a plain object too: their
 * prototype is an empty object without one.
 */
function isJsonData (value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return typeof value !== 'function' && typeof value !== 'symbol' && typeof value !== 'bigint'
  if (Array.isArray(value)) return true
  const prototype = Object.getPrototypeOf(value) as object | null
  return prototype === Object.prototype || prototype === null || (Object.getPrototypeOf(prototype) === null && Reflect.ownKeys(prototype).length === 0)
}

/** The JSON copy of a value in a box; `undefined` when JSON cannot write it (`copyJson` then gives the value itself). */
function copied (value: unknown, copy: unknown = copyJson(value)): { value: unknown } | undefined {
  return copy === value && typeof value === 'object' && value !== null ? undefined : { value: copy }
}

/** A copy of the request's body, query string and headers; `undefined` when its body is not JSON data. */
function recordRequest (request: FastifyRequest): RecordedRequest | undefined {
  const body = isJsonData(request.body) ? copied(request.body) : undefined
  if (body === undefined) return undefined
  const params = copyJson(request.params ?? {}) as Record<string, unknown>
  return { body: body.value, params, query: copyJson(request.query ?? {}) as Record<string, unknown>, headers: copyJson(request.headers) as Record<string, unknown> }
}

/** A copy of the reply's status and headers, with `body`. */
function recordResponse (reply: FastifyReply, body: unknown): RecordedResponse {
  return { status: reply.statusCode, headers: copyJson(reply.getHeaders()) as Record<string, unknown>, body }
}

/** The JSON payload of an `onSend` hook parsed; `undefined` when it is not JSON text (a stream, a buffer, other text). */
function parsedPayload (payload: unknown, reply: FastifyReply): { body: unknown } | undefined {
  if (payload === undefined || payload === null || payload === '') return { body: undefined }
  if (!isJsonText(payload, reply)) return undefined
  try {
    return { body: JSON.parse(payload) }
  } catch {
    return undefined
  }
}

/**
 * Publishes a refused request's exchange (its form: ./exchange-records.ts), its client's answer `body`; its error was recorded by
 * the first send hook, before its version's error converters.
 */
function publishRefusal (request: FastifyRequest, reply: FastifyReply, record: { found: Capture, body: unknown, latest: string, redaction: Redaction }): void {
  const state = requestState(request)
  const { found, latest } = record
  if (state?.refusal === undefined || state.behaviour === null || found.refusedResponse === undefined) return
  const route = servedRoute(request, (registeredRouteOf(request) as RegisteredRoute).head)
  const exchange = { version: state.behaviour.version, latest, route, clientRequest: found.clientRequest, refused: refusalOf(state.refusal, state.converterFailed) }
  exchangeChannel.publish(redacted({ ...exchange, refusedResponse: found.refusedResponse, clientResponse: recordResponse(reply, record.body) }, record.redaction))
}

/** Builds the capture hooks of one application: the same five functions on every route where some version has work. */
export function createCaptureHooks (options: ServeOptions, capture: ResolvedCaptureExchanges): AroundHooks {
  const { sampleRate, redaction, everyVersion } = capture
  const hasChosenSerializer = createChosenSerializerTest()

  const start: preValidationHookHandler = function versionerCaptureStart (fastifyRequest, _reply, done) {
    // A version known to serve HEAD data has nothing to record (told without waiting, when it can be), unless asked.
    if (!exchangeChannel.hasSubscribers || (sampleRate < 1 && Math.random() >= sampleRate) || (!everyVersion && currentDependencySolver(fastifyRequest) === 'versioner')) {
      done()
      return
    }
    const clientRequest = recordRequest(fastifyRequest)
    if (clientRequest !== undefined) (fastifyRequest as CaptureRequest)[kCapture] = { clientRequest, renders: renderCountsNow(capture) }
    done()
  }

  const migrated: preValidationHookHandler = function versionerCaptureMigrated (fastifyRequest, _reply, done) {
    const request = fastifyRequest as CaptureRequest
    const found = request[kCapture]
    if (found !== null) {
      const behaviour = requestState(request)?.behaviour ?? null
      const headData = behaviour !== null && !hasWork(behaviour)
      const handlerRequest = behaviour === null || (!everyVersion && headData) ? undefined : recordRequest(request)
      if (handlerRequest === undefined || behaviour === null) request[kCapture] = null
      else Object.assign(found, { version: behaviour.version, handlerRequest }, headData ? { headData } : {})
    }
    done()
  }

  const returned: preSerializationHookHandler = function versionerCaptureReturned (fastifyRequest, reply, payload, done) {
    const found = (fastifyRequest as CaptureRequest)[kCapture]
    if (found?.handlerRequest !== undefined && found.handlerResponse === undefined) {
      // Never a stream or a buffer here (Fastify sends those without this hook): a class instance is written as JSON.
      // As its converters get it (./migrate-response.ts), so that replay sees the dates they saw.
      const behaviour = requestState(fastifyRequest)?.behaviour
      const key = behaviour == null || hasChosenSerializer(reply) ? undefined : responseSlot(behaviour.responses, reply.statusCode, reply)
      // A value JSON writes otherwise (a BigInt, NaN, Infinity) cannot be recorded as the converters saw it, nor one
      // the copy holds as an object in its place (a Buffer where the schema says nothing, an instance HEAD refuses at a
      // string place: decisions 0285, 0298); at a string place it holds the text HEAD writes (decision 0321).
      const serializer = { kept: false }
      const replaced: Replaced[] = []
      const copy = copyAsWritten(key === undefined ? undefined : behaviour?.responseWritten.get(key), payload, serializer, replaced)
      const body = serializer.kept || replaced.some((entry) => typeof entry[2] === 'object' && entry[2] !== null) ? undefined : copied(payload, copy)
      if (body !== undefined) found.handlerResponse = recordResponse(reply, body.value)
      else (fastifyRequest as CaptureRequest)[kCapture] = null
    }
    done(null, payload)
  }

  // Error bodies, JSON text and a success an error replaced (its conversion undone) reach it as HEAD's text (a refusal's too).
  const returnedText: onSendHookHandler = function versionerCaptureReturnedText (fastifyRequest, reply, payload, done) {
    const request = fastifyRequest as CaptureRequest
    const found = request[kCapture]
    const replaced = found?.handlerResponse !== undefined && found.handlerResponse.status < 300 && reply.statusCode >= 300 &&
      requestState(request)?.converted !== true
    const refused = found?.handlerRequest === undefined && requestState(request)?.refusal !== undefined
    if (found !== null && (refused || (found.handlerRequest !== undefined && (found.handlerResponse === undefined || replaced)))) {
      const parsed = parsedPayload(payload, reply)
      if (parsed === undefined) request[kCapture] = null
      else found[refused ? 'refusedResponse' : 'handlerResponse'] = recordResponse(reply, parsed.body)
    }
    done(null, payload)
  }

  const publish: onSendHookHandler = function versionerCapturePublish (fastifyRequest, reply, payload, done) {
    const request = fastifyRequest as CaptureRequest
    const found = request[kCapture]
    request[kCapture] = null
    const parsed = found === null ? undefined : parsedPayload(payload, reply)
    if (found?.refusedResponse !== undefined && parsed !== undefined) publishRefusal(request, reply, { found, body: parsed.body, latest: options.versions.versionValues[0], redaction })
    const state = requestState(request)
    // A request whose converters failed, or whose converted response its version refused, is a 500 of the versioner's
    // (whatever the application's error handler made of it), not an exchange to replay.
    if (found !== null && parsed !== undefined && state?.converterFailed !== true && state?.responseRefused !== true && found.version !== undefined &&
      found.handlerRequest !== undefined && found.handlerResponse !== undefined) {
      const exchange: CapturedExchange = {
        version: found.version,
        latest: options.versions.versionValues[0],
        route: servedRoute(request, (registeredRouteOf(request) as RegisteredRoute).head),
        clientRequest: found.clientRequest,
        handlerRequest: found.handlerRequest,
        handlerResponse: found.handlerResponse,
        clientResponse: recordResponse(reply, parsed.body),
        ...(found.headData === true ? { headData: true } : {}),
        renders: rendersSince(capture, found.renders)
      }
      exchangeChannel.publish(redacted(exchange, redaction))
    }
    done(null, payload)
  }

  return { beforeRequest: start, afterRequest: migrated, beforeSuccess: returned, beforeSend: returnedText, afterSend: publish }
}
