/**
 * What `replay` reports (./replay-traffic.ts): its findings, the exchanges it could not replay, and its options.
 * @module
 */
import type { AppBuilder } from './handler-replay'

/**
 * One exchange that no longer migrates as it did, or (with `handlers`) that a fresh application answers otherwise.
 * @example
 * ```ts
 * declare const report: ReplayReport
 * const differs: ReplayFinding[] = report.findings.filter((finding) => finding.kind === 'differs')
 * for (const finding of differs) console.log(`${finding.version} ${finding.route} ${finding.direction} ${finding.part}${finding.pointer}`)
 * ```
 */
export interface ReplayFinding {
  /** The line of the traffic file. */
  readonly line: number
  readonly version: string
  /** The HEAD route: `POST /users`. */
  readonly route: string
  /**
   * `'request'`: the request up to HEAD; `'response'`: the response down to the version; `'answer'` (with `handlers`):
   * what the client now gets from the handlers of a fresh application, sent the recorded request; `'delivery'`: a
   * recorded webhook render (`route` is then `webhook <name>`), its event rendered again through the converters, or
   * (with `handlers`) the event a fresh application's handler renders.
   */
  readonly direction: 'request' | 'response' | 'answer' | 'delivery'
  /**
   * `'differs'`: the converters give something else now; `'converter failed'`: one throws; `'refused'`: the version's
   * schema or a converter refuses the recorded request; `'unexpressible'`: the response holds a HEAD value the version
   * lacks; `'unsendable'`: the version's serializer refuses the converted response; `'unknown route'`: the application
   * no longer serves the route in that version; of a refused exchange (decision 0307), `'now accepted'`: its version's
   * validation and converters let it through now; `'refused otherwise'`: by another place, keyword, status or code
   * (`recorded` and `replayed` say each in words); `'converter failed'`: a converter now fails on it (a 500).
   */
  readonly kind: 'differs' | 'converter failed' | 'refused' | 'unexpressible' | 'unsendable' | 'unknown route' | 'now accepted' | 'refused otherwise'
  /** `body`, `query`, `headers` (requests), `status`, `body`, `headers` (responses, answers); `''` when no part is at fault. */
  readonly part: string
  /** The first JSON pointer into the part that differs. */
  readonly pointer: string
  /** What was recorded there, and what the converters (or the handlers) give now (`undefined`: nothing). */
  readonly recorded?: unknown
  readonly replayed?: unknown
  /** The version changes at fault (the one whose converters last changed the place), and their converters that ran. */
  readonly versionChanges: readonly string[]
  readonly converters: readonly string[]
  /** The whole finding on one line. */
  readonly text: string
}

/**
 * An exchange that could not be replayed: its line, HEAD route and version, and why.
 * @example
 * ```ts
 * declare const report: ReplayReport // what replayTraffic returned
 * for (const skipped of report.notReplayable) console.log(`line ${skipped.line}: ${skipped.route} (${skipped.version}): ${skipped.message}`)
 * ```
 */
export interface NotReplayed {
  readonly line: number
  readonly route: string
  readonly version: string
  readonly message: string
}

/**
 * What `replay` found.
 * @example
 * ```ts
 * declare const app: FastifyInstance
 * declare const traffic: Traffic
 * const report: ReplayReport = await replayTraffic(app, traffic)
 * if (report.findings.length > 0) process.exitCode = 1
 * ```
 */
export interface ReplayReport {
  readonly findings: readonly ReplayFinding[]
  /** The exchanges replayed (every exchange of the file, but those of other APIs). */
  readonly replayed: number
  /** The webhook deliveries replayed: one per recorded render and version (decision 0238). */
  readonly deliveries: number
  /** Exchanges of another API of the application than the one picked. */
  readonly otherApis: number
  /** Places not compared because they held a redacted value. */
  readonly redacted: number
  /** Exchanges not replayed (a converter or a schema met a redacted value, a version gone, a server failure recorded): line, route, version and why. */
  readonly notReplayable: readonly NotReplayed[]
  /**
   * With `handlers`: the exchanges whose answers were compared, and the places left out because the two fresh
   * applications answered them differently (ids, tokens, times: what the handlers make anew).
   */
  readonly answers?: { readonly compared: number, readonly volatile: number }
}

/**
 * Options of {@link replayTraffic}.
 * @example
 * ```ts
 * declare const app: FastifyInstance
 * declare const traffic: Traffic
 * declare function buildApp (): Promise<FastifyInstance> // a fresh application, with an empty store
 * const options: ReplayTrafficOptions = { api: 'public', handlers: buildApp }
 * const report = await replayTraffic(app, traffic, options)
 * ```
 */
export interface ReplayTrafficOptions {
  /** The one API to replay (its name or prefix), when the application has several. */
  readonly api?: string
  /**
   * Also send each recorded request, in the file's order, to two fresh applications this function builds, and compare
   * what the client gets now with what it received (./handler-replay.ts). Each call must give an application with a
   * fresh state (an empty in-memory store, a test database of its own), as the traffic was recorded from one.
   */
  readonly handlers?: AppBuilder
}
