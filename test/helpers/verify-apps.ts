/**
 * Small apps for `verify`'s tests (test/verify/verify-*.test.ts): one version change between two versions, the
 * routes a test writes, and each finding on one line.
 */
import type { FastifyInstance } from 'fastify'
import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange,
  type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { verify, type VerifyFindings } from '../../tools'
import { versionedApp, type AppOptions, type Teardown } from './apps'

/** A ready app whose only version change is `change` (2001-01-01, over 2000-01-01), serving `routes`. */
export async function appWith (t: Teardown, change: VersionChangeClass, routes: (api: FastifyInstance) => void, options?: AppOptions): Promise<FastifyInstance> {
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', change), new Version('2000-01-01')), async (api) => {
    routes(api as unknown as FastifyInstance)
  }, options)
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

/** A converter of a test: takes a value as a converter receives it. */

export type Convert = (value: any) => unknown

/** `POST /things` taking `Thing` and answering `{ id }`, `GET /things` answering `Thing`: one way only, no round trip. */
export function oneWay (Thing: TSchema) {
  return (api: FastifyInstance): void => {
    api.post('/things', { schema: { body: Thing, response: { 201: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 't1' }))
    api.get('/things', { schema: { response: { 200: Thing } } }, async () => { throw new Error('not served in verify') })
  }
}

/** `POST /things` taking `Thing` and answering it: a round trip. */
export function roundTrip (Thing: TSchema) {
  return (api: FastifyInstance): void => {
    api.post('/things', { schema: { body: Thing, response: { 200: Thing } } }, async (request) => request.body)
  }
}

/** A field renamed from `old` to `renamed` (its type unchanged), its value converted by `convert` both ways: the findings on one line each. */
export async function renamed (t: Teardown, type: TSchema, convert: Convert, routes = oneWay): Promise<string[]> {
  const { Thing, change } = renamedField(type, convert)
  return summary(await verify(await appWith(t, change, routes(Thing)), { examples: 1 }))
}

/**
 * A field `value` not renamed that the request converter of a change renaming another field (`ref` to `reference`)
 * converts, `verify` given `examples` a route.
 */
export async function convertedFindings (t: Teardown, type: TSchema, convert: Convert, routes = roundTrip, examples = 1): Promise<VerifyFindings> {
  const Thing = Type.Object({ reference: Type.String(), value: type }, { $id: 'Thing' })
  class RefBecameReference extends VersionChange {
    description = 'ref became reference.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('reference').had({ name: 'ref' })]

    @ConvertRequestToNextVersionFor(Thing)
    up (request: RequestInfo) {
      request.body.reference = request.body.ref
      request.body.value = convert(request.body.value)
      delete request.body.ref
    }

    @ConvertResponseToPreviousVersionFor(Thing)
    down (response: ResponseInfo) {
      response.body.ref = response.body.reference
      delete response.body.reference
    }
  }
  return await verify(await appWith(t, RefBecameReference, routes(Thing)), { examples })
}

/** {@link convertedFindings}, each on one line. */
export async function converted (t: Teardown, type: TSchema, convert: Convert, routes = roundTrip): Promise<string[]> {
  return summary(await convertedFindings(t, type, convert, routes))
}

/**
 * The findings on `GET /things` whose query parameter or header `name` (of `type`) was `old-${name}`, the request
 * converter renaming it and passing its value through `convert`.
 */
export async function renamedParameter (t: Teardown, part: 'querystring' | 'headers', name: string, type: TSchema, convert: (value: string) => string): Promise<string[]> {
  const Search = Type.Object({ [name]: Type.Optional(type) }, { $id: `Search${part}` })
  class SearchRenamed extends VersionChange {
    description = 'the search parameter was renamed.'
    instructionsToMigrateToPreviousVersion = [schema(Search).field(name).had({ name: `old-${name}` })]

    @ConvertRequestToNextVersionFor('/things', ['GET'])
    up (request: RequestInfo) {
      const carrier = request[part === 'querystring' ? 'queryParams' : 'headers'] as Record<string, string | undefined>
      const old = carrier[`old-${name}`]
      if (old !== undefined) carrier[name] = convert(old)
      delete carrier[`old-${name}`]
    }
  }
  const app = await appWith(t, SearchRenamed, (api) => {
    api.get('/things', { schema: { [part]: Search, response: { 200: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 't1' }))
  })
  return summary(await verify(app, { examples: 1 }))
}

/**
 * A customer: a person, or a business with a registry number, both closed by `additionalProperties: false`, the person
 * first unless `businessFirst`, so only the business's fields tell it apart; a business's `note` was `remark`. `lossy`:
 * the response converter forgets the note.
 */
export function closedCustomers (lossy: boolean, businessFirst = false): { change: VersionChangeClass, routes: (api: FastifyInstance) => void } {
  const Person = Type.Object({ name: Type.String(), note: Type.Optional(Type.String()) }, { additionalProperties: false })
  const Business = Type.Object({ name: Type.String(), registry: Type.String(), note: Type.Optional(Type.String()) }, { additionalProperties: false })
  class BusinessNoteRenamed extends VersionChange {
    description = 'A business\'s remark became note.'
    instructionsToMigrateToPreviousVersion = [schema(Business).field('note').had({ name: 'remark' })]

    @ConvertRequestToNextVersionFor(Business)
    up (request: RequestInfo) {
      if ('remark' in request.body) request.body.note = request.body.remark
      delete request.body.remark
    }

    @ConvertResponseToPreviousVersionFor(Business)
    down (response: ResponseInfo) {
      if (!lossy && 'note' in response.body) response.body.remark = response.body.note
      delete response.body.note
    }
  }
  const routes = (api: FastifyInstance): void => {
    const Customer = Type.Object({ customer: Type.Union<TSchema[]>(businessFirst ? [Business, Person] : [Person, Business]) })
    api.post('/customers', { schema: { body: Customer, response: { 200: Customer } } }, async (request) => request.body)
  }
  return { change: BusinessNoteRenamed, routes }
}
