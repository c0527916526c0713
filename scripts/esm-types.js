'use strict'

// Writes dist/esm/: the type declarations again, read as ES modules (a package.json with "type": "module"),
// with explicit .js extensions on relative imports. ESM TypeScript users resolve the `import` condition to
// them, so that their imports of @sinclair/typebox and ours resolve to the same (ESM) declarations: TypeBox
// declares its Kind symbol separately in its ESM and CJS declarations, and the two do not mix.
const { mkdirSync, readdirSync, readFileSync, writeFileSync, rmSync, statSync } = require('node:fs')
const { join, relative, dirname } = require('node:path')

const dist = join(__dirname, '..', 'dist')
const target = join(dist, 'esm')
rmSync(target, { recursive: true, force: true })

function declarations (folder) {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name)
    if (path === target) return []
    if (statSync(path).isDirectory()) return declarations(path)
    return name.endsWith('.d.ts') ? [path] : []
  })
}

const relativeSpecifier = /((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]*?)(\2)/g
for (const file of declarations(dist)) {
  const text = readFileSync(file, 'utf8').replace(relativeSpecifier, (match, lead, quote, specifier) =>
    specifier.endsWith('.js') ? match : `${lead}${quote}${specifier}.js${quote}`)
  const out = join(target, relative(dist, file))
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, text)
}
writeFileSync(join(target, 'package.json'), JSON.stringify({ type: 'module' }, null, 2) + '\n')
