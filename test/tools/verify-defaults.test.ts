// `verify` replays a request as serving takes it (issue 31, decision 0157): the version's validation runs first, with
// the validator the route runs (Fastify's Ajv and its options, or the application's own compiler), so a field the
// client left out holds its `default` before the converters read it, where that validator fills it; a field left out
// with no default is still absent.
import { test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'
import { ConvertRequestToNextVersionFor, fastifyVersioner, HeadVersion, schema, versioned, Version, VersionBundle, VersionChange, type RequestInfo } from '../../plugin'
import { verify } from '../../tools'
import { summary } from '../helpers/verify-apps'
import type { Teardown } from '../helpers/apps'

type Validator = 'fastify' | 'no defaults' | 'typebox route' | 'typebox app'

/**
 * `POST /users` whose old version takes `role` lower-case, optional with `old` (its `default`, if any), and HEAD
 * requires it upper-case: the request converter upper-cases it, reading it unguarded.
 */
async function roleApp (t: Teardown, old: { default?: string }, validator: Validator = 'fastify'): Promise<FastifyInstance> {
  const User = Type.Object({ name: Type.String(), role: Type.String({ pattern: '^[A-Z]+$' }) }, { $id: 'User' })
  class RolesBecameUpperCase extends VersionChange {
    description = 'Roles are upper-case.'
    instructionsToMigrateToPreviousVersion = [schema(User).field('role').had({ pattern: '^[a-z]+$', optional: true, ...old })]

    @ConvertRequestToNextVersionFor(User)
    up (request: RequestInfo) {
      request.body.role = request.body.role.toUpperCase()
    }
  }
  const app = Fastify(validator === 'no defaults' ? { ajv: { customOptions: { useDefaults: false } } } : {})
  t.teardown(() => app.close())
  if (validator === 'typebox app') app.setValidatorCompiler(TypeBoxValidatorCompiler)
  await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01', RolesBecameUpperCase), new Version('2000-01-01')), docsUrl: null })
  await app.register(versioned(async (api) => {
    const own = validator === 'typebox route' ? { validatorCompiler: TypeBoxValidatorCompiler as never } : {}
    api.post('/users', { schema: { body: User, response: { 200: Type.Object({ ok: Type.Boolean() }) } }, ...own }, async () => ({ ok: true }))
  }))
  await app.ready()
  return app
}

/** What serving answers an old client leaving `role` out. */
async function served (app: FastifyInstance): Promise<number> {
  const response = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': '2000-01-01' }, payload: { name: 'Ada' } })
  return response.statusCode
}

const failed = ['POST /users 2000-01-01 request converter failed converter after RolesBecameUpperCase (2001-01-01) by RolesBecameUpperCase.up']

test('a converter reading a left-out field Fastify\'s Ajv fills with its default is no finding: serving answers 200', async (t) => {
  const app = await roleApp(t, { default: 'member' })
  t.equal(await served(app), 200, 'the default reaches the converter when served')
  t.same(summary(await verify(app, { examples: 20 })), [])
})

test('a converter reading a left-out field with no default, or a default the validator in force does not fill, still fails, as serving does', async (t) => {
  const cases: Array<[string, { default?: string }, Validator]> = [
    ['no default', {}, 'fastify'],
    ['useDefaults: false', { default: 'member' }, 'no defaults'],
    ['TypeBoxValidatorCompiler on the route', { default: 'member' }, 'typebox route'],
    ['TypeBoxValidatorCompiler on the application', { default: 'member' }, 'typebox app']
  ]
  for (const [name, old, validator] of cases) {
    const app = await roleApp(t, old, validator)
    t.equal(await served(app), 500, `${name}: serving fails`)
    t.same(summary(await verify(app, { examples: 20 })), failed, name)
  }
})
