/**
 * How `check` compares a parameter's `style` and `explode`: as the values in force, which OpenAPI defaults by where
 * the parameter is (`form` in a query or cookie, `simple` in a path or header; `explode` true for `form` only).
 * `explode: false` added to a query list is `?ids=a,b` for `?ids=a&ids=b`, the same change as `explode: true`
 * turned `false`; `style: 'form'` spelled out is no change. A single value (a schema typed as neither a list nor an
 * object) is sent the same whatever its style: `limit=10`, so its `style` and `explode` are not compared. The values
 * in force are compared under keys of their own, which `api-smart-diff` reports as they change (it reports no change
 * of `explode` on a parameter that also states its `style`).
 * @module
 */
import { setOwn } from '../core/own-properties'
import { isObject } from './type-printer'

type Json = Record<string, unknown>

/** The keys the values in force are compared under (a control character starts them: no key of a document does). */
const IN_FORCE: Readonly<Record<string, 'style' | 'explode'>> = { '\u0001style': 'style', '\u0001explode': 'explode' }

/**
 * `style` or `explode` for the key a parameter's value in force is compared under, else `undefined`.
 * @example
 * ```ts
 * styleKey(diff.path.at(-1)) // 'explode'
 * ```
 */
export function styleKey (key: unknown): 'style' | 'explode' | undefined {
  return typeof key === 'string' && Object.hasOwn(IN_FORCE, key) ? IN_FORCE[key] : undefined
}

/** The style OpenAPI gives a parameter that states none, by where it is. */
const DEFAULT_STYLE: Readonly<Record<string, string>> = { query: 'form', cookie: 'form', path: 'simple', header: 'simple' }

/** True when a schema holds a single value for certain: its `type` names neither `array` nor `object`. */
function singleValue (schema: unknown): boolean {
  if (!isObject(schema)) return false
  const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type]
  return types.length > 0 && types.every((type) => typeof type === 'string' && type !== 'array' && type !== 'object')
}

/**
 * A parameter as `check` compares it: with the `style` and `explode` in force where it holds a list or an object
 * (or may), without them where it holds a single value; itself when it is a `$ref`, declares its `content` (a
 * serialized value), or is not a parameter.
 * @example
 * ```ts
 * withStylesInForce({ in: 'query', name: 'ids', schema: { type: 'array' } })
 * // { in: 'query', name: 'ids', schema: { type: 'array' }, '\u0001style': 'form', '\u0001explode': true }
 * ```
 */
export function withStylesInForce (parameter: unknown): unknown {
  if (!isObject(parameter) || typeof parameter.in !== 'string' || !Object.hasOwn(parameter, 'schema')) return parameter
  const copy: Json = {}
  for (const [key, value] of Object.entries(parameter)) if (key !== 'style' && key !== 'explode') setOwn(copy, key, value)
  if (singleValue(parameter.schema)) return copy
  const style = typeof parameter.style === 'string' ? parameter.style : DEFAULT_STYLE[parameter.in]
  if (style === undefined) return parameter
  copy['\u0001style'] = style
  copy['\u0001explode'] = typeof parameter.explode === 'boolean' ? parameter.explode : style === 'form'
  return copy
}
