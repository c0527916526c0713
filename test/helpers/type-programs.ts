/**
 * Type-checking generated modules in tests: the errors of a program of files written to a scratch folder, with the
 * project's strict options.
 */
import { join } from 'node:path'
import ts from 'typescript'

/** Strict options, as the project's; TypeScript's own lib files are not what is tested. */
const OPTIONS: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, skipLibCheck: true, types: [] }

/** The errors of a program of `files` (in `dir`), as `file(line): message`. */
export function compileErrors (dir: string, files: string[]): string[] {
  const program = ts.createProgram(files.map((file) => join(dir, file)), OPTIONS)
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const line = diagnostic.file === undefined ? 0 : diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1
    return `${diagnostic.file?.fileName.slice(dir.length + 1) ?? ''}(${line}): ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`
  })
}
