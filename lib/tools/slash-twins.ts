/**
 * A path a saved document names that the current one names with (or without) a final slash, where the application
 * answers at both: a route at a prefix's root (`api.register(async (users) => { users.post('/', …) }, { prefix:
 * '/users' })`) is served at `/users` and `/users/`, and documented as `/users/`, where `api.post('/users')` was
 * documented as `/users`. Moving routes into a prefix changes the path the document writes, not a URL a client
 * calls: `check` compares the two as one path, with a note, instead of an endpoint removed and another added.
 * @module
 */
import type { FastifyInstance, HTTPMethods } from 'fastify'
import { setOwn } from '../core/own-properties'
import { METHODS } from './comparable-documents'
import { change, type DocumentChange } from './document-places'

type Json = Record<string, unknown>

/** A document path as Fastify writes a route's URL (`/users/{userId}` is `/users/:userId`). */
function routeUrl (path: string): string {
  return path.replace(/\{([^{}]+)\}/g, ':$1')
}

/**
 * The current document with each path item named as the saved document names it, where only a final slash tells the
 * two apart and the application still answers every method the saved item holds at the saved path; a note in `notes`
 * for each. Anything else is returned as it is (a path the application no longer answers is an endpoint removed).
 * @example
 * ```ts
 * compareInto(result, version, saved, withSlashTwinsAligned(result.notes, version, saved, current, app), ajv)
 * ```
 */
export function withSlashTwinsAligned (notes: DocumentChange[], version: string, saved: unknown, current: unknown, app: FastifyInstance): unknown {
  const [before, after] = [(saved as Json).paths as Json, (current as Json).paths as Json]
  const renamed = new Map<string, string>()
  for (const [path, item] of Object.entries(before)) {
    const twin = path.endsWith('/') ? path.slice(0, -1) : `${path}/`
    if (Object.hasOwn(after, path) || !Object.hasOwn(after, twin) || Object.hasOwn(before, twin) || !path.startsWith('/')) continue
    const methods = Object.keys(typeof item === 'object' && item !== null ? item : {}).filter((key) => METHODS.has(key))
    if (methods.length === 0 || !methods.every((method) => app.hasRoute({ method: method.toUpperCase() as HTTPMethods, url: routeUrl(path) }))) continue
    renamed.set(twin, path)
    notes.push(change(version, path, '', `path now documented as ${twin} (the application answers at both)`, false))
  }
  if (renamed.size === 0) return current
  const paths: Json = {}
  for (const [path, item] of Object.entries(after)) setOwn(paths, renamed.get(path) ?? path, item)
  return { ...(current as Json), paths }
}
