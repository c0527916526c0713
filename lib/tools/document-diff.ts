/**
 * The raw diff of two OpenAPI documents, by `api-smart-diff`, where a field named like a member of
 * `Object.prototype` (`__proto__`, `constructor`, `toString`, `hasOwnProperty`…) is an ordinary field.
 *
 * `api-smart-diff` keeps its work in plain objects, reads keys with `in` and copies with `Object.assign`: it loses
 * a `__proto__` key (the removal, addition or change of a field of that name goes unseen), and for `constructor`
 * or `toString` it finds `Object.prototype`'s members (reporting, say, a field `function Object() { [native
 * code] }`). So it never gets those names: before the diff, `MARK` is put in front of every key that is a name of
 * `Object.prototype` or starts with `MARK`, of the same strings in `required` lists (the field names it matches
 * with `properties`), and of such segments in local `$ref`s; after it, the diffs' paths and values get their
 * names back. The marking is one-to-one and never makes a name of `Object.prototype`.
 *
 * It also pairs an operation's responses by their status keys case-insensitively, and then reads each by the key in
 * lower case: a status range as OpenAPI writes it (`2XX`, `@fastify/swagger`'s form of Fastify's `2xx`) was read as
 * missing on both sides, and nothing under it was ever compared. So it gets those keys in lower case, given back after.
 * @module
 */
import type {
  allBreaking as AllBreaking, apiCompare as ApiCompare, openapi3Rules as Openapi3Rules, openApiSchemaRules as OpenApiSchemaRules
} from 'api-smart-diff'
import { setOwn } from '../core/own-properties'
import { pointerKey, pointerSegment } from '../core/json-schema'
import { toolLibrary } from './tool-library'
import type { RawDiff } from './document-places'

/** Put in front of the names `api-smart-diff` must not see as they are (a character no real name starts with). */
const MARK = '\u0000'
const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype))

const needsMark = (name: string): boolean => PROTOTYPE_NAMES.has(name) || name.startsWith(MARK)
const marked = (name: string): string => needsMark(name) ? `${MARK}${name}` : name
const unmarked = (name: string): string => name.startsWith(MARK) ? name.slice(MARK.length) : name

/** How one copy renames: keys and `required` entries, and `$ref` strings. */
interface Renaming {
  readonly name: (name: string) => string
  readonly ref: (ref: string) => string
}

/**
 * A copy of a JSON value with its keys, `required` entries and `$ref`s renamed; keys are defined as own
 * properties (a `__proto__` key stays a key). Recursive: `check` refuses documents deeper than `MAX_DOCUMENT_DEPTH`.
 */
function renamed (value: unknown, renaming: Renaming): unknown {
  if (Array.isArray(value)) return value.map((item) => renamed(item, renaming))
  if (typeof value !== 'object' || value === null) return value
  const copy: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    let next: unknown
    if (key === '$ref' && typeof item === 'string') next = renaming.ref(item)
    else if (key === 'required' && Array.isArray(item)) next = item.map((entry) => typeof entry === 'string' ? renaming.name(entry) : renamed(entry, renaming))
    else next = renamed(item, renaming)
    setOwn(copy, renaming.name(key), next)
  }
  return copy
}

/**
 * A JSON pointer segment as `api-smart-diff` reads it: `~1`, `~0`, then URI escapes (a malformed one throws a
 * `URIError`, as the library itself would).
 */
function segmentName (segment: string): string {
  return decodeURIComponent(pointerKey(segment))
}

/** The `#/…` `$ref` with its marked segments, remembered in `originals` to be given back; other refs as they are. */
function markedRef (ref: string, originals: Map<string, string>): string {
  if (!ref.startsWith('#/')) return ref
  const segments = ref.slice(2).split('/')
  if (!segments.some((segment) => needsMark(segmentName(segment)))) return ref
  const result = `#/${segments.map((segment) => {
    const name = segmentName(segment)
    return needsMark(name) ? encodeURIComponent(pointerSegment(marked(name))) : segment
  }).join('/')}`
  if (!originals.has(result)) originals.set(result, ref)
  return result
}

/** A status range key as OpenAPI writes it. */
const STATUS_RANGE = /^[1-5]XX$/

/**
 * Gives the status ranges of each operation's responses (`2XX`) their keys in lower case, in place (in a copy
 * {@link renamed} made), and returns where it did so (`item method status`, the status in lower case).
 */
function lowerStatusRanges (document: unknown): Set<string> {
  const lowered = new Set<string>()
  const paths = (document as { paths?: unknown }).paths
  for (const [item, operations] of Object.entries(typeof paths === 'object' && paths !== null ? paths : {})) {
    for (const [method, operation] of Object.entries(typeof operations === 'object' && operations !== null ? operations : {})) {
      const responses = (operation as { responses?: unknown } | null)?.responses
      if (typeof responses !== 'object' || responses === null || !Object.keys(responses).some((status) => STATUS_RANGE.test(status))) continue
      const copy: Record<string, unknown> = {}
      for (const [status, response] of Object.entries(responses)) {
        const key = STATUS_RANGE.test(status) ? status.toLowerCase() : status
        if (key !== status) lowered.add(`${item} ${method} ${key}`)
        setOwn(copy, key, response)
      }
      (operation as { responses: unknown }).responses = copy
    }
  }
  return lowered
}

/** What `check` uses of `api-smart-diff`. */
interface DiffLibrary {
  readonly apiCompare: typeof ApiCompare
  readonly openapi3Rules: typeof Openapi3Rules
  readonly openApiSchemaRules: typeof OpenApiSchemaRules
  readonly allBreaking: typeof AllBreaking
}

type Rules = Record<string, unknown>

/**
 * The library's OpenAPI 3 rules, with the schema of a response's header classified as a response body's schema
 * is (the library leaves it unclassified): a constraint loosened in what a client receives breaks. Should a later
 * version of the library shape its rules otherwise, they are used as they are (the tests of `check` say so).
 */
function diffRules (library: DiffLibrary): ReturnType<typeof Openapi3Rules> {
  const rules = library.openapi3Rules()
  let node: unknown = rules
  for (const key of ['/paths', '/*', '/*', '/responses', '/*', '/headers', '/*']) node = typeof node === 'object' && node !== null ? (node as Rules)[key] : undefined
  if (typeof node === 'object' && node !== null) (node as Rules)['/schema'] = { ...library.openApiSchemaRules({ response: true }), $: library.allBreaking }
  return rules
}

/**
 * The changes from `saved` to `current` as `api-smart-diff` finds them (`$ref`s resolved, OpenAPI 3 rules), with
 * every field name compared as an own key.
 * @example
 * ```ts
 * const diffs = documentDiffs(saved, current) // [{ action: 'remove', type: 'breaking', path: ['paths', '/users', …], before }]
 * ```
 */
export function documentDiffs (saved: unknown, current: unknown): RawDiff[] {
  const originals = new Map<string, string>()
  const marking: Renaming = { name: marked, ref: (ref) => markedRef(ref, originals) }
  const unmarking: Renaming = { name: unmarked, ref: (ref) => originals.get(ref) ?? ref }
  // `api-smart-diff`, an optional dependency, is loaded when a check runs (../core/optional-libraries.ts).
  const library = toolLibrary<DiffLibrary>('api-smart-diff', 'check')
  const [before, after] = [renamed(saved, marking), renamed(current, marking)]
  const lowered = new Set([...lowerStatusRanges(before), ...lowerStatusRanges(after)])
  const { diffs } = library.apiCompare(before as object, after as object, { rules: diffRules(library) }) as { diffs: RawDiff[] }
  return diffs.map((diff) => {
    const path = diff.path.map((key) => typeof key === 'string' ? unmarked(key) : key)
    if (path[0] === 'paths' && path[3] === 'responses' && lowered.has(`${String(path[1])} ${String(path[2])} ${String(path[4])}`)) path[4] = String(path[4]).toUpperCase()
    return { type: diff.type, action: diff.action, path, before: valueBack(diff.before, path, unmarking), after: valueBack(diff.after, path, unmarking) }
  })
}

/** A diff's value with its names back: a whole `required` list, one entry of it, or any other value. */
function valueBack (value: unknown, path: RawDiff['path'], unmarking: Renaming): unknown {
  if (path[path.length - 1] === 'required' && Array.isArray(value)) return (renamed({ required: value }, unmarking) as { required: unknown }).required
  if (path[path.length - 2] === 'required' && typeof value === 'string') return unmarked(value)
  return renamed(value, unmarking)
}
