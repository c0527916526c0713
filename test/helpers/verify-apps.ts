/**
 * Small apps for `verify`'s tests (test/tools/verify-*.test.ts): one version change between two versions, the
 * routes a test writes, and each finding on one line.
 */
import type { FastifyInstance } from 'fastify'
import { HeadVersion, Version, VersionBundle, type VersionChangeClass } from '../../plugin'
import type { VerifyFindings } from '../../tools'
import { versionedApp, type Teardown } from './apps'

/** A ready app whose only version change is `change` (2001-01-01, over 2000-01-01), serving `routes`. */
export async function appWith (t: Teardown, change: VersionChangeClass, routes: (api: FastifyInstance) => void): Promise<FastifyInstance> {
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', change), new Version('2000-01-01')), async (api) => {
    routes(api as unknown as FastifyInstance)
  })
  await app.ready()
  return app
}

/** Each finding on one line: where, which kind, the change at fault and the converters that ran there. */
export function summary (findings: VerifyFindings): string[] {
  return findings.map(({ route, version, direction, kind, part, pointer, changeVersion, versionChanges, converters }) =>
    `${route} ${version} ${direction} ${kind} ${part}${pointer} after ${versionChanges.join(',')} (${changeVersion}) by ${converters.join(',')}`)
}
