/**
 * The text of the module that declares a class (a version change), read from its file: the module among Node's loaded
 * CommonJS modules that exports the class and declares a class of its name, else any loaded module outside
 * `node_modules` that declares one (a class made in a function, not exported). Not through Node's inspector: its
 * debugger, once enabled, drops V8's block counts of every function already compiled, which wrecked the code coverage
 * of a test suite that runs `verify` (decision 0236). A class in an ES module, a bundle or code built at run time has
 * no text here.
 * @module
 */
import { readFileSync, statSync } from 'node:fs'
import { sep } from 'node:path'

/** The largest file read (a module's source; larger is a bundle or data). */
const MAX_BYTES = 2 * 1024 * 1024

/** Each file's text, by its size and time of change, read once per process (`undefined`: too large). */
const texts = new Map<string, { readonly stamp: string, readonly text: string | undefined }>()

/** The text of `file`, from the cache or read (again when the file changed). */
function textOf (file: string): string | undefined {
  try {
    const { size, mtimeMs } = statSync(file)
    const stamp = `${size} ${mtimeMs}`
    const known = texts.get(file)
    if (known?.stamp === stamp) return known.text
    const text = size <= MAX_BYTES ? readFileSync(file, 'utf8') : undefined
    texts.set(file, { stamp, text })
    return text
  } catch {
    return undefined
  }
}

/** True when `exported` (a module's `module.exports`) is `declared` or holds it as a data property (no getter run). */
function holds (exported: unknown, declared: unknown): boolean {
  if (exported === declared) return true
  if ((typeof exported !== 'object' && typeof exported !== 'function') || exported === null) return false
  // Key by key, stopping at the first: every loaded module is asked once per version change (TypeScript's exports alone
  // hold 2,244 keys), and all of a module's descriptors at once cost verify about 5 times as much.
  for (const key of Object.getOwnPropertyNames(exported)) {
    const descriptor = Object.getOwnPropertyDescriptor(exported, key)
    if (descriptor !== undefined && 'value' in descriptor && descriptor.value === declared) return true
  }
  return false
}

/**
 * The text of the file of the loaded module that declares the class `declared` (see the module's comment), or
 * `undefined` when no loaded CommonJS module does.
 * @example
 * ```ts
 * declaringModuleText(AmountsInCents) // the text of examples/billing/versions/amounts-in-cents.ts
 * ```
 */
export function declaringModuleText (declared: abstract new (...args: never[]) => unknown): string | undefined {
  const name = declared.name
  if (!/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(name)) return undefined
  const declares = new RegExp(`\\bclass\\s+${name.replaceAll('$', '\\$')}(?![\\p{L}\\p{N}_$])`, 'u')
  const modules = Object.values(require.cache).filter((module) => module !== undefined)
  const exporting = modules.filter((module) => holds(module.exports, declared)).map((module) => module.filename)
  const others = modules.map((module) => module.filename).filter((file) => !file.includes(`${sep}node_modules${sep}`))
  for (const file of [...exporting, ...others]) {
    const text = textOf(file)
    if (text !== undefined && declares.test(text)) return text
  }
  return undefined
}
