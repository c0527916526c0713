/**
 * One recorded exchange replayed through the converters, the way the route's hooks ran them (no handler): the
 * request as the client sent it validated against its version's schemas with the application's validator compiler
 * (defaults and coercion included), cleaned, and converted up to HEAD with the request hook's input object; the HEAD
 * response converted down with the response steps serving picks for its status, its guards, its version's success
 * status and its serializer. The converters run one at a time (./converter-tracking.ts `tracked`, through the step runner
 * of serving), so that a difference can be traced to the converter that made it.
 * @module
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { TSchema } from '@sinclair/typebox'
import type { RecordedExchange } from './traffic-file'
import { VersionedRequestInfo } from '../serve/converter-inputs'
import { serializerFor } from '../serve/migrate-response'
import { clientErrorOf, ConverterFailure, copyJson, runStepsToBody } from '../serve/step-runner'
import type { ConverterStep } from '../routes/converter-steps'
import { requestPlanOf, type RequestPart, type VersionBehaviour } from '../routes/version-plan'
import { responseSlot } from '../routes/schema-forms'
import { describeUnexpressible, unexpressibleValue } from '../routes/value-guards'
import type { GenerationStep, VersionBundle } from '../describe/versions'
import { runInVersion } from '../serve/request-state'
import { tracked, type ConverterRun } from './converter-tracking'
import { pointerSegments, REDACTED } from '../values/redaction'
import { isRedacted } from './value-difference'
import type { RefResolver } from './data-flow'
import type { FormatPatterns } from '../values/string-examples'
import { fitStandIns } from './redacted-stand-ins'
import { putBack } from '../values/written-values'
import { datesOfText } from './recorded-dates'
import { convertedHeaders, lowerCased } from './converted-headers'
import { refusalOf, type Refusal } from '../serve/exchange-records'

/** The value at a JSON pointer of `data` (`undefined` where there is none). */
export function valueAt (data: unknown, pointer: string): unknown {
  let value = data
  for (const key of pointerSegments(pointer)) {
    value = typeof value === 'object' && value !== null && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined
  }
  return value
}

/** The data of one side after a converter ran (`index`: the generation step of its version change). */
export interface Stage {
  readonly index: number
  readonly data: Readonly<Record<string, unknown>>
  readonly converters: readonly string[]
}

/** One side replayed: what it gives now by part (`body`, `query`, `headers`; `status`, `body`), and how it got there. */
export interface Replayed {
  readonly ok: true
  readonly parts: Readonly<Record<string, unknown>>
  /** The data before the first version change's converters, then after each. */
  readonly start: Readonly<Record<string, unknown>>
  readonly stages: readonly Stage[]
  /**
   * The request part and pointer where the version's schema stopped at a redacted value (it stops at its first
   * error): what it would have coerced or filled after it was not done, so a difference may be the stand-in's.
   */
  readonly cutShort?: string
}

/** One side that could not be replayed to the end: a converter threw or refused the request, or the response cannot be sent. */
export interface Stopped {
  readonly ok: false
  readonly kind: 'converter failed' | 'refused' | 'unexpressible' | 'unsendable'
  readonly message: string
  /** The generation step whose converters failed (`undefined` when none did). */
  readonly index: number | undefined
  readonly converters: readonly string[]
  /** True when the stop cannot be a redaction stand-in's: each one the schema refused was given a value it accepts. */
  readonly unexcused?: boolean
  /** A refusal's facts, as capture records them (decision 0307): the schema's part, instance path and keyword, or the converter's error. */
  readonly refusal?: Omit<Refusal, 'message' | 'status'> & { readonly status?: number, readonly message?: string }
}

/** True when `data` holds a redaction stand-in. */
const holdsStandIn = (data: unknown): boolean => JSON.stringify(data ?? null).includes(REDACTED)

/** What replaying needs: the API's context (its validator and serializer compilers), the generation steps, how converters run. */
export interface ExchangeReplayer {
  readonly context: FastifyInstance
  readonly steps: readonly GenerationStep[]
  readonly runConverter?: ConverterRun
  /** Compiled validators and serializers, by schema (one map each for a whole run). */
  readonly validators: Map<TSchema, (data: unknown) => boolean>
  readonly serializers: Map<TSchema, (data: unknown) => string>
  /** The bundle, when its converters run inside its version storage as served (a `VersionChangeWithSideEffects` reads it). */
  readonly storage?: VersionBundle
  /** Resolves the `$ref`s of the version's schemas (for stand-ins that fit them: ./redacted-stand-ins.ts). */
  readonly resolveRef: RefResolver
  /** How the application's Ajv checks each string format (for stand-ins that fit them). */
  readonly formats?: FormatPatterns
}

/**
 * Where an exchange is replayed: the route version's behaviour, the request method and URL (for the compilers), and
 * `newest`, the level of the version that was the newest when it was recorded (1 unless versions were added since).
 */
export interface ReplayedAt {
  readonly behaviour: VersionBehaviour
  readonly newest: number
  readonly method: string
  readonly url: string
}

type Compiled = ((data: unknown) => boolean) & { errors?: Array<{ instancePath?: string, message?: string, keyword?: string }> | null }

/** The application's validator of a request part's schema, as `request.compileValidationSchema` compiles it. */
function validatorOf (replayer: ExchangeReplayer, at: ReplayedAt, schema: TSchema, part: RequestPart): Compiled {
  let check = replayer.validators.get(schema)
  if (check === undefined) {
    const compiler = replayer.context.validatorCompiler
    check = compiler === undefined ? () => true : compiler({ schema, method: at.method, url: at.url, httpPart: part }) as Compiled
    replayer.validators.set(schema, check)
  }
  return check as Compiled
}

/** A reply standing in for the real one: the response's headers (its media type picks slots) and the application's serializer compiler. */
function standInReply (replayer: ExchangeReplayer, at: ReplayedAt, headers: Record<string, unknown>): FastifyReply {
  return {
    getHeader: (name: string) => headers[name.toLowerCase()],
    compileSerializationSchema: (schema: TSchema, httpStatus: string) => {
      let serialize = replayer.serializers.get(schema)
      if (serialize === undefined) {
        const compiler = replayer.context.serializerCompiler
        serialize = compiler === undefined ? JSON.stringify : compiler({ schema, method: at.method, url: at.url, httpStatus }) as (data: unknown) => string
        replayer.serializers.set(schema, serialize)
      }
      return serialize
    }
  } as unknown as FastifyReply
}

/** The failure of a converter run, as a stopped side. */
function failed (error: unknown, index: number, converters: readonly string[], request: boolean): Stopped {
  const thrown = error instanceof ConverterFailure ? error.thrown : error
  const message = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : `threw ${String(thrown)}`
  const refusal = request ? clientErrorOf(thrown) : undefined
  if (refusal === undefined) return { ok: false, kind: 'converter failed', message, index, converters }
  const { by, status, code } = refusalOf(refusal, true)
  return { ok: false, kind: 'refused', message: `a converter refused it: ${message}`, index, converters, refusal: { by, status, message: refusal.message, ...(code === undefined ? {} : { code }) } }
}

/** Runs `steps` one version change at a time, in the exchange's version as served (`isApplied` reads it). */
export async function runStages (
  replayer: ExchangeReplayer, run: Parameters<typeof runStagesAt>[1], version: string, snapshot: () => Record<string, unknown>, request: boolean
): Promise<Stage[] | Stopped> {
  const work = async (): Promise<Stage[] | Stopped> => await runStagesAt(replayer, run, snapshot, request)
  return replayer.storage === undefined ? await work() : await (runInVersion(replayer.storage, version, work) as Promise<Stage[] | Stopped>)
}

/** Runs `steps` one version change at a time (generation steps `indices`, in order), noting the data after each. */
async function runStagesAt (
  replayer: ExchangeReplayer, run: { steps: readonly ConverterStep[], indices: readonly number[], info: { body: unknown }, at: Parameters<typeof runStepsToBody>[3] },
  snapshot: () => Record<string, unknown>, request: boolean
): Promise<Stage[] | Stopped> {
  const stages: Stage[] = []
  for (const index of run.indices) {
    const ran: string[] = []
    // One converter at a time (each on every occurrence of its schema), as the whole list runs.
    for (const step of tracked(run.steps, replayer.steps[index], ran, replayer.runConverter)) {
      const before = ran.length
      try {
        run.info.body = await runStepsToBody([step], run.info, run.info.body, run.at)
      } catch (error) {
        return failed(error, index, [...new Set(ran.slice(before))], request)
      }
      if (ran.length > before) stages.push({ index, data: snapshot(), converters: [...new Set(ran.slice(before))] })
    }
  }
  return stages
}

/**
 * Generation step indices from `level` down to `newest` (a request going up), or from `newest` up to `level` (a
 * response going down): the changes of versions added since the exchange was recorded do not apply to its data.
 */
export function indicesOf (level: number, newest: number, up: boolean): number[] {
  const indices: number[] = []
  for (let index = newest; index < level; index++) indices.push(index)
  return up ? indices.reverse() : indices
}

/** The request as the client sent it, taken to HEAD as the request hook takes it. */
export async function replayRequest (replayer: ExchangeReplayer, at: ReplayedAt, exchange: Pick<RecordedExchange, 'clientRequest' | 'headData'>): Promise<Replayed | Stopped> {
  const { behaviour } = at
  const sent = exchange.clientRequest
  const headers = copyJson(sent.headers) as Record<string, unknown>
  const request = { headers, raw: { headers }, body: copyJson(sent.body), query: copyJson(sent.query) ?? {} } as unknown as FastifyRequest
  const served = requestPlanOf(behaviour, headers['content-type']) // a version then serving HEAD data: neither validated by hand nor cleaned
  const plan = exchange.headData === true ? { ...served, validate: [], cleaners: [] } : served
  const dataOf = (part: RequestPart): unknown => part === 'body' ? request.body : part === 'querystring' ? request.query : part === 'headers' ? headers : undefined
  let cutShort: string | undefined
  for (const [part, schema] of plan.validate) {
    if (part === 'params') continue
    const check = validatorOf(replayer, at, schema, part)
    const data = dataOf(part)
    if (check(data)) continue
    // A redaction stand-in the schema refuses gets a value it accepts there, and the part is validated again.
    const fitted = holdsStandIn(data) && fitStandIns(schema, data, replayer.resolveRef, replayer.formats) > 0
    if (fitted && check(data)) continue
    const issue = check.errors?.[0]
    // A redacted value cannot be validated: the rest of the request is replayed all the same.
    if (isRedacted(valueAt(data, issue?.instancePath ?? ''))) {
      cutShort ??= `${part}${issue?.instancePath ?? ''}`
      continue
    }
    const message = `the version's schema refuses it: ${part}${issue?.instancePath ?? ''} ${issue?.message ?? 'is invalid'}`
    const refusal = { by: 'validation' as const, part, instancePath: issue?.instancePath ?? '', ...(issue?.keyword === undefined ? {} : { keyword: issue.keyword }) }
    return { ok: false, kind: 'refused', message, index: undefined, converters: [], unexcused: fitted && !holdsStandIn(data), refusal }
  }
  for (const [part, clean] of plan.cleaners) {
    const data = dataOf(part)
    if (typeof data === 'object' && data !== null) clean(data)
  }
  const info = new VersionedRequestInfo(request)
  const snapshot = (): Record<string, unknown> => copyJson({ body: info.body, query: info.queryParams, headers: info.headers }) as Record<string, unknown>
  const start = snapshot()
  const run = { steps: plan.requestSteps, indices: indicesOf(behaviour.level, at.newest, true), info, at: { method: at.method, reply: undefined } }
  const stages = await runStages(replayer, run, behaviour.version, snapshot, true)
  if (!Array.isArray(stages)) return stages
  try {
    info.writeBack(info.body)
  } catch (error) {
    return failed(error, stages.at(-1)?.index ?? 1, [], true)
  }
  return { ok: true, parts: { body: request.body, query: request.query, headers: request.raw.headers }, start, stages, cutShort }
}

/**
 * The body as the version's serializer writes it; a redaction stand-in it refuses (a union member it cannot pick) is
 * given a value the version's schema accepts there (`form`), and the body serialized again.
 */
function serializedBody (serialize: (payload: unknown) => string, form: TSchema | undefined, body: unknown, replayer: ExchangeReplayer): string | Stopped {
  let fitted = false
  for (;;) {
    try {
      return serialize(body)
    } catch (error) {
      if (!fitted && form !== undefined && holdsStandIn(body) && fitStandIns(form, body, replayer.resolveRef, replayer.formats) > 0) {
        fitted = true
        continue
      }
      const message = `the version's serializer refuses the converted body: ${error instanceof Error ? error.message : String(error)}`
      return { ok: false, kind: 'unsendable', message, index: undefined, converters: [], unexcused: fitted && !holdsStandIn(body) }
    }
  }
}

/** The response as the handler returned it, taken down to the exchange's version as the response hooks take it. */
export async function replayResponse (replayer: ExchangeReplayer, at: ReplayedAt, exchange: Pick<RecordedExchange, 'handlerResponse'>): Promise<Replayed | Stopped> {
  const { behaviour } = at
  const returned = exchange.handlerResponse
  const status = returned.status
  const headers = copyJson(returned.headers) as Record<string, unknown>
  const body = copyJson(returned.body)
  // An error no converter of the version migrates is sent as the HEAD route serialized it.
  if (status >= 300 && !behaviour.errorWork) return { ok: true, parts: { status, body }, start: { body }, stages: [] }
  const reply = standInReply(replayer, at, headers)
  const key = responseSlot(behaviour.responses, status, reply)
  const info = { body, statusCode: status, headers, raw: returned.body, setCookie () {}, deleteCookie () {} }
  const dates = datesOfText(status < 300 && key !== undefined ? behaviour.responseWritten.get(key) : undefined, body) // put back as served (decision 0285)
  const run = { steps: behaviour.responseSteps.get(key ?? '') ?? [], indices: indicesOf(behaviour.level, at.newest, false), info, at: { method: at.method, reply: info } }
  const snapshot = (): Record<string, unknown> => ({ body: copyJson(info.body), headers: lowerCased(info.headers) })
  const stages = await runStages(replayer, run, behaviour.version, snapshot, false)
  if (!Array.isArray(stages)) return stages
  putBack(dates, body, info.body)
  const found = unexpressibleValue((key === undefined ? undefined : behaviour.responseGuards.get(key)) ?? [], info.body)
  if (found !== undefined) return { ok: false, kind: 'unexpressible', message: describeUnexpressible(found, behaviour.version), index: undefined, converters: [] }
  // As the success hook sends it: the version's own status when the converters kept the HEAD one.
  const changed = behaviour.statusCode !== undefined && status < 300 && info.statusCode === status
  const finalStatus = changed ? behaviour.statusCode as number : info.statusCode
  const start = { body: copyJson(returned.body), headers: lowerCased(returned.headers) }
  const converted = convertedHeaders(start.headers, info.headers)
  // Fastify serializes no payload it was not given: a response without a body (a 204) is sent without one, whatever its schema.
  if (info.body === undefined) return { ok: true, parts: { status: finalStatus, body: undefined, headers: converted }, start, stages }
  const form = behaviour.responseForms.get((changed ? key : undefined) ?? responseSlot(behaviour.responses, finalStatus, reply) ?? '')
  const text = serializedBody(serializerFor(reply, behaviour, finalStatus, changed ? key : undefined), form, info.body, replayer)
  if (typeof text !== 'string' && text !== undefined) return text
  return { ok: true, parts: { status: finalStatus, body: text === undefined ? undefined : JSON.parse(text), headers: converted }, start, stages }
}
