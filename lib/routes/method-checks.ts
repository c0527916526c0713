/**
 * The second step of the HTTP method check (see `lib/core/http-methods.ts`): when the application becomes
 * ready, every method named by an endpoint instruction or a by-path converter must be one the application
 * routes (`fastify.supportedMethods`: Fastify's own list, with `QUERY` and methods added with
 * `fastify.addHttpMethod`).
 * @module
 */
import { LintingError } from '../core/errors'
import { isEndpointInstruction } from '../describe/instructions'
import type { VersionerState } from './versioner-state'

/** Throws `LintingError` naming the first method this application does not route, and where it is named. */
export function checkMethods (state: VersionerState, supported: readonly string[]): void {
  const routable = new Set(supported)
  const unsupported = (methods: readonly string[] | undefined): string[] => (methods ?? []).filter((method) => !routable.has(method))
  const fail = (methods: string[], where: string): never => {
    throw new LintingError(`${methods.join(', ')} (in ${where}; this application routes ${[...routable].sort().join(', ')}, ` +
      'add others with fastify.addHttpMethod before the application is ready)')
  }
  for (const step of state.steps) {
    for (const change of step.changes) {
      for (const instruction of change.instructions) {
        if (!isEndpointInstruction(instruction)) continue
        const missing = [...unsupported(instruction.methods), ...unsupported(instruction.kind === 'endpoint.had' ? instruction.attributes.methods : undefined)]
        if (missing.length > 0) fail(missing, `${instruction.display} of version change '${change.name}'`)
      }
      for (const converter of change.converters) {
        if (converter.target.kind !== 'path') continue
        const missing = unsupported(converter.target.methods)
        if (missing.length > 0) fail(missing, `converter ${converter.display}`)
      }
    }
  }
}
