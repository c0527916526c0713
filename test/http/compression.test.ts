/**
 * `@fastify/compress` beside the plugin: what an old version's client decompresses is the version's converted answer,
 * whichever hook converts it (the success hook for a returned object, the send hook for JSON text and error bodies)
 * and wherever the compression plugin is registered (docs/serving.md, "With other plugins").
 */
import { gunzipSync } from 'node:zlib'
import { test } from 'tap'
import Fastify, { type FastifyReply } from 'fastify'
import { Type } from '@sinclair/typebox'
import fastifyCompress from '@fastify/compress'
import {
  ConvertResponseToPreviousVersionFor, fastifyVersioner, HeadVersion, schema, Version, VersionBundle, VersionChange, versioned, type ResponseInfo
} from '../../plugin'
import { call, jsonOf } from '../helpers/http'

const User = Type.Object({ id: Type.String(), fullName: Type.String() })

class NameAndDetail extends VersionChange {
  description = 'A user\'s fullName was its name; error bodies said detail where they now say message; answers carried x-legacy.'
  instructionsToMigrateToPreviousVersion = [schema(User).field('fullName').had({ name: 'name' })]

  @ConvertResponseToPreviousVersionFor(User)
  name (response: ResponseInfo) {
    response.body.name = response.body.fullName
    delete response.body.fullName
  }

  @ConvertResponseToPreviousVersionFor('/users/:id', ['GET'], { migrateHttpErrors: true })
  detail (response: ResponseInfo) {
    response.headers['x-legacy'] = String(response.statusCode)
    if (response.statusCode < 400) return
    response.body.detail = response.body.message
    delete response.body.message
  }
}

/** Long enough to pass the compression threshold below. */
const LONG = 'Ada Lovelace, Countess of Lovelace, '.repeat(4)

for (const place of ['before', 'after']) {
  test(`@fastify/compress registered ${place} the plugin: an old version's client decompresses its converted body, for a returned object, JSON text and errors`, async (t) => {
    const app = Fastify()
    t.teardown(() => app.close())
    if (place === 'before') await app.register(fastifyCompress, { threshold: 64 })
    await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', NameAndDetail), new Version('2000-01-01')) })
    if (place === 'after') await app.register(fastifyCompress, { threshold: 64 })
    await app.register(versioned(async (api) => {
      api.get('/users/:id', { schema: { params: Type.Object({ id: Type.String() }), response: { 200: User } } }, async (request, reply: FastifyReply) => {
        const { id } = request.params as { id: string }
        if (id === 'missing') return reply.code(404).send({ message: `No user ${id}: ${LONG}` })
        if (id === 'gone') throw Object.assign(new Error(`User ${id} left: ${LONG}`), { statusCode: 410 })
        if (id === 'text') return reply.type('application/json').send(JSON.stringify({ id, fullName: LONG }))
        return { id, fullName: LONG }
      })
    }))
    const expected: Record<string, [number, unknown]> = {
      u1: [200, { id: 'u1', name: LONG }],
      text: [200, { id: 'text', name: LONG }],
      missing: [404, { detail: `No user missing: ${LONG}` }],
      gone: [410, { statusCode: 410, error: 'Gone', detail: `User gone left: ${LONG}` }]
    }
    for (const [id, [status, body]] of Object.entries(expected)) {
      const zipped = await call(app, '2000-01-01', `/users/${id}`, { headers: { 'accept-encoding': 'gzip' } })
      t.equal(zipped.statusCode, status, `${id}: the status`)
      t.equal(zipped.headers['content-encoding'], 'gzip', `${id}: compressed`)
      t.same(JSON.parse(gunzipSync(zipped.rawPayload).toString()), body, `${id}: the version's body, converted once, then compressed`)
      t.equal(zipped.headers['x-legacy'], String(status), `${id}: the converter's header`)
      t.equal(zipped.headers['x-api-version'], '2000-01-01')
      const plain = await call(app, '2000-01-01', `/users/${id}`)
      t.same(jsonOf(plain), body, `${id}: the same body uncompressed`)
      const newest = await call(app, '2001-01-01', `/users/${id}`, { headers: { 'accept-encoding': 'gzip' } })
      const newestBody = JSON.parse(gunzipSync(newest.rawPayload).toString()) as Record<string, unknown>
      t.ok('fullName' in newestBody || 'message' in newestBody, `${id}: the newest version keeps HEAD's body`)
      t.equal(newest.headers['x-legacy'], undefined)
    }
  })
}
