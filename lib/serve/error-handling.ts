/**
 * Errors on versioned routes: why a version value is refused, in words a client can act on, from the versions released
 * now (decision 0065); Fastify's validation error for a version's schema; and each versioned route's error handler.
 * @module
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaValidationError, FastifyServerOptions } from 'fastify'
import { UnconvertibleResponseError, VersionerLatestRequestValidationError } from '../core/request-errors'
import { fastifyPrivate } from '../core/application-root'
import { isIsoDate, monthOf, versionDate } from '../core/iso-date'
import type { RequestPart, VersionBehaviour } from '../routes/version-plan'
import { slotParts } from '../routes/schema-forms'
import type { RegisteredRoute } from '../routes/versioner-state'
import { requestState, type RequestState } from './request-state'
import { resolveVersion, type PickedVersion, type Resolving, type VersionPickerOptions } from './version-picking'
import { releasedNow } from './release-clock'
import { failsHeadAfterMigration } from './head-validation'
import { isError } from './step-runner'
import { holdNoneMatch } from './sent-entity-tags'

/** What is wrong with a value the released versions do not serve. */
type Refusal =
  | { readonly kind: 'missing' }
  /** A well-formed date (or month) older than the oldest version. */
  | { readonly kind: 'too-old' }
  /** `date.name`: `date` is the version `version`, under another name (or none); `named` is the version `name` is the name of, if any. */
  | { readonly kind: 'other-name', readonly date: string, readonly name: string, readonly version: string, readonly named: string | undefined }
  /** `date.name`: no version has that date, and `name` is the name of `version`. */
  | { readonly kind: 'name-of-other-date', readonly date: string, readonly name: string, readonly version: string }
  /** A name alone, the name of `version`. */
  | { readonly kind: 'bare-name', readonly name: string, readonly version: string }
  /** `date.name`: no version has that date or that name. */
  | { readonly kind: 'unknown-name', readonly date: string, readonly name: string }
  /** Several versions separated by commas, each served: a header sent more than once (Node joins the values with ', '), or a list. */
  | { readonly kind: 'several', readonly versions: readonly string[] }
  /** One served version beside empty values: a header sent again empty (`2001-01-01, `), or a trailing comma (decision 0288). */
  | { readonly kind: 'with-empty', readonly version: string }
  /** A value that differs from `version` only in case, surrounding spaces or quotes (`string` format), or in spaces or quotes. */
  | { readonly kind: 'near', readonly version: string }
  /** Written YYYY-MM-DD with a month and a day of a month, but no day of the calendar (`2025-02-30`). */
  | { readonly kind: 'no-such-day' }
  /** A served date with a time (`2025-06-01T09:00:00Z`). */
  | { readonly kind: 'timed', readonly date: string }
  /** Anything else in the `date` or `month` format. */
  | { readonly kind: 'malformed' }
  /** Anything else in the `string` format. */
  | { readonly kind: 'unknown' }

type Refused = Extract<PickedVersion, { ok: false }>

/** A date (or month, or date in a month) and a name: `2025-06-01.dahlya`. */
const DATED_NAME = /^(\d{4}-\d{2}(?:-\d{2})?)\.([A-Za-z0-9_-]+)$/
/** What a version's name is made of. */
const NAME = /^[A-Za-z0-9_-]+$/

/** The name of a released version value (`acacia` of `2024-09-30.acacia`); `undefined` for a plain one. */
function nameOf (value: string): string | undefined {
  const date = versionDate(value)
  return date === undefined || date === value ? undefined : value.slice(date.length + 1)
}

/** The date a value's date part stands for in the format (a month for `month`), or `undefined` when it is none. */
function dateIn (text: string, format: Resolving['format']): string | undefined {
  return format === 'month' ? monthOf(text) : isIsoDate(text) ? text : undefined
}

/**
 * What is wrong with a value the released versions do not serve (a preview is never named).
 * @example
 * ```ts
 * classifyRefusal(resolveVersion('2025-06-01.dahlya', { versions, format: 'date' }) as Refused, { versions, format: 'date' })
 * // { kind: 'other-name', date: '2025-06-01', name: 'dahlya', version: '2025-06-01.dahlia', named: undefined }
 * ```
 */
export function classifyRefusal (picked: Refused, options: Resolving): Refusal {
  const value = picked.requested
  if (picked.reason === 'missing' || value === undefined) return { kind: 'missing' }
  if (picked.reason === 'too-old') return { kind: 'too-old' }
  const listed = value.split(',').map((part) => part.trim()).filter((part) => part !== '')
  if (value.includes(',') && listed.length > 0 && listed.every((part) => resolveVersion(part, options).ok)) {
    return listed.length === 1 ? { kind: 'with-empty', version: listed[0] } : { kind: 'several', versions: listed }
  }
  const { format } = options
  const released = releasedNow(options).values
  const bare = value.trim().replace(/^(["'])(.*)\1$/, '$2').trim()
  if (format === 'string') {
    const near = released.find((candidate) => candidate.toLowerCase() === bare.toLowerCase())
    return near === undefined ? { kind: 'unknown' } : { kind: 'near', version: near }
  }
  if (bare !== value && resolveVersion(bare, options).ok) return { kind: 'near', version: bare }
  const named = (name: string): string | undefined => released.find((candidate) => nameOf(candidate) === name)
  const dated = DATED_NAME.exec(value)
  const date = dated === null ? undefined : dateIn(dated[1], format)
  if (dated !== null && date !== undefined) {
    const name = dated[2]
    const atDate = released.find((candidate) => (format === 'month' ? candidate : versionDate(candidate)) === date)
    const version = named(name)
    if (atDate !== undefined) return { kind: 'other-name', date, name, version: atDate, named: version }
    return version === undefined ? { kind: 'unknown-name', date, name } : { kind: 'name-of-other-date', date, name, version }
  }
  const day = /^(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))(T.*)?$/.exec(value)
  if (day !== null && !isIsoDate(day[1])) return { kind: 'no-such-day' }
  if (day?.[2] !== undefined && resolveVersion(day[1], options).ok) return { kind: 'timed', date: day[1] }
  const version = NAME.test(value) ? named(value) : undefined
  return version === undefined ? { kind: 'malformed' } : { kind: 'bare-name', name: value, version }
}

/** What a plain value is in the format, for messages. */
function plainValue (format: Resolving['format']): string {
  return format === 'month' ? 'month YYYY-MM' : 'date YYYY-MM-DD'
}

/**
 * The words of a refusal: what is wrong and what is accepted, one or two sentences ending with a period (a list as a
 * header sent twice only for `location: 'header'`); `undefined` when only the versions can be listed (`missing`, `unknown`).
 */
export function refusalReason (refusal: Refusal, options: Resolving & Partial<Pick<VersionPickerOptions, 'location'>>): string | undefined {
  const { format, location } = options
  const named = releasedNow(options).values.filter((value) => nameOf(value) !== undefined)
  const fullNames = named.length === 0 ? '' : ` or a named version's full name (${named.join(', ')})`
  switch (refusal.kind) {
    case 'missing':
    case 'unknown':
      return undefined
    case 'too-old':
      return 'it is older than the oldest version.'
    case 'near':
      return `versions are matched exactly: send '${refusal.version}'.`
    case 'several':
      return `it holds several versions (${refusal.versions.join(', ')})${location === 'header' ? ', as a header sent more than once arrives' : ''}: send one.`
    case 'with-empty':
      return `it holds ${refusal.version} and an empty value${location === 'header' ? ', as a header sent again empty or a trailing comma arrives' : ''}: send '${refusal.version}' alone.`
    case 'other-name': {
      const whose = refusal.named === undefined ? '' : ` ('${refusal.name}' is the name of ${refusal.named})`
      return refusal.version === refusal.date
        ? `${refusal.date} is the version ${refusal.date}, which has no name${whose}: send ${refusal.date}.`
        : `${refusal.date} is the version ${refusal.version}, and '${refusal.name}' is not its name${whose}: send ${refusal.version} or the plain date ${refusal.date}.`
    }
    case 'name-of-other-date':
      return `'${refusal.name}' is the name of version ${refusal.version}, not of a version dated ${refusal.date}: send ${refusal.version}, ` +
        `or a plain ${plainValue(format)} (served as the closest older version).`
    case 'bare-name':
      return `'${refusal.name}' is the name of version ${refusal.version}: send ${refusal.version} or the plain date ${versionDate(refusal.version) ?? ''}.`
    case 'unknown-name': {
      const served = resolveVersion(refusal.date, options)
      const there = served.ok ? `${refusal.date} is served as ${served.version}` : `${refusal.date} is older than the oldest version`
      const what = named.length === 0 ? 'versions carry no name here' : `no version is named '${refusal.name}' or dated ${refusal.date}`
      return `${what}: send a plain ${plainValue(format)} (${there})${fullNames}.`
    }
    case 'no-such-day':
      return `there is no such day: send a ${format === 'month' ? 'month written YYYY-MM (or a day of the calendar in it)' : 'day of the calendar, written YYYY-MM-DD'}.`
    case 'timed':
      return `a version is a date without a time: send '${refusal.date}'.`
    case 'malformed':
      return format === 'month' ? 'it must be a month written YYYY-MM (or a date YYYY-MM-DD in it).' : `it must be a date written YYYY-MM-DD${fullNames}.`
  }
}

/** Why a value names no released version (the documents' 404, the upgrade guide's 400); `undefined` if nothing to say. */
export function whyRefused (value: string, options: Resolving): string | undefined {
  const picked = resolveVersion(value, options)
  return picked.ok ? undefined : refusalReason(classifyRefusal(picked, options), options)
}

/** Where a client sends the version, in words, for messages. */
function describeLocation (options: Pick<VersionPickerOptions, 'location' | 'parameterName'>, prefix: string): string {
  return options.location === 'header'
    ? `the '${options.parameterName}' header`
    : `the path, right after '${prefix === '' ? '/' : prefix}' (as in ${prefix}/<version>/…)`
}

/**
 * The 400 message for a request whose version cannot be served; `named` false for a value the request does not name
 * (a pin or default the picker chose): the message then never says the request sent it.
 */
export function pickingErrorMessage (
  picked: Refused, options: Pick<VersionPickerOptions, 'location' | 'parameterName'> & Resolving, prefix: string, named: boolean
): string {
  const released = releasedNow(options).values
  const supported = `Supported versions: ${released.join(', ')}.`
  if (picked.reason === 'missing') {
    const example = released[0]
    const how = options.location === 'header'
      ? `send the API version in the '${options.parameterName}' header (for example '${options.parameterName}: ${example}')`
      : `put the API version in the path, right after '${prefix === '' ? '/' : prefix}' (for example ${prefix}/${example}/…)`
    return `This route is versioned: ${how}. ${supported}`
  }
  const reason = refusalReason(classifyRefusal(picked, options), options)
  const what = picked.reason === 'too-old' ? 'Unsupported' : picked.reason === 'unknown' ? 'Unknown' : 'Invalid'
  const where = named ? `in ${describeLocation(options, prefix)}` : `picked for this request (the request does not name it in ${describeLocation(options, prefix)})`
  return `${what} API version '${String(picked.requested)}' ${where}${reason === undefined ? '.' : `: ${reason}`} ${supported}`
}

/** A schema error formatter, as Fastify takes it (its types are not all exported from `fastify`'s entry). */
export type SchemaErrorFormatter = NonNullable<FastifyServerOptions['schemaErrorFormatter']>

function defaultFormatter (errors: FastifySchemaValidationError[], dataVar: string): Error {
  return new Error(errors.map((error) => `${dataVar}${error.instancePath ?? ''} ${error.message ?? ''}`).join(', '))
}

/**
 * The schema error formatter of a Fastify context, which Fastify keeps under a private symbol found by its
 * description; Fastify's default format when there is none.
 */
export function contextFormatter (instance: object): SchemaErrorFormatter {
  const formatter = fastifyPrivate(instance, 'fastify.schemaErrorFormatter')
  return typeof formatter === 'function' ? formatter as SchemaErrorFormatter : defaultFormatter
}

/** Fastify's validation error (400 `FST_ERR_VALIDATION`) for a failure against a version's schema, as Fastify builds it. */
export function validationError (errors: FastifySchemaValidationError[] | Error, part: RequestPart, formatter: SchemaErrorFormatter): Error {
  const error = (errors instanceof Error ? errors : formatter(errors, part)) as Error & Record<string, unknown>
  error.statusCode ??= 400
  error.code ??= 'FST_ERR_VALIDATION'
  if (!(errors instanceof Error)) error.validation = errors
  error.validationContext = errors instanceof Error ? error.validationContext ?? part : part
  return error
}

/**
 * The error HEAD's serializer throws on the handler's success payload the version's serializer refused once converted
 * (a `Date` a `date-time` union refuses, a text where an integer is required), marked as Fastify marks its own; none
 * when HEAD's writes it (a converter's or the version's fault).
 */
function headRefusal (state: RequestState, behaviour: VersionBehaviour, reply: FastifyReply, refusal: Error): Error | undefined {
  const slot = state.handlerSlot
  const form = slot === undefined ? undefined : behaviour.responseHeadForms.get(slot)
  if (form === undefined) return undefined
  try {
    (reply.compileSerializationSchema(form, ...slotParts(slot as string)) as (data: unknown) => string)(state.handlerSuccess)
    return undefined
  } catch (thrown) {
    if (!isError(thrown)) return undefined
    ;(thrown as Error & { serialization?: unknown }).serialization = (refusal as Error & { serialization?: unknown }).serialization
    return thrown
  }
}

type ErrorHandler = (this: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply) => unknown

/**
 * Hands an error on to the route's own error handler, else to the context's. Fastify passes on a thrown value only when
 * it is an `Error` (it would send `'boom'` as a success payload): anything else is rejected, an `Error` thrown so that
 * tracers record it once.
 */
function handOnError (
  instance: FastifyInstance, routeHandler: ErrorHandler | undefined, error: unknown, request: FastifyRequest, reply: FastifyReply
): unknown {
  if (routeHandler !== undefined) return routeHandler.call(instance, error as FastifyError, request, reply)
  if (isError(error)) throw error
  return Promise.reject(error)
}

/**
 * The route's error handler: a HEAD validation failure of a migrated request is a migration bug, logged and answered
 * with a 500 that carries no schema detail; everything else goes on as Fastify would hand it.
 */
export function createMigrationErrorHandler (
  registered: RegisteredRoute, routeHandler: ErrorHandler | undefined, earlyVersion: (request: FastifyRequest, reply: FastifyReply) => void
): ErrorHandler {
  const display = registered.head.display
  return function versionerErrorHandler (this: FastifyInstance, error, request, reply) {
    earlyVersion(request, reply)
    const state = requestState(request)
    // If-None-Match is held back from the onSend hooks, also on an error raised before the request hook knew the version.
    if (state !== null) holdNoneMatch(request, reply, state, true)
    // The error replaces any payload the preSerialization hook converted: the onSend hook converts the error's.
    if (state !== null) state.converted = false
    // Answered while a converter's promise is pending (handlerTimeout's 503): as a failed converter's, the answer passes
    // no converter, which may be the one that never settles (decision 0158).
    if (state?.converting === true) state.converterFailed = true
    // Nor is the error's body written by the success's serializer (Fastify keeps a reply's serializer): back to the route's.
    if (state?.versionSerializer === true) {
      state.versionSerializer = false
      reply.serializer(null as never)
    }
    const behaviour = state?.behaviour ?? null
    let result: unknown = error
    if (behaviour !== null && failsHeadAfterMigration(error, request)) {
      const part = (error as FastifyError & { validationContext?: string }).validationContext
      result = new VersionerLatestRequestValidationError(behaviour.version)
      // The request's logger carries `apiVersion` already (./request-state.ts).
      request.log.error({
        err: result, route: display, part, validation: (error as FastifyError & { validation?: unknown }).validation
      }, `A request of API version ${behaviour.version} to ${display} failed HEAD validation after its migration: ` +
        'a request converter or an instruction produces data the HEAD schema rejects.')
    } else if (behaviour !== null && behaviour.successWork && isError(error) && (error as { serialization?: unknown }).serialization !== undefined) {
      // Fastify's serializer refused a response of an older version: the coded 500 of ./response-failures.ts, unless
      // HEAD's refuses the handler's value too (decision 0298): then HEAD's error, as plain Fastify answers and logs it. A
      // version whose successes no hook converts is answered with HEAD's serializer: its refusal is plain Fastify's.
      if (state !== null) state.responseRefused = true
      const own = state === null ? undefined : headRefusal(state, behaviour, reply, error)
      if (own !== undefined) return handOnError(this, routeHandler, own, request, reply)
      result = new UnconvertibleResponseError(`A response of this route cannot be expressed in API version ${behaviour.version}. This is a server error; it has been logged.`)
      request.log.error({ err: error, route: display }, `A response of API version ${behaviour.version} to ${display} does not fit that version's schema. ` +
        'If HEAD\'s schema accepts it, a response converter produced data it rejects, or, where none ran, a value HEAD has and the version lacks reached it (a union member ' +
        'or a literal added or renamed since): add a response converter that maps it to the version change that changed it, or run verify.')
    }
    return handOnError(this, routeHandler, result, request, reply)
  }
}
