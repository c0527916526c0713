// Partial updates (PATCH, merge patches) from old clients: a body leaves out the fields it does not change, and the
// request converters teams write for full bodies run on it.
import { test } from 'tap'
import { Type, type TObject } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, Version, VersionBundle, VersionChange, schema,
  enumeration, extendSchema, type RequestInfo, type ResponseInfo
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

/**
 * A PATCH body built from `Account` as the docs say instead of Type.Partial(Account) (`own`: an object of its own with
 * instructions of its own; else extendSchema making every field optional), and a version 2000-01-01 where `name` was
 * `login`, `code` existed, `nickname` did not, `score` was a string (`'7 points'`), the role lacked `owner` and the address's `line2` was `street2`.
 */
function partialAccountApp (t: Parameters<typeof versionedApp>[0], own: boolean) {
  const Role = Type.Union([Type.Literal('admin'), Type.Literal('guest'), Type.Literal('owner')], { $id: 'AccountRole' })
  const Address = Type.Object({ line1: Type.String(), line2: Type.Optional(Type.String()) }, { $id: 'AccountAddress' })
  const Account = Type.Object({ name: Type.String(), nickname: Type.String(), score: Type.Integer(), role: Role, address: Address }, { $id: 'Account' })
  const fields = { name: Type.Optional(Type.String()), nickname: Type.Optional(Type.String()), score: Type.Optional(Type.Integer()), role: Type.Optional(Role), address: Type.Optional(Address) }
  const AccountPatch: TObject = own ? Type.Object(fields, { $id: 'AccountPatch' }) : extendSchema(Account, fields, { $id: 'AccountPatch' })
  const fieldsOf = (object: TObject) => [
    schema(object).field('name').had({ name: 'login' }), schema(object).formerField('code').existedAs({ type: Type.String(), optional: true }),
    schema(object).field('nickname').didntExist, schema(object).field('score').had({ type: Type.String({ pattern: '^[0-9]+ points$' }) })
  ]
  class AccountChanges extends VersionChange {
    description = 'login became name, code went, accounts have a nickname and an owner role, street2 became line2.'
    instructionsToMigrateToPreviousVersion = [
      ...fieldsOf(Account), ...(own ? fieldsOf(AccountPatch) : []), enumeration(Role).didntHave('owner'), schema(Address).field('line2').had({ name: 'street2' })
    ]

    @ConvertRequestToNextVersionFor(Account, AccountPatch)
    accountUp (request: RequestInfo) {
      if (Object.hasOwn(request.body, 'login')) request.body.name = request.body.login
      delete request.body.login
      delete request.body.code
      if (Object.hasOwn(request.body, 'score')) request.body.score = Number.parseInt(request.body.score as string)
    }

    @ConvertRequestToNextVersionFor(Address)
    addressUp (request: RequestInfo) {
      if (Object.hasOwn(request.body, 'street2')) request.body.line2 = request.body.street2
      delete request.body.street2
    }
  }
  const seen: unknown[] = []
  const app = versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', AccountChanges), new Version('2000-01-01')), async (api) => {
    api.post('/accounts', { schema: { body: Account } }, async () => ({}))
    api.patch('/accounts/a1', { schema: { body: AccountPatch } }, async (request) => { seen.push(request.body); return {} })
  })
  return { app, seen, AccountPatch }
}

for (const own of [true, false]) {
  const built = own ? 'an object with instructions of its own' : 'extendSchema'
  test(`${own ? '' : 'regression: '}a PATCH body built with ${built} in place of Type.Partial serves an old client in its version's names${own ? '' : ' (the overrides stayed under HEAD\'s names beside the renamed, required field)'}`, async (t) => {
    const { app: ready, seen, AccountPatch } = partialAccountApp(t, own)
    const app = await ready
    const patch = async (payload: object) => await app.inject({ method: 'PATCH', url: '/accounts/a1', headers: { 'x-api-version': '2000-01-01' }, payload })
    for (const payload of [{ login: 'ann' }, { code: 'x' }, { score: '7 points' }, { role: 'guest' }, { address: { line1: '1 Main St', street2: 'Flat 2' } }, {}]) {
      const response = await patch(payload)
      t.equal(response.statusCode, 200, `${JSON.stringify(payload)}: ${response.body}`)
    }
    t.same(seen, [{ name: 'ann' }, {}, { score: 7 }, { role: 'guest' }, { address: { line1: '1 Main St', line2: 'Flat 2' } }, {}], 'the handler gets each in HEAD\'s names, and nothing else')
    t.equal((await patch({ role: 'owner' })).statusCode, 400, 'the role the version lacks is refused')
    const old = app.versioner.schemas.get('2000-01-01').get(AccountPatch) as unknown as { properties: object, required?: string[] }
    t.same(Object.keys(old.properties).sort(), ['address', 'code', 'login', 'role', 'score'], 'the version\'s form: login, no nickname, no name')
    t.same(old.required ?? [], [], 'every field optional')
  })
}

// The runner removes a field a converter left `undefined` after that converter, not only before the handler: the next
// converter of the chain tests what the body holds (`Object.hasOwn`) as the docs tell it to, and must not meet it.
test('a chain of PATCH converters: a field the first leaves undefined is gone before the second tests for it', async (t) => {
  const NamePatch = Type.Object({ firstName: Type.Optional(Type.String()), lastName: Type.Optional(Type.String()), email: Type.Optional(Type.String()) }, { $id: 'ChainedNamePatch' })
  class NameWasSplit extends VersionChange {
    description = 'fullName became firstName and lastName.'
    instructionsToMigrateToPreviousVersion = [
      schema(NamePatch).field('firstName').didntExist, schema(NamePatch).field('lastName').didntExist,
      schema(NamePatch).formerField('fullName').existedAs({ type: Type.String(), optional: true })
    ]

    @ConvertRequestToNextVersionFor(NamePatch)
    splitName (request: RequestInfo) {
      if (!Object.hasOwn(request.body, 'fullName')) return
      const [firstName, ...rest] = (request.body.fullName as string).split(' ')
      Object.assign(request.body, { firstName, lastName: rest.join(' ') })
      delete request.body.fullName
    }
  }
  class FullNameWasName extends VersionChange {
    description = 'name became fullName.'
    instructionsToMigrateToPreviousVersion = [schema(NamePatch).formerField('fullName').had({ name: 'name' })]

    // Written for full bodies: a PATCH without `name` leaves `fullName: undefined`.
    @ConvertRequestToNextVersionFor(NamePatch)
    nameUp (request: RequestInfo) {
      request.body.fullName = request.body.name
      delete request.body.name
    }
  }
  const seen: unknown[] = []
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2002-01-01', NameWasSplit), new Version('2001-01-01', FullNameWasName), new Version('2000-01-01')), async (api) => {
    api.patch('/people/p1', { schema: { body: NamePatch } }, async (request) => { seen.push(request.body); return {} })
  })
  const patch = async (payload: object) => await app.inject({ method: 'PATCH', url: '/people/p1', headers: { 'x-api-version': '2000-01-01' }, payload })
  t.equal((await patch({ email: 'ada@example.com' })).statusCode, 200, 'no 500 from splitting undefined')
  t.equal((await patch({ name: 'Ada King Lovelace' })).statusCode, 200)
  t.same(seen, [{ email: 'ada@example.com' }, { firstName: 'Ada', lastName: 'King Lovelace' }])
  t.notOk(Object.hasOwn(seen[0] as object, 'firstName'), 'nor firstName: undefined')
})

test('a field left undefined in a body whose keys are data (a record), or by a by-path converter, is removed too', async (t) => {
  const Labels = Type.Record(Type.String(), Type.String(), { $id: 'PatchLabels' })
  const LabelsPatch = Type.Object({ labels: Type.Optional(Labels), note: Type.Optional(Type.String()) }, { $id: 'LabelsPatch' })
  class LabelsRenamed extends VersionChange {
    description = 'the label colour became tone; memo became note.'
    instructionsToMigrateToPreviousVersion = [schema(LabelsPatch).field('note').had({ name: 'memo' })]

    @ConvertRequestToNextVersionFor(Labels)
    toneUp (request: RequestInfo) {
      request.body.tone = request.body.colour
      delete request.body.colour
    }

    @ConvertRequestToNextVersionFor('/tags/t1', ['PATCH'])
    noteUp (request: RequestInfo) {
      request.body.note = request.body.memo
      delete request.body.memo
    }
  }
  const seen: unknown[] = []
  const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', LabelsRenamed), new Version('2000-01-01')), async (api) => {
    api.patch('/tags/t1', { schema: { body: LabelsPatch } }, async (request) => { seen.push(request.body); return {} })
  })
  const response = await app.inject({ method: 'PATCH', url: '/tags/t1', headers: { 'x-api-version': '2000-01-01' }, payload: { labels: { size: 'L' } } })
  t.equal(response.statusCode, 200, response.body)
  t.same(seen, [{ labels: { size: 'L' } }])
  t.notOk(Object.hasOwn((seen[0] as { labels: object }).labels, 'tone'), 'no tone: undefined in the record')
  t.notOk(Object.hasOwn(seen[0] as object, 'note'), 'no note: undefined from the by-path converter')
})

// Decision 0295: each validation fills its own schema's defaults, as the version's own application and HEAD's do; a
// null the old version forbids is coerced or refused as that version's application does.
for (const coerceTypes of [undefined, 'array', false] as const) {
  test(`a PATCH from an old client gets the old version's defaults before the converters and HEAD's after them; a forbidden null (coerceTypes ${String(coerceTypes)})`, async (t) => {
    const PlanPatch = Type.Object({
      email: Type.Optional(Type.String()),
      plan: Type.Optional(Type.String()),
      tier: Type.Optional(Type.String({ default: 'free' })),
      nickname: Type.Optional(Type.Union([Type.Null(), Type.String()]))
    }, { $id: 'DefaultsPlanPatch' })
    class PlanDefaults extends VersionChange {
      description = 'plan lost its default; customers have a tier; a nickname may be null (null clears it).'
      instructionsToMigrateToPreviousVersion = [
        schema(PlanPatch).field('plan').had({ default: 'basic' }), schema(PlanPatch).field('tier').didntExist,
        schema(PlanPatch).field('nickname').had({ type: Type.String() })
      ]

      @ConvertRequestToNextVersionFor(PlanPatch)
      seen (request: RequestInfo) { request.body.email = `${String(request.body.email)} [${Object.keys(request.body).sort().join(',')}]` }
    }
    const seen: unknown[] = []
    const app = await versionedApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', PlanDefaults), new Version('2000-01-01')), async (api) => {
      api.patch('/plans/p1', { schema: { body: PlanPatch } }, async (request) => { seen.push(request.body); return {} })
    }, { fastify: coerceTypes === undefined ? {} : { ajv: { customOptions: { coerceTypes } } } })
    const patch = async (version: string, payload: object) => await app.inject({ method: 'PATCH', url: '/plans/p1', headers: { 'x-api-version': version }, payload })
    t.equal((await patch('2000-01-01', { email: 'a' })).statusCode, 200)
    t.equal((await patch('2001-01-01', { email: 'b' })).statusCode, 200)
    t.same(seen, [{ email: 'a [email,plan]', plan: 'basic', tier: 'free' }, { email: 'b', tier: 'free' }],
      'the converter sees the old default, the handler HEAD\'s too; HEAD\'s clients get HEAD\'s alone')
    const nulled = await patch('2000-01-01', { nickname: null })
    if (coerceTypes === false) t.same([nulled.statusCode, nulled.json().message], [400, 'body/nickname must be string'], 'refused, naming the field')
    else t.equal(nulled.statusCode, 200, 'coerced by the version\'s validation, as the version\'s own Fastify does')
  })
}
