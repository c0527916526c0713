/**
 * An install without some optional dependencies (`npm ci --omit=optional`), in this process: requiring one of them
 * fails as Node fails for a module that is not installed (`MODULE_NOT_FOUND`), until the test ends. Node's loader is
 * patched where every `require` passes (`Module._load`), before its cache: a library loaded earlier is missing too.
 */
import Module from 'node:module'
import type { Teardown } from './apps'

type Load = (this: unknown, request: string, ...rest: unknown[]) => unknown

/**
 * Makes the libraries `names` missing for the rest of the test `t`.
 * @example
 * ```ts
 * withoutLibraries(t, ['fast-check'])
 * ```
 */
export function withoutLibraries (t: Teardown, names: readonly string[]): void {
  const loader = Module as unknown as { _load: Load }
  const original = loader._load
  loader._load = function load (request, ...rest) {
    if (names.includes(request)) {
      throw Object.assign(new Error(`Cannot find module '${request}'\nRequire stack:\n- (an install without optional dependencies)`), { code: 'MODULE_NOT_FOUND' })
    }
    return original.call(this, request, ...rest)
  }
  t.teardown(() => { loader._load = original })
}
