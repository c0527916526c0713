'use strict'

// Gives the CommonJS entry the shape of Fastify's own plugins, so that `app.register(require('fastify-versioner'))`
// works and type-checks (JavaScript with checkJs, TypeScript with require):
// - dist/plugin.js: `module.exports` is the plugin itself, carrying every named export (and `default`);
// - dist/plugin.d.ts: `export = fastifyVersioner`, a function merged with a namespace that re-exports every
//   name of the API (tsc's declarations, moved to dist/plugin-api.d.ts).
// Runs after esm-types.js: the ESM declarations (dist/esm) keep tsc's shape.
const { renameSync, rmSync, writeFileSync, appendFileSync } = require('node:fs')
const { join, relative, sep } = require('node:path')
const ts = require('typescript')

const dist = join(__dirname, '..', 'dist')

// Node reads the named exports of a CommonJS module for `import { x }` with cjs-module-lexer, which stops at a
// reassigned module.exports: the names are listed again in the annotation esbuild writes for it.
const valueNames = Object.keys(require(join(dist, 'plugin.js'))).filter((name) => name !== 'default')
appendFileSync(join(dist, 'plugin.js'), '\n// The CommonJS export is the plugin itself, carrying every named export (as Fastify\'s plugins do).\n' +
  'module.exports = Object.defineProperties(exports.fastifyVersioner, Object.getOwnPropertyDescriptors(exports));\n' +
  `0 && (module.exports = { ${valueNames.join(', ')} });\n`)

const apiFile = join(dist, 'plugin-api.d.ts')
// esm-types.js copied an earlier build's plugin-api.d.ts, if any: the ESM entry is esm/plugin.d.ts alone.
rmSync(join(dist, 'esm', 'plugin-api.d.ts'), { force: true })
renameSync(join(dist, 'plugin.d.ts'), apiFile)
const program = ts.createProgram([apiFile], { noEmit: true, skipLibCheck: true, module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 })
const checker = program.getTypeChecker()
const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(apiFile))
// Each name is aliased from the module that declares it (an alias of a name that plugin.ts re-exports with
// `export type` would be refused).
const modules = new Map()
const aliases = []
for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
  if (symbol.name === 'default' || symbol.name === 'fastifyVersioner') continue
  const target = (symbol.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(symbol) : symbol
  const file = target.declarations?.[0]?.getSourceFile().fileName
  if (file === undefined || !file.startsWith(dist)) throw new Error(`cannot find where ${symbol.name} is declared`)
  const specifier = `./${relative(dist, file).split(sep).join('/').replace(/\.d\.ts$/, '')}`
  if (!modules.has(specifier)) modules.set(specifier, `m${modules.size}`)
  aliases.push(`  export import ${symbol.name} = ${modules.get(specifier)}.${target.name};`)
}
if (aliases.length < 20) throw new Error(`dist/plugin-api.d.ts exports only ${aliases.length} names`)

writeFileSync(join(dist, 'plugin.d.ts'), [
  '// The CommonJS shape of the entry (see scripts/cjs-entry.js); the API itself is in plugin-api.d.ts.',
  "import * as api from './plugin-api';",
  ...[...modules].map(([specifier, id]) => `import * as ${id} from '${specifier}';`),
  'declare function fastifyVersioner(...args: Parameters<typeof api.fastifyVersioner>): ReturnType<typeof api.fastifyVersioner>;',
  'declare namespace fastifyVersioner {',
  '  export const fastifyVersioner: typeof api.fastifyVersioner;',
  '  export { fastifyVersioner as default };',
  ...aliases.sort(),
  '}',
  'export = fastifyVersioner;',
  ''
].join('\n'))
