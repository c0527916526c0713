/**
 * The optional dependencies, which only the tools and the upgrade guide's pattern examples need: the plugin serves
 * without them (`npm ci --omit=optional`); each is loaded on first use.
 * @module
 */

/** The optional libraries, with the version range package.json lists for each (test/package.test.ts keeps them equal). */
export const OPTIONAL_LIBRARIES = { 'api-smart-diff': '^1.0.6', 'fast-check': '^4.10.2' } as const

/** The name of an optional library. */
export type OptionalLibrary = keyof typeof OPTIONAL_LIBRARIES

/**
 * The library, or `undefined` when it is not installed (any other failure to load it is thrown).
 * @example `const fc = optionalLibrary<typeof FastCheck>('fast-check') // undefined without fast-check`
 */
export function optionalLibrary<T> (name: OptionalLibrary): T | undefined {
  try {
    // This module's `require` (an application bundled as an ES module has no __filename): a bundle without the library
    // beside it serves without it.
    return require(name) as T
  } catch (error) {
    // Only the library itself missing (not a module it needs: that install is broken, and says so).
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && String((error as Error).message).includes(`'${name}'`)) return undefined
    throw error
  }
}

/**
 * What to run to install a missing optional library (a development dependency where only the tools need it).
 * @example `installCommand('fast-check') // 'npm install fast-check@^4.10.2'`
 */
export function installCommand (name: OptionalLibrary, dev = false): string {
  return `npm install ${dev ? '--save-dev ' : ''}${name}@${OPTIONAL_LIBRARIES[name]}`
}
