/**
 * `check`: compares each saved version's OpenAPI document with the one the application serves now, and sorts
 * the differences into breaks (a client of that version would fail) and notes (what its clients can ignore).
 * The diff itself is `api-smart-diff`'s (`$ref`s resolved, OpenAPI 3 rules); this module names each change as
 * the operation, the place (a JSON pointer into the request or response body, or the parameter) and the kind,
 * pairs a removed field with an added field of the same schema as a rename, and decides which side breaks:
 * what a client sends (parameters, request bodies) breaks when it narrows, what it receives (responses) when
 * fields, statuses or guarantees go away.
 * @module
 */
import type { apiCompare as ApiCompare } from 'api-smart-diff'
import type { FastifyInstance } from 'fastify'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { VersionerToolError } from '../core/errors'
import { fileNameOf, servedDocuments } from './export'
import {
  actionWord, at, change, dataPointer, escapePointer, METHODS, placeOf, TEXT_KEYS, withoutText, type DocumentChange, type RawDiff
} from './document-places'

export type { DocumentChange }

let apiCompare: typeof ApiCompare | undefined

/** `api-smart-diff`'s `apiCompare`, loaded on first use (applications that never run a check do not load it). */
function loadCompare (): typeof ApiCompare {
  apiCompare ??= (require('api-smart-diff') as { apiCompare: typeof ApiCompare }).apiCompare
  return apiCompare
}

/** The result of a check: the breaks (a non-empty list fails the check) and the notes. */
export interface CheckResult {
  readonly breaks: DocumentChange[]
  readonly notes: DocumentChange[]
  /** The versions compared (saved ones the application still serves). */
  readonly compared: string[]
}

/**
 * Compares one version's saved document with its current one.
 * @example
 * ```ts
 * const changes = compareDocuments('2000-01-01', savedDocument, currentDocument)
 * const breaks = changes.filter((change) => change.breaking)
 * ```
 */
export function compareDocuments (version: string, saved: unknown, current: unknown): DocumentChange[] {
  const { diffs } = loadCompare()(saved as object, current as object) as { diffs: RawDiff[] }
  const result: DocumentChange[] = []
  const add = (operation: string, place: string, kind: string, breaking: boolean): void => {
    const made = change(version, operation, place, kind, breaking)
    if (!result.some((known) => known.text === made.text)) result.push(made)
  }
  // Removed and added properties by parent schema path, to pair renames.
  const removedProperties = new Map<string, Array<{ name: string, schema: unknown, diff: RawDiff }>>()
  const addedProperties = new Map<string, Array<{ name: string, schema: unknown, diff: RawDiff }>>()
  const handled = new Set<RawDiff>()
  for (const diff of diffs) {
    const path = diff.path
    if (path[path.length - 2] === 'properties' && (diff.action === 'remove' || diff.action === 'add')) {
      const parent = JSON.stringify(path.slice(0, -2))
      const map = diff.action === 'remove' ? removedProperties : addedProperties
      const list = map.get(parent) ?? []
      list.push({ name: String(path[path.length - 1]), schema: diff.action === 'remove' ? diff.before : diff.after, diff })
      map.set(parent, list)
    }
  }
  const renamed = new Map<RawDiff, string>()
  const renamedNames = new Map<string, Set<string>>()
  for (const [parent, removed] of removedProperties) {
    const added = [...(addedProperties.get(parent) ?? [])]
    for (const entry of removed) {
      const match = added.findIndex((candidate) => isDeepStrictEqual(withoutText(candidate.schema), withoutText(entry.schema)))
      if (match === -1) continue
      renamed.set(entry.diff, added[match].name)
      handled.add(added[match].diff)
      const names = renamedNames.get(parent) ?? new Set()
      names.add(entry.name)
      names.add(added[match].name)
      renamedNames.set(parent, names)
      added.splice(match, 1)
    }
  }
  for (const diff of diffs) {
    if (handled.has(diff)) continue
    const path = diff.path
    const root = path[0]
    if (root !== 'paths' && root !== 'webhooks') continue
    if (path.length === 2) {
      // A whole path item (or webhook) added or removed: one line per operation.
      const item = (diff.action === 'remove' ? diff.before : diff.after) as Record<string, unknown> | undefined
      const methods = Object.keys(item ?? {}).filter((key) => METHODS.has(key))
      for (const method of methods) {
        const operation = root === 'paths' ? `${method.toUpperCase()} ${String(path[1])}` : `webhook ${String(path[1])}`
        if (diff.action === 'remove') add(operation, '', 'endpoint removed', true)
        else if (diff.action === 'add') add(operation, '', 'new endpoint', false)
      }
      continue
    }
    const method = String(path[2])
    if (!METHODS.has(method)) {
      // Path-level parameters, summary…: classified by the library.
      add(root === 'paths' ? String(path[1]) : `webhook ${String(path[1])}`, path.slice(2).join('/'), `${diff.action} (${diff.type})`, diff.type === 'breaking')
      continue
    }
    const operation = root === 'paths' ? `${method.toUpperCase()} ${String(path[1])}` : `webhook ${String(path[1])}`
    if (path.length === 3) {
      if (diff.action === 'remove') add(operation, '', 'endpoint removed', true)
      else if (diff.action === 'add') add(operation, '', 'new endpoint', false)
      continue
    }
    const place = placeOf(path.slice(3), current, saved, path.slice(0, 3))
    const request = place.side === 'request'
    const rest = place.rest
    // Whole parameters and responses.
    if (rest[0] === 'parameters' && rest.length === 2) {
      const parameter = (diff.action === 'remove' ? diff.before : diff.after) as { required?: boolean } | undefined
      if (diff.action === 'remove') add(operation, place.place, 'removed', true)
      else if (diff.action === 'add') add(operation, place.place, parameter?.required === true ? 'new required parameter' : 'new optional parameter', parameter?.required === true)
      else add(operation, place.place, 'changed', diff.type === 'breaking')
      continue
    }
    if (rest[0] === 'parameters' && rest[2] === 'required' && rest.length === 3) {
      const now = diff.after === true
      add(operation, place.place, now ? 'became required' : 'became optional', now)
      continue
    }
    if (rest[0] === 'responses' && rest.length === 2) {
      if (diff.action === 'remove') add(operation, place.place, 'status removed', true)
      else if (diff.action === 'add') add(operation, place.place, 'new status', false)
      continue
    }
    if (rest[0] === 'requestBody' && rest.length === 1) {
      if (diff.action === 'remove') add(operation, place.place, 'removed', true)
      else if (diff.action === 'add') add(operation, place.place, (diff.after as { required?: boolean } | undefined)?.required === true ? 'became required' : 'new optional body', (diff.after as { required?: boolean } | undefined)?.required === true)
      continue
    }
    if (rest[0] === 'requestBody' && rest[1] === 'required' && rest.length === 2) {
      add(operation, place.place, diff.after === true ? 'became required' : 'became optional', diff.after === true)
      continue
    }
    if (place.side === 'operation') {
      if (TEXT_KEYS.has(String(rest[0]))) add(operation, '', `${String(rest[0])} ${actionWord(diff)} (text)`, false)
      else add(operation, rest.join('/'), `${diff.action} (${diff.type})`, diff.type === 'breaking')
      continue
    }
    if (place.schemaPath.length === 0) {
      // Media types, headers of responses, descriptions of a response or parameter.
      const key = String(rest[rest.length - 1])
      if (TEXT_KEYS.has(key)) add(operation, place.place, `${key} ${actionWord(diff)} (text)`, false)
      else add(operation, `${place.place} ${rest.slice(rest[0] === 'responses' || rest[0] === 'parameters' ? 2 : 1).join('/')}`.trim(), `${diff.action} (${diff.type})`, diff.type === 'breaking')
      continue
    }
    const { pointer, keyword } = dataPointer(place.schemaPath)
    const where = `${place.place} ${pointer === '' ? '/' : pointer}`
    const last = path[path.length - 1]
    const key = String(keyword[0] ?? '')
    if (path[path.length - 2] === 'properties') {
      if (diff.action === 'remove') {
        const to = renamed.get(diff)
        add(operation, where, to === undefined ? 'removed' : `renamed to ${to}`, true)
      } else if (diff.action === 'add') {
        const parentSchema = at(current, path.slice(0, path.length - 2)) as { required?: unknown } | undefined
        const required = Array.isArray(parentSchema?.required) && parentSchema.required.includes(String(last))
        if (request) add(operation, where, required ? 'new required field' : 'new optional field', required)
        else add(operation, where, 'new field', false)
      }
      continue
    }
    if (key === 'required' && keyword.length <= 2) {
      const parentPath = path.slice(0, keyword.length === 2 ? -2 : -1)
      const names = renamedNames.get(JSON.stringify(parentPath))
      const entries: Array<[string, boolean]> = []
      if (keyword.length === 1) {
        const before = Array.isArray(diff.before) ? diff.before as unknown[] : []
        const after = Array.isArray(diff.after) ? diff.after as unknown[] : []
        for (const name of after) if (!before.includes(name)) entries.push([String(name), true])
        for (const name of before) if (!after.includes(name)) entries.push([String(name), false])
      } else {
        if ((diff.action === 'add' || diff.action === 'replace') && typeof diff.after === 'string') entries.push([diff.after, true])
        if ((diff.action === 'remove' || diff.action === 'replace') && typeof diff.before === 'string') entries.push([diff.before, false])
      }
      for (const [name, becameRequired] of entries) {
        // A field removed, renamed or added is reported once, as such.
        if (names?.has(name) === true) continue
        if (at(current, [...parentPath, 'properties', name]) === undefined && !becameRequired) continue
        if (at(saved, [...parentPath, 'properties', name]) === undefined && becameRequired) continue
        add(operation, `${place.place} ${pointer}/${escapePointer(name)}`, becameRequired ? 'became required' : 'became optional',
          request ? becameRequired : !becameRequired)
      }
      continue
    }
    if (key === 'type' || key === 'const' || key === 'format' || key === '$ref') {
      add(operation, where, key === 'format' ? 'format changed' : 'type changed', true)
      continue
    }
    const member = (key === 'enum') || ((key === 'anyOf' || key === 'oneOf') && keyword.length === 2 &&
      typeof (diff.action === 'remove' ? diff.before : diff.after) === 'object' &&
      'const' in ((diff.action === 'remove' ? diff.before : diff.after) as object))
    if (member && keyword.length === 2) {
      if (diff.action === 'remove') add(operation, where, 'enum member removed', request)
      else if (diff.action === 'add') add(operation, where, 'enum member added', !request)
      else add(operation, where, 'enum member changed', true)
      continue
    }
    if (TEXT_KEYS.has(key)) {
      add(operation, where, `${key} ${actionWord(diff)} (text)`, false)
      continue
    }
    add(operation, where, `${keyword.join('/')} ${actionWord(diff)}`,
      diff.type === 'breaking')
  }
  return result
}

/**
 * Compares every version saved in `dir` (`<version>.json` files, as `export` writes them) with the documents the
 * readied application serves now.
 * @example
 * ```ts
 * const { breaks, notes } = await checkDocuments(app, 'openapi')
 * for (const line of breaks) console.error(line.text)
 * ```
 */
export async function checkDocuments (app: FastifyInstance, dir: string): Promise<CheckResult> {
  let files: string[]
  try {
    files = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort()
  } catch (error) {
    throw new VersionerToolError(`The saved documents folder '${dir}' cannot be read: ${(error as Error).message}`)
  }
  if (files.length === 0) throw new VersionerToolError(`The folder '${dir}' holds no saved documents (<version>.json files): run export first.`)
  const served = new Map((await servedDocuments(app)).map((document) => [fileNameOf(document.version), document]))
  const breaks: DocumentChange[] = []
  const notes: DocumentChange[] = []
  const compared: string[] = []
  const savedNames = new Set<string>()
  for (const file of files) {
    const name = file.slice(0, -'.json'.length)
    savedNames.add(name)
    let saved: unknown
    try {
      saved = JSON.parse(await readFile(join(dir, file), 'utf8'))
    } catch (error) {
      throw new VersionerToolError(`The saved document '${join(dir, file)}' is not JSON: ${(error as Error).message}`)
    }
    const current = served.get(name)
    const version = current?.version ?? name
    if (current === undefined) {
      breaks.push(change(version, '', '', 'version removed', true))
      continue
    }
    compared.push(version)
    for (const found of compareDocuments(version, saved, JSON.parse(current.body.toString('utf8')))) (found.breaking ? breaks : notes).push(found)
  }
  for (const [name, document] of served) if (!savedNames.has(name)) notes.push(change(document.version, '', '', 'new version', false))
  return { breaks, notes, compared }
}
