/**
 * A request field's `default` added or removed, for `check` (decision 0323): the application's Ajv fills a default
 * into every request that leaves the field out (`useDefaults`, Fastify's default), so a client of the saved version
 * that leaves it out is now given a value where it was served without one, or the reverse. What the handler does with
 * an absent field (a one-word name without its family name, a list built from another field) is what that client
 * asked for; the default changes it without a word in the client's request. A default written for what the handler
 * already did with an absent field (`limit ?? 10` documented as `default: 10`) changes nothing: the break says to
 * export the snapshot again then, as `check`'s breaks that may be meant do.
 * @module
 */
import { at, report, shownValue, type Comparison, type RawDiff } from './document-places'

/** True when `schema` is an object with its own `default` (which Ajv's `useDefaults` fills in when a request omits it). */
export function hasDefault (schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && Object.hasOwn(schema, 'default')
}

/**
 * Reports a request field's `default` added or removed where Ajv fills defaults and the saved version's clients may
 * leave the field out (a body field not `required`, a parameter not `required`): a break. False (nothing reported)
 * for any other change of a `default`: one replaced is the diff's break already, a required field is always sent, and
 * Ajv fills no default of a schema that is no property (an item, a whole body).
 * @example
 * ```ts
 * if (defaultFilled(comparison, diff, ['POST /customers', 'request body /familyName'])) return
 * ```
 */
export function defaultFilled (comparison: Comparison, diff: RawDiff, [operation, where]: readonly [string, string]): boolean {
  if (!comparison.validation.useDefaults || (diff.action !== 'add' && diff.action !== 'remove')) return false
  const path = diff.path
  let omissible: boolean
  if (path.at(-3) === 'properties') {
    const required = (at(comparison.saved, path.slice(0, -3)) as { required?: unknown } | undefined)?.required
    omissible = !(Array.isArray(required) && required.includes(path.at(-2)))
  } else if (path.at(-2) === 'schema' && path.at(-4) === 'parameters') {
    omissible = (at(comparison.saved, path.slice(0, -2)) as { required?: unknown } | undefined)?.required !== true
  } else {
    return false
  }
  if (!omissible) return false
  const added = diff.action === 'add'
  const value = shownValue(added ? diff.after : diff.before)
  // Where the handler already treated an absent field as the default (`limit ?? 10`), nothing changed: the snapshot is exported again.
  const effect = added
    ? `a request that leaves it out is given ${value} now; it was served without it. If the handler already read an absent field as ${value}, export the snapshot again`
    : `a request that leaves it out is served without it now; it was given ${value}. If the handler reads an absent field as ${value}, export the snapshot again`
  report(comparison, operation, where, `default ${added ? '(none)' : value} → ${added ? value : '(none)'} (${effect})`, true)
  return true
}
