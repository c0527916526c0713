import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../examples/users/app'
import { call, jsonOf } from '../helpers/http'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

async function tutorialApp (t: { teardown: (fn: () => unknown) => void }): Promise<FastifyInstance> {
  const app = await buildApp()
  t.teardown(() => app.close())
  return app
}

test('the tutorial: users created in each version, read back in every version', async (t) => {
  const app = await tutorialApp(t)

  const created2000 = await call(app, '2000-01-01', '/users', { method: 'POST', payload: { address: '1 Old Street' } })
  t.equal(created2000.statusCode, 200)
  const user2000 = jsonOf(created2000) as { id: string }
  t.match(user2000.id, UUID)
  t.same(jsonOf(created2000), { id: user2000.id, address: '1 Old Street' }, '2000-01-01 answers with one address')

  const created2001 = await call(app, '2001-01-01', '/users', { method: 'POST', payload: { addresses: ['2 Middle Road', '3 Side Lane'] } })
  t.equal(created2001.statusCode, 200)
  const user2001 = jsonOf(created2001) as { id: string }
  t.same(jsonOf(created2001), { id: user2001.id, addresses: ['2 Middle Road', '3 Side Lane'] }, '2001-01-01 answers with the list')

  const created2002 = await call(app, '2002-01-01', '/users', { method: 'POST', payload: { defaultAddress: '4 New Avenue' } })
  t.equal(created2002.statusCode, 200)
  const user2002 = jsonOf(created2002) as { id: string }
  t.same(jsonOf(created2002), { id: user2002.id }, '2002-01-01 answers without addresses (and without HEAD-only fields)')
  t.equal(created2002.headers['x-api-version'], '2002-01-01')

  const addressesOf: Record<string, string[]> = {
    [user2000.id]: ['1 Old Street'],
    [user2001.id]: ['2 Middle Road', '3 Side Lane'],
    [user2002.id]: ['4 New Avenue']
  }
  for (const [id, addresses] of Object.entries(addressesOf)) {
    const in2000 = await call(app, '2000-01-01', `/users/${id}`)
    t.equal(in2000.statusCode, 200)
    t.same(jsonOf(in2000), { id, address: addresses[0] }, `${id} in 2000-01-01: the first address`)
    const in2001 = await call(app, '2001-01-01', `/users/${id}`)
    t.equal(in2001.statusCode, 200)
    t.same(jsonOf(in2001), { id, addresses }, `${id} in 2001-01-01: every address`)
    const in2002 = await call(app, '2002-01-01', `/users/${id}`)
    t.equal(in2002.statusCode, 200)
    t.same(jsonOf(in2002), { id }, `${id} in 2002-01-01: no addresses inline`)
    const between = await call(app, '2001-12-31', `/users/${id}`)
    t.equal(between.headers['x-api-version'], '2001-01-01', 'a date between versions is served as the older one')
    t.same(jsonOf(between), { id, addresses })
  }

  const list = await call(app, '2002-01-01', `/users/${user2001.id}/addresses`)
  t.equal(list.statusCode, 200)
  const data = (jsonOf(list) as { data: Array<{ id: string, value: string }> }).data
  t.same(data.map((address) => address.value), ['2 Middle Road', '3 Side Lane'], 'the addresses endpoint lists them all')
  t.ok(data.every((address) => UUID.test(address.id)), 'each address has its own id')
  const later = await call(app, '2030-01-01', `/users/${user2000.id}/addresses`)
  t.equal(later.statusCode, 200, 'and in any later date')
  t.same((jsonOf(later) as { data: Array<{ value: string }> }).data.map((address) => address.value), ['1 Old Street'])

  for (const version of ['2001-01-01', '2000-01-01']) {
    const absent = await call(app, version, `/users/${user2001.id}/addresses`)
    t.equal(absent.statusCode, 404, `GET /users/:id/addresses does not exist in ${version}`)
  }
})

test('the tutorial: validation per version, unknown users, unversioned routes', async (t) => {
  const app = await tutorialApp(t)

  const wrongShape2000 = await call(app, '2000-01-01', '/users', { method: 'POST', payload: { addresses: ['x'] } })
  t.equal(wrongShape2000.statusCode, 400, '2000-01-01 needs address')
  const empty2001 = await call(app, '2001-01-01', '/users', { method: 'POST', payload: { addresses: [] } })
  t.equal(empty2001.statusCode, 400, '2001-01-01 needs at least one address')
  const wrongShape2002 = await call(app, '2002-01-01', '/users', { method: 'POST', payload: { address: 'x' } })
  t.equal(wrongShape2002.statusCode, 400, '2002-01-01 needs defaultAddress')
  const internal2002 = await call(app, '2002-01-01', '/users', {
    method: 'POST', payload: { defaultAddress: 'a', addressesToCreate: ['b', 'c'] }
  })
  t.equal(internal2002.statusCode, 200)
  const id = (jsonOf(internal2002) as { id: string }).id
  const readBack = await call(app, '2001-01-01', `/users/${id}`)
  t.same(jsonOf(readBack), { id, addresses: ['a'] }, 'the HEAD-only field sent by a latest client is ignored')

  const missingId = '00000000-0000-4000-8000-000000000000'
  for (const version of ['2000-01-01', '2001-01-01', '2002-01-01']) {
    const missing = await call(app, version, `/users/${missingId}`)
    t.equal(missing.statusCode, 404, `unknown user in ${version}`)
    t.same(jsonOf(missing), { message: 'No such user' })
  }
  const missingAddresses = await call(app, '2002-01-01', `/users/${missingId}/addresses`)
  t.equal(missingAddresses.statusCode, 404)
  t.same(jsonOf(missingAddresses), { message: 'No such user' })

  const badId = await call(app, '2001-01-01', '/users/not-a-uuid')
  t.equal(badId.statusCode, 400, 'params are validated')

  const health = await app.inject({ url: '/health', headers: { 'x-api-version': '1990-01-01' } })
  t.equal(health.statusCode, 200, 'the unversioned route answers whatever version is sent')
  t.same(jsonOf(health), { ok: true })

  const noVersion = await app.inject({ url: `/users/${id}` })
  t.equal(noVersion.statusCode, 400)
  t.match(jsonOf(noVersion), { message: /x-api-version/ }, 'the message names the header')
  const tooOld = await call(app, '1999-01-01', `/users/${id}`)
  t.equal(tooOld.statusCode, 400)
  t.match(jsonOf(tooOld), { message: /1999-01-01/ })
})
