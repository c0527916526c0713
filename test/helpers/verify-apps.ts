/**
 * Small apps for `verify`'s tests (test/tools/verify-*.test.ts): one version change between two versions, the
 * routes a test writes, and each finding on one line.
 */
import type { FastifyInstance } from 'fastify'
import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange,
  type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
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

/**
 * `Thing` (`{ id, renamed }`) and a version change saying `renamed` was `old`, whose request and response converters
 * rename it and pass its value through `convert` (its type unchanged).
 */
export function renamedField (type: TSchema, convert: (value: unknown) => unknown): { Thing: TObject, change: VersionChangeClass } {
  const Thing = Type.Object({ id: Type.String(), renamed: type }, { $id: 'Thing' })
  class OldBecameRenamed extends VersionChange {
    description = 'old became renamed.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('renamed').had({ name: 'old' })]

    @ConvertRequestToNextVersionFor(Thing)
    up (request: RequestInfo) {
      request.body.renamed = convert(request.body.old)
      delete request.body.old
    }

    @ConvertResponseToPreviousVersionFor(Thing)
    down (response: ResponseInfo) {
      response.body.old = convert(response.body.renamed)
      delete response.body.renamed
    }
  }
  return { Thing, change: OldBecameRenamed }
}
