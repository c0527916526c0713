/**
 * The free strings of `verify`'s examples (./example-tokens.ts): a sentinel `verify` follows (`zq000001`, or an
 * e-mail, a UUID, a URI… as the format asks), at a boundary (./boundary-values.ts) written as the boundary asks:
 * - `spaces` and `items`: three words with letters beyond ASCII (`zq000001 Łódź 🙂zq000001`), two shorter ones
 *   (`zq000001 q000001`) where `maxLength` leaves no room for them: a name cut at its first space;
 * - `padded`: a space at each end and two between the words (` zq000001  Łódź 🙂zq000001 `), an e-mail's local part
 *   in upper case (`ZQ000001@example.com`): a string trimmed, its spaces collapsed, its case folded;
 * - `blank`: spaces only (`'   '`, no sentinel): a whitespace-only memo made `''`;
 * - `lines`: lines (the first ended `\r\n`), a tab between words, letters decomposed (NFD: `ó` as `o` and its accent),
 *   a ligature and a full-width digit (`ﬁ`, `１`), the marks of Markdown (`#*_`), a last line break
 *   (`zq000001\tﬁŁódź１#*_\r\n🙂zq000001\n`): a memo cut to its first line, its tabs or line breaks made spaces or
 *   `\n`, normalized (NFC, NFKC), folded to half width, stripped of the marks a text format gives a meaning;
 * - `empty`: `''` where the schema takes it; `large`: as long as the schema allows (1,000 characters without `maxLength`).
 * Lengths count code points, as JSON Schema does; a string is padded with `q` to its `minLength`.
 * @module
 */
import type { JsonSchema } from '../values/examples'
import { patternOf, type FormatPatterns } from '../values/string-examples'
import type { Boundary } from './boundary-values'

/** The length of a long string where the schema sets no `maxLength`. */
const LONG = 1000

/** The spaces of a `blank` string, where its lengths allow. */
const BLANK = 3

/**
 * The word beyond ASCII of a `lines` string: a ligature, `o` and `z` followed by their accents, a full-width digit
 * (`.normalize('NFC')` changes its accents, `.normalize('NFKC')` and a full-width fold its ligature and digit too).
 */
const DECOMPOSED = `\ufb01${'Łódź'.normalize('NFD')}\uff11`

/**
 * Marks of a `lines` string that Markdown and other text formats give a meaning (emphasis, a heading): a converter
 * giving older versions plain text by deleting them (`memo.replace(/[*_#]/g, '')`) deletes them from text that never
 * was Markdown ([decision 0338](../../docs/decisions/0338-verify-sends-the-marks-text-formats-strip.md)).
 */
const MARKS = '#*_'

/**
 * The forms of a free string at a boundary, the first that fits `maxLength` taken: the sentinel's words (letters
 * beyond ASCII, an emoji of two UTF-16 units before the sentinel again, a word of its own), or shorter ones.
 */
function formsOf (token: string, boundary: Boundary | undefined): string[] {
  // The second short word is the sentinel's own too (`q000001`): a word another string holds would arrive for it.
  const [long, short] = [`${token} Łódź 🙂${token}`, token.slice(1)]
  if (boundary === 'spaces' || boundary === 'items') return [long, `${token} ${short}`, token]
  if (boundary === 'padded') return [` ${token}  Łódź 🙂${token} `, ` ${token}  ${short} `, `${token}  ${short}`, `${token} ${short}`, token]
  if (boundary === 'lines') return [`${token}\t${DECOMPOSED}${MARKS}\r\n🙂${token}\n`, `${token}\t${short}\n`, `${token}\n${short}`, token]
  return [token]
}

/**
 * The string of a free string node at a boundary, built on its sentinel `token` (`zq000001`): `undefined` for an
 * empty string (`empty`, where the schema takes one), else the sentinel `verify` follows.
 * @example
 * ```ts
 * boundaryString({ type: 'string' }, 'spaces', 'zq000001')                // 'zq000001 Łódź 🙂zq000001'
 * boundaryString({ type: 'string', maxLength: 20 }, 'padded', 'zq000001') // ' zq000001  q000001 '
 * boundaryString({ type: 'string' }, 'empty', 'zq000001')                 // undefined: ''
 * ```
 */
function boundaryString (node: JsonSchema, boundary: Boundary | undefined, token: string): string | undefined {
  const min = typeof node.minLength === 'number' ? node.minLength : 0
  const max = typeof node.maxLength === 'number' ? node.maxLength : Infinity
  if (boundary === 'empty' && min === 0) return undefined
  const base = formsOf(token, boundary).find((form) => [...form].length <= max) ?? token
  const length = boundary === 'large' ? Math.max(min, Math.min(max, LONG)) : min
  const extra = length - [...base].length
  if (extra <= 0) return base
  // Padded to the length before a trailing space, which stays last.
  return base.endsWith(' ') ? `${base.slice(0, -1)}${'q'.repeat(extra)} ` : base + 'q'.repeat(extra)
}

/** The sentinel of a string of `format` (`undefined` for a format without one); for `padded`, an e-mail's local part in upper case. */
function formatSentinel (format: unknown, count: number, base36: string, boundary: Boundary | undefined): string | undefined {
  switch (format) {
    case 'uuid': return `00000000-0000-4000-8000-${count.toString(16).padStart(12, '0')}`
    case 'email': return `${boundary === 'padded' ? `ZQ${base36.toUpperCase()}` : `zq${base36}`}@example.com`
    case 'uri': case 'url': return `https://example.com/zq${base36}`
    case 'hostname': return `zq${base36}.example.com`
    // Seconds and milliseconds of their own: a converter cutting a date-time to the minute or second loses them.
    case 'date-time': return new Date(Date.UTC(2001, 0, 1) + count * 60_000 + 7_123).toISOString()
    default: return undefined
  }
}

/** True when the application's Ajv (its `formats`) takes `text` for the node's format (or it declares none of its own). */
function formatTakes (node: JsonSchema, text: string, formats: FormatPatterns | undefined): boolean {
  const check = typeof node.format === 'string' ? formats?.(node.format) : undefined
  return check === undefined || (check instanceof RegExp ? check.test(text) : check(text))
}

/**
 * A sentinel for a free string of `node`, the `count`-th of its example (`undefined` when its format, pattern or
 * length leaves no room for one: the string is then the field's example), at `boundary` for a boundary example (`''`
 * for an empty string, spaces only for `blank`: no sentinel). A format's sentinel (an e-mail, a UUID…) is kept only
 * where the schema asks nothing more of it: an e-mail its own pattern refuses (`@acme\.com$`), or longer than its
 * `maxLength`, is no sentinel; a `padded` e-mail in upper case that they, or the application's format, refuse is
 * the one in lower case.
 * @example
 * ```ts
 * sentinelFor({ type: 'string', format: 'email' }, 1, undefined)                          // 'zq000001@example.com'
 * sentinelFor({ type: 'string', format: 'email' }, 1, 'padded')                           // 'ZQ000001@example.com'
 * sentinelFor({ type: 'string', format: 'email', pattern: '@acme\\.com$' }, 1, undefined) // undefined
 * sentinelFor({ type: 'string' }, 1, 'blank')                                             // '   '
 * ```
 */
export function sentinelFor (node: JsonSchema, count: number, boundary: Boundary | undefined, formats?: FormatPatterns): string | undefined {
  const base36 = count.toString(36).padStart(6, '0')
  const min = typeof node.minLength === 'number' ? node.minLength : 0
  const max = typeof node.maxLength === 'number' ? node.maxLength : Infinity
  if (node.format !== undefined) {
    const fits = (made: string | undefined): made is string => made !== undefined && made.length >= min && made.length <= max &&
      (typeof node.pattern !== 'string' || patternOf(node)?.test(made) === true)
    const made = formatSentinel(node.format, count, base36, boundary)
    if (boundary !== 'padded' || (fits(made) && formatTakes(node, made, formats))) return fits(made) ? made : undefined
    return sentinelFor(node, count, undefined)
  }
  if (typeof node.pattern === 'string') return undefined
  if (boundary === 'blank') return ' '.repeat(Math.min(Math.max(BLANK, min), max))
  const token = `zq${base36}`
  if (token.length > max) return boundary === 'empty' && node.minLength === undefined ? '' : undefined
  return boundaryString(node, boundary, token) ?? ''
}
