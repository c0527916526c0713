/**
 * The error answers the plugin documents on every operation that lacks its own (its generic 400 and 404), told apart
 * from an application's own in `check` (decision 0118): a status an operation documented itself that only the
 * plugin's generic answer documents now is gone from the application's contract, as a removed status is, even though
 * the key is still there.
 * @module
 */
import { setOwn } from '../core/own-properties'
import { PLUGIN_ERROR_RESPONSES } from '../docs/openapi-schemas'
import { METHODS } from './comparable-documents'
import { isObject } from './type-printer'

type Json = Record<string, unknown>

/** A status of an operation that the saved document answered with the application's response and the current one with the plugin's. */
interface PluginAnsweredStatus {
  readonly item: string
  readonly method: string
  readonly status: string
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
export function withPluginAnsweredStatuses (saved: Json, current: Json): [Json, PluginAnsweredStatus[]] {
  const answered: PluginAnsweredStatus[] = []
  const items: Json = {}
  for (const [key, item] of isObject(current.paths) ? Object.entries(current.paths) : []) {
    setOwn(items, key, item)
    const savedItem = isObject(saved.paths) && Object.hasOwn(saved.paths, key) ? saved.paths[key] : undefined
    if (!isObject(item) || !isObject(savedItem)) continue
    for (const method of Object.keys(item).filter((name) => METHODS.has(name))) {
      const [before, after] = [savedItem[method], item[method]].map((operation) => isObject(operation) && isObject(operation.responses) ? operation.responses : undefined)
      if (before === undefined || after === undefined) continue
      const statuses = Object.keys(before).filter((status) => Object.hasOwn(after, status) && isPluginResponse(after[status]) && !isPluginResponse(before[status]))
      if (statuses.length === 0) continue
      const responses: Json = { ...after }
      for (const status of statuses) {
        responses[status] = before[status]
        answered.push({ item: key, method, status })
      }
      setOwn(items, key, { ...(items[key] as Json), [method]: { ...(item[method] as Json), responses } })
    }
  }
  return [{ ...current, paths: items }, answered]
}
