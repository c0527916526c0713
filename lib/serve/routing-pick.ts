/**
 * Picking before routing, for a custom `VersionPicker` or a function `apiVersionDefaultValue` (per-account
 * pinning). Where two HEAD routes share a path and method in different versions, Fastify must know the version
 * to choose the route: the route constraint then derives it asynchronously (Fastify's asynchronous custom
 * constraints) by running the picker once, on the raw request, and keeps the outcome (or the picker's failure)
 * on it for the request hook. Requests to any other path never run the picker here: a small router of the shared
 * paths answers first.
 * @module
 */
import FindMyWay, { type HTTPMethod } from 'find-my-way'
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify'
import type { IncomingMessage } from 'node:http'
import { VersionPickerError } from '../core/errors'
import { describeValue } from '../core/json-schema'
import type { ServeOptions } from './serve-options'
import { isThenable } from './step-runner'
import type { PickedVersion } from './version-picking'
import { pickForRequest } from './pick-version'

/** On a raw request: the outcome of picking before routing. */
const kRoutingPick = Symbol('fastify-versioner.routingPick')

/** What picking before routing left on a raw request: the version picked, or what the picker threw. */
type RoutingPick = { readonly picked: PickedVersion } | { readonly failure: unknown }

type RawRequest = IncomingMessage & { [kRoutingPick]?: RoutingPick }

/** The error a request answers when its picker threw or rejected with `failure` (an Error as it is). */
export function pickerFailure (failure: unknown): Error {
  if (failure instanceof Error) return failure
  return new VersionPickerError(`The API version picker (versionPicker or apiVersionDefaultValue) failed with ${describeValue(failure)}, ` +
    'which is not an Error. Throw an Error (with a statusCode to answer something else than 500).', { cause: failure })
}

/** The version picked before routing for a raw request, when it was picked then and can be served. */
export function versionPickedBeforeRouting (raw: IncomingMessage): string | undefined {
  const pick = (raw as RawRequest)[kRoutingPick]
  return pick !== undefined && 'picked' in pick && pick.picked.ok ? pick.picked.version : undefined
}

/** The outcome of picking before routing, if it ran for this request; throws the picker's failure. */
export function routingPickOf (request: FastifyRequest): PickedVersion | undefined {
  const pick = (request.raw as RawRequest)[kRoutingPick]
  if (pick === undefined) return undefined
  if ('failure' in pick) throw pickerFailure(pick.failure)
  return pick.picked
}

/** What a request has before routing. */
interface RoutingView {
  readonly raw: IncomingMessage
  readonly method: string | undefined
  readonly url: string | undefined
  readonly headers: IncomingMessage['headers']
  readonly params: Record<string, string | undefined>
  readonly query: Record<string, unknown>
  readonly log: FastifyBaseLogger
  readonly server: FastifyInstance
}

/**
 * The error of a picker that read, before routing, what a request only has later: a decoration an `onRequest`
 * hook attaches (an account, `request.user`, `request.cookies`), the body, the route's options. Such a picker would
 * silently pick another version at these paths than everywhere else, so the request is answered a logged 500.
 */
function readTooEarly (property: string, path: string): Error {
  return new VersionPickerError(`The API version picker (versionPicker or apiVersionDefaultValue) read request.${property} at ${path}, ` +
    'where two HEAD routes share the path and method: there the version must be known to choose the route, so the picker runs before ' +
    'routing, before your onRequest hooks and body parsing. Before routing a request has only raw, method, url, headers, params, query, ' +
    'log and server. Read what the picker needs from those (an API key from request.headers.authorization, a cookie from ' +
    'request.headers.cookie), or give the replaced routes distinct paths or methods.')
}

/**
 * What a picker sees before routing: the raw request's method, URL, headers and query, the path parameters of the
 * shared route (with path versions, the version segment), the application's logger and server. No body, route
 * options or request decorations exist yet: reading any other property (or asking whether it is there) throws
 * {@link readTooEarly}, never a silent `undefined`.
 */
function routingView (view: RoutingView, path: string): FastifyRequest {
  const guard = (target: RoutingView, property: string | symbol): void => {
    if (typeof property === 'string' && !(property in target)) throw readTooEarly(property, path)
  }
  return new Proxy(view, {
    get (target, property, receiver) {
      guard(target, property)
      return Reflect.get(target, property, receiver) as unknown
    },
    has (target, property) {
      guard(target, property)
      return Reflect.has(target, property)
    }
  }) as unknown as FastifyRequest
}

/** The paths two HEAD routes share, and the asynchronous derivation of the version there. */
export class RoutingPicks {
  // As lenient as Fastify's router can be: a path matched here needlessly only costs a pick.
  private readonly shared = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, caseSensitive: false })

  constructor (private readonly options: ServeOptions, private readonly server: FastifyInstance) {}

  /** Notes a method and URL that two HEAD routes share (their requests are picked before routing). */
  add (method: string, url: string): void {
    for (const each of method === 'GET' ? ['GET', 'HEAD'] : [method]) {
      if (!this.shared.hasRoute(each as HTTPMethod, url)) this.shared.on(each as HTTPMethod, url, () => {}, url)
    }
  }

  /** The constraint's `deriveConstraint(req, ctx, done)`: the version served, or `undefined` (Fastify then picks the route without). */
  derive (raw: RawRequest, done: (error: Error | null, value?: string) => void): void {
    const match = this.shared.find(raw.method as HTTPMethod, raw.url ?? '/')
    if (match === null) {
      done(null, undefined)
      return
    }
    const settled = (pick: RoutingPick): void => {
      raw[kRoutingPick] = pick
      // A failure or a version that cannot be served reaches the route without a value; its request hook answers it.
      done(null, 'picked' in pick && pick.picked.ok ? pick.picked.version : undefined)
    }
    let picked: PickedVersion | Promise<PickedVersion>
    try {
      const seen = { raw, method: raw.method, url: raw.url, headers: raw.headers, params: { ...match.params }, query: { ...match.searchParams }, log: this.server.log, server: this.server }
      // A preview's access runs here too, on what the request has before routing (a failing access is a denial).
      picked = pickForRequest(routingView(seen, `${raw.method ?? ''} ${match.store as string}`), this.options)
    } catch (failure) {
      settled({ failure })
      return
    }
    if (!isThenable(picked)) settled({ picked })
    else picked.then((outcome) => { settled({ picked: outcome }) }, (failure: unknown) => { settled({ failure }) })
  }
}
