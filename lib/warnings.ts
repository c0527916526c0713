/**
 * Deprecation warnings, through `process-warning`. Codes are never reused.
 * @module
 */
import { createDeprecation, createWarning } from 'process-warning'

/** Every warning fastify-versioner emits, by code. */
export const processWarning = {
  FSTVRSDEP001: createDeprecation({
    code: 'FSTVRSDEP001',
    message: "The 'apiVersionHeaderName' option is deprecated; use 'apiVersionParameterName'."
  }),
  FSTVRSDEP002: createDeprecation({
    code: 'FSTVRSDEP002',
    message: 'The changelog endpoint is deprecated: maintain and publish your own changelog. It is still served.'
  }),
  FSTVRS001: createWarning({
    name: 'FastifyVersionerWarning',
    code: 'FSTVRS001',
    message: "An error response of %s could not be migrated to API version '%s': its payload is not JSON text (compressed or streamed before the versioner's onSend hook).",
    unlimited: true
  }),
  emit (code: 'FSTVRSDEP001' | 'FSTVRSDEP002'): void {
    processWarning[code]()
  }
}
