/**
 * A helper for applications' own test suites that runs their handlers, where `verify` runs converters only: a
 * stored resource that a client of each version reads and sends back unchanged must stay as it was, and a replace
 * that leaves out an optional field must clear it. It finds a handler that does not keep what an old version cannot
 * send (`fullReplace: { keeps }` declared and not kept), a replace made a merge, and converters that lose data on
 * the way through the handler ([decision 0141](../../docs/decisions/0141-replaces-proven-through-the-handler.md)).
 * @module
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { VersionerToolError } from '../core/errors'
import { pointerSegment } from '../core/json-schema'
import { requestsOfEveryVersion, type VersionRequest } from './every-version'
import { differencesOf } from './value-difference'
import { sameValue } from './value-comparison'
import { exampleOf } from '../values/examples'
import { setOwn } from '../core/own-properties'
import type { ResolveRef } from '../values/shapes'
import { bodySchema, declaresReplace, formerFields, optionalFields, schemaResolver } from './replace-body'

/**
 * Options of {@link replaceFromEveryVersion}.
 * @example
 * ```ts
 * declare const app: FastifyInstance // the application on test data, ready
 * const options: ReplaceFromEveryVersionOptions = { url: '/customers/c1', method: 'PUT', headers: { authorization: 'Bearer test' } }
 * const findings = await replaceFromEveryVersion(app, options)
 * ```
 */
export interface ReplaceFromEveryVersionOptions {
  /**
   * The URL of a stored resource that `GET` reads and the replace writes, in every version: `/customers/c1`; or the
   * URL in each version, where a version moved the route (`had({ path })`): a version the URL matches no route of is
   * left out.
   */
  readonly url: string | ((version: string) => string)
  /** The replace's method (default `'PUT'`). */
  readonly method?: 'PUT' | 'POST' | 'PATCH'
  /** Headers every request carries (authorization, say). */
  readonly headers?: Readonly<Record<string, string>>
  /**
   * The body a client of `version` sends to replace the resource unchanged, from what it read in that version
   * (default: what it read). Give it when the route takes a field no read shows (a password).
   */
  readonly body?: (read: unknown, version: string) => unknown
  /** JSON pointers into the newest version's read of fields every replace may change (`/updatedAt`). */
  readonly ignore?: readonly string[]
  /** Only these versions (default: every released version that reads and replaces the resource; a preview version when named). */
  readonly versions?: readonly string[]
  /**
   * First fill every optional field the resource leaves out with an example value, by the newest version's replace
   * (default `true`), so that a field an old version cannot send is there to lose. `false` when the route would
   * refuse example values (a reference to another resource): store the resource with every field set yourself.
   */
  readonly fill?: boolean
}

/**
 * What a replace from one version did wrong:
 * - `'changed'`: the unchanged replace changed what the newest version reads at `pointer` (`before`, `after`);
 * - `'not cleared'`: a replace leaving out the optional field at `pointer` kept it (`before`, `after`: the version's reads);
 * - `'refused'`: the version's route refused what its own clients read (`after`: the status and body).
 * @example
 * ```ts
 * declare const app: FastifyInstance // the application on test data, ready
 * const findings: ReplaceFromVersionFinding[] = await replaceFromEveryVersion(app, { url: '/customers/c1' })
 * for (const { version, kind, pointer } of findings) console.error(`${version}: ${kind} at ${pointer}`)
 * ```
 */
export interface ReplaceFromVersionFinding {
  readonly version: string
  readonly kind: 'changed' | 'not cleared' | 'refused'
  readonly pointer: string
  readonly before: unknown
  readonly after: unknown
  readonly message: string
}

/** The requests of one call: reads and replaces by version, and what to send. */
interface Run {
  readonly app: FastifyInstance
  readonly options: ReplaceFromEveryVersionOptions
  readonly reads: ReadonlyMap<string, VersionRequest>
  readonly replaces: ReadonlyMap<string, VersionRequest>
  readonly newest: string
  /** Finds a schema a replace body's `$ref` names: the plugin's versioned schemas, then the application's. */
  readonly resolveRef: ResolveRef
}

/** The resource's URL in `version`. */
function urlIn (options: ReplaceFromEveryVersionOptions, version: string): string {
  return typeof options.url === 'string' ? options.url : options.url(version)
}

function byVersion (requests: Iterable<VersionRequest>): Map<string, VersionRequest> {
  return new Map([...requests].map((request) => [request.version, request]))
}

async function read (run: Run, version: string): Promise<unknown> {
  const answer = await run.app.inject((run.reads.get(version) as VersionRequest).injected)
  if (answer.statusCode !== 200) {
    throw new VersionerToolError(`replaceFromEveryVersion: GET ${urlIn(run.options, version)} answered ${answer.statusCode} in ${version}: give the URL ` +
      'of a resource stored before the call, which every version reads.')
  }
  return answer.json()
}

async function replace (run: Run, version: string, payload: unknown): Promise<LightMyRequestResponse> {
  return await run.app.inject({ ...(run.replaces.get(version) as VersionRequest).injected, payload: payload as object })
}

function bodyOf (run: Run, readValue: unknown, version: string): unknown {
  return run.options.body === undefined ? structuredClone(readValue) : run.options.body(structuredClone(readValue), version)
}

/** Puts back what the newest version read before, by its own replace (when it has one). */
async function restore (run: Run, before: unknown): Promise<void> {
  if (!run.replaces.has(run.newest)) return
  const answer = await replace(run, run.newest, bodyOf(run, before, run.newest))
  if (answer.statusCode >= 300) {
    throw new VersionerToolError(`replaceFromEveryVersion: the newest version (${run.newest}) refused to put the resource back as it read it ` +
      `(${answer.statusCode} ${answer.body.slice(0, 200)}): give the body option, to build the body its clients send from what they read.`)
  }
}

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `body` with what it leaves out or holds as `null` of `example` added, object by object (lists are kept as they are). */
function withExample (body: unknown, example: unknown): unknown {
  if (!isPlainObject(body) || !isPlainObject(example)) return body
  const filled: Record<string, unknown> = { ...body }
  for (const [key, value] of Object.entries(example)) {
    setOwn(filled, key, Object.hasOwn(body, key) && body[key] !== null ? withExample(body[key], value) : value)
  }
  return filled
}

/** Sets every optional field the resource leaves out to an example value, by the newest version's replace. */
async function fill (run: Run): Promise<void> {
  const request = run.replaces.get(run.newest)
  if (request?.route.schema.body === undefined) return
  const example = exampleOf(bodySchema(request), { includeOptional: true, resolveRef: run.resolveRef })
  const answer = await replace(run, run.newest, withExample(bodyOf(run, await read(run, run.newest), run.newest), example))
  if (answer.statusCode >= 300) {
    throw new VersionerToolError(`replaceFromEveryVersion: the newest version (${run.newest}) refused the resource with every field set to an ` +
      `example value (${answer.statusCode} ${answer.body.slice(0, 200)}): store a resource with every field set, and pass fill: false.`)
  }
}

/** Replaces from `version` leaving out each optional field the resource holds there: each one kept is a finding. */
async function clearsOptionalFields (run: Run, version: string, sent: unknown, found: ReplaceFromVersionFinding[]): Promise<void> {
  if (!isPlainObject(sent) || !declaresReplace(run.app, run.replaces.get(version) as VersionRequest)) return
  // A field HEAD does not have is stored by no handler: what a response converter fills it with comes back either way.
  const former = formerFields(run.app, run.replaces.get(version) as VersionRequest)
  for (const [name, field] of optionalFields(run.replaces.get(version) as VersionRequest, run.resolveRef)) {
    const held = (sent as Record<string, unknown>)[name]
    // A value equal to the default, or null (a field cleared reads null), would come back whether the field was cleared or kept.
    if (!Object.hasOwn(sent, name) || former.has(name) || held === null || ('default' in field && sameValue(field.default, held))) continue
    const before = await read(run, run.newest)
    const seen = await read(run, version)
    const without = Object.fromEntries(Object.entries(sent).filter(([key]) => key !== name))
    // A route that refuses the body without it takes it as required: its clients cannot leave it out.
    if ((await replace(run, version, without)).statusCode >= 300) continue
    const after = await read(run, version)
    const pointer = `/${pointerSegment(name)}`
    if (Object.hasOwn(Object(after), name) && sameValue((after as Record<string, unknown>)[name], (seen as Record<string, unknown>)[name])) {
      found.push({
        version,
        kind: 'not cleared',
        pointer,
        before: (seen as Record<string, unknown>)[name],
        after: (after as Record<string, unknown>)[name],
        message: `a replace from ${version} that leaves out ${pointer} kept it: the route merges what it is sent, so its clients can never ` +
          'clear the field. Replace what is stored with the body (keep only the fields the version lacks: fieldsTheVersionLacks(request)), or declare ' +
          'the route fullReplace: false and document it as a partial update.'
      })
    }
    await restore(run, before)
  }
}

/**
 * Notes each place the newest version's read changed from `reads.before` to `reads.after` after a replace from
 * `version` (but those ignored, those already noted, and with `storedOnly` those `before` held no value at).
 */
function noteChanges (run: Run, version: string, reads: { before: unknown, after: unknown, storedOnly?: boolean }, found: ReplaceFromVersionFinding[]): void {
  const ignored = run.options.ignore ?? []
  for (const difference of differencesOf(reads.before, reads.after)) {
    if (ignored.some((pointer) => difference.pointer === pointer || difference.pointer.startsWith(`${pointer}/`))) continue
    if ((reads.storedOnly === true && difference.recorded === undefined) || found.some((finding) => finding.version === version && finding.kind === 'changed' && finding.pointer === difference.pointer)) continue
    found.push({
      version,
      kind: 'changed',
      pointer: difference.pointer,
      before: difference.recorded,
      after: difference.replayed,
      message: `a client of ${version} replacing the resource with what it read changed ${difference.pointer} as the newest version reads it ` +
        `(${JSON.stringify(difference.recorded) ?? 'nothing'} before, ${JSON.stringify(difference.replayed) ?? 'nothing'} after). ` +
        (difference.replayed === undefined
          ? 'A field this version cannot send is erased, or one its response converters do not give back (a field moved, and not moved back): ' +
            'keep its stored value (fieldsTheVersionLacks(request)), derive it with derivedFrom(...), or make the response converter give it back.'
          : version === run.newest
            ? 'The route (its validator, coercing a null or a number, or its handler) does not store what it is sent.'
            : 'A converter on the way loses or changes it: compare the request converter with the response converter of this field.') +
        ' A field every replace changes (a time of update) goes in the ignore option.'
    })
  }
}

/** The unchanged replace from `version`: each place it changed in the newest version's read is a finding. */
async function replacesUnchanged (run: Run, version: string, found: ReplaceFromVersionFinding[]): Promise<unknown> {
  const before = await read(run, run.newest)
  const sent = bodyOf(run, await read(run, version), version)
  const answer = await replace(run, version, sent)
  if (answer.statusCode >= 300) {
    found.push({
      version,
      kind: 'refused',
      pointer: '',
      before: sent,
      after: { statusCode: answer.statusCode, body: answer.body },
      message: `a client of ${version} sending back what it read to replace it is answered ${answer.statusCode}: the version reads a shape its ` +
        'replace does not take. Give the body option if the route takes fields no read shows (a password); otherwise the version\'s schemas disagree.'
    })
    return undefined
  }
  noteChanges(run, version, { before, after: await read(run, run.newest) }, found)
  await restore(run, before)
  return sent
}

/**
 * Runs the application's handlers (give it an application on test data): for every version that reads (`GET`) and
 * replaces (`PUT`) the resource at `url` (its optional fields first filled with example values), reads it there and
 * sends it back unchanged, then compares what the newest
 * version reads before and after; then leaves out, one at a time, each optional field the version's replace takes, and
 * reads in the version that it was cleared. The resource is put back by the newest version's replace after each
 * step, and at the end as it was stored before the call (without the fill's example values). Returns the findings: `[]` when every version replaces as its clients expect.
 * @example
 * ```ts
 * import { test } from 'tap'
 * declare const app: FastifyInstance // the application on test data, ready
 * test('every version replaces a customer as its clients expect', async (t) => {
 *   const created = await app.inject({ method: 'POST', url: '/customers', payload: { givenName: 'Ada', email: 'ada@example.com', memo: 'VIP' } })
 *   t.same(await replaceFromEveryVersion(app, { url: `/customers/${created.json().id}` }), [])
 * })
 * ```
 */
export async function replaceFromEveryVersion (app: FastifyInstance, options: ReplaceFromEveryVersionOptions): Promise<ReplaceFromVersionFinding[]> {
  const headers = options.headers ?? {}
  const method = options.method ?? 'PUT'
  const requests = (sent: string, versions?: readonly string[]): Map<string, VersionRequest> =>
    byVersion(requestsOfEveryVersion(app, (version) => ({ method: sent, url: urlIn(options, version), headers }), { versions }, 'replaceFromEveryVersion'))
  const reads = requests('GET')
  const replaces = requests(method)
  const [newest] = reads.keys()
  // Versions named as the API reads them (a plain date, a date between versions, a preview version): by the version served.
  const chosen = options.versions === undefined ? [reads, replaces] : [requests('GET', options.versions), requests(method, options.versions)]
  for (const [version, request] of chosen[0]) reads.set(version, request)
  for (const [version, request] of chosen[1]) replaces.set(version, request)
  const both = [...chosen[0].keys()].filter((version) => chosen[1].has(version))
  if (both.length === 0 || newest === undefined) {
    throw new VersionerToolError(`replaceFromEveryVersion: no ${both.length === 0 ? '' : 'released '}version both reads (GET) and replaces (${method}) ${typeof options.url === 'string' ? options.url : 'the URLs of the url option'}.`)
  }
  const run: Run = { app, options, reads, replaces, newest, resolveRef: schemaResolver(app) }
  const original = options.fill === false ? undefined : await read(run, run.newest)
  if (original !== undefined) await fill(run)
  const found: ReplaceFromVersionFinding[] = []
  for (const version of both) {
    const sent = await replacesUnchanged(run, version, found)
    if (sent !== undefined) await clearsOptionalFields(run, version, sent, found)
  }
  if (original !== undefined) {
    // The resource as the test stored it, the fill's example values gone (each other step puts back what it changed):
    // a value stored that the newest version's own replace does not keep (a null coerced to '') is a change too.
    await restore(run, original)
    noteChanges(run, run.newest, { before: original, after: await read(run, run.newest), storedOnly: true }, found)
  }
  return found
}
