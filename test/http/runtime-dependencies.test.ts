/**
 * What the plugin loads at run time: an application that registers it and serves a request loads none of the
 * tools' dependencies (the diff library of `check`, fast-check of `verify`), which
 * are loaded only when a tool runs.
 */
import { test } from 'tap'
import { execFile } from 'node:child_process'
import { resolve as resolvePath } from 'node:path'

const ROOT = resolvePath(__dirname, '..', '..')
const TOOL_ONLY = ['api-smart-diff', 'fast-check']

test('serving a versioned request loads none of the tools\' dependencies', async (t) => {
  // A JavaScript program through tsx's register hook for the TypeScript sources only: tsx itself is the one loader.
  const program = `
    const { default: Fastify } = require('fastify')
    const { Type } = require('@sinclair/typebox')
    const { fastifyVersioner, versioned, VersionBundle, Version, HeadVersion } = require(${JSON.stringify(resolvePath(ROOT, 'plugin.ts'))})
    async function main () {
      const app = Fastify()
      await app.register(fastifyVersioner, { versions: new VersionBundle(new HeadVersion(), new Version('2001-01-01'), new Version('2000-01-01')) })
      await app.register(versioned(async (api) => { api.get('/ping', { schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async () => ({ ok: true })) }))
      const response = await app.inject({ url: '/ping', headers: { 'x-api-version': '2000-01-01' } })
      const packages = new Set(Object.keys(require.cache).filter((file) => file.includes('node_modules')).map((file) => {
        const parts = file.split('node_modules/').pop().split('/')
        return parts[0].startsWith('@') ? parts[0] + '/' + parts[1] : parts[0]
      }))
      process.stdout.write(JSON.stringify({ status: response.statusCode, packages: [...packages] }))
    }
    main()
  `
  const output = await new Promise<string>((resolve, reject) => {
    // tsx transpiles lib/ differently from the tests' loader: its coverage would count each function twice.
    const env = { ...process.env, _TAPJS_PROCESSINFO_COVERAGE_: '0' }
    execFile(process.execPath, ['--require', 'tsx/cjs', '-e', program], { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`${error.message}\n${stderr}`))
      else resolve(stdout)
    })
  })
  const { status, packages } = JSON.parse(output) as { status: number, packages: string[] }
  t.equal(status, 200, 'the request was served')
  t.ok(packages.includes('@fastify/swagger'), 'what the plugin needs is loaded (the check reads the module cache)')
  t.same(packages.filter((name) => TOOL_ONLY.includes(name)), [], `none of ${TOOL_ONLY.join(', ')}`)
  t.notOk(packages.includes('fast-json-patch'), 'the upgrade preview\'s patch library is loaded only when the option is on')
})
