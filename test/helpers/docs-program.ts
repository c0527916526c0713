/**
 * The TypeScript program that checks the code the docs show, for test/docs-code-blocks.test.ts (the Markdown's
 * blocks) and test/jsdoc-examples.test.ts (the `@example` of every public export): the package's public entries, read
 * from package.json's `exports`; the names they export, with their declarations; each block written as a module with
 * the imports and preludes it needs; and the program's diagnostics, at the block's own line.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { codeBlocks, type CodeBlock } from './markdown-blocks'
import { LIBRARY_IMPORTS, PRELUDES, preludeLines, type Provided } from './docs-preludes'

const ROOT = resolve(__dirname, '..', '..')

/** One public entry of the package: the specifier an application imports, and the source file (no extension) it is built from. */
export interface Entry { readonly specifier: string, readonly file: string }

/**
 * The package's public entries, from package.json's `exports`: each subpath with its declaration files
 * (`./dist/plugin.d.ts`, `./dist/esm/plugin.d.ts`), mapped back to the source they are emitted from (`plugin`).
 */
export function packageEntries (root = ROOT): Entry[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string, exports: Record<string, unknown> }
  const typesOf = (value: unknown): string[] => typeof value !== 'object' || value === null
    ? []
    : Object.entries(value).flatMap(([key, inner]) => key === 'types' && typeof inner === 'string' ? [inner] : typesOf(inner))
  return Object.entries(manifest.exports).flatMap(([subpath, conditions]) => {
    const files = [...new Set(typesOf(conditions).map((types) => types.replace(/^\.\/dist\/(esm\/)?/, '').replace(/\.d\.ts$/, '')))]
    if (files.length > 1) throw new Error(`package.json's exports['${subpath}'] declares types of several sources: ${files.join(', ')}`)
    return files.map((file) => ({ specifier: `${manifest.name}${subpath.slice(1)}`, file }))
  })
}

/** The compiler options of the docs program: the project's, as an ESM application would compile its code. */
export function compilerOptions (root = ROOT): ts.CompilerOptions {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile)
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root)
  return {
    ...parsed.options,
    noEmit: true,
    // ESM with top-level await, as in the docs; one module system for the blocks and the package's sources.
    module: ts.ModuleKind.Preserve,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowJs: true,
    checkJs: true,
    // Excerpts declare what they show, and may not use all of it.
    noUnusedLocals: false,
    noUnusedParameters: false,
    declaration: false,
    declarationMap: false,
    sourceMap: false
  }
}

/** One name an entry exports, with the declarations it stands for (an alias followed to its target). */
export interface PublicExport extends Provided {
  readonly from: string
  readonly declarations: readonly ts.Declaration[]
}

/** A program of the package's entries only: the one to read their exports from (pass it as `oldProgram` to the blocks' program). */
export function entriesProgram (root = ROOT): ts.Program {
  return ts.createProgram(packageEntries(root).map(({ file }) => join(root, `${file}.ts`)), compilerOptions(root))
}

/** Every name the entries export, as the compiler sees it (`export *` followed), each from its entry; `default` left out. */
export function publicExports (program: ts.Program, root = ROOT): PublicExport[] {
  const checker = program.getTypeChecker()
  return packageEntries(root).flatMap(({ specifier, file }) => {
    const source = program.getSourceFile(join(root, `${file}.ts`))
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source)
    if (module === undefined) throw new Error(`${file}.ts is not a module of the program`)
    return checker.getExportsOfModule(module).filter((symbol) => symbol.name !== 'default').map((symbol) => {
      const target = (symbol.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(symbol) : symbol
      return { name: symbol.name, from: specifier, isType: (target.flags & ts.SymbolFlags.Value) === 0, declarations: target.declarations ?? [] }
    })
  })
}

/**
 * The `@example` blocks of a declaration's JSDoc, as code blocks of its source file (`lib/…/file.ts`, at the line
 * of their first line of code): the text from a comment's first `@example` to its end is Markdown, read as the docs'
 * Markdown is (fences, `check` comments). Read to the comment's end, not the tag's: TypeScript ends a tag at a line
 * starting with `@` and a name, such as a decorator in the example's code (examples write `@ Decorator(…)`, which it
 * keeps; test/jsdoc-examples.test.ts checks that hovers show every example whole).
 */
export function jsdocExamples (declaration: ts.Declaration, root = ROOT): CodeBlock[] {
  const source = declaration.getSourceFile()
  const file = relative(root, source.fileName).split('\\').join('/')
  const firsts = new Map<ts.Node, ts.JSDocTag>()
  for (const tag of ts.getJSDocTags(declaration)) if (tag.tagName.text === 'example' && !firsts.has(tag.parent)) firsts.set(tag.parent, tag)
  return [...firsts].flatMap(([comment, first]) => {
    const start = source.getLineAndCharacterOfPosition(first.tagName.end).line
    const lines = source.text.slice(first.tagName.end, comment.end).split('\n').map((line) => line.replace(/^\s*\*( |$)/, '').replace(/\s*\*\/\s*$/, ''))
    return codeBlocks(file, lines.join('\n')).map((block) => ({ ...block, line: block.line + start }))
  })
}

/** A block written as a module, and how many lines were put before its code. */
export interface Written { readonly block: CodeBlock, readonly path: string, readonly header: number }

/** Where a block is: `file:line`. */
export const where = (block: { file: string, line: number }): string => `${block.file}:${block.line}`

/**
 * Writes a block as a module under `dir`, with what it needs before it: its preludes' declarations, and imports of the
 * names it uses from `exported` and the libraries. `'fastify-versioner'` imports are rewritten to the entries' sources.
 */
export function writeBlock (block: CodeBlock, exported: readonly Provided[], dir: string, root = ROOT): Written {
  const js = block.lang === 'js'
  const name = `${block.file.replace(/\.(md|ts)$/, '').replace(/[^\w-]+/g, '_')}-L${block.line}.${js ? 'js' : 'ts'}`
  const path = join(dir, name)
  const toRepository = (file: string): string => relative(dir, join(root, file)).split('\\').join('/')
  const entries = new Map(packageEntries(root).map(({ specifier, file }) => [specifier, toRepository(file)]))
  const specifier = (module: string): string => entries.get(module) ?? (module.startsWith('examples/') ? toRepository(module) : module)
  const available = [...block.directive.preludes.flatMap((prelude) => PRELUDES[prelude] ?? []), ...exported, ...LIBRARY_IMPORTS]
  const header = preludeLines(block.code, available, specifier, js)
  const packages = [...entries.keys()].map((key) => key.replace(/[/.]/g, '\\$&')).join('|')
  const code = block.code.replace(new RegExp(`(from\\s+|require\\(\\s*|import\\(\\s*)'(${packages})'`, 'g'),
    (_match, lead: string, module: string) => `${lead}'${specifier(module)}'`)
  writeFileSync(path, `${[...header, code].join('\n')}\nexport {}\n`)
  return { block, path, header: header.length }
}

/** Each diagnostic of the written blocks as `file:line: message` (the options' and global ones as `compiler: message`). */
export function diagnose (program: ts.Program, written: readonly Written[]): string[] {
  const messages = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()]
    .map((diagnostic) => `compiler: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`)
  for (const item of written) {
    const source = program.getSourceFile(item.path)
    if (source === undefined) {
      messages.push(`${where(item.block)}: not in the program`)
      continue
    }
    for (const diagnostic of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const line = diagnostic.start === undefined ? 0 : source.getLineAndCharacterOfPosition(diagnostic.start).line
      const at = line < item.header ? `${where(item.block)} (in its prelude)` : `${item.block.file}:${item.block.line + line - item.header}`
      messages.push(`${at}: TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`)
    }
  }
  return messages
}
