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

/** A version change's class, as `verify` reads it. */
type Declared = abstract new (...args: never[]) => unknown

/**
 * Which of `wanted` `exported` (a module's `module.exports`) is or holds as a data property (no getter run), in
 * `into`, each found class's list of files given `file`.
 */
function collectHeld (exported: unknown, wanted: ReadonlySet<unknown>, file: string, into: Map<unknown, string[]>): void {
  const found = new Set<unknown>()
  if (wanted.has(exported)) found.add(exported)
  if ((typeof exported === 'object' || typeof exported === 'function') && exported !== null) {
    // Key by key: every loaded module is asked once per call (TypeScript's exports alone hold 2,244 keys), and all of
    // a module's descriptors at once cost verify about 5 times as much.
    for (const key of Object.getOwnPropertyNames(exported)) {
      const descriptor = Object.getOwnPropertyDescriptor(exported, key)
      if (descriptor !== undefined && 'value' in descriptor && wanted.has(descriptor.value)) found.add(descriptor.value)
    }
  }
  for (const declared of found) into.get(declared)?.push(file)
}

/**
 * The text of the file of the loaded module that declares each class of `classes` (see the module's comment), or
 * `undefined` when no loaded CommonJS module does. The loaded modules are looked through once for all of them.
 * @example
 * ```ts
 * declaringModuleTexts([AmountsInCents]).get(AmountsInCents) // the text of examples/billing/versions/amounts-in-cents.ts
 * ```
 */
export function declaringModuleTexts (classes: readonly Declared[]): Map<Declared, string | undefined> {
  const texts = new Map<Declared, string | undefined>(classes.map((declared) => [declared, undefined]))
  const named = [...texts.keys()].filter((declared) => /^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(declared.name))
  if (named.length === 0) return texts
  const modules = Object.values(require.cache).filter((module) => module !== undefined)
  const exporting = new Map<unknown, string[]>(named.map((declared) => [declared, []]))
  const wanted = new Set<unknown>(named)
  for (const module of modules) collectHeld(module.exports, wanted, module.filename, exporting)
  const others = modules.map((module) => module.filename).filter((file) => !file.includes(`${sep}node_modules${sep}`))
  // Each file's text once for this call: nothing is loaded between the classes.
  const read = new Map<string, string | undefined>()
  const readOnce = (file: string): string | undefined => {
    if (!read.has(file)) read.set(file, textOf(file))
    return read.get(file)
  }
  for (const declared of named) {
    const declares = new RegExp(`\\bclass\\s+${declared.name.replaceAll('$', '\\$')}(?![\\p{L}\\p{N}_$])`, 'u')
    for (const file of [...exporting.get(declared) ?? [], ...others]) {
      const text = readOnce(file)
      if (text !== undefined && declares.test(text)) {
        texts.set(declared, text)
        break
      }
    }
  }
  return texts
}
