/**
 * The boundaries where converters lose data, for `verify`'s examples (./example-generation.ts). Before its random
 * examples, `verify` replays one example per boundary, in which every free value of the schema sits on that
 * boundary and every optional field is present:
 * - `spaces`: strings of three words with letters beyond ASCII (`zq000001 Łódź 🙂zq000001`: a name cut at its first
 *   space, letters stripped), numbers with a fraction that times 100 is no whole number in JavaScript (`19.99`:
 *   cents dropped, or not rounded), `true`, lists of two items;
 * - `empty`: empty strings, `0`, `false`, empty lists and records (`if (body.memo)` skipping them);
 * - `null`: `null` wherever the schema allows it;
 * - `negative`: negative numbers (made positive), with such a fraction (`-4.35`), lists of two items (two lines a
 *   version cannot show in a row: a converter splicing items out while it counts them up skips the second);
 * - `large`: strings as long as the schema allows (1,000 characters without `maxLength`: a string cut), numbers
 *   beyond 32 bits (or the schema's maximum), lists of strings, numbers or flags as long as it allows (101 items
 *   without `maxItems`: a list cut to a page), lists of objects 11 where no list of objects holds them (nested: short);
 * - `items`: the values of `spaces`, but the first item of every list is an `empty` one as bare as its schema allows
 *   (`null` where allowed, `''`, `0`, `false`, `{}` or an object of its required fields only, a list of `minItems`):
 *   `['', 'zq000001 Łódź 🙂zq000001']`, `[[], [0, 19.99]]` (a converter's `filter(Boolean)` meets them); the last
 *   string, number or flag sent twice where the list takes duplicates (`new Set` meets it); a record's first entry
 *   bare too (./example-tokens.ts). Objects stay distinct (two entries with one key are one in a map);
 * - `padded`: strings with a space at each end and two between words (` zq000001  Łódź 🙂zq000001 `), e-mails with an
 *   upper-case local part (`ZQ000001@example.com`): a string trimmed, its spaces collapsed, its case folded;
 * - `blank`: strings of spaces only (`'   '`): a whitespace-only memo made `''`;
 * - `lines`: strings of lines, a tab between words, letters decomposed (NFD), the marks of Markdown and a last line
 *   break (`zq000001\tŁódź#*_\n🙂zq000001\n`): a memo cut to its first line, its tabs or line breaks made spaces,
 *   normalized to NFC, stripped of `#`, `*` and `_`; replayed only where some string takes it.
 * `padded`, `blank` and `lines` hold the numbers and flags of `spaces`, without twins (./example-generation.ts), and
 * lists of one item; their strings are written by ./boundary-strings.ts, with every other boundary's free strings.
 * A string with a `pattern` (no sentinel) that takes numbers written as text (an amount `'19.99'`, an id `'101'`) is
 * the boundary's number as text: `'19.99'`, `'0101'` (a leading zero; `'01111'` for digits of a fixed length, a zip
 * code `^[0-9]{5}$`), `'0.00'`, `'-4.35'`, past 2^53 for `large` (a converter parsing it meets what the numbers meet,
 * and loses the zero); for `empty`, it is `''` where its pattern
 * takes that, and otherwise, without such a number, its example shortened as far as the pattern allows (`'|'` for
 * `'street|zip'`); for another boundary, without such a number, its example in both cases where its pattern takes
 * them (`'dD-1'` for `'dd-1'` of `^[A-Za-z]{2}-[0-9]+$`: a code's case folded).
 * A Unix time its description states (./unit-words.ts) has its positive boundary numbers on 2025-06-01 (`1748736101`).
 * Values stay within the schema's bounds (`minimum`, `maximum`, `multipleOf`, `minLength`, `maxLength`).
 * @module
 */
import { exampleOf, type JsonSchema } from '../values/examples'
import { patternOf, type FormatPatterns } from '../values/string-examples'
import { unitOf } from './unit-words'

/** One boundary of the examples (see the module comment). */
export type Boundary = 'spaces' | 'empty' | 'null' | 'negative' | 'large' | 'items' | 'padded' | 'blank' | 'lines'

/** The boundaries, in the order their examples are replayed. */
export const BOUNDARIES: readonly Boundary[] = ['spaces', 'empty', 'null', 'negative', 'large', 'items', 'padded', 'blank', 'lines']

/** The keys of the entries generated for a record (`additionalProperties` or `patternProperties`): its entries are alike. */
export const RECORD_KEYS: readonly string[] = ['extraOne', 'extraTwo']

/**
 * The range of a number schema: its lowest and highest values (infinite when unbounded) and the step between values
 * (`0` for any number).
 * @example
 * ```ts
 * numberRange({ type: 'integer', exclusiveMinimum: 0 }, true) // { low: 1, high: Infinity, step: 1 }
 * ```
 */
export function numberRange (node: JsonSchema, integer: boolean): { low: number, high: number, step: number } {
  const step = typeof node.multipleOf === 'number' ? node.multipleOf : integer ? 1 : 0
  const next = step === 0 ? Number.EPSILON * 1024 : step
  let low = typeof node.minimum === 'number' ? node.minimum : -Infinity
  if (typeof node.exclusiveMinimum === 'number') low = Math.max(low, node.exclusiveMinimum + next)
  let high = typeof node.maximum === 'number' ? node.maximum : Infinity
  if (typeof node.exclusiveMaximum === 'number') high = Math.min(high, node.exclusiveMaximum - next)
  return { low, high, step }
}

/**
 * The `multiple`-th multiple of `step`, as a client writes it: for a decimal step (`0.01`, `0.05`: one over a whole
 * number), the multiple divided by that number, the double nearest the decimal (`1999 / 100` is `19.99`, where
 * `1999 * 0.01` is `19.990000000000002`, whose `Math.floor(x * 100)` hides the cents a client's `19.99` loses).
 * @example
 * ```ts
 * multipleOfStep(1999, 0.01) // 19.99
 * multipleOfStep(3, 2)       // 6
 * ```
 */
export function multipleOfStep (multiple: number, step: number): number {
  const inverse = Math.round(1 / step)
  return inverse > 1 && Math.abs(inverse - 1 / step) < 1e-9 ? multiple / inverse : multiple * step
}

/**
 * The number of a boundary (for an integer, the `count`-th of its example: integers differ), within the schema's
 * range.
 * @example
 * ```ts
 * boundaryNumber({ type: 'number' }, false, 'negative', 1)      // -4.35
 * boundaryNumber({ type: 'integer', maximum: 50 }, true, 'large', 1) // 50
 * ```
 */
export function boundaryNumber (node: JsonSchema, integer: boolean, boundary: Boundary, count: number): number {
  // 19.99 * 100 and -4.35 * 100 are no whole numbers in JavaScript: a converter to cents must round.
  const plain = boundary === 'empty'
    ? 0
    : boundary === 'negative'
      ? integer ? -(100 + count) : -4.35
      : boundary === 'large' ? 2 ** 41 + count + (integer ? 0 : 0.5) : integer ? 100 + count : 19.99
  // A Unix time (./unit-words.ts) is of 2025-06-01, not 1970, where neither zero, negative nor large: a converter meets its magnitude.
  const unit = plain > 0 && boundary !== 'large' ? unitOf(node) : undefined
  const wanted = unit?.kind === 'time' && unit.unix ? plain + 1_748_736_000 * (unit.name === 'seconds' ? 1 : 1000) : plain
  const { low, high, step } = numberRange(node, integer)
  let value = Math.min(Math.max(wanted, low), high)
  if (step > 0) {
    value = multipleOfStep(Math.round(value / step), step)
    if (value < low) value = multipleOfStep(Math.round(value / step) + 1, step)
    if (value > high) value = multipleOfStep(Math.round(value / step) - 1, step)
  }
  return integer ? Math.round(value) : value
}

/**
 * A neighbour of a boundary number, for its twin example: one less (0.01 less for a number; for zero, `1`), or
 * the other side where that leaves the schema's range (by `multipleOf` where it sets one); the number itself when it has no neighbour.
 * @example
 * ```ts
 * twinNumber({ type: 'number' }, false, 19.99)               // 19.98
 * twinNumber({ type: 'integer', minimum: 0 }, true, 0)       // 1
 * ```
 */
export function twinNumber (node: JsonSchema, integer: boolean, value: number): number {
  const { low, high, step } = numberRange(node, integer)
  const by = step > 0 ? step : 0.01
  const fit = (candidate: number): number => integer ? Math.round(candidate) : Math.round(candidate * 1e6) / 1e6
  // Zero's is one (the first step from 1 up), where the range allows it: `qty || 1` makes the two one.
  const [first, second] = value === 0 ? [fit(Math.ceil(1 / by) * by), fit(-by)] : [fit(value - by), fit(value + by)]
  if (first >= low && first <= high) return first
  return second >= low && second <= high ? second : value
}

/**
 * True when a schema node takes `null` (`type: 'null'`, or a list of types holding it, or `nullable`).
 * @example
 * ```ts
 * allowsNull({ type: ['string', 'null'] }) // true
 * ```
 */
export function allowsNull (node: JsonSchema): boolean {
  return node.type === 'null' || (Array.isArray(node.type) && node.type.includes('null')) || node.nullable === true
}

/** The lengths of a `large` list without `maxItems`: of plain items (strings, numbers, flags), of objects (`paged`). */
const [LONG_LIST, PAGED_LIST] = [101, 11]

/**
 * The length of a list at a boundary: `minItems` for `empty`, two items for `spaces` and `items`, for `large` as many
 * as the schema allows (101 without `maxItems`: a list cut to its first 10 or 100) where the items are `plain`
 * (strings, numbers or flags), 11 where they are `paged` (objects outside other lists of objects), else one.
 * @example
 * ```ts
 * boundaryLength({ type: 'array' }, 'large', 'plain')               // 101
 * boundaryLength({ type: 'array' }, 'large', 'paged')               // 11
 * ```
 */
export function boundaryLength (node: JsonSchema, boundary: Boundary, items: 'plain' | 'paged' | 'nested'): number {
  const min = typeof node.minItems === 'number' ? node.minItems : 0
  const max = typeof node.maxItems === 'number' ? node.maxItems : Infinity
  if (boundary === 'empty') return min
  const wanted = boundary === 'spaces' || boundary === 'items' || boundary === 'negative' ? 2 : boundary !== 'large' ? 1 : items === 'plain' ? LONG_LIST : items === 'paged' ? PAGED_LIST : 1
  return Math.max(min, Math.min(max, wanted))
}

/**
 * The items of a boundary list that refuses duplicates (`uniqueItems`), each kept once by `keyOf`: booleans, numbers
 * with no fraction to tell them apart and strings made from one pattern come out alike, and a list holding them twice
 * would have its schema refuse the whole example, every other field's boundary with it.
 * @example
 * ```ts
 * distinctItems([true, true], String) // [true]
 * ```
 */
export function distinctItems<T> (items: readonly T[], keyOf: (item: T) => string): T[] {
  const keys = items.map(keyOf)
  return items.filter((_item, index) => keys.indexOf(keys[index]) === index)
}

/**
 * Numbers written as text, by boundary, decimal before whole: what a patterned string takes first ({@link patternedText});
 * digits with a leading zero (a postcode `'02134'`) before those without, which a converter parsing them loses.
 */
const NUMERIC_TEXTS: Readonly<Record<Boundary, readonly string[]>> = {
  spaces: ['19.99', '0101', '101'],
  items: ['19.99', '0101', '101'],
  empty: ['0.00', '0'],
  null: [],
  negative: ['-4.35', '-101'],
  large: ['2199023255553.51', '9007199254740993'],
  padded: [],
  blank: [],
  lines: []
}

/**
 * For `spaces` and `items`, the digits of a fixed length a pattern takes with a leading zero (`'01111'` for a zip code
 * `^[0-9]{5}$`, which no text of {@link NUMERIC_TEXTS} fits): a converter making them a number loses the zero.
 * @example
 * ```ts
 * leadingZeroDigits('spaces', (text) => /^[0-9]{5}$/.test(text)) // '01111'
 * ```
 */
function leadingZeroDigits (boundary: Boundary, takes: (text: string) => boolean): string | undefined {
  if (boundary !== 'spaces' && boundary !== 'items') return undefined
  for (let length = 2; length <= 32; length++) if (takes(`0${'1'.repeat(length - 1)}`)) return `0${'1'.repeat(length - 1)}`
  return undefined
}

/** The letters tried where a pattern taking both cases has no letter in its example (a hex id `'6'`). */
const LETTERS = [...'abcdefghijklmnopqrstuvwxyz']

/**
 * `text` in both cases where the pattern takes them (a code `^[A-Za-z]{2}-[0-9]+$`), so that folding it either way
 * (`toLowerCase()`, `toUpperCase()`) changes it: its last letter whose other case (one code point) the pattern takes
 * in that case (`'dd-1'` → `'dD-1'`); without one, an upper-case letter at the last place taking a letter in both
 * cases and a lower-case one at the place before that (`'4.yv'` → `'A.yv'`, `'66'` → `'aA'`, `'6'` → `'A'`), or
 * with `upperFirst` false the other way round (`'6'` → `'a'`: across the boundaries, a text of one letter is sent in
 * both cases, in a header too: `padded` and `negative` put the upper case first).
 * `undefined` where it holds both cases already, or the pattern takes no letter in both cases (a pattern of one case:
 * the example is kept).
 * @example
 * ```ts
 * bothCases('dd-1', (text) => /^[A-Za-z]{2}-[0-9]+$/u.test(text), true) // 'dD-1'
 * ```
 */
function bothCases (text: string, takes: (text: string) => boolean, upperFirst: boolean): string | undefined {
  const chars = [...text]
  const [upper, lower] = [chars.some((char) => char !== char.toLowerCase()), chars.some((char) => char !== char.toUpperCase())]
  if (upper && lower) return undefined
  const put = (list: string[], at: number, char: string): string[] => [...list.slice(0, at), char, ...list.slice(at + 1)]
  for (let at = chars.length - 1; at >= 0; at--) {
    const other = chars[at] === chars[at].toLowerCase() ? chars[at].toUpperCase() : chars[at].toLowerCase()
    if (other !== chars[at] && [...other].length === 1 && takes(put(chars, at, other).join(''))) return put(chars, at, other).join('')
  }
  // No letter to flip: the cases it lacks put in (in its last 32 places at most: a long example of digits stays quick).
  let [made, from] = [chars, chars.length - 1]
  const lacked = [...(upper ? [] : [true]), ...(lower ? [] : [false])]
  for (const big of upperFirst ? lacked : lacked.reverse()) {
    for (let at = from; at >= Math.max(0, chars.length - 32); at--) {
      const letter = LETTERS.find((char) => takes(put(made, at, char).join('')) && takes(put(made, at, char.toUpperCase()).join('')))
      if (letter === undefined) continue
      [made, from] = [put(made, at, big ? letter.toUpperCase() : letter), at - 1]
      break
    }
  }
  return made === chars ? undefined : made.join('')
}

/**
 * The text of a boundary that a string node with a `pattern` and no `format` takes, within its lengths: for `empty`,
 * `''` where the pattern takes it; else the boundary's number written as text (a decimal amount `'19.99'`, a numeric
 * id); else, for `empty`, `example` with its characters left out one by one while the pattern still takes it (`'n|a'`
 * → `'|'`: the empty parts a converter splitting it meets); for another boundary, `example` in both cases where the
 * pattern takes them ({@link bothCases}: `'dd-1'` → `'dD-1'`, a converter folding its case meets it; upper case
 * first at `padded` and `negative`). `undefined`
 * when it takes none (its example is then the pattern's string).
 * @example
 * ```ts
 * patternedText({ type: 'string', pattern: '^-?[0-9]+\\.[0-9]{2}$' }, 'spaces', '5.83') // '19.99'
 * patternedText({ type: 'string', pattern: '^[0-9]+$' }, 'large', '7')                 // '9007199254740993'
 * patternedText({ type: 'string', pattern: '^[a-z]*\\|[a-z]*$' }, 'empty', 'n|a')       // '|'
 * patternedText({ type: 'string', pattern: '^[A-Za-z]{2}-[0-9]+$' }, 'large', 'dd-1')  // 'dD-1'
 * patternedText({ type: 'string', pattern: '^cus_[0-9]+$' }, 'spaces', 'cus_0')        // undefined
 * ```
 */
export function patternedText (node: JsonSchema, boundary: Boundary, example: unknown): string | undefined {
  const pattern = node.format === undefined ? patternOf(node) : undefined
  if (pattern === undefined) return undefined
  const min = typeof node.minLength === 'number' ? node.minLength : 0
  const max = typeof node.maxLength === 'number' ? node.maxLength : Infinity
  const takes = (text: string): boolean => [...text].length >= min && [...text].length <= max && pattern.test(text)
  if (boundary === 'empty' && takes('')) return ''
  const numeric = NUMERIC_TEXTS[boundary].find(takes) ?? leadingZeroDigits(boundary, takes)
  if (numeric !== undefined || typeof example !== 'string' || !takes(example)) return numeric
  // Upper case first at `padded`, and at `negative` too: headers are not sent padded, and a text of one letter must meet both folds there.
  if (boundary !== 'empty') return bothCases(example, takes, boundary === 'padded' || boundary === 'negative')
  let kept = [...example]
  for (let at = 0; at < kept.length;) {
    const shorter = [...kept.slice(0, at), ...kept.slice(at + 1)]
    if (takes(shorter.join(''))) kept = shorter
    else at++
  }
  return kept.join('')
}

/**
 * A free string without a sentinel: `exampleOf`'s (matching its pattern, or its format's regular expression in `formats`),
 * made once per node into `leaves`, or `'example'` when it cannot make one (the example is then invalid, and skipped).
 * @example
 * ```ts
 * leafExample({ type: 'string', pattern: '^cus_[0-9]+$' }, formats, leaves) // 'cus_0'
 * ```
 */
export function leafExample (node: JsonSchema, formats: FormatPatterns | undefined, leaves: Map<JsonSchema, unknown>): unknown {
  if (!leaves.has(node)) {
    try { leaves.set(node, exampleOf(node, { formats })) } catch { leaves.set(node, 'example') }
  }
  return structuredClone(leaves.get(node))
}
