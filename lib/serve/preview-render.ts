/**
 * What the upgrade preview computes for a target version without touching the request or reply being served: whether
 * the request as sent is valid there, and the HEAD response rendered as the target would send it.
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { copyJson, isThenable, runStepsToBody } from './step-runner'
import { PART_PROPERTY, validationFailure } from './head-validation'
import type { ServeOptions } from './serve-options'
import { serializerFor } from './migrate-response'
import { copyAsWritten, putBack, type Replaced } from '../values/written-values'
import { createChosenSerializerTest } from './own-serializers'
import { requestPlanOf, type RequestPart, type VersionBehaviour } from '../routes/version-plan'
import { responseSlot } from '../routes/schema-forms'
import { describeUnexpressible, unexpressibleValue } from '../routes/value-guards'
import type { RegisteredRoute, VersionerState } from '../routes/versioner-state'
import type { HttpMethod } from '../core/http-methods'

/**
 * One reason a request is not valid in the target version.
 * @example
 * ```ts
 * declare const event: UpgradePreviewEvent // a message of the channel fastify-versioner:upgrade-preview
 * const errors: readonly PreviewRequestError[] = event.requestErrors
 * for (const { part, instancePath, message } of errors) console.log(`${part} ${instancePath}: ${message}`)
 * ```
 */
export interface PreviewRequestError {
  /** The part at fault; `route` when the target has no such route, `version` when it answers every request 410. */
  readonly part: RequestPart | 'route' | 'version'
  readonly instancePath: string
  readonly message: string
}

/** A response as a version sends it: its status and its body (parsed JSON). */
export interface RenderedResponse {
  readonly status: number
  readonly body: unknown
}

/**
 * The HEAD response to render: the handler's own body (never changed: the render converts a copy, as serving does), with
 * (a copy of) the headers the served version's converters saw.
 * @example `const head: HeadResponse = { status: 200, body: { id: 'o' }, headers: { 'x-region': 'eu' } }`
 */
export interface HeadResponse extends RenderedResponse {
  readonly headers: Readonly<Record<string, string | string[] | number | undefined>>
}

/** The behaviour of `version` for the HEAD route of `registered`, whichever of its routes serves that version. */
function behaviourIn (registered: RegisteredRoute, version: string): VersionBehaviour | undefined {
  return registered.head.registered.find((route) => route.behaviours.has(version))?.behaviours.get(version)
}

/** Renders and checks previews for one application. */
export class PreviewRenderer {
  private readonly hasChosenSerializer = createChosenSerializerTest()

  constructor (private readonly state: VersionerState, private readonly options: ServeOptions) {}

  /** A copy of the HEAD body of a success, as `target`'s converters get it (the route's own copy). */
  headBody (registered: RegisteredRoute, target: string, payload: unknown, reply: FastifyReply): unknown {
    const behaviour = behaviourIn(registered, target)
    // A serializer the application chose writes a Date by its own rules, not the schema's.
    const key = behaviour === undefined || this.hasChosenSerializer(reply) ? undefined : responseSlot(behaviour.responses, reply.statusCode, reply)
    return copyAsWritten(key === undefined ? undefined : behaviour?.responseWritten.get(key), payload, true)
  }

  /** The route of another HEAD route serving `target` at this route's path and method (one replacing it there), if any. */
  private replacing (registered: RegisteredRoute, method: string, target: string): RegisteredRoute | undefined {
    return this.state.headRoutes.flatMap((head) => head === registered.head ? [] : head.registered)
      .find((route) => route.url === registered.url && route.methods.includes(method as HttpMethod) && route.behaviours.has(target))
  }

  /** The errors of the request (as sent, before any converter) in `target`; none when it is valid there. */
  requestErrors (request: FastifyRequest, registered: RegisteredRoute, target: string): PreviewRequestError[] {
    const behaviour = registered.behaviours.get(target) ?? this.replacing(registered, request.method, target)?.behaviours.get(target)
    if (behaviour === undefined) {
      const state = registered.head.timeline[this.state.generation.levelOf(target)]
      const message = state.exists
        ? `in ${target} this operation is ${state.methods.join(',')} ${state.path}`
        : `${registered.head.display} does not exist in ${target}`
      return [{ part: 'route', instancePath: '', message }]
    }
    const errors: PreviewRequestError[] = []
    for (const [part, schema] of requestPlanOf(behaviour, request.headers['content-type']).requestForms) {
      const data = copyJson(request[PART_PROPERTY[part]])
      if (part === 'params' && this.options.location === 'path' && typeof data === 'object' && data !== null) {
        delete (data as Record<string, unknown>)[this.options.parameterName]
      }
      const check = request.compileValidationSchema(schema, part)
      // Fastify validates a missing part (a request without a body) as null.
      const outcome: unknown = check(data === undefined ? null : data)
      // An async validator (an `$async` schema) cannot be waited for here: not judged, its refusal never left unhandled.
      if (isThenable(outcome)) {
        outcome.then(undefined, () => {})
        continue
      }
      const failure = validationFailure(check, outcome)
      if (failure === undefined) continue
      for (const error of failure instanceof Error ? [{ instancePath: '', message: failure.message }] : failure) {
        errors.push({ part, instancePath: error.instancePath ?? '', message: error.message ?? 'is invalid' })
      }
    }
    return errors
  }

  /**
   * The HEAD response (`head`, status < 300) as `target` sends it, or why it cannot (the route absent, or a value the
   * version cannot express); rejects when a converter throws.
   */
  async render (registered: RegisteredRoute, target: string, head: HeadResponse, at: { method: string, reply: FastifyReply }): Promise<RenderedResponse | string> {
    const behaviour = behaviourIn(registered, target)
    const other = behaviour === undefined ? this.replacing(registered, at.method, target) : undefined
    if (other !== undefined) {
      const { operationId } = other.head.schema
      return `${registered.head.display} is another route in ${target}${typeof operationId === 'string' ? ` (operationId ${operationId})` : ''}: its answer is not rendered`
    }
    if (behaviour === undefined) return `${registered.head.display} does not exist in ${target}`
    const key = responseSlot(behaviour.responses, head.status, at.reply)
    const steps = behaviour.responseSteps.get(key ?? '') ?? []
    // As the success hook does: the handler's values no converter changed put back for the serializer (decisions 0285,
    // 0298), and the fields of HEAD an open object of the version lacks removed (its serializer would keep them). The
    // render writes with the schema's serializer: where the application chose its own, JSON's copy is what it writes.
    const chosen = this.hasChosenSerializer(at.reply)
    const replaced: Replaced[] = []
    const copied = copyAsWritten(key === undefined || chosen ? undefined : behaviour.responseWritten.get(key), head.body, true, chosen ? undefined : replaced)
    const info = { body: copied, statusCode: head.status, headers: { ...head.headers }, raw: head.body, setCookie () {}, deleteCookie () {} }
    const body = await runStepsToBody(steps, info, copied, { method: at.method, reply: { statusCode: head.status } })
    if (key !== undefined) behaviour.responseCleaners.get(key)?.(body)
    putBack(replaced, copied, body)
    const guards = key === undefined ? undefined : behaviour.responseGuards.get(key)
    const found = guards === undefined ? undefined : unexpressibleValue(guards, body)
    if (found !== undefined) return describeUnexpressible(found, target)
    // As the success hook sends it: the version's own status when the converters kept the HEAD one.
    const changed = behaviour.statusCode !== undefined && info.statusCode === head.status
    const status = changed ? behaviour.statusCode as number : info.statusCode
    const text = serializerFor(at.reply, behaviour, status, changed ? key : undefined)(body)
    return { status, body: text === undefined ? undefined : JSON.parse(text) }
  }
}
