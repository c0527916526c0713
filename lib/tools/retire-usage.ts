/**
 * `retire --usage <file>`: when each version (and each of its clients) was last seen, and for which webhook subscribers it
 * was last rendered, as a metrics system exports it (docs/retiring-and-upgrading.md), and `--quiet-days N`: whether a
 * retired version had traffic inside the window.
 *
 * ```json
 * { "versions": { "2000-01-01": { "lastSeen": "2026-11-23T10:00:00Z", "clients": { "acct_1": "2026-11-23T10:00:00Z" }, "webhooks": { "ep_1": "2026-11-23T10:00:00Z" } } } }
 * ```
 * With several APIs, `{ "apis": { "<api name>": { "versions": … } } }`. Times are ISO 8601 date-times with a time zone
 * (RFC 3339: `2026-02-30T00:00:00Z` is refused, not read as March 2nd). A file that is not JSON, nests deeper than the
 * format, or holds a wrong type is refused naming its place; client ids are printed escaped (./terminal-text.ts).
 * @module
 */
import { readFile } from 'node:fs/promises'
import { VersionerToolError } from '../core/errors'
import type { CommandOutput } from './api-commands'
import { isIsoDate } from '../core/iso-date'
import { pointerSegment } from '../core/json-schema'
import { parseJsonText } from './json-text'
import { printable } from './terminal-text'
import { isObject } from './type-printer'

/** When one version was last seen, by which clients, and for which webhook subscribers it was last rendered. */
export interface VersionUsage {
  /** The latest of `lastSeen`, the clients' and the webhook subscribers' times (ms since the epoch). */
  readonly lastSeen: number
  /** Each client's last request (ms since the epoch). */
  readonly clients: ReadonlyMap<string, number>
  /** Each webhook subscriber's last webhook rendered in the version (ms since the epoch; the webhook-rendered event). */
  readonly webhooks: ReadonlyMap<string, number>
}

/** A usage file, read: by API name (`''` for a file of one API's `versions`). */
type UsageFile = ReadonlyMap<string, ReadonlyMap<string, VersionUsage>>

const ACCEPTED = 'accepted: { "versions": { "<version>": { "lastSeen": "<ISO date-time>", "clients": { "<client id>": "<ISO date-time>" }, ' +
  '"webhooks": { "<subscriber id>": "<ISO date-time>" } } } }, ' +
  'or { "apis": { "<api name>": { "versions": … } } } for several APIs; times like "2026-11-23T10:00:00Z"'

/** How deep a usage file may nest: the format nests objects 6 deep (`apis`, an API, `versions`, a version, `clients`). */
const MAX_USAGE_DEPTH = 16

/** An RFC 3339 date-time: a date, hours 00–23, minutes and seconds 00–59, `Z` or an offset. */
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/

/** Says what is wrong with the file (never returns). */
type Fail = (message: string) => never

/** A value of the file as a message shows it: a short JSON text of a scalar, `an object`, `an array`. */
function shownValue (value: unknown): string {
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object' && value !== null) return 'an object'
  const text = JSON.stringify(value)
  return printable(text.length > 60 ? `${text.slice(0, 60)}…` : text)
}

/** A JSON pointer into the file, printable: `/versions/2000-01-01/clients/acct_1`. */
function pointer (...keys: string[]): string {
  return printable(keys.map((key) => `/${pointerSegment(key)}`).join(''))
}

/** A time of the file, in ms since the epoch; `fail` for anything but a real ISO 8601 date-time with a time zone. */
function timeOf (value: unknown, where: string, fail: Fail): number {
  const match = typeof value === 'string' ? DATE_TIME.exec(value) : null
  if (match === null) return fail(`${where} is ${shownValue(value)}, not an ISO 8601 date-time with a time zone`)
  if (!isIsoDate(match[1])) return fail(`${where} is ${shownValue(value)}: ${match[1]} is not a date of the calendar`)
  const time = Date.parse(value as string)
  return Number.isNaN(time) ? fail(`${where} is ${shownValue(value)}, not a date-time this tool can read`) : time
}

/** The ids and times of a version entry's `clients` or `webhooks` (`at` ends with the key), empty when it has none. */
function timesOf (entry: Record<string, unknown>, at: readonly string[], what: string, fail: Fail): Map<string, number> {
  const value = entry[at[at.length - 1]]
  const times = new Map<string, number>()
  if (value === undefined) return times
  if (!isObject(value)) fail(`${pointer(...at)} is ${shownValue(value)}, where an object of ${what} and times is expected`)
  for (const [id, time] of Object.entries(value as Record<string, unknown>)) times.set(id, timeOf(time, pointer(...at, id), fail))
  return times
}

function readVersions (versions: unknown, at: readonly string[], fail: Fail): Map<string, VersionUsage> {
  if (!isObject(versions)) fail(`${pointer(...at)} is ${shownValue(versions)}, where an object of versions is expected`)
  const read = new Map<string, VersionUsage>()
  for (const [version, entry] of Object.entries(versions as Record<string, unknown>)) {
    const where = [...at, version]
    if (!isObject(entry)) fail(`${pointer(...where)} is ${shownValue(entry)}, where an object with lastSeen and/or clients is expected`)
    const clients = timesOf(entry, [...where, 'clients'], 'client ids', fail)
    const webhooks = timesOf(entry, [...where, 'webhooks'], 'webhook subscriber ids', fail)
    if (entry.lastSeen === undefined && clients.size === 0 && webhooks.size === 0) fail(`${pointer(...where)} has neither lastSeen, clients nor webhooks`)
    const own = entry.lastSeen === undefined ? Number.NEGATIVE_INFINITY : timeOf(entry.lastSeen, pointer(...where, 'lastSeen'), fail)
    let lastSeen = own
    for (const time of [...clients.values(), ...webhooks.values()]) if (time > lastSeen) lastSeen = time
    read.set(version, { lastSeen, clients, webhooks })
  }
  return read
}

/**
 * A usage file's text, read and checked; `FST_VERSIONER_TOOL` naming the file, the place (a line and column for
 * text that is not JSON or nests too deep, else a JSON pointer) and what is accepted.
 * @example
 * ```ts
 * const usage = parseUsage('{ "versions": { "2000-01-01": { "lastSeen": "2026-11-23T10:00:00Z" } } }', 'usage.json')
 * ```
 */
export function parseUsage (text: string, file: string): UsageFile {
  const fail: Fail = (message) => {
    throw new VersionerToolError(`The usage file '${file}': ${message}; ${ACCEPTED}.`)
  }
  // A byte-order mark (an editor's or PowerShell's UTF-8) is no JSON.
  const parsed = parseJsonText(text.replace(/^\uFEFF/, ''), MAX_USAGE_DEPTH)
  if (!parsed.ok) {
    const { line, column } = parsed.place
    return fail(parsed.kind === 'depth'
      ? `nests too deep: at line ${line}, column ${column}, ${parsed.problem} (a usage file nests 6)`
      : `is not JSON: at line ${line}, column ${column}, ${parsed.problem}`)
  }
  const root = parsed.value
  if (!isObject(root) || (root.versions === undefined) === (root.apis === undefined)) return fail('must be an object with either "versions" or "apis"')
  if (root.versions !== undefined) return new Map([['', readVersions(root.versions, ['versions'], fail)]])
  if (!isObject(root.apis)) return fail(`/apis is ${shownValue(root.apis)}, where an object of API names is expected`)
  return new Map(Object.entries(root.apis).map(([api, entry]) => {
    if (!isObject(entry)) fail(`${pointer('apis', api)} is ${shownValue(entry)}, where an object with "versions" is expected`)
    return [api, readVersions((entry as Record<string, unknown>).versions, ['apis', api, 'versions'], fail)]
  }))
}

/**
 * Reads and checks a usage file ({@link parseUsage}); `FST_VERSIONER_TOOL` when it cannot be read.
 * @example
 * const usage = await readUsage('usage.json')
 */
async function readUsage (file: string): Promise<UsageFile> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new VersionerToolError(`The usage file '${file}': cannot be read (${(error as Error).message}); ${ACCEPTED}.`)
  }
  return parseUsage(text, file)
}

/** Each id's latest time in any of `maps`. */
function latestTimes (maps: ReadonlyArray<ReadonlyMap<string, number>>): Map<string, number> {
  const merged = new Map<string, number>()
  for (const map of maps) for (const [id, time] of map) merged.set(id, Math.max(time, merged.get(id) ?? time))
  return merged
}

/** Each version's usage in any of `maps`: the latest of each time. */
function mergeVersions (maps: ReadonlyArray<ReadonlyMap<string, VersionUsage>>): Map<string, VersionUsage> {
  const merged = new Map<string, VersionUsage>()
  for (const map of maps) {
    for (const [version, usage] of map) {
      const before = merged.get(version)
      merged.set(version, before === undefined
        ? usage
        : { lastSeen: Math.max(before.lastSeen, usage.lastSeen), clients: latestTimes([before.clients, usage.clients]), webhooks: latestTimes([before.webhooks, usage.webhooks]) })
    }
  }
  return merged
}

/**
 * Reads and checks each usage file (`--usage` once per instance or export) and reads them as one: each version's,
 * client's and webhook subscriber's latest time in any of them.
 * @example
 * const usage = await readUsageFiles(['usage-eu.json', 'usage-us.json'])
 */
export async function readUsageFiles (files: readonly string[]): Promise<UsageFile> {
  const read = await Promise.all(files.map(readUsage))
  const apis = new Set(read.flatMap((usage) => [...usage.keys()]))
  return new Map([...apis].map((api) => [api, mergeVersions(read.flatMap((usage) => usage.get(api) ?? []))]))
}

/**
 * The usage of one API: its entry under `apis` and the `versions` of a file of one API's, read as one;
 * `FST_VERSIONER_TOOL` when the files hold neither, or name none of the API's versions (an entry under another
 * name, or an export whose query matched nothing, would read as no traffic).
 * @example
 * const versions = usageOfApi(await readUsageFiles(['usage.json']), { name: 'root', versions: ['2001-01-01', '2000-01-01'] }, ['usage.json'])
 */
export function usageOfApi (usage: UsageFile, api: { readonly name: string, readonly versions: readonly string[] }, files: readonly string[]): ReadonlyMap<string, VersionUsage> {
  const entries = [usage.get(api.name), usage.get('')].filter((entry) => entry !== undefined)
  const merged = mergeVersions(entries)
  if (entries.length > 0 && api.versions.some((version) => merged.has(version))) return merged
  const named = [...merged.keys()].map(printable).join(', ') || 'none'
  if (entries.length > 0) {
    throw new VersionerToolError(`The usage file(s) ${files.join(', ')} record no traffic for any version of the API '${printable(api.name)}' (its versions: ` +
      `${api.versions.map(printable).join(', ')}; the files name: ${named}): a file exported from its traffic names the versions still used. ` +
      'Check the query and labels that made it.')
  }
  throw new VersionerToolError(`The usage file(s) ${files.join(', ')} hold no entry for the API '${printable(api.name)}' (they name: ` +
    `${[...usage.keys()].map(printable).join(', ')}): name its entry as the tools name the API (its apiName option, else its prefix; root ` +
    'without one), under "apis", or give one API\'s "versions".')
}

/** How long ago, in words (`3 days ago`, `5 hours ago`, `in 2 days` for a time ahead of the clock). */
function ago (time: number, now: number): string {
  const hours = Math.round((now - time) / 3_600_000)
  const [count, unit] = Math.abs(hours) >= 48 ? [Math.round(Math.abs(hours) / 24), 'days'] : [Math.abs(hours), 'hours']
  return hours < 0 ? `in ${count} ${unit}` : `${count} ${unit} ago`
}

/**
 * Prints the verdict on one retired version: when it was last seen and by whom, and, with `quietDays`, whether that
 * was inside the window (naming the clients seen inside it); 1 when it was.
 * @example
 * code = Math.max(code, usageVerdict('2000-01-01', usage.get('')?.get('2000-01-01'), { quietDays: 30, now: Date.now() }, io))
 */
export function usageVerdict (version: string, usage: VersionUsage | undefined, window: { readonly quietDays: number | undefined, readonly now: number }, io: CommandOutput): number {
  const { quietDays, now } = window
  const shown = printable(version)
  if (usage === undefined) {
    io.out(`usage: ${shown}: no traffic recorded in the usage file`)
    return 0
  }
  const byTime = (times: ReadonlyMap<string, number>): Array<[string, number]> => [...times].sort(([, a], [, b]) => b - a)
  const [clients, subscribers] = [byTime(usage.clients), byTime(usage.webhooks)]
  const listed = (label: string, ids: Array<[string, number]>, show: (time: number) => string): string =>
    ids.length === 0 ? '' : `; ${label}: ${ids.map(([id, time]) => `${printable(id)} (${show(time)})`).join(', ')}`
  const iso = (time: number): string => new Date(time).toISOString()
  io.out(`usage: ${shown} last seen ${iso(usage.lastSeen)} (${ago(usage.lastSeen, now)})${listed('clients', clients, iso)}${listed('webhooks rendered for', subscribers, iso)}`)
  if (quietDays === undefined) return 0
  const since = now - quietDays * 86_400_000
  if (usage.lastSeen < since) return 0
  const recent = (ids: Array<[string, number]>): Array<[string, number]> => ids.filter(([, time]) => time >= since)
  const named = `${listed('clients', recent(clients), (time) => ago(time, now))}${listed('webhooks rendered for', recent(subscribers), (time) => ago(time, now))}`.slice(2)
  io.err(`retire: ${shown} had traffic inside the last ${quietDays} day(s) (--quiet-days ${quietDays}), last ${ago(usage.lastSeen, now)}; ` +
    `${named !== '' ? named : 'the usage file names no client'}. Ask them to upgrade, or wait.`)
  return 1
}
