// Runs the repository's TypeScript under tap: `node --import=./scripts/typescript-loader.mjs file.ts` (see .taprc).
//
// Each .ts file is transpiled with TypeScript's transpileModule (no type check: `npm run typecheck` does that)
// with tsconfig.json's options, as CommonJS (the package's "type"), with an inline source map holding the
// source, so that stack traces and coverage point at the .ts lines. The output is cached on disk, in
// .tap/typescript-cache/, keyed by the file's name and text, tsconfig.json's text, TypeScript's version and this
// file's own text: a test process whose files are all cached never loads TypeScript. (tap's default loader,
// ts-node, transpiled every file again in every test process: about half the CPU time of the suite.) The name
// without its folder: the output holds only the name (the source map's `file` and `sources`, the output sitting
// next to its source), so copies of a file in other folders share one entry, as the mutation score's 88 copies of
// an example app do (all but the edited files alike: transpiled once, not once a copy, on a fresh clone).
//
// Only .ts files are handled: `require` of a .ts file compiles it; an ESM `import` of a .ts file (the test
// file itself, as Node's entry point under `--import`) is handed to the CommonJS loader. From Node.js 22.15 on, in-thread
// hooks hand it over: on Node.js 24, tap's mock hooks otherwise handed a .ts file to Node's own type stripping, which
// read its `import` lines as an ES module and failed every test file (ERR_REQUIRE_CYCLE_MODULE).
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import Module, { createRequire, register } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const tsconfigPath = join(root, 'tsconfig.json')
const cacheDir = join(root, '.tap', 'typescript-cache')
const keyPrefix = [
  readFileSync(fileURLToPath(import.meta.url), 'utf8'),
  readFileSync(tsconfigPath, 'utf8'),
  JSON.parse(readFileSync(require.resolve('typescript/package.json'), 'utf8')).version
].join('\0')

let typescript
let compilerOptions

/** TypeScript and tsconfig.json's options, loaded on the first cache miss only. */
function compiler () {
  if (typescript === undefined) {
    typescript = require('typescript')
    const config = typescript.readConfigFile(tsconfigPath, typescript.sys.readFile)
    if (config.error !== undefined) throw new Error(typescript.flattenDiagnosticMessageText(config.error.messageText, '\n'))
    const { options } = typescript.parseJsonConfigFileContent(config.config, typescript.sys, root, undefined, tsconfigPath)
    // The output sits next to its source (no outDir, rootDir): the source map's `sources` then name the .ts file.
    for (const name of ['outDir', 'rootDir', 'sourceRoot', 'mapRoot', 'declaration', 'declarationMap', 'sourceMap', 'noEmit', 'composite', 'incremental', 'tsBuildInfoFile']) {
      delete options[name]
    }
    compilerOptions = { ...options, inlineSourceMap: true, inlineSources: true }
  }
  return typescript
}

/** The JavaScript of one .ts file, from the cache or transpiled (then cached: written aside, renamed into place). */
function transpile (source, filename) {
  const key = createHash('sha256').update(keyPrefix).update('\0').update(basename(filename)).update('\0').update(source).digest('hex')
  const cached = join(cacheDir, `${key}.js`)
  try {
    return readFileSync(cached, 'utf8')
  } catch {}
  const ts = compiler()
  const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename, reportDiagnostics: false })
  try {
    mkdirSync(cacheDir, { recursive: true })
    const temporary = `${cached}.${process.pid}.tmp`
    writeFileSync(temporary, outputText)
    renameSync(temporary, cached)
  } catch {}
  return outputText
}

Module._extensions['.ts'] = function loadTypeScript (module, filename) {
  module._compile(transpile(readFileSync(filename, 'utf8'), filename), filename, 'commonjs')
}

if (typeof Module.registerHooks === 'function') {
  // Node 22.15 and later: in-thread hooks, which other tools' hooks (tap's mocks) and Node's own TypeScript support
  // (type stripping, which reads a .ts file with `import` lines as an ES module) see; the last registered runs first.
  // A .ts file goes to the CommonJS loader, which reads it and compiles it above (with a source given here, Node 22
  // compiled it with a `require` that has no `cache`).
  Module.registerHooks({
    load (url, context, nextLoad) {
      if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context)
      return { format: 'commonjs', shortCircuit: true }
    }
  })
} else {
  register('./typescript-hooks.mjs', import.meta.url)
}

// `tsx`, where it resolves (lib/tools/load-app.ts registers it to import an app's TypeScript module, as the CLI does
// when the tests run it in process), is a module that registers nothing: this loader already compiles .ts for import
// and require. tsx registered beside it loaded the app's modules again, and with them lib/'s, under the same file
// names with other code; V8's coverage of the two, merged by file name, counted lines of each as unrun (a test
// process that ran the CLI in process brought upgrade-preview.ts to 49 % of its lines). The tests that run the
// command as users do (a child process, `node --import tsx`) still go through tsx.
const resolveFilename = Module._resolveFilename
const noSecondLoader = join(root, 'scripts', 'no-second-loader.mjs')
Module._resolveFilename = function resolveTsxToNothing (request, ...rest) {
  const resolved = resolveFilename.call(this, request, ...rest)
  return request === 'tsx' ? noSecondLoader : resolved
}
