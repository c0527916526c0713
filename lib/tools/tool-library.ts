/**
 * The optional libraries the tools need (../core/optional-libraries.ts): loaded on a tool's first use, or
 * `FST_VERSIONER_TOOL` saying what to install.
 * @module
 */
import { VersionerToolError } from '../core/errors'
import { installCommand, optionalLibrary, type OptionalLibrary } from '../core/optional-libraries'

/**
 * A library a tool needs; `FST_VERSIONER_TOOL` saying what to install when it is missing.
 * @example
 * ```ts
 * const library = toolLibrary<DiffLibrary>('api-smart-diff', 'check')
 * ```
 */
export function toolLibrary<T> (name: OptionalLibrary, tool: string): T {
  const library = optionalLibrary<T>(name)
  if (library !== undefined) return library
  throw new VersionerToolError(`${tool} needs ${name}, an optional dependency of fastify-versioner that is not installed (an install that ` +
    `leaves optional dependencies out, such as npm ci --omit=optional, skips it). Install it: ${installCommand(name, true)}`)
}
