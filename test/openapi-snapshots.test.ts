/**
 * Snapshots of the OpenAPI document of each version of the users example (`examples/users`), with an
 * `openapi.info.title`, tags and a webhook, as `GET /openapi.json?version=V` serves them. The snapshots are
 * in `tap-snapshots/test/openapi-snapshots.test.ts.test.cjs`; regenerate them on purpose only, with
 * `npx tap --snapshot test/openapi-snapshots.test.ts`, and review the diff.
 */
import { test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../examples/users/app'
import { EXAMPLE_USER_ID, UserResource } from '../examples/users/schemas'
import { assertDocumentsValid, refsIn } from './helpers/openapi-documents'

const KEYS = ['2002-01-01', '2001-01-01', '2000-01-01', 'unversioned']

async function documentedExample (t: { teardown: (fn: () => unknown) => void }): Promise<FastifyInstance> {
  const app = await buildApp({
    versioner: {
      openapi: {
        info: { title: 'Users API', description: 'The users example of fastify-versioner.' },
        tags: [
          { name: 'users', description: 'Users and their default address.' },
          { name: 'addresses', description: "A user's addresses." },
          { name: 'admin', description: 'Used by no operation: never listed.' }
        ]
      }
    }
  })
  t.teardown(() => app.close())
  app.versioner.webhooks.add({ name: 'user.created', body: UserResource, summary: 'A user was created', tags: ['users'] })
  await app.ready()
  return app
}

/**
 * Every string in a document that looks random or generated: UUIDs, long hex runs, timestamps, `def-0` or
 * `Name__2000-01-01` ids. The example user's id, a fixed UUID written in the schema's examples, is not.
 */
function randomLooking (value: unknown, found: string[] = []): string[] {
  if (typeof value === 'string') {
    if (value !== EXAMPLE_USER_ID && /[0-9a-f]{8}-[0-9a-f]{4}-|[0-9a-f]{16}|\d{4}-\d\d-\d\dT\d\d:|\bdef-\d|__/i.test(value)) found.push(value)
  } else if (Array.isArray(value)) {
    for (const item of value) randomLooking(item, found)
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      randomLooking(key, found)
      randomLooking(item, found)
    }
  }
  return found
}

test('the documents of the users example are deterministic: no random values, equal across applications', async (t) => {
  const one = await documentedExample(t)
  const two = await documentedExample(t)
  for (const key of KEYS) {
    const first = (await one.inject(`/openapi.json?version=${key}`)).body
    t.same(randomLooking(JSON.parse(first)), [], `${key}: nothing random-looking in the document`)
    t.equal((await two.inject(`/openapi.json?version=${key}`)).body, first, `${key}: another application serves the same bytes`)
    t.equal((await one.inject(`/openapi.json?version=${key}`)).body, first, `${key}: a second request serves the same bytes`)
  }
})

test('snapshot of the OpenAPI document of each version of the users example', async (t) => {
  const app = await documentedExample(t)
  for (const key of KEYS) {
    const response = await app.inject(`/openapi.json?version=${key}`)
    t.equal(response.statusCode, 200, `${key}: served`)
    const document = JSON.parse(response.body)
    t.matchSnapshot(document, `OpenAPI document of ${key}`)
  }
  // What the snapshots must show, whatever they hold.
  const latest = app.versioner.openapi('2002-01-01') as Record<string, any>
  t.same(latest.webhooks['user.created'].post.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/UserResource' })
  t.same(latest.tags.map((tag: { name: string }) => tag.name), ['users', 'addresses'])
  const oldest = app.versioner.openapi('2000-01-01') as Record<string, any>
  t.same(oldest.tags.map((tag: { name: string }) => tag.name), ['users'], 'no addresses endpoint in 2000-01-01')
  t.same(Object.keys(oldest.components.schemas.UserResource.properties), ['id', 'address'])
  t.notOk(refsIn(oldest).includes('#/components/schemas/UserAddressResource'))
  await assertDocumentsValid(t, app)
})
