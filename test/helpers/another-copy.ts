/**
 * A second copy of the package in this process (not a test file), as an application gets one when two copies are
 * installed (a library of it depends on another version): the package's modules are loaded again, each a new module,
 * and the first copy's modules are back in Node's cache afterwards.
 */
import { join } from 'node:path'

type Plugin = typeof import('../../plugin')

const root = join(__dirname, '..', '..')

/**
 * The exports of a second copy of the package (its own `VersionChange`, decorators and instruction builders).
 * @example
 * ```ts
 * const other = anotherCopy()
 * class FromTheOtherCopy extends other.VersionChange { … }
 * ```
 */
export function anotherCopy (): Plugin {
  const ours = (path: string): boolean => path.startsWith(join(root, 'lib')) || path === join(root, 'plugin.ts')
  const saved = Object.entries(require.cache).filter(([path]) => ours(path))
  for (const [path] of saved) Reflect.deleteProperty(require.cache, path)
  try {
    return require(join(root, 'plugin.ts')) as Plugin
  } finally {
    for (const path of Object.keys(require.cache)) if (ours(path)) Reflect.deleteProperty(require.cache, path)
    for (const [path, module] of saved) require.cache[path] = module
  }
}
