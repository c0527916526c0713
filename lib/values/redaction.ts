/**
 * Redaction of recorded data (the exchanges `captureExchanges` publishes): named headers and the places JSON pointers
 * name are replaced by {@link REDACTED}, and every value found there is then removed wherever else it stands in the
 * same record (a converter's copy of it in a nested object, a renamed field, a header of another case, a longer
 * string holding it): see docs/decisions/0084-captured-exchanges.md.
 * @module
 */
import { pointerKey } from '../core/json-schema'
import { setOwn } from '../core/own-properties'

/** What stands in place of a redacted value. */
export const REDACTED = '[redacted]'

/**
 * A value shorter than this is removed inside longer strings only where it stands as a word, between characters that
 * are not letters or digits (`'cvc 123'`; `'1'` would otherwise empty every number); a longer one wherever it stands.
 */
const SHORTEST_INSIDE = 4

/** What a short value is found as inside a string: a word of its own (see {@link SHORTEST_INSIDE}). */
function asWord (value: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'gu')
}

/** What to redact: header names (lower case) and JSON pointers (as segments; `*` is every item or key). */
export interface Redaction {
  readonly headers: ReadonlySet<string>
  readonly pointers: ReadonlyArray<readonly string[]>
}

/** The segments of a JSON pointer (`/card/number` → `['card', 'number']`). */
export function pointerSegments (pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map(pointerKey)
}

/** The parts of one record: header objects, and data (bodies, query strings) that pointers apply to. Changed in place. */
export interface RedactedParts {
  readonly headers: ReadonlyArray<Record<string, unknown>>
  readonly data: ReadonlyArray<{ value: unknown }>
}

/** Every scalar of a value (strings and numbers, as text), into `found`. */
function collectScalars (value: unknown, found: Set<string>): void {
  if (typeof value === 'string' || typeof value === 'number') {
    if (value !== REDACTED) found.add(String(value))
    return
  }
  if (typeof value !== 'object' || value === null) return
  for (const item of Object.values(value)) collectScalars(item, found)
}

/**
 * Every value of a redacted header into `found`: the whole, each item of a list (Node joins a repeated request
 * header's values with `, `, and cookies with `; `), the value of each `name=value` item and the credentials after an
 * authorization scheme (`Bearer <token>`), so that each one sent is also removed where it stands alone. Of a
 * `set-cookie` line, only the cookie (before its first `;`) counts: its attributes (`Max-Age=0`, `Path=/`) are no secret.
 */
function collectHeaderValues (name: string, value: unknown, found: Set<string>): void {
  collectScalars(value, found)
  for (const text of Array.isArray(value) ? value : [value]) {
    if (typeof text !== 'string') continue
    const items = name === 'set-cookie' ? [text.split(';')[0]] : text.split(/[,;]/)
    for (const item of items.map((part) => part.trim())) {
      if (item !== '') found.add(item)
      const assigned = item.indexOf('=')
      if (assigned > 0 && assigned < item.length - 1) found.add(item.slice(assigned + 1))
      const credentials = /^[^\s=]+\s+(\S+)$/.exec(item)?.[1]
      if (credentials !== undefined) found.add(credentials)
    }
  }
}

/** Replaces the values at `segments` under `holder[key]` (every item or key for `*`), noting them in `found`. */
function redactAt (holder: Record<string, unknown>, key: string, segments: readonly string[], found: Set<string>): void {
  const value = holder[key]
  if (segments.length === 0) {
    if (value === undefined) return
    collectScalars(value, found)
    setOwn(holder, key, REDACTED)
    return
  }
  if (typeof value !== 'object' || value === null) return
  const [first, ...rest] = segments
  const children = value as Record<string, unknown>
  const keys = first === '*' ? Object.keys(children) : Object.hasOwn(children, first) ? [first] : []
  for (const child of keys) redactAt(children, child, rest, found)
}

/** A string with every redacted value it holds removed (whole, or inside it: long values anywhere, short ones as words). */
function scrubString (text: string, found: ReadonlySet<string>, inside: ReadonlyArray<string | RegExp>): string {
  if (found.has(text)) return REDACTED
  let result = text
  for (const value of inside) {
    if (typeof value !== 'string') result = result.replace(value, REDACTED)
    else if (result.includes(value)) result = result.split(value).join(REDACTED)
  }
  return result
}

/** `value` with every redacted value removed, in strings, numbers and keys, at any depth (objects changed in place). */
function scrub (value: unknown, found: ReadonlySet<string>, inside: ReadonlyArray<string | RegExp>): unknown {
  if (typeof value === 'string') return scrubString(value, found, inside)
  if (typeof value === 'number') return found.has(String(value)) ? REDACTED : value
  if (typeof value !== 'object' || value === null) return value
  const holder = value as Record<string, unknown>
  let count = 0
  for (const key of Object.keys(holder)) {
    const item = scrub(holder[key], found, inside)
    const name = Array.isArray(holder) ? key : scrubString(key, found, inside)
    if (name === key) {
      holder[key] = item
      continue
    }
    delete holder[key]
    setOwn(holder, Object.hasOwn(holder, name) ? `${name}${++count}` : name, item)
  }
  return value
}

/**
 * Redacts one record in place: the headers `redaction` names (any case) and the places its pointers name in each data
 * part are replaced by {@link REDACTED}, then every string or number found there is removed from every part, headers
 * included. True when something was redacted.
 * @example
 * ```ts
 * const parts = { headers: [sent.headers], data: [{ value: sent.body }] }
 * redact(parts, { headers: new Set(['authorization']), pointers: [['card', 'number']] })
 * ```
 */
export function redact (parts: RedactedParts, redaction: Redaction): boolean {
  const found = new Set<string>()
  for (const headers of parts.headers) {
    for (const name of Object.keys(headers)) {
      if (!redaction.headers.has(name.toLowerCase()) || headers[name] === undefined) continue
      collectHeaderValues(name.toLowerCase(), headers[name], found)
      headers[name] = REDACTED
    }
  }
  for (const part of parts.data) {
    for (const segments of redaction.pointers) redactAt(part as unknown as Record<string, unknown>, 'value', segments, found)
  }
  if (found.size === 0) return false
  const long = [...found].filter((value) => value.length >= SHORTEST_INSIDE).sort((left, right) => right.length - left.length)
  const inside = [...long, ...[...found].filter((value) => value !== '' && value.length < SHORTEST_INSIDE).map(asWord)]
  for (const headers of parts.headers) scrub(headers, found, inside)
  for (const part of parts.data) part.value = scrub(part.value, found, inside)
  return true
}

/**
 * True for a value redaction replaced, or a string holding one (what replay cannot compare).
 * @example
 * ```ts
 * isRedacted('[redacted]') // true
 * ```
 */
export function isRedacted (value: unknown): boolean {
  return typeof value === 'string' && value.includes(REDACTED)
}
