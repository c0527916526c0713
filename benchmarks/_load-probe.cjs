'use strict'

// One load measurement, in a fresh plain Node process (no tsx: its hooks would slow every require), started by
// benchmarks/entry-load.ts: `node benchmarks/_load-probe.cjs <mode> <build folder>`, printing one JSON line.
// - require: `require('<build>/plugin.js')`: its time, the modules then loaded (all, the package's own, its tools'),
//   the tools' libraries among them, and RSS;
// - ready-pages / ready-no-pages: an application of 10 versioned routes in 3 versions readied with the docs pages
//   (default options) or without them (`docsUrl: null, redocUrl: null`): ready() time, modules and RSS after it;
// - pages: the docs pages' own modules (lib/docs/pages, page-routes, assets, upgrade-guide and what only they load),
//   required after every other module of the plugin: their count, lines, time and RSS.
const { readFileSync } = require('node:fs')
const { dirname, join, relative, resolve, sep } = require('node:path')

const [mode, folder] = process.argv.slice(2)
const build = resolve(folder)
const LIBRARIES = /[\\/]node_modules[\\/](fast-check|pure-rand|api-smart-diff|allof-merge|json-crawl)[\\/]/
/** The docs pages' modules (lib/docs/routes loads them). */
const PAGES = ['pages', 'page-routes', 'assets', 'upgrade-guide'].map((name) => join(build, 'lib', 'docs', `${name}.js`))
const mib = (bytes) => bytes / 1024 / 1024
const loaded = () => Object.keys(require.cache)

function counts () {
  const modules = loaded()
  const own = modules.filter((file) => file.startsWith(build + sep))
  return {
    modules: modules.length,
    own: own.length,
    tools: own.filter((file) => file.startsWith(join(build, 'lib', 'tools') + sep)).map((file) => relative(build, file)),
    libraries: modules.filter((file) => LIBRARIES.test(file)).length
  }
}

function timed (load) {
  const start = process.hrtime.bigint()
  const value = load()
  return { value, ms: Number(process.hrtime.bigint() - start) / 1e6 }
}

/** The package's modules `file` requires (tsc writes `require("./x")`), as files. */
function requiresOf (file) {
  return [...readFileSync(file, 'utf8').matchAll(/require\("(\.{1,2}\/[^"]+)"\)/g)].map((match) => `${join(dirname(file), match[1])}.js`)
}

/** The modules reachable from `entry` by static requires, without going through `skipped`. */
function reachable (entry, skipped = new Set()) {
  const seen = new Set()
  const visit = (file) => {
    if (seen.has(file) || skipped.has(file)) return
    seen.add(file)
    for (const target of requiresOf(file)) visit(target)
  }
  visit(entry)
  return seen
}

async function ready (pages) {
  const { ms: requireMs, value: plugin } = timed(() => require(join(build, 'plugin.js')))
  const Fastify = require('fastify')
  const { Type } = require('@sinclair/typebox')
  const { fastifyVersioner, versioned, VersionBundle, HeadVersion, Version, VersionChange, schema } = plugin
  const Thing = Type.Object({ id: Type.String(), label: Type.String() }, { $id: 'Thing' })
  class RenameNameToLabel extends VersionChange {
    description = 'name became label.'
    instructionsToMigrateToPreviousVersion = [schema(Thing).field('label').had({ name: 'name' })]
  }
  const versions = new VersionBundle(new HeadVersion(), new Version('2002-01-01'), new Version('2001-01-01', RenameNameToLabel), new Version('2000-01-01'))
  const app = Fastify()
  const start = process.hrtime.bigint()
  await app.register(fastifyVersioner, pages ? { versions } : { versions, docsUrl: null, redocUrl: null })
  await app.register(versioned(async (api) => {
    for (let index = 0; index < 10; index++) api.get(`/things${index}/:id`, { schema: { response: { 200: Thing } } }, async () => ({ id: 'a', label: 'b' }))
  }))
  await app.ready()
  const readyMs = Number(process.hrtime.bigint() - start) / 1e6
  const result = { requireMs, readyMs, ...counts(), rssMib: mib(process.memoryUsage().rss) }
  await app.close()
  return result
}

function pages () {
  // The modules only the pages need: those of the main entry that it no longer reaches without them.
  const entry = join(build, 'plugin.js')
  const all = reachable(entry)
  const withoutPages = reachable(entry, new Set(PAGES))
  const pageOnly = [...all].filter((file) => !withoutPages.has(file))
  // Every other module first (but those that load the pages: the chain from the entry to them), then the pages.
  const loaders = [...withoutPages].filter((file) => [...reachable(file)].some((target) => PAGES.includes(target)))
  for (const file of withoutPages) if (!loaders.includes(file)) require(file)
  const before = new Set(loaded())
  const rss = process.memoryUsage().rss
  const { ms } = timed(() => { for (const file of PAGES) require(file) })
  const added = loaded().filter((file) => !before.has(file))
  if (added.length !== pageOnly.length) throw new Error(`the pages loaded ${added.length} modules, ${pageOnly.length} expected`)
  const lines = added.reduce((sum, file) => sum + readFileSync(file, 'utf8').split('\n').length, 0)
  return { pageModules: added.map((file) => relative(build, file)), lines, ms, rssMib: mib(process.memoryUsage().rss - rss) }
}

async function main () {
  if (mode === 'require') {
    const { ms } = timed(() => require(join(build, 'plugin.js')))
    return { ms, ...counts(), rssMib: mib(process.memoryUsage().rss) }
  }
  if (mode === 'ready-pages' || mode === 'ready-no-pages') return await ready(mode === 'ready-pages')
  if (mode === 'pages') return pages()
  throw new Error(`unknown mode ${mode}`)
}

main().then((result) => { process.stdout.write(`${JSON.stringify(result)}\n`) }, (error) => {
  process.stderr.write(`${error.stack}\n`)
  process.exitCode = 1
})
