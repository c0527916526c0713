'use strict'

// `node consumer-type-check.js tsconfig.<name>.json`, in a consumer folder of test/package.test.ts: type-checks the
// consumer's program as `tsc -p tsconfig.<name>.json --listFiles` does, and prints the same lines (every file of the
// program, then each error as `file(line,column): error TS…: message`), exiting with 2 when there is an error.
//
// One difference, for speed: the declarations under node_modules are checked only for the package under test
// (node_modules/fastify-versioner, with skipLibCheck: false as the tsconfig says), not for every dependency
// (@types/node, Fastify, TypeBox): their own errors are not this package's, and checking them all took half of
// each program's time. The package's declarations and the consumer's files are checked in full.
const { join, relative } = require('node:path')
const ts = require('typescript')

const cwd = process.cwd()
const host = {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => { throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')) }
}
const parsed = ts.getParsedCommandLineOfConfigFile(join(cwd, process.argv[2]), {}, host)
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options })
const underTest = join(cwd, 'node_modules', 'fastify-versioner') + '/'
const checked = (file) => !file.fileName.includes('/node_modules/') || file.fileName.startsWith(underTest)

const diagnostics = [...parsed.errors, ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()]
for (const file of program.getSourceFiles().filter(checked)) {
  diagnostics.push(...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file))
  // With `declaration`, what a consumer's exports infer must be nameable through the package's entries (TS2742 otherwise).
  if (parsed.options.declaration === true && !file.fileName.includes('/node_modules/') && !/\.[cm]?js$/.test(file.fileName)) {
    diagnostics.push(...program.getDeclarationDiagnostics(file))
  }
}
const lines = program.getSourceFiles().map((file) => file.fileName)
for (const diagnostic of diagnostics) {
  const text = `${ts.DiagnosticCategory[diagnostic.category].toLowerCase()} TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`
  if (diagnostic.file === undefined || diagnostic.start === undefined) {
    lines.push(text)
  } else {
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
    lines.push(`${relative(cwd, diagnostic.file.fileName)}(${line + 1},${character + 1}): ${text}`)
  }
}
process.stdout.write(`${lines.join('\n')}\n`)
process.exitCode = diagnostics.length > 0 ? 2 : 0
