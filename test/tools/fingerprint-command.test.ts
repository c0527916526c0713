import { test } from 'tap'
import { cp, readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { buildApp } from '../../examples/users/app'
import { inProcess, scratch } from '../helpers/cli'

const EXAMPLE = resolve(__dirname, '..', '..', 'examples', 'users')

test('fingerprint prints what app.versioner.fingerprint says, and with --against the committed snapshots\' own', async (t) => {
  const app = await buildApp()
  t.teardown(() => app.close())
  await app.ready()
  const expected = app.versioner.fingerprint as string

  const alone = await inProcess(['fingerprint', join(EXAMPLE, 'app.ts')])
  t.equal(alone.code, 0, alone.stderr)
  t.equal(alone.stdout, `fingerprint: ${expected}\n`)

  const against = await inProcess(['fingerprint', join(EXAMPLE, 'app.ts'), '--against', join(EXAMPLE, 'openapi')])
  t.equal(against.code, 0, `the committed snapshots are what the app serves: ${against.stderr}`)
  t.match(against.stdout, `fingerprint of ${join(EXAMPLE, 'openapi')}: ${expected} (2000-01-01, 2001-01-01, 2002-01-01, unversioned)`)

  const dir = await scratch(t)
  await cp(join(EXAMPLE, 'openapi'), dir, { recursive: true })
  const file = join(dir, '2001-01-01.json')
  const saved = JSON.parse(await readFile(file, 'utf8')) as { paths: Record<string, unknown> }
  // Keys in another order, the servers of another environment: the same contract.
  await writeFile(file, JSON.stringify({ servers: [{ url: 'https://staging.example.com' }], ...Object.fromEntries(Object.entries(saved).reverse()) }))
  t.equal((await inProcess(['fingerprint', join(EXAMPLE, 'app.ts'), '--against', dir])).code, 0, 'another key order and servers: the same fingerprint')
  delete saved.paths[Object.keys(saved.paths)[0]]
  await writeFile(file, JSON.stringify(saved))
  const stale = await inProcess(['fingerprint', join(EXAMPLE, 'app.ts'), '--against', dir])
  t.equal(stale.code, 1, 'an operation missing from a saved document: exit 1')
  t.match(stale.stderr, `the documents saved in ${dir} are not what the application serves; run fastify-versioner check <app> --against ${dir}`)

  const usage = await inProcess(['fingerprint', join(EXAMPLE, 'app.ts'), '--channel', 'preview'])
  t.equal(usage.code, 2)
  t.match(usage.stderr, '--channel does not apply to fingerprint')
  t.match((await inProcess(['--help'])).stdout, 'fastify-versioner fingerprint <app> [--against <dir>] [--api <name>]')
})

// Before a dated release's instant, `?version=2027-01-01` waterfalls to the newest served version: export wrote that
// version's document as 2027-01-01.json, and fingerprint (and check) --against it refused the saved file.
test('regression: export writes a dated release still to come as itself, and fingerprint --against that export agrees', async (t) => {
  const dir = await scratch(t)
  const file = join(dir, 'app.ts')
  await writeFile(file, `import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import { fastifyVersioner, versioned, VersionBundle, Version, VersionChange, schema } from ${JSON.stringify(resolve(__dirname, '..', '..', 'plugin'))}
const Item = Type.Object({ id: Type.String(), colour: Type.String() }, { $id: 'Item' })
class AddColour extends VersionChange {
  description = 'Items have a colour.'
  instructionsToMigrateToPreviousVersion = [schema(Item).field('colour').didntExist]
}
export default async function build () {
  const app = Fastify()
  await app.register(fastifyVersioner, { versions: new VersionBundle(new Version('2999-01-01', AddColour, { releasedAt: '2999-01-01T09:00:00Z' }), new Version('2026-01-01')) })
  await app.register(versioned(async (api) => { api.get('/items', { schema: { response: { 200: Item } } }, async () => ({ id: 'i', colour: 'red' })) }))
  return app
}
`)
  const out = join(dir, 'openapi')
  const exported = await inProcess(['export', file, '--out', out])
  t.equal(exported.code, 0, exported.stderr)
  const saved = JSON.parse(await readFile(join(out, '2999-01-01.json'), 'utf8')) as { info: Record<string, unknown> }
  t.match(saved.info, { version: '2999-01-01', 'x-released-at': '2999-01-01T09:00:00.000Z' }, 'its own document, as it will be served')
  const against = await inProcess(['fingerprint', file, '--against', out])
  t.equal(against.code, 0, against.stderr)
  t.equal((await inProcess(['check', file, '--against', out])).code, 0)
})
