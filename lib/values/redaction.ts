/**
 * Redaction of recorded data (`captureExchanges`): named headers and the places pointers name become {@link REDACTED},
 * and every value found there is removed wherever else it stands in the record (decision 0084).
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
interface RedactedParts {
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
 * Every value of a redacted header into `found`: the whole, each item of a list, each `name=value` item's value and the
 * credentials after an authorization scheme; of a `set-cookie` line, only the cookie (its attributes are no secret).
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

/** Whether the character before `start`, or at `end`, is a letter or a digit (a short value there is part of a word). */
const WORD_BEFORE = /[\p{L}\p{N}]$/u
const WORD_AFTER = /^[\p{L}\p{N}]/u

/**
 * Removes every found value from a string in one pass (Aho–Corasick): long values wherever they stand, short ones as
 * words. Linear in the string whatever the number of values, which a client chooses.
 */
function valueRemover (found: ReadonlySet<string>): (text: string) => string {
  // The trie: a node's first child found by an array (long values are chains of single children), others by a map.
  const firstUnit = [-1]; const firstChild = [0]; const others = new Map<number, number>()
  const parent = [0]; const unit = [0]; const depth = [0]; const fail = [0]; const longest = [0]; const shorts = [0]
  const starting = new Uint8Array(0x10000)
  const childOf = (node: number, code: number): number | undefined => firstUnit[node] === code ? firstChild[node] : others.get(node * 0x10000 + code)
  for (const value of found) {
    let node = 0
    for (let index = 0; index < value.length; index++) {
      const code = value.charCodeAt(index)
      if (index === 0) starting[code] = 1
      let child = childOf(node, code)
      if (child === undefined) {
        child = parent.length
        if (firstUnit[node] !== -1) others.set(node * 0x10000 + code, child)
        else [firstUnit[node], firstChild[node]] = [code, child]
        parent.push(node); unit.push(code); depth.push(index + 1); fail.push(0); longest.push(0); shorts.push(0); firstUnit.push(-1); firstChild.push(0)
      }
      node = child
    }
    if (value.length >= SHORTEST_INSIDE) longest[node] = value.length
    else if (value !== '') shorts[node] |= 1 << value.length
  }
  const step = (from: number, code: number): number => {
    for (let node = from; ; node = fail[node]) {
      const child = childOf(node, code)
      if (child !== undefined) return child
      if (node === 0) return 0
    }
  }
  // Each node's fail link, the longest long value and the short values ending there: shallower nodes first (by depth, counted).
  const starts = new Array<number>([...found].reduce((most, value) => Math.max(most, value.length), 0) + 2).fill(0)
  for (const level of depth) starts[level + 1]++
  for (let level = 1; level < starts.length; level++) starts[level] += starts[level - 1]
  const order = new Array<number>(depth.length)
  depth.forEach((level, node) => { order[starts[level]++] = node })
  for (const node of order.slice(1)) {
    fail[node] = parent[node] === 0 ? 0 : step(fail[parent[node]], unit[node])
    longest[node] ||= longest[fail[node]]
    shorts[node] |= shorts[fail[node]]
  }
  return (text) => {
    const places: Array<[number, number]> = []
    for (let index = 0, node = 0; index < text.length; index++) {
      const code = text.charCodeAt(index)
      // Most characters start no value: told by one array read.
      if (node === 0 && starting[code] === 0) continue
      node = step(node, code)
      const end = index + 1
      let start = end - longest[node]
      for (let length = 3; length > 0; length--) {
        const from = end - length
        if ((shorts[node] & (1 << length)) !== 0 && from < start && !WORD_BEFORE.test(text.slice(Math.max(0, from - 2), from)) &&
          !WORD_AFTER.test(text.slice(end, end + 2))) start = from
      }
      if (start === end) continue
      while (places.length > 0 && places[places.length - 1][1] > start) start = Math.min(start, (places.pop() as [number, number])[0])
      places.push([start, end])
    }
    let result = ''
    let from = 0
    for (const [start, end] of places) [result, from] = [result + text.slice(from, start) + REDACTED, end]
    return places.length === 0 ? text : result + text.slice(from)
  }
}

/** A string with every redacted value it holds removed (whole, or inside it). */
function scrubString (text: string, found: ReadonlySet<string>, remove: (text: string) => string): string {
  return found.has(text) ? REDACTED : remove(text)
}

/** `value` with every redacted value removed, in strings, numbers and keys, at any depth (objects changed in place). */
function scrub (value: unknown, found: ReadonlySet<string>, remove: (text: string) => string): unknown {
  if (typeof value === 'string') return scrubString(value, found, remove)
  if (typeof value === 'number') return found.has(String(value)) ? REDACTED : value
  if (typeof value !== 'object' || value === null) return value
  const holder = value as Record<string, unknown>
  let count = 0
  for (const key of Object.keys(holder)) {
    const item = scrub(holder[key], found, remove)
    const name = Array.isArray(holder) ? key : scrubString(key, found, remove)
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
 * Redacts one record in place: named headers and pointed places become {@link REDACTED}, then every value found there
 * is removed from every part. True when something was redacted.
 * @example `redact({ headers: [sent.headers], data: [{ value: sent.body }] }, redaction) // true when it redacted`
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
  const remove = valueRemover(found)
  for (const headers of parts.headers) scrub(headers, found, remove)
  for (const part of parts.data) part.value = scrub(part.value, found, remove)
  return true
}
