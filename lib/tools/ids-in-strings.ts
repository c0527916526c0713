/**
 * `replay --handlers`' identifiers inside longer strings: a recorded id carried in a comma-joined query value, an
 * `If-Match: "<etag>"`, an `X-Parent: customers/<id>` header, a note naming an invoice, or an answer's URL. An id is
 * looked for inside a string only when it cannot occur there by chance: at least 8 characters, not only letters, and
 * not inside a longer run of letters and digits; the longest first, so that one id inside another is not half replaced
 * (docs/decisions/0239-replay-maps-ids-inside-strings.md).
 * @module
 */

/** The fewest characters an id has to be looked for inside a longer string. */
const SHORTEST = 8

/**
 * True when `id` is distinctive enough to be looked for inside a longer string: at least 8 characters, one of them not
 * a letter (a word is data, whatever its length).
 * @example
 * ```ts
 * isDistinctive('cus_9f2c41d07a') // true
 * isDistinctive('refunded') // false: only letters
 * ```
 */
export function isDistinctive (id: string): boolean {
  return id.length >= SHORTEST && /[^\p{L}]/u.test(id)
}

/** A text with its ids replaced: the new text, and the old one with the replaced ids cut out (what was carried unmapped). */
interface ReplacedText {
  readonly text: string
  readonly rest: string
}

/** A character an id found inside a string must not touch: it would be part of a longer token. */
const TOKEN = /[\p{L}\p{N}]/u

/**
 * Finds distinctive ids inside strings and replaces each with its replacement (a recorded id with an application's, or
 * the other way round). Ids are added as the replay learns them; the longest one at a place wins.
 * @example
 * ```ts
 * new IdsInStrings([['inv_a1b2c3d4', 'inv_9z8y7x6w']]).replace('inv_a1b2c3d4,inv_00000000').text
 * // 'inv_9z8y7x6w,inv_00000000'
 * ```
 */
export class IdsInStrings {
  /** By their first 8 characters, the ids, longest first. */
  private readonly byStart = new Map<string, string[]>()
  private readonly replacements = new Map<string, string>()

  constructor (entries: Iterable<readonly [string, string]> = []) {
    for (const [id, replacement] of entries) this.add(id, replacement)
  }

  /** Adds an id and its replacement (the first one added for an id stays); a not distinctive id is never looked for. */
  add (id: string, replacement: string): void {
    if (!isDistinctive(id) || this.replacements.has(id)) return
    this.replacements.set(id, replacement)
    const start = id.slice(0, SHORTEST)
    const ids = this.byStart.get(start) ?? []
    ids.push(id)
    ids.sort((one, other) => other.length - one.length)
    this.byStart.set(start, ids)
  }

  /** The ids `text` holds, each where it starts, left to right, none inside another or inside a longer token. */
  private found (text: string): Array<{ at: number, id: string }> {
    const found: Array<{ at: number, id: string }> = []
    if (this.replacements.size === 0) return found
    for (let at = 0; at + SHORTEST <= text.length; at++) {
      if (at > 0 && TOKEN.test(text[at - 1])) continue
      const id = this.byStart.get(text.slice(at, at + SHORTEST))?.find((held) => text.startsWith(held, at) && !TOKEN.test(text[at + held.length] ?? ''))
      if (id === undefined) continue
      found.push({ at, id })
      at += id.length - 1
    }
    return found
  }

  /** True when `text` holds one of the ids (the whole text included). */
  holds (text: string): boolean {
    return this.found(text).length > 0
  }

  /** The replacements of the ids `text` holds (the whole text included), left to right. */
  replacementsIn (text: string): string[] {
    return this.found(text).map(({ id }) => this.replacements.get(id) as string)
  }

  /** `text` with each id it holds replaced; `rest`, `text` with them cut out (what it carried unreplaced). */
  replace (text: string): ReplacedText {
    let [replaced, rest, from] = ['', '', 0]
    for (const { at, id } of this.found(text)) {
      replaced += text.slice(from, at) + (this.replacements.get(id) as string)
      rest += `${text.slice(from, at)}\u0000`
      from = at + id.length
    }
    return { text: replaced + text.slice(from), rest: rest + text.slice(from) }
  }
}

/** One application's ids: recorded → its own, whole and inside longer strings. */
interface KnownIds {
  readonly ids: ReadonlyMap<string, string>
  readonly inside: Pick<IdsInStrings, 'replacementsIn'>
}

/**
 * True when `recorded` is a recorded id whose counterpart the application (`app`) gave is not `live`, or holds such
 * ids inside it (a URL, a `Location`) whose counterparts `live` does not hold: the answer names another thing than the
 * record (a retried create answered with a second invoice), never noise, and never a new id to learn.
 * @example
 * ```ts
 * strayId('/orders/ord_1234abcd', '/orders/ord_5678efgh', { ids: new Map(), inside: new IdsInStrings([['ord_1234abcd', 'ord_9z8y7x6w']]) }) // true
 * ```
 */
export function strayId (recorded: unknown, live: unknown, app: KnownIds): boolean {
  if (typeof recorded !== 'string') return false
  const counterpart = app.ids.get(recorded)
  if (counterpart !== undefined) return counterpart !== live
  const held = app.inside.replacementsIn(recorded)
  return held.length > 0 && (typeof live !== 'string' || held.some((id) => !holdsToken(live, id)))
}

/** True when `text` holds `id` touching no letter or digit on either side (the whole text included). */
function holdsToken (text: string, id: string): boolean {
  if (id === '') return text === ''
  for (let at = text.indexOf(id); at !== -1; at = text.indexOf(id, at + 1)) {
    if (!TOKEN.test(text[at - 1] ?? '') && !TOKEN.test(text[at + id.length] ?? '')) return true
  }
  return false
}

/** Times inside a string: an ISO 8601 date-time, or a Unix time of 10 (seconds) or 13 (milliseconds) digits. */
const TIMES = /\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?|(?<!\d)(?:\d{13}|\d{10})(?!\d)/g

/**
 * `text` with each time inside it written as its form (`<date-time>`, `<seconds>`, `<milliseconds>`): a time inside a
 * string is the clock's or the data's, which the replay cannot tell there; its form and unit are compared.
 */
function timesAsForms (text: string): string {
  return text.replace(TIMES, (time) => /^\d+$/.test(time) ? (time.length === 10 ? '<seconds>' : '<milliseconds>') : '<date-time>')
}

/** One application's ids inside strings: the recorded ones (`inside`) and its own, turned back into them (`outside`). */
interface AppIds {
  readonly inside: IdsInStrings
  readonly outside: IdsInStrings
}

/**
 * At a place the two applications answer (or render) differently, a recorded string holding known ids inside it (a
 * URL, a `Location`): `'same'` when each application's string, its ids turned back into the recorded ones and its
 * times written as their form, is the recorded one; `'changed'` when both turn into one other string (the handlers
 * changed its form); `undefined` when it holds none, or the two differ by more (a signature: left out).
 * @example
 * ```ts
 * mappedForm('/notes/note_1234abcd', ['/v2/notes/note_9z8y7x6w', '/v2/notes/note_5t4s3r2q'], [left, right]) // 'changed'
 * ```
 */
export function mappedForm (recorded: unknown, live: readonly [unknown, unknown], apps: readonly [AppIds, AppIds]): 'same' | 'changed' | undefined {
  if (typeof recorded !== 'string' || typeof live[0] !== 'string' || typeof live[1] !== 'string' || !apps[0].inside.holds(recorded)) return undefined
  const [left, right] = [timesAsForms(apps[0].outside.replace(live[0]).text), timesAsForms(apps[1].outside.replace(live[1]).text)]
  if (left !== right) return undefined
  return left === timesAsForms(recorded) ? 'same' : 'changed'
}
