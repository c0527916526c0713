/**
 * Docs are code: every fenced block of README.md, ARCHITECTURE.md, CHANGELOG.md and docs/**.md is checked, and every relative link leads somewhere.
 *
 * - `ts` / `typescript` and `js` blocks are written to test/.tmp/docs-blocks, one module each, with the imports and
 *   preludes they need (test/helpers/docs-preludes.ts), and type-checked together: one TypeScript program, with the
 *   project's compiler options (JavaScript with checkJs), against the package's sources (`'fastify-versioner'` is
 *   rewritten to plugin.ts, `'fastify-versioner/tools'` to tools.ts: the entries of package.json's `exports`), by
 *   test/helpers/docs-program.ts, which also checks the JSDoc examples (test/jsdoc-examples.test.ts).
 * - Blocks marked `<!-- check: run -->` (TypeScript or JavaScript) are then executed with tsx and must exit 0 (they
 *   assert what they show).
 * - `sh` blocks are parsed by bash (`bash -n`); each `fastify-versioner` command must be a real command with its real
 *   flags, each `npm run` a script of package.json. `yaml` blocks parse, and their `run:` commands are checked as
 *   `sh`. `json` blocks parse. `text` blocks are not checked. A block without a language fails.
 * - `<!-- check: skip (reason) -->` leaves a block out; the reason is required.
 */
import { test, type Test } from 'tap'
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import ts from 'typescript'
import { parseDocument, isMap, isPair, isScalar, isSeq, type Node as YamlNode } from 'yaml'
import { USAGE } from '../lib/tools/cli'
import {
  codeBlocks, headingAnchors, markdownFiles, readText, relativeLinks, type CodeBlock
} from './helpers/markdown-blocks'
import { MODULE_STUBS, PRELUDES } from './helpers/docs-preludes'
import { compilerOptions, diagnose, entriesProgram, publicExports, where, writeBlock } from './helpers/docs-program'

const root = resolve(__dirname, '..')
const tmp = join(root, 'test', '.tmp', 'docs-blocks')
const tsx = join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')
const LANGUAGES = new Set(['ts', 'typescript', 'js', 'sh', 'yaml', 'json', 'text'])
const COMPILED = new Set(['ts', 'typescript', 'js'])

const files = markdownFiles(root)
const texts = new Map(files.map((file) => [file, readText(join(root, file))]))
const blocks = files.flatMap((file) => codeBlocks(file, texts.get(file) as string))

/** A block the test writes itself, which must fail to compile: proves that failures are reported, at the right line. */
const BROKEN: CodeBlock = {
  file: 'self-test.md',
  line: 10,
  lang: 'ts',
  code: 'const count: number = 1\nconst name: string = count // this line must be reported as self-test.md:11\nconsole.log(Type.String(), name)',
  directive: { run: false, skip: undefined, preludes: [] },
  directiveError: undefined
}

test('every block names a known language, and every check comment is well formed', async (t) => {
  t.ok(blocks.length > 20, `${blocks.length} blocks in ${files.length} files`)
  for (const block of blocks) {
    if (!LANGUAGES.has(block.lang)) t.fail(`${where(block)}: the block's language '${block.lang}' is not one of ${[...LANGUAGES].join(', ')}`)
    if (block.directiveError !== undefined) t.fail(`${where(block)}: ${block.directiveError}`)
    if (block.directive.run && !COMPILED.has(block.lang)) t.fail(`${where(block)}: only TypeScript and JavaScript blocks run`)
    for (const name of block.directive.preludes) {
      if (!Object.hasOwn(PRELUDES, name)) t.fail(`${where(block)}: no prelude named '${name}' (there are ${Object.keys(PRELUDES).join(', ')})`)
      if (!COMPILED.has(block.lang)) t.fail(`${where(block)}: preludes apply to TypeScript and JavaScript blocks`)
    }
  }
  const skipped = blocks.filter((block) => block.directive.skip !== undefined)
  t.comment(`skipped: ${skipped.map((block) => `${where(block)} (${block.directive.skip as string})`).join('; ') || 'none'}`)
})

function run (file: string, args: string[], cwd = root): Promise<{ code: number, output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', _TAPJS_PROCESSINFO_COVERAGE_: '0' }
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, output: `${stdout}${stderr}` })
    })
  })
}

test('TypeScript and JavaScript blocks compile, in one program, and blocks marked run exit 0', async (t) => {
  rmSync(tmp, { recursive: true, force: true })
  mkdirSync(tmp, { recursive: true })
  // The blocks are ES modules (top-level await), for tsc and for tsx.
  writeFileSync(join(tmp, 'package.json'), '{ "type": "module" }\n')
  const stubs = join(tmp, 'modules.d.ts')
  writeFileSync(stubs, MODULE_STUBS)
  const entries = entriesProgram()
  const exported = publicExports(entries)
  const checked = blocks.filter((block) => COMPILED.has(block.lang) && block.directive.skip === undefined)
  const written = [...checked, BROKEN].map((block) => writeBlock(block, exported, tmp))
  // The runnable blocks run in child processes while this one compiles.
  const runnable = written.filter((item) => item.block.directive.run)
  const running = Promise.all(runnable.map((item) => run(process.execPath, ['--import', tsx, item.path])))
  const started = Date.now()
  const program = ts.createProgram([stubs, ...written.map((item) => item.path)], compilerOptions(), undefined, entries)
  const messages = diagnose(program, written)
  t.comment(`${checked.length} blocks type-checked in one program in ${((Date.now() - started) / 1000).toFixed(1)} s`)

  const selfTest = messages.filter((message) => message.startsWith(`${BROKEN.file}:`))
  t.match(selfTest, [/^self-test\.md:11: TS2322 /], 'a block that does not compile is reported, at its Markdown line')
  t.equal(selfTest.length, 1, 'and nothing else of it is')
  t.same(messages.filter((message) => !message.startsWith(`${BROKEN.file}:`)), [], 'every block compiles')

  t.ok(runnable.length > 0, `${runnable.length} runnable block(s)`)
  const results = await running
  runnable.forEach((item, index) => {
    t.equal(results[index].code, 0, `${where(item.block)} runs and exits 0`, { output: results[index].output })
  })
})

/** The commands of the CLI and their flags, read from its usage text: `{ export: { required: ['out'], optional: [] } }`. */
function cliCommands (): Map<string, { required: string[], optional: string[] }> {
  const commands = new Map<string, { required: string[], optional: string[] }>()
  for (const match of USAGE.matchAll(/^ {2}fastify-versioner (\w+) <app>(.*?)(?: {2,}|$)/gm)) {
    const flags = match[2]
    const optional = [...flags.matchAll(/\[--([\w-]+)[^\]]*\]/g)].map((found) => found[1])
    const required = [...flags.replace(/\[[^\]]*\]/g, '').matchAll(/--([\w-]+)/g)].map((found) => found[1])
    // A command on several lines (check --against, check --types) takes the flags of each: one of them at least.
    const known = commands.get(match[1])
    commands.set(match[1], known === undefined
      ? { required, optional }
      : { required: [], optional: [...new Set([...known.required, ...known.optional, ...required, ...optional])] })
  }
  return commands
}

const CLI = cliCommands()
/** The flags the usage text shows without a value (`[--handlers]`): switches, which take none. */
const SWITCHES = new Set([...USAGE.matchAll(/\[--([\w-]+)\]/g)].map((found) => found[1]))
const SCRIPTS = (JSON.parse(readText(join(root, 'package.json'))) as { scripts: Record<string, string> }).scripts

/** Splits a shell command line into words (quotes kept together, without the quotes). */
function words (line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3])
}

/** The commands of an `sh` block: `$ `-prefixed lines of a transcript, else every line (continuations joined, comments dropped). */
function shellCommands (code: string): string[] {
  const lines = code.split('\n')
  const transcript = lines.some((line) => line.startsWith('$ '))
  const chosen = transcript ? lines.filter((line) => line.startsWith('$ ')).map((line) => line.slice(2)) : lines
  return chosen.join('\n').replace(/\\\n/g, ' ').split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter((line) => line !== '')
}

/** What is wrong with one simple command (`npx fastify-versioner …`, `npm run …`), if anything. */
function commandProblem (command: string): string | undefined {
  const argv = words(command).filter((word, index, all) => !/^\w+=/.test(word) || all.slice(0, index).some((before) => !/^\w+=/.test(before)))
  if (argv[0] === 'npx') argv.shift()
  if (argv[0] === 'npm' && argv[1] === 'run' && argv[2] !== undefined && !Object.hasOwn(SCRIPTS, argv[2])) return `no npm script '${argv[2]}'`
  if (argv[0] === 'npm' && argv[1] === 'test' && !Object.hasOwn(SCRIPTS, 'test')) return 'no npm test script'
  if (argv[0] !== 'fastify-versioner') return undefined
  const [, name, ...rest] = argv
  if (name === '--help' || name === '-h') return undefined
  const spec = name === undefined ? undefined : CLI.get(name)
  if (spec === undefined) return `'${name ?? ''}' is not a fastify-versioner command (${[...CLI.keys()].join(', ')})`
  const positionals: string[] = []
  const given: string[] = []
  for (let i = 0; i < rest.length; i++) {
    if (!rest[i].startsWith('--')) {
      positionals.push(rest[i])
      continue
    }
    const flag = rest[i].slice(2)
    if (!spec.required.includes(flag) && !spec.optional.includes(flag)) return `--${flag} is not a flag of ${name}`
    if (SWITCHES.has(flag)) continue
    const value = rest[++i]
    if (value === undefined || value.startsWith('--')) return `--${flag} needs a value`
    if ((flag === 'examples' || flag === 'seed') && !/^\d+$/.test(value)) return `--${flag} takes a whole number, not '${value}'`
    given.push(flag)
  }
  if (positionals.length !== 1) return `${name} takes one application module, got ${positionals.length}`
  const missing = spec.required.filter((flag) => !given.includes(flag))
  if (missing.length > 0) return `${name} needs --${missing.join(', --')}`
  return undefined
}

async function checkShell (t: Test, at: string, commands: readonly string[]): Promise<void> {
  const script = join(tmp, 'shell-check.sh')
  mkdirSync(tmp, { recursive: true })
  writeFileSync(script, `${commands.join('\n')}\n`)
  const parsed = await run('bash', ['-n', script])
  t.equal(parsed.code, 0, `${at}: bash parses it`, { output: parsed.output })
  for (const command of commands) {
    for (const simple of command.split(/&&|\|\||;|\|/)) {
      const problem = commandProblem(simple.trim())
      if (problem !== undefined) t.fail(`${at}: ${simple.trim()}: ${problem}`)
    }
  }
}

/** Every `run:` value of a YAML tree (a CI step's commands). */
function yamlRuns (node: YamlNode | null | undefined, found: string[] = []): string[] {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (isPair(pair) && isScalar(pair.key) && pair.key.value === 'run' && isScalar(pair.value)) found.push(String(pair.value.value))
      else if (isPair(pair)) yamlRuns(pair.value as YamlNode, found)
    }
  } else if (isSeq(node)) {
    for (const item of node.items) yamlRuns(item as YamlNode, found)
  }
  return found
}

test('sh blocks parse and name real commands; yaml and json blocks parse', async (t) => {
  t.ok(CLI.size === 8 && CLI.get('export')?.required[0] === 'out', 'the CLI usage text is read: export, check, types, verify, retire, replay, mutate, fingerprint')
  t.same(CLI.get('replay'), { required: ['traffic'], optional: ['handlers', 'api'] }, 'replay takes --traffic, and --handlers')
  t.same([...SWITCHES], ['handlers'], '--handlers takes no value')
  t.same(CLI.get('mutate'), { required: [], optional: ['traffic', 'min-score', 'examples', 'seed', 'api'] }, 'mutate takes optional flags')
  t.same(CLI.get('fingerprint'), { required: [], optional: ['against', 'api'] }, 'fingerprint takes --against and --api, both optional')
  t.same(CLI.get('retire'), { required: ['version'], optional: ['usage', 'quiet-days', 'examples', 'seed', 'api'] }, 'retire takes --version, and optional flags')
  t.same(CLI.get('check'), { required: [], optional: ['against', 'api', 'channel', 'types'] }, 'check takes --against and/or --types (and --api, --channel)')
  t.equal(commandProblem('npx fastify-versioner check app.js --out x'), '--out is not a flag of check', 'a wrong flag is caught')
  t.equal(commandProblem('npx fastify-versioner lint app.js'), "'lint' is not a fastify-versioner command (export, check, types, verify, retire, replay, mutate, fingerprint)")
  for (const block of blocks.filter((item) => item.directive.skip === undefined)) {
    if (block.lang === 'sh') await checkShell(t, where(block), shellCommands(block.code))
    if (block.lang === 'json') {
      t.doesNotThrow(() => JSON.parse(block.code), `${where(block)}: JSON parses`)
    }
    if (block.lang === 'yaml') {
      const document = parseDocument(block.code)
      t.same(document.errors.map((error) => error.message), [], `${where(block)}: YAML parses`)
      const runs = yamlRuns(document.contents)
      if (runs.length > 0) await checkShell(t, where(block), runs.flatMap(shellCommands))
    }
  }
})

test('relative links lead to files that exist, and anchors to headings', async (t) => {
  let count = 0
  for (const file of files) {
    for (const link of relativeLinks(file, texts.get(file) as string)) {
      count++
      const [path, anchor] = link.target.split('#') as [string, string | undefined]
      const target = path === '' ? join(root, file) : resolve(root, dirname(file), decodeURI(path))
      if (!existsSync(target)) {
        t.fail(`${where(link)}: ${link.target}: no such file`)
        continue
      }
      if (anchor === undefined || anchor === '' || !statSync(target).isFile() || !target.endsWith('.md')) continue
      if (!headingAnchors(readText(target)).has(anchor)) t.fail(`${where(link)}: ${link.target}: no heading with that anchor`)
    }
  }
  t.ok(count > 10, `${count} relative links checked`)
})

test('docs/README.md indexes every page of docs/, and docs/decisions/README.md every decision record', async (t) => {
  const linkedFrom = (index: string): Set<string> => new Set(relativeLinks(index, texts.get(index) as string)
    .map((link) => resolve(root, dirname(index), decodeURI(link.target.split('#')[0]))))
  const pages = files.filter((file) => dirname(file) === 'docs' && file !== join('docs', 'README.md'))
  const records = files.filter((file) => dirname(file) === join('docs', 'decisions') && file !== join('docs', 'decisions', 'README.md'))
  t.ok(pages.length > 5 && records.length > 50, `${pages.length} pages, ${records.length} records`)
  const indexed = linkedFrom(join('docs', 'README.md'))
  for (const page of pages) t.ok(indexed.has(resolve(root, page)), `docs/README.md links ${page}`)
  const recorded = linkedFrom(join('docs', 'decisions', 'README.md'))
  for (const record of records) t.ok(recorded.has(resolve(root, record)), `docs/decisions/README.md links ${record}`)
})

/** The rows of the Markdown table that follows a heading, as cells (the header and separator rows left out). */
function tableAfter (text: string, heading: string): string[][] {
  const lines = text.split('\n')
  const start = lines.findIndex((line) => line === heading)
  const rows: string[][] = []
  let inTable = false
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('## ')) break
    if (line.startsWith('|')) {
      inTable = true
      rows.push(line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim()))
    } else if (inTable) break
  }
  return rows.slice(2)
}

test('docs/errors.md lists every error of errorCodes, in order, and every warning, as the README does', async (t) => {
  const page = texts.get(join('docs', 'errors.md')) as string
  const codes = [...readText(join(root, 'lib', 'core', 'errors.ts')).matchAll(/^ {2}(FST_VERSIONER_\w+): \w+,?$/gm)].map((match) => match[1])
  const warnings = [...readText(join(root, 'lib', 'core', 'warnings.ts')).matchAll(/code: '(FSTVRS\w+)'/g)].map((match) => match[1])
  t.ok(codes.length > 20 && warnings.length > 5, `${codes.length} codes in errorCodes, ${warnings.length} warnings`)
  const first = (heading: string): string[] => tableAfter(page, heading).map((cells) => cells[0].replace(/`/g, ''))
  t.same(first('## Errors'), codes, "docs/errors.md's errors table: one row per error, in errorCodes order")
  t.same(first('## Warnings'), warnings, "docs/errors.md's warnings table: one row per warning, in warnings.ts order")
  for (const row of tableAfter(page, '## Errors')) t.equal(row.length, 3, `${row[0]}: code | when | how to fix`)
})

/** The members of an interface of a source file. */
function interfaceMembers (file: string, name: string): string[] {
  const source = ts.createSourceFile(file, readText(join(root, file)), ts.ScriptTarget.Latest)
  const found = source.statements.find((statement): statement is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(statement) && statement.name.text === name)
  return (found?.members ?? []).flatMap((member) => member.name !== undefined && ts.isIdentifier(member.name) ? [member.name.text] : [])
}

test("the README's errors table lists every error of errorCodes, with its class; its options table every option", async (t) => {
  const readme = texts.get('README.md') as string
  const errors = ['errors.ts', 'request-errors.ts'].map((file) => readText(join(root, 'lib', 'core', file))).join('\n')
  const classes = new Map([...errors.matchAll(/export const (\w+) =\s*createError<'(FST_VERSIONER_\w+)'/g)].map((match) => [match[2], match[1]]))
  const listed = [...errors.matchAll(/^ {2}(FST_VERSIONER_\w+): (\w+),?$/gm)].map((match) => [match[1], match[2]])
  t.ok(listed.length > 20, `${listed.length} codes in errorCodes`)
  const rows = tableAfter(readme, '## Errors').map((cells) => [cells[0].replace(/`/g, ''), cells[1].replace(/`/g, '')])
  t.same(rows, listed.map(([code, cls]) => {
    t.equal(classes.get(code), cls, `${code}: errorCodes holds the class built with that code`)
    return [code, cls]
  }), 'one row per error, in errorCodes order: code | class')
  for (const row of tableAfter(readme, '## Errors')) t.equal(row.length, 4, `${row[0]}: code | class | when | how to fix`)
  for (const code of readText(join(root, 'lib', 'core', 'warnings.ts')).matchAll(/code: '(FSTVRS\w+)'/g)) {
    t.match(readme, `\`${code[1]}\``, `warning ${code[1]} is listed`)
  }

  const options = [...interfaceMembers('lib/options.ts', 'FastifyVersionerOptions'), ...interfaceMembers('lib/docs/options.ts', 'DocsOptions')]
  t.ok(options.length > 20, `${options.length} options`)
  const documented = tableAfter(readme, '## Options').flatMap((cells) => [...cells[0].matchAll(/`(\w+)`/g)].map((match) => match[1]))
  t.same([...documented].sort(), [...options].sort(), 'the options table names every option of FastifyVersionerOptions and DocsOptions, once')
})
