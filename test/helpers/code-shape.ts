/**
 * Checks of how lib/ is written (not a test file), read with TypeScript's parser: functions take at most five
 * parameters, every export is used outside its own file, and module-level state stays small. Used by
 * test/layout.test.ts.
 */
import ts from 'typescript'

/** Functions (declarations, methods, arrows, constructors) with more than `max` parameters: `file:line name (n)`. */
export function wideFunctions (files: ReadonlyMap<string, string>, max = 5): string[] {
  const found: string[] = []
  for (const [file, text] of files) {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && !ts.isFunctionTypeNode(node) && !ts.isCallSignatureDeclaration(node) && node.parameters.length > max) {
        const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1
        found.push(`${file}:${line} ${node.name?.getText() ?? '(anonymous)'} takes ${node.parameters.length} parameters (at most ${max})`)
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return found
}

/** The names a file exports by declaration (`export function f`, `export const a, b`, `export interface I`…). */
function exportedNames (file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const names: string[] = []
  for (const statement of source.statements) {
    if (!ts.canHaveModifiers(statement) || ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword) !== true) continue
    if (ts.isVariableStatement(statement)) names.push(...statement.declarationList.declarations.map((declaration) => declaration.name.getText(source)))
    else if ('name' in statement && statement.name !== undefined) names.push((statement.name as ts.Identifier).getText(source))
  }
  return names
}

/**
 * Exports of `files` that no other file names: `elsewhere` holds every other source that may use them (lib/,
 * plugin.ts, tests, examples, benchmarks), by path.
 */
export function exportsUsedOnlyInTheirFile (files: ReadonlyMap<string, string>, elsewhere: ReadonlyMap<string, string>): string[] {
  const found: string[] = []
  for (const [file, text] of files) {
    for (const name of exportedNames(file, text)) {
      const word = new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`)
      const used = [...elsewhere].some(([other, source]) => other !== file && word.test(source))
      if (!used) found.push(`${file} exports ${name}, used in no other file`)
    }
  }
  return found
}

/** Module-level mutable state: `let`s and `const x = new Map | WeakMap | Set | WeakSet` (not typed read-only) at a file's top level. */
export function moduleState (files: ReadonlyMap<string, string>): string[] {
  const found: string[] = []
  for (const [file, text] of files) {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
    for (const statement of source.statements) {
      if (!ts.isVariableStatement(statement)) continue
      const mutable = (statement.declarationList.flags & ts.NodeFlags.Let) !== 0
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer
        // A collection typed read-only (an empty set shared as a constant) is no state.
        const readonly = declaration.type !== undefined && /^Readonly(Map|Set)</.test(declaration.type.getText(source))
        const collection = init !== undefined && ts.isNewExpression(init) && /^(Weak)?(Map|Set)$/.test(init.expression.getText(source)) &&
          (init.arguments === undefined || init.arguments.length === 0) && !readonly
        if (mutable || collection) found.push(`${file}: ${declaration.name.getText(source)}`)
      }
    }
  }
  return found
}
