/**
 * The values of a renamed field, for `verify` (docs/decisions/0270-a-renamed-value-arrives-whole-one-way.md). A
 * rename (`had({ name })`) with a type no instruction changes (`had({ type })`, an enum's members) may still come
 * with a conversion (pounds to kilograms, `enabled` to `disabled`, decision 0072), but one way as on a round trip it
 * loses nothing: a string of a `pattern` arrives unchanged, a free string in the case it was sent (it may be cut into
 * words or joined: a name split in two, ./sentinel-arrival.ts), a list of scalars with every item (`filter(Boolean)`,
 * `slice(0, 10)` lose some), and a number or flag apart from its twin's (./verify-twins.ts: `qty || 1` makes `0` and
 * `1` one, a flag written `true` makes `false` and `true` one). A string of a `format` may be written otherwise (a
 * date-time in UTC), and is not compared.
 * @module
 */
import type { JsonSchema } from '../values/examples'

/**
 * How a renamed field's value must arrive: `'text'` (a patterned string: unchanged), `'case'` (a free string: in the
 * case it was sent), `'twin'` (a number or flag: apart from its twin's), `'items'` (a list of scalars: every item).
 */
export type Kept = 'text' | 'case' | 'twin' | 'items'

/** How a scalar of a renamed field arrives: `'text'`, `'case'`, `'twin'`, or `undefined` (an enum, a `const`, a `format`, an object). */
function scalarKept (node: JsonSchema | undefined): Exclude<Kept, 'items'> | undefined {
  if (node === undefined || 'const' in node || Array.isArray(node.enum) || node.anyOf !== undefined || node.oneOf !== undefined) return undefined
  const types = (Array.isArray(node.type) ? node.type as unknown[] : [node.type]).filter((type) => type !== 'null')
  if (types.length !== 1) return undefined
  if (types[0] === 'number' || types[0] === 'integer' || types[0] === 'boolean') return 'twin'
  if (types[0] !== 'string' || typeof node.format === 'string') return undefined
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

/** A scalar as it is compared: a query string's or header's text and the number it stands for are one. */
const asText = (value: unknown): string => typeof value === 'string' ? value : JSON.stringify(value)

/**
 * What became of a renamed field's value (`value`, kept as `kept` says) that arrived as `arrived`: `undefined` when
 * nothing of it was lost (a number or flag is compared with its twin's, elsewhere).
 * @example
 * ```ts
 * keptChange('text', '19.99', '19', shown)             // "arrives as '19'"
 * keptChange('case', 'Łódź', 'łódź', shown)            // "arrives as 'łódź', its case changed"
 * keptChange('items', [0, 19.99], [19.99], shown)      // 'arrives as [19.99], without 0 (1 of its 2 items)'
 * ```
 */
export function keptChange (kept: Kept, value: unknown, arrived: unknown, show: (value: unknown) => string): string | undefined {
  if (value === null || arrived === null || arrived === undefined || kept === 'twin') return undefined
  if (kept === 'case') {
    return typeof value === 'string' && typeof arrived === 'string' && value !== arrived && value.toLowerCase() === arrived.toLowerCase()
      ? `arrives as ${show(arrived)}, its case changed`
      : undefined
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
