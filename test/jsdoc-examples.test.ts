/**
 * JSDoc with an example on every export: every name the package's public entries export (package.json's `exports`,
 * read by the compiler, `export *` followed) has an `@example` in its JSDoc, and every example compiles against the
 * entries the way the docs' blocks do (test/helpers/docs-program.ts): one module each, with the automatic imports
 * (the package's names, TypeBox's `Type` / `Static`, Fastify's), and the preludes a `<!-- check: prelude=name -->`
 * comment before its fence asks for; all in one program. And every example is whole where an editor shows it: in the
 * `@example` tag as TypeScript reads it (a decorator line written `@ Name(…)`).
 */
import { test } from 'tap'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { MODULE_STUBS } from './helpers/docs-preludes'
import { compilerOptions, diagnose, entriesProgram, jsdocExamples, publicExports, where, writeBlock } from './helpers/docs-program'
import type { CodeBlock } from './helpers/markdown-blocks'

const root = resolve(__dirname, '..')
const tmp = join(root, 'test', '.tmp', 'jsdoc-examples')

const entries = entriesProgram()
const exported = publicExports(entries)

/**
 * Exports without an example yet (or with one that is no ```ts block). This list only shrinks: a name given its example
 * must leave it (the test says so), and a new export is never added to it.
 */
const WITHOUT_EXAMPLE = new Set<string>([
  'VersionedScope'
])

/** Where a declaration is: `file:line`. */
function declaredAt (declaration: ts.Declaration): string {
  const source = declaration.getSourceFile()
  return where({ file: relative(root, source.fileName), line: source.getLineAndCharacterOfPosition(declaration.getStart()).line + 1 })
}

test('every export of the public entries has an @example in its JSDoc, a ```ts block', async (t) => {
  t.ok(exported.length > 150, `${exported.length} exports of ${[...new Set(exported.map((item) => item.from))].join(', ')}`)
  t.ok(exported.some((item) => item.name === 'errorCodes' && item.from === 'fastify-versioner'), '`export *` is followed')
  const missing = exported.filter((item) => !item.declarations.some((declaration) => jsdocExamples(declaration).length > 0))
  t.same(missing.filter((item) => !WITHOUT_EXAMPLE.has(item.name)).map((item) => `${item.from}: ${item.name} (${item.declarations.map(declaredAt).join(', ')})`),
    [], 'add an @example with a ```ts block: how a user meets the name')
  const names = new Set(missing.map((item) => item.name))
  t.same([...WITHOUT_EXAMPLE].filter((name) => !names.has(name)), [], 'has its example now: take it off WITHOUT_EXAMPLE')
  t.comment(`${WITHOUT_EXAMPLE.size} exports still without an example`)
})

/** The examples of the exports, each once (a name exported twice, or under two names, has one declaration), with the names they document. */
function examples (): Map<string, { block: CodeBlock, names: Set<string> }> {
  const found = new Map<string, { block: CodeBlock, names: Set<string> }>()
  for (const item of exported) {
    for (const block of item.declarations.flatMap((declaration) => jsdocExamples(declaration))) {
      const known = found.get(where(block)) ?? { block, names: new Set<string>() }
      known.names.add(item.name)
      found.set(where(block), known)
    }
  }
  return found
}

/** A declaration the test writes itself, whose example must fail to compile at its own line of the source file. */
const BROKEN = ts.createSourceFile(join(root, 'lib', 'self-test.ts'), [
  '/**',
  ' * A count.',
  ' * @example',
  ' * ```ts',
  ' * const count: number = 1',
  ' * const name: string = count // this line must be reported as lib/self-test.ts:6',
  ' * ```',
  ' */',
  'export const count = 1'
].join('\n'), ts.ScriptTarget.Latest, true)

test('every @example compiles against the public entries, in one program', async (t) => {
  rmSync(tmp, { recursive: true, force: true })
  mkdirSync(tmp, { recursive: true })
  writeFileSync(join(tmp, 'package.json'), '{ "type": "module" }\n')
  const stubs = join(tmp, 'modules.d.ts')
  writeFileSync(stubs, MODULE_STUBS)
  const found = [...examples().values()]
  for (const { block } of found) {
    if (block.lang !== 'ts') t.fail(`${where(block)}: an example is a \`\`\`ts block, not '${block.lang}'`)
    if (block.directiveError !== undefined) t.fail(`${where(block)}: ${block.directiveError}`)
    if (block.directive.run) t.fail(`${where(block)}: examples are type-checked, not run`)
  }
  const broken = jsdocExamples((BROKEN.statements[0] as ts.VariableStatement).declarationList.declarations[0])
  t.match(broken, [{ file: 'lib/self-test.ts', line: 5, lang: 'ts' }], 'an example is read at its line of the source file')
  const checked = found.filter(({ block }) => block.lang === 'ts' && block.directive.skip === undefined)
  const written = [...checked.map(({ block }) => block), ...broken].map((block) => writeBlock(block, exported, tmp))
  const started = Date.now()
  const program = ts.createProgram([stubs, ...written.map((item) => item.path)], compilerOptions(), undefined, entries)
  const messages = written.map((item) => diagnose(program, [item]).filter((message) => !message.startsWith('compiler: ')))
  t.comment(`${checked.length} examples type-checked in one program in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  t.same(diagnose(program, []), [], 'the compiler options are sound')
  const selfTest = messages[messages.length - 1]
  t.match(selfTest, [/^lib\/self-test\.ts:6: TS2322 /], 'an example that does not compile is reported, at its line of the source file')
  t.equal(selfTest.length, 1, 'and nothing else of it is')
  t.same(messages.slice(0, -1).flat(), [], 'every example compiles: it declares or imports what it uses')
})

/**
 * The lines of a declaration's examples that an editor's hover leaves out: TypeScript ends a JSDoc tag at a line whose
 * first character is `@` not followed by a space (a decorator such as `@ConvertRequestToNextVersionFor(…)`), so what
 * follows shows as another tag. Examples write a decorator indented in its class and with a space after the `@`
 * (`  @ ConvertRequestToNextVersionFor(…)`), which TypeScript's parser keeps in the tag and its compiler accepts.
 */
function cutInHovers (declaration: ts.Declaration): string[] {
  const shown = new Set(ts.getJSDocTags(declaration).filter((tag) => tag.tagName.text === 'example')
    .flatMap((tag) => (ts.getTextOfJSDocComment(tag.comment) ?? '').split('\n').map((line) => line.trim())))
  return jsdocExamples(declaration).flatMap((block) => block.code.split('\n').flatMap((line, index) =>
    line.trim() === '' || shown.has(line.trim()) ? [] : [`${where({ file: block.file, line: block.line + index })}: ${line.trim()}`]))
}

test('every @example is whole in editors\' hovers (as TypeScript reads the tag)', async (t) => {
  const cut = [...new Set(exported.flatMap((item) => item.declarations.flatMap(cutInHovers)))]
  t.same(cut, [], 'a decorator line in an example is indented, with a space after its @')
  const declarationOf = (lines: string[]): ts.Declaration => (ts.createSourceFile(join(root, 'lib', 'self-test.ts'),
    ['/**', ' * @example', ' * ```ts', ...lines.map((line) => ` * ${line}`), ' * ```', ' */', 'export class C {}'].join('\n'),
    ts.ScriptTarget.Latest, true).statements[0] as ts.ClassDeclaration)
  const change = (decorator: string): string[] => ['class C extends VersionChange {', `${decorator}(User)`, '  up (request: RequestInfo) {}', '}']
  t.same(cutInHovers(declarationOf(change('  @ ConvertRequestToNextVersionFor'))), [], 'an indented `@ Decorator` line is kept')
  t.same(cutInHovers(declarationOf(change('  @ConvertRequestToNextVersionFor'))),
    ['lib/self-test.ts:5: @ConvertRequestToNextVersionFor(User)', 'lib/self-test.ts:6: up (request: RequestInfo) {}', 'lib/self-test.ts:7: }'],
    'a `@Decorator` line is cut, with what follows it')
})
