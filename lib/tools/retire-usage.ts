/**
 * `retire --usage <file>`: when each version (and each of its clients) was last seen, as a metrics system exports
 * it (docs/retiring-and-upgrading.md), and `--quiet-days N`: whether a retired version had traffic inside the window.
 *
 * ```json
 * { "versions": { "2000-01-01": { "lastSeen": "2026-11-23T10:00:00Z", "clients": { "acct_1": "2026-11-23T10:00:00Z" } } } }
 * ```
 * With several APIs, `{ "apis": { "<api name>": { "versions": … } } }`. Times are ISO 8601 date-times with a time zone.
 * @module
 */
import { readFile } from 'node:fs/promises'
import { VersionerToolError } from '../core/errors'
import type { CommandOutput } from './api-commands'
import { isObject } from './type-printer'

/** When one version was last seen, and by which clients. */
interface VersionUsage {
  /** The latest of `lastSeen` and the clients' times (ms since the epoch). */
  readonly lastSeen: number
  /** Each client's last request (ms since the epoch). */
  readonly clients: ReadonlyMap<string, number>
}

/** A usage file, read: by API name (`''` for a file of one API's `versions`). */
export type UsageFile = ReadonlyMap<string, ReadonlyMap<string, VersionUsage>>

const ACCEPTED = 'accepted: { "versions": { "<version>": { "lastSeen": "<ISO date-time>", "clients": { "<client id>": "<ISO date-time>" } } } }, ' +
  'or { "apis": { "<api name>": { "versions": … } } } for several APIs; times like "2026-11-23T10:00:00Z"'

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/

/** A time of the file, in ms since the epoch. */
function timeOf (value: unknown, where: string, fail: (message: string) => never): number {
  const time = typeof value === 'string' && DATE_TIME.test(value) ? Date.parse(value) : Number.NaN
  if (Number.isNaN(time)) fail(`${where} is ${JSON.stringify(value) ?? String(value)}, not an ISO 8601 date-time with a time zone`)
  return time
}

function readVersions (versions: unknown, where: string, fail: (message: string) => never): Map<string, VersionUsage> {
  if (!isObject(versions)) fail(`${where} must be an object of versions`)
  const read = new Map<string, VersionUsage>()
  for (const [version, entry] of Object.entries(versions)) {
    const at = `${where}["${version}"]`
    if (!isObject(entry)) fail(`${at} must be an object with lastSeen and/or clients`)
    const clients = new Map<string, number>()
    if (entry.clients !== undefined) {
      if (!isObject(entry.clients)) fail(`${at}.clients must be an object of client ids and times`)
      for (const [client, time] of Object.entries(entry.clients)) clients.set(client, timeOf(time, `${at}.clients["${client}"]`, fail))
    }
    if (entry.lastSeen === undefined && clients.size === 0) fail(`${at} has neither lastSeen nor clients`)
    const own = entry.lastSeen === undefined ? Number.NEGATIVE_INFINITY : timeOf(entry.lastSeen, `${at}.lastSeen`, fail)
    let lastSeen = own
    for (const time of clients.values()) if (time > lastSeen) lastSeen = time
    read.set(version, { lastSeen, clients })
  }
  return read
}

/**
 * Reads and checks a usage file; `FST_VERSIONER_TOOL` saying what was wrong and what is accepted.
 * @example
 * const usage = await readUsage('usage.json')
 */
export async function readUsage (file: string): Promise<UsageFile> {
  const fail = (message: string): never => {
    throw new VersionerToolError(`The usage file '${file}': ${message}; ${ACCEPTED}.`)
  }
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    return fail(`cannot be read (${(error as Error).message})`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return fail(`is not JSON (${(error as Error).message})`)
  }
  if (!isObject(parsed) || (parsed.versions === undefined) === (parsed.apis === undefined)) return fail('must be an object with either "versions" or "apis"')
  if (parsed.versions !== undefined) return new Map([['', readVersions(parsed.versions, 'versions', fail)]])
  if (!isObject(parsed.apis)) return fail('"apis" must be an object of API names')
  return new Map(Object.entries(parsed.apis).map(([api, entry]) => {
    if (!isObject(entry)) fail(`apis["${api}"] must be an object with "versions"`)
    return [api, readVersions((entry as Record<string, unknown>).versions, `apis["${api}"].versions`, fail)]
  }))
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
  if (usage === undefined) {
    io.out(`usage: ${version}: no traffic recorded in the usage file`)
    return 0
  }
  const clients = [...usage.clients].sort(([, a], [, b]) => b - a)
  const named = clients.map(([client, time]) => `${client} (${new Date(time).toISOString()})`).join(', ')
  io.out(`usage: ${version} last seen ${new Date(usage.lastSeen).toISOString()} (${ago(usage.lastSeen, now)})${named === '' ? '' : `; clients: ${named}`}`)
  if (quietDays === undefined) return 0
  const since = now - quietDays * 86_400_000
  if (usage.lastSeen < since) return 0
  const recent = clients.filter(([, time]) => time >= since).map(([client, time]) => `${client} (${ago(time, now)})`)
  io.err(`retire: ${version} had traffic inside the last ${quietDays} day(s) (--quiet-days ${quietDays}), last ${ago(usage.lastSeen, now)}; ` +
    `${recent.length > 0 ? `clients: ${recent.join(', ')}` : 'the usage file names no client'}. Ask them to upgrade, or wait.`)
  return 1
}
