// `app.versioner.verify()`: generated examples of every version migrate up to HEAD and HEAD examples down to every
// version; each finding names the route, version, direction, version change, converter and JSON pointer.
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, fastifyVersioner, HeadVersion, schema, Version, VersionBundle,
  VersionChange, type RequestInfo, type ResponseInfo, type VersionChangeClass
} from '../plugin'
import { buildApp } from '../examples/users/app'
import { versionedApp, type Teardown } from './helpers/apps'

/** A ready application serving `POST /users` (body `create`) and `GET /users/:id`, both answering a `user`, in `versions`. */
async function usersApp (t: Teardown, versions: VersionBundle, create: TSchema, user: TSchema): Promise<FastifyInstance> {
  const app = await versionedApp(t, versions, async (api) => {
    api.post('/users', { schema: { body: create, response: { 200: user } } }, async () => ({ id: 'u1', fullName: 'Ada Lovelace' }))
    api.get('/users/:id', { schema: { params: Type.Object({ id: Type.String() }), response: { 200: user } } }, async () => ({ id: 'u1', fullName: 'Ada Lovelace' }))
  })
  await app.ready()
  return app
}

function schemas () {
  const UserCreate = Type.Object({ fullName: Type.String({ minLength: 1 }), email: Type.Optional(Type.String()) }, { $id: 'UserCreate' })
  const User = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'User' })
  return { UserCreate, User }
}

test('a rename instruction without converters is found, in both directions, naming the change and the pointer', async (t) => {
  const { UserCreate, User } = schemas()
  class RenameNameToFullName extends VersionChange {
    description = 'name became fullName.'
    instructionsToMigrateToPreviousVersion = [
      schema(UserCreate).field('fullName').had({ name: 'name' }),
      schema(User).field('fullName').had({ name: 'name' })
    ]
  }
  const app = await usersApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameNameToFullName), new Version('2000-01-01')), UserCreate, User)
  const findings = await app.versioner.verify()
  const summary = findings.map(({ route, version, direction, part, pointer, versionChanges, changeVersion, converters }) =>
    ({ route, version, direction, part, pointer, versionChanges, changeVersion, converters }))
  t.same(summary, [
    { route: 'POST /users', version: '2000-01-01', direction: 'request', part: 'body', pointer: '/fullName', versionChanges: ['RenameNameToFullName'], changeVersion: '2001-01-01', converters: [] },
    { route: 'POST /users', version: '2000-01-01', direction: 'response', part: 'response 200', pointer: '/name', versionChanges: ['RenameNameToFullName'], changeVersion: '2001-01-01', converters: [] },
    { route: 'GET /users/:id', version: '2000-01-01', direction: 'response', part: 'response 200', pointer: '/name', versionChanges: ['RenameNameToFullName'], changeVersion: '2001-01-01', converters: [] }
  ], 'the request and both responses of 2000-01-01, and nothing of 2001-01-01')
  t.match(findings[0].text, /^POST \/users \(2000-01-01\): request body\/fullName migrated up from 2000-01-01 fails HEAD validation: must have required property 'fullName'; first wrong after RenameNameToFullName \(2001-01-01\), no converter ran/)
  t.match(findings[0].message, /required property 'fullName'/)
})

test('the same rename with its converters passes', async (t) => {
  const { UserCreate, User } = schemas()
  class RenameNameToFullName extends VersionChange {
    description = 'name became fullName.'
    instructionsToMigrateToPreviousVersion = [
      schema(UserCreate).field('fullName').had({ name: 'name' }),
      schema(User).field('fullName').had({ name: 'name' })
    ]

    @ConvertRequestToNextVersionFor(UserCreate)
    nameUp (request: RequestInfo) {
      request.body.fullName = request.body.name
      delete request.body.name
    }

    @ConvertResponseToPreviousVersionFor(User)
    nameDown (response: ResponseInfo) {
      response.body.name = response.body.fullName
      delete response.body.fullName
    }
  }
  const app = await usersApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameNameToFullName), new Version('2000-01-01')), UserCreate, User)
  t.same(await app.versioner.verify(), [])
})

test('a wrong converter is named, and the change that holds it, not the changes around it', async (t) => {
  const { UserCreate, User } = schemas()
  class AddEmail extends VersionChange {
    description = 'email was added.'
    instructionsToMigrateToPreviousVersion = [schema(UserCreate).field('email').didntExist]
  }
  class RenameNameToFullName extends VersionChange {
    description = 'name became fullName.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('fullName').had({ name: 'name' })]

    @ConvertResponseToPreviousVersionFor(User)
    nameDown (response: ResponseInfo) {
      response.body.nom = response.body.fullName // the wrong name
      delete response.body.fullName
    }
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01', AddEmail), new Version('2001-01-01', RenameNameToFullName), new Version('2000-01-01'))
  const app = await usersApp(t, versions, UserCreate, User)
  const findings = await app.versioner.verify()
  t.same(findings.map((finding) => [finding.route, finding.version, finding.direction, finding.pointer, finding.versionChanges, finding.converters]), [
    ['POST /users', '2000-01-01', 'response', '/name', ['RenameNameToFullName'], ['RenameNameToFullName.nameDown']],
    ['GET /users/:id', '2000-01-01', 'response', '/name', ['RenameNameToFullName'], ['RenameNameToFullName.nameDown']]
  ])
  t.match(findings[0].text, /converters RenameNameToFullName\.nameDown/)
})

test('a converter that throws is a finding naming it', async (t) => {
  const { UserCreate, User } = schemas()
  class RenameNameToFullName extends VersionChange {
    description = 'name became fullName.'
    instructionsToMigrateToPreviousVersion = [schema(UserCreate).field('fullName').had({ name: 'name' })]

    @ConvertRequestToNextVersionFor(UserCreate)
    nameUp (request: RequestInfo) {
      throw new TypeError(`cannot read ${String(request.body.missing)}`)
    }
  }
  const app = await usersApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', RenameNameToFullName), new Version('2000-01-01')), UserCreate, User)
  const findings = await app.versioner.verify()
  t.equal(findings.length, 1)
  t.match(findings[0], { route: 'POST /users', version: '2000-01-01', direction: 'request', part: 'converter', message: 'TypeError: cannot read undefined', converters: ['RenameNameToFullName.nameUp'] })
})

test('a request converter that refuses an example with a 4xx client error is no finding', async (t) => {
  const { UserCreate, User } = schemas()
  class NamesAreRefused extends VersionChange {
    description = 'name became fullName; this version refuses every name.'
    instructionsToMigrateToPreviousVersion = [schema(UserCreate).field('fullName').had({ name: 'name' })]

    @ConvertRequestToNextVersionFor(UserCreate)
    nameUp (request: RequestInfo) {
      throw Object.assign(new Error(`name ${String(request.body.name)} can no longer be stored`), { statusCode: 422 })
    }
  }
  const app = await usersApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', NamesAreRefused), new Version('2000-01-01')), UserCreate, User)
  t.same(await app.versioner.verify(), [], 'the client gets a clear 422: not a break')
})

test('an optional field only the full example has is checked too', async (t) => {
  const UserCreate = Type.Object({ fullName: Type.String(), nickname: Type.Optional(Type.String()) }, { $id: 'UserCreate' })
  const User = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'User' })
  // Fastify coerces scalars (a number passes as a string), not objects.
  const changes: VersionChangeClass[] = [class NicknameWasAnObject extends VersionChange {
    description = 'nickname was an object.'
    instructionsToMigrateToPreviousVersion = [schema(UserCreate).field('nickname').had({ type: Type.Object({ first: Type.String() }) })]
  }]
  const app = await usersApp(t, new VersionBundle(new HeadVersion(), new Version('2001-01-01', ...changes), new Version('2000-01-01')), UserCreate, User)
  const findings = await app.versioner.verify()
  t.same(findings.map((finding) => [finding.version, finding.direction, finding.pointer, finding.example]), [['2000-01-01', 'request', '/nickname', 'all fields']])
})

test('verify before ready throws FST_VERSIONER_NOT_READY', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2000-01-01')) })
  await t.rejects(app.versioner.verify(), { code: 'FST_VERSIONER_NOT_READY' })
})

test('the example app verifies cleanly', async (t) => {
  const app = await buildApp()
  t.teardown(() => app.close())
  await app.ready()
  t.same(await app.versioner.verify(), [])
})
