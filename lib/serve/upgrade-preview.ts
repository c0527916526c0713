/**
 * The upgrade preview (option `upgradePreview`; decision 0058): a served response also rendered in a target version,
 * their difference published and summarised in a response header, by three route hooks.
 * @module
 */
import diagnosticsChannel from 'node:diagnostics_channel'
import type { FastifyReply, FastifyRequest, onSendHookHandler, preSerializationHookHandler, preValidationHookHandler } from 'fastify'
import type { ResolvedUpgradePreview, ServeOptions } from './serve-options'
import { isThenable } from './step-runner'
import { copyJson } from '../values/json-copy'
import type { PickedVersion } from './version-picking'
import { askAccess, resolveForRequest } from './pick-version'
import { privateCacheControl } from './version-headers'
import { createGoneTest, type GoneTest } from './gone-versions'
import { registeredRouteOf, requestState } from './request-state'
import { releasedNow } from './release-clock'
import type { RegisteredRoute, VersionerState } from '../routes/versioner-state'
import { PreviewRenderer, type HeadResponse, type PreviewRequestError, type RenderedResponse } from './preview-render'
import { servedRoute, type ServedRoute } from './usage-events'
import { afterAwaiting } from './response-failures'
import type { AroundHooks } from './route-preparation'

/**
 * The `upgradePreview` option.
 * @example
 * ```ts
 * declare const app: FastifyInstance, versions: VersionBundle
 * await app.register(fastifyVersioner, { versions, upgradePreview: { access: (request) => request.headers['x-staff'] === 'yes' } })
 * ```
 */
export interface UpgradePreviewOptions {
  /** The request header naming the target version, and the response header of the summary (default `'x-api-version-preview'`). */
  headerName?: string
  /** Whether this request may preview (an account flag, staff, a test key); may be async. Anything but `true` is no. */
  access: (request: FastifyRequest) => boolean | Promise<boolean>
}

/**
 * One operation of an RFC 6902 JSON Patch.
 * @example
 * ```ts
 * declare const event: UpgradePreviewEvent // a message of the channel fastify-versioner:upgrade-preview
 * const removed: JsonPatchOperation[] = (event.patch ?? []).filter((operation) => operation.op === 'remove')
 * ```
 */
export interface JsonPatchOperation {
  readonly op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test'
  readonly path: string
  readonly value?: unknown
  readonly from?: string
}

/**
 * The message of the channel `fastify-versioner:upgrade-preview`, published once per previewed request.
 * @example
 * ```ts
 * import diagnosticsChannel from 'node:diagnostics_channel'
 * declare const app: FastifyInstance
 * diagnosticsChannel.subscribe('fastify-versioner:upgrade-preview', (message) => {
 *   const { served, target, patch, requestValid } = message as UpgradePreviewEvent
 *   app.log.info({ served, target, changes: patch?.length, requestValid }, 'upgrade preview')
 * })
 * ```
 */
export interface UpgradePreviewEvent {
  readonly request: FastifyRequest
  /** The HEAD route answering the request. */
  readonly route: ServedRoute
  /** The version that served the request; `undefined` when none did (a 400 for the version, a 404 in it). */
  readonly served: string | undefined
  /** The target version (after waterfalling, as a request naming it would be served). */
  readonly target: string
  /** Operations that turn the served body into the target version's body; `undefined` when not compared (`reason`). */
  readonly patch: readonly JsonPatchOperation[] | undefined
  /** The served response's status, and the target version's (`undefined` when not rendered). */
  readonly status: { readonly served: number, readonly target: number | undefined }
  /** The target version's body, when rendered. */
  readonly targetBody: unknown
  /** True when the request as sent is valid in the target version (its schemas, and the route at this path and method). */
  readonly requestValid: boolean
  readonly requestErrors: readonly PreviewRequestError[]
  /** Why the bodies were not compared: not a JSON success, the route absent in the target, a converter failure… */
  readonly reason: string | undefined
}

/** The channel (subscribe with `diagnostics_channel.subscribe('fastify-versioner:upgrade-preview', …)`). */
const previewChannel = diagnosticsChannel.channel('fastify-versioner:upgrade-preview')

/** A request's preview: an unknown target, or a known one with what was learnt so far (`gone`: past its sunset). */
type Preview = { readonly unknown: string } | {
  readonly target: string
  readonly requestErrors: readonly PreviewRequestError[]
  readonly gone?: string
  head?: HeadResponse
}

/** The request property holding a request's preview (decorated only when the option is on). */
export const kPreview = Symbol('fastify-versioner.upgradePreview')

type PreviewRequest = FastifyRequest & { [kPreview]: Preview | null }

/** Text a header value can carry: printable ASCII, anything else (a converter's message, a client's value) as `?`. */
function headerText (text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?')
}

/** The most characters of a client's own value the summary header echoes: a version's name is far shorter. */
const ECHOED = 64

/** A client's value for the summary header: JSON text, its first {@link ECHOED} characters only, said so, when longer. */
function echoed (value: string): string {
  return value.length <= ECHOED ? JSON.stringify(value) : `${JSON.stringify(value.slice(0, ECHOED))}... (the first ${ECHOED} of ${value.length} characters)`
}

function plural (count: number): string {
  return `${count} change${count === 1 ? '' : 's'}`
}

/** What the hooks share: the options, the renderer, the sunset test, and `fast-json-patch`'s `compare`. */
interface PreviewContext {
  readonly options: ServeOptions
  readonly header: string
  readonly access: ResolvedUpgradePreview['access']
  readonly renderer: PreviewRenderer
  readonly goneProblemOf: GoneTest | undefined
  readonly compare: (left: object, right: object) => JsonPatchOperation[]
  /** Requests run in the bundle's version storage: the target is rendered in the target version's (`isApplied`). */
  readonly storesVersion: boolean
}

/** Builds the preview hooks of one application, the same three functions on every versioned route (loads `fast-json-patch`). */
export function createPreviewHooks (state: VersionerState, options: ServeOptions, preview: ResolvedUpgradePreview): AroundHooks {
  // A literal `require` (not `createRequire(__filename)`): a bundler takes the library into an application's bundle,
  // and an ES module bundle has no __filename.
  const { compare } = require('fast-json-patch') as { compare: PreviewContext['compare'] }
  const context: PreviewContext = {
    options,
    header: preview.headerName,
    access: preview.access,
    renderer: new PreviewRenderer(state, options),
    goneProblemOf: createGoneTest(options),
    compare,
    storesVersion: state.storesVersion
  }

  const preSerialization: preSerializationHookHandler = function versionerPreviewCapture (fastifyRequest, reply, payload, done) {
    const found = (fastifyRequest as PreviewRequest)[kPreview]
    if (found !== null && 'target' in found && reply.statusCode < 300) {
      // The headers as the served version's converters see them, for the target's (a copy: theirs go nowhere).
      const body = context.renderer.headBody(registeredRouteOf(fastifyRequest) as RegisteredRoute, found.target, payload, reply)
      // A body JSON cannot write (a cycle) is kept as it is by the copy: the target's converters would change it; not compared.
      if (body !== payload || typeof body !== 'object' || body === null) found.head = { status: reply.statusCode, body: payload, headers: copyJson(reply.getHeaders()) as HeadResponse['headers'] }
    }
    done(null, payload)
  }

  const onSend: onSendHookHandler = function versionerPreviewReport (fastifyRequest, reply, payload, done) {
    const found = (fastifyRequest as PreviewRequest)[kPreview]
    if (found === null) {
      done(null, payload)
      return
    }
    // The summary depends on upgradePreview.access, which no Vary can name: no shared cache may store it (decision 0066).
    reply.header('cache-control', privateCacheControl(reply.getHeader('cache-control')))
    if ('unknown' in found) {
      reply.header(context.header, headerText(`unknown version ${echoed(found.unknown)}; versions: ${releasedNow(options).values.join(', ')}`))
      done(null, payload)
      return
    }
    const sent = afterAwaiting(reply, done)
    report(context, { request: fastifyRequest, reply, payload, preview: found }).then(() => { sent(null, payload) }, (error: unknown) => {
      fastifyRequest.log.error({ err: error }, 'fastify-versioner: the upgrade preview failed; the response is sent without it')
      sent(null, payload)
    })
  }

  return { beforeRequest: startHook(context), beforeSuccess: preSerialization, afterSend: onSend }
}

/**
 * What a request learns of its target: an unknown value (a preview its own `access` refuses included), a version gone
 * after its sunset, or the request's errors in the target.
 */
function previewOf (context: PreviewContext, request: PreviewRequest, value: string, picked: PickedVersion): Preview {
  if (!picked.ok) return { unknown: value }
  const problem = context.goneProblemOf?.(picked.version)
  if (problem !== undefined) {
    const brownout = problem.brownout as { end: string } | undefined
    const gone = brownout === undefined
      ? `${picked.version} is gone since its sunset on ${String(problem.sunsetAt).slice(0, 10)}: it answers every request 410`
      : `${picked.version} is in a scheduled brownout until ${brownout.end}: it answers every request 410`
    return { target: picked.version, requestErrors: [{ part: 'version', instancePath: '', message: String(problem.detail) }], gone }
  }
  return { target: picked.version, requestErrors: context.renderer.requestErrors(request, registeredRouteOf(request) as RegisteredRoute, picked.version) }
}

/** The hook before the request hook: reads the header, asks `access`, resolves the target as a request naming it would be, checks the request there. */
function startHook (context: PreviewContext): preValidationHookHandler {
  const { options, access } = context
  const start = (request: PreviewRequest, value: string): void | Promise<void> => {
    // A preview version as the target only when its own access allows this request, as for a request naming it.
    const picked = resolveForRequest(request, value, options)
    if (!isThenable(picked)) request[kPreview] = previewOf(context, request, value, picked)
    else return picked.then((resolved) => { request[kPreview] = previewOf(context, request, value, resolved) })
  }
  const denied = (request: FastifyRequest, error: unknown): void => {
    request.log.error({ err: error }, 'fastify-versioner: upgradePreview.access failed; the request is served without a preview')
  }
  return function versionerPreviewStart (fastifyRequest, _reply, done) {
    const value = fastifyRequest.headers[context.header]
    if (typeof value !== 'string') {
      done()
      return
    }
    const request = fastifyRequest as PreviewRequest
    const allowed = askAccess(access, request, (error) => { denied(request, error) })
    const started = isThenable(allowed) ? allowed.then((granted) => granted ? start(request, value) : undefined) : allowed ? start(request, value) : undefined
    if (!isThenable(started)) {
      done()
      return
    }
    started.then(() => { done() }, (error: unknown) => { denied(request, error); done() })
  }
}

/** Renders the target's response, compares, sets the summary header, publishes. */
async function report (
  context: PreviewContext, at: { request: FastifyRequest, reply: FastifyReply, payload: unknown, preview: Extract<Preview, { target: string }> }
): Promise<void> {
  const { request, reply, payload, preview: found } = at
  const registered = registeredRouteOf(request) as RegisteredRoute
  const served = requestState(request)?.behaviour?.version
  let rendered: RenderedResponse | string = found.gone ?? `not a JSON success (status ${reply.statusCode})`
  let servedBody: unknown
  // A served error (a failing converter of the served version after the handler's success included) is not compared.
  if (found.gone === undefined && found.head !== undefined && reply.statusCode < 300 && typeof payload === 'string') {
    try {
      servedBody = JSON.parse(payload)
      const head = found.head
      const render = (): ReturnType<PreviewRenderer['render']> => context.renderer.render(registered, found.target, head, { method: request.method, reply })
      rendered = await (context.storesVersion ? context.options.versions.apiVersionStorage.run(found.target, render) : render())
    } catch (error) {
      const thrown = (error as { thrown?: unknown }).thrown ?? error
      rendered = `the target version's response converters failed: ${thrown instanceof Error ? thrown.message : String(thrown)}`
    }
  }
  const target = typeof rendered === 'string' ? undefined : rendered
  // Compared under one key, so that a body that is not an object (an array, a string) is compared too.
  const patch = target === undefined
    ? undefined
    : context.compare({ body: servedBody }, { body: target.body }).map((operation) => ({ ...operation, path: operation.path.slice('/body'.length) }))
  const requestValid = found.requestErrors.length === 0
  const summary = patch === undefined ? `not compared (${rendered as string})` : plural(patch.length)
  reply.header(context.header, headerText(`${found.target}: ${summary}; request ${requestValid ? 'valid' : 'invalid'}`))
  if (!previewChannel.hasSubscribers) return
  const event: UpgradePreviewEvent = {
    request,
    route: servedRoute(request, registered.head),
    served,
    target: found.target,
    patch,
    status: { served: reply.statusCode, target: target?.status },
    targetBody: target?.body,
    requestValid,
    requestErrors: found.requestErrors,
    reason: typeof rendered === 'string' ? rendered : undefined
  }
  previewChannel.publish(event)
}
