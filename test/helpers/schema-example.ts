/** The example generator of the document tests: it lives in lib/values/examples.ts (verify uses it too). */
export { exampleOf, resolveRef, EXAMPLE_UUID, type ExampleOptions, type JsonSchema } from '../../lib/values/examples'
