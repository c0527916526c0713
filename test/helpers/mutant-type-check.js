'use strict'

// `node mutant-type-check.js <folder>/tsconfig.json`, for the mutation score (test/helpers/mutation-harness.ts's
// mutantTypeErrors): type-checks the mutants written to <folder>, one sub-folder each, beside the correct copies of
// their example (`<app>-correct`), and prints the errors as `tsc -p` prints them (exit code 1 when there are some).
//
// `tsc -p` computed the diagnostics of every file of the program: lib/ (which `npm run typecheck` checks with the
// same options) and each mutant's files the mistake left as they are, in every one of 130 folders. It now computes
// them for the files of each mutant that differ from the correct copy, and for the files of the mutant that import
// those (an export renamed shows in its importers): the rest are the correct copy's text, importing only the correct
// copy's text, whose diagnostics `npm run typecheck` has (examples/). A changed file that declares a global or a
// module augmentation changes other files' meaning: then every file is checked, as tsc does. Syntax, options and
// global diagnostics are computed for the whole program in every case. A file the mistake left alike is not in the
// program at all: its importers get the correct copy's file (one program held each mutant's copy of schemas.ts, say,
// and the checker resolved its types again for each mutant that reads it).
const ts = require('typescript')
const { readdirSync, readFileSync, statSync } = require('node:fs')
const { dirname, join, resolve } = require('node:path')

/** The text of a file, or `undefined` when there is none. */
function textOf (file) {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

/**
 * The files of one mutant to check (`changed`): those unlike the correct copy's, and their importers in the folder;
 * and each of its other files (`same`), by the correct copy's file of the same text.
 */
function changedFiles (folder, correct) {
  const names = readdirSync(folder).filter((name) => name.endsWith('.ts'))
  const texts = new Map(names.map((name) => [name, textOf(join(folder, name))]))
  const changed = new Set(names.filter((name) => correct === undefined || texts.get(name) !== textOf(join(correct, name))))
  for (let grew = true; grew;) {
    grew = false
    for (const name of names) {
      if (changed.has(name)) continue
      const imported = [...texts.get(name).matchAll(/(?:from\s+|import\(\s*)'\.\/([^'/]+?)(?:\.js|\.ts)?'/g)].map((match) => `${match[1]}.ts`)
      if (imported.some((file) => changed.has(file))) {
        changed.add(name)
        grew = true
      }
    }
  }
  const same = names.filter((name) => !changed.has(name)).map((name) => [resolve(folder, name), resolve(correct, name)])
  return { changed: [...changed].map((name) => join(folder, name)), same }
}

/**
 * Every mutant's files to check (`checked`; `undefined`, check every file, when a changed file declares a global or a
 * module), and the files left as the correct copy has them, by that copy's file (`same`: none when every file is checked).
 */
function filesToCheck (base) {
  const files = []
  const same = new Map()
  for (const name of readdirSync(base)) {
    const folder = join(base, name)
    if (!statSync(folder).isDirectory() || name.endsWith('-correct')) continue
    const correct = join(base, `${name.split('-')[0]}-correct`)
    const found = changedFiles(folder, statSync(correct, { throwIfNoEntry: false })?.isDirectory() === true ? correct : undefined)
    files.push(...found.changed)
    for (const [file, copy] of found.same) same.set(file, copy)
  }
  if (files.some((file) => /\bdeclare\s+(global|module)\b/.test(textOf(file)))) return { checked: undefined, same: new Map() }
  return { checked: new Set(files.map((file) => resolve(file))), same }
}

/**
 * A compiler host whose module resolution gives a mutant's file left as the correct copy has it (`same`) as that
 * copy's file: the program holds one copy of it, whose types the checker resolves once, not once a mutant. A file
 * left alike imports no changed file (its importers are changed), so it means in the mutant what the copy means.
 */
function sharingHost (options, same) {
  const host = ts.createCompilerHost(options)
  const cache = ts.createModuleResolutionCache(host.getCurrentDirectory(), (name) => host.getCanonicalFileName(name), options)
  host.resolveModuleNameLiterals = (literals, containingFile, redirected, compilerOptions, containingSourceFile) => literals.map((literal) => {
    const mode = ts.getModeForUsageLocation(containingSourceFile, literal, compilerOptions)
    const resolution = ts.resolveModuleName(literal.text, containingFile, compilerOptions, host, cache, redirected, mode)
    const copy = resolution.resolvedModule === undefined ? undefined : same.get(resolve(resolution.resolvedModule.resolvedFileName))
    return copy === undefined ? resolution : { ...resolution, resolvedModule: { ...resolution.resolvedModule, resolvedFileName: copy } }
  })
  return host
}

const config = resolve(process.argv[2])
const parsed = ts.getParsedCommandLineOfConfigFile(config, {}, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => { throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')) }
})
const { checked, same } = filesToCheck(dirname(config))
const program = ts.createProgram({
  rootNames: parsed.fileNames.filter((file) => !same.has(resolve(file))),
  options: parsed.options,
  host: sharingHost(parsed.options, same),
  configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed)
})
const declarations = parsed.options.declaration === true || parsed.options.composite === true
const diagnostics = [...program.getConfigFileParsingDiagnostics(), ...program.getOptionsDiagnostics(), ...program.getSyntacticDiagnostics(), ...program.getGlobalDiagnostics()]
for (const file of program.getSourceFiles()) {
  if (checked !== undefined && !checked.has(resolve(file.fileName))) continue
  diagnostics.push(...program.getSemanticDiagnostics(file))
  // As `tsc --noEmit` does when declarations would be emitted.
  if (declarations) diagnostics.push(...program.getDeclarationDiagnostics(file))
}
if (diagnostics.length > 0) {
  process.stdout.write(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (name) => name, getCurrentDirectory: () => process.cwd(), getNewLine: () => '\n' }))
  process.exitCode = 1
}
