/** The example generator of the document tests: lib/values/examples.ts (the upgrade guide's). */
export { exampleOf, EXAMPLE_UUID, type JsonSchema } from '../../lib/values/examples'
