/**
 * Helpers for the HTTP tests of the plugin (routing and version picking). Not a test file: tap runs only
 * `*.test.ts` files.
 */
import type { FastifyInstance } from 'fastify'
import type { LightMyRequestResponse } from 'fastify'
import { endpoint, HeadVersion, Version, VersionBundle, versioned, type VersionChangeClass } from '../../plugin'
import { changeClass } from './version-changes'

/** The dated versions most tests use, newest first. */
export const DATES = ['2002-01-01', '2001-01-01', '2000-01-01'] as const

/** How the 400 messages list the versions of {@link DATES}. */
export const SUPPORTED_DATES = 'Supported versions: 2002-01-01, 2001-01-01, 2000-01-01.'

/**
 * A bundle of `values` (newest first) without changes, or with `changes[value]` on a version. The oldest
 * version never has changes.
 */
export function bundleOf (values: readonly string[], changes: Record<string, VersionChangeClass[]> = {}): VersionBundle {
  return new VersionBundle(new HeadVersion(), ...values.map((value) => new Version(value, ...(changes[value] ?? []))))
}

/** GETs `url` with the version header `version` (none when `undefined`). */
export function getWith (app: FastifyInstance, url: string, version?: string, header = 'x-api-version'): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url, headers: version === undefined ? {} : { [header]: version } })
}

/**
 * Versions for {@link sharedPathRoutes}, registered under `/api`. Two paths are each served by two HEAD
 * routes, in different versions:
 * - `GET /api/items`: HEAD route `new` in 2002-01-01 (deleted with `endpoint(...).didntExist` in the
 *   2002-01-01 change); HEAD route `old` (at `/legacy-items`, marked `onlyExistsInOlderVersions`) restored by
 *   `endpoint(...).existed` in the same change and moved to `/api/items` with `.had({ path })`, so it serves
 *   2001-01-01 and 2000-01-01;
 * - `GET /api/things`: HEAD route `things` in 2002-01-01 only; HEAD route `renamed` (at `/legacy-things`,
 *   `onlyExistsInOlderVersions`) restored at `/api/things` by the 2001-01-01 change, so it serves 2000-01-01;
 *   2001-01-01 has neither.
 * Handlers answer `{ handler, version: request.apiVersion }`.
 */
export function sharedPathBundle (): VersionBundle {
  const Newer = changeClass('ReplaceItemsAndRemoveThings', [
    endpoint('/api/items', ['GET']).didntExist,
    endpoint('/api/legacy-items', ['GET']).existed,
    endpoint('/api/legacy-items', ['GET']).had({ path: '/api/items' }),
    endpoint('/api/things', ['GET']).didntExist
  ])
  const Older = changeClass('RestoreOldThings', [
    endpoint('/api/legacy-things', ['GET']).existed,
    endpoint('/api/legacy-things', ['GET']).had({ path: '/api/things' })
  ])
  return bundleOf(DATES, { '2002-01-01': [Newer], '2001-01-01': [Older] })
}

/** The routes described in {@link sharedPathBundle}. */
export const sharedPathRoutes = versioned(async (api) => {
  api.get('/items', async (request) => ({ handler: 'new', version: request.apiVersion }))
  api.get('/legacy-items', { onlyExistsInOlderVersions: true }, async (request) => ({ handler: 'old', version: request.apiVersion }))
  api.get('/things', async (request) => ({ handler: 'things', version: request.apiVersion }))
  api.get('/legacy-things', { onlyExistsInOlderVersions: true }, async (request) => ({ handler: 'renamed', version: request.apiVersion }))
})

/** Listens on 127.0.0.1 on a free port and returns the base URL (the app is closed by its teardown). */
export async function listen (app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address')
  return `http://127.0.0.1:${address.port}`
}
