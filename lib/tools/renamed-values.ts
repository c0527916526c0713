/**
 * The values of a renamed field, for `verify` (docs/decisions/0270-a-renamed-value-arrives-whole-one-way.md). A
 * rename (`had({ name })`) with a type no instruction changes (`had({ type })`, an enum's members) may still come
 * with a conversion (pounds to kilograms, `enabled` to `disabled`, decision 0072), but one way as on a round trip it
 * loses nothing: a string of a `pattern` arrives unchanged, a free string (or an e-mail) with the case and spaces it
 * was sent with (not trimmed, collapsed or folded: decision 0278; it may be cut into words or joined: a name split in
 * two, ./sentinel-arrival.ts), a list of scalars with every item (`filter(Boolean)`,
 * `slice(0, 10)` lose some), and a number or flag apart from its twin's (./verify-twins.ts: `qty || 1` makes `0` and
 * `1` one, a flag written `true` makes `false` and `true` one). A string of another `format` may be written otherwise
 * (a date-time in UTC), and is not compared.
 * @module
 */
import type { JsonSchema } from '../values/examples'

/**
 * How a renamed field's value must arrive: `'text'` (a patterned string: unchanged), `'case'` (a free string or an
 * e-mail: with the case and spaces it was sent with), `'twin'` (a number or flag: apart from its twin's), `'items'` (a list of scalars: every item).
 */
export type Kept = 'text' | 'case' | 'twin' | 'items'

/** How a scalar of a renamed field arrives: `'text'`, `'case'`, `'twin'`, or `undefined` (an enum, a `const`, a `format` but `email`, an object). */
function scalarKept (node: JsonSchema | undefined): Exclude<Kept, 'items'> | undefined {
  if (node === undefined || 'const' in node || Array.isArray(node.enum) || node.anyOf !== undefined || node.oneOf !== undefined) return undefined
  const types = (Array.isArray(node.type) ? node.type as unknown[] : [node.type]).filter((type) => type !== 'null')
  if (types.length !== 1) return undefined
  if (types[0] === 'number' || types[0] === 'integer' || types[0] === 'boolean') return 'twin'
  // An e-mail is kept in its case (a local part may differ by case alone); another format may be written otherwise.
  if (types[0] !== 'string' || (typeof node.format === 'string' && node.format !== 'email')) return undefined
  return typeof node.pattern === 'string' ? 'text' : 'case'
}

/**
 * How the value of a field of schema `schema`, renamed with its type unchanged, must arrive (`{ kept }`); `{}` when it
 * may be converted.
 * @example
 * ```ts
 * keptField(Type.Integer(), (schema) => schema as JsonSchema)                        // { kept: 'twin' }
 * keptField(Type.Array(Type.Boolean()), (schema) => schema as JsonSchema)            // { kept: 'items' }
 * keptField(Type.String({ format: 'date-time' }), (schema) => schema as JsonSchema)  // {}
 * ```
 */
export function keptField (schema: unknown, nodeOf: (schema: unknown) => JsonSchema | undefined): { kept?: Kept } {
  const node = nodeOf(schema)
  const kept = scalarKept(node)
  if (kept !== undefined) return { kept }
  const items = node?.type === 'array' && typeof node.items === 'object' && !Array.isArray(node.items) ? scalarKept(nodeOf(node.items)) : undefined
  return items === undefined ? {} : { kept: 'items' }
}

/**
 * A string as a sentinel is looked for in another: lower-cased, its runs of whitespace one space, none at its ends.
 * One way, a field's string may arrive so (split or joined at a space: decision 0278); a renamed field's
 * ({@link keptChange}), and a round trip's (./value-comparison.ts), may not.
 * @example
 * ```ts
 * foldedText(' ZQ01  Łódź ') // 'zq01 łódź'
 * ```
 */
export function foldedText (text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim()
}

/**
 * True when `arrived` is `value` with its whitespace changed, not one of the parts a name split at a space (or other
 * whitespace) gives (the part before it, or after it: `' Ada '` split at its last space gives `' Ada'`, `'   '` at its
 * first gives `''`), nor `value` joined with an empty part (`'' + ' ' + ''`): trimmed, its runs of spaces collapsed,
 * its tabs or line breaks made spaces (the same length). A blank string made `''` is such a part too (one way it is
 * not told from a split: a round trip tells it, decision 0278).
 */
function spacesLost (value: string, arrived: string): boolean {
  if (arrived.length >= value.length) return arrived.length === value.length
  const before = value.startsWith(arrived) && /\s/.test(value[arrived.length])
  return !before && !(value.endsWith(arrived) && /\s/.test(value[value.length - arrived.length - 1]))
}

/**
 * `, its Unicode normalization changed` where `arrived` is the text `value` normalized otherwise (`'ó'` as `o` and
 * its accent made one character by `.normalize('NFC')`, `ﬁ` made `fi` by `.normalize('NFKC')`): two strings that print
 * alike, or nearly, in a finding; else `''`.
 * @example
 * ```ts
 * normalizationChanged('Łódź'.normalize('NFD'), 'Łódź') // ', its Unicode normalization changed (NFD sent, NFC arrived)'
 * ```
 */
export function normalizationChanged (value: unknown, arrived: unknown): string {
  if (typeof value !== 'string' || typeof arrived !== 'string' || value === arrived || value.normalize('NFKC') !== arrived.normalize('NFKC')) return ''
  // The arrived text named by the form of the sent one it is (NFKC where only NFKC folded its ligatures or widths).
  const form = (text: string): string => (['NFC', 'NFD', 'NFKC', 'NFKD'] as const).find((name) => text === (text === arrived ? value : text).normalize(name)) ?? 'mixed'
  return `, its Unicode normalization changed (${form(value)} sent, ${form(arrived)} arrived)`
}

/** A scalar as it is compared: a query string's or header's text and the number it stands for are one. */
const asText = (value: unknown): string => typeof value === 'string' ? value : JSON.stringify(value)

/**
 * What became of a renamed field's value (`value`, kept as `kept` says) that arrived as `arrived`: `undefined` when
 * nothing of it was lost (a number or flag is compared with its twin's, elsewhere).
 * @example
 * ```ts
 * keptChange('text', '19.99', '19', shown)             // "arrives as '19'"
 * keptChange('case', 'Łódź', 'łódź', shown)            // "arrives as 'łódź', its case changed"
 * keptChange('case', ' memo ', 'memo', shown)          // "arrives as 'memo', its spaces changed"
 * keptChange('items', [0, 19.99], [19.99], shown)      // 'arrives as [19.99], without 0 (1 of its 2 items)'
 * ```
 */
export function keptChange (kept: Kept, value: unknown, arrived: unknown, show: (value: unknown) => string): string | undefined {
  if (value === null || arrived === null || arrived === undefined || kept === 'twin') return undefined
  if (kept === 'case') {
    if (typeof value !== 'string' || typeof arrived !== 'string' || value === arrived) return undefined
    if (normalizationChanged(value, arrived) !== '') return `arrives as ${show(arrived)}${normalizationChanged(value, arrived)}`
    if (foldedText(value) !== foldedText(arrived)) return undefined
    const spaces = value.toLowerCase() !== arrived.toLowerCase()
    if (spaces && !spacesLost(value.toLowerCase(), arrived.toLowerCase())) return undefined
    const kind = /[^\S ]/.test(value + arrived) ? 'whitespace' : 'spaces'
    const changed = spaces && value.replace(/\s+/g, ' ').trim() !== arrived.replace(/\s+/g, ' ').trim() ? `case and ${kind}` : spaces ? kind : 'case'
    return `arrives as ${show(arrived)}, its ${changed} changed`
  }
  if (kept === 'text') return typeof value !== 'string' || asText(value) === asText(arrived) ? undefined : `arrives as ${show(arrived)}`
  if (!Array.isArray(value) || !Array.isArray(arrived) || value.length === arrived.length) return undefined
  // The items that did not arrive (each as often as it is missing), where the others arrived as they were.
  const left = arrived.map(asText)
  const missing = value.filter((item) => {
    const at = left.indexOf(asText(item))
    if (at !== -1) left.splice(at, 1)
    return at === -1
  })
  const without = left.length === 0 && missing.length > 0 ? `, without ${missing.map(show).join(', ')}` : ''
  return `arrives as ${show(arrived)}${without} (${arrived.length} of its ${value.length} items)`
}
