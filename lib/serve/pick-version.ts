/**
 * Preview versions for a request: a request names a preview version only by its whole value, and is served it only
 * when the version's `access` allows the request. Otherwise the request is answered exactly as if the preview did
 * not exist (the outcome of the released versions alone), so that its existence does not leak
 * ([decision 0059](../../docs/decisions/0059-release-channels.md)).
 * @module
 */
import type { FastifyRequest } from 'fastify'
import { kBundleInternals } from '../core/symbols'
import { isThenable } from './step-runner'
import { resolveVersion, type PickedVersion, type VersionPickerOptions } from './version-picking'
import type { ServeOptions } from './serve-options'

/** Logs a failing `access` (the request is then answered as for an unknown version). */
function accessFailed (request: FastifyRequest, version: string, error: unknown): void {
  request.log.error({ err: error, previewVersion: version }, `fastify-versioner: the access function of preview version '${version}' failed; ` +
    'the request is answered as one naming an unknown version.')
}

/**
 * The operator's trace of a preview its `access` refused (the client's answer is that of an unknown version): a
 * `debug` line on the request's logger, nothing at other levels.
 */
function accessRefused (request: FastifyRequest, version: string): void {
  request.log.debug({ previewVersion: version }, `fastify-versioner: preview version '${version}' exists, but its access refused this request; ` +
    'it is answered as one naming an unknown version.')
}

/**
 * The version a request is served for the value it names: a released version (as {@link resolveVersion} finds it),
 * or a preview version named exactly that `access` allows (`true`; false, anything else or a failure denies: the
 * outcome of the released versions alone, with a trace for the operator).
 * @example
 * ```ts
 * const picked = await resolveForRequest(request, '2027-01-01.preview', { versions, format: 'date' })
 * ```
 */
export function resolveForRequest (
  request: FastifyRequest, value: string | undefined, options: Pick<VersionPickerOptions, 'versions' | 'format'>
): PickedVersion | Promise<PickedVersion> {
  const picked = resolveVersion(value, options.versions, options.format)
  if (picked.ok || typeof value !== 'string') return picked
  const preview = options.versions[kBundleInternals].previewPicks.get(value)
  if (preview === undefined) return picked
  const access = options.versions.get(preview.version)?.access
  if (access === undefined) return preview
  let failed = false
  const allowed = askAccess(access, request, (error) => {
    failed = true
    accessFailed(request, preview.version, error)
  })
  const outcome = (yes: boolean): PickedVersion => {
    if (yes) return preview
    if (!failed) accessRefused(request, preview.version)
    return picked
  }
  return isThenable(allowed) ? allowed.then(outcome) : outcome(allowed)
}

/** Runs the picker on `request` and resolves the value it gives ({@link resolveForRequest}); throws or rejects as the picker does. */
export function pickForRequest (request: FastifyRequest, options: Pick<ServeOptions, 'picker' | 'versions' | 'format'>): PickedVersion | Promise<PickedVersion> {
  const value = options.picker.pick(request)
  return isThenable(value) ? Promise.resolve(value).then((resolved) => resolveForRequest(request, resolved, options)) : resolveForRequest(request, value, options)
}

/**
 * Whether `access` allows `request` (a preview version's, or the upgrade preview's): only `true` is a yes; a throw or
 * a rejection is a no, reported to `failed`. Synchronous when `access` is; the promise never rejects.
 */
export function askAccess (
  access: (request: FastifyRequest) => boolean | Promise<boolean>, request: FastifyRequest, failed: (error: unknown) => void
): boolean | Promise<boolean> {
  let allowed: boolean | Promise<boolean>
  try {
    allowed = access(request)
  } catch (error) {
    failed(error)
    return false
  }
  if (!isThenable(allowed)) return allowed === true
  return Promise.resolve(allowed).then((answer) => answer === true, (error: unknown) => {
    failed(error)
    return false
  })
}

/**
 * The preview versions a request may see (the docs pages and documents asked for `?channel=preview`): each one whose
 * `access` allows the request (a preview without `access`, always), newest first.
 */
export async function allowedPreviews (request: FastifyRequest, options: Pick<VersionPickerOptions, 'versions' | 'format'>): Promise<string[]> {
  const allowed: string[] = []
  for (const value of options.versions[kBundleInternals].previewPicks.keys()) {
    const picked = await resolveForRequest(request, value, options)
    if (picked.ok) allowed.push(value)
  }
  return allowed
}
