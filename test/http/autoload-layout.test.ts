/**
 * The layout `fastify-cli generate` writes, loaded by `@fastify/autoload` as fastify-cli loads it
 * (test/fixtures/autoload-app: the plugin in a `fastify-plugin` file of plugins/, the routes' folder inside
 * versioned(...), `_id` folders as path parameters, version changes in a folder of their own): folder prefixes are
 * part of the paths instructions name, decorators of plugins/ reach the handlers, and a folder of version changes
 * loaded by autoload as plugins (a user's plugins/versions/) is skipped, not run as plugins.
 */
import { join } from 'node:path'
import { test } from 'tap'
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import AutoLoad from '@fastify/autoload'
import { injectEveryVersion } from '../../tools'

const FIXTURE = join(__dirname, '..', 'fixtures', 'autoload-app')
const appPlugin = require(join(FIXTURE, 'app.js')) as FastifyPluginAsync

type Teardown = { teardown: (fn: () => unknown) => void }

/** The app as fastify-cli's `helper.build(argv, { skipOverride: true })` builds it for the generated tests. */
async function build (t: Teardown, extra?: FastifyPluginAsync): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fp(appPlugin))
  if (extra !== undefined) await app.register(extra)
  await app.ready()
  return app
}

test('the autoloaded folders serve every version: folder prefixes, _id parameters, decorators of plugins/', async (t) => {
  const app = await build(t)
  const created = await injectEveryVersion(app, (version) => ({
    method: 'POST', url: '/users', payload: version === '2000-01-01' ? { name: 'Ada' } : { fullName: 'Ada' }
  }))
  t.same([...created].map(([version, answer]) => [version, answer.json()]), [
    ['2002-01-01', { id: 'u1', fullName: 'Ada' }],
    ['2001-01-01', { id: 'u1', fullName: 'Ada' }],
    ['2000-01-01', { id: 'u1', name: 'Ada' }]
  ])
  const read = await app.inject({ url: '/users/7', headers: { 'x-api-version': '2000-01-01' } })
  t.same(read.json(), { id: '7', name: 'User 7' })
  const deleted = await injectEveryVersion(app, { method: 'DELETE', url: '/users/7' })
  t.same([...deleted.keys()], ['2002-01-01'], 'DELETE /users/:id exists since 2002-01-01 only')
  const old = (await app.inject('/openapi.json?version=2001-01-01')).json() as { paths: Record<string, object> }
  t.same(Object.keys(old.paths).sort(), ['/users/', '/users/{id}/'], 'the paths as @fastify/swagger writes a folder\'s index route')
  t.same(Object.keys(old.paths['/users/{id}/']), ['get'])
})

test('regression: a folder of version changes loaded by @fastify/autoload is skipped, not run as plugins', async (t) => {
  // The classes export themselves (module.exports = class ... extends VersionChange): autoload took each for a plugin
  // function and called it, "Class constructor AddDeleteUser cannot be invoked without 'new'".
  const app = await build(t, async (instance) => {
    await instance.register(AutoLoad, { dir: join(FIXTURE, 'versions') })
  })
  const read = await app.inject({ url: '/users/7', headers: { 'x-api-version': '2002-01-01' } })
  t.same(read.json(), { id: '7', fullName: 'User 7' })
})
