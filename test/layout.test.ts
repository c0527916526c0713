/**
 * The layout of lib/: stage folders, lowest first, each importing only from stages below it (or itself); no
 * import cycle between files; no file over 300 lines; at most 6 files at lib/ root. The tools (lib/tools/, behind
 * the entry tools.ts) come after the plugin (lib/ root files, behind plugin.ts): they import the runtime, and nothing
 * of the runtime imports them. And how it is written: no function takes more than 5 parameters, every export is used
 * outside its own file, and at most 4 pieces of module-level state (state lives on the objects it describes; the fourth
 * is the process's cache of the files declaring version changes, decision 0236). See ARCHITECTURE.md.
 */
import { test } from 'tap'
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { exportsUsedOnlyInTheirFile, moduleState, wideFunctions } from './helpers/code-shape'

const ROOT = resolve(__dirname, '..')
const LIB = join(ROOT, 'lib')
/** Stage folders of lib/ that serve, lowest first; then lib/ root files, plugin.ts, lib/tools/ and tools.ts. */
const STAGES = ['core', 'describe', 'schemas', 'values', 'routes', 'serve', 'docs'] as const
/** The entries: plugin.ts (the plugin, `fastify-versioner`) and tools.ts (the tools, `fastify-versioner/tools`). */
const ENTRIES = ['plugin.ts', 'tools.ts']
const MAX_LINES = 300
const MAX_ROOT_FILES = 6

/**
 * The stage rank of a file (relative to the repository): its folder's place in STAGES, then lib/ root, plugin.ts,
 * lib/tools/ and last tools.ts.
 */
function stageOf (file: string): number {
  if (file === 'tools.ts') return STAGES.length + 3
  if (file === 'plugin.ts') return STAGES.length + 1
  const parts = file.split('/')
  if (parts.length === 2) return STAGES.length
  if (parts[1] === 'tools') return STAGES.length + 2
  const index = STAGES.indexOf(parts[1] as typeof STAGES[number])
  if (index === -1) throw new Error(`${file} is in no stage folder (known: ${[...STAGES, 'tools'].join(', ')})`)
  return index
}

function listTs (dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name)
    // Scratch folders (test/.tmp: copies of lib/ a test loads, mutants) are no source: they would count as users.
    if (name.startsWith('.')) return []
    if (statSync(full).isDirectory()) return listTs(full)
    return name.endsWith('.ts') ? [full] : []
  })
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g

/** The relative imports of a source text, resolved to repository paths (`lib/core/errors.ts`). */
function importsOf (file: string, text: string): string[] {
  const found: string[] = []
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2]
    if (!specifier.startsWith('.')) continue
    const base = resolve(ROOT, dirname(file), specifier.replace(/\.js$/, ''))
    const target = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate))
    if (target === undefined) throw new Error(`${file}: cannot resolve '${specifier}'`)
    found.push(relative(ROOT, target))
  }
  return found
}

/** The problems of a set of files (repository path → source text). */
function layoutProblems (files: ReadonlyMap<string, string>): string[] {
  const problems: string[] = []
  const graph = new Map<string, string[]>()
  for (const [file, text] of files) {
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
    if (file !== 'plugin.ts' && lines > MAX_LINES) problems.push(`${file} has ${lines} lines (at most ${MAX_LINES})`)
    const imports = importsOf(file, text)
    graph.set(file, imports)
    for (const target of imports) {
      if (stageOf(target) > stageOf(file)) problems.push(`${file} imports ${target}, a higher stage`)
    }
  }
  const rootFiles = [...files.keys()].filter((file) => /^lib\/[^/]+$/.test(file))
  if (rootFiles.length > MAX_ROOT_FILES) problems.push(`lib/ root holds ${rootFiles.length} files (at most ${MAX_ROOT_FILES}): ${rootFiles.join(', ')}`)
  // Cycles: depth-first, reporting each cycle once by its path.
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (file: string): void => {
    state.set(file, 'open')
    stack.push(file)
    for (const target of graph.get(file) ?? []) {
      const seen = state.get(target)
      if (seen === 'open') problems.push(`import cycle: ${[...stack.slice(stack.indexOf(target)), target].join(' → ')}`)
      else if (seen === undefined) visit(target)
    }
    stack.pop()
    state.set(file, 'done')
  }
  for (const file of graph.keys()) if (!state.has(file)) visit(file)
  return problems
}

function readLayout (): Map<string, string> {
  const files = new Map<string, string>()
  for (const full of [...listTs(LIB), ...ENTRIES.map((entry) => join(ROOT, entry))]) files.set(relative(ROOT, full), readFileSync(full, 'utf8'))
  return files
}

test('lib/ keeps its layout: stages import only lower stages, no cycles, small files, a small root', async (t) => {
  const files = readLayout()
  t.ok(files.size > 40, 'every lib/ file is read')
  t.same(layoutProblems(files), [])
})

test('the layout check catches an upward import, a cycle, a long file and a crowded root', async (t) => {
  const files = readLayout()
  const broken = new Map(files)
  broken.set('lib/core/errors.ts', `import { thing } from '../serve/version-picking'\n${files.get('lib/core/errors.ts') ?? ''}`)
  t.match(layoutProblems(broken), [/lib\/core\/errors\.ts imports lib\/serve\/version-picking\.ts, a higher stage/])

  // The runtime never imports the tools: not the plugin's entry, not the root files wiring it, not a stage.
  const toolsInRuntime = new Map(files)
  for (const file of ['plugin.ts', 'lib/versioner.ts', 'lib/docs/routes.ts']) {
    toolsInRuntime.set(file, `import { verify } from '${file === 'plugin.ts' ? './lib' : file === 'lib/versioner.ts' ? '.' : '..'}/tools/verify'\n${files.get(file) ?? ''}`)
  }
  t.same(layoutProblems(toolsInRuntime).sort(), ['lib/docs/routes.ts', 'lib/versioner.ts', 'plugin.ts'].map((file) => `${file} imports lib/tools/verify.ts, a higher stage`))
  const entryInTools = new Map(files)
  entryInTools.set('lib/tools/verify.ts', `import { thing } from '../../tools'\n${files.get('lib/tools/verify.ts') ?? ''}`)
  t.match(layoutProblems(entryInTools), [/lib\/tools\/verify\.ts imports tools\.ts, a higher stage/])

  const cyclic = new Map(files)
  cyclic.set('lib/core/iso-date.ts', `import type { X } from './json-schema'\n${files.get('lib/core/iso-date.ts') ?? ''}`)
  cyclic.set('lib/core/json-schema.ts', `import type { Y } from './iso-date'\n${files.get('lib/core/json-schema.ts') ?? ''}`)
  t.match(layoutProblems(cyclic).join('\n'), /import cycle: lib\/core\/(iso-date|json-schema)\.ts → lib\/core\/(json-schema|iso-date)\.ts/)

  const long = new Map(files)
  long.set('lib/core/iso-date.ts', 'export const x = 1\n'.repeat(301))
  t.same(layoutProblems(long), ['lib/core/iso-date.ts has 301 lines (at most 300)'])

  const crowded = new Map(files)
  for (let index = 0; crowded.size < files.size + 7; index++) crowded.set(`lib/extra-${index}.ts`, 'export {}\n')
  t.match(layoutProblems(crowded).join('\n'), /^lib\/ root holds \d+ files \(at most 6\)/m)
})

/**
 * What the repository's top level holds: the entries, lib/ and the folders the design names, and the configuration of
 * the tools that build, lint and test it. A new top-level file (a scratch probe committed by mistake) fails here until
 * it is added on purpose.
 */
const TOP_LEVEL = [
  '.ci', '.gitignore', '.npmrc', '.taprc', 'ARCHITECTURE.md', 'CHANGELOG.md', 'LICENSE', 'README.md', 'benchmarks', 'docs',
  'eslint.config.js', 'examples', 'lib', 'package-lock.json', 'package.json', 'plugin.ts', 'scripts', 'tap-snapshots', 'test',
  'tools.ts', 'tsconfig.build.json', 'tsconfig.json', 'vendor'
]

test('the top level of the repository holds only what the design names and its configuration', async (t) => {
  let tracked: string
  try {
    tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
  } catch {
    t.plan(0, 'not a git checkout: nothing tracked to read')
    return
  }
  const top = [...new Set(tracked.split('\n').filter((file) => file !== '').map((file) => file.split('/')[0]))]
  t.ok(top.includes('plugin.ts'), 'the tracked files are read')
  t.same(top.filter((name) => !TOP_LEVEL.includes(name)), [], 'no other file or folder at the top level')
})

/** Every source that may use an export of lib/: lib/, the entries, the tests, the examples and the benchmarks. */
function readUsers (): Map<string, string> {
  const files = readLayout()
  for (const dir of ['test', 'examples', 'benchmarks']) {
    for (const full of listTs(join(ROOT, dir))) files.set(relative(ROOT, full), readFileSync(full, 'utf8'))
  }
  return files
}

test('lib/ has no function over 5 parameters, no export used only in its own file, at most 4 pieces of module state', async (t) => {
  const files = readLayout()
  t.same(wideFunctions(files), [], 'pass an object instead')
  const lib = new Map([...files].filter(([file]) => !ENTRIES.includes(file)))
  t.same(exportsUsedOnlyInTheirFile(lib, readUsers()), [], 'drop the export, or the declaration')
  const state = moduleState(files)
  t.ok(state.length <= 4, `module-level state: ${state.join(', ')}`)
})

test('the code-shape checks catch a wide function, a needless export and module-level caches', async (t) => {
  const files = new Map([['lib/core/x.ts', 'export function used (a: number) { return a }\nexport function six (a, b, c, d, e, f) { return a }\n' +
    'const cache = new WeakMap()\nlet last\nconst list = new Map([[1, 2]])\n']])
  t.same(wideFunctions(files), ['lib/core/x.ts:2 six takes 6 parameters (at most 5)'])
  t.same(exportsUsedOnlyInTheirFile(files, new Map([...files, ['lib/core/y.ts', 'import { used } from \'./x\'']])), ['lib/core/x.ts exports six, used in no other file'])
  t.same(moduleState(files), ['lib/core/x.ts: cache', 'lib/core/x.ts: last'])
})

/** Folders of test/ that hold no test files of their own (types are checked by tsd, the rest are not tests). */
const NOT_TEST_FOLDERS = new Set(['types', 'fixtures', 'helpers', '.tmp'])

/**
 * The `*.test.ts` files below `testDir` that `npm test` would not run: tap runs `test/*.test.ts`
 * (.taprc), and a folder's files only through `test/<folder>.test.ts` calling `runTestFolder` on that folder
 * (test/helpers/folder-suite.ts). Files deeper than one folder are never loaded.
 */
function testFilesNotRun (testDir: string): string[] {
  const missed: string[] = []
  for (const name of readdirSync(testDir)) {
    const full = join(testDir, name)
    if (!statSync(full).isDirectory() || NOT_TEST_FOLDERS.has(name)) continue
    const runner = join(testDir, `${name}.test.ts`)
    const runs = existsSync(runner) && readFileSync(runner, 'utf8').includes(`runTestFolder(join(__dirname, '${name}'))`)
    for (const inner of readdirSync(full)) {
      const path = join(full, inner)
      const isTest = inner.endsWith('.test.ts') && statSync(path).isFile()
      if (statSync(path).isDirectory()) {
        missed.push(...listTs(path).filter((file) => file.endsWith('.test.ts')).map((file) => relative(testDir, file)))
      } else if (isTest && !runs) {
        missed.push(relative(testDir, path))
      }
    }
  }
  return missed.sort()
}

test('every test file runs in npm test: at test/, or in a folder that test/<folder>.test.ts runs', async (t) => {
  t.same(testFilesNotRun(join(ROOT, 'test')), [], 'add test/<folder>.test.ts calling runTestFolder, or move the file')
  const folders = readdirSync(join(ROOT, 'test')).filter((name) => !NOT_TEST_FOLDERS.has(name) && statSync(join(ROOT, 'test', name)).isDirectory())
  t.ok(folders.length >= 5, `the test folders: ${folders.join(', ')}`)
})

test('the test-file check catches a folder without a runner and a file one folder too deep', async (t) => {
  const dir = t.testdir({
    run: { 'a.test.ts': '', deeper: { 'b.test.ts': '' } },
    'run.test.ts': "runTestFolder(join(__dirname, 'run'))",
    orphan: { 'c.test.ts': '', 'helper.ts': '' },
    helpers: { 'd.test.ts': '' }
  })
  t.same(testFilesNotRun(dir), ['orphan/c.test.ts', 'run/deeper/b.test.ts'])
})

/** The files of `lib/` that ARCHITECTURE.md's "Every file" section does not name under their stage (`| \`file.ts\` |`). */
function unnamedFiles (architecture: string, files: readonly string[]): string[] {
  const start = architecture.indexOf('\n## Every file')
  const end = architecture.indexOf('\n## ', start + 1)
  const section = start === -1 ? '' : architecture.slice(start, end === -1 ? undefined : end)
  const stages = new Map<string, string>()
  for (const part of section.split(/\n\*\*`/).slice(1)) stages.set(part.slice(0, part.indexOf('`')), part)
  return files.filter((file) => {
    const parts = relative(LIB, file).split(/[\\/]/)
    const stage = parts.length === 1 ? 'lib/' : `${parts[0]}/`
    return !(stages.get(stage) ?? '').includes(`| \`${parts[parts.length - 1]}\` |`)
  }).map((file) => relative(ROOT, file))
}

test('ARCHITECTURE.md names every file of lib/ with its one job, under its stage', async (t) => {
  t.same(unnamedFiles(readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8'), listTs(LIB)), [], 'add a row to the stage\'s table in "Every file"')
  const sample = '\n## Every file\n\n**`core/`**\n\n| file | its one job |\n| --- | --- |\n| `errors.ts` | the errors |\n\n## Next\n'
  t.same(unnamedFiles(sample, [join(LIB, 'core', 'errors.ts'), join(LIB, 'core', 'warnings.ts'), join(LIB, 'docs', 'errors.ts')]),
    ['lib/core/warnings.ts', 'lib/docs/errors.ts'], 'a file missing, or named under another stage, is caught')
})
