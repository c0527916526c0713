/**
 * A deprecation written on the wrong versions, for `check` (decision 0291): a field, parameter or operation a saved
 * version's document did not have deprecated, deprecated in that version's document now, while the next version
 * still has it and does not. `had({ deprecated: true })` says what the versions before a change had, so a team that
 * meant to deprecate a field from a new version on wrote it on every older one: their clients are sent `Deprecation`
 * and `Link` headers, the new version's never are. Such a deprecation is moved from the notes to the breaks, with
 * what to write instead; one lifted on purpose is acknowledged as any deliberate change, by exporting the snapshot
 * again (the saved document then has it, and it is no longer new).
 * @module
 */
import type { AppAjvSetup } from '../core/strict-validator'
import { compareComparable } from './document-comparison'
import { change, type DocumentChange } from './document-places'
import { fileNameOf, type ServedDocument } from './export'

const ADDED = 'deprecated added (text)'
const LIFTED = 'deprecated removed (text)'

/** The changes of a check, sorted as `check` sorts them. */
interface Sorted {
  readonly breaks: DocumentChange[]
  readonly notes: DocumentChange[]
}

/**
 * Moves to `result.breaks`, reworded, each note of a deprecation new to a saved version (`deprecated added`) whose
 * operation and place the next newer served version has without it (`deprecated removed` when the two documents served
 * now are compared). `versions` are the bundle's, newest first; `served` the documents served now, by file name. Two
 * versions' documents are compared only when the older one has such a note.
 */
export function liftedDeprecationBreaks (result: Sorted, versions: readonly string[], served: ReadonlyMap<string, ServedDocument>, ajv: AppAjvSetup): void {
  const order = versions.filter((version) => served.has(fileNameOf(version)))
  const documentOf = (version: string): unknown => JSON.parse((served.get(fileNameOf(version)) as ServedDocument).body.toString('utf8'))
  for (const [index, version] of order.entries()) {
    const next = order[index - 1]
    let added = result.notes.filter((note) => note.version === version && note.kind === ADDED)
    if (next === undefined || added.length === 0) continue
    const older = documentOf(version) as { info?: Record<string, unknown> }
    // A deprecated version has each of its operations deprecated: the version's lifecycle, not an instruction's.
    if (older.info?.['x-deprecated-at'] !== undefined) added = added.filter((note) => note.place !== '')
    if (added.length === 0) continue
    const lifted = new Set(compareComparable(version, older, documentOf(next), ajv).filter((found) => found.kind === LIFTED).map(placeOf))
    const told = new Set<string>()
    for (const note of added.filter((found) => lifted.has(placeOf(found)))) {
      result.notes.splice(result.notes.indexOf(note), 1)
      if (told.has(placeOf(note))) continue
      told.add(placeOf(note))
      result.breaks.push(change(version, note.operation, note.place.replace(/ \/$/, ''), liftedKind(version, next, note.place === ''), true))
    }
  }
}

/**
 * Where a change is, a parameter's schema (`query parameter size /`) as the parameter: the plugin writes a parameter's
 * `deprecated` on both.
 */
function placeOf (found: DocumentChange): string {
  return `${found.operation}\n${found.place.replace(/ \/$/, '')}`
}

/** What a deprecation new to `version` and lifted in `next` is, and what to write instead. */
function liftedKind (version: string, next: string, operation: boolean): string {
  const instead = operation
    ? `write deprecated: true on HEAD's route schema and endpoint(...).had({ deprecated: false }) in ${next}'s change`
    : `write deprecated on HEAD's schema and schema(...).field(...).didntHave('deprecated') in ${next}'s change`
  return `deprecated in ${version} (not in its saved document) but not in ${next}, which still has it: ` +
    `had({ deprecated }) says what the versions before a change had; to deprecate it from ${next} on, ${instead}; ` +
    `to lift it in ${next} on purpose, export the snapshot again`
}

/** The lifecycle notes of an end announced to a version whose saved document had none (`compareInfo`'s words). */
const ANNOUNCED: ReadonlyArray<readonly [string, string]> = [['deprecated since none → ', 'deprecatedAt'], ['sunset none → ', 'sunsetAt']]

/**
 * Moves to `result.breaks`, as one break a version, the notes of a released version's end announced new to its saved
 * document (a `deprecatedAt` or `sunsetAt` it did not have) while an older released version served is announced no end
 * (neither): almost always the lifecycle written on the line of the version whose change replaced the one meant
 * (decision 0287). `released` are the bundle's released versions, newest first; `served` the documents served now.
 */
export function endsOutOfOrderBreaks (result: Sorted, released: readonly string[], served: ReadonlyMap<string, ServedDocument>): void {
  const order = released.filter((version) => served.has(fileNameOf(version)))
  const ends = (version: string): boolean => {
    const { info } = JSON.parse((served.get(fileNameOf(version)) as ServedDocument).body.toString('utf8')) as { info?: Record<string, unknown> }
    return info?.['x-deprecated-at'] !== undefined || info?.['x-sunset-at'] !== undefined
  }
  for (const [index, version] of order.entries()) {
    const announced = result.notes.filter((note) => note.version === version && note.place === 'lifecycle' && ANNOUNCED.some(([words]) => note.kind.startsWith(words)))
    if (announced.length === 0) continue
    const older = order.slice(index + 1).filter((value) => !ends(value))
    if (older.length === 0) continue
    for (const note of announced) result.notes.splice(result.notes.indexOf(note), 1)
    const keys = ANNOUNCED.filter(([words]) => announced.some((note) => note.kind.startsWith(words)))
    const written = keys.map(([words, key]) => `${key} ${(announced.find((note) => note.kind.startsWith(words)) as DocumentChange).kind.slice(words.length)}`)
    result.breaks.push(change(version, '', 'lifecycle', endsKind(version, older, written, keys.map(([, key]) => key).join(', ')), true))
  }
}

/** What an end announced to `version` while `older` versions are announced none is, and what to write instead. */
function endsKind (version: string, older: readonly string[], written: readonly string[], keys: string): string {
  const [meant] = older as [string]
  const more = older.length > 1 ? ` (and ${older.length - 1} older released version${older.length > 2 ? 's' : ''})` : ''
  return `${written.join(', ')} announced (not in its saved document) while ${meant}${more}, older, is announced no end: ` +
    `${version}'s clients are sent Deprecation/Sunset and ${meant}'s are not; ${keys} belong on the line of the version that ends, ` +
    `new Version('${meant}', ..., { ${keys} }), not on the version whose change replaced it; ` +
    `to end ${version} before ${meant} on purpose, export the snapshot again`
}
