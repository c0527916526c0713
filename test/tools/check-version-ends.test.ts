// `check` and a version's end announced on the wrong version (decision 0287): `{ deprecatedAt, sunsetAt }` new to a
// released version's saved document while an older released version is announced no end is a break naming both
// versions and where the lifecycle belongs; the end written on the version that ends, both versions ended, a preview
// ended, and an early end acknowledged by exporting again are not. Driven as a team does: export, add the lifecycle,
// check.
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import fc from 'fast-check'
import { deepStrictEqual } from 'node:assert'
import { checkDocuments, exportDocuments } from '../../tools'
import { fastifyVersioner, schema, versioned, Version, VersionBundle, VersionChange, type VersionLifecycle } from '../../plugin'
import { scratch } from '../helpers/cli'

const [OLD, MIDDLE, NEW] = ['2000-01-01', '2001-01-01', '2002-01-01']
const ENDING: VersionLifecycle = { deprecatedAt: '2026-12-01', sunsetAt: '2027-12-01', afterSunset: 'gone' }
const User = Type.Object({ name: Type.String(), nickname: Type.Optional(Type.String()) })

class NicknameDescribed extends VersionChange {
  description = 'A nickname is described.'
  instructionsToMigrateToPreviousVersion = [schema(User).field('nickname').had({ description: 'What friends call the user.' })]
}

class NameDescribed extends VersionChange {
  description = 'A name is described.'
  instructionsToMigrateToPreviousVersion = [schema(User).field('name').had({ description: 'The full name.' })]
}

/** The app serving `POST /users` in three released versions with these lifecycles (by version), and an optional preview. */
async function appWith (t: { teardown: (fn: () => unknown) => void }, lifecycles: Record<string, VersionLifecycle> = {}, preview?: VersionLifecycle): Promise<FastifyInstance> {
  const previews = preview === undefined ? [] : [new Version('2003-01-01.preview', { ...preview, channel: 'preview' })]
  const versions = new VersionBundle(
    ...previews,
    new Version(NEW, NameDescribed, lifecycles[NEW] ?? {}),
    new Version(MIDDLE, NicknameDescribed, lifecycles[MIDDLE] ?? {}),
    new Version(OLD, lifecycles[OLD] ?? {})
  )
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions, docsUrl: null })
  await app.register(versioned(async (api) => {
    api.post('/users', { schema: { body: User, response: { 200: User } } }, async (request) => request.body)
  }))
  await app.ready()
  return app
}

test('an end written on the line of the version that replaced the one meant breaks, naming both versions', async (t) => {
  const dir = await scratch(t)
  await exportDocuments(await appWith(t), dir)
  const app = await appWith(t, { [MIDDLE]: ENDING })
  // What the mistake does: 2001-01-01's clients are told their version ends, 2000-01-01's are not.
  const headers = async (version: string): Promise<unknown[]> => {
    const answer = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': version }, payload: { name: 'Ada' } })
    return [answer.headers.deprecation, answer.headers.sunset]
  }
  t.same(await headers(MIDDLE), ['@1796083200', 'Wed, 01 Dec 2027 00:00:00 GMT'], 'the newer version is told it ends')
  t.same(await headers(OLD), [undefined, undefined], 'the older one is not')
  const { breaks, notes } = await checkDocuments(app, dir)
  t.same(breaks.map((found) => found.text), [
    `${MIDDLE} lifecycle: deprecatedAt 2026-12-01, sunsetAt 2027-12-01 announced (not in its saved document) while ${OLD}, older, is announced no end: ` +
    `${MIDDLE}'s clients are sent Deprecation/Sunset and ${OLD}'s are not; deprecatedAt, sunsetAt belong on the line of the version that ends, ` +
    `new Version('${OLD}', ..., { deprecatedAt, sunsetAt }), not on the version whose change replaced it; to end ${MIDDLE} before ${OLD} on purpose, export the snapshot again`
  ])
  t.same(notes.filter((found) => found.place === 'lifecycle').map((found) => found.text), [`${MIDDLE} lifecycle: after its sunset none → gone`], 'the two announcements are no longer notes as well')

  // The newest version ended alone: both older ones are named, the one before it first.
  const newest = (await checkDocuments(await appWith(t, { [NEW]: { sunsetAt: '2027-12-01' } }), dir)).breaks
  t.match(newest.map((found) => found.text), [/^2002-01-01 lifecycle: sunsetAt 2027-12-01 announced \(not in its saved document\) while 2001-01-01 \(and 1 older released version\), older, is announced no end/])

  // Ended on purpose before the older one (a version retired early): exporting again acknowledges it.
  await exportDocuments(app, dir)
  t.same((await checkDocuments(app, dir)).breaks, [], 'exported again: no break')
})

test('an end written on the version that ends, on every older one, or on a preview, is no break', async (t) => {
  const dir = await scratch(t)
  await exportDocuments(await appWith(t), dir)
  const breaksOf = async (lifecycles: Record<string, VersionLifecycle>, preview?: VersionLifecycle): Promise<string[]> =>
    (await checkDocuments(await appWith(t, lifecycles, preview), dir, { channel: 'preview' })).breaks.map((found) => found.text)
  t.same(await breaksOf({ [OLD]: ENDING }), [], 'the oldest version ends')
  t.same(await breaksOf({ [OLD]: ENDING, [MIDDLE]: { deprecatedAt: '2027-01-01' } }), [], 'the two oldest end, oldest first')
  // An older version deprecated with no sunset is announced an end: a newer one given a sunset is no break.
  t.same(await breaksOf({ [OLD]: { deprecatedAt: '2026-06-01' }, [MIDDLE]: { deprecatedAt: '2026-12-01', sunsetAt: '2027-12-01' } }), [])
  t.same(await breaksOf({}, { deprecatedAt: '2026-12-01' }), [], 'a preview ended while every release is served on')
})

test('property: a break for each released version newly announced an end while an older one has none', async (t) => {
  const dir = await scratch(t)
  await exportDocuments(await appWith(t), dir)
  const lifecycle = fc.constantFrom<VersionLifecycle | undefined>(undefined, { deprecatedAt: '2026-12-01' }, { sunsetAt: '2027-12-01' }, ENDING)
  await fc.assert(fc.asyncProperty(fc.tuple(lifecycle, lifecycle, lifecycle), async (ends) => {
    const values = [NEW, MIDDLE, OLD]
    const lifecycles = Object.fromEntries(values.flatMap((value, index) => ends[index] === undefined ? [] : [[value, ends[index]]]))
    const broken = (await checkDocuments(await appWith(t, lifecycles), dir)).breaks.map((found) => found.version)
    const expected = values.filter((_value, index) => ends[index] !== undefined && ends.slice(index + 1).includes(undefined))
    deepStrictEqual(broken, expected, JSON.stringify(lifecycles))
  }), { numRuns: 40 })
  t.pass('40 bundles of lifecycles checked')
})
