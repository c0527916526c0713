/**
 * The versioner's per-request and per-reply state, kept under symbol keys declared with
 * `decorateRequest` / `decorateReply` (so request objects keep one shape).
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { kBehaviour, kConverted, kConverterFailed, kFieldDeprecations, kMigrated, kPicked, kVersionedRoute } from '../core/symbols'
import type { VersionBehaviour } from '../routes/version-plan'
import type { RegisteredRoute } from '../routes/versioner-state'
import type { PickedVersion } from './version-picking'

/** A request as the versioner sees it. */
export type VersionedRequest = FastifyRequest & {
  [kPicked]: PickedVersion | null
  [kBehaviour]: VersionBehaviour | null
  [kMigrated]: boolean
  /** A converter of this request failed: its 500 is not converted again. */
  [kConverterFailed]: boolean
  /** The deprecated fields the request carries (JSON pointers) and the `Link` they add, when it carries some. */
  [kFieldDeprecations]: { readonly fields: readonly string[], readonly link: string | undefined } | null
}

/** A reply as the versioner sees it. */
export type VersionedReply = FastifyReply & {
  [kConverted]: boolean
}

/** The versioner's view of a request. */
export function versionedRequest (request: FastifyRequest): VersionedRequest {
  return request as VersionedRequest
}

/** The versioned route answering a request, from its route config (`undefined` on unversioned routes). */
export function registeredRouteOf (request: FastifyRequest): RegisteredRoute | undefined {
  return (request.routeOptions.config as unknown as Record<symbol, RegisteredRoute | undefined> | undefined)?.[kVersionedRoute]
}
