/**
 * The plugin's options: their types, defaults and checks (a bad one is `FST_VERSIONER_INVALID_OPTION` saying what is
 * accepted); the user's options object is never changed.
 * @module
 */
import { apiNameFrom } from './core/application-root'
import type { FastifyRequest } from 'fastify'
import { DOCS_OPTION_KEYS, type DocsOptions, type DocsVersionOptions } from './docs/options'
import { processWarning } from './core/warnings'
import { InvalidOptionError } from './core/errors'
import { isIsoDate, isMonth, versionDate } from './core/iso-date'
import { describeValue } from './core/json-schema'
import { ANOTHER_COPY, checkInstanceOf, ofAnotherCopy } from './core/other-copies'
import {
  resolveVersion, VersionPicker, type Resolving, type ApiVersionDefaultValue, type ApiVersionFormat, type ApiVersionLocation
} from './serve/version-picking'
import { VersionBundle } from './describe/versions'
import type { ResolvedUpgradePreview, ServeOptions } from './serve/serve-options'
import { startReleaseClock } from './serve/release-clock'
import { linkTarget, scheduledLifecycleHeaders } from './serve/version-headers'
import type { UpgradePreviewOptions } from './serve/upgrade-preview'
import { captureExchangesOption, type CaptureExchangesOptions } from './serve/exchange-capture'

/**
 * Options of `fastifyVersioner`.
 * @example
 * ```ts
 * declare const app: FastifyInstance, versions: VersionBundle
 * await app.register(fastifyVersioner, {
 *   versions,
 *   apiVersionLocation: 'header',
 *   apiVersionParameterName: 'x-api-version',
 *   apiVersionDefaultValue: (request) => request.headers['x-client'] === 'legacy-app' ? '2000-01-01' : '2001-01-01'
 * })
 * ```
 */
export interface FastifyVersionerOptions extends DocsOptions {
  /** The versions of the API. */
  versions: VersionBundle
  /** Where the version travels: a header (default) or a path segment after the `versioned(...)` prefix. */
  apiVersionLocation?: ApiVersionLocation
  /**
   * `'date'` (ISO dates, waterfalling; default), `'month'` (`YYYY-MM` months, waterfalling; a date names its month) or
   * `'string'` (any string, bundle order, no waterfalling).
   */
  apiVersionFormat?: ApiVersionFormat
  /** The header name, or the path parameter name (default `'x-api-version'`). Echoed in responses as a header. */
  apiVersionParameterName?: string
  /** @deprecated Use `apiVersionParameterName`. */
  apiVersionHeaderName?: string
  /** The version of requests that name none: a version, or a function of the request (may be async). */
  apiVersionDefaultValue?: ApiVersionDefaultValue
  /** A `VersionPicker` subclass, for custom version-picking logic. */
  versionPicker?: typeof VersionPicker
  /** Title of the version parameter in the OpenAPI documents. */
  apiVersionTitle?: string
  /** Description of the version parameter in the OpenAPI documents. */
  apiVersionDescription?: string
  /**
   * The clock of releases, brownouts and the sunset policy: a valid `Date` or milliseconds (default `Date.now()`, read
   * at each call, so that fake timers installed later are followed).
   */
  now?: () => Date | number
  /**
   * The API's name in the tools (`fastify-versioner export` writes `<out>/<apiName>/`, `--api <apiName>` picks it):
   * letters, digits, `.`, `_` and `-`. Default: the prefix of the context the plugin is registered in (`/partner` →
   * `partner`; `root` without one).
   */
  apiName?: string
  /**
   * For tests that build part of an application with its full bundle: instructions and converters naming routes or
   * schemas it does not register are skipped instead of failing `ready()`. Default `false`; never in the real app.
   */
  partialApp?: boolean
  /**
   * The client of a request (an account or API key id) for usage events: `ServedEvent.client`. Synchronous; called
   * only when something subscribes to `fastify-versioner:served`. Default: none (`client` is `undefined`).
   */
  clientId?: (request: FastifyRequest) => string | undefined
  /**
   * Opt-in upgrade preview: a request naming a target version in `headerName`, allowed by `access(request)`, also
   * reports what the target would answer (channel `fastify-versioner:upgrade-preview`, and a response header).
   */
  upgradePreview?: UpgradePreviewOptions
  /**
   * Opt-in capture of old-version exchanges (`{ sampleRate?, redact? }`), published on the channel
   * `fastify-versioner:exchange` for `fastify-versioner replay`.
   */
  captureExchanges?: CaptureExchangesOptions
}

/** Options after defaults and checks: what the serve stage uses, and the documents' version parameter. */
export interface ResolvedOptions extends ServeOptions, DocsVersionOptions {
  /** The `partialApp` option. */
  readonly partialApp: boolean
}

const KNOWN = new Set(['versions', 'apiVersionLocation', 'apiVersionFormat', 'apiVersionParameterName', 'apiVersionHeaderName',
  'apiVersionDefaultValue', 'versionPicker', 'apiVersionTitle', 'apiVersionDescription', 'now', 'apiName', 'partialApp', 'clientId', 'upgradePreview',
  'captureExchanges'])

/**
 * The `now` option as milliseconds; anything else throws `FST_VERSIONER_INVALID_OPTION` (read as `NaN` it would be
 * after every instant, serving releases still to come and answering sunset versions 410).
 */
function millisecondsOf (clock: () => Date | number): () => number {
  return () => {
    const given: unknown = clock()
    const time = given instanceof Date || typeof given === 'number' ? Number(given) : Number.NaN
    if (!Number.isFinite(time)) {
      throw new InvalidOptionError(`Option 'now' must return the current time, a valid Date or milliseconds since the epoch; got ${describeValue(given)}.`)
    }
    return time
  }
}

/**
 * Checks that a version `apiVersionDefaultValue` names is served at start-up: one still to come would answer every
 * request naming no version 400 until its `releasedAt` (a date, which moves to a release at its instant, is served).
 */
function checkDefaultServed (value: string, options: Resolving): void {
  if (resolveVersion(value, options).ok) return
  const picked = resolveVersion(value, { versions: options.versions, format: options.format })
  const named = picked.ok ? picked.version : value
  throw new InvalidOptionError(`Option 'apiVersionDefaultValue' '${value}' names '${named}', a release not served before its releasedAt ` +
    `(${options.versions.get(named)?.releasedAt?.toISOString() ?? ''}): every request naming no version would be refused until then. ` +
    `Name a version served from start-up${options.format === 'string' ? '' : ', or a date (served as the newest release by then)'}.`)
}

function oneOf<T extends string> (name: string, value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T
  throw new InvalidOptionError(`Option '${name}' must be ${allowed.map((item) => `'${item}'`).join(' or ')}; got ${describeValue(value)}.`)
}

function optionalString (name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw new InvalidOptionError(`Option '${name}' must be a string; got ${describeValue(value)}.`)
  return value
}

function booleanOption (name: string, value: unknown): boolean {
  if (value === undefined) return false
  if (typeof value !== 'boolean') throw new InvalidOptionError(`Option '${name}' must be true or false; got ${describeValue(value)}.`)
  return value
}

/** The `apiName` option: a name a folder can have. */
function apiNameOption (value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value)) {
    throw new InvalidOptionError(`Option 'apiName' must be a name made of letters, digits, '.', '_' and '-' (a folder name for the tools); got ${describeValue(value)}.`)
  }
  return value
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** The `upgradePreview` option: `{ headerName?, access }`, its header not the version header. */
function upgradePreviewOption (value: unknown, versionHeader: string | undefined): ResolvedUpgradePreview | undefined {
  if (value === undefined) return undefined
  const shape = 'an object { headerName?: string, access: (request) => boolean | Promise<boolean> }'
  if (typeof value !== 'object' || value === null) throw new InvalidOptionError(`Option 'upgradePreview' must be ${shape}; got ${describeValue(value)}.`)
  const { headerName = 'x-api-version-preview', access, ...rest } = value as Partial<UpgradePreviewOptions>
  const unknown = Object.keys(rest)
  if (unknown.length > 0) throw new InvalidOptionError(`Option 'upgradePreview' has unknown key(s) ${unknown.join(', ')}; it must be ${shape}.`)
  if (typeof access !== 'function') throw new InvalidOptionError(`Option 'upgradePreview.access' must be a function of the request answering true or false; got ${describeValue(access)}.`)
  if (typeof headerName !== 'string' || !HEADER_NAME.test(headerName) || headerName.toLowerCase() === versionHeader) {
    throw new InvalidOptionError(`Option 'upgradePreview.headerName' must be a valid header name other than the version header; got ${describeValue(headerName)}.`)
  }
  return { headerName: headerName.toLowerCase(), access }
}

/**
 * Checks the version values against the format: released ones dates (or months) sorted newest first; a preview's
 * carries a name (`2027-01-01.preview`), since a plain date names the release it waterfalls to.
 */
function checkFormat (versions: VersionBundle, format: ApiVersionFormat): void {
  const released = versions.releasedValues
  if (format === 'date') {
    const notDates = released.filter((value) => versionDate(value) === undefined)
    if (notDates.length > 0) {
      throw new InvalidOptionError('With apiVersionFormat \'date\', every version must be an ISO date (YYYY-MM-DD); ' +
        `these are not: ${notDates.join(', ')}. Use apiVersionFormat: 'string' for other version names (a date may carry a name: YYYY-MM-DD.name).`)
    }
  }
  if (format === 'month') {
    const notMonths = released.filter((value) => !isMonth(value))
    if (notMonths.length > 0) {
      throw new InvalidOptionError(`With apiVersionFormat 'month', every released version must be a month written YYYY-MM (2026-04); these are not: ${notMonths.join(', ')}.`)
    }
    const sorted = [...released].sort().reverse()
    if (sorted.some((value, index) => value !== released[index])) {
      throw new InvalidOptionError(`Month versions are not sorted correctly: got ${released.join(', ')}. Sort them newest first: ${sorted.join(', ')}.`)
    }
  }
  if (format === 'string') return
  const plain = versions.versionValues.filter((value) => !released.includes(value) && (isIsoDate(value) || isMonth(value)))
  if (plain.length > 0) {
    throw new InvalidOptionError(`Preview version(s) ${plain.join(', ')} must not be a plain ${format}: a plain ${format} names the released version it ` +
      `waterfalls to. Give the preview a name, as in ${plain[0]}.preview.`)
  }
}

/** Checks the options and fills in defaults (the documents' own are ./docs/options.ts's). */
export function resolveOptions (options: FastifyVersionerOptions, documentUrl: string | null, prefix: string): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw new InvalidOptionError('fastifyVersioner needs an options object with { versions }.')
  const unknown = Object.keys(options).filter((key) => !KNOWN.has(key) && !DOCS_OPTION_KEYS.has(key) && key !== 'prefix')
  if (unknown.length > 0) {
    throw new InvalidOptionError(`Unknown option(s) ${unknown.join(', ')}. Known options: ${[...KNOWN, ...DOCS_OPTION_KEYS].join(', ')}.`)
  }
  const versions = options.versions
  checkInstanceOf(versions, VersionBundle, 'Option \'versions\' must be')
  const location = oneOf('apiVersionLocation', options.apiVersionLocation, ['header', 'path'], 'header')
  const format = oneOf('apiVersionFormat', options.apiVersionFormat, ['date', 'month', 'string'], 'date')
  if (options.apiVersionHeaderName !== undefined) processWarning.FSTVRSDEP001()
  const name = optionalString('apiVersionParameterName', options.apiVersionParameterName) ??
    optionalString('apiVersionHeaderName', options.apiVersionHeaderName) ?? 'x-api-version'
  if (name === '' || (location === 'header' && !HEADER_NAME.test(name))) {
    throw new InvalidOptionError(`Option 'apiVersionParameterName' must be a valid header name; got ${describeValue(name)}.`)
  }
  checkFormat(versions, format)
  const defaultValue = options.apiVersionDefaultValue
  if (defaultValue !== undefined) {
    if (location === 'path') {
      throw new InvalidOptionError('Option \'apiVersionDefaultValue\' cannot be used with apiVersionLocation \'path\': ' +
        'a request without a version segment has a different path. Put the version in a header to have a default.')
    }
    if (typeof defaultValue === 'string') {
      if (!resolveVersion(defaultValue, { versions, format }).ok) {
        throw new InvalidOptionError(`Option 'apiVersionDefaultValue' '${defaultValue}' is not a version this API serves; ` +
          `versions: ${versions.releasedValues.join(', ')}.`)
      }
    } else if (typeof defaultValue !== 'function') {
      throw new InvalidOptionError(`Option 'apiVersionDefaultValue' must be a version string or a function of the request; got ${describeValue(defaultValue)}.`)
    }
  }
  const Picker = options.versionPicker ?? VersionPicker
  if (typeof Picker !== 'function' || (Picker !== VersionPicker && !(Picker.prototype instanceof VersionPicker))) {
    const got = ofAnotherCopy(Picker, VersionPicker) ? `a VersionPicker ${ANOTHER_COPY}` : describeValue(Picker)
    throw new InvalidOptionError(`Option 'versionPicker' must be VersionPicker or a subclass of it; got ${got}.`)
  }
  const clock = options.now
  if (clock !== undefined && typeof clock !== 'function') {
    throw new InvalidOptionError(`Option 'now' must be a function returning the current time (a Date or milliseconds); got ${describeValue(clock)}.`)
  }
  // Date.now looked up at each call: a fake clock installed after registration (a test's fake timers) is the one read.
  const now = clock === undefined ? () => Date.now() : millisecondsOf(clock)
  if (options.clientId !== undefined && typeof options.clientId !== 'function') {
    throw new InvalidOptionError(`Option 'clientId' must be a function of the request returning a client id (a string) or undefined; got ${describeValue(options.clientId)}.`)
  }
  const releases = startReleaseClock(versions, now)
  if (typeof defaultValue === 'string') checkDefaultServed(defaultValue, { versions, format, releases })
  const parameterName = location === 'header' ? name.toLowerCase() : name.replace(/[^A-Za-z0-9_]/g, '_')
  const picker = new Picker({ versions, location, format, parameterName, defaultValue })
  // The documents' URL as the lifecycle headers' Link names it (a prefix or openapiUrl may hold any text Fastify routes).
  const linkUrl = documentUrl === null ? null : linkTarget(documentUrl)
  return {
    versions,
    location,
    format,
    parameterName,
    headerName: name,
    defaultValue,
    picker,
    asyncPicking: typeof defaultValue === 'function' || Picker !== VersionPicker,
    apiVersionTitle: optionalString('apiVersionTitle', options.apiVersionTitle),
    apiVersionDescription: optionalString('apiVersionDescription', options.apiVersionDescription),
    now,
    apiName: apiNameFrom(apiNameOption(options.apiName), prefix),
    partialApp: booleanOption('partialApp', options.partialApp),
    releases,
    lifecycleHeaders: scheduledLifecycleHeaders(versions, linkUrl, releases),
    upgradePreview: upgradePreviewOption(options.upgradePreview, location === 'header' ? parameterName : undefined),
    documentUrl: linkUrl,
    clientId: options.clientId,
    captureExchanges: captureExchangesOption(options.captureExchanges)
  }
}
