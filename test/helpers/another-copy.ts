/**
 * A second copy of the package in this process (not a test file), as an application gets one when two copies are
 * installed (a library of it depends on another version): the package's modules are copied to a folder of their own
 * (under test/.tmp, as `node_modules/a/node_modules/fastify-versioner` would be) and loaded from there, each a new
 * module. Loaded from the same paths again, V8 reported two scripts per file, which wrecked the coverage of the
 * test process (functions counted twice, half of them never called).
 */
import { cpSync, rmSync } from 'node:fs'
import { join } from 'node:path'

type Plugin = typeof import('../../plugin')

const root = join(__dirname, '..', '..')
/** This process's copy (copied afresh on the first call: a folder left by an earlier process may hold older code). */
const folder = join(root, 'test', '.tmp', 'another-copy', String(process.pid))
let copied = false

/**
 * The exports of a second copy of the package (its own `VersionChange`, decorators and instruction builders).
 * @example
 * ```ts
 * const other = anotherCopy()
 * class FromTheOtherCopy extends other.VersionChange { … }
 * ```
 */
export function anotherCopy (): Plugin {
  if (!copied) {
    rmSync(folder, { recursive: true, force: true })
    cpSync(join(root, 'lib'), join(folder, 'lib'), { recursive: true })
    cpSync(join(root, 'plugin.ts'), join(folder, 'plugin.ts'))
    copied = true
    // Removed as the process exits (a developer's test/.tmp kept 2 MB per test process that used it).
    process.once('exit', () => { rmSync(folder, { recursive: true, force: true }) })
  }
  const theirs = (path: string): boolean => path.startsWith(folder)
  try {
    return require(join(folder, 'plugin.ts')) as Plugin
  } finally {
    // Each call, a copy of its own (the tests compare two copies' classes, never two calls').
    for (const path of Object.keys(require.cache)) if (theirs(path)) Reflect.deleteProperty(require.cache, path)
  }
}
