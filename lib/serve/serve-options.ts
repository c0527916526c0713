/**
 * The options the serve stage uses, provided by the plugin's resolved options (lib/options.ts).
 * @module
 */
import type { FastifyRequest } from 'fastify'
import type { VersionPicker, VersionPickerOptions } from './version-picking'
import type { Redaction } from '../values/redaction'
import type { ReleaseClock } from './release-clock'

/** What serving versioned requests needs from the plugin options. */
export interface ServeOptions extends VersionPickerOptions {
  /** The name as the user wrote it (used for the response header). */
  readonly headerName: string
  readonly picker: VersionPicker
  /** True when picking may be asynchronous (a default function or a custom picker). */
  readonly asyncPicking: boolean
  /** The current time in milliseconds (the `now` option): when versions with `afterSunset: 'gone'` end. */
  readonly now: () => number
  /** The release clock (./release-clock.ts): releases and brownouts still to come at start-up; none without. */
  readonly releases: ReleaseClock | undefined
  /** The lifecycle headers of a version now (./version-headers.ts), set on every answer of it; `undefined` when no version has any. */
  readonly lifecycleHeaders: LifecycleHeadersOf | undefined
  /** The upgrade preview (./upgrade-preview.ts), when the option is on. */
  readonly upgradePreview: ResolvedUpgradePreview | undefined
  /** Where the versions' documents are served (`null` when they are not), as a `Link` target: the `Link` of a deprecated field without its own. */
  readonly documentUrl: string | null
  /** The `clientId` option: the client of a request, for usage events. */
  readonly clientId: ((request: FastifyRequest) => string | undefined) | undefined
  /** The capture of exchanges (./exchange-capture.ts), when the option is on. */
  readonly captureExchanges: ResolvedCaptureExchanges | undefined
  /** The API's name, as the tools name it (its `apiName`, else from its prefix): the usage events carry it. */
  readonly apiName: string
}

/** The `upgradePreview` option once checked (see ./upgrade-preview.ts). */
export interface ResolvedUpgradePreview {
  /** The request header naming the target version, and the response header of the summary (lower case). */
  readonly headerName: string
  readonly access: (request: FastifyRequest) => boolean | Promise<boolean>
}

/** The `captureExchanges` option once checked (see ./exchange-capture.ts). */
export interface ResolvedCaptureExchanges {
  readonly sampleRate: number
  /** Versions without work on a route recorded too (their hooks then on every versioned route). */
  readonly everyVersion: boolean
  readonly redaction: Redaction
  /** The API's `webhooks.render()` calls since it started, per webhook (`METHOD name`): ./webhook-capture.ts counts them. */
  readonly renderCalls: Map<string, { readonly name: string, readonly method: string, readonly count: number }>
}

/** A response header: name and value. */
export type Header = readonly [name: string, value: string]

/** The lifecycle headers of a version's answers now, if it has some. */
export type LifecycleHeadersOf = (version: string) => VersionLifecycleHeaders | undefined

/** The lifecycle headers of one version's answers: `Deprecation`, `Sunset`, a preview's `Cache-Control`, and the `Link` they carry (appended to any other). */
export interface VersionLifecycleHeaders {
  readonly headers: readonly Header[]
  /** Its lifecycle page (`rel="deprecation"` or `"sunset"`) and, when deprecated, its successor's document (`rel="successor-version"`). */
  readonly link: string | undefined
}
