/**
 * Helpers for the changelog, webhook and version-lifecycle tests (not a test file): the changelog over HTTP and a recorder of process warnings.
 */
import type { FastifyInstance } from 'fastify'
import type { Teardown } from './apps'
import type { Changelog, ChangelogEntryData } from '../../plugin'

/** `GET url` (default `/changelog`): its status and parsed body. */
export async function fetchChangelog (app: FastifyInstance, url = '/changelog'): Promise<{ statusCode: number, body: Changelog, contentType: string | undefined }> {
  const response = await app.inject({ method: 'GET', url })
  let body: Changelog
  try {
    body = JSON.parse(response.body) as Changelog
  } catch {
    body = { versions: [] }
  }
  const type = response.headers['content-type']
  return { statusCode: response.statusCode, body, contentType: typeof type === 'string' ? type : undefined }
}

/** The entries of every change of version `value`, one list per change (`undefined` when the version is not listed). */
export function entriesOf (changelog: Changelog, value: string): ChangelogEntryData[][] | undefined {
  return changelog.versions.find((version) => version.value === value)?.changes.map((change) => change.instructions)
}

/** A process warning as `process.on('warning')` receives it. */
export type ProcessWarning = Error & { code?: string }

/** Records the process warnings emitted until the test ends. */
export function recordWarnings (t: Teardown): ProcessWarning[] {
  const warnings: ProcessWarning[] = []
  const onWarning = (warning: ProcessWarning): void => { warnings.push(warning) }
  process.on('warning', onWarning)
  t.teardown(() => { process.removeListener('warning', onWarning) })
  return warnings
}

/** Resolves after pending `process.emitWarning` events are delivered. */
export function settle (): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
