// `verify`'s round trips through a field HEAD's response made nullable (issue 31, decision 0312): a handler storing
// a request's string answers it where the response holds `string|null`, and answers `null` for one the request left
// out where the response requires the field. A name split for an older version, its family name made `null` for a
// one-word name with the right converter (a `null` left out for older versions), makes its round trip; the same
// change giving older versions `''` is found for what its clients read (a trailing space after a one-word name).
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, schema, Version, VersionBundle, VersionChange,
  type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../../plugin'
import { verify } from '../../tools'
import { versionedApp, type Teardown } from '../helpers/apps'
import { appWith, summary } from '../helpers/verify-apps'

type Body = Record<string, any>

/** `POST /people` taking `PersonInput`, answering `Person` (HEAD's familyName `string|null`, always there). */
function people () {
  const PersonInput = Type.Object({ givenName: Type.String(), familyName: Type.Optional(Type.String()) }, { $id: 'PersonInput' })
  const Person = Type.Object({ id: Type.String(), givenName: Type.String(), familyName: Type.Union([Type.String(), Type.Null()]) }, { $id: 'Person' })
  const routes = (api: FastifyInstance): void => {
    api.post('/people', { schema: { body: PersonInput, response: { 201: Person } } }, async () => { throw new Error('not served in verify') })
  }
  return { PersonInput, Person, routes }
}

/** Three versions: a name (2000-01-01), split (2001-01-01), the family name `null` for a mononym (2002-01-01), given older versions by `nullFor`. */
async function mononyms (t: Teardown, nullFor: (body: Body) => void): Promise<string[]> {
  const { PersonInput, Person, routes } = people()
  class FamilyNameNull extends VersionChange {
    description = 'familyName is null for a one-word name (it was left out).'
    instructionsToMigrateToPreviousVersion = [schema(Person).field('familyName').had({ type: Type.String(), optional: true })]

    @ConvertResponseToPreviousVersionFor(Person)
    down (response: ResponseInfo) {
      if ((response.body as Body).familyName === null) nullFor(response.body as Body)
    }
  }
  class SplitName extends VersionChange {
    description = 'A name is givenName and familyName (it was one name).'
    instructionsToMigrateToPreviousVersion = [
      schema(PersonInput).field('givenName').had({ name: 'name' }),
      schema(PersonInput).field('familyName').didntExist,
      schema(Person).field('givenName').had({ name: 'name' }),
      schema(Person).field('familyName').didntExist
    ]

    @ConvertRequestToNextVersionFor(PersonInput)
    split (request: RequestInfo) {
      const body = request.body as Body
      const name: string = body.name
      delete body.name
      const space = name.indexOf(' ')
      if (space === -1) body.givenName = name
      else Object.assign(body, { givenName: name.slice(0, space), familyName: name.slice(space + 1) })
    }

    @ConvertResponseToPreviousVersionFor(Person)
    join (response: ResponseInfo) {
      const { givenName, familyName, ...rest } = response.body as Body
      response.body = { ...rest, name: familyName === undefined ? givenName : `${givenName} ${familyName}` }
    }
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01', FamilyNameNull), new Version('2001-01-01', SplitName), new Version('2000-01-01'))
  const app = await versionedApp(t, versions, async (api) => { routes(api as unknown as FastifyInstance) })
  await app.ready()
  return summary(await verify(app, { examples: 20, seed: 1 }))
}

test('a family name made nullable, null left out for older versions: the name split and joined again comes back as sent', async (t) => {
  t.same(await mononyms(t, (body) => { delete body.familyName }), [])
})

test('a family name made nullable, null given older versions as \'\': a one-word name comes back with a space at its end', async (t) => {
  const found = await mononyms(t, (body) => { body.familyName = '' })
  t.ok(found.includes('POST /people 2000-01-01 response round trip response 201/name after SplitName (2001-01-01) by SplitName.split,SplitName.join'), found.join('\n'))
})

/** One change over 2000-01-01: HEAD's nickname `string|null` where it was an optional string; `up` converts it on the way to HEAD. */
function nicknameNull (up: (nickname: string) => string): { change: VersionChangeClass, routes: (api: FastifyInstance) => void } {
  const ProfileInput = Type.Object({ nickname: Type.Optional(Type.String()) }, { $id: 'ProfileInput' })
  const Profile = Type.Object({ id: Type.String(), nickname: Type.Union([Type.String(), Type.Null()]) }, { $id: 'Profile' })
  class NicknameNull extends VersionChange {
    description = 'nickname is null when there is none (it was left out); it is stored in lower case.'
    instructionsToMigrateToPreviousVersion = [schema(Profile).field('nickname').had({ type: Type.String(), optional: true })]

    @ConvertRequestToNextVersionFor(ProfileInput)
    toNewer (request: RequestInfo) {
      const body = request.body as Body
      if (typeof body.nickname === 'string') body.nickname = up(body.nickname)
    }

    @ConvertResponseToPreviousVersionFor(Profile)
    toOlder (response: ResponseInfo) {
      if ((response.body as Body).nickname === null) delete (response.body as Body).nickname
    }
  }
  const routes = (api: FastifyInstance): void => {
    api.post('/profiles', { schema: { body: ProfileInput, response: { 201: Profile } } }, async () => { throw new Error('not served in verify') })
  }
  return { change: NicknameNull, routes }
}

test('a string sent is echoed where HEAD\'s response holds string or null: a request converter garbling it is found', async (t) => {
  const lossy = nicknameNull((nickname) => nickname.toLowerCase())
  const found = summary(await verify(await appWith(t, lossy.change, lossy.routes), { examples: 20, seed: 1 }))
  t.same(found, ['POST /profiles 2000-01-01 response round trip response 201/nickname after NicknameNull (2001-01-01) by NicknameNull.toNewer,NicknameNull.toOlder'])
  const right = nicknameNull((nickname) => nickname)
  t.same(summary(await verify(await appWith(t, right.change, right.routes), { examples: 20, seed: 1 })), [])
})
