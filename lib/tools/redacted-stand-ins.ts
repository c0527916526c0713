/**
 * Stand-ins that fit: where `replay` meets the redaction stand-in `'[redacted]'` at a place whose schema refuses it (a
 * field of a union member, whose serializer cannot pick a member for it; a field with a format or a length), it puts
 * there a value the version's schema accepts at that place (../values/examples.ts `exampleOf`), so that the rest of
 * the exchange is replayed. The second stand-in of a replay (`~[redacted]~`, docs/decisions/0166) gets another such
 * value where the schema allows one (its pattern, and its format as the application's Ajv checks it), so that what
 * converters make from it still changes with it and is not compared. The value made up is no client's data: nothing redacted is put back. A replay that stops on data
 * holding stand-ins is replayed without them and with others: stopping alike, the stop is not theirs (decision 0257).
 * @module
 */
import { setOwn } from '../core/own-properties'
import { exampleOf, type JsonSchema } from '../values/examples'
import { REDACTED } from '../values/redaction'
import { schemaAt, type RefResolver } from './data-flow'
import type { FormatPatterns } from '../values/string-examples'
import { placesLiteral } from './converter-literals'

/** The stand-in of a second replay: a place whose replayed value changes with it was made from a redacted value. */
export const SECOND_STAND_IN = `~${REDACTED}~`

/** The ranges a character is moved on within (a hexadecimal letter stays one): a digit, a letter of either case. */
const RANGES = ['09', 'af', 'gz', 'AF', 'GZ'].map((range) => [range.charCodeAt(0), range.charCodeAt(1)] as const)

/** `text` with each character `which` matches moved one on within its range (`9` to `0`, `f` to `a`, `z` to `g`). */
function movedOn (text: string, which: RegExp): string {
  return text.replace(which, (char) => {
    const code = char.charCodeAt(0)
    const range = RANGES.find(([low, high]) => code >= low && code <= high)
    return range === undefined ? char : String.fromCharCode(code === range[1] ? range[0] : code + 1)
  })
}

/**
 * Another string than `text` that `takes` (the node's length, pattern and format), where one of these does: every
 * letter and digit moved on (an e-mail, a URL, a UUID stay one), the digits alone (a date-time), the last letter or
 * digit alone (`cus_abd` where the pattern is `^cus_`), the text reversed; else the first of them.
 */
function otherString (text: string, takes: (text: string) => boolean): string {
  const others = [movedOn(text, /[0-9A-Za-z]/g), movedOn(text, /[0-9]/g), movedOn(text, /[0-9A-Za-z](?=[^0-9A-Za-z]*$)/), [...text].reverse().join('')].filter((other) => other !== text)
  return others.find(takes) ?? others[0] ?? text
}

/** Another valid value than `value` where the schema allows one (an enum's next member, another string it takes, a number a step on). */
function otherValue (node: JsonSchema, value: unknown, formats: FormatPatterns | undefined): unknown {
  const members = Array.isArray(node.enum) ? node.enum as unknown[] : undefined
  if (members !== undefined) return members.find((member) => member !== value) ?? value
  if (typeof value === 'string') return otherString(value, (text) => placesLiteral(node, { value: text, placed: false }, formats))
  if (typeof value === 'boolean') return !value
  if (typeof value !== 'number') return value
  const step = typeof node.multipleOf === 'number' ? node.multipleOf : 1
  return typeof node.maximum === 'number' && value + step > node.maximum ? value - step : value + step
}

/** A value fitting the schema at the place of a stand-in (`undefined` when none can be made). */
function fittingValue (node: JsonSchema, standIn: string, resolveRef: RefResolver, formats: FormatPatterns | undefined): unknown {
  try {
    const value = exampleOf(node, { resolveRef })
    return standIn === REDACTED ? value : otherValue(node, value, formats)
  } catch {
    // A schema no example can be made of (a pattern beyond reach): the stand-in stays.
    return undefined
  }
}

/**
 * Replaces, in place, each redaction stand-in of `data` (a request part or a response body; not `data` itself) with
 * a value fitting `schema` at its place (`formats`: how the application's Ajv checks each format): how many it replaced.
 * @example
 * ```ts
 * const body = { paymentMethod: { type: 'card', last4: '[redacted]' } }
 * fitStandIns(PaymentBody, body, resolveRef) // 1: body.paymentMethod.last4 is now a 4-character string
 * ```
 */
export function fitStandIns (schema: unknown, data: unknown, resolveRef: RefResolver, formats?: FormatPatterns): number {
  let fitted = 0
  const visit = (value: unknown, path: Array<string | number>): void => {
    if (typeof value !== 'object' || value === null) return
    for (const [key, item] of Object.entries(value)) {
      const at = [...path, Array.isArray(value) ? Number(key) : key]
      if (item !== REDACTED && item !== SECOND_STAND_IN) {
        visit(item, at)
        continue
      }
      const node = schemaAt(schema, data, at, resolveRef)
      const replacement = node === undefined ? undefined : fittingValue(node, item, resolveRef, formats)
      if (replacement === undefined) continue
      setOwn(value as Record<string, unknown>, key, replacement)
      fitted++
    }
  }
  visit(data, [])
  return fitted
}

/**
 * `value` (JSON data) with its redaction stand-ins otherwise: those standing for a whole value removed (a header, a
 * field; not a list item), and every one replaced by the second stand-in.
 */
function withoutStandIns<T> (value: T): T[] {
  const text = JSON.stringify(value)
  const removed = JSON.parse(text, function (this: unknown, _key: string, item: unknown) {
    return item === REDACTED && !Array.isArray(this) ? undefined : item
  }) as T
  return [removed, JSON.parse(text.replaceAll(REDACTED, SECOND_STAND_IN)) as T]
}

/** A replay's stop: its kind and message. */
interface Stop {
  readonly ok: false
  readonly kind: string
  readonly message: string
}

/**
 * True when a replay of `value` that stopped (a converter threw, a schema refused) stops just as it does with its
 * redaction stand-ins removed, and with other stand-ins: the stop is not the stand-ins' (a converter reading a field
 * no request has) and is a finding, not an exchange left unreplayed because it holds redacted values. A converter
 * that fails alike on every value where a redacted one stands (a token it parses without checking) is one too.
 * @example
 * ```ts
 * if (await stopsAlike(stop, async (other) => await replayRequest(replayer, at, other), exchange)) findings.push(stop)
 * ```
 */
export async function stopsAlike<T> (stop: Stop, replay: (value: T) => Promise<{ ok: true } | Stop>, value: T): Promise<boolean> {
  for (const other of withoutStandIns(value)) {
    const again = await replay(other)
    if (again.ok || again.kind !== stop.kind || again.message !== stop.message) return false
  }
  return true
}
