/**
 * Comparing one version's saved OpenAPI document with its current one, once `check` accepted both. The diff itself
 * is `api-smart-diff`'s (`$ref`s resolved, OpenAPI 3 rules; through `document-diff.ts`), of the documents as
 * `comparable-documents.ts` makes them (QUERY operations and webhooks where the diff reads operations); this module
 * names each change as the operation, the place and the kind, pairs a removed field (or parameter) with an added
 * one of the same schema as a rename, and decides which side breaks: what a client sends (parameters, request
 * bodies) breaks when it narrows, what it receives (responses, their headers, webhook payloads) when fields,
 * statuses or guarantees go away, or a status comes. Changes inside a schema are `schema-changes.ts`'s.
 * @module
 */
import { toolLibrary } from './tool-library'
import { fastifyAjv, type AjvInstance, type AppAjvSetup } from '../core/strict-validator'
import { isDeepStrictEqual } from 'node:util'
import { comparableDocuments, itemName, METHODS, operationName, payloadItem, responseName } from './comparable-documents'
import { documentDiffs } from './document-diff'
import { compareInfo } from './info-comparison'
import { judgeNewStatuses, withPluginAnsweredStatuses, withRangesCompared, withResponseRefsResolved } from './comparable-statuses'
import {
  actionWord, at, parameterName, placeOf, report, shownValue, TEXT_KEYS, withoutText,
  type Comparison, type DocumentChange, type JsonPath, type Place, type RawDiff, type Renames, type RequestValidation
} from './document-places'
import { classifySchemaChange, hasDefault } from './schema-changes'
import { styleKey } from './parameter-styles'
import { withSchemaRefsAligned } from './schema-refs-aligned'
import { underRepeat, withSchemaLoopsUnrolled } from './schema-loops-unrolled'
import { ruleChanges, withoutRules } from './schema-rules'

/**
 * Compares two documents `assertComparable` accepted (equal ones have no change: the diff is not run), judging
 * requests as an application created with `Fastify({ ajv })` validates them (Fastify's defaults without one).
 */
export function compareComparable (version: string, saved: unknown, current: unknown, ajv: AppAjvSetup = {}): DocumentChange[] {
  // Required even when nothing is diffed: a CI without it fails on its first run, not on the first change.
  toolLibrary('api-smart-diff', 'check')
  if (isDeepStrictEqual(saved, current)) return []
  // A schema written as a `$ref` in one document and inline in the other is the same schema; the rules beside a schema's
  // own keywords (a named validator in its `allOf`) are compared apart (./schema-rules.ts).
  const withRules = comparableDocuments(version, saved as Record<string, unknown>, current as Record<string, unknown>)
  const [comparableSaved, comparableCurrent] = withRules.map((document) => withoutRules(document))
  // A status now documented under a range (`201` → `2XX`), or alone where a saved range was (`2XX` → `409`), is compared with the range's response.
  const statuses = withRangesCompared(comparableSaved, comparableCurrent)
  // A status the operation documented itself, now documented by the plugin's generic error answer alone, is removed.
  const [owned, answered] = withPluginAnsweredStatuses(statuses.saved, statuses.current)
  // Schemas referring to each other in a loop, written out at each place, then aligned again where the two
  // documents' loops meet a `$ref` on one side only.
  const unrolled = withSchemaLoopsUnrolled(...withSchemaRefsAligned(...withResponseRefsResolved(statuses.saved, owned)))
  const [before, after] = withSchemaRefsAligned(...unrolled.documents)
  // What lies under a loop's repeated schema was compared where it appears first.
  const diffs = documentDiffs(before, after).filter((diff) => !underRepeat(diff.path, unrolled.repeats))
  let strict: AjvInstance | undefined
  const strictAjv = (): AjvInstance => (strict ??= fastifyAjv({ strict: false, coerceTypes: false, useDefaults: false, removeAdditional: false, validateSchema: false, logger: false }, ajv))
  const comparison: Comparison = { version, saved: before, current: after, renames: pairRenames(diffs), result: [], validation: requestValidation(ajv), strictAjv }
  for (const { item, method, status } of answered) report(comparison, operationName(item, method), responseName(status), "status removed (only the plugin's generic error answer is documented there now)", true)
  ruleChanges(comparison, ...withRules)
  for (const diff of diffs) {
    if (comparison.renames.handled.has(diff)) continue
    if (diff.path[0] === 'paths') classify(comparison, diff)
  }
  judgeNewStatuses(comparison, saved, statuses)
  compareInfo(comparison, saved, current)
  return comparison.result
}

/** What `check` needs of an application's Ajv options, as Fastify's Ajv compiler sets them (its defaults under the app's). */
function requestValidation (ajv: AppAjvSetup): RequestValidation {
  const options = fastifyAjv({}, ajv).opts ?? {}
  const { removeAdditional } = options
  return {
    removeAdditional: removeAdditional === 'all' || removeAdditional === 'failing' ? removeAdditional : Boolean(removeAdditional),
    useDefaults: Boolean(options.useDefaults),
    coerceTypes: Boolean(options.coerceTypes)
  }
}

/** What a renamed field or parameter must keep: a field's schema, a parameter but for its name (text aside both). */
function renameShape (diff: RawDiff, parameter: boolean): unknown {
  const value = diff.action === 'remove' ? diff.before : diff.after
  if (!parameter || typeof value !== 'object' || value === null) return withoutText(value)
  const { name: _name, ...rest } = value as Record<string, unknown>
  return withoutText(rest)
}

/**
 * Pairs each removed property with an added property of the same parent and the same schema (text aside), and each
 * removed parameter with an added one of the same operation, the same place and schema.
 */
function pairRenames (diffs: readonly RawDiff[]): Renames {
  const renames: Renames = { renamed: new Map(), names: new Map(), handled: new Set() }
  const isParameter = (diff: RawDiff): boolean => diff.path.length === 5 && diff.path[3] === 'parameters' && typeof diff.path[4] === 'number'
  const parents = new Map(diffs.filter((diff) => diff.path[diff.path.length - 2] === 'properties' || isParameter(diff))
    .map((diff) => [diff, JSON.stringify(diff.path.slice(0, -2)) + (isParameter(diff) ? ' parameters' : '')]))
  const nameOf = (diff: RawDiff): string => isParameter(diff)
    ? String((diff.action === 'remove' ? diff.before : diff.after as { name?: unknown } | undefined)?.name)
    : String(diff.path[diff.path.length - 1])
  const added = [...parents.keys()].filter((diff) => diff.action === 'add')
  for (const [removed, parent] of parents) {
    if (removed.action !== 'remove') continue
    // The first addition of the same parent and schema not paired yet, in the diff's order.
    const parameter = isParameter(removed)
    const match = added.find((candidate) => !renames.handled.has(candidate) && parents.get(candidate) === parent &&
      isDeepStrictEqual(renameShape(candidate, parameter), renameShape(removed, parameter)))
    if (match === undefined) continue
    renames.renamed.set(removed, nameOf(match))
    renames.handled.add(match)
    if (!parameter) renames.names.set(parent, new Set([...renames.names.get(parent) ?? [], nameOf(removed), nameOf(match)]))
  }
  return renames
}

/** Reports one difference under `paths` (where the comparable documents hold every operation). */
function classify (comparison: Comparison, diff: RawDiff): void {
  const path = diff.path
  if (path.length === 1) {
    // A path whose parameters are named otherwise (`/users/{id}` → `/users/{userId}`): the same URLs.
    if (diff.action === 'rename') report(comparison, itemName(diff.before), '', `path renamed to ${itemName(diff.after)}`, diff.type === 'breaking')
    return
  }
  if (path.length === 2) {
    // A whole path item (QUERY operation, webhook) added or removed: one line per operation.
    const item = (diff.action === 'remove' ? diff.before : diff.after) as Record<string, unknown> | undefined
    const methods = Object.keys(item ?? {}).filter((key) => METHODS.has(key))
    for (const method of methods) endpointChange(comparison, diff, path[1], method)
    return
  }
  const method = String(path[2])
  if (!METHODS.has(method)) {
    // Path-level parameters, summary…: classified by the library.
    report(comparison, itemName(path[1]), path.slice(2).join('/'), `${diff.action} (${diff.type})`, diff.type === 'breaking')
    return
  }
  if (path.length === 3) {
    endpointChange(comparison, diff, path[1], method)
    return
  }
  const operation = operationName(path[1], method)
  const place = placeOf(diff, comparison.saved, path.slice(0, 3))
  if (!classifyOperationPart(comparison, diff, operation, place)) classifySchemaChange(comparison, diff, operation, place)
}

function endpointChange (comparison: Comparison, diff: RawDiff, key: string | number, method: string): void {
  const kind = payloadItem(key) ?? 'endpoint'
  const [removed, added] = [`${kind} removed`, `new ${kind}`]
  if (diff.action === 'remove') report(comparison, operationName(key, method), '', removed, true)
  else if (diff.action === 'add') report(comparison, operationName(key, method), '', added, false)
}

/** What a parameter added is: breaking when required; one of the path was sent all along (a document saved without it). */
function parameterAdded (parameter: unknown): [string, boolean] {
  const { required, in: location } = (typeof parameter === 'object' && parameter !== null ? parameter : {}) as { required?: unknown, in?: unknown }
  if (location === 'path') return ['now documented (the path held it)', false]
  return required === true ? ['new required parameter', true] : ['new optional parameter', false]
}

/** What a change of a `required` flag did (`true` became required, `false` optional), or `undefined` when nothing. */
function requiredFlag (diff: RawDiff): boolean | undefined {
  const before = diff.action === 'add' ? false : diff.before === true
  const after = diff.action === 'remove' ? false : diff.after === true
  return before === after ? undefined : after
}

/**
 * Reports a change of a whole parameter, response, response header or request body, of whether one is required,
 * of the operation itself, or outside any schema. False when the change is inside a schema.
 */
function classifyOperationPart (comparison: Comparison, diff: RawDiff, operation: string, place: Place): boolean {
  const rest = place.rest
  const noted = (kind: string, breaking: boolean, where = place.place): true => {
    report(comparison, operation, where, kind, breaking)
    return true
  }
  if (rest[0] === 'parameters' && rest.length === 2) {
    const to = comparison.renames.renamed.get(diff)
    if (diff.action === 'remove') return noted(to === undefined ? 'removed' : `renamed to ${to}`, true)
    if (diff.action === 'add') return noted(...parameterAdded(diff.after))
    return noted('changed', diff.type === 'breaking')
  }
  // The whole list, where the operation had no parameters (an unversioned route) or has none now: one line each.
  if (rest[0] === 'parameters' && rest.length === 1 && (diff.action === 'add' || diff.action === 'remove')) {
    const list = diff.action === 'add' ? diff.after : diff.before
    for (const [index, parameter] of (Array.isArray(list) ? list : []).entries()) {
      const [kind, breaking] = diff.action === 'add' ? parameterAdded(parameter) : ['removed', true]
      noted(kind, breaking, parameterName(parameter, index))
    }
    return true
  }
  // A path parameter's name (the diff pairs path parameters by their place in the path).
  if (rest[0] === 'parameters' && rest.length === 3 && rest[2] === 'name' && diff.action === 'replace') return noted(`renamed to ${String(diff.after)}`, diff.type === 'breaking')
  if (rest[0] === 'responses' && rest[2] === 'headers') return responseHeaderChange(comparison, diff, operation, place)
  // `required` of a parameter (parameters/N/required) or of the request body (requestBody/required).
  const requiredAt = rest[0] === 'parameters' ? 3 : rest[0] === 'requestBody' ? 2 : 0
  if (rest.length === requiredAt && rest[requiredAt - 1] === 'required') {
    const required = requiredFlag(diff)
    // Ajv's useDefaults (Fastify's default) fills a parameter a request omits with its default.
    if (required === true && rest[0] === 'parameters' && comparison.validation.useDefaults && hasDefault(currentParameterSchema(comparison, diff.path))) {
      return noted('became required (its default fills it when omitted)', false)
    }
    return required === undefined || noted(required ? 'became required' : 'became optional', required)
  }
  if (rest[0] === 'responses' && rest.length === 2) {
    // A webhook's (a callback's) only response is its payload.
    const webhook = payloadItem(diff.path[1]) !== undefined
    if (diff.action === 'remove') noted(webhook ? 'removed' : 'status removed', true)
    else if (diff.action === 'add') noted(webhook ? 'new payload' : 'new status', false)
    return true
  }
  if (rest[0] === 'requestBody' && rest.length === 1) {
    const required = (diff.after as { required?: boolean } | undefined)?.required === true
    if (diff.action === 'remove') noted('removed', true)
    else if (diff.action === 'add') noted(required ? 'became required' : 'new optional body', required)
    return true
  }
  if (place.side === 'operation' && rest[0] === 'security') return noted(...securityChange(comparison, diff.path.slice(0, 3)), '')
  if (place.side === 'operation') {
    if (TEXT_KEYS.has(String(rest[0]))) return noted(`${String(rest[0])} ${actionWord(diff)} (text)`, false, '')
    return noted(`${diff.action} (${diff.type})`, diff.type === 'breaking', rest.join('/'))
  }
  if (place.schemaPath.length === 0) return otherChange(comparison, diff, operation, place)
  return false
}

/**
 * What a change of an operation's `security` (the document's folded in) did to its clients, as a kind and whether it
 * breaks: it does when a way in the saved operation took (a requirement, or none: anonymous) no longer works, no
 * current requirement asking for no more schemes and scopes than it.
 */
function securityChange (comparison: Comparison, operationPath: JsonPath): [string, boolean] {
  type Requirement = Record<string, unknown>
  const ways = (document: unknown): Requirement[] => {
    const security = at(document, [...operationPath, 'security'])
    return Array.isArray(security) && security.length > 0 ? security.filter((way): way is Requirement => typeof way === 'object' && way !== null) : [{}]
  }
  const scopes = (way: Requirement, scheme: string): unknown[] => Array.isArray(way[scheme]) ? way[scheme] as unknown[] : []
  const within = (asked: Requirement, held: Requirement): boolean =>
    Object.keys(asked).every((scheme) => Object.hasOwn(held, scheme) && scopes(asked, scheme).every((scope) => scopes(held, scheme).includes(scope)))
  const lost = ways(comparison.saved).filter((held) => !ways(comparison.current).some((asked) => within(asked, held)))
  const shown = (way: Requirement): string => Object.keys(way).length === 0 ? 'anonymous' : Object.entries(way).map(([scheme, list]) => `${scheme}${shownValue(list)}`).join(' + ')
  if (lost.length === 0) return ['security changed: every way in it took still works', false]
  return [`security: ${lost.map(shown).join(', ')} no longer let in (now ${ways(comparison.current).map(shown).join(', ')})`, true]
}

/**
 * Reports a change of a response's headers (which a client may read, as it reads the body): a header removed, or
 * no longer required, breaks; a header added, or now required, is a note; a change inside a header's schema is
 * reported as one of a response body's (false).
 */
function responseHeaderChange (comparison: Comparison, diff: RawDiff, operation: string, place: Place): boolean {
  const rest = place.rest
  if (rest.length === 3) {
    // The whole `headers` of a response, added or removed.
    const names = (value: unknown): string[] => typeof value === 'object' && value !== null ? Object.keys(value) : []
    for (const name of names(diff.before)) if (!names(diff.after).includes(name)) report(comparison, operation, `${place.place} header ${name}`, 'removed', true)
    for (const name of names(diff.after)) if (!names(diff.before).includes(name)) report(comparison, operation, `${place.place} header ${name}`, 'new header', false)
    return true
  }
  if (rest.length === 4) {
    if (diff.action === 'remove') report(comparison, operation, place.place, 'removed', true)
    else if (diff.action === 'add') report(comparison, operation, place.place, 'new header', false)
    else report(comparison, operation, place.place, 'changed', true)
    return true
  }
  if (rest.length === 5 && rest[4] === 'required') {
    const required = requiredFlag(diff)
    if (required !== undefined) report(comparison, operation, place.place, required ? 'became required' : 'became optional', !required)
    return true
  }
  return place.schemaPath.length === 0 ? otherChange(comparison, diff, operation, place) : false
}

/**
 * The schema of the current document's parameter that is the saved one's at `path` (`…/parameters/N/required`): of
 * the operation's own with the same name and place (the diff numbers parameters as the saved document lists them).
 */
function currentParameterSchema (comparison: Comparison, path: JsonPath): unknown {
  const listPath = path.slice(0, -2)
  const same = (document: unknown, parameterPath: JsonPath): string => JSON.stringify(['in', 'name'].map((key) => at(document, [...parameterPath, key])))
  const list = at(comparison.current, listPath)
  const index = Array.isArray(list) ? list.findIndex((_, position) => same(comparison.current, [...listPath, position]) === same(comparison.saved, path.slice(0, -1))) : -1
  return index === -1 ? undefined : at(comparison.current, [...listPath, index, 'schema'])
}

/** Reports a change outside any schema of a part: media types, descriptions, a header's `deprecated`… */
function otherChange (comparison: Comparison, diff: RawDiff, operation: string, place: Place): true {
  const rest = place.rest
  const key = String(rest[rest.length - 1])
  if (TEXT_KEYS.has(key)) {
    report(comparison, operation, place.place, `${key} ${actionWord(diff)} (text)`, false)
    return true
  }
  // A parameter's `style` or `explode` in force (./parameter-styles.ts) changed what its clients send. Added or removed,
  // the parameter's schema turned from a single value to a list or back: that change is reported.
  const style = rest[0] === 'parameters' && rest.length === 3 ? styleKey(key) : undefined
  if (style !== undefined) {
    if (diff.action === 'replace') report(comparison, operation, place.place, `${style} ${shownValue(diff.before)} → ${shownValue(diff.after)}`, true)
    return true
  }
  // What follows the place in the path: after `parameters/N`, `responses/S`, `responses/S/headers/H`, `requestBody`.
  const skip = rest[0] === 'responses' ? (rest[2] === 'headers' ? 4 : 2) : rest[0] === 'parameters' ? 2 : 1
  report(comparison, operation, `${place.place} ${rest.slice(skip).join('/')}`.trim(), `${diff.action} (${diff.type})`, diff.type === 'breaking')
  return true
}
