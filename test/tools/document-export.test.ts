// `export`: every document the application serves, written byte for byte as GET /openapi.json?version=V answers.
import { test } from 'tap'
import Fastify from 'fastify'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { buildApp } from '../../examples/users/app'
import { exportDocuments, fastifyVersioner, servedDocuments, versioned, errorCodes } from '../../plugin'
import { bundleOf } from '../helpers/http-apps'

async function tempDir (t: { teardown: (fn: () => unknown) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fastify-versioner-export-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

test('export writes each version of examples/users byte-identical to the served document', async (t) => {
  const app = await buildApp()
  t.teardown(() => app.close())
  await app.ready()
  const dir = await tempDir(t)
  const files = await exportDocuments(app, join(dir, 'openapi'))
  t.same(files.map((file) => file.slice(dir.length + 1)),
    ['openapi/2002-01-01.json', 'openapi/2001-01-01.json', 'openapi/2000-01-01.json', 'openapi/unversioned.json'],
    'one file per version, newest first, then the unversioned routes (GET /health)')
  for (const version of ['2002-01-01', '2001-01-01', '2000-01-01', 'unversioned']) {
    const served = await app.inject({ method: 'GET', url: `/openapi.json?version=${version}` })
    t.equal(served.statusCode, 200)
    const written = await readFile(join(dir, 'openapi', `${version}.json`))
    t.ok(written.equals(served.rawPayload), `${version}.json holds exactly the served bytes (${written.length})`)
  }
})

test('an app without unversioned routes gets no unversioned.json; a custom openapiUrl is followed', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: bundleOf(['2001-01-01', '2000-01-01']), openapiUrl: '/api-docs.json', changelogUrl: null })
  await app.register(versioned(async (api) => {
    api.get('/things', { schema: { response: { 200: Type.Object({ id: Type.String() }) } } }, async () => ({ id: 'a' }))
  }))
  await app.ready()
  const documents = await servedDocuments(app)
  t.same(documents.map((document) => document.version), ['2001-01-01', '2000-01-01'])
  const served = await app.inject({ url: '/api-docs.json?version=2000-01-01' })
  t.ok(documents[1].body.equals(served.rawPayload))
})

test('export says so when the app serves no documents (openapiUrl: null)', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: bundleOf(['2000-01-01']), openapiUrl: null })
  await app.ready()
  const dir = await tempDir(t)
  await t.rejects(exportDocuments(app, dir), { code: 'FST_VERSIONER_TOOL', message: /openapiUrl is null/ })
  await t.rejects(exportDocuments(app, dir), errorCodes.FST_VERSIONER_TOOL)
})

test('export refuses, writing nothing, when a document holds an example that fails its schema', async (t) => {
  const User = Type.Object({ id: Type.String(), age: Type.Integer({ examples: ['old'] }) }, { $id: 'User', examples: [{ id: 'u1' }] })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyVersioner, { versions: bundleOf(['2001-01-01', '2000-01-01']) })
  await app.register(versioned(async (api) => {
    api.get('/users/:id', { schema: { response: { 200: User } } }, async () => ({ id: 'u1', age: 3 }))
  }))
  await app.ready()
  const dir = join(await tempDir(t), 'openapi')
  const error = await exportDocuments(app, dir).then(() => undefined, (failure: unknown) => failure as Error & { code?: string })
  t.equal(error?.code, 'FST_VERSIONER_TOOL')
  t.equal(error?.message, '4 example(s) in the documents fail their schema, so no document was written ' +
    '(fix the example, or say how the version had it with schema(S).had({ examples })):\n' +
    "2001-01-01 /components/schemas/User/examples/0: must have required property 'age'\n" +
    '2001-01-01 /components/schemas/User/properties/age/examples/0: must be integer\n' +
    "2000-01-01 /components/schemas/User/examples/0: must have required property 'age'\n" +
    '2000-01-01 /components/schemas/User/properties/age/examples/0: must be integer',
  'each invalid example, by version, JSON pointer and the validator\'s message (HEAD\'s own schema: shown as written in every version)')
  await t.rejects(readdir(dir), { code: 'ENOENT' }, 'not even the folder')
})
