// Partial updates (PATCH, merge patches) from old clients: a body leaves out the fields it does not change, and the
// request converters teams write for full bodies run on it.
import { test } from 'tap'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, Version, VersionBundle, VersionChange, schema,
  type RequestInfo, type ResponseInfo
} from '../../plugin'
import { versionedApp } from '../helpers/apps'

const Address = Type.Object({ line1: Type.Optional(Type.String()), line2: Type.Optional(Type.String()) }, { $id: 'PatchAddress' })
const UserPatch = Type.Object({ fullName: Type.Optional(Type.String()), email: Type.Optional(Type.String()), address: Type.Optional(Address) }, { $id: 'UserPatch' })
const User = Type.Object({ fullName: Type.String(), email: Type.String(), address: Address }, { $id: 'PatchedUser' })

class RenamesForFullBodies extends VersionChange {
  description = 'name became fullName; an address\'s street2 became line2.'
  instructionsToMigrateToPreviousVersion = [
    schema(UserPatch).field('fullName').had({ name: 'name' }), schema(User).field('fullName').had({ name: 'name' }),
    schema(Address).field('line2').had({ name: 'street2' })
  ]

  // Written for a full body: on a PATCH leaving `name` out, it writes `fullName: undefined`.
  @ConvertRequestToNextVersionFor(UserPatch)
  nameUp (request: RequestInfo) {
    request.body.fullName = request.body.name
    delete request.body.name
  }

  @ConvertRequestToNextVersionFor(Address)
  street2Up (request: RequestInfo) {
    request.body.line2 = request.body.street2
    delete request.body.street2
  }

  @ConvertResponseToPreviousVersionFor(User)
  nameDown (response: ResponseInfo) {
    response.body.name = response.body.fullName
    delete response.body.fullName
    response.body.address.street2 = response.body.address.line2
    delete response.body.address.line2
  }
}

test('a rename converter written for full bodies no longer erases the stored field on a PATCH leaving it out (fullName: undefined reached the handler)', async (t) => {
  const stored = { fullName: 'Ada Lovelace', email: 'ada@example.com', address: { line1: '1 Main St', line2: 'Flat 2' } }
  const seen: unknown[] = []
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenamesForFullBodies), new Version('2000-01-01')), async (api) => {
    api.patch('/users/u1', { schema: { body: UserPatch, response: { 200: User } } }, async (request) => {
      const body = request.body as Record<string, unknown> & { address?: object }
      seen.push(body)
      // A handler merging what the client sent, as PATCH handlers do.
      Object.assign(stored, body, body.address === undefined ? {} : { address: { ...stored.address, ...body.address } })
      return stored
    })
  })
  const response = await app.inject({ method: 'PATCH', url: '/users/u1', headers: { 'x-api-version': '2000-01-01' }, payload: { email: 'ada@lovelace.org', address: { line1: '2 Side St' } } })
  t.equal(response.statusCode, 200, response.body)
  t.same(seen, [{ email: 'ada@lovelace.org', address: { line1: '2 Side St' } }], 'the handler sees only what the client sent')
  t.notOk(Object.hasOwn(seen[0] as object, 'fullName'), 'no fullName key, not even undefined')
  t.notOk(Object.hasOwn((seen[0] as { address: object }).address, 'line2'), 'no line2 key in the nested object either')
  t.same(response.json(), { name: 'Ada Lovelace', email: 'ada@lovelace.org', address: { line1: '2 Side St', street2: 'Flat 2' } })
})

test('a merge patch\'s null reaches HEAD under the renamed field, and a null for a field the version lacks never reaches the handler', async (t) => {
  const MergePatch = Type.Object({ fullName: Type.Optional(Type.Union([Type.Null(), Type.String()])), nickname: Type.Optional(Type.Union([Type.Null(), Type.String()])) }, { $id: 'MergePatch' })
  class RenameAndNickname extends VersionChange {
    description = 'name became fullName; users have a nickname.'
    instructionsToMigrateToPreviousVersion = [schema(MergePatch).field('fullName').had({ name: 'name' }), schema(MergePatch).field('nickname').didntExist]

    @ConvertRequestToNextVersionFor(MergePatch)
    nameUp (request: RequestInfo) {
      request.body.fullName = request.body.name
      delete request.body.name
    }
  }
  const seen: unknown[] = []
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameAndNickname), new Version('2000-01-01')), async (api) => {
    api.addContentTypeParser('application/merge-patch+json', { parseAs: 'string' }, (_request, text, done) => { done(null, JSON.parse(text as string)) })
    api.patch('/users/u1', { schema: { body: { content: { 'application/merge-patch+json': { schema: MergePatch } } } } }, async (request) => {
      seen.push(request.body)
      return {}
    })
  })
  const patch = async (payload: object) => await app.inject({ method: 'PATCH', url: '/users/u1', headers: { 'x-api-version': '2000-01-01', 'content-type': 'application/merge-patch+json' }, payload })
  t.equal((await patch({ name: null, nickname: null })).statusCode, 200)
  t.equal((await patch({ nickname: null })).statusCode, 200)
  t.equal((await app.inject({ method: 'PATCH', url: '/users/u1', headers: { 'x-api-version': '2001-01-01', 'content-type': 'application/merge-patch+json' }, payload: { fullName: null } })).statusCode, 200)
  t.same(seen, [{ fullName: null }, {}, { fullName: null }], 'the null deletes fullName; the nickname the version cannot see is not deleted')
})
