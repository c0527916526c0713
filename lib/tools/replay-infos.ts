/**
 * The request and response a `verify` replay hands converters, as serving builds them (../serve/converter-inputs.ts):
 * a form's body is also its `form`; a response's headers hold its `Content-Type`; and the version they run in.
 * @module
 */
import { formKind } from '../routes/schema-forms'
import type { RequestPart } from '../routes/version-plan'
import { copyJson } from '../serve/step-runner'
import { runInVersion } from '../serve/request-state'
import type { VersionerState } from '../routes/versioner-state'

/** A replayed request as converters see it (its parts read back after each step). */
interface ReplayRequest {
  body: unknown
  readonly queryParams: Record<string, unknown>
  readonly headers: Record<string, unknown>
  readonly cookies: Record<string, string>
  form: unknown
}

/**
 * The request of a replay of `data` (by part), and the info its converters run on: that request when `status` is
 * undefined, else a response of that status, with the headers `sent`. `mediaType` is the body's: a request's
 * `content` entry (a form's body is then also `form`), a response's slot (its `Content-Type`).
 * @example
 * ```ts
 * const { request } = replayInfos({ body: { name: 'Ada' } }, undefined, 'application/x-www-form-urlencoded')
 * request.form // { name: 'Ada' }
 * ```
 */
export function replayInfos (data: Partial<Record<RequestPart, unknown>>, status: number | undefined, mediaType: string | undefined, sent: Readonly<Record<string, string>> = {}): { request: ReplayRequest, info: { body: unknown } } {
  const form = formKind(mediaType) !== undefined
  const request: ReplayRequest = {
    body: data.body,
    queryParams: (data.querystring ?? {}) as Record<string, unknown>,
    headers: { ...(data.headers as Record<string, unknown> | undefined) },
    cookies: {},
    get form (): unknown { return form ? this.body : undefined },
    set form (fields: unknown) { if (form && fields !== undefined) this.body = fields }
  }
  const headers = mediaType === undefined ? { ...sent } : { ...sent, 'content-type': mediaType }
  const info = status === undefined ? request : { body: copyJson(data.body), statusCode: status, headers, raw: data.body, setCookie () {}, deleteCookie () {} }
  return { request, info }
}

/**
 * How a replay runs in a version as serving does: the versions' storage entered for converters that read it (a
 * `VersionChangeWithSideEffects`), `undefined` when none does.
 * @example
 * ```ts
 * const env = { ...context, inVersion: inVersionOf(state) }
 * ```
 */
export function inVersionOf (state: VersionerState): ((level: number, work: () => Promise<unknown>) => Promise<unknown>) | undefined {
  if (!state.storesVersion) return undefined
  return async (level, work) => await (runInVersion(state.options.versions, state.versionAt(level), work) as Promise<unknown>)
}
