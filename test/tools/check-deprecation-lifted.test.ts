// `check` and a deprecation written on the wrong versions (decision 0291): a field, query parameter or operation a
// saved version did not have deprecated, deprecated there now and not in the next version, which still has it, is a
// break saying what to write instead; a deprecation written the right way, one already released, and one before a
// removal are not. Driven as a team does: export the released app, add a version, check.
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import { checkDocuments, exportDocuments } from '../../tools'
import { endpoint, fastifyVersioner, schema, versioned, Version, VersionBundle, VersionChange, type VersionChangeClass } from '../../plugin'
import { scratch } from '../helpers/cli'

type Json = Record<string, any>
const [RELEASED, NEW] = ['2024-01-01', '2025-01-01']

/** HEAD's schemas: a user whose nickname is deprecated or not (`nickname`'s options), and a list's query. */
function schemas (nickname: Json = {}, size: Json = {}): { User: TSchema, Query: TSchema } {
  return {
    User: Type.Object({ name: Type.String(), nickname: Type.Optional(Type.String(nickname)) }),
    Query: Type.Object({ size: Type.Optional(Type.Integer(size)) })
  }
}

/** The app: `POST /users` and `GET /users`, in the released version alone or with a new one holding `change`. */
async function appWith (t: { teardown: (fn: () => unknown) => void }, { User, Query }: { User: TSchema, Query: TSchema }, options: { change?: VersionChangeClass, listDeprecated?: boolean, ending?: boolean } = {}): Promise<FastifyInstance> {
  const released = options.ending === true ? new Version(RELEASED, { deprecatedAt: '2026-12-01', sunsetAt: '2027-12-01' }) : new Version(RELEASED)
  const versions = options.change === undefined ? new VersionBundle(released) : new VersionBundle(new Version(NEW, options.change), released)
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions, docsUrl: null })
  await app.register(versioned(async (api) => {
    api.post('/users', { schema: { body: User, response: { 200: User } } }, async (request) => request.body)
    api.get('/users', { schema: { querystring: Query, deprecated: options.listDeprecated === true ? true : undefined, response: { 200: Type.Array(User) } } }, async () => [])
  }))
  await app.ready()
  return app
}

/** A version change of the new version with these instructions. */
function changeOf (instructions: () => unknown[]): VersionChangeClass {
  return class extends VersionChange {
    description = 'The nickname, the page size and the list of users'
    instructionsToMigrateToPreviousVersion = instructions() as never
  }
}

test('a deprecation written with had() on the released version, meant for the new one, breaks with what to write', async (t) => {
  const dir = await scratch(t)
  const head = schemas()
  await exportDocuments(await appWith(t, head), dir)
  const mistaken = changeOf(() => [
    schema(head.User).field('nickname').had({ deprecated: true }),
    schema(head.Query).field('size').had({ deprecated: true }),
    endpoint('/users', ['GET']).had({ deprecated: true })
  ])
  const app = await appWith(t, head, { change: mistaken })
  // What the mistake does: the released version's clients are told, the new version's are not.
  const send = async (version: string): Promise<unknown> => (await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': version }, payload: { name: 'Ada', nickname: 'Countess' } })).headers.deprecation
  t.equal(await send(RELEASED), '@0', 'the released version is told its nickname is deprecated')
  t.equal(await send(NEW), undefined, 'the new version is not')
  const { breaks, notes } = await checkDocuments(app, dir)
  const field = `had({ deprecated }) says what the versions before a change had; to deprecate it from ${NEW} on, write deprecated on HEAD's schema and schema(...).field(...).didntHave('deprecated') in ${NEW}'s change; to lift it in ${NEW} on purpose, export the snapshot again`
  const lifted = `deprecated in ${RELEASED} (not in its saved document) but not in ${NEW}, which still has it`
  t.same(breaks.map((found) => found.text).sort(), [
    `${RELEASED} GET /users: ${lifted}: had({ deprecated }) says what the versions before a change had; to deprecate it from ${NEW} on, write deprecated: true on HEAD's route schema and endpoint(...).had({ deprecated: false }) in ${NEW}'s change; to lift it in ${NEW} on purpose, export the snapshot again`,
    `${RELEASED} GET /users: query parameter size: ${lifted}: ${field}`,
    `${RELEASED} GET /users: response 200 /*/nickname: ${lifted}: ${field}`,
    `${RELEASED} POST /users: request body /nickname: ${lifted}: ${field}`,
    `${RELEASED} POST /users: response 200 /nickname: ${lifted}: ${field}`
  ])
  t.same(notes.filter((found) => found.kind.startsWith('deprecated')), [], 'no longer notes as well')
  // Lifted on purpose: the snapshot exported again holds the deprecation, which is no longer new.
  await exportDocuments(app, dir)
  t.same((await checkDocuments(app, dir)).breaks, [], 'exported again: no break')
})

test('a deprecation written the right way, already released, or before a removal, is no break', async (t) => {
  const released = async (head: { User: TSchema, Query: TSchema }, listDeprecated = false): Promise<string> => {
    const dir = await scratch(t)
    await exportDocuments(await appWith(t, head, { listDeprecated }), dir)
    return dir
  }
  // From the new version on: deprecated at HEAD, and not in the versions before the change.
  const right = schemas({ deprecated: true }, { deprecated: true })
  const app = await appWith(t, right, {
    listDeprecated: true,
    change: changeOf(() => [
      schema(right.User).field('nickname').didntHave('deprecated'),
      schema(right.Query).field('size').didntHave('deprecated'),
      endpoint('/users', ['GET']).had({ deprecated: false })
    ])
  })
  const send = async (version: string): Promise<unknown> => (await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': version }, payload: { name: 'Ada', nickname: 'Countess' } })).headers.deprecation
  t.same([await send(RELEASED), await send(NEW)], [undefined, '@0'], 'the new version is told, the released one is not')
  const { breaks, notes } = await checkDocuments(app, await released(schemas()))
  t.same(breaks, [], 'deprecated from the new version on: no break')
  t.same(notes.map((found) => found.text), [`${NEW}: new version`])

  // Deprecated when released, lifted in the new version (as the field deprecations page's NicknameIsBack).
  const plain = schemas()
  const back = await appWith(t, plain, { change: changeOf(() => [schema(plain.User).field('nickname').had({ deprecated: true })]) })
  t.same((await checkDocuments(back, await released(schemas({ deprecated: true })))).breaks, [], 'a released deprecation lifted: no break')

  // Deprecated in the versions before the one that removes it.
  const without = { User: Type.Object({ name: Type.String() }), Query: plain.Query }
  const removed = await appWith(t, without, {
    change: changeOf(() => [
      schema(without.User).formerField('nickname').existedAs({ type: Type.Optional(Type.String()) }),
      schema(without.User).formerField('nickname').had({ deprecated: true })
    ])
  })
  const checked = await checkDocuments(removed, await released(plain))
  t.same(checked.breaks, [], 'deprecated before its removal: no break')
  t.ok(checked.notes.some((found) => found.text === `${RELEASED} POST /users: request body /nickname: deprecated added (text)`), 'a note, as before')

  // The released version itself deprecated, as its end is announced: each of its operations is deprecated, none is lifted.
  const ending = await appWith(t, plain, { ending: true, change: changeOf(() => [schema(plain.User).field('nickname').had({ description: 'What friends call the user.' })]) })
  const ended = await checkDocuments(ending, await released(plain))
  t.same(ended.breaks, [], 'a version deprecated: no break')
  t.ok(ended.notes.some((found) => found.text === `${RELEASED} GET /users: deprecated added (text)`), 'its operations deprecated: notes')
})
