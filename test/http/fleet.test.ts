/**
 * A fleet during a rolling deploy: several instances of build N and of build N+1 (which adds 2027-01-01, released at
 * an instant, with a version change) behind a round-robin balancer, over real HTTP, each instance with its own clock
 * a few hundred milliseconds off the others'. What a client sees before, at and after the instant; documents, pages
 * and their ETags across instances and builds; accounts pinned to the new version; brownouts; webhooks rendered by
 * either build.
 */
import { test } from 'tap'
import fc from 'fast-check'
import { Type, type TObject } from '@sinclair/typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { enumeration, renderWebhook, schema, Version, VersionBundle, VersionPicker, type Instruction, type VersionLifecycle } from '../../plugin'
import { versionedApp, type Teardown } from '../helpers/apps'
import { listen } from '../helpers/http-apps'
import { changeClass, fullNameWasNameInResponses } from '../helpers/version-changes'

/** The instant 2027-01-01 is released at, in build N+1. */
const RELEASE = Date.parse('2027-01-01T09:00:00Z')
/** The most any instance's clock is off the true time. */
const SKEW = 400
/** A brownout of 2026-01-01, after the release (both builds have it). */
const BROWNOUT = { start: '2027-01-05T14:00:00Z', end: '2027-01-05T15:00:00Z' }

/** Build N's HEAD user has `name`; build N+1's has `fullName` (2026-06-01 and older had `name`). */
const UserN = Type.Object({ id: Type.String(), name: Type.String() }, { $id: 'User' })
const UserN1 = Type.Object({ id: Type.String(), fullName: Type.String() }, { $id: 'User' })

/** The accounts and the version each is pinned to: `acct_early` was pinned to 2027-01-01 before its instant. */
const PINS: Record<string, string> = { acct_early: '2027-01-01', acct_old: '2026-01-01', acct_mid: '2026-06-01' }

class AccountPicker extends VersionPicker {
  override pick (request: FastifyRequest): string | undefined {
    return this.requested(request) ?? PINS[String(request.headers.authorization)]
  }
}

const OLDEST: VersionLifecycle = { deprecatedAt: '2026-06-01', sunsetAt: '2027-06-01', afterSunset: 'gone', brownouts: [BROWNOUT] }

/** The versions of a build: N serves 2026-06-01 and 2026-01-01; N+1 adds 2027-01-01 (users' `name` became `fullName`). */
function bundleOf (build: 'N' | 'N+1'): VersionBundle {
  const older = [new Version('2026-06-01'), new Version('2026-01-01', OLDEST)]
  return build === 'N'
    ? new VersionBundle(...older)
    : new VersionBundle(new Version('2027-01-01', fullNameWasNameInResponses(UserN1), { releasedAt: new Date(RELEASE).toISOString() }), ...older)
}

/** One instance of a build, listening on its own port, its clock `skew` ms off the fleet's true time. */
interface Instance {
  readonly build: 'N' | 'N+1'
  /** How far its clock is off (changed by the property tests). */
  skew: number
  readonly app: FastifyInstance
  readonly url: string
}

/** The fleet's true time: every instance reads it plus its own skew. */
const fleet = { time: RELEASE - 3_600_000 }

async function instance (t: Teardown, build: 'N' | 'N+1', skew: number): Promise<Instance> {
  const clock = { skew }
  const app = await versionedApp(t, bundleOf(build), async (api) => {
    api.get('/users/:id', { schema: { response: { 200: build === 'N' ? UserN : UserN1 } } },
      async (request) => build === 'N'
        ? { id: (request.params as { id: string }).id, name: 'Ada Lovelace' }
        : { id: (request.params as { id: string }).id, fullName: 'Ada Lovelace' })
  }, {
    versioner: { now: () => fleet.time + clock.skew, versionPicker: AccountPicker, clientId: (request) => request.headers.authorization },
    beforeRoutes: (app) => { app.versioner.webhooks.add({ name: 'user.updated', body: build === 'N' ? UserN : UserN1 }) }
  })
  await app.ready()
  const url = await listen(app)
  return Object.assign(clock, { build, app, url })
}

/** What a client sees of an answer: status, headers but `date`, and the body text. */
interface Seen {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

async function get (target: Instance, path: string, headers: Record<string, string> = {}): Promise<Seen> {
  const response = await fetch(target.url + path, { headers })
  const seen: Record<string, string> = {}
  response.headers.forEach((value, name) => { if (name !== 'date' && name !== 'keep-alive' && name !== 'connection') seen[name] = value })
  return { status: response.status, headers: seen, body: await response.text() }
}

/** The requests clients of every version send, with and without a version, pinned or not. */
const CLIENTS: ReadonlyArray<Record<string, string>> = [
  { 'x-api-version': '2027-01-01' },
  { 'x-api-version': '2027-03-01' },
  { 'x-api-version': '2026-06-01' },
  { 'x-api-version': '2026-01-01' },
  { 'x-api-version': '2026-08-01' },
  { 'x-api-version': '2025-01-01' },
  { 'x-api-version': 'soon' },
  { 'x-api-version': '2027-01-01.beta' },
  {},
  { authorization: 'acct_early' },
  { authorization: 'acct_old' },
  { authorization: 'acct_mid' },
  { authorization: 'acct_early', 'x-api-version': '2026-06-01' }
]

test('before the instant, every instance of either build answers every client byte for byte alike; from it (by its own clock) N+1 serves 2027-01-01', async (t) => {
  const skews = [-SKEW, -150, 0, 170, SKEW]
  const instances = [...await Promise.all(skews.map(async (skew) => await instance(t, 'N', skew))), ...await Promise.all(skews.map(async (skew) => await instance(t, 'N+1', skew)))]
  for (const at of [RELEASE - 3_600_000, RELEASE - SKEW - 1]) {
    fleet.time = at
    for (const headers of CLIENTS) {
      const answers = await Promise.all(instances.map(async (one) => JSON.stringify(await get(one, '/users/1', headers))))
      t.equal(new Set(answers).size, 1, `${new Date(at).toISOString()} ${JSON.stringify(headers)}: one answer from the whole fleet`)
    }
  }
  fleet.time = RELEASE + SKEW
  for (const headers of CLIENTS) {
    const answers = await Promise.all(instances.filter((one) => one.build === 'N+1').map(async (one) => JSON.stringify(await get(one, '/users/1', headers))))
    t.equal(new Set(answers).size, 1, `after the instant, every N+1 instance answers ${JSON.stringify(headers)} alike`)
  }
})

/** The documentation a CDN in front of the fleet keeps: documents, pages, the upgrade guide, the files pages load. */
const DOCUMENTATION = [
  '/openapi.json', '/openapi.json?version=2027-01-01', '/openapi.json?version=2026-06-01', '/openapi.json?version=2026-01-01',
  '/openapi.json?version=2027-02-01', '/openapi.json?version=unversioned', '/docs', '/docs?version=2027-01-01', '/docs?version=2026-01-01',
  '/redoc?version=2026-06-01', '/docs/upgrade?from=2026-01-01&to=2027-01-01', '/docs/upgrade?from=2026-01-01&to=2026-06-01&format=json',
  '/changelog', '/docs/assets/docs.css', '/docs/assets/swagger-initializer.js', '/docs/assets/swagger-ui-bundle.js'
]

test('documentation: the same bytes and ETag on every instance of a build, 304 across instances and across builds exactly where the bytes are the same', async (t) => {
  fleet.time = RELEASE - 60_000
  const skews = [-SKEW, 0, SKEW]
  const builds = { N: await Promise.all(skews.map(async (skew) => await instance(t, 'N', skew))), 'N+1': await Promise.all(skews.map(async (skew) => await instance(t, 'N+1', skew))) }
  const fetchAll = async (): Promise<Map<string, Record<'N' | 'N+1', Seen>>> => {
    const seen = new Map<string, Record<'N' | 'N+1', Seen>>()
    for (const path of DOCUMENTATION) {
      const byBuild: Partial<Record<'N' | 'N+1', Seen>> = {}
      for (const build of ['N', 'N+1'] as const) {
        const answers = await Promise.all(builds[build].map(async (one) => await get(one, path)))
        t.equal(new Set(answers.map((answer) => JSON.stringify(answer))).size, 1, `${build} ${path}: one answer from every instance`)
        byBuild[build] = answers[0]
      }
      seen.set(path, byBuild as Record<'N' | 'N+1', Seen>)
    }
    return seen
  }
  const before = await fetchAll()
  for (const [path, { N, 'N+1': next }] of before) {
    t.same(next, N, `before the instant, ${path} from N+1 is N's answer byte for byte (its ETag too): a cache sees no deploy`)
  }
  for (const [path, { N, 'N+1': next }] of before) {
    const etag = N.headers.etag
    if (etag === undefined) {
      // The deprecated changelog is given no ETag (decision 0083).
      t.ok(N.status !== 200 || path === '/changelog', `${path}: every 200 has an ETag`)
      continue
    }
    t.match(N.headers['cache-control'], /no-cache/, `${path}: revalidated at each use`)
    for (const build of ['N', 'N+1'] as const) {
      for (const one of builds[build]) {
        const revalidated = await get(one, path, { 'if-none-match': etag })
        const same = (build === 'N' ? N : next).body === N.body
        t.equal(revalidated.status, same ? 304 : 200, `${path}: N's ETag at an instance of ${build}: ${same ? '304' : '200, the bytes differ'}`)
        if (same) {
          t.equal(revalidated.body, '', `${path}: a 304 has no body`)
          t.equal(revalidated.headers.etag, etag)
          t.equal(revalidated.headers['cache-control'], N.headers['cache-control'])
        }
      }
    }
    if (next.body === N.body) t.equal(next.headers.etag, etag, `${path}: the same bytes in both builds, the same ETag`)
    else t.not(next.headers.etag, etag, `${path}: other bytes, another ETag`)
  }
  const fingerprints = { N: builds.N.map((one) => one.app.versioner.fingerprint), 'N+1': builds['N+1'].map((one) => one.app.versioner.fingerprint) }
  t.equal(new Set(fingerprints.N).size, 1, 'one fingerprint for every instance of N')
  t.equal(new Set(fingerprints['N+1']).size, 1, 'one for every instance of N+1')
  t.not(fingerprints.N[0], fingerprints['N+1'][0], 'the builds are told apart before the instant, when their answers are the same')

  fleet.time = RELEASE + SKEW
  t.same(builds['N+1'].map((one) => one.app.versioner.fingerprint), fingerprints['N+1'], 'the fingerprint counts the release to come: the same after the instant')
  for (const path of DOCUMENTATION) {
    const answers = await Promise.all(builds['N+1'].map(async (one) => await get(one, path)))
    t.equal(new Set(answers.map((answer) => JSON.stringify(answer))).size, 1, `after the instant, N+1 ${path}: one answer from every instance`)
    const earlier = before.get(path)?.['N+1']
    if (earlier?.headers.etag === undefined) continue
    const revalidated = await get(builds['N+1'][0], path, { 'if-none-match': earlier.headers.etag })
    t.equal(revalidated.status, answers[0].body === earlier.body ? 304 : 200, `after the instant, ${path}: the ETag kept from before ${answers[0].body === earlier.body ? 'still matches' : 'is refused'}`)
  }
  const newest = await get(builds['N+1'][1], '/openapi.json')
  t.equal(JSON.parse(newest.body).info.version, '2027-01-01', 'the newest document is 2027-01-01\'s from the instant')
})

/** The version an answer was served in, and the field its user's name is in (`fullName` only in 2027-01-01). */
function shapeOf (seen: Seen): string {
  return seen.status === 200 ? `${seen.headers['x-api-version']} ${Object.keys(JSON.parse(seen.body) as object).join(',')}` : String(seen.status)
}

test('skewed clocks, at random: each instance switches at the instant by its own clock; the fleet agrees outside the skew, and a brownout is the same 410 everywhere', async (t) => {
  const instances = await Promise.all([-300, -100, 0, 100, 300].map(async (skew) => await instance(t, 'N+1', skew)))
  const start = Date.parse(BROWNOUT.start)
  const end = Date.parse(BROWNOUT.end)
  const around = (instant: number): fc.Arbitrary<number> => fc.integer({ min: instant - 2 * SKEW, max: instant + 2 * SKEW })
  await fc.assert(fc.asyncProperty(
    fc.array(fc.integer({ min: -SKEW, max: SKEW }), { minLength: instances.length, maxLength: instances.length }),
    fc.oneof(around(RELEASE), around(start), around(end)),
    async (skews, time) => {
      skews.forEach((skew, index) => { instances[index].skew = skew })
      fleet.time = time
      // A round-robin balancer: the same client, each request to the next instance.
      for (const [index, one] of instances.entries()) {
        const own = time + one.skew
        const newest = shapeOf(await get(one, '/users/1', { 'x-api-version': '2027-01-01' }))
        const expected = own >= RELEASE ? '2027-01-01 id,fullName' : '2026-06-01 id,name'
        if (newest !== expected) return false
        const pinned = shapeOf(await get(one, '/users/1', { authorization: 'acct_early' }))
        if (pinned !== expected) return false
        const inWindow = own >= start && own < end
        for (const headers of [{ 'x-api-version': '2026-01-01' }, { authorization: 'acct_old' }] as Array<Record<string, string>>) {
          const oldest = await get(one, '/users/1', headers)
          if (oldest.status !== (inWindow ? 410 : 200)) return false
          if (inWindow && !/\bno-cache\b/.test(oldest.headers['cache-control'] ?? '')) throw new Error(`instance ${index}: a brownout's 410 to ${JSON.stringify(headers)} is Cache-Control: ${oldest.headers['cache-control']}`)
        }
      }
      return true
    }
  ), { numRuns: 40 })
  t.pass('every instance followed its own clock')

  // Outside the skew every instance agrees; inside it they answer by their own clocks (keep clocks synchronised).
  for (const [time, expected] of [[RELEASE - SKEW - 1, '2026-06-01 id,name'], [RELEASE + SKEW, '2027-01-01 id,fullName']] as const) {
    fleet.time = time
    const answers = await Promise.all(instances.map(async (one) => shapeOf(await get(one, '/users/1', { 'x-api-version': '2027-01-01' }))))
    t.same(new Set(answers), new Set([expected]), `${new Date(time).toISOString()}: ${expected} from every instance`)
  }
  fleet.time = start + SKEW
  const brownouts = await Promise.all(instances.map(async (one) => await get(one, '/users/1', { 'x-api-version': '2026-01-01' })))
  t.equal(new Set(brownouts.map((answer) => JSON.stringify(answer))).size, 1, 'in the window: the same 410, byte for byte, from every instance')
})

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
/** Subscribers of every version, `ep_early` pinned to 2027-01-01 before its instant. */
const SUBSCRIBERS = [
  { id: 'ep_early', version: '2027-01-01', secret: SECRET },
  { id: 'ep_mid', version: '2026-06-01', secret: SECRET },
  { id: 'ep_old', version: '2026-01-01', secret: SECRET },
  { id: 'ep_dated', version: new Date('2027-02-01T00:00:00Z'), secret: SECRET }
]

/** An event as each build's HEAD makes it. */
const EVENT = { N: { id: 'u_1', name: 'Ada Lovelace' }, 'N+1': { id: 'u_1', fullName: 'Ada Lovelace' } }

test('webhooks: before the instant both builds render every subscriber the same bytes and signatures; from it N+1 renders 2027-01-01 for its pins', async (t) => {
  fleet.time = RELEASE - 60_000
  const [n, next] = [await instance(t, 'N', -SKEW), await instance(t, 'N+1', SKEW)]
  const render = async (one: Instance, timestamp: Date): Promise<unknown> => {
    const rendered = await one.app.versioner.webhooks.render('user.updated', EVENT[one.build], { subscribers: SUBSCRIBERS, id: 'msg_fleet', timestamp })
    t.same([rendered.skipped, rendered.failed], [[], []])
    return rendered.deliveries.map(({ subscriber, ...delivery }) => ({ subscriber: subscriber.id, ...delivery }))
  }
  const before = new Date(RELEASE - 1)
  const fromN = await render(n, before)
  t.same(await render(next, before), fromN, 'one millisecond before the instant: the same deliveries, byte for byte, from either build')
  t.match(fromN, [{ subscriber: 'ep_early', version: '2026-06-01', fellForward: false, body: '{"id":"u_1","name":"Ada Lovelace"}' }, {}, {}, { subscriber: 'ep_dated', version: '2026-06-01' }])
  const at = new Date(RELEASE)
  t.match(await render(next, at), [
    { subscriber: 'ep_early', version: '2027-01-01', fellForward: false, body: '{"id":"u_1","fullName":"Ada Lovelace"}', headers: { 'x-api-version': '2027-01-01' } },
    { subscriber: 'ep_mid', version: '2026-06-01', body: '{"id":"u_1","name":"Ada Lovelace"}' },
    { subscriber: 'ep_old', version: '2026-01-01' },
    { subscriber: 'ep_dated', version: '2027-01-01' }
  ], 'at the instant (the timestamp, not the instance\'s clock): N+1 renders the new version for its pins')
  const bodies = (deliveries: unknown): unknown => (deliveries as Array<Record<string, unknown>>).map(({ subscriber, version, body }) => ({ subscriber, version, body }))
  t.same(bodies(await render(n, at)), bodies(fromN), 'N still renders what it rendered before: finish the rollout before the instant')
})

test('webhooks in a queue: the queued version tells the builds apart before the instant, and another build\'s HEAD body is refused, not sent', async (t) => {
  const [n, next] = [bundleOf('N'), bundleOf('N+1')]
  // The docs' recipe: queue the event with the newest version of the build that made it (a release to come included).
  t.equal(n.versionValues[0], '2026-06-01')
  t.equal(next.versionValues[0], '2027-01-01', 'N+1\'s HEAD is 2027-01-01 before its instant too: a worker of N refuses its events')
  const options = { subscribers: SUBSCRIBERS, id: 'msg_queued', timestamp: new Date(RELEASE - 1000) }
  for (const [made, renderedBy, bundle] of [['N', 'N+1', next], ['N+1', 'N', n]] as const) {
    const definition = { name: 'user.updated', body: renderedBy === 'N' ? UserN : UserN1 }
    const error = await renderWebhook(bundle, definition, EVENT[made], options).then(() => undefined, (caught: Error & { code?: string }) => caught)
    t.equal(error?.code, 'FST_VERSIONER_INVALID_WEBHOOK_BODY', `an event ${made} made, rendered by ${renderedBy}: refused, naming the field`)
  }
  // Rendered by its own build's worker, later: the render's timestamp decides the version.
  const late = await renderWebhook(next, { name: 'user.updated', body: UserN1 }, EVENT['N+1'], { ...options, timestamp: new Date(RELEASE + 1000) })
  t.equal(late.deliveries[0].version, '2027-01-01', 'queued before the instant, rendered after it by N+1: the pinned subscriber gets the new version')
})

test('limit: a subscriber pinned to a named release (v3) before its instant falls forward to the oldest version, on either build alike', async (t) => {
  const builds = [new VersionBundle(new Version('v2'), new Version('v1')), new VersionBundle(new Version('v3', { releasedAt: new Date(RELEASE).toISOString() }), new Version('v2'), new Version('v1'))]
  const subscribers = [{ id: 'ep_v3', version: 'v3', secret: SECRET }]
  const rendered = await Promise.all(builds.map(async (bundle) => (await renderWebhook(bundle, { name: 'user.updated', body: UserN }, EVENT.N, { subscribers, timestamp: new Date(RELEASE - 1) })).deliveries[0]))
  t.match(rendered, [{ version: 'v1', fellForward: true }, { version: 'v1', fellForward: true }], 'the build without v3 cannot tell it from a retired value; the build with it answers the same')
  const after = await renderWebhook(builds[1], { name: 'user.updated', body: UserN }, EVENT.N, { subscribers, timestamp: new Date(RELEASE) })
  t.match(after.deliveries[0], { version: 'v3', fellForward: false }, 'from its instant: v3')
})

test('limit: an account pinned to a named release (v3) before its instant is answered 400, as a request naming it is (a date pin is served the newest version: acct_early above)', async (t) => {
  let time = RELEASE - 1
  class Pinned extends VersionPicker {
    override pick (request: FastifyRequest): string | undefined { return this.requested(request) ?? String(request.headers.authorization) }
  }
  const app = await versionedApp(t, new VersionBundle(new Version('v3', { releasedAt: new Date(RELEASE).toISOString() }), new Version('v2'), new Version('v1')), async (api) => {
    api.get('/users/:id', async () => EVENT.N)
  }, { versioner: { now: () => time, apiVersionFormat: 'string', versionPicker: Pinned } })
  const before = await app.inject({ url: '/users/1', headers: { authorization: 'v3' } })
  t.equal(before.statusCode, 400)
  t.equal(before.json().message, "Unknown API version 'v3' picked for this request (the request does not name it in the 'x-api-version' header). Supported versions: v2, v1.")
  time = RELEASE
  t.equal((await app.inject({ url: '/users/1', headers: { authorization: 'v3' } })).headers['x-api-version'], 'v3', 'from its instant')
})

/** How build N+1 changed a schema build N has as HEAD: N's schema, N+1's, and the instructions saying how it was in N. */
const CHANGES: ReadonlyArray<[string, TObject, TObject, (head: TObject) => Instruction[]]> = [
  ['a field added', Type.Object({ id: Type.String() }), Type.Object({ id: Type.String(), nick: Type.String() }), (head) => [schema(head).field('nick').didntExist]],
  ['a field renamed', Type.Object({ id: Type.String(), name: Type.String() }), Type.Object({ id: Type.String(), fullName: Type.String() }), (head) => [schema(head).field('fullName').had({ name: 'name' })]],
  ['a type changed', Type.Object({ id: Type.Integer({ minimum: 0 }), a: Type.String() }), Type.Object({ id: Type.String({ format: 'uuid' }), a: Type.String() }),
    (head) => [schema(head).field('id').had({ type: Type.Integer({ minimum: 0 }) })]],
  ['a field made required', Type.Object({ id: Type.String(), a: Type.Optional(Type.String()) }), Type.Object({ id: Type.String(), a: Type.String() }), (head) => [schema(head).field('a').had({ optional: true })]],
  ['a keyword changed', Type.Object({ id: Type.String({ maxLength: 5 }) }), Type.Object({ id: Type.String({ maxLength: 9 }) }), (head) => [schema(head).field('id').had({ maxLength: 5 })]],
  ['a keyword added', Type.Object({ id: Type.String() }), Type.Object({ id: Type.String({ maxLength: 9 }) }), (head) => [schema(head).field('id').didntHave('maxLength')]],
  ['an enum member added', Type.Object({ s: Type.Enum({ a: 'a', b: 'b' }) }), Type.Object({ s: Type.Enum({ a: 'a', b: 'b', c: 'c' }) }),
    (head) => [enumeration(head.properties.s).didntHave('c')]]
]

test('a build adding a version serves each older version\'s document byte for byte as the build before did, whatever the change', async (t) => {
  for (const [what, before, after, instructions] of CHANGES) {
    const documents: string[] = []
    for (const build of ['N', 'N+1'] as const) {
      const User = Type.Object((build === 'N' ? before : after).properties, { $id: 'User' })
      const versions = build === 'N'
        ? new VersionBundle(new Version('2026-06-01'))
        : new VersionBundle(new Version('2027-01-01', changeClass('Change', instructions(User)), { releasedAt: new Date(RELEASE).toISOString() }), new Version('2026-06-01'))
      const app = await versionedApp(t, versions, async (api) => {
        api.get('/users/:id', { schema: { response: { 200: User } } }, async () => ({}))
      }, { versioner: { now: () => RELEASE - 1 } })
      documents.push((await app.inject('/openapi.json?version=2026-06-01')).body)
    }
    t.equal(documents[1], documents[0], `${what}: the same bytes, so the same ETag`)
  }
  // `@fastify/swagger` describes a response by its schema's description: the older form's, not HEAD's.
  const described = async (description: string, had?: string): Promise<unknown> => {
    const User = Type.Object({ id: Type.String() }, { $id: 'User', description })
    const bundle = had === undefined ? new VersionBundle(new Version('2026-06-01')) : new VersionBundle(new Version('2027-01-01', changeClass('Reworded', [schema(User).had({ description: had })])), new Version('2026-06-01'))
    const app = await versionedApp(t, bundle, async (api) => { api.get('/users/:id', { schema: { response: { 200: User } } }, async () => ({ id: '1' })) })
    return (await app.inject('/openapi.json?version=2026-06-01')).json().paths['/users/{id}'].get.responses['200'].description
  }
  t.equal(await described('A person.', 'A user.'), await described('A user.'),
    'a reworded schema description: the older version\'s response is described as it was')
})
