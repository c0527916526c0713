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
    message: "A response of status %s could not be migrated to API version '%s': its payload is not JSON text (a stream, a buffer, " +
      "text that is not one JSON value, or compressed before the versioner's onSend hook), so the converters of its body did not run. Emitted once per route, version and status.",
    unlimited: true
  }),
  FSTVRS002: createWarning({
    name: 'FastifyVersionerWarning',
    code: 'FSTVRS002',
    message: "captureExchanges.redact.pointers names '%s', a place no schema of a versioned route or webhook declares in any version (request bodies, " +
      'query strings, responses, webhook bodies): check its spelling (a header goes in redact.headers, by name), or the value it should hide is recorded. It is still redacted wherever a body holds it.',
    unlimited: true
  }),
  FSTVRS003: createWarning({
    name: 'FastifyVersionerWarning',
    code: 'FSTVRS003',
    message: "An object schema %s holds fields of '%s' (as Type.Partial, Type.Pick, Type.Omit, Type.Required, Type.Composite " +
      "or Type.Module make it) that its instructions change in version %s, but they do not reach a copy: it keeps HEAD's fields in every " +
      'version. Give it instructions of its own (schema(Copy).field(...)), or build it with extendSchema or Type.Intersect, which keep the schema; ' +
      'declare a schema of a Type.Module outside the module.',
    unlimited: true
  }),
  FSTVRS004: createWarning({
    name: 'FastifyVersionerWarning',
    code: 'FSTVRS004',
    message: "An object schema %s has the members of the enum '%s' as its fields (as Type.Record(E, V) makes it), but the enum's " +
      "instructions do not reach it (its members in version %s): it keeps HEAD's keys in every version. Key it by Type.String(), or give " +
      'it instructions of its own (schema(Record).field(...)).',
    unlimited: true
  }),
  FSTVRS005: createWarning({
    name: 'FastifyVersionerWarning',
    code: 'FSTVRS005',
    message: "%s is a Date at this machine's local midnight (%s): on a server or CI in another time zone the same code names another " +
      "instant (a sunset at another hour, check reporting the date moved). Give '%s' for midnight UTC, or an ISO date-time with its " +
      'offset. Emitted once.'
  }),
  FSTVRS006: createWarning({
    name: 'FastifyVersionerWarning',
    code: 'FSTVRS006',
    message: "A success of status %s on %s has no response schema for its status (nor its media type) in the route: API version '%s' " +
      "got it as HEAD's body, written as plain JSON (with the fields a HeadVersion hides), none of its converters run. Declare the status " +
      "(or '2xx') in the route's response schemas. Emitted once per route, version and status.",
    unlimited: true
  })
}
