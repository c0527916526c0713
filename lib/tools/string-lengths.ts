/**
 * The lengths of the strings a schema accepts, for `check`: its `minLength` and `maxLength`, and those its `pattern`
 * and its `format` (as the application's Ajv defines it, a regular expression) imply. A request's `minLength: 1` added
 * where its `format: 'uuid'` was dropped refuses nothing an old client could send: every UUID is 36 characters or more.
 * Lengths count code points, as JSON Schema does; what a regular expression does not say plainly (a lookaround, a
 * back-reference, an anchor inside a group, a format checked by a function) implies nothing.
 * @module
 */
import { at, type Comparison, type JsonPath, type RawDiff } from './document-places'

/** The fewest and most code points of a string: `[min, max]`, `max` `Infinity` for no bound. */
type Lengths = readonly [number, number]

/** What a regular expression does not say plainly: its lengths are not judged. */
class Unreadable extends Error {}

/** A branch of an alternation: its lengths, and whether it is anchored at the start and at the end. */
interface Branch { readonly lengths: Lengths, readonly start: boolean, readonly end: boolean }

const times = (count: number, length: number): number => count === 0 || length === 0 ? 0 : count * length
const ESCAPED_WIDE = new Set(['D', 'W', 'S'])
const SURROGATE = /[\uD800-\uDFFF]/

/** Reads a regular expression's source, one piece at a time. */
class Reader {
  index = 0
  constructor (readonly source: string, readonly unicode: boolean) {}

  /** One code unit matched where a surrogate may be half of a code point: 0 or 1 code points (outside `u` mode). */
  private unit (wide: boolean): Lengths {
    return wide && !this.unicode ? [0, 1] : [1, 1]
  }

  alternation (top: boolean): Branch[] {
    const branches = [this.sequence(top)]
    while (this.source[this.index] === '|') {
      this.index++
      branches.push(this.sequence(top))
    }
    return branches
  }

  private sequence (top: boolean): Branch {
    let [min, max] = [0, 0]
    let start = false
    let end = false
    while (this.index < this.source.length && this.source[this.index] !== '|' && this.source[this.index] !== ')') {
      const char = this.source[this.index]
      if (char === '^' || char === '$') {
        // An anchor only where it says the string's start or end: first or last of a branch of the whole expression.
        if (!top || (char === '^' && (min !== 0 || max !== 0 || start))) throw new Unreadable()
        this.index++
        if (char === '^') start = true
        else if (this.index < this.source.length && this.source[this.index] !== '|') throw new Unreadable()
        else end = true
        continue
      }
      const [low, high] = this.quantified(this.atom())
      min += low
      max += high
    }
    return { lengths: [min, max], start, end }
  }

  private quantified (lengths: Lengths): Lengths {
    const rest = this.source.slice(this.index)
    const braces = /^\{(\d+)(,(\d*))?\}/.exec(rest)
    let range: Lengths | undefined
    if (rest[0] === '*') range = [0, Infinity]
    else if (rest[0] === '+') range = [1, Infinity]
    else if (rest[0] === '?') range = [0, 1]
    else if (braces !== null) range = [Number(braces[1]), braces[2] === undefined ? Number(braces[1]) : braces[3] === '' ? Infinity : Number(braces[3])]
    if (range === undefined) return lengths
    this.index += braces?.[0].length ?? 1
    if (this.source[this.index] === '?') this.index++ // lazy
    return [times(range[0], lengths[0]), times(range[1], lengths[1])]
  }

  private atom (): Lengths {
    const char = this.source[this.index++]
    if (char === '(') return this.group()
    if (char === '[') return this.characterClass()
    if (char === '\\') return this.escape()
    if (char === '.') return this.unit(true)
    if ('*+?)'.includes(char)) throw new Unreadable()
    return this.unit(SURROGATE.test(char))
  }

  private group (): Lengths {
    if (this.source[this.index] === '?') {
      const named = /^\?<[A-Za-z_$][\w$]*>/.exec(this.source.slice(this.index))
      if (this.source[this.index + 1] === ':') this.index += 2
      else if (named !== null) this.index += named[0].length
      else throw new Unreadable() // a lookaround
    }
    const branches = this.alternation(false)
    if (this.source[this.index++] !== ')') throw new Unreadable()
    return [Math.min(...branches.map(({ lengths }) => lengths[0])), Math.max(...branches.map(({ lengths }) => lengths[1]))]
  }

  private characterClass (): Lengths {
    let wide = this.source[this.index] === '^'
    while (this.index < this.source.length && this.source[this.index] !== ']') {
      const char = this.source[this.index++]
      if (char === '\\') {
        const escaped = this.source[this.index++] ?? ''
        if (ESCAPED_WIDE.has(escaped) || 'uxpPc'.includes(escaped)) wide = true
      } else if (SURROGATE.test(char)) {
        wide = true
      }
    }
    if (this.source[this.index++] !== ']') throw new Unreadable()
    return this.unit(wide)
  }

  private escape (): Lengths {
    const char = this.source[this.index++] ?? ''
    if (char === 'b' || char === 'B') return [0, 0]
    if (/[1-9k]/.test(char)) throw new Unreadable() // a back-reference
    if (char === 'u' && this.source[this.index] === '{') {
      const close = this.source.indexOf('}', this.index)
      if (close === -1) throw new Unreadable()
      this.index = close + 1
      return this.unit(false)
    }
    if (char === 'p' || char === 'P') {
      if (this.source[this.index] === '{') this.index = Math.max(this.index, this.source.indexOf('}', this.index) + 1)
      return this.unit(true)
    }
    if (char === 'u') {
      const code = Number.parseInt(this.source.slice(this.index, this.index + 4), 16)
      this.index += 4
      return this.unit(Number.isNaN(code) || (code >= 0xD800 && code <= 0xDFFF))
    }
    if (char === 'x') this.index += 2
    if (char === 'c') this.index += 1
    return this.unit(ESCAPED_WIDE.has(char))
  }
}

/**
 * The lengths of the strings a regular expression finds a match in: at least its shortest match; at most its longest
 * when it is anchored at both ends (without the `m` flag); `undefined` where it does not say them plainly.
 * @example
 * ```ts
 * regexLengths('^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$', 'i') // [36, 45]
 * regexLengths('^cus_', '') // [4, Infinity]
 * ```
 */
export function regexLengths (source: string, flags: string): Lengths | undefined {
  try {
    const reader = new Reader(source, flags.includes('u') || flags.includes('v'))
    const branches = reader.alternation(true)
    if (reader.index !== source.length) return undefined
    const anchored = (branch: Branch): boolean => branch.start && branch.end && !flags.includes('m')
    return [Math.min(...branches.map(({ lengths }) => lengths[0])), Math.max(...branches.map((branch) => anchored(branch) ? branch.lengths[1] : Infinity))]
  } catch (error) {
    if (error instanceof Unreadable) return undefined
    throw error
  }
}

/** The lengths of the strings `schema` accepts, by its own keywords (`formats`: the application's Ajv's, by name). */
function stringLengths (schema: Record<string, unknown>, formats: Readonly<Record<string, unknown>>): Lengths {
  let [min, max] = [typeof schema.minLength === 'number' ? schema.minLength : 0, typeof schema.maxLength === 'number' ? schema.maxLength : Infinity]
  const narrowed = (lengths: Lengths | undefined): void => {
    if (lengths !== undefined) [min, max] = [Math.max(min, lengths[0]), Math.min(max, lengths[1])]
  }
  if (typeof schema.pattern === 'string') narrowed(regexLengths(schema.pattern, 'u'))
  const format = typeof schema.format === 'string' && Object.hasOwn(formats, schema.format) ? formats[schema.format] : undefined
  const pattern = format instanceof RegExp ? format : (format as { validate?: unknown, type?: unknown } | undefined)?.validate
  const forStrings = !(typeof format === 'object' && format !== null && 'type' in format && format.type !== 'string')
  if (pattern instanceof RegExp && forStrings) narrowed(regexLengths(pattern.source, pattern.flags))
  return [min, max]
}

/**
 * True when a `minLength` or `maxLength` changed at a place (`keyword`: its path from the place's schema) refuses no
 * string the other side accepts: a request's new bound met by every string its saved schema took (`minLength: 1` where
 * the saved schema took UUIDs), a response's old bound by every string it now sends. Judged by the lengths each side's
 * keywords imply ({@link stringLengths}); a union or a `$ref` is not judged here.
 * @example
 * ```ts
 * if (lengthsHeld(comparison, diff, ['minLength'], true)) report(comparison, operation, where, 'minLength (none) → 1 (what it took, it takes)', false)
 * ```
 */
export function lengthsHeld (comparison: Comparison, diff: RawDiff, keyword: JsonPath, request: boolean): boolean {
  const key = keyword[0]
  // A bound loosened is no break already, and reported as such.
  if (keyword.length !== 1 || (key !== 'minLength' && key !== 'maxLength') || diff.type !== 'breaking') return false
  const schemaPath = diff.path.slice(0, diff.path.length - 1)
  const [saved, current] = [at(comparison.saved, schemaPath), at(comparison.current, schemaPath)]
  const [accepted, bounding] = request ? [saved, current] : [current, saved]
  if (typeof accepted !== 'object' || accepted === null || typeof bounding !== 'object' || bounding === null) return false
  if ('$ref' in accepted || 'anyOf' in accepted || 'oneOf' in accepted) return false
  const [min, max] = stringLengths(accepted as Record<string, unknown>, comparison.strictAjv().formats ?? {})
  // A bound the bounding side lacks narrows nothing: the change is judged as the diff has it.
  const bound = (bounding as Record<string, unknown>)[key]
  return typeof bound === 'number' && (key === 'minLength' ? bound <= min : bound >= max)
}
