// The tools' libraries are optional dependencies of the package (api-smart-diff for check, fast-check for verify):
// npm installs them, an install without optional dependencies does not. Without them, a tool says exactly what to
// install (FST_VERSIONER_TOOL), with the range package.json lists.
import { test } from 'tap'
import { readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { buildApp } from '../../examples/users/app'
import { checkDocuments, exportDocuments, verify } from '../../tools'
import { OPTIONAL_LIBRARIES } from '../../lib/core/optional-libraries'
import { scratch } from '../helpers/cli'
import { withoutLibraries } from '../helpers/missing-libraries'

const root = resolve(__dirname, '..', '..')

test('package.json lists the optional libraries, with the ranges the messages name, and nowhere else', async (t) => {
  const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>
  t.same(manifest.optionalDependencies, OPTIONAL_LIBRARIES)
  for (const name of Object.keys(OPTIONAL_LIBRARIES)) {
    t.equal(manifest.dependencies?.[name], undefined, `${name} is not a dependency every application installs regardless`)
  }
})

test('without api-smart-diff, check says to install it; without fast-check, verify does', async (t) => {
  const app = await buildApp()
  t.teardown(() => app.close())
  await app.ready()
  const dir = await scratch(t)
  await exportDocuments(app, dir)
  t.equal((await checkDocuments(app, dir)).breaks.length, 0, 'with the library, check runs')
  withoutLibraries(t, ['api-smart-diff', 'fast-check'])
  await t.rejects(checkDocuments(app, dir), {
    code: 'FST_VERSIONER_TOOL',
    message: 'check needs api-smart-diff, an optional dependency of fastify-versioner that is not installed (an install that leaves optional ' +
      'dependencies out, such as npm ci --omit=optional, skips it). Install it: npm install --save-dev api-smart-diff@^1.0.6'
  })
  await t.rejects(verify(app, { examples: 1 }), { code: 'FST_VERSIONER_TOOL', message: /^verify needs fast-check, .* Install it: npm install --save-dev fast-check@\^4\.10\.2$/ })
})
