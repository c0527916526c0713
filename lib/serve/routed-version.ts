/**
 * The version a request was routed by at a path two HEAD routes share, and the error of one whose hooks named another
 * version since, on a route that does not serve it (decision 0331).
 * @module
 */
import type { IncomingMessage } from 'node:http'
import { VersionPickerError } from '../core/request-errors'

const kRoutedVersion = Symbol('fastify-versioner.routed-version')
type RoutedRaw = IncomingMessage & { [kRoutedVersion]?: string | null }

/**
 * Notes on a raw request the version it named when the route constraint routed it, at a path two HEAD routes share
 * (`undefined`: none), for {@link changedSinceRouting}.
 */
export function noteRoutedVersion (raw: IncomingMessage, named: string | undefined): void {
  (raw as RoutedRaw)[kRoutedVersion] = named ?? null
}

/**
 * The error of a request routed, at a path two HEAD routes share, by another version than the one it names after the
 * application's hooks (an `onRequest` hook set the version header), on a route that does not serve `version`, the one
 * picked: Fastify chose the route before the hooks ran, and its 404 would deny a path the version has (decision 0331).
 * `undefined` when the request names what it named then (`namedNow()`; a route that lacks the version is then Fastify's 404).
 */
export function changedSinceRouting (raw: IncomingMessage, namedNow: () => string | undefined, version: string, route: string): Error | undefined {
  const routed = (raw as RoutedRaw)[kRoutedVersion]
  if (routed === undefined) return undefined
  const named = namedNow()
  if (routed === (named ?? null)) return undefined
  return new VersionPickerError(`The API version of this request changed after routing: at ${route}, a path two HEAD routes share, ` +
    `Fastify chose the route before your hooks ran, by the version the request named then (${routed === null ? 'none' : `'${routed}'`}), ` +
    `and a hook named '${named ?? version}' since, served as '${version}', which that route does not serve. Name the version before ` +
    'routing: set the header in Fastify\'s rewriteUrl option, or pick it with a versionPicker (it runs before routing at such paths).')
}
