/**
 * Strings joined from several fields and split back, for `verify` (docs/decisions/0185-verify-judges-joined-parts.md):
 * an address's `line1` and optional `line2` joined into `value`, a name joined from `firstName` and `lastName` or split
 * into them. What can be told without a false red on right converters: a part absent joined as `''` (its separator
 * left at the start or end, or doubled between two parts: `[line1, line2].join('\n')` gives `'1 Main St\n'`), parts
 * joined in another order than `derivedFrom` declares them, and a whole split into parts that are not its words in
 * that order (swapped, or cut to a word). Which space a name is split at is not judged: at the first or the last, the
 * parts joined again give the name back.
 * @module
 */
import { valueAt, type FollowedValue, type PathKey } from './data-flow'
import type { JoinedValue } from './moved-values'
import { foldedText } from './renamed-values'

/** A separator a join leaves between parts: spaces, line breaks, commas, bars, slashes, dashes (no bracket, no word). */
const SEPARATOR = /^[\s,;|/·•–—-]+$/u

/**
 * What a part absent leaves around a join besides a separator (decision 0202): a word joining two parts (`' and '`,
 * `' & '`), an empty bracket pair (`' ()'`), or JavaScript's text for no value (`' (undefined)'`), amid separators.
 */
const WORDED = /^[\s,;|/·•–—-]*(?:and|or|&|\+|und|et|y|with|\(\s*\)|\[\s*\]|\{\s*\}|<\s*>|"\s*"|[([{<"]?(?:undefined|null)[)\]}>"]?)[\s,;|/·•–—-]*$/u

/** True when `gap` is what a join leaves of a separator without its part: a separator, or one of {@link WORDED}. */
const leftOver = (gap: string): boolean => gap !== '' && (SEPARATOR.test(gap) || WORDED.test(gap))

/** A string of words and spaces alone (a name a split may cut at any of its spaces). */
const WORDS = /^(?:[\p{L}\p{N}\p{M}\p{Extended_Pictographic} ]|\u200d|\ufe0f)*$/u

/** The text of `whole` (in lower case) around `parts` found in it in this order: before the first, between each two, after the last. */
function gapsAround (whole: string, parts: readonly string[]): string[] | undefined {
  const lower = whole.toLowerCase()
  const gaps: string[] = []
  let at = 0
  for (const part of parts.map((text) => text.toLowerCase())) {
    const found = lower.indexOf(part, at)
    if (found === -1) return undefined
    gaps.push(lower.slice(at, found))
    at = found + part.length
  }
  return [...gaps, lower.slice(at)]
}

/** Where a separator is left around the parts: `'start'`, `'end'`, or `'between'` (doubled, where `between` says a part was left out between two). */
function separatorLeft (gaps: readonly string[], absent: { before: boolean, after: boolean, between: readonly boolean[] }): string | undefined {
  const [first, last] = [gaps[0], gaps[gaps.length - 1]]
  if (absent.before && leftOver(first)) return 'at its start'
  if (absent.after && leftOver(last)) return 'at its end'
  const middle = gaps.slice(1, -1)
  for (const [index, gap] of middle.entries()) {
    const half = gap.slice(0, gap.length / 2)
    if (!absent.between[index]) continue
    // A word twice, an empty bracket pair or `undefined` between two parts is never a separator on purpose (' and  and ', ' () ').
    const once = gap.replace(/(\S+)(\s+)\1/u, '$1')
    if (!SEPARATOR.test(gap) && ((once !== gap && WORDED.test(once)) || /[([{<"]\s*[)\]}>"]|\b(?:undefined|null)\b/u.test(gap))) return 'doubled'
    if (gap.length % 2 !== 0 || half === '' || half + half !== gap || !SEPARATOR.test(half)) continue
    // A separator written twice on purpose ('\n\n' between paragraphs) shows once between two parts joined with it;
    // a space never is (two spaces between the only two parts present, a middle name absent).
    if (middle.includes(half) || half === ' ' || (/\s/.test(half) && /\S/.test(half))) return 'doubled'
  }
  return undefined
}

/**
 * What became of a renamed string `value` (of the object `holder`, at `key`) that arrived as `arrived` with a separator
 * added at its start or end: a part absent joined as `''` (`[line1, line2].join('\n')`); `undefined` otherwise, and
 * where the holder holds another string a join may have added as it is (`''`, `' '`, `'-'`).
 * @example
 * ```ts
 * emptyPartJoined('1 Main St', '1 Main St\n', { id: 'a1', line1: '1 Main St' }, 'line1', shown) // "arrives as '1 Main St\\n', a separator at its end: …"
 * ```
 */
export function emptyPartJoined (value: string, arrived: unknown, { holder, key }: { holder: unknown, key: PathKey }, show: (value: unknown) => string): string | undefined {
  if (typeof arrived !== 'string' || arrived === value || typeof holder !== 'object' || holder === null) return undefined
  const others = Object.entries(holder).filter(([name]) => name !== key).map(([, held]) => held)
  if (JSON.stringify(others).match(/"(?:[^"\\]|\\.)*"/g)?.some((text) => !/[\p{L}\p{N}]/u.test(JSON.parse(text) as string)) === true) return undefined
  const gaps = gapsAround(arrived, [value])
  const where = gaps === undefined ? undefined : separatorLeft(gaps, { before: gaps[1] === '', after: gaps[0] === '', between: [] })
  return where === undefined ? undefined : `arrives as ${show(arrived)}, a separator ${where}: a part absent joined as ''`
}

/** A difference of a join: the place followed (the whole, or the first part the example holds), its value, what became of it. */
interface JoinDifference { readonly at: FollowedValue, readonly value: unknown, readonly became: string, readonly fix: string }

/** What to do about a join or split that loses what the client sent. */
export const JOIN_FIX = "Join only the parts present, in the order derivedFrom declares them ([line1, line2].filter((part) => part !== undefined).join('\\n')), " +
  'and split a whole into its words in that order (at its first or last space): a part absent joined as \'\' leaves its separator, and parts swapped or cut change what the client reads.'

/**
 * The joins of an example (./moved-values.ts `joinedValues`) that `data`, at the other level, does not keep: parts
 * present joined leaving a separator of a part absent, or in another order than declared; a whole split into parts
 * that are not its words in the declared order.
 * @example
 * ```ts
 * joinedChanges([{ whole: ['name'], parts: [['firstName'], ['lastName']], split: false, ordered: true }], { firstName: 'Ada' }, { name: 'Ada ' }, shown)
 * // [{ at: …, value: 'Ada', became: "arrives as 'Ada ' in name, a separator at its end: lastName, absent, joined as ''", fix: … }]
 * ```
 */
export function joinedChanges (joins: readonly JoinedValue[], example: unknown, data: unknown, show: (value: unknown) => string): JoinDifference[] {
  const found: JoinDifference[] = []
  for (const join of joins) {
    const [whole, held] = join.split ? [valueAt(example, join.whole), join.parts.map((part) => valueAt(data, part))] : [valueAt(data, join.whole), join.parts.map((part) => valueAt(example, part))]
    // A number is joined as its text (`${street} ${number}`: decision 0202).
    const parts = held.map((part) => typeof part === 'number' && Number.isFinite(part) ? String(part) : part)
    if (typeof whole !== 'string' || parts.some((part) => part !== undefined && typeof part !== 'string')) continue
    const present = join.parts.map((path, index) => ({ path, text: parts[index] as string | undefined })).filter((part): part is { path: readonly PathKey[], text: string } => part.text !== undefined)
    const named = (path: readonly PathKey[]): string => String(path[path.length - 1])
    const became = join.split ? splitChange(join, whole, present.map((part) => part.text), show) : joinChange(join, whole, present, show)
    if (became === undefined) continue
    const from = join.split ? join.whole : present[0]?.path ?? join.parts[0]
    found.push({ at: { from, to: join.split ? join.parts[0] : join.whole, sameType: true }, value: join.split ? whole : valueAt(example, from), became: became.replace('{whole}', named(join.whole)), fix: JOIN_FIX })
  }
  return found
}

/** What a join of the parts present (each with its place) did wrong in `whole`: a separator of a part absent left, the parts in another order. */
function joinChange (join: JoinedValue, whole: string, present: ReadonlyArray<{ path: readonly PathKey[], text: string }>, show: (value: unknown) => string): string | undefined {
  const folded = present.map((part) => foldedText(part.text))
  if (join.ordered && folded.length > 1 && folded.every((part, index) => part !== '' && folded.every((other, at) => at === index || !other.includes(part)))) {
    const at = folded.map((part) => foldedText(whole).indexOf(part))
    if (at.every((index) => index !== -1) && at.some((index, position) => position > 0 && index < at[position - 1])) {
      return `arrives as ${show(whole)} in {whole}, its parts (${present.map((part) => String(part.path[part.path.length - 1])).join(', ')}) not in the order derivedFrom declares`
    }
  }
  const absent = join.parts.filter((path) => !present.some((part) => part.path === path))
  if (absent.length === 0 || present.some((part) => !/[\p{L}\p{N}]/u.test(part.text))) return undefined
  const gaps = gapsAround(whole, present.map((part) => part.text))
  const index = (path: readonly PathKey[]): number => join.parts.indexOf(path)
  const [first, last] = [index(present[0]?.path ?? []), index(present[present.length - 1]?.path ?? [])]
  const between = present.slice(1).map((part, position) => absent.some((path) => index(path) > index(present[position].path) && index(path) < index(part.path)))
  const where = gaps === undefined || present.length === 0
    ? undefined
    : separatorLeft(gaps, join.ordered
      ? { before: absent.some((path) => index(path) < first), after: absent.some((path) => index(path) > last), between }
      : { before: true, after: true, between: between.map(() => false) })
  return where === undefined ? undefined : `arrives as ${show(whole)} in {whole}, a separator ${where}: ${absent.map((path) => String(path[path.length - 1])).join(', ')}, absent, joined as ''`
}

/** What a split of `whole` into `parts` (those present, in the declared order) did wrong: not its words in that order. */
function splitChange (join: JoinedValue, whole: string, parts: readonly string[], show: (value: unknown) => string): string | undefined {
  const wanted = foldedText(whole)
  if (!join.ordered || !WORDS.test(wanted)) return undefined
  const joined = foldedText(parts.join(' '))
  if (joined === wanted) return undefined
  const words = (text: string): string => text.split(' ').sort().join(' ')
  return `arrives split as ${parts.map(show).join(', ')}: ${words(joined) === words(wanted) ? 'its words in another order than derivedFrom declares its parts in' : 'not its words, some cut or left out'}`
}
