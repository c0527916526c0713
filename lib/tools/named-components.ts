/**
 * The names of a version's schema components, as `check` notes them: a component's name is its schema's `$id`, and
 * generated clients name the schema's type after it (`components['schemas']['UserResource']`). Renaming an `$id`,
 * or inlining a shared schema, changes no request or answer, so it breaks no client at run time; it renames or
 * removes a type that code generated from the version's document uses, as a changed `operationId` renames a
 * function. Each is a note ([decision 0184](../../docs/decisions/0184-a-renamed-id-is-a-note.md)); a new
 * component is none (no generated code used it).
 * @module
 */
import { isDeepStrictEqual } from 'node:util'
import { change, own, type DocumentChange } from './document-places'

type Json = Record<string, unknown>

/** A document's schema components, or none. */
function schemasOf (document: unknown): Json {
  const schemas = own(own(document, 'components'), 'schemas')
  return typeof schemas === 'object' && schemas !== null && !Array.isArray(schemas) ? schemas as Json : {}
}

/**
 * A note for each schema component of a version's saved document its current one no longer names: `renamed to` the
 * new component holding the same schema, else no longer a component (inlined, or no longer used).
 * @example `result.notes.push(...componentNameNotes('2000-01-01', saved, current))`
 */
export function componentNameNotes (version: string, saved: unknown, current: unknown): DocumentChange[] {
  const notes: DocumentChange[] = []
  const [before, after] = [schemasOf(saved), schemasOf(current)]
  const added = Object.keys(after).filter((name) => !Object.hasOwn(before, name))
  for (const [name, schema] of Object.entries(before)) {
    if (Object.hasOwn(after, name)) continue
    const renamed = added.find((other) => isDeepStrictEqual(after[other], schema))
    const kind = renamed === undefined ? 'no longer a named schema (renamed, inlined or unused)' : `renamed to ${renamed}`
    notes.push(change(version, '', `schema ${name}`, `${kind}: the name of its type in generated clients`, false))
  }
  return notes
}
