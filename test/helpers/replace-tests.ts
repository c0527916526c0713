/**
 * The replace test a team's own suite runs on each example app, as `docs/testing.md` shows it: a resource stored
 * first, then `replaceFromEveryVersion` on it. The mutation score runs it after `check` and `verify`.
 */
import type { FastifyInstance } from 'fastify'
import { replaceFromEveryVersion, type ReplaceFromVersionFinding } from '../../tools'

/**
 * The findings of the example's replace test: billing's customer, stored by the newest version; none for the users
 * app (it replaces nothing). A fixture the app no longer takes (a field renamed in HEAD) fails the team's test on the
 * fixture, not on a finding: it gives none here.
 */
export async function exampleReplaceFindings (app: FastifyInstance, example: 'users' | 'billing'): Promise<ReplaceFromVersionFinding[]> {
  if (example !== 'billing') return []
  const newest = app.versioner.versions.versionValues[0]
  const created = await app.inject({ method: 'POST', url: '/customers', headers: { 'x-api-version': newest }, payload: { givenName: 'Ada', email: 'ada@example.com' } })
  if (created.statusCode !== 200) return []
  try {
    return await replaceFromEveryVersion(app, { url: `/customers/${String(created.json().id)}` })
  } catch {
    return []
  }
}
