/**
 * The versioner's state of one request to a versioned route: one object, made when the request's version is
 * first picked, under the one request decoration the plugin declares (`decorateRequest`, so request objects keep
 * one shape). Every request of the application, versioned or not, pays for that one decoration alone.
 * @module
 */
import type { FastifyRequest } from 'fastify'
import { kRequestState, kVersionedRoute } from '../core/symbols'
import type { VersionBehaviour } from '../routes/version-plan'
import type { RegisteredRoute } from '../routes/versioner-state'
import type { PickedVersion } from './version-picking'

/** What the versioner knows of a request once its version is picked. */
export interface RequestState {
  /** The version picked for it (or why none can serve it). */
  readonly picked: PickedVersion
  /** The behaviour of the version it is served as, once the request hook found it. */
  behaviour: VersionBehaviour | null
  /** True once the request holds HEAD data (after migration). */
  migrated: boolean
  /** A converter of this request failed: its 500 is not converted again. */
  converterFailed: boolean
  /** True once its success payload went through the response converters (an error clears it: its body is converted instead). */
  converted: boolean
  /** The deprecated fields the request carries (JSON pointers) and the `Link` they add, when it carries some. */
  fieldDeprecations: { readonly fields: readonly string[], readonly link: string | undefined } | null
}

type WithState = FastifyRequest & { [kRequestState]: RequestState | null }

/** The versioner's state of a request: `null` before its version is picked, and on unversioned routes. */
export function requestState (request: FastifyRequest): RequestState | null {
  return (request as WithState)[kRequestState]
}

/** Starts the state of a request whose version was just picked. */
export function startRequestState (request: FastifyRequest, picked: PickedVersion): RequestState {
  const state: RequestState = { picked, behaviour: null, migrated: false, converterFailed: false, converted: false, fieldDeprecations: null }
  ;(request as WithState)[kRequestState] = state
  return state
}

/** The versioned route answering a request, from its route config (`undefined` on unversioned routes). */
export function registeredRouteOf (request: FastifyRequest): RegisteredRoute | undefined {
  return (request.routeOptions.config as unknown as Record<symbol, RegisteredRoute | undefined> | undefined)?.[kVersionedRoute]
}
