/**
 * Property-based tests (fast-check) and a repeatable hostile-input and fault run over every version of a
 * representative application: version values as headers and path segments, body round trips through every
 * version, and hostile bodies (`__proto__`, `constructor`, `prototype` keys, deep nesting, odd types), with
 * converters that fail on demand. The run counts wrong-shaped answers, unexpected 5xx, prototype pollution and
 * version-dependent answers (any method) missing `Vary`, and asserts that each is zero. Seeds are fixed: a run is
 * repeatable (set FC_SEED to try others).
 */
import { isDeepStrictEqual } from 'node:util'
import { test } from 'tap'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import {
  ConvertRequestToNextVersionFor, ConvertResponseToPreviousVersionFor, HeadVersion, Version, VersionBundle, VersionChange,
  schema, type FastifyVersionerOptions, type RequestInfo, type ResponseInfo
} from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { versionValues } from '../helpers/version-values'

const SEED = Number(process.env.FC_SEED ?? 20261123)
const VERSIONS = ['2003-01-01', '2002-01-01', '2001-01-01', '2000-01-01'] as const
type ApiVersion = typeof VERSIONS[number]

const Profile = Type.Object({ nickname: Type.String({ maxLength: 40 }) })
const UserCreate = Type.Object({ name: Type.String({ maxLength: 40 }), addresses: Type.Array(Type.String({ maxLength: 40 }), { minItems: 1, maxItems: 5 }), profile: Profile })
const User = Type.Object({ id: Type.String(), name: Type.String(), addresses: Type.Array(Type.String()), profile: Profile })
const Params = Type.Object({ id: Type.String() })

/** What a client of each version sends and gets (2003-01-01 is HEAD's shape). */
interface HeadUser { name: string, addresses: string[], profile: { nickname: string } }

function asVersion (user: HeadUser, version: ApiVersion): Record<string, unknown> {
  const out: Record<string, unknown> = { profile: { nickname: user.profile.nickname } }
  if (version === '2003-01-01') out.addresses = user.addresses
  else out.address = user.addresses[0]
  if (version === '2001-01-01' || version === '2000-01-01') out.fullName = user.name
  else out.name = user.name
  return out
}

/** The bundle (fresh classes: a version change class belongs to one bundle); converters fail when a field says so. */
function bundle (): VersionBundle {
  class AddressesWereOne extends VersionChange {
    description = 'Users had one address.'
    instructionsToMigrateToPreviousVersion = [
      schema(UserCreate).field('addresses').had({ name: 'address', type: Type.String({ maxLength: 40 }) }),
      schema(User).field('addresses').had({ name: 'address', type: Type.String() })
    ]

    @ConvertRequestToNextVersionFor(UserCreate)
    up (request: RequestInfo) {
      request.body.addresses = [request.body.address]
      delete request.body.address
      if (request.body.addresses[0] === 'fail-request') throw null // eslint-disable-line no-throw-literal
    }

    @ConvertResponseToPreviousVersionFor(User)
    down (response: ResponseInfo) {
      response.body.address = response.body.addresses[0]
      delete response.body.addresses
      if (response.body.address === 'fail-response') return Promise.reject() // eslint-disable-line prefer-promise-reject-errors
    }
  }
  class NamesWereFull extends VersionChange {
    description = 'Users had a full name.'
    instructionsToMigrateToPreviousVersion = [
      schema(UserCreate).field('name').had({ name: 'fullName' }),
      schema(User).field('name').had({ name: 'fullName' })
    ]

    @ConvertRequestToNextVersionFor(UserCreate)
    up (request: RequestInfo) {
      request.body.name = request.body.fullName
      delete request.body.fullName
    }

    @ConvertResponseToPreviousVersionFor(User)
    down (response: ResponseInfo) {
      response.body.fullName = response.body.name
      delete response.body.name
    }
  }
  class LookupsWereTagged extends VersionChange {
    description = 'User lookups carried a legacy header.'
    instructionsToMigrateToPreviousVersion = []

    @ConvertResponseToPreviousVersionFor('/users/:id', ['GET'])
    tag (response: ResponseInfo) {
      response.headers['x-legacy'] = 'yes'
    }
  }
  return new VersionBundle(new HeadVersion(), new Version('2003-01-01', AddressesWereOne), new Version('2002-01-01', NamesWereFull),
    new Version('2001-01-01', LookupsWereTagged), new Version('2000-01-01'))
}

async function representativeApp (t: Teardown, options: Partial<FastifyVersionerOptions> = {}): Promise<FastifyInstance> {
  const stored = new Map<string, HeadUser>()
  return await versionedApp(t, bundle(), async (api) => {
    api.post('/users', { schema: { body: UserCreate, response: { 200: User } } }, async (request) => {
      const id = `u${stored.size + 1}`
      stored.set(id, request.body)
      return { id, ...request.body }
    })
    api.get('/users/:id', { schema: { params: Params, response: { 200: User } } }, async (request, reply) => {
      const user = stored.get(request.params.id)
      if (user === undefined) return reply.code(404 as never).send({ message: 'no such user' } as never)
      return { id: request.params.id, ...user }
    })
  }, { fastify: { onProtoPoisoning: 'ignore', onConstructorPoisoning: 'ignore' }, versioner: options })
}

const text = fc.string({ maxLength: 12 })
const headUser = fc.record({
  name: text,
  addresses: fc.array(text, { minLength: 1, maxLength: 5 }),
  profile: fc.record({ nickname: text })
})

/** A version picked for a header value, as the spec says: exact or the closest older date; `undefined` for a 400. */
function expectedVersion (value: string): ApiVersion | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined
  const date = new Date(`${value}T00:00:00Z`)
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) return undefined
  return VERSIONS.find((version) => version <= value)
}

const versionValue = versionValues(VERSIONS)

test('version parsing: any header value answers a correct version or a clear 400, never a 5xx', async (t) => {
  const app = await representativeApp(t)
  const failures: string[] = []
  await fc.assert(fc.asyncProperty(versionValue, async (value) => {
    // Header values cannot hold control characters or non-Latin-1 text: such requests never reach a server.
    const header = value.replace(/[^\x20-\x7e]/g, '')
    const response = await app.inject({ method: 'GET', url: '/users/none', headers: { 'x-api-version': header } })
    const expected = expectedVersion(header.trim())
    if (response.statusCode >= 500) failures.push(`${JSON.stringify(header)}: ${response.statusCode}`)
    else if (expected === undefined && header.trim() !== '' && response.statusCode !== 400) failures.push(`${JSON.stringify(header)}: ${response.statusCode}, not 400`)
    else if (response.statusCode === 400 && !/version/i.test(String(response.json().message))) failures.push(`${JSON.stringify(header)}: an unclear 400`)
    else if (response.statusCode === 404 && response.headers['x-api-version'] !== expected) failures.push(`${JSON.stringify(header)}: served ${String(response.headers['x-api-version'])}, expected ${String(expected)}`)
  }), { seed: SEED, numRuns: 300 })
  t.same(failures, [], 'every header value: a correct version or a clear 400')
})

test('version parsing: any path segment answers a correct version, a clear 400 or a 404, never a 5xx', async (t) => {
  const app = await representativeApp(t, { apiVersionLocation: 'path' })
  const failures: string[] = []
  await fc.assert(fc.asyncProperty(versionValue, async (value) => {
    const response = await app.inject({ method: 'GET', url: `/${encodeURIComponent(value)}/users/none` })
    const expected = expectedVersion(value)
    if (response.statusCode >= 500) failures.push(`${JSON.stringify(value)}: ${response.statusCode}`)
    else if (response.statusCode === 400 && !/version/i.test(String(response.json().message))) failures.push(`${JSON.stringify(value)}: an unclear 400`)
    else if (response.headers['x-api-version'] !== undefined && response.headers['x-api-version'] !== expected) {
      failures.push(`${JSON.stringify(value)}: served ${String(response.headers['x-api-version'])}, expected ${String(expected)}`)
    }
  }), { seed: SEED, numRuns: 200 })
  t.same(failures, [], 'every path segment: a correct version, a clear 400 or a 404')
})

test('body round trips: a user created in any version comes back in that version\'s shape, from POST and from GET', async (t) => {
  const app = await representativeApp(t)
  const failures: string[] = []
  await fc.assert(fc.asyncProperty(headUser, fc.constantFrom(...VERSIONS), async (user, version) => {
    // One address per user before 2003-01-01: older clients can send only one.
    const sent = version === '2003-01-01' ? user : { ...user, addresses: user.addresses.slice(0, 1) }
    const created = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': version }, payload: asVersion(sent, version) })
    const { id, ...body } = created.json()
    if (created.statusCode !== 200) failures.push(`${version} POST ${created.statusCode}`)
    else if (!isDeepStrictEqual(body, asVersion(sent, version))) failures.push(`${version} POST ${created.body}`)
    for (const other of VERSIONS) {
      const read = await app.inject({ method: 'GET', url: `/users/${String(id)}`, headers: { 'x-api-version': other } })
      const { id: _id, ...readBody } = read.json()
      if (!isDeepStrictEqual(readBody, asVersion(sent, other))) failures.push(`${version} → ${other} GET ${read.body}`)
    }
  }), { seed: SEED, numRuns: 40 })
  t.same(failures, [], 'every version reads every version\'s users in its own shape')
})

/** Keys that must never become prototypes or reach Object.prototype. */
const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype']

/** Hostile JSON text: extra keys (prototype names among them), odd types and deep nesting, merged into a body of `version`. */
function hostileBody (version: ApiVersion): fc.Arbitrary<string> {
  const key = fc.oneof(fc.constantFrom(...HOSTILE_KEYS, 'role', 'isAdmin', 'addresses', 'address', 'name', 'fullName'), fc.string({ maxLength: 6 }))
  const odd = fc.oneof(fc.constant(null), fc.boolean(), fc.double(), fc.integer(), text, fc.constant([]), fc.constant({}),
    fc.dictionary(key, fc.oneof(text, fc.integer(), fc.constant({ polluted: true })), { maxKeys: 3 }))
  const deep = fc.integer({ min: 1, max: 3000 }).map((depth) => JSON.parse('{"a":'.repeat(depth) + '1' + '}'.repeat(depth)) as unknown)
  const extras = fc.dictionary(key, fc.oneof(odd, deep), { maxKeys: 4 })
  const base = headUser.map((user) => asVersion({ ...user, addresses: user.addresses.slice(0, 1) }, version))
  return fc.tuple(base, extras, extras, fc.option(fc.constantFrom('name', 'fullName', 'address', 'addresses', 'profile'), { nil: undefined }), odd)
    .map(([body, top, inProfile, replaced, value]) => {
      const profile = { ...(body.profile as object) }
      for (const [name, extra] of Object.entries(inProfile)) Object.defineProperty(profile, name, { value: extra, enumerable: true })
      const result: Record<string, unknown> = { ...body }
      for (const [name, extra] of Object.entries(top)) Object.defineProperty(result, name, { value: extra, enumerable: true, writable: true, configurable: true })
      result.profile = profile
      if (replaced !== undefined) result[replaced] = value
      // JSON.stringify writes own `__proto__` keys as keys: JSON.parse on the server makes them own properties again.
      return JSON.stringify(result)
    })
}

/** The keys a version's user has, for a shape check. */
function shapeKeys (version: ApiVersion): string {
  return Object.keys(asVersion({ name: '', addresses: [''], profile: { nickname: '' } }, version)).concat('id').sort().join(',')
}

test('the hostile-input and fault run: 0 wrong shapes, 0 unexpected 5xx, 0 prototype pollution, 0 version-dependent answers without Vary, 0 wrong revalidations', async (t) => {
  const app = await representativeApp(t)
  const figures = { requests: 0, wrongShapes: 0, unexpected5xx: 0, pollution: 0, missingVary: 0, expectedConverterFailures: 0, wrongRevalidations: 0 }
  const problems: string[] = []
  const objectKeys = Object.getOwnPropertyNames(Object.prototype).sort().join(',')
  const polluted = (): boolean => Object.getOwnPropertyNames(Object.prototype).sort().join(',') !== objectKeys ||
    ({} as Record<string, unknown>).polluted !== undefined || ({} as Record<string, unknown>).role !== undefined
  // Every answer naming a version (any method: a POST answer may be cached too) varies on the version header.
  const countVary = (response: { headers: Record<string, unknown> }, what: string): void => {
    if (!/(^|, *)x-api-version(,|$)/.test(String(response.headers.vary))) { figures.missingVary++; problems.push(`${what}: no Vary`) }
  }
  const checkGet = async (url: string, version: string | undefined, what: string) => {
    const response = await app.inject({ method: 'GET', url, headers: version === undefined ? {} : { 'x-api-version': version } })
    figures.requests++
    if (response.statusCode >= 500) { figures.unexpected5xx++; problems.push(`${what}: ${response.statusCode}`) }
    countVary(response, what)
    return response
  }

  await fc.assert(fc.asyncProperty(fc.constantFrom(...VERSIONS).chain((version) => fc.tuple(fc.constant(version), hostileBody(version))), async ([version, payload]) => {
    const response = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': version, 'content-type': 'application/json' }, payload })
    figures.requests++
    countVary(response, `POST ${version}`)
    if (response.statusCode >= 500) { figures.unexpected5xx++; problems.push(`POST ${version} ${payload.slice(0, 200)}: ${response.statusCode} ${response.body}`) }
    if (polluted()) { figures.pollution++; problems.push(`POST ${version} polluted Object.prototype`) }
    if (response.statusCode === 200) {
      const body = response.json() as Record<string, unknown>
      if (Object.keys(body).sort().join(',') !== shapeKeys(version) || Object.keys(body.profile as object).join(',') !== 'nickname') {
        figures.wrongShapes++
        problems.push(`POST ${version}: shape ${response.body.slice(0, 200)}`)
      }
      if (Object.getPrototypeOf(body.profile) !== Object.prototype) { figures.pollution++; problems.push(`POST ${version}: profile prototype changed`) }
      for (const other of VERSIONS) {
        const read = await checkGet(`/users/${String(body.id)}`, other, `GET ${other} of a ${version} user`)
        if (read.statusCode !== 200 || Object.keys(read.json()).sort().join(',') !== shapeKeys(other)) {
          figures.wrongShapes++
          problems.push(`GET ${other} of a ${version} user: ${read.statusCode} ${read.body.slice(0, 200)}`)
        }
      }
    } else if (response.statusCode !== 400 && response.statusCode < 500) {
      problems.push(`POST ${version}: ${response.statusCode}, expected 200 or 400`)
    }
  }), { seed: SEED, numRuns: 60 })

  // Faults: converters that fail (a thrown null on the request side, Promise.reject() on the response side) answer 500.
  for (const version of ['2002-01-01', '2001-01-01', '2000-01-01'] as const) {
    for (const fault of ['fail-request', 'fail-response']) {
      const payload = asVersion({ name: 'n', addresses: [fault], profile: { nickname: 'x' } }, version)
      const response = await app.inject({ method: 'POST', url: '/users', headers: { 'x-api-version': version }, payload })
      figures.requests++
      countVary(response, `${fault} in ${version}`)
      if (response.statusCode === 500 && response.json().code === 'FST_VERSIONER_CONVERTER_FAILED') figures.expectedConverterFailures++
      else problems.push(`${fault} in ${version}: ${response.statusCode} ${response.body}`)
    }
  }
  // Hostile If-None-Match on a document (issue 35): never a 5xx; 304 for a list holding its tag (weak or not) or `*`, else 200.
  const etag = String((await app.inject('/openapi.json?version=2002-01-01')).headers.etag)
  const listed = fc.tuple(fc.array(fc.stringMatching(/^(W\/)?"[A-Za-z0-9_-]{0,43}"$/), { maxLength: 4 }), fc.nat(4), fc.boolean())
    .map(([others, at, weak]) => ({ header: [...others.slice(0, at), `${weak ? 'W/' : ''}${etag}`, ...others.slice(at)].join(', '), expected: 304 }))
  const unlisted = fc.string({ maxLength: 300, unit: 'binary-ascii' }).filter((header) => !header.includes(etag)).map((header) => ({ header, expected: header.trim() === '*' ? 304 : 200 }))
  await fc.assert(fc.asyncProperty(fc.oneof(listed, unlisted), async ({ header, expected }) => {
    const response = await app.inject({ url: '/openapi.json?version=2002-01-01', headers: { 'if-none-match': header } })
    figures.requests++
    if (response.statusCode >= 500) { figures.unexpected5xx++; problems.push(`If-None-Match ${JSON.stringify(header)}: ${response.statusCode}`) }
    if (response.statusCode !== expected) { figures.wrongRevalidations++; problems.push(`If-None-Match ${JSON.stringify(header)}: ${response.statusCode}, expected ${expected}`) }
  }), { seed: SEED, numRuns: 100 })
  // Every version-dependent GET: documents chosen by the header, 400s for a bad or missing version, 404s.
  for (const version of VERSIONS) {
    await checkGet('/openapi.json', version, `document ${version}`)
    await checkGet('/users/none', version, `404 in ${version}`)
  }
  await checkGet('/users/u1', 'soon', 'a bad version')
  await checkGet('/users/u1', undefined, 'a missing version')

  t.comment(`hostile-input and fault run: ${JSON.stringify(figures)}`)
  t.same(problems, [], 'no problem found')
  t.equal(figures.wrongShapes, 0, 'wrong-shaped answers')
  t.equal(figures.unexpected5xx, 0, 'unexpected 5xx')
  t.equal(figures.pollution, 0, 'prototype pollution')
  t.equal(figures.missingVary, 0, 'version-dependent answers (GET, POST, errors) without Vary')
  t.equal(figures.wrongRevalidations, 0, 'documents revalidated wrongly (a 304 for another tag, a 200 for their own)')
  t.equal(figures.expectedConverterFailures, 6, 'every injected converter fault answered FST_VERSIONER_CONVERTER_FAILED')
  t.ok(figures.requests > 100, 'the run made requests')
})
