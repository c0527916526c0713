/**
 * How `check` compares statuses where a diff of the documents misjudges them: a status the saved document names and
 * the current one covers with a range (`201` by `2XX`), and an operation's own error status that only the plugin's
 * generic answer (its 400 and 404, decision 0118) documents now, which is gone from the application's contract as a
 * removed status is, although the key is still there. Each gives the current document adjusted for the diff, and the
 * statuses it adjusted, to report in words.
 * @module
 */
import { setOwn } from '../core/own-properties'
import { PLUGIN_ERROR_RESPONSES } from '../docs/openapi-schemas'
import { METHODS } from './comparable-documents'
import { isObject } from './type-printer'

type Json = Record<string, unknown>

/** Where an adjusted status is: the path (or webhook) item's key, the method and the status. */
interface StatusPlace {
  readonly item: string
  readonly method: string
  readonly status: string
}

/** A status the current document no longer names, answered by the range that covers it (`201` by `2XX`). */
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
export function withStatusRanges (saved: Json, current: Json): [Json, RangedStatus[]] {
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
