// An application written with TypeBox 1.x (`typebox`, the peer of @fastify/type-provider-typebox 6), the real package:
// its schemas go to the same functions as 0.34's, typed (test/types/typebox1.test-d.ts), and an old version is served.
import { test } from 'tap'
import Fastify from 'fastify'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, fastifyVersioner, schema, versioned, Version, VersionBundle,
  VersionChange, type RequestInfo, type ResponseInfo
} from '../../plugin'

test('a TypeBox 1.x schema with a renamed field is served in the old version, typed without a cast', async (t) => {
  // typebox 1.x is ESM only; this CommonJS test loads it as such.
  const { Type } = await import('typebox')
  const User = Type.Object({ id: Type.String(), addresses: Type.Array(Type.String()) }, { $id: 'User' })
  const UserCreate = Type.Object({ addresses: Type.Array(Type.String()) }, { $id: 'UserCreate' })
  t.equal((User as unknown as Record<string, unknown>)['~kind'], 'Object', 'the schemas are TypeBox 1.x\'s')

  class AddressesToAddress extends VersionChange {
    description = 'Users can now store several addresses.'
    instructionsToMigrateToPreviousVersion = [
      schema(User).field('addresses').had({ name: 'address', type: Type.String() }),
      schema(UserCreate).field('addresses').had({ name: 'address', type: Type.String() })
    ]

    @ConvertRequestToNextVersionFor(UserCreate)
    up (request: RequestInfo) {
      request.body = { addresses: [request.body.address] }
    }

    @ConvertResponseToPreviousVersionFor(User)
    down (response: ResponseInfo) {
      const { addresses, ...rest } = response.body
      response.body = { ...rest, address: addresses[0] }
    }
  }

  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2001-01-01', AddressesToAddress), new Version('2000-01-01')) })
  await app.register(versioned(async (api) => {
    api.post('/users', { schema: { body: UserCreate, response: { 200: User } } }, async (request) => {
      const { addresses } = request.body as { addresses: string[] }
      return { id: 'u1', addresses }
    })
  }))

  const old = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': '2000-01-01' }, payload: { address: '1 Main St' } })
  t.equal(old.statusCode, 200, old.body)
  t.same(old.json(), { id: 'u1', address: '1 Main St' }, 'the old version takes and gives `address`')
  const refused = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': '2000-01-01' }, payload: { addresses: ['1 Main St'] } })
  t.equal(refused.statusCode, 400, 'the old version refuses the new field name')
  const latest = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': '2001-01-01' }, payload: { addresses: ['1 Main St'] } })
  t.same(latest.json(), { id: 'u1', addresses: ['1 Main St'] }, 'the latest version is HEAD')
  const document = app.versioner.openapi('2000-01-01') as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } }
  t.same(Object.keys(document.components.schemas.User.properties).sort(), ['address', 'id'], 'the old document names `address`')
})
