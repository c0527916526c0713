/*
 * An application bundled into one file, as teams ship to serverless platforms and containers: esbuild bundles
 * test/fixtures/bundled/app.ts with the plugin (its source, as a bundler takes the package's code in), as CommonJS
 * and as an ES module (with the `require` banner an ES module bundle of Fastify needs), minified. Each bundle runs in
 * a child process twice: beside the repository's node_modules (the bundle shipped with them), and in a folder with no
 * node_modules above it (the bundle alone, as in a function's archive).
 */
import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import t from 'tap'
import { childEnv } from './helpers/packed-package'

const ENTRY = join(__dirname, 'fixtures', 'bundled', 'app.ts')
const BANNER = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"

type Format = 'cjs' | 'esm'

async function bundle (dir: string, format: Format): Promise<string> {
  const outfile = join(dir, format === 'esm' ? 'app.mjs' : 'app.cjs')
  await build({
    entryPoints: [ENTRY],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format,
    outfile,
    minify: true,
    keepNames: true,
    logLevel: 'silent',
    banner: format === 'esm' ? { js: BANNER } : undefined,
    // Standard (TC39) decorators, as an application without experimentalDecorators writes them.
    tsconfigRaw: { compilerOptions: { experimentalDecorators: false, useDefineForClassFields: true } }
  })
  return outfile
}

function runBundle (file: string, options: object = {}): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...childEnv, VERSIONER_OPTIONS: JSON.stringify(options) }
    delete env.NODE_OPTIONS
    execFile(process.execPath, [file], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`${file} failed: ${error.message}\n${stderr}`))
      else resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>)
    })
  })
}

const SERVED = {
  old: [200, { name: 'Ada' }, '2001-01-01: 2 changes; request invalid'],
  '/openapi.json?version=2000-01-01': 200,
  '/docs': 200,
  '/docs/assets/swagger-ui-bundle.js': 200,
  '/docs/assets/favicon-32x32.png': 200,
  '/redoc': 200,
  '/docs/assets/redoc.standalone.js': 200,
  // Minified with keepNames: the upgrade guide names the version change as written.
  guide: ['FullNameWasName']
}

/** What one bundle serves beside node_modules, and alone with the default options and without the pages. */
async function outcomes (format: Format, beside: string, alone: string): Promise<Record<string, Record<string, unknown>>> {
  const file = await bundle(beside, format)
  const copy = join(alone, file.slice(beside.length + 1))
  await copyFile(file, copy)
  const [served, refused, withoutPages] = await Promise.all([runBundle(file), runBundle(copy), runBundle(copy, { docsUrl: null, redocUrl: null })])
  return { served, refused, withoutPages }
}

t.test('a bundled application', async (t) => {
  const beside = join(__dirname, '.tmp', `bundled-${process.pid}`)
  const alone = await mkdtemp(join(tmpdir(), 'fastify-versioner-bundled-'))
  await mkdir(beside, { recursive: true })
  t.teardown(() => Promise.all([rm(beside, { recursive: true, force: true }), rm(alone, { recursive: true, force: true })]))
  const formats = ['cjs', 'esm'] as const
  const results = await Promise.all(formats.map((format) => outcomes(format, beside, alone)))

  formats.forEach((format, index) => {
    const { served, refused, withoutPages } = results[index]
    t.same(served, SERVED, `${format}: beside node_modules, every page and file is served`)

    const { error } = refused as { error?: { code: string, message: string } }
    t.equal(error?.code, 'FST_VERSIONER_INVALID_OPTION', `${format}: alone, the pages' missing files fail at start-up`)
    t.match(error?.message, /Swagger UI's files/, 'saying which')
    t.match(error?.message, /docsUrl: null, redocUrl: null/, 'and what to do')
    t.same(withoutPages.old, SERVED.old, `${format}: alone without the pages, versions and the upgrade preview are served`)
    t.equal(withoutPages['/openapi.json?version=2000-01-01'], 200, 'the documents too')
  })
})
