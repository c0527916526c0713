/**
 * The name a schema goes by in a version's document: a generated schema keeps the name of its HEAD schema
 * (or the one `schema(S).had({ name })` gave it). Used by the documents and by the start-up name checks.
 * @module
 */
import { kSchemaName } from '../core/symbols'
import { refId, type SchemaObject } from '../core/json-schema'
import type { SchemaGeneration } from './generation'

/** The component name of a schema `$id` in its version (a generated `User__2000-01-01` is named `User`). */
export function componentName (id: string, generation: SchemaGeneration): string {
  const generated = generation.generatedSchemas().get(refId(id)) as SchemaObject | undefined
  const name = generated?.[kSchemaName]
  return typeof name === 'string' ? name : refId(id)
}
