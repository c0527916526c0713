/**
 * How `check` compares statuses where a diff of the documents misjudges them: a status the saved document names and
 * the current one covers with a range (`201` by `2XX`), or the reverse (a saved `4XX` documented a `409`); an
 * operation's own error status that only the plugin's generic answer (its 400 and 404, decision 0118) documents now,
 * which is gone from the application's contract as a removed status is, although the key is still there; and a status
 * a saved released version's operation newly documents, which its clients do not handle (a break, [decision
 * 0328](../../docs/decisions/0328-check-breaks-on-a-status-an-old-version-newly-documents.md)). Each gives a document
 * adjusted for the diff, and the statuses it adjusted, to report in words.
 * @module
 */
import { setOwn } from '../core/own-properties'
import { PLUGIN_ERROR_RESPONSES } from '../docs/openapi-schemas'
import { UNVERSIONED } from '../docs/openapi-documents'
import { METHODS, operationName, payloadItem, responseName } from './comparable-documents'
import { change, report, type Comparison } from './document-places'
import { isObject } from './type-printer'

type Json = Record<string, unknown>

/** Where an adjusted status is: the path (or webhook) item's key, the method and the status. */
interface StatusPlace {
  readonly item: string
  readonly method: string
  readonly status: string
}

/** A status one document names and the other documents under a range (`201` by `2XX`), or its `default`. */
interface RangedStatus extends StatusPlace {
  readonly range: string
}

/**
 * `current` with each operation's responses given by `adjust` (from the saved operation's responses and the current
 * one's; `undefined` keeps them), for the operations both documents have. The documents are not changed.
 */
function withAdjustedResponses (saved: Json, current: Json, adjust: (before: Json, after: Json, at: { item: string, method: string }) => Json | undefined): Json {
  const items: Json = {}
  for (const [key, item] of isObject(current.paths) ? Object.entries(current.paths) : []) {
    setOwn(items, key, item)
    const savedItem = isObject(saved.paths) && Object.hasOwn(saved.paths, key) ? saved.paths[key] : undefined
    if (!isObject(item) || !isObject(savedItem)) continue
    for (const method of Object.keys(item).filter((name) => METHODS.has(name))) {
      const [before, after] = [savedItem[method], item[method]].map((operation) => isObject(operation) && isObject(operation.responses) ? operation.responses : undefined)
      if (before === undefined || after === undefined) continue
      const responses = adjust(before, after, { item: key, method })
      if (responses !== undefined) setOwn(items, key, { ...(items[key] as Json), [method]: { ...(item[method] as Json), responses } })
    }
  }
  return { ...current, paths: items }
}

/**
 * The current comparable document where a status the saved one names and the current one does not, but covers with
 * a range (`201` → `2XX`: OpenAPI's range applies to every status it covers that has no response of its own, as
 * Fastify's `2xx` response schema serializes any 2xx reply), is given the range's response under its own key, so
 * that the diff compares what a client of that status receives; and the statuses so covered.
 * @example
 * ```ts
 * const [current, covered] = withStatusRanges(before, after) // covered: [{ item: '/users', method: 'post', status: '201', range: '2XX' }]
 * ```
 */
function withStatusRanges (saved: Json, current: Json): [Json, RangedStatus[]] {
  const covered: RangedStatus[] = []
  const adjusted = withAdjustedResponses(saved, current, (before, after, at) => {
    const responses: Json = { ...after }
    for (const status of Object.keys(before).filter((name) => /^[1-5]\d\d$/.test(name) && !Object.hasOwn(after, name))) {
      const range = Object.keys(after).find((name) => name.toUpperCase() === `${status[0]}XX`)
      if (range === undefined) continue
      responses[status] = after[range]
      covered.push({ ...at, status, range })
    }
    return Object.keys(responses).length > Object.keys(after).length ? responses : undefined
  })
  return [adjusted, covered]
}

/** The documents with their ranges compared status by status, as the diff reads them (`withRangesCompared`). */
interface RangesCompared {
  /** The saved document as `check` made it comparable, and with each status a saved range documented (`withSavedRangesCovering`). */
  readonly before: Json
  readonly saved: Json
  /** The current document with each status now under a range (`withStatusRanges`). */
  readonly current: Json
  /** Statuses the saved document names that the current one documents under a range (`201` → `2XX`). */
  readonly ranged: readonly RangedStatus[]
  /** Statuses the current document names that a saved range or `default` documented (`2XX` → `201`). */
  readonly covered: readonly RangedStatus[]
}

/**
 * Both documents adjusted so that a status is compared with the range (or `default`) that documents it in the other.
 * @example
 * ```ts
 * const statuses = withRangesCompared(before, after) // diff statuses.saved with statuses.current
 * ```
 */
export function withRangesCompared (before: Json, after: Json): RangesCompared {
  const [[current, ranged], [saved, covered]] = [withStatusRanges(before, after), withSavedRangesCovering(before, after)]
  return { before, saved, current, ranged, covered }
}

/** True for a response the plugin added: a `$ref` to one of its response components. */
function isPluginResponse (response: unknown): boolean {
  return isObject(response) && PLUGIN_ERROR_RESPONSES.some((name) => response.$ref === `#/components/responses/${name}`)
}

/**
 * `current` with each status the saved operation documented with its own response, and the current one with the
 * plugin's generic answer only, set back to the saved response (the diff then reports nothing there: the status is
 * reported once, as removed), and those statuses.
 * @example
 * ```ts
 * const [current, answered] = withPluginAnsweredStatuses(before, after) // answered: [{ item: '/invoices', method: 'post', status: '404' }]
 * ```
 */
export function withPluginAnsweredStatuses (saved: Json, current: Json): [Json, StatusPlace[]] {
  const answered: StatusPlace[] = []
  const adjusted = withAdjustedResponses(saved, current, (before, after, at) => {
    const statuses = Object.keys(before).filter((status) => Object.hasOwn(after, status) && isPluginResponse(after[status]) && !isPluginResponse(before[status]))
    if (statuses.length === 0) return undefined
    const responses: Json = { ...after }
    for (const status of statuses) {
      responses[status] = before[status]
      answered.push({ ...at, status })
    }
    return responses
  })
  return [adjusted, answered]
}

/**
 * Both documents with each response written as a `$ref` to a response component (the plugin's generic 400 and 404) in
 * one and as its own in the other replaced by that component: the diff library compared the component's schema with
 * the operation's as a removed `allOf`, a note, so that an operation documenting its own 404 in place of the plugin's
 * (`{ error }` for `{ statusCode, code, error, message }`) lost fields unseen.
 * @example
 * ```ts
 * const [before, after] = withResponseRefsResolved(saved, current)
 * ```
 */
export function withResponseRefsResolved (saved: Json, current: Json): [Json, Json] {
  const component = (document: Json, response: unknown): unknown => {
    const ref = isObject(response) && typeof response.$ref === 'string' ? response.$ref : ''
    const name = ref.startsWith('#/components/responses/') ? ref.slice('#/components/responses/'.length) : undefined
    const responses = isObject(document.components) && isObject(document.components.responses) ? document.components.responses : {}
    return name !== undefined && Object.hasOwn(responses, name) && isObject(responses[name]) ? responses[name] : undefined
  }
  let savedAdjusted: Json | undefined
  const resolvedCurrent = withAdjustedResponses(saved, current, (before, after, at) => {
    const statuses = Object.keys(before).filter((status) => Object.hasOwn(after, status) && (component(saved, before[status]) === undefined) !== (component(current, after[status]) === undefined))
    if (statuses.length === 0) return undefined
    savedAdjusted ??= structuredClone(saved)
    const savedResponses = ((savedAdjusted.paths as Json)[at.item] as Json)[at.method] as { responses: Json }
    const responses: Json = { ...after }
    for (const status of statuses) {
      savedResponses.responses[status] = component(saved, before[status]) ?? before[status]
      responses[status] = component(current, after[status]) ?? after[status]
    }
    return responses
  })
  return [savedAdjusted ?? saved, resolvedCurrent]
}

/**
 * The saved comparable document where a status the current one names and the saved one does not, but documented with
 * a range (`2XX` → `201`) or its `default`, is given that response under the status's own key, so that the diff
 * compares what a client of that status was documented (the status is not new to it); and the statuses so covered.
 * The plugin's generic answers are not (they are never new: decision 0328).
 * @example
 * ```ts
 * const [saved, covered] = withSavedRangesCovering(before, after) // covered: [{ item: '/users', method: 'post', status: '409', range: '4XX' }]
 * ```
 */
function withSavedRangesCovering (saved: Json, current: Json): [Json, RangedStatus[]] {
  const covered: RangedStatus[] = []
  // The same walk with the documents' places swapped: it adjusts the saved document's responses.
  const adjusted = withAdjustedResponses(current, saved, (now, was, at) => {
    const responses: Json = { ...was }
    for (const status of Object.keys(now).filter((name) => !Object.hasOwn(was, name) && !isPluginResponse(now[name]))) {
      const range = /^[1-5]\d\d$/.test(status) ? Object.keys(was).find((name) => name.toUpperCase() === `${status[0]}XX`) : undefined
      const cover = range ?? (status !== 'default' && Object.hasOwn(was, 'default') ? 'default' : undefined)
      if (cover === undefined) continue
      responses[status] = was[cover]
      covered.push({ ...at, status, range: cover })
    }
    return Object.keys(responses).length > Object.keys(was).length ? responses : undefined
  })
  return [adjusted, covered]
}

/**
 * Reports the statuses documented under a range in one document and on their own in the other, and rewords each `new
 * status` note of `comparison` (`classify`'s): a break in the saved document of a released version (or of the
 * unversioned routes), whose clients do not handle the status, saying what to write; a note saying why for the
 * plugin's generic answers and a range now documenting a status the saved operation named; a note in a preview's.
 * @example
 * ```ts
 * judgeNewStatuses(comparison, saved, withRangesCompared(before, after))
 * ```
 */
export function judgeNewStatuses (comparison: Comparison, saved: unknown, statuses: RangesCompared): void {
  const { version } = comparison
  for (const { item, method, status, range } of statuses.ranged) report(comparison, operationName(item, method), responseName(status), `now documented under ${range}, the range covering it`, false)
  for (const { item, method, status, range } of statuses.covered) report(comparison, operationName(item, method), responseName(status), `now documented on its own, the saved ${range} documented it`, false)
  const preview = isObject(saved) && isObject(saved.info) && saved.info['x-channel'] === 'preview'
  withAdjustedResponses(statuses.before, statuses.current, (was, now, { item, method }) => {
    const operation = operationName(item, method)
    for (const status of payloadItem(item) === undefined ? Object.keys(now).filter((name) => !Object.hasOwn(was, name)) : []) {
      const index = comparison.result.findIndex((found) => found.operation === operation && found.place === responseName(status) && found.kind === 'new status')
      if (index === -1) continue
      const named = statuses.ranged.filter((found) => found.item === item && found.method === method && found.range === status).map((found) => found.status)
      const kind = isPluginResponse(now[status])
        ? "new status (the plugin's generic error answer)"
        : named.length > 0 ? `new status (the range now documenting ${named.join(', ')}, which ${version} documented)` : undefined
      if (kind !== undefined) comparison.result[index] = change(version, operation, responseName(status), kind, false)
      else if (!preview) comparison.result[index] = change(version, operation, responseName(status), newStatusKind(version, operation, status, was), true)
    }
    return undefined
  })
}

/** What a new status in `version`'s `operation` (`POST /users/{userId}`), whose saved responses are `was`, is, and what to write. */
function newStatusKind (version: string, operation: string, status: string, was: Json): string {
  const always = `if the route always answered ${status} and only its documentation is new, export the snapshot again`
  if (version === UNVERSIONED) {
    return 'new status, not in the saved document: clients of this unversioned route do not handle it; answer them as before ' +
      `(version the route with versioned(...) to change what it answers), or, ${always}`
  }
  // The responses the version documents itself (the plugin's generic answers are added to every version), as `had` keys.
  const keys = Object.keys(was).filter((key) => !isPluginResponse(was[key])).map((key) => `${/^\d+$/.test(key) ? key : `'${key}'`}: …`)
  const [method, ...path] = operation.split(' ')
  const instruction = `endpoint('${path.join(' ').replace(/\{([^{}]+)\}/g, ':$1')}', ['${method}']).had({ response: { ${keys.join(', ')} } })`
  return `new status, not in ${version}'s saved document: its clients do not handle it; if ${version} did not answer it, write ${instruction} ` +
    `(the responses ${version} documents) in the version change that brings ${status}, and give older versions what they answered ` +
    `(a migrateHttpErrors converter, or the handler asking isApplied); ${always}`
}
