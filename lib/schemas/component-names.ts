/**
 * The component name a schema goes by in a version's document ([decision 0068](../../docs/decisions/0068-component-names-from-any-id.md)).
 * @module
 */
import { kSchemaName } from '../core/symbols'
import { refId, type SchemaObject } from '../core/json-schema'
import type { SchemaGeneration } from './generation'

/**
 * The component name of a schema `$id` in its version (a generated `User__2000-01-01` is `User`), every character
 * OpenAPI 3.1 refuses made `_` (`X%41Y` is `X_41Y`).
 */
export function componentName (id: string, generation: SchemaGeneration): string {
  const generated = generation.generatedSchemas().get(refId(id)) as SchemaObject | undefined
  const name = generated?.[kSchemaName]
  return validComponentName(typeof name === 'string' ? name : refId(id))
}

/** A name with each character OpenAPI does not allow in a component name replaced by `_` (`''` is `_`). */
export function validComponentName (name: string): string {
  return name === '' ? '_' : name.replace(/[^A-Za-z0-9._-]/gu, '_')
}
